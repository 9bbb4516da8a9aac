"""The op protocol: a pure JAX function plus a little metadata, compiled once per signature.

An `Op` knows nothing of Tensor. A `Kernel` is an op bound to its static arguments (dim,
keepdim, ...) and the dtype its inputs are cast to; kernels are cached, so each signature is
traced once and `jax.jit` reuses the executable for every later call with the same shapes.
Derivatives are `jax.vjp` of the same function: there is no derivative table.
"""
from __future__ import annotations

import collections
import functools
from typing import Callable

import jax
import numpy as np

# How many times each op has been traced (compiled); a test reads it to prove reuse.
TRACE_COUNTS: collections.Counter = collections.Counter()

# What PyTorch saves for backward, which decides when an in-place change is an error and whether backward
# frees anything: some of "inputs", "result" (every output) and "indices" (the integer outputs of max(dim), sort...).
SAVES_INPUTS, SAVES_RESULT, SAVES_NOTHING = frozenset({"inputs"}), frozenset({"result"}), frozenset()
SAVES_INDICES = frozenset({"indices"})
SAVES_INPUTS_AND_RESULT, SAVES_INPUTS_AND_INDICES = SAVES_INPUTS | SAVES_RESULT, SAVES_INPUTS | SAVES_INDICES


class Op:
    """One operation: `fn(*arrays, **static)` and how PyTorch presents it."""

    __slots__ = ("name", "fn", "grad_name", "saves", "promote", "promote_from", "hidden_inputs", "unlisted",
                 "elementwise", "input_names", "opmath_numbers", "_kernels")

    def __init__(self, name: str, fn: Callable, *, grad_name: str | None = None, saves: frozenset = SAVES_INPUTS,
                 promote: str = "common", promote_from: int = 0, hidden_inputs: int = 0,
                 unlisted: frozenset = frozenset(), elementwise: bool = False,
                 input_names: tuple = ("self", "other"), opmath_numbers: bool = False) -> None:
        """promote: 'common' (PyTorch's result type), 'float' (ints become the default float) or 'none';
        it applies to inputs from position `promote_from` on (e.g. `where` leaves its condition alone).
        hidden_inputs: trailing inputs that are implementation details (a view's runtime offset), which
        PyTorch's next_functions does not list. unlisted: the positions of other inputs it does not list (an index,
        a mask, a condition, or a number PyTorch's schema takes as a Scalar). elementwise: the result has the
        operands' broadcast shape, laid out as PyTorch lays out such results of non-contiguous operands.
        input_names: PyTorch's names of the leading inputs; its nodes save tensors in the order of their names,
        which saved-tensor hooks see. opmath_numbers: PyTorch computes a float16/bfloat16 call in float32 with its
        numbers (Python scalars, 0-dim tensors) unrounded, and rounds the result once (`half * 0.1` multiplies by
        float32's 0.1, not float16's)."""
        self.name = name
        self.fn = fn
        self.grad_name = grad_name or _default_grad_name(name)
        self.saves = saves
        self.promote = promote
        self.promote_from = promote_from
        self.hidden_inputs = hidden_inputs
        self.unlisted = unlisted
        self.elementwise = elementwise
        self.input_names = input_names
        self.opmath_numbers = opmath_numbers
        self._kernels: dict = {}

    def save_rank(self, position: int | None) -> tuple:
        """Where PyTorch's node keeps input `position` (None: a result) among its saved tensors, which it keeps,
        packs and checks in the order of their names."""
        names = self.input_names
        if position is None:
            return (0, "result")
        return (0, names[position]) if position < len(names) else (1, position)

    def kernel(self, static: tuple = (), cast=None, out_cast=None) -> "Kernel":
        """The cached kernel for these static arguments (sorted key/value pairs) and dtype casts."""
        key = (static, cast, out_cast)
        found = self._kernels.get(key)
        if found is None:
            found = self._kernels[key] = Kernel(self, static, cast, out_cast)
        return found

    def __repr__(self) -> str:
        return f"Op({self.name})"


def _default_grad_name(name: str) -> str:
    return "".join(part.capitalize() for part in name.strip("_").split("_")) + "Backward0"


class Kernel:
    """An op with its static arguments bound: a pure function and its compiled forms."""

    __slots__ = ("op", "static", "cast", "fn", "jit")

    def __init__(self, op: Op, static: tuple, cast, out_cast) -> None:
        self.op = op
        self.static = static
        self.cast = cast
        self.fn = _bind(op.fn, dict(static), cast, out_cast, op.promote_from)
        self.jit = jax.jit(_counting(self.fn, op.name))


def _bind(fn: Callable, static: dict, cast, out_cast, promote_from: int) -> Callable:
    """The op as a function of arrays alone: static arguments bound, promoted inputs cast (through
    pointwise.astype, which keeps PyTorch's NaN for False * inf where a plain bool cast would fold it away)."""
    if cast is None and out_cast is None:
        return functools.partial(fn, **static) if static else fn
    from .pointwise import astype  # pointwise builds its ops from this module

    def cast_then_run(*arrays):
        if cast is not None:
            arrays = arrays[:promote_from] + tuple(a if a.dtype == cast else astype(a, cast)
                                                   for a in arrays[promote_from:])
        result = fn(*arrays, **static)
        return result if out_cast is None else astype(result, out_cast)

    return cast_then_run


def _counting(fn: Callable, name: str) -> Callable:
    def traced(*args):
        TRACE_COUNTS[name] += 1
        return fn(*args)

    return traced
