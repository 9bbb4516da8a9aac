"""Shared machinery of the table-driven op suites (tests/test_ops_*.py): real PyTorch is the oracle.

A case is a function of the library (`torch` or `pjtorch`) and that library's input tensors, both
built from the same NumPy values. `check` runs it in both: where PyTorch returns, pjtorch must return
the same shape, dtype and values (exact for integers and bools, within a per-dtype tolerance for
floats); where PyTorch raises, pjtorch must raise the same exception type, and no JAX error may
reach the user.
"""
from __future__ import annotations

import builtins
import re

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import pjtorch as pt  # noqa: E402

LIBS = (torch, pt)
ALL_DTYPES = ("bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64", "complex64")
# Per-op sweeps skip int32: it takes int64's path everywhere but in promotion, which has its own tests.
SWEEP_DTYPES = tuple(d for d in ALL_DTYPES if d != "int32")
FLOAT_DTYPES = ("float16", "bfloat16", "float32", "float64")
INT_DTYPES = ("uint8", "int32", "int64")

# (rtol, atol) per result dtype; float16/bfloat16 allow a couple of ulps, float32 transcendental an ulp or so.
TOLERANCES = {
    "float16": (2e-3, 1e-3), "bfloat16": (1.6e-2, 1e-2), "float32": (1e-5, 1e-6), "float64": (1e-12, 1e-12),
    "complex64": (1e-5, 1e-6), "complex128": (1e-12, 1e-12),
}

# Values exactly representable in every dtype (so inputs agree bit for bit after conversion).
_FLOAT_GRIDS = {
    "any": np.arange(-12, 13) / 4,          # -3 .. 3 in quarters, zero included
    "positive": np.arange(1, 13) / 4,       # 0.25 .. 3
    "unit": np.arange(-7, 8) / 8,           # open interval (-1, 1)
    "small": np.arange(0, 6, dtype=float),  # shift counts, exponents
}
_INT_RANGES = {"any": (-9, 10), "positive": (1, 10), "unit": (-1, 2), "small": (0, 6)}


def sample(dtype: str, shape: tuple, rng: np.random.Generator, domain: str = "any") -> np.ndarray:
    """Values for an input of `dtype` drawn from `domain` ('any', 'positive', 'unit', 'small', or 'distinct':
    no two equal, so sorting has one answer)."""
    if domain == "distinct" and dtype != "bool":
        grid = np.arange(0, 128) if dtype == "uint8" else np.arange(-64, 64) / (1 if dtype in INT_DTYPES else 8)
        return rng.choice(grid, shape, replace=False)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool) if domain != "positive" else np.ones(shape, bool)
    if dtype in INT_DTYPES:
        low, high = _INT_RANGES[domain]
        return rng.integers(builtins.max(low, 0) if dtype == "uint8" else low, high, shape)
    grid = _FLOAT_GRIDS[domain]
    values = rng.choice(grid, shape)
    if dtype.startswith("complex"):
        values = values + 1j * rng.choice(grid, shape)
    return np.asarray(values)


def tensor(lib, values: np.ndarray, dtype: str):
    """`values` as a tensor of `dtype` in `lib` (torch or pjtorch)."""
    return lib.tensor(np.asarray(values), dtype=getattr(lib, dtype))


def make_inputs(specs, rng: np.random.Generator) -> list:
    """Values for each spec: (dtype, shape, domain) makes a tensor, anything else (a Python scalar) stays."""
    made = []
    for spec in specs:
        if isinstance(spec, tuple):
            dtype, shape, *domain = spec
            made.append(("tensor", dtype, sample(dtype, shape, rng, *domain)))
        else:
            made.append(("value", None, spec))
    return made


def realize(lib, made: list) -> list:
    return [tensor(lib, values, dtype) if kind == "tensor" else values for kind, dtype, values in made]


class Tally:
    """What a table test ran: cases compared by value, cases where both raised, and the mismatches."""

    def __init__(self) -> None:
        self.values = 0
        self.raised = 0
        self.failures: list[str] = []

    @property
    def ran(self) -> int:
        return self.values + self.raised + len(self.failures)

    def check(self, label: str, fn, make_args, *, rtol=None, atol=None, message: bool = False) -> None:
        """Runs `fn(lib, *make_args(lib))` in both libraries and records the outcome."""
        try:
            expected = _outcome(fn, torch, make_args)
            actual = _outcome(fn, pt, make_args)
            problem = _compare(expected, actual, rtol, atol, message)
        except Exception as error:  # noqa: BLE001 - a crash inside the comparison is itself a finding
            problem = f"comparison crashed: {type(error).__name__}: {error}"
        if problem:
            self.failures.append(f"{label}: {problem}")
        elif isinstance(expected, BaseException):
            self.raised += 1
        else:
            self.values += 1

    def assert_clean(self, ran: int, *, values_at_least: int = 1) -> None:
        """No mismatch, exactly `ran` cases run, and at least `values_at_least` compared by value."""
        assert not self.failures, f"{len(self.failures)} of {self.ran} cases differ from PyTorch:\n" + \
            "\n".join(self.failures[:40])
        assert self.ran == ran, f"expected {ran} cases, ran {self.ran}"
        assert self.values >= values_at_least, f"only {self.values} cases compared values"


def run_case(label: str, fn, make_args, **options) -> None:
    """One case that must match PyTorch; raises AssertionError naming the difference."""
    tally = Tally()
    tally.check(label, fn, make_args, **options)
    tally.assert_clean(1, values_at_least=0)


