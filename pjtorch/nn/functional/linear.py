"""`F.linear`: x Wᵀ + b composed as PyTorch composes it (addmm, or matmul without a bias; other ranks flattened
to a matrix and viewed back), so the graph has its nodes, with PyTorch's shape and dtype errors."""
from __future__ import annotations

import math

from ...amp.autocast_mode import cast_inputs
from ...tensor import functions
from ...tensor.functions import _c_type_name
from ...tensor.tensor import Tensor
from .._utils import scalar_name


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    input, weight, bias = cast_inputs("linear", input, weight, bias)
    if weight.ndim == 1 and input.ndim:
        return _vector_linear(input, weight, bias)
    if bias is not None:
        _check_addmm_dtypes(input, weight, bias)
    _check(input, weight)
    if bias is None:
        return functions.matmul(input, weight.t())
    _check_bias_shape(input, weight, bias)
    if input.ndim == 2:
        return functions.addmm(bias, input, weight.t())
    rows = input.reshape(math.prod(input.shape[:-1]), input.shape[-1])  # no -1: a 0-sized dim would leave it ambiguous
    return functions.addmm(bias, rows, weight.t()).view(*input.shape[:-1], weight.shape[0])


def _check(input: Tensor, weight: Tensor) -> None:
    if input.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are 0D and {weight.ndim}D")
    if weight.ndim != 2:
        raise RuntimeError(f"pjtorch's linear expects a 2D weight, but got a {weight.ndim}D weight")
    inner = input.shape[-1]
    if inner != weight.shape[1]:
        rows = input.numel() // inner if inner else 0
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{inner} and "
                           f"{weight.shape[1]}x{weight.shape[0]})")
    if input.dtype is not weight.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_type_name(input.dtype)} != "
                           f"{_c_type_name(weight.dtype)}")


def _check_addmm_dtypes(input: Tensor, weight: Tensor, bias: Tensor) -> None:
    """With a bias PyTorch goes through addmm, whose dtype checks come before any shape check."""
    for name, tensor in (("mat1", input), ("self", bias)):
        if tensor.dtype is not weight.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got {scalar_name(tensor.dtype)} and "
                               f"{scalar_name(weight.dtype)}")


def _check_bias_shape(input: Tensor, weight: Tensor, bias: Tensor) -> None:
    """The bias is expanded to the (rows, out_features) product, as addmm's `self`."""
    target = [math.prod(input.shape[:-1]), weight.shape[0]]
    if bias.ndim > 2:
        raise RuntimeError(f"expand(torch.{scalar_name(bias.dtype)}Tensor{{{list(bias.shape)}}}, size={target}): the "
                           f"number of sizes provided (2) must be greater or equal to the number of dimensions in "
                           f"the tensor ({bias.ndim})")
    for dim, size in enumerate(bias.shape, start=2 - bias.ndim):
        if size not in (1, target[dim]):
            raise RuntimeError(f"The expanded size of the tensor ({target[dim]}) must match the existing size ({size}) "
                               f"at non-singleton dimension {dim}.  Target sizes: {target}.  Tensor sizes: "
                               f"{list(bias.shape)}")


def _vector_linear(input: Tensor, weight: Tensor, bias: Tensor | None) -> Tensor:
    """A 1-D weight gives one output per row (input @ weight), as PyTorch's composite does."""
    out = input.matmul(weight)
    return out if bias is None else out + bias
