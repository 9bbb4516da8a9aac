import torch

# Batch matrix multiplication — essential for transformer models
# Shape: (batch_size, rows, cols)
batch_A = torch.randn(8, 3, 4)   # 8 matrices, each 3×4
batch_B = torch.randn(8, 4, 5)   # 8 matrices, each 4×5

batch_result = torch.bmm(batch_A, batch_B)
print("Batch matmul shape:", batch_result.shape)  # torch.Size([8, 3, 5])

# torch.matmul handles batches automatically too
batch_result2 = torch.matmul(batch_A, batch_B)
print("Same result:", torch.allclose(batch_result, batch_result2))  # True
