"""The backward engine: order the graph, seed, walk, accumulate.

Gradients flow as jax.Arrays, each node running its kernel's compiled `jax.vjp`. With
`create_graph=True` they flow as Tensors instead, and each node's vjp runs through dispatch as
an op of its own, so the backward computation is recorded and can be differentiated again.
A graph with no hooks or custom Functions is replayed whole under one `jax.jit` (`fused`).
"""
from __future__ import annotations

import functools
import heapq
import warnings
from typing import Sequence

import jax
import jax.numpy as jnp

from .. import dispatch
from .._stack import user_stacklevel
from ..ops.registry import Op, SAVES_INPUTS, SAVES_NOTHING
from ..tensor import factories
from ..tensor.size import Size
from ..tensor.tensor import Tensor
from . import anomaly_mode, fused, grad_mode, saved_hooks
from .graph import (SERIAL_OF, AccumulateGrad, Edge, GradientEdge, Hole, Node, OpNode, is_float,
                    primals_differentiated, primals_read, vjp_of)

# ----- entry points -------------------------------------------------------------------------------


def backward(tensors: Sequence[Tensor], grad_tensors=None, retain_graph=None, create_graph: bool = False,
             inputs=None) -> None:
    """Accumulates d(tensors)/d(leaf) into each leaf's `.grad` (only `inputs`' when given)."""
    tensors = _as_tuple(tensors)
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    roots = _root_edges(tensors)
    seeds = _seeds(tensors, grad_tensors, create_graph)
    retain = create_graph if retain_graph is None else retain_graph
    only = None if inputs is None else {_input_edge(t, i) for i, t in enumerate(inputs)}
    if create_graph:
        _warn_of_the_cycle_once()
    for t in inputs or ():
        t.retain_grad()  # as PyTorch does: a non-leaf input's gradient lands in its .grad this way
    _run(roots, seeds, retain, create_graph, capture=None, accumulate_only=only, outputs=tensors)


_CYCLE_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the parameter and its gradient "
    "which can cause a memory leak. We recommend using autograd.grad when creating the graph to avoid this. If you "
    "have to use this function, make sure to reset the .grad fields of your parameters to None after use to break "
    "the cycle and avoid the leak.")
_cycle_warned = False


def _warn_of_the_cycle_once() -> None:
    """PyTorch warns once per process (TORCH_WARN_ONCE)."""
    global _cycle_warned
    if not _cycle_warned:
        _cycle_warned = True
        warnings.warn(_CYCLE_WARNING, UserWarning, stacklevel=user_stacklevel())


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """d(outputs)/d(inputs), returned rather than accumulated."""
    outputs, inputs = _as_tuple(outputs), _as_tuple(inputs)
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                             materialize_grads)
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    roots = _root_edges(outputs)
    seeds = _seeds(outputs, grad_outputs, create_graph)
    retain = create_graph if retain_graph is None else retain_graph
    capture = {}
    for i, t in enumerate(inputs):
        capture.setdefault(_input_edge(t, i), []).append(i)
    found = _run(roots, seeds, retain, create_graph, capture=capture, accumulate_only=None, outputs=outputs)
    results = []
    for i, t in enumerate(inputs):
        value = found.get(i)
        if value is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in the "
                                   "graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                value = factories.zeros_like(t)
        results.append(value)
    return tuple(results)


def _batched_grad(outputs: tuple, inputs: tuple, grad_outputs, retain_graph, create_graph: bool, allow_unused,
                  materialize_grads: bool) -> tuple:
    """`grad` with `is_grads_batched`: the first dim of each grad_output indexes separate vector-Jacobian
    products, whose results are stacked (one backward per row, where PyTorch vmaps)."""
    from ..tensor.functions import stack

    batched = (grad_outputs,) if isinstance(grad_outputs, Tensor) or grad_outputs is None else tuple(grad_outputs)
    for i, (g, out) in enumerate(zip(batched, outputs)):
        if g is not None and tuple(g.shape[1:]) != tuple(out.shape):
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the batch "
                "dimension. The sizes of the remaining dimensions are expected to match the shape of corresponding "
                f"output, but a mismatch was detected: grad_output[{i}] has a shape of {Size(g.shape[1:])} and "
                f"output[{i}] has a shape of {out.shape}. If you only want some tensors in `grad_output` to be "
                "considered batched, consider using vmap.")
    if any(g is None for g in batched) or len(batched) != len(outputs):
        return grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused=allow_unused,
                    materialize_grads=materialize_grads)
    rows = batched[0].shape[0]
    keep = create_graph if retain_graph is None else retain_graph
    per_row = [grad(outputs, inputs, tuple(g[row] for g in batched), keep or row < rows - 1, create_graph,
                    allow_unused=allow_unused, materialize_grads=materialize_grads) for row in range(rows)]
    return tuple(None if column[0] is None else stack(column) for column in zip(*per_row))


