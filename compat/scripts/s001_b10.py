import torch

a = torch.tensor([1.0, 2.0, 3.0, 4.0])
b = torch.tensor([10.0, 20.0, 30.0, 40.0])

# Arithmetic — operates element by element
print("Add:", a + b)           # tensor([11., 22., 33., 44.])
print("Subtract:", a - b)     # tensor([-9., -18., -27., -36.])
print("Multiply:", a * b)     # tensor([10., 40., 90., 160.])  ← Hadamard product
print("Divide:", a / b)       # tensor([0.1000, 0.1000, 0.1000, 0.1000])
print("Power:", a ** 2)        # tensor([ 1.,  4.,  9., 16.])

# Mathematical functions
print("Sqrt:", torch.sqrt(a))     # tensor([1.0000, 1.4142, 1.7321, 2.0000])
print("Exp:", torch.exp(a))       # tensor([ 2.7183,  7.3891, 20.0855, 54.5981])
print("Log:", torch.log(a))       # tensor([0.0000, 0.6931, 1.0986, 1.3863])
print("Sin:", torch.sin(a))       # tensor([0.8415, 0.9093, 0.1411, -0.7568])
print("Abs:", torch.abs(torch.tensor([-3.0, -1.0, 2.0])))  # tensor([3., 1., 2.])
