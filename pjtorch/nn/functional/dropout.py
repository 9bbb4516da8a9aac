"""Dropout: a uniform draw from the generator, then one op that masks and rescales."""
from __future__ import annotations

from ... import dispatch
from ...ops import nn as nn_ops
from ...tensor import random
from ...tensor.tensor import Tensor
from .._utils import static


def _check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p and scales the rest by 1/(1-p); the identity when not training."""
    _check_probability(p)
    if not training or p == 0:
        return input
    return _masked(input, input.shape, p, inplace)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, spatial: int) -> Tensor:
    """Whole channels dropped together: one draw per (batch, channel)."""
    _check_probability(p)
    if not training or p == 0:
        return input
    return _masked(input, tuple(input.shape[:input.ndim - spatial]) + (1,) * spatial, p, inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 2)


def _masked(input: Tensor, mask_shape: tuple, p: float, inplace: bool) -> Tensor:
    uniform = random.sample("uniform", tuple(mask_shape), input.dtype, input.device, None)
    if inplace:
        return dispatch.apply_inplace(nn_ops.DROPOUT, input, (uniform,), static(p=float(p)))
    return dispatch.apply(nn_ops.DROPOUT, (input, uniform), static(p=float(p)))
