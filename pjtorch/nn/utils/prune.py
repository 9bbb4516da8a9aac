"""`torch.nn.utils.prune`: pruning by reparameterisation. Pruning parameter `name` moves it to `name_orig`, adds a
`name_mask` buffer, and keeps `name = name_orig * name_mask` up to date with a forward pre-hook (the pruning method
object itself). Pruning the same parameter again stacks the methods in a PruningContainer, each new one acting
only on what the earlier ones left."""
from __future__ import annotations

import numbers
from abc import ABC, abstractmethod
from typing import Iterable

from ...tensor import factories, random
from ...tensor.tensor import Tensor
from .convert_parameters import parameters_to_vector

__all__ = ["BasePruningMethod", "CustomFromMask", "Identity", "L1Unstructured", "LnStructured", "PruningContainer",
           "RandomStructured", "RandomUnstructured", "custom_from_mask", "global_unstructured", "identity",
           "is_pruned", "l1_unstructured", "ln_structured", "random_structured", "random_unstructured", "remove"]


class BasePruningMethod(ABC):
    """A pruning rule: `compute_mask(t, default_mask)` zeroes more of `default_mask` (never less)."""

    _tensor_name: str
    PRUNING_TYPE: str

    def __call__(self, module, inputs) -> None:
        setattr(module, self._tensor_name, self.apply_mask(module))

    @abstractmethod
    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The mask for importance scores `t`, on top of the mask of earlier pruning."""

    def apply_mask(self, module) -> Tensor:
        mask = getattr(module, self._tensor_name + "_mask")
        orig = getattr(module, self._tensor_name + "_orig")
        return mask.to(dtype=orig.dtype) * orig

    @classmethod
    def apply(cls, module, name: str, *args, importance_scores: Tensor | None = None, **kwargs):
        """Prunes `module.name` with `cls(*args, **kwargs)` and returns the method now hooked on the module."""
        method = _stacked_method(cls(*args, **kwargs), module, name)
        orig = getattr(module, name)
        if importance_scores is None:
            importance_scores = orig
        elif importance_scores.shape != orig.shape:
            raise AssertionError(f"importance_scores should have the same shape as parameter {name} of {module}, "
                                 f"got {importance_scores.shape} vs {orig.shape}")
        first = not isinstance(method, PruningContainer)
        if first:
            module.register_parameter(name + "_orig", orig)
            del module._parameters[name]
            default_mask = factories.ones_like(orig)
        else:
            default_mask = getattr(module, name + "_mask").detach().clone()
        try:
            module.register_buffer(name + "_mask", method.compute_mask(importance_scores, default_mask=default_mask))
            setattr(module, name, method.apply_mask(module))
            module.register_forward_pre_hook(method)
        except Exception:
            if first:
                module.register_parameter(name, module._parameters.pop(name + "_orig"))
            raise
        return method

    def prune(self, t: Tensor, default_mask: Tensor | None = None, importance_scores: Tensor | None = None) -> Tensor:
        """`t` times the mask this method computes for it."""
        if importance_scores is None:
            importance_scores = t
        elif importance_scores.shape != t.shape:
            raise AssertionError(f"importance_scores should have the same shape as tensor t, got "
                                 f"{importance_scores.shape} vs {t.shape}")
        default_mask = default_mask if default_mask is not None else factories.ones_like(t)
        return t * self.compute_mask(importance_scores, default_mask=default_mask)

    def remove(self, module) -> None:
        """Makes the pruning permanent: `name` becomes a parameter again, holding the masked values."""
        weight = self.apply_mask(module)
        if hasattr(module, self._tensor_name):
            delattr(module, self._tensor_name)
        orig = module._parameters.pop(self._tensor_name + "_orig")
        orig.data = weight.data
        del module._buffers[self._tensor_name + "_mask"]
        setattr(module, self._tensor_name, orig)


def _stacked_method(method: BasePruningMethod, module, name: str) -> BasePruningMethod:
    """`method` for `module.name`, taking the place of (and stacked onto) the pruning hook already there."""
    method._tensor_name = name
    found = [(key, hook) for key, hook in module._forward_pre_hooks.items()
             if isinstance(hook, BasePruningMethod) and hook._tensor_name == name]
    if len(found) > 1:
        raise AssertionError(f"Avoid adding multiple pruning hooks to the same tensor {name} of module {module}. Use "
                             "a PruningContainer.")
    if not found:
        return method
    key, previous = found[0]
    del module._forward_pre_hooks[key]
    container = previous if isinstance(previous, PruningContainer) else PruningContainer(previous)
    container.add_pruning_method(method)
    return container


class PruningContainer(BasePruningMethod):
    """Pruning methods applied one after another to the same parameter."""

    def __init__(self, *args) -> None:
        self._pruning_methods: tuple = ()
        if len(args) == 1:
            self._tensor_name = args[0]._tensor_name
        for method in args:
            self.add_pruning_method(method)

    def add_pruning_method(self, method: BasePruningMethod) -> None:
        if not isinstance(method, BasePruningMethod) and method is not None:
            raise TypeError(f"{type(method)} is not a BasePruningMethod subclass")
        if method is not None and self._tensor_name != method._tensor_name:
            raise ValueError(f"Can only add pruning methods acting on the parameter named '{self._tensor_name}' to "
                             f"PruningContainer {self}. Found '{method._tensor_name}'")
        self._pruning_methods += (method,)

    def __len__(self) -> int:
        return len(self._pruning_methods)

    def __iter__(self):
        return iter(self._pruning_methods)

    def __getitem__(self, index):
        return self._pruning_methods[index]

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        """The latest method's mask, computed on what the earlier masks kept (entries, channels or everything)."""
        method = self._pruning_methods[-1]
        mask = default_mask.to(dtype=t.dtype)
        region = _unpruned_region(method, t, default_mask)
        mask[region] = method.compute_mask(t[region], default_mask=default_mask[region]).to(dtype=mask.dtype)
        return mask


