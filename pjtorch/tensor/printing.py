"""Text of a tensor, character for character as PyTorch 2.13 prints it.

Pure: takes a NumPy host copy of the values plus plain metadata, so the Tensor facade can
call it without this module knowing anything of Tensor, JAX or devices.

The shape of the output, as PyTorch produces it:
- one formatter (width and notation) is chosen from the values that will be printed, i.e.
  after summarisation keeps only ``edgeitems`` at each end of every long dimension;
- floats print as integers with a trailing dot when every finite non-zero value is whole,
  in scientific notation when their magnitudes span too wide a range, else in fixed point;
- rows wrap at ``linewidth``; blocks of ndim >= 3 are separated by blank lines;
- suffixes (device, size, dtype, grad) follow, each moved to its own line when it does not fit.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Protocol

import numpy as np

_ALWAYS_DEFAULT_DTYPES = frozenset({"int64", "bool"})
_ELLIPSIS_ROW = "..."
_ELLIPSIS_ELEMENT = " ..."
_SEPARATOR_WIDTH = len(", ")


@dataclasses.dataclass
class PrintOptions:
    """The global knobs of ``torch.set_printoptions``, with PyTorch's defaults."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


_PROFILES = {
    "default": PrintOptions(precision=4, threshold=1000, edgeitems=3, linewidth=80),
    "short": PrintOptions(precision=2, threshold=1000, edgeitems=2, linewidth=80),
    "full": PrintOptions(precision=4, threshold=math.inf, edgeitems=3, linewidth=80),
}

_options = PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """PyTorch's semantics: a known profile first, then each explicit option on top of it.

    An unknown profile is ignored, and ``sci_mode`` is always assigned, so any call
    without it returns to automatic notation.
    """
    if profile in _PROFILES:
        base = _PROFILES[profile]
        _options.precision = base.precision
        _options.threshold = base.threshold
        _options.edgeitems = base.edgeitems
        _options.linewidth = base.linewidth
    explicit = {"precision": precision, "threshold": threshold, "edgeitems": edgeitems, "linewidth": linewidth}
    for name, value in explicit.items():
        if value is not None:
            setattr(_options, name, value)
    _options.sci_mode = sci_mode


def get_printoptions() -> dict:
    """A copy of the current options, keyed as PyTorch's ``get_printoptions``."""
    return dataclasses.asdict(_options)


class _Formatter(Protocol):
    width: int

    def format(self, value) -> str: ...


@dataclasses.dataclass(frozen=True)
class _PlainFormatter:
    """Integers and booleans: ``str`` of the value, right-aligned to the widest."""

    width: int

    def format(self, value) -> str:
        return str(value).rjust(self.width)


@dataclasses.dataclass(frozen=True)
class _FloatFormatter:
    """Real floats in one notation: 'int' (``3.``), 'fixed' (``3.1416``) or 'sci' (``3.1416e+00``)."""

    notation: str
    precision: int
    width: int

    def format(self, value: float) -> str:
        return self.bare_text(value).rjust(self.width)

    def bare_text(self, value: float) -> str:
        if self.notation == "sci":
            return f"{value:.{self.precision}e}"
        if self.notation == "fixed":
            return f"{value:.{self.precision}f}"
        whole = f"{value:.0f}"
        return whole + "." if math.isfinite(value) else whole


@dataclasses.dataclass(frozen=True)
class _ComplexFormatter:
    """Complex values: real and imaginary parts each keep their own notation and width."""

    real: _FloatFormatter
    imag: _FloatFormatter

    @property
    def width(self) -> int:
        return self.real.width + self.imag.width + len("j")

    def format(self, value: complex) -> str:
        real_text = self.real.format(value.real)
        imag_text = (self.imag.format(value.imag) + "j").lstrip()
        sign = "" if imag_text[0] in "+-" else "+"
        return real_text + sign + imag_text


def _plain_formatter(sample: np.ndarray) -> _PlainFormatter:
    """Width of the longest ``str``; among integers (or bools) it is the min's or the max's."""
    extremes = (sample.min().item(), sample.max().item())
    return _PlainFormatter(width=max(len(str(value)) for value in extremes))


