"""`torch.cuda.Stream` and `torch.cuda.Event`.

JAX orders the work of one device itself, so a stream is a name for the device's queue and entering one changes
nothing. An event records the time at which everything queued so far has finished, so `elapsed_time` between two
events measures the GPU work between them, as the timing idiom of PyTorch tutorials expects."""
from __future__ import annotations

import time

from ..tensor.device import gpu_devices
from ._state import gpu


class Stream:
    def __init__(self, device=None, priority: int = 0, **kwargs) -> None:
        if not gpu_devices():
            raise RuntimeError("torch.cuda.Stream requires CUDA support")
        self.device = gpu(device)
        self.priority = priority

    def synchronize(self) -> None:
        from . import synchronize

        synchronize()

    def query(self) -> bool:
        self.synchronize()
        return True

    def wait_stream(self, stream: "Stream") -> None:
        """Work on one device is already in order."""

    def wait_event(self, event: "Event") -> None:
        """Work on one device is already in order."""

    def record_event(self, event: "Event | None" = None) -> "Event":
        event = Event() if event is None else event
        event.record(self)
        return event

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and self.device == other.device

    def __hash__(self) -> int:
        return hash(self.device)

    def __repr__(self) -> str:
        return f"<torch.cuda.Stream device=cuda:{self.device.id} cuda_stream=0x0>"


class Event:
    def __init__(self, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False) -> None:
        if not gpu_devices():
            raise RuntimeError("Tried to instantiate dummy base class Event")
        self.enable_timing = enable_timing
        self._time = None

    def record(self, stream: Stream | None = None) -> None:
        from . import synchronize

        synchronize()
        self._time = time.perf_counter()

    def synchronize(self) -> None:
        """record() waited already."""

    def wait(self, stream: Stream | None = None) -> None:
        """Work on one device is already in order."""

    def query(self) -> bool:
        return True

    def elapsed_time(self, end_event: "Event") -> float:
        """Milliseconds between this event and `end_event`."""
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self._time is None or end_event._time is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        return (end_event._time - self._time) * 1000.0

    def __repr__(self) -> str:
        return "<torch.cuda.Event uninitialized>" if self._time is None else "<torch.cuda.Event recorded>"


def current_stream(device=None) -> Stream:
    gpu(device)
    return Stream(device)


default_stream = current_stream


class StreamContext:
    """`with torch.cuda.stream(s):` — work on one device runs in order, so the context only names the stream."""

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream

    def __enter__(self) -> Stream | None:
        return self.stream

    def __exit__(self, *exc) -> None:
        return None


StreamContext.__module__ = "torch.cuda"


def stream(stream: Stream | None) -> StreamContext:
    return StreamContext(stream)
