"""Whole programs written the way PyTorch's tutorials and docs write them (tensors, autograd, "learning PyTorch
with examples", saving and loading, printing, broadcasting, reproducibility, linalg/fft, distributions): each
prints the same under torch and pjtorch, warnings included, so a change anywhere they reach that alters what a
user sees fails here."""
from __future__ import annotations

import pytest

from tensor_oracle import reference, same_output

reference()

PROGRAMS = {
    "tensors": r"""
import numpy as np
data = [[1, 2],[3, 4]]
x_data = torch.tensor(data)
print(x_data)
np_array = np.array(data)
x_np = torch.from_numpy(np_array)
print(x_np)
x_ones = torch.ones_like(x_data)
print(f"Ones Tensor: \n {x_ones} \n")
x_rand = torch.rand_like(x_data, dtype=torch.float)
print(x_rand.shape, x_rand.dtype)
shape = (2,3,)
ones_tensor = torch.ones(shape)
zeros_tensor = torch.zeros(shape)
print(f"Ones Tensor: \n {ones_tensor} \n")
print(f"Zeros Tensor: \n {zeros_tensor}")
tensor = torch.ones(3, 4)
print(f"Shape of tensor: {tensor.shape}")
print(f"Datatype of tensor: {tensor.dtype}")
print(f"Device tensor is stored on: {tensor.device}")
tensor = torch.ones(4, 4)
print(f"First row: {tensor[0]}")
print(f"First column: {tensor[:, 0]}")
print(f"Last column: {tensor[..., -1]}")
tensor[:,1] = 0
print(tensor)
t1 = torch.cat([tensor, tensor, tensor], dim=1)
print(t1)
y1 = tensor @ tensor.T
y2 = tensor.matmul(tensor.T)
y3 = torch.rand_like(y1)
torch.matmul(tensor, tensor.T, out=y3)
print(y1, y2, y3)
z1 = tensor * tensor
z2 = tensor.mul(tensor)
z3 = torch.rand_like(tensor)
torch.mul(tensor, tensor, out=z3)
print(z3)
agg = tensor.sum()
agg_item = agg.item()
print(agg_item, type(agg_item))
print(f"{tensor} \n")
tensor.add_(5)
print(tensor)
t = torch.ones(5)
print(f"t: {t}")
n = t.numpy()
print(f"n: {n}")
t.add_(1)
print(f"t: {t}")
print(f"n: {n}")
n = np.ones(5)
t = torch.from_numpy(n)
np.add(n, 1, out=n)
print(f"t: {t}")
print(f"n: {n}")
""",
    "autograd": r"""
x = torch.ones(5)
y = torch.zeros(3)
w = torch.tensor([[0.1*i - 0.3*j for j in range(3)] for i in range(5)], requires_grad=True)
b = torch.tensor([0.5, -0.2, 0.1], requires_grad=True)
z = torch.matmul(x, w)+b
loss = torch.nn.functional.binary_cross_entropy_with_logits(z, y)
print(f"Gradient function for z = {z.grad_fn}")
print(f"Gradient function for loss = {loss.grad_fn}")
loss.backward()
print(w.grad)
print(b.grad)
z = torch.matmul(x, w)+b
print(z.requires_grad)
with torch.no_grad():
    z = torch.matmul(x, w)+b
print(z.requires_grad)
z = torch.matmul(x, w)+b
z_det = z.detach()
print(z_det.requires_grad)
inp = torch.eye(4, 5, requires_grad=True)
out = (inp+1).pow(2).t()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"First call\n{inp.grad}")
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nSecond call\n{inp.grad}")
inp.grad.zero_()
out.backward(torch.ones_like(out), retain_graph=True)
print(f"\nCall after zeroing gradients\n{inp.grad}")
print(loss)
print(z)
""",
    "poly_tensor": r"""
import math
dtype = torch.float
device = torch.device("cpu")
x = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
y = torch.sin(x)
a = torch.tensor(0.1, device=device, dtype=dtype)
b = torch.tensor(-0.2, device=device, dtype=dtype)
c = torch.tensor(0.05, device=device, dtype=dtype)
d = torch.tensor(0.02, device=device, dtype=dtype)
learning_rate = 1e-6
for t in range(120):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum().item()
    if t % 40 == 39:
        print(t, round(loss, 2))
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
    "poly_autograd": r"""
import math
dtype = torch.float
x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)
a = torch.tensor(0.1, dtype=dtype, requires_grad=True)
b = torch.tensor(-0.2, dtype=dtype, requires_grad=True)
c = torch.tensor(0.05, dtype=dtype, requires_grad=True)
d = torch.tensor(0.02, dtype=dtype, requires_grad=True)
learning_rate = 1e-6
for t in range(120):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 40 == 39:
        print(t, round(loss.item(), 2))
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
print(f'Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3')
print(a, loss.grad_fn)
""",
    "poly_function": r"""
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
for t in range(200):
    P3 = LegendrePolynomial3.apply
    y_pred = a + b * P3(c + d * x)
    loss = (y_pred - y).pow(2).sum()
    if t % 50 == 49:
        print(t, round(loss.item(), 3))
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
print(f'Result: y = {a.item():.4f} + {b.item():.4f} * P3({c.item():.4f} + {d.item():.4f} x)')
print(y_pred.grad_fn)
""",
    "poly_nn": r"""
import math
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
print(xx.shape)
model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1)
)
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, -0.1, 0.05]]))
    model[0].bias.fill_(0.0)
print(model)
loss_fn = torch.nn.MSELoss(reduction='sum')
learning_rate = 1e-6
for t in range(120):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 40 == 39:
        print(t, round(loss.item(), 2))
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= learning_rate * param.grad
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.4f} + {linear_layer.weight[:, 0].item():.4f} x + {linear_layer.weight[:, 1].item():.4f} x^2 + {linear_layer.weight[:, 2].item():.4f} x^3')
print(model.state_dict().keys())
""",
    "poly_optim": r"""
import math
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
p = torch.tensor([1, 2, 3])
xx = x.unsqueeze(-1).pow(p)
model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
with torch.no_grad():
    model[0].weight.copy_(torch.tensor([[0.1, -0.1, 0.05]]))
    model[0].bias.fill_(0.0)
loss_fn = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
print(optimizer)
for t in range(120):
    y_pred = model(xx)
    loss = loss_fn(y_pred, y)
    if t % 40 == 39:
        print(t, round(loss.item(), 1))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
