import torch

A = torch.tensor([[1.0, 2.0],
                   [3.0, 4.0]])

B = torch.tensor([[5.0, 6.0],
                   [7.0, 8.0]])

# All three are equivalent for 2D matrix multiplication
result1 = A @ B                    # Python operator (preferred)
result2 = torch.matmul(A, B)      # Function form
result3 = torch.mm(A, B)          # Explicit 2D matrix multiply

print("A @ B:\n", result1)
# tensor([[19., 22.],
#         [43., 50.]])

# Verify all methods give the same result
print("All equal:", torch.equal(result1, result2) and torch.equal(result2, result3))

# Matrix-vector multiplication
v = torch.tensor([1.0, 2.0])
print("A @ v:", A @ v)     # tensor([ 5., 11.])

# Dot product (1D vectors only)
x = torch.tensor([1.0, 2.0, 3.0])
y = torch.tensor([4.0, 5.0, 6.0])
print("Dot product:", torch.dot(x, y))  # tensor(32.) — 1*4 + 2*5 + 3*6
