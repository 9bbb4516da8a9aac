"""Pooling: max, average and adaptive average over 1-3 spatial dims, with PyTorch's ceil_mode rules, and
max_unpool, which puts max_pool's values back where its indices say."""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...ops.registry import Op
from ...tensor import factories
from ...tensor.tensor import Tensor
from .._utils import ntuple, static


def _window_args(spatial: int, kernel_size, stride, padding, dilation=1) -> tuple:
    kernel = ntuple(spatial, kernel_size)
    stride = kernel if stride is None or stride == [] else ntuple(spatial, stride)
    return kernel, stride, ntuple(spatial, padding), ntuple(spatial, dilation)


_BATCH_MODE = "non-empty {low}D or {high}D (batch mode) tensor expected for input"
_DIMENSIONS = "Expected 2 to 3 dimensions, but got {ndim}-dimensional tensor for argument #1 'self' (while checking " \
              "arguments for {name})"
_WRONG_DIMS = {
    "max_pool1d": "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, "
                  "but got:{shape}",
    "max_pool2d": _BATCH_MODE, "max_pool3d": _BATCH_MODE, "avg_pool3d": _BATCH_MODE,
    "avg_pool1d": _DIMENSIONS, "adaptive_avg_pool1d": _DIMENSIONS,
    "avg_pool2d": "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:{shape}",
    "adaptive_avg_pool2d": "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {shape}",
    "adaptive_avg_pool3d": "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {shape}",
}


def _check_input(name: str, input: Tensor, spatial: int) -> None:
    """PyTorch's pooling kernels each word a wrong input rank their own way; avg_pool2d reads the channel dim
    before it checks, so a short input fails on that index."""
    if input.ndim in (spatial + 1, spatial + 2):
        return
    if name == "avg_pool2d" and input.ndim < 3:
        n = max(input.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got -3)")
    raise RuntimeError(_WRONG_DIMS[name].format(low=spatial + 1, high=spatial + 2, ndim=input.ndim, name=name,
                                                shape=list(input.shape)))


def _check_max_pool1d(kernel: int, stride: int, padding: int, dilation: int) -> None:
    """max_pool1d has its own kernel in PyTorch, with its own wording."""
    for name, value, minimum, wanted in (("kernel_size", kernel, 1, "greater than zero"),
                                         ("stride", stride, 1, "greater than zero"),
                                         ("padding", padding, 0, "non-negative"),
                                         ("dilation", dilation, 1, "greater than zero")):
        if value < minimum:
            raise RuntimeError(f"max_pool1d() {name} must be {wanted}, but got {value}")
    if padding * 2 > kernel:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={padding} "
                           f"and kernel_size={kernel}")


def _output_sizes(name: str, input: Tensor, kernel: tuple, stride: tuple, padding: tuple, dilation: tuple,
                  ceil_mode: bool) -> list:
    """Each spatial dim's output length; none may be empty. avg_pool1d runs as avg_pool2d over (C, 1, L) in
    PyTorch, which its message shows."""
    sizes = list(input.shape[-len(kernel):])
    outs = [nn_ops.pool_output_size(*args, ceil_mode) for args in zip(sizes, kernel, stride, padding, dilation)]
    if min(outs) < 1:
        if name == "max_pool1d":
            raise RuntimeError(f"max_pool1d() Invalid computed output size: {min(outs)}")
        middle = [1] if name == "avg_pool1d" else []
        channels = input.shape[-len(kernel) - 1]
        given, calculated = ("x".join(map(str, [channels] + middle + dims)) for dims in (sizes, outs))
        raise RuntimeError(f"Given input size: ({given}). Calculated output size: ({calculated}). Output size is too "
                           "small")
    return outs


def _max_pool(input: Tensor, spatial: int, kernel_size, stride, padding, dilation, ceil_mode: bool,
              return_indices: bool):
    kernel, stride, padding, dilation = _window_args(spatial, kernel_size, stride, padding, dilation)
    _check_input(f"max_pool{spatial}d", input, spatial)
    (input,) = cast_inputs(f"max_pool{spatial}d", input)
    if spatial == 1:
        _check_max_pool1d(kernel[0], stride[0], padding[0], dilation[0])
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    for k, p, d in zip(kernel, padding, dilation):
        if p * 2 > (k - 1) * d + 1:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
    outs = _output_sizes(f"max_pool{spatial}d", input, kernel, stride, padding, dilation, ceil_mode)
    pads = [(p, max(0, (out - 1) * s + d * (k - 1) + 1 - size - p))
            for out, size, k, s, p, d in zip(outs, input.shape[-spatial:], kernel, stride, padding, dilation)]
    table = nn_ops.MAX_POOL_WITH_INDICES if return_indices else nn_ops.MAX_POOL
    return dispatch.apply(table[spatial], (input,), static(kernel_size=kernel, stride=stride, padding=tuple(pads),
                                                           dilation=dilation))


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _max_pool(input, 1, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_pool(input: Tensor, spatial: int, kernel_size, stride, padding, ceil_mode: bool, count_include_pad: bool,
              divisor_override) -> Tensor:
    kernel, stride, padding, _ = _window_args(spatial, kernel_size, stride, padding)
    _check_input(f"avg_pool{spatial}d", input, spatial)
    (input,) = cast_inputs(f"avg_pool{spatial}d", input)
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    for k, p in zip(kernel, padding):
        if p * 2 > k:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation=1")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    if spatial == 3 and any(size < k for size, k in zip(input.shape[-3:], kernel)):
        raise RuntimeError("input image (T: {} H: {} W: {}) smaller than kernel size (kT: {} kH: {} kW: {})".format(
            *input.shape[-3:], *kernel))
    outs = _output_sizes(f"avg_pool{spatial}d", input, kernel, stride, padding, (1,) * spatial, ceil_mode)
    extra = [max(0, (out - 1) * s + k - size - 2 * p)
             for out, size, k, s, p in zip(outs, input.shape[-spatial:], kernel, stride, padding)]
    return dispatch.apply(nn_ops.AVG_POOL[spatial], (input,), static(
        kernel_size=kernel, stride=stride, padding=padding, ceil_padding=tuple(extra),
        count_include_pad=count_include_pad, divisor_override=divisor_override))


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    return _avg_pool(input, 1, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override: int | None = None) -> Tensor:
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)


