"""`torch.cuda.memory`: the allocator's statistics, read from JAX's device memory stats.

PyTorch's CPU-only build reports zeros and an empty stats dict, and fails where it needs the allocator."""
from __future__ import annotations

import collections
import warnings

from ..tensor.device import gpu_devices
from ._state import gpu, missing_binding

# PyTorch's statistic names, and the JAX memory_stats entry each is read from.
_STATS = {
    "allocated_bytes.all.current": "bytes_in_use",
    "allocated_bytes.all.peak": "peak_bytes_in_use",
    "reserved_bytes.all.current": "bytes_reserved",
    "reserved_bytes.all.peak": "peak_bytes_reserved",
    "num_alloc_retries": "num_allocs",
}


def memory_stats(device=None) -> collections.OrderedDict:
    if not gpu_devices():
        return collections.OrderedDict()
    raw = gpu(device).memory_stats() or {}
    stats = collections.OrderedDict((name, int(raw.get(key, 0))) for name, key in _STATS.items())
    if not stats["reserved_bytes.all.current"]:  # allocators that reserve no more than they hand out
        stats["reserved_bytes.all.current"] = stats["allocated_bytes.all.current"]
        stats["reserved_bytes.all.peak"] = stats["allocated_bytes.all.peak"]
    return stats


def _stat(device, name: str) -> int:
    return memory_stats(device).get(name, 0)


def memory_allocated(device=None) -> int:
    return _stat(device, "allocated_bytes.all.current")


def max_memory_allocated(device=None) -> int:
    return _stat(device, "allocated_bytes.all.peak")


def memory_reserved(device=None) -> int:
    return _stat(device, "reserved_bytes.all.current")


def max_memory_reserved(device=None) -> int:
    return _stat(device, "reserved_bytes.all.peak")


def _renamed(old: str, new: str) -> None:
    warnings.warn(f"`torch.cuda.{old}` has been renamed to `torch.cuda.{new}`", FutureWarning, stacklevel=3)


def memory_cached(device=None) -> int:
    _renamed("memory_cached", "memory_reserved")
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    _renamed("max_memory_cached", "max_memory_reserved")
    return max_memory_reserved(device)


def reset_peak_memory_stats(device=None) -> None:
    """JAX keeps its peaks for the life of the process; PyTorch's CPU-only build has no allocator to reset."""
    if not gpu_devices():
        missing_binding("_cuda_resetPeakMemoryStats")
    gpu(device)


def _reset_all_peaks(old: str, device) -> None:
    warnings.warn(f"torch.cuda.{old} now calls torch.cuda.reset_peak_memory_stats, which resets /all/ peak memory "
                  "stats.", FutureWarning, stacklevel=3)
    reset_peak_memory_stats(device)


def reset_max_memory_allocated(device=None) -> None:
    _reset_all_peaks("reset_max_memory_allocated", device)


def reset_max_memory_cached(device=None) -> None:
    _reset_all_peaks("reset_max_memory_cached", device)


def empty_cache() -> None:
    """JAX's allocator keeps its pool; there is nothing PyTorch-like to release."""


def mem_get_info(device=None) -> tuple:
    """(free, total) bytes on the device."""
    raw = gpu(device).memory_stats() or {}
    total = int(raw.get("bytes_limit", 0))
    return total - int(raw.get("bytes_in_use", 0)), total


def set_per_process_memory_fraction(fraction: float, device=None) -> None:
    gpu(device)
    if not 0 <= fraction <= 1:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")


def memory_snapshot() -> list:
    if not gpu_devices():
        missing_binding("_cuda_memorySnapshot")
    return []


def memory_summary(device=None, abbreviated: bool = False) -> str:
    """A table of the statistics JAX reports (PyTorch's own table adds allocator internals JAX does not have)."""
    stats = memory_stats(device)
    if not stats:
        raise KeyError("allocated_bytes.all.current")
    rule = "|" + "=" * 47 + "|"
    lines = [rule, "|" + "PyTorch CUDA memory summary, device ID 0".center(47) + "|", rule,
             "|        Metric         |  Cur Usage | Peak Usage |", rule]
    for label, current, peak in (("Allocated memory", "allocated_bytes.all.current", "allocated_bytes.all.peak"),
                                 ("GPU reserved memory", "reserved_bytes.all.current", "reserved_bytes.all.peak")):
        lines.append(f"| {label:<21} | {_mebibytes(stats[current])} | {_mebibytes(stats[peak])} |")
    lines.append(rule)
    return "\n".join(lines) + "\n"


def _mebibytes(count: int) -> str:
    return f"{count / 2**20:>6.1f} MiB"
