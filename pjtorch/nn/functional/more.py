"""More of torch.nn.functional, composed from other functions as PyTorch's composites are: pdist,
bilinear, rms_norm, local_response_norm, lp pooling, channel_shuffle, the multilabel and
distance-triplet losses, alpha dropout, gumbel_softmax, the in-place activation aliases and *_with_indices
pools."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ... import dispatch
from ...ops import nn as nn_ops
from ...tensor import dtypes, factories, functions, random
from ...tensor.tensor import Tensor
from .._utils import ntuple, static
from . import activation, extra, pooling
from .dropout import _check_probability, _feature_dropout
from .loss import _reduction
from .normalization import layer_norm
from .padding import pad

_reduce = extra._reduce


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """Distances between every pair of rows i < j, in row-major order of the pairs."""
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    rows, cols = np.triu_indices(input.shape[0], 1)
    first = input.index_select(0, factories.tensor(rows.tolist(), dtype=dtypes.int64, device=input.device))
    second = input.index_select(0, factories.tensor(cols.tolist(), dtype=dtypes.int64, device=input.device))
    return (first - second).norm(p, dim=1)


def _check_bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's shape checks, in its order."""
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.ndim} and {input2.ndim}")
    for dim, (a, b) in enumerate(zip(input1.shape[:-1], input2.shape[:-1])):
        if a != b:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {dim}: got {a} and {b}")
    for name, size, expected in (("input1", input1.shape[-1], weight.shape[1]),
                                 ("input2", input2.shape[-1], weight.shape[2]),
                                 ("bias", None if bias is None else bias.shape[-1], weight.shape[0])):
        if size is not None and size != expected:
            raise RuntimeError(f"bilinear(): {name} size does not match weight size: got {size} but expected "
                               f"{expected}")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y[..., o] = Σ_ij input1[..., i] weight[o, i, j] input2[..., j] + bias[o]."""
    _check_bilinear(input1, input2, weight, bias)
    named = {"input1": input1, "input2": input2, "weight": weight, "bias": bias}
    if len({t.dtype for t in named.values() if t is not None}) > 1:
        got = ", ".join(f"{name}: {functions._c_type_name(t.dtype)}" for name, t in named.items() if t is not None)
        raise RuntimeError(f"All tensors must have the same dtype, got {got}")
    lead = tuple(input1.shape[:-1])
    flat1, flat2 = input1.reshape(-1, input1.shape[-1]), input2.reshape(-1, input2.shape[-1])
    out = functions.einsum("bi,oij,bj->bo", flat1, weight, flat2).reshape(*lead, weight.shape[0])
    return out if bias is None else out + bias


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """input / sqrt(mean(input²) + eps) over the normalized dims (eps defaults to the dtype's epsilon)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if len(shape) > input.ndim or tuple(input.shape[input.ndim - len(shape):]) != shape:
        expected = ", ".join(map(str, shape))
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape [*{expected}], but got "
                           f"input of size{list(input.shape)}")
    if eps is None:
        eps = float(np.finfo(input.dtype.jax).eps)
    dims = tuple(range(input.ndim - len(shape), input.ndim))
    out = input * (input.pow(2).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """input / (k + alpha * mean of squares over `size` neighbouring channels) ** beta."""
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality{' ' * 26}input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = (input * input).unsqueeze(1)
    if dim == 3:
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = pooling.avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        sizes = input.shape
        div = div.reshape(sizes[0], 1, sizes[1], sizes[2], -1)
        div = pad(div, (0, 0, 0, 0, size // 2, (size - 1) // 2))
        div = pooling.avg_pool3d(div, (size, 1, 1), stride=1).squeeze(1).reshape(sizes)
    return input / (div * alpha + k).pow(beta)


def _lp_pool(input: Tensor, norm_type: float, kernel_size, stride, ceil_mode: bool, spatial: int) -> Tensor:
    """The p-norm over each window; p = inf is the window's largest |x| (max pooling), p = -inf its smallest."""
    kernel = ntuple(spatial, kernel_size)
    if isinstance(norm_type, (int, float)) and math.isinf(norm_type):
        maximum = {1: pooling.max_pool1d, 2: pooling.max_pool2d, 3: pooling.max_pool3d}[spatial]
        if norm_type > 0:
            return maximum(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        return -maximum(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    avg = {1: pooling.avg_pool1d, 2: pooling.avg_pool2d, 3: pooling.avg_pool3d}[spatial]
    if stride is not None:
        out = avg(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    else:
        out = avg(input.pow(norm_type), kernel_size, padding=0, ceil_mode=ceil_mode)
    count = int(np.prod(kernel))
    return (out.sign() * activation.relu(out.abs())).mul(count).pow(1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Channels split into groups and interleaved, as one op (PyTorch's grad_fn is its own)."""
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    channels = input.shape[1]
    if channels % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {channels} channels and {groups} "
                           "groups.")
    return dispatch.apply(nn_ops.CHANNEL_SHUFFLE, (input,), static(groups=groups))


native_channel_shuffle = channel_shuffle


# ----- losses -----------------------------------------------------------------------------------------

def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """Per class -[y log σ(x) + (1-y) log σ(-x)], weighted, averaged over classes, then reduced."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * activation.logsigmoid(input) + (1 - target) * activation.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def _target_mask(target: Tensor, classes: int) -> np.ndarray:
    """multilabel_margin_loss's targets: class indices up to the first -1 in each row, as counts per class (PyTorch
    sums over the listed targets, so one listed twice counts twice)."""
    values = np.asarray(target._value()).reshape(-1, classes)
    mask = np.zeros(values.shape, np.float32)
    for row, labels in enumerate(values):
        for label in labels:
            if label < 0:
                break
            if label >= classes:
                raise RuntimeError(f"Expected target values to be in [-1, {classes - 1}], got {label}")
            mask[row, label] += 1.0
    return mask


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """Σ over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])), over the class count."""
    reduction = _reduction(size_average, reduce, reduction)
    if input.ndim > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    mask = factories.tensor(_target_mask(target, input.shape[-1] if input.ndim else 1), dtype=input.dtype,
                            device=input.device)
    return dispatch.apply(nn_ops.MULTILABEL_MARGIN_LOSS, (input, mask), static(reduction=reduction))


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    if margin <= 0:
        raise ValueError(f"triplet_margin_with_distance_loss: expected margin to be greater than 0, got {margin} "
                         "instead")
    a, p, n = anchor.ndim, positive.ndim, negative.ndim
    if not (a == p == n):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {p}D, and negative {n}D inputs")
    distance = distance_function if distance_function is not None else extra.pairwise_distance
    dist_pos, dist_neg = distance(anchor, positive), distance(anchor, negative)
    if swap:
        dist_neg = functions.BINARY_FUNCTIONS["minimum"](dist_neg, distance(positive, negative))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), _reduction(None, None, reduction))


# ----- dropout ----------------------------------------------------------------------------------------

_SELU_ALPHA_PRIME = -1.7580993408473766


def _alpha_dropout(input: Tensor, p: float, training: bool, mask_shape: tuple) -> Tensor:
    """Dropped units set to SELU's negative saturation, then an affine map keeping mean and variance."""
    _check_probability(p)
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    keep = (random.sample("uniform", mask_shape, dtypes.float64, input.device, None) < 1 - p).to(input.dtype)
    a = ((1 - p) * (1 + p * _SELU_ALPHA_PRIME ** 2)) ** -0.5
    b = -a * _SELU_ALPHA_PRIME * p
    return (input * keep + _SELU_ALPHA_PRIME * (1 - keep)) * a + b


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, tuple(input.shape))


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    return _alpha_dropout(input, p, training, tuple(input.shape[:2]) + (1,) * (input.ndim - 2))


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    return _feature_dropout(input, p, training, inplace, 3)


# ----- aliases ----------------------------------------------------------------------------------------

def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return activation.elu(input, alpha, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return activation.celu(input, alpha, inplace=True)


def selu_(input: Tensor) -> Tensor:
    return activation.selu(input, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return activation.leaky_relu(input, negative_slope, inplace=True)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return activation.hardtanh(input, min_val, max_val, inplace=True)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return activation.rrelu(input, lower, upper, training, inplace=True)


def _with_indices(pool):
    """PyTorch's *_with_indices forms: the pool with return_indices forced on."""
    def pool_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                          return_indices: bool = True):
        return pool(input, kernel_size, stride, padding, dilation, ceil_mode=ceil_mode, return_indices=True)
    pool_with_indices.__name__ = pool.__name__ + "_with_indices"
    return pool_with_indices


max_pool1d_with_indices = _with_indices(pooling.max_pool1d)
max_pool2d_with_indices = _with_indices(pooling.max_pool2d)
max_pool3d_with_indices = _with_indices(pooling.max_pool3d)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = True):
    return extra.adaptive_max_pool1d(input, output_size, return_indices=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """softmax((logits + Gumbel noise) / tau); with hard=True the one-hot of its argmax, whose gradient is the
    soft sample's (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -factories.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    return factories.zeros_like(logits).scatter_(dim, index, 1.0) - soft.detach() + soft


__all__ = [
    "adaptive_max_pool1d_with_indices", "alpha_dropout", "bilinear", "celu_", "channel_shuffle", "dropout3d",
    "elu_", "feature_alpha_dropout", "gumbel_softmax", "hardtanh_", "leaky_relu_", "local_response_norm",
    "lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
    "multilabel_margin_loss", "multilabel_soft_margin_loss", "native_channel_shuffle", "pdist", "rms_norm",
    "rrelu_", "selu_", "triplet_margin_with_distance_loss",
]