linear_layer = model[0]
print(f'Result: y = {linear_layer.bias.item():.3f} + {linear_layer.weight[:, 0].item():.3f} x + {linear_layer.weight[:, 1].item():.3f} x^2 + {linear_layer.weight[:, 2].item():.3f} x^3')
print(optimizer.state_dict()['param_groups'])
""",
    "poly_module": r"""
import math
class Polynomial3(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.tensor(0.1))
        self.b = torch.nn.Parameter(torch.tensor(-0.2))
        self.c = torch.nn.Parameter(torch.tensor(0.05))
        self.d = torch.nn.Parameter(torch.tensor(0.02))
    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
    def string(self):
        return f'y = {self.a.item():.4f} + {self.b.item():.4f} x + {self.c.item():.4f} x^2 + {self.d.item():.4f} x^3'
x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
model = Polynomial3()
print(model)
print(list(model.named_parameters()))
criterion = torch.nn.MSELoss(reduction='sum')
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)
for t in range(120):
    y_pred = model(x)
    loss = criterion(y_pred, y)
    if t % 40 == 39:
        print(t, round(loss.item(), 2))
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f'Result: {model.string()}')
print(model.state_dict())
""",
    "saveload": r"""
import io, os, tempfile
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(4, 3)
        self.bn = torch.nn.BatchNorm1d(3)
        self.fc2 = torch.nn.Linear(3, 2)
    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))
torch.manual_seed(0)
net = Net()
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.arange(p.numel(), dtype=torch.float32).reshape(p.shape) / 10 - i)
print("Model's state_dict:")
for param_tensor in net.state_dict():
    print(param_tensor, "\t", net.state_dict()[param_tensor].size())
opt = torch.optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
print("Optimizer's state_dict:")
for var_name in opt.state_dict():
    print(var_name, "\t", opt.state_dict()[var_name])
d = tempfile.mkdtemp()
PATH = os.path.join(d, "model.pt")
torch.save(net.state_dict(), PATH)
model = Net()
print(model.load_state_dict(torch.load(PATH, weights_only=True)))
model.eval()
x = torch.arange(8, dtype=torch.float32).reshape(2, 4)
print(model(x))
print(model.state_dict()['bn.num_batches_tracked'])
buf = io.BytesIO()
torch.save({'epoch': 3, 'model_state_dict': net.state_dict(), 'optimizer_state_dict': opt.state_dict(), 'loss': 0.25}, buf)
buf.seek(0)
ck = torch.load(buf)
print(sorted(ck.keys()), ck['epoch'], ck['loss'])
print(ck['optimizer_state_dict'])
opt2 = torch.optim.SGD(model.parameters(), lr=0.1)
opt2.load_state_dict(ck['optimizer_state_dict'])
print(opt2)
buf = io.BytesIO()
t = torch.arange(10)
torch.save([t, t[2:5], {'a': t.view(2, 5)}], buf)
buf.seek(0)
a, b, c = torch.load(buf)
b[0] = 100
print(a, b, c)
print(a.dtype, b.stride(), b.storage_offset())
print(model.load_state_dict({'fc1.weight': torch.zeros(3, 4)}, strict=False))
try:
    model.load_state_dict({'fc1.weight': torch.zeros(3, 5)}, strict=False)
except RuntimeError as e:
    print(e)
""",
    "printing": r"""
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64, torch.complex128]:
    t = torch.tensor([0, 1, 2, 3, 127], dtype=dt) if dt != torch.bool else torch.tensor([True, False])
    print(t)
    print(t.reshape(-1, 1) if t.numel() % 1 == 0 else t)
    print(torch.tensor(3, dtype=dt))
    print(torch.empty(0, dtype=dt), torch.zeros(2, 0, dtype=dt))
print(torch.tensor([1e10, 1e-10]))
print(torch.tensor([1.5, 2.25, 1000.125]))
print(torch.tensor([123456789.0, 1.0]))
print(torch.tensor([float('nan'), float('inf'), -float('inf'), 1.0]))
print(torch.tensor([float('nan'), float('inf')]))
print(torch.tensor([1e-5, 1.0, 1e5]))
print(torch.tensor([0.0001, 0.001]))
print(torch.tensor([1e20, -1e-20], dtype=torch.float64))
print(torch.arange(2000))
print(torch.arange(2000.).reshape(50, 40))
print(torch.arange(1200).reshape(2, 3, 200))
print(torch.tensor([1+2j, -3.5-1e-3j]))
print(torch.tensor([[1+2j, 1e8j]]))
print(torch.tensor([1.0, 2.0], dtype=torch.float16) / 3)
print(torch.tensor([1.0, 2.0], dtype=torch.bfloat16) / 3)
print(torch.tensor([65504.0, 1e-7], dtype=torch.float16))
print(torch.tensor([-0.0, 0.0]))
print(torch.tensor([[-1, 10], [100, -1000]]))
print(torch.ones(3, requires_grad=True) * 2)
print(torch.tensor(1.0, dtype=torch.float64, requires_grad=True))
print(repr(torch.tensor([1, 2])), str(torch.tensor([1., 2.])))
print(torch.zeros(2, 3, 4, 5))
print(torch.randn(3, 4).shape, torch.Size([2, 3]), torch.Size([]))
print(torch.tensor([1., 2.]).__format__(''), f"{torch.tensor(2.5):.3f}")
""",
    "setprint": r"""
x = torch.arange(30, dtype=torch.float64).reshape(5, 6) / 7
torch.set_printoptions(precision=2)
print(x)
torch.set_printoptions(precision=8)
print(x[0])
torch.set_printoptions(threshold=5)
print(torch.arange(10))
print(x)
torch.set_printoptions(edgeitems=1)
print(x)
torch.set_printoptions(linewidth=30, threshold=1000, edgeitems=3, precision=4)
print(torch.arange(40.))
torch.set_printoptions(sci_mode=True)
print(torch.tensor([1.0, 2.5]))
torch.set_printoptions(sci_mode=False)
print(torch.tensor([1e-8, 1e8]))
torch.set_printoptions(profile="default")
print(torch.tensor([1e-8, 1e8]))
torch.set_printoptions(profile="short")
print(x)
torch.set_printoptions(profile="full")
print(torch.arange(1005)[-3:], torch.arange(1005).shape)
torch.set_printoptions(profile="default")
print(torch.arange(1005))
torch.set_printoptions(precision=1, sci_mode=None)
print(torch.tensor([1.25, 3.75]))
torch.set_printoptions(precision=4)
print(torch.tensor([1.25, 3.75]))
""",
    "broadcast": r"""
