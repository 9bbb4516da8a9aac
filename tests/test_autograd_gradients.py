"""Gradients against PyTorch's, driven by a table of ops.

Every case runs in float32 and float64 through both executors: the fused one (the whole graph
replayed under one jitted `jax.vjp`, taken when the graph has no hooks) and the stepwise one (node
by node, taken here because the output has a hook). Binary ops also broadcast over shapes drawn by
hypothesis; float64 gradients are checked against finite differences; complex gradients follow
PyTorch's convention (the conjugate of `jax.vjp`'s); second derivatives (create_graph) match too.
Shapes are few on purpose: compiling a new signature dominates the run time.
"""
from __future__ import annotations

import collections
import warnings
import zlib
from typing import Callable, NamedTuple

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

from ops_oracle import Tally, torch
import pjtorch as pt
from pjtorch.autograd import engine, fused

DTYPES = ("float32", "float64")
EXECUTORS = ("fused", "stepwise")
# Each table case runs both ways, so every op meets both executors and both dtypes (compiling is the cost).
RUNS = (("float32", "fused"), ("float64", "stepwise"))
TOLERANCES = {"float32": (1e-4, 1e-5), "float64": (1e-9, 1e-12), "complex64": (1e-4, 1e-5),
              "complex128": (1e-9, 1e-12)}
M, ROW, COL, B, S = (3, 4), (4,), (3, 1), (2, 3, 4), ()


class Case(NamedTuple):
    name: str
    fn: Callable  # fn(lib, *leaves) -> the output tensor
    shapes: tuple  # one shape per leaf
    domains: tuple  # one per leaf: 'any', 'positive', 'unit' or 'prob'


def case(name: str, fn: Callable, *shapes, domain="any") -> Case:
    domains = domain if isinstance(domain, tuple) else (domain,) * len(shapes)
    return Case(name, fn, shapes, domains)


def _values(shape: tuple, domain: str, key, complex_: bool = False) -> np.ndarray:
    """Seeded values: away from kinks and ties (random, not gridded), inside each op's domain."""
    rng = np.random.default_rng(zlib.crc32(repr(key).encode()))
    bounds = {"positive": (0.5, 2.0), "unit": (-0.9, 0.9), "prob": (0.1, 0.9)}
    draw = (lambda: rng.standard_normal(shape)) if domain == "any" else (lambda: rng.uniform(*bounds[domain], shape))
    return draw() + 1j * draw() if complex_ else draw()


def _leaves(lib, c: Case, dtype: str) -> list:
    complex_ = dtype.startswith("complex")
    return [lib.tensor(_values(shape, domain, (c.name, i), complex_), dtype=getattr(lib, dtype), requires_grad=True)
            for i, (shape, domain) in enumerate(zip(c.shapes, c.domains))]


def _cotangent(lib, c: Case, out):
    return lib.tensor(_values(tuple(out.shape), "any", (c.name, "out"), out.dtype.is_complex), dtype=out.dtype)


def backward_through(lib, c: Case, dtype: str, executor: str) -> tuple:
    """The output and each leaf's .grad after `out.backward(cotangent)`."""
    leaves = _leaves(lib, c, dtype)
    out = c.fn(lib, *leaves)
    if executor == "stepwise":
        out.register_hook(lambda grad: None)
    out.backward(_cotangent(lib, c, out))
    return (out, *(leaf.grad for leaf in leaves))


