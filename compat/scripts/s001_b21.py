import torch

# Multi-variable example: linear regression forward pass
# y = w1*x1 + w2*x2 + b
w1 = torch.tensor(3.0, requires_grad=True)
w2 = torch.tensor(-2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)

x1, x2 = torch.tensor(4.0), torch.tensor(5.0)
target = torch.tensor(10.0)

# Forward pass
y = w1 * x1 + w2 * x2 + b    # 3*4 + (-2)*5 + 1 = 3
loss = (y - target) ** 2       # (3 - 10)² = 49

print(f"Prediction: {y.item():.1f}")
print(f"Loss: {loss.item():.1f}")

# Backward pass
loss.backward()

# Gradients: ∂loss/∂w = 2(y - target) * ∂y/∂w
print(f"∂loss/∂w1 = {w1.grad.item():.1f}")  # 2*(3-10)*4 = -56
print(f"∂loss/∂w2 = {w2.grad.item():.1f}")  # 2*(3-10)*5 = -70
print(f"∂loss/∂b  = {b.grad.item():.1f}")   # 2*(3-10)*1 = -14
