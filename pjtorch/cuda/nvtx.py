"""`torch.cuda.nvtx`: profiler range markers. pjtorch ships no NVTX library, as PyTorch's CPU-only build does not:
the markers fail with its error, while `range()` is a context manager that fails only when entered."""
from __future__ import annotations

import contextlib

_NOT_INSTALLED = "NVTX functions not installed. Are you sure you have a CUDA build?"


def _unavailable(*args, **kwargs):
    raise RuntimeError(_NOT_INSTALLED)


range_push = range_pop = range_start = range_end = mark = _unavailable


@contextlib.contextmanager
def range(msg: str, *args, **kwargs):
    range_push(msg.format(*args, **kwargs))
    try:
        yield
    finally:
        range_pop()
