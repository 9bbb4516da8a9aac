"""`torch.accelerator`: the device-generic API over the one accelerator kind pjtorch has, CUDA (JAX's GPUs)."""
from __future__ import annotations

from . import cuda
from .tensor.device import device

_NONE_AVAILABLE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return cuda.is_available()


def device_count() -> int:
    return cuda.device_count()


def current_accelerator(check_available: bool = False) -> device | None:
    return device("cuda") if cuda.is_available() else None


def _require() -> None:
    if not cuda.is_available():
        raise RuntimeError(_NONE_AVAILABLE)


def current_device_index() -> int:
    _require()
    return cuda.current_device()


current_device_idx = current_device_index


def set_device_index(device) -> None:
    _require()
    cuda.set_device(device)


set_device_idx = set_device_index


def synchronize(device=None) -> None:
    _require()
    cuda.synchronize(device)


def current_stream(device=None) -> cuda.Stream:
    _require()
    return cuda.current_stream(device)


def empty_cache() -> None:
    _require()
    cuda.empty_cache()


def _memory_statistic(name: str):
    """torch.accelerator's form of a torch.cuda memory statistic: refused where there is no accelerator."""
    def statistic(device_index=None) -> int:
        _require()
        return getattr(cuda, name)(device_index)

    statistic.__name__ = name
    return statistic


memory_allocated, max_memory_allocated, memory_reserved, max_memory_reserved = (_memory_statistic(name) for name in (
    "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved"))
