"""`torch.testing`: assert_close compares tensors, NumPy arrays, Python scalars and nestings of them, raising
PyTorch's AssertionError messages (where and by how much values differ); make_tensor builds test inputs."""
from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any, Callable

import numpy as np

from .tensor import dtypes
from .tensor.tensor import Tensor

# PyTorch's default (rtol, atol) by dtype; every other dtype compares exactly.
_TOLERANCES = {
    dtypes.float16: (1e-3, 1e-5), dtypes.bfloat16: (1.6e-2, 1e-5), dtypes.float32: (1.3e-6, 1e-5),
    dtypes.float64: (1e-7, 1e-7), dtypes.complex64: (1.3e-6, 1e-5), dtypes.complex128: (1e-7, 1e-7),
}

# assert_allclose's looser defaults, kept from before assert_close.
_LEGACY_TOLERANCES = {dtypes.float16: (1e-3, 1e-3), dtypes.bfloat16: (1.6e-2, 1e-5), dtypes.float32: (1e-4, 1e-5),
                      dtypes.float64: (1e-5, 1e-8)}


def _looser(table: dict, a: dtypes.dtype, b: dtypes.dtype) -> tuple:
    """The (rtol, atol) of two dtypes' defaults, each the larger of the two (exact for dtypes not in `table`)."""
    return tuple(builtins.max(pair) for pair in zip(table.get(a, (0, 0)), table.get(b, (0, 0))))


class _Mismatch(AssertionError):
    """A failed comparison; `path` says where in the nesting it happened."""

    def __init__(self, message: str, path: str = "") -> None:
        super().__init__(message)
        self.message, self.path = message, path


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | Callable[[str], str] | None = None) -> None:
    """Raises AssertionError unless `actual` and `expected` are close: |actual - expected| <= atol + rtol *
    |expected| elementwise, with tolerances from the dtype unless both are given."""
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'atol' if atol is None else 'rtol'}.")
    options = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device, check_dtype=check_dtype,
                   check_stride=check_stride)
    try:
        _compare(actual, expected, options)
    except _Mismatch as mismatch:
        message = mismatch.message + (f"\n\nThe failure occurred for item {mismatch.path}" if mismatch.path else "")
        if msg is not None:
            message = msg if isinstance(msg, str) else msg(message)
        raise AssertionError(message) from None


def assert_allclose(actual: Any, expected: Any, rtol: float | None = None, atol: float | None = None,
                    equal_nan: bool = True, msg: str = "") -> None:
    warnings.warn("`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future "
                  "release. Please use `torch.testing.assert_close()` instead. You can find detailed upgrade "
                  "instructions in https://github.com/pytorch/pytorch/issues/61844.", FutureWarning, stacklevel=2)
    from .tensor.factories import tensor

    actual = actual if isinstance(actual, Tensor) else tensor(actual)
    expected = expected if isinstance(expected, Tensor) else tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        rtol, atol = _looser(_LEGACY_TOLERANCES, actual.dtype, expected.dtype)
    assert_close(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)


def _compare(actual: Any, expected: Any, options: dict) -> None:
    if _is_tensor_like(actual) and _is_tensor_like(expected):
        _compare_tensors(_as_tensor(actual), _as_tensor(expected), options)
    elif isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}")
    elif _is_number(actual) and _is_number(expected):
        if type(actual) is not type(expected):
            raise _Mismatch(f"The (d)types do not match: {type(actual)} != {type(expected)}.")
        _compare_scalars(actual, expected, *_scalar_tolerances(actual, options), options["equal_nan"])
    elif actual is None and expected is None:
        return
    elif isinstance(actual, Mapping) and isinstance(expected, Mapping):
        if set(actual) != set(expected):
            raise _Mismatch(f"The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(set(expected) - set(actual), key=repr)}\n"
                            f"Additional keys in the actual mapping: {sorted(set(actual) - set(expected), key=repr)}")
        for key in expected:
            _compare_item(actual[key], expected[key], repr(key), options)
    elif _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare_item(a, e, str(i), options)
    else:
        raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and {type(expected)}.")


def _compare_item(actual: Any, expected: Any, key: str, options: dict) -> None:
    try:
        _compare(actual, expected, options)
    except _Mismatch as mismatch:
        raise _Mismatch(mismatch.message, f"[{key}]{mismatch.path}") from None


def _is_tensor_like(value: Any) -> bool:
    return isinstance(value, (Tensor, np.ndarray))


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float, complex)) and not isinstance(value, bool)


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def _as_tensor(value) -> Tensor:
    from .tensor.factories import as_tensor

    return value if isinstance(value, Tensor) else as_tensor(value)


def _scalar_tolerances(value, options: dict) -> tuple:
    if options["rtol"] is not None:
        return options["rtol"], options["atol"]
    return (0, 0) if isinstance(value, int) else _TOLERANCES[dtypes.float64]


