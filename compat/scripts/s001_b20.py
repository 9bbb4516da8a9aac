import torch

# Simple example: y = x² + 3x + 1, find dy/dx at x=2
x = torch.tensor(2.0, requires_grad=True)

# Forward pass — builds the computation graph
y = x**2 + 3*x + 1
print("y =", y.item())  # y = 2² + 3(2) + 1 = 11

# Backward pass — computes gradients
y.backward()

# dy/dx = 2x + 3, at x=2 → dy/dx = 7
print("dy/dx =", x.grad.item())  # 7.0
