"""Matrix products (matmul/@ in every rank combination, mm, bmm, dot, mv, outer, einsum, tensordot)
against real PyTorch: values over dtypes, broadcasting drawn by hypothesis, and PyTorch's exact
messages for mismatched shapes, wrong ranks and mixed dtypes.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ops_oracle import Tally, make_inputs, realize, run_case, tensor, torch
import pjtorch

# label: (call, operand shapes). Every rank combination matmul treats differently, and each product.
PRODUCTS = {
    "1d @ 1d": (lambda lib, a, b: a @ b, [(4,), (4,)]),
    "2d @ 1d": (lambda lib, a, b: lib.matmul(a, b), [(3, 4), (4,)]),
    "1d @ 2d": (lambda lib, a, b: a @ b, [(4,), (4, 2)]),
    "2d @ 2d": (lambda lib, a, b: a.matmul(b), [(3, 4), (4, 2)]),
    "3d @ 2d (folded)": (lambda lib, a, b: a @ b, [(2, 3, 4), (4, 2)]),
    "3d @ 1d (folded)": (lambda lib, a, b: a @ b, [(2, 3, 4), (4,)]),
    "1d @ 3d": (lambda lib, a, b: a @ b, [(4,), (2, 4, 2)]),
    "2d @ 3d": (lambda lib, a, b: a @ b, [(3, 4), (2, 4, 2)]),
    "4d @ 3d (broadcast batch)": (lambda lib, a, b: a @ b, [(2, 1, 3, 4), (5, 4, 2)]),
    "mm": (lambda lib, a, b: lib.mm(a, b), [(3, 4), (4, 2)]),
    "bmm": (lambda lib, a, b: a.bmm(b), [(2, 3, 4), (2, 4, 2)]),
    "dot": (lambda lib, a, b: lib.dot(a, b), [(4,), (4,)]),
    "mv": (lambda lib, a, b: a.mv(b), [(3, 4), (4,)]),
    "outer": (lambda lib, a, b: lib.outer(a, b), [(3,), (4,)]),
    "einsum batched": (lambda lib, a, b: lib.einsum("bij,bjk->bik", a, b), [(2, 3, 4), (2, 4, 2)]),
    "einsum of a list": (lambda lib, a, b: lib.einsum("ij,j->i", [a, b]), [(3, 4), (4,)]),
    "tensordot(dims=1)": (lambda lib, a, b: lib.tensordot(a, b, 1), [(3, 4), (4, 2)]),
    "tensordot(dims lists)": (lambda lib, a, b: lib.tensordot(a, b, dims=([0, 2], [1, 0])), [(2, 3, 4), (4, 2)]),
}
PRODUCT_DTYPES = ("bool", "uint8", "int64", "float16", "bfloat16", "float32", "float64", "complex64")


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


@pytest.mark.parametrize("label", PRODUCTS)
def test_product_over_dtypes(label):
    fn, shapes = PRODUCTS[label]
    tally = Tally()
    for dtype in PRODUCT_DTYPES:
        made = make_inputs([(dtype, shape) for shape in shapes], _rng(label, dtype))
        tally.check(f"{label}[{dtype}]", fn, lambda lib: realize(lib, made))
    tally.assert_clean(len(PRODUCT_DTYPES))


@st.composite
def _matmul_shapes(draw):
    """Operand shapes of ranks 1-4 whose batch dims broadcast (or not) and inner dims match (mostly)."""
    ranks = draw(st.tuples(st.integers(1, 4), st.integers(1, 4)))
    inner = 3
    left = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=ranks[0] - 1, max_size=ranks[0] - 1))
    right = draw(st.lists(st.sampled_from([1, 2, 3]), min_size=ranks[1] - 1, max_size=ranks[1] - 1))
    right_inner = draw(st.sampled_from([inner, inner, inner, 2]))
    a = (*left, inner)
    b = (right_inner,) if ranks[1] == 1 else (*right[:-1], right_inner, right[-1])
    return a, b


@settings(max_examples=20, deadline=None)
@given(shapes=_matmul_shapes())
def test_matmul_broadcasting(shapes):
    """Any rank pair: PyTorch's result shape and values, or its exact error."""
    made = make_inputs([("float32", shape) for shape in shapes], np.random.default_rng(0))
    run_case(f"{shapes[0]} @ {shapes[1]}", lambda lib, a, b: a @ b, lambda lib: realize(lib, made), message=True)


