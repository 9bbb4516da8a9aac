"""Results of recorded ops, and of ops under no_grad, are deferred: computed by the fused backward,
or together when first read.

Each test checks something a wrong deferral would get wrong: a value, a gradient, a shape error
raised at the call, a compile count, or memory that an unread chain keeps alive.
"""
import numpy as np
import pytest
import torch

import pjtorch as pt
from pjtorch.autograd import fused
from pjtorch.ops import deferred
from pjtorch.ops.registry import TRACE_COUNTS


def _pending(t) -> bool:
    """Whether the tensor's value is still to be computed (checked without computing it)."""
    return deferred.pending(t._storage._array)


def _warm(fn, times: int = 2):
    """Dispatch decides an op's kernel on its first call and defers from the second on."""
    for _ in range(times):
        fn()
    return fn()


def test_recorded_results_are_deferred_and_read_correctly():
    x = pt.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = _warm(lambda: (x * 3).sin() + x)
    assert _pending(y)
    assert y.shape == (3,) and y.dtype is pt.float32
    expected = np.sin(np.float32(3) * x.detach().numpy()) + x.detach().numpy()
    np.testing.assert_allclose(y.detach().numpy(), expected, rtol=1e-6)
    assert not _pending(y)


def test_results_outside_no_grad_and_autograd_are_computed_at_once():
    x = pt.tensor([1.0, 2.0])
    y = _warm(lambda: x * 3)
    assert not _pending(y)


def test_no_grad_results_are_deferred_and_computed_together_when_read():
    x = pt.tensor([0.5, -1.0, 2.0])

    def evaluate():
        with pt.no_grad():
            hidden = (x * 3).sin()
            return hidden, (hidden + x).exp() - 1

    hidden, out = _warm(evaluate)
    assert _pending(hidden) and _pending(out)
    expected_hidden = np.sin(np.float32(3) * x.numpy())
    np.testing.assert_allclose(out.numpy(), np.exp(expected_hidden + x.numpy()) - 1, rtol=1e-6)
    assert not _pending(hidden)  # held by a tensor, so kept from the same computation
    np.testing.assert_allclose(hidden.numpy(), expected_hidden, rtol=1e-6)


def test_a_no_grad_program_compiles_once_it_comes_back():
    x = pt.tensor([0.25, 1.5])

    def evaluate():
        with pt.no_grad():
            return tuple(((x * 2 + 1).tanh() * 3).tolist())

    values = [evaluate() for _ in range(2 + deferred._sightings_before_compiling(4))]
    before = TRACE_COUNTS["deferred.program"]
    values += [evaluate() for _ in range(5)]
    assert TRACE_COUNTS["deferred.program"] == before  # compiled by then, and not again
    assert len(set(values)) == 1
    np.testing.assert_allclose(values[0], np.tanh(x.numpy() * 2 + 1) * 3, rtol=1e-6)


def test_no_grad_inplace_changes_are_pending_writes_seen_by_every_reader():
    w = pt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    row = w[1]
    version = w._version
    for _ in range(3):
        with pt.no_grad():
            w.mul_(2)
            w -= 0.5 * pt.ones(2, 2)
    assert _pending(w)
    assert w._version == version + 6
    expected = np.array([[1.0, 2.0], [3.0, 4.0]])
    for _ in range(3):
        expected = expected * 2 - 0.5
    np.testing.assert_array_equal(row.detach().numpy(), expected[1])  # a view reads the pending value
    np.testing.assert_array_equal(w.detach().numpy(), expected)
    assert not _pending(w)


def test_reading_any_value_computes_the_pending_writes_too():
    a, b = pt.zeros(3), pt.ones(3)
    for _ in range(3):
        with pt.no_grad():
            a.add_(1)
            b.mul_(3)
    assert _pending(a) and _pending(b)
    c = pt.tensor([2.0, 1.0, 0.0])
    with pt.no_grad():
        total = (c * 2).sum()
    assert total.item() == 6.0
    assert not _pending(a) and not _pending(b)
    assert a.tolist() == [3.0] * 3 and b.tolist() == [27.0] * 3


def test_writes_into_numpy_shared_and_reinterpreted_memory_are_made_at_once():
    array = np.zeros(3, np.float32)
    shared = pt.from_numpy(array)
    pairs = pt.view_as_real(pt.zeros(2, dtype=pt.complex64))
    for _ in range(3):
        with pt.no_grad():
            shared.add_(1)
            pairs.add_(1)
    assert array.tolist() == [3.0] * 3
    assert pairs.tolist() == [[3.0, 3.0]] * 2