def _float_formatter(sample: np.ndarray) -> _FloatFormatter:
    """Choose notation and width from the finite non-zero values, as PyTorch does."""
    precision = _options.precision
    informative = sample[np.isfinite(sample) & (sample != 0)]
    if informative.size == 0:
        return _FloatFormatter(notation="int", precision=precision, width=1)
    all_whole = bool(np.all(informative == np.ceil(informative)))
    sci = _options.sci_mode
    if sci is None:
        sci = _needs_scientific(np.abs(informative), all_whole)
    notation = "sci" if sci else "int" if all_whole else "fixed"
    sizing = _FloatFormatter(notation=notation, precision=precision, width=0)
    width = max(len(sizing.bare_text(value)) for value in _widest_candidates(informative))
    return dataclasses.replace(sizing, width=width)


def _needs_scientific(magnitudes: np.ndarray, all_whole: bool) -> bool:
    """Too wide a range of magnitudes, too large, or (for non-whole values) too small."""
    smallest = float(magnitudes.min())
    largest = float(magnitudes.max())
    if largest / smallest > 1000.0 or largest > 1.0e8:
        return True
    return not all_whole and smallest < 1.0e-4


def _widest_candidates(values: np.ndarray) -> list[float]:
    """Values whose text is longest: the extremes of each sign.

    Within one sign, text length grows with the integer digits (fixed) or the exponent's
    digits (scientific), both of which peak at the smallest or largest magnitude.
    """
    candidates = []
    for same_sign in (values[values < 0], values[values > 0]):
        if same_sign.size:
            candidates += [float(same_sign.min()), float(same_sign.max())]
    return candidates


def _is_complex(dtype_name: str) -> bool:
    return dtype_name.startswith("complex")


def _is_real_float(dtype_name: str) -> bool:
    """float16/32/64, bfloat16 and the float8 family, all printed through their float values."""
    return dtype_name.startswith(("float", "bfloat"))


def _formatter_for(sample: np.ndarray, dtype_name: str) -> _Formatter:
    if _is_complex(dtype_name):
        return _ComplexFormatter(real=_float_formatter(sample.real), imag=_float_formatter(sample.imag))
    if _is_real_float(dtype_name):
        return _float_formatter(sample)
    return _plain_formatter(sample)


def _as_printable(values: np.ndarray, dtype_name: str) -> np.ndarray:
    """Widen floats to float64 exactly, so ``tolist`` yields Python floats for every input dtype."""
    if _is_complex(dtype_name):
        return values.astype(np.complex128)
    if _is_real_float(dtype_name):
        return values.astype(np.float64)
    return values


def _summarised(values: np.ndarray, edgeitems: int) -> tuple[np.ndarray, tuple[bool, ...]]:
    """Keep ``edgeitems`` at each end of every longer dimension; say which dimensions were cut."""
    cut = tuple(size > 2 * edgeitems for size in values.shape)
    for axis, is_cut in enumerate(cut):
        if is_cut:
            size = values.shape[axis]
            kept = np.r_[0:edgeitems, size - edgeitems : size]
            values = np.take(values, kept, axis=axis)
    return values, cut


