"""The recorded graph: one Node per differentiable op call, PyTorch's `grad_fn` objects.

A Node holds the kernel it ran, the input arrays it ran on (immutable, so saving them is
free; for ops PyTorch saves nothing of, a Hole in place of each array backward never reads,
so intermediates are not kept alive), the edges to the nodes that produced its inputs, and
the version of every tensor PyTorch would have saved, so an in-place change to one is caught
at backward time.
"""
from __future__ import annotations

import functools
import itertools
import operator
import re
from typing import Callable, NamedTuple, Sequence

import jax
import numpy as np
from jax.extend.core import Literal

from ..ops.deferred import Deferred, compute, concrete
from ..ops.registry import TRACE_COUNTS
from . import anomaly_mode
from .hooks import CheckedNodeHook, RemovableHandle
from .saved_hooks import disable_saved_tensors_hooks, save_on_cpu, saved_tensors_hooks  # noqa: F401 (public here)

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)


_BACKWARD_SUFFIX = re.compile(r"Backward(?:0$)?")


def forward_name(grad_name: str) -> str:
    """`MulBackward0` -> `Mul`, `MaxBackward1` -> `Max1`: how PyTorch's error messages name the op behind a node."""
    return _BACKWARD_SUFFIX.sub("", grad_name, count=1)


class Edge(NamedTuple):
    node: "Node"
    output_nr: int


class GradientEdge(Edge):
    """`torch.autograd.graph.GradientEdge`: where a tensor's gradient flows, usable as an input of autograd.grad."""

    __slots__ = ()


def get_gradient_edge(tensor) -> GradientEdge:
    from ..dispatch import edge_of

    edge = edge_of(tensor)
    if edge is None:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    return GradientEdge(*edge)


def increment_version(tensor) -> None:
    """Marks `tensor` as modified in place, so backward refuses saved copies of its old value."""
    tensor._storage.version += 1


class SavedVersion(NamedTuple):
    """A saved tensor's version at save time, and what PyTorch's error names it by: a saved input
    (`tensor`) by its grad_fn when the error is raised, a saved result by the op that made it."""

    storage: object
    version: int
    dtype: object
    shape: tuple
    tensor: object
    producer: str | None
    output_nr: int
    position: int | None = None  # the input this is, for a node's saved input: checked only if backward reads it

    def describe(self) -> str:
        """`[torch.FloatTensor [3]], which is output 0 of Mul,` as PyTorch words it."""
        from ..tensor.dtypes import LEGACY_NAMES

        text = f"[torch.{LEGACY_NAMES[self.dtype]} [{', '.join(map(str, self.shape))}]]"
        producer, output_nr = self.producer, self.output_nr
        if producer is None and self.tensor.grad_fn is not None:
            producer, output_nr = self.tensor.grad_fn.name(), self.tensor._output_nr
        if producer is None:
            return text
        return f"{text}, which is output {output_nr} of {forward_name(producer)},"


class Hole(NamedTuple):
    """A saved input that backward never reads, kept by shape and dtype only, so that its memory can go."""

    shape: tuple
    dtype: object


def holes_of(kernel, wanted: tuple, arrays: Sequence, out_meta: tuple, tuple_output: bool) -> tuple:
    """((position, Hole), ...) for the inputs that the backward of `kernel` never reads, given which inputs
    want gradient, found from the backward's jaxpr (cached by signature in `primals_read`)."""
    avals = tuple((a.shape, a.dtype) for a in arrays)
    static = (("kernel", kernel), ("out_meta", out_meta), ("primal_count", len(avals)),
              ("tuple_output", tuple_output), ("wanted", wanted))
    return tuple((i, Hole(*aval)) for i, (aval, read) in enumerate(zip(avals, primals_read(static, avals)))
                 if not read)


def punch_holes(arrays: Sequence, holes: tuple) -> tuple:
    if not holes:
        return tuple(arrays)
    saved = list(arrays)
    for i, hole in holes:
        saved[i] = hole
    return tuple(saved)


def saved_for_backward(kernel, edges: Sequence, arrays: Sequence, out_meta: tuple, tuple_output: bool) -> tuple:
    """What a node of an op that saves nothing keeps of its inputs: the arrays its backward reads (a view's
    offset), and a Hole for each one it never reads."""
    wanted = tuple(edge is not None for edge in edges)
    return punch_holes(arrays, holes_of(kernel, wanted, arrays, out_meta, tuple_output))


def split_holes(saved: tuple) -> tuple:
    """(the saved arrays, where the holes go as ((position, shape, dtype), ...)): the holes are static arguments."""
    for a in saved:
        if type(a) is Hole:
            break
    else:
        return saved, ()
    holes = tuple((i, a.shape, a.dtype) for i, a in enumerate(saved) if type(a) is Hole)
    return tuple(a for a in saved if type(a) is not Hole), holes


