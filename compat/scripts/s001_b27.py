import torch

# Device-agnostic pattern — use this in all your projects
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using: {device}")

# Create data on the right device
X = torch.randn(64, 10, device=device)   # Features
W = torch.randn(10, 5, device=device)    # Weights
b = torch.zeros(5, device=device)        # Bias

# Forward pass — works on CPU or GPU
output = X @ W + b
print("Output shape:", output.shape)   # [64, 5]
print("Output device:", output.device)

# When saving results or converting to NumPy
result_np = output.detach().cpu().numpy()
print("NumPy result shape:", result_np.shape)
