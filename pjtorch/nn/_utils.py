"""Argument helpers shared by nn.functional and the layers."""
from __future__ import annotations

import warnings
from collections.abc import Iterable


def ntuple(n: int, value) -> tuple:
    """`3` -> `(3, 3)` for n=2; an iterable is taken as given (PyTorch's `_pair`, `_triple`)."""
    if isinstance(value, Iterable):
        return tuple(value)
    return (value,) * n


def scalar_name(dtype) -> str:
    """PyTorch's ScalarType name of a dtype, as its kernels' dtype errors print it ('Float', 'Long', 'BFloat16')."""
    from ..tensor import dtypes
    return dtypes.LEGACY_NAMES[dtype].removesuffix("Tensor")


def static(**kwargs) -> tuple:
    """An op's static arguments as dispatch keys them: sorted (name, value) pairs."""
    return tuple(sorted(kwargs.items()))


def legacy_reduction(size_average, reduce, reduction: str) -> str:
    """The reduction meant by the deprecated size_average/reduce flags, with PyTorch's warning."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    result = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{result}' instead.",
                  stacklevel=3)
    return result


def size_at(tensor, dim: int) -> int:
    """tensor.size(dim) for a non-negative dim, with PyTorch's error for one past the tensor's dims."""
    if dim >= tensor.ndim:
        span = max(tensor.ndim, 1)
        raise IndexError(f"Dimension out of range (expected to be in range of [{-span}, {span - 1}], but got {dim})")
    return tensor.shape[dim]
