"""Line-by-line comparison of expected and actual output.

Lines are compared exactly, except lines the recorder found to change with the random seed
or with timing: pjtorch cannot reproduce PyTorch's random stream, so for those only the
shape of the line is compared (the words, and each number's format), never the values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-+]?)(?P<mantissa>\d+\.\d*|\.\d+|\d+)(?P<exponent>[eE][-+]?\d+)?(?!\w)"
)
_SPACE_AROUND_TOKEN = re.compile(r"\s*(\x00[^\x00]+\x00)\s*")
_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class Mismatch:
    """The first differing line (1-based), with both sides; None stands for a missing line."""

    line: int
    expected: str | None
    actual: str | None


def number_format(text: str) -> str:
    """The line's format: numbers become tokens naming integer / fixed-N / scientific-N.

    Signs are part of a number, padding around numbers is ignored (PyTorch pads to align
    columns, and the width depends on the values) and other whitespace runs count as one.
    Hexadecimal addresses (``<MulBackward0 object at 0x7f...>``) become one token.
    """
    addressless = _ADDRESS.sub("\x00<address>\x00", text)
    tokenised = _NUMBER.sub(lambda m: f"\x00{_format_token(m)}\x00", addressless)
    tight = _SPACE_AROUND_TOKEN.sub(r"\1", tokenised)
    return _WHITESPACE.sub(" ", tight).strip().replace("\x00", "")


def _format_token(match: re.Match) -> str:
    mantissa = match["mantissa"]
    decimals = len(mantissa.partition(".")[2])
    if match["exponent"]:
        return f"<sci:{decimals}>"
    if "." in mantissa:
        return f"<fixed:{decimals}>"
    return "<int>"


def lines_match(expected: str, actual: str, is_random: bool) -> bool:
    """Exact equality, or equality of format for a random line."""
    if expected == actual:
        return True
    return is_random and number_format(expected) == number_format(actual)


def first_mismatch(expected: str, actual: str, random_lines: frozenset[int] = frozenset()) -> Mismatch | None:
    """The first line where ``actual`` departs from ``expected``, or None when they match."""
    expected_lines = expected.splitlines()
    actual_lines = actual.splitlines()
    for index in range(max(len(expected_lines), len(actual_lines))):
        want = expected_lines[index] if index < len(expected_lines) else None
        got = actual_lines[index] if index < len(actual_lines) else None
        if want is None or got is None or not lines_match(want, got, index + 1 in random_lines):
            return Mismatch(index + 1, want, got)
    return None
