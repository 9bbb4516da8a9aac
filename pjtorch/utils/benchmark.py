"""`torch.utils.benchmark`: Timer and Measurement, timing Python statements with `time.perf_counter`.

pjtorch runs CPU ops before returning, so timing a statement times its work; Measurement prints as PyTorch's does.
"""
from __future__ import annotations

import statistics
import sys
import textwrap
import time
from typing import Callable

import jax

from ..ops import deferred


class Measurement:
    """The times of one statement: `number_per_run` runs per measurement, one raw time per measurement."""

    def __init__(self, number_per_run: int, raw_times: list, task_spec: "Timer") -> None:
        self.number_per_run = number_per_run
        self.raw_times = raw_times
        self.task_spec = task_spec
        self.stmt, self.setup = task_spec.stmt, task_spec.setup
        self.label, self.sub_label = task_spec.label, task_spec.sub_label
        self.description, self.num_threads = task_spec.description, task_spec.num_threads
        self.env = task_spec.env

    @property
    def times(self) -> list:
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def median(self) -> float:
        return statistics.median(self.times)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.times)

    @property
    def iqr(self) -> float:
        if len(self.times) < 2:
            return 0.0
        q1, _, q3 = statistics.quantiles(self.times, n=4, method="inclusive")
        return q3 - q1

    @property
    def title(self) -> str:
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        if "\n" not in self.stmt:
            return self.stmt + (f": {self.sub_label}" if self.sub_label else "")
        return "stmt:\n" + textwrap.indent(self.stmt, "  ")

    def __repr__(self) -> str:
        lines = [object.__repr__(self), self.title]
        if self.description:
            lines.append(self.description)
        if self.setup != "pass":
            lines.append(f"setup: {self.setup}" if "\n" not in self.setup else
                         "\n" + "setup:\n" + textwrap.indent(self.setup, "  ") + "\n")
        elif "\n" in self.stmt and self.label is None:
            lines.append("")
        times = self.times
        threads = f"{self.num_threads} thread" + ("s" if self.num_threads > 1 else "")
        if len(times) == 1:
            lines += [f"  {_time(times[0])}", f"  1 measurement, {self.number_per_run} runs , {threads}"]
        else:
            lines.append(f"  Median: {_time(self.median)}")
            if len(times) >= 4:
                q1, _, q3 = statistics.quantiles(times, n=4, method="inclusive")
                lines.append(f"  IQR:    {_time(q3 - q1, self.median)} ({_time(q1, self.median, unit=False)} to "
                             f"{_time(q3, self.median, unit=False)})")
            lines.append(f"  {len(times)} measurements, {self.number_per_run} runs per measurement, {threads}")
            if self.iqr > _NOISY * self.median:
                lines += [f"  WARNING: Interquartile range is {100 * self.iqr / self.median:.1f}% of the median "
                          "measurement.", "           This suggests significant environmental influence."]
        return "\n".join(lines)


Measurement.__module__ = "torch.utils.benchmark.utils.common"

_NOISY = 0.1  # an IQR above this fraction of the median gets PyTorch's warning
_UNITS = ((1e-9, "ns"), (1e-6, "us"), (1e-3, "ms"), (1.0, "s"))


def _time(seconds: float, scale_of: float | None = None, unit: bool = True) -> str:
    """Two decimals in the largest unit the value (or `scale_of`) reaches one of."""
    reference = seconds if scale_of is None else scale_of
    scale, name = _UNITS[0]
    for candidate in _UNITS:
        if reference >= candidate[0]:
            scale, name = candidate
    return f"{seconds / scale:.2f}" + (f" {name}" if unit else "")


def _wait_for_work() -> None:
    """The clock stops once the statements' work is done, as PyTorch's Timer synchronizes CUDA: the values deferred
    under no_grad are computed, and JAX's asynchronous dispatch is waited for."""
    deferred.compute([])
    for array in jax.live_arrays():
        array.block_until_ready()


class Timer:
    def __init__(self, stmt: str = "pass", setup: str = "pass", global_setup: str = "",
                 timer: Callable[[], float] = time.perf_counter, globals: dict | None = None,
                 label: str | None = None, sub_label: str | None = None, description: str | None = None,
                 env: str | None = None, num_threads: int = 1, language: str = "python") -> None:
        if not isinstance(stmt, str):
            raise ValueError("Currently only a `str` stmt is supported.")
        self.stmt, self.setup = textwrap.dedent(stmt).strip(), textwrap.dedent(setup).strip()
        self.label, self.sub_label, self.description, self.env = label, sub_label, description, env
        self.num_threads = num_threads
        self._timer = timer
        namespace = dict(globals or {})
        namespace.setdefault("torch", sys.modules.get("torch") or sys.modules["pjtorch"])
        if global_setup:
            exec(global_setup, namespace)
        self._globals = namespace
        self._code = compile(self.stmt, "<timeit-src>", "exec")
        self._setup_code = compile(self.setup, "<timeit-setup>", "exec")

    def _run(self, number: int) -> float:
        namespace = dict(self._globals)
        exec(self._setup_code, namespace)
        code = self._code
        start = self._timer()
        for _ in range(number):
            exec(code, namespace)
        _wait_for_work()
        return self._timer() - start

    def timeit(self, number: int = 1000000) -> Measurement:
        self._run(max(number // 100, 2))  # warm-up: compiles pjtorch's kernels for these shapes
        return Measurement(number, [self._run(number)], self)

    repeat_measurement = timeit

    def repeat(self, repeat: int = -1, number: int = -1):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def autorange(self, callback=None):
        raise NotImplementedError("See `Timer.blocked_autorange.`")

    def _block_size(self) -> int:
        """Runs per measurement: the least power of ten whose block takes 10 ms, so that the timer's own cost and
        resolution do not count."""
        number = 1
        while self._run(number) < 1e-2 and number < 10 ** 9:
            number *= 10
        return number

    def blocked_autorange(self, callback: Callable | None = None, min_run_time: float = 0.2) -> Measurement:
        number = self._block_size()
        raw, total = [], 0.0
        while total < min_run_time or len(raw) < 2:
            elapsed = self._run(number)
            raw.append(elapsed)
            total += elapsed
            if callback is not None:
                callback(number, elapsed)
        return Measurement(number, raw, self)

    def adaptive_autorange(self, threshold: float = 0.1, *, min_run_time: float = 0.01, max_run_time: float = 10.0,
                           callback: Callable | None = None) -> Measurement:
        """Blocks until the IQR falls within `threshold` of the median (or `max_run_time` passes)."""
        number = self._block_size()
        raw, total = [], 0.0
        while total < max_run_time:
            elapsed = self._run(number)
            raw.append(elapsed)
            total += elapsed
            if callback is not None:
                callback(number, elapsed)
            measurement = Measurement(number, raw, self)
            if total >= min_run_time and len(raw) > 3 and measurement.iqr / measurement.median < threshold:
                break
        return Measurement(number, raw, self)
