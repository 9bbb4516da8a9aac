import torch

# Check GPU availability
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print(f"Using device: {device}")

# Move tensors to GPU
x = torch.randn(1000, 1000)
x_gpu = x.to(device)          # Move to GPU (or stay on CPU)
x_gpu = x.cuda()              # Explicitly move to CUDA (errors if no GPU)

# Create directly on GPU
y = torch.randn(1000, 1000, device=device)

# Operations between tensors must be on the same device!
z = x_gpu @ y                 # Both on same device — works
# z = x @ x_gpu              # ERROR: can't mix CPU and GPU tensors

# Move back to CPU (e.g., for NumPy conversion)
result = z.cpu().numpy()

# For Apple Silicon Macs:
if torch.backends.mps.is_available():
    mps_device = torch.device("mps")
    x_mps = x.to(mps_device)
