import torch

# Solution: Multiplication table using broadcasting
rows = torch.arange(1, 6).unsqueeze(1)   # Column vector [5, 1]
cols = torch.arange(1, 6).unsqueeze(0)   # Row vector [1, 5]
table = rows * cols                       # Broadcasting → [5, 5]
print("Multiplication table:\n", table)
