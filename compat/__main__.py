"""``python -m compat``: run the seed scripts and examples under pjtorch and report how many match PyTorch.

Examples::

    python -m compat                       # the full report (exits 0 whatever fails)
    python -m compat s001_b05 s001_b06     # only these scripts
    python -m compat --show s001_b05       # unified diff of PyTorch's output vs pjtorch's
    python -m compat --ratchet             # exit 1 if a script in compat/passing.txt fails
    python -m compat --update-ratchet      # add newly passing scripts to compat/passing.txt
    python -m compat --command python      # run under real PyTorch: checks the recordings
"""

from __future__ import annotations

import argparse
import difflib
import os
import shlex
import sys
from pathlib import Path

from compat.harness import DEFAULT_TIMEOUT_S, PJTORCH_COMMAND, Outcome, Suite, evaluate, evaluate_all, gpu_present
from compat.manifest import ScriptEntry, load_manifest
from compat.paths import DEFAULT_EXPECTED_DIR, DEFAULT_MANIFEST, DEFAULT_RATCHET, DEFAULT_SCRIPTS_DIR
from compat.ratchet import newly_passing, read_ratchet, regressions, write_ratchet
from compat.report import script_lines, seed_table, summary_lines


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m compat",
        description="Run the seed tutorials' scripts and the examples under pjtorch and compare with PyTorch's "
                    "recorded output.",
    )
    parser.add_argument("names", nargs="*", help="scripts to run (default: every script in the manifest)")
    parser.add_argument("--show", metavar="NAME", help="print a unified diff of one script's expected vs actual output")
    parser.add_argument("--ratchet", nargs="?", const=DEFAULT_RATCHET, type=Path, metavar="FILE",
                        help=f"exit 1 if a script listed in FILE does not pass (default FILE: {DEFAULT_RATCHET.name})")
    parser.add_argument("--update-ratchet", action="store_true", help="add newly passing scripts to the ratchet file")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S,
                        help=f"seconds per script unless the manifest says (default {DEFAULT_TIMEOUT_S:.0f})")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="scripts run at once")
    gpu = parser.add_mutually_exclusive_group()
    gpu.add_argument("--cuda", dest="gpu", action="store_true", default=None, help="run needs_cuda scripts")
    gpu.add_argument("--no-cuda", dest="gpu", action="store_false", help="skip needs_cuda scripts")
    parser.add_argument("--command", type=shlex.split, default=list(PJTORCH_COMMAND),
                        help="command that runs a script (default: python -m pjtorch.run)")
    parser.add_argument("--manifest", type=Path, default=DEFAULT_MANIFEST)
    parser.add_argument("--scripts-dir", type=Path, default=DEFAULT_SCRIPTS_DIR)
    parser.add_argument("--expected-dir", type=Path, default=DEFAULT_EXPECTED_DIR)
    return parser.parse_args(argv)


def build_suite(args: argparse.Namespace, entries: list[ScriptEntry]) -> Suite:
    """The suite the arguments describe; asks JAX about a GPU only when it matters."""
    if args.gpu is None:
        has_gpu = any(entry.needs_cuda for entry in entries) and gpu_present()
    else:
        has_gpu = args.gpu
    return Suite(
        scripts_dir=args.scripts_dir,
        expected_dir=args.expected_dir,
        command=tuple(args.command),
        timeout_s=args.timeout,
        gpu_present=has_gpu,
    )


def select(entries: list[ScriptEntry], names: list[str]) -> list[ScriptEntry]:
    """The entries named (all when none are), refusing names the manifest lacks."""
    unknown = sorted(set(names) - {entry.name for entry in entries})
    if unknown:
        raise SystemExit(f"not in the manifest: {', '.join(unknown)}")
    return [entry for entry in entries if not names or entry.name in names]


def show(entry: ScriptEntry, suite: Suite) -> int:
    """Print the verdict and a unified diff of PyTorch's recorded output vs pjtorch's."""
    outcome = evaluate(entry, suite)
    print(f"{entry.name}: {outcome.verdict}")
    if outcome.result is None or outcome.expectation is None:
        return 0
    expected, actual = outcome.expectation, outcome.result
    print(f"PyTorch exit {expected.exit_code}, pjtorch exit {actual.exit_code}; "
          f"random lines (compared by format): {sorted(expected.random_lines) or 'none'}")
    diff = difflib.unified_diff(
        expected.output.splitlines(keepends=True),
        actual.output.splitlines(keepends=True),
        fromfile=f"{entry.name} (PyTorch)",
        tofile=f"{entry.name} (pjtorch)",
    )
    sys.stdout.writelines(diff)
    return 0


def apply_ratchet(args: argparse.Namespace, outcomes: list[Outcome]) -> int:
    """Check (and with --update-ratchet grow) the ratchet file; 1 on any regression."""
    path = args.ratchet or DEFAULT_RATCHET
    listed = read_ratchet(path)
    failing = regressions(listed, outcomes) if args.ratchet else {}
    for name, reason in failing.items():
        print(f"ratchet: REGRESSION {name}: {reason}")
    if args.ratchet and not failing:
        print(f"ratchet: all {len(listed)} listed scripts pass ({path.name})")
    if args.update_ratchet:
        added = newly_passing(listed, outcomes)
        write_ratchet(path, listed + added)
        print(f"ratchet: added {len(added)} script(s) to {path.name}: {' '.join(added) or '-'}")
    return 1 if failing else 0


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    entries = select(load_manifest(args.manifest), [args.show] if args.show else args.names)
    suite = build_suite(args, entries)
    if args.show:
        return show(entries[0], suite)
    outcomes = evaluate_all(entries, suite, jobs=args.jobs)
    print("\n".join(script_lines(outcomes)))
    print()
    print("\n".join(seed_table(outcomes)))
    print()
    status = apply_ratchet(args, outcomes) if args.ratchet or args.update_ratchet else 0
    print("\n".join(summary_lines(outcomes)))
    return status


if __name__ == "__main__":
    sys.exit(main())
