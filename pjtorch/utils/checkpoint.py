"""Activation checkpointing: run a function without keeping what its graph saved, recompute it during backward.

Two variants, as in PyTorch:

- `use_reentrant=True`: one custom autograd.Function (`CheckpointFunctionBackward`). Forward runs `fn`
  under no_grad; backward restores the random state, reruns `fn` with grad on detached inputs and
  backpropagates through that fresh graph, accumulating into every parameter `fn` uses.
- `use_reentrant=False` (PyTorch's recommendation): `fn` runs with grad on, so its outputs carry the real
  graph (`AddmmBackward0`...) and work with `autograd.grad`, `backward(inputs=...)` and double
  backward. The values that graph saved for backward are dropped at once; the first of its nodes that a
  backward reaches reruns `fn` (same random and autocast state) and puts the recomputed values back, and
  each node drops them again once it has run. The region is found by walking back from the outputs to
  `fn`'s own inputs (passed in as fresh leaves, then reconnected), so it is exactly what `fn` recorded from
  them; ops inside `fn` that use only parameters keep their saved values.
"""
from __future__ import annotations

import contextlib
import warnings
import weakref
from typing import Callable, Iterator

from .. import dispatch
from ..amp import autocast_mode
from ..autograd import engine, grad_mode
from ..autograd.function import Function
from ..autograd.graph import OpNode
from ..tensor import random
from ..tensor.tensor import Tensor

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you "
    "need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details "
    "on the differences between the two variants."
)


class CheckpointError(RuntimeError):
    """The recomputation did not record what the forward pass recorded."""


def noop_context_fn() -> tuple:
    return contextlib.nullcontext(), contextlib.nullcontext()


class CheckpointFunction(Function):
    """The reentrant variant: forward(ctx, fn, preserve_rng_state, *args)."""

    @staticmethod
    def forward(ctx, run_function: Callable, preserve_rng_state: bool, *args):
        ctx.run_function = run_function
        ctx.rng_state = random.get_rng_state() if preserve_rng_state else None
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.arguments = list(args)
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_positions))
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        arguments = list(ctx.arguments)
        for position, saved in zip(ctx.tensor_positions, ctx.saved_tensors):
            arguments[position] = saved.detach().requires_grad_(saved.requires_grad)
        with _restored_rng(ctx.rng_state), grad_mode.enable_grad():
            outputs = ctx.run_function(*arguments)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        engine.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in arguments)


@contextlib.contextmanager
def _restored_rng(state) -> Iterator[None]:
    """Runs the block from random state `state` (None: as is), leaving the current state as it was."""
    if state is None:
        yield
        return
    current = random.get_rng_state()
    random.set_rng_state(state)
    try:
        yield
    finally:
        random.set_rng_state(current)


@contextlib.contextmanager
def _autocast_state(state: dict) -> Iterator[None]:
    """Runs the block with autocast as it was when `state` was taken."""
    current = dict(autocast_mode.STATE.dtypes)
    autocast_mode.STATE.dtypes = dict(state)
    try:
        yield
    finally:
        autocast_mode.STATE.dtypes = current


def _detached(args: tuple) -> tuple:
    """Fresh leaves sharing the inputs' values, where the graph `fn` records starts. Floating inputs require grad
    even when the caller's do not, so that what `fn` computes from them is recorded, found and recomputed (the
    edges are cut again afterwards)."""
    return tuple(a.detach().requires_grad_(a.requires_grad or a.is_floating_point()) if isinstance(a, Tensor) else a
                 for a in args)


