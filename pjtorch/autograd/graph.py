"""The recorded graph: one Node per differentiable op call, PyTorch's `grad_fn` objects.

A Node holds the kernel it ran, the input arrays it ran on (immutable, so saving them is
free), the edges to the nodes that produced its inputs, and the version of every tensor
PyTorch would have saved, so an in-place change to one is caught at backward time.
"""
from __future__ import annotations

import functools
import re
from typing import Callable, NamedTuple

import jax
import numpy as np
from jax.extend.core import Literal

from .hooks import RemovableHandle

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after they have "
    "already been freed). Saved intermediate values of the graph are freed when you call .backward() or "
    "autograd.grad(). Specify retain_graph=True if you need to backward through the graph a second time or "
    "if you need to access saved tensors after calling backward."
)


_BACKWARD_SUFFIX = re.compile(r"Backward\d*$")


class Edge(NamedTuple):
    node: "Node"
    output_nr: int


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
        return f"{text}, which is output {output_nr} of {_BACKWARD_SUFFIX.sub('', producer)},"


def check_versions(versions) -> None:
    """PyTorch's error when a tensor saved for backward has since been changed in place."""
    for saved in versions:
        if saved.storage.version != saved.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an inplace "
                f"operation: {saved.describe()} is at version {saved.storage.version}; expected version "
                f"{saved.version} instead. Hint: enable anomaly detection to find the operation that failed "
                "to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
            )


class Node:
    """Base of every grad_fn: `name()`, `next_functions`, hooks and release."""

    __slots__ = ("edges", "tensor_hooks", "pre_hooks", "post_hooks", "__weakref__")
    is_fused = True

    def __init__(self, edges: tuple) -> None:
        self.edges = edges
        self.tensor_hooks = None
        self.pre_hooks = None
        self.post_hooks = None

    def name(self) -> str:
        return type(self).__name__

    @property
    def next_functions(self) -> tuple:
        return tuple((e.node, e.output_nr) if e is not None else (None, 0) for e in self.edges)

    def register_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_inputs, grad_outputs)` runs after this node's backward; a returned tuple replaces
        grad_inputs."""
        if self.post_hooks is None:
            self.post_hooks = []
        self.post_hooks.append(hook)
        return RemovableHandle(self.post_hooks, hook)

    def register_prehook(self, hook: Callable) -> RemovableHandle:
        """`hook(grad_outputs)` runs before this node's backward; a returned tuple replaces grad_outputs."""
        if self.pre_hooks is None:
            self.pre_hooks = []
        self.pre_hooks.append(hook)
        return RemovableHandle(self.pre_hooks, hook)

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
        return f"<{self.name()} object at {hex(id(self))}>"


class OpNode(Node):
    """A recorded op call; backward is `jax.vjp` of its kernel at the saved inputs."""

    __slots__ = ("kernel", "saved", "versions", "out_meta", "tuple_output", "released")

    def __init__(self, kernel, edges: tuple, saved: tuple, versions: tuple, out_meta: tuple,
                 tuple_output: bool = False) -> None:
        super().__init__(edges)
        self.kernel = kernel
        self.saved = saved
        self.versions = versions
        self.out_meta = out_meta
        self.tuple_output = tuple_output
        self.released = False

    def cotangent_structure(self, cotangents: tuple):
        """The cotangent in the shape of the kernel's output: a tuple exactly when the kernel returns one."""
        return cotangents if self.tuple_output else cotangents[0]

    @property
    def next_functions(self) -> tuple:
        hidden = self.kernel.op.hidden_inputs
        edges = self.edges[:len(self.edges) - hidden] if hidden else self.edges
        return tuple((e.node, e.output_nr) if e is not None else (None, 0) for e in edges)

    def check_saved(self) -> tuple:
        """The saved inputs, after checking they are still there and that none backward reads was modified."""
        if self.released:
            raise RuntimeError(SECOND_BACKWARD)
        stale = [saved for saved in self.versions if saved.storage.version != saved.version]
        if stale:
            reads = self.primals_read()
            check_versions([saved for saved in stale if saved.position is None or reads[saved.position]])
        return self.saved

    def vjp_static(self) -> tuple:
        """The static arguments of `vjp_of` for this node: the cotangents of the inputs that have edges."""
        return (("kernel", self.kernel), ("out_meta", self.out_meta), ("primal_count", len(self.saved)),
                ("tuple_output", self.tuple_output), ("wanted", tuple(edge is not None for edge in self.edges)))

    def primals_read(self) -> tuple:
        """Which saved inputs this node's backward reads (PyTorch saves only those: `x` of `x * 2` is not)."""
        return primals_read(self.vjp_static(), tuple((a.shape, a.dtype) for a in self.saved))

    def release(self) -> None:
        """Frees what backward needed (PyTorch keeps nothing for ops that save nothing)."""
        if self.versions or self.kernel.op.saves != "nothing":
            self.saved = None
            self.versions = ()
            self.released = True

    def zero_cotangent(self, output_nr: int):
        shape, dtype = self.out_meta[output_nr]
        if is_float(dtype):
            return jax.numpy.zeros(shape, dtype)
        return np.zeros(shape, jax.dtypes.float0)


class AccumulateGrad(Node):
    """The sink for a leaf: gradients arriving here land in `variable.grad`."""

    __slots__ = ("variable",)

    def __init__(self, variable) -> None:
        super().__init__(())
        self.variable = variable

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
    cotangents = [jax.ShapeDtypeStruct(shape, dtype) for shape, dtype in options["out_meta"] if is_float(dtype)]
    jaxpr = jax.make_jaxpr(functools.partial(vjp_of, **options))(
        *(jax.ShapeDtypeStruct(*p) for p in primals), *cotangents).jaxpr
    live = {v for v in jaxpr.outvars if not isinstance(v, Literal)}
    for eqn in reversed(jaxpr.eqns):
        if any(v in live for v in eqn.outvars):
            live.update(v for v in eqn.invars if not isinstance(v, Literal))
    return tuple(v in live for v in jaxpr.invars[:len(primals)])


@functools.lru_cache(maxsize=None)
def node_class(name: str, base: type = OpNode) -> type:
    """A subclass named as PyTorch names the grad_fn (e.g. `MulBackward0`), so type(g).__name__ matches."""
    return type(name, (base,), {"__slots__": ()})
