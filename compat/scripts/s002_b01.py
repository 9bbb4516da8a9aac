import torch
# Your basic tensor, living a quiet life on the CPU
x = torch.tensor([1.0, 2.0, 3.0])
print(f"Values: {x}")
print(f"Shape: {x.shape}") # Crucial. The first thing you check when anything breaks.
print(f"Device: {x.device}") # The second thing you check. Is it on GPU? Did you forget to send it?
# Let's get this party on the GPU. Requires a CUDA-capable device, obviously.
if torch.cuda.is_available():
    device = torch.device("cuda")
    y = torch.tensor([4.0, 5.0, 6.0], device=device) # Create it there directly
    x = x.to(device) # Or move it there later
    z = x + y # Now this operation happens at ludicrous speed on the GPU
    print(z)
