"""`torch.autograd.Function`: user-written forward and backward as one node of the graph."""
from __future__ import annotations

import contextlib
import functools
import inspect
import warnings
import weakref
from typing import NamedTuple

from ..tensor import dtypes
from ..tensor.tensor import Tensor
from . import grad_mode, saved_hooks
from .graph import SECOND_BACKWARD, Node, check_versions, node_class


class FunctionCtx:
    """The `ctx` passed to forward and backward: saved tensors and which inputs need gradients."""

    def __init__(self) -> None:
        self._saved = ()
        self._saved_for_forward = None  # what save_for_forward kept, read as saved_tensors within jvp
        self._packed = None  # saved-tensor hooks' entries, keyed by position in _saved
        self._versions = ()
        self._released = False
        self.needs_input_grad = ()
        self.materialize_grads = True
        self.non_differentiable = ()
        self.dirty = ()

    def save_for_backward(self, *tensors) -> None:
        self._saved = tensors

    def save_for_forward(self, *tensors) -> None:
        self._saved_for_forward = tensors

    @property
    def saved_tensors(self) -> tuple:
        if self._saved_for_forward is not None and _IN_JVP.depth:
            return self._saved_for_forward
        if self._released:
            raise RuntimeError(SECOND_BACKWARD)
        check_versions(self._versions)
        saved = [t.unpack() if isinstance(t, _SavedOutput) else t for t in self._saved]
        for i, tensor in saved_hooks.unpack(self._packed or []):
            saved[i] = _standing_for(saved[i], tensor)
        return tuple(saved)

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors) -> None:
        self.dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class _Depth:
    """How deeply calls are nested in something (a torch.func transform, a vmap, a Function's jvp)."""

    def __init__(self) -> None:
        self.depth = 0

    @contextlib.contextmanager
    def entered(self):
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1


# torch.func's transforms set these while they run the user's function; _IN_JVP is set while a jvp runs.
IN_TRANSFORM, IN_VMAP, _IN_JVP = _Depth(), _Depth(), _Depth()
_PACKAGE = __name__.partition(".")[0]
_NO_JVP = "You must implement the jvp function for custom autograd.Function to use it with forward mode AD."
_EXTENDING_FUNC = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _check_transformable(cls: type) -> None:
    """PyTorch's torch.func transforms take only Functions with a separate setup_context, and vmap only those that
    generate or define a vmap rule. pjtorch's own Functions stand for PyTorch's built-in ops, which need neither."""
    if cls.__module__.partition(".")[0] == _PACKAGE:
        return
    if IN_TRANSFORM.depth and cls.setup_context is Function.setup_context:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms (vmap, grad, jvp, jacrev, "
                           f"...), it must override the setup_context staticmethod. {_EXTENDING_FUNC}")
    if IN_VMAP.depth and not (getattr(cls, "generate_vmap_rule", False) or cls.vmap is not Function.vmap):
        raise RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap support. Please "
                           "override and implement the vmap staticmethod or set generate_vmap_rule=True. "
                           + _EXTENDING_FUNC)


@contextlib.contextmanager
def _tangents_hidden(args: tuple):
    """The forward (and the jvp) run on the primals: dual inputs lose their tangents meanwhile, as in PyTorch."""
    duals = [(a, a._tangent) for a in args if isinstance(a, Tensor) and a._tangent is not None]
    for a, _ in duals:
        a._tangent = None
    try:
        yield
    finally:
        for a, tangent in duals:
            a._tangent = tangent


def _forward_tangents(cls: type, ctx: FunctionCtx, args: tuple, outputs: tuple) -> None:
    """The user's jvp, given each tensor input's tangent (zeros where it has none, None for other arguments),
    gives the outputs' tangents."""
    from . import forward_ad

    tangents = [None if not isinstance(a, Tensor) else a._tangent if a._tangent is not None else a.new_zeros(a.shape)
                for a in args]
    with _IN_JVP.entered(), _tangents_hidden(args):
        results = cls.jvp(ctx, *tangents)
    results = results if isinstance(results, tuple) else (results,)
    for out, tangent in zip(outputs, results):
        if isinstance(out, Tensor) and isinstance(tangent, Tensor) and (out.is_floating_point() or out.is_complex()):
            forward_ad.attach(out, tangent)


