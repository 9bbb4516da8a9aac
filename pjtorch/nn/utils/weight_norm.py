"""`torch.nn.utils.weight_norm`: a weight recomputed before every forward as g * v / ||v||, where the
norm runs over every dim but `dim` (over all of them when dim is None)."""
from __future__ import annotations

import warnings
from typing import Any

import jax.numpy as jnp

from ... import dispatch
from ...ops.registry import Op
from ...tensor.tensor import Tensor
from .._utils import static
from ..modules.module import Module
from ..parameter import Parameter


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """||v|| over every dim but `dim`, kept as size-1 dims so it broadcasts against v (a scalar for dim=-1)."""
    if dim == -1:
        return v.norm(pow)
    dim = dim % v.ndim
    others = tuple(d for d in range(v.ndim) if d != dim)
    return v.norm(pow, dim=others, keepdim=True) if others else v.abs()


def _fused_weight_norm(v, g, dim):
    others = tuple(d for d in range(v.ndim) if d != dim)
    return v * (g / jnp.sqrt(jnp.sum(v * v, axis=others, keepdims=True)))


# PyTorch's fused kernel, taken when the kept dim is the first or the last: its grad_fn is its own.
_WEIGHT_NORM = Op("weight_norm", _fused_weight_norm, grad_name="WeightNormInterfaceBackward0", promote="none")


def _weight_norm(v: Tensor, g: Tensor, dim: int) -> Tensor:
    """torch._weight_norm: g * v / ||v||, fused (as PyTorch's kernel) when `dim` is v's first or last dim."""
    if dim in (0, v.ndim - 1):
        return dispatch.apply(_WEIGHT_NORM, (v, g), static(dim=dim))
    return v * (g / norm_except_dim(v, 2, dim))


class WeightNorm:
    """The forward pre-hook that writes `name` from the `name_g` and `name_v` parameters."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        g, v = getattr(module, self.name + "_g"), getattr(module, self.name + "_v")
        return _weight_norm(v, g, self.dim)

    @staticmethod
    def apply(module: Module, name: str, dim: int) -> "WeightNorm":
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        setattr(module, self.name, Parameter(weight.detach()))

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    warnings.warn("`torch.nn.utils.weight_norm` is deprecated in favor of "
                  "`torch.nn.utils.parametrizations.weight_norm`.", FutureWarning, stacklevel=2)
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    return remove_recomputing_hook(module, name, WeightNorm, "weight_norm")


def remove_recomputing_hook(module: Module, name: str, kind: type, label: str) -> Module:
    """Undoes a hook-based reparametrization (weight_norm, spectral_norm): the `kind` forward pre-hook recomputing
    `name` restores a plain parameter and goes; PyTorch's ValueError where there is none."""
    for key, hook in module._forward_pre_hooks.items():
        if isinstance(hook, kind) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[key]
            return module
    raise ValueError(f"{label} of '{name}' not found in {module}")