x=torch.empty(5,7,3)
y=torch.empty(5,7,3)
print((x+y).size())
x=torch.empty((0,))
y=torch.empty(2,2)
try:
    print((x+y).size())
except RuntimeError as e:
    print(e)
x=torch.empty(5,3,4,1)
y=torch.empty(  3,1,1)
print((x+y).size())
x=torch.empty(5,2,4,1)
y=torch.empty(  3,1,1)
try:
    (x+y).size()
except RuntimeError as e:
    print(e)
x=torch.empty(1)
y=torch.empty(3,1,7)
print((x+y).size())
x=torch.empty(5,1,4,1)
y=torch.empty(3,1,1)
print((x+y).size())
x=torch.empty(1,3,1)
y=torch.empty(3,1,7)
try:
    x.add_(y)
except RuntimeError as e:
    print(e)
x=torch.empty(5,3,4,1)
y=torch.empty(3,1,1)
print(x.add_(y).size())
print(torch.add(torch.ones(4,1), torch.ones(4)).size())
print(torch.broadcast_shapes((2,), (3, 1), (1, 1, 1)))
try:
    torch.broadcast_shapes((2,), (3,))
except RuntimeError as e:
    print(e)
a, b = torch.broadcast_tensors(torch.arange(3), torch.arange(2).view(2, 1))
print(a, b, a.stride(), b.stride())
print(torch.arange(3).expand(2, 3), torch.arange(3).expand_as(torch.empty(4, 3)).shape)
try:
    torch.arange(3).expand(2, 4)
except RuntimeError as e:
    print(e)
""",
    "random": r"""
torch.manual_seed(0)
a = torch.rand(3)
torch.manual_seed(0)
b = torch.rand(3)
print(torch.equal(a, b))
s = torch.get_rng_state()
print(type(s).__name__, s.dtype, s.shape)
c = torch.randn(4)
torch.set_rng_state(s)
d = torch.randn(4)
print(torch.equal(c, d))
g = torch.Generator()
print(g.manual_seed(42) is g, g.initial_seed(), g.device)
x1 = torch.rand(2, 2, generator=g)
g.manual_seed(42)
x2 = torch.rand(2, 2, generator=g)
print(torch.equal(x1, x2))
st = g.get_state()
y1 = torch.randint(0, 10, (5,), generator=g)
g.set_state(st)
y2 = torch.randint(0, 10, (5,), generator=g)
print(torch.equal(y1, y2), y1.dtype)
print(torch.initial_seed())
print(torch.seed() is not None)
torch.manual_seed(123)
print(torch.initial_seed())
print(torch.randperm(6).sort().values)
print(torch.randint(3, 5, (2, 2)).dtype, torch.randint(10, (3,)).shape)
print(torch.rand(2, dtype=torch.float64).dtype, torch.randn(2, 3, dtype=torch.float16).dtype)
print(torch.empty(3).uniform_(2, 3).ge(2).all(), torch.empty(100).normal_(mean=5, std=0.0)[0])
print(torch.bernoulli(torch.ones(3)), torch.bernoulli(torch.zeros(3)))
print(torch.multinomial(torch.tensor([0., 1., 0.]), 2, replacement=True))
print(torch.empty(4).random_(0, 1), torch.empty(3, dtype=torch.int32).fill_(7).random_(5, 6))
print(torch.normal(torch.zeros(2), torch.zeros(2)), torch.normal(2., 0., size=(2,)))
g2 = torch.Generator().manual_seed(1)
print(g2.seed() != 1)
try:
    torch.manual_seed(-1)
    print(torch.initial_seed())
except RuntimeError as e:
    print(e)
try:
    torch.set_rng_state(torch.zeros(3))
except Exception as e:
    print(type(e).__name__, e)
print(torch.random.initial_seed() == torch.initial_seed())
with torch.random.fork_rng():
    torch.rand(3)
print(torch.default_generator.initial_seed())
""",
    "dtypes": r"""
for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16]:
    fi = torch.finfo(dt)
    print(fi)
    print(fi.bits, fi.eps, fi.max, fi.min, fi.tiny, fi.smallest_normal, fi.resolution, fi.dtype)
for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    ii = torch.iinfo(dt)
    print(ii, ii.bits, ii.max, ii.min, ii.dtype)
print(torch.finfo())
print(torch.finfo(torch.complex64))
try:
    torch.iinfo(torch.float32)
except TypeError as e:
    print(e)
try:
    torch.finfo(torch.int32)
except TypeError as e:
    print(e)
for dt in [torch.float32, torch.int64, torch.bool, torch.complex64, torch.bfloat16, torch.uint8]:
    print(dt, dt.is_floating_point, dt.is_complex, dt.is_signed, dt.itemsize, repr(dt))
print(torch.get_default_dtype())
torch.set_default_dtype(torch.float64)
print(torch.tensor([1.5]).dtype, torch.arange(3.).dtype, torch.tensor(1+2j).dtype)
torch.set_default_dtype(torch.float32)
print(torch.promote_types(torch.int8, torch.uint8), torch.promote_types(torch.float16, torch.bfloat16))
print(torch.result_type(torch.tensor([1]), 1.0), torch.can_cast(torch.float32, torch.int32))
print(torch.float == torch.float32, torch.double, torch.half, torch.long, torch.int, torch.short, torch.cfloat, torch.cdouble)
print(torch.is_floating_point(torch.tensor(1.)), torch.is_complex(torch.tensor(1j)))
print(torch.float32.to_complex(), torch.complex128.to_real())
print(torch.tensor([1, 2]).element_size(), torch.tensor([1.], dtype=torch.half).element_size())
print({torch.float32: 1}[torch.float], str(torch.int64), torch.int64 is torch.long)
""",
    "linalg": r"""
