"""Runs every (case, device, implementation) side by side, recording failures instead of crashing.

pjtorch is under construction: a missing feature must cost one row of the report, not the run.
"""

from dataclasses import dataclass
from typing import Any

from benchmarks import suite
from benchmarks.devices import Target
from benchmarks.impls import Impl
from benchmarks.progress import ProgressBar
from benchmarks.timing import Policy, Timing, calibrate, sample, summarise

MAX_ERROR_CHARS = 400


@dataclass(frozen=True)
class Task:
    workload: str
    params: dict[str, Any]
    target: Target
    impl: Impl

    def label(self) -> str:
        case = suite.describe(self.workload, self.params)
        return f"{self.workload} {case} [{self.target.name}] {self.impl.name}"


@dataclass(frozen=True)
class Result:
    workload: str
    params: dict[str, Any]
    device: str
    impl: str
    timing: Timing | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "workload": self.workload,
            "params": self.params,
            "device": self.device,
            "impl": self.impl,
            "status": "ok" if self.timing else "failed",
            "timing": self.timing.as_dict() if self.timing else None,
            "error": self.error,
        }


def plan_tasks(
    workloads: list[str], targets: list[Target], impls: list[Impl], quick: bool
) -> list[Task]:
    """Implementations are innermost, so the ones compared run back to back."""
    return [
        Task(name, params, target, impl)
        for name in workloads
        if name in suite.WORKLOADS
        for target in targets
        for params in suite.WORKLOADS[name].params_for(quick, target.name)
        for impl in impls
        if can_run(impl, target)
    ]


def run_tasks(tasks: list[Task], policy: Policy, progress: ProgressBar) -> list[Result]:
    """The implementations of one case are sampled in turn, round after round, so that a slow spell of the
    machine (a shared host swings by 2x over seconds) falls on all of them rather than on whichever ran then."""
    results = []
    for group in _cases(tasks):
        results.extend(_run_case(group, policy, progress))
    return results


def _cases(tasks: list[Task]) -> list[list[Task]]:
    groups: dict = {}
    for task in tasks:
        key = (task.workload, repr(task.params), task.target.name)
        groups.setdefault(key, []).append(task)
    return list(groups.values())


def _run_case(tasks: list[Task], policy: Policy, progress: ProgressBar) -> list[Result]:
    prepared, calibrations, samples, errors = {}, {}, {}, {}
    for i, task in enumerate(tasks):
        progress.start(task.label())
        try:
            prepared[i] = task.impl.prepare(task.workload, task.target, task.params)
            calibrations[i] = calibrate(prepared[i].step, prepared[i].sync, policy, prepared[i].finish)
            samples[i] = []
        except Exception as error:  # any failure of an implementation is a result to report
            errors[i] = describe_error(error)
    rounds = min((c.repeats for c in calibrations.values()), default=0)
    for _ in range(rounds):
        for i in list(samples):
            try:
                samples[i].append(sample(prepared[i].step, prepared[i].sync, calibrations[i], prepared[i].finish))
            except Exception as error:
                errors[i] = describe_error(error)
                del samples[i]
    results = []
    for i, task in enumerate(tasks):
        identity = (task.workload, task.params, task.target.name, task.impl.name)
        if i in samples:
            results.append(Result(*identity, timing=summarise(calibrations[i], samples[i])))
        else:
            results.append(Result(*identity, error=errors[i]))
        progress.advance()
    return results


def describe_error(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:MAX_ERROR_CHARS]


def can_run(impl: Impl, target: Target) -> bool:
    """An implementation that cannot even say is kept, so its error is reported."""
    try:
        return impl.runs_on(target)
    except Exception:
        return True
