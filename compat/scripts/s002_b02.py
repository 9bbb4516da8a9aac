# Let's create a tensor that wants gradients.
a = torch.tensor([2.0], requires_grad=True)
b = torch.tensor([3.0], requires_grad=True)
# Do something with them. PyTorch is now watching and taking notes.
c = a * b # c = 2 * 3 = 6
# Let's say 'c' is our loss. We want to know: how sensitive is c to changes in a and b?
# In math: we want dc/da and dc/db.
# We call .backward() on c to compute these gradients and accumulate them in the .grad attribute of the original tensors.
c.backward()
print(a.grad) # dc/da = b = 3
print(b.grad) # dc/db = a = 2
