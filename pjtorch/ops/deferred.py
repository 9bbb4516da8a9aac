"""Deferred results: an op call whose value nobody has asked for yet.

Computing each result eagerly costs one XLA call per op. A result that will be differentiated can
be computed by the fused backward (`autograd.fused`) inside its own single call, and results made
under no_grad (an optimizer's update, an evaluation pass) can be computed together when first
read. So dispatch may return a `Deferred` in place of a jax.Array: it knows its shape and dtype
(dispatch defers only a call whose signature has run before, so shape errors still surface at the
call) and is computed, with the pending values it reads, the first time its value is read: as one
compiled program where the same program has run before, else op by op with each kernel's compiled
form. Chains are capped at `MAX_DEPTH` so that an unread value never holds an unbounded history.

Whichever computation runs next also computes every value deferred under no_grad that a tensor
still holds: among them the in-place changes ("pending writes"), so a training loop's parameter
update runs inside the next step's backward call.
"""
from __future__ import annotations

import itertools
import operator
from typing import Sequence

import jax

from .registry import TRACE_COUNTS

MAX_DEPTH = 32

_SERIALS = itertools.count()
_SERIAL_OF = operator.attrgetter("serial")


def _NO_OWNER():
    return None


class Deferred:
    __slots__ = ("kernel", "inputs", "array", "shape", "dtype", "depth", "serial", "owner", "write", "unrecorded")

    def __init__(self, kernel, inputs: tuple, shape: tuple, dtype, depth: int, unrecorded: bool) -> None:
        self.kernel = kernel
        self.inputs = inputs
        self.array = None
        self.shape = shape
        self.dtype = dtype
        self.depth = depth
        self.serial = next(_SERIALS)
        self.owner = _NO_OWNER
        self.write = False
        self.unrecorded = unrecorded  # made under no_grad: PyTorch's eager rounding is not promised

    def wanted(self) -> bool:
        """Whether a storage still holds this value (an in-place change may have replaced it): a computation
        that computes it need only return it then."""
        owner = self.owner()
        return owner is not None and owner._array is self

    @property
    def size(self) -> int:
        size = 1
        for n in self.shape:
            size *= n
        return size

    def value(self) -> jax.Array:
        if self.array is None:
            compute([self])
        return self.array

    def fill(self, array) -> None:
        self.array = array
        self.inputs = None


def concrete(a):
    """The array behind a deferred value (computed if needed), or `a` itself."""
    return a.value() if type(a) is Deferred else a


def concrete_all(arrays: Sequence) -> list:
    """`concrete` of each, the pending ones computed together."""
    if any(type(a) is Deferred and a.array is None for a in arrays):
        compute([a for a in arrays if type(a) is Deferred])
    return [a.array if type(a) is Deferred else a for a in arrays]


def defer(kernel, arrays: Sequence, shape: tuple, dtype, unrecorded: bool = False):
    """A Deferred for `kernel(*arrays)`, whose result has this shape and dtype (known from an earlier call of the
    same signature), or None where a chain would grow past MAX_DEPTH. (`unrecorded`: made under no_grad.)"""
    depth = 0
    for a in arrays:
        if type(a) is Deferred and a.array is None and a.depth > depth:
            depth = a.depth
    if depth >= MAX_DEPTH:
        return None
    return Deferred(kernel, tuple(arrays), shape, dtype, depth + 1, unrecorded)


class _Output:
    """The kernel of one output of a multi-output call: picks it from the call's tuple, with no XLA call."""

    __slots__ = ("fn", "jit")

    def __init__(self, index: int) -> None:
        self.fn = self.jit = operator.itemgetter(index)


_OUTPUT_KERNELS: dict = {}


def defer_outputs(kernel, arrays: Sequence, metas: Sequence) -> list | None:
    """Deferreds for the outputs of a multi-output `kernel(*arrays)` made under no_grad, each (shape, dtype) of
    `metas` (as `defer`)."""
    call = defer(kernel, arrays, None, None, unrecorded=True)
    if call is None:
        return None
    outputs = []
    for i, (shape, dtype) in enumerate(metas):
        output_kernel = _OUTPUT_KERNELS.get(i) or _OUTPUT_KERNELS.setdefault(i, _Output(i))
        outputs.append(Deferred(output_kernel, (call,), shape, dtype, call.depth + 1, True))
    return outputs


def pending(a) -> bool:
    return type(a) is Deferred and a.array is None


_UNRECORDED: list = []
UNRECORDED_LIMIT = 64


def note_unrecorded(d: Deferred, write: bool) -> None:
    """Registers a value deferred under no_grad (`write`: an in-place change's new value) to be computed with the
    next computation. Each pending value keeps its inputs alive, so past UNRECORDED_LIMIT they are computed."""
    d.write = write
    _UNRECORDED.append(d)
    if len(_UNRECORDED) > UNRECORDED_LIMIT and len(unrecorded()) > UNRECORDED_LIMIT // 2:
        compute([])


