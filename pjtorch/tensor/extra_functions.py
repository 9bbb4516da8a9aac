"""Smaller parts of PyTorch's tensor API: `torch.layout` (`torch.strided`), `torch.fill` and `torch.bincount`.

The view-producing splits (`hsplit`, `vsplit`, `dsplit`) live with the other views in `views.py`.
"""
from __future__ import annotations

import numpy as np

from .. import dispatch
from ..ops import shape as shape_ops
from ..ops.registry import Op, SAVES_NOTHING
from . import dtypes
from .tensor import Tensor


class layout:
    """A tensor layout (`torch.strided`, `torch.sparse_coo`): pjtorch's tensors are all strided."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__


strided = layout("strided")
sparse_coo = layout("sparse_coo")


# ----- torch.fill ---------------------------------------------------------------------------------------

# Out of place, PyTorch names the nodes FillBackward0 (a number) and FillBackward1 (a 0-dim tensor value);
# in-place fill_ has FillBackward2/3 (ops/shape.py).
_FILL = Op("fill", shape_ops._fill, grad_name="FillBackward1", saves=SAVES_NOTHING, promote="none")
_FILL_SCALAR = Op("fill", shape_ops._fill, grad_name="FillBackward0", saves=SAVES_NOTHING, promote="none",
                  hidden_inputs=1)
_FILL_SIGNATURES = " * (Tensor input, Tensor value)\n * (Tensor input, Number value)\n"
_NOTHING = object()


def fill(input: Tensor, value=_NOTHING) -> Tensor:
    """`torch.fill(input, value)`: a new tensor of input's shape and dtype, every element `value` (a number, checked
    for overflow as `fill_` checks it, or a 0-dim tensor)."""
    from .factories import arg_type_name, filled_scalar

    if value is _NOTHING:
        raise TypeError(f"fill() received an invalid combination of arguments - got ({arg_type_name(input)}), but "
                        f"expected one of:\n{_FILL_SIGNATURES}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        return dispatch.apply(_FILL, (input, value))
    return dispatch.apply(_FILL_SCALAR, (input, filled_scalar(value, input.dtype)))


# ----- torch.bincount -----------------------------------------------------------------------------------

_BINCOUNT_INPUT = "bincount only supports 1-d non-negative integral inputs."


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each value of a 1-d tensor of non-negative integers (int64), or the sums of `weights` at each
    (float32 for float32 weights, else float64), at least `minlength` long. The length depends on the values, so
    they are read on the host, as PyTorch also synchronises here."""
    from .factories import tensor, zeros

    if input.dtype.category != dtypes.INTEGER:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim == 1 and input.numel() == 0:
        return zeros(minlength, dtype=dtypes.int64, device=input.device)
    values = np.asarray(input._value())
    if input.ndim != 1 or values.min() < 0:
        raise RuntimeError(_BINCOUNT_INPUT)
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    values = values.astype(np.int64)
    if weights is None:
        return tensor(np.bincount(values, minlength=minlength), dtype=dtypes.int64, device=input.device)
    result_dtype = dtypes.float32 if weights.dtype is dtypes.float32 else dtypes.float64
    weights = weights.to(result_dtype)  # a complex weight loses its imaginary part, with PyTorch's warning
    summed = np.bincount(values, weights=np.asarray(weights.detach()._value()).astype(np.float64),
                         minlength=minlength)
    return tensor(summed.astype(result_dtype.jax), dtype=result_dtype, device=input.device)
