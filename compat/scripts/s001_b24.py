import torch

# Computing second derivatives (Hessian elements)
x = torch.tensor(3.0, requires_grad=True)

# f(x) = x³ → f'(x) = 3x² → f''(x) = 6x
y = x ** 3

# First derivative: create_graph=True keeps the graph for further differentiation
grad1 = torch.autograd.grad(y, x, create_graph=True)[0]
print(f"f(3) = {y.item()}")       # 27
print(f"f'(3) = {grad1.item()}")  # 27 (3 * 3²)

# Second derivative
grad2 = torch.autograd.grad(grad1, x)[0]
print(f"f''(3) = {grad2.item()}")  # 18 (6 * 3)
