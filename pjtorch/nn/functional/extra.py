"""More of torch.nn.functional: interpolate, group/instance norm, pixel (un)shuffle, pairwise_distance,
transposed convolutions, unfold/fold, adaptive max pooling, and the margin/embedding/likelihood losses.

Native PyTorch kernels are ops in `pjtorch.ops.extra`; PyTorch's composite functions are composed here from
other functions, so that the result's grad_fn is the one PyTorch records.
"""
from __future__ import annotations

import math
import warnings

from ... import dispatch
from ...autograd import grad_mode
from ...ops import extra as extra_ops
from ...ops import nn as nn_ops
from ...tensor import dtypes
from ...tensor.tensor import Tensor
from .._utils import ntuple, scalar_name, size_at, static
from . import antialias as antialias_ops
from .loss import _REDUCTIONS, _reduction
from .conv import check_weight_dtype
from .normalization import check_mixed_dtypes



def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ----- interpolate ------------------------------------------------------------------------------------

_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "lanczos", "area", "nearest-exact")


def _check_upsample_sizes(inputs: tuple, outputs: tuple) -> None:
    """The upsampling kernels' check: every input and output size positive, printed as PyTorch prints them."""
    if min(inputs + outputs) > 0:
        return
    labels = "DHW"[-len(inputs):]
    described = [", ".join(f"{label}: {size}" for label, size in zip(labels, sizes)) for sizes in (inputs, outputs)]
    joiner = " and " if len(inputs) == 1 else " "
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({described[0]}){joiner}"
                       f"output ({described[1]})")


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    spatial = input.ndim - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear "
                             "| bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != spatial:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            sizes = tuple(int(s) for s in size)
        else:
            sizes = (int(size),) * spatial
        scales = (None,) * spatial
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != spatial:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                                 "and scale_factor in (s1, s2, ...,sK) format.")
            factors = tuple(float(s) for s in scale_factor)
        else:
            factors = (float(scale_factor),) * spatial
        sizes = tuple(int(math.floor(n * f)) for n, f in zip(input.shape[2:], factors))
        scales = (None,) * spatial if recompute_scale_factor else factors
    else:
        raise ValueError("either size or scale_factor should be defined")
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a 4-D "
                         "tensor as input")
    if antialias and input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError("\"compute_index_ranges_weights\" not implemented for "
                                  f"'{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    if mode != "area" and spatial in (1, 2, 3):
        _check_upsample_sizes(tuple(input.shape[2:]), sizes)
    if mode in ("nearest", "nearest-exact", "linear", "bilinear", "trilinear") and \
            input.dtype.category != dtypes.FLOATING:
        kind = "nearest" if mode.startswith("nearest") else "linear"
        kernel = f"upsample_{'nearest' if kind == 'nearest' else 'bilinear'}2d_channels_last" if spatial == 2 else \
            f"compute_indices_weights_{kind}"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    if spatial not in (1, 2, 3) or mode not in _MODES or (mode in ("bicubic", "lanczos") and spatial != 2):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if mode in ("nearest", "nearest-exact", "area"):
        if mode == "area":
            from . import pooling
            pool = {1: pooling.adaptive_avg_pool1d, 2: pooling.adaptive_avg_pool2d, 3: pooling.adaptive_avg_pool3d}
            return pool[spatial](input, sizes)
        if mode == "nearest-exact":
            return dispatch.apply(extra_ops.UPSAMPLE_NEAREST_EXACT[spatial], (input,),
                                  static(sizes=sizes, scales=scales, exact=True))
        return dispatch.apply(extra_ops.UPSAMPLE_NEAREST[spatial], (input,), static(sizes=sizes, scales=scales))
    options = static(sizes=sizes, align_corners=bool(align_corners),
                     scales=(None,) * spatial if align_corners else scales)
    if mode == "lanczos":
        if align_corners:
            raise ValueError("Lanczos mode does not support align_corners=True")
        if not antialias:
            raise ValueError("Lanczos mode requires antialias=True")
    if antialias:
        return dispatch.apply(antialias_ops.UPSAMPLE_AA[mode], (input,), static(mode=mode, **dict(options)))
    if mode == "bicubic":  # its rank is checked above
        return dispatch.apply(nn_ops.UPSAMPLE_BICUBIC, (input,), options)
    expected = {"linear": 1, "bilinear": 2, "trilinear": 3}[mode]
    if spatial != expected:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {expected + 2}D input")
    name = {"linear": "linear1d", "bilinear": "bilinear2d", "trilinear": "trilinear3d"}[mode]
    return dispatch.apply(extra_ops.UPSAMPLE_LINEAR[name], (input,), options)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# ----- normalisation ----------------------------------------------------------------------------------

def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    channels = input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    if input.dtype.category != dtypes.FLOATING:
        raise NotImplementedError(f"\"GroupNormKernelImpl\" not implemented for "
                                  f"'{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    check_mixed_dtypes(input, weight, bias)
    affine = tuple(t for t in (weight, bias) if t is not None)
    return dispatch.apply(extra_ops.GROUP_NORM, (input, *affine),
                          static(groups=num_groups, eps=eps, has_weight=weight is not None, has_bias=bias is not None))


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """PyTorch's composite: a batch norm over the input viewed as (1, N*C, *spatial), then viewed back."""
    from .normalization import batch_norm
    if use_input_stats:
        spatial = 1
        for s in input.shape[2:]:
            spatial *= s
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    n, c = input.shape[0], input.shape[1]
    folded = input.reshape(1, n * c, *input.shape[2:])
    repeated_weight = weight.repeat(n) if weight is not None else None
    repeated_bias = bias.repeat(n) if bias is not None else None
    rm = running_mean.repeat(n) if running_mean is not None else None
    rv = running_var.repeat(n) if running_var is not None else None
    out = batch_norm(folded, rm, rv, repeated_weight, repeated_bias, use_input_stats, momentum, eps)
    if use_input_stats:
        with grad_mode.no_grad():
            if running_mean is not None:
                running_mean.copy_(rm.view(n, c).mean(0))
            if running_var is not None:
                running_var.copy_(rv.view(n, c).mean(0))
    return out.view(input.shape)


# ----- rearrangements ---------------------------------------------------------------------------------

def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if upscale_factor <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {upscale_factor}")
    if input.shape[-3] % (upscale_factor * upscale_factor):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by "
                           f"{upscale_factor * upscale_factor}")
    return dispatch.apply(extra_ops.PIXEL_SHUFFLE, (input,), static(r=upscale_factor))


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if downscale_factor <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {downscale_factor}")
    r = downscale_factor
    if input.shape[-2] % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)="
                           f"{input.shape[-2]} is not divisible by {r}")
    if input.shape[-1] % r:
        raise RuntimeError(f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)="
                           f"{input.shape[-1]} is not divisible by {r}")
    return dispatch.apply(extra_ops.PIXEL_UNSHUFFLE, (input,), static(r=r))


