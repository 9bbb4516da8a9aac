"""The seeds' CPU-vs-GPU matmul benchmark, run exactly as a user would run it.

It times with `time.time` and synchronises only on CUDA. PyTorch on CPU computes before
returning, but JAX (so pjtorch) dispatches asynchronously, so on CPU the seed's figure can be
dispatch time alone. After each run the device is drained, and the time that takes is
reported as the work still pending when the seed stopped its timer.
"""

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from types import ModuleType
from typing import Any

import jax
import numpy as np

from benchmarks.devices import Target
from benchmarks.impls import Impl, TorchLikeImpl
from benchmarks.progress import ProgressBar
from benchmarks.runner import can_run, describe_error

SEED_NOTE = (
    "As written, the seed times with time.time and synchronises only on CUDA. On CPU PyTorch "
    "computes before returning, but JAX, so pjtorch, dispatches asynchronously, so its figure "
    "can be dispatch time alone; 'pending after' is how long the device still worked after "
    "the seed stopped its timer. The synchronised matmul rows above are the real speed."
)


@dataclass(frozen=True)
class SeedTask:
    impl: TorchLikeImpl
    target: Target
    size: int

    def label(self) -> str:
        return f"seed_matmul {self.size} [{self.target.name}] {self.impl.name}"


@dataclass(frozen=True)
class SeedResult:
    impl: str
    device: str
    size: int
    seconds_per_run: float | None = None
    pending_after_return_s: float | None = None
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"status": "ok" if self.error is None else "failed", **asdict(self)}


def make_seed_benchmark(torch: ModuleType) -> Callable[..., float]:
    """The seed's function, verbatim, with `torch` bound to the module under test."""

    def benchmark_matmul(size, device, num_runs=10):
        """Benchmark matrix multiplication on a given device."""
        a = torch.randn(size, size, device=device)
        b = torch.randn(size, size, device=device)

        # Warm-up run
        _ = a @ b
        if device.type == "cuda":
            torch.cuda.synchronize()

        # Timed runs
        start = time.time()
        for _ in range(num_runs):
            _ = a @ b
        if device.type == "cuda":
            torch.cuda.synchronize()
        elapsed = (time.time() - start) / num_runs
        return elapsed

    return benchmark_matmul


def plan_seed_tasks(
    impls: list[Impl], targets: list[Target], sizes: tuple[int, ...]
) -> list[SeedTask]:
    """The seed is PyTorch code, so only the PyTorch-like implementations run it."""
    torch_like = [impl for impl in impls if isinstance(impl, TorchLikeImpl)]
    return [
        SeedTask(impl, target, size)
        for target in targets
        for impl in torch_like
        if can_run(impl, target)
        for size in sizes
    ]


def run_seed_tasks(tasks: list[SeedTask], progress: ProgressBar) -> list[SeedResult]:
    results = []
    for task in tasks:
        progress.start(task.label())
        results.append(run_seed_task(task))
        progress.advance()
    return results


def run_seed_task(task: SeedTask) -> SeedResult:
    """Drains before too, so the device starts idle and the drain itself is already compiled."""
    identity = (task.impl.name, task.target.name, task.size)
    drain(task.target.jax_device)
    try:
        module = task.impl.module()
        seconds = make_seed_benchmark(module)(task.size, module.device(task.target.torch_device))
    except Exception as error:  # a missing pjtorch feature is a result to report
        drain(task.target.jax_device)
        return SeedResult(*identity, error=describe_error(error))
    return SeedResult(*identity, seconds, drain(task.target.jax_device))


def drain(device: jax.Device) -> float:
    """Seconds until the device has finished all queued work.

    A device runs its computations in order, so a tiny one completes only after them.
    """
    start = time.perf_counter()
    (jax.device_put(np.float32(0.0), device) + 1).block_until_ready()
    return time.perf_counter() - start
