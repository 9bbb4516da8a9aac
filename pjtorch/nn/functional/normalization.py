"""Normalisation: batch_norm (updating running statistics in place), layer_norm, normalize."""
from __future__ import annotations

import math

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...autograd import grad_mode
from ...ops import nn as nn_ops
from ...tensor.tensor import Tensor
from .._utils import static


def _int_tuple(function: str, name: str, position: int, value) -> tuple:
    """A `tuple of ints` argument as PyTorch's parser takes it (a list or Size too), else its TypeError."""
    prefix = f"{function}(): argument '{name}' (position {position}) must be tuple of ints"
    if not isinstance(value, (tuple, list)):
        raise TypeError(f"{prefix}, not {type(value).__name__}")
    for index, item in enumerate(value):
        if not isinstance(item, int) or isinstance(item, bool):
            raise TypeError(f"{prefix}, but found element of type {type(item).__name__} at pos {index}")
    return tuple(value)


def _affine_operands(weight: Tensor | None, bias: Tensor | None) -> tuple:
    return tuple(t for t in (weight, bias) if t is not None)


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Training normalises with batch statistics and folds them into the running ones (momentum 0.1 by default)."""
    flags = static(eps=eps, has_weight=weight is not None, has_bias=bias is not None)
    affine = _affine_operands(weight, bias)
    if training:
        size = input.shape
        if size[0] * math.prod(size[2:]) == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
        out, mean, var = dispatch.apply(nn_ops.BATCH_NORM_TRAIN, (input, *affine), flags)
        with grad_mode.no_grad():
            for running, batch in ((running_mean, mean), (running_var, var)):
                if running is not None:
                    dispatch.apply_inplace(nn_ops.RUNNING_AVERAGE, running, (batch,), static(momentum=float(momentum)))
        return out
    if running_mean is None or running_var is None:
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
    return dispatch.apply(nn_ops.BATCH_NORM_EVAL, (input, running_mean, running_var, *affine), flags)


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    shape = _int_tuple("layer_norm", "normalized_shape", 2, normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or len(shape) > input.ndim:
        expected = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*, {expected}], but got "
                           f"input of size{list(input.shape)}")
    (input,) = cast_inputs("layer_norm", input)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    return dispatch.apply(nn_ops.LAYER_NORM, (input, *_affine_operands(weight, bias)),
                          static(axes=axes, eps=eps, has_weight=weight is not None, has_bias=bias is not None))


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """input / max(‖input‖_p over dim, eps)."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
