"""Convolutions: `F.conv1d/2d/3d` as one N-d op, with PyTorch's padding strings and shape errors."""
from __future__ import annotations

import warnings

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...tensor.tensor import Tensor
from ...tensor.functions import _c_type_name
from .._utils import ntuple, scalar_name, static


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    return convolution(input, weight, bias, stride, padding, dilation, groups, spatial=1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    return convolution(input, weight, bias, stride, padding, dilation, groups, spatial=2)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    return convolution(input, weight, bias, stride, padding, dilation, groups, spatial=3)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """`torch.conv_tbc`: a 1-d convolution laid out (time, batch, channels), with PyTorch's shape checks."""
    for ok, message in ((input.ndim == 3, "Input must have 3 dims: time, batch, in_channel"),
                        (weight.ndim == 3, "Weight tensor must have 3 dims: kernel_width, in_channels, "
                                           "out_channels."),
                        (bias.ndim == 1, "Bias must be 1-D"),
                        (bias.shape[0] == weight.shape[-1], "Bias size must equal dim 2 in the weight tensor (output "
                                                            "channels)."),
                        (input.shape[-1] == weight.shape[1], "Input dim 2 (input channels) is not == dim 1 in the "
                                                             "weight tensor")):
        if not ok:
            raise RuntimeError(message)
    length = input.shape[0] + 2 * pad - weight.shape[0] + 1
    if length < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {length}: "
                           f"[{length}, {input.shape[1]}, {weight.shape[2]}]")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {scalar_name(input.dtype)} and "
                           f"{scalar_name(weight.dtype)}")
    return dispatch.apply(nn_ops.CONV_TBC, (input, weight, bias.to(input.dtype)), static(pad=pad))


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, dilation, groups: int,
                spatial: int) -> Tensor:
    input, weight, bias = cast_inputs(f"conv{spatial}d", input, weight, bias)
    stride, dilation = ntuple(spatial, stride), ntuple(spatial, dilation)
    kernel = tuple(weight.shape[2:])
    if bias is not None and bias.dtype is not input.dtype:
        raise RuntimeError(f"Input type ({_c_type_name(input.dtype)}) and bias type ({_c_type_name(bias.dtype)}) "
                           "should be the same")
    pads = padding_pairs(padding, kernel, stride, dilation)
    _check(input, weight, groups, stride, pads, kernel, dilation, spatial)
    unbatched = input.ndim == spatial + 1  # PyTorch adds a batch dim and squeezes it off after
    operands = (input.unsqueeze(0) if unbatched else input, weight) + (() if bias is None else (bias,))
    output = dispatch.apply(nn_ops.CONV, operands, static(stride=stride, padding=pads, dilation=dilation, groups=groups))
    return output.squeeze(0) if unbatched else output


def padding_pairs(padding, kernel: tuple, stride: tuple, dilation: tuple) -> tuple:
    """(low, high) per spatial dim; 'same' puts the odd element of padding on the high side, as PyTorch does."""
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * len(kernel)
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) for k, d in zip(kernel, dilation)]
        if any(total % 2 for total in totals):
            _warn_uneven_same_padding()
        return tuple((total // 2, total - total // 2) for total in totals)
    return tuple((p, p) for p in ntuple(len(kernel), padding))


def check_weight_dtype(input: Tensor, *parameters: Tensor | None) -> None:
    for parameter in parameters:
        if parameter is not None and parameter.dtype is not input.dtype:
            raise RuntimeError(f"expected scalar type {scalar_name(input.dtype)} but found "
                               f"{scalar_name(parameter.dtype)}")


def _warn_uneven_same_padding() -> None:
    """PyTorch warns once per process (TORCH_WARN_ONCE) when 'same' needs more padding on one side."""
    if not _WARNED:
        _WARNED.append(True)
        warnings.warn("Using padding='same' with even kernel lengths and odd dilation may require a zero-padded copy "
                      "of the input be created (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Convolution.cpp:1101.)", UserWarning, stacklevel=5)


_WARNED: list = []


def _check(input: Tensor, weight: Tensor, groups: int, stride: tuple, pads: tuple, kernel: tuple, dilation: tuple,
           spatial: int) -> None:
    name = f"conv{spatial}d"
    for values, minimum, message in ((stride, 1, "non-positive stride is not supported"),
                                     (sum(pads, ()), 0, "negative padding is not supported"),
                                     (dilation, 1, "non-positive dilation is not supported")):
        if any(value < minimum for value in values):
            raise RuntimeError(message)
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got "
                           f"input of size: {list(input.shape)}")
    channels = input.shape[-spatial - 1]
    if channels != weight.shape[1] * groups:
        batched = list(input.shape) if input.ndim == spatial + 2 else [1] + list(input.shape)
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected input{batched} to "
                           f"have {weight.shape[1] * groups} channels, but got {channels} channels instead")
    check_weight_dtype(input, weight)
    padded = [size + low + high for size, (low, high) in zip(input.shape[-spatial:], pads)]
    effective = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(p < k for p, k in zip(padded, effective)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, effective))}). Kernel size can't be greater than actual input size")