# ----- distances --------------------------------------------------------------------------------------

def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    output_dim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    if output_dim == 0:
        diff, inner = diff.reshape(1), 0
    else:
        inner = output_dim - 1
    if diff.dtype.category != dtypes.FLOATING:
        diff = diff.to(dtypes.get_default_dtype())
    return dispatch.apply(extra_ops.NORM_DIM, (diff,), static(p=float(p), dim=inner, keepdim=keepdim))


# ----- transposed convolution -------------------------------------------------------------------------

def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, spatial):
    stride, padding = ntuple(spatial, stride), ntuple(spatial, padding)
    output_padding, dilation = ntuple(spatial, output_padding), ntuple(spatial, dilation)
    name = f"conv_transpose{spatial}d"
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"Expected {spatial + 1}D (unbatched) or {spatial + 2}D (batched) input to {name}, but got "
                           f"input of size: {list(input.shape)}")
    channels = input.shape[-spatial - 1]
    if channels != weight.shape[0]:
        batched = list(input.shape) if input.ndim == spatial + 2 else [1] + list(input.shape)
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected input{batched} to have "
                           f"{weight.shape[0]} channels, but got {channels} channels instead")
    check_weight_dtype(input, weight, bias)
    unbatched = input.ndim == spatial + 1
    if unbatched:
        input = input.unsqueeze(0)
    operands = (input, weight) if bias is None else (input, weight, bias)
    out = dispatch.apply(extra_ops.CONV_TRANSPOSE, operands,
                         static(stride=stride, padding=padding, output_padding=output_padding, dilation=dilation,
                                groups=groups))
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, output_padding=0,
                     groups: int = 1, dilation=1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, output_padding=0,
                     groups: int = 1, dilation=1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, output_padding=0,
                     groups: int = 1, dilation=1) -> Tensor:
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


# ----- unfold / fold ----------------------------------------------------------------------------------

_WINDOW_CHECKS = {  # what im2col/col2im check, by name: (message prefix, field name, least allowed value)
    "kernel": ("kernel size should be greater than zero", "kernel", 1),
    "dilation": ("dilation should be greater than zero", "dilation", 1),
    "padding": ("padding should be non-negative", "pad", 0),
    "stride": ("stride should be greater than zero", "stride", 1),
}