def test_sgd_steps_match_torch_and_the_update_runs_inside_the_next_backward():
    """A hand-written SGD loop: each update is a pending write, computed by the next step's fused backward."""
    def train(lib, steps: int, sync=None):
        generator = np.random.default_rng(0)
        w = lib.tensor(generator.standard_normal((5, 3), dtype=np.float32), requires_grad=True)
        b = lib.zeros(3, requires_grad=True)
        inputs = lib.tensor(generator.standard_normal((8, 5), dtype=np.float32))
        target = lib.tensor(generator.standard_normal((8, 3), dtype=np.float32))
        losses = []
        for _ in range(steps):
            loss = ((inputs @ w + b).tanh() - target).pow(2).mean()
            loss.backward()
            with lib.no_grad():
                for p in (w, b):
                    p -= 0.1 * p.grad
                    p.grad = None
            losses.append(loss.item())
            if sync is not None:
                sync(w, b)
        return losses, w.detach().numpy(), b.detach().numpy()

    pending_after_update = []
    ours = train(pt, 8, lambda w, b: pending_after_update.append(_pending(w) and _pending(b)))
    theirs = train(torch, 8)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-5, atol=1e-6)
    assert all(pending_after_update[-4:])  # loss.item() (filled by the fused backward) left the update pending

    runs = []
    original = fused.run

    def counted(*args, **kwargs):
        runs.append(original(*args, **kwargs))
        return runs[-1]

    fused.run = counted
    try:
        train(pt, 6)
    finally:
        fused.run = original
    assert all(found is not None for found in runs[3:])  # fused from the third step on, updates included


def test_backward_computes_forward_and_gradients_in_one_call_compiled_once():
    def step():
        x = pt.tensor([3.0, -2.0], requires_grad=True)
        y = (x**2 + 2 * x + 1).sum()
        y.backward()
        return x, y

    _warm(step)
    before = dict(TRACE_COUNTS)
    for _ in range(5):
        x, y = step()
    assert dict(TRACE_COUNTS) == before  # neither the ops nor the replay were traced again
    assert not _pending(y)  # the replay returned the forward value too
    assert y.item() == 3.0**2 + 6 + 1 + (-2.0) ** 2 - 4 + 1
    np.testing.assert_array_equal(x.grad.numpy(), [8.0, -2.0])


def test_a_value_read_before_backward_gives_the_same_gradient_as_torch():
    def run(lib):
        x = lib.tensor([0.3, 1.7, -0.4], requires_grad=True)
        for _ in range(3):
            loss = ((x.exp() * x).tanh() - x).pow(2).mean()
        first = loss.item()
        loss.backward()
        return first, x.grad.detach().numpy()

    ours, theirs = run(pt), run(torch)
    assert ours[0] == pytest.approx(theirs[0], rel=1e-6)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)


def test_shape_errors_are_raised_at_the_call():
    a = pt.randn(3, requires_grad=True)
    b = pt.randn(4)
    for _ in range(3):
        with pytest.raises(RuntimeError, match="must match the size"):
            a + b
    m = pt.randn(2, 3, requires_grad=True)
    for _ in range(3):
        with pytest.raises(RuntimeError):
            m @ pt.randn(2, 3)


def test_chains_are_capped_and_match_eager():
    x = pt.tensor([1.0, 2.0], requires_grad=True)
    t = x * 1
    for _ in range(3 * deferred.MAX_DEPTH):
        t = t * 1.01
        assert not _pending(t) or t._storage._array.depth <= deferred.MAX_DEPTH
    eager = x.detach().clone()
    for _ in range(3 * deferred.MAX_DEPTH):
        eager = eager * 1.01
    np.testing.assert_array_equal(t.detach().numpy(), eager.numpy())
    t.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [1.01 ** (3 * deferred.MAX_DEPTH)] * 2, rtol=1e-5)


def test_deferred_values_through_views_detach_inplace_and_numpy():
    x = pt.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = _warm(lambda: x * 2)
    row = y[1]
    detached = y.detach()
    np.testing.assert_array_equal(row.detach().numpy(), [6.0, 8.0])
    with pt.no_grad():
        detached.add_(1)  # shares y's storage, so y sees it
    np.testing.assert_array_equal(y.detach().numpy(), [[3.0, 5.0], [7.0, 9.0]])
    z = _warm(lambda: x + 1)
    z.mul_(10)  # in place on a deferred non-leaf: rebased history, PyTorch's gradient
    z.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.full((2, 2), 10.0))


