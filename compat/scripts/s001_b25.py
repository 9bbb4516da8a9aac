import torch

# Check GPU availability
print("CUDA available:", torch.cuda.is_available())
print("Device count:", torch.cuda.device_count())

# Set default device
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
print("Using device:", device)

# Create tensor directly on GPU
if torch.cuda.is_available():
    gpu_tensor = torch.randn(3, 3, device="cuda")
    print("GPU tensor device:", gpu_tensor.device)
else:
    cpu_tensor = torch.randn(3, 3)
    print("CPU tensor device:", cpu_tensor.device)