def _f(*shape, dtype="float32"):
    return (dtype, shape)


# label: (call, input specs). PyTorch's exact messages for each product's shape, rank and dtype errors.
ERRORS = {
    "mm inner sizes": (lambda lib, a, b: lib.mm(a, b), [_f(2, 3), _f(4, 5)]),
    "mm of a vector": (lambda lib, a, b: lib.mm(a, b), [_f(3), _f(3, 2)]),
    "mm with a 3d mat2": (lambda lib, a, b: a.mm(b), [_f(2, 3), _f(1, 3, 2)]),
    "mm dtypes": (lambda lib, a, b: lib.mm(a, b), [_f(2, 3), _f(3, 2, dtype="float64")]),
    "mm sizes before dtypes": (lambda lib, a, b: lib.mm(a, b), [_f(2, 3), _f(4, 2, dtype="float64")]),
    "mm of bool": (lambda lib, a, b: lib.mm(a, b), [_f(2, 3, dtype="bool"), _f(3, 2, dtype="bool")]),
    "matmul of 0-dim": (lambda lib, a, b: lib.matmul(a, b), [_f(), _f(3)]),
    "1d @ 1d sizes": (lambda lib, a, b: a @ b, [_f(3), _f(4)]),
    "2d @ 1d sizes": (lambda lib, a, b: a @ b, [_f(2, 3), _f(4)]),
    "1d @ 2d sizes": (lambda lib, a, b: a @ b, [_f(4), _f(3, 2)]),
    "2d @ 2d sizes": (lambda lib, a, b: a @ b, [_f(2, 3), _f(4, 2)]),
    "3d @ 3d sizes": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(2, 4, 2)]),
    "3d @ 3d batch": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(3, 3, 2)]),
    "4d @ 3d batch": (lambda lib, a, b: a @ b, [_f(2, 5, 2, 3), _f(4, 3, 2)]),
    "3d @ 2d sizes (folded)": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(4, 2)]),
    "2d @ 3d sizes": (lambda lib, a, b: a @ b, [_f(2, 3), _f(5, 4, 2)]),
    "3d @ 1d sizes (folded)": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(4)]),
    "1d @ 3d sizes": (lambda lib, a, b: a @ b, [_f(4), _f(2, 3, 2)]),
    "2d @ 2d dtypes": (lambda lib, a, b: a @ b, [_f(2, 3), _f(3, 2, dtype="float64")]),
    "1d @ 1d dtypes": (lambda lib, a, b: a @ b, [_f(3), _f(3, dtype="float64")]),
    "3d @ 3d dtypes": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(2, 3, 2, dtype="int64")]),
    "2d @ 1d dtypes": (lambda lib, a, b: a @ b, [_f(2, 3), _f(3, dtype="float64")]),
    "3d @ 2d dtypes": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(3, 2, dtype="float64")]),
    "3d @ 1d dtypes": (lambda lib, a, b: a @ b, [_f(2, 2, 3), _f(3, dtype="float64")]),
    "1d @ 3d dtypes": (lambda lib, a, b: a @ b, [_f(3), _f(2, 3, 2, dtype="float64")]),
    "tensor @ int": (lambda lib, a: a @ 2, [_f(2, 3)]),
    "int @ tensor": (lambda lib, a: 2 @ a, [_f(2, 3)]),
    "matmul(tensor, int)": (lambda lib, a: lib.matmul(a, 2), [_f(2, 3)]),
    "bmm of 2d": (lambda lib, a, b: lib.bmm(a, b), [_f(2, 3), _f(3, 2)]),
    "bmm batch": (lambda lib, a, b: lib.bmm(a, b), [_f(2, 2, 3), _f(3, 3, 2)]),
    "bmm inner sizes": (lambda lib, a, b: lib.bmm(a, b), [_f(2, 2, 3), _f(2, 4, 2)]),
    "bmm dtypes": (lambda lib, a, b: lib.bmm(a, b), [_f(2, 2, 3), _f(2, 3, 2, dtype="float64")]),
    "dot of 2d": (lambda lib, a, b: lib.dot(a, b), [_f(2, 3), _f(3)]),
    "dot sizes": (lambda lib, a, b: lib.dot(a, b), [_f(3), _f(4)]),
    "dot dtypes before sizes": (lambda lib, a, b: a.dot(b), [_f(3), _f(4, dtype="float64")]),
    "mv of a vector": (lambda lib, a, b: lib.mv(a, b), [_f(3), _f(3)]),
    "mv sizes": (lambda lib, a, b: lib.mv(a, b), [_f(2, 3), _f(4)]),
    "mv dtypes": (lambda lib, a, b: lib.mv(a, b), [_f(2, 3, dtype="float64"), _f(3)]),
    "outer of 2d": (lambda lib, a, b: lib.outer(a, b), [_f(2, 3), _f(3)]),
    "outer with 2d vec2": (lambda lib, a, b: lib.outer(a, b), [_f(3), _f(2, 2)]),
    "einsum too few operands": (lambda lib, a: lib.einsum("ij,jk->ik", a), [_f(2, 3)]),
    "einsum too many operands": (lambda lib, a, b: lib.einsum("ij->ji", a, b), [_f(2, 3), _f(3)]),
    "einsum sizes": (lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [_f(2, 3), _f(4, 2)]),
    "einsum ranks": (lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [_f(2, 3, 1), _f(3, 2)]),
    "einsum ellipsis ranks": (lambda lib, a: lib.einsum("...ijk->i", a), [_f(2, 3)]),
    "einsum dtypes": (lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [_f(2, 3, dtype="int64"), _f(3, 2)]),
    "einsum unknown output": (lambda lib, a, b: lib.einsum("ij,jk->iz", a, b), [_f(2, 3), _f(3, 2)]),
    "einsum repeated output": (lambda lib, a: lib.einsum("ij->ii", a), [_f(2, 3)]),
    "tensordot sizes": (lambda lib, a, b: lib.tensordot(a, b, dims=1), [_f(2, 3), _f(4, 2)]),
    "tensordot dtypes": (lambda lib, a, b: lib.tensordot(a, b, dims=1), [_f(2, 3), _f(3, 2, dtype="float64")]),
    "tensordot dim lists": (lambda lib, a, b: lib.tensordot(a, b, dims=([1], [1])), [_f(2, 3), _f(3, 2)]),
    "tensordot list lengths": (lambda lib, a, b: lib.tensordot(a, b, dims=([1], [0, 1])), [_f(2, 3), _f(3, 2)]),
    "tensordot negative dims": (lambda lib, a, b: lib.tensordot(a, b, dims=-1), [_f(2, 3), _f(3, 2)]),
    "tensordot too many dims": (lambda lib, a, b: lib.tensordot(a, b, dims=3), [_f(2, 3), _f(3, 2)]),
    "tensordot dim out of range": (lambda lib, a, b: lib.tensordot(a, b, dims=([2], [0])), [_f(2, 3), _f(3, 2)]),
}