def test_autograd_grad_and_hooks_see_deferred_inputs():
    def run(lib, hook: bool):
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        y = x.sin() * x
        seen = []
        if hook:
            y.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
        (g,) = lib.autograd.grad(y.sum(), x)
        return g.detach().numpy(), seen

    for hook in (False, True):
        _warm(lambda: run(pt, hook))
        ours, theirs = run(pt, hook), run(torch, hook)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
        assert len(ours[1]) == len(theirs[1])


def test_a_graph_is_fused_when_its_structure_comes_back(monkeypatch):
    """The first backward of a structure walks it node by node; the second compiles the fused replay. (The first
    call of each op signature runs eagerly to decide its result's dtype and layout, so the first step's graph, with
    no deferred values, is a structure of its own.)"""
    def step(values):
        x = pt.tensor(values, requires_grad=True)
        (x.cos() * x).sum().backward()
        return x.grad.numpy()

    runs = []
    original = fused.run
    monkeypatch.setattr(fused, "run", lambda *a, **k: runs.append(original(*a, **k)) or runs[-1])
    results = [step([[0.25, -1.5, 3.0]]) for _ in range(4)]
    assert [found is not None for found in runs] == [False, False, True, True]
    for r in results:
        np.testing.assert_allclose(r, results[0], rtol=1e-6)


def test_a_graph_over_the_size_limit_is_never_fused(monkeypatch):
    monkeypatch.setattr(fused, "MAX_NODES", 8)
    runs = []
    monkeypatch.setattr(fused, "run", lambda *a, **k: runs.append(a))
    x = pt.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(3):
        y = x
        for _ in range(10):
            y = y * 1.5
        y.sum().backward()
    assert runs == []
    np.testing.assert_allclose(x.grad.numpy(), [3 * 1.5**10] * 2, rtol=1e-6)


def test_views_read_by_a_recorded_op_are_read_inside_the_deferred_program():
    """A view operand of a deferred call is read lazily too (no XLA call of its own), and still right."""
    base = pt.arange(12.0).reshape(3, 4)
    x = base.clone().requires_grad_()
    index = pt.tensor([0, 3, 2])

    def step():
        return x[:, 1:3].sum(1) * 1 + x.gather(1, index.unsqueeze(1)).squeeze(1)

    y = _warm(step)
    assert _pending(y)
    reads = [a for a in y._storage._array.inputs[0].inputs[0].inputs if deferred.pending(a)]
    assert reads and all(type(r.kernel).__name__ == "ViewRead" for r in reads)
    y.sum().backward()
    assert y.tolist() == (base[:, 1:3].sum(1) + base.gather(1, index.unsqueeze(1)).squeeze(1)).tolist()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0], [0.0, 1.0, 2.0, 0.0]]


@pytest.mark.parametrize("make_view", [
    lambda y: y.view(-1), lambda y: y.t()[1:], lambda y: y.t()[1:].sum(0), lambda y: y.permute(1, 0).exp(), lambda y: y.reshape(4, 3).unsqueeze(0), lambda y: y[:, ::2],
    lambda y: y.unbind(1)[2], lambda y: y.split(2)[1], lambda y: y.flatten().narrow(0, 2, 5).expand(2, 5),
])
def test_a_view_of_a_pending_recorded_value_leaves_it_pending(make_view):
    """Taking a view (a model's `x.view(x.size(0), -1)`) must not compute the forward so far op by op: the view
    reads nothing of its base for backward, so the whole chain stays for the fused backward; an elementwise result
    laid out as a transposed operand (PyTorch's strides, checked) stays pending too."""
    def step(lib, x):
        y = (x * 2).sin()
        out = make_view(y) * 3
        return y, out

    x = pt.tensor(np.arange(12.0, dtype=np.float32).reshape(3, 4) / 7, requires_grad=True)
    for _ in range(2):
        step(pt, x)
    y, out = step(pt, x)
    assert _pending(y) and _pending(out)
    out.sum().backward()
    tx = torch.tensor(x.detach().numpy(), requires_grad=True)
    ty, tout = step(torch, tx)
    tout.sum().backward()
    assert out.stride() == tout.stride()
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)


def test_a_transposed_elementwise_result_under_no_grad_is_deferred_with_pytorchs_layout():
    x = pt.tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    with pt.no_grad():
        for _ in range(2):
            x.t() * 2 + 1
        y = x.t() * 2
        z = y + 1
        assert _pending(y) and _pending(z)
    expected = torch.tensor(x.numpy()).t() * 2
    assert (y.stride(), z.stride()) == (expected.stride(), (expected + 1).stride())
    np.testing.assert_array_equal(z.numpy(), (expected + 1).numpy())
    np.testing.assert_array_equal(y.numpy(), expected.numpy())


