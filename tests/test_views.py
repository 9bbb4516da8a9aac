"""Views against real PyTorch: strides, contiguity, storage offsets, sharing in both directions,
exactly where view() refuses, when reshape() copies, contiguous() and clone()."""
from __future__ import annotations

import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import pjtorch
from pjtorch.tensor.views import T_DEPRECATION
from tensor_oracle import reference, same


def base(m, shape: tuple = (2, 3, 4)):
    return m.arange(float(math.prod(shape))).reshape(shape)


VIEWS = {
    "view": lambda m, x: x.view(6, 4),
    "view-infer": lambda m, x: x.view(-1, 2),
    "view-size": lambda m, x: x.view(m.Size([24])),
    "view-tuple": lambda m, x: x.view((4, 6)), "view_as": lambda m, x: x.view_as(m.zeros(3, 8)),
    "reshape": lambda m, x: x.reshape(4, 3, 2), "reshape-infer": lambda m, x: x.reshape(-1),
    "flatten": lambda m, x: x.flatten(),
    "flatten-range": lambda m, x: x.flatten(1),
    "flatten-one": lambda m, x: x.flatten(1, 1),
    "unflatten": lambda m, x: x.unflatten(2, (2, 2)), "unflatten-infer": lambda m, x: x.unflatten(-1, (-1, 2)),
    "squeeze": lambda m, x: x[:, :1].squeeze(), "squeeze-dim": lambda m, x: x[:, :1].squeeze(1),
    "squeeze-dims": lambda m, x: x[:1, :1].squeeze((0, 1)), "squeeze-noop": lambda m, x: x.squeeze(0),
    "unsqueeze": lambda m, x: x.unsqueeze(1), "unsqueeze-end": lambda m, x: x.unsqueeze(-1),
    "unsqueeze-sliced": lambda m, x: x[:, ::2].unsqueeze(2),
    "transpose": lambda m, x: x.transpose(0, 2), "transpose-neg": lambda m, x: x.transpose(-1, -2),
    "swapaxes": lambda m, x: x.swapaxes(0, 1), "permute": lambda m, x: x.permute(2, 0, 1),
    "permute-tuple": lambda m, x: x.permute((1, 2, 0)), "movedim": lambda m, x: x.movedim(0, -1),
    "t": lambda m, x: x[0].t(), "t-1d": lambda m, x: x[0, 0].t(), "T-2d": lambda m, x: x[0].T,
    "mT": lambda m, x: x.mT, "narrow": lambda m, x: x.narrow(2, 1, 2), "narrow-neg": lambda m, x: x.narrow(1, -2, 2),
    "select": lambda m, x: x.select(1, 2), "select-neg": lambda m, x: x.select(-1, -1),
    "expand": lambda m, x: x[:, :1].expand(2, 5, 4), "expand-new-dims": lambda m, x: x[0, 0].expand(3, 2, 4),
    "expand-minus-one": lambda m, x: x[:, :1].expand(-1, 3, -1), "expand_as": lambda m, x: x[:1].expand_as(x),
    "broadcast_to": lambda m, x: x[0, :, :1].broadcast_to((2, 3, 3)),
    "diagonal": lambda m, x: x.diagonal(), "diagonal-offset": lambda m, x: x.diagonal(1, 1, 2),
    "diagonal-neg": lambda m, x: x.diagonal(-1, -1, -2), "diagonal-empty": lambda m, x: x.diagonal(5),
    "unfold": lambda m, x: x.unfold(2, 2, 1), "unfold-step": lambda m, x: x.unfold(1, 2, 2),
    "slice": lambda m, x: x[1:], "slice-step": lambda m, x: x[:, ::2, 1::2], "slice-empty": lambda m, x: x[:, 3:],
    "slice-int": lambda m, x: x[1, :, 2], "slice-none": lambda m, x: x[None, :, None, 1],
    "slice-ellipsis": lambda m, x: x[..., 1:3], "slice-clamped": lambda m, x: x[-10:10, 1:-1],
    "view-of-transpose": lambda m, x: x.transpose(0, 1).view(3, 2, 2, 2),
    "as_strided": lambda m, x: x.as_strided((3, 3), (1, 4), 2),
}
SPLITS = {
    "chunk": lambda m, x: x.chunk(2, 2),
    "chunk-uneven": lambda m, x: x.chunk(2, 1),
    "chunk-many": lambda m, x: x.chunk(5, 1),
    "split": lambda m, x: x.split(3, 2),
    "split-sizes": lambda m, x: x.split([1, 2], 1),
    "unbind": lambda m, x: x.unbind(1),
    "tensor_split": lambda m, x: x.tensor_split(3, 2), "tensor_split-indices": lambda m, x: x.tensor_split([1, 3], 2),
    "hsplit": lambda m, x: x.hsplit(3), "hsplit-indices": lambda m, x: m.hsplit(x, (1, 5)),
    "hsplit-1d": lambda m, x: m.hsplit(x.flatten(), 4), "vsplit": lambda m, x: m.vsplit(x, 2),
    "vsplit-indices": lambda m, x: x.vsplit([1]), "dsplit": lambda m, x: x.dsplit(2),
    "dsplit-indices": lambda m, x: m.dsplit(x, [1, 3]), "hsplit-keyword": lambda m, x: m.hsplit(x, indices=[2]),
}


