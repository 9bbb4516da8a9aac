import torch

# Solution: Chaining tensor operations
torch.manual_seed(42)  # For reproducibility
A = torch.randn(3, 3)
B = torch.randn(3, 3)

result = (A @ B).T.flatten()
max_idx = result.argmax()

print("A:\n", A)
print("B:\n", B)
print("(A @ B)^T flattened:", result)
print(f"Max value: {result[max_idx]:.4f} at index {max_idx.item()}")