A = torch.tensor([[4., 1., 2.], [1., 3., 0.5], [2., 0.5, 5.]], dtype=torch.float64)
b = torch.tensor([1., 2., 3.], dtype=torch.float64)
print(torch.linalg.solve(A, b))
print(torch.linalg.det(A), torch.det(A), torch.linalg.slogdet(A))
print(torch.linalg.inv(A))
print(torch.linalg.norm(A), torch.linalg.norm(A, 'fro'), torch.linalg.norm(A, 'nuc'), torch.linalg.norm(A, 2))
print(torch.linalg.vector_norm(b, ord=3), torch.linalg.matrix_norm(A, ord=-1))
L = torch.linalg.cholesky(A)
print(L)
print(torch.linalg.eigvalsh(A))
Q, R = torch.linalg.qr(A)
print((Q @ R - A).abs().max() < 1e-12, R.diag().abs())
U, S, Vh = torch.linalg.svd(A)
print(S)
print(torch.linalg.svdvals(A))
print(torch.linalg.matrix_rank(A), torch.linalg.matrix_rank(torch.ones(3, 3)))
print(torch.linalg.pinv(torch.tensor([[1., 2.], [2., 4.]])))
print(torch.linalg.matrix_power(A, 3))
print(torch.linalg.matrix_exp(torch.zeros(2, 2)))
print(torch.linalg.cross(torch.tensor([1., 0., 0.]), torch.tensor([0., 1., 0.])))
print(torch.linalg.lstsq(torch.tensor([[1., 0.], [1., 1.], [1., 2.]]), torch.tensor([[1.], [2.], [2.9]])).solution)
print(torch.linalg.cond(A))
print(torch.linalg.multi_dot([A, A, b]))
print(torch.linalg.vecdot(b, b), torch.linalg.diagonal(A))
print(torch.linalg.solve_triangular(L, b.unsqueeze(1), upper=False))
print(torch.linalg.eigvals(torch.tensor([[2., 0.], [0., 3.]])))
print(torch.linalg.eig(torch.tensor([[2., 0.], [0., 3.]])))
try:
    torch.linalg.cholesky(torch.tensor([[1., 2.], [2., 1.]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.inv(torch.zeros(2, 2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.solve(torch.ones(2, 3), torch.ones(2))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.det(torch.ones(2, 3))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.linalg.inv(torch.ones(3, dtype=torch.int64))
except Exception as e:
    print(type(e).__name__, e)
print(torch.linalg.inv_ex(torch.zeros(2, 2)).info, torch.linalg.cholesky_ex(A).info)
print(torch.inverse(A).dtype, torch.cholesky_solve(b.unsqueeze(1), L).shape)
print(torch.linalg.lu_factor(A).pivots)
P, Lw, U = torch.linalg.lu(A)
print(P)
print(torch.trace(A), torch.outer(b, b).shape, torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6), torch.ones(2, 3)).shape)
""",
    "fft": r"""
x = torch.tensor([1., 2., 0., -1., 3., 0.5, 0., 2.])
print(torch.fft.fft(x))
print(torch.fft.ifft(torch.fft.fft(x)).real)
print(torch.fft.rfft(x))
print(torch.fft.irfft(torch.fft.rfft(x)))
print(torch.fft.irfft(torch.fft.rfft(x), n=8))
print(torch.fft.fft(x, n=4), torch.fft.fft(x, n=10, norm="ortho"))
print(torch.fft.fft(x, norm="forward"))
print(torch.fft.hfft(torch.tensor([1., 2j, 3.])))
print(torch.fft.ihfft(x))
y = x.reshape(2, 4)
print(torch.fft.fft2(y))
print(torch.fft.rfft2(y))
print(torch.fft.fftn(y, dim=(0,)), torch.fft.ifftn(y).shape)
print(torch.fft.irfftn(torch.fft.rfftn(y), s=y.shape))
print(torch.fft.fftfreq(5), torch.fft.rfftfreq(6, d=0.5))
print(torch.fft.fftshift(torch.arange(6)), torch.fft.ifftshift(torch.arange(6)))
print(torch.fft.fftshift(torch.arange(6).reshape(2, 3), dim=1))
print(torch.fft.fft(torch.arange(4)).dtype, torch.fft.fft(torch.arange(4.0, dtype=torch.float64)).dtype)
print(torch.fft.rfft(torch.ones(4, dtype=torch.float16)) if False else 0)
try:
    torch.fft.fft(x, norm="bogus")
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.rfft(torch.tensor([1j]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.fft.fft(x, n=0)
except Exception as e:
    print(type(e).__name__, e)
t = torch.tensor([1., 2., 3., 4.], requires_grad=True)
s = torch.fft.rfft(t).abs().sum()
s.backward()
print(s, t.grad)
z = torch.fft.fft(t)
print(z.grad_fn)
""",
    "testing": r"""
def tr(f):
    try:
        print('ok', f())
    except Exception as e:
        print(type(e).__name__, e)
a = torch.tensor([1., 2., 3.])
tr(lambda: torch.testing.assert_close(a, a.clone()))
tr(lambda: torch.testing.assert_close(a, a + 1e-7))
tr(lambda: torch.testing.assert_close(a, a + 1e-3))
tr(lambda: torch.testing.assert_close(a, torch.tensor([1., 2.5, 3.])))
tr(lambda: torch.testing.assert_close(a, a.double()))
tr(lambda: torch.testing.assert_close(a, a.double(), check_dtype=False))
tr(lambda: torch.testing.assert_close(a, a[:2]))
tr(lambda: torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 3])))
tr(lambda: torch.testing.assert_close(a, a + 0.1, rtol=0, atol=0.2))
tr(lambda: torch.testing.assert_close(a, a + 0.1, rtol=0.5))
tr(lambda: torch.testing.assert_close(torch.tensor(float('nan')), torch.tensor(float('nan'))))
tr(lambda: torch.testing.assert_close(torch.tensor(float('nan')), torch.tensor(float('nan')), equal_nan=True))
tr(lambda: torch.testing.assert_close([a, {'x': a}], [a, {'x': a}]))
tr(lambda: torch.testing.assert_close([a], [a, a]))
tr(lambda: torch.testing.assert_close(1.0, 1.0 + 1e-9))
tr(lambda: torch.testing.assert_close(1, 2))
tr(lambda: torch.testing.assert_close(a, [1., 2., 3.]))
tr(lambda: torch.testing.assert_close(a, a.requires_grad_()))
tr(lambda: torch.testing.assert_close(torch.zeros(2, 2), torch.zeros(2, 2).t()))
tr(lambda: torch.testing.assert_close(torch.zeros(2, 2), torch.ones(2, 2), msg="custom"))
tr(lambda: torch.testing.make_tensor((2, 3), dtype=torch.float32, device='cpu').shape)
tr(lambda: torch.testing.make_tensor(3, dtype=torch.int64, device='cpu', low=0, high=5).dtype)
tr(lambda: torch.testing.assert_close(torch.tensor([1+1j]), torch.tensor([1+1.1j])))
tr(lambda: torch.testing.assert_close(torch.arange(100.), torch.arange(100.) * 1.01))
""",
    "ops_docs": r"""
a = torch.arange(12, dtype=torch.float32).reshape(3, 4)
print(torch.sum(a, 1), a.mean(0), a.std(), a.var(1, keepdim=True), a.max(), a.max(1), a.argmax(), a.min(dim=0))
print(torch.cumsum(a, 0), torch.cumprod(a[0] + 1, 0), a.prod(1))
print(torch.sort(torch.tensor([3, 1, 2])), torch.topk(torch.tensor([1., 5., 3., 4.]), 2))
print(torch.where(a > 5, a, torch.zeros_like(a)), torch.clamp(a, min=2, max=8), a.clamp(max=3))
print(torch.cat((a, a), 0).shape, torch.stack((a, a)).shape, torch.split(a, 2, 1), torch.chunk(torch.arange(5), 3))
print(torch.gather(a, 1, torch.tensor([[0, 1], [1, 2], [3, 3]])), torch.zeros(3, 5).scatter_(1, torch.tensor([[0], [2], [4]]), 1.0))
print(torch.einsum('ij,kj->ik', a, a), torch.einsum('ii', torch.eye(3)), torch.einsum('i,j->ij', torch.arange(2.), torch.arange(3.)))
print(a.t(), a.T.is_contiguous(), a.view(-1, 6), a.flatten(), a.unsqueeze(0).shape, a[None, :, None].shape, a.permute(1, 0).stride())
print(torch.masked_select(a, a > 8), a[a > 8], a[[0, 2]], a[:, [1, 3]], a[1:, ::2])
print(torch.nonzero(torch.tensor([0, 1, 0, 2])), torch.argwhere(torch.tensor([[0, 1], [1, 0]])), torch.unique(torch.tensor([3, 1, 3, 2]), return_counts=True))
print(torch.tensor([1, 2, 3]) / 2, torch.tensor([1, 2, 3]) // 2, torch.tensor([-3, 3]) % 2, torch.tensor([5]) ** 2, 2 ** torch.tensor([1., 2.]))
print(torch.tensor([True, False]) & torch.tensor([True, True]), ~torch.tensor([True]), torch.tensor([1, 2]) | 4)
print(torch.tensor(3.5).item(), torch.tensor([1, 2]).tolist(), int(torch.tensor(4)), float(torch.tensor(2)), bool(torch.tensor([1])))
print(torch.linspace(0, 1, 5), torch.logspace(0, 2, 3), torch.arange(0, 1, 0.25), torch.full((2, 2), 7), torch.eye(2, 3), torch.zeros(2, dtype=torch.int32))
print(torch.tril(torch.ones(3, 3)), torch.triu(torch.ones(3, 3), 1), torch.diag(torch.tensor([1, 2])), torch.diagonal(a))
print(torch.flip(a, [0]), torch.roll(torch.arange(5), 2), torch.rot90(torch.arange(4).view(2, 2)), a.repeat(1, 2).shape, torch.arange(3).repeat_interleave(2))
print(torch.allclose(a, a + 1e-9), torch.equal(a, a), torch.isclose(torch.tensor([1., 2.]), torch.tensor([1., 2.1])), torch.isnan(torch.tensor([float('nan'), 1.])))
print(torch.abs(torch.tensor([-1, 2])), torch.sqrt(torch.tensor([4., 9.])), torch.exp(torch.tensor([0., 1.])), torch.log(torch.tensor([1., 4.])), torch.sigmoid(torch.tensor([0.])))
print(torch.round(torch.tensor([0.5, 1.5, 2.5, -0.5])), torch.floor(torch.tensor([-1.5])), torch.ceil(torch.tensor([1.2])), torch.trunc(torch.tensor([-1.7])), torch.sign(torch.tensor([-2., 0., 3.])))
print(torch.dot(torch.tensor([2, 3]), torch.tensor([2, 1])), torch.mm(a, a.t()), torch.bmm(a.unsqueeze(0), a.t().unsqueeze(0)).shape, torch.mv(a, torch.ones(4)))
print(torch.matmul(torch.ones(2, 3, 4), torch.ones(4)).shape, torch.outer(torch.arange(2), torch.arange(3)), torch.kron(torch.eye(2), torch.ones(2, 2)))
print(torch.histc(torch.tensor([1., 2, 1]), bins=4, min=0, max=3), torch.bincount(torch.tensor([0, 1, 1, 3])), torch.bucketize(torch.tensor([1, 5, 9]), torch.tensor([2, 4, 6, 8])))
print(a.numel(), a.dim(), a.size(1), a.shape[0], len(a), a.dtype, a.is_leaf, a.requires_grad, a.device, a.type(), a.is_floating_point())
print(torch.meshgrid(torch.arange(2), torch.arange(3), indexing='ij'), torch.cartesian_prod(torch.arange(2), torch.arange(2)))
print(torch.tensor([[1, 2], [3, 4]]).sum(dtype=torch.float64), torch.tensor([1, 2]).float().mean(), torch.tensor([1., 2., 3.]).median(), torch.tensor([1., 4., 2.]).sort(descending=True))
print(torch.logsumexp(a, 1), torch.softmax(a[0], 0), torch.log_softmax(a[0], 0), torch.norm(a), torch.dist(a[0], a[1]), torch.cdist(a[:2], a[1:]))
""",
    "train_loop": r"""
nn = torch.nn
DataLoader, TensorDataset = torch.utils.data.DataLoader, torch.utils.data.TensorDataset
torch.manual_seed(0)
X = torch.linspace(-1, 1, 64).unsqueeze(1)
Y = 3 * X + 0.5
ds = TensorDataset(X, Y)
dl = DataLoader(ds, batch_size=16, shuffle=False)
print(len(ds), len(dl), ds[0])
model = nn.Sequential(nn.Linear(1, 8), nn.Tanh(), nn.Linear(8, 1))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape))
opt = torch.optim.Adam(model.parameters(), lr=0.05)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
loss_fn = nn.MSELoss()
for epoch in range(12):
    total = 0.0
    for xb, yb in dl:
        pred = model(xb)
        loss = loss_fn(pred, yb)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    sched.step()
    if epoch % 3 == 0:
        print(f"epoch {epoch}: loss {total / len(dl):.5f} lr {sched.get_last_lr()}")
model.eval()
with torch.no_grad():
    print(model(torch.tensor([[0.0], [0.5]])))
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
print(model)
for name, param in model.named_parameters():
    print(name, param.shape, param.requires_grad)
""",
    "reproducibility": r"""
import random
import numpy as np
torch.manual_seed(0)
random.seed(0)
np.random.seed(0)
print(torch.rand(3))
print(torch.randn(2, 2))
print(torch.randint(0, 10, (5,)))
print(torch.randperm(8))
print(torch.rand(2, dtype=torch.float64))
print(torch.randn(3, dtype=torch.float64))
g = torch.Generator()
g.manual_seed(2147483647)
print(torch.rand(3, generator=g))
print(torch.randn(4, generator=g))
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled())
torch.use_deterministic_algorithms(False)
def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)
g = torch.Generator()
g.manual_seed(0)
loader = torch.utils.data.DataLoader(torch.arange(10), batch_size=3, shuffle=True, worker_init_fn=seed_worker, generator=g)
for b in loader:
    print(b)