@pytest.mark.parametrize("name", VIEWS)
def test_view_layout_matches_torch(name):
    make = VIEWS[name]
    same(lambda m: layout_of(make(m, base(m))))


def layout_of(t) -> tuple:
    return tuple(t.shape), t.stride(), t.storage_offset(), t.is_contiguous(), t._base is not None


@pytest.mark.parametrize("name", SPLITS)
def test_split_layouts_match_torch(name):
    make = SPLITS[name]
    same(lambda m: [layout_of(part) for part in make(m, base(m))])


def written_through_view(m, make, *, other_way: bool) -> tuple:
    """Writes through the view (or into the base) and returns both, to compare values with torch."""
    x = base(m)
    v = make(m, x)
    parts = v if isinstance(v, tuple) else (v,)
    if other_way:
        x.mul_(-1)
    else:
        for part in parts:
            if not overlaps_itself(part):
                part.add_(100)
    return (x,) + parts


def overlaps_itself(t) -> bool:
    """Whether two elements share memory (PyTorch leaves in-place writes to such views undefined or refuses)."""
    offsets = sum(index * step for index, step in zip(np.ix_(*map(np.arange, t.shape)), t.stride()))
    return np.unique(np.ravel(offsets)).size < t.numel()


@pytest.mark.parametrize("other_way", [False, True], ids=["view-to-base", "base-to-view"])
@pytest.mark.parametrize("name", [*VIEWS, *SPLITS])
def test_writes_are_shared_as_in_torch(name, other_way):
    make = {**VIEWS, **SPLITS}[name]
    same(lambda m: written_through_view(m, make, other_way=other_way))


def test_view_tables_size():
    assert (len(VIEWS), len(SPLITS)) == (53, 16)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3, 4)])
def test_T_warns_except_on_matrices(shape):
    with pytest.warns(UserWarning, match=re.escape(T_DEPRECATION)):
        transposed = pjtorch.zeros(shape).T
    assert transposed.shape == shape[::-1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert pjtorch.zeros(2, 3).T.stride() == (1, 3)


VIEW_ERRORS = {
    "squeeze-range": lambda x: x.squeeze(5), "squeeze-dims-range": lambda x: x.squeeze((0, 5)),
    "transpose-range": lambda x: x.transpose(0, 3), "narrow-long": lambda x: x.narrow(1, 2, 2),
    "narrow-start": lambda x: x.narrow(1, -4, 1), "select-range": lambda x: x.select(1, 3),
    "select-range-0": lambda x: x.select(0, 2), "expand-mismatch": lambda x: x.expand(3, 3, 4),
    "expand-too-few": lambda x: x.expand(2, 3), "expand-leading-minus-one": lambda x: x.expand(-1, 2, 3, 4),
    "permute-count": lambda x: x.permute(0, 1), "permute-duplicate": lambda x: x.permute(0, 1, 1),
    "chunk-zero": lambda x: x.chunk(0),
    "split-sum": lambda x: x.split([1, 1], 1),
    "split-zero": lambda x: x.split(0, 1),
    "diagonal-same-dims": lambda x: x.diagonal(0, 1, 1), "unfold-size": lambda x: x.unfold(2, 5, 1),
    "unfold-step": lambda x: x.unfold(2, 2, 0), "view-two-inferred": lambda x: x.view(-1, -1),
    "view-numel": lambda x: x.view(5, 5), "view-negative": lambda x: x.view(-2, 12),
    "view-zero-inferred": lambda x: x.view(2, 0, -1), "reshape-numel": lambda x: x.reshape(5, -1),
    "flatten-order": lambda x: x.flatten(2, 1), "unflatten-product": lambda x: x.unflatten(1, (2, 2)),
    "t-3d": lambda x: x.t(), "mT-1d": lambda x: x[0, 0].mT, "movedim-range": lambda x: x.movedim(0, 3),
    "unbind-range": lambda x: x.unbind(3), "empty-view-ambiguous": lambda x: x[:, :0].view(0, -1),
}


@pytest.mark.parametrize("name", VIEW_ERRORS)
def test_view_errors_match_torch(name):
    make = VIEW_ERRORS[name]
    same(lambda m: make(base(m)))


def test_view_error_table_size():
    assert (len(VIEW_ERRORS), len(SPLIT_ERRORS), len(AS_STRIDED)) == (30, 13, 17)


SPLIT_ERRORS = {
    "hsplit-indivisible": lambda m, x: x.hsplit(2), "hsplit-zero": lambda m, x: x.hsplit(0),
    "hsplit-negative": lambda m, x: x.hsplit(-1), "hsplit-0d": lambda m, x: m.tensor(1.0).hsplit(1),
    "hsplit-1d-indivisible": lambda m, x: x.flatten().hsplit(5), "vsplit-1d": lambda m, x: x.flatten().vsplit(2),
    "vsplit-indivisible": lambda m, x: m.vsplit(x, 3), "dsplit-2d": lambda m, x: x[0].dsplit(2),
    "dsplit-indivisible": lambda m, x: m.dsplit(x, 3), "hsplit-float": lambda m, x: x.hsplit(1.5),
    "hsplit-tensor": lambda m, x: x.hsplit(m.tensor([1, 2])), "tensor_split-zero": lambda m, x: x.tensor_split(0),
    "tensor_split-negative": lambda m, x: x.tensor_split(-2, 1),
}


@pytest.mark.parametrize("name", SPLIT_ERRORS)
def test_split_errors_match_torch(name):
    same(lambda m: SPLIT_ERRORS[name](m, base(m)))


# as_strided over x = arange(6.) (or a view of it): sizes, strides and offset must stay within the storage.
AS_STRIDED = {
    "within": lambda m, x: x.as_strided((2, 2), (1, 2), 1), "past-end": lambda m, x: x.as_strided((2, 3), (3, 1), 1),
    "too-long": lambda m, x: m.as_strided(x, (7,), (1,)), "offset-past-end": lambda m, x: x.as_strided((1,), (1,), 6),
    "empty-far-offset": lambda m, x: x.as_strided((0,), (1,), 100),
    "negative-stride": lambda m, x: x.as_strided((2, 2), (2, -1), 3),
    "negative-offset": lambda m, x: x.as_strided((2,), (1,), -1),
    "negative-size": lambda m, x: x.as_strided((-2,), (1,)), "rank-mismatch": lambda m, x: x.as_strided((2, 2), (1,)),
    "view-keeps-offset": lambda m, x: x[2:].as_strided((6,), (1,)),
    "view-offset-0": lambda m, x: x[2:].as_strided((6,), (1,), 0),
    "int16-itemsize": lambda m, x: x.to(m.int16).as_strided((7,), (1,)),
    "float64-itemsize": lambda m, x: x.double().as_strided((3, 3), (2, 2), 0),
    "in-place": lambda m, x: x.clone().as_strided_((7,), (1,)),
    "transposed-base": lambda m, x: m.zeros(2, 3).t().as_strided((10,), (1,), 0),
    "0-dim-offset": lambda m, x: m.tensor(1.0).as_strided((), (), 1),
    "keyword-offset": lambda m, x: x.as_strided((2,), (1,), storage_offset=5),
}


@pytest.mark.parametrize("name", AS_STRIDED)
def test_as_strided_bounds_match_torch(name):
    same(lambda m: AS_STRIDED[name](m, m.arange(6.0)), layout=True)


# ----- a view made under no_grad of a tensor that requires grad ---------------------------------------------

def test_views_made_under_no_grad_of_a_tensor_requiring_grad_are_flagged():
    x = pjtorch.ones(4, requires_grad=True)
    b = x * 1
    with pjtorch.no_grad():
        flagged, of_leaf, parts = b.view(2, 2), x[1:], x.unbind(0)
        plain = pjtorch.ones(4).view(2, 2)
    outside = b.view(2, 2)
    assert flagged._created_in_no_grad and of_leaf._created_in_no_grad and parts[0]._created_in_no_grad
    assert flagged.view(4)._created_in_no_grad, "a view of a flagged view is flagged"
    assert not plain._created_in_no_grad and not outside._created_in_no_grad


# (the view made under no_grad of x, a leaf requiring grad, or of b = x * 1; the in-place change made outside)
NO_GRAD_VIEWS = {
    "view": (lambda x, b: b.view(2, 2), lambda v: v.mul_(2)),
    "slice-of-leaf": (lambda x, b: x[1:], lambda v: v.add_(1)),
    "t_": (lambda x, b: b.view(2, 2), lambda v: v.t_()),
    "unbind": (lambda x, b: b.unbind(0)[1], lambda v: v.mul_(2)),
}


@pytest.mark.parametrize("name", NO_GRAD_VIEWS)
def test_in_place_on_a_view_made_under_no_grad_raises_as_torch(name):
    make, modify = NO_GRAD_VIEWS[name]

    def run(m):
        x = m.ones(4, requires_grad=True)
        b = x * 1
        with m.no_grad():
            v = make(x, b)
        return modify(v)

    same(run)


def test_in_place_on_a_view_made_under_no_grad_is_allowed_under_no_grad():
    def run(m):
        x = m.ones(4, requires_grad=True)
        b = x * 1
        with m.no_grad():
            v = b.view(2, 2)
            v.mul_(3)
        return b.detach()

    same(run)


# ----- view() refuses exactly where torch does; reshape() copies exactly then -------------------------

@st.composite
def layouts_and_targets(draw) -> tuple:
    """A (shape, permutation, slicing) layout over a fresh tensor, and a target shape of the same numel."""
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    order = tuple(draw(st.permutations(range(len(shape)))))
    steps = tuple(draw(st.lists(st.sampled_from([1, 1, 2]), min_size=len(shape), max_size=len(shape))))
    sliced = tuple(-(-shape[d] // steps[d]) for d in order)
    target = draw(factorizations(math.prod(sliced)))
    return shape, order, steps, target


@st.composite
def factorizations(draw, numel: int) -> tuple:
    factors, rest = [], numel
    for _ in range(draw(st.integers(0, 3))):
        divisors = [d for d in range(1, rest + 1) if rest % d == 0]
        factor = draw(st.sampled_from(divisors))
        factors.append(factor)
        rest //= factor
    factors.append(rest)
    if draw(st.booleans()):
        factors.insert(draw(st.integers(0, len(factors))), 1)
    if draw(st.booleans()) and len(factors) > 1:
        factors[draw(st.integers(0, len(factors) - 1))] = -1
    return tuple(draw(st.permutations(factors)))


def laid_out(m, shape: tuple, order: tuple, steps: tuple):
    x = m.arange(float(math.prod(shape))).reshape(shape)
    return x[tuple(slice(None, None, step) for step in steps)].permute(order), x


@settings(max_examples=40, deadline=None)
@given(case=layouts_and_targets())
def test_view_refuses_exactly_where_torch_does(case):
    shape, order, steps, target = case
    same(lambda m: layout_of(laid_out(m, shape, order, steps)[0].view(target)))


@settings(max_examples=30, deadline=None)
@given(case=layouts_and_targets())
def test_reshape_copies_exactly_when_torch_does(case):
    shape, order, steps, target = case

    def reshape_then_write(m):
        source, root = laid_out(m, shape, order, steps)
        reshaped = source.reshape(target)
        reshaped.add_(0.5)
        return layout_of(reshaped), root, reshaped

    same(reshape_then_write)


# ----- chains of views ---------------------------------------------------------------------------------

VIEW_STEPS = {
    "transpose": lambda t, k: t.transpose(0, -1),
    "slice": lambda t, k: t[k % 2::2] if t.shape[0] > 1 else t,
    "select": lambda t, k: t.select(-1, k % t.shape[-1]) if t.ndim > 1 and t.shape[-1] else t,
    "unsqueeze": lambda t, k: t.unsqueeze(k % (t.ndim + 1)),
    "narrow": lambda t, k: t.narrow(0, 0, max(1, t.shape[0] - 1)) if t.shape[0] else t,
    "diagonal": lambda t, k: t.diagonal(0, 0, -1) if t.ndim > 1 else t,
    "flatten": lambda t, k: t.flatten() if t.is_contiguous() else t,
    "unfold": lambda t, k: t.unfold(0, 1, 1) if t.ndim < 4 else t,
}


@settings(max_examples=25, deadline=None)
@given(steps=st.lists(st.tuples(st.sampled_from(sorted(VIEW_STEPS)), st.integers(0, 3)), min_size=1, max_size=4))
def test_chains_of_views_share_and_report_torch_layouts(steps):
    def chain(m):
        x = m.arange(60.0).reshape(3, 4, 5)
        t = x
        for name, k in steps:
            t = VIEW_STEPS[name](t, k)
        t.mul_(-1)
        return layout_of(t), x, t

    same(chain)


# ----- contiguous() and clone() -------------------------------------------------------------------------

def test_contiguous_returns_self_when_contiguous_else_a_contiguous_copy():
    x = pjtorch.arange(6.0).reshape(2, 3)
    assert x.contiguous() is x
    t = x.t()
    c = t.contiguous()
    assert c is not t and c.is_contiguous() and c.stride() == (2, 1) and c.tolist() == t.tolist()
    c.fill_(0)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize("make", [lambda m, x: x, lambda m, x: x.t(), lambda m, x: x[:, ::2]],
                         ids=["contiguous", "transposed", "stepped"])
def test_clone_copies_values_and_history_but_not_storage(make):
    def cloned(m):
        x = m.arange(12.0).reshape(3, 4)
        c = make(m, x).clone()
        c.add_(1)
        return x, c, c._base is None

    same(cloned)


CLONES = {
    "transposed": lambda m, x: x.t().clone(), "torch.clone": lambda m, x: m.clone(x.t()),
    "stepped": lambda m, x: x[:, ::2].clone(), "transposed-stepped": lambda m, x: x.t()[::2].clone(),
    "size-1-dim-strides": lambda m, x: x.t()[None].clone(), "unsqueezed": lambda m, x: x.t().unsqueeze(1).clone(),
    "column-transposed": lambda m, x: x[:, :1].t().clone(), "expanded": lambda m, x: x[:1].expand(2, 3, 4).clone(),
    "empty": lambda m, x: x[:, :0].t().clone(), "offset": lambda m, x: x[1:].t().clone(),
    "preserve_format": lambda m, x: x.t().clone(memory_format=m.preserve_format),
    "contiguous_format": lambda m, x: x.t().clone(memory_format=m.contiguous_format),
    "contiguous()": lambda m, x: x.t().contiguous(),
}


@pytest.mark.parametrize("name", CLONES)
def test_clone_keeps_layouts_as_torch(name):
    """preserve_format (the default) keeps a dense layout's strides, and the order of a sparse one's."""
    def cloned(m):
        x = m.arange(24.0).reshape(2, 3, 4)[0]
        c = CLONES[name](m, x)
        c[0].mul_(-1)
        return c, x, c.is_contiguous(), c.numpy().strides

    same(cloned, layout=True)


@settings(max_examples=30, deadline=None)
@given(case=layouts_and_targets())
def test_clone_of_any_layout_matches_torch(case):
    shape, order, steps, _ = case

    def cloned(m):
        source, root = laid_out(m, shape, order, steps)
        c = source.clone()
        c.add_(0.5)
        return layout_of(c), root, c, c.view(-1) if c.is_contiguous() else c.reshape(-1)

    same(cloned)


def test_clone_of_a_transposed_tensor_keeps_clone_history():
    def run(m):
        x = m.arange(12.0, requires_grad=True)
        c = (x * 1).view(3, 4).t().clone()
        (c * m.arange(12.0).view(4, 3)).sum().backward()
        return c.grad_fn.name(), c.stride(), x.grad

    same(run)


@pytest.mark.filterwarnings("ignore:The use of `x.T` on tensors of dimension other than 2")
def test_view_metadata_attributes_match_torch():
    def attributes(m):
        x = m.arange(24.0).reshape(2, 3, 4)
        v = x.transpose(0, 2)[1:]
        return (v.shape, v.size(), v.size(-1), v.ndim, v.dim(), v.numel(), v.stride(), v.stride(0),
                v.storage_offset(), v.is_contiguous(), type(v.shape).__name__, v.T.shape, v.mT.shape,
                x[0, 0, 0].item(), x[0, 1].tolist(), x.requires_grad, x.is_leaf, str(v.shape))

    same(attributes)


def test_views_of_a_requires_grad_leaf_are_not_leaves():
    x = pjtorch.ones(2, 3, requires_grad=True)
    v = x.view(3, 2)
    assert v.requires_grad and not v.is_leaf and v.grad_fn is not None and v._base is x
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert x.detach().view(6).is_leaf


def test_numpy_of_a_view_shares_the_base():
    x = pjtorch.zeros(3, 4)
    column = x[:, 1].numpy()
    column[:] = 7
    assert x[:, 1].tolist() == [7.0, 7.0, 7.0]
    np.testing.assert_array_equal(x.numpy()[:, 1], column)


# PyTorch lays out an elementwise result of non-contiguous operands as they are laid out (TensorIterator's
# reorder_dimensions), so `x.t().exp()` is not contiguous and cannot be `.view(-1)`-ed.
ELEMENTWISE_LAYOUTS = {
    "unary_transposed": lambda lib, x: x.t().exp(),
    "both_transposed": lambda lib, x: x.t() + x.t(),
    "contiguous_first": lambda lib, x: x.reshape(4, 3) + x.t(),
    "transposed_first": lambda lib, x: x.t() + x.reshape(4, 3),
    "scalar": lambda lib, x: x.t() * 2,
    "strided_slice": lambda lib, x: x[:, ::2] * 2,
    "broadcast": lambda lib, x: x.t() + lib.ones(3),
    "comparison": lambda lib, x: x.t() > 3,
    "where": lambda lib, x: lib.where(x.t() > 3, x.t(), 0.0),
    "permuted_3d": lambda lib, x: x.reshape(2, 3, 2).permute(2, 0, 1).sin(),
    "expanded": lambda lib, x: lib.ones(3, 1).expand(3, 4) + 1,
}


@pytest.mark.parametrize("name", ELEMENTWISE_LAYOUTS)
def test_elementwise_results_keep_pytorchs_layout(name):
    def run(lib):
        result = ELEMENTWISE_LAYOUTS[name](lib, lib.arange(12.0).reshape(3, 4))
        return result.stride(), result.is_contiguous(), result.tolist()

    assert run(pjtorch) == run(reference())


@given(st.data())
@settings(max_examples=60, deadline=None)
def test_elementwise_layout_follows_pytorch_for_random_permutations(data):
    ndim = data.draw(st.integers(2, 4))
    shape = tuple(data.draw(st.lists(st.integers(1, 3), min_size=ndim, max_size=ndim)))
    perm = data.draw(st.permutations(range(ndim)))
    other_perm = data.draw(st.permutations(range(ndim)))

    def run(lib):
        a = lib.arange(float(np.prod(shape))).reshape(*[shape[p] for p in perm]).permute(
            *[list(perm).index(i) for i in range(ndim)])
        b = lib.ones(*[shape[p] for p in other_perm]).permute(*[list(other_perm).index(i) for i in range(ndim)])
        result = a * b + 1
        # A size-1 dim's stride is arbitrary (PyTorch's own fast paths differ there), so it is not compared.
        return [step for size, step in zip(result.shape, result.stride()) if size > 1], result.tolist()

    assert run(pjtorch) == run(reference())


def test_a_view_made_under_no_grad_requires_grad_but_sends_no_gradient():
    """PyTorch's view of a tensor that requires grad, made under no_grad, requires grad too (and prints so); ops on
    it are recorded, but its gradient reaches nothing; once its base changes in place, using it is an error."""
    def run(lib):
        w = lib.ones(2, 3, requires_grad=True)
        y = w * 3
        with lib.no_grad():
            shown = [str(w[0]), str(w.t()), str(w * 2), str(y[1])]
            v, u = w[0], y[1]
            inner = v[1:]
        z = (v * w[1]).sum()
        z.backward()
        facts = (v.requires_grad, v.is_leaf, v.grad_fn, inner.requires_grad, str(v * 2), w.grad.tolist(),
                 [(type(n).__name__ if n else None, k) for n, k in (u + 1).grad_fn.next_functions])
        with lib.no_grad():
            v.mul_(2)
        with pytest.raises(RuntimeError) as caught:
            v * 2
        return shown, facts, str(caught.value)

    assert run(pjtorch) == run(reference())


def _writes_through(m, make_view):
    base = m.arange(6.0).reshape(2, 3)
    view = make_view(m, base)
    view[0, 1] = -1.0
    return base, view


LAID_OUT_AS_TORCH = {
    "rot90-odd": lambda m: m.rot90(m.arange(6.0).reshape(2, 3), 1),
    "rot90-negative": lambda m: m.rot90(m.arange(6.0).reshape(2, 3), -1),
    "rot90-even": lambda m: m.rot90(m.arange(6.0).reshape(2, 3), 2),
    "rot90-3d-dims": lambda m: m.rot90(m.arange(24.0).reshape(2, 3, 4), 1, [2, 0]),
    "einsum-permutation": lambda m: m.einsum("ijk->kij", m.arange(24.0).reshape(2, 3, 4)),
    "einsum-implicit-permutation": lambda m: m.einsum("kji", m.arange(24.0).reshape(2, 3, 4)),
    "einsum-identity": lambda m: m.einsum("ij->ij", m.arange(6.0).reshape(2, 3)),
    "einsum-permutation-shares": lambda m: _writes_through(m, lambda m, b: m.einsum("ij->ji", b)),
    "sort-of-transposed": lambda m: m.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]).t().sort(0),
    "sort-of-sliced": lambda m: m.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])[:, ::2].sort(0),
    "sort-of-expanded": lambda m: m.tensor([[3.0, 1.0, 2.0]]).expand(2, 3).sort(1),
    "argsort-of-transposed": lambda m: m.tensor([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]).t().argsort(),
}


@pytest.mark.parametrize("name", LAID_OUT_AS_TORCH)
def test_results_laid_out_as_torch(name):
    from tensor_oracle import same

    same(LAID_OUT_AS_TORCH[name], layout=True)
