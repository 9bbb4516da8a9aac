"""Activation checkpointing against PyTorch: the same outputs, grad_fns, gradients, recomputation counts and
errors from the same weights, for both variants (reentrant, and the recommended non-reentrant)."""
from __future__ import annotations

import warnings

import pytest

from nn_oracle import assert_close, copy_state, to_pj, torch
import pjtorch as pt
from pjtorch.utils.checkpoint import checkpoint


def _block(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Dropout(0.3), lib.nn.Linear(6, 2))


class Counted:
    """A Linear-Tanh-Linear block (PyTorch's initial weights in both libraries) that counts its forward calls."""

    def __init__(self, lib) -> None:
        self.lib = lib
        torch.manual_seed(0)
        reference = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2))
        self.module = reference if lib is torch else lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(),
                                                                       lib.nn.Linear(6, 2))
        if lib is pt:
            copy_state(reference, self.module)
        self.calls = 0

    def __call__(self, x, scale=1.0):
        self.calls += 1
        return self.module(x) * scale

    def grads(self) -> list:
        return [p.grad for p in self.module.parameters()]


def _input(lib, requires_grad: bool = True):
    torch.manual_seed(1)
    x = torch.randn(3, 4) * 2
    x = x if lib is torch else to_pj(x)
    return (x * 1).requires_grad_() if requires_grad else x


def _both(scenario) -> list:
    """scenario(lib) under PyTorch and pjtorch, PyTorch's result first."""
    return [scenario(lib) for lib in (torch, pt)]


