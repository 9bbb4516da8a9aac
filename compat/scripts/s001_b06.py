import torch

# Default dtypes
int_tensor = torch.tensor([1, 2, 3])
float_tensor = torch.tensor([1.0, 2.0, 3.0])
print("Int dtype:", int_tensor.dtype)      # torch.int64
print("Float dtype:", float_tensor.dtype)  # torch.float32

# Explicit dtype specification
x = torch.tensor([1.0, 2.0], dtype=torch.float16)   # Half precision
y = torch.tensor([1.0, 2.0], dtype=torch.float32)   # Single precision (default)
z = torch.tensor([1.0, 2.0], dtype=torch.float64)   # Double precision
b = torch.tensor([True, False], dtype=torch.bool)    # Boolean

print("float16:", x.dtype, "— uses", x.element_size(), "bytes per element")
print("float32:", y.dtype, "— uses", y.element_size(), "bytes per element")
print("float64:", z.dtype, "— uses", z.element_size(), "bytes per element")

# Casting between types
converted = int_tensor.float()   # int64 → float32
print("Converted:", converted.dtype)

# Also works with .to()
as_half = float_tensor.to(torch.float16)
print("Half precision:", as_half)
