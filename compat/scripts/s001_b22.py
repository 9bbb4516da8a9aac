import torch

# torch.no_grad() — disable gradient tracking (for inference)
w = torch.tensor(5.0, requires_grad=True)

# During training: gradients tracked
y = w * 3
print("Grad fn:", y.grad_fn)  # <MulBackward0>

# During inference: no gradients needed (saves memory & computation)
with torch.no_grad():
    y_infer = w * 3
    print("Grad fn:", y_infer.grad_fn)          # None
    print("Requires grad:", y_infer.requires_grad)  # False