def _check_window(values: dict, order: tuple) -> None:
    for name in order:
        message, field, least = _WINDOW_CHECKS[name]
        height, width = values[name]
        if height < least or width < least:
            raise RuntimeError(f"{message}, but got {field}_height: {height} {field}_width: {width}")


def _check_im2col_dtype(input: Tensor, kernel: str) -> None:
    """im2col and col2im run on bool, floating and complex tensors only."""
    if input.dtype.category == dtypes.INTEGER:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{scalar_name(input.dtype)}'")


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """PyTorch's im2col checks, in its order: the window, the input's dims, the block count, the dtype."""
    k, d, p, s = (ntuple(2, v) for v in (kernel_size, dilation, padding, stride))
    _check_window(dict(kernel=k, dilation=d, padding=p, stride=s), ("kernel", "dilation", "padding", "stride"))
    valid = size_at(input, 1) != 0 and size_at(input, 2) != 0
    if not ((input.ndim == 3 and input.shape[0] and valid) or (input.ndim == 4 and valid and input.shape[3])):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    spatial = input.shape[-2:]
    blocks = [(spatial[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if min(blocks) < 1:
        raise RuntimeError(f"Given input with spatial size ({spatial[0]}, {spatial[1]}), kernel_size=({k[0]}, "
                           f"{k[1]}), dilation=({d[0]}, {d[1]}), padding=({p[0]}, {p[1]}), calculated shape of the "
                           f"array of sliding blocks as ({blocks[0]}, {blocks[1]}), but its components must be at "
                           "least one.")
    _check_im2col_dtype(input, "im2col_out_cpu")
    return dispatch.apply(extra_ops.IM2COL, (input,), static(kernel_size=k, dilation=d, padding=p, stride=s))


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """PyTorch's col2im checks, in its order: the window, the input's dims, the channels, the blocks, the dtype."""
    o, k, d, p, s = (ntuple(2, v) for v in (output_size, kernel_size, dilation, padding, stride))
    _check_window(dict(kernel=k, dilation=d, padding=p, stride=s), ("kernel", "stride", "dilation", "padding"))
    if not ((input.ndim == 2 and all(input.shape)) or (input.ndim == 3 and all(input.shape[1:]))):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    channels = input.shape[-2]
    if channels % (k[0] * k[1]):
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={channels} and kernel_size=({k[0]}, {k[1]}).")
    blocks = [(o[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if input.shape[-1] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size=({o[0]}, {o[1]}), kernel_size=({k[0]}, {k[1]}), dilation=({d[0]}, "
                           f"{d[1]}), padding=({p[0]}, {p[1]}), stride=({s[0]}, {s[1]}), expected size of input's "
                           f"dimension 2 to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={input.shape[-1]}.")
    _check_im2col_dtype(input, "col2im_out_cpu")
    options = static(output_size=o, kernel_size=k, dilation=d, padding=p, stride=s)
    if input.dtype is dtypes.bool:  # overlapping bools add up as a logical or
        return dispatch.apply(extra_ops.COL2IM, (input.to(dtypes.int32),), options) != 0
    return dispatch.apply(extra_ops.COL2IM, (input,), options)


# ----- adaptive max pooling ---------------------------------------------------------------------------

def _adaptive_max_pool(input: Tensor, output_size, return_indices: bool, spatial: int,
                       kernel_name: str | None = None):
    """Max over adaptive windows of the last `spatial` dims; None in output_size keeps that input size.
    `kernel_name` is what PyTorch's dtype error calls the kernel (it differs between 2d and 3d)."""
    name = f"adaptive_max_pool{spatial}d"
    size = ntuple(spatial, output_size)
    size = tuple(input.shape[i - spatial] if v is None else v for i, v in enumerate(size))
    if input.ndim not in (spatial + 1, spatial + 2):
        raise RuntimeError(f"{name}(): Expected {spatial + 1}D or {spatial + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    if input.dtype.category != dtypes.FLOATING:
        raise NotImplementedError(f"\"{kernel_name or name}\" not implemented for "
                                  f"'{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    values, indices = dispatch.apply(extra_ops.ADAPTIVE_MAX_POOL[spatial], (input,), static(output_size=size))
    return (values, indices) if return_indices else values


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    return _adaptive_max_pool(input, output_size, return_indices, 2)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    return _adaptive_max_pool(input, output_size, return_indices, 3, "adaptive_max_pool3d_cpu")


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return _adaptive_max_pool(input, output_size, True, 2)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return _adaptive_max_pool(input, output_size, True, 3, "adaptive_max_pool3d_cpu")


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for adaptive_max_pool1d)")
    size = output_size[0] if isinstance(output_size, (tuple, list)) else output_size
    values, indices = _adaptive_max_pool(input.unsqueeze(-2), (1, size), True, 2)
    values, indices = values.squeeze(-2), indices.squeeze(-2)
    return (values, indices) if return_indices else values


# ----- losses -----------------------------------------------------------------------------------------

def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """PyTorch fills the margin into a tensor of the input's dtype (an integral input truncates it; a bool input
    then fails the subtraction) and keeps that dtype."""
    from ...tensor import functions
    from ...tensor.factories import full_like, zeros_like
    reduction = _reduction(size_average, reduce, reduction)
    zeros = zeros_like(input)
    margin_clamp = (full_like(input, margin) - input).clamp_min_(0)
    output_margin = functions.where(target != 1, margin_clamp, zeros)
    output_self = functions.where(target != -1, input, zeros)
    return _reduce(output_margin + output_self, reduction)


def _check_soft_margin_dtypes(input: Tensor, target: Tensor) -> None:
    """PyTorch negates the input and writes log1p(exp(-target * input)) into a tensor of the input's dtype."""
    if input.dtype is dtypes.bool:
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
    result = dtypes.promote_types(input.dtype, target.dtype)
    if result.category < dtypes.FLOATING:
        result = dtypes.get_default_dtype()
    if not dtypes.can_cast(result, input.dtype):
        raise RuntimeError(f"result type {scalar_name(result)} can't be cast to the desired output type "
                           f"{scalar_name(input.dtype)}")


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    _check_soft_margin_dtypes(input, target)
    if target.requires_grad and grad_mode.STATE.enabled:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    return dispatch.apply(extra_ops.SOFT_MARGIN_LOSS, (input, target), static(reduction=reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False, size_average=None,
                     eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    from ...tensor import functions
    reduction = _reduction(size_average, reduce, reduction)
    if log_input:
        loss = functions.UNARY_FUNCTIONS["exp"](input) - target * input
    else:
        loss = input - target * functions.UNARY_FUNCTIONS["log"](input + eps)
    if full:
        log = functions.UNARY_FUNCTIONS["log"]
        stirling = target * log(target) - target + 0.5 * log(2 * math.pi * target)
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    from ...tensor import functions
    from ...tensor.factories import full_like
    if not isinstance(var, Tensor):
        var = full_like(input, var)
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with grad_mode.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (functions.UNARY_FUNCTIONS["log"](var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    from ...tensor import functions
    reduction = _reduction(size_average, reduce, reduction)
    a, pos, neg = anchor.ndim, positive.ndim, negative.ndim
    if not (a == pos == neg):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a}D, positive {pos}D, and negative {neg}D inputs")
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = functions.BINARY_FUNCTIONS["minimum"](dist_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if input.ndim > 2:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    nframe = 1 if input.ndim <= 1 else input.shape[0]
    if target.ndim > 1 or target.numel() != nframe:
        raise RuntimeError(f"inconsistent target size, expected {nframe} but got {list(target.shape)}")
    if weight is not None and weight.requires_grad and grad_mode.STATE.enabled:
        raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    if weight is not None and weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {dtypes.LEGACY_NAMES[input.dtype][:-6]} but found "
                           f"{dtypes.LEGACY_NAMES[weight.dtype][:-6]}")
    operands = (input, target) if weight is None else (input, target, weight)
    return dispatch.apply(extra_ops.MULTI_MARGIN_LOSS, operands,
                          static(p=p, margin=float(margin), reduction=reduction, has_weight=weight is not None))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    from ...tensor import functions
    from ...tensor.factories import zeros_like
    reduction = _reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim:
        raise RuntimeError(f"cosine_embedding_loss: All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} ")
    targ_dim = 1 if input1.ndim == 2 else 0
    prod_sum = (input1 * input2).sum(targ_dim)
    mag1 = (input1 * input1).sum(targ_dim) + 1e-12
    mag2 = (input2 * input2).sum(targ_dim) + 1e-12
    denom = (mag1 * mag2).sqrt_()
    cos = prod_sum / denom
    zeros = zeros_like(cos)
    pos = 1 - cos
    neg = (cos - margin).clamp_min_(0)
    output = functions.where(target == 1, pos, zeros) + functions.where(target == -1, neg, zeros)
    return _reduce(output, reduction)