def test_error_messages():
    tally = Tally()
    for label, (fn, specs) in ERRORS.items():
        made = make_inputs(specs, _rng(label))
        tally.check(label, fn, lambda lib: realize(lib, made), message=True)
    tally.assert_clean(len(ERRORS), values_at_least=0)
    assert tally.raised == len(ERRORS)


# Products PyTorch computes where one might expect an error: label -> (call, input specs).
ACCEPTED = {
    "1d @ 1d of empty": (lambda lib, a, b: a @ b, [_f(0), _f(0)]),
    "mm with an empty inner dim": (lambda lib, a, b: lib.mm(a, b), [_f(2, 0), _f(0, 3)]),
    "einsum broadcasting a size-1 subscript": (lambda lib, a, b: lib.einsum("ij,jk->ik", a, b),
                                               [_f(2, 1), _f(3, 2)]),
    "einsum with ellipsis": (lambda lib, a, b: lib.einsum("...ij,...jk", a, b), [_f(2, 2, 3), _f(3, 2)]),
    "tensordot against a size-1 dim": (lambda lib, a, b: lib.tensordot(a, b, dims=([1], [0])),
                                       [_f(2, 1), _f(3, 2)]),
    "tensordot(dims=0)": (lambda lib, a, b: lib.tensordot(a, b, dims=0), [_f(2), _f(3)]),
    "outer of mixed dtypes": (lambda lib, a, b: lib.outer(a, b), [_f(2), _f(3, dtype="int64")]),
    "outer of bool": (lambda lib, a, b: lib.outer(a, b), [_f(2, dtype="bool"), _f(3, dtype="bool")]),
    "int32 dot": (lambda lib, a, b: lib.dot(a, b), [_f(3, dtype="int32"), _f(3, dtype="int32")]),
}


