"""`torch.nn.grad`: the gradients of a convolution with respect to its input or its weight, given the gradient of
its output. Each is the vector-Jacobian product of the convolution itself, so it agrees with backward."""
from typing import Sequence as _Sequence

from .. import autograd as _autograd
from ..autograd import grad_mode as _grad_mode
from ..tensor import factories as _factories
from ..tensor.tensor import Tensor as _Tensor
from .functional.conv import convolution as _convolution

# Imported under private names, so the module's namespace is the six functions, as PyTorch's is.

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _vjp(spatial: int, input: _Tensor, weight: _Tensor, wrt: _Tensor, grad_output: _Tensor, stride, padding, dilation,
         groups: int) -> _Tensor:
    """d(conv(input, weight))/d(wrt) applied to grad_output; differentiable when anything given requires grad."""
    create_graph = _grad_mode.is_grad_enabled() and any(t.requires_grad for t in (input, weight, grad_output))
    with _grad_mode.enable_grad():
        output = _convolution(input, weight, None, stride, padding, dilation, groups, spatial)
        return _autograd.grad(output, wrt, grad_output, create_graph=create_graph)[0]


def _placeholder(size: _Sequence[int], like: _Tensor) -> _Tensor:
    """A tensor of `size` to differentiate with respect to (its values do not enter a linear map's derivative)."""
    return _factories.zeros(tuple(size), dtype=like.dtype, device=like.device, requires_grad=True)


def _input_gradient(spatial: int):
    def gradient(input_size: _Sequence[int], weight: _Tensor, grad_output: _Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> _Tensor:
        input = _placeholder(input_size, grad_output)
        return _vjp(spatial, input, weight, input, grad_output, stride, padding, dilation, groups)
    gradient.__name__ = gradient.__qualname__ = f"conv{spatial}d_input"
    gradient.__doc__ = f"The gradient of conv{spatial}d with respect to an input of `input_size`."
    return gradient


def _weight_gradient(spatial: int):
    def gradient(input: _Tensor, weight_size: _Sequence[int], grad_output: _Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> _Tensor:
        weight = _placeholder(weight_size, grad_output)
        return _vjp(spatial, input, weight, weight, grad_output, stride, padding, dilation, groups)
    gradient.__name__ = gradient.__qualname__ = f"conv{spatial}d_weight"
    gradient.__doc__ = f"The gradient of conv{spatial}d with respect to a weight of `weight_size`."
    return gradient


conv1d_input, conv2d_input, conv3d_input = (_input_gradient(n) for n in (1, 2, 3))
conv1d_weight, conv2d_weight, conv3d_weight = (_weight_gradient(n) for n in (1, 2, 3))
