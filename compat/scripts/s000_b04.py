import torch

# --- Basic autograd ---
# requires_grad=True tells PyTorch to track operations for gradient computation
x = torch.tensor(3.0, requires_grad=True)

# Forward pass: compute y = x^2 + 2x + 1
y = x**2 + 2*x + 1

# Backward pass: compute dy/dx
y.backward()

# The gradient is stored in x.grad
print(x.grad)  # tensor(8.0)  because dy/dx = 2x + 2 = 2(3) + 2 = 8

# --- With vectors ---
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x ** 2).sum()   # Need a scalar for .backward()
y.backward()
print(x.grad)         # tensor([2., 4., 6.])  — dy/dx_i = 2*x_i

# --- Gradient accumulation (important!) ---
x = torch.tensor(2.0, requires_grad=True)

y1 = x ** 2
y1.backward()
print(x.grad)         # tensor(4.0)

y2 = x ** 3
y2.backward()
print(x.grad)         # tensor(16.0) — gradients ACCUMULATE! 4 + 12 = 16

# Always zero gradients before a new computation
x.grad.zero_()
y3 = x ** 3
y3.backward()
print(x.grad)         # tensor(12.0) — now correct