torch.manual_seed(42)
print(torch.nn.Linear(3, 2).weight)
torch.manual_seed(42)
x = torch.empty(5).uniform_(-1, 1)
print(x, torch.empty(3).normal_(0, 2), torch.empty(4).exponential_(), torch.empty(3).bernoulli_(0.5))
print(torch.nn.functional.dropout(torch.ones(10), 0.5))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.7]), 5, replacement=True))
print(torch.multinomial(torch.tensor([0.1, 0.2, 0.3, 0.4]), 3))
print(torch.rand(2, 3).mean(), torch.randn(1000).std() > 0.9)
print(torch.normal(torch.zeros(3), torch.ones(3)), torch.normal(1.0, 2.0, (2,)))
print(torch.randn(2, 2, dtype=torch.complex64))
print(torch.bernoulli(torch.full((5,), 0.3)))
print(torch.empty(4).cauchy_(), torch.empty(3).log_normal_(), torch.empty(4).geometric_(0.3), torch.empty(4, dtype=torch.int64).random_(100))
""",
    "dist_sampling": r"""
Normal, Categorical, Bernoulli, Uniform, Exponential, Laplace, MultivariateNormal, OneHotCategorical, Independent, LogNormal, Gamma, Beta, Dirichlet = (getattr(torch.distributions, n) for n in "Normal, Categorical, Bernoulli, Uniform, Exponential, Laplace, MultivariateNormal, OneHotCategorical, Independent, LogNormal, Gamma, Beta, Dirichlet".split(", "))
torch.manual_seed(0)
print(Normal(torch.tensor([0.0]), torch.tensor([1.0])).sample())
print(Normal(0., 1.).sample((3,)), Normal(0., 1.).rsample((2, 2)))
m = Categorical(torch.tensor([0.25, 0.25, 0.25, 0.25]))
print(m.sample(), m.sample((5,)))
print(Bernoulli(torch.tensor([0.3])).sample(), Bernoulli(0.5).sample((4,)))
print(Uniform(torch.tensor([0.0]), torch.tensor([5.0])).sample(), Exponential(torch.tensor([1.0])).sample())
print(Laplace(0., 1.).sample((3,)), LogNormal(0., 1.).sample((2,)))
print(MultivariateNormal(torch.zeros(2), torch.eye(2)).sample(), MultivariateNormal(torch.zeros(2), scale_tril=torch.tensor([[1., 0.], [0.5, 2.]])).sample((2,)))
print(OneHotCategorical(torch.tensor([0.25, 0.25, 0.25, 0.25])).sample())
print(Independent(Normal(torch.zeros(2), torch.ones(2)), 1).sample((2,)))
print(Categorical(logits=torch.tensor([[1., 2., 3.], [3., 2., 1.]])).sample((4,)))
mu = torch.tensor([0.5, -0.5], requires_grad=True)
sigma = torch.tensor([1.0, 2.0], requires_grad=True)
d = Normal(mu, sigma)
z = d.rsample()
loss = (z ** 2).sum() + d.entropy().sum()
loss.backward()
print(z, mu.grad, sigma.grad)
probs = torch.tensor([0.1, 0.6, 0.3], requires_grad=True)
dist = Categorical(probs)
action = dist.sample()
logp = dist.log_prob(action)
(-logp * 2.0).backward()
print(action, logp, probs.grad)
print(d, dist, MultivariateNormal(torch.zeros(2), torch.eye(2)))
print(Normal(0., 1.).sample().dtype, Normal(torch.tensor(0., dtype=torch.float64), 1.).sample().dtype)
""",
    "autograd_more": r"""
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
while y.data.norm() < 1000:
    y = y * 2
