import torch

if torch.cuda.is_available():
    # Check GPU memory
    print(f"Total GPU memory: {torch.cuda.get_device_properties(0).total_mem / 1e9:.1f} GB")
    print(f"Allocated: {torch.cuda.memory_allocated(0) / 1e6:.1f} MB")
    print(f"Cached: {torch.cuda.memory_reserved(0) / 1e6:.1f} MB")

    # Allocate a large tensor
    big = torch.randn(10000, 10000, device="cuda")
    print(f"\nAfter allocation: {torch.cuda.memory_allocated(0) / 1e6:.1f} MB")

    # Free memory
    del big
    torch.cuda.empty_cache()
    print(f"After cleanup: {torch.cuda.memory_allocated(0) / 1e6:.1f} MB")
else:
    print("GPU memory management is only relevant when CUDA is available.")
    print("All code in this tutorial works perfectly on CPU.")
