"""`torch.profiler`: wall-clock timing of the regions a program marks with `record_function`.

pjtorch's ops run as compiled XLA calls whose own timing JAX's profiler owns, so the events here are the marked
regions (and the profiled block as a whole is not an event, as in PyTorch); `key_averages().table()` prints them in
PyTorch's table layout, with self time being a region's time less that of the regions nested in it.
"""
from __future__ import annotations

import enum
import functools
import json
import os
import threading
import time
import warnings
from typing import Callable, Iterable


class ProfilerActivity(enum.Enum):
    CPU = 0
    XPU = 1
    MTIA = 2
    CUDA = 3
    HPU = 4
    PrivateUse1 = 5

    def __repr__(self) -> str:
        return f"<{type(self).__name__}.{self.name}: {self.value}>"

    def __str__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


class ProfilerAction(enum.Enum):
    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait: int, warmup: int, active: int, repeat: int = 0, skip_first: int = 0) -> Callable:
    """Which action each step takes: after `skip_first` steps, cycles of `wait` idle, `warmup` and `active`
    recorded steps (the last of which hands the trace over), `repeat` times (0: forever)."""
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError("Invalid profiler schedule arguments")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results", UserWarning, stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step: int) -> ProfilerAction:
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if repeat > 0 and step // cycle >= repeat:
            return ProfilerAction.NONE
        position = step % cycle
        if position < wait:
            return ProfilerAction.NONE
        if position < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if position < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _always_record(step: int) -> ProfilerAction:
    return ProfilerAction.RECORD


class FunctionEvent:
    """One timed region: its name, start and end (µs since the profile began), thread and nesting."""

    def __init__(self, id: int, name: str, thread: int, start_us: float, end_us: float) -> None:
        self.id, self.name, self.key, self.thread = id, name, name, thread
        self.start_us, self.end_us = start_us, end_us
        self.cpu_children: list = []
        self.cpu_parent: FunctionEvent | None = None
        self.count = 1

    @property
    def cpu_time_total(self) -> float:
        return self.end_us - self.start_us

    @property
    def self_cpu_time_total(self) -> float:
        return self.cpu_time_total - sum(child.cpu_time_total for child in self.cpu_children)

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count

    def __repr__(self) -> str:
        return (f"<FunctionEvent id={self.id} name={self.name} cpu_time={_format_us(self.cpu_time_total)} "
                f"start_us={self.start_us:.3f} end_us={self.end_us:.3f} thread={self.thread}>")


class FunctionEventAvg:
    """The events of one name, added up."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0

    def add(self, event) -> "FunctionEventAvg":
        self.count += event.count
        self.cpu_time_total += event.cpu_time_total
        self.self_cpu_time_total += event.self_cpu_time_total
        return self

    @property
    def cpu_time(self) -> float:
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={_format_us(self.self_cpu_time_total)} "
                f"cpu_time={_format_us(self.cpu_time)}>")


_COLUMNS = (("Self CPU %", None), ("Self CPU", "self_cpu_time_total"), ("CPU total %", None),
            ("CPU total", "cpu_time_total"), ("CPU time avg", "cpu_time"), ("# of Calls", "count"))


class EventList(list):
    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> "EventList":
        averages: dict = {}
        for event in self:
            averages.setdefault(event.key, FunctionEventAvg(event.key)).add(event)
        return EventList(averages.values())

    @property
    def self_cpu_time_total(self) -> float:
        return sum(event.self_cpu_time_total for event in self)

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for event in self:
            total.add(event)
        return total

    def table(self, sort_by: str | None = None, row_limit: int = 100, max_src_column_width: int = 75,
              max_name_column_width: int = 55, max_shapes_column_width: int = 80, header: str | None = None,
              top_level_events_only: bool = False) -> str:
        """PyTorch's table: a name column as wide as the longest name plus four, then six 12-wide columns."""
        rows = list(self)
        if sort_by is not None:
            rows.sort(key=lambda event: getattr(event, sort_by), reverse=True)
        rows = rows[:row_limit] if row_limit > 0 else rows
        total = self.self_cpu_time_total
        name_width = min(max([len(event.key) for event in rows] + [4]) + 4, max_name_column_width)
        rule = "-" * name_width + "  " + "".join("-" * 12 + "  " for _ in _COLUMNS)
        lines = [rule, "Name".rjust(name_width) + "  " + "".join(title.rjust(12) + "  " for title, _ in _COLUMNS),
                 rule]
        for event in rows:
            cells = (_percent(event.self_cpu_time_total, total), _format_us(event.self_cpu_time_total),
                     _percent(event.cpu_time_total, total), _format_us(event.cpu_time_total),
                     _format_us(event.cpu_time), str(event.count))
            name = event.key if len(event.key) <= name_width else event.key[:name_width - 3] + "..."
            lines.append(name.rjust(name_width) + "  " + "".join(cell.rjust(12) + "  " for cell in cells))
        lines += [rule, f"Self CPU time total: {_format_us(total)}", ""]
        if header is not None:
            lines.insert(0, header)
        return "\n".join(lines)