UNARY = [
    case("exp", lambda lib, x: x.exp(), M),
    case("log", lambda lib, x: x.log(), M, domain="positive"),
    case("log2", lambda lib, x: lib.log2(x), M, domain="positive"),
    case("log1p", lambda lib, x: x.log1p(), M, domain="positive"),
    case("expm1", lambda lib, x: x.expm1(), M),
    case("sqrt", lambda lib, x: x.sqrt(), M, domain="positive"),
    case("rsqrt", lambda lib, x: x.rsqrt(), M, domain="positive"),
    case("reciprocal", lambda lib, x: x.reciprocal(), M, domain="positive"),
    case("sin", lambda lib, x: x.sin(), M),
    case("cos", lambda lib, x: lib.cos(x), M),
    case("tan", lambda lib, x: x.tan(), M, domain="unit"),
    case("asin", lambda lib, x: x.asin(), M, domain="unit"),
    case("acos", lambda lib, x: x.acos(), M, domain="unit"),
    case("atan", lambda lib, x: x.atan(), M),
    case("sinh", lambda lib, x: x.sinh(), M),
    case("cosh", lambda lib, x: x.cosh(), M),
    case("tanh", lambda lib, x: x.tanh(), M),
    case("sigmoid", lambda lib, x: lib.sigmoid(x), M),
    case("relu", lambda lib, x: x.relu(), M),
    case("abs", lambda lib, x: x.abs(), M),
    case("neg", lambda lib, x: -x, M),
    case("square", lambda lib, x: x.square(), M),
    case("erf", lambda lib, x: x.erf(), M),
    case("erfinv", lambda lib, x: x.erfinv(), M, domain="unit"),
    case("lgamma", lambda lib, x: x.lgamma(), M, domain="positive"),
    case("logit", lambda lib, x: x.logit(), M, domain="prob"),
    case("sign", lambda lib, x: x.sign() * x, M),
    case("floor", lambda lib, x: x.floor() + x, M),
    case("clamp", lambda lib, x: x.clamp(-0.5, 0.5), M),
    case("clamp_min", lambda lib, x: x.clamp(min=0.1), M),
    case("pow 2", lambda lib, x: x ** 2, M),
    case("pow 3", lambda lib, x: x ** 3, M),
    case("pow 0.5", lambda lib, x: x ** 0.5, M, domain="positive"),
    case("pow -1.5", lambda lib, x: x.pow(-1.5), M, domain="positive"),
    case("scalar ** x", lambda lib, x: 2 ** x, M),
    case("scalar * x", lambda lib, x: x * 2.5, M),
    case("scalar - x", lambda lib, x: 1 - x, M),
    case("scalar / x", lambda lib, x: 2 / x, M, domain="positive"),
    case("to float64", lambda lib, x: x.to(lib.float64) * x.to(lib.float64), M),
    case("chain", lambda lib, x: (x.sin() * x.exp() + x ** 2).tanh(), M),
    case("reuse", lambda lib, x: x * x + x.sin() * x, M),
    case("scalar", lambda lib, x: x * x.exp(), S),
]