def _as_tuple(value) -> tuple:
    if isinstance(value, (Tensor, GradientEdge)):  # a GradientEdge is a tuple, but one input
        return (value,)
    return tuple(value)


def _root_edges(tensors: Sequence[Tensor]) -> list:
    edges = []
    for i, t in enumerate(tensors):
        edge = dispatch.edge_of(t)
        if edge is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        edges.append(edge)
    return edges


def _input_edge(t: Tensor, position: int) -> Edge:
    if isinstance(t, GradientEdge):
        return Edge(t.node, t.output_nr)
    if not isinstance(t, Tensor):
        raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got {type(t).__name__}")
    edge = dispatch.edge_of(t)
    if edge is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return edge


def _seeds(tensors: Sequence[Tensor], grads, create_graph: bool) -> list:
    """The gradient each root starts with, checked as PyTorch checks it."""
    if grads is None or isinstance(grads, Tensor):
        grads = (grads,) * len(tensors) if grads is None else (grads,)
    grads = tuple(grads)
    if len(grads) != len(tensors):
        raise RuntimeError("grad can be implicitly created only for scalar outputs" if not grads else
                           f"Mismatch in number of grad_outputs: {len(grads)} and {len(tensors)} outputs")
    seeds = []
    for i, (t, g) in enumerate(zip(tensors, grads)):
        if g is None:
            if t.numel() != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if t.dtype.is_complex:
                raise RuntimeError("grad can be implicitly created only for real scalar outputs but got "
                                   f"{t.dtype}")
            if not create_graph and not t._shape:
                seeds.append(dispatch.scalar_array(1, t.dtype.jax, t._storage.device))
                continue
            g = factories.ones_like(t)
        elif not isinstance(g, Tensor):
            raise TypeError(f"gradients can be either Tensors or None, but got {type(g).__name__}")
        elif g.shape != t.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and output[{i}] has a "
                               f"shape of {t.shape}.")
        g = g if g.dtype is t.dtype else g.to(t.dtype)
        seeds.append(_conj_if_complex(g) if create_graph else _conj_array(g._value()))
    return seeds


# ----- the walk -----------------------------------------------------------------------------------


def _plan(roots: list) -> list:
    """Nodes in an order where each runs after every node that sends it gradient (Kahn's algorithm)."""
    dependencies: dict = {}
    seen = {edge.node for edge in roots}
    stack = list(seen)
    while stack:
        node = stack.pop()
        for edge in node.edges:
            if edge is None:
                continue
            dependencies[edge.node] = dependencies.get(edge.node, 0) + 1
            if edge.node not in seen:
                seen.add(edge.node)
                stack.append(edge.node)
    ready = [_ready(node) for node in dict.fromkeys(e.node for e in roots) if not dependencies.get(node)]
    heapq.heapify(ready)
    order = []
    while ready:
        node = heapq.heappop(ready)[2]
        order.append(node)
        for edge in node.edges:
            if edge is None:
                continue
            dependencies[edge.node] -= 1
            if dependencies[edge.node] == 0:
                heapq.heappush(ready, _ready(edge.node))
    return order


def _ready(node: Node) -> tuple:
    """A ready node's place in PyTorch's queue: a leaf's accumulator first, then the newest node."""
    return (not isinstance(node, AccumulateGrad), -node.serial, node)


def _reachable(roots: list) -> list:
    """The nodes gradient can flow through from `roots`, newest first (so each after all that send it gradient)."""
    seen = {edge.node for edge in roots}
    nodes = list(seen)
    for node in nodes:  # grows as it goes
        for edge in node.edges:
            if edge is not None and edge.node not in seen:
                seen.add(edge.node)
                nodes.append(edge.node)
    nodes.sort(key=SERIAL_OF, reverse=True)
    return nodes


