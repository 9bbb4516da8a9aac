"""Loss functions: each one op (log_softmax and nll fused for cross_entropy), with PyTorch's checks."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...ops.pointwise import broadcast_shapes
from ...tensor import dtypes, functions
from ...tensor.tensor import Tensor
from .._utils import legacy_reduction, scalar_name, static

_REDUCTIONS = ("none", "mean", "sum")


def _reduction(size_average, reduce, reduction: str) -> str:
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _warn_if_broadcast(input: Tensor, target: Tensor) -> None:
    """PyTorch's warning for a target of another size, then its error where the two do not broadcast."""
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)
        broadcast_shapes(tuple(input.shape), tuple(target.shape))


def _result_dtype(input: Tensor, target: Tensor):
    return dtypes.promote_types(input.dtype, target.dtype)


def _check_floating_kernel(kernel: str, input: Tensor, target: Tensor) -> None:
    """PyTorch's real-floating-only loss kernels refuse integral, bool and complex operands by their result type."""
    result = _result_dtype(input, target)
    if result.category != dtypes.FLOATING:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(result)}'")


def _check_l1_operands(input: Tensor, target: Tensor, reduction: str) -> None:
    """l1_loss is PyTorch's composite (input - target).abs() then the reduction: bool operands fail the
    subtraction, an integral difference fails mean()."""
    functions._check_subtraction(input, target)
    result = _result_dtype(input, target)
    if reduction == "mean" and result.category < dtypes.FLOATING:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point or "
                           f"complex dtype. Got: {scalar_name(result)}")


def _l1(input: Tensor, target: Tensor, reduction: str) -> Tensor:
    _check_l1_operands(input, target, reduction)
    input, target = cast_inputs("l1_loss", input, target)
    return dispatch.apply(nn_ops.L1_LOSS[reduction], (input, target), static(reduction=reduction))


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    _warn_if_broadcast(input, target)
    _check_floating_kernel("mse_cpu", input, target)
    input, target = cast_inputs("mse_loss", input, target)
    return dispatch.apply(nn_ops.MSE_LOSS, (input, target), static(reduction=reduction))


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    _warn_if_broadcast(input, target)
    return _l1(input, target, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """With beta == 0 PyTorch computes l1_loss instead (its grad_fn shows it)."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_if_broadcast(input, target)
    if beta == 0.0:
        return _l1(input, target, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    _check_floating_kernel("smooth_l1_cpu", input, target)
    input, target = cast_inputs("smooth_l1_loss", input, target)
    return dispatch.apply(nn_ops.SMOOTH_L1_LOSS, (input, target), static(reduction=reduction, beta=float(beta)))


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0) -> Tensor:
    reduction = _reduction(None, None, reduction)
    _warn_if_broadcast(input, target)
    result = _result_dtype(input, target)
    if not dtypes.can_cast(result, input.dtype):
        raise RuntimeError(f"result type {scalar_name(result)} can't be cast to the desired output type "
                           f"{scalar_name(input.dtype)}")
    _check_floating_kernel("huber_cpu", input, target)
    input, target = cast_inputs("huber_loss", input, target)
    return dispatch.apply(nn_ops.HUBER_LOSS, (input, target), static(reduction=reduction, delta=float(delta)))


def _no_grad_argument(function: str, name: str, tensor: Tensor | None) -> None:
    """PyTorch's kernels without a derivative for an argument refuse one that requires grad."""
    from ...autograd import grad_mode
    if tensor is not None and tensor.requires_grad and grad_mode.STATE.enabled:
        raise RuntimeError(f"The function '{function}' is not differentiable with respect to argument '{name}'. "
                           "This input cannot have requires_grad True.")


def _check_class_target(input: Tensor, target: Tensor, ignore_index: int, weight: Tensor | None = None) -> None:
    """PyTorch's nll_loss checks, in its order: batch sizes, the target's shape, Long or Byte targets, one weight per
    class of the input's dtype, classes in range (on CPU)."""
    if input.ndim == 1 and target.ndim == 1 and target.shape[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: {target.shape[0]}")
    if input.ndim > 1 and input.shape[0] != (target.shape[0] if target.ndim else 0):
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0] if target.ndim else 0}).")
    classes = input.shape[1 if input.ndim > 1 else 0]
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    expected = [input.shape[0], *input.shape[2:]]
    if input.ndim > 2 and list(target.shape) != expected:
        raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
    if target.dtype not in (dtypes.int64, dtypes.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {dtypes.LEGACY_NAMES[target.dtype][:-6]}")
    if weight is not None and (weight.numel() != classes or (input.ndim <= 2 and weight.ndim != 1)):
        raise RuntimeError("weight tensor should be defined either for all or no classes" if input.ndim > 2 else
                           f"weight tensor should be defined either for all {classes} classes or no classes but got "
                           f"weight tensor of shape: {list(weight.shape)}")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {scalar_name(input.dtype)} but found {scalar_name(weight.dtype)}")
    _no_grad_argument("nll_loss2d_forward" if input.ndim > 2 else "nll_loss_forward", "weight", weight)
    if target.device.type == "cpu" and target.numel():
        values = np.asarray(target._value())
        bad = values[(values != ignore_index) & ((values < 0) | (values >= classes))]
        if bad.size:
            raise IndexError(f"Target {bad.reshape(-1)[0]} is out of bounds.")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None, ignore_index: int = -100,
             reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    _check_class_target(input, target, ignore_index, weight)
    input, weight = cast_inputs("nll_loss", input, weight)
    if input.ndim == 1 and target.ndim == 1:  # an unbatched input's one target may come as a 1-element vector
        target = target.reshape(())
    target_shape = target.shape
    if input.ndim == 3 or input.ndim > 4:  # PyTorch's nll_loss2d takes them viewed as 4-D
        spatial = math.prod(input.shape[2:])
        input, target = (input.reshape(input.shape[0], input.shape[1], 1, spatial),
                         target.reshape(target.shape[0], 1, spatial))
    operands = (input, target) if weight is None else (input, target, weight)
    loss = dispatch.apply(nn_ops.NLL_LOSS[input.ndim > 2], operands, static(reduction=reduction,
                                                                          ignore_index=ignore_index))
    return loss.reshape(target_shape) if reduction == "none" and loss.shape != target_shape else loss


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """Class indices (with ignore_index) or class probabilities as targets; optional label smoothing."""
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    input, target, weight = cast_inputs("cross_entropy", input, target, weight)
    extra = () if weight is None else (weight,)
    if target.is_floating_point() and target.shape == input.shape:
        return dispatch.apply(nn_ops.CROSS_ENTROPY_PROBS[reduction], (input, target, *extra),
                              static(reduction=reduction, label_smoothing=float(label_smoothing)))
    if label_smoothing > 0:
        _check_class_target(input, target, ignore_index, weight)
        return dispatch.apply(nn_ops.CROSS_ENTROPY_SMOOTHED, (input, target, *extra), static(
            reduction=reduction, ignore_index=ignore_index, label_smoothing=float(label_smoothing)))
    log_probs = functions.log_softmax(input, 1 if input.ndim > 1 else 0)  # recorded as PyTorch records it
    return nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {scalar_name(target.dtype)} but expected {scalar_name(input.dtype)}")
    if input.device.type == "cpu" and input.numel():
        values = np.asarray(input._value(), np.float64)
        if not ((values >= 0) & (values <= 1)).all():
            raise RuntimeError("all elements of input should be between 0 and 1")
    _no_grad_argument("binary_cross_entropy", "weight", weight)
    input, target, weight = cast_inputs("binary_cross_entropy", input, target, weight)
    extra = () if weight is None else (weight,)
    return dispatch.apply(nn_ops.BINARY_CROSS_ENTROPY, (input, target, *extra), static(reduction=reduction))


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                     reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if input.dtype.category != dtypes.FLOATING:
        raise NotImplementedError(f"\"log_sigmoid_cpu\" not implemented for '{scalar_name(input.dtype)}'")
    if target.dtype is dtypes.bool:  # PyTorch computes (1 - target) in the target's dtype first
        functions._check_subtraction(target, target)
    if target.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"result type {scalar_name(input.dtype)} can't be cast to the desired output type "
                           f"{scalar_name(target.dtype)}")
    _no_grad_argument("binary_cross_entropy_with_logits", "weight", weight)
    _no_grad_argument("binary_cross_entropy_with_logits", "pos_weight", pos_weight)
    input, target, weight, pos_weight = cast_inputs("binary_cross_entropy_with_logits", input, target, weight,
                                                    pos_weight)
    extra = tuple(t for t in (weight, pos_weight) if t is not None)
    return dispatch.apply(nn_ops.BINARY_CROSS_ENTROPY_WITH_LOGITS, (input, target, *extra), static(
        reduction=reduction, has_weight=weight is not None, has_pos_weight=pos_weight is not None))


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """PyTorch's composite: target * (log target - input) (xlogy, so 0 where target is 0), then the reduction."""
    from ...tensor import functions
    if reduction != "batchmean":
        reduction = _reduction(size_average, reduce, reduction)
    if dtypes.COMPLEX in (input.dtype.category, target.dtype.category):
        raise RuntimeError("kl_div: Complex inputs not supported.")
    if min(input.dtype.category, target.dtype.category) < dtypes.FLOATING:
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if log_target:
        loss = functions.UNARY_FUNCTIONS["exp"](target) * (target - input)
    else:
        loss = functions.BINARY_FUNCTIONS["xlogy"](target, target) - target * input
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """PyTorch's composite: each input over its 2-norm (clamped to eps), multiplied and summed over dim."""
    from ...tensor import functions
    from ...tensor.views import broadcast_to
    shape = functions._broadcast_shape(tuple(x1.shape), tuple(x2.shape))
    x1 = x1 if tuple(x1.shape) == shape else broadcast_to(x1, shape)
    x2 = x2 if tuple(x2.shape) == shape else broadcast_to(x2, shape)
    n1 = functions.norm(x1, 2, dim, keepdim=True).clamp_min(eps)
    n2 = functions.norm(x2, 2, dim, keepdim=True).clamp_min(eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)
