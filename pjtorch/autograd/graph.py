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
    """A saved tensor's version at save time, and what PyTorch's error names it by."""

    storage: object
    version: int
    dtype: object
    shape: tuple
    tensor: object
    producer: str | None
    output_nr: int

    def describe(self) -> str:
        """`[torch.FloatTensor [3]], which is output 0 of Mul,` as PyTorch words it."""
        from ..tensor.dtypes import LEGACY_NAMES

        text = f"[torch.{LEGACY_NAMES[self.dtype]} [{', '.join(map(str, self.shape))}]]"
        producer, output_nr = self.producer, self.output_nr
        current = self.tensor() if self.tensor is not None else None
        if producer is None and current is not None and current._grad_fn is not None:
            producer, output_nr = current._grad_fn.name(), current._output_nr
        if producer is None:
            return text
        return f"{text}, which is output {output_nr} of {_BACKWARD_SUFFIX.sub('', producer)},"


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

    def register_hook(self, hook: Callable) -> None:
        self.post_hooks = (self.post_hooks or []) + [hook]

    def register_prehook(self, hook: Callable) -> None:
        self.pre_hooks = (self.pre_hooks or []) + [hook]

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

    def check_saved(self) -> tuple:
        """The saved inputs, after checking they are still there and unmodified."""
        if self.released:
            raise RuntimeError(SECOND_BACKWARD)
        for saved in self.versions:
            if saved.storage.version != saved.version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: {saved.describe()} is at version {saved.storage.version}; expected version "
                    f"{saved.version} instead. Hint: enable anomaly detection to find the operation that failed "
                    "to compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
                )
        return self.saved

    def release(self) -> None:
        """Frees what backward needed (PyTorch keeps nothing for ops that save nothing)."""
        if self.versions or self.kernel.op.saves != "nothing":
            self.saved = None
            self.released = True

    def zero_cotangent(self, output_nr: int):
        shape, dtype = self.out_meta[output_nr]
        if np.issubdtype(dtype, np.inexact) or dtype == jax.numpy.bfloat16:
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


@functools.lru_cache(maxsize=None)
def node_class(name: str, base: type = OpNode) -> type:
    """A subclass named as PyTorch names the grad_fn (e.g. `MulBackward0`), so type(g).__name__ matches."""
    return type(name, (base,), {"__slots__": ()})