def fill_holes(arrays: tuple, holes: tuple) -> tuple:
    """Inside a trace: the primals, zeros in the holes (which XLA drops, since backward never reads them)."""
    if not holes:
        return arrays
    primals = list(arrays)
    for position, shape, dtype in holes:
        primals.insert(position, jax.numpy.zeros(shape, dtype))
    return tuple(primals)


@functools.lru_cache(maxsize=None)
def _pullback(kernel, holes: tuple) -> Callable:
    """Compiled `(saved arrays, cotangents) -> input cotangents` for one-node-at-a-time backward."""
    fn, name = kernel.fn, kernel.op.name + ".vjp"

    def pullback(arrays, cotangents):
        TRACE_COUNTS[name] += 1
        return jax.vjp(fn, *fill_holes(arrays, holes))[1](cotangents)

    return jax.jit(pullback)


def check_versions(versions) -> None:
    """PyTorch's error when a tensor saved for backward has since been changed in place."""
    for saved in versions:
        if saved.storage.version != saved.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: {saved.describe()} is at version {saved.storage.version}; expected version "
                f"{saved.version} instead. Hint: {_VERSION_HINTS[anomaly_mode.is_anomaly_enabled()]}")


_VERSION_HINTS = {
    False: "enable anomaly detection to find the operation that failed to compute its gradient, with "
           "torch.autograd.set_detect_anomaly(True, check_nan=False).",
    True: "the backtrace further above shows the operation that failed to compute its gradient. The variable in "
          "question was changed in there or anywhere later. Good luck!",
}


# Each node's creation number: a node's edges lead only to nodes made before it, so newest-first is an order in
# which every node runs after all the nodes that send it gradient (PyTorch's sequence_nr).
_SERIALS = itertools.count()
SERIAL_OF = operator.attrgetter("serial")


# PyTorch's hand-written C++ nodes (not generated from derivatives.yaml) name themselves with their namespace.
_HAND_WRITTEN = frozenset({"CopyBackwards", "CopySlices"})


class Node:
    """Base of every grad_fn: `name()`, `next_functions`, hooks and release."""

    __slots__ = ("edges", "tensor_hooks", "pre_hooks", "post_hooks", "serial", "_metadata", "__weakref__")
    fusable = True  # whether the fused backward may replay this node inside its single XLA call

    def __init__(self, edges: tuple) -> None:
        self.serial = next(_SERIALS)
        self.edges = edges
        self.tensor_hooks = None
        self.pre_hooks = None
        self.post_hooks = None
        if anomaly_mode._ENABLED:
            self._metadata = anomaly_mode.trace_metadata()

    def name(self) -> str:
        name = type(self).__name__
        return f"torch::autograd::{name}" if name in _HAND_WRITTEN else name

    @property
    def metadata(self) -> dict:
        """The user's own dict, kept with the node; made on first use, since few nodes are ever asked for it."""
        try:
            return self._metadata
        except AttributeError:
            self._metadata = {}
            return self._metadata

    @property
    def next_functions(self) -> tuple:
        return tuple((e.node, e.output_nr) if e is not None else (None, 0) for e in self.edges)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_inputs, grad_outputs)` runs after this node's backward; a returned tuple replaces
        grad_inputs."""
        if self.post_hooks is None:
            self.post_hooks = []
        checked = CheckedNodeHook(hook)
        self.post_hooks.append(checked)
        return RemovableHandle(self.post_hooks, checked)

    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_outputs)` runs before this node's backward; a returned tuple replaces grad_outputs."""
        if self.pre_hooks is None:
            self.pre_hooks = []
        checked = CheckedNodeHook(hook)
        self.pre_hooks.append(checked)
        return RemovableHandle(self.pre_hooks, checked)

    def add_tensor_hook(self, output_nr: int, hook: Callable) -> None:
        hooks = self.tensor_hooks if self.tensor_hooks is not None else {}
        hooks.setdefault(output_nr, []).append(hook)
        self.tensor_hooks = hooks

    def has_hooks(self) -> bool:
        return bool(self.tensor_hooks or self.pre_hooks or self.post_hooks)

    def output_count(self) -> int:
        return len(self.out_meta)

    def release(self) -> None:
        """Frees what backward needed; nodes that save nothing have nothing to free."""

    def __repr__(self) -> str:
        cls = type(self)
        qualified = cls.__name__ if cls.__module__ == _C_MODULE else f"{cls.__module__}.{cls.__name__}"
        return f"<{qualified} object at {hex(id(self))}>"


