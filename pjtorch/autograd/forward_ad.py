"""Forward-mode AD (`torch.autograd.forward_ad`): a dual tensor carries a tangent, and each op on dual tensors
gives its result the tangent `jax.jvp` of the op's own function computes, as backward uses `jax.vjp`.

Tangents live only within `dual_level()`; leaving it drops every tangent made there, as PyTorch does.
"""
from __future__ import annotations

import functools
import weakref
from typing import NamedTuple, Sequence

import jax

from ..tensor.tensor import Tensor


class _Level:
    """PyTorch has one dual level for the whole process, not one per thread."""

    active = False


LEVEL = _Level()
# The tensors given a tangent at this level, by id (a WeakSet would compare tensors with their elementwise ==).
_DUALS: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    if LEVEL.active:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    LEVEL.active = True
    return 0


def exit_dual_level(*, level: int | None = None) -> None:
    LEVEL.active = False
    for tensor in list(_DUALS.values()):
        tensor._tangent = None
    _DUALS.clear()


class dual_level:
    """Within this context, dual tensors made by `make_dual` carry their tangents through every op."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info) -> None:
        exit_dual_level()


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of `tensor` whose tangent (directional derivative) is `tangent`."""
    if not LEVEL.active:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
                           "enter_dual_level() first.")
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not (t.is_floating_point() or t.is_complex()):
            raise ValueError(f"Expected {name} to be floating point or complex, but got: {t.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                           f"Tensor, this is not supported. Tensor is of size {list(tensor.shape)} while the given "
                           f"forward gradient is of size {list(tangent.shape)}.")
    dual = tensor.view_as(tensor)
    attach(dual, tangent if tangent.dtype is tensor.dtype else tangent.to(tensor.dtype))
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent): the tangent is None for a tensor that is not dual."""
    tangent = tensor._tangent
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    primal = tensor.view_as(tensor)
    primal._tangent = None
    return UnpackedDualTensor(primal, tangent)


def attach(tensor: Tensor, tangent: Tensor) -> None:
    tensor._tangent = tangent
    _DUALS[id(tensor)] = tensor


def has_tangent(inputs: Sequence) -> bool:
    return any(isinstance(x, Tensor) and x._tangent is not None for x in inputs)


def propagate(kernel, inputs: Sequence, arrays: Sequence, outputs: Sequence[Tensor]) -> None:
    """Gives each floating result of `kernel(*arrays)` (the call of `inputs`) its tangent."""
    positions = tuple(i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x._tangent is not None)
    tangents = tuple(inputs[i]._tangent._value().astype(arrays[i].dtype) for i in positions)
    out_tangents = _jvp(kernel, positions)(tuple(arrays), tangents)
    for out, out_tangent in zip(outputs, out_tangents if type(out_tangents) is tuple else (out_tangents,)):
        if out.is_floating_point() or out.is_complex():
            attach(out, Tensor._wrap(out_tangent, out.device))


@functools.lru_cache(maxsize=None)
def _jvp(kernel, positions: tuple):
    """Compiled (arrays, tangents of the inputs at `positions`) -> the tangents of the results."""
    forward = _forward_fn(kernel)

    def tangents_out(arrays: tuple, tangents: tuple):
        def of_duals(*duals):
            full = list(arrays)
            for position, dual in zip(positions, duals):
                full[position] = dual
            return forward(*full)

        return jax.jvp(of_duals, tuple(arrays[i] for i in positions), tangents)[1]

    return jax.jit(tangents_out)


def _forward_fn(kernel):
    """The kernel's function, or its op's `forward_mode` variant: one whose JAX derivative is PyTorch's forward-mode
    formula where that is not the transpose of PyTorch's backward formula (index_put with repeated indices). Such
    ops cast nothing (promote="none"), so binding the static arguments is the whole kernel."""
    forward = getattr(kernel.op.fn, "forward_mode", None)
    if forward is None or kernel.cast is not None:
        return kernel.fn
    return functools.partial(forward, **dict(kernel.static))
