import torch
import numpy as np

# PyTorch → NumPy
tensor = torch.tensor([4.0, 5.0, 6.0])
np_from_tensor = tensor.numpy()  # Shares memory (CPU tensors only)
print("Tensor → NumPy:", np_from_tensor)
print("Type:", type(np_from_tensor))  # numpy.ndarray

# GPU tensors must be moved to CPU first
# tensor_gpu.cpu().numpy()  # This is the pattern for GPU tensors
