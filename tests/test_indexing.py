"""Indexing against real PyTorch: ints, negatives, slices with steps, None, Ellipsis, boolean masks,
integer lists and tensors and their mixtures (with PyTorch's placement of advanced-index dims), the
same keys in __setitem__ with broadcast values, errors, and the gather/scatter family."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pjtorch
from tensor_oracle import same

# Both libraries warn when a list is read as a tuple of indices; a dedicated test checks pjtorch does.
pytestmark = pytest.mark.filterwarnings("ignore:Using a non-tuple sequence for multidimensional indexing")

SHAPE = (2, 3, 4)


def base(m, dtype: str = "float32"):
    return m.arange(24, dtype=getattr(m, dtype)).reshape(SHAPE)


def result_and_layout(t) -> tuple:
    """Values, strides (which mean nothing for an empty tensor), offset, and whether it is a view."""
    return t, t.stride() if t.numel() else None, t.storage_offset(), t._base is not None


KEYS = {
    "int": lambda m: 1,
    "negative": lambda m: (-1, -3),
    "int-int-int": lambda m: (1, 2, 3),
    "numpy-int": lambda m: np.int64(1),
    "slice": lambda m: slice(1, None), "slice-step": lambda m: (slice(None), slice(None, None, 2), slice(1, None, 3)),
    "slice-clamped": lambda m: (slice(-10, 10), slice(5, 9)), "slice-tensor-bound": lambda m: slice(m.tensor(1), None),
    "none": lambda m: None,
    "none-ellipsis-none": lambda m: (None, Ellipsis, None),
    "ellipsis-int": lambda m: (Ellipsis, 2),
    "int-ellipsis-int": lambda m: (1, Ellipsis, 2), "ellipsis-none-int": lambda m: (Ellipsis, None, 1),
    "true": lambda m: True, "false": lambda m: False, "0dim-int-tensor": lambda m: m.tensor(1),
    "0dim-int-tensor-later": lambda m: (slice(None), m.tensor(2)), "0dim-bool-tensor": lambda m: m.tensor(True),
    "list": lambda m: [0, 1], "list-negative": lambda m: [-1, 0, -2], "list-of-lists-as-tuple": lambda m: [[0], [1]],
    "list-with-slice-as-tuple": lambda m: [slice(None), 1], "list-with-none-as-tuple": lambda m: [None, 1],
    "two-lists": lambda m: ([0, 1], [2, 0]), "slice-list-int": lambda m: (slice(None), [0, 2], 1),
    "int-slice-list": lambda m: (1, slice(None), [0, 3]), "separated-lists": lambda m: ([0, 1], slice(None), [0, 3]),
    "broadcast-lists": lambda m: (slice(None), [[0], [2]], [1, 3]), "tensor": lambda m: m.tensor([1, 0]),
    "tensor-2d": lambda m: m.tensor([[1, 0]]), "tensor-int32": lambda m: m.tensor([0, 1], dtype=m.int32),
    "ndarray": lambda m: np.array([0, 1]), "ndarray-2d": lambda m: np.array([[0], [1]]),
    "tuple-part": lambda m: ((0, 1),), "mask": lambda m: m.arange(24).reshape(SHAPE) > 10,
    "mask-prefix": lambda m: m.tensor([[True, False, True], [False, False, True]]),
    "mask-dim": lambda m: (slice(None), m.tensor([True, False, True])),
    "mask-last": lambda m: (Ellipsis, m.tensor([True, False, True, False])), "mask-list": lambda m: [True, False],
    "mask-and-list": lambda m: (m.tensor([True, False]), [2]), "bool-int-list": lambda m: [True, 1],
    "none-between-lists": lambda m: (slice(None), None, [0, 1], None, [1, 2]),
    "list-none-list": lambda m: ([0, 1], None, [1, 2]),
    "empty-list": lambda m: [], "empty-tensor": lambda m: m.tensor([], dtype=m.int64),
    "list-of-tensor-items": lambda m: [m.tensor(1), m.tensor(0)],
    # PyTorch accepts several `...`: each skips the dims no other part names (here none after the first).
    "ellipsis-int-ellipsis": lambda m: (Ellipsis, 0, Ellipsis),
    "int-ellipsis-ellipsis": lambda m: (0, Ellipsis, Ellipsis),
    "ellipsis-none-ellipsis": lambda m: (Ellipsis, None, Ellipsis), "three-ellipses": lambda m: (Ellipsis,) * 3,
    "ints-between-ellipses": lambda m: (Ellipsis, 0, 1, 2, Ellipsis),
    "int-ellipsis-list-ellipsis": lambda m: (0, Ellipsis, [0], Ellipsis),
    "full-slices": lambda m: (slice(None), slice(0, 3), slice(None, 100)),
    # errors
    "int-out-of-range": lambda m: 2, "second-int-out-of-range": lambda m: (0, 3),
    "negative-out-of-range": lambda m: (0, 0, -5), "ellipsis-int-out-of-range": lambda m: (Ellipsis, 4),
    "list-out-of-range": lambda m: (slice(None), [3]),
    "separated-list-out-of-range": lambda m: ([0, 1], slice(None), [0, 7]),
    "list-after-int-out-of-range": lambda m: (1, slice(None), [0, 9]),
    "list-after-none-out-of-range": lambda m: (None, slice(None), [0, 9]),
    "tensor-negative-out-of-range": lambda m: m.tensor([-3]), "too-many": lambda m: (1, 2, 3, 0),
    "zero-step": lambda m: slice(None, None, 0),
    "negative-step": lambda m: (slice(None), slice(None), slice(None, None, -1)), "float": lambda m: 1.5,
    "float-list": lambda m: [1.5],
    "float-tensor": lambda m: m.tensor([1.0]),
    "int16-tensor": lambda m: m.tensor([0], dtype=m.int16),
    "mask-shape": lambda m: m.tensor([True, False, True]),
    "mask-dim-shape": lambda m: (slice(None), slice(None), m.tensor([True, False])),
    "mask-then-out-of-range": lambda m: (m.tensor([[True, False, True], [False, True, True]]), [0, 3, 9, 1]),
    "unbroadcastable-lists": lambda m: ([0, 1], [[0], [1]], [0, 1, 2]),
    "unbroadcastable-two": lambda m: ([0, 1], [0, 1, 2]),
    "int-past-a-second-ellipsis": lambda m: (Ellipsis, 0, Ellipsis, 1),
    "slice-past-a-second-ellipsis": lambda m: (Ellipsis, 0, Ellipsis, slice(1, None)),
    "none-past-a-second-ellipsis": lambda m: (Ellipsis, 0, Ellipsis, None),
    "list-past-a-second-ellipsis": lambda m: (Ellipsis, 0, Ellipsis, [0]),
}


@pytest.mark.parametrize("name", KEYS)
def test_getitem_matches_torch(name):
    key = KEYS[name]
    same(lambda m: result_and_layout(base(m)[key(m)]))


def test_key_table_size():
    assert len(KEYS) == 78


ZERO_DIM_KEYS = {"none": None, "ellipsis": Ellipsis, "true": True, "false": False, "int": 0, "slice": slice(None),
                 "mask": "mask"}


@pytest.mark.parametrize("name", ZERO_DIM_KEYS)
def test_getitem_of_a_0dim_tensor_matches_torch(name):
    key = ZERO_DIM_KEYS[name]
    same(lambda m: result_and_layout(m.tensor(5.0)[m.tensor(True) if key == "mask" else key]))


@pytest.mark.parametrize("name", ["list-of-lists-as-tuple", "list-with-slice-as-tuple", "list-with-none-as-tuple"])
def test_a_list_read_as_a_tuple_warns_as_torch(name):
    key = KEYS[name]
    with pytest.warns(UserWarning, match=re.escape("Using a non-tuple sequence for multidimensional indexing")):
        base(pjtorch)[key(pjtorch)]


@pytest.mark.parametrize("name", ["int", "slice-step", "none-ellipsis-none", "int-ellipsis-int", "list", "mask",
                                  "separated-lists"])
def test_basic_results_share_memory_and_advanced_results_copy(name):
    key = KEYS[name]

    def write_through(m):
        x = base(m)
        indexed = x[key(m)]
        indexed.add_(100)
        return x, indexed

    same(write_through)


# ----- __setitem__ -------------------------------------------------------------------------------------

ASSIGNMENTS = {
    "int-scalar": lambda m, x, v: x.__setitem__(0, 1),
    "row": lambda m, x, v: x.__setitem__((0, 1), m.tensor([9.0, 8, 7, 6])),
    "ellipsis-broadcast": lambda m, x, v: x.__setitem__((Ellipsis, 0), m.tensor([1.0, 2, 3])),
    "stepped": lambda m, x, v: x.__setitem__((slice(None), slice(None, None, 2)), -1),
    "none": lambda m, x, v: x.__setitem__(None, 5), "ellipsis": lambda m, x, v: v.__setitem__(Ellipsis, 3),
    "mask-scalar": lambda m, x, v: x.__setitem__(x > 10, 0),
    "mask-0dim": lambda m, x, v: x.__setitem__(x > 10, m.tensor(2.0)),
    "mask-values": lambda m, x, v: x.__setitem__(x > 20, m.tensor([1.0, 2, 3])),
    "mask-wrong-count": lambda m, x, v: x.__setitem__(x > 20, m.tensor([1.0, 2])),
    "two-lists": lambda m, x, v: x.__setitem__(([0, 1], [2, 0]), m.tensor([[100.0], [200.0]])),
    "two-lists-unbroadcastable": lambda m, x, v: x.__setitem__(([0, 1], [2, 0]), m.tensor([100.0, 200.0])),
    "leading-ones": lambda m, x, v: x.__setitem__(([0, 1], [2, 0]), m.tensor([[[100.0], [200.0]]])),
    "separated-lists": lambda m, x, v: x.__setitem__(([0, 1], slice(None), [0, 3]), m.tensor([[1.0], [2.0]])),
    "list-broadcast-row": lambda m, x, v: x.__setitem__((slice(None), [0, 2]), m.tensor([1.0, 2, 3, 4])),
    "list-wrong-shape": lambda m, x, v: x.__setitem__((slice(None), [0, 2]), m.ones(3)),
    "duplicates": lambda m, x, v: v.__setitem__([0, 2, 1], m.tensor([5, 6, 7])),
    "mask-1d": lambda m, x, v: v.__setitem__(m.tensor([True, False, True, False, True]), 9),
    "list-out-of-range": lambda m, x, v: v.__setitem__([0, 9], 1),
    "int-out-of-range": lambda m, x, v: v.__setitem__(5, 1),
    "negative-out-of-range": lambda m, x, v: v.__setitem__(-6, 1),
    "slice-wrong-length": lambda m, x, v: v.__setitem__(slice(1, 3), m.tensor([7, 8, 9])),
    "float-into-int": lambda m, x, v: v.__setitem__(0, 2.7),
    "float-tensor-into-int": lambda m, x, v: v.__setitem__(0, m.tensor(2.7)),
    "float-into-int-list": lambda m, x, v: v.__setitem__([1], 2.7),
    "dtype-mismatch-advanced": lambda m, x, v: v.__setitem__([1], m.tensor([2.7])),
    "int32-0dim-advanced": lambda m, x, v: v.__setitem__([1, 2], m.tensor(1, dtype=m.int32)),
    "cast-basic": lambda m, x, v: x.__setitem__(0, m.tensor([1, 2, 3, 4])),
    "bool-into-int": lambda m, x, v: v.__setitem__(slice(None, 2), m.tensor([True, False])),
    "0dim-target-one-element": lambda m, x, v: x.__setitem__((0, 0, 0), m.tensor([5.0])),
    "0dim-target-two-elements": lambda m, x, v: x.__setitem__((0, 0, 0), m.tensor([5.0, 6.0])),
    "leading-ones-basic": lambda m, x, v: v.__setitem__(slice(1, 3), m.tensor([[[7, 8]]])),
    "too-many-dims": lambda m, x, v: v.__setitem__(slice(1, 3), m.tensor([[[7], [8]]])),
    "transposed-value": lambda m, x, v: x.__setitem__((slice(None), 1), x[:, 2].t()),
    "from-other-row": lambda m, x, v: x.__setitem__(1, x[0]),
    "list-value": lambda m, x, v: x.__setitem__(0, [1, 2, 3, 4]),
    "ndarray-value": lambda m, x, v: x.__setitem__(0, np.array([1, 2, 3, 4])),
    "int-list-slice": lambda m, x, v: x.__setitem__((1, [0, 2], slice(1, 3)), m.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "broadcast-index-zero": lambda m, x, v: x.__setitem__(([1], [[0], [2]]), 0),
    "0dim-tensor-key": lambda m, x, v: x.__setitem__(m.tensor(1), 7),
    "int32-key": lambda m, x, v: v.__setitem__(m.tensor([1, 2], dtype=m.int32), 0),
    "through-a-view": lambda m, x, v: x[0].t().__setitem__(slice(1, None), 0),
    "two-ellipses": lambda m, x, v: x.__setitem__((Ellipsis, 1, Ellipsis), -1),
    "full-slices-copy": lambda m, x, v: x.__setitem__((slice(None), slice(None)), m.ones(3, 4)),
    "false-is-a-no-op": lambda m, x, v: x.__setitem__(False, 5),
    "0dim-target-int": lambda m, x, v: m.tensor(1.0).__setitem__(0, 5),
    "0dim-target-slice": lambda m, x, v: m.tensor(1.0).__setitem__(slice(None), 5),
}


@pytest.mark.parametrize("name", ASSIGNMENTS)
def test_setitem_matches_torch(name):
    assign = ASSIGNMENTS[name]

    def assigned(m):
        x, v = base(m), m.arange(5)
        assign(m, x, v)
        return x, v

    same(assigned)


def test_assignment_table_size():
    assert len(ASSIGNMENTS) == 47


def test_setitem_keeps_identity_and_bumps_the_version():
    x = pjtorch.zeros(3, 4)
    before = x._version
    x[1, ::2] = 5
    x[[0, 2]] = pjtorch.ones(4)
    assert x._version == before + 2
    assert x.sum().item() == 2 * 5 + 8


# ----- hypothesis-generated keys ---------------------------------------------------------------------

def index_parts(size: int):
    """One part of a key for a dim of `size`: in and out of range ints, stepped slices, lists, masks."""
    return st.one_of(
        st.integers(-size - 1, size),
        st.builds(slice, st.none() | st.integers(-size - 1, size + 1), st.none() | st.integers(-size - 1, size + 1),
                  st.none() | st.integers(1, 3)),
        st.lists(st.integers(-size, size - 1), min_size=1, max_size=3),
        st.lists(st.booleans(), min_size=size, max_size=size).map(lambda bits: ("mask", tuple(bits))),
    )


@st.composite
def keys(draw) -> tuple:
    parts = [draw(index_parts(size)) for size in SHAPE[:draw(st.integers(1, len(SHAPE)))]]
    for _ in range(draw(st.integers(0, 1))):
        parts.insert(draw(st.integers(0, len(parts))), draw(st.sampled_from([None, Ellipsis])))
    return tuple(parts)


def realized(m, key: tuple) -> tuple:
    return tuple(m.tensor(part[1]) if isinstance(part, tuple) else part for part in key)


@settings(max_examples=40, deadline=None)
@given(key=keys())
def test_generated_keys_match_torch(key):
    same(lambda m: result_and_layout(base(m)[realized(m, key)]))


@settings(max_examples=30, deadline=None)
@given(key=keys(), value_kind=st.sampled_from(["scalar", "full", "row"]))
def test_generated_assignments_match_torch(key, value_kind):
    def assigned(m):
        x = base(m)
        target_shape = x[realized(m, key)].shape
        if value_kind == "scalar":
            value = -1.0
        elif value_kind == "full":
            value = -m.arange(float(np.prod(target_shape))).reshape(target_shape)
        else:
            value = -m.arange(float(target_shape[-1] if target_shape else 1))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            x[realized(m, key)] = value
        return x

    same(assigned)


# ----- gather, scatter and friends ---------------------------------------------------------------------

def index(m, values) -> object:
    return m.tensor(values)


GATHER_FAMILY = {
    "index_select": lambda m, x: x.index_select(1, index(m, [2, 0, 2])),
    "index_select-fn": lambda m, x: m.index_select(x, -1, index(m, [3, 1])),
    "index_select-out-of-range": lambda m, x: x.index_select(1, index(m, [3])),
    "gather": lambda m, x: x.gather(2, index(m, [[[0, 3], [1, 1], [2, 0]], [[3, 3], [0, 0], [1, 2]]])),
    "gather-out-of-range": lambda m, x: x.gather(0, m.tensor([[[2]]])),
    "scatter": lambda m, x: m.zeros(3, 4).scatter(0, index(m, [[0, 1, 2, 0]]), m.ones(1, 4)),
    "scatter-value": lambda m, x: m.zeros(3, 4).scatter(1, index(m, [[0], [3], [1]]), 5.0),
    "scatter_": lambda m, x: m.zeros(3, 4).scatter_(1, index(m, [[3, 0]]), m.full((1, 2), 7.0)),
    "scatter_add": lambda m, x: m.zeros(3, 4).scatter_add(0, index(m, [[0, 0, 2, 2], [0, 1, 1, 2]]), m.ones(2, 4)),
    "scatter_add_": lambda m, x: m.zeros(5).scatter_add_(0, index(m, [0, 0, 4]), m.tensor([1.0, 2.0, 3.0])),
    "take": lambda m, x: x.take(index(m, [0, 23, -1, 5])), "take-out-of-range": lambda m, x: x.take(index(m, [24])),
    "where": lambda m, x: m.where(x > 11, x, -x), "where-scalar": lambda m, x: m.where(x > 11, x, 0.5),
    "where-broadcast": lambda m, x: m.where(m.tensor([True, False, True, False]), x, m.zeros(3, 1)),
    "nonzero": lambda m, x: (x % 5 == 0).nonzero(), "nonzero-tuple": lambda m, x: (x % 5 == 0).nonzero(as_tuple=True),
    "nonzero-0dim": lambda m, x: m.tensor(3.0).nonzero(), "masked_select": lambda m, x: x.masked_select(x > 17),
    "masked_select-broadcast": lambda m, x: x.masked_select(m.tensor([True, False, False, True])),
    "masked_select-int-mask": lambda m, x: x.masked_select(m.tensor([1, 0, 0, 1])),
}


@pytest.mark.parametrize("name", GATHER_FAMILY)
def test_gather_scatter_family_matches_torch(name):
    make = GATHER_FAMILY[name]
    same(lambda m: make(m, base(m)))


def test_gather_family_table_size():
    assert len(GATHER_FAMILY) == 21


@pytest.mark.parametrize("key", [
    lambda m: (range(2), m.tensor([0, 2])), lambda m: range(3), lambda m: (slice(None), range(1, 4, 2)),
    lambda m: range(0), lambda m: (range(3), range(3)),
])
def test_a_range_indexes_as_the_list_of_its_ints(key):
    """`input[range(n), target]`, the nll of PyTorch's "What is torch.nn really?" tutorial."""
    same(lambda m: m.arange(12.0).reshape(3, 4)[key(m)])

    def assign(m):
        x = m.arange(12.0).reshape(3, 4)
        x[key(m)] = -1.0
        return x

    same(assign)
