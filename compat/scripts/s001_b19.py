import torch

t = torch.tensor([[10, 20, 30],
                   [40, 50, 60],
                   [70, 80, 90]])

# Basic slicing (same as NumPy)
print("Row 0:", t[0])           # tensor([10, 20, 30])
print("Col 1:", t[:, 1])       # tensor([20, 50, 80])
print("Block:", t[0:2, 1:3])   # tensor([[20, 30], [50, 60]])

# Boolean (mask) indexing — filter elements
scores = torch.tensor([85.0, 92.0, 67.0, 78.0, 95.0])
passed = scores > 80
print("Mask:", passed)                      # tensor([True, True, False, False, True])
print("Passing scores:", scores[passed])    # tensor([85., 92., 95.])

# Fancy indexing with lists
indices = [0, 2, 4]
print("Selected:", scores[indices])  # tensor([85., 67., 95.])

# where — conditional selection
result = torch.where(scores > 80, scores, torch.tensor(0.0))
print("Where result:", result)  # tensor([85., 92.,  0.,  0., 95.])
