import torch
import numpy as np

# NumPy → PyTorch (shares memory by default!)
np_array = np.array([1.0, 2.0, 3.0])
tensor_shared = torch.from_numpy(np_array)

print("Before modification:")
print("  NumPy:", np_array)
print("  Tensor:", tensor_shared)

# Modifying one changes the other! (shared memory)
np_array[0] = 999.0
print("\nAfter modifying NumPy array:")
print("  NumPy:", np_array)           # [999.  2.  3.]
print("  Tensor:", tensor_shared)     # tensor([999.,  2.,  3.]) — also changed!

# Safe conversion — use .clone() to break shared memory
np_array2 = np.array([10.0, 20.0, 30.0])
tensor_safe = torch.from_numpy(np_array2).clone()
np_array2[0] = -1.0
print("\nWith .clone() — independent copy:")
print("  NumPy:", np_array2)          # [-1. 20. 30.]
print("  Tensor:", tensor_safe)       # tensor([10., 20., 30.]) — unchanged!
