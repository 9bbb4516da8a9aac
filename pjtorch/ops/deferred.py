"""Deferred results: an op call recorded for autograd whose value nobody has asked for yet.

When a result will be differentiated, computing it eagerly costs one XLA call per op, and the
fused backward (`autograd.fused`) can compute the same forward inside its own single call. So
dispatch may return a `Deferred` in place of a jax.Array: it knows its shape and dtype (dispatch
defers only a call whose signature has run before, so shape errors still surface at the call) and computes itself,
op by op with each kernel's compiled form, the first time its value is read. Chains are capped
at `MAX_DEPTH` so that an unread value never holds an unbounded history.
"""
from __future__ import annotations

import itertools
import operator
from typing import Sequence

import jax

MAX_DEPTH = 32

_SERIALS = itertools.count()
_SERIAL_OF = operator.attrgetter("serial")


def _NO_OWNER():
    return None


class Deferred:
    __slots__ = ("kernel", "inputs", "array", "shape", "dtype", "depth", "serial", "owner")

    def __init__(self, kernel, inputs: tuple, shape: tuple, dtype, depth: int) -> None:
        self.kernel = kernel
        self.inputs = inputs
        self.array = None
        self.shape = shape
        self.dtype = dtype
        self.depth = depth
        self.serial = next(_SERIALS)
        self.owner = _NO_OWNER

    def wanted(self) -> bool:
        """Whether a tensor still holds this value: a replay that computes it need only return it then."""
        return self.owner() is not None

    @property
    def size(self) -> int:
        size = 1
        for n in self.shape:
            size *= n
        return size

    def value(self) -> jax.Array:
        """Computes this value (and the deferred values it reads) with each op's own kernel."""
        if self.array is None:
            for pending in _in_order([self]):
                pending.fill(pending.kernel.jit(*[concrete(a) for a in pending.inputs]))
        return self.array

    def fill(self, array) -> None:
        self.array = array
        self.inputs = None


def concrete(a):
    """The array behind a deferred value (computed if needed), or `a` itself."""
    return a.value() if type(a) is Deferred else a


def defer(kernel, arrays: Sequence, shape: tuple, dtype):
    """A Deferred for `kernel(*arrays)`, whose result has this shape and dtype (known from an earlier call of the
    same signature), or None where a chain would grow past MAX_DEPTH."""
    depth = 0
    for a in arrays:
        if type(a) is Deferred and a.array is None and a.depth > depth:
            depth = a.depth
    if depth >= MAX_DEPTH:
        return None
    return Deferred(kernel, tuple(arrays), shape, dtype, depth + 1)


def pending(a) -> bool:
    return type(a) is Deferred and a.array is None


def _in_order(roots) -> list:
    """The pending values `roots` depend on (themselves included), each after the pending values it reads."""
    found, stack = set(), []
    for a in roots:
        if type(a) is Deferred and a.array is None and a not in found:
            found.add(a)
            stack.append(a)
    ordered = []
    while stack:
        d = stack.pop()
        ordered.append(d)
        for a in d.inputs:
            if type(a) is Deferred and a.array is None and a not in found:
                found.add(a)
                stack.append(a)
    ordered.sort(key=_SERIAL_OF)  # creation order is a dependency order
    return ordered


def flatten(groups: Sequence[Sequence]) -> tuple:
    """Groups of arrays, some deferred, as one program a jitted function can run.

    Returns (program, leaves, refs, computed): `leaves` are the concrete arrays; `program` is
    one (kernel, input refs) per pending value in dependency order; `refs` mirrors `groups`
    with each entry a reference; `computed` lists the pending values in program order. A
    reference is an index into leaves, or -1 - i for the program's i-th value. Leaves are not
    shared even when they are one array, so the structure does not depend on aliasing.
    """
    computed = _in_order([a for group in groups for a in group])
    slot_of = {d: -1 - i for i, d in enumerate(computed)}
    leaves: list = []

    def refs_of(arrays) -> tuple:
        refs = []
        for a in arrays:
            if type(a) is Deferred:
                if a.array is None:
                    refs.append(slot_of[a])
                    continue
                a = a.array
            refs.append(len(leaves))
            leaves.append(a)
        return tuple(refs)

    program = tuple([(d.kernel, refs_of(d.inputs)) for d in computed])
    return program, leaves, tuple([refs_of(group) for group in groups]), computed


def run_program(program: tuple, leaves: Sequence) -> tuple:
    """Inside a trace: the program's values, and a reader of any reference."""
    computed = []

    def read(r: int):
        return leaves[r] if r >= 0 else computed[-1 - r]

    for kernel, refs in program:
        computed.append(kernel.fn(*[read(r) for r in refs]))
    return computed, read
