"""Whole programs in the style of PyTorch's tutorials and popular posts (the tensors and autograd tutorials, every
step of "Learning PyTorch with Examples", "What is torch.nn really", a quickstart loop on synthetic data,
regression and classification, a tiny CNN, RNNs and a char-level model, checkpoints through io.BytesIO, format
specs) and of the numeric libraries (linalg, fft, special, distributions and their transforms): each prints the
same under torch and pjtorch, warnings included. Losses are printed to a few digits, since float32 sums are
accumulated in another order than PyTorch's."""
from __future__ import annotations

import pytest

from tensor_oracle import reference, same_output

reference()

PROGRAMS = {
    "tensor_basics": r"""
torch.manual_seed(0)
x = torch.empty(5, 3).zero_()
print(x)
x = torch.rand(5, 3)
print(x)
x = torch.zeros(5, 3, dtype=torch.long)
print(x)
x = torch.tensor([5.5, 3])
print(x)
x = x.new_ones(5, 3, dtype=torch.double)
print(x)
x = torch.randn_like(x, dtype=torch.float)
print(x)
print(x.size())
y = torch.rand(5, 3)
print(x + y)
print(torch.add(x, y))
result = torch.empty(5, 3)
torch.add(x, y, out=result)
print(result)
y.add_(x)
print(y)
print(x[:, 1])
x = torch.randn(4, 4)
y = x.view(16)
z = x.view(-1, 8)
print(x.size(), y.size(), z.size())
x = torch.randn(1)
print(x)
print(x.item())
a = torch.ones(5)
b = a.numpy()
a.add_(1)
print(a, b)
print(torch.arange(12).reshape(3, 4).T.contiguous().view(-1))
print(torch.stack([torch.arange(3), torch.arange(3, 6)], dim=1))
print(torch.zeros(2, 0), torch.ones(0).sum(), torch.tensor(3).shape, torch.tensor([]).dtype)
""",
    "autograd_blitz": r"""
x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
out.backward()
print(x.grad)
torch.manual_seed(3)
x = torch.randn(3, requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
print(x.requires_grad)
print((x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.requires_grad)
y = x.detach()
print(y.requires_grad)
print(x.eq(y).all())
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
print(a.grad, b.grad, Q)
""",
    "lpwe_numpy_tensor": r"""
import math
torch.manual_seed(0)
dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.randn((), dtype=dtype)
b = torch.randn((), dtype=dtype)
c = torch.randn((), dtype=dtype)
d = torch.randn((), dtype=dtype)
learning_rate = 1e-6
for t in range(2000):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 100 == 99:
        print(t, f"{loss:.1f}")
    grad_y_pred = 2.0 * (y_pred - y)
    grad_a = grad_y_pred.sum()
    grad_b = (grad_y_pred * x).sum()
    grad_c = (grad_y_pred * x ** 2).sum()
    grad_d = (grad_y_pred * x ** 3).sum()
    a -= learning_rate * grad_a
    b -= learning_rate * grad_b
    c -= learning_rate * grad_c
    d -= learning_rate * grad_d
print(f'Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3')
""",
    "lpwe_autograd": r"""
import math
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
a = torch.randn((), requires_grad=True)
b = torch.randn((), requires_grad=True)
c = torch.randn((), requires_grad=True)
d = torch.randn((), requires_grad=True)
learning_rate = 1e-6
for t in range(600):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {a.item():.3f} + {b.item():.3f} x + {c.item():.3f} x^2 + {d.item():.3f} x^3')
print(a, b.grad)
""",
    "lpwe_legendre": r"""
import math
class LegendrePolynomial3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, input):
        ctx.save_for_backward(input)
        return 0.5 * (5 * input ** 3 - 3 * input)

    @staticmethod
    def backward(ctx, grad_output):
        input, = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input ** 2 - 1)

dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.full((), 0.0, dtype=dtype, requires_grad=True)
b = torch.full((), -1.0, dtype=dtype, requires_grad=True)
c = torch.full((), 0.0, dtype=dtype, requires_grad=True)
d = torch.full((), 0.3, dtype=dtype, requires_grad=True)
learning_rate = 5e-6
for t in range(400):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.2f}")
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None
print(f'Result: y = {abs(a.item()):.3f} + {b.item():.3f} * P3({abs(c.item()):.3f} + {d.item():.3f} x)')
print(y_pred.grad_fn.__class__.__name__, P3(torch.tensor(0.5, requires_grad=True)).grad_fn.__class__.__name__)
""",
    "lpwe_nn": r"""
import math
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)
model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
print(model)
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(500):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.3f}")
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + {linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3')
print(linear_layer.weight.grad.shape, [n for n, _ in model.named_parameters()])
""",
    "lpwe_optim": r"""
import math
torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-3
optimizer = torch.optim.RMSprop(model.parameters(), lr=learning_rate)
for t in range(800):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + {linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3')
print(optimizer)
print(sorted(optimizer.state_dict()['state'][0].keys()))
""",
    "lpwe_module": r"""
import math
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def string(self):
        return f'y = {self.a.item():.3f} + {self.b.item():.3f} x + {self.c.item():.3f} x^2 + {self.d.item():.3f} x^3'

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = Polynomial3()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(500):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
print(model)
print(list(model.state_dict().keys()), model.a)
""",
    "lpwe_dynamic": r"""
import random
import math
random.seed(0)
class DynamicNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for exp in range(4, random.randint(4, 6)):
            y = y + self.e * x ** exp
        return y

    def string(self):
        return f'y = {self.a.item():.2f} + {self.b.item():.2f} x + {self.c.item():.2f} x^2 + {self.d.item():.2f} x^3 + {self.e.item():.2f} x^4 ? + {self.e.item():.2f} x^5 ?'

torch.manual_seed(0)
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = DynamicNet()
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for t in range(1000):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 200 == 199:
        print(t, f"{loss.item():.1f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
""",
    "quickstart_synthetic": r"""
nn = torch.nn
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
torch.manual_seed(0)
X = torch.randn(256, 1, 8, 8)
y = (X.mean(dim=(1, 2, 3)) > 0).long() + (X[:, 0, 0, 0] > 1).long()
train = TensorDataset(X[:192], y[:192])
test = TensorDataset(X[192:], y[192:])
batch_size = 32
train_dataloader = DataLoader(train, batch_size=batch_size, shuffle=True)
test_dataloader = DataLoader(test, batch_size=batch_size)
for Xb, yb in test_dataloader:
    print(f"Shape of X [N, C, H, W]: {Xb.shape}")
    print(f"Shape of y: {yb.shape} {yb.dtype}")
    break
device = "cpu"
print(f"Using {device} device")
class NeuralNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.linear_relu_stack = nn.Sequential(
            nn.Linear(8*8, 32),
            nn.ReLU(),
            nn.Linear(32, 32),
            nn.ReLU(),
            nn.Linear(32, 3)
        )

    def forward(self, x):
        x = self.flatten(x)
        logits = self.linear_relu_stack(x)
        return logits

model = NeuralNetwork().to(device)
print(model)
loss_fn = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=1e-1)

def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        loss = loss_fn(pred, y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        if batch % 3 == 0:
            loss, current = loss.item(), (batch + 1) * len(X)
            print(f"loss: {loss:>7f}  [{current:>5d}/{size:>5d}]")

def test_loop(dataloader, model, loss_fn):
    model.eval()
    size = len(dataloader.dataset)
    num_batches = len(dataloader)
    test_loss, correct = 0, 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            test_loss += loss_fn(pred, y).item()
            correct += (pred.argmax(1) == y).type(torch.float).sum().item()
    test_loss /= num_batches
    correct /= size
    print(f"Test Error: \n Accuracy: {(100*correct):>0.1f}%, Avg loss: {test_loss:>8f} \n")

epochs = 3
for t in range(epochs):
    print(f"Epoch {t+1}\n-------------------------------")
    train_loop(train_dataloader, model, loss_fn, optimizer)
    test_loop(test_dataloader, model, loss_fn)
print("Done!")
""",
    "nn_really_manual": r"""
import math
torch.manual_seed(0)
x_train = torch.randn(500, 20)
w_true = torch.randn(20, 4)
y_train = (x_train @ w_true).argmax(1)
x_valid = torch.randn(100, 20)
y_valid = (x_valid @ w_true).argmax(1)
n, c = x_train.shape
print(x_train, y_train)
print(x_train.shape, y_train.min(), y_train.max())
weights = torch.randn(20, 4) / math.sqrt(20)
weights.requires_grad_()
bias = torch.zeros(4, requires_grad=True)
def log_softmax(x):
    return x - x.exp().sum(-1).log().unsqueeze(-1)
def model(xb):
    return log_softmax(xb @ weights + bias)
bs = 64
xb = x_train[0:bs]
preds = model(xb)
print(preds[0], preds.shape)
def nll(input, target):
    return -input[range(target.shape[0]), target].mean()
loss_func = nll
yb = y_train[0:bs]
print(loss_func(preds, yb))
def accuracy(out, yb):
    preds = torch.argmax(out, dim=1)
    return (preds == yb).float().mean()
print(accuracy(preds, yb))
lr = 0.5
epochs = 2
for epoch in range(epochs):
    for i in range((n - 1) // bs + 1):
        start_i = i * bs
        end_i = start_i + bs
        xb = x_train[start_i:end_i]
        yb = y_train[start_i:end_i]
        pred = model(xb)
        loss = loss_func(pred, yb)
        loss.backward()
        with torch.no_grad():
            weights -= weights.grad * lr
            bias -= bias.grad * lr
            weights.grad.zero_()
            bias.grad.zero_()
print(f"{loss_func(model(xb), yb).item():.4f}", f"{accuracy(model(xb), yb).item():.4f}")
""",
    "nn_really_refactor": r"""
import math
F = torch.nn.functional
nn = torch.nn
optim = torch.optim
TensorDataset, DataLoader = torch.utils.data.TensorDataset, torch.utils.data.DataLoader
torch.manual_seed(0)
x_train = torch.randn(300, 16)
w_true = torch.randn(16, 3)
y_train = (x_train @ w_true).argmax(1)
x_valid = torch.randn(90, 16)
y_valid = (x_valid @ w_true).argmax(1)
loss_func = F.cross_entropy
class Mnist_Logistic(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 3)
    def forward(self, xb):
        return self.lin(xb)
def get_model():
    model = Mnist_Logistic()
    return model, optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
def get_data(train_ds, valid_ds, bs):
    return (DataLoader(train_ds, batch_size=bs, shuffle=True), DataLoader(valid_ds, batch_size=bs * 2))
def loss_batch(model, loss_func, xb, yb, opt=None):
    loss = loss_func(model(xb), yb)
    if opt is not None:
        loss.backward()
        opt.step()
        opt.zero_grad()
    return loss.item(), len(xb)
def fit(epochs, model, loss_func, opt, train_dl, valid_dl):
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_dl:
            loss_batch(model, loss_func, xb, yb, opt)
        model.eval()
        with torch.no_grad():
            losses, nums = zip(*[loss_batch(model, loss_func, xb, yb) for xb, yb in valid_dl])
        val_loss = sum(l * n for l, n in zip(losses, nums)) / sum(nums)
        print(epoch, f"{val_loss:.4f}", nums)
train_ds = TensorDataset(x_train, y_train)
valid_ds = TensorDataset(x_valid, y_valid)
train_dl, valid_dl = get_data(train_ds, valid_ds, 32)
model, opt = get_model()
print(model)
fit(4, model, loss_func, opt, train_dl, valid_dl)
print(len(train_dl), len(valid_dl), len(train_ds), train_ds[0][1])
class Lambda(nn.Module):
    def __init__(self, func):
        super().__init__()
        self.func = func
    def forward(self, x):
        return self.func(x)
model = nn.Sequential(Lambda(lambda x: x.view(-1, 1, 4, 4)), nn.Conv2d(1, 8, kernel_size=3, stride=1, padding=1),
    nn.ReLU(), nn.Conv2d(8, 3, kernel_size=3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
    Lambda(lambda x: x.view(x.size(0), -1)))
print(model)
opt = optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
fit(3, model, loss_func, opt, train_dl, valid_dl)
""",
    "linear_regression": r"""
torch.manual_seed(42)
X = torch.linspace(0, 1, 50).unsqueeze(1)
weight, bias = 0.7, 0.3
y = weight * X + bias
train_split = int(0.8 * len(X))
X_train, y_train = X[:train_split], y[:train_split]
X_test, y_test = X[train_split:], y[train_split:]
print(len(X_train), len(y_train), len(X_test), len(y_test))
class LinearRegressionModel(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weights = torch.nn.Parameter(torch.randn(1, dtype=torch.float), requires_grad=True)
        self.bias = torch.nn.Parameter(torch.randn(1, dtype=torch.float), requires_grad=True)
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weights * x + self.bias
model_0 = LinearRegressionModel()
print(list(model_0.parameters()))
print(model_0.state_dict())
with torch.inference_mode():
    y_preds = model_0(X_test)
print(y_preds)
print(y_test - y_preds)
loss_fn = torch.nn.L1Loss()
optimizer = torch.optim.SGD(params=model_0.parameters(), lr=0.01)
epochs = 100
for epoch in range(epochs):
    model_0.train()
    y_pred = model_0(X_train)
    loss = loss_fn(y_pred, y_train)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    model_0.eval()
    with torch.inference_mode():
        test_pred = model_0(X_test)
        test_loss = loss_fn(test_pred, y_test.type(torch.float))
        if epoch % 10 == 0:
            print(f"Epoch: {epoch} | MAE Train Loss: {loss:.5f} | MAE Test Loss: {test_loss:.5f} ")
print(model_0.state_dict())
print(f"weights: {weight}, bias: {bias}")
print(test_pred.requires_grad, test_pred.is_inference())
""",
    "binary_classification": r"""
torch.manual_seed(42)
n = 200
angles = torch.rand(n) * 6.2832
radius = torch.where(torch.arange(n) % 2 == 0, torch.tensor(1.0), torch.tensor(0.5))
X = torch.stack([radius * angles.cos(), radius * angles.sin()], dim=1) + 0.05 * torch.randn(n, 2)
y = (torch.arange(n) % 2 == 0).float()
print(X[:5], y[:5])
print(X.shape, y.shape, X.dtype, y.dtype)
class CircleModelV2(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layer_1 = torch.nn.Linear(in_features=2, out_features=10)
        self.layer_2 = torch.nn.Linear(in_features=10, out_features=10)
        self.layer_3 = torch.nn.Linear(in_features=10, out_features=1)
        self.relu = torch.nn.ReLU()
    def forward(self, x):
        return self.layer_3(self.relu(self.layer_2(self.relu(self.layer_1(x)))))
model_3 = CircleModelV2()
print(model_3)
loss_fn = torch.nn.BCEWithLogitsLoss()
optimizer = torch.optim.SGD(model_3.parameters(), lr=0.1)
def accuracy_fn(y_true, y_pred):
    correct = torch.eq(y_true, y_pred).sum().item()
    acc = (correct / len(y_pred)) * 100
    return acc
for epoch in range(300):
    y_logits = model_3(X).squeeze()
    y_pred = torch.round(torch.sigmoid(y_logits))
    loss = loss_fn(y_logits, y)
    acc = accuracy_fn(y_true=y, y_pred=y_pred)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 50 == 0:
        print(f"Epoch: {epoch} | Loss: {loss:.5f}, Accuracy: {acc:.2f}%")
model_3.eval()
with torch.inference_mode():
    y_preds = torch.round(torch.sigmoid(model_3(X))).squeeze()
print(y_preds[:10], y[:10])
""",
    "multiclass": r"""
torch.manual_seed(42)
NUM_CLASSES, NUM_FEATURES = 4, 2
centers = torch.tensor([[2., 2.], [-2., 2.], [-2., -2.], [2., -2.]])
y_blob = torch.arange(400) % NUM_CLASSES
X_blob = centers[y_blob] + torch.randn(400, 2)
print(X_blob[:5], y_blob[:5])
class BlobModel(torch.nn.Module):
    def __init__(self, input_features, output_features, hidden_units=8):
        super().__init__()
        self.linear_layer_stack = torch.nn.Sequential(
            torch.nn.Linear(in_features=input_features, out_features=hidden_units),
            torch.nn.ReLU(),
            torch.nn.Linear(in_features=hidden_units, out_features=hidden_units),
            torch.nn.ReLU(),
            torch.nn.Linear(in_features=hidden_units, out_features=output_features),
        )
    def forward(self, x):
        return self.linear_layer_stack(x)
model_4 = BlobModel(input_features=NUM_FEATURES, output_features=NUM_CLASSES, hidden_units=8)
print(model_4)
loss_fn = torch.nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model_4.parameters(), lr=0.1)
y_logits = model_4(X_blob[:5])
y_pred_probs = torch.softmax(y_logits, dim=1)
print(y_logits)
print(y_pred_probs)
print(torch.sum(y_pred_probs[0]))
print(torch.argmax(y_pred_probs[0]))
for epoch in range(100):
    model_4.train()
    y_logits = model_4(X_blob)
    y_pred = torch.softmax(y_logits, dim=1).argmax(dim=1)
    loss = loss_fn(y_logits, y_blob)
    acc = (y_pred == y_blob).sum().item() / len(y_blob) * 100
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        print(f"Epoch: {epoch} | Loss: {loss:.5f}, Acc: {acc:.2f}%")
with torch.inference_mode():
    y_logits = model_4(X_blob)
print(y_logits[:3], y_logits.argmax(1)[:10])
print(torch.nn.functional.one_hot(y_blob[:6], NUM_CLASSES))
""",
    "tiny_cnn": r"""
nn = torch.nn
F = torch.nn.functional
torch.manual_seed(0)
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x
net = Net()
print(net)
params = list(net.parameters())
print(len(params), params[0].size())
print(sum(p.numel() for p in net.parameters()))
inputs = torch.randn(8, 3, 32, 32)
labels = torch.randint(0, 10, (8,))
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01, momentum=0.9)
running_loss = 0.0
for i in range(6):
    optimizer.zero_grad()
    outputs = net(inputs)
    loss = criterion(outputs, labels)
    loss.backward()
    optimizer.step()
    running_loss += loss.item()
    if i % 2 == 1:
        print(f'[{1}, {i + 1:5d}] loss: {running_loss / 2:.3f}')
        running_loss = 0.0
print('Finished Training')
outputs = net(inputs)
_, predicted = torch.max(outputs, 1)
classes = ('plane', 'car', 'bird', 'cat', 'deer', 'dog', 'frog', 'horse', 'ship', 'truck')
print('Predicted: ', ' '.join(f'{classes[predicted[j]]:5s}' for j in range(4)))
correct = (predicted == labels).sum().item()
print(f'Accuracy: {100 * correct // labels.size(0)} %')
print(net.conv1.weight.grad.shape, net.fc3.bias.grad.abs().sum() > 0)
""",
    "rnn_sequence": r"""
nn = torch.nn
torch.manual_seed(1)
rnn = nn.RNN(10, 20, 2)
input = torch.randn(5, 3, 10)
h0 = torch.randn(2, 3, 20)
output, hn = rnn(input, h0)
print(output.shape, hn.shape)
print(rnn)
lstm = nn.LSTM(3, 3)
inputs = [torch.randn(1, 3) for _ in range(5)]
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
for i in inputs:
    out, hidden = lstm(i.view(1, 1, -1), hidden)
inputs = torch.cat(inputs).view(len(inputs), 1, -1)
hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
out, hidden = lstm(inputs, hidden)
print(out.detach())
print(hidden)
class SeqModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(1, 16, batch_first=True)
        self.head = nn.Linear(16, 1)
    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out[:, -1])
t = torch.linspace(0, 12.0, 200)
wave = torch.sin(t)
X = torch.stack([wave[i:i + 20] for i in range(150)]).unsqueeze(-1)
Y = torch.stack([wave[i + 20] for i in range(150)]).unsqueeze(-1)
model = SeqModel()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(40):
    pred = model(X)
    loss = nn.functional.mse_loss(pred, Y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1:3d} loss {loss.item():.4f}")
print(model(X[:2]).detach(), Y[:2])
""",
    "char_rnn": r"""
nn = torch.nn
torch.manual_seed(0)
text = "hello world, hello pytorch. the quick brown fox jumps over the lazy dog. "
chars = sorted(set(text))
stoi = {ch: i for i, ch in enumerate(chars)}
itos = {i: ch for ch, i in stoi.items()}
vocab_size = len(chars)
print(vocab_size, ''.join(chars))
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
print(data[:10], data.dtype)
block = 8
X = torch.stack([data[i:i + block] for i in range(len(data) - block)])
Y = torch.stack([data[i + 1:i + block + 1] for i in range(len(data) - block)])
class CharModel(nn.Module):
    def __init__(self, vocab, emb=16, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.rnn = nn.LSTM(emb, hidden, batch_first=True)
        self.fc = nn.Linear(hidden, vocab)
    def forward(self, x, h=None):
        out, h = self.rnn(self.emb(x), h)
        return self.fc(out), h
model = CharModel(vocab_size)
print(model)
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
for step in range(60):
    logits, _ = model(X)
    loss = nn.functional.cross_entropy(logits.view(-1, vocab_size), Y.view(-1))
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    if step % 20 == 19:
        print(f"step {step + 1}: loss {loss.item():.3f}")
def generate(start, n):
    idx = torch.tensor([[stoi[c] for c in start]])
    h = None
    out = start
    logits, h = model(idx, h)
    for _ in range(n):
        nxt = logits[0, -1].argmax().item()
        out += itos[nxt]
        logits, h = model(torch.tensor([[nxt]]), h)
    return out
with torch.no_grad():
    print(repr(generate("hel", 5)))
    probs = torch.softmax(model(X[:1])[0][0, -1], dim=-1)
    print(probs.shape, f"{probs.sum().item():.4f}")
""",
    "save_load_bytesio": r"""
import io
nn = torch.nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(5, 4)
loss = model(x).pow(2).mean()
loss.backward()
opt.step()
buf = io.BytesIO()
torch.save({'epoch': 3, 'model_state_dict': model.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': loss}, buf)
print(buf.tell() > 0)
buf.seek(0)
checkpoint = torch.load(buf, weights_only=True)
model2 = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
opt2 = torch.optim.Adam(model2.parameters(), lr=0.5)
print(model2.load_state_dict(checkpoint['model_state_dict']))
opt2.load_state_dict(checkpoint['optimizer_state_dict'])
print(checkpoint['epoch'], checkpoint['loss'])
print(opt2.param_groups[0]['lr'], opt2.state_dict()['state'][0]['step'])
print(torch.equal(model(x), model2(x)))
for k, v in model2.state_dict().items():
    print(k, tuple(v.shape), v.dtype)
buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
m3 = torch.load(buf, weights_only=False)
print(m3)
print(torch.allclose(m3(x), model(x)))
buf = io.BytesIO()
a = torch.arange(6.)
torch.save([a, a[2:], a.view(2, 3)], buf)
buf.seek(0)
b = torch.load(buf)
b[0][3] = 100.
print(b[1], b[2])
try:
    model2.load_state_dict({'0.weight': torch.zeros(3, 4)})
except RuntimeError as e:
    print(type(e).__name__, e)
print(model2.load_state_dict({'0.weight': torch.zeros(3, 4)}, strict=False))
""",
    "format_specs": r"""
torch.manual_seed(0)
x = torch.randn(3)
s = x.sum()
print(f"{s:.3f}", f"{s.item():.3f}", f"{s:10.4f}|", f"{s:+.2e}")
print("{:.2f}".format(torch.tensor(3.14159)), format(torch.tensor(2), "d") if False else format(torch.tensor(2.5), ".1f"))
print(f"{torch.tensor(7):>5}", f"{torch.tensor(7.0)}", f"{torch.tensor(True)}")
print(f"{x}", repr(x), str(x))
print(f"{x.tolist()}", [f"{v:.2f}" for v in x])
print(f"{x.mean().item():.4f} ± {x.std().item():.4f}")
print(f"{torch.tensor(1e-8)}", f"{torch.tensor(1e8)}", f"{torch.tensor([1e-8, 1.])}", f"{torch.tensor([1e10, 1.])}")
print(torch.tensor([1.5, float('nan'), float('inf'), -float('inf')]))
print(torch.tensor([[1, 2], [3, 4]], dtype=torch.int8), torch.tensor([True, False]))
print(torch.tensor([1.123456789], dtype=torch.float64), torch.tensor([1+2j, 3-1j]))
print(torch.tensor(2.5, requires_grad=True) * 2)
print(torch.zeros(2, 3, dtype=torch.float16), torch.ones(2, dtype=torch.bfloat16))
print(torch.arange(2000.))
print(torch.randn(2, 3, requires_grad=True).sum(0))
try:
    print(f"{x:.2f}")
except Exception as e:
    print(type(e).__name__, e)
print(int(torch.tensor(3.7)), float(torch.tensor(2)), bool(torch.tensor(0.)))
print(round(torch.tensor(2.567).item(), 2), "%.3f" % torch.tensor(1.23456))
""",
    "gd_demo": r"""
torch.manual_seed(0)
true_w = torch.tensor([2.0, -3.4])
true_b = 4.2
X = torch.normal(0, 1, (100, 2))
y = X @ true_w + true_b + torch.normal(0, 0.01, (100,))
y = y.reshape((-1, 1))
print('features:', X[0], '\nlabel:', y[0])
w = torch.normal(0, 0.01, size=(2, 1), requires_grad=True)
b = torch.zeros(1, requires_grad=True)
def linreg(X, w, b):
    return torch.matmul(X, w) + b
def squared_loss(y_hat, y):
    return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2
def sgd(params, lr, batch_size):
    with torch.no_grad():
        for param in params:
            param -= lr * param.grad / batch_size
            param.grad.zero_()
def data_iter(batch_size, features, labels):
    num_examples = len(features)
    indices = torch.randperm(num_examples)
    for i in range(0, num_examples, batch_size):
        batch_indices = indices[i: min(i + batch_size, num_examples)]
        yield features[batch_indices], labels[batch_indices]
lr, num_epochs, batch_size = 0.03, 3, 10
for epoch in range(num_epochs):
    for Xb, yb in data_iter(batch_size, X, y):
        l = squared_loss(linreg(Xb, w, b), yb)
        l.sum().backward()
        sgd([w, b], lr, batch_size)
    with torch.no_grad():
        train_l = squared_loss(linreg(X, w, b), y)
        print(f'epoch {epoch + 1}, loss {float(train_l.mean()):.4f}')
print(f'error in estimating w: {true_w - w.reshape(true_w.shape)}')
print(f'error in estimating b: {true_b - b}')
""",
    "autograd_function_ctx": r"""
class MulConstant(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, constant):
        ctx.constant = constant
        return tensor * constant
    @staticmethod
    def backward(ctx, grad_output):
        return grad_output * ctx.constant, None
class LinearFunction(torch.autograd.Function):
    @staticmethod
    def forward(input, weight, bias):
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output
    @staticmethod
    def setup_context(ctx, inputs, output):
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)
    @staticmethod
    def backward(ctx, grad_output):
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias
torch.manual_seed(0)
x = torch.randn(4, 3, requires_grad=True)
y = MulConstant.apply(x, 5.0).sum()
y.backward()
print(x.grad)
w = torch.randn(2, 3, requires_grad=True, dtype=torch.double)
b = torch.randn(2, requires_grad=True, dtype=torch.double)
inp = torch.randn(4, 3, dtype=torch.double)
out = LinearFunction.apply(inp, w, b)
out.sum().backward()
print(out, w.grad, b.grad, inp.grad)
inp = torch.randn(4, 3, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(LinearFunction.apply, (inp, w, b), eps=1e-6, atol=1e-4))
class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, i):
        result = i.exp()
        ctx.save_for_backward(result)
        return result
    @staticmethod
    def backward(ctx, grad_output):
        result, = ctx.saved_tensors
        return grad_output * result
z = torch.tensor([0., 1., 2.], requires_grad=True)
e = Exp.apply(z)
e.backward(torch.ones(3))
print(e, z.grad, e.grad_fn)
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        return a * 2
    @staticmethod
    def backward(ctx, g):
        return g, g
try:
    Bad.apply(torch.ones(2, requires_grad=True)).sum().backward()
except RuntimeError as e:
    print(type(e).__name__, e)
""",
    "reproducible": r"""
torch.manual_seed(123)
a = torch.rand(3)
b = torch.randn(2, 2)
c = torch.randint(0, 10, (5,))
d = torch.randperm(6)
e = torch.empty(3).uniform_(-1, 1)
f = torch.empty(3).normal_(mean=2, std=0.5)
g = torch.bernoulli(torch.full((6,), 0.5))
h = torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 4, replacement=True)
print(a, b, c, d, e, f, g, h, sep='\n')
torch.manual_seed(123)
print(torch.equal(a, torch.rand(3)))
state = torch.get_rng_state()
x1 = torch.randn(4)
torch.set_rng_state(state)
x2 = torch.randn(4)
print(torch.equal(x1, x2), state.dtype, state.shape)
gen = torch.Generator().manual_seed(7)
print(torch.rand(2, generator=gen), torch.randn(2, generator=gen), gen.initial_seed())
print(torch.initial_seed())
torch.manual_seed(0)
drop = torch.nn.Dropout(p=0.5)
print(drop(torch.ones(8)))
print(torch.nn.functional.dropout(torch.ones(2, 4), 0.25, training=True))
torch.manual_seed(5)
print(torch.normal(torch.zeros(3), torch.ones(3)), torch.normal(2., 3., size=(2,)))
print(torch.rand(2, dtype=torch.float64), torch.randn(2, dtype=torch.float64), torch.randint(3, 8, (3,), dtype=torch.int32))
print(torch.empty(4).exponential_(), torch.empty(3).geometric_(0.3), torch.empty(3).cauchy_(), torch.empty(3).log_normal_())
print(torch.empty(5).random_(0, 4), torch.empty(2, dtype=torch.int64).random_(10))
print(torch.rand(0), torch.randn(2, 0).shape)
""",
    "batchnorm_dropout_modes": r"""
nn = torch.nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dropout(0.3), nn.Linear(6, 2))
x = torch.randn(8, 4)
model.train()
out1 = model(x)
print(out1)
print(model[1].running_mean, model[1].running_var, model[1].num_batches_tracked)
model.eval()
out2 = model(x)
print(out2)
print(model.training, model[1].training)
print(model[1])
print(model[1].state_dict().keys())
bn2 = nn.BatchNorm2d(3, momentum=0.5, affine=False)
img = torch.randn(2, 3, 4, 4)
y = bn2(img)
print(y.mean(dim=(0, 2, 3)).abs().max() < 1e-6, bn2.running_mean, bn2)
ln = nn.LayerNorm([4])
print(ln(x)[:2], ln)
try:
    model.train()(torch.randn(1, 4))
except ValueError as e:
    print(type(e).__name__, e)
""",
    "init_and_params": r"""
nn = torch.nn
torch.manual_seed(0)
class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.hidden = nn.Linear(4, 8)
        self.act = nn.Tanh()
        self.out = nn.Linear(8, 1)
        self.register_buffer('scale', torch.tensor(2.0))
    def forward(self, x):
        return self.out(self.act(self.hidden(x))) * self.scale
net = MLP()
def init_weights(m):
    if type(m) == nn.Linear:
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)
net.apply(init_weights)
print(net.hidden.weight, net.hidden.bias)
for name, param in net.named_parameters():
    print(f"{name:15s} {str(tuple(param.shape)):10s} {param.requires_grad}")
print([n for n, _ in net.named_buffers()], net.scale)
nn.init.constant_(net.out.weight, 0.5)
nn.init.normal_(net.out.bias, mean=0, std=0.01)
print(net.out.weight, net.out.bias)
w = torch.empty(3, 5)
print(nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu'))
print(nn.init.kaiming_uniform_(torch.empty(2, 3)), nn.init.orthogonal_(torch.empty(2, 2)))
print(nn.init.calculate_gain('leaky_relu', 0.2), nn.init.calculate_gain('tanh'))
print(nn.init.trunc_normal_(torch.empty(4), std=0.02), nn.init.uniform_(torch.empty(2), a=-0.1, b=0.1))
print(nn.init.eye_(torch.empty(2, 3)), nn.init.ones_(torch.empty(2)))
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
net.hidden.weight.requires_grad_(False)
print([n for n, p in net.named_parameters() if p.requires_grad])
print(net(torch.ones(2, 4)))
""",
    "lr_scheduler": r"""
torch.manual_seed(0)
model = torch.nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)
x = torch.randn(16, 2)
y = x.sum(1, keepdim=True)
for epoch in range(8):
    loss = torch.nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()
    print(epoch, f"{loss.item():.5f}", sched.get_last_lr())
opt = torch.optim.Adam(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
lrs = []
for _ in range(6):
    opt.step()
    sched.step()
    lrs.append(round(opt.param_groups[0]['lr'], 6))
print(lrs)
opt = torch.optim.SGD(model.parameters(), lr=1.0)
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 0.9 ** e)
for _ in range(3):
    opt.step(); sched.step()
print(sched.get_last_lr(), sched.state_dict()['last_epoch'])
opt = torch.optim.SGD(model.parameters(), lr=1.0)
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.1)
for v in [1.0, 0.9, 0.95, 0.96, 0.97, 0.98]:
    sched.step(v)
    print(opt.param_groups[0]['lr'])
""",
    "linalg_program": r"""
torch.manual_seed(0)
A = torch.randn(3, 3, dtype=torch.float64)
B = torch.randn(3, 2, dtype=torch.float64)
X = torch.linalg.solve(A, B)
print(X, torch.allclose(A @ X, B))
print(torch.allclose(torch.linalg.inv(A) @ A, torch.eye(3, dtype=torch.float64)))
print(torch.linalg.det(A), torch.linalg.slogdet(A))
S = A @ A.T + 3 * torch.eye(3, dtype=torch.float64)
L = torch.linalg.cholesky(S)
print(L, torch.allclose(L @ L.T, S))
evals, evecs = torch.linalg.eigh(S)
print(evals)
print(torch.allclose(evecs @ torch.diag(evals) @ evecs.T, S))
U, Sv, Vh = torch.linalg.svd(A)
print(Sv, torch.allclose(U @ torch.diag(Sv) @ Vh, A))
print(torch.linalg.svdvals(A), torch.linalg.matrix_rank(A), torch.linalg.cond(A))
Q, R = torch.linalg.qr(A)
print(torch.allclose(Q @ R, A), R.diagonal().abs())
print(torch.linalg.norm(A), torch.linalg.norm(A, 'fro'), torch.linalg.norm(A, 2), torch.linalg.norm(A, ord=1), torch.linalg.vector_norm(A, ord=3))
print(torch.linalg.matrix_norm(A, 'nuc'), torch.linalg.matrix_power(A, 3), torch.linalg.matrix_power(A, -1).shape)
x = torch.linalg.lstsq(torch.randn(5, 3, dtype=torch.float64), torch.randn(5, 1, dtype=torch.float64))
print(x.solution.shape, x.residuals, x.rank, x.singular_values)
print(torch.linalg.pinv(torch.tensor([[1., 2.], [2., 4.]])))
print(torch.linalg.cross(torch.tensor([1., 0, 0]), torch.tensor([0., 1, 0])))
print(torch.linalg.multi_dot([torch.ones(2, 3), torch.ones(3, 4), torch.ones(4)]))
P, Lu, U = torch.linalg.lu(A)
print(torch.allclose(P @ Lu @ U, A))
LU, piv = torch.linalg.lu_factor(A)
print(piv, torch.allclose(torch.linalg.lu_solve(LU, piv, B), X))
w, v = torch.linalg.eig(torch.tensor([[2., 0.], [0., 3.]]))
print(w, v)
print(torch.linalg.eigvals(torch.tensor([[0., -1.], [1., 0.]])), torch.linalg.eigvalsh(S))
try:
    torch.linalg.inv(torch.zeros(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.cholesky(-torch.eye(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.ones(2, 3), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
print(torch.linalg.solve(torch.eye(2).expand(4, 2, 2), torch.ones(4, 2)).shape)
print(torch.linalg.inv_ex(torch.zeros(2, 2)).info, torch.linalg.cholesky_ex(-torch.eye(2)).info)
""",
    "fft_program": r"""
import math
t = torch.arange(64, dtype=torch.float32) / 64
signal = torch.sin(2 * math.pi * 5 * t) + 0.5 * torch.sin(2 * math.pi * 12 * t)
spec = torch.fft.rfft(signal)
mag = spec.abs()
print(spec.shape, spec.dtype)
print(mag.topk(2).indices, [f"{v:.2f}" for v in mag.topk(2).values.tolist()])
freqs = torch.fft.rfftfreq(64, d=1/64)
print(freqs[:8])
back = torch.fft.irfft(spec, n=64)
print(torch.allclose(back, signal, atol=1e-5))
x = torch.tensor([1., 2., 3., 4.])
print(torch.fft.fft(x))
print(torch.fft.ifft(torch.fft.fft(x)))
print(torch.fft.fft(x, norm="ortho"), torch.fft.fft(x, n=6), torch.fft.fft(x, n=2))
print(torch.fft.fftfreq(5), torch.fft.fftshift(torch.fft.fftfreq(6)), torch.fft.ifftshift(torch.arange(5)))
img = torch.arange(16.).reshape(4, 4)
F2 = torch.fft.fft2(img)
print(F2)
print(torch.fft.ifft2(F2).real)
print(torch.fft.rfft2(img).shape, torch.fft.fftn(img, s=(2, 2)), torch.fft.hfft(torch.tensor([1., 2., 3.])))
print(torch.fft.ihfft(x), torch.fft.irfftn(torch.fft.rfftn(img)).shape)
z = torch.tensor([1., 2., 3.], requires_grad=True)
torch.fft.rfft(z).abs().sum().backward()
print(z.grad)
print(torch.fft.fft(torch.tensor([1, 2, 3])), torch.fft.fft(torch.ones(3, dtype=torch.float64)).dtype)
try:
    torch.fft.fft(x, norm="bad")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.fft(x, n=0)
except Exception as e:
    print(type(e).__name__, e)
""",
    "distributions_program": r"""
D = torch.distributions
torch.manual_seed(0)
n = D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))
print(n)
s = n.sample()
print(s, n.sample((3,)).shape, n.batch_shape, n.event_shape)
print(n.log_prob(torch.tensor([0.5, 0.5])), n.entropy(), n.mean, n.stddev, n.variance)
print(n.cdf(torch.tensor([0., 1.])), n.icdf(torch.tensor([0.5, 0.975])))
c = D.Categorical(probs=torch.tensor([0.1, 0.2, 0.7]))
print(c, c.sample((5,)), c.log_prob(torch.tensor(2)), c.entropy(), c.probs, c.logits)
mu = torch.tensor(0.5, requires_grad=True)
sigma = torch.tensor(1.5, requires_grad=True)
z = D.Normal(mu, sigma).rsample((4,))
z.pow(2).mean().backward()
print(z, mu.grad, sigma.grad)
print(D.Normal(0., 1.).has_rsample, D.Categorical(torch.ones(2)).has_rsample)
try:
    D.Categorical(torch.ones(2)).rsample()
except NotImplementedError as e:
    print(type(e).__name__, e)
try:
    D.Normal(torch.tensor([0.]), torch.tensor([-1.]))
except ValueError as e:
    print(type(e).__name__, e)
try:
    D.Bernoulli(probs=0.5, logits=0.)
except ValueError as e:
    print(type(e).__name__, e)
try:
    D.Normal(0., 1.).log_prob(torch.tensor([1.]).long().float() * float('nan'))
except ValueError as e:
    print(type(e).__name__, e)
e = D.Exponential(torch.tensor([1.0]))
try:
    e.log_prob(torch.tensor([-1.0]))
except ValueError as err:
    print(type(err).__name__, err)
print(D.Exponential(torch.tensor([1.0]), validate_args=False).log_prob(torch.tensor([-1.0])))
mvn = D.MultivariateNormal(torch.zeros(2), torch.eye(2))
print(mvn, mvn.sample((3,)).shape, mvn.log_prob(torch.zeros(2)), mvn.entropy())
b = D.Beta(torch.tensor([2.0]), torch.tensor([5.0]))
print(b.sample().shape, b.mean, b.log_prob(torch.tensor([0.3])))
print(D.kl_divergence(D.Normal(0., 1.), D.Normal(1., 2.)))
print(D.Uniform(0., 2.).sample((2, 2)).shape, D.Uniform(0., 2.).support, D.Normal(0., 1.).support, D.Categorical(torch.ones(3)).support)
print(D.Normal(0., 1.).arg_constraints)
tn = D.TransformedDistribution(D.Normal(0., 1.), [D.transforms.ExpTransform()])
print(tn.log_prob(torch.tensor(1.)), D.LogNormal(0., 1.).log_prob(torch.tensor(1.)))
print(D.Independent(D.Normal(torch.zeros(3), torch.ones(3)), 1))
""",
    "special_program": r"""
sp = torch.special
x = torch.linspace(-3, 3, 7)
print(sp.erf(x), sp.erfc(x), sp.expit(x), sp.logit(sp.expit(x)))
print(sp.ndtr(x), sp.log_ndtr(x), sp.ndtri(torch.tensor([0.1, 0.5, 0.9])))
p = torch.tensor([0.5, 1.0, 2.5, 10.0])
print(sp.gammaln(p), sp.digamma(p), sp.psi(p), sp.polygamma(2, p), sp.multigammaln(p + 1, 2))
print(sp.i0(p), sp.i0e(p), sp.i1(p), sp.i1e(p))
print(sp.xlogy(torch.tensor([0., 1., 2.]), torch.tensor([0., 2., 3.])), sp.xlog1py(torch.tensor([0., 1.]), torch.tensor([-1., 1.])))
print(sp.entr(torch.tensor([-1., 0., 0.5, 1.])), sp.sinc(torch.tensor([0., 0.5])), sp.round(torch.tensor([2.5, -0.5])))
print(sp.logsumexp(torch.tensor([[1., 2.], [3., 4.]]), dim=1), sp.softmax(torch.tensor([1., 2., 3.]), dim=0))
print(sp.log_softmax(torch.tensor([1., 2., 3.]), dim=0), sp.log1p(torch.tensor([0., 1e-5])), sp.expm1(torch.tensor([1e-5])))
print(sp.exp2(torch.tensor([3, 4])), sp.zeta(torch.tensor([2., 3.]), torch.tensor([1., 2.])), sp.gammainc(torch.tensor([1., 2.]), torch.tensor([1., 1.])))
print(sp.erfinv(torch.tensor([-0.5, 0., 0.9])), sp.erfcx(torch.tensor([-1., 0., 30.])))
print(sp.bessel_j0(torch.tensor([0., 1.5])), sp.bessel_y0(torch.tensor([1., 2.])), sp.bessel_y1(torch.tensor([1.])), sp.modified_bessel_k0(torch.tensor([1.])))
print(sp.scaled_modified_bessel_k0(torch.tensor([1.])), sp.modified_bessel_k1(torch.tensor([2.])), sp.airy_ai(torch.tensor([0., 1.])))
print(sp.chebyshev_polynomial_t(torch.tensor([0.5]), 3), sp.hermite_polynomial_h(torch.tensor([1.]), 3), sp.legendre_polynomial_p(torch.tensor([0.5]), 2), sp.laguerre_polynomial_l(torch.tensor([1.]), 2))
print(sp.expit(torch.tensor([1, 2])), sp.erf(torch.tensor([1], dtype=torch.int32)), sp.gammaln(torch.tensor([3], dtype=torch.float64)))
print(sp.i0(torch.tensor([1.], dtype=torch.float16)), sp.erf(torch.tensor([0.5], dtype=torch.bfloat16)))
x = torch.tensor([0.3, 1.7], requires_grad=True)
(sp.gammaln(x) + sp.erf(x) + sp.i0(x) + sp.ndtr(x)).sum().backward()
print(x.grad)
try:
    sp.polygamma(-1, x)
except RuntimeError as e:
    print(type(e).__name__, e)
""",
    "transforms": r"""
D = torch.distributions
T = torch.distributions.transforms
torch.manual_seed(0)
base = D.Normal(torch.zeros(3), torch.ones(3))
td = D.TransformedDistribution(base, [T.AffineTransform(1., 2.), T.ExpTransform()])
print(td, td.batch_shape, td.event_shape, td.support, td.has_rsample)
v = torch.tensor([0.5, 1.0, 4.0])
print(td.log_prob(v), td.cdf(v), td.icdf(torch.tensor([0.1, 0.5, 0.9])))
print(td.sample((2,)).shape, td.rsample().shape)
ln = D.LogNormal(torch.full((3,), 1.), torch.full((3,), 2.))
print(torch.allclose(ln.log_prob(v), td.log_prob(v)))
for t in [T.ExpTransform(), T.SigmoidTransform(), T.TanhTransform(), T.SoftplusTransform(), T.AffineTransform(0.5, -3.), T.PowerTransform(2.), T.AbsTransform()]:
    x = torch.tensor([0.2, 0.7, 1.5], dtype=torch.float64)
    y = t(x)
    print(t, y, t.inv(y), t.domain, t.codomain, t.bijective)
    if t.bijective:
        print(t.log_abs_det_jacobian(x, y), t.sign, t.inv, t.inv.inv is t)
c = T.ComposeTransform([T.AffineTransform(0., 2.), T.SigmoidTransform()])
print(c, c(torch.tensor([0., 1.])), c.inv(torch.tensor([0.5, 0.9])), c.log_abs_det_jacobian(torch.tensor([0., 1.]), c(torch.tensor([0., 1.]))))
print(c.domain, c.codomain, c.bijective, c.sign, c.event_dim)
sm = T.SoftmaxTransform()
print(sm(torch.tensor([1., 2., 3.])), sm.domain, sm.codomain, sm.inv(torch.tensor([0.2, 0.8])))
it = T.IndependentTransform(T.ExpTransform(), 1)
print(it, it.log_abs_det_jacobian(torch.zeros(2, 3), it(torch.zeros(2, 3))), it.domain, it.event_dim)
rs = T.ReshapeTransform((4,), (2, 2))
print(rs(torch.arange(8.).view(2, 4)).shape, rs.inv(torch.zeros(2, 2)).shape, rs.forward_shape((3, 4)), rs.log_abs_det_jacobian(torch.zeros(3, 4), torch.zeros(3, 2, 2)))
ct = T.ExpTransform(cache_size=1)
x = torch.tensor([1.])
y = ct(x)
print(ct.inv(y) is x, T.ExpTransform()(x) is T.ExpTransform()(x), T.ExpTransform() == T.ExpTransform(), T.AffineTransform(1., 2.) == T.AffineTransform(1., 2.))
try:
    T.ExpTransform(cache_size=2)
except ValueError as e:
    print(type(e).__name__, e)
try:
    D.TransformedDistribution(base, 'x')
except ValueError as e:
    print(type(e).__name__, e)
try:
    D.TransformedDistribution(base, [T.ExpTransform(), 1])
except ValueError as e:
    print(type(e).__name__, e)
try:
    D.TransformedDistribution(D.Normal(0., 1.), [T.SoftmaxTransform()])
except ValueError as e:
    print(type(e).__name__, e)
try:
    td.log_prob(torch.tensor([-1., 1., 1.]))
except ValueError as e:
    print(type(e).__name__, e)
loc = torch.zeros(2, requires_grad=True)
sq = D.TransformedDistribution(D.Normal(loc, torch.ones(2)), [T.TanhTransform()])
a = sq.rsample((5,))
lp = sq.log_prob(a.detach().clamp(-0.99, 0.99)).sum()
(a.sum() + lp).backward()
print(loc.grad.shape, sq.support, sq.batch_shape)
print(D.TransformedDistribution(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), [T.SoftmaxTransform()]).event_shape)
e = td.expand((4, 3))
print(e.batch_shape, e.log_prob(torch.ones(4, 3)).shape)
print(D.TransformedDistribution(D.Uniform(0., 1.), [T.AffineTransform(0., -1.)]).cdf(torch.tensor(-0.25)))
print(D.TransformedDistribution(D.Uniform(0., 1.), T.SigmoidTransform().inv).log_prob(torch.tensor(0.3)))
print(T.identity_transform, T.identity_transform(torch.ones(2)), T.ComposeTransform([]).inv)
""",
    "special_more": r"""
sp = torch.special
x = torch.tensor([0.5, 1., 2., 7.5])
print(sp.bessel_y0(x), sp.bessel_y1(x), sp.modified_bessel_k0(x), sp.modified_bessel_k1(x))
print(sp.scaled_modified_bessel_k0(x), sp.scaled_modified_bessel_k1(x), sp.airy_ai(torch.tensor([-3., 0., 1., 3.])))
print(sp.bessel_y0(torch.tensor([0., -1.])), sp.modified_bessel_k0(torch.tensor([0., -1., float('inf')])))
print(sp.bessel_y0(torch.tensor([1, 2])), sp.airy_ai(torch.tensor([1], dtype=torch.int32)).dtype)
xs = torch.linspace(-1, 1, 5)
for name in ['chebyshev_polynomial_t', 'chebyshev_polynomial_u', 'chebyshev_polynomial_v', 'chebyshev_polynomial_w', 'hermite_polynomial_h', 'hermite_polynomial_he', 'laguerre_polynomial_l', 'legendre_polynomial_p', 'shifted_chebyshev_polynomial_t', 'shifted_chebyshev_polynomial_u', 'shifted_chebyshev_polynomial_v', 'shifted_chebyshev_polynomial_w']:
    f = getattr(sp, name)
    print(name, f(xs, 3), f(xs, torch.tensor([0, 1, 2, 9, -1])), f(0.25, torch.tensor([4., 10.])))
print(sp.chebyshev_polynomial_t(torch.tensor([1, 2]), 2), sp.hermite_polynomial_h(torch.tensor([0.5], dtype=torch.float64), 4))
print(sp.chebyshev_polynomial_t(torch.tensor([0.5]), 2.5), sp.legendre_polynomial_p(torch.tensor([[0.5], [0.1]]), torch.tensor([1, 2, 3])))
y = sp.chebyshev_polynomial_t(torch.tensor([0.5], requires_grad=True), 3)
print(y, y.requires_grad, sp.bessel_y0(torch.tensor([1.], requires_grad=True)).requires_grad)
for call in [lambda: sp.chebyshev_polynomial_t(1, 2), lambda: sp.hermite_polynomial_h(torch.tensor([1.], dtype=torch.bfloat16), 2),
             lambda: sp.bessel_y0(torch.tensor([1.], dtype=torch.float16)), lambda: sp.chebyshev_polynomial_t(torch.tensor([0.5+1j]), 2),
             lambda: sp.airy_ai(torch.tensor([1.], dtype=torch.float16))]:
    tr(call)
print(sp.chebyshev_polynomial_t(torch.zeros(0), 3), sp.bessel_y1(torch.zeros(2, 0)).shape)
""",
    "more_distributions": r"""
D = torch.distributions
torch.manual_seed(0)
w = D.Weibull(torch.tensor([1., 2.]), torch.tensor([0.5, 3.]))
print(w, w.batch_shape, w.event_shape, w.support, w.mean, w.mode, w.variance, w.entropy())
print(w.sample((3,)), w.log_prob(torch.tensor([0.5, 1.5])), w.cdf(torch.tensor([0.5, 1.5])), w.icdf(torch.tensor([0.5, 0.9])))
p = D.Pareto(torch.tensor([1., 2.]), torch.tensor([3., 1.5]))
print(p, p.support, p.mean, p.mode, p.variance, p.entropy(), p.sample((2,)), p.log_prob(torch.tensor([1.5, 3.])), p.cdf(torch.tensor([1.5, 3.])))
h = D.HalfCauchy(torch.tensor([1., 2.]))
print(h, h.scale, h.support, h.mean, h.mode, h.entropy(), h.sample((2,)), h.log_prob(torch.tensor([0.5, 3.])), h.cdf(torch.tensor([0.5, 3.])), h.icdf(torch.tensor([0.5, 0.9])))
t = D.StudentT(torch.tensor([0.5, 1.5, 4.]), torch.tensor([0., 1., 2.]), torch.tensor([1., 2., 0.5]))
print(t, t.mean, t.mode, t.variance, t.entropy(), t.log_prob(torch.tensor([0., 1., 2.5])), t.sample((5,)).shape, t.batch_shape)
print(D.StudentT(3.), D.StudentT(3.).log_prob(torch.tensor(0.5)), D.StudentT(torch.tensor([2.])).expand((3, 1)).batch_shape)
for call in [lambda: D.Weibull(-1., 1.), lambda: D.Pareto(1., 0.), lambda: D.HalfCauchy(torch.tensor([-1.])), lambda: D.StudentT(-1.),
             lambda: D.Pareto(2., 1.).log_prob(torch.tensor(1.)), lambda: D.HalfCauchy(1.).log_prob(torch.tensor(-1.)),
             lambda: D.Weibull(1., 1.).log_prob(torch.tensor(-1.))]:
    tr(call)
torch.manual_seed(1)
scale = torch.tensor([1.5], requires_grad=True)
conc = torch.tensor([2.0], requires_grad=True)
x = D.Weibull(scale, conc).rsample((4,))
x.sum().backward()
print(x, scale.grad, conc.grad)
print(D.Weibull(1., 2.).expand((3,)).sample().shape, D.Pareto(1., 2.).expand((2, 2)).log_prob(torch.ones(2, 2) * 2))
""",
}


def test_every_program_is_collected():
    assert len(PROGRAMS) == 33


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_as_under_torch(name):
    same_output(PROGRAMS[name])
