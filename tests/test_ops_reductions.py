"""Reductions, scans, sorting and softmax against real PyTorch, driven by tables.

Every reduction runs over every dtype (int32 aside), once over all elements and once over a dim with keepdim;
hypothesis then draws shapes, dims (int, negative, tuple) and keepdim. Named results
(`torch.return_types.max(values=..., indices=...)`) must match in type, fields and repr.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_oracle import SWEEP_DTYPES, Tally, make_inputs, realize, run_case, tensor, torch

SHAPE = (3, 4)

# Warnings PyTorch (and pjtorch) give for cases here on purpose.
pytestmark = [pytest.mark.filterwarnings(r"ignore:std\(\)"),
              pytest.mark.filterwarnings("ignore:Casting complex values to real discards the imaginary part")]

# name: (all elements, over dims (0, -1) or dim -1 with keepdim). Inputs are `distinct` where ties would let
# equally right answers differ (which of two equal maxima is reported).
REDUCTIONS = {
    "sum": (lambda lib, x: x.sum(), lambda lib, x: lib.sum(x, (0, -1), keepdim=True)),
    "mean": (lambda lib, x: lib.mean(x), lambda lib, x: x.mean(dim=[-1], keepdim=True)),
    "prod": (lambda lib, x: x.prod(), lambda lib, x: lib.prod(x, -1, keepdim=True)),
    "max": (lambda lib, x: x.max(), lambda lib, x: lib.max(x, -1, keepdim=True)),
    "min": (lambda lib, x: lib.min(x), lambda lib, x: x.min(dim=-1, keepdim=True)),
    "amax": (lambda lib, x: x.amax(), lambda lib, x: lib.amax(x, (0, -1), keepdim=True)),
    "amin": (lambda lib, x: lib.amin(x), lambda lib, x: x.amin(-1, True)),
    "argmax": (lambda lib, x: x.argmax(), lambda lib, x: lib.argmax(x, -1, keepdim=True)),
    "argmin": (lambda lib, x: lib.argmin(x), lambda lib, x: x.argmin(dim=-1, keepdim=True)),
    "std": (lambda lib, x: x.std(), lambda lib, x: lib.std(x, (0, -1), keepdim=True)),
    "var": (lambda lib, x: lib.var(x), lambda lib, x: x.var(-1, unbiased=False, keepdim=True)),
    "norm": (lambda lib, x: x.norm(), lambda lib, x: lib.norm(x, dim=-1, keepdim=True)),
    "all": (lambda lib, x: lib.all(x), lambda lib, x: x.all(-1, keepdim=True)),
    "any": (lambda lib, x: x.any(), lambda lib, x: lib.any(x, dim=(0, -1), keepdim=True)),
    "logsumexp": (lambda lib, x: lib.logsumexp(x, (0, 1)), lambda lib, x: x.logsumexp(-1, keepdim=True)),
    "count_nonzero": (lambda lib, x: lib.count_nonzero(x), lambda lib, x: x.count_nonzero(dim=-1)),
    "aminmax": (lambda lib, x: lib.aminmax(x), lambda lib, x: x.aminmax(dim=-1, keepdim=True)),
    "median": (lambda lib, x: x.median(), lambda lib, x: lib.median(x, -1, keepdim=True)),
}
DISTINCT = {"max", "min", "argmax", "argmin", "median", "aminmax"}

# Along one dim: (call, domain).
SCANS = {
    "cumsum": (lambda lib, x: lib.cumsum(x, -1), "any"),
    "cumsum(dtype)": (lambda lib, x: x.cumsum(0, dtype=lib.float64), "any"),
    "cumprod": (lambda lib, x: x.cumprod(dim=1), "any"),
    "cummax": (lambda lib, x: lib.cummax(x, 1), "distinct"),
    "cummin": (lambda lib, x: x.cummin(0), "distinct"),
    "logcumsumexp": (lambda lib, x: lib.logcumsumexp(x, -1), "any"),
    "softmax": (lambda lib, x: lib.softmax(x, -1), "any"),
    "log_softmax": (lambda lib, x: x.log_softmax(0), "any"),
    "softmax(dtype)": (lambda lib, x: x.softmax(1, dtype=lib.float64), "any"),
    "sort": (lambda lib, x: lib.sort(x), "distinct"),
    "sort(descending, dim 0)": (lambda lib, x: x.sort(0, descending=True), "distinct"),
    "argsort": (lambda lib, x: lib.argsort(x, dim=-1, descending=True), "distinct"),
    "topk": (lambda lib, x: lib.topk(x, 2), "distinct"),
    "topk(smallest, dim 0)": (lambda lib, x: x.topk(2, dim=0, largest=False), "distinct"),
    "kthvalue": (lambda lib, x: lib.kthvalue(x, 2, 1), "distinct"),
}


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_over_dtypes(name):
    tally = Tally()
    domain = "distinct" if name in DISTINCT else "any"
    for dtype in SWEEP_DTYPES:
        made = make_inputs([(dtype, SHAPE, domain)], _rng(name, dtype))
        for form, call in zip(("all", "dim"), REDUCTIONS[name]):
            tally.check(f"{name}[{dtype}, {form}]", call, lambda lib: realize(lib, made))
    tally.assert_clean(2 * len(SWEEP_DTYPES))


@pytest.mark.parametrize("name", SCANS)
def test_scan_and_sort_over_dtypes(name):
    tally = Tally()
    call, domain = SCANS[name]
    for dtype in SWEEP_DTYPES:
        made = make_inputs([(dtype, SHAPE, domain)], _rng(name, dtype))
        tally.check(f"{name}[{dtype}]", call, lambda lib: realize(lib, made))
    tally.assert_clean(len(SWEEP_DTYPES))


# Reductions over dims drawn by hypothesis: name -> call(lib, x, dim, keepdim), dim an int or a tuple.
DIM_REDUCTIONS = {
    "sum": lambda lib, x, dim, keepdim: x.sum(dim, keepdim=keepdim),
    "mean": lambda lib, x, dim, keepdim: lib.mean(x, dim, keepdim),
    "amax": lambda lib, x, dim, keepdim: x.amax(dim, keepdim),
    "std": lambda lib, x, dim, keepdim: lib.std(x, dim, keepdim=keepdim),
    "var": lambda lib, x, dim, keepdim: x.var(dim, correction=0, keepdim=keepdim),
    "norm(p=1)": lambda lib, x, dim, keepdim: x.norm(1, dim, keepdim),
    "any": lambda lib, x, dim, keepdim: (x > 0).any(dim, keepdim),
    "logsumexp": lambda lib, x, dim, keepdim: lib.logsumexp(x, dim, keepdim),
    "max(dim)": lambda lib, x, dim, keepdim: x.max(dim if isinstance(dim, int) else dim[0], keepdim),
    "argmin(dim)": lambda lib, x, dim, keepdim: x.argmin(dim if isinstance(dim, int) else dim[0], keepdim),
    "prod(dim)": lambda lib, x, dim, keepdim: lib.prod(x, dim if isinstance(dim, int) else dim[0], keepdim),
}


@st.composite
def _shape_and_dim(draw):
    shape = tuple(draw(st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3)))
    ndim = max(len(shape), 1)
    one_dim = st.integers(-ndim, ndim - 1)
    dim = draw(st.one_of(one_dim, st.lists(one_dim, min_size=1, max_size=ndim, unique=True).map(tuple)))
    return shape, dim


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(sorted(DIM_REDUCTIONS)), shape_and_dim=_shape_and_dim(), keepdim=st.booleans())
def test_reduction_dims(name, shape_and_dim, keepdim):
    """Any dim (negative, tuple, 0-dim input), keepdim: PyTorch's result or PyTorch's error."""
    shape, dim = shape_and_dim
    made = make_inputs([("float32", shape, "distinct" if name in ("max(dim)", "argmin(dim)") else "any")],
                       np.random.default_rng(len(shape)))
    run_case(f"{name}{shape} dim={dim} keepdim={keepdim}",
             lambda lib, x: DIM_REDUCTIONS[name](lib, x, dim, keepdim), lambda lib: realize(lib, made))


# Shapes and dims PyTorch refuses or treats specially: label -> (call, input specs).
EDGES = {
    "dim out of range": (lambda lib, x: x.sum(2), [("float32", SHAPE)]),
    "negative dim out of range": (lambda lib, x: lib.amax(x, -3), [("float32", SHAPE)]),
    "repeated dim": (lambda lib, x: x.sum((1, -1)), [("float32", SHAPE)]),
    "dim on 0-dim": (lambda lib, x: x.sum(0), [("float32", ())]),
    "dim 1 on 0-dim": (lambda lib, x: x.mean(1), [("float32", ())]),
    "max of empty": (lambda lib, x: x.max(), [("float32", (0, 3))]),
    "max over empty dim": (lambda lib, x: x.max(0), [("float32", (0, 3))]),
    "max over non-empty dim of empty": (lambda lib, x: x.max(1), [("float32", (0, 3))]),
    "argmax of empty": (lambda lib, x: x.argmax(), [("float32", (0,))]),
    "amax of empty": (lambda lib, x: x.amax(), [("float32", (0, 3))]),
    "sum of empty": (lambda lib, x: x.sum(0), [("float32", (0, 3))]),
    "mean of empty": (lambda lib, x: x.mean(), [("float32", (0,))]),
    "prod of empty": (lambda lib, x: x.prod(), [("int64", (0,))]),
    "std of one element": (lambda lib, x: x.std(), [("float32", (1,))]),
    "var(correction=2)": (lambda lib, x: x.var(correction=2), [("float64", SHAPE)]),
    "std(unbiased positional)": (lambda lib, x: x.std(False), [("float32", SHAPE)]),
    "mean(dtype)": (lambda lib, x: x.mean(dtype=lib.float64), [("int32", SHAPE)]),
    "sum(dtype)": (lambda lib, x: lib.sum(x, 1, dtype=lib.int32), [("float32", SHAPE)]),
    "sum(dim=[])": (lambda lib, x: x.sum(dim=[]), [("float32", SHAPE)]),
    "amax(dim=())": (lambda lib, x: x.amax(dim=()), [("float32", SHAPE)]),
    "max(other tensor)": (lambda lib, x, y: lib.max(x, y), [("float32", SHAPE), ("float32", (4,))]),
    "norm(p=inf)": (lambda lib, x: x.norm(float("inf")), [("float32", SHAPE)]),
    "norm(p=3, dim tuple)": (lambda lib, x: lib.norm(x, 3, (0, 1)), [("float64", SHAPE)]),
    "norm(p=0)": (lambda lib, x: x.norm(0, 1), [("float32", SHAPE)]),
    "norm(fro)": (lambda lib, x: x.norm("fro"), [("float32", SHAPE)]),
    "softmax of 0-dim": (lambda lib, x: x.softmax(0), [("float32", ())]),
    "softmax dim out of range": (lambda lib, x: x.softmax(2), [("float32", SHAPE)]),
    "softmax without dim": (lambda lib, x: lib.softmax(x), [("float32", SHAPE)]),
    "cumsum of 0-dim": (lambda lib, x: x.cumsum(0), [("int64", ())]),
    "cumsum of empty": (lambda lib, x: x.cumsum(1), [("float32", (0, 3))]),
    "sort of 0-dim": (lambda lib, x: x.sort(), [("float32", ())]),
    "topk k too large": (lambda lib, x: x.topk(5), [("float32", SHAPE)]),
    "topk k=0": (lambda lib, x: x.topk(0), [("float32", SHAPE)]),
    "kthvalue k out of range": (lambda lib, x: x.kthvalue(5), [("float32", SHAPE)]),
    "median of even count": (lambda lib, x: x.median(), [("float32", (4,), "distinct")]),
    "all of empty": (lambda lib, x: x.all(), [("bool", (0,))]),
    "any(dim) of int": (lambda lib, x: x.any(1), [("int64", SHAPE)]),
    "nansum": (lambda lib, x: lib.nansum(x.log(), 1), [("float32", SHAPE)]),
    "nanmean": (lambda lib, x: x.log().nanmean(), [("float64", SHAPE)]),
    "var_mean": (lambda lib, x: lib.var_mean(x, 1), [("float32", SHAPE)]),
    "std_mean": (lambda lib, x: lib.std_mean(x, (0, 1), keepdim=True), [("float64", SHAPE)]),
    "sum of bool": (lambda lib, x: lib.sum(x, 0), [("bool", SHAPE)]),
    "prod of uint8": (lambda lib, x: x.prod(1), [("uint8", SHAPE, "small")]),
    "mean of bfloat16": (lambda lib, x: x.mean(0), [("bfloat16", SHAPE)]),
}


def test_edges():
    tally = Tally()
    for label, (fn, specs) in EDGES.items():
        made = make_inputs(specs, _rng(label))
        tally.check(label, fn, lambda lib: realize(lib, made))
    tally.assert_clean(len(EDGES))


MESSAGES = {
    "dim out of range": (lambda lib, x: x.sum(2), [("float32", SHAPE)]),
    "max of empty": (lambda lib, x: x.max(), [("float32", (0, 3))]),
    "mean of int": (lambda lib, x: x.mean(), [("int64", SHAPE)]),
    "topk k too large": (lambda lib, x: x.topk(5), [("float32", SHAPE)]),
}


@pytest.mark.parametrize("label", MESSAGES)
def test_error_messages(label):
    fn, specs = MESSAGES[label]
    made = make_inputs(specs, _rng(label))
    run_case(label, fn, lambda lib: realize(lib, made), message=True)


NAMED = {
    "max": lambda lib, x: x.max(1),
    "min(keepdim)": lambda lib, x: lib.min(x, 0, keepdim=True),
    "sort": lambda lib, x: x.sort(descending=True),
    "topk": lambda lib, x: lib.topk(x, 2),
    "kthvalue": lambda lib, x: x.kthvalue(1, 0),
    "median": lambda lib, x: x.median(1),
    "aminmax": lambda lib, x: lib.aminmax(x),
    "cummax": lambda lib, x: x.cummax(1),
}


@pytest.mark.parametrize("label", NAMED)
def test_named_results(label):
    """Type name, field access, tuple unpacking and repr of `torch.return_types`."""
    values = np.random.default_rng(3).permutation(12).reshape(SHAPE) / 4
    expected, actual = (NAMED[label](lib, tensor(lib, values, "float32")) for lib in (torch, __import__("pjtorch")))
    assert type(actual).__name__ == type(expected).__name__
    assert repr(actual) == repr(expected)
    first, second = actual
    assert first is actual[0] and second is actual[-1] and len(actual) == 2
    field = "min" if label == "aminmax" else "values"
    assert repr(getattr(actual, field)) == repr(getattr(expected, field))


def test_table_sizes():
    assert (len(REDUCTIONS), len(SCANS), len(DIM_REDUCTIONS), len(EDGES)) == (18, 15, 11, 44)
