"""The optimizers' update rules as pure JAX functions, one Op each over a whole parameter group.

Each takes `lr` (dynamic, so a scheduler never forces a recompile), then the group's params,
grads and state arrays as flat lists of `count` each, and returns the new params and state in
the same order. The arithmetic follows PyTorch's single-tensor implementations operation by
operation (lerp's two branches, addcmul/addcdiv evaluation order, Python-double bias
corrections), so results agree with PyTorch to float rounding. One call updates every
parameter: an optimizer step is one XLA execution however many parameters there are.
"""
from __future__ import annotations

import jax.numpy as jnp

from ..ops.registry import Op, SAVES_NOTHING


def _split(arrays: tuple, count: int) -> list:
    return [list(arrays[i:i + count]) for i in range(0, len(arrays), count)]


def _lerp(start, end, weight: float):
    """torch.lerp's CPU formula: which end it measures from depends on the weight."""
    if weight < 0.5:
        return start + weight * (end - start)
    return end - (end - start) * (1 - weight)


def _sgd(lr, *arrays, count, momentum, dampening, nesterov, weight_decay, maximize, has_buffers):
    params, grads, *rest = _split(arrays, count)
    buffers = rest[0] if has_buffers else [None] * count
    new_params, new_buffers = [], []
    for param, grad, buffer in zip(params, grads, buffers):
        grad = -grad if maximize else grad
        if weight_decay != 0:
            grad = grad + weight_decay * param
        if momentum != 0:
            buffer = grad if buffer is None else buffer * momentum + (1 - dampening) * grad
            new_buffers.append(buffer)
            grad = grad + momentum * buffer if nesterov else buffer
        new_params.append(param + (-lr).astype(param.dtype) * grad)
    return (*new_params, *new_buffers)


def _adam(lr, *arrays, count, beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay):
    params, grads, steps, exp_avgs, exp_avg_sqs, *rest = _split(arrays, count)
    max_sqs = rest[0] if amsgrad else [None] * count
    outputs = [[], [], [], [], []]
    for param, grad, step, exp_avg, exp_avg_sq, max_sq in zip(params, grads, steps, exp_avgs, exp_avg_sqs, max_sqs):
        grad = -grad if maximize else grad
        step = step + 1
        if weight_decay != 0:
            if decoupled_weight_decay:
                param = param * (1 - lr.astype(jnp.float64) * weight_decay).astype(param.dtype)
            else:
                grad = grad + weight_decay * param
        exp_avg = _lerp(exp_avg, grad, 1 - beta1)
        exp_avg_sq = exp_avg_sq * beta2 + (1 - beta2) * grad * grad
        count_ = step.astype(jnp.float64)
        step_size = lr.astype(jnp.float64) / (1 - beta1 ** count_)
        correction2_sqrt = jnp.sqrt(1 - beta2 ** count_).astype(param.dtype)
        if amsgrad:
            max_sq = jnp.maximum(max_sq, exp_avg_sq)
            outputs[4].append(max_sq)
        denom = jnp.sqrt(exp_avg_sq if max_sq is None else max_sq) / correction2_sqrt + eps
        param = param + (-step_size).astype(param.dtype) * exp_avg / denom
        for out, value in zip(outputs, (param, step, exp_avg, exp_avg_sq)):
            out.append(value)
    return tuple(value for out in outputs for value in out)


def _rmsprop(lr, *arrays, count, alpha, eps, weight_decay, momentum, centered, maximize):
    params, grads, steps, square_avgs, *rest = _split(arrays, count)
    rest = iter(rest)
    buffers = next(rest) if momentum > 0 else [None] * count
    grad_avgs = next(rest) if centered else [None] * count
    outputs = [[], [], [], [], []]
    for param, grad, step, square_avg, buffer, grad_avg in zip(params, grads, steps, square_avgs, buffers, grad_avgs):
        grad = -grad if maximize else grad
        step = step + 1
        if weight_decay != 0:
            grad = grad + weight_decay * param
        square_avg = square_avg * alpha + (1 - alpha) * grad * grad
        if centered:
            grad_avg = _lerp(grad_avg, grad, 1 - alpha)
            avg = jnp.sqrt(square_avg + -1 * grad_avg * grad_avg)
        else:
            avg = jnp.sqrt(square_avg)
        avg = avg + eps
        if momentum > 0:
            buffer = buffer * momentum + grad / avg
            param = param + (-lr).astype(param.dtype) * buffer
        else:
            param = param + (-lr).astype(param.dtype) * grad / avg
        for out, value in zip(outputs, (param, step, square_avg, buffer, grad_avg)):
            if value is not None:
                out.append(value)
    return tuple(value for out in outputs for value in out)


SGD_UPDATE = Op("sgd_update", _sgd, saves=SAVES_NOTHING, promote="none")
ADAM_UPDATE = Op("adam_update", _adam, saves=SAVES_NOTHING, promote="none")
RMSPROP_UPDATE = Op("rmsprop_update", _rmsprop, saves=SAVES_NOTHING, promote="none")
