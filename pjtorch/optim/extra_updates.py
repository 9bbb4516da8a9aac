"""Update rules of ASGD, Adafactor and Muon as pure JAX functions.

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
from .updates import _lerp, _split


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


def _bf16(x):
    """A bfloat16 kernel's result: computed in float32, rounded once."""
    return x.astype(jnp.bfloat16)


def _matmul(a, b):
    """A float32 product at full precision (a GPU would otherwise round the operands to TF32)."""
    return jnp.matmul(a, b, precision=lax.Precision.HIGHEST)


def _newton_schulz(update, coefficients: tuple, steps: int, eps: float):
    """The nearest semi-orthogonal matrix, approximately: `steps` quintic Newton-Schulz iterations in bfloat16 on
    the wide orientation, each product rounded to bfloat16 as PyTorch's bfloat16 matmuls and addmms are."""
    a, b, c = coefficients
    x = update.astype(jnp.bfloat16)
    tall = x.shape[0] > x.shape[1]
    norm = _bf16(jnp.sqrt(jnp.sum(jnp.square(x.astype(jnp.float32)))))
    x = _bf16(x.astype(jnp.float32) / _bf16(norm.astype(jnp.float32) + eps).astype(jnp.float32))
    x = x.T if tall else x
    for _ in range(steps):
        xf = x.astype(jnp.float32)
        gram = _bf16(_matmul(xf, xf.T)).astype(jnp.float32)
        poly = _bf16(b * gram + c * _matmul(gram, gram)).astype(jnp.float32)
        x = _bf16(a * xf + _matmul(poly, xf))
    return x.T if tall else x


def _lr_ratio(shape: tuple, adjust_lr_fn: str | None) -> tuple:
    """(factor on lr, factor on sqrt): Keller's sqrt(max(1, rows/cols)), or Moonshot's 0.2 * sqrt(max(rows, cols))."""
    rows, cols = shape
    if adjust_lr_fn == "match_rms_adamw":
        return 0.2, max(rows, cols) ** 0.5
    return 1.0, max(1, rows / cols) ** 0.5


def _muon(lr, *arrays, count, weight_decay, momentum, nesterov, ns_coefficients, eps, ns_steps, adjust_lr_fn):
    params, grads, buffers = _split(arrays, count)
    lr64 = lr.astype(jnp.float64)
    rows = []
    for param, grad, buffer in zip(params, grads, buffers):
        buffer = _lerp(buffer, grad, 1 - momentum)
        update = _lerp(grad, buffer, momentum) if nesterov else buffer
        orthogonal = _newton_schulz(update, ns_coefficients, ns_steps, eps)
        param = param * (1 - lr64 * weight_decay).astype(param.dtype)
        scale, root = _lr_ratio(param.shape, adjust_lr_fn)
        param = param + (-(scale * lr64) * root).astype(param.dtype) * orthogonal.astype(param.dtype)
        rows.append((param, buffer))
    return _collect(*rows)


ASGD_UPDATE = Op("asgd_update", _asgd, saves=SAVES_NOTHING, promote="none")
ADAFACTOR_UPDATE = Op("adafactor_update", _adafactor, saves=SAVES_NOTHING, promote="none")
MUON_UPDATE = Op("muon_update", _muon, saves=SAVES_NOTHING, promote="none")
