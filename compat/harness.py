"""Judging scripts: run each one under pjtorch and compare with PyTorch's recording.

A script passes only when every line matches (random lines by format) and it exits as
PyTorch did. Scripts that demand a GPU are skipped where there is none; scripts that use
names the tutorial never defines still run, but are reported in their own category, never
as passing. Everything here is parameterised by a ``Suite`` so tests can point it at fake
scripts and recordings.
"""

from __future__ import annotations

import enum
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from compat.compare import Mismatch, first_mismatch
from compat.expectations import Expectation, load_expectation
from compat.manifest import ScriptEntry
from compat.outputs import last_line
from compat.paths import DEFAULT_EXPECTED_DIR, DEFAULT_SCRIPTS_DIR, REPO_ROOT
from compat.runner import RunResult, run_script

PJTORCH_COMMAND = (sys.executable, "-m", "pjtorch.run")
CPU_ONLY_ENV = {"JAX_PLATFORMS": "cpu", "CUDA_VISIBLE_DEVICES": ""}
DEFAULT_TIMEOUT_S = 60.0


@dataclass(frozen=True)
class Suite:
    """Where the scripts and recordings live, and how to run a script.

    Scripts not flagged needs_cuda run with the GPU hidden: PyTorch's recordings were made on
    a CPU, and a script that finds a GPU prints different things.
    """

    scripts_dir: Path = DEFAULT_SCRIPTS_DIR
    expected_dir: Path = DEFAULT_EXPECTED_DIR
    command: tuple[str, ...] = PJTORCH_COMMAND
    timeout_s: float = DEFAULT_TIMEOUT_S
    cwd: Path = REPO_ROOT
    gpu_present: bool = False


class Status(enum.Enum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    UNDEFINED = "undefined names"


@dataclass(frozen=True)
class Outcome:
    """The verdict on one script, with a short reason for anything but a pass."""

    entry: ScriptEntry
    status: Status
    reason: str = ""
    result: RunResult | None = None
    expectation: Expectation | None = None

    @property
    def verdict(self) -> str:
        """``status: reason``, or just the status for a pass."""
        return f"{self.status.value}: {self.reason}" if self.reason else self.status.value


def evaluate(entry: ScriptEntry, suite: Suite) -> Outcome:
    """Run one script (unless it cannot run here) and judge it."""
    if entry.needs_cuda and not suite.gpu_present:
        return Outcome(entry, Status.SKIPPED, "needs CUDA (no GPU here)")
    expectation = load_expectation(suite.expected_dir, entry.name, _variant(entry))
    if expectation is None:
        return Outcome(entry, Status.FAILED, "no recorded PyTorch output (python -m compat.record)")
    result = run_script(
        suite.command,
        suite.scripts_dir / f"{entry.name}.py",
        timeout_s=entry.timeout_s or suite.timeout_s,
        cwd=suite.cwd,
        extra_env={} if entry.needs_cuda else CPU_ONLY_ENV,
    )
    difference = describe_difference(expectation, result)
    if entry.undefined_names:
        return Outcome(entry, Status.UNDEFINED, _undefined_reason(entry, difference), result, expectation)
    status = Status.PASSED if difference is None else Status.FAILED
    return Outcome(entry, status, difference or "", result, expectation)


def _variant(entry: ScriptEntry) -> str:
    """needs_cuda scripts are compared with PyTorch's behaviour on a GPU, the rest with CPU's."""
    return "cuda" if entry.needs_cuda else ""


def _undefined_reason(entry: ScriptEntry, difference: str | None) -> str:
    names = ", ".join(entry.undefined_names)
    detail = "output matches PyTorch's" if difference is None else difference
    return f"{names} ({detail})"


def describe_difference(expectation: Expectation, result: RunResult) -> str | None:
    """None when the run reproduces the recording; otherwise the short reason it does not."""
    if result.timed_out:
        return f"timeout after {result.seconds:.0f}s"
    mismatch = first_mismatch(expectation.output, result.output, expectation.random_lines)
    if mismatch is None and result.exit_code == expectation.exit_code:
        return None
    if result.exit_code is not None and result.exit_code < 0:
        return f"crash: killed by signal {-result.exit_code}"
    crashed_differently = result.exit_code != 0 and last_line(result.output) != last_line(expectation.output)
    if crashed_differently:
        return f"crash: {last_line(result.output)}"
    if mismatch is not None:
        return _mismatch_reason(mismatch)
    return f"exit status {result.exit_code}, PyTorch's {expectation.exit_code}"


def _mismatch_reason(mismatch: Mismatch) -> str:
    start = _excerpt_start(mismatch.expected, mismatch.actual)
    expected, actual = _excerpt(mismatch.expected, start), _excerpt(mismatch.actual, start)
    return f"mismatch at line {mismatch.line}: expected {expected}, got {actual}"


def _excerpt_start(expected: str | None, actual: str | None, context: int = 15) -> int:
    """Where to start quoting both lines so the first differing character is in view."""
    if expected is None or actual is None:
        return 0
    return max(0, len(os.path.commonprefix([expected, actual])) - context)


def _excerpt(line: str | None, start: int, width: int = 45) -> str:
    if line is None:
        return "end of output"
    text = line[start:]
    clipped = text if len(text) <= width else text[:width] + "..."
    return ("..." if start else "") + repr(clipped)


def evaluate_all(entries: list[ScriptEntry], suite: Suite, jobs: int = 2) -> list[Outcome]:
    """Judge every script, ``jobs`` at a time, returning outcomes in the entries' order."""
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        return list(pool.map(lambda entry: evaluate(entry, suite), entries))


def gpu_present(python: str = sys.executable) -> bool:
    """Whether JAX in this environment sees a GPU (asked in a child process; False on any error)."""
    probe = "import jax; print(any(d.platform == 'gpu' for d in jax.devices()))"
    try:
        answer = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return answer.returncode == 0 and answer.stdout.strip().endswith("True")