def _unpruned_region(method: BasePruningMethod, t: Tensor, mask: Tensor):
    """The index of what `method` may still prune: unpruned entries, unpruned channels along its dim, or all."""
    if method.PRUNING_TYPE == "unstructured":
        return mask == 1
    if method.PRUNING_TYPE == "structured":
        if not hasattr(method, "dim"):
            raise AttributeError('Pruning methods of PRUNING_TYPE "structured" need to have the attribute `dim` '
                                 "defined.")
        dim = method.dim + t.ndim if method.dim < 0 else method.dim
        if dim < 0:
            raise IndexError(f"Index is out of bounds for tensor with dimensions {t.ndim}")
        kept = mask.sum(dim=[d for d in range(t.ndim) if d != dim]) != 0
        return tuple(kept if d == dim else slice(None) for d in range(t.ndim))
    if method.PRUNING_TYPE == "global":
        return (slice(None),) * t.ndim
    raise ValueError(f"Unrecognized PRUNING_TYPE {method.PRUNING_TYPE}")


def _check_amount(amount) -> None:
    if not isinstance(amount, numbers.Real):
        raise TypeError(f"Invalid type for amount: {amount}. Must be int or float.")
    if amount < 0 or (not isinstance(amount, numbers.Integral) and float(amount) > 1.0):
        raise ValueError(f"amount={amount} should either be a float in the range [0, 1] or a non-negative integer")


def _count_to_prune(amount, size: int) -> int:
    """An int amount as it is (at most `size`), a fraction of `size` rounded."""
    if isinstance(amount, numbers.Integral):
        if amount > size:
            raise ValueError(f"amount={amount} should be smaller than the number of parameters to prune={size}")
        return amount
    return round(amount * size)


def _check_structured(t: Tensor, dim: int) -> None:
    if t.ndim <= 1:
        raise ValueError(f"Structured pruning can only be applied to multidimensional tensors. Found tensor of shape "
                         f"{t.shape} with {t.ndim} dims")
    if dim >= t.ndim:
        raise IndexError(f"Invalid index {dim} for tensor of size {t.shape}")


def _zero_entries(default_mask: Tensor, scores: Tensor, count: int, largest: bool) -> Tensor:
    """`default_mask` with the entries holding the `count` largest (or smallest) scores zeroed."""
    mask = default_mask.clone()
    if count:
        mask.view(-1)[scores.reshape(-1).topk(count, largest=largest).indices] = 0
    return mask


def _channel_mask(t: Tensor, dim: int, channels) -> Tensor:
    """Ones on the given channels of `dim`, zeros elsewhere."""
    mask = factories.zeros_like(t)
    mask[tuple(channels if d == dim % t.ndim else slice(None) for d in range(t.ndim))] = 1
    return mask


class Identity(BasePruningMethod):
    """Prunes nothing, but sets up the reparameterisation (a mask of ones)."""

    PRUNING_TYPE = "unstructured"

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return default_mask

    @classmethod
    def apply(cls, module, name: str):
        return super().apply(module, name)


class RandomUnstructured(BasePruningMethod):
    """Prunes `amount` entries chosen at random."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        count = _count_to_prune(self.amount, t.numel())
        if count == 0:
            return default_mask.clone()
        return _zero_entries(default_mask, random.rand_like(t), count, largest=True)

    @classmethod
    def apply(cls, module, name: str, amount):
        return super().apply(module, name, amount=amount)


class L1Unstructured(BasePruningMethod):
    """Prunes the `amount` entries of smallest absolute value."""

    PRUNING_TYPE = "unstructured"

    def __init__(self, amount) -> None:
        _check_amount(amount)
        self.amount = amount

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        return _zero_entries(default_mask, t.abs(), _count_to_prune(self.amount, t.numel()), largest=False)

    @classmethod
    def apply(cls, module, name: str, amount, importance_scores: Tensor | None = None):
        return super().apply(module, name, amount=amount, importance_scores=importance_scores)


class RandomStructured(BasePruningMethod):
    """Prunes `amount` whole channels along `dim`, chosen at random."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.dim = amount, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        count = _count_to_prune(self.amount, size)
        if count == 0:
            return default_mask
        draws = random.rand(size)
        kept = draws > draws.kthvalue(count).values
        return _channel_mask(t, self.dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name: str, amount, dim: int = -1):
        return super().apply(module, name, amount=amount, dim=dim)