def _outcome(fn, lib, make_args):
    try:
        return fn(lib, *make_args(lib))
    except Exception as error:  # noqa: BLE001 - the exception is the outcome being compared
        return error


def _compare(expected, actual, rtol, atol, message: bool) -> str | None:
    if isinstance(actual, BaseException) and _leaks_jax(actual):
        return f"JAX error reached the user: {type(actual).__name__}: {actual}"
    if isinstance(expected, BaseException):
        if not isinstance(actual, BaseException):
            return f"torch raised {type(expected).__name__}({expected}) but pjtorch returned {_brief(actual)}"
        if _builtin_type(expected) is not _builtin_type(actual):
            return f"torch raised {type(expected).__name__}({expected}), pjtorch {type(actual).__name__}({actual})"
        if message and str(expected) != str(actual):
            return f"message differs:\n  torch:   {expected}\n  pjtorch: {actual}"
        return None
    if isinstance(actual, BaseException):
        return f"pjtorch raised {type(actual).__name__}: {actual}; torch returned {_brief(expected)}"
    return _compare_values(expected, actual, rtol, atol)


def _builtin_type(error: BaseException) -> type:
    """The builtin exception class behind torch's subclasses (torch._C._LinAlgError is a RuntimeError)."""
    return next(cls for cls in type(error).__mro__ if cls.__module__ == "builtins")


def _leaks_jax(error: BaseException) -> bool:
    module = type(error).__module__ or ""
    return module.startswith(("jax", "jaxlib")) or bool(re.search(r"\bjax\b|\bjnp\.|XLA|xla_", str(error)))


def _brief(value) -> str:
    if isinstance(value, (torch.Tensor, pt.Tensor)):
        return f"tensor of shape {list(value.shape)} and {value.dtype}"
    return repr(value)[:120]


def _compare_values(expected, actual, rtol, atol) -> str | None:
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, pt.Tensor):
            return f"expected a tensor, got {_brief(actual)}"
        return compare_tensors(expected, actual, rtol, atol)
    if isinstance(expected, tuple):
        if not isinstance(actual, tuple) or len(actual) != len(expected):
            return f"expected {type(expected).__name__} of {len(expected)}, got {_brief(actual)}"
        if type(expected).__name__ != type(actual).__name__:
            return f"result type {type(actual).__name__} is not torch's {type(expected).__name__}"
        for i, (e, a) in enumerate(zip(expected, actual)):
            problem = _compare_values(e, a, rtol, atol)
            if problem:
                return f"[{i}] {problem}"
        return None
    if type(expected) is not type(actual):
        return f"expected {type(expected).__name__} {expected!r}, got {type(actual).__name__} {actual!r}"
    if isinstance(expected, float) and (np.isnan(expected) and np.isnan(actual)):
        return None
    if isinstance(expected, float) and not np.isclose(expected, actual, rtol=rtol or 1e-6, atol=atol or 0):
        return f"expected {expected!r}, got {actual!r}"
    if not isinstance(expected, float) and expected != actual:
        return f"expected {expected!r}, got {actual!r}"
    return None


def compare_tensors(expected, actual, rtol=None, atol=None) -> str | None:
    """Shape, dtype and values of a torch tensor against a pjtorch one; None when they agree."""
    dtype = str(expected.dtype).removeprefix("torch.")
    if tuple(expected.shape) != tuple(actual.shape):
        return f"shape {list(actual.shape)} != torch's {list(expected.shape)}"
    if str(actual.dtype) != str(expected.dtype):
        return f"dtype {actual.dtype} != torch's {expected.dtype}"
    want, got = host_values(expected), host_values(actual)
    if dtype in TOLERANCES:
        default_rtol, default_atol = TOLERANCES[dtype]
        close = np.isclose(got, want, rtol=rtol if rtol is not None else default_rtol,
                           atol=atol if atol is not None else default_atol, equal_nan=True)
    else:
        close = got == want
    if not np.all(close):
        bad = tuple(np.argwhere(~close)[0]) if close.ndim else ()
        return f"values differ at {list(bad)}: torch {want[bad]!r}, pjtorch {got[bad]!r} ({dtype})"
    return None


def host_values(t) -> np.ndarray:
    """A tensor's values as NumPy (bfloat16 through float32, which holds it exactly)."""
    t = t.detach()
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj().resolve_neg()
    if str(t.dtype) == "torch.bfloat16":
        t = t.float()
    return np.asarray(t.cpu().numpy())


def described(result):
    """A result as comparable leaves: tensors, plus each container's kind and each tensor's autograd state."""
    if isinstance(result, (tuple, list)):
        parts = [described(r) for r in result]
        return (f"{type(result).__name__}[{len(result)}]",) + tuple(p for part in parts for p in part)
    if isinstance(result, dict):
        return (f"dict{sorted(result)}",) + described(tuple(result[k] for k in sorted(result)))
    if hasattr(result, "requires_grad"):
        return (result, f"requires_grad={result.requires_grad} grad_fn={result.grad_fn is not None}")
    return (result,)


def same_as_torch(cases: dict, *, expected_values: int) -> None:
    """Each case (a function of the library) returns what PyTorch returns, or raises as it does; exactly
    `expected_values` of them return."""
    tally = Tally()
    for label, fn in cases.items():
        tally.check(label, lambda lib, fn=fn: described(fn(lib)), lambda lib: (), message=True, rtol=1e-9,
                    atol=1e-9)
    tally.assert_clean(len(cases), values_at_least=expected_values)
    assert tally.raised == len(cases) - expected_values, f"{tally.raised} raised"
