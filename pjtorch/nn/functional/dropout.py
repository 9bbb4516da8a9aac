"""Dropout: PyTorch's draws from the generator, then one op that masks and rescales."""
from __future__ import annotations

import warnings

from ... import dispatch
from ...ops import nn as nn_ops
from ...tensor import dtypes, random
from ...tensor.tensor import Tensor
from .._utils import scalar_name, static


def _check_probability(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zeroes each element with probability p and scales the rest by 1/(1-p); the identity when not training."""
    _check_probability(p)
    if not training or p == 0:
        return input
    if not input.is_floating_point():  # PyTorch scales by a float 1/(1-p) into the input's dtype
        raise RuntimeError(f"result type Float can't be cast to the desired output type {scalar_name(input.dtype)}")
    return _masked(input, input.shape, p, inplace)


_CHANNEL_WISE = "exists to provide channel-wise dropout on inputs with {spatial} spatial dimension{plural}, a " \
                "channel dimension, and an optional batch dimension (i.e. {low}D or {high}D inputs)."
_THREE_D_AS_BATCH = "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout behavior " \
                    "is desired - input is interpreted as shape (N, C, L), where C is the channel dim. This behavior " \
                    "will change in a future release to interpret the input as one without a batch dimension, i.e. " \
                    "shape (C, H, W). To maintain the 1D channel-wise dropout behavior, please switch to using " \
                    "dropout1d instead."


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, spatial: int) -> Tensor:
    """Whole channels dropped together: one draw per channel, and per sample when batched. dropout1d rejects other
    ranks; dropout2d and dropout3d warn and go on, dropout2d reading any input as (N, C, *) as PyTorch still does."""
    _check_probability(p)
    name, low, high = f"dropout{spatial}d", spatial + 1, spatial + 2
    words = _CHANNEL_WISE.format(spatial=spatial, plural="s" if spatial > 1 else "", low=low, high=high)
    if input.ndim not in (low, high):
        if spatial == 1:
            raise RuntimeError(f"{name}: Expected {low}D or {high}D input, but received a {input.ndim}D input. Note "
                               f"that {name} {words}")
        warnings.warn(f"{name}: Received a {input.ndim}-D input to {name}, which is deprecated and will result in an "
                      f"error in a future release. To retain the behavior and silence this warning, please use "
                      f"dropout instead. Note that {name} {words}", stacklevel=3)
    if spatial == 2 and input.ndim == 3:
        warnings.warn(_THREE_D_AS_BATCH, stacklevel=3)
    if not training or p == 0:
        return input
    kept = 2 if spatial == 2 or input.ndim == high else 1
    return _masked(input, tuple(input.shape[:kept]) + (1,) * (input.ndim - kept), p, inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 1)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 2)


def _masked(input: Tensor, mask_shape: tuple, p: float, inplace: bool) -> Tensor:
    """PyTorch's mask is bernoulli_(1 - p): a 53-bit draw per element (or channel) below 1 - p keeps it. At p == 1
    it draws nothing and zeroes the input."""
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    uniform = random.sample("uniform", tuple(mask_shape), dtypes.float64, input.device, None)
    if inplace:
        return dispatch.apply_inplace(nn_ops.DROPOUT, input, (uniform,), static(p=float(p)))
    return dispatch.apply(nn_ops.DROPOUT, (input, uniform), static(p=float(p)))
