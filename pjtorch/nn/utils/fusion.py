"""Folding an eval-mode BatchNorm into the convolution or linear layer before it: the layer's weight is scaled by
bn.weight / sqrt(running_var + eps) per output channel and its bias moved to match."""
from __future__ import annotations

import copy

from ...tensor import factories
from ...tensor.tensor import Tensor
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def _checked_copy(layer, bn):
    """A copy of `layer`, after PyTorch's checks that both are in eval mode and bn has running statistics."""
    if layer.training or bn.training:
        raise AssertionError("Fusion only for eval!")
    fused = copy.deepcopy(layer)
    if bn.running_mean is None or bn.running_var is None:
        raise AssertionError("bn.running_mean and bn.running_var must not be None")
    return fused


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of `conv` that computes bn(conv(x)) for the eval-mode `bn`."""
    fused = _checked_copy(conv, bn)
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Tensor | None, bn_b: Tensor | None, transpose: bool = False) -> tuple:
    """(weight, bias) Parameters of the convolution fused with the BatchNorm statistics and affine parameters."""
    bias_dtype = conv_b.dtype if conv_b is not None else conv_w.dtype
    conv_b = conv_b if conv_b is not None else factories.zeros_like(bn_rm)
    bn_w = bn_w if bn_w is not None else factories.ones_like(bn_rm)
    bn_b = bn_b if bn_b is not None else factories.zeros_like(bn_rm)
    inv_std = (bn_rv + bn_eps).rsqrt()
    channels = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    weight = (conv_w * (bn_w * inv_std).reshape(channels)).to(dtype=conv_w.dtype)
    bias = ((conv_b - bn_rm) * inv_std * bn_w + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, conv_w.requires_grad), Parameter(bias, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of `linear` that computes bn(linear(x)) for the eval-mode `bn` (over out_features, or 1 feature)."""
    fused = _checked_copy(linear, bn)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                           bn_w: Tensor, bn_b: Tensor) -> tuple:
    """(weight, bias) Parameters of the linear layer fused with the BatchNorm statistics and affine parameters."""
    bias_dtype = linear_b.dtype if linear_b is not None else linear_w.dtype
    linear_b = linear_b if linear_b is not None else factories.zeros_like(bn_rm)
    scale = bn_w * (bn_rv + bn_eps).rsqrt()
    weight = linear_w * scale.unsqueeze(-1).to(dtype=linear_w.dtype)
    bias = ((linear_b - bn_rm) * scale + bn_b).to(dtype=bias_dtype)
    return Parameter(weight, linear_w.requires_grad), Parameter(bias, linear_b.requires_grad)