print(y)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)
print(x.requires_grad, (x ** 2).requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.requires_grad)
y = x.detach()
print(y.requires_grad, x.eq(y).all())
a = torch.tensor([2., 3.], requires_grad=True)
b = torch.tensor([6., 4.], requires_grad=True)
Q = 3*a**3 - b**2
external_grad = torch.tensor([1., 1.])
Q.backward(gradient=external_grad)
print(9*a**2 == a.grad)
print(-2*b == b.grad)
print(Q.grad_fn, Q.grad_fn.next_functions)
x = torch.ones(2, 2, requires_grad=True)
y = x + 2
z = y * y * 3
out = z.mean()
print(y, z, out)
out.backward()
print(x.grad)
a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
g, = torch.autograd.grad(y, x, create_graph=True)
g2, = torch.autograd.grad(g, x)
print(g, g2)
def f(x): return (x ** 2).sum()
print(torch.autograd.functional.jacobian(lambda t: t ** 2, torch.tensor([1., 2.])))
print(torch.autograd.functional.hessian(f, torch.tensor([1., 2.])))
w = torch.tensor([1., 2.], requires_grad=True)
h = w.register_hook(lambda g: g * 10)
(w * 3).sum().backward()
print(w.grad)
h.remove()
w.grad = None
(w * 3).sum().backward()
print(w.grad)
try:
    (w * 3).sum().backward(); z = w * 2; z.backward()
except RuntimeError as e:
    print(e)
""",
    "complex_fft_signal": r"""
import math
t = torch.arange(64, dtype=torch.float64) / 64
sig = torch.sin(2 * math.pi * 5 * t) + 0.5 * torch.cos(2 * math.pi * 12 * t)
spec = torch.fft.rfft(sig)
mag = spec.abs()
print(mag.argsort(descending=True)[:2], mag[5].round(decimals=4), mag[12].round(decimals=4))
freqs = torch.fft.rfftfreq(64, d=1/64)
print(freqs[:6])
filtered = torch.fft.irfft(spec * (freqs < 8), n=64)
print((filtered - torch.sin(2 * math.pi * 5 * t)).abs().max() < 1e-10)
z = torch.complex(torch.tensor([1., 2.]), torch.tensor([3., -4.]))
print(z, z.real, z.imag, z.abs(), z.angle(), z.conj(), torch.view_as_real(z), z.dtype)
print(torch.polar(torch.tensor([1., 2.]), torch.tensor([0., math.pi / 2])))
print(z * z, z.exp(), torch.view_as_complex(torch.tensor([[1., 2.], [3., 4.]])))
print(torch.hann_window(5), torch.hamming_window(4))
x = torch.arange(8.).reshape(2, 4)
print(torch.fft.fft2(x).abs(), torch.fft.fftshift(torch.fft.fftfreq(4)))
""",
    "type_promotion": r"""
