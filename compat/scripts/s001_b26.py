import torch

# Moving tensors between devices
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

# Create on CPU, then move to GPU
x = torch.randn(1000, 1000)
print("Before .to():", x.device)  # cpu

x_device = x.to(device)
print("After .to():", x_device.device)  # cuda:0 (if GPU available)

# Operations between tensors MUST be on the same device
y = torch.randn(1000, 1000, device=device)

# This works — both on same device
result = x_device @ y
print("Result device:", result.device)

# Moving back to CPU (e.g., for NumPy conversion or plotting)
result_cpu = result.cpu()
print("Back on CPU:", result_cpu.device)
