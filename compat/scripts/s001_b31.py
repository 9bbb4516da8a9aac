import torch
import math

# Solution: Gradient of sin(x²) at x = π
x = torch.tensor(math.pi, requires_grad=True)

y = torch.sin(x ** 2)
y.backward()

print(f"f(π)  = sin(π²) = {y.item():.6f}")
print(f"f'(π) = 2π·cos(π²) = {x.grad.item():.6f}")

# Manual verification
manual = 2 * math.pi * math.cos(math.pi ** 2)
print(f"Manual calculation: {manual:.6f}")
print(f"Match: {abs(x.grad.item() - manual) < 1e-5}")