def _tensors(value) -> Iterator[Tensor]:
    if isinstance(value, Tensor):
        yield value
    elif isinstance(value, (tuple, list)):
        for item in value:
            yield from _tensors(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _tensors(item)


def _region(outputs, inputs: tuple) -> list:
    """The nodes that lead from `outputs` back to one of `inputs` (detached leaves), depth first from the
    outputs: the same order whenever the same function records the same graph."""
    sinks = {dispatch.edge_of(t).node for t in inputs if isinstance(t, Tensor) and t.requires_grad}
    reaches: dict = {}
    order = []
    stack = [(t.grad_fn, False) for t in reversed(list(_tensors(outputs))) if t.grad_fn is not None]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            reaches[node] = node in sinks or any(e is not None and reaches[e.node] for e in node.edges)
            if reaches[node] and node not in sinks:
                order.append(node)
        elif node not in reaches:
            reaches[node] = False
            stack.append((node, True))
            stack.extend((e.node, False) for e in reversed(node.edges) if e is not None and e.node not in reaches)
    return order


def _saved_metadata(node) -> list:
    return [(tuple(a.shape), a.dtype) for a in node.saved] if isinstance(node, OpNode) else []


class _Region:
    """What one non-reentrant checkpoint recorded, and how to recompute what its nodes saved."""

    def __init__(self, function: Callable, args: tuple, kwargs: dict, nodes: list, rng_state, recompute_context,
                 determinism_check: str) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs
        self.rng_state = rng_state
        self.autocast = dict(autocast_mode.STATE.dtypes)
        self.recompute_context = recompute_context
        self.check = determinism_check != "none"
        self.metadata = [_saved_metadata(node) for node in nodes]
        self.nodes = [weakref.ref(node) for node in nodes]

    def free(self, node: OpNode, inputs: set) -> None:
        """Drops what `node` saved, keeping the version checks of `fn`'s inputs (PyTorch raises when an input
        changed in place before backward, and recomputes from whatever the parameters hold then)."""
        node.saved = None
        node.versions = tuple(v for v in node.versions if v.storage in inputs)
        ref = weakref.ref(node)  # the hooks live on the node: a strong reference would keep it alive in a cycle
        node.register_prehook(lambda grads: self.refill() if ref().saved is None and not ref().released else None)
        node.register_hook(lambda grads_in, grads_out: setattr(ref(), "saved", None))

    def refill(self) -> None:
        with _restored_rng(self.rng_state), _autocast_state(self.autocast), grad_mode.enable_grad(), \
                self.recompute_context:
            inputs = _detached(self.args)
            fresh = _region(self.function(*inputs, **self.kwargs), inputs)
        self._check(fresh)
        for ref, recomputed in zip(self.nodes, fresh):
            node = ref()
            if isinstance(node, OpNode) and not node.released:
                node.saved = recomputed.saved

    def _check(self, fresh: list) -> None:
        if len(fresh) != len(self.nodes) or any(type(ref()) not in (type(node), type(None))
                                                for ref, node in zip(self.nodes, fresh)):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the original forward and "
                "recomputation.\nNumber of tensors saved during forward: "
                f"{sum(len(m) for m in self.metadata)}\nNumber of tensors saved during recomputation: "
                f"{sum(len(_saved_metadata(node)) for node in fresh)}")
        if self.check:
            for position, (saved, node) in enumerate(zip(self.metadata, fresh)):
                if saved != _saved_metadata(node):
                    raise CheckpointError(
                        "torch.utils.checkpoint: Recomputed values for the following tensors have different "
                        f"metadata than during the forward pass.\nnode {position} ({type(node).__name__}):\n"
                        f"saved metadata: {saved}\nrecomputed metadata: {_saved_metadata(node)}")


def _checkpoint_without_reentrant(function: Callable, args: tuple, kwargs: dict, preserve_rng_state: bool,
                                  context_fn: Callable, determinism_check: str):
    forward_context, recompute_context = context_fn()
    rng_state = random.get_rng_state() if preserve_rng_state else None
    inputs = _detached(args)
    with forward_context:
        outputs = function(*inputs, **kwargs)
    nodes = _region(outputs, inputs)
    dead = _reconnect(nodes, inputs, args)
    region = _Region(function, args, kwargs, nodes, rng_state, recompute_context, determinism_check)
    storages = {a._storage for a in args if isinstance(a, Tensor)}
    for node in nodes:
        if isinstance(node, OpNode) and node not in dead:
            region.free(node, storages)
    return _returned(outputs, inputs, args, dead)


def _reconnect(nodes: list, inputs: tuple, args: tuple) -> set:
    """Points the region's edges at the caller's tensors instead of the detached inputs. Edges to an input that
    needs no grad are cut, and so are edges to nodes left with none: those nodes are dead, and returned."""
    targets = {dispatch.edge_of(inner): dispatch.edge_of(original) for inner, original in zip(inputs, args)
               if isinstance(inner, Tensor) and inner.requires_grad}
    dead = set()
    for node in nodes:  # every node comes after the nodes its edges lead to
        node.edges = tuple(None if edge is None or edge.node in dead else targets.get(edge, edge)
                           for edge in node.edges)
        if all(edge is None for edge in node.edges):
            dead.add(node)
    return dead


def _returned(value, inputs: tuple, args: tuple, dead: set):
    """What checkpoint returns for `fn`'s output: an input returned as is becomes the caller's own tensor, and a
    tensor whose graph leads nowhere is detached (PyTorch would not have recorded it)."""
    if isinstance(value, Tensor):
        original = next((a for inner, a in zip(inputs, args) if value is inner), None)
        if original is not None:
            return original
        return value.detach() if value.grad_fn in dead else value
    if isinstance(value, (tuple, list)):
        items = [_returned(item, inputs, args, dead) for item in value]
        return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
    return value


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None,
               context_fn: Callable[[], tuple] = noop_context_fn, determinism_check: str = "default",
               debug: bool = False, early_stop: bool = True, preserve_rng_state: bool = True, **kwargs):
    """function(*args, **kwargs) whose intermediate activations are recomputed in backward instead of saved."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got {determinism_check}")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if grad_mode.STATE.enabled and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        return CheckpointFunction.apply(function, preserve_rng_state, *args)
    if not grad_mode.STATE.enabled:
        return function(*args, **kwargs)
    return _checkpoint_without_reentrant(function, args, kwargs, preserve_rng_state, context_fn, determinism_check)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Runs a Sequential (or list of modules) in `segments` checkpointed chunks; the last runs normally."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        chunk = functions[start:end + 1]

        def run(x, chunk=chunk):
            for fn in chunk:
                x = fn(x)
            return x

        input = checkpoint(run, input, use_reentrant=use_reentrant, **kwargs)
    for fn in functions[end + 1:]:
        input = fn(input)
    return input