float_tensor = torch.ones(1, dtype=torch.float)
double_tensor = torch.ones(1, dtype=torch.double)
complex_float_tensor = torch.ones(1, dtype=torch.complex64)
complex_double_tensor = torch.ones(1, dtype=torch.complex128)
int_tensor = torch.ones(1, dtype=torch.int)
long_tensor = torch.ones(1, dtype=torch.long)
uint_tensor = torch.ones(1, dtype=torch.uint8)
bool_tensor = torch.ones(1, dtype=torch.bool)
long_zerodim = torch.tensor(1, dtype=torch.long)
int_zerodim = torch.tensor(1, dtype=torch.int)
print(torch.add(5, 5).dtype)
print((int_tensor + 5).dtype, (int_tensor + long_zerodim).dtype, (long_tensor + int_tensor).dtype)
print((bool_tensor + long_tensor).dtype, (bool_tensor + uint_tensor).dtype, (float_tensor + double_tensor).dtype)
print((complex_float_tensor + complex_double_tensor).dtype, (bool_tensor + int_tensor).dtype)
print(torch.add(long_tensor, float_tensor).dtype)
int_tensor += 5
try:
    int_tensor.add_(5.5)
except RuntimeError as e:
    print(e)
float_tensor *= double_tensor
float_tensor *= int_tensor
float_tensor *= uint_tensor
float_tensor *= bool_tensor
float_tensor *= double_tensor
int_tensor *= long_zerodim
int_tensor *= uint_tensor
try:
    uint_tensor *= int_tensor
    print(uint_tensor.dtype)
except RuntimeError as e:
    print(e)
try:
    int_tensor *= float_tensor
except RuntimeError as e:
    print(e)
try:
    float_tensor *= complex_float_tensor
except RuntimeError as e:
    print(e)
print(float_tensor, int_tensor)
print(torch.tensor([1, 2]) * 2.5, torch.tensor([1, 2], dtype=torch.int8) + 300, torch.tensor([1., 2.], dtype=torch.half) + torch.tensor(1.0, dtype=torch.float64))
print(torch.tensor([True]) + True, torch.tensor([1]) / torch.tensor([2]), torch.tensor([1.5]).to(torch.int32), torch.tensor([-1]).to(torch.uint8))
print(torch.tensor([3], dtype=torch.int16) * torch.tensor([2], dtype=torch.uint8), torch.tensor(2, dtype=torch.float16) * torch.tensor([3], dtype=torch.int64))
""",
    "views": r"""
t = torch.rand(4, 4)
b = t.view(2, 8)
print(t.data_ptr() == b.data_ptr())
b[0][0] = 3.14
print(t[0][0])
base = torch.tensor([[0, 1],[2, 3]])
print(base.is_contiguous())
t = base.transpose(0, 1)
print(t.is_contiguous())
c = t.contiguous()
print(c, c.is_contiguous(), t.stride(), c.stride())
x = torch.arange(12).reshape(3, 4)
y = x[:, 1]
y += 100
print(x, y.is_contiguous(), y.storage_offset(), y._base is x)
try:
    x.t().view(12)
except RuntimeError as e:
    print(e)
print(x.t().reshape(12), x.unfold(1, 2, 2).shape, x.narrow(0, 1, 2), x.select(1, 0), x.expand(2, 3, 4).stride())
u = x.unbind(0)
print(u, x.chunk(2, 1), x.split([1, 3], 1)[1].stride(), x.diagonal(), x.movedim(0, 1).shape, x.as_strided((2, 2), (1, 2)))
z = torch.zeros(3)
z[1:] = torch.tensor([5., 6.])
z[torch.tensor([True, False, False])] = -1
print(z, z.index_fill(0, torch.tensor([2]), 9.), z.masked_fill(z > 0, 0.), z.index_put((torch.tensor([0]),), torch.tensor(7.)))
v = torch.arange(6.).view(2, 3)
v.t_()
print(v, v.shape, v.is_contiguous())
w = torch.arange(4.)
w.resize_(2, 2)
print(w, w.squeeze(), w.view(1, 2, 2).squeeze(0).shape, w.unsqueeze(-1).shape, w.flatten().view_as(w))
print(torch.tensor([[1, 2], [3, 4]]).T.flatten(), torch.arange(8).view(2, 2, 2).transpose(0, 2).contiguous().view(-1))
""",
    "nn_module_docs": r"""
nn = torch.nn
F = torch.nn.functional
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)
    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        output = self.fc3(f6)
        return output
torch.manual_seed(0)
net = Net()
print(net)
params = list(net.parameters())
print(len(params))
print(params[0].size())
input = torch.randn(1, 1, 32, 32)
out = net(input)
print(out)
net.zero_grad()
out.backward(torch.randn(1, 10))
target = torch.randn(10)
target = target.view(1, -1)
criterion = nn.MSELoss()
output = net(input)
loss = criterion(output, target)
print(loss)
print(loss.grad_fn)
print(loss.grad_fn.next_functions[0][0])
print(loss.grad_fn.next_functions[0][0].next_functions[0][0])
net.zero_grad()
print('conv1.bias.grad before backward')
print(net.conv1.bias.grad)
loss.backward()
print('conv1.bias.grad after backward')
print(net.conv1.bias.grad)
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
optimizer.zero_grad()
output = net(input)
loss = criterion(output, target)
loss.backward()
optimizer.step()
print(net(input))
""",
    "dist_programs": r"""
D = torch.distributions
torch.manual_seed(1)
mu = torch.zeros(3, requires_grad=True)
log_sigma = torch.zeros(3, requires_grad=True)
opt = torch.optim.SGD([mu, log_sigma], lr=0.1)
data = torch.tensor([[1.0, -1.0, 0.5], [1.2, -0.8, 0.4], [0.8, -1.2, 0.6]])
for step in range(30):
    dist = D.Normal(mu, log_sigma.exp())
    nll = -dist.log_prob(data).sum()
    opt.zero_grad()
    nll.backward()
    opt.step()
    if step % 10 == 9:
        print(step, round(nll.item(), 2))