def _run(roots: list, seeds: list, retain_graph: bool, create_graph: bool, capture, accumulate_only,
         outputs: Sequence[Tensor]) -> dict:
    targets = None if capture is None and accumulate_only is None else {edge.node for edge in
                                                                          capture or accumulate_only}
    if not create_graph and not anomaly_mode.is_anomaly_enabled():
        order, skipped = _reachable(roots), ()
        if targets is not None:
            order, skipped = _prune(order, targets, capture is None)
        if not skipped and fused.can_fuse(order):
            found = fused.run(order, roots, seeds, retain_graph, capture, accumulate_only, outputs)
            if found is not None:
                return found
    order = _plan(roots)  # the order hooks run in matters here: PyTorch's is a walk from the roots
    skipped = ()
    if targets is not None:
        order, skipped = _prune(order, targets, capture is None)
    with grad_mode.set_grad_enabled(create_graph):
        return _run_stepwise(order, roots, seeds, retain_graph, create_graph, capture, accumulate_only, skipped)


def _prune(order: list, targets: set, run_targets: bool) -> tuple:
    """Only what reaches the targets runs, as in PyTorch: nodes with a path to a target, and the targets
    themselves for `.backward(inputs=...)`. Returns that order (the targets kept) and the targets that must not run
    (`autograd.grad` wants only the gradient flowing into them)."""
    runs = set()
    for node in reversed(order):
        if (run_targets and node in targets) or any(edge is not None and (edge.node in runs or edge.node in targets)
                                                    for edge in node.edges):
            runs.add(node)
    return [node for node in order if node in runs or node in targets], targets - runs


def _run_stepwise(order, roots, seeds, retain_graph, create_graph, capture, accumulate_only, skipped) -> dict:
    pending: dict = {}
    for edge, seed in zip(roots, seeds):
        _add_into(pending, edge, seed)
    captured: dict = {}
    for node in order:
        grads_out = pending.pop(node, None)
        if grads_out is None:
            continue
        grads_out = _call_tensor_hooks(node, grads_out, create_graph)
        if node.pre_hooks:
            grads_out = _call_node_hooks(node.pre_hooks, grads_out, create_graph)
        _capture(node, grads_out, capture, captured, create_graph)
        if node in skipped:
            continue
        if isinstance(node, AccumulateGrad):
            if capture is None and (accumulate_only is None or Edge(node, 0) in accumulate_only) \
                    and node.variable._requires_grad:  # a leaf that stopped requiring grad gets none
                accumulate_into_leaf(node.variable, grads_out[0], create_graph)
            if node.post_hooks:  # an accumulator has no inputs: its hooks see () and the gradient it took
                _call_node_hooks(node.post_hooks, [], create_graph, grads_out)
            continue
        try:
            grads_in = _apply_node(node, grads_out, create_graph)
        except RuntimeError:
            anomaly_mode.report(node)
            raise
        if anomaly_mode.checks_nan():
            anomaly_mode.check_gradients(node, [g if edge is not None else None
                                                for g, edge in zip(grads_in, node.edges)])
        if node.post_hooks:
            if isinstance(node, OpNode):  # a built-in node computes no gradient for an input that needs none
                grads_in = [g if edge is not None else None for g, edge in zip(grads_in, node.edges)]
            grads_in = _call_node_hooks(node.post_hooks, grads_in, create_graph, grads_out)
        for edge, g in zip(node.edges, grads_in):
            if edge is not None and g is not None:
                _add_into(pending, edge, g)
        if not retain_graph:
            node.release()
    return captured


def _add_into(pending: dict, edge: Edge, grad) -> None:
    slots = pending.get(edge.node)
    if slots is None:
        slots = pending[edge.node] = [None] * edge.node.output_count()
    current = slots[edge.output_nr]
    slots[edge.output_nr] = grad if current is None else current + grad


def _capture(node: Node, grads_out: list, capture, captured: dict, create_graph: bool) -> None:
    if not capture:
        return
    for nr, g in enumerate(grads_out):
        positions = capture.get(Edge(node, nr))
        if positions and g is not None:
            value = _conj_if_complex(g) if create_graph else _wrap_grad(g, node, nr)
            for position in positions:
                captured[position] = value


def _wrap_grad(g, node: Node, nr: int) -> Tensor:
    device = node.variable.device if isinstance(node, AccumulateGrad) else None
    return Tensor._wrap(_conj_array(g), device)