def _assert_same_tensors(theirs: list, ours: list) -> None:
    assert len(ours) == len(theirs)
    for got, want in zip(ours, theirs):
        assert (got is None) == (want is None)
        if want is not None:
            assert_close(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_outputs_grad_fns_and_gradients_match_pytorch(use_reentrant):
    def scenario(lib):
        block, x = Counted(lib), _input(lib)
        out = lib.utils.checkpoint.checkpoint(block, x, use_reentrant=use_reentrant)
        chain = [type(out.grad_fn).__name__] + [type(n).__name__ for n, _ in out.grad_fn.next_functions if n]
        calls_after_forward = block.calls
        out.pow(2).sum().backward()
        return out, chain, (calls_after_forward, block.calls), block.grads() + [x.grad]

    theirs, ours = _both(scenario)
    assert_close(ours[0], theirs[0], rtol=1e-5, atol=1e-6)
    assert ours[1:3] == theirs[1:3]
    assert ours[1][0] == ("CheckpointFunctionBackward" if use_reentrant else "MulBackward0")
    _assert_same_tensors(theirs[3], ours[3])


def test_non_reentrant_works_with_autograd_grad_and_backward_inputs():
    """Only what was asked for gets a gradient: the parameters inside keep .grad None."""
    def scenario(lib):
        block, x = Counted(lib), _input(lib)
        out = checkpoint_of(lib)(block, x, use_reentrant=False)
        (dx,) = lib.autograd.grad(out.sum(), x)
        untouched = all(g is None for g in block.grads())
        out = checkpoint_of(lib)(block, x, use_reentrant=False)
        out.sum().backward(inputs=[x])
        return dx, untouched and all(g is None for g in block.grads()), x.grad, block.calls

    theirs, ours = _both(scenario)
    _assert_same_tensors([theirs[0], theirs[2]], [ours[0], ours[2]])
    assert ours[1] is theirs[1] is True
    assert ours[3] == theirs[3] == 4


def checkpoint_of(lib):
    return lib.utils.checkpoint.checkpoint


def test_non_reentrant_double_backward_matches_pytorch():
    def scenario(lib):
        block, x = Counted(lib), _input(lib)
        out = checkpoint_of(lib)(block, x, use_reentrant=False)
        (dx,) = lib.autograd.grad(out.pow(2).sum(), x, create_graph=True)
        dx.pow(2).sum().backward()
        return [dx.detach(), x.grad] + block.grads()

    theirs, ours = _both(scenario)
    _assert_same_tensors(theirs, ours)


def test_non_reentrant_kwargs_input_without_grad_and_retained_graph_match_pytorch():
    """Keyword arguments reach the function; parameters train when the input needs no grad; a retained graph
    recomputes on every backward."""
    def scenario(lib):
        block, x = Counted(lib), _input(lib, requires_grad=False)
        out = checkpoint_of(lib)(block, x, use_reentrant=False, scale=3.0)
        loss = out.pow(2).sum()
        loss.backward(retain_graph=True)
        loss.backward()
        return [out] + block.grads(), (out.requires_grad, type(out.grad_fn).__name__, block.calls)

    theirs, ours = _both(scenario)
    _assert_same_tensors(theirs[0], ours[0])
    assert ours[1] == theirs[1] == (True, "MulBackward0", 3)


def test_non_reentrant_drops_saved_values_until_backward():
    block = Counted(pt)
    out = checkpoint(block, _input(pt), use_reentrant=False)
    assert out.grad_fn.next_functions[0][0].saved is None
    out.sum().backward()
    assert block.calls == 2


def test_non_reentrant_returns_an_unchanged_input_itself_and_runs_plainly_without_grad():
    def scenario(lib):
        x = _input(lib)
        identity = checkpoint_of(lib)(lambda a: a, x, use_reentrant=False) is x
        with lib.no_grad():
            plain = checkpoint_of(lib)(lambda a: a * 2, x, use_reentrant=False)
        return identity, plain.requires_grad, plain.grad_fn is None

    assert _both(scenario) == [(True, False, True)] * 2


def _error(action) -> tuple:
    with pytest.raises(Exception) as caught:
        action()
    return type(caught.value).__name__, str(caught.value).split("\n")[0][:160]


def test_errors_match_pytorch():
    """Backward twice, an input changed in place, a recomputation that records something else, and options the
    reentrant variant refuses: the same exception and first line as PyTorch."""
    def scenario(lib):
        block = Counted(lib)
        errors = []
        out = checkpoint_of(lib)(block, _input(lib), use_reentrant=False)
        loss = out.sum()
        loss.backward()
        errors.append(_error(loss.backward))
        x = _input(lib)
        out = checkpoint_of(lib)(block, x, use_reentrant=False)
        with lib.no_grad():
            x.mul_(2)
        errors.append(_error(out.sum().backward))
        shapes = iter([3, 2])
        out = checkpoint_of(lib)(lambda a: a[:next(shapes)].exp(), _input(lib), use_reentrant=False)
        errors.append(_error(out.sum().backward))
        errors.append(_error(lambda: checkpoint_of(lib)(block, _input(lib), use_reentrant=True, scale=2.0)))
        errors.append(_error(lambda: checkpoint_of(lib)(block, _input(lib), use_reentrant=True, debug=True)))
        return errors

    theirs, ours = _both(scenario)
    assert ours == theirs


def test_parameters_changed_before_backward_are_recomputed_as_pytorch_does():
    """Non-reentrant checkpointing checks only its inputs' versions: new weights are simply used."""
    def scenario(lib):
        block, x = Counted(lib), _input(lib)
        out = checkpoint_of(lib)(block, x, use_reentrant=False)
        with lib.no_grad():
            block.module[0].weight.mul_(2)
        out.sum().backward()
        return [x.grad] + block.grads()

    theirs, ours = _both(scenario)
    _assert_same_tensors(theirs, ours)


def test_checkpoint_sequential_matches_pytorch():
    def scenario(lib):
        torch.manual_seed(0)
        layers = [torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)]
        model = torch.nn.Sequential(*layers)
        if lib is pt:
            ours = pt.nn.Sequential(pt.nn.Linear(2, 3), pt.nn.ReLU(), pt.nn.Linear(3, 3), pt.nn.Tanh(),
                                    pt.nn.Linear(3, 1))
            copy_state(model, ours)
            model = ours
        x = _input(lib)[:, :2].detach().requires_grad_()
        out = lib.utils.checkpoint.checkpoint_sequential(model, 2, x, use_reentrant=False)
        out.sum().backward()
        return [out, x.grad] + [p.grad for p in model.parameters()]

    theirs, ours = _both(scenario)
    _assert_same_tensors(theirs, ours)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_equal_plain_backward(use_reentrant):
    """Recomputation (with the same dropout mask, by restoring the RNG) gives the same gradients."""
    block = _block(pt)
    x = pt.randn(3, 4, requires_grad=True)
    pt.manual_seed(5)
    plain = block(x)
    plain.pow(2).sum().backward()
    expected = [p.grad.clone() for p in block.parameters()] + [x.grad.clone()]
    block.zero_grad()
    x.grad = None
    pt.manual_seed(5)
    recomputed = checkpoint(block, x, use_reentrant=use_reentrant)
    assert_close(recomputed, plain)
    assert recomputed.grad_fn is not None
    recomputed.pow(2).sum().backward()
    for got, want in zip([p.grad for p in block.parameters()] + [x.grad], expected):
        assert_close(got, want)


def test_checkpoint_warnings_match_pytorch():
    messages = []
    for lib in (torch, pt):
        layer = lib.nn.Linear(2, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.utils.checkpoint.checkpoint(layer, lib.ones(1, 2))
        messages.append(sorted(str(w.message) for w in caught))
    assert messages[0] == messages[1] and len(messages[0]) == 2


