import torch
# Define inputs and target
x = torch.tensor([[1.0, 2.0]], requires_grad=False) # Shape: [1, 2]
y_target = torch.tensor([[5.0]], requires_grad=False) # Shape: [1, 1]
# Define weight and bias with gradient tracking enabled
w = torch.tensor([[0.5], [1.5]], requires_grad=True) # Shape: [2, 1]
b = torch.tensor([0.1], requires_grad=True) # Shape: [1]
# Forward pass: y = xW + b
y_pred = torch.matmul(x, w) + b
# Loss: Mean Squared Error
loss = (y_pred - y_target) ** 2
# Backward pass
loss.backward()
print("Predicted y:", y_pred.item())
print("Loss:", loss.item())
print("Weight gradients dw:", w.grad)
print("Bias gradient db:", b.grad)
