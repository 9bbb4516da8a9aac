a = torch.tensor([2.0], requires_grad=True)
# GOOD: Out-of-place operation. Creates a new tensor, history is preserved.
b = a + 1
b.backward() # Works perfectly.
# Let's reset the gradients for demonstration
a.grad = None
# BAD: In-place operation. This breaks the graph.
a.add_(1) # We've now directly modified 'a'. Its past is erased.
# b = a + 1 # If you tried to use it now and call .backward(), chaos.
