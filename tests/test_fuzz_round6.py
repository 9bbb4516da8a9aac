"""Regressions from the sixth differential-fuzz round on tensor ops: each case runs under torch and pjtorch and
must agree on dtype, shape, values, or on the exception type and message."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tensor_oracle import reference, same

import pjtorch

torch = reference()

NAN = float("nan")


# ----- Python numbers as the first operand ---------------------------------------------------------

@pytest.mark.parametrize("name", ["fmod", "copysign", "eq", "ne", "lt", "le", "gt", "ge"])
@pytest.mark.parametrize("first", [2, 2.5, True])
def test_no_number_first_overload(name, first):
    same(lambda m: getattr(m, name)(first, m.tensor([1.0, 2.0])))
    same(lambda m: getattr(m, name)(first, 2))


@pytest.mark.parametrize("name", ["mul", "floor_divide", "remainder", "xlogy", "bitwise_and"])
def test_number_first_overloads_still_run(name):
    same(lambda m: getattr(m, name)(3, m.tensor([1, 2])))


@pytest.mark.parametrize("name", ["pow", "float_power"])
def test_power_of_two_numbers(name):
    same(lambda m: getattr(m, name)(2, 3.0))


@pytest.mark.parametrize("case", [
    lambda m: m.clamp(2, 1), lambda m: m.clamp(2, 1, 3), lambda m: m.clamp_min(2, m.tensor([1.0])),
    lambda m: m.clamp_max(2.5, 1), lambda m: m.dist(2, m.tensor([1.0])), lambda m: m.igamma(m.tensor([1.0]), 2),
    lambda m: m.igammac(True, m.tensor([1.0])), lambda m: m.pow(True, m.tensor([True, False])),
])
def test_tensor_operands_required(case):
    same(case)


# ----- dtypes -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("case", [
    lambda m: m.tensor([[1.0, 0.0], [2.0, 0.0]]) * 1j,
    lambda m: m.tensor([0j, 1j, 1 + 0j, complex(NAN, 0)]),
])
def test_complex_truth_is_nonzero(case):
    same(lambda m: case(m).bool())
    same(lambda m: case(m).all())
    same(lambda m: case(m).any(0))
    same(lambda m: case(m).all(0, keepdim=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PyTorch warns of a discarded imaginary part only for a real target
        case(pjtorch).to(pjtorch.bool)


@pytest.mark.parametrize("dtype", ["int64", "complex64"])
@pytest.mark.parametrize("exponent", [lambda m: m.tensor([2.0, 1j]), lambda m: m.tensor([2.0]), 1j, 2])
def test_float_power_keeps_complex(dtype, exponent):
    same(lambda m: m.float_power(m.tensor([1, 2]).to(getattr(m, dtype)),
                                 exponent(m) if callable(exponent) else exponent))


def test_ldexp_exact_in_double_and_refusing_bool_exponents():
    same(lambda m: m.ldexp(m.ones(3, dtype=m.float64), m.tensor([3, 1023, -3])))
    same(lambda m: m.ldexp(m.ones(2), m.tensor([True, False])))
    same(lambda m: m.ldexp(m.tensor([True]), m.tensor([True, False])))
    same(lambda m: m.ones(2, dtype=m.int64).ldexp_(m.tensor([True, False])))


@pytest.mark.parametrize("dtype", ["int64", "uint8", "float16"])
@pytest.mark.parametrize("value", [2.5, 1 + 0j, 1j, 300, 1e40])
def test_addcmul_value_takes_the_inputs_dtype(dtype, value):
    args = lambda m: [m.tensor([1, 2]).to(getattr(m, dtype)) for _ in range(3)]  # noqa: E731
    same(lambda m: m.addcmul(*args(m), value=value))
    same(lambda m: args(m)[0].addcmul_(*args(m)[1:], value=value))
    if dtype.startswith("float"):  # addcdiv refuses integer division
        same(lambda m: m.addcdiv(*args(m), value=value))


# ----- reductions and scans ----------------------------------------------------------------------------

@pytest.mark.parametrize("fn", [
    lambda m, x: m.all(x, ()), lambda m, x: m.any(x, [], keepdim=True),
    lambda m, x: m.cumsum(x, 0, dtype=m.bool), lambda m, x: m.cumprod(x.int(), 1, dtype=m.bool),
    lambda m, x: x.int().cumsum_(0), lambda m, x: x.bool().cumsum_(0), lambda m, x: x.cumsum_(0, dtype=m.int64),
    lambda m, x: x.int().cumprod_(0, dtype=m.int64),
    lambda m, x: m.logsumexp(x, dim=None), lambda m, x: m.mode(x, dim=(0,)),
])
def test_reduction_and_scan_arguments(fn):
    same(lambda m: fn(m, m.tensor([[1.0, 0.0], [2.0, 3.0]])))


def test_bool_scan_of_nothing_runs():
    same(lambda m: m.cumsum(m.tensor(1), 0, dtype=m.bool))
    same(lambda m: m.cumprod(m.zeros(2, 0), 1, dtype=m.bool))


def test_median_propagates_nan():
    x = lambda m: m.tensor([[3.0, NAN, 1.0], [1.0, 2.0, 3.0], [NAN, NAN, 0.0]])  # noqa: E731
    same(lambda m: m.median(x(m)))
    same(lambda m: m.median(x(m), 1))
    same(lambda m: m.median(x(m).half(), 0, keepdim=True))

    def gradient(m):
        t = x(m).requires_grad_()
        m.median(t, 0).values.sum().backward()
        return t.grad

    same(gradient)


# ----- sorting and searching -----------------------------------------------------------------------------

def test_unique_sorts_bfloat16_and_refuses_complex():
    same(lambda m: m.unique(m.tensor([3.0, NAN, -1.0, 3.0, 0.5], dtype=m.bfloat16), return_counts=True))
    same(lambda m: m.unique(m.tensor([1j])))
    same(lambda m: m.unique(m.tensor(3), dim=0))
    same(lambda m: m.unique_consecutive(m.tensor(3), dim=0))


@pytest.mark.parametrize("case", [
    lambda m: m.isin(m.tensor([True]), m.tensor([1])), lambda m: m.isin(m.tensor([1]), m.tensor([True])),
    lambda m: m.isin(m.tensor([1j]), m.tensor([True])), lambda m: m.isin(True, m.tensor([1])),
    lambda m: m.mode(m.tensor([1j, 1j])), lambda m: m.cummax(m.tensor([1j]), 0),
    lambda m: m.searchsorted(m.tensor([False, True]), m.tensor([True])),
    lambda m: m.searchsorted(m.tensor([False, True]), 1), lambda m: m.searchsorted(m.tensor([1, 2, 3]), 2.5),
    lambda m: m.bucketize(m.tensor([1j]), m.tensor([1.0, 2.0])),
])
def test_dtype_refusals_of_searches(case):
    same(case)


@pytest.mark.parametrize("case", [
    lambda m: m.histc(m.tensor([True]), 2), lambda m: m.histc(m.tensor([1j]), 2),
    lambda m: m.histc(m.tensor([1j]), 2, 0, 1), lambda m: m.histc(m.tensor([1.0]), 0),
    lambda m: m.histc(m.tensor([1.0]), 2, 3, 1), lambda m: m.histc(m.tensor([1.0]), 2, 0, float("inf")),
    lambda m: m.histc(m.tensor([1.0]), 2, NAN, 1),
])
def test_histc_errors(case):
    same(case)


# ----- shapes ----------------------------------------------------------------------------------------------

X = lambda m: m.arange(24.0).reshape(2, 3, 4)  # noqa: E731


@pytest.mark.parametrize("case", [
    lambda m: X(m).split(-1, 2), lambda m: m.zeros(0, 3).chunk(2, 0), lambda m: m.zeros(0, 3).chunk(5, 0),
    lambda m: m.tensor(5.0).flatten(0, 1), lambda m: m.tensor(5.0).unbind(0),
    lambda m: X(m).roll((1, 2), (0,)), lambda m: X(m).roll(1, (0, 1)), lambda m: X(m).roll((), ()),
    lambda m: X(m).flip(0, -3), lambda m: m.tensor(1.0).flip((0, 0)), lambda m: X(m).sum((0, 1, 1)),
    lambda m: X(m).repeat(1, -1, 2, 1), lambda m: X(m).tile(2), lambda m: X(m).tile(-2),
    lambda m: X(m).tile((2, -1)), lambda m: m.tensor(5.0).tile(()),
    lambda m: X(m).index_select(2, m.tensor([4])), lambda m: X(m).index_select(1, m.tensor([-1])),
])
def test_shape_op_errors_and_results(case):
    same(case)


@pytest.mark.parametrize("points", [[1, 5, 2], [-1], [-10], [3, 1], [2, 2]])
def test_tensor_split_takes_python_slices(points):
    same(lambda m: m.arange(4).tensor_split(points))
    same(lambda m: m.arange(4).tensor_split(m.tensor(points)))


@pytest.mark.parametrize("case", [
    lambda m: m.tensor(5.0).tensor_split(2), lambda m: m.arange(4).tensor_split(m.tensor(2)),
    lambda m: m.arange(4).tensor_split(m.tensor([[1]])), lambda m: m.arange(4).tensor_split(m.tensor([1.0])),
])
def test_tensor_split_arguments(case):
    same(case)


@pytest.mark.parametrize("case", [
    lambda m: m.repeat_interleave(m.tensor([1, 2])), lambda m: m.repeat_interleave(m.tensor([1, 2]), output_size=3),
    lambda m: m.repeat_interleave(m.tensor([1, 2], dtype=m.int32)), lambda m: m.repeat_interleave(m.tensor([[1, 2]])),
    lambda m: m.arange(3).repeat_interleave(m.tensor([1, 0])),
    lambda m: m.arange(3).repeat_interleave(m.tensor([1, -1, 2])),
    lambda m: m.arange(3).repeat_interleave(m.tensor([1.0, 2.0, 3.0])),
    lambda m: m.arange(3).repeat_interleave(m.tensor([[1, 2, 3]])), lambda m: m.arange(3).repeat_interleave(-1),
    lambda m: m.arange(3).repeat_interleave(2, output_size=6),
    lambda m: m.arange(3).repeat_interleave(2, output_size=5),
    lambda m: m.arange(3).repeat_interleave(m.tensor([1, 2, 3]), output_size=5),
    lambda m: m.ones(2, 3).repeat_interleave(m.tensor([1, 2]), dim=-1),
    lambda m: m.ones(2, 3).repeat_interleave(m.tensor([2]), dim=1),
])
def test_repeat_interleave(case):
    same(case)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-6, 6), max_size=4), st.integers(0, 5))
def test_tensor_split_matches_torch(points, size):
    same(lambda m: m.arange(size).tensor_split(points))


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=5))
def test_median_with_nans_matches_torch(picks):
    values = np.array([1.0, 2.0, NAN, -1.0])[picks]
    same(lambda m: m.median(m.tensor(values)))
    same(lambda m: m.median(m.tensor(values).reshape(1, -1), 1))


@pytest.mark.parametrize("shapes", [((3, 4), (2, 4)), ((2, 3), (3,)), ((1,), (0,)), ((2, 1, 3), (4, 1), (1, 3))])
def test_broadcast_tensors_shapes_and_errors(shapes):
    same(lambda m: m.broadcast_tensors(*(m.ones(s) for s in shapes)))