class OpNode(Node):
    """A recorded op call; backward is `jax.vjp` of its kernel at the saved inputs."""

    __slots__ = ("kernel", "saved", "versions", "out_meta", "tuple_output", "released", "packed")

    def __init__(self, kernel, edges: tuple, saved: tuple, versions: tuple, out_meta: tuple,
                 tuple_output: bool = False) -> None:
        self.serial = next(_SERIALS)  # Node.__init__'s work, inline: this runs once per recorded op
        self.edges = edges
        self.tensor_hooks = self.pre_hooks = self.post_hooks = None
        self.kernel = kernel
        self.saved = saved
        self.versions = versions
        self.out_meta = out_meta
        self.tuple_output = tuple_output
        self.released = False
        self.packed = None  # what saved-tensor hooks packed (saved_hooks)
        if anomaly_mode._ENABLED:
            self._metadata = anomaly_mode.trace_metadata()

    def has_hooks(self) -> bool:
        """Saved-tensor hooks count: their unpack hooks must run, so the node runs stepwise."""
        return bool(self.tensor_hooks or self.pre_hooks or self.post_hooks or self.packed)

    def pullback(self, saved: tuple, cotangents: tuple) -> tuple:
        """The input cotangents, given the checked saved inputs and one cotangent per output."""
        arrays, holes = split_holes(saved)
        return _pullback(self.kernel, holes)(arrays, cotangents if self.tuple_output else cotangents[0])

    @property
    def next_functions(self) -> tuple:
        hidden, unlisted = self.hidden_inputs(), self.unlisted_inputs()
        edges = self.edges[:len(self.edges) - hidden] if hidden else self.edges
        return tuple((e.node, e.output_nr) if e is not None else (None, 0) for i, e in enumerate(edges)
                     if i not in unlisted)

    def unlisted_inputs(self) -> frozenset:
        return self.kernel.op.unlisted

    def hidden_inputs(self) -> int:
        """How many trailing inputs PyTorch's node does not list (a view's offset, fill_'s number)."""
        return self.kernel.op.hidden_inputs

    def check_saved(self) -> tuple:
        """The saved inputs, after checking they are still there and that none backward reads was modified."""
        saved = self.check_saved_lazily()
        if any(type(a) is Deferred for a in saved):
            compute([a for a in saved if type(a) is Deferred])
            self.saved = saved = tuple(concrete(a) for a in saved)
        return saved

    def check_saved_lazily(self) -> tuple:
        """`check_saved`, leaving deferred inputs uncomputed for the fused backward to compute."""
        if self.released:
            raise RuntimeError(SECOND_BACKWARD)
        stale = [saved for saved in self.versions if saved.storage.version != saved.version]
        if stale:
            reads = self.primals_read()
            stale.sort(key=lambda saved: self.kernel.op.save_rank(saved.position))
            check_versions([saved for saved in stale if saved.position is None or reads[saved.position]])
        return self.saved

    def vjp_static(self, wanted: tuple | None = None) -> tuple:
        """The static arguments of `vjp_of` for this node: the cotangents of the `wanted` inputs (by default those
        with edges)."""
        if wanted is None:
            wanted = tuple(edge is not None for edge in self.edges)
        return (("kernel", self.kernel), ("out_meta", self.out_meta), ("primal_count", len(self.saved)),
                ("tuple_output", self.tuple_output), ("wanted", wanted))

    def primals_read(self) -> tuple:
        """Which saved inputs this node's backward reads (PyTorch saves only those: `x` of `x * 2` is not)."""
        return primals_read(self.vjp_static(), tuple((a.shape, a.dtype) for a in self.saved))

    def release(self) -> None:
        """Frees what backward needed (PyTorch keeps nothing for ops that save nothing), and what pack hooks
        returned."""
        self.packed = None
        if self.versions or self.kernel.op.saves:
            self.saved = None
            self.versions = ()
            self.released = True

    def zero_cotangent(self, output_nr: int):
        shape, dtype = self.out_meta[output_nr]
        if is_float(dtype):
            return jax.numpy.zeros(shape, dtype)
        return np.zeros(shape, jax.dtypes.float0)


# PyTorch's grad_fn classes are C++ types, so they print without a module: <class 'MulBackward0'>.
_C_MODULE = "builtins"


class CopySlices(OpNode):
    """An in-place op through a view, as a function of the base: lists the base, then the inner op's inputs."""

    __slots__ = ()
    __module__ = _C_MODULE

    def name(self) -> str:
        return "torch::autograd::CopySlices"

    def hidden_inputs(self) -> int:
        return dict(self.kernel.static)["inner"].op.hidden_inputs

    def unlisted_inputs(self) -> frozenset:
        return dict(self.kernel.static)["inner"].op.unlisted


