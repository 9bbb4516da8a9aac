"""`nn.Parameter` (a Tensor a Module registers as trainable) and `nn.Buffer` (one it registers as state)."""
from __future__ import annotations

from ..tensor import factories
from ..tensor.tensor import Tensor


class Parameter(Tensor):
    """A leaf that requires grad (by default) and shares `data`'s storage, as PyTorch's does.

    Operations on a Parameter return plain Tensors; only the Parameter object itself is special,
    which is how Module tells parameters from other tensor attributes.
    """

    _is_param = True

    def __new__(cls, data: Tensor | None = None, requires_grad: bool = True) -> "Parameter":
        if data is None:
            data = factories.empty(0)
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
        param = object.__new__(cls)
        param.__dict__.update(data.detach().__dict__)
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        """Everything happens in __new__; Tensor.__init__ forbids direct construction."""

    def __repr__(self, *, tensor_contents=None) -> str:
        return "Parameter containing:\n" + super().__repr__()

    __str__ = __repr__

    def __deepcopy__(self, memo: dict) -> "Parameter":
        if id(self) not in memo:
            memo[id(self)] = type(self)(self.data.clone(), self.requires_grad)
        return memo[id(self)]


class _BufferMeta(type):
    """`isinstance(t, Buffer)` is true for tensors `Buffer(...)` made: they are plain Tensors with a flag."""

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that, assigned to a Module attribute, becomes a buffer: part of the module's state (its
    state_dict when `persistent`) but not a parameter. As in PyTorch, what it makes is a plain Tensor."""

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Tensor:
        if data is None:
            data = factories.empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        t.persistent = persistent
        t._is_buffer = True
        return t


class UninitializedTensorMixin:
    """A placeholder of unknown shape (for lazy modules) that `materialize` turns into the real class."""

    cls_to_become: type = Tensor

    def __init__(self, *args, **kwargs) -> None:
        """Everything happens in __new__; Tensor.__init__ forbids direct construction."""

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Give it storage of `shape`, uninitialised like torch.empty, and its final class."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.set_(factories.empty(shape, device=device or self.device, dtype=dtype or self.dtype))
        self.__class__ = self.cls_to_become

    def __repr__(self, *, tensor_contents=None) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__


class UninitializedParameter(UninitializedTensorMixin, Parameter):
    cls_to_become = Parameter

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None) -> "UninitializedParameter":
        return super().__new__(cls, factories.empty(0, device=device, dtype=dtype), requires_grad)


class UninitializedBuffer(UninitializedTensorMixin, Tensor):
    def __new__(cls, requires_grad: bool = False, device=None, dtype=None,
                persistent: bool = True) -> "UninitializedBuffer":
        buffer = object.__new__(cls)
        buffer.__dict__.update(factories.empty(0, device=device, dtype=dtype).__dict__)
        buffer.requires_grad_(requires_grad)
        buffer.persistent = persistent
        return buffer


def is_lazy(param: Tensor) -> bool:
    return isinstance(param, UninitializedTensorMixin)
