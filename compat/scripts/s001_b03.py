import torch

# Zeros and ones
zeros = torch.zeros(3, 4)          # 3×4 matrix of zeros
ones = torch.ones(2, 3, 5)         # 2×3×5 tensor of ones
print("Zeros shape:", zeros.shape)  # torch.Size([3, 4])
print("Ones shape:", ones.shape)    # torch.Size([2, 3, 5])

# Full — fill with any value
sevens = torch.full((2, 3), 7.0)
print("Full:\n", sevens)

# Identity matrix
eye = torch.eye(4)
print("Identity:\n", eye)
