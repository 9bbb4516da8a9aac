"""Regressions from the eighth differential-fuzz round on tensor ops: each case runs under torch and pjtorch and
must agree on dtype, shape, values (exactly, where the case says so), or on the exception type and message."""
from __future__ import annotations

import numpy as np
import pytest

from tensor_oracle import reference, same

import pjtorch

torch = reference()

NAN = float("nan")


def exactly(case):
    """`case` gives bit-identical values under both libraries (the oracle's tolerance would hide an ulp)."""
    ours, theirs = case(pjtorch), case(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    np.testing.assert_array_equal(ours.detach().double().numpy(), theirs.detach().double().numpy())


# ----- true division by a broadcast divisor -----------------------------------------------------------------

def _grid(m, dtype, shape=(40, 25), seed=0):
    values = np.random.default_rng(seed).standard_normal(shape) * 10
    return m.tensor(values, dtype=getattr(m, dtype))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("divisor", ["number", "0-dim", "column", "row"])
def test_division_by_a_broadcast_divisor_is_a_true_quotient(dtype, divisor):
    def case(m):
        x, y = _grid(m, dtype), _grid(m, dtype, seed=1)
        other = {"number": 3.0, "0-dim": y[3, 4], "column": y[:, :1], "row": y[0]}[divisor]
        return x / other

    exactly(case)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_division_by_a_broadcast_divisor(mode):
    exactly(lambda m: m.div(_grid(m, "float32"), _grid(m, "float32", (40, 1), 1), rounding_mode=mode))
    exactly(lambda m: m.floor_divide(_grid(m, "float64"), 1.3))


def test_division_by_a_broadcast_divisor_has_torchs_gradient():
    def case(m):
        x = _grid(m, "float64").requires_grad_()
        y = _grid(m, "float64", (40, 1), 1).requires_grad_()
        (x / y).sum().backward()
        return x.grad, y.grad

    same(case)


# ----- integer powers that overflow ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8"])
def test_overflowing_integer_powers_wrap(dtype):
    base = lambda m: m.tensor([5, -3, 3, 2, 0, 1], dtype=getattr(m, dtype))  # noqa: E731
    same(lambda m: base(m) ** m.tensor([250, 3, 41, 63, 7, 200], dtype=getattr(m, dtype)))
    same(lambda m: m.pow(base(m), m.tensor([250, 3, 41, 63, 7, 200], dtype=m.uint8)))
    same(lambda m: base(m) ** 120)
    same(lambda m: m.pow(base(m).long(), 25000))


@pytest.mark.parametrize("case", [("int8", 250), ("int8", 127), ("uint8", 300), ("int16", 40000), ("int32", 3 * 10**9),
                                  ("int64", 2**63), ("float16", 1e6), ("float16", -70000.0), ("float16", float("inf")),
                                  ("bfloat16", 1e39), ("float32", 1e39), ("bool", 300), ("int8", 2.5), ("int8", -129)])
def test_number_exponents_the_result_dtype_cannot_hold(case):
    dtype, exponent = case
    same(lambda m: m.tensor([2, 1], dtype=getattr(m, dtype)) ** exponent)
    same(lambda m: m.tensor(2, dtype=getattr(m, dtype)).pow(exponent))
    same(lambda m: m.tensor([2, 1], dtype=getattr(m, dtype)).pow_(exponent))


def test_integer_power_with_negative_exponents():
    same(lambda m: m.tensor([2, -1, 1, 3, -1]) ** m.tensor([-1, -3, -2, 2, -4]))


# ----- half-precision standard deviation -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_std_takes_the_float32_root(dtype):
    exactly(lambda m: m.std(_grid(m, dtype), 1))
    exactly(lambda m: m.std_mean(_grid(m, dtype), 0)[0])
    exactly(lambda m: _grid(m, dtype).std(correction=0))


# ----- nansum / nanmean dtype= -------------------------------------------------------------------------------

@pytest.mark.parametrize("values", [[1.0, NAN], [1, 2], [True, False], [1 + 1j]])
@pytest.mark.parametrize("dtype", ["complex64", "complex128", "int64", "float64", "float16"])
def test_nan_reductions_with_a_dtype(values, dtype):
    same(lambda m: m.nansum(m.tensor(values), dtype=getattr(m, dtype)))
    same(lambda m: m.nansum(m.tensor(values), 0, dtype=getattr(m, dtype)))
    same(lambda m: m.nanmean(m.tensor(values), dtype=getattr(m, dtype)))


# ----- 0-dim inputs take dims -1 and 0 only ---------------------------------------------------------------

@pytest.mark.parametrize("dim", [-2, -1, 0, 1])
def test_zero_dim_selection_dims(dim):
    same(lambda m: m.topk(m.tensor(5.0), 1, dim))
    same(lambda m: m.nanmedian(m.tensor(5.0), dim))
    same(lambda m: m.nanmedian(m.tensor([5.0]), dim, True))


# ----- kthvalue's index among equal values --------------------------------------------------------------------

@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_kthvalue_reports_the_index_torchs_quickselect_leaves(k):
    same(lambda m: m.kthvalue(m.tensor([[3, 1, 2, 1], [0, 5, 5, 4]]), k))
    same(lambda m: m.kthvalue(m.tensor([[3.0, 1, 2, 1], [0, 5, 5, 4]]).t(), min(k, 2), 0, True))


@pytest.mark.parametrize("seed", range(6))
def test_kthvalue_with_ties_and_nans(seed):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 3, size=(3, 17)).astype(float)
    values[rng.random(values.shape) < 0.2] = NAN
    k = int(rng.integers(1, 18))
    same(lambda m: m.kthvalue(m.tensor(values), k))
    same(lambda m: m.kthvalue(m.tensor(np.nan_to_num(values, nan=1.0), dtype=m.int32), k))


def test_kthvalue_without_ties_keeps_its_gradient():
    def case(m):
        x = m.tensor([[3.0, 1.0, 2.0], [0.5, 5.0, 4.0]], requires_grad=True)
        m.kthvalue(x, 2).values.sum().backward()
        return x.grad

    same(case)
