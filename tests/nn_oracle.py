"""Real PyTorch as the oracle for the nn, optim and data suites.

A module case is a function of the library's `nn` (`lambda nn: nn.Linear(5, 3)`), built under
both libraries; pjtorch's copy is given PyTorch's initial state_dict through NumPy, both run on
the same input, and `check_module` compares the output, the grad_fn name, the input gradient
and every parameter's gradient (and the buffers, which BatchNorm updates).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import pjtorch as pt  # noqa: E402

LIBS = (torch, pt)
RTOL, ATOL = 2e-5, 2e-6


def to_pj(t, requires_grad: bool | None = None):
    """A pjtorch tensor with a torch tensor's values and dtype (and, by default, its requires_grad)."""
    values = t.detach().cpu().numpy()
    result = pt.tensor(values, dtype=getattr(pt, str(t.dtype).split(".")[1]))
    wanted = t.requires_grad if requires_grad is None else requires_grad
    return result.requires_grad_(True) if wanted else result


def values(t) -> np.ndarray:
    """Host values of either library's tensor (bfloat16 widened to float32)."""
    t = t.detach()
    if str(t.dtype).endswith("bfloat16"):
        t = t.float()
    return np.asarray(t.tolist())


def assert_close(ours, theirs, rtol: float = RTOL, atol: float = ATOL, what: str = "") -> None:
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype {ours.dtype} != {theirs.dtype}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    np.testing.assert_allclose(values(ours), values(theirs), rtol=rtol, atol=atol, err_msg=what)


def copy_state(source, target) -> None:
    """Loads a torch module's state_dict into the pjtorch module (every key must match)."""
    target.load_state_dict({key: to_pj(value, requires_grad=False) for key, value in source.state_dict().items()})


def grad_fn_name(t) -> str | None:
    return None if t.grad_fn is None else type(t.grad_fn).__name__


def outputs_of(result) -> list:
    return [r for r in (result if isinstance(result, tuple) else (result,)) if r is not None]


def check_module(make: Callable, inputs: list, *, train: bool = True, grad_fn: bool = True,
                 rtol: float = RTOL, atol: float = ATOL, seed: int = 0) -> None:
    """Same output, grad_fn, input and parameter gradients and buffers as PyTorch, from the same weights."""
    torch.manual_seed(seed)
    theirs_module, ours_module = make(torch.nn), make(pt.nn)
    copy_state(theirs_module, ours_module)
    theirs_module.train(train)
    ours_module.train(train)
    theirs_inputs = [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]
    ours_inputs = [to_pj(x) for x in theirs_inputs]
    theirs_out, ours_out = outputs_of(theirs_module(*theirs_inputs)), outputs_of(ours_module(*ours_inputs))
    assert len(ours_out) == len(theirs_out)
    for ours, theirs in zip(ours_out, theirs_out):
        assert_close(ours, theirs, rtol, atol, "output")
        if grad_fn:
            assert grad_fn_name(ours) == grad_fn_name(theirs)
    generator = np.random.default_rng(seed + 1)
    cotangents = [generator.standard_normal(tuple(t.shape)).astype(np.float32) for t in theirs_out]
    sum(t.mul(torch.from_numpy(c).to(t.dtype)).sum() for t, c in zip(theirs_out, cotangents)).backward()
    sum(t.mul(pt.tensor(c).to(t.dtype)).sum() for t, c in zip(ours_out, cotangents)).backward()
    for ours, theirs in zip(ours_inputs, theirs_inputs):
        if theirs.grad is not None:
            assert_close(ours.grad, theirs.grad, rtol, atol, "input grad")
    ours_params = dict(ours_module.named_parameters())
    for name, param in theirs_module.named_parameters():
        assert (ours_params[name].grad is None) == (param.grad is None), name
        if param.grad is not None:
            assert_close(ours_params[name].grad, param.grad, rtol, atol, f"grad of {name}")
    ours_buffers = dict(ours_module.named_buffers())
    for name, buffer in theirs_module.named_buffers():
        assert_close(ours_buffers[name], buffer, rtol, atol, f"buffer {name}")


def raised(call: Callable) -> tuple:
    """(exception type name, message) of what `call` raises, or ('ok', None)."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the exception is what gets compared
        return type(error).__name__, str(error)
    return "ok", None


def same_error(case: Callable) -> None:
    """`case(lib)` raises the same exception type with the same message under both libraries."""
    theirs, ours = raised(lambda: case(torch)), raised(lambda: case(pt))
    assert theirs[0] != "ok", "PyTorch did not raise"
    assert ours == theirs


def host(value):
    """Either library's result as NumPy: tensors as float arrays, through lists, tuples and dicts."""
    if isinstance(value, (torch.Tensor, pt.Tensor)):
        return np.asarray(value.detach().tolist(), dtype=float)
    if isinstance(value, (list, tuple)):
        return [host(v) for v in value]
    if isinstance(value, dict):
        return {k: host(v) for k, v in value.items()}
    return np.asarray(value, dtype=float) if isinstance(value, float) else value


def _assert_same_values(ours, theirs, rtol: float, atol: float) -> None:
    if isinstance(theirs, list):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _assert_same_values(a, b, rtol, atol)
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs)
        for key in theirs:
            _assert_same_values(ours[key], theirs[key], rtol, atol)
    elif isinstance(theirs, np.ndarray):
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)
    else:
        assert ours == theirs


def same_values(case: Callable, *, rtol: float, atol: float) -> None:
    """`case(lib)` returns the same nested values (floats within tolerance, the rest equal) under both libraries."""
    _assert_same_values(host(case(pt)), host(case(torch)), rtol, atol)
