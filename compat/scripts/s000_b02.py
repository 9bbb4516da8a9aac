import torch

x = torch.arange(12, dtype=torch.float32)

# --- Reshaping ---
a = x.reshape(3, 4)       # Reshape to 3x4 (may copy)
b = x.view(3, 4)          # Reshape to 3x4 (requires contiguous memory)
c = x.reshape(2, -1)      # -1 means "infer this dimension" -> 2x6

# --- Squeeze / Unsqueeze ---
t = torch.zeros(1, 3, 1, 4)
print(t.shape)                    # torch.Size([1, 3, 1, 4])
print(t.squeeze().shape)          # torch.Size([3, 4]) — removes all size-1 dims
print(t.squeeze(0).shape)         # torch.Size([3, 1, 4]) — removes dim 0 only

u = torch.zeros(3, 4)
print(u.unsqueeze(0).shape)       # torch.Size([1, 3, 4]) — add dim at position 0
print(u.unsqueeze(-1).shape)      # torch.Size([3, 4, 1]) — add dim at end

# --- Indexing and Slicing (NumPy-style) ---
m = torch.arange(12).reshape(3, 4)
print(m[0])           # First row: tensor([0, 1, 2, 3])
print(m[:, 1])        # Second column: tensor([1, 5, 9])
print(m[1:, :2])      # Rows 1+, first 2 cols: tensor([[4, 5], [8, 9]])

# --- Transpose and Permute ---
t = torch.randn(2, 3, 4)
print(t.transpose(0, 2).shape)    # torch.Size([4, 3, 2])
print(t.permute(2, 0, 1).shape)   # torch.Size([4, 2, 3])

# --- Concatenation and Stacking ---
a = torch.ones(2, 3)
b = torch.zeros(2, 3)
cat = torch.cat([a, b], dim=0)     # Shape: [4, 3]
stack = torch.stack([a, b], dim=0)  # Shape: [2, 2, 3]

# --- Math operations ---
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([4.0, 5.0, 6.0])
print(x + y)               # Element-wise addition
print(x * y)               # Element-wise multiplication
print(x @ y)               # Dot product: tensor(32.)
print(torch.matmul(x.unsqueeze(0), y.unsqueeze(1)))  # Matrix multiply
