"""Deferred results: an op call recorded for autograd whose value nobody has asked for yet.

When a result will be differentiated, computing it eagerly costs one XLA call per op, and the
fused backward (`autograd.fused`) can compute the same forward inside its own single call. So
dispatch may return a `Deferred` in place of a jax.Array: it knows its shape and dtype (from a
cached abstract evaluation, so shape errors still surface at the op call) and computes itself,
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
_AVALS: dict = {}
_AVALS_LIMIT = 8192


class Deferred:
    __slots__ = ("kernel", "inputs", "array", "shape", "dtype", "depth", "serial")

    def __init__(self, kernel, inputs: tuple, aval, depth: int) -> None:
        self.kernel = kernel
        self.inputs = inputs
        self.array = None
        self.shape = aval.shape
        self.dtype = aval.dtype
        self.depth = depth
        self.serial = next(_SERIALS)

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


def defer(kernel, arrays: Sequence):
    """A Deferred for `kernel(*arrays)`, or None where a chain would grow past MAX_DEPTH."""
    depth = 0
    signature = [kernel]
    for a in arrays:
        if type(a) is Deferred:
            if a.array is None:
                depth = max(depth, a.depth)
            else:
                a = a.array
        signature.append(a.shape)
        signature.append(a.dtype)
    if depth >= MAX_DEPTH:
        return None
    key = tuple(signature)
    aval = _AVALS.get(key)
    if aval is None:
        aval = kernel.jit.eval_shape(*[jax.ShapeDtypeStruct(a.shape, a.dtype) for a in arrays])
        if type(aval) is not jax.ShapeDtypeStruct:
            return None
        if len(_AVALS) >= _AVALS_LIMIT:
            _AVALS.clear()
        _AVALS[key] = aval
    return Deferred(kernel, tuple(arrays), aval, depth + 1)


def pending(a) -> bool:
    return type(a) is Deferred and a.array is None


def _in_order(roots: Sequence[Deferred]) -> list:
    """The pending values `roots` depend on, each after the pending values it reads (creation order)."""
    found = {}
    stack = [r for r in roots if r.array is None]
    while stack:
        d = stack.pop()
        if id(d) not in found:
            found[id(d)] = d
            stack.extend(a for a in d.inputs if type(a) is Deferred and a.array is None)
    return sorted(found.values(), key=_SERIAL_OF)


def flatten(groups: Sequence[Sequence]) -> tuple:
    """Groups of arrays, some deferred, as one program a jitted function can run.

    Returns (program, leaves, refs, computed): `leaves` are the concrete arrays; `program` is
    one (kernel, input refs) per pending value in dependency order; `refs` mirrors `groups`
    with each entry a reference; `computed` lists the pending values in program order. A
    reference is an index into leaves, or -1 - i for the program's i-th value. Leaves are not
    shared even when they are one array, so the structure does not depend on aliasing.
    """
    computed = _in_order([a for group in groups for a in group if type(a) is Deferred])
    leaves, slot_of = [], {id(d): i for i, d in enumerate(computed)}

    def ref(a) -> int:
        if type(a) is Deferred:
            if a.array is None:
                return -1 - slot_of[id(a)]
            a = a.array
        leaves.append(a)
        return len(leaves) - 1

    program = tuple((d.kernel, tuple(ref(a) for a in d.inputs)) for d in computed)
    refs = tuple(tuple(ref(a) for a in group) for group in groups)
    return program, leaves, refs, computed


def run_program(program: tuple, leaves: Sequence) -> tuple:
    """Inside a trace: the program's values, and a reader of any reference."""
    computed = []

    def read(r: int):
        return leaves[r] if r >= 0 else computed[-1 - r]

    for kernel, refs in program:
        computed.append(kernel.fn(*[read(r) for r in refs]))
    return computed, read
