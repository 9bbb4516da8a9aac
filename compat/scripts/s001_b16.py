import torch

x = torch.arange(12)
print("Original:", x)           # tensor([ 0,  1,  2, ..., 11])
print("Shape:", x.shape)        # torch.Size([12])

# view — requires contiguous memory, returns a VIEW (shared data)
v = x.view(3, 4)
print("View (3×4):\n", v)

# reshape — works even on non-contiguous tensors (may copy data)
r = x.reshape(4, 3)
print("Reshape (4×3):\n", r)

# Use -1 to let PyTorch infer one dimension
auto = x.view(2, -1)   # -1 becomes 6 (12 / 2)
print("Auto shape:", auto.shape)  # torch.Size([2, 6])

# view shares memory — modifying one changes the other
v[0, 0] = 999
print("After modifying view, original:", x[0])  # 999

# flatten — shorthand for reshaping to 1D
matrix = torch.randn(3, 4)
flat = matrix.flatten()
print("Flattened:", flat.shape)  # torch.Size([12])
