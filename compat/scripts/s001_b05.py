import torch

# Sequences — like Python's range() and NumPy's linspace()
arange = torch.arange(0, 10, 2)      # Start, stop, step
linspace = torch.linspace(0, 1, 5)   # Start, end, num_points

print("Arange:", arange)       # tensor([0, 2, 4, 6, 8])
print("Linspace:", linspace)   # tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])

# Create a tensor with the same shape as another
template = torch.randn(3, 4)
zeros_like = torch.zeros_like(template)
ones_like = torch.ones_like(template)
rand_like = torch.rand_like(template)
print("zeros_like shape:", zeros_like.shape)  # torch.Size([3, 4])