class AccumulateGrad(Node):
    """The sink for a leaf: gradients arriving here land in `variable.grad`."""

    __slots__ = ("variable",)
    __module__ = _C_MODULE

    def __init__(self, variable) -> None:
        super().__init__(())
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    def output_count(self) -> int:
        return 1


def vjp_of(*arrays, kernel, primal_count, out_meta, tuple_output, wanted):
    """The cotangents of `kernel`'s wanted inputs at the primals, given the cotangents of its float outputs."""
    primals, given = arrays[:primal_count], iter(arrays[primal_count:])
    cotangents = tuple(next(given) if is_float(dtype) else np.zeros(shape, jax.dtypes.float0)
                       for shape, dtype in out_meta)
    pullback = jax.vjp(kernel.fn, *primals)[1]
    return tuple(g for g, keep in zip(pullback(cotangents if tuple_output else cotangents[0]), wanted) if keep)


def is_float(dtype) -> bool:
    return np.issubdtype(dtype, np.inexact) or dtype == jax.numpy.bfloat16


@functools.lru_cache(maxsize=4096)
def primals_read(static: tuple, primals: tuple) -> tuple:
    """Which primals `vjp_of` reads, from its jaxpr: one it never reads (an input of `sum`, `x` in `x * 2`)
    is not really saved, so changing it is no error and the recorded backward has no path back to it."""
    options = dict(static)
    jaxpr = jax.make_jaxpr(functools.partial(vjp_of, **options))(
        *(jax.ShapeDtypeStruct(*p) for p in primals), *_cotangent_structs(options)).jaxpr
    return _reaching_outputs(jaxpr, jaxpr.invars[:len(primals)])


@functools.lru_cache(maxsize=4096)
def primals_differentiated(static: tuple, primals: tuple) -> tuple:
    """Which primals `vjp_of`'s result depends on differentiably, from the jaxpr of its jvp: x in d(x*x) = 2x*g,
    but not x in clamp's or max's gradient, which reads x only through a comparison. Only these connect a
    create_graph gradient back to its inputs, as PyTorch's derivative formulas do."""
    options = dict(static)
    cotangents = _cotangent_structs(options)
    floats = [i for i, (_, dtype) in enumerate(primals) if is_float(dtype)]
    structs = [jax.ShapeDtypeStruct(*p) for p in primals]

    def tangents_out(*args):
        given, cots, tangents = args[:len(primals)], args[len(primals):-len(floats)], args[-len(floats):]

        def of_floats(*values):
            full = list(given)
            for i, value in zip(floats, values):
                full[i] = value
            return vjp_of(*full, *cots, **options)

        return jax.jvp(of_floats, tuple(given[i] for i in floats), tuple(tangents))[1]

    if not floats:
        return (False,) * len(primals)
    try:
        jaxpr = jax.make_jaxpr(tangents_out)(*structs, *cotangents, *(structs[i] for i in floats)).jaxpr
    except TypeError:  # a result jvp cannot take (an integer cotangent): fall back to what is read
        return primals_read(static, primals)
    live = dict(zip(floats, _reaching_outputs(jaxpr, jaxpr.invars[-len(floats):])))
    return tuple(live.get(i, False) for i in range(len(primals)))


def _cotangent_structs(options: dict) -> list:
    return [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in options["out_meta"] if is_float(dtype)]


def _reaching_outputs(jaxpr, invars) -> tuple:
    """For each of `invars`, whether any output of `jaxpr` depends on it."""
    live = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars):
            live.update(v for v in eqn.invars if not isinstance(v, Literal))
    return tuple(v in live for v in invars)


class Underivable(OpNode):
    """The node of an op PyTorch has no derivative for (`grad_fn=<NotImplemented>`): backward through it raises
    PyTorch's error rather than returning jax.vjp's value."""

    __slots__ = ()
    fusable = False

    def name(self) -> str:
        return "torch::autograd::NotImplemented"

    def check_saved(self) -> tuple:
        """Refuses before any gradient is computed, with create_graph or without."""
        raise RuntimeError(f"derivative for aten::{self.kernel.op.name} is not implemented")


class NoDerivative(OpNode):
    """A node PyTorch names (`Unique2Backward0`) but declares no derivative for: backward through it raises
    PyTorch's NotImplementedError."""

    __slots__ = ()
    fusable = False

    def check_saved(self) -> tuple:
        raise NotImplementedError(f"the derivative for '{self.kernel.op.name}' is not implemented.")


@functools.lru_cache(maxsize=None)
def node_class(name: str, base: type = OpNode, module: str = _C_MODULE) -> type:
    """A subclass named as PyTorch names the grad_fn (e.g. `MulBackward0`), so type(g).__name__ matches; an op
    declared with grad_name "NotImplemented" gets an Underivable node."""
    return type(name, (Underivable if name == "NotImplemented" else base,), {"__slots__": (), "__module__": module})
