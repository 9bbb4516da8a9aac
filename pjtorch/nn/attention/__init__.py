"""`torch.nn.attention`: which kernels scaled_dot_product_attention may choose. On CPU PyTorch picks its flash
kernel where the inputs allow it, else the math one; the choice shows in the result's grad_fn and in the errors
raised when the allowed kernels cannot run."""
from __future__ import annotations

import contextlib
import enum
from typing import Iterator

__all__ = ["SDPBackend", "WARN_FOR_UNFUSED_KERNELS", "sdpa_kernel"]

WARN_FOR_UNFUSED_KERNELS = False


class SDPBackend(enum.Enum):
    """The attention kernels, numbered as PyTorch numbers them (not ints, but convertible to one)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __int__(self) -> int:
        return self.value

    def __index__(self) -> int:
        return self.value


# PyTorch's default priority order; every kernel starts enabled.
_PRIORITY = [SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH, SDPBackend.CUDNN_ATTENTION,
             SDPBackend.OVERRIDEABLE]
_enabled = set(_PRIORITY)


def enabled(backend: SDPBackend) -> bool:
    """Whether scaled_dot_product_attention may use `backend`."""
    return backend in _enabled


def set_enabled(backend: SDPBackend, flag: bool) -> None:
    """Allows or forbids `backend` outside any sdpa_kernel block (`torch.backends.cuda.enable_*_sdp`)."""
    (_enabled.add if flag else _enabled.discard)(backend)


def _cur_sdpa_kernel_backends(with_priority: bool = False) -> list:
    order = _PRIORITY if with_priority else [SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION,
                                             SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH,
                                             SDPBackend.OVERRIDEABLE]
    return [backend for backend in order if backend in _enabled]


@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False) -> Iterator[dict]:
    """Only `backends` (one or a list) are enabled inside the block; with set_priority their order is the
    preferred one. Both are restored on exit."""
    global _PRIORITY
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of SDPBackend instances, got "
                             f"{type(backends).__name__}")
    backends = list(dict.fromkeys([backends] if isinstance(backends, SDPBackend) else backends))
    previous, previous_priority = set(_enabled), list(_PRIORITY)
    try:
        _enabled.clear()
        _enabled.update(backends)
        if set_priority:
            _PRIORITY = backends + [backend for backend in previous_priority if backend not in backends]
        yield {}
    finally:
        _enabled.clear()
        _enabled.update(previous)
        _PRIORITY = previous_priority
