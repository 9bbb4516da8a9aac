"""LayerNorm: normalises over the trailing `normalized_shape` dims."""
from __future__ import annotations

from ...tensor import factories
from ...tensor.tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module


def affine_parameters(module: Module, shape, affine: bool, bias: bool, device, dtype) -> None:
    """A norm layer's weight (ones) and bias (zeros) of `shape` when affine, else both registered as None."""
    if affine:
        module.weight = Parameter(factories.empty(shape, device=device, dtype=dtype))
        if bias:
            module.bias = Parameter(factories.empty(shape, device=device, dtype=dtype))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


def reset_affine_parameters(module: Module) -> None:
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps, self.elementwise_affine = shape, eps, elementwise_affine
        affine_parameters(self, shape, elementwise_affine, bias, device, dtype)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        reset_affine_parameters(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")
