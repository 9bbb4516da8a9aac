"""Update rules of ASGD and Adafactor as pure JAX functions.

Same conventions as `updates`: `lr` first (dynamic), then flat lists of `count` params, grads
and state arrays; the new params and state come back in that order. PyTorch reads the step
count and other scalar state with `.item()` and does the scalar arithmetic in Python doubles;
here those scalars are float64 arrays, so the step count stays dynamic and nothing recompiles.
"""
from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from ..ops.registry import Op, SAVES_NOTHING
from .more_updates import _collect
from .updates import _split


def _lerp_dynamic(start, end, weight):
    """torch.lerp's CPU formula for a weight only known at run time (cast to the tensor's dtype)."""
    weight = weight.astype(start.dtype)
    return jnp.where(weight < 0.5, start + weight * (end - start), end - (end - start) * (1 - weight))


def _asgd(lr, *arrays, count, lambd, alpha, t0, weight_decay, maximize):
    params, grads, steps, etas, mus, axs = _split(arrays, count)
    lr64 = lr.astype(jnp.float64)
    rows = []
    for param, grad, step, eta, mu, ax in zip(params, grads, steps, etas, mus, axs):
        grad = -grad if maximize else grad
        step = step + 1
        if weight_decay != 0:
            grad = grad + weight_decay * param
        eta64 = eta.astype(jnp.float64)
        param = param * (1 - lambd * eta64).astype(param.dtype)
        param = param + (-eta64).astype(param.dtype) * grad
        ax = jnp.where(mu != 1, ax + (param - ax) * mu.astype(param.dtype), param)
        count_ = step.astype(jnp.float64)
        # PyTorch makes the new values float32 tensors (torch.as_tensor of a float) before copying them in.
        eta = (lr64 / (1 + lambd * lr64 * count_) ** alpha).astype(jnp.float32).astype(eta.dtype)
        mu = (1 / jnp.maximum(1.0, count_ - t0)).astype(jnp.float32).astype(mu.dtype)
        rows.append((param, step, eta, mu, ax))
    return _collect(*rows)


def _rms(x):
    """‖x‖₂ / sqrt(numel), as a float64 scalar (PyTorch's `norm(2).item() / numel ** 0.5`)."""
    return jnp.sqrt(jnp.sum(x * x)).astype(jnp.float64) / x.size ** 0.5


def _adafactor(lr, *arrays, count, beta2_decay, eps1, eps2, d, weight_decay, maximize, factored):
    """Factored params keep row and column second-moment statistics of their last two dims; others a full one."""
    params, grads, steps, *moments = _split(arrays, count)
    lr64 = lr.astype(jnp.float64)
    rows = []
    for param, grad, step, *moment in zip(params, grads, steps, *moments):
        grad = -grad if maximize else grad
        step = step + 1
        count_ = step.astype(jnp.float64)
        weight = count_ ** beta2_decay
        rho = jnp.minimum(lr64, 1 / count_ ** 0.5)
        scale = jnp.maximum(eps2, _rms(param)) * rho
        if weight_decay != 0:
            param = param * (1 - lr64 * weight_decay).astype(param.dtype)
        if factored:
            row_var, col_var = moment
            row_var = _lerp_dynamic(row_var, jnp.mean(grad * grad, axis=-1, keepdims=True), weight)
            col_var = _lerp_dynamic(col_var, jnp.mean(grad * grad, axis=-2, keepdims=True), weight)
            estimate = row_var @ col_var / jnp.maximum(jnp.mean(row_var, axis=-2, keepdims=True), eps1)
            moment = (row_var, col_var)
        else:
            moment = (_lerp_dynamic(moment[0], grad * grad, weight),)
            estimate = moment[0]
        update = lax.rsqrt(jnp.maximum(estimate, eps1 * eps1)) * grad
        denom = jnp.maximum(1.0, _rms(update) / d)
        param = param + (-scale / denom).astype(param.dtype) * update
        rows.append((param, step, *moment))
    return _collect(*rows)


ASGD_UPDATE = Op("asgd_update", _asgd, saves=SAVES_NOTHING, promote="none")
ADAFACTOR_UPDATE = Op("adafactor_update", _adafactor, saves=SAVES_NOTHING, promote="none")
