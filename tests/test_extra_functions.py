"""`torch.layout`/`torch.strided`, `Tensor.is_sparse`, `torch.fill` and `torch.bincount` against real PyTorch."""
from __future__ import annotations

import pytest

import pjtorch
from tensor_oracle import reference, same


def test_layout_prints_and_compares_as_torch():
    def run(m):
        x = m.zeros(2, 3)
        return (str(x.layout), repr(m.strided), str(m.sparse_coo), x.layout == m.strided, x.layout is m.strided,
                type(m.strided).__name__, x.is_sparse, x.t().layout is m.strided,
                m.zeros(2, requires_grad=True).is_sparse, {m.strided: 1}[x.layout])

    same(run)


def test_factories_take_the_strided_layout():
    same(lambda m: m.ones(2, layout=m.strided, dtype=m.float64))


FILLS = {
    "number": lambda m, x: m.fill(x, 2.5), "int-into-float": lambda m, x: m.fill(x, 3),
    "0-dim-tensor": lambda m, x: m.fill(x, m.tensor(2)), "1-d-tensor": lambda m, x: m.fill(x, m.tensor([2.0])),
    "complex-into-float": lambda m, x: m.fill(x, 1j), "int8-overflow": lambda m, x: m.fill(x.to(m.int8), 300),
    "keeps-dtype": lambda m, x: m.fill(x.double(), 1), "input-untouched": lambda m, x: (m.fill(x, 7.0), x),
    "missing-value": lambda m, x: m.fill(x), "transposed": lambda m, x: m.fill(x.view(2, 2).t(), -1.0),
}


@pytest.mark.parametrize("name", FILLS)
def test_fill_matches_torch(name):
    same(lambda m: FILLS[name](m, m.zeros(4)))


@pytest.mark.parametrize("tensor_value", [False, True])
def test_fill_records_torch_node_and_zero_gradient(tensor_value):
    def run(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        filled = m.fill(x * 1, m.tensor(3.0) if tensor_value else 3.0)
        filled.sum().backward()
        return filled, type(filled.grad_fn).__name__, x.grad

    same(run)


BINCOUNTS = {
    "counts": lambda m, i, w: m.bincount(i), "method": lambda m, i, w: i.bincount(),
    "minlength": lambda m, i, w: m.bincount(i, minlength=7), "minlength-short": lambda m, i, w: i.bincount(None, 2),
    "float32-weights": lambda m, i, w: m.bincount(i, w), "float64-weights": lambda m, i, w: m.bincount(i, w.double()),
    "int-weights": lambda m, i, w: m.bincount(i, m.tensor([1, 2, 3, 4, 5])),
    "half-weights": lambda m, i, w: m.bincount(i, w.half()),
    "bool-weights": lambda m, i, w: m.bincount(i, m.tensor([True] * 5)),
    "empty": lambda m, i, w: m.bincount(i[:0]), "empty-minlength": lambda m, i, w: m.bincount(i[:0], minlength=3),
    "empty-with-weights": lambda m, i, w: m.bincount(i[:0], w[:0]),
    "uint8": lambda m, i, w: m.bincount(i.to(m.uint8)), "int32": lambda m, i, w: m.bincount(i.int()),
    "keywords": lambda m, i, w: m.bincount(input=i, weights=w, minlength=2),
    "negative": lambda m, i, w: m.bincount(m.tensor([0, -1])), "2-d": lambda m, i, w: m.bincount(i.view(1, 5)),
    "0-dim": lambda m, i, w: m.bincount(m.tensor(1)), "float-input": lambda m, i, w: m.bincount(w),
    "bool-input": lambda m, i, w: m.bincount(i > 0), "weights-length": lambda m, i, w: m.bincount(i, w[:2]),
    "weights-2-d": lambda m, i, w: m.bincount(i, w.view(5, 1)),
    "negative-minlength": lambda m, i, w: m.bincount(i, minlength=-1),
}


@pytest.mark.parametrize("name", BINCOUNTS)
def test_bincount_matches_torch(name):
    same(lambda m: BINCOUNTS[name](m, m.tensor([0, 1, 1, 3, 1]), m.tensor([0.5, 1.0, 1.5, 2.0, 2.5])))


def test_bincount_of_complex_weights_warns_and_drops_the_imaginary_part():
    reference()
    weights = pjtorch.tensor([1 + 1j, 2 + 0j], dtype=pjtorch.complex64)
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        result = pjtorch.bincount(pjtorch.tensor([0, 2]), weights)
    assert result.dtype is pjtorch.float64 and result.tolist() == [1.0, 0.0, 2.0]


def test_table_sizes():
    assert (len(FILLS), len(BINCOUNTS)) == (10, 23)
