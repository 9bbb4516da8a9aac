"""The ratchet: scripts that passed once must keep passing, and the list only grows.

``compat/passing.txt`` holds one script name a line (``#`` starts a comment). CI fails when
any listed script does not pass; ``--update-ratchet`` adds the scripts that newly pass.
"""

from __future__ import annotations

from pathlib import Path

from compat.harness import Outcome, Status

_HEADER = (
    "# Scripts that pass under pjtorch: CI fails if any of them stops passing.\n"
    "# Grown by `python -m compat --update-ratchet`; never remove a line to make CI pass.\n"
)


def read_ratchet(path: Path) -> list[str]:
    """The listed script names; an absent file lists none."""
    if not path.exists():
        return []
    lines = (line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines())
    return [line for line in lines if line]


def regressions(listed: list[str], outcomes: list[Outcome]) -> dict[str, str]:
    """Listed scripts that did not pass in this run, with the reason for each."""
    by_name = {outcome.entry.name: outcome for outcome in outcomes}
    failing = {}
    for name in listed:
        outcome = by_name.get(name)
        if outcome is None:
            failing[name] = "not run (unknown name, or left out of this run)"
        elif outcome.status is not Status.PASSED:
            failing[name] = outcome.verdict
    return failing


def newly_passing(listed: list[str], outcomes: list[Outcome]) -> list[str]:
    """Scripts that passed in this run and are not yet listed."""
    known = set(listed)
    return [o.entry.name for o in outcomes if o.status is Status.PASSED and o.entry.name not in known]


def write_ratchet(path: Path, names: list[str]) -> None:
    """Write the list, sorted, under its explanatory header."""
    path.write_text(_HEADER + "".join(f"{name}\n" for name in sorted(set(names))), encoding="utf-8")