BINARY = [
    case("add", lambda lib, x, y: x + y, M, M),
    case("add alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), M, ROW),
    case("sub", lambda lib, x, y: x - y, M, ROW),
    case("mul", lambda lib, x, y: x * y, M, ROW),
    case("mul column", lambda lib, x, y: x * y, M, COL),
    case("mul batch", lambda lib, x, y: x * y, B, COL),
    case("div", lambda lib, x, y: x / y, M, ROW, domain=("any", "positive")),
    case("pow", lambda lib, x, y: x ** y, M, ROW, domain=("positive", "any")),
    case("maximum", lambda lib, x, y: lib.maximum(x, y), M, ROW),
    case("minimum", lambda lib, x, y: lib.minimum(x, y), M, M),
    case("atan2", lambda lib, x, y: lib.atan2(x, y), M, ROW),
    case("hypot", lambda lib, x, y: lib.hypot(x, y), M, ROW),
    case("where", lambda lib, x, y: lib.where(x > 0, x, y), M, ROW),
    case("lerp", lambda lib, x, y: lib.lerp(x, y, 0.3), M, ROW),
    case("addcmul", lambda lib, x, y: lib.addcmul(x, y, y, value=0.5), M, ROW),
    case("addcdiv", lambda lib, x, y: lib.addcdiv(x, x, y, value=2), M, ROW, domain=("any", "positive")),
    case("0-dim tensor", lambda lib, x, y: x * y + y, M, S),
    case("shared subexpression", lambda lib, x, y: (x * y).exp() * (x * y), M, ROW),
]

REDUCTIONS = [
    case("sum", lambda lib, x: x.sum(), B),
    case("sum dim", lambda lib, x: x.sum(1), B),
    case("sum dims keepdim", lambda lib, x: x.sum((0, 2), keepdim=True), B),
    case("mean", lambda lib, x: x.mean(), B),
    case("mean dim", lambda lib, x: x.mean(-1), B),
    case("prod dim", lambda lib, x: x.prod(1), B),
    case("max", lambda lib, x: x.max(), B),
    case("min", lambda lib, x: x.min(), B),
    case("max dim", lambda lib, x: x.max(1).values, B),
    case("min dim keepdim", lambda lib, x: x.min(0, keepdim=True)[0], B),
    case("amax", lambda lib, x: x.amax(2), B),
    case("amin dims", lambda lib, x: x.amin((0, 1)), B),
    case("std", lambda lib, x: x.std(), B),
    case("var dim", lambda lib, x: x.var(1), B),
    case("norm", lambda lib, x: x.norm(), B),
    case("norm dim", lambda lib, x: x.norm(dim=1), B),
    case("logsumexp", lambda lib, x: x.logsumexp(1), B),
    case("cumsum", lambda lib, x: x.cumsum(2), B),
    case("cumprod", lambda lib, x: x.cumprod(1), B),
    case("softmax", lambda lib, x: x.softmax(-1), B),
    case("softmax dim 0", lambda lib, x: lib.softmax(x, 0), B),
    case("log_softmax", lambda lib, x: x.log_softmax(1), B),
]

MATMUL = [
    case("mm", lambda lib, a, b: a.mm(b), M, (4, 2)),
    case("matmul", lambda lib, a, b: a @ b, M, (4, 2)),
    case("matmul batched broadcast", lambda lib, a, b: lib.matmul(a, b), B, (4, 2)),
    case("matmul vector", lambda lib, a, b: b @ a, (4, 2), ROW),
    case("bmm", lambda lib, a, b: a.bmm(b), B, (2, 4, 2)),
    case("mv", lambda lib, a, b: a.mv(b), M, ROW),
    case("dot", lambda lib, a, b: a.dot(b), ROW, ROW),
    case("outer", lambda lib, a, b: lib.outer(a, b), (3,), ROW),
    case("addmm", lambda lib, c, a, b: lib.addmm(c, a, b), (3, 2), M, (4, 2)),
    case("matmul transposed", lambda lib, a: a @ a.t(), M),
    case("einsum", lambda lib, a, b: lib.einsum("ij,kj->ik", a, b), M, M),
]

VIEWS = [
    case("view", lambda lib, x: x.view(12) * lib.arange(12.0, dtype=x.dtype), M),
    case("reshape", lambda lib, x: x.reshape(4, 3), M),
    case("reshape of transposed", lambda lib, x: x.t().reshape(12), M),
    case("t", lambda lib, x: x.t(), M),
    case("transpose", lambda lib, x: x.transpose(0, 2), B),
    case("permute", lambda lib, x: x.permute(2, 0, 1), B),
    case("index int", lambda lib, x: x[1], M),
    case("index slice", lambda lib, x: x[:, 1:3], M),
    case("index step", lambda lib, x: x[..., ::2], B),
    case("index None", lambda lib, x: x[1:, None], M),
    case("index list", lambda lib, x: x[[0, 2, 0]], M),
    case("index mask", lambda lib, x: x[x > 0], M),
    case("index pairs", lambda lib, x: x[[0, 1, 1], [3, 2, 3]], M),
    case("unsqueeze", lambda lib, x: x.unsqueeze(1), M),
    case("squeeze", lambda lib, x: x.squeeze(1), COL),
    case("expand", lambda lib, x: x.expand(3, 4), COL),
    case("flatten", lambda lib, x: x.flatten(1), B),
    case("narrow", lambda lib, x: x.narrow(1, 1, 2), M),
    case("select", lambda lib, x: x.select(2, 3), B),
    case("unbind", lambda lib, x: x.unbind(0)[1].exp() * x.unbind(0)[2], M),
    case("split", lambda lib, x: x.split(2, dim=1)[1], M),
    case("chunk", lambda lib, x: x.chunk(3, 0)[2], M),
    case("cat", lambda lib, x, y: lib.cat([x, y, x], dim=0), M, M),
    case("cat dim 1", lambda lib, x, y: lib.cat([x, y], dim=1), M, COL),
    case("stack", lambda lib, x, y: lib.stack([x, y], dim=1), M, M),
    case("diagonal", lambda lib, x: x.diagonal(), M),
    case("flip", lambda lib, x: x.flip(1), M),
    case("roll", lambda lib, x: x.roll(1, 1), M),
    case("repeat", lambda lib, x: x.repeat(2, 1), M),
    case("tril", lambda lib, x: x.tril(), M),
    case("clone", lambda lib, x: x.clone(), M),
    case("contiguous", lambda lib, x: x.t().contiguous(), M),
    case("gather", lambda lib, x: x.gather(1, lib.tensor([[0, 3], [1, 1], [2, 0]])), M),
    case("index_select", lambda lib, x: x.index_select(1, lib.tensor([3, 0, 3])), M),
    case("masked_fill", lambda lib, x: x.masked_fill(x > 0.5, 2.0), M),
    case("take_along_dim", lambda lib, x: lib.take_along_dim(x, lib.tensor([[2], [0], [1]]), 1), M),
]

FAMILIES = {"unary": UNARY, "binary": BINARY, "reductions": REDUCTIONS, "matmul": MATMUL, "views": VIEWS}
CASE_COUNT = 129


def test_the_table_is_whole():
    assert sum(len(cases) for cases in FAMILIES.values()) == CASE_COUNT
    names = [c.name for cases in FAMILIES.values() for c in cases]
    assert len(set(names)) == len(names)


@pytest.fixture(autouse=True, scope="module")
def fuse_on_first_sight():
    """Here graphs are fused the first time they are met (not the second), so every case meant for the
    fused executor runs there."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fused, "SIGHTINGS_BEFORE_COMPILING", 0)
        yield


@pytest.fixture
def executor_calls(monkeypatch) -> collections.Counter:
    """How often each executor ran a backward (pjtorch's; torch is not counted)."""
    calls = collections.Counter()
    for module, name, label in ((fused, "run", "fused"), (engine, "_run_stepwise", "stepwise")):
        def counted(*args, _original=getattr(module, name), _label=label, **kwargs):
            calls[_label] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(module, name, counted)
    return calls


@pytest.mark.parametrize("family", FAMILIES)
def test_gradients_match_torch(family, executor_calls):
    tally, cases = Tally(), FAMILIES[family]
    for c in cases:
        for dtype, executor in RUNS:
            tally.check(f"{c.name} {dtype} {executor}", lambda lib: backward_through(lib, c, dtype, executor),
                        lambda lib: (), rtol=TOLERANCES[dtype][0], atol=TOLERANCES[dtype][1])
    tally.assert_clean(len(cases) * len(RUNS), values_at_least=len(cases) * len(RUNS))
    assert executor_calls == {executor: len(cases) * sum(e == executor for _, e in RUNS) for executor in EXECUTORS}


BROADCAST = {
    "add": lambda lib, x, y: x + y,
    "sub": lambda lib, x, y: x - y,
    "mul": lambda lib, x, y: x * y,
    "div": lambda lib, x, y: x / y,
    "pow": lambda lib, x, y: y ** x,
    "maximum": lambda lib, x, y: lib.maximum(x, y),
    "atan2": lambda lib, x, y: lib.atan2(x, y),
    "where": lambda lib, x, y: lib.where(x > 0, x, y),
}


@settings(max_examples=25, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3), op=st.sampled_from(sorted(BROADCAST)),
       dtype=st.sampled_from(DTYPES), executor=st.sampled_from(EXECUTORS))
def test_broadcasting_gradients_match_torch(shapes, op, dtype, executor):
    """Gradients of broadcast operands are summed back to each operand's shape, as PyTorch's are."""
    c = case(f"broadcast {op}", BROADCAST[op], *shapes.input_shapes, domain=("any", "positive"))
    tally = Tally()
    tally.check(f"{op} {shapes.input_shapes} {dtype} {executor}", lambda lib: backward_through(lib, c, dtype, executor),
                lambda lib: (), rtol=TOLERANCES[dtype][0], atol=TOLERANCES[dtype][1])
    tally.assert_clean(1)


def test_gradients_match_finite_differences():
    """Independently of PyTorch: <grad, d> equals the central difference of <out, cotangent> along d."""
    step, checked = 1e-6, 0
    for c in (c for cases in FAMILIES.values() for c in cases):
        out, *grads = backward_through(pt, c, "float64", "stepwise")
        cotangent = _cotangent(pt, c, out)
        leaves = _leaves(pt, c, "float64")
        directions = [pt.tensor(_values(leaf.shape, "any", (c.name, "direction", i)), dtype=pt.float64)
                      for i, leaf in enumerate(leaves)]
        analytic = sum(float((g * d).sum()) for g, d in zip(grads, directions) if g is not None)
        with pt.no_grad():
            moved = [[leaf + sign * step * d for leaf, d in zip(leaves, directions)] for sign in (1, -1)]
            plus, minus = (float((c.fn(pt, *inputs) * cotangent).sum()) for inputs in moved)
        numeric = (plus - minus) / (2 * step)
        assert numeric == pytest.approx(analytic, rel=1e-6, abs=1e-7), c.name
        checked += 1
    assert checked == CASE_COUNT


COMPLEX = [
    case("mul", lambda lib, z, w: z * w, M, ROW),
    case("div", lambda lib, z, w: z / w, M, M),
    case("exp", lambda lib, z: z.exp(), M),
    case("sin", lambda lib, z: z.sin(), M),
    case("reciprocal", lambda lib, z: z.reciprocal(), M),
    case("square", lambda lib, z: z ** 2, M),
    case("abs", lambda lib, z: z.abs(), M),
    case("abs squared", lambda lib, z: (z * z.conj()).abs().sum(), M),
    case("conj", lambda lib, z, w: z.conj() * w, M, M),
    case("sum", lambda lib, z, w: (z * w).sum(), M, ROW),
    case("matmul", lambda lib, a, b: a @ b, M, (4, 2)),
    case("angle", lambda lib, z: z.angle(), M),
]


def test_complex_gradients_match_torch(executor_calls):
    """PyTorch's complex gradient is the conjugate of jax.vjp's: the engine conjugates at the boundary."""
    tally = Tally()
    for c in COMPLEX:
        for dtype, executor in (("complex64", "fused"), ("complex128", "stepwise")):
            tally.check(f"{c.name} {dtype} {executor}", lambda lib: backward_through(lib, c, dtype, executor),
                        lambda lib: (), rtol=TOLERANCES[dtype][0], atol=TOLERANCES[dtype][1])
    tally.assert_clean(len(COMPLEX) * 2, values_at_least=len(COMPLEX) * 2)
    assert executor_calls == {"fused": len(COMPLEX), "stepwise": len(COMPLEX)}


def test_complex_gradient_through_autograd_grad_and_a_hook():
    seen = []
    for lib in (torch, pt):
        z = lib.tensor([1 + 2j, 3 - 1j], requires_grad=True)
        w = z * z
        w.register_hook(lambda grad, lib=lib: seen.append(grad))
        (grad,) = lib.autograd.grad(w.abs().sum(), z)
        seen.append(grad)
    for expected, actual in zip(seen[:2], seen[2:]):
        np.testing.assert_allclose(actual.numpy(), expected.numpy(), rtol=1e-6)


def test_third_derivative_of_a_cube():
    x = pt.tensor(3.0, requires_grad=True)
    first, = pt.autograd.grad(x ** 3, x, create_graph=True)
    second, = pt.autograd.grad(first, x, create_graph=True)
    third, = pt.autograd.grad(second, x)
    assert [first.item(), second.item(), third.item()] == [27.0, 18.0, 6.0]
    assert first.grad_fn is not None and second.grad_fn is not None
    assert third.grad_fn is None and not third.requires_grad


def test_create_graph_accumulates_differentiably_into_grad():
    x = pt.tensor(3.0, requires_grad=True)
    (x ** 3).backward(create_graph=True)
    assert x.grad.item() == 27.0 and x.grad.requires_grad
    (x ** 2).backward(create_graph=True)
    assert x.grad.item() == 33.0
    second, = pt.autograd.grad(x.grad, x, retain_graph=True)
    assert second.item() == 20.0
    gradient = x.grad
    x.grad = None
    gradient.backward()
    assert x.grad.item() == 20.0
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        gradient.backward()  # the gradient's own graph was freed, as PyTorch frees it


def test_a_first_gradient_under_create_graph_is_stored_as_a_copy_and_its_graph_is_freed():
    """PyTorch stores a leaf's first create_graph gradient through copy_ (grad_fn=<CopyBackwards>), and a gradient
    graph keeps what its nodes read only until a backward through it."""
    def program(m):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        (x ** 3).sum().backward(create_graph=True)
        lines = [repr(x.grad), type(x.grad.grad_fn).__name__,
                 [type(n).__name__ for n, _ in x.grad.grad_fn.next_functions if n is not None]]
        (x.grad * 2).sum().backward()
        lines.append(repr(x.grad))
        w = m.tensor(3.0, requires_grad=True)
        (gw,) = m.autograd.grad(w * w.exp(), w, create_graph=True)
        gw.backward()
        lines.append(repr(w.grad))
        try:
            gw.backward()
        except RuntimeError as e:
            lines.append(str(e)[:60])
        v = m.tensor([[1.0, 2.0]], requires_grad=True)
        (gv,) = m.autograd.grad((v.t() * 3).sum(), v, create_graph=True)
        lines.append(gv.requires_grad)
        return lines

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert program(pt) == program(torch)


SECOND_ORDER = [c for cases in FAMILIES.values() for c in cases if c.name in {
    "log", "sigmoid", "relu", "lgamma", "pow 0.5", "scalar ** x", "chain", "reuse", "div", "pow", "maximum",
    "shared subexpression", "sum", "prod dim", "max", "std", "logsumexp", "log_softmax", "matmul batched broadcast",
    "addmm", "unbind"}]


def second_derivatives(lib, c: Case) -> tuple:
    """First gradients (recorded), then the gradient of <first gradients, w> with respect to every leaf.

    Where PyTorch's first gradient does not depend on an input (max, clamp...), pjtorch's may still be
    connected to it with a zero derivative: compared as numbers, a missing derivative counts as zero.
    """
    leaves = _leaves(lib, c, "float64")
    out = c.fn(lib, *leaves)
    out.register_hook(lambda grad: None)
    firsts = lib.autograd.grad(out, leaves, _cotangent(lib, c, out), create_graph=True)
    weighted = sum((g * lib.tensor(_values(g.shape, "any", (c.name, "w", i)), dtype=g.dtype)).sum()
                   for i, g in enumerate(firsts) if g.requires_grad)
    if not getattr(weighted, "requires_grad", False):
        return (*firsts, *(lib.zeros_like(leaf) for leaf in leaves))
    seconds = lib.autograd.grad(weighted, leaves, materialize_grads=True)
    return (*firsts, *(g + 0 for g in seconds))  # + 0: PyTorch's zero derivatives can be ZeroTensors


def test_second_derivatives_match_torch():
    assert len(SECOND_ORDER) == 21
    tally = Tally()
    for c in SECOND_ORDER:
        tally.check(c.name, lambda lib: second_derivatives(lib, c), lambda lib: (), rtol=1e-9, atol=1e-12)
    tally.assert_clean(len(SECOND_ORDER), values_at_least=len(SECOND_ORDER))


@pytest.mark.parametrize("exponent", [0, 1, 2, 1.0, 0.0, -1])
def test_a_power_gradient_is_linked_to_its_base_unless_the_exponent_is_zero(exponent):
    """PyTorch's pow gradient is grad * c * x**(c - 1): x**1's reads x (through x**0), x**0's is a plain zero."""
    found = {}
    for name, lib in (("pjtorch", pt), ("torch", torch)):
        x = lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)
        (g,) = lib.autograd.grad((x ** exponent).sum(), x, create_graph=True)
        second = lib.autograd.grad(g.sum(), x)[0].tolist() if g.requires_grad else None
        found[name] = (g.tolist(), g.requires_grad, second)
    assert found["pjtorch"] == found["torch"]
