"""Real PyTorch as the oracle for the tensor-model suites (dtypes, creation, views, mutation, indexing).

A case is a function of the library module, `lambda m: m.arange(3).view(3, 1)`, written once and run
under both `torch` and `pjtorch`. `same(case)` compares what came back (tensors by dtype, shape, values
and, on request, strides and storage offset) or, where PyTorch raises, the exception type and message.
"""
from __future__ import annotations

import contextlib
import io
import re
import textwrap
import warnings
from typing import Callable

import numpy as np
import pytest

import pjtorch

Case = Callable[[object], object]


def reference():
    """Real PyTorch, or a clean skip where it is not installed."""
    return pytest.importorskip("torch")


def outcome(call: Callable[[], object]) -> tuple:
    """('ok', result) or ('raised', exception)."""
    try:
        return "ok", call()
    except Exception as error:  # noqa: BLE001 - the exception is what gets compared
        return "raised", error


def is_tensor(value) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "stride") and hasattr(value, "tolist")


def values_of(t) -> np.ndarray:
    return np.asarray(t.detach().tolist() if t.requires_grad else t.tolist())


def assert_same_tensor(ours, theirs, *, layout: bool = False, rtol: float = 1e-6) -> None:
    """Same dtype, shape and values (exact for integers and bools); with `layout`, same strides and offset."""
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    expected, got = values_of(theirs), values_of(ours)
    if expected.dtype.kind in "fc":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)
    if layout:
        assert (ours.stride(), ours.storage_offset()) == (theirs.stride(), theirs.storage_offset())


def assert_same_result(ours, theirs, *, layout: bool = False) -> None:
    if is_tensor(theirs):
        assert is_tensor(ours), f"expected a tensor, got {ours!r}"
        assert_same_tensor(ours, theirs, layout=layout)
    elif isinstance(theirs, (tuple, list)) and not hasattr(theirs, "numel"):
        assert len(ours) == len(theirs)
        for mine, reference_item in zip(ours, theirs):
            assert_same_result(mine, reference_item, layout=layout)
    elif type(theirs).__module__.startswith("torch"):
        assert str(ours) == str(theirs)
    else:
        assert ours == theirs


def assert_same_error(ours: Exception, theirs: Exception, *, message: bool = True) -> None:
    assert type(ours) is type(theirs), f"{type(ours).__name__}: {ours} (torch: {type(theirs).__name__}: {theirs})"
    if message:
        assert str(ours) == str(theirs), f"\npjtorch: {ours}\ntorch:   {theirs}"


def same(case: Case, *, layout: bool = False, message: bool = True):
    """Runs `case` under both libraries and asserts they agree; returns pjtorch's result (or exception)."""
    torch = reference()
    expected_kind, expected = outcome(lambda: case(torch))
    kind, got = outcome(lambda: case(pjtorch))
    if expected_kind == "raised":
        assert kind == "raised", f"torch raised {type(expected).__name__}: {expected}; pjtorch returned {got!r}"
        assert_same_error(got, expected, message=message)
    else:
        if kind == "raised":
            raise AssertionError(f"pjtorch raised where torch returned {expected!r}") from got
        try:
            assert_same_result(got, expected, layout=layout)
        except AssertionError as error:
            raise AssertionError(f"\npjtorch: {got!r}\ntorch:   {expected!r}") from error
    return got


def raises_like_torch(call: Case, *, message: bool = True) -> None:
    """PyTorch raises here, and pjtorch raises the same type (and message)."""
    torch = reference()
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value), match=f"^{re.escape(str(theirs.value))}$" if message else None):
        call(pjtorch)


def _printed(lib, program: str) -> str:
    """What `program` prints with `torch` bound to `lib`, its warnings listed after (object addresses elided)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(textwrap.dedent(program), {"torch": lib, "__name__": "__main__"})
    for w in caught:
        print("warning:", w.category.__name__, str(w.message)[:60], file=out)
    return re.sub(r" object at 0x[0-9a-f]+", "", out.getvalue())


def same_output(program: str) -> None:
    """`program` prints the same under torch and pjtorch; `tr(f)` in it prints f()'s value or its error. It must
    reach the library only through the name `torch` (an import statement would find real torch)."""
    program = "def tr(f):\n    try:\n        print('ok', f())\n    except Exception as e:\n" \
              "        print(type(e).__name__, e)\n" + textwrap.dedent(program)
    assert _printed(pjtorch, program) == _printed(reference(), program)
