import torch

# Scalar broadcast
a = torch.tensor([[1.0, 2.0, 3.0],
                   [4.0, 5.0, 6.0]])
print("a + 10:\n", a + 10)   # Scalar 10 broadcasts to every element

# Vector broadcast (add bias to each row)
bias = torch.tensor([100.0, 200.0, 300.0])  # Shape: [3]
print("a + bias:\n", a + bias)
# tensor([[101., 202., 303.],
#         [104., 205., 306.]])

# Column vector broadcast (add per-row scaling)
scale = torch.tensor([[10.0],
                       [20.0]])  # Shape: [2, 1]
print("a * scale:\n", a * scale)
# tensor([[ 10.,  20.,  30.],
#         [ 80., 100., 120.]])

# Broadcasting rules:
# 1. Align dimensions from the right
# 2. Dimensions must be equal, or one must be 1
# 3. Missing dimensions are treated as 1
print("\nBroadcasting shapes:")
print("  [2, 3] + [3]    → [2, 3]")     # bias added to each row
print("  [2, 3] * [2, 1] → [2, 3]")     # scale applied per-row
print("  [4, 1] + [1, 5] → [4, 5]")     # outer product-like
