"""Fractional max pooling (Graham, 2014): max over windows whose pseudo-random starts come from one uniform sample
per plane and dim. The samples are drawn from PyTorch's random stream, or given as `_random_samples`."""
from __future__ import annotations

from ... import dispatch
from ...ops import nn as nn_ops
from ...tensor import random
from ...tensor.tensor import Tensor
from .._utils import ntuple, scalar_name, static

# The names a spatial rank's kernel gives in its errors, and the dims it names.
_KERNELS = {2: ("fractional_max_pool2d()", ("height", "width"), "Ints"),
            3: ("fractional_max_pool3d_out()", ("time", "height", "width"), "three Ints")}


def _output_size(name: str, input: Tensor, rank: int, output_size, output_ratio) -> tuple:
    """The given output size, or the spatial sizes times `output_ratio`, truncated as PyTorch's wrapper does."""
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if output_size is not None:
        return ntuple(rank, output_size)
    if rank == 2 and len(output_ratio) > 2:  # PyTorch's 2-d wrapper takes len() of the ratio first
        raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of Ints.")
    ratio = ntuple(rank, output_ratio)
    return tuple(int(size * r) for size, r in zip(input.shape[-rank:], ratio))


def _draw_samples(input: Tensor, rank: int) -> Tensor:
    """One uniform sample per (batch, plane, dim), drawn as PyTorch draws them."""
    batch = 1 if input.ndim == rank + 1 else input.size(0)
    return random.rand(batch, input.size(-rank - 1), rank, dtype=input.dtype, device=input.device)


def _check_samples(input: Tensor, samples: Tensor, rank: int) -> None:
    if samples.dtype is not input.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if samples.ndim != 3:
        raise RuntimeError(f"Expect _random_samples to have 3 dimensions, got {samples.ndim}")
    batch, channels = (1, input.shape[0]) if input.ndim == rank + 1 else input.shape[:2]
    for ok, message in ((samples.shape[0] >= batch, "Expect _random_samples.size(0) no less then input batch size."),
                        (samples.shape[1] == channels, "Expect _random_samples.size(1) equals to input channel size."),
                        (samples.shape[2] == rank, f"Expect _random_samples.size(2) equals to {rank}; got "
                                                   f"{samples.shape[2]}.")):
        if not ok:
            raise RuntimeError(message)


def _check_ranks(input: Tensor, rank: int, kernel: tuple, output: tuple) -> None:
    name, _, count = _KERNELS[rank]
    short = name.split("(")[0].removesuffix("_out")
    for what, values in (("kernel_size", kernel), ("output_size", output)):
        if len(values) != rank:
            raise RuntimeError(f"{short}: {what} must either be a single Int or tuple of {count}")
    if input.ndim not in (rank + 1, rank + 2):
        raise RuntimeError(f"{name}: Expected {rank + 1}D or {rank + 2}D tensor, but got: {list(input.shape)}")


def _check_windows(input: Tensor, rank: int, kernel: tuple, output: tuple) -> None:
    """PyTorch's kernel checks: 2-d windows may reach the input's end, 3-d ones must stop short of it (and are
    checked time, width, height); only floating types are pooled."""
    name, dims, _ = _KERNELS[rank]
    reach = 1 if rank == 2 else 0
    for d in (range(rank) if rank == 2 else (0, 2, 1)):
        size = input.shape[d - rank]
        if output[d] + kernel[d] - 1 > size - 1 + reach:
            raise RuntimeError(f"{name}: pool {dims[d]} {kernel[d]} too large relative to input {dims[d]} {size}")
    if min(output) < 0:
        shape = list(input.shape[:-rank]) + list(output)
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(output)}: {shape}")
    if not input.dtype.is_floating_point:
        kernel_name = name.split("(")[0].removesuffix("_out")
        raise NotImplementedError(f'"{kernel_name}_out_frame" not implemented for \'{scalar_name(input.dtype)}\'')


def _fractional_max_pool(input: Tensor, rank: int, kernel_size, output_size, output_ratio, return_indices: bool,
                         _random_samples: Tensor | None):
    name = f"fractional_max_pool{rank}d"
    output = _output_size(name, input, rank, output_size, output_ratio)
    samples = _draw_samples(input, rank) if _random_samples is None else _random_samples
    kernel = ntuple(rank, kernel_size)
    _check_ranks(input, rank, kernel, output)
    _check_samples(input, samples, rank)
    _check_windows(input, rank, kernel, output)
    values, indices = dispatch.apply(nn_ops.FRACTIONAL_MAX_POOL[rank], (input, samples),
                                     static(kernel_size=kernel, output_size=output))
    return (values, indices) if return_indices else values


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, return_indices, _random_samples)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Tensor | None = None) -> tuple:
    return _fractional_max_pool(input, 2, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples: Tensor | None = None) -> tuple:
    return _fractional_max_pool(input, 3, kernel_size, output_size, output_ratio, True, _random_samples)
