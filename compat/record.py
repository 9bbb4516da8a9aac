"""Record PyTorch's own behaviour for each script: ``python -m compat.record [NAME ...]``.

Needs the real PyTorch (``pip install torch==2.13.0``); pjtorch never imports this module.
Each script runs once as ``python SCRIPT`` (its output is the expectation), then ``--runs``
more times with shifted seeds (``compat._reseed``): lines that differ in any of those runs
depend on random numbers or timing and are marked random, to be compared by format only.
With ``--cuda`` on a machine where PyTorch sees a GPU, scripts flagged ``needs_cuda`` are
recorded into the ``cuda`` variant instead.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from compat.expectations import Expectation, save_expectation
from compat.manifest import ScriptEntry, load_manifest
from compat.paths import DEFAULT_EXPECTED_DIR, DEFAULT_MANIFEST, DEFAULT_SCRIPTS_DIR, REPO_ROOT
from compat.runner import RunResult, run_script

PLAIN_COMMAND = (sys.executable,)


def reseeded_command(offset: int) -> tuple[str, ...]:
    """The command that runs a script with every seed moved by ``offset``."""
    return (sys.executable, "-m", "compat._reseed", str(offset))


def random_lines(base: str, others: list[str]) -> set[int]:
    """1-based numbers of the lines of ``base`` that differ in any of ``others``.

    A run with a different number of lines marks every line from the first one it lacks.
    """
    base_lines = base.splitlines()
    differing: set[int] = set()
    for other in others:
        other_lines = other.splitlines()
        for index, line in enumerate(base_lines):
            if index >= len(other_lines) or other_lines[index] != line:
                differing.add(index + 1)
    return differing


def record_script(entry: ScriptEntry, scripts_dir: Path, runs: int, timeout_s: float) -> tuple[Expectation, list[str]]:
    """Run one script plainly and ``runs`` times reseeded; return the expectation and warnings."""
    script = scripts_dir / f"{entry.name}.py"
    plain = run_script(PLAIN_COMMAND, script, timeout_s=timeout_s, cwd=REPO_ROOT)
    reseeded = [
        run_script(reseeded_command(1000 * run + 7), script, timeout_s=timeout_s, cwd=REPO_ROOT)
        for run in range(1, runs + 1)
    ]
    expectation = Expectation(
        output=plain.output,
        exit_code=plain.exit_code if plain.exit_code is not None else -1,
        random_lines=frozenset(random_lines(plain.output, [r.output for r in reseeded])),
        recorded_with=f"torch {_torch().__version__}",
    )
    return expectation, _warnings(entry, plain, reseeded)


def _warnings(entry: ScriptEntry, plain: RunResult, reseeded: list[RunResult]) -> list[str]:
    """Anything that makes the recording doubtful: a timeout, or reseeded runs ending differently."""
    warnings = []
    if plain.timed_out:
        warnings.append(f"{entry.name}: timed out after {plain.seconds:.0f}s; recording is partial")
    exit_codes = {r.exit_code for r in reseeded} - {plain.exit_code}
    if exit_codes:
        warnings.append(f"{entry.name}: reseeded runs exited {sorted(exit_codes)}, plain run {plain.exit_code}")
    lengths = {len(r.output.splitlines()) for r in reseeded} - {len(plain.output.splitlines())}
    if lengths:
        warnings.append(f"{entry.name}: reseeded runs printed a different number of lines")
    return warnings


def _torch():
    """The real PyTorch, imported only when recording (so tests can import this module)."""
    import torch

    return torch


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m compat.record", description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="scripts to record (default: all in the manifest)")
    parser.add_argument("--runs", type=int, default=3, help="reseeded runs per script (default 3)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per run (default 600)")
    parser.add_argument("--jobs", type=int, default=2, help="scripts recorded at once (default 2)")
    parser.add_argument("--cuda", action="store_true", help="record needs_cuda scripts with a GPU")
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--scripts-dir", type=Path, default=DEFAULT_SCRIPTS_DIR)
    parser.add_argument("--expected-dir", type=Path, default=DEFAULT_EXPECTED_DIR)
    return parser.parse_args(argv)


def selected_entries(args: argparse.Namespace) -> list[ScriptEntry]:
    """The manifest entries to record: those named, and only needs_cuda ones under --cuda."""
    entries = load_manifest(args.manifest)
    if args.names:
        unknown = set(args.names) - {e.name for e in entries}
        if unknown:
            raise SystemExit(f"not in the manifest: {', '.join(sorted(unknown))}")
        entries = [e for e in entries if e.name in args.names]
    if args.cuda:
        entries = [e for e in entries if e.needs_cuda]
    return entries


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.cuda and not _torch().cuda.is_available():
        raise SystemExit("--cuda: this PyTorch sees no GPU")
    variant = "cuda" if args.cuda else ""
    entries = selected_entries(args)

    def record(entry: ScriptEntry) -> list[str]:
        expectation, warnings = record_script(entry, args.scripts_dir, args.runs, args.timeout)
        save_expectation(args.expected_dir, entry.name, expectation, variant)
        print(f"{entry.name}: exit {expectation.exit_code}, "
              f"{len(expectation.output.splitlines())} lines, random {sorted(expectation.random_lines)}")
        return warnings

    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        warnings = [w for ws in pool.map(record, entries) for w in ws]
    for warning in warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
