import torch

# detach() — remove a tensor from the computation graph
x = torch.tensor(3.0, requires_grad=True)
y = x ** 2

# Detach y from the graph — useful for using model outputs as inputs elsewhere
y_detached = y.detach()
print("y requires_grad:", y.requires_grad)            # True
print("y_detached requires_grad:", y_detached.requires_grad)  # False

# CRITICAL: Gradients accumulate! You must zero them between iterations
w = torch.tensor(2.0, requires_grad=True)

for i in range(3):
    loss = (w * 3) ** 2
    loss.backward()
    print(f"Iteration {i}: w.grad = {w.grad.item()}")
    # Without zeroing: 36, 72, 108 (accumulates!)

# Fix: zero gradients before each backward pass
w = torch.tensor(2.0, requires_grad=True)
for i in range(3):
    if w.grad is not None:
        w.grad.zero_()   # Zero the gradient!
    loss = (w * 3) ** 2
    loss.backward()
    print(f"Iteration {i} (zeroed): w.grad = {w.grad.item()}")
    # Correct: 36, 36, 36
