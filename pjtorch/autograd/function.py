"""`torch.autograd.Function`: user-written forward and backward as one node of the graph."""
from __future__ import annotations

from ..tensor import dtypes
from ..tensor.tensor import Tensor
from . import grad_mode
from .graph import SECOND_BACKWARD, Node


class FunctionCtx:
    """The `ctx` passed to forward and backward: saved tensors and which inputs need gradients."""

    def __init__(self) -> None:
        self._saved = ()
        self._versions = ()
        self._released = False
        self.needs_input_grad = ()
        self.materialize_grads = True
        self.non_differentiable = ()
        self.dirty = ()

    def save_for_backward(self, *tensors) -> None:
        self._saved = tensors
        self._versions = tuple(t._version if isinstance(t, Tensor) else None for t in tensors)

    @property
    def saved_tensors(self) -> tuple:
        if self._released:
            raise RuntimeError(SECOND_BACKWARD)
        for t, version in zip(self._saved, self._versions):
            if isinstance(t, Tensor) and t._version != version:
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [torch.{dtypes.LEGACY_NAMES[t.dtype]} [{', '.join(map(str, t.shape))}]] is at "
                    f"version {t._version}; expected version {version} instead. Hint: enable anomaly detection to "
                    "find the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True).")
        return self._saved

    def mark_non_differentiable(self, *tensors) -> None:
        self.non_differentiable = tensors

    def mark_dirty(self, *tensors) -> None:
        self.dirty = tensors

    def set_materialize_grads(self, value: bool) -> None:
        self.materialize_grads = value


class FunctionNode(Node):
    """The grad_fn of a custom Function's outputs: calls the user's backward."""

    __slots__ = ("function", "ctx", "out_meta")

    def __init__(self, function: type, ctx: FunctionCtx, edges: tuple, out_meta: tuple) -> None:
        super().__init__(edges)
        self.function = function
        self.ctx = ctx
        self.out_meta = out_meta

    def name(self) -> str:
        return f"{self.function.__name__}Backward"

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{self.name()} object at {hex(id(self))}>"

    def apply(self, grads_out: list, create_graph: bool) -> tuple:
        grads = [self._as_tensor(g, nr, create_graph) for nr, g in enumerate(grads_out)]
        with grad_mode.set_grad_enabled(create_graph):
            results = self.function.backward(self.ctx, *grads)
        if not isinstance(results, tuple):
            results = (results,)
        if len(results) < len(self.edges) or any(r is not None for r in results[len(self.edges):]):
            raise RuntimeError(f"function {self.name()} returned an incorrect number of gradients (expected "
                               f"{len(self.edges)}, got {len(results)})")
        return tuple(self._unwrap(r, create_graph) for r in results[:len(self.edges)])

    def _as_tensor(self, g, nr: int, create_graph: bool):
        if g is None:
            if not self.ctx.materialize_grads:
                return None
            import jax.numpy as jnp

            shape, dtype = self.out_meta[nr]
            return Tensor._wrap(jnp.zeros(shape, dtype), None)
        return g if create_graph else Tensor._wrap(g, None)

    @staticmethod
    def _unwrap(result, create_graph: bool):
        if result is None or create_graph:
            return result
        return result._value()

    def release(self) -> None:
        self.ctx._released = True


class Function:
    """Subclass with static `forward(ctx, *args)` and `backward(ctx, *grads)`, then call `.apply`."""

    @staticmethod
    def forward(ctx, *args, **kwargs):
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    vjp = backward

    @classmethod
    def apply(cls, *args, **kwargs):
        from .. import dispatch

        ctx = FunctionCtx()
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        with grad_mode.no_grad():
            outputs = cls.forward(ctx, *args, **kwargs)
        if not (grad_mode.STATE.enabled and any(ctx.needs_input_grad)):
            return outputs
        single = not isinstance(outputs, tuple)
        results = (outputs,) if single else outputs
        edges = tuple(dispatch.edge_of(a) if isinstance(a, Tensor) else None for a in args)
        out_meta = tuple((r.shape, r.dtype.jax) if isinstance(r, Tensor) else ((), None) for r in results)
        node = FunctionNode(cls, ctx, edges, out_meta)
        wrapped = []
        for nr, r in enumerate(results):
            if isinstance(r, Tensor) and r.dtype.category >= dtypes.FLOATING and \
                    not any(r is nd for nd in ctx.non_differentiable):
                if any(r is a for a in args):
                    r = r.view_as(r)
                r._grad_fn, r._output_nr = node, nr
            wrapped.append(r)
        return wrapped[0] if single else tuple(wrapped)


class once_differentiable:
    """Accepted for compatibility: pjtorch's custom backward is simply not recorded unless create_graph."""

    def __new__(cls, fn):
        return fn
