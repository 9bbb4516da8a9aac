"""Hooks on saved tensors (`torch.autograd.graph.saved_tensors_hooks`): a pack hook runs when a node saves a tensor
for backward, its unpack hook when backward reads it, so users can offload or transform what the graph keeps.

A node whose tensors were packed runs in the stepwise engine (the fused replay reads saved arrays directly).
"""
from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

from ..tensor.tensor import Tensor


class _State(threading.local):
    def __init__(self) -> None:
        self.hooks: list = []  # (pack_hook, unpack_hook), innermost last
        self.disabled: str | None = None  # the error message while hooks are disabled


STATE = _State()

class saved_tensors_hooks:
    """Within this context, tensors saved for backward go through `pack_hook`, and come back through
    `unpack_hook` when backward needs them."""

    def __init__(self, pack_hook: Callable[[Any], Any], unpack_hook: Callable[[Any], Any]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> "saved_tensors_hooks":
        if STATE.disabled is not None:
            raise RuntimeError(STATE.disabled)
        STATE.hooks.append((self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc_info) -> None:
        STATE.hooks.pop()


class save_on_cpu(saved_tensors_hooks):
    """Saved tensors are kept on the CPU and moved back to their device when backward reads them."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        def pack_to_cpu(tensor):
            return tensor.device, tensor.cpu()

        def unpack_from_cpu(packed):
            device, tensor = packed
            return tensor.to(device, non_blocking=pin_memory)

        super().__init__(pack_to_cpu, unpack_from_cpu)


class disable_saved_tensors_hooks:
    """Within this context, using saved-tensor hooks raises RuntimeError(error_message)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self._previous = STATE.disabled
        STATE.disabled = self.error_message

    def __exit__(self, *exc_info) -> None:
        STATE.disabled = self._previous


def pack(saved: Sequence[tuple]) -> list:
    """Runs the innermost pack hook on each (key, tensor): [(key, unpack hook, what the pack hook returned)]."""
    pack_hook, unpack_hook = STATE.hooks[-1]
    return [(key, unpack_hook, pack_hook(tensor)) for key, tensor in saved]


def unpack(entries: list) -> list:
    """[(key, tensor)] from `pack`'s entries, each through its unpack hook."""
    unpacked = []
    for key, unpack_hook, packed in entries:
        tensor = unpack_hook(packed)
        if not isinstance(tensor, Tensor):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Tensor but got result of type "
                            f"{type(tensor).__name__}")
        unpacked.append((key, tensor))
    return unpacked


def unpacked_arrays(node, arrays: tuple) -> tuple:
    """`arrays` (the node's saved inputs) with each packed input replaced by its unpack hook's result; a saved
    output (key None) is unpacked for the hook's sake only, as the node's vjp reads its inputs."""
    entries = node.packed
    if not entries:
        return arrays
    arrays = list(arrays)
    for position, tensor in unpack(entries):
        if position is not None:
            arrays[position] = tensor._value().astype(arrays[position].dtype)
    return tuple(arrays)
