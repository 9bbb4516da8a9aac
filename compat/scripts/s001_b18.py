import torch

# unsqueeze — add a dimension of size 1
x = torch.tensor([1, 2, 3])
print("Original:", x.shape)         # [3]
print("Unsqueeze(0):", x.unsqueeze(0).shape)  # [1, 3] — row vector
print("Unsqueeze(1):", x.unsqueeze(1).shape)  # [3, 1] — column vector

# squeeze — remove dimensions of size 1
y = torch.randn(1, 3, 1, 4)
print("Before squeeze:", y.shape)             # [1, 3, 1, 4]
print("Squeeze all:", y.squeeze().shape)      # [3, 4]
print("Squeeze dim 0:", y.squeeze(0).shape)   # [3, 1, 4]

# Common pattern: add batch dimension for single inference
single_image = torch.randn(3, 224, 224)         # C × H × W
batched = single_image.unsqueeze(0)              # 1 × C × H × W
print("Single image:", single_image.shape)       # [3, 224, 224]
print("Batched:", batched.shape)                 # [1, 3, 224, 224]
