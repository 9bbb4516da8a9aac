import torch

# From Python lists
a = torch.tensor([1, 2, 3])
b = torch.tensor([[1.0, 2.0], [3.0, 4.0]])

# Common factory functions
zeros = torch.zeros(3, 4)          # 3x4 matrix of zeros
ones = torch.ones(2, 3, 5)        # 2x3x5 tensor of ones
rand = torch.rand(4, 4)           # uniform random [0, 1)
randn = torch.randn(4, 4)         # standard normal distribution
arange = torch.arange(0, 10, 2)   # [0, 2, 4, 6, 8]
linspace = torch.linspace(0, 1, 5) # [0.0, 0.25, 0.5, 0.75, 1.0]
eye = torch.eye(3)                 # 3x3 identity matrix

# From NumPy (shared memory — changes to one affect the other!)
import numpy as np
np_array = np.array([1.0, 2.0, 3.0])
from_numpy = torch.from_numpy(np_array)

# Specifying dtype
x = torch.tensor([1, 2, 3], dtype=torch.float32)
y = torch.zeros(3, dtype=torch.int64)

print(f"Shape: {b.shape}, Dtype: {b.dtype}, Device: {b.device}")
# Shape: torch.Size([2, 2]), Dtype: torch.float32, Device: cpu