def _call_tensor_hooks(node: Node, grads_out: list, create_graph: bool) -> list:
    """Tensor hooks and retain_grad see (and may replace) the gradient flowing into a tensor."""
    hooks_by_output = node.tensor_hooks or {}
    leaf_hooks = node.variable._leaf_hooks if isinstance(node, AccumulateGrad) else None
    if not hooks_by_output and not leaf_hooks:
        return grads_out
    grads_out = list(grads_out)
    for nr, g in enumerate(grads_out):
        hooks = (leaf_hooks if isinstance(node, AccumulateGrad) else None) or hooks_by_output.get(nr, ())
        if g is None or not hooks:
            continue
        exposed = _exposed(g, create_graph)
        for hook in hooks:
            replaced = hook(exposed)
            if replaced is not None:
                _check_replacement(hook, exposed, replaced)
                exposed = replaced
        grads_out[nr] = _internal(exposed, create_graph)
    return grads_out


def _check_replacement(hook, old: Tensor, new) -> None:
    """A tensor hook may change a gradient's values, not its size or type (PyTorch's checks and words)."""
    name = getattr(hook, "__name__", repr(hook))
    if isinstance(new, Tensor) and new.shape != old.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")
    if isinstance(new, Tensor) and (new.dtype is not old.dtype or new.device != old.device):
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got {new.type()})")


def _call_node_hooks(hooks: list, grads, create_graph: bool, *context) -> list:
    """A grad_fn's pre-hooks see (grad_outputs), its post-hooks (grad_inputs, grad_outputs), as tuples of
    tensors; a tuple a hook returns replaces the first."""
    exposed = tuple(_exposed(g, create_graph) for g in grads)
    context = tuple(tuple(_exposed(g, create_graph) for g in grads) for grads in context)
    for hook in hooks:
        replaced = hook(exposed, *context)
        if replaced is not None:
            exposed = tuple(replaced)
    return [_internal(t, create_graph) for t in exposed]


def _exposed(g, create_graph: bool):
    """A gradient as user code sees it: a Tensor, in PyTorch's convention (conjugate of jax.vjp's)."""
    if g is None:
        return None
    return _conj_if_complex(g) if create_graph else Tensor._wrap(_conj_array(g), None)


def _internal(t, create_graph: bool):
    """A gradient user code returned, back in the engine's form and convention."""
    if t is None:
        return None
    return _conj_if_complex(t) if create_graph else _conj_array(t._value())


def _apply_node(node: Node, grads_out: list, create_graph: bool) -> tuple:
    if not isinstance(node, OpNode):
        return node.apply(grads_out, create_graph)
    saved = saved_hooks.unpacked_arrays(node, node.check_saved())
    if create_graph:
        return _apply_recorded(node, saved, grads_out)
    cotangents = tuple(g if g is not None else node.zero_cotangent(nr) for nr, g in enumerate(grads_out))
    return node.pullback(saved, cotangents)


# ----- create_graph: the vjp itself as a recorded op ----------------------------------------------

def _products(*names: str) -> dict:
    return dict.fromkeys((f"{name}Backward0" for name in names), "MulBackward0")


def _quotients(*names: str) -> dict:
    return dict.fromkeys((f"{name}Backward0" for name in names), "DivBackward0")


