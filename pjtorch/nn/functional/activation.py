"""Activation functions: the elementwise ops of pjtorch.ops.pointwise under PyTorch's F signatures."""
from __future__ import annotations

import warnings

from ...amp.autocast_mode import cast_inputs
from ...tensor import functions
from ...tensor.functions import UNARY_FUNCTIONS as _UNARY
from ...tensor.tensor import Tensor


def _apply(name: str, input: Tensor, inplace: bool = False, **options) -> Tensor:
    return _UNARY[name + "_" if inplace else name](input, **options)


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("relu", input, inplace)


def relu_(input: Tensor) -> Tensor:
    return _apply("relu", input, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("relu6", input, inplace)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _apply("gelu", input) if approximate == "none" else _apply("gelu", input, approximate=approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("silu", input, inplace)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("mish", input, inplace)


def tanh(input: Tensor) -> Tensor:
    return _apply("tanh", input)


def sigmoid(input: Tensor) -> Tensor:
    return _apply("sigmoid", input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("hardsigmoid", input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("hardswish", input, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    return _apply("logsigmoid", input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    return _apply("leaky_relu", input, inplace, negative_slope=negative_slope)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    return _apply("elu", input, inplace, alpha=alpha)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    (input,) = cast_inputs("softplus", input)
    return _apply("softplus", input, beta=beta, threshold=threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    return _apply("hardtanh", input, inplace, min_val=min_val, max_val=max_val)


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as "
                  "an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    (input,) = cast_inputs("softmax", input)
    return functions.softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    (input,) = cast_inputs("softmax", input)
    return functions.softmax(-input, dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    (input,) = cast_inputs("log_softmax", input)
    return functions.log_softmax(input, dim, dtype)
