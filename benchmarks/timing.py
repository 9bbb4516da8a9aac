"""Timing one step: warm-up, calibrated inner loops, several repeats, median and spread.

Every call is followed by the implementation's sync, so asynchronous dispatch (JAX, CUDA) is
timed to completion rather than to the moment the call returns, and each timed run of calls ends
with its `finish`, which computes whatever the implementation left for a later call (pjtorch's
pending writes), so no work escapes the clock.
"""

import math
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True)
class Policy:
    """How hard to measure: quick runs trade precision for a run under a minute."""

    warmup: int
    repeats: int
    min_sample_s: float
    budget_s: float


QUICK = Policy(warmup=1, repeats=5, min_sample_s=0.002, budget_s=0.5)
FULL = Policy(warmup=1, repeats=11, min_sample_s=0.02, budget_s=6.0)
MIN_REPEATS = 3
CALIBRATION_CALLS = 3


@dataclass(frozen=True)
class Timing:
    """Seconds per call. first_call_s includes compilation, the rest are warm."""

    first_call_s: float
    median_s: float
    q1_s: float
    q3_s: float
    min_s: float
    max_s: float
    repeats: int
    inner_loops: int

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


@dataclass(frozen=True)
class Calibration:
    """What a case's warm-up found: its first (compiling) call, and how many calls make one sample."""

    first_call_s: float
    inner: int
    repeats: int


def calibrate(step: Callable[[], Any], sync: Callable[[Any], None], policy: Policy,
              finish: Callable[[Any], None] | None = None) -> Calibration:
    first_call_s = _time_calls(step, sync, 1, finish)
    for _ in range(policy.warmup):
        sync(step())
    # The fastest of a few calls: a later call may still compile (pjtorch fuses a graph it meets again), and a
    # sample of one slow call per round would be timed cold, after the other implementations' rounds.
    one_call_s = max(min(_time_calls(step, sync, 1, finish) for _ in range(CALIBRATION_CALLS)), 1e-9)
    inner = max(1, math.ceil(policy.min_sample_s / one_call_s))
    return Calibration(first_call_s, inner, _affordable_repeats(one_call_s * inner, policy))


def sample(step: Callable[[], Any], sync: Callable[[Any], None], calibration: Calibration,
           finish: Callable[[Any], None] | None = None) -> float:
    """Seconds per call over one sample's calls."""
    return _time_calls(step, sync, calibration.inner, finish) / calibration.inner


def _time_calls(step: Callable[[], Any], sync: Callable[[Any], None], calls: int,
                finish: Callable[[Any], None] | None = None) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        outputs = step()
        sync(outputs)
    if finish is not None:
        finish(outputs)
    return time.perf_counter() - start


def _affordable_repeats(sample_s: float, policy: Policy) -> int:
    """Fewer repeats for slow cases, so one huge matmul cannot eat the run's time."""
    return max(MIN_REPEATS, min(policy.repeats, int(policy.budget_s / sample_s)))


def summarise(calibration: Calibration, samples: list[float]) -> Timing:
    q1, _, q3 = statistics.quantiles(samples, n=4, method="inclusive")
    return Timing(
        first_call_s=calibration.first_call_s,
        median_s=statistics.median(samples),
        q1_s=q1,
        q3_s=q3,
        min_s=min(samples),
        max_s=max(samples),
        repeats=len(samples),
        inner_loops=calibration.inner,
    )
