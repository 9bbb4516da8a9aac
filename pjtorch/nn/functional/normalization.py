"""Normalisation: batch_norm (updating running statistics in place), layer_norm, normalize."""
from __future__ import annotations

import math

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...autograd import grad_mode
from ...ops import nn as nn_ops
from ...tensor import dtypes
from ...tensor.tensor import Tensor
from .._utils import scalar_name, static


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


def check_mixed_dtypes(input: Tensor, *tensors: Tensor | None) -> None:
    """PyTorch's CPU norm kernels take float32 parameters beside a half or bfloat16 input, and nothing else mixed."""
    kinds = {t.dtype for t in tensors if t is not None} - {input.dtype}
    if not kinds or (kinds == {dtypes.float32} and input.dtype in (dtypes.float16, dtypes.bfloat16)):
        return
    if input.dtype in (dtypes.float32, dtypes.float16, dtypes.bfloat16):
        raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
    raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Training normalises with batch statistics and folds them into the running ones (momentum 0.1 by default)."""
    channels = input.shape[1] if input.ndim > 1 else 0
    for name, tensor in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                         ("bias", bias)):
        if tensor is not None and tensor.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {tensor.numel()}")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"batch_norm\" not implemented for '{scalar_name(input.dtype)}'")
    check_mixed_dtypes(input, running_mean, running_var, weight, bias)
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
    for name, tensor in (("weight", weight), ("bias", bias)):
        if tensor is not None and tuple(tensor.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(tensor.shape)} and normalized_shape = {list(shape)}")
    check_mixed_dtypes(input, weight, bias)
    (input,) = cast_inputs("layer_norm", input)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    return dispatch.apply(nn_ops.LAYER_NORM, (input, *_affine_operands(weight, bias)),
                          static(axes=axes, eps=eps, has_weight=weight is not None, has_bias=bias is not None))


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12) -> Tensor:
    """input / max(‖input‖_p over dim, eps)."""
    return input / input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
