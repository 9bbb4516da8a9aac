"""Gradients at kinks and ties, where jax.vjp's own conventions differ from PyTorch's (maximum splits a tie in
half, sqrt's derivative at 0 is infinite): the values PyTorch's derivative formulas give, and the forward values at
NaN, infinities and signed zeros unchanged."""
from __future__ import annotations

import math

import numpy as np
import pytest

from ops_oracle import torch
import pjtorch as pt

POINTS = [-2.0, -1.0, -0.0, 0.0, 0.5, 1.0, 1.0, 6.0, 7.0]
SPECIAL = [math.nan, math.inf, -math.inf, -0.0, 0.0, 1.0, -1.0]


def _f(lib):
    return lib.nn.functional


OPS = {
    "relu": lambda lib, x: x.relu(),
    "relu6": lambda lib, x: _f(lib).relu6(x),
    "hardtanh": lambda lib, x: _f(lib).hardtanh(x),
    "hardtanh_limits": lambda lib, x: _f(lib).hardtanh(x, -2.0, 0.5),
    "clamp": lambda lib, x: x.clamp(-1, 1),
    "clamp_min": lambda lib, x: x.clamp(min=1.0),
    "clamp_max": lambda lib, x: x.clamp(max=0.0),
    "clamp_tensor": lambda lib, x: x.clamp(min=lib.full((9,), 1.0), max=lib.full((9,), 6.0)),
    "abs": lambda lib, x: x.abs(),
    "fmax": lambda lib, x: lib.fmax(x, lib.ones(9)),
    "fmin": lambda lib, x: lib.fmin(x, lib.ones(9)),
    "maximum": lambda lib, x: lib.maximum(x, lib.ones(9)),
    "median": lambda lib, x: x.median(),
    "l1_loss": lambda lib, x: _f(lib).l1_loss(x, lib.ones(9)),
    "norm": lambda lib, x: (x * (x.abs() > 5)).norm(),
    "norm_half": lambda lib, x: x.norm(p=0.5),
    "norm_3": lambda lib, x: (x * 0).norm(p=3),
    "normalize": lambda lib, x: _f(lib).normalize((x * 0).view(3, 3), dim=1),
}


@pytest.mark.parametrize("name", OPS)
def test_gradient_at_kinks_and_ties_is_pytorchs(name):
    def run(lib):
        x = lib.tensor(POINTS, requires_grad=True)
        OPS[name](lib, x).sum().backward()
        return x.grad.numpy()

    np.testing.assert_allclose(run(pt), run(torch), rtol=1e-6)


@pytest.mark.parametrize("name", ["relu", "relu6", "hardtanh", "clamp", "clamp_min", "abs", "fmax", "fmin"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_forward_values_at_special_points_are_unchanged(name, dtype):
    def run(lib):
        x = lib.tensor(SPECIAL, dtype=getattr(lib, dtype))
        y = OPS[name](lib, x) if name not in ("fmax", "fmin") else getattr(lib, name)(x, lib.ones(7, dtype=x.dtype))
        return y.numpy(), np.signbit(y.numpy())

    (ours, our_signs), (theirs, their_signs) = run(pt), run(torch)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(our_signs, their_signs)


def test_a_nan_clamp_bound_gives_nan_as_in_pytorch():
    def run(lib):
        x = lib.tensor([0.0, 2.0])
        return x.clamp(min=lib.tensor([math.nan, 0.0])).numpy(), x.clamp(max=lib.tensor([1.0, math.nan])).numpy()

    for ours, theirs in zip(run(pt), run(torch)):
        np.testing.assert_array_equal(ours, theirs)
