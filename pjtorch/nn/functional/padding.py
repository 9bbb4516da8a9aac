"""`F.pad`: PyTorch's last-dim-first pad tuples, constant (negative pads crop), reflect, replicate, circular."""
from __future__ import annotations

import numbers

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...tensor import dtypes
from ...tensor.tensor import Tensor
from .._utils import static


# The kernel names autocast's op lists use for these modes.
_KERNEL_NAMES = {"reflect": "reflection", "replicate": "replication"}


def _check_pad_argument(pad) -> tuple:
    """PyTorch's argument parser: a sequence of ints (not bools, not a Tensor)."""
    if isinstance(pad, Tensor):
        raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, not Tensor")
    pad = tuple(pad)
    for index, item in enumerate(pad):
        if isinstance(item, Tensor) and item.dtype.category == dtypes.INTEGER:
            continue
        if isinstance(item, bool) or not isinstance(item, numbers.Integral):
            if index == 0:
                raise TypeError("pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type "
                                f"{type(item).__name__} at pos 0")
            raise TypeError(f"pad(): argument 'pad' failed to unpack the object at pos {index + 1} with error \"type "
                            f"must be tuple of ints,but got {type(item).__name__}\"")
    return tuple(int(item) for item in pad)


def _check_constant_crop(input: Tensor, width: tuple) -> None:
    """Negative pads crop first (PyTorch narrows the input), so no crop may exceed the dim."""
    if any(size + min(low, 0) + min(high, 0) < 0 for size, (low, high) in zip(input.shape, width)):
        raise RuntimeError("narrow(): length must be non-negative.")


def _check_edge_mode_input(input: Tensor, mode: str, spatial: int) -> None:
    """reflect and replicate: no bool tensors, and every dim but the batch one non-empty."""
    kernel = f"{_KERNEL_NAMES[mode]}_pad{spatial}d"
    inner = input.shape[1:] if input.ndim == spatial + 2 else input.shape
    if 0 in inner:
        raise RuntimeError(f"Expected {spatial + 1}D or {spatial + 2}D (batch mode) tensor with possibly 0 batch size "
                           f"and other non-zero dimensions for input, but got: {list(input.shape)}")
    if input.dtype is dtypes.bool:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    pad = _check_pad_argument(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    width = ((0, 0),) * (input.ndim - len(pairs)) + tuple(reversed(pairs))
    if mode == "constant":
        _check_constant_crop(input, width)
        return dispatch.apply(nn_ops.PAD["constant"], (input,), static(pad_width=width, mode=mode,
                                                                       value=0 if value is None else value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value:
        raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
    if input.ndim - len(pairs) not in (1, 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode in _KERNEL_NAMES:
        _check_edge_mode_input(input, mode, len(pairs))
    if mode == "reflect":  # checked from the last dim, whose pair is PyTorch's argument #4
        for i, (low, high) in enumerate(pairs):
            dim = input.ndim - 1 - i
            if max(low, high) >= input.shape[dim] and (low or high):
                raise RuntimeError(f"Argument #{4 + 2 * i}: Padding size should be less than the corresponding input "
                                   f"dimension, but got: padding ({low}, {high}) at dimension {dim} of input "
                                   f"{list(input.shape)}")
    if mode == "circular" and any(max(low, high) > input.shape[dim] for dim, (low, high) in enumerate(width)):
        raise RuntimeError("Padding value causes wrapping around more than once.")
    op = nn_ops.PAD["circular"] if mode == "circular" else nn_ops.PAD[(mode, len(pairs))]
    (input,) = cast_inputs(f"{_KERNEL_NAMES.get(mode, mode)}_pad{len(pairs)}d", input)
    return dispatch.apply(op, (input,), static(pad_width=width, mode=mode, value=0))
