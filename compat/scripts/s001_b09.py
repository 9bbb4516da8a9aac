import torch

t = torch.randn(3, 4, 5)

# Shape and dimensions
print("Shape:", t.shape)            # torch.Size([3, 4, 5])
print("Size:", t.size())            # torch.Size([3, 4, 5]) — same as .shape
print("Dimensions:", t.ndim)        # 3
print("Total elements:", t.numel()) # 60 (3 × 4 × 5)

# Data type and device
print("Dtype:", t.dtype)              # torch.float32
print("Device:", t.device)            # cpu
print("Requires grad:", t.requires_grad)  # False

# Memory layout
print("Is contiguous:", t.is_contiguous())  # True
print("Stride:", t.stride())               # (20, 5, 1)
print("Element size:", t.element_size(), "bytes")  # 4 bytes (float32)
