"""`torch.cuda`: CUDA devices are JAX's GPU devices."""
from __future__ import annotations

from typing import NamedTuple

from ..tensor.device import device as _device, gpu_devices, normalize
from ..tensor.legacy import CUDA_TYPES as _LEGACY_TYPES

globals().update({legacy.__name__: legacy for legacy in _LEGACY_TYPES.values()})  # torch.cuda.FloatTensor, ...


def is_available() -> bool:
    return bool(gpu_devices())


def device_count() -> int:
    return len(gpu_devices())


def _gpu(index=None):
    gpus = gpu_devices()
    if not gpus:
        raise AssertionError("Torch not compiled with CUDA enabled")
    if isinstance(index, (str, _device)):
        index = normalize(index).index
    index = 0 if index is None else index
    if index >= len(gpus):
        raise AssertionError("Invalid device id")
    return gpus[index]


def current_device() -> int:
    _gpu()
    return 0


def get_device_name(device=None) -> str:
    return _gpu(device).device_kind


class _DeviceProperties(NamedTuple):
    name: str
    total_memory: int
    major: int
    minor: int
    multi_processor_count: int


def get_device_properties(device=None) -> _DeviceProperties:
    gpu = _gpu(device)
    stats = gpu.memory_stats() or {}
    capability = str(getattr(gpu, "compute_capability", "0.0")).split(".")
    return _DeviceProperties(gpu.device_kind, int(stats.get("bytes_limit", 0)), int(capability[0]),
                             int(capability[1]) if len(capability) > 1 else 0,
                             int(getattr(gpu, "core_count", 0)))


def get_device_capability(device=None) -> tuple:
    properties = get_device_properties(device)
    return properties.major, properties.minor


def synchronize(device=None) -> None:
    """Waits for all queued work on the device (JAX dispatches asynchronously too)."""
    import jax

    for array in jax.live_arrays():
        if any(d == _gpu(device) for d in array.devices()):
            array.block_until_ready()


def _stat(device, key: str) -> int:
    return int((_gpu(device).memory_stats() or {}).get(key, 0))


def memory_allocated(device=None) -> int:
    return _stat(device, "bytes_in_use")


def max_memory_allocated(device=None) -> int:
    return _stat(device, "peak_bytes_in_use")


def memory_reserved(device=None) -> int:
    return _stat(device, "bytes_reserved") or _stat(device, "bytes_in_use")


def empty_cache() -> None:
    """JAX's allocator keeps its pool; there is nothing PyTorch-like to release."""


def manual_seed(seed: int) -> None:
    from ..tensor.random import manual_seed as seed_all

    seed_all(seed)


manual_seed_all = manual_seed


def is_bf16_supported() -> bool:
    return is_available()


def set_device(device) -> None:
    _gpu(device)


class device:
    """Context manager selecting a CUDA device; pjtorch places work on the index given per tensor."""

    def __init__(self, device) -> None:
        self.index = normalize(device).index if not isinstance(device, int) else device

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None