def _adaptive_avg_pool(input: Tensor, spatial: int, output_size) -> Tensor:
    _check_input(f"adaptive_avg_pool{spatial}d", input, spatial)
    (input,) = cast_inputs(f"adaptive_avg_pool{spatial}d", input)
    sizes = tuple(input.shape[-spatial:])
    output = tuple(size if wanted is None else wanted for size, wanted in zip(sizes, ntuple(spatial, output_size)))
    if spatial > 1 and output == (1,) * spatial:  # PyTorch takes the mean
        dims = tuple(range(input.ndim - spatial, input.ndim))
        return dispatch.apply(nn_ops.GLOBAL_AVG_POOL, (input,), static(dims=dims))
    return dispatch.apply(nn_ops.ADAPTIVE_AVG_POOL[spatial], (input,), static(output_size=output))


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, 1, output_size)


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, 2, output_size)


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    return _adaptive_avg_pool(input, 3, output_size)


def _unpool_output_size(input: Tensor, kernel: tuple, stride: tuple, padding: tuple, output_size) -> list:
    default = [(size - 1) * s + k - 2 * p
               for size, k, s, p in zip(input.shape[-len(kernel):], kernel, stride, padding)]
    if output_size is None:
        return default
    if len(output_size) == len(kernel) + 2:
        output_size = output_size[2:]
    if len(output_size) != len(kernel):
        raise ValueError(f"output_size should be a sequence containing {len(kernel)} or {len(kernel) + 2} elements, "
                         f"but it has a length of '{len(output_size)}'")
    for d, (wanted, size, s) in enumerate(zip(output_size, default, stride)):
        if not size - s < wanted < size + s:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {size - s} and '
                             f"{size + s})")
    return list(output_size)


def _max_unpool(input: Tensor, indices: Tensor, spatial: int, kernel_size, stride, padding, output_size) -> Tensor:
    """Each value written at its flat index in a zero (N, C, *output_size) volume: max_pool's inverse."""
    kernel, stride, padding, _ = _window_args(spatial, kernel_size, stride, padding)
    size = _unpool_output_size(input, kernel, stride, padding, output_size)
    if indices.shape != input.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor ({list(input.shape)}) "
                           f"but got indices tensor with shape: {list(indices.shape)}")
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Input to max_unpooling{spatial}d should be a {spatial + 1}d or {spatial + 2}d Tensor, "
                           f"but got a tensor with {input.ndim} dimensions.")
    volume = math.prod(size)
    if indices.device.type == "cpu" and indices.numel():
        found = np.asarray(indices._value())
        bad = found[(found < 0) | (found >= volume)]
        if bad.size:
            shown = [*size, 1] if spatial == 1 else size  # the max_unpool2d kernel's, for 1-d too
            raise RuntimeError(f"Found an invalid max index: {bad[0]} (output volumes are of size "
                               f"{'x'.join(map(str, shown))})")
    if spatial == 1:  # PyTorch's max_unpool1d runs max_unpool2d on a trailing unit dim
        return dispatch.apply(_MAX_UNPOOL[2], (input.unsqueeze(-1), indices.unsqueeze(-1)),
                              static(size=(*size, 1))).squeeze(-1)
    return dispatch.apply(_MAX_UNPOOL[spatial], (input, indices), static(size=tuple(size)))


def _scatter_planes(x, where, size):
    """Each plane's values written at their flat indices into a zero plane of `size`."""
    spatial = len(size)
    planes = x.reshape(-1, math.prod(x.shape[x.ndim - spatial:]))
    rows = jnp.arange(planes.shape[0])[:, None]
    out = jnp.zeros((planes.shape[0], math.prod(size)), x.dtype).at[rows, where.reshape(planes.shape)].set(planes)
    return out.reshape(*x.shape[:x.ndim - spatial], *size)


_MAX_UNPOOL = {spatial: Op(f"max_unpool{spatial}d", _scatter_planes, grad_name=f"MaxUnpool{spatial}DBackward0",
                           promote="none", unlisted=frozenset({1})) for spatial in (2, 3)}


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    return _max_unpool(input, indices, 3, kernel_size, stride, padding, output_size)
