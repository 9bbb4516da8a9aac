import torch

# From a Python list
a = torch.tensor([1, 2, 3, 4])
print("From list:", a)            # tensor([1, 2, 3, 4])

# From a nested list (2D tensor / matrix)
b = torch.tensor([[1, 2, 3],
                   [4, 5, 6]])
print("Matrix shape:", b.shape)   # torch.Size([2, 3])

# Scalar (0-dimensional tensor)
s = torch.tensor(3.14)
print("Scalar:", s)               # tensor(3.1400)
print("Scalar value:", s.item())  # 3.14 — extracts Python number
