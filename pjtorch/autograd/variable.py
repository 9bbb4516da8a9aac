"""`torch.autograd.Variable`: the pre-0.4 wrapper, now just a way to make a tensor.

Every tensor is a Variable (`isinstance` says so); calling the class returns a plain tensor
sharing the data, detached, with `requires_grad` as given.
"""
from __future__ import annotations

import warnings

from ..tensor import factories
from ..tensor.tensor import Tensor

__all__ = ["Variable", "VariableMeta"]


class VariableMeta(type):
    """Makes `isinstance(t, Variable)` true for every tensor."""

    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=VariableMeta):
    """Legacy constructor: Variable(data=None, requires_grad=False, volatile=False, _grad_fn=None, name=None)."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False, _grad_fn=None,
                name: str | None = None) -> Tensor:
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                          UserWarning, stacklevel=2)
        if _grad_fn is not None:
            raise TypeError(f"_grad_fn has to be a Function object or None, but got {type(_grad_fn).__name__}")
        if data is None:
            data = factories.empty(0)
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        factories.check_grad_dtype(data.dtype, requires_grad)  # worded as the factories word it, as in PyTorch
        return data.detach().requires_grad_(bool(requires_grad))
