import torch

x = torch.tensor([1.0, 2.0, 3.0])
print("Original:", x)

# In-place addition (modifies x directly)
x.add_(10)
print("After add_(10):", x)    # tensor([11., 12., 13.])

# In-place multiplication
x.mul_(2)
print("After mul_(2):", x)     # tensor([22., 24., 26.])

# In-place clamp
x.clamp_(min=23, max=25)
print("After clamp_:", x)      # tensor([23., 24., 25.])

# Comparison: out-of-place creates a NEW tensor
y = torch.tensor([1.0, 2.0, 3.0])
z = y.add(10)    # y is unchanged, z is new
print("y unchanged:", y)   # tensor([1., 2., 3.])
print("z is new:", z)      # tensor([11., 12., 13.])
