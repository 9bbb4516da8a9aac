"""Running one script in its own process, the way a user would, and capturing what it prints.

Each script gets a fresh interpreter so no state (imports, random seeds, compiled caches in
memory) leaks between scripts. stdout and stderr share one pipe, unbuffered, so warnings and
tracebacks land where they happen among the printed lines.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from compat.outputs import normalise_output


@dataclass(frozen=True)
class RunResult:
    """What one run printed (normalised), how it ended, and how long it took."""

    output: str
    exit_code: int | None
    timed_out: bool
    seconds: float


def run_script(
    command: Sequence[str],
    script: Path,
    *,
    timeout_s: float,
    cwd: Path,
    extra_env: Mapping[str, str] | None = None,
) -> RunResult:
    """Run ``command + [script]`` in a new process group; kill the whole group on timeout."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "PYTHONIOENCODING": "utf-8", **(extra_env or {})}
    start = time.monotonic()
    process = subprocess.Popen(
        [*command, str(script)],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        raw, _ = process.communicate(timeout=timeout_s)
        timed_out = False
    except subprocess.TimeoutExpired:
        _kill_group(process)
        raw, _ = process.communicate()
        timed_out = True
    seconds = time.monotonic() - start
    output = normalise_output(raw.decode("utf-8", errors="replace"))
    return RunResult(output, None if timed_out else process.returncode, timed_out, seconds)


def _kill_group(process: subprocess.Popen) -> None:
    """Kill the script and anything it started (it leads its own process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
