"""Gradient clipping: the total norm over all gradients, and every gradient rescaled, in one op."""
from __future__ import annotations

import warnings

import jax.numpy as jnp

from ... import dispatch, linalg
from ...autograd import grad_mode
from ...ops.registry import Op, SAVES_NOTHING
from ...tensor import factories, functions
from ...tensor.tensor import Tensor
from .._utils import static


def _norm(grads, norm_type):
    if norm_type == float("inf"):
        return jnp.max(jnp.stack([jnp.max(jnp.abs(g)).astype(jnp.float32) for g in grads]))
    per_grad = [jnp.sum(jnp.abs(g.astype(jnp.float32)) ** norm_type) for g in grads]
    return jnp.sum(jnp.stack(per_grad)) ** (1.0 / norm_type)


def _clip_by_norm(*grads, max_norm, norm_type):
    """(total norm, grads scaled by min(1, max_norm / (norm + 1e-6)))."""
    total = _norm(grads, norm_type)
    scale = jnp.minimum(max_norm / (total + 1e-6), 1.0)
    return (total, *(g * scale.astype(g.dtype) for g in grads))


def _clip_by_value(*grads, clip_value):
    return tuple(jnp.clip(g, -clip_value, clip_value) for g in grads)


CLIP_BY_NORM = Op("clip_grad_norm", _clip_by_norm, saves=SAVES_NOTHING, promote="none")
CLIP_BY_VALUE = Op("clip_grad_value", _clip_by_value, saves=SAVES_NOTHING, promote="none")


def _grads(parameters) -> list:
    parameters = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p for p in parameters if p.grad is not None]


def _check_finite(total: Tensor, norm_type: float) -> None:
    if not bool(total.isfinite()):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, "
                           "so it cannot be clipped. To disable this error and scale the gradients by the "
                           "non-finite norm anyway, set `error_if_nonfinite=False`")


def get_total_norm(tensors, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    """The norm of the per-tensor norms, i.e. the norm of all `tensors` concatenated (the first half of
    clip_grad_norm_, for callers that combine norms themselves)."""
    tensors = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if not tensors:
        return factories.tensor(0.0)
    norm_type = float(norm_type)
    with grad_mode.no_grad():
        norms = [linalg.vector_norm(t, norm_type) for t in tensors]
        total = linalg.vector_norm(functions.stack(norms), norm_type)
    if error_if_nonfinite:
        _check_finite(total, norm_type)
    return total


def clip_grads_with_norm_(parameters, max_norm: float, total_norm: Tensor, foreach: bool | None = None) -> None:
    """Scale every gradient by min(1, max_norm / (total_norm + 1e-6)) (the second half of clip_grad_norm_)."""
    params = _grads(parameters)
    if not params:
        return
    with grad_mode.no_grad():
        scale = (float(max_norm) / (total_norm + 1e-6)).clamp(max=1.0)
        for param in params:
            param.grad.mul_(scale)


def clip_grad_norm_(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                    foreach: bool | None = None) -> Tensor:
    """Rescales gradients in place so their joint norm is at most max_norm; returns the norm before clipping."""
    params = _grads(parameters)
    if not params:
        return factories.tensor(0.0)
    norm_type = float(norm_type)
    with grad_mode.no_grad():
        total, *clipped = dispatch.apply(CLIP_BY_NORM, tuple(p.grad for p in params),
                                         static(max_norm=float(max_norm), norm_type=norm_type))
        if error_if_nonfinite:
            _check_finite(total, norm_type)
        for param, grad in zip(params, clipped):
            param.grad.copy_(grad)
    return total


def clip_grad_norm(parameters, max_norm: float, norm_type: float = 2.0, error_if_nonfinite: bool = False,
                   foreach: bool | None = None) -> Tensor:
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
                  FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value: float, foreach: bool | None = None) -> None:
    params = _grads(parameters)
    if not params:
        return
    with grad_mode.no_grad():
        clipped = dispatch.apply(CLIP_BY_VALUE, tuple(p.grad for p in params), static(clip_value=float(clip_value)))
        for param, grad in zip(params, clipped if isinstance(clipped, tuple) else (clipped,)):
            param.grad.copy_(grad)
