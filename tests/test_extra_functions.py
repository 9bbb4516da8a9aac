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


# ----- Tensor.real/imag, clamp_min_/clamp_max_ ---------------------------------------------------------

def test_real_of_a_real_tensor_is_the_tensor_itself():
    def run(m):
        out = []
        for x in (m.tensor([1.0, 2.0], requires_grad=True), m.tensor([True, False]), m.tensor([1, 2])):
            out.append((x.real is x, m.real(x) is x))
        return out

    same(run)


def test_imag_of_a_real_tensor_raises_like_torch():
    same(lambda m: m.tensor([1.0]).imag)
    same(lambda m: m.imag(m.tensor([1.0])))
    same(lambda m: m.tensor([1 + 2j]).imag)


def test_clamp_min_max_in_place_methods():
    def run(m):
        x = m.tensor([-1.0, 0.5, 3.0])
        y = x.clone()
        return x.clamp_min_(0.0) is x, x, y.clamp_max_(1.0), y

    same(run)


# ----- new torch functions -------------------------------------------------------------------------------

def _grad_case(fn, *shapes, dtype="float64"):
    """fn(m, *leaves) under both libraries: result, grad_fn name and the leaves' gradients."""
    def run(m):
        gen = np.random.default_rng(0)
        leaves = [m.tensor(gen.standard_normal(s), dtype=getattr(m, dtype), requires_grad=True) for s in shapes]
        out = fn(m, *leaves)
        outs = out if isinstance(out, (tuple, list)) else (out,)
        first = outs[0]
        name = type(first.grad_fn).__name__ if first.grad_fn is not None else None
        if first.requires_grad:
            (first.double() * m.tensor(gen.standard_normal(tuple(first.shape)))).sum().backward()
        return tuple(outs) + (name,) + tuple(leaf.grad for leaf in leaves)

    return run


GRAD_CASES = {
    "diag-1d": (lambda m, v: m.diag(v), (3,)), "diag-1d-offset": (lambda m, v: m.diag(v, -2), (3,)),
    "diag-2d": (lambda m, x: m.diag(x), (3, 4)), "diag-2d-offset": (lambda m, x: x.diag(1), (3, 4)),
    "diag-2d-negative": (lambda m, x: m.diag(x, -2), (3, 4)),
    "diag-embed": (lambda m, x: m.diag_embed(x), (2, 3)),
    "diag-embed-dims": (lambda m, x: m.diag_embed(x, 1, 0, 2), (2, 3)),
    "diag-embed-swapped": (lambda m, x: x.diag_embed(-1, 2, 0), (2, 3)),
    "diagflat": (lambda m, x: m.diagflat(x), (2, 2)), "diagflat-offset": (lambda m, x: x.diagflat(1), (3,)),
    "trace": (lambda m, x: m.trace(x), (3, 4)), "trace-method": (lambda m, x: x.trace(), (4, 2)),
    "diff": (lambda m, x: m.diff(x), (3, 4)), "diff-n2-dim0": (lambda m, x: x.diff(2, 0), (4, 3)),
    "diff-prepend-append": (lambda m, x, p: m.diff(x, dim=1, prepend=p, append=p), (3, 4), (3, 2)),
    "kron": (lambda m, a, b: m.kron(a, b), (2, 3), (3, 2)), "kron-ranks": (lambda m, a, b: a.kron(b), (2,), (2, 3)),
    "cdist": (lambda m, a, b: m.cdist(a, b), (3, 4), (5, 4)), "cdist-p1": (lambda m, a, b: m.cdist(a, b, 1), (3, 4), (5, 4)),
    "cdist-p3": (lambda m, a, b: m.cdist(a, b, 3.0), (2, 3, 4), (2, 5, 4)),
    "cdist-inf": (lambda m, a, b: m.cdist(a, b, float("inf")), (3, 4), (2, 4)),
    "cdist-self": (lambda m, a: m.cdist(a, a), (3, 4)),
    "rot90": (lambda m, x: m.rot90(x), (2, 3)), "rot90-k2": (lambda m, x: x.rot90(2), (2, 3)),
    "rot90-k-1-dims": (lambda m, x: m.rot90(x, -1, [1, 2]), (2, 3, 4)), "rot90-k0": (lambda m, x: m.rot90(x, 0), (2, 3)),
    "block-diag": (lambda m, a, b, c: m.block_diag(a, b, c), (2, 3), (1, 2), (3,)),
    "mode": (lambda m, x: m.mode(x.round()), (4, 6)), "mode-dim0-keep": (lambda m, x: x.round().mode(0, True), (6, 3)),
    "msort": (lambda m, x: m.msort(x), (4, 3)), "msort-method": (lambda m, x: x.msort(), (4,)),
    "cross": (lambda m, a, b: m.cross(a, b, dim=1), (4, 3), (4, 3)),
    "cross-method": (lambda m, a, b: a.cross(b, 0), (3, 2), (3, 2)),
    "cross-broadcast": (lambda m, a, b: m.cross(a, b, dim=-1), (2, 1, 3), (1, 4, 3)),
    "atleast_3d": (lambda m, x: m.atleast_3d(x), (3,)),
    "column-stack": (lambda m, a, b: m.column_stack([a, b]), (3,), (3, 2)),
    "row-stack": (lambda m, a, b: m.row_stack([a, b]), (3,), (2, 3)),
    "dstack": (lambda m, a, b: m.dstack([a, b]), (2, 3), (2, 3)),
    "combinations": (lambda m, x: m.combinations(x), (4,)),
    "combinations-r3-repl": (lambda m, x: m.combinations(x, 3, with_replacement=True), (3,)),
    "cartesian-prod": (lambda m, a, b: m.cartesian_prod(a, b), (3,), (2,)),
    "meshgrid-ij": (lambda m, a, b: m.meshgrid(a, b, indexing="ij"), (3,), (2,)),
    "meshgrid-xy": (lambda m, a, b, c: m.meshgrid([a, b, c], indexing="xy"), (3,), (2,), (4,)),
    "cov": (lambda m, x: m.cov(x), (3, 5)), "cov-1d": (lambda m, x: x.cov(correction=0), (5,)),
    "corrcoef": (lambda m, x: m.corrcoef(x), (3, 5)),
}


