"""Spatial transformers: affine_grid makes sampling grids from affine matrices, grid_sample reads an
image (4-D) or volume (5-D) at those points. Each is one op (PyTorch's grad_fn) whose gradients JAX derives:
a bilinear sample is a weighted sum of its 2**d corner gathers, a bicubic one of its 4 x 4 taps."""
from __future__ import annotations

import itertools
import warnings

import jax.numpy as jnp
import numpy as np
from jax import lax

from ... import dispatch
from ...ops.registry import Op
from ...tensor.tensor import Tensor
from .._utils import static

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _align_corners(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def _base_coordinates(size: int, align_corners: bool) -> np.ndarray:
    """The normalised [-1, 1] positions of `size` pixel centres (or corners, with align_corners)."""
    if size <= 1:
        return np.zeros(size)
    line = np.linspace(-1.0, 1.0, size)
    return line if align_corners else line * ((size - 1) / size)


def _affine_grid(theta, sizes, align_corners):
    """Every output position (x, y[, z], 1), x varying along the last spatial dim, mapped through theta."""
    axes = [_base_coordinates(n, align_corners) for n in reversed(sizes)]
    mesh = np.meshgrid(*reversed(axes), indexing="ij")[::-1]
    base = jnp.asarray(np.stack([*mesh, np.ones(sizes)], -1).reshape(1, -1, len(sizes) + 1), theta.dtype)
    grid = jnp.matmul(base, jnp.swapaxes(theta, 1, 2), precision=lax.Precision.HIGHEST)
    return grid.reshape(theta.shape[0], *sizes, len(sizes))


AFFINE_GRID = Op("affine_grid_generator", _affine_grid, grad_name="AffineGridGeneratorBackward0", promote="none")


def affine_grid(theta: Tensor, size: list, align_corners: bool | None = None) -> Tensor:
    """(N, *spatial, d) sampling grid: theta (N, d, d+1) applied to every output position (x, y[, z], 1)."""
    align_corners = _align_corners(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    spatial = len(size) - 2
    if spatial not in (2, 3):
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if theta.ndim != 3 or tuple(theta.shape[-2:]) != (spatial, spatial + 1):
        raise ValueError(f"Expected a batch of {spatial}D affine matrices of shape Nx{spatial}x{spatial + 1} for size "
                         f"{size}. Got {theta.shape}.")
    if align_corners and min(size[2:]) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the documentation of "
                      "affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return dispatch.apply(AFFINE_GRID, (theta,), static(sizes=tuple(int(n) for n in size[2:]),
                                                        align_corners=bool(align_corners)))