def test_cuda_synchronize_computes_the_values_deferred_under_no_grad(monkeypatch):
    """Code timed between two synchronize() calls must be timed whole (the GPU is faked by the CPU device)."""
    monkeypatch.setattr(pt.cuda, "_gpu", lambda device=None: pt.tensor(0.0)._value().devices().pop())
    x = pt.randn(4, 4)
    for _ in range(3):
        with pt.no_grad():
            y = x @ x
    assert _pending(y)
    pt.cuda.synchronize()
    assert not _pending(y)
    np.testing.assert_allclose(y.numpy(), x.numpy() @ x.numpy(), rtol=1e-5)


def test_multi_output_results_under_no_grad_are_deferred_and_right():
    x = pt.tensor([[0.5, 3.0, -1.0], [2.0, 2.0, 7.0]])

    def evaluate():
        with pt.no_grad():
            values, indices = (x * 2).max(1)
            return values, indices, pt.sort(x, dim=1, descending=True)

    values, indices, (ordered, order) = _warm(evaluate)
    assert _pending(values) and _pending(indices) and _pending(ordered)
    reference = torch.tensor(x.numpy())
    expected = (reference * 2).max(1)
    assert values.tolist() == expected.values.tolist() and indices.tolist() == expected.indices.tolist()
    assert indices.dtype is pt.int64
    assert ordered.tolist() == reference.sort(dim=1, descending=True).values.tolist()
    assert order.tolist() == reference.sort(dim=1, descending=True).indices.tolist()


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_an_optimizer_step_is_a_pending_write_computed_by_the_next_backward(optimizer):
    def train(lib, steps: int, pending=None):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
        options = {"lr": 0.1, "momentum": 0.9} if optimizer == "SGD" else {"lr": 0.01}
        opt = getattr(lib.optim, optimizer)(model.parameters(), **options)
        inputs, target = lib.randn(16, 4), lib.randn(16, 2)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(inputs), target)
            loss.backward()
            opt.step()
            losses.append(loss.item())
            if pending is not None:
                pending.append(all(_pending(p) for p in model.parameters()))
        return losses, [p.detach().numpy() for p in model.parameters()]

    pending = []
    ours, theirs = train(pt, 8, pending), train(torch, 8)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    for a, b in zip(ours[1], theirs[1]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert all(pending[-3:])  # loss.item() came from the backward; the update waits for the next one


def test_a_recorded_value_read_before_backward_rounds_as_the_eager_call():
    """Reading a recorded chain computes it op by op (a compiled program may fuse the bias add into the matmul and
    round differently), so repeated calls give the first, eager call's values bit for bit."""
    pt.manual_seed(0)
    layer = pt.nn.Linear(7, 5)
    x = pt.randn(3, 7)
    values = [pt.nn.functional.linear(x, layer.weight, layer.bias).tolist() for _ in range(6)]
    assert all(v == values[0] for v in values)


def test_an_array_read_in_several_places_is_one_argument_of_the_program():
    """Each argument of an XLA call costs microseconds, so the program reads an array used many times once; which
    values are the same array is part of the cached program's key, so a program is reused only where that holds."""
    x = pt.tensor([1.5, -2.0], requires_grad=True)
    same = _warm(lambda: x * x * x)._storage._array
    program, leaves, refs, computed = deferred.flatten([[same]])
    assert len(computed) == 2 and len(leaves) == 1 and refs == ((-2,),)
    other = pt.tensor([1.5, -2.0], requires_grad=True)
    mixed = _warm(lambda: x * other * x)._storage._array
    mixed_program, mixed_leaves, _, _ = deferred.flatten([[mixed]])
    assert len(mixed_leaves) == 2 and mixed_program != program

    def step(a, b):
        (a * b * a).sum().backward()

    for a, b in [(x, x), (x, other)] * 3:  # both patterns compile once each, and keep their own gradients
        a.grad = b.grad = None
        step(a, b)
        ta, tb = torch.tensor([1.5, -2.0], requires_grad=True), torch.tensor([1.5, -2.0], requires_grad=True)
        (ta * (ta if b is a else tb) * ta).sum().backward()
        np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
        if b is not a:
            np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-6)
    before = TRACE_COUNTS["backward.fused"]
    for a, b in [(x, x), (x, other)] * 2:
        a.grad = b.grad = None
        step(a, b)
    assert TRACE_COUNTS["backward.fused"] == before