@pytest.mark.parametrize("name", GRAD_CASES)
def test_new_function_values_grad_fn_and_gradients(name):
    fn, *shapes = GRAD_CASES[name]
    same(_grad_case(fn, *shapes))


def test_meshgrid_views_and_missing_indexing_warning():
    torch = reference()
    for m in (torch, pjtorch):
        with pytest.warns(UserWarning, match="torch.meshgrid: in an upcoming release"):
            m.meshgrid(m.arange(3), m.arange(2))
    same(lambda m: m.meshgrid(m.arange(3.0), m.arange(2.0), indexing="xy"), layout=True)
    same(lambda m: m.meshgrid(m.arange(3.0), m.arange(2.0), indexing="ij"), layout=True)


INT_CASES = {
    "trace-int": lambda m: m.trace(m.arange(9).view(3, 3).int()), "trace-bool": lambda m: m.trace(m.eye(2).bool()),
    "diag-int": lambda m: m.diag(m.arange(3)), "diag-bool": lambda m: m.diag(m.tensor([True, False])),
    "tril-indices": lambda m: m.tril_indices(3, 4), "tril-indices-offset": lambda m: m.tril_indices(4, 3, -1),
    "triu-indices": lambda m: m.triu_indices(3, 3, 1), "triu-indices-dtype": lambda m: m.triu_indices(2, 3, dtype=m.int32),
    "searchsorted": lambda m: m.searchsorted(m.tensor([1, 3, 5, 7]), m.tensor([[3, 6, 9], [0, 7, 5]])),
    "searchsorted-right": lambda m: m.searchsorted(m.tensor([1., 3, 5, 7]), m.tensor([3., 6, 7]), right=True),
    "searchsorted-side": lambda m: m.searchsorted(m.tensor([1., 3, 5]), m.tensor([3.]), side="right", out_int32=True),
    "searchsorted-nd": lambda m: m.searchsorted(m.tensor([[1, 3, 5], [2, 4, 6]]), m.tensor([[3, 6], [1, 5]])),
    "searchsorted-scalar": lambda m: m.searchsorted(m.tensor([1, 3, 5]), 4),
    "searchsorted-sorter": lambda m: m.searchsorted(m.tensor([5, 1, 3]), m.tensor([2, 4]), sorter=m.tensor([1, 2, 0])),
    "bucketize": lambda m: m.bucketize(m.tensor([[1, 5], [9, 3]]), m.tensor([1, 3, 5, 7])),
    "bucketize-right": lambda m: m.bucketize(m.tensor([1., 5, 9]), m.tensor([1., 3, 5, 7]), right=True),
    "bucketize-2d-boundaries": lambda m: m.bucketize(m.tensor([1]), m.tensor([[1, 2]])),
    "isin": lambda m: m.isin(m.tensor([[1, 2], [3, 4]]), m.tensor([2, 3])),
    "isin-invert": lambda m: m.isin(m.tensor([1, 2, 3]), m.tensor([2]), invert=True),
    "isin-scalar": lambda m: m.isin(m.tensor([1.0, 2.0]), 2), "isin-mixed": lambda m: m.isin(m.tensor([1, 2]), m.tensor([2.0])),
    "histc": lambda m: m.histc(m.tensor([1., 2, 1, 4, 2.5]), bins=4, min=0, max=3),
    "histc-auto": lambda m: m.histc(m.tensor([1., 2, 1, 4, 2.5]), bins=5),
    "histc-method": lambda m: m.tensor([0.5, 0.5]).histc(3), "histc-int": lambda m: m.histc(m.tensor([1, 2])),
    "mode-int": lambda m: m.mode(m.tensor([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]])),
    "mode-0d": lambda m: m.mode(m.tensor(3.0)), "kron-int-float": lambda m: m.kron(m.tensor([1, 2]), m.tensor([0.5, 1.])),
    "block-diag-promote": lambda m: m.block_diag(m.tensor([[1, 2]]), m.tensor([1.5])),
    "block-diag-3d": lambda m: m.block_diag(m.zeros(1, 1, 1)),
    "diag-3d": lambda m: m.diag(m.zeros(2, 2, 2)), "trace-1d": lambda m: m.trace(m.zeros(3)),
    "cdist-int": lambda m: m.cdist(m.ones(2, 2).long(), m.ones(2, 2).long()),
    "cdist-cols": lambda m: m.cdist(m.ones(2, 2), m.ones(2, 3)), "cdist-1d": lambda m: m.cdist(m.ones(2), m.ones(2, 2)),
    "rot90-1d": lambda m: m.rot90(m.ones(3)), "rot90-same-dims": lambda m: m.rot90(m.ones(2, 2), 1, [0, 0]),
    "cross-length": lambda m: m.cross(m.ones(2, 2), m.ones(2, 2), dim=1), "diff-0d": lambda m: m.diff(m.tensor(1.)),
    "diff-bool": lambda m: m.diff(m.tensor([True, False, False, True])),
    "cov-3d": lambda m: m.cov(m.ones(2, 2, 2)), "cov-int": lambda m: m.cov(m.tensor([[1, 2, 4], [0, 3, 3]])),
    "cov-weights": lambda m: m.cov(m.tensor([[1., 2, 4], [0, 3, 3]]), fweights=m.tensor([1, 2, 1]),
                                   aweights=m.tensor([0.5, 1., 2.])),
    "meshgrid-bad-indexing": lambda m: m.meshgrid(m.ones(2), indexing="ji"),
    "combinations-2d": lambda m: m.combinations(m.ones(2, 2)),
}