print(mu, log_sigma.exp())
q = D.Normal(mu.detach(), log_sigma.exp().detach())
p = D.Normal(torch.zeros(3), torch.ones(3))
print(D.kl_divergence(q, p), D.kl_divergence(q, p).sum())
z = q.rsample((2,))
print(z.shape, q.log_prob(z).shape, q.cdf(torch.zeros(3)), q.icdf(torch.full((3,), 0.5)))
logits = torch.zeros(4, requires_grad=True)
opt = torch.optim.Adam([logits], lr=0.1)
rewards = torch.tensor([0., 1., 0., 2.])
for step in range(20):
    pi = D.Categorical(logits=logits)
    a = pi.sample((16,))
    loss = -(pi.log_prob(a) * rewards[a]).mean()
    opt.zero_grad(); loss.backward(); opt.step()
print(D.Categorical(logits=logits).probs)
print(D.Categorical(logits=logits).entropy(), D.Categorical(logits=logits).mode)
b = D.Bernoulli(logits=torch.tensor([-1., 0., 2.]))
print(b.probs, b.mean, b.variance, b.entropy(), b.log_prob(torch.tensor([0., 1., 1.])))
mvn = D.MultivariateNormal(torch.tensor([1., 2.]), covariance_matrix=torch.tensor([[2., 0.3], [0.3, 0.5]]))
print(mvn.scale_tril, mvn.precision_matrix, mvn.entropy(), mvn.log_prob(torch.tensor([1., 1.])), mvn.variance)
ind = D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)
print(ind, ind.batch_shape, ind.event_shape, ind.log_prob(torch.zeros(2, 3)), ind.entropy())
u = D.Uniform(torch.tensor([0., 1.]), torch.tensor([2., 4.]))
print(u.mean, u.stddev, u.entropy(), u.cdf(torch.tensor([1., 2.])), u.log_prob(torch.tensor([1., 2.])))
print(D.Exponential(2.).mean, D.Laplace(1., 2.).variance, D.LogNormal(0., 1.).mean, D.Beta(2., 3.).mean, D.Gamma(2., 4.).variance)
print(D.Dirichlet(torch.tensor([1., 2., 3.])).mean, D.Poisson(3.).log_prob(torch.tensor(2.)), D.Binomial(10, 0.3).log_prob(torch.tensor(3.)))
""",
    "special_docs": r"""
print(torch.special.entr(torch.arange(-1, 2, dtype=torch.float)))
print(torch.special.erf(torch.tensor([0, -1., 10.])), torch.special.erfc(torch.tensor([0, -1., 5.])), torch.special.erfcx(torch.tensor([0, -1., 10.])))
print(torch.special.erfinv(torch.tensor([0, 0.5, -1.])), torch.special.expit(torch.tensor([0.9213, 1.0887, -0.8858, -1.7683])))
print(torch.special.exp2(torch.tensor([0, 2, 8.])), torch.special.expm1(torch.tensor([0, 0.6931])), torch.special.gammaln(torch.arange(0.5, 2, 0.5)))
print(torch.special.digamma(torch.tensor([1, 0.5])), torch.special.polygamma(1, torch.tensor([1, 0.5])), torch.special.polygamma(2, torch.tensor([1, 0.5])))
print(torch.special.multigammaln(torch.tensor([[1.6, 1.3], [2.2, 3.4]]), 2), torch.special.i0(torch.arange(5, dtype=torch.float32)), torch.special.i0e(torch.arange(5, dtype=torch.float32)))
print(torch.special.i1(torch.arange(5, dtype=torch.float32)), torch.special.i1e(torch.arange(5, dtype=torch.float32)), torch.special.ndtr(torch.tensor([-3., -2, -1, 0, 1, 2, 3])))
print(torch.special.ndtri(torch.tensor([0, 0.25, 0.5, 0.75, 1])), torch.special.log_ndtr(torch.tensor([-3., -2, -1, 0, 1, 2, 3])))
print(torch.special.log1p(torch.tensor([1e-10, 1.])), torch.special.sinc(torch.tensor([0., 0.5, 1.])), torch.special.round(torch.tensor([0.5, 1.5])))
print(torch.special.softmax(torch.ones(2, 2), 0), torch.special.log_softmax(torch.ones(2, 2), 0), torch.special.logsumexp(torch.ones(2, 2), 1))
print(torch.special.xlogy(torch.zeros(2), torch.tensor([0., 3.])), torch.special.xlog1py(torch.tensor([1., 2.]), torch.tensor([0., 3.])), torch.special.zeta(torch.tensor([2., 4.]), 1))
print(torch.special.bessel_j0(torch.tensor([0., 1., 2.])), torch.special.bessel_j1(torch.tensor([0., 1., 2.])), torch.special.logit(torch.tensor([0.25, 0.5]), eps=1e-6))
print(torch.special.gammainc(torch.tensor([4.]), torch.tensor([3., 4., 5.])), torch.special.gammaincc(torch.tensor([4.]), torch.tensor([3., 4., 5.])))
print(torch.special.modified_bessel_i0(torch.tensor([0., 1.])), torch.special.spherical_bessel_j0(torch.tensor([0., 1., float('inf')])))
x = torch.tensor([0.5, 1.5], requires_grad=True)
y = torch.special.erfcx(x).sum() + torch.special.i1e(x).sum() + torch.special.xlog1py(x, x).sum()
y.backward()
print(y, x.grad, torch.special.ndtr(x).grad_fn, torch.special.zeta(x, 2.).grad_fn)
""",
    "save_dtypes": r"""
import io
buf = io.BytesIO()
values = {str(dt): torch.arange(4).to(dt) for dt in [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64, torch.bool, torch.complex64]}
values['scalar'] = torch.tensor(3.5)
values['grad'] = torch.ones(2, requires_grad=True)
values['nested'] = [torch.zeros(1), (torch.ones(1), {'k': torch.eye(2)})]
values['plain'] = {'lr': 0.1, 'name': 'x', 'n': None}
torch.save(values, buf)
buf.seek(0)
back = torch.load(buf)
for k, v in back.items():
    print(k, v)
print(back['grad'].requires_grad, back['grad'].is_leaf)
buf = io.BytesIO()
x = torch.arange(10.)
torch.save(x[::2], buf)
buf.seek(0)
y = torch.load(buf)
print(y, y.stride(), y.storage_offset(), y.is_contiguous())
buf = io.BytesIO()
sd = torch.nn.BatchNorm1d(3).state_dict()
torch.save(sd, buf); buf.seek(0)
print(torch.load(buf, weights_only=True))
""",
}


def test_every_program_is_collected():
    assert len(PROGRAMS) == 29


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_prints_as_under_torch(name):
    same_output(PROGRAMS[name])
