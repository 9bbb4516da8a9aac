"""`torch.cuda`: CUDA devices are JAX's GPU devices.

Where JAX sees no GPU, every function answers as PyTorch's CPU-only build does (the build a CPU machine gets
from `pip install torch`): some return 0 or an empty list, most raise "Torch not compiled with CUDA enabled".
"""
from __future__ import annotations

from typing import NamedTuple

from ..ops import deferred
from ..tensor.device import gpu_devices, normalize
from ..tensor.legacy import CUDA_TYPES as _LEGACY_TYPES
from . import memory, nvtx
from ._state import gpu as _gpu, missing_binding as _missing_binding
from .memory import (empty_cache, max_memory_allocated, max_memory_cached, max_memory_reserved, mem_get_info,
                     memory_allocated, memory_cached, memory_reserved, memory_snapshot, memory_stats, memory_summary,
                     reset_max_memory_allocated, reset_max_memory_cached, reset_peak_memory_stats,
                     set_per_process_memory_fraction)
from .streams import Event, Stream, StreamContext, current_stream, default_stream, stream

globals().update({legacy.__name__: legacy for legacy in _LEGACY_TYPES.values()})  # torch.cuda.FloatTensor, ...

_NVML_MISSING = "nvidia-ml-py does not seem to be installed or it can't be imported."


class OutOfMemoryError(RuntimeError):
    """`torch.cuda.OutOfMemoryError` (also `torch.OutOfMemoryError`)."""


OutOfMemoryError.__module__ = "torch"


def is_available() -> bool:
    return bool(gpu_devices())


def is_initialized() -> bool:
    return is_available()


def init() -> None:
    _gpu()


def device_count() -> int:
    return len(gpu_devices())


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


def get_arch_list() -> list:
    """The architectures the build targets: none in a CPU-only build, the GPU's own otherwise."""
    if not is_available():
        return []
    major, minor = get_device_capability()
    return [f"sm_{major}{minor}"]


def synchronize(device=None) -> None:
    """Waits for all queued work on the device (JAX dispatches asynchronously too), the values pjtorch deferred
    under no_grad included, so that code timed between synchronizations is timed whole."""
    import jax

    gpu = _gpu(device)
    deferred.compute([])
    for array in jax.live_arrays():
        if any(d == gpu for d in array.devices()):
            array.block_until_ready()


def manual_seed(seed: int) -> None:
    """Seeds the one generator pjtorch draws from on every device, as PyTorch's CPU-only build leaves CUDA
    seeding a no-op."""
    from ..tensor.random import manual_seed as seed_all

    seed_all(seed)


manual_seed_all = manual_seed


def seed() -> None:
    if is_available():
        from ..tensor.random import seed as reseed

        reseed()


seed_all = seed


def initial_seed() -> int:
    _gpu()
    from ..tensor.random import initial_seed as default_initial_seed

    return default_initial_seed()


def get_rng_state(device="cuda"):
    _gpu()
    from ..tensor.random import get_rng_state as default_state

    return default_state()


def set_rng_state(new_state, device="cuda") -> None:
    if is_available():
        from ..tensor.random import set_rng_state as set_default_state

        set_default_state(new_state)


def get_rng_state_all() -> list:
    return [get_rng_state() for _ in range(device_count())]


def set_rng_state_all(new_states) -> None:
    for state in new_states:
        set_rng_state(state)


def is_bf16_supported() -> bool:
    return is_available()


def is_tf32_supported() -> bool:
    return is_available() and get_device_capability()[0] >= 8


def set_device(device) -> None:
    if not is_available():
        _missing_binding("_cuda_setDevice")
    _gpu(device)


def ipc_collect() -> None:
    _gpu()


def set_sync_debug_mode(debug_mode) -> None:
    _gpu()


def get_sync_debug_mode() -> int:
    _gpu()
    return 0


def current_blas_handle() -> int:
    _gpu()
    return 0


def is_current_stream_capturing() -> bool:
    if not is_available():
        raise RuntimeError("Tried to instantiate dummy base class _cuda_isCurrentStreamCapturing")
    return False


def _nvml(*args, **kwargs):
    """utilization(), temperature(), ...: PyTorch reads them through nvidia-ml-py, which pjtorch does not ship."""
    raise ModuleNotFoundError(_NVML_MISSING)


utilization = temperature = power_draw = clock_rate = memory_usage = _nvml


def list_gpu_processes(device=None) -> str:
    return "pynvml module not found, please install nvidia-ml-py"


class device:
    """Context manager selecting a CUDA device; pjtorch places work on the index given per tensor."""

    def __init__(self, device) -> None:
        self.index = normalize(device).index if not isinstance(device, int) else device

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


class device_of(device):
    """`torch.cuda.device_of(t)`: the device context of a tensor's device."""

    def __init__(self, obj) -> None:
        super().__init__(obj.get_device() if obj.is_cuda else -1)


__all__ = [name for name in globals() if not name.startswith("_") and name not in ("annotations", "NamedTuple")]
