"""Spatial transformers: affine_grid makes sampling grids from affine matrices, grid_sample reads an
image (4-D) or volume (5-D) at those points. Both are composed from tensor ops, so input and grid
gradients come from autograd: a bilinear sample is a weighted sum of its 2**d corner gathers."""
from __future__ import annotations

import itertools
import warnings

from ...tensor import extra_functions, factories, functions
from ...tensor.tensor import Tensor

_MODES = ("bilinear", "nearest")
_PADDINGS = ("zeros", "border", "reflection")


def _align_corners(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                      "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                      "grid_sample for details.", stacklevel=3)
        return False
    return align_corners


def _base_coordinates(size: int, align_corners: bool, like: Tensor) -> Tensor:
    """The normalised [-1, 1] positions of `size` pixel centres (or corners, with align_corners)."""
    if size <= 1:
        return factories.zeros(size, dtype=like.dtype, device=like.device)
    line = factories.linspace(-1.0, 1.0, size, dtype=like.dtype, device=like.device)
    return line if align_corners else line * ((size - 1) / size)


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
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    batch, sizes = size[0], list(size[2:])
    # x varies along the last spatial dim, so the coordinates are laid out innermost-first
    axes = [_base_coordinates(n, align_corners, theta) for n in reversed(sizes)]
    mesh = extra_functions.meshgrid(*reversed(axes), indexing="ij")[::-1]
    base = functions.stack([*mesh, factories.ones(sizes, dtype=theta.dtype, device=theta.device)], -1)
    grid = base.reshape(1, -1, spatial + 1).matmul(theta.transpose(1, 2))
    return grid.reshape(batch, *sizes, spatial)


def _reflect(coordinate: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """Coordinates folded back into [low, high] as a mirror would (PyTorch's reflect_coordinates)."""
    if twice_low == twice_high:
        return coordinate * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coordinate - low).abs()
    extra = distance.fmod(span)
    flips = (distance / span).floor()
    return functions.where(flips.fmod(2) == 0, extra + low, span - extra + low)


def _source_coordinate(grid: Tensor, size: int, padding_mode: str, align_corners: bool) -> Tensor:
    """A normalised grid coordinate as a pixel coordinate along a dim of `size` pixels, padded as asked."""
    pixel = (grid + 1) / 2 * (size - 1) if align_corners else ((grid + 1) * size - 1) / 2
    if padding_mode == "reflection":
        pixel = _reflect(pixel, 0, 2 * (size - 1)) if align_corners else _reflect(pixel, -1, 2 * size - 1)
    if padding_mode != "zeros":
        pixel = pixel.clamp(0, size - 1)
    return pixel


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
    batch, channels, sizes = input.shape[0], input.shape[1], list(input.shape[2:])
    out_spatial = tuple(grid.shape[1:-1])
    points = grid.reshape(batch, -1, spatial)
    # pixel coordinates ordered like input's dims (grid's last dim lists them innermost-first)
    pixels = [_source_coordinate(points[..., spatial - 1 - d], sizes[d], padding_mode, align_corners)
              for d in range(spatial)]
    if mode == "nearest":
        # weight 1 that still depends on the grid, so the grid's gradient is PyTorch's zeros rather than None
        corners = [[(p.round(), p * 0 + 1) for p in pixels]]
    else:
        floors = [p.floor() for p in pixels]
        corners = [[(f + o, 1 - (p - f - o).abs()) for p, f, o in zip(pixels, floors, offsets)]
                   for offsets in itertools.product((0, 1), repeat=spatial)]
    flat = input.reshape(batch, channels, -1)
    total = None
    for corner in corners:
        inside, index, weight = None, None, None
        for d, (position, factor) in enumerate(corner):
            ok = (position >= 0) & (position <= sizes[d] - 1)
            inside = ok if inside is None else inside & ok
            clamped = position.clamp(0, sizes[d] - 1).long()
            index = clamped if index is None else index * sizes[d] + clamped
            weight = factor if weight is None else weight * factor
        values = flat.gather(2, index.unsqueeze(1).expand(batch, channels, index.shape[1]))
        term = functions.where(inside.unsqueeze(1), values * weight.unsqueeze(1), 0.0)
        total = term if total is None else total + term
    return total.reshape(batch, channels, *out_spatial)
