import torch

a = torch.tensor([[1, 2], [3, 4]])
b = torch.tensor([[5, 6], [7, 8]])

# cat — joins along an EXISTING dimension
cat_rows = torch.cat([a, b], dim=0)     # Stack vertically
cat_cols = torch.cat([a, b], dim=1)     # Stack horizontally
print("Cat dim=0 (rows):\n", cat_rows)   # Shape: [4, 2]
print("Cat dim=1 (cols):\n", cat_cols)   # Shape: [2, 4]

# stack — joins along a NEW dimension
stacked = torch.stack([a, b], dim=0)
print("Stack dim=0:\n", stacked)          # Shape: [2, 2, 2]
print("Stack shape:", stacked.shape)

# Practical example: stacking predictions from multiple models
pred1 = torch.tensor([0.9, 0.1])
pred2 = torch.tensor([0.8, 0.2])
pred3 = torch.tensor([0.7, 0.3])
ensemble = torch.stack([pred1, pred2, pred3])
avg_pred = ensemble.mean(dim=0)
print("Ensemble average:", avg_pred)  # Average across 3 models
