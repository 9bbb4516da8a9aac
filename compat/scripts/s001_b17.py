import torch

# Transpose — swap two dimensions
m = torch.tensor([[1, 2, 3],
                   [4, 5, 6]])
print("Original shape:", m.shape)   # [2, 3]
print("Transposed:\n", m.T)        # [3, 2]
print("Transpose:\n", m.transpose(0, 1))  # Same as .T for 2D

# Permute — reorder ALL dimensions (essential for image data)
# Image: (batch, height, width, channels) → (batch, channels, height, width)
img = torch.randn(8, 224, 224, 3)    # 8 images, 224×224, RGB
print("Original (NHWC):", img.shape)  # [8, 224, 224, 3]

img_pytorch = img.permute(0, 3, 1, 2)  # Move channels to dim 1
print("PyTorch (NCHW):", img_pytorch.shape)  # [8, 3, 224, 224]
