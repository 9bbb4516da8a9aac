# This will track history and eat your memory
prediction = model(x) * 2
# This won't. It's a free operation.
with torch.no_grad():
    prediction = model(x) * 2
# Also useful for manually updating parameters without messing up the graph
model.weight.data -= learning_rate * model.weight.grad.data
