"""Normalising a script's captured output so PyTorch's and pjtorch's can be compared.

What is kept is what a user would compare by eye: printed lines, warnings and error messages.
What is dropped depends on where the code lives rather than on what it does: traceback
frames (file paths, line numbers, the runner's own frames) and warning source locations.
"""

from __future__ import annotations

import re

_TRACEBACK_HEADER = "Traceback (most recent call last):"
_WARNING_LINE = re.compile(r"^.+:\d+: (?P<category>[A-Za-z_][\w.]*Warning): (?P<message>.*)$")


def normalise_output(text: str) -> str:
    """Collapse each traceback to its exception line(s) and strip warning locations."""
    lines = text.splitlines()
    kept: list[str] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line == _TRACEBACK_HEADER:
            index = _skip_indented(lines, index + 1)
            continue
        warning = _WARNING_LINE.match(line)
        if warning:
            kept.append(f"{warning['category']}: {warning['message']}")
            index = _skip_indented(lines, index + 1)
            continue
        kept.append(line)
        index += 1
    return "".join(line + "\n" for line in kept)


def _skip_indented(lines: list[str], index: int) -> int:
    """Index of the first line at or after ``index`` that is not indented (frames, source)."""
    while index < len(lines) and lines[index].startswith(" "):
        index += 1
    return index


def last_line(text: str) -> str:
    """The last non-blank line: for a crash, the exception's message."""
    lines = [line for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else ""
