"""interpolate(..., antialias=True): PyTorch's separable anti-aliased resampling (as PIL's). Downsampling widens
each output's filter to cover every input it spans; the taps are normalised to sum to one."""
from __future__ import annotations

import math

import jax.numpy as jnp
import numpy as np

from ...ops import nn as nn_ops
from ...ops.registry import SAVES_NOTHING, Op


def _triangle(x: np.ndarray) -> np.ndarray:
    x = np.abs(x)
    return np.where(x < 1, 1 - x, 0.0)


def _keys_cubic(x: np.ndarray) -> np.ndarray:
    """Keys' cubic convolution with a = -0.5 (the anti-aliased kernels' choice, not upsample_bicubic2d's -0.75)."""
    a, x = -0.5, np.abs(x)
    near = ((a + 2) * x - (a + 3)) * x * x + 1
    far = ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return np.where(x < 1, near, np.where(x < 2, far, 0.0))


def _lanczos3(x: np.ndarray) -> np.ndarray:
    return np.where(np.abs(x) < 3, np.sinc(x) * np.sinc(x / 3), 0.0)


# filter, taps of the filter at scale 1
_FILTERS = {"bilinear": (_triangle, 2), "bicubic": (_keys_cubic, 4), "lanczos": (_lanczos3, 6)}


def _weights(in_size: int, out_size: int, align_corners: bool, scale, mode: str) -> np.ndarray:
    """The (out, in) matrix: output i centred at scale * (i + 0.5), its filter stretched by the scale when
    downsampling, clipped to the input and normalised."""
    if align_corners:
        scale = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    else:
        scale = 1.0 / scale if scale is not None and scale > 0 else in_size / out_size
    fn, taps = _FILTERS[mode]
    support = taps * 0.5 * scale if scale >= 1.0 else taps * 0.5
    widest = math.ceil(support) * 2 + 1
    inverse = 1.0 / scale if scale >= 1.0 else 1.0
    matrix = np.zeros((out_size, in_size))
    for i in range(out_size):
        center = scale * (i + 0.5)
        low = max(int(center - support + 0.5), 0)
        count = min(max(min(int(center + support + 0.5), in_size) - low, 0), widest)
        taps_at = fn((np.arange(low, low + count) - center + 0.5) * inverse)
        total = taps_at.sum()
        matrix[i, low:low + count] = taps_at / total if total != 0 else taps_at
    return matrix


def _resample_aa(x, sizes, align_corners, scales, mode):
    """Width first, then height, as PyTorch's separable kernel runs."""
    for axis, out_size, scale in ((x.ndim - 1, sizes[1], scales[1]), (x.ndim - 2, sizes[0], scales[0])):
        matrix = jnp.asarray(_weights(x.shape[axis], out_size, align_corners, scale, mode), x.dtype)
        x = nn_ops._resample(x, matrix, np.zeros(axis))
    return x


UPSAMPLE_AA = {mode: Op(f"_upsample_{mode}2d_aa", _resample_aa, grad_name=f"Upsample{mode.capitalize()}2DAaBackward0",
                        promote="none", saves=SAVES_NOTHING) for mode in _FILTERS}
