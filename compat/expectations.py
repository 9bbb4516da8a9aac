"""Recorded PyTorch behaviour of one script: ``expected/<name>.out`` plus ``expected/<name>.json``.

The ``.out`` file is the normalised output exactly as PyTorch printed it, so it reads (and
diffs) like a terminal session. The ``.json`` file holds what is not output: the exit status,
the 1-based numbers of the lines that change with the random seed or timing, and the PyTorch
build that produced it. A ``cuda`` variant (``<name>.cuda.out``) is PyTorch's behaviour with a
GPU present, for scripts that cannot run without one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Expectation:
    """What PyTorch printed, how it exited, and which lines are random."""

    output: str
    exit_code: int
    random_lines: frozenset[int] = frozenset()
    recorded_with: str = ""
    notes: tuple[str, ...] = field(default=())


def expectation_paths(expected_dir: Path, name: str, variant: str = "") -> tuple[Path, Path]:
    """The ``.out`` and ``.json`` paths of a script's recording (``variant`` e.g. ``cuda``)."""
    stem = f"{name}.{variant}" if variant else name
    return expected_dir / f"{stem}.out", expected_dir / f"{stem}.json"


def load_expectation(expected_dir: Path, name: str, variant: str = "") -> Expectation | None:
    """The recording, or None when the script was never recorded (in that variant)."""
    out_path, meta_path = expectation_paths(expected_dir, name, variant)
    if not out_path.exists() or not meta_path.exists():
        return None
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    return Expectation(
        output=out_path.read_text(encoding="utf-8"),
        exit_code=meta["exit_code"],
        random_lines=frozenset(meta.get("random_lines", ())),
        recorded_with=meta.get("recorded_with", ""),
        notes=tuple(meta.get("notes", ())),
    )


def save_expectation(expected_dir: Path, name: str, expectation: Expectation, variant: str = "") -> None:
    """Write the recording as a ``.out``/``.json`` pair."""
    out_path, meta_path = expectation_paths(expected_dir, name, variant)
    expected_dir.mkdir(parents=True, exist_ok=True)
    out_path.write_text(expectation.output, encoding="utf-8")
    meta = {
        "exit_code": expectation.exit_code,
        "random_lines": sorted(expectation.random_lines),
        "recorded_with": expectation.recorded_with,
    }
    if expectation.notes:
        meta["notes"] = list(expectation.notes)
    meta_path.write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