@pytest.mark.parametrize("name", INT_CASES)
def test_new_function_dtypes_and_errors(name):
    same(INT_CASES[name])


def test_non_differentiable_results_have_no_history():
    def run(m):
        v = m.tensor([0.5, 1.5, 2.5], requires_grad=True)
        outs = [m.histc(v, 3), m.isin(v, v), m.searchsorted(v.detach(), v), m.bucketize(v, v.detach()),
                m.mode(v).indices, m.tril_indices(2, 2)]
        return [(type(o.grad_fn).__name__, o.requires_grad) for o in outs]

    same(run)


def test_cross_without_dim_warns_like_torch():
    """PyTorch's recorded warning (torch warns once per process, so asking it again here depends on test order)."""
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        pjtorch.cross(pjtorch.ones(2, 3), pjtorch.ones(2, 3))


# ----- edge cases: ties, NaN, half precision, broadcasting, empty and 0-dim inputs, unsupported dtypes -----

EDGE_CASES = {
    'mode-ties': lambda m: m.mode(m.tensor([[3., 1, 1, 3, 2], [5, 5, 4, 4, 4]])),
    'mode-nan': lambda m: m.mode(m.tensor([1., float('nan'), float('nan'), 2])),
    'mode-bool': lambda m: m.mode(m.tensor([True, False, True])),
    'histc-out': lambda m: m.histc(m.tensor([-1., 0, 0.5, 1, 2, 3]), 4, 0, 1),
    'histc-same': lambda m: m.histc(m.tensor([2., 2]), 4),
    'cdist-batch': lambda m: m.cdist(m.ones(2, 1, 3, 4), m.zeros(5, 6, 4)),
    'cdist-big': lambda m: m.cdist(m.arange(120.).view(30, 4) / 7, m.arange(160.).view(40, 4).sin()),
    'cdist-p0': lambda m: m.cdist(m.tensor([[0., 1, 2]]), m.tensor([[0., 1, 3]]), 0),
    'diag-embed-half': lambda m: m.diag_embed(m.ones(2, 2, dtype=m.float16)),
    'interp-half': lambda m: m.nn.functional.interpolate(m.ones(1, 1, 2, 2, dtype=m.float16), scale_factor=2, mode='bilinear'),
    'interp-int-nearest': lambda m: m.nn.functional.interpolate(m.arange(4).view(1, 1, 4), size=7),
    'kron-0d': lambda m: m.kron(m.tensor(2.), m.ones(2)),
    'kron-bool': lambda m: m.kron(m.tensor([True]), m.tensor([True, False])),
    'diff-n0': lambda m: m.diff(m.ones(3), 0),
    'diff-n-big': lambda m: m.diff(m.ones(3), 5),
    'isin-float-nan': lambda m: m.isin(m.tensor([float('nan'), 1.]), m.tensor([float('nan')])),
    'searchsorted-float-int': lambda m: m.searchsorted(m.tensor([1., 2.]), m.tensor([1, 2])),
    'block-diag-empty': lambda m: m.block_diag(),
    'block-diag-0d': lambda m: m.block_diag(m.tensor(2), m.tensor([[1, 2]])),
    'trace-nonsquare': lambda m: m.trace(m.arange(6).view(3, 2)),
    'tril-indices-neg': lambda m: m.tril_indices(0, 3),
    'meshgrid-0d': lambda m: m.meshgrid(m.tensor(1), m.arange(2), indexing='ij'),
    'meshgrid-dtype': lambda m: m.meshgrid(m.tensor([1]), m.arange(2.), indexing='ij'),
    'cartesian-1': lambda m: m.cartesian_prod(m.arange(3)),
    'combinations-r0': lambda m: m.combinations(m.arange(3), 0),
    'combinations-r4': lambda m: m.combinations(m.arange(3), 4),
    'corrcoef-1d': lambda m: m.corrcoef(m.tensor([1., 2, 4])),
    'cov-correction0': lambda m: m.cov(m.tensor([[1., 2], [3, 5]]), correction=0),
    'column_stack-0d': lambda m: m.column_stack([m.tensor(1.), m.tensor(2.)]),
    'dstack-1d': lambda m: m.dstack([m.ones(3), m.zeros(3)]),
    'group-norm-3d-half': lambda m: m.nn.functional.group_norm(m.ones(2, 4, 3, dtype=m.float16), 2),
    'pixel-shuffle-5d': lambda m: m.nn.functional.pixel_shuffle(m.arange(32.).view(2, 1, 4, 2, 2), 2),
    'pairwise-1d': lambda m: m.nn.functional.pairwise_distance(m.ones(3), m.zeros(3)),
    'pairwise-int': lambda m: m.nn.functional.pairwise_distance(m.ones(3, dtype=m.long), m.zeros(3, dtype=m.long)),
    'cosine-emb-1d': lambda m: m.nn.functional.cosine_embedding_loss(m.ones(3), m.arange(3.), m.tensor(1.)),
    'mml-1d': lambda m: m.nn.functional.multi_margin_loss(m.arange(3.), m.tensor(1)),
    'amp2-3d': lambda m: m.nn.functional.adaptive_max_pool2d(m.arange(12.).view(1, 3, 4), 2),
    'amp2-nan': lambda m: m.nn.functional.adaptive_max_pool2d(m.tensor([[[1., float('nan')], [3, 4]]]), 1, True),
    'amp2-int': lambda m: m.nn.functional.adaptive_max_pool2d(m.arange(12).view(1, 3, 4), 2),
    'unfold-3d': lambda m: m.nn.functional.unfold(m.arange(24.).view(2, 3, 4), 2),
    'fold-2d': lambda m: m.nn.functional.fold(m.ones(4, 6), (3, 4), 2),
    'ct1-unbatched-bias': lambda m: m.nn.functional.conv_transpose1d(m.ones(2, 3), m.ones(2, 1, 2), m.ones(1)),
    'instance-1d-running': lambda m: m.nn.InstanceNorm1d(3, track_running_stats=True).eval()(m.arange(6.).view(3, 2)),
    'i1': lambda m: m.nn.functional.interpolate(m.arange(8).view(1, 2, 4), size=7, mode='linear'),
    'i2': lambda m: m.nn.functional.interpolate(m.arange(24).view(2, 3, 2, 2), size=3),
    'i3': lambda m: m.nn.functional.interpolate(m.arange(120).view(2, 3, 4, 5), size=3, mode='bilinear'),
    'gn': lambda m: m.nn.functional.group_norm(m.ones(2, 2).long(), 1),
    'amp': lambda m: m.nn.functional.adaptive_max_pool2d(m.arange(4).view(1, 2, 2).int(), 1),
}


@pytest.mark.parametrize("name", EDGE_CASES)
def test_edge_cases_match_torch(name):
    same(EDGE_CASES[name])
