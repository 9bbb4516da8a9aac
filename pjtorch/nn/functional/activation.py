"""Activation functions: the elementwise ops of pjtorch.ops.pointwise under PyTorch's F signatures."""
from __future__ import annotations

import warnings

import numpy as np

from ...amp.autocast_mode import cast_inputs
from ... import dispatch
from ...ops import nn as nn_ops
from ...tensor import dtypes, factories, functions, random
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
    if input.dtype.is_signed is False and input.dtype.category == 1 and (min_val < 0 or max_val < 0):
        raise RuntimeError("cannot do hardtanh on an unsigned type with negative limits")
    return _apply("hardtanh", input, inplace, min_val=min_val, max_val=max_val)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    return _apply("selu", input, inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    return _apply("celu", input, inplace, alpha=alpha)


def softsign(input: Tensor) -> Tensor:
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - input.tanh()


def _check_lambda(lambd, input: Tensor) -> None:
    if lambd < 0 and input.is_floating_point():
        name = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16"}[str(input.dtype)[6:]]
        raise RuntimeError(f"lambda must be in range [0, {_max_text(input)}] for input dtype {name}, but found {lambd:g}")


def _max_text(input: Tensor) -> str:
    return {"float32": "3.40282e+38", "float64": "1.79769e+308", "float16": "65504",
            "bfloat16": "3.38953e+38"}[str(input.dtype)[6:]]


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    _check_lambda(lambd, input)
    return _apply("softshrink", input, lambd=lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    return _apply("hardshrink", input, lambd=lambd)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    return _apply("threshold", input, inplace, threshold=threshold, value=value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _apply("threshold", input, True, threshold=threshold, value=value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Training draws a slope from U(lower, upper) for each non-positive element (in order, as PyTorch's kernel
    does: 53-bit draws between the bounds rounded to the input's dtype); evaluation uses their mean."""
    if training:
        slopes = factories.ones(tuple(input.shape), dtype=dtypes.float64, device=input.device)
        negative = input.detach() <= 0
        bounds = (float(np.asarray(bound, input.dtype.jax)) for bound in (lower, upper))
        slopes[negative] = random.sample("uniform", (int(negative.sum()),), dtypes.float64, input.device, None,
                                         tuple(bounds))
        if inplace:
            return dispatch.apply_inplace(nn_ops.RRELU_TRAIN, input, (slopes,))
        return dispatch.apply(nn_ops.RRELU_TRAIN, (input, slopes))
    return _apply("rrelu_with_noise", input, inplace, negative_slope=(lower + upper) / 2)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    wrapped = functions.wrap_dim(dim, input.ndim)
    if input.shape[wrapped] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {wrapped} is size {input.shape[wrapped]}")
    return dispatch.apply(nn_ops.GLU, (input,), (("dim", wrapped),))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() != 1 and weight.numel() != channels:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{weight.numel()} and channel size = {channels}.")
    return dispatch.apply(nn_ops.PRELU, (input, weight))


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