def _format_us(us: float) -> str:
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


def _percent(part: float, whole: float) -> str:
    return f"{100 * part / whole:.2f}%" if whole else "0.00%"


_ACTIVE: list = []  # profilers now recording, innermost last
_NESTING = threading.local()


class profile:
    """Records the marked regions run inside it (on every thread), following `schedule` when one is given."""

    def __init__(self, activities: Iterable[ProfilerActivity] | None = None, schedule: Callable | None = None,
                 on_trace_ready: Callable | None = None, record_shapes: bool = False, profile_memory: bool = False,
                 with_stack: bool = False, with_flops: bool = False, with_modules: bool = False,
                 experimental_config=None, execution_trace_observer=None, acc_events: bool = False,
                 use_cuda: bool | None = None, enabled: bool = True, **kwargs) -> None:
        self.activities = set(activities) if activities is not None else {ProfilerActivity.CPU}
        self.schedule = schedule or _always_record
        self.on_trace_ready = on_trace_ready
        self.record_shapes, self.profile_memory, self.with_stack = record_shapes, profile_memory, with_stack
        self.enabled = enabled
        self.step_num = 0
        self._events = EventList()
        self._stale = False  # the events are a trace already handed over
        self._origin = time.perf_counter()

    def __enter__(self) -> "profile":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self) -> None:
        if self.enabled:
            self._origin = time.perf_counter()
            _ACTIVE.append(self)

    def stop(self) -> None:
        if self in _ACTIVE:
            _ACTIVE.remove(self)
            if self.on_trace_ready is not None and self.schedule(self.step_num) in (ProfilerAction.RECORD,
                                                                                    ProfilerAction.RECORD_AND_SAVE):
                self.on_trace_ready(self)

    def step(self) -> None:
        """Ends one step of the schedule: a step that completes an active span hands the trace over, and the next
        span records afresh."""
        if self.schedule(self.step_num) is ProfilerAction.RECORD_AND_SAVE:
            if self.on_trace_ready is not None:
                self.on_trace_ready(self)
            self._stale = True
        self.step_num += 1

    def _add(self, event: FunctionEvent) -> None:
        if self.schedule(self.step_num) in (ProfilerAction.RECORD, ProfilerAction.RECORD_AND_SAVE):
            if self._stale:
                self._events, self._stale = EventList(), False
            self._events.append(event)

    def events(self) -> EventList:
        return self._events

    def key_averages(self, group_by_input_shape: bool = False, group_by_stack_n: int = 0) -> EventList:
        return self._events.key_averages(group_by_input_shape, group_by_stack_n)

    @property
    def function_events(self) -> EventList:
        return self._events

    def table(self, **kwargs) -> str:
        return self._events.table(**kwargs)

    def export_chrome_trace(self, path: str) -> None:
        """The events in the Chrome trace-event format (chrome://tracing, Perfetto)."""
        trace = [{"ph": "X", "cat": "user_annotation", "name": e.name, "pid": 0, "tid": e.thread,
                  "ts": e.start_us, "dur": e.cpu_time_total} for e in self._events]
        with open(path, "w") as file:
            json.dump({"traceEvents": trace}, file)


def tensorboard_trace_handler(dir_name: str, worker_name: str | None = None, use_gzip: bool = False) -> Callable:
    """An on_trace_ready that writes each trace as a Chrome trace file into `dir_name`."""
    def handler(prof: profile) -> None:
        os.makedirs(dir_name, exist_ok=True)
        name = worker_name or f"{os.uname().nodename}_{os.getpid()}"
        prof.export_chrome_trace(os.path.join(dir_name, f"{name}.{int(time.time() * 1000)}.pt.trace.json"))

    return handler


class record_function:
    """Marks a region (a context manager, or a decorator) for the profilers running around it."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._start = None

    def __enter__(self) -> "record_function":
        self._start = time.perf_counter()
        stack = getattr(_NESTING, "stack", None)
        if stack is None:
            stack = _NESTING.stack = []
        self._children: list = []
        stack.append(self)
        return self

    def __exit__(self, *exc) -> None:
        end = time.perf_counter()
        _NESTING.stack.pop()
        for prof in list(_ACTIVE):
            event = FunctionEvent(len(prof._events) + 1, self.name, threading.get_ident(),
                                  (self._start - prof._origin) * 1e6, (end - prof._origin) * 1e6)
            event.cpu_children = [child for child in self._children if child in prof._events]
            for child in event.cpu_children:
                child.cpu_parent = event
            prof._add(event)
            if _NESTING.stack:
                _NESTING.stack[-1]._children.append(event)

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapper
