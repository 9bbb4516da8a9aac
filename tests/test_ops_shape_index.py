"""Joining (cat, stack, hstack, vstack) and indexing ops (index_select, gather, scatter, scatter_add,
take, nonzero, masked_select) against real PyTorch: values over dtypes, shapes drawn by
hypothesis, and PyTorch's errors with their exact messages.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_oracle import SWEEP_DTYPES, Tally, make_inputs, realize, run_case, tensor, torch

SHAPE = (3, 4)


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _index(values) -> np.ndarray:
    return np.asarray(values, dtype=np.int64)


# Index tensors are fixed values (made in int64 by `realize`); data tensors vary by dtype.
ROWS = _index([2, 0, 2])
GATHER_INDEX = _index([[0, 3, 1], [2, 2, 0], [3, 0, 1]])
SCATTER_INDEX = _index([[0, 1, 2, 0], [1, 2, 0, 1]])

# label: (call, specs); a spec is (dtype, shape[, domain]) for data, or ('index', values).
OPS = {
    "cat": (lambda lib, a, b: lib.cat([a, b]), [SHAPE, (2, 4)]),
    "cat(dim=-1)": (lambda lib, a, b: lib.cat((a, b), dim=-1), [SHAPE, (3, 1)]),
    "concat": (lambda lib, a, b: lib.concat([a, b], 1), [SHAPE, (3, 2)]),
    "stack": (lambda lib, a, b: lib.stack([a, b]), [SHAPE, SHAPE]),
    "stack(dim=-1)": (lambda lib, a, b: lib.stack((a, b), -1), [SHAPE, SHAPE]),
    "hstack": (lambda lib, a, b: lib.hstack([a, b]), [SHAPE, (3, 2)]),
    "hstack of vectors": (lambda lib, a, b: lib.hstack([a, b]), [(3,), (2,)]),
    "vstack": (lambda lib, a, b: lib.vstack([a, b]), [SHAPE, (4,)]),
    "vstack of 0-dim": (lambda lib, a, b: lib.vstack([a, b]), [(), ()]),
    "index_select": (lambda lib, x, i: lib.index_select(x, 0, i), [SHAPE, ("index", ROWS)]),
    "index_select(dim=-1)": (lambda lib, x, i: x.index_select(-1, i), [SHAPE, ("index", ROWS)]),
    "gather": (lambda lib, x, i: lib.gather(x, 1, i), [SHAPE, ("index", GATHER_INDEX)]),
    "scatter(src)": (lambda lib, x, i, s: lib.scatter(x, 0, i, s), [SHAPE, ("index", SCATTER_INDEX), SHAPE]),
    "scatter(value)": (lambda lib, x, i: x.scatter(1, i[:, :2], 1), [SHAPE, ("index", SCATTER_INDEX)]),
    "scatter_add": (lambda lib, x, i, s: lib.scatter_add(x, 0, i, s), [SHAPE, ("index", SCATTER_INDEX), SHAPE]),
    "scatter_add_": (lambda lib, x, i, s: x.scatter_add_(0, i, s), [SHAPE, ("index", SCATTER_INDEX), SHAPE]),
    "take": (lambda lib, x, i: lib.take(x, i), [SHAPE, ("index", GATHER_INDEX + 4)]),
    "nonzero": (lambda lib, x: lib.nonzero(x), [SHAPE]),
    "nonzero(as_tuple)": (lambda lib, x: x.nonzero(as_tuple=True), [SHAPE]),
    "masked_select": (lambda lib, x, m: lib.masked_select(x, m > 0), [SHAPE, (4,)]),
}


def _made(specs: list, dtype: str, rng) -> list:
    """Inputs for one case: shapes become `dtype` data, ('index', values) an int64 index tensor."""
    made = []
    for spec in specs:
        if spec[:1] == ("index",):
            made.append(("tensor", "int64", spec[1]))
        else:
            made.extend(make_inputs([(dtype, spec)], rng))
    return made


@pytest.mark.parametrize("label", OPS)
def test_op_over_dtypes(label):
    fn, specs = OPS[label]
    tally = Tally()
    for dtype in SWEEP_DTYPES:
        made = _made(specs, dtype, _rng(label, dtype))
        tally.check(f"{label}[{dtype}]", fn, lambda lib: realize(lib, made))
    tally.assert_clean(len(SWEEP_DTYPES))


# Joining tensors of different dtypes promotes them, as PyTorch does.
MIXED = [("int64", "float16"), ("bool", "uint8"), ("int32", "float64"), ("bfloat16", "float16"),
         ("float32", "complex64")]


def test_cat_and_stack_promote():
    tally = Tally()
    for a, b in MIXED:
        made = make_inputs([(a, SHAPE), (b, SHAPE)], _rng("mixed", a, b))
        tally.check(f"cat({a}, {b})", lambda lib, x, y: lib.cat([x, y], 1), lambda lib: realize(lib, made))
        tally.check(f"stack({a}, {b})", lambda lib, x, y: lib.stack([x, y]), lambda lib: realize(lib, made))
    tally.assert_clean(2 * len(MIXED))


@st.composite
def _cat_shapes(draw):
    """Two to three shapes that agree (mostly) except along `dim`, which may be negative."""
    ndim = draw(st.integers(1, 3))
    base = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=ndim, max_size=ndim))
    dim = draw(st.integers(-ndim, ndim - 1))
    shapes = []
    for _ in range(draw(st.integers(2, 3))):
        shape = list(base)
        shape[dim] = draw(st.sampled_from([0, 1, 2]))
        if draw(st.integers(0, 9)) == 0:
            shape[(dim + 1) % ndim] += 1
        shapes.append(tuple(shape))
    return shapes, dim


@settings(max_examples=25, deadline=None)
@given(shapes_and_dim=_cat_shapes(), stacking=st.booleans())
def test_cat_and_stack_shapes(shapes_and_dim, stacking):
    shapes, dim = shapes_and_dim
    made = make_inputs([("float32", shape) for shape in shapes], np.random.default_rng(0))
    if stacking:
        run_case(f"stack {shapes} dim={dim}", lambda lib, *ts: lib.stack(ts, dim), lambda lib: realize(lib, made),
                 message=True)
    else:
        run_case(f"cat {shapes} dim={dim}", lambda lib, *ts: lib.cat(ts, dim), lambda lib: realize(lib, made),
                 message=True)


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_gather_random_indices(data):
    """gather/take_along_dim with random in-range indices along a random dim."""
    shape = tuple(data.draw(st.lists(st.sampled_from([1, 2, 3]), min_size=1, max_size=3), label="shape"))
    dim = data.draw(st.integers(-len(shape), len(shape) - 1), label="dim")
    index_shape = list(shape)
    index_shape[dim] = data.draw(st.integers(1, 3), label="picks")
    rng = np.random.default_rng(1)
    index = rng.integers(0, shape[dim], index_shape)
    made = make_inputs([("float32", shape)], rng) + [("tensor", "int64", index)]
    run_case(f"gather {shape} dim={dim}", lambda lib, x, i: (lib.gather(x, dim, i), lib.take_along_dim(x, i, dim)),
             lambda lib: realize(lib, made))


def _ix(values) -> tuple:
    return ("index", _index(values))


# label: (call, specs) as in OPS, all float32 data. PyTorch's errors, compared with their exact messages.
ERRORS = {
    "cat of nothing": (lambda lib: lib.cat([]), []),
    "cat sizes": (lambda lib, a, b: lib.cat([a, b]), [SHAPE, (2, 3)]),
    "cat ranks": (lambda lib, a, b: lib.cat([a, b]), [SHAPE, (4,)]),
    "cat of 0-dim": (lambda lib, a, b: lib.cat([a, b]), [(), ()]),
    "cat dim out of range": (lambda lib, a, b: lib.cat([a, b], 2), [SHAPE, SHAPE]),
    "cat of a non-tensor": (lambda lib, a: lib.cat([a, 1]), [SHAPE]),
    "stack of nothing": (lambda lib: lib.stack([]), []),
    "stack sizes": (lambda lib, a, b: lib.stack([a, b]), [SHAPE, (2, 4)]),
    "stack dim out of range": (lambda lib, a, b: lib.stack([a, b], 3), [SHAPE, SHAPE]),
    "hstack sizes": (lambda lib, a, b: lib.hstack([a, b]), [SHAPE, (2, 4)]),
    "vstack sizes": (lambda lib, a, b: lib.vstack([a, b]), [SHAPE, (3,)]),
    "index_select out of range": (lambda lib, x, i: x.index_select(0, i), [SHAPE, _ix([0, 3])]),
    "index_select 2d index": (lambda lib, x, i: x.index_select(0, i), [SHAPE, _ix([[0]])]),
    "index_select negative index": (lambda lib, x, i: x.index_select(1, i), [SHAPE, _ix([-1, 0])]),
    "index_select float index": (lambda lib, x, i: x.index_select(0, i.float()), [SHAPE, _ix([0])]),
    "gather ranks": (lambda lib, x, i: x.gather(1, i), [SHAPE, _ix([0, 1])]),
    "gather out of range": (lambda lib, x, i: x.gather(1, i), [SHAPE, _ix([[0, 4]])]),
    "gather int16 index": (lambda lib, x, i: x.gather(1, i.short()), [SHAPE, _ix([[0]])]),
    "gather index larger": (lambda lib, x, i: x.gather(1, i), [SHAPE, _ix([[0]] * 4)]),
    "scatter out of range": (lambda lib, x, i, s: x.scatter(0, i, s), [SHAPE, _ix([[0, 3]]), SHAPE]),
    "scatter ranks": (lambda lib, x, i, s: x.scatter(0, i, s), [SHAPE, _ix([0, 1]), SHAPE]),
    "scatter src dtype": (lambda lib, x, i, s: x.scatter(0, i, s.double()), [SHAPE, _ix([[0, 1]]), SHAPE]),
    "scatter_add out of range": (lambda lib, x, i, s: x.scatter_add(0, i, s), [SHAPE, _ix([[5]]), SHAPE]),
    "take out of range": (lambda lib, x, i: x.take(i), [SHAPE, _ix([12])]),
    "take negative out of range": (lambda lib, x, i: lib.take(x, i), [SHAPE, _ix([-13])]),
    "masked_select uint8 mask": (lambda lib, x, m: x.masked_select(m.to(lib.uint8)), [SHAPE, SHAPE]),
    "masked_select shapes": (lambda lib, x, m: x.masked_select(m > 0), [SHAPE, (3,)]),
}


def test_error_messages():
    tally = Tally()
    for label, (fn, specs) in ERRORS.items():
        made = _made(specs, "float32", _rng(label))
        tally.check(label, fn, lambda lib: realize(lib, made), message=True)
    tally.assert_clean(len(ERRORS), values_at_least=0)
    assert tally.raised == len(ERRORS)


# Edge cases PyTorch accepts: label -> (call, specs), float32 data.
ACCEPTED = {
    "cat skips legacy empty (0,) tensors": (lambda lib, a, b: lib.cat([a, b]), [SHAPE, (0,)]),
    "cat of empty tensors": (lambda lib, a, b: lib.cat([a, b], 1), [(2, 0), (2, 0)]),
    "stack of 0-dim": (lambda lib, a, b: lib.stack([a, b]), [(), ()]),
    "index_select of 0-dim": (lambda lib, x, i: x.index_select(0, i), [(), _ix([0])]),
    "index_select with empty index": (lambda lib, x, i: x.index_select(0, i), [SHAPE, _ix(np.zeros(0))]),
    "gather smaller index": (lambda lib, x, i: x.gather(0, i), [SHAPE, _ix([[2, 1]])]),
    "gather int32 index": (lambda lib, x, i: x.gather(1, i.int()), [SHAPE, _ix([[0, 3]])]),
    "take negative index": (lambda lib, x, i: x.take(i), [SHAPE, _ix([[-1, -12]])]),
    "nonzero of 0-dim": (lambda lib, x: lib.nonzero(x + 1), [()]),
    "nonzero of empty": (lambda lib, x: x.nonzero(), [(0, 3)]),
    "masked_select broadcasting input": (lambda lib, x, m: x.masked_select(m > 0), [(4,), SHAPE]),
    "scatter_add repeated indices": (lambda lib, x, i, s: x.scatter_add(1, i, s), [SHAPE, _ix([[0, 0, 0]]), SHAPE]),
}


def test_accepted_edge_cases():
    tally = Tally()
    for label, (fn, specs) in ACCEPTED.items():
        made = _made(specs, "float32", _rng(label))
        tally.check(label, fn, lambda lib: realize(lib, made))
    tally.assert_clean(len(ACCEPTED), values_at_least=len(ACCEPTED))


def test_results_print_as_torch():
    values = np.arange(12).reshape(SHAPE) - 5.0
    for fn in (lambda lib, x: lib.cat([x, x]), lambda lib, x: x.nonzero(), lambda lib, x: x.masked_select(x > 2),
               lambda lib, x: lib.stack([x[0], x[1]], 1).to(lib.int32)):
        expected, actual = (repr(fn(lib, tensor(lib, values, "float32"))) for lib in (torch, __import__("pjtorch")))
        assert actual == expected


def test_table_sizes():
    assert (len(OPS), len(ERRORS), len(ACCEPTED)) == (20, 27, 12)