def _compare_tensors(actual: Tensor, expected: Tensor, options: dict) -> None:
    checks = [("shape", actual.shape, expected.shape)]
    if options["check_device"]:
        checks.append(("device", actual.device, expected.device))
    if options["check_dtype"]:
        checks.append(("dtype", actual.dtype, expected.dtype))
    if options["check_stride"]:
        checks.append(("stride()", actual.stride(), expected.stride()))
    for name, mine, theirs in checks:
        if mine != theirs:
            raise _Mismatch(f"The values for attribute '{name}' do not match: {mine} != {theirs}.")
    rtol, atol = options["rtol"], options["atol"]
    if rtol is None:
        rtol, atol = _looser(_TOLERANCES, actual.dtype, expected.dtype)
    common = dtypes.promote_types(actual.dtype, expected.dtype)
    mine, theirs = _host(actual, common), _host(expected, common)
    if actual.ndim == 0:
        _compare_scalars(mine.item(), theirs.item(), rtol, atol, options["equal_nan"], mine.dtype)
        return
    close = _close(mine, theirs, rtol, atol, options["equal_nan"])
    if close.all():
        return
    exact = rtol == 0 and atol == 0
    wrong = int((~close).sum())
    absolute, relative = _differences(mine, theirs, close)
    lines = [f"Tensor-likes are not {'equal' if exact else 'close'}!", "",
             f"Mismatched elements: {wrong} / {close.size} ({100 * wrong / close.size:.1f}%)"]
    for name, diff, tolerance in (("absolute", absolute, atol), ("relative", relative, rtol)):
        at = int(np.argmax(diff.reshape(-1)))
        index = tuple(int(i) for i in np.unravel_index(at, diff.shape))
        allowed = "" if exact else f" (up to {tolerance} allowed)"
        lines.append(f"Greatest {name} difference: {diff.reshape(-1)[at].item()} at index {index}{allowed}")
    raise _Mismatch("\n".join(lines))


def _host(t: Tensor, dtype: dtypes.dtype) -> np.ndarray:
    """Values as NumPy computes PyTorch's differences: bool as int, bfloat16 (which NumPy lacks) as float32."""
    if dtype is dtypes.bool:
        dtype = dtypes.int64
    values = t.detach().cpu().to(dtype if dtype is not dtypes.bfloat16 else dtypes.float32)
    return np.asarray(values.numpy())


def _close(actual: np.ndarray, expected: np.ndarray, rtol: float, atol: float, equal_nan: bool) -> np.ndarray:
    if actual.dtype.kind in "iub":
        return actual == expected
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan)


def _magnitude(values: np.ndarray) -> np.ndarray:
    """|values|, correctly rounded as PyTorch's abs is (NumPy's complex64 hypot can be an ulp off)."""
    if values.dtype == np.complex64:
        return np.abs(values.astype(np.complex128)).astype(np.float32)
    return np.abs(values)


def _differences(actual: np.ndarray, expected: np.ndarray, close: np.ndarray | bool = False) -> tuple:
    """|actual - expected| in their dtype, and that over |expected| (true division: float32 for integers); zero
    where the values are `close`, so only mismatches can be the greatest."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        difference = _magnitude(actual - expected)
        absolute = np.where(close, 0, difference).astype(difference.dtype)
        if absolute.dtype.kind in "iu":
            relative = absolute.astype(np.float32) / np.abs(expected).astype(np.float32)
        else:
            relative = absolute / _magnitude(expected)
    return absolute, np.where(close, 0, relative).astype(relative.dtype)


def _compare_scalars(actual, expected, rtol: float, atol: float, equal_nan: bool, dtype=None) -> None:
    """Python scalars, or a 0-dim tensor's values (differences computed in `dtype` where given)."""
    if dtype is not None:
        mine, theirs = np.asarray(actual, dtype), np.asarray(expected, dtype)
        if bool(_close(mine[None], theirs[None], rtol, atol, equal_nan)[0]):
            return
        absolute, relative = (d.item() for d in _differences(mine, theirs))
    else:
        both_nan = _is_nan(actual) and _is_nan(expected)
        if actual == expected or (equal_nan and both_nan) or (
                not isinstance(actual, int) and abs(actual - expected) <= atol + rtol * abs(expected)):
            return
        absolute = abs(actual - expected)
        relative = absolute / abs(expected) if expected != 0 else math.inf
    exact = rtol == 0 and atol == 0
    lines = [f"Scalars are not {'equal' if exact else 'close'}!", "", f"Expected {expected} but got {actual}.",
             f"Absolute difference: {absolute}" + ("" if exact else f" (up to {atol} allowed)"),
             f"Relative difference: {relative}" + ("" if exact else f" (up to {rtol} allowed)")]
    raise _Mismatch("\n".join(lines))


def _is_nan(value) -> bool:
    return isinstance(value, (float, complex)) and value != value


def make_tensor(*shape, dtype: dtypes.dtype, device=None, low: float | None = None, high: float | None = None,
                requires_grad: bool = False, noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format=None) -> Tensor:
    """A tensor of random values in [low, high) (default [-9, 9], [0, 10) for uint8, random bools for bool)."""
    from .tensor import factories, random

    shape = factories.new_shape(shape)
    if dtype is dtypes.bool:
        result = random.randint(0, 2, shape, device=device).to(dtypes.bool)
    elif dtype.category < dtypes.FLOATING:
        low = (0 if dtype is dtypes.uint8 else -9) if low is None else math.ceil(low)
        high = 10 if high is None else math.ceil(high)
        result = random.randint(low, high, shape, dtype=dtype, device=device)
    else:
        low, high = (-9 if low is None else low), (9 if high is None else high)
        real = dtypes.float32 if dtype is dtypes.complex64 else dtypes.float64 if dtype.is_complex else dtype
        result = random.rand(*shape, dtype=real, device=device) * (high - low) + low
        if dtype.is_complex:
            result = result + 1j * (random.rand(*shape, dtype=real, device=device) * (high - low) + low)
        result = result.to(dtype)
    if exclude_zero:
        result = result.masked_fill(result == 0, 1 if dtype.category < dtypes.FLOATING else 1e-3)
    if noncontiguous and result.numel() > 1:
        result = result.repeat_interleave(2, dim=-1)[..., ::2]
    return result.requires_grad_() if requires_grad else result