def unrecorded() -> list:
    """The values deferred under no_grad that a storage still holds (the list forgets the others)."""
    _UNRECORDED[:] = [d for d in _UNRECORDED if d.array is None and d.wanted()]
    return _UNRECORDED


_PROGRAMS: dict = {}
_PROGRAMS_LIMIT = 1024
_PROGRAM_SIGHTINGS: dict = {}


def compute(roots: Sequence) -> None:
    """Computes the pending `roots` and the values deferred under no_grad, with what they read: one XLA call for the
    whole program where every value was made under no_grad and the program has come back (compiling costs more
    than a one-off program saves), else op by op. Intermediate values a tensor still holds are kept too, so
    nothing is computed twice."""
    if len(roots) == 1 and _alone(roots[0]):  # the common case: a value read as soon as it is made
        _UNRECORDED.clear()
        _op_by_op([roots[0]] if roots[0].array is None else [])
        return
    program, leaves, refs, computed = flatten([[*roots, *unrecorded()]])
    roots = set(roots)
    returned = tuple([i for i, d in enumerate(computed) if d in roots or d.wanted()])
    run = _compiled(program, returned) if len(computed) > 1 and _all_unrecorded(computed) else None
    if run is None:
        _op_by_op(computed)
        return
    for i, value in zip(returned, run(tuple(leaves))):
        computed[i].fill(value)


def _all_unrecorded(computed: list) -> bool:
    """Whether every value was made under no_grad. A compiled program may round differently from the op-by-op
    kernels (XLA fuses a bias add into its matmul), so a recorded value read before backward is computed op by
    op, as the same call made eagerly would be."""
    for d in computed:
        if not d.unrecorded:
            return False
    return True


def _op_by_op(ordered: list) -> None:
    for d in ordered:
        d.fill(d.kernel.jit(*[concrete(a) for a in d.inputs]))


def _compiled(program: tuple, returned: tuple):
    """The program compiled, or None while it has not come back often enough to be worth compiling."""
    key = (program, returned)
    run = _PROGRAMS.get(key)
    if run is None:
        sightings = _PROGRAM_SIGHTINGS.get(key, 0)
        if sightings < _sightings_before_compiling(len(program)):
            if len(_PROGRAM_SIGHTINGS) >= _PROGRAMS_LIMIT:
                _PROGRAM_SIGHTINGS.clear()
            _PROGRAM_SIGHTINGS[key] = sightings + 1
            return None
        if len(_PROGRAMS) >= _PROGRAMS_LIMIT:
            _PROGRAMS.clear()
        run = _PROGRAMS[key] = jax.jit(_program_function(program, returned))
    return run


def _alone(d: Deferred) -> bool:
    """Whether `d` reads no pending value and is the only value deferred under no_grad, if any."""
    if _UNRECORDED and (len(_UNRECORDED) > 1 or _UNRECORDED[0] is not d):
        return False
    if d.array is not None:
        return True
    for a in d.inputs:
        if type(a) is Deferred and a.array is None:
            return False
    return True


def _sightings_before_compiling(ops: int) -> int:
    """Compiling costs about a millisecond per op and saves tens of microseconds per op and run, so a long
    program is compiled only once it has come back many times (an 8-op optimizer update on its second run)."""
    return 1 + ops // 8


def _program_function(program: tuple, returned: tuple):
    def run(leaves):
        TRACE_COUNTS["deferred.program"] += 1
        values = run_program(program, leaves)[0]
        return tuple([values[i] for i in returned])

    return run


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

    Returns (program, leaves, refs, computed): `leaves` are the concrete arrays, each once; `program` is
    one (kernel, input refs) per pending value in dependency order; `refs` mirrors `groups`
    with each entry a reference; `computed` lists the pending values in program order. A
    reference is an index into leaves, or -1 - i for the program's i-th value. An array read in
    several places is one leaf (each argument of an XLA call costs about 2.5 us), so the
    references say which values are the same array and a cached program is reused only where
    they are again.
    """
    computed = _in_order([a for group in groups for a in group])
    slot_of = {d: -1 - i for i, d in enumerate(computed)}
    leaves: list = []
    leaf_of: dict = {}

    def refs_of(arrays) -> tuple:
        refs = []
        for a in arrays:
            if type(a) is Deferred:
                if a.array is None:
                    refs.append(slot_of[a])
                    continue
                a = a.array
            ref = leaf_of.get(id(a))
            if ref is None:
                ref = leaf_of[id(a)] = len(leaves)
                leaves.append(a)
            refs.append(ref)
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
