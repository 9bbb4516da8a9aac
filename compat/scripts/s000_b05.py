import torch

x = torch.tensor(3.0, requires_grad=True)
y = x ** 2

# .detach() creates a new tensor that shares data but has no gradient history
z = y.detach()
print(z.requires_grad)   # False
# z is a "view" of y's data, but gradient won't flow through it

# torch.no_grad() context manager — disables gradient computation entirely
# Use during inference for speed and memory savings
x = torch.randn(1000, 1000, requires_grad=True)
with torch.no_grad():
    y = x @ x.T          # No computational graph built
    print(y.requires_grad)  # False

# Common pattern: evaluation / inference
model = ...  # some nn.Module
model.eval()
with torch.no_grad():
    predictions = model(test_data)

# torch.inference_mode() — even faster than no_grad (PyTorch 1.9+)
with torch.inference_mode():
    predictions = model(test_data)