def test_accepted_edge_cases():
    tally = Tally()
    for label, (fn, specs) in ACCEPTED.items():
        made = make_inputs(specs, _rng(label))
        tally.check(label, fn, lambda lib: realize(lib, made))
    tally.assert_clean(len(ACCEPTED), values_at_least=len(ACCEPTED))


def test_products_print_as_torch():
    values = np.arange(12).reshape(3, 4) / 4
    for fn in (lambda lib, x: x @ x.T, lambda lib, x: lib.mv(x, x[0]), lambda lib, x: x[0] @ x[1],
               lambda lib, x: lib.einsum("ij->j", x).to(lib.int64)):
        expected, actual = (repr(fn(lib, tensor(lib, values, "float32"))) for lib in (torch, __import__("pjtorch")))
        assert actual == expected


def test_table_sizes():
    assert (len(PRODUCTS), len(PRODUCT_DTYPES), len(ERRORS), len(ACCEPTED)) == (18, 8, 55, 9)


def _graph(t, depth: int = 3) -> list:
    """Node names breadth-first from t.grad_fn, `depth` levels down."""
    level, names = [t.grad_fn], []
    for _ in range(depth):
        names.append([type(n).__name__ if n is not None else None for n in level])
        level = [f for n in level if n is not None for f, _ in n.next_functions]
    return names


@pytest.mark.parametrize("shapes,bias", [
    (((3,), (2, 3)), True), (((3,), (2, 3)), False), (((4, 3), (2, 3)), True), (((4, 3), (2, 3)), False),
    (((5, 4, 3), (2, 3)), True), (((5, 4, 3), (2, 3)), False), (((2, 5, 4, 3), (2, 3)), False),
])
def test_linear_and_matmul_fold_into_a_matrix_product_as_torch_records_it(shapes, bias):
    """F.linear is addmm (or matmul) of the input folded to a matrix; matmul folds a batch into rows and a vector
    into a row: the graph below the result names these nodes in PyTorch's order."""
    found = {}
    for lib in (pjtorch, torch):
        x = lib.linspace(-1, 1, int(np.prod(shapes[0]))).reshape(shapes[0]).requires_grad_()
        w = lib.linspace(0.5, -0.5, int(np.prod(shapes[1]))).reshape(shapes[1]).requires_grad_()
        b = lib.linspace(0, 1, shapes[1][0]).requires_grad_() if bias else None
        y = lib.nn.functional.linear(x, w, b)
        z = x @ w.t()
        (y.sum() + z.sum()).backward()
        found[lib.__name__] = (_graph(y), _graph(z)), [np.asarray(t.tolist()) for t in (y, x.grad, w.grad)]
    assert found["pjtorch"][0] == found["torch"][0]
    for ours, theirs in zip(found["pjtorch"][1], found["torch"][1]):
        np.testing.assert_allclose(ours, theirs, rtol=1e-6, atol=1e-6)
