"""`F.pad`: PyTorch's last-dim-first pad tuples, constant (negative pads crop), reflect, replicate, circular."""
from __future__ import annotations

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...tensor.tensor import Tensor
from .._utils import static


# The kernel names autocast's op lists use for these modes.
_KERNEL_NAMES = {"reflect": "reflection", "replicate": "replication"}


def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    pad = tuple(pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    pairs = [(pad[2 * i], pad[2 * i + 1]) for i in range(len(pad) // 2)]
    width = ((0, 0),) * (input.ndim - len(pairs)) + tuple(reversed(pairs))
    if mode == "constant":
        return dispatch.apply(nn_ops.PAD["constant"], (input,), static(pad_width=width, mode=mode,
                                                                       value=0 if value is None else value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if input.ndim - len(pairs) not in (1, 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if value:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument")
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
