"""Formatting the compatibility report: one line per script, a table by seed (and examples), a closing count.

The closing line is ``N passed, M failed, K skipped`` alone on the last line, the form CI
reads. Skipped covers the two kinds of script that cannot show compatibility here: those that
need a GPU where there is none, and those that use names the tutorial never defines; the
line above it says how many of each.
"""

from __future__ import annotations

from collections import Counter

from compat.harness import Outcome, Status

_COLUMNS = (Status.PASSED, Status.FAILED, Status.SKIPPED, Status.UNDEFINED)
_COLUMN_TITLES = ("passed", "failed", "skipped (needs CUDA)", "undefined names")


def script_lines(outcomes: list[Outcome]) -> list[str]:
    """``name  status: reason  [seconds]`` for every script, in order."""
    width = max((len(o.entry.name) for o in outcomes), default=0)
    return [f"{o.entry.name:<{width}}  {o.verdict}{_duration(o)}" for o in outcomes]


def _duration(outcome: Outcome) -> str:
    return f"  [{outcome.result.seconds:.1f}s]" if outcome.result else ""


def seed_table(outcomes: list[Outcome]) -> list[str]:
    """Counts per seed (examples in a row of their own) and overall, one column per status."""
    groups = sorted({o.entry.group for o in outcomes})
    rows = [(group, _counts([o for o in outcomes if o.entry.group == group])) for group in groups]
    rows.append(("total", _counts(outcomes)))
    width = max(len("seed"), *(len(group) for group, _ in rows))
    header = f"{'seed':<{width}}  " + "  ".join(_COLUMN_TITLES)
    body = [
        f"{group:<{width}}  " + "  ".join(f"{counts[status]:>{len(title)}}"
                                          for status, title in zip(_COLUMNS, _COLUMN_TITLES))
        for group, counts in rows
    ]
    return [header, *body]


def _counts(outcomes: list[Outcome]) -> Counter:
    return Counter(o.status for o in outcomes)


def summary_lines(outcomes: list[Outcome]) -> list[str]:
    """The breakdown of skipped scripts, then the closing ``N passed, M failed, K skipped``."""
    counts = _counts(outcomes)
    skipped = counts[Status.SKIPPED] + counts[Status.UNDEFINED]
    breakdown = (
        f"{skipped} skipped = {counts[Status.SKIPPED]} needing CUDA (no GPU here) "
        f"+ {counts[Status.UNDEFINED]} using undefined names (run, but never counted as passing)"
    )
    return [breakdown, f"{counts[Status.PASSED]} passed, {counts[Status.FAILED]} failed, {skipped} skipped"]