def _row_text(row: np.ndarray, cut: bool, indent: int, formatter: _Formatter) -> str:
    """One 1-d row, wrapped so that each line holds as many elements as fit in linewidth."""
    elements = [formatter.format(value) for value in row.tolist()]
    if cut:
        elements.insert(_options.edgeitems, _ELLIPSIS_ELEMENT)
    per_line = max(1, (_options.linewidth - indent) // (formatter.width + _SEPARATOR_WIDTH))
    lines = [", ".join(elements[start : start + per_line]) for start in range(0, len(elements), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _block_text(block: np.ndarray, cuts: tuple[bool, ...], indent: int, formatter: _Formatter) -> str:
    """An n-d block: sub-blocks one per line, with ndim-2 blank lines between them."""
    if block.ndim == 0:
        return formatter.format(block.item())
    if block.ndim == 1:
        return _row_text(block, cuts[0], indent, formatter)
    parts = [_block_text(sub, cuts[1:], indent + 1, formatter) for sub in block]
    if cuts[0]:
        parts.insert(_options.edgeitems, _ELLIPSIS_ROW)
    separator = "," + "\n" * (block.ndim - 1) + " " * (indent + 1)
    return "[" + separator.join(parts) + "]"


def _contents_text(values: np.ndarray, dtype_name: str, indent: int) -> str:
    """The bracketed values, summarised when there are more than ``threshold`` of them."""
    if values.size == 0:
        return "[]"
    summarise = values.ndim > 0 and values.size > _options.threshold
    if summarise and not _options.edgeitems:
        return "[" + _ELLIPSIS_ROW + "]"
    if summarise:
        sample, cuts = _summarised(values, _options.edgeitems)
    else:
        sample, cuts = values, (False,) * values.ndim
    sample = _as_printable(sample, dtype_name)
    return _block_text(sample, cuts, indent, _formatter_for(sample, dtype_name))


def _default_complex_name(default_float_dtype_name: str) -> str:
    return "complex128" if default_float_dtype_name == "float64" else "complex64"


def _dtype_suffix_needed(values: np.ndarray, dtype_name: str, default_float_dtype_name: str) -> bool:
    """Empty tensors show any dtype but the default float; others also hide int64, bool and the default complex."""
    if values.size == 0:
        return dtype_name != default_float_dtype_name
    implied = _ALWAYS_DEFAULT_DTYPES | {default_float_dtype_name, _default_complex_name(default_float_dtype_name)}
    return dtype_name not in implied


def _size_suffix_needed(values: np.ndarray) -> bool:
    """Empty tensors other than 1-d show their shape; so does everything when edgeitems is 0."""
    if values.size == 0:
        return values.ndim != 1
    return not _options.edgeitems


def _suffixes(
    values: np.ndarray,
    dtype_name: str,
    default_float_dtype_name: str,
    device: str | None,
    requires_grad: bool,
    grad_fn_name: str | None,
    tangent: str | None = None,
) -> list[str]:
    suffixes = []
    if device is not None:
        suffixes.append(f"device='{device}'")
    if _size_suffix_needed(values):
        suffixes.append(f"size={tuple(values.shape)}")
    if _dtype_suffix_needed(values, dtype_name, default_float_dtype_name):
        suffixes.append(f"dtype=torch.{dtype_name}")
    if grad_fn_name is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    if tangent is not None:
        suffixes.append(f"tangent={tangent}")
    return suffixes


def _with_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, suffix`` while the line fits, else start a new indented line.

    The fit test counts the current line two characters longer than it is, as PyTorch does.
    """
    pieces = [text]
    line_length = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if line_length + len(suffix) + _SEPARATOR_WIDTH > _options.linewidth:
            pieces.append(",\n" + " " * indent + suffix)
            line_length = indent + len(suffix)
        else:
            pieces.append(", " + suffix)
            line_length += len(suffix) + _SEPARATOR_WIDTH
    return "".join(pieces) + ")"


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    default_float_dtype_name: str = "float32",
    device: str | None = None,
    requires_grad: bool = False,
    grad_fn_name: str | None = None,
    is_nested_prefix: str = "tensor(",
    tangent: str | None = None,
) -> str:
    """``repr(t)`` (and ``str(t)``) of a tensor whose host values are ``values``.

    ``dtype_name`` is the real dtype without ``torch.``; bfloat16 may arrive as float32 and
    float16 as float16 or float32, since the values themselves are what get printed.
    ``device`` is None for CPU, else e.g. ``'cuda:0'``; ``tangent`` is a dual tensor's tangent, printed.
    """
    values = np.asarray(values)
    indent = len(is_nested_prefix)
    contents = _contents_text(values, dtype_name, indent)
    suffixes = _suffixes(values, dtype_name, default_float_dtype_name, device, requires_grad, grad_fn_name, tangent)
    return _with_suffixes(is_nested_prefix + contents, suffixes, indent)
