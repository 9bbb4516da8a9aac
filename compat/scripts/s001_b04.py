import torch

# Random tensors — essential for initializing neural network weights
uniform = torch.rand(3, 3)        # Uniform [0, 1)
normal = torch.randn(3, 3)        # Standard normal (mean=0, std=1)
randint = torch.randint(0, 10, (2, 4))  # Random integers in [0, 10)

print("Uniform:\n", uniform)
print("Normal:\n", normal)
print("Random ints:\n", randint)

# Random permutation — useful for shuffling data
perm = torch.randperm(8)
print("Permutation:", perm)  # e.g., tensor([5, 2, 0, 7, 3, 1, 6, 4])