# PyTorch names a gradient computed under create_graph by the last op of its derivative formula: for pointwise
# math mostly a product or a quotient, for many others the op's own backward kernel (`TanhBackwardBackward0`),
# which is the default below. Names only: the values come from jax.vjp whatever the name.
_DOUBLE_BACKWARD_NAMES = {
    **_products("Mul", "Pow", "Sin", "Cos", "Tan", "Exp", "Expm1", "Abs", "Reciprocal", "Rsqrt", "Asin", "Sinh",
                "Cosh", "Erf", "Silu", "Mish", "LinalgVectorNorm", "Std", "Var", "Logsumexp", "Prod", "Atan2", "Mv",
                "Acos", "Asinh", "Acosh", "Erfc", "Erfinv", "Lgamma", "Digamma", "Polygamma", "I0", "Amax", "Amin",
                "Addcmul"),
    **_quotients("Div", "Log", "Log1P", "Log2", "Log10", "Sqrt", "Atan", "Atanh", "Cumprod", "Addcdiv"),
    "Exp2Backward0": "MulBackward1", "CeluBackward0": "EluBackwardBackward0", "SincBackward0": "WhereBackward0",
    "LogitBackward0": "WhereBackward0", "ClampBackward0": "WhereBackward0", "ClampBackward1": "WhereBackward0",
    "SumBackward0": "ExpandBackward0", "SumBackward1": "ExpandBackward0", "MeanBackward0": "DivBackward1",
    "MeanBackward1": "DivBackward1", "CumsumBackward0": "FlipBackward0", "FlipBackward0": "FlipBackward0",
    "WhereBackward0": "WhereBackward0", "MaskedFillBackward0": "MaskedFillBackward0",
    "MaskedFillBackward1": "MaskedFillBackward0", "GatherBackward0": "ScatterAddBackward0",
    "ToCopyBackward0": "ToCopyBackward0", "NegBackward0": "NegBackward0", "SubBackward0": "NegBackward0",
    "RsubBackward0": "NegBackward0", "RsubBackward1": "NegBackward0", "SqueezeBackward0": "UnsqueezeBackward0",
    "SqueezeBackward1": "UnsqueezeBackward0", "SqueezeBackward2": "UnsqueezeBackward0",
    "MaxBackward1": "MaskedFillBackward1", "MinBackward1": "MaskedFillBackward1",
    "SigmoidBackwardBackward0": "SigmoidBackwardBackward0",
    "TanhBackwardBackward0": "TanhBackwardBackward0", "ThresholdBackwardBackward0": "ThresholdBackwardBackward0",
    "SoftmaxBackwardDataBackward0": "SoftmaxBackwardDataBackward0", "EluBackwardBackward0": "MulBackward0",
    "SoftplusBackwardBackward0": "MulBackward1", "GeluBackwardBackward0": "MulBackward0",
    "LogSigmoidBackwardBackward0": "MulBackward0",
    "PowBackward1": "WhereBackward0", "PowBackward2": "MulBackward0", "MmBackward0": "MmBackward0",
    "AddmmBackward0": "MmBackward0", "ReluBackward0": "ThresholdBackwardBackward0",
    "SoftmaxBackward0": "SoftmaxBackwardDataBackward0", "LogSoftmaxBackward0": "LogSoftmaxBackwardDataBackward0",
    "ViewBackward0": "ViewBackward0", "TBackward0": "TBackward0", "TransposeBackward0": "TransposeBackward0",
    "PermuteBackward0": "PermuteBackward0", "UnsqueezeBackward0": "SqueezeBackward1",
}


# Nodes whose PyTorch derivative formula reads the input through an op of its own derivative (zero, but recorded):
# relu's threshold_backward, abs's sgn. Their create_graph gradient stays linked to every input it reads; any other
# node's links only the inputs it depends on differentiably (clamp's gradient reads x only through a mask).
_LINKED_BY_READING = frozenset({
    "ReluBackward0", "AbsBackward0", "LeakyReluBackward0", "HardtanhBackward0", "ThresholdBackward0",
    "SoftshrinkBackward0", "HardshrinkBackward0", "HardsigmoidBackward0", "CopysignBackward0",
    "LinalgVectorNormBackward0", "MaxPool1DWithIndicesBackward0", "MaxPool2DWithIndicesBackward0",
    "MaxPool3DWithIndicesBackward0",
})


def _links(node: OpNode, static: tuple, avals: tuple) -> tuple:
    """Which saved inputs a create_graph gradient stays linked to. PyTorch's pow gradient is
    `grad * c * x**(c - 1)`, linked to x for every exponent but 0 (x**1's gradient reads x through x**0)."""
    name = type(node).__name__
    if name == "PowBackward0" and dict(node.kernel.static).get("exponent") != 0:
        return (True,) * len(avals)
    return (primals_read if name in _LINKED_BY_READING else primals_differentiated)(static, avals)


# Gradient nodes that only rearrange the incoming gradient keep nothing for backward, as PyTorch's do; the others
# keep the values they read, freed by a backward through them (a second one raises, as PyTorch's does).
_KEEPING_NOTHING = frozenset({"ViewBackward0", "TBackward0", "TransposeBackward0", "PermuteBackward0",
                              "SqueezeBackward1"})