class FunctionNode(Node):
    """The grad_fn of a custom Function's outputs (a subclass named `<Function>Backward`): calls the user's
    backward, then checks its gradients against the forward's inputs as PyTorch does."""

    __slots__ = ("function", "ctx", "out_meta", "inputs")

    def __init__(self, function: type, ctx: FunctionCtx, edges: tuple, out_meta: tuple, inputs: tuple) -> None:
        """edges: one per tensor input; inputs: (shape, dtype) per forward argument, None for non-tensors."""
        super().__init__(edges)
        self.function = function
        self.ctx = ctx
        self.out_meta = out_meta
        self.inputs = inputs

    def apply(self, grads_out: list, create_graph: bool) -> tuple:
        grads = [self._as_tensor(g, nr, create_graph) for nr, g in enumerate(grads_out)]
        with grad_mode.set_grad_enabled(bool(create_graph)):
            results = self.function.backward(self.ctx, *grads)
        if not isinstance(results, tuple):
            results = (results,)
        expected = len(self.inputs)
        if len(results) < expected or any(r is not None for r in results[expected:]):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                               f"{expected}, got {len(results)})")
        input_grads = []
        for position, (meta, result) in enumerate(zip(self.inputs, results)):
            if meta is None:
                if result is not None:
                    raise RuntimeError(f"function {self.name()} returned a gradient different than None at position "
                                       f"{position + 1}, but the corresponding forward input was not a Variable")
                continue
            if result is not None:
                if not isinstance(result, Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(result).__name__})")
                result = self._fit(result, meta, len(input_grads))
                result = result if create_graph else result._value()
            input_grads.append(result)
        return tuple(input_grads)

    def _as_tensor(self, g, nr: int, create_graph: bool):
        if g is None:
            shape, dtype = self.out_meta[nr]
            if not self.ctx.materialize_grads or dtype is None:  # a non-tensor output has no gradient at all
                return None
            import jax.numpy as jnp

            return Tensor._wrap(jnp.zeros(shape, dtype), None)
        return g if create_graph else Tensor._wrap(g, None)

    def _fit(self, grad: Tensor, meta: tuple, index: int) -> Tensor:
        """A gradient in its input's shape and dtype: broadcast ones are summed back, others refused."""
        shape, dtype = meta
        if grad.shape != shape:
            if not _expandable(shape, grad.shape):
                raise RuntimeError(f"Function {self.name()} returned an invalid gradient at index {index} - got "
                                   f"{list(grad.shape)} but expected shape compatible with {list(shape)}")
            grad = _sum_to(grad, shape)
        return grad if grad.dtype is dtype else grad.to(dtype)

    def release(self) -> None:
        self.ctx._released = True
        self.ctx._packed = None


def _expandable(shape: tuple, target: tuple) -> bool:
    lead = len(target) - len(shape)
    return lead >= 0 and all(s in (1, t) for s, t in zip(shape, target[lead:]))