def _reflect(coordinate, twice_low: int, twice_high: int):
    """Coordinates folded back into [low, high] as a mirror would (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return jnp.zeros_like(coordinate)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = jnp.abs(coordinate - low)
    extra = jnp.fmod(distance, span)
    flips = jnp.floor(distance / span)
    return jnp.where(jnp.fmod(flips, 2) == 0, extra + low, span - extra + low)


def _padded(pixel, size: int, padding_mode: str, align_corners: bool):
    """A pixel coordinate brought inside the image as the padding mode says (zeros: left outside). The clip
    multiplies the gradient by 0 at and beyond the edges (so a negative one becomes -0.0), as PyTorch's
    clip_coordinates_set_grad does."""
    if padding_mode == "reflection":
        pixel = _reflect(pixel, 0, 2 * (size - 1)) if align_corners else _reflect(pixel, -1, 2 * size - 1)
    if padding_mode != "zeros":
        keep = ((pixel > 0) & (pixel < size - 1)).astype(pixel.dtype)
        edge = jnp.where(pixel <= 0, 0, size - 1).astype(pixel.dtype)
        pixel = pixel * keep + edge * (1 - keep)
    return pixel


def _unnormalized(grid, size: int, align_corners: bool):
    return (grid + 1) / 2 * (size - 1) if align_corners else ((grid + 1) * size - 1) / 2


def _read(flat, positions: list, sizes: list):
    """flat (N, C, prod(sizes)) at integer-valued positions (one array (N, P) per dim); 0 outside the image."""
    inside, index = None, None
    for position, size in zip(positions, sizes):
        ok = (position >= 0) & (position <= size - 1)
        inside = ok if inside is None else inside & ok
        clamped = jnp.clip(position, 0, size - 1).astype(jnp.int32)
        index = clamped if index is None else index * size + clamped
    values = jnp.take_along_axis(flat, index[:, None, :], axis=2)
    return jnp.where(inside[:, None, :], values, jnp.zeros((), flat.dtype))


def _cubic_coefficients(t) -> list:
    """upsample_bicubic2d's four tap weights (A = -0.75) at fraction t."""
    a = -0.75

    def near(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _bicubic(flat, pixels: list, sizes: list, padding_mode: str, align_corners: bool):
    """4 x 4 taps around each point, each tap's position padded, combined along x and then along y."""
    (y, x), (height, width) = pixels, sizes
    x0, y0 = jnp.floor(lax.stop_gradient(x)), jnp.floor(lax.stop_gradient(y))
    wx, wy = _cubic_coefficients(x - x0), _cubic_coefficients(y - y0)
    total = None
    for i in range(4):
        row_y = _padded(y0 + (i - 1), height, padding_mode, align_corners)
        row = None
        for j in range(4):
            column_x = _padded(x0 + (j - 1), width, padding_mode, align_corners)
            term = _read(flat, [jnp.trunc(row_y), jnp.trunc(column_x)], sizes) * wx[j][:, None, :]
            row = term if row is None else row + term
        total = row * wy[i][:, None, :] if total is None else total + row * wy[i][:, None, :]
    return total


def _grid_sample(input, grid, mode, padding_mode, align_corners):
    batch, channels, sizes = input.shape[0], input.shape[1], list(input.shape[2:])
    spatial = len(sizes)
    points = grid.reshape(batch, -1, spatial)
    flat = input.reshape(batch, channels, -1)
    # pixel coordinates ordered like input's dims (grid's last dim lists them innermost-first)
    raw = [_unnormalized(points[..., spatial - 1 - d], sizes[d], align_corners) for d in range(spatial)]
    if mode == "bicubic":
        total = _bicubic(flat, raw, sizes, padding_mode, align_corners)
    else:
        pixels = [_padded(p, n, padding_mode, align_corners) for p, n in zip(raw, sizes)]
        if mode == "nearest":
            total = _read(flat, [jnp.round(lax.stop_gradient(p)) for p in pixels], sizes)
        else:
            total = None
            floors = [jnp.floor(lax.stop_gradient(p)) for p in pixels]
            for offsets in itertools.product((0, 1), repeat=spatial):
                weight = None
                for p, f, o in zip(pixels, floors, offsets):
                    factor = 1 - jnp.abs(p - f - o)
                    weight = factor if weight is None else weight * factor
                term = _read(flat, [f + o for f, o in zip(floors, offsets)], sizes) * weight[:, None, :]
                total = term if total is None else total + term
    return total.reshape(batch, channels, *grid.shape[1:-1])


GRID_SAMPLE = {spatial: Op("grid_sampler", _grid_sample, grad_name=f"GridSampler{spatial}DBackward0", promote="none")
               for spatial in (2, 3)}


def grid_sample(input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros",
                align_corners: bool | None = None) -> Tensor:
    """input (N, C, *in_spatial) read at grid (N, *out_spatial, d), whose last dim is (x, y[, z]) in [-1, 1]."""
    if mode not in _MODES:
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but "
                         f"got: '{mode}'")
    if padding_mode not in _PADDINGS:
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    align_corners = _align_corners(align_corners)
    spatial = input.ndim - 2
    if spatial not in (2, 3) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0]:
        raise RuntimeError("grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
                           f"{list(input.shape)} and grid with sizes {list(grid.shape)}")
    if grid.shape[-1] != spatial:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {spatial} in last dimension, but got grid "
                           f"with sizes {list(grid.shape)}")
    if mode == "bicubic" and spatial == 3:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    return dispatch.apply(GRID_SAMPLE[spatial], (input, grid), static(mode=mode, padding_mode=padding_mode,
                                                                      align_corners=bool(align_corners)))
