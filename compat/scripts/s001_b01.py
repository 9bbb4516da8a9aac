import torch

# Check PyTorch version
print("PyTorch version:", torch.__version__)

# Check if CUDA (GPU) is available
print("CUDA available:", torch.cuda.is_available())

# If CUDA is available, print GPU info
if torch.cuda.is_available():
    print("GPU device:", torch.cuda.get_device_name(0))
    print("CUDA version:", torch.version.cuda)
    print("Number of GPUs:", torch.cuda.device_count())
else:
    print("Running on CPU — all code in this tutorial works on CPU too!")

# Quick tensor test
x = torch.tensor([1.0, 2.0, 3.0])
print("Test tensor:", x)
print("Tensor device:", x.device)
