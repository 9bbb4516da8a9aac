"""Update rules of Adagrad, Adamax, NAdam, RAdam, Adadelta and Rprop as pure JAX functions.

Same conventions as `updates`: `lr` first (dynamic), then flat lists of `count` params, grads
and state arrays; the new params and state come back in that order. Each follows PyTorch's
single-tensor implementation step by step, with Python-double scalars computed in float64.
"""
from __future__ import annotations

import jax.numpy as jnp

from ..ops.registry import Op, SAVES_NOTHING
from .updates import _lerp, _split


def _decay(param, grad, lr, weight_decay, decoupled):
    """L2 penalty added to the gradient, or (decoupled) the parameter shrunk by lr * weight_decay."""
    if weight_decay == 0:
        return param, grad
    if decoupled:
        return param * (1 - lr.astype(jnp.float64) * weight_decay).astype(param.dtype), grad
    return param, grad + weight_decay * param


def _collect(*rows) -> tuple:
    """Per-parameter result tuples regrouped as all params, then each state in turn."""
    return tuple(value for column in zip(*rows) for value in column)


def _adagrad(lr, *arrays, count, lr_decay, weight_decay, eps, maximize):
    params, grads, steps, sums = _split(arrays, count)
    rows = []
    for param, grad, step, total in zip(params, grads, steps, sums):
        grad = -grad if maximize else grad
        step = step + 1
        param, grad = _decay(param, grad, lr, weight_decay, False)
        clr = lr.astype(jnp.float64) / (1 + (step.astype(jnp.float64) - 1) * lr_decay)
        total = total + grad * grad
        param = param + (-clr).astype(param.dtype) * (grad / (jnp.sqrt(total) + eps))
        rows.append((param, step, total))
    return _collect(*rows)


def _adamax(lr, *arrays, count, beta1, beta2, eps, weight_decay, maximize):
    params, grads, steps, exp_avgs, exp_infs = _split(arrays, count)
    rows = []
    for param, grad, step, exp_avg, exp_inf in zip(params, grads, steps, exp_avgs, exp_infs):
        grad = -grad if maximize else grad
        step = step + 1
        param, grad = _decay(param, grad, lr, weight_decay, False)
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_inf = jnp.maximum(exp_inf * beta2, jnp.abs(grad) + eps)
        clr = lr.astype(jnp.float64) / (1 - beta1 ** step.astype(jnp.float64))
        param = param + (-clr).astype(param.dtype) * (exp_avg / exp_inf)
        rows.append((param, step, exp_avg, exp_inf))
    return _collect(*rows)


def _nadam(lr, *arrays, count, beta1, beta2, eps, weight_decay, momentum_decay, maximize, decoupled_weight_decay):
    params, grads, steps, mu_products, exp_avgs, exp_avg_sqs = _split(arrays, count)
    rows = []
    lr64 = lr.astype(jnp.float64)
    for param, grad, step, mu_product, exp_avg, exp_avg_sq in zip(params, grads, steps, mu_products, exp_avgs,
                                                                  exp_avg_sqs):
        grad = -grad if maximize else grad
        step = step + 1
        count_ = step.astype(jnp.float64)
        param, grad = _decay(param, grad, lr, weight_decay, decoupled_weight_decay)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (count_ * momentum_decay))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((count_ + 1) * momentum_decay))
        mu_product = mu_product * mu.astype(mu_product.dtype)
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
        denom = jnp.sqrt(exp_avg_sq / (1 - beta2 ** count_).astype(param.dtype)) + eps
        product = mu_product.astype(jnp.float64)
        param = param + (-lr64 * (1.0 - mu) / (1.0 - product)).astype(param.dtype) * (grad / denom)
        param = param + (-lr64 * mu_next / (1.0 - product * mu_next)).astype(param.dtype) * (exp_avg / denom)
        rows.append((param, step, mu_product, exp_avg, exp_avg_sq))
    return _collect(*rows)


