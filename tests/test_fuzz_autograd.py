"""Gradients found to differ from PyTorch's by differential fuzzing (values, grad_fn names), compared with PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

from ops_oracle import torch
import pjtorch as pt

TIES = [[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0], [0.0, 0.0, -1.0, 5.0]]
GRAD = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)


def _run(lib, fn, values, dtype="float32"):
    x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
    y = fn(lib, x)
    y.backward(lib.tensor(GRAD.reshape(-1)[:y.numel()]).to(y.dtype).reshape(y.shape))
    return y.grad_fn.name(), y.detach().double().numpy(), x.grad.double().numpy(), str(x.grad.dtype).split(".")[-1]


CASES = {
    "max_dim_ties": (lambda lib, x: x.max(dim=1)[0], TIES),
    "max_dim_keepdim_ties": (lambda lib, x: x.max(dim=-1, keepdim=True).values, TIES),
    "min_dim_ties": (lambda lib, x: x.min(dim=1).values, TIES),
    "max_dim0_ties": (lambda lib, x: x.max(0)[0], TIES),
    "cummax": (lambda lib, x: x.cummax(dim=1)[0], TIES),
    "cummin": (lambda lib, x: x.cummin(dim=1).values, TIES),
    "cummax_dim0": (lambda lib, x: x.cummax(0)[0], TIES),
    "std_constant_rows": (lambda lib, x: x.std(dim=1), TIES),
    "std_correction0": (lambda lib, x: x.std(dim=1, correction=0), TIES),
    "std_mean_constant": (lambda lib, x: lib.std_mean(x, dim=1)[0], TIES),
    "atan2_origin": (lambda lib, x: lib.atan2(x, x.flip(1)), [[0.0, 0.0, 1.0, -2.0], [0.0, 3.0, 0.0, 0.0],
                                                              [0.0, 0.0, 0.0, 0.0]]),
    "remainder_tensor": (lambda lib, x: x.remainder(x.flip(0) + 5), TIES),
    "remainder_operator": (lambda lib, x: x % (x.flip(0) + 5), TIES),
    "remainder_scalar": (lambda lib, x: x % 1.5, TIES),
    "fmod_tensor": (lambda lib, x: lib.fmod(x, x.flip(0) + 5), TIES),
    "hardswish": (lambda lib, x: lib.nn.functional.hardswish(x * 3), [[-1.0, 1.0, 0.0, -2.0], [2.0, 0.5, 1.0, -1.0],
                                                                    [-0.0, 5.0, -5.0, 0.999]]),
    "hardsigmoid": (lambda lib, x: lib.nn.functional.hardsigmoid(x * 3), [[-1.0, 1.0, 0.0, -2.0], [2.0, 0.5, 1.0, -1.0],
                                                                        [-0.0, 5.0, -5.0, 0.999]]),
}


@pytest.mark.parametrize("name", CASES)
def test_gradient_matches_pytorch(name):
    fn, values = CASES[name]
    dtype = "float64" if name in ("hardswish", "std_correction0", "max_dim0_ties", "cummin") else "float32"
    expected, found = _run(torch, fn, values, dtype), _run(pt, fn, values, dtype)
    assert found[0] == expected[0]
    np.testing.assert_allclose(found[1], expected[1], rtol=1e-6, equal_nan=True)
    np.testing.assert_allclose(found[2], expected[2], rtol=1e-5, atol=1e-7, equal_nan=True)
    assert found[3] == expected[3]


@pytest.mark.parametrize("name", ["max_dim_ties", "cummax", "hardswish"])
def test_gradient_in_half_precision(name):
    fn, values = CASES[name]
    expected, found = _run(torch, fn, values, "bfloat16"), _run(pt, fn, values, "bfloat16")
    np.testing.assert_allclose(found[2], expected[2], rtol=1e-2, atol=1e-2)
    assert found[3] == expected[3]


def test_cummax_indices_and_nan():
    def run(lib):
        x = lib.tensor([[1.0, float("nan"), 0.0, 2.0, float("nan"), 3.0]], requires_grad=True)
        values, indices = x.cummax(1)
        values.backward(lib.arange(6.0).reshape(1, 6))
        return values.detach().numpy(), indices.numpy(), x.grad.numpy()

    for e, f in zip(run(torch), run(pt)):
        np.testing.assert_array_equal(f, e)


def test_hardswish_forward_at_special_points():
    values = [-3.0, 3.0, -0.0, float("nan"), float("inf"), -float("inf"), -4.0]
    e = torch.nn.functional.hardswish(torch.tensor(values)).numpy()
    f = pt.nn.functional.hardswish(pt.tensor(values)).numpy()
    np.testing.assert_array_equal(f, e)
    np.testing.assert_array_equal(np.signbit(f), np.signbit(e))
    e = torch.nn.functional.hardsigmoid(torch.tensor(values)).numpy()
    f = pt.nn.functional.hardsigmoid(pt.tensor(values)).numpy()
    np.testing.assert_array_equal(f, e)


def test_second_derivative_through_max_dim_and_std():
    def run(lib):
        x = lib.tensor(TIES, requires_grad=True)
        y = (x.max(dim=1)[0] ** 2).sum() + (x.std(dim=0) * x.sum(0)).sum()
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (g * g).sum().backward()
        return x.grad.numpy()

    np.testing.assert_allclose(run(pt), run(torch), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dim", [None, 1])
def test_second_derivative_of_the_2_norm_at_zero_elements(dim):
    """d/dx of x/|x| at an element equal to 0 is 1/|x| there (abs's subgradient must not zero it). (At an
    all-zero vector torch's second derivative is NaN, pjtorch's 0: not compared.)"""
    def run(lib):
        x = lib.tensor([[1.5, -2.0, 0.0], [0.0, 3.0, 0.0]], requires_grad=True)
        (g,) = lib.autograd.grad(x.norm(dim=dim).sum(), x, create_graph=True)
        (g * lib.tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])).sum().backward()
        return g.detach().numpy(), x.grad.numpy()

    for ours, theirs in zip(run(pt), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_hypot_and_sinc_gradients_at_the_origin_are_torchs():
    def run(lib):
        x = lib.tensor([0.0, 1.0, -2.0, 0.5, 0.0], requires_grad=True)
        y = lib.tensor([0.0, 0.0, 3.0, -1.0, 2.0], requires_grad=True)
        lib.hypot(x, y).sum().backward()
        z = lib.tensor([0.0, 0.5, -1.5, 2.0, 1e-9], requires_grad=True)
        lib.sinc(z).sum().backward()
        return x.grad.numpy(), y.grad.numpy(), z.grad.numpy(), lib.hypot(x, y).detach().numpy()

    for ours, theirs in zip(run(pt), run(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-7)