def _sum_to(grad: Tensor, shape: tuple) -> Tensor:
    lead = grad.ndim - len(shape)
    dims = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape) if s == 1 and grad.shape[lead + i] != 1)
    return grad.sum(dim=dims, keepdim=True).reshape(shape) if dims else grad.reshape(shape)


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`, then call `.apply`."""

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        raise NotImplementedError(_NO_JVP)

    @staticmethod
    def vmap(info, in_dims, *args):
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap staticmethod "
                                  "or set generate_vmap_rule=True.")

    @staticmethod
    def setup_context(ctx, inputs: tuple, output) -> None:
        """Overridden by Functions whose `forward` takes no ctx (PyTorch 2's style): saves what backward needs."""
        raise NotImplementedError("setup_context is not implemented.")

    @classmethod
    def apply(cls, *args, **kwargs):
        from .. import dispatch
        from . import forward_ad

        _check_transformable(cls)
        dual = forward_ad.LEVEL.active and forward_ad.has_tangent(args)
        if dual and cls.jvp is Function.jvp:
            raise NotImplementedError(_NO_JVP)
        if cls.setup_context is not Function.setup_context:
            # PyTorch binds keyword arguments and defaults to forward's parameters, so setup_context sees them all
            bound = _signature(cls.forward).bind(*args, **kwargs)
            bound.apply_defaults()
            args, kwargs = bound.args, {}
        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad(), _tangents_hidden(args):
            if cls.setup_context is Function.setup_context:
                outputs = cls.forward(ctx, *args, **kwargs)
            else:
                outputs = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, outputs)
        tracked = grad_mode.STATE.enabled and any(ctx.needs_input_grad)
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        _account_for_dirty(ctx.dirty, results, args, tracked)
        if not tracked:
            outputs = _untracked(outputs, args)
            if dual:
                _forward_tangents(cls, ctx, args, outputs if isinstance(outputs, tuple) else (outputs,))
            return outputs
        _check_saved(ctx._saved)
        edges = tuple(dispatch.edge_of(a) for a in args if isinstance(a, Tensor))
        inputs = tuple((a.shape, a.dtype) if isinstance(a, Tensor) else None for a in args)
        out_meta = tuple((r.shape, r.dtype.jax) if isinstance(r, Tensor) else ((), None) for r in results)
        node_type = node_class(f"{cls.__name__}Backward", FunctionNode, "torch.autograd.function")
        node = node_type(cls, ctx, edges, out_meta, inputs)
        wrapped = tuple(_attach(r, nr, node, args, ctx) for nr, r in enumerate(results))
        if saved_hooks.STATE.hooks:
            ctx._packed = saved_hooks.pack([(i, t) for i, t in enumerate(ctx._saved) if isinstance(t, Tensor)])
        ctx._saved, ctx._versions = _pack_saved(ctx._saved, wrapped, node)
        if dual:
            _forward_tangents(cls, ctx, args, wrapped)
        return wrapped[0] if single else wrapped


_signature = functools.lru_cache(maxsize=None)(inspect.signature)
_DIRTY_NOT_RETURNED = ("Some elements marked as dirty during the forward method were not returned as output. The "
                       "inputs that are modified inplace must all be outputs of the Function.")
_DIRTY_NOT_INPUT = ("ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have been "
                    "mutated should be passed to ctx.mark_dirty(). (Triggered internally at "
                    "/__w/pytorch/pytorch/torch/csrc/autograd/custom_function.cpp:320.)")


def _account_for_dirty(dirty: tuple, results: tuple, args: tuple, tracked: bool) -> None:
    """PyTorch's checks of `mark_dirty`: each dirty tensor counts one more change (its version is bumped, except
    for a tracked view, which `_attach` writes back through its base) and must be an output of the Function; one
    that is not an input is warned about."""
    returned = all(any(d is r for r in results) for d in dirty)
    for d in dirty:
        if not (returned and tracked and _written_through_base(d)):
            d._storage.version += 1
    if not returned:
        raise RuntimeError(_DIRTY_NOT_RETURNED)
    if tracked and any(not any(d is a for a in args) for d in dirty):
        warnings.warn(_DIRTY_NOT_INPUT, UserWarning, stacklevel=3)


def _check_saved(saved: tuple) -> None:
    """What a recorded Function saves for backward must be tensors (or None); PyTorch checks only then."""
    for i, t in enumerate(saved):
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"save_for_backward can only save variables, but argument {i} is of type "
                            f"{type(t).__name__}")


def _written_through_base(t: Tensor) -> bool:
    return t._base is not None


def _untracked(outputs, args: tuple):
    """Outputs recorded nowhere: still, an input returned unchanged comes back as a new tensor without grad (a
    detached alias), as PyTorch gives it."""
    def fresh(result):
        if not isinstance(result, Tensor):
            return result
        if not any(result is a for a in args):
            return _as_output_view(result)
        if result.requires_grad:
            return result.detach()
        with grad_mode.no_grad():
            return result.view_as(result)

    return tuple(map(fresh, outputs)) if isinstance(outputs, tuple) else fresh(outputs)


def _attach(result, nr: int, node: FunctionNode, args: tuple, ctx: FunctionCtx):
    """An output with `node` as its grad_fn: an input returned unchanged becomes a view of it, a dirty
    (modified in place) input keeps its identity and has its history rebased, as in PyTorch; a view is flagged."""
    if not isinstance(result, Tensor):
        return result
    if result.dtype.category < dtypes.FLOATING or any(result is t for t in ctx.non_differentiable):
        # PyTorch returns a non-differentiable input as a detached alias, leaving the input's history alone
        return result.detach() if result.requires_grad and any(result is a for a in args) else result
    if any(result is t for t in ctx.dirty):
        if _written_through_base(result):
            return _rebased_view(result, nr, node)
        if result.is_leaf and result.requires_grad:
            raise RuntimeError("a leaf Variable that requires grad has been used in an in-place operation.")
    elif any(result is a for a in args):
        with grad_mode.no_grad():
            result = result.view_as(result)
    result._grad_fn, result._output_nr = node, nr
    return _as_output_view(result)


def _as_output_view(result: Tensor) -> Tensor:
    """An output that is a view may not be changed in place, nor read after its base is, where that would be
    recorded: autograd would replace the Function's backward with the view's (PyTorch's IN_CUSTOM_FUNCTION)."""
    if result._base is not None:
        result._view_creation = "custom_function"
    return result


def _rebased_view(view: Tensor, nr: int, node: FunctionNode) -> Tensor:
    """A dirty view: as PyTorch rebases it, its base's history becomes a CopySlices around the Function's output and
    the view reads from the base (AsStridedBackward0); the copy is the version bump PyTorch's mark_dirty makes (made
    anyway where the view may not be changed in place, before the error)."""
    from .. import dispatch

    try:
        dispatch.check_inplace_allowed(view)
    except RuntimeError:
        view._storage.version += 1
        raise
    written = view.detach().clone()
    written._grad_fn, written._output_nr = node, nr
    with grad_mode.enable_grad():
        view.copy_(written)
    return view


def _standing_for(original: Tensor, unpacked: Tensor) -> Tensor:
    """What an unpack hook returned, with `original`'s place in the graph (its grad_fn, or its leaf's gradient
    accumulator), as PyTorch's saved variables give it."""
    from .. import dispatch

    if not original.requires_grad:
        return unpacked
    t = unpacked.detach()
    t._grad_fn, t._output_nr = original._grad_fn, original._output_nr
    if original._grad_fn is None:
        accumulator = dispatch.accumulator(original)
        t._requires_grad = True
        t._accumulator = lambda: accumulator
    return t


class _SavedOutput(NamedTuple):
    """A saved output, held without its grad_fn so that the graph does not keep itself alive (PyTorch's
    weak grad_fn); unpacking gives a tensor whose grad_fn is this Function's node again."""

    alias: Tensor
    output_nr: int
    node: weakref.ref

    def unpack(self) -> Tensor:
        t = self.alias.detach()
        t._grad_fn, t._output_nr = self.node(), self.output_nr
        return t


def _pack_saved(saved: tuple, outputs: tuple, node: FunctionNode) -> tuple:
    """The saved tensors as kept, and their versions: a saved output is named after this Function, an input by
    its grad_fn when the error is raised."""
    from ..dispatch import _saved_version

    packed, versions = [], []
    for t in saved:
        nr = next((i for i, out in enumerate(outputs) if out is t), None) if isinstance(t, Tensor) else None
        if nr is None:
            packed.append(t)
            if isinstance(t, Tensor):
                versions.append(_saved_version(t))
        else:
            packed.append(_SavedOutput(t.detach(), nr, weakref.ref(node)))
            versions.append(_saved_version(t, node.name(), nr))
    return tuple(packed), tuple(versions)


ONCE_DIFFERENTIABLE = "trying to differentiate twice a function that was marked with @once_differentiable"


class _DelayedError(Function):
    """Stands between a once_differentiable backward's results and their uses: differentiating it raises."""

    @staticmethod
    def forward(ctx, grad):
        return grad.clone()

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(ONCE_DIFFERENTIABLE)


def once_differentiable(backward):
    """A backward that is not itself differentiable: it runs without grad, and differentiating its result
    (under create_graph) raises PyTorch's error."""

    @functools.wraps(backward)
    def wrapped(ctx, *grads):
        with grad_mode.no_grad():
            results = backward(ctx, *grads)
        if not (grad_mode.STATE.enabled and any(isinstance(g, Tensor) and g.requires_grad for g in grads)):
            return results
        single = not isinstance(results, tuple)
        guarded = tuple(r if r is None else _DelayedError.apply(r.detach().requires_grad_())
                        for r in ((results,) if single else results))
        return guarded[0] if single else guarded

    return wrapped