def _radam(lr, *arrays, count, beta1, beta2, eps, weight_decay, maximize, decoupled_weight_decay):
    params, grads, steps, exp_avgs, exp_avg_sqs = _split(arrays, count)
    rows = []
    lr64 = lr.astype(jnp.float64)
    rho_inf = 2 / (1 - beta2) - 1
    for param, grad, step, exp_avg, exp_avg_sq in zip(params, grads, steps, exp_avgs, exp_avg_sqs):
        grad = -grad if maximize else grad
        step = step + 1
        count_ = step.astype(jnp.float64)
        param, grad = _decay(param, grad, lr, weight_decay, decoupled_weight_decay)
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
        correction1, correction2 = 1 - beta1 ** count_, 1 - beta2 ** count_
        corrected = exp_avg / correction1.astype(param.dtype)
        rho_t = rho_inf - 2 * count_ * beta2 ** count_ / correction2
        safe_rho = jnp.maximum(rho_t, 5.0 + 1e-6)
        rect = jnp.sqrt((safe_rho - 4) * (safe_rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * safe_rho))
        adaptive = jnp.sqrt(correction2).astype(param.dtype) / (jnp.sqrt(exp_avg_sq) + eps)
        rectified = corrected * lr64.astype(param.dtype) * adaptive * rect.astype(param.dtype)
        plain = corrected * lr64.astype(param.dtype)
        param = param - jnp.where(rho_t > 5.0, rectified, plain)
        rows.append((param, step, exp_avg, exp_avg_sq))
    return _collect(*rows)


def _adadelta(lr, *arrays, count, rho, eps, weight_decay, maximize):
    params, grads, steps, square_avgs, acc_deltas = _split(arrays, count)
    rows = []
    for param, grad, step, square_avg, acc_delta in zip(params, grads, steps, square_avgs, acc_deltas):
        grad = -grad if maximize else grad
        step = step + 1
        param, grad = _decay(param, grad, lr, weight_decay, False)
        square_avg = square_avg * rho + (1 - rho) * grad * grad
        delta = jnp.sqrt(acc_delta + eps) / jnp.sqrt(square_avg + eps) * grad
        acc_delta = acc_delta * rho + (1 - rho) * delta * delta
        param = param + (-lr).astype(param.dtype) * delta
        rows.append((param, step, square_avg, acc_delta))
    return _collect(*rows)


def _rprop(lr, *arrays, count, etaminus, etaplus, step_size_min, step_size_max, maximize):
    params, grads, steps, prevs, step_sizes = _split(arrays, count)
    rows = []
    for param, grad, step, prev, step_size in zip(params, grads, steps, prevs, step_sizes):
        grad = -grad if maximize else grad
        step = step + 1
        sign = jnp.sign(grad * prev)
        factor = jnp.where(sign > 0, etaplus, jnp.where(sign < 0, etaminus, 1.0)).astype(param.dtype)
        step_size = jnp.clip(step_size * factor, step_size_min, step_size_max)
        grad = jnp.where(sign < 0, jnp.zeros((), grad.dtype), grad)
        param = param - jnp.sign(grad) * step_size
        rows.append((param, step, grad, step_size))
    return _collect(*rows)


ADAGRAD_UPDATE = Op("adagrad_update", _adagrad, saves=SAVES_NOTHING, promote="none")
ADAMAX_UPDATE = Op("adamax_update", _adamax, saves=SAVES_NOTHING, promote="none")
NADAM_UPDATE = Op("nadam_update", _nadam, saves=SAVES_NOTHING, promote="none")
RADAM_UPDATE = Op("radam_update", _radam, saves=SAVES_NOTHING, promote="none")
ADADELTA_UPDATE = Op("adadelta_update", _adadelta, saves=SAVES_NOTHING, promote="none")
RPROP_UPDATE = Op("rprop_update", _rprop, saves=SAVES_NOTHING, promote="none")