@functools.lru_cache(maxsize=None)
def _vjp_op(grad_name: str) -> Op:
    """The op a node's vjp is recorded as, named as PyTorch would name the gradient it makes."""
    name = _DOUBLE_BACKWARD_NAMES.get(grad_name, grad_name.rstrip("0123456789") + "Backward0")
    return Op("vjp", vjp_of, grad_name=name, saves=SAVES_NOTHING if name in _KEEPING_NOTHING else SAVES_INPUTS,
              promote="none")


# Gradients PyTorch hands on unchanged, recording no node of their own: an add's (alpha 1), a sub's first operand's,
# an addcmul's or addcdiv's first operand's and a clone's, where the input has the output's shape and dtype.
_PASSED_THROUGH = {"AddBackward0": (0, 1), "SubBackward0": (0,), "CloneBackward0": (0,), "AddcmulBackward0": (0,),
                   "AddcdivBackward0": (0,)}


def _passes_through(node: OpNode, position: int, avals: tuple) -> bool:
    positions = _PASSED_THROUGH.get(type(node).__name__, ())
    return (position in positions and len(node.out_meta) == 1 and dict(node.kernel.static).get("alpha", 1) == 1
            and avals[position] == (tuple(node.out_meta[0][0]), node.out_meta[0][1]))


def _apply_recorded(node: OpNode, saved: tuple, grads_out: list) -> tuple:
    """Each wanted input's cotangent as an op of its own, depending only on the primals its formula reads, as in
    PyTorch: d(x * y)/dx = grad * y has no path back to x."""
    device = next(g for g in grads_out if g is not None).device
    saved = tuple(factories.filled_array(a.shape, 0, a.dtype, device) if type(a) is Hole else a for a in saved)
    cotangents = []
    for nr, (shape, dtype) in enumerate(node.out_meta):
        if not is_float(dtype):
            continue
        g = grads_out[nr]
        cotangents.append(g if g is not None else Tensor._wrap(factories.filled_array(shape, 0, dtype, device),
                                                               device))
    avals = tuple((array.shape, array.dtype) for array in saved)
    results = []
    for position, edge in enumerate(node.edges):
        if edge is None:
            results.append(None)
            continue
        if _passes_through(node, position, avals):
            results.append(cotangents[0])
            continue
        static = node.vjp_static(wanted=tuple(i == position for i in range(len(node.edges))))
        links = _links(node, static, avals)
        primals = tuple(_connected(array, source if linked else None)
                        for array, source, linked in zip(saved, node.edges, links))
        (g,) = dispatch.apply(_vjp_op(type(node).__name__), (*primals, *cotangents), static)
        results.append(g)
    return tuple(results)


def _connected(array, edge: Edge | None) -> Tensor:
    """A tensor holding a saved input's value whose gradient flows along the input's original edge."""
    t = Tensor._wrap(array, None)
    if edge is not None:
        t._grad_fn, t._output_nr = edge.node, edge.output_nr
    return t


# ----- into the leaves ----------------------------------------------------------------------------

def accumulate_into_leaf(leaf: Tensor, g, create_graph: bool) -> None:
    """`.grad` accumulates: in place normally, out of place (staying differentiable) under create_graph; then the
    leaf's post-accumulate hooks run."""
    if create_graph:
        g = _conj_if_complex(g)
        leaf._grad = _first_recorded_grad(leaf, g) if leaf._grad is None else leaf._grad + g
    else:
        g = _conj_array(g)
        if g.dtype != leaf.dtype.jax:
            g = g.astype(leaf.dtype.jax)
        if leaf._grad is None:
            leaf._grad = fused.new_leaf_grad(leaf, g)
        else:
            current = leaf._grad
            current._assign(_ADD(current._value(), g))
    for hook in list(leaf._post_accumulate_hooks or ()):
        hook(leaf)


_ADD = jax.jit(lambda a, b: a + b.astype(a.dtype))


def _first_recorded_grad(leaf: Tensor, g: Tensor) -> Tensor:
    """A leaf's first gradient under create_graph is stored as PyTorch stores it: a copy laid out as the leaf, so
    `.grad` prints grad_fn=<CopyBackwards> (a gradient with no history is kept as it is)."""
    if g._grad_fn is None:
        return g
    return factories.empty_like(leaf, dtype=g.dtype, device=g.device).copy_(g)


def _conj_array(g):
    return jnp.conj(g) if jnp.iscomplexobj(g) else g


def _conj_if_complex(t: Tensor) -> Tensor:
    return t.conj() if t.dtype.is_complex else t
