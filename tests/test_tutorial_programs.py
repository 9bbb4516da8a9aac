"""Small tutorial-style programs (pytorch.org's beginner material) run once with real torch and once with pjtorch:
what they print, values, errors and all, must be the same."""
from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
from tensor_oracle import same_output  # noqa: E402


def test_out_argument_tensors_tutorial():
    """The Tensors tutorial writes `torch.matmul(tensor, tensor.T, out=y3)` and `torch.mul(..., out=z3)`."""
    same_output("""
        tensor = torch.ones(4, 4)
        tensor[:, 1] = 0
        y3 = torch.zeros(4, 4)
        r = torch.matmul(tensor, tensor.T, out=y3)
        print(r is y3, y3)
        z3 = torch.zeros(4, 4)
        print(torch.mul(tensor, tensor, out=z3) is z3, z3)
        print(torch.exp(torch.zeros(2), out=torch.empty(0)))
        print(torch.add(torch.ones(2), 1, alpha=2, out=torch.empty(5)))
        x = torch.zeros(2, 4)
        torch.add(torch.ones(2, 2), 1, out=x[:, :2])
        print(x)
        print(torch.sum(torch.ones(2, 3), 1, out=torch.empty(2)))
        print(torch.cat([torch.ones(1), torch.zeros(2)], out=torch.empty(3)))
        print(torch.max(torch.arange(6.).view(2, 3), 1, out=(torch.empty(2), torch.empty(2, dtype=torch.long))))
        print(torch.sort(torch.tensor([3., 1.]), out=(torch.empty(2), torch.empty(2, dtype=torch.long))))
        print(torch.add(torch.ones(2, dtype=torch.long), 1, out=torch.empty(2)))
        tr(lambda: torch.add(torch.ones(2), 1, out=torch.empty(2, dtype=torch.long)))
        tr(lambda: torch.add(torch.ones(2, dtype=torch.cfloat), 1, out=torch.empty(2)))
        tr(lambda: torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.empty(2)))
        tr(lambda: torch.add(torch.ones(2), 1, out=torch.empty(2, requires_grad=True)))
        with torch.no_grad():
            print(torch.mul(torch.ones(2, requires_grad=True), 2, out=torch.empty(2)))
        tr(lambda: torch.ones(2).add(1, out=torch.empty(2)))
        print(torch.stack([torch.ones(2), torch.zeros(2)], out=torch.empty(2, 2)))
        print(torch.diag(torch.tensor([1, 2]), out=torch.empty(2, 2, dtype=torch.long)))
        print(torch.kron(torch.eye(2), torch.ones(1, 2), out=torch.empty(0)))
        print(torch.sqrt(torch.tensor([4., 9.]), out=torch.empty(2)))
    """)


def test_numpy_style_axis_and_keepdims():
    same_output("""
        x = torch.arange(1., 7.).reshape(2, 3)
        print(x.sum(axis=0), x.mean(axis=1, keepdims=True), x.max(axis=1), x.argmax(axis=1))
        print(torch.sum(x, axis=1, keepdims=True), torch.std(x, axis=0), torch.cat([x, x], axis=1).shape)
        print(x.cumsum(axis=1), x.amax(axis=0, keepdims=True), torch.all(x > 0, axis=1))
        print(torch.softmax(x, axis=1), torch.argsort(x, axis=1, descending=True))
    """)


def test_index_add_copy_fill_check_their_indices():
    same_output("""
        for i in ([4], [-4], [-1], [1, 1]):
            idx = torch.tensor(i)
            tr(lambda: torch.zeros(3).index_fill_(0, idx, 1))
            tr(lambda: torch.zeros(3).index_fill(0, idx, torch.tensor(2.)))
            tr(lambda: torch.zeros(2, 3).index_fill(1, idx, 1))
            tr(lambda: torch.zeros(3).index_add_(0, idx, torch.ones(len(i))))
            tr(lambda: torch.zeros(2, 3).index_add(1, idx, torch.ones(2, len(i))))
            tr(lambda: torch.zeros(3).index_copy_(0, idx, torch.ones(len(i))))
            tr(lambda: torch.zeros(2, 3).index_copy(1, idx, torch.ones(2, len(i))))
        tr(lambda: torch.zeros(3).index_fill_(0, torch.tensor([1.]), 1))
        tr(lambda: torch.zeros(3).index_add_(0, torch.tensor([1.]), torch.ones(1)))
        tr(lambda: torch.zeros(3).index_copy_(0, torch.tensor([1.]), torch.ones(1)))
        tr(lambda: torch.zeros(3).index_add_(0, torch.tensor([1, 2]), torch.ones(3)))
        tr(lambda: torch.zeros(3).index_copy_(0, torch.tensor([1, 2]), torch.ones(3)))
        z = torch.zeros(5)
        z.index_add_(0, torch.tensor([0, 2, 2]), torch.tensor([1., 2., 3.]), alpha=2)
        print(z)
    """)


def test_joining_a_tensor_instead_of_a_sequence_and_permute_length():
    same_output("""
        for name in ("cat", "stack", "hstack", "vstack", "dstack", "column_stack"):
            tr(lambda: getattr(torch, name)(torch.zeros(2, 2)))
        tr(lambda: torch.zeros(2, 3).permute(0, 1, 2))
        tr(lambda: torch.zeros(2, 3).permute(0, 5))
        tr(lambda: torch.zeros(2, 3).permute(1, 1))
        print(torch.zeros(2, 3).permute(-1, 0).shape)
    """)


def test_function_with_setup_context():
    """PyTorch 2's style of custom Function: forward takes no ctx, setup_context saves for backward."""
    same_output("""
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(x, k):
                return x ** 2 * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, k = inputs
                ctx.save_for_backward(x)
                ctx.k = k

            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return 2 * x * g * ctx.k, None

        z = torch.tensor([3., 1.], requires_grad=True)
        y = Square.apply(z, 2.0)
        print(y, type(y.grad_fn).__name__)
        y.sum().backward()
        print(z.grad)
        print(Square.apply(torch.tensor([2.]), 1.0))
    """)


def test_storage_nbytes_and_resize_version():
    same_output("""
        x = torch.arange(12.).reshape(3, 4)
        print(x.untyped_storage().nbytes(), x[1:].untyped_storage().nbytes(), x.long().untyped_storage().nbytes())
        r = torch.arange(6.)
        print(r.resize_(6)._version, r.resize_(2, 3)._version, r.add_(1)._version)
    """)


def test_unsupported_device_messages():
    same_output("""
        tr(lambda: torch.ones(2).to("mps"))
        tr(lambda: torch.ones(2).to("xpu"))
    """)