class LnStructured(BasePruningMethod):
    """Prunes the `amount` channels along `dim` of smallest L`n` norm."""

    PRUNING_TYPE = "structured"

    def __init__(self, amount, n, dim: int = -1) -> None:
        _check_amount(amount)
        self.amount, self.n, self.dim = amount, n, dim

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        _check_structured(t, self.dim)
        size = t.shape[self.dim]
        count = _count_to_prune(self.amount, size)
        dim = self.dim % t.ndim
        norms = t.norm(p=self.n, dim=[d for d in range(t.ndim) if d != dim])
        kept = norms.topk(size - count, largest=True).indices
        if count == 0:
            return default_mask
        return _channel_mask(t, self.dim, kept) * default_mask.to(dtype=t.dtype)

    @classmethod
    def apply(cls, module, name: str, amount, n, dim: int, importance_scores: Tensor | None = None):
        return super().apply(module, name, amount=amount, n=n, dim=dim, importance_scores=importance_scores)


class CustomFromMask(BasePruningMethod):
    """Prunes where a given mask is zero."""

    PRUNING_TYPE = "global"

    def __init__(self, mask: Tensor) -> None:
        self.mask = mask

    def compute_mask(self, t: Tensor, default_mask: Tensor) -> Tensor:
        if default_mask.shape != self.mask.shape:
            raise AssertionError(f"default_mask shape {default_mask.shape} must match self.mask shape "
                                 f"{self.mask.shape}")
        return default_mask * self.mask.to(dtype=default_mask.dtype)

    @classmethod
    def apply(cls, module, name: str, mask: Tensor):
        return super().apply(module, name, mask=mask)


def identity(module, name: str):
    Identity.apply(module, name)
    return module


def random_unstructured(module, name: str, amount):
    RandomUnstructured.apply(module, name, amount)
    return module


def l1_unstructured(module, name: str, amount, importance_scores: Tensor | None = None):
    L1Unstructured.apply(module, name, amount=amount, importance_scores=importance_scores)
    return module


def random_structured(module, name: str, amount, dim: int):
    RandomStructured.apply(module, name, amount, dim)
    return module


def ln_structured(module, name: str, amount, n, dim: int, importance_scores: Tensor | None = None):
    LnStructured.apply(module, name, amount, n, dim, importance_scores=importance_scores)
    return module


def custom_from_mask(module, name: str, mask: Tensor):
    CustomFromMask.apply(module, name, mask)
    return module


def global_unstructured(parameters: Iterable, pruning_method: type, importance_scores: dict | None = None,
                        **kwargs) -> None:
    """Prunes the (module, name) pairs together, as one tensor, then gives each its part of the mask."""
    if not isinstance(parameters, Iterable):
        raise TypeError("global_unstructured(): parameters is not an Iterable")
    importance_scores = importance_scores if importance_scores is not None else {}
    if not isinstance(importance_scores, dict):
        raise TypeError("global_unstructured(): importance_scores must be of type dict")
    parameters = list(parameters)
    scores = parameters_to_vector([importance_scores.get((module, name), getattr(module, name))
                                   for module, name in parameters])
    default_mask = parameters_to_vector([getattr(module, name + "_mask", factories.ones_like(getattr(module, name)))
                                         for module, name in parameters])
    method = pruning_method(**kwargs)
    method._tensor_name = "temp"
    if method.PRUNING_TYPE != "unstructured":
        raise TypeError(f'Only "unstructured" PRUNING_TYPE supported for the `pruning_method`. Found method '
                        f"{pruning_method} of type {method.PRUNING_TYPE}")
    mask = PruningContainer(method).compute_mask(scores, default_mask)
    start = 0
    for module, name in parameters:
        param = getattr(module, name)
        custom_from_mask(module, name, mask=mask[start:start + param.numel()].view_as(param))
        start += param.numel()


def remove(module, name: str):
    """Makes the pruning of `module.name` permanent and drops its hook."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, BasePruningMethod) and hook._tensor_name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"Parameter '{name}' of module {module} has to be pruned before pruning can be removed")


def is_pruned(module) -> bool:
    """Whether any submodule has a pruning hook."""
    return any(isinstance(hook, BasePruningMethod)
               for _, submodule in module.named_modules() for hook in submodule._forward_pre_hooks.values())
