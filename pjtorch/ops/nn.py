"""Neural-network ops as pure JAX functions: linear, convolution, pooling, normalisation,
embedding, dropout, padding, losses and attention, declared in tables like the other families.

Optional tensors (a bias, an affine weight, a class weight, a mask) arrive as trailing
positional arrays: dispatch passes only tensors and Python scalars, so a missing one is simply
absent, and static flags say which are there. Shapes known at trace time (pool divisors,
adaptive-pool averaging matrices, padding) are computed with NumPy while tracing.
Op names give PyTorch's grad_fn for the common call.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .pointwise import absolute
from .reduction import mean
from .registry import Op, SAVES_NOTHING

_PRECISION = lax.Precision.HIGHEST
_LOW_PRECISION = (jnp.float16, jnp.bfloat16)


def _opmath(x):
    """Half-precision inputs are normalised in float32, as PyTorch's kernels accumulate them."""
    return x.astype(jnp.float32) if x.dtype in _LOW_PRECISION else x


# ----- convolution --------------------------------------------------------------------------------

def _conv(x, weight, *bias, stride, padding, dilation, groups):
    """N-d convolution in PyTorch's layout (N, C, *spatial); `padding` is (low, high) per spatial dim."""
    unbatched = x.ndim == weight.ndim - 1
    if unbatched:
        x = x[None]
    out = lax.conv_general_dilated(x, weight, window_strides=stride, padding=padding, rhs_dilation=dilation,
                                   feature_group_count=groups, precision=_PRECISION)
    if bias:
        out = out + bias[0].reshape((-1,) + (1,) * (weight.ndim - 2))
    return out[0] if unbatched else out


CONV = Op("convolution", _conv, grad_name="ConvolutionBackward0", promote="none")


def _conv_tbc(x, weight, bias, *, pad):
    """A 1-d convolution over (time, batch, channels), its weight (kernel width, in, out), padded `pad` each side."""
    out = lax.conv_general_dilated(x, weight, window_strides=(1,), padding=((pad, pad),),
                                   dimension_numbers=("WNC", "WIO", "WNC"), precision=_PRECISION)
    return out + bias


CONV_TBC = Op("conv_tbc", _conv_tbc, grad_name="ConvTbcBackward0", promote="none")


# ----- pooling ------------------------------------------------------------------------------------

def _window(x, size: tuple, fill) -> tuple:
    """Leading (batch, channel) dims get a window of 1 and no padding."""
    lead = x.ndim - len(size)
    return (1,) * lead + tuple(size), ((0, 0),) * lead + tuple(fill)


def _max_pool(x, kernel_size, stride, padding, dilation):
    if any(d != 1 for d in dilation):
        return _window_argmax(x, kernel_size, stride, padding, dilation)[0]
    window, pads = _window(x, kernel_size, padding)
    strides, _ = _window(x, stride, ())
    return lax.reduce_window(x, _lowest(x.dtype), lax.max, window, strides, pads)


def _lowest(dtype):
    """A NumPy (not traced) identity for max, so JAX recognises the max-pool and can differentiate it."""
    return np.array(-np.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min, dtype)


def _max_pool_with_indices(x, kernel_size, stride, padding, dilation):
    values, indices = _window_argmax(x, kernel_size, stride, padding, dilation)
    return values, indices.astype(jnp.int64)


def _window_argmax(x, kernel_size, stride, padding, dilation):
    """Each window's first maximum (NaN wins, as in PyTorch) and its index, flat over the input's spatial dims.

    The kernel's offsets are compared in turn, so the gradient reaches exactly the chosen element, as
    PyTorch's max-pool backward does (XLA's own max-pool gradient has no window dilation).
    """
    lead = x.ndim - len(kernel_size)
    spatial = x.shape[lead:]
    out_shape = [(n + low + high - d * (k - 1) - 1) // s + 1
                 for n, (low, high), k, s, d in zip(spatial, padding, kernel_size, stride, dilation)]
    padded = jnp.pad(x, ((0, 0),) * lead + tuple(padding), constant_values=_lowest(x.dtype))
    best_value, best_index = None, None
    for offsets in np.ndindex(*kernel_size):
        starts = [o * d for o, d in zip(offsets, dilation)]
        picked = padded[(Ellipsis,) + tuple(slice(start, start + (n - 1) * s + 1, s)
                                             for start, n, s in zip(starts, out_shape, stride))]
        flat = np.zeros((1,) * len(spatial), np.int64)
        for dim, (start, size) in enumerate(zip(starts, spatial)):
            position = np.arange(out_shape[dim]) * stride[dim] + start - padding[dim][0]
            flat = flat * size + position.reshape([-1 if d == dim else 1 for d in range(len(spatial))])
        if best_value is None:
            best_value, best_index = picked, jnp.broadcast_to(flat, picked.shape)
            continue
        better = (picked > best_value) | jnp.isnan(picked)
        best_value = jnp.where(better, picked, best_value)
        best_index = jnp.where(better, flat, best_index)
    return best_value, lax.stop_gradient(best_index)


def _avg_pool(x, kernel_size, stride, padding, ceil_padding, count_include_pad, divisor_override):
    """`padding` is the symmetric padding; `ceil_padding` the extra on the high side that ceil_mode adds."""
    pads = tuple((p, p + extra) for p, extra in zip(padding, ceil_padding))
    window, full_pads = _window(x, kernel_size, pads)
    strides, _ = _window(x, stride, ())
    totals = lax.reduce_window(x, np.array(0, x.dtype), lax.add, window, strides, full_pads)
    spatial = x.shape[x.ndim - len(kernel_size):]
    divisor = _pool_divisors(spatial, totals.shape[x.ndim - len(kernel_size):], kernel_size, stride, padding,
                             count_include_pad, divisor_override)
    if jnp.issubdtype(x.dtype, jnp.integer):  # PyTorch divides integer sums in integer arithmetic
        return lax.div(totals, jnp.broadcast_to(jnp.asarray(divisor, x.dtype), totals.shape))
    return totals / jnp.asarray(divisor, x.dtype)


def _pool_divisors(spatial, out_shape, kernel_size, stride, padding, count_include_pad, divisor_override):
    """PyTorch's per-window divisor: the window clipped to the padded input, or to the input itself."""
    if divisor_override:
        return np.full(out_shape, divisor_override, np.float64)
    divisor = np.ones((), np.float64)
    for size, count, k, s, p in zip(spatial, out_shape, kernel_size, stride, padding):
        start = np.arange(count) * s - p
        end = np.minimum(start + k, size + p)
        along = end - start if count_include_pad else np.minimum(end, size) - np.maximum(start, 0)
        divisor = divisor[..., None] * along
    return divisor


def _adaptive_matrix(size: int, out: int) -> np.ndarray:
    """Averaging weights of PyTorch's adaptive bins: bin i spans [floor(i*n/o), ceil((i+1)*n/o))."""
    matrix = np.zeros((out, size))
    for i in range(out):
        start, end = (i * size) // out, -(-((i + 1) * size) // out)
        matrix[i, start:end] = 1.0 / (end - start)
    return matrix


def _adaptive_avg_pool(x, output_size):
    letters = "hwd"[:len(output_size)]
    spatial = x.shape[x.ndim - len(output_size):]
    matrices = [jnp.asarray(_adaptive_matrix(n, o), x.dtype) for n, o in zip(spatial, output_size)]
    targets = "ijk"[:len(output_size)]
    equation = f"...{letters}," + ",".join(f"{t}{s}" for t, s in zip(targets, letters)) + f"->...{targets}"
    return jnp.einsum(equation, x, *matrices, precision=_PRECISION)


def _global_avg_pool(x, dims):
    return mean(x, dims, keepdims=True)


def _pool_ops(name: str, fn, grad_name: str) -> dict:
    """One op per spatial rank; PyTorch runs 1-d pooling as 2-d and squeezes, hence the 1-d name."""
    return {n: Op(name, fn, grad_name="SqueezeBackward1" if n == 1 else grad_name.format(n=n), promote="none")
            for n in (1, 2, 3)}


MAX_POOL = _pool_ops("max_pool", _max_pool, "MaxPool{n}DWithIndicesBackward0")
MAX_POOL_WITH_INDICES = _pool_ops("max_pool", _max_pool_with_indices, "MaxPool{n}DWithIndicesBackward0")
AVG_POOL = _pool_ops("avg_pool", _avg_pool, "AvgPool{n}DBackward0")
ADAPTIVE_AVG_POOL = _pool_ops("adaptive_avg_pool", _adaptive_avg_pool, "AdaptiveAvgPool{n}DBackward0")
def _channel_shuffle(x, *, groups):
    """Channels split into groups and interleaved: (N, g, C/g, *) transposed to (N, C/g, g, *)."""
    grouped = x.reshape(x.shape[:1] + (groups, x.shape[1] // groups) + x.shape[2:])
    return jnp.swapaxes(grouped, 1, 2).reshape(x.shape)


CHANNEL_SHUFFLE = Op("channel_shuffle", _channel_shuffle, grad_name="ChannelShuffleBackward0", saves=SAVES_NOTHING,
                     promote="none")
GLOBAL_AVG_POOL = Op("mean", _global_avg_pool, grad_name="MeanBackward1", saves=SAVES_NOTHING, promote="none")


# Which of a plane's random samples places the windows along each spatial dim (PyTorch's 2-d kernel reads them
# (width, height), its 3-d kernel (time, height, width)).
_FRACTIONAL_SAMPLE_AXES = {2: (1, 0), 3: (0, 1, 2)}


def _fractional_starts(samples, size: int, out: int, pool: int):
    """Each window's start along one dim, (N, C, out): pseudo-random steps that span the input, as PyTorch's
    generate_intervals, in the input's precision; the last window ends at the input's end."""
    last = jnp.full(samples.shape + (min(out, 1),), size - pool, jnp.int32)
    if out < 2:
        return last
    alpha = _opmath(jnp.asarray((size - pool) / (out - 1), samples.dtype))
    u = _opmath(samples)[..., None]
    steps = jnp.arange(out - 1, dtype=u.dtype)
    starts = ((steps + u) * alpha).astype(jnp.int32) - (u * alpha).astype(jnp.int32)
    return jnp.concatenate([starts, last], axis=-1)


def _fractional_max_pool(x, samples, *, kernel_size, output_size):
    """Max over windows of `kernel_size` placed by `samples` (N, C, dims), and each maximum's index, flat over the
    spatial dims; the gradient reaches the chosen elements only, as PyTorch's backward does."""
    rank = len(kernel_size)
    unbatched = x.ndim == rank + 1
    x = x[None] if unbatched else x
    batch, channels, spatial = x.shape[0], x.shape[1], x.shape[2:]
    samples = samples[:batch]
    starts = [_fractional_starts(samples[..., axis], size, out, pool)
              for axis, size, out, pool in zip(_FRACTIONAL_SAMPLE_AXES[rank], spatial, output_size, kernel_size)]
    windows = x
    for dim, (start, out, pool) in enumerate(zip(starts, output_size, kernel_size)):
        rows = (start[..., None] + jnp.arange(pool)).reshape((batch, channels) + (1,) * dim + (out * pool,)
                                                              + (1,) * (rank - dim - 1))
        windows = jnp.take_along_axis(windows, rows, axis=2 + dim, mode="clip")
    split = [n for pair in zip(output_size, kernel_size) for n in pair]
    order = [0, 1] + [2 + 2 * d for d in range(rank)] + [3 + 2 * d for d in range(rank)]
    windows = windows.reshape(batch, channels, *split).transpose(order).reshape(batch, channels, *output_size,
                                                                                     int(np.prod(kernel_size)))
    best = jnp.argmax(windows, axis=-1)
    values = jnp.take_along_axis(windows, best[..., None], axis=-1)[..., 0]
    flat = jnp.zeros(best.shape, jnp.int64)
    for dim, (offset, start, size) in enumerate(zip(jnp.unravel_index(best, kernel_size), starts, spatial)):
        start = start.reshape(start.shape[:2] + tuple(output_size[d] if d == dim else 1 for d in range(rank)))
        flat = flat * size + (start + offset).astype(jnp.int64)
    flat = lax.stop_gradient(flat)
    return (values[0], flat[0]) if unbatched else (values, flat)


FRACTIONAL_MAX_POOL = {n: Op("fractional_max_pool", _fractional_max_pool,
                             grad_name=f"FractionalMaxPool{n}DBackward0", promote="none") for n in (2, 3)}


# ----- normalisation ------------------------------------------------------------------------------

def _affine(out, params: tuple, has_weight: bool, has_bias: bool, shape: tuple):
    params = iter(params)
    if has_weight:
        out = out * next(params).reshape(shape)
    if has_bias:
        out = out + next(params).reshape(shape)
    return out


def _channel_shape(x) -> tuple:
    return (1, -1) + (1,) * (x.ndim - 2)


def _batch_norm_train(x, *params, eps, has_weight, has_bias):
    """Normalises with the batch's statistics; also returns them (mean, unbiased var) for the running averages."""
    work = _opmath(x)
    axes = (0,) + tuple(range(2, x.ndim))
    mean = jnp.mean(work, axis=axes)
    centered = work - mean.reshape(_channel_shape(x))
    var = jnp.mean(centered * centered, axis=axes)
    out = centered * lax.rsqrt(var + eps).reshape(_channel_shape(x))
    out = _affine(out, params, has_weight, has_bias, _channel_shape(x)).astype(x.dtype)
    count = x.size // x.shape[1]
    unbiased = var * (count / max(count - 1, 1))
    return out, lax.stop_gradient(mean).astype(x.dtype), lax.stop_gradient(unbiased).astype(x.dtype)


def _batch_norm_eval(x, running_mean, running_var, *params, eps, has_weight, has_bias):
    shape = _channel_shape(x)
    work = _opmath(x)
    out = (work - running_mean.reshape(shape)) * lax.rsqrt(running_var.reshape(shape) + eps)
    return _affine(out, params, has_weight, has_bias, shape).astype(x.dtype)


def _running_average(running, batch, momentum):
    """`momentum` is static, a Python float: in a float64 buffer it stays a double, as PyTorch's is."""
    return momentum * batch + (1 - momentum) * running


def _layer_norm(x, *params, axes, eps, has_weight, has_bias):
    work = _opmath(x)
    mean = jnp.mean(work, axis=axes, keepdims=True)
    centered = work - mean
    var = jnp.mean(centered * centered, axis=axes, keepdims=True)
    out = centered * lax.rsqrt(var + eps)
    normalized = x.shape[axes[0]:]
    return _affine(out, params, has_weight, has_bias, normalized).astype(x.dtype)


BATCH_NORM_TRAIN = Op("batch_norm", _batch_norm_train, grad_name="NativeBatchNormBackward0", promote="none")
BATCH_NORM_EVAL = Op("batch_norm", _batch_norm_eval, grad_name="NativeBatchNormBackward0", promote="none")
RUNNING_AVERAGE = Op("running_average", _running_average, saves=SAVES_NOTHING, promote="none")
LAYER_NORM = Op("layer_norm", _layer_norm, grad_name="NativeLayerNormBackward0", promote="none")


# ----- embedding, dropout, padding, one_hot -------------------------------------------------------

def _embedding(weight, indices, padding_idx):
    """The padding row is read but never trained, as PyTorch's embedding backward skips it."""
    if padding_idx is not None:
        frozen = (jnp.arange(weight.shape[0]) == padding_idx)[:, None]
        weight = jnp.where(frozen, lax.stop_gradient(weight), weight)
    return jnp.take(weight, indices, axis=0)


def _embedding_renorm(weight, indices, max_norm, norm_type):
    """Rows looked up whose norm exceeds max_norm are scaled down to it (PyTorch's embedding_renorm_)."""
    used = jnp.zeros(weight.shape[0], bool).at[indices.reshape(-1)].set(True)
    norms = jnp.sum(jnp.abs(weight) ** norm_type, axis=1) ** (1.0 / norm_type)
    scale = jnp.where(used & (norms > max_norm), max_norm / (norms + 1e-7), 1.0)
    return weight * scale[:, None].astype(weight.dtype)


def _dropout(x, uniform, p):
    """Keeps each element with probability 1-p (uniform < 1-p) and rescales by 1/(1-p)."""
    scale = 0.0 if p == 1 else 1.0 / (1.0 - p)
    # One factor per element (PyTorch's noise = mask / (1 - p)), so a dropped negative gives -0.0 as PyTorch's does:
    # XLA rewrites x * convert(mask) into a select that yields +0.0.
    noise = jnp.where(uniform < 1.0 - p, jnp.asarray(scale, x.dtype), jnp.asarray(0.0, x.dtype))
    return x * noise


def _rrelu_train(x, slope):
    """Each non-positive element times its own (float64) slope, the product rounded once, as PyTorch's kernel."""
    return jnp.where(x > 0, x, (x.astype(slope.dtype) * slope).astype(x.dtype))


def _pad(x, pad_width, mode, value):
    if mode == "constant":
        config = [(low, high, 0) for low, high in pad_width]
        return lax.pad(x, jnp.asarray(value, x.dtype), config)
    return jnp.pad(x, pad_width, mode={"reflect": "reflect", "replicate": "edge", "circular": "wrap"}[mode])


def _one_hot(x, num_classes):
    return (x[..., None] == jnp.arange(num_classes)).astype(jnp.int64)


EMBEDDING = Op("embedding", _embedding, grad_name="EmbeddingBackward0", promote="none", unlisted=frozenset({1}))
EMBEDDING_RENORM = Op("embedding_renorm", _embedding_renorm, promote="none")
DROPOUT = Op("dropout", _dropout, grad_name="MulBackward0", promote="none")
RRELU_TRAIN = Op("rrelu_with_noise", _rrelu_train, grad_name="RreluWithNoiseBackward0", promote="none")
PAD = {"constant": Op("pad", _pad, grad_name="ConstantPadNdBackward0", saves=SAVES_NOTHING, promote="none"),
       "circular": Op("pad", _pad, grad_name="CopySlices", saves=SAVES_NOTHING, promote="none")}
PAD.update({(mode, n): Op("pad", _pad, grad_name=f"{prefix}Pad{n}DBackward0", promote="none")
            for mode, prefix in (("reflect", "Reflection"), ("replicate", "Replication")) for n in (1, 2, 3)})
ONE_HOT = Op("one_hot", _one_hot, promote="none")


# ----- bicubic upsampling -------------------------------------------------------------------------

def _cubic(distance, a=-0.75):
    """Keys' cubic convolution kernel with PyTorch's a = -0.75."""
    d = np.abs(distance)
    near = ((a + 2) * d - (a + 3)) * d * d + 1
    far = ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.where(d <= 1, near, np.where(d < 2, far, 0.0))


def _cubic_weights(in_size: int, out_size: int, align_corners: bool, scale) -> np.ndarray:
    """The (out, in) matrix of four taps around each source coordinate (not clamped, unlike linear's), the taps'
    indices clamped to the edge."""
    if align_corners:
        src = np.arange(out_size) * ((in_size - 1) / (out_size - 1) if out_size > 1 else 0.0)
    else:
        step = in_size / out_size if scale is None else 1.0 / scale
        src = (np.arange(out_size) + 0.5) * step - 0.5
    base = np.floor(src)
    matrix = np.zeros((out_size, in_size))
    for tap in (-1, 0, 1, 2):
        index = np.clip(base + tap, 0, in_size - 1).astype(np.int64)
        np.add.at(matrix, (np.arange(out_size), index), _cubic(src - base - tap))
    return matrix


def _along(x, matrix, axis, contracted):
    return jnp.moveaxis(jnp.tensordot(x, matrix, axes=([axis], [contracted]), precision=_PRECISION), -1, axis)


@jax.custom_vjp
def _resample(x, matrix, axis_marker):
    """x's axis (the length of axis_marker) mapped through matrix (out, in)."""
    return _along(x, matrix, axis_marker.shape[0], 1)


def _resample_forward(x, matrix, axis_marker):
    return _resample(x, matrix, axis_marker), (matrix, axis_marker)


def _resample_backward(saved, cotangent):
    """The -0.0 that zero weights times negative cotangents sum to becomes the +0.0 of an input PyTorch's backward
    never touches (a select: XLA folds away an added +0.0)."""
    matrix, axis_marker = saved
    grad = _along(cotangent, matrix, axis_marker.shape[0], 0)
    return jnp.where(grad == 0, jnp.zeros((), grad.dtype), grad), jnp.zeros_like(matrix), axis_marker


_resample.defvjp(_resample_forward, _resample_backward)


def _upsample_bicubic(x, sizes, align_corners, scales):
    for axis, out_size, scale in zip((x.ndim - 2, x.ndim - 1), sizes, scales):
        matrix = jnp.asarray(_cubic_weights(x.shape[axis], out_size, align_corners, scale), x.dtype)
        x = _resample(x, matrix, np.zeros(axis))
    return x


UPSAMPLE_BICUBIC = Op("upsample_bicubic2d", _upsample_bicubic, grad_name="UpsampleBicubic2DBackward0", promote="none",
                      saves=SAVES_NOTHING)


# ----- losses -------------------------------------------------------------------------------------

def _reduce(losses, reduction):
    if reduction == "mean":
        return mean(losses)
    if reduction == "sum":
        return jnp.sum(losses)
    return losses


def _class_dim(x) -> int:
    return 0 if x.ndim == 1 else 1


def _picked(log_probs, target, ignore_index):
    """log_probs at each target class (ignored targets read class 0) and the mask of ignored targets."""
    ignored = target == ignore_index
    safe = jnp.where(ignored, 0, target)
    dim = _class_dim(log_probs)
    picked = jnp.take_along_axis(log_probs, jnp.expand_dims(safe, dim), axis=dim)
    return jnp.squeeze(picked, dim), safe, ignored


def _nll(log_probs, target, weight, reduction, ignore_index):
    picked, safe, ignored = _picked(log_probs, target, ignore_index)
    weights = weight[safe] if weight is not None else jnp.ones_like(picked)
    weights = jnp.where(ignored, jnp.zeros((), weights.dtype), weights)
    losses = -picked * weights
    if reduction == "none":
        return losses
    if reduction == "sum":
        return jnp.sum(losses)
    return _mean_over(jnp.sum(losses), jnp.sum(weights))


def _mean_over(total, count):
    """total / count, NaN when nothing counted (every target ignored), with a zero gradient there as PyTorch gives
    rather than the NaN a plain 0/0 would send back."""
    empty = count == 0
    return jnp.where(empty, jnp.nan, total / jnp.where(empty, 1, count))


def _nll_loss(log_probs, target, *weight, reduction, ignore_index):
    return _nll(log_probs, target, weight[0] if weight else None, reduction, ignore_index)


def _class_weight_shape(x) -> tuple:
    return (-1,) + (1,) * (x.ndim - 1 - _class_dim(x)) if x.ndim > 1 else (-1,)


def _cross_entropy(logits, target, *weight, reduction, ignore_index, label_smoothing):
    """Label-smoothed cross-entropy, PyTorch's mix of nll and the mean over classes, as one op: composed of
    pjtorch ops, XLA's simplification of the fused backward turned the +0 gradient of an ignored target to -0."""
    dim = _class_dim(logits)
    log_probs = jax.nn.log_softmax(_opmath(logits), axis=dim).astype(logits.dtype)
    weight = weight[0] if weight else None
    nll = _nll(log_probs, target, weight, reduction, ignore_index)
    if label_smoothing == 0:
        return nll
    classes = logits.shape[dim]
    weighted = log_probs * weight.reshape(_class_weight_shape(logits)) if weight is not None else log_probs
    _, safe, ignored = _picked(log_probs, target, ignore_index)
    smooth = -jnp.where(ignored, jnp.zeros((), logits.dtype), jnp.sum(weighted, axis=dim))  # ignored: +0 gradient
    if reduction == "mean":
        counted = jnp.where(ignored, 0, weight[safe]) if weight is not None else (~ignored).astype(logits.dtype)
        smooth = _mean_over(jnp.sum(smooth), jnp.sum(counted))
    elif reduction == "sum":
        smooth = jnp.sum(smooth)
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / classes)


def _cross_entropy_probs(logits, target, *weight, reduction, label_smoothing):
    """Class-probability targets: -sum(target * log_softmax), mean over the non-class elements."""
    dim = _class_dim(logits)
    classes = logits.shape[dim]
    log_probs = jax.nn.log_softmax(_opmath(logits), axis=dim).astype(logits.dtype)
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    product = log_probs * target
    if weight:
        product = product * weight[0].reshape(_class_weight_shape(logits))
    if reduction == "none":
        return -jnp.sum(product, axis=dim)
    if reduction == "sum":
        return -jnp.sum(product)
    return -jnp.sum(product) / (log_probs.size / classes)


def _mse_loss(x, target, reduction):
    difference = x - target
    return _reduce(difference * difference, reduction)


def _l1_loss(x, target, reduction):
    return _reduce(absolute(x - target), reduction)


def _smooth_l1_loss(x, target, reduction, beta):
    distance = jnp.abs(x - target)
    if beta == 0:
        return _reduce(distance, reduction)
    return _reduce(jnp.where(distance < beta, 0.5 * distance * distance / beta, distance - 0.5 * beta), reduction)


def _huber_loss(x, target, reduction, delta):
    distance = jnp.abs(x - target)
    return _reduce(jnp.where(distance < delta, 0.5 * distance * distance, delta * (distance - 0.5 * delta)),
                   reduction)


def _binary_cross_entropy(x, target, *weight, reduction):
    """PyTorch clamps each log term at -100 so a saturated probability gives a finite loss."""
    log_x = jnp.maximum(jnp.log(x), -100.0)
    log_not_x = jnp.maximum(jnp.log1p(-x), -100.0)
    losses = (target - 1) * log_not_x - target * log_x
    if weight:
        losses = losses * weight[0]
    return _reduce(losses, reduction)


def _binary_cross_entropy_with_logits(x, target, *weights, reduction, has_weight, has_pos_weight):
    """(1 - t) x + w_pos * log(1 + exp(-x)), with w_pos = (pos_weight - 1) t + 1, in a stable form."""
    weights = iter(weights)
    weight = next(weights) if has_weight else None
    softplus_neg = jnp.logaddexp(-x, 0)  # its gradient at x = 0 is the -1/2 PyTorch gives (max()'s would be -1)
    if has_pos_weight:
        softplus_neg = ((next(weights) - 1) * target + 1) * softplus_neg
    losses = (1 - target) * x + softplus_neg
    if weight is not None:
        losses = losses * weight
    return _reduce(losses, reduction)


def _multilabel_margin(x, mask, reduction):
    """Σ over target classes j and non-target classes i of max(0, 1 - (x[j] - x[i])), over the class count; `mask`
    marks each row's target classes."""
    classes = x.shape[-1] if x.ndim else 1
    rows, mask = x.reshape(-1, classes), mask.reshape(-1, classes)
    margins = jnp.maximum(1 - rows[:, :, None] + rows[:, None, :], 0)
    pairs = mask[:, :, None] * (1 - jnp.minimum(mask, 1))[:, None, :]  # a target listed twice counts twice
    losses = jnp.sum(margins * pairs, axis=(1, 2)) / classes
    return _reduce(losses.reshape(x.shape[:-1] if x.ndim else ()), reduction)


def _loss_ops(name: str, fn, names: dict) -> dict:
    return {reduction: Op(name, fn, grad_name=grad, promote="none") for reduction, grad in names.items()}


# nll_loss: PyTorch runs inputs of 3 or more dims through nll_loss2d.
NLL_LOSS = {spatial: Op("nll_loss", _nll_loss, grad_name=name, promote="none", unlisted=frozenset({1}))
            for spatial, name in ((False, "NllLossBackward0"), (True, "NllLoss2DBackward0"))}
CROSS_ENTROPY_SMOOTHED = Op("cross_entropy", _cross_entropy, grad_name="AddBackward0", promote="none")
CROSS_ENTROPY_PROBS = _loss_ops("cross_entropy", _cross_entropy_probs,
                                {"none": "NegBackward0", "sum": "NegBackward0", "mean": "DivBackward1"})
MSE_LOSS = Op("mse_loss", _mse_loss, grad_name="MseLossBackward0", promote="none")
L1_LOSS = _loss_ops("l1_loss", _l1_loss, {"none": "AbsBackward0", "sum": "SumBackward0", "mean": "MeanBackward0"})
SMOOTH_L1_LOSS = Op("smooth_l1_loss", _smooth_l1_loss, grad_name="SmoothL1LossBackward0", promote="none")
MULTILABEL_MARGIN_LOSS = Op("multilabel_margin_loss", _multilabel_margin,
                            grad_name="MultilabelMarginLossBackward0", promote="none")
HUBER_LOSS = Op("huber_loss", _huber_loss, grad_name="HuberLossBackward0", promote="none")
BINARY_CROSS_ENTROPY = Op("binary_cross_entropy", _binary_cross_entropy,
                          grad_name="BinaryCrossEntropyBackward0", promote="none")
BINARY_CROSS_ENTROPY_WITH_LOGITS = Op("binary_cross_entropy_with_logits", _binary_cross_entropy_with_logits,
                                      grad_name="BinaryCrossEntropyWithLogitsBackward0", promote="none")


# ----- attention ----------------------------------------------------------------------------------

def _attention_weights(q, k, *extra, scale, is_causal, mask_kind, dropout_p):
    """softmax(q kᵀ · scale + mask), then dropout. `mask_kind`: None, 'bool' (True attends) or 'additive'."""
    extra = iter(extra)
    scores = jnp.matmul(q, jnp.swapaxes(k, -1, -2), precision=_PRECISION) * jnp.asarray(scale, q.dtype)
    length, source = scores.shape[-2], scores.shape[-1]
    if is_causal:
        scores = jnp.where(jnp.tril(jnp.ones((length, source), bool)), scores, -jnp.inf)
    if mask_kind == "bool":
        scores = jnp.where(next(extra), scores, -jnp.inf)
    elif mask_kind == "additive":
        scores = scores + next(extra)
    weights = jax.nn.softmax(_opmath(scores), axis=-1).astype(q.dtype)
    if dropout_p > 0:
        weights = _dropout(weights, next(extra), dropout_p)
    return weights


def _scaled_dot_product_attention(q, k, v, *extra, scale, is_causal, mask_kind, dropout_p, groups):
    if groups > 1:
        k, v = jnp.repeat(k, groups, axis=-3), jnp.repeat(v, groups, axis=-3)
    weights = _attention_weights(q, k, *extra, scale=scale, is_causal=is_causal, mask_kind=mask_kind,
                                 dropout_p=dropout_p)
    return jnp.matmul(weights, v, precision=_PRECISION)


def _attention_with_weights(q, k, v, *extra, scale, is_causal, mask_kind, dropout_p):
    """What MultiheadAttention returns when asked for weights: the output and the (pre-dropout) weights."""
    weights = _attention_weights(q, k, *extra[:1 if mask_kind else 0], scale=scale, is_causal=is_causal,
                                 mask_kind=mask_kind, dropout_p=0.0)
    dropped = _dropout(weights, extra[-1], dropout_p) if dropout_p > 0 else weights
    return jnp.matmul(dropped, v, precision=_PRECISION), weights


# By the kernel PyTorch picks: flash (4-d, equal head dims, no dropout), else the math path's last matmul.
SCALED_DOT_PRODUCT_ATTENTION = {
    kind: Op("scaled_dot_product_attention", _scaled_dot_product_attention, grad_name=name, promote="none")
    for kind, name in (("flash", "ScaledDotProductFlashAttentionForCpuBackward0"), ("batched", "UnsafeViewBackward0"),
                       ("matrix", "MmBackward0"))}
ATTENTION_WITH_WEIGHTS = Op("attention", _attention_with_weights, grad_name="BmmBackward0", promote="none")


def pool_output_size(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    """PyTorch's pooling output length; in ceil mode the last window must start inside the input or left pad."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out



# ----- activations that are not elementwise -------------------------------------------------------

def _glu(x, dim):
    a, b = jnp.split(x, 2, axis=dim)
    return a * jax.nn.sigmoid(b)


def _prelu(x, weight):
    """weight has one element or one per channel (dim 1, or dim 0 of a 1-d input)."""
    if weight.size != 1 and x.ndim >= 2:
        weight = weight.reshape((-1,) + (1,) * (x.ndim - 2))
    elif weight.size == 1:
        weight = weight.reshape(())
    return jnp.where(x > 0, x, weight * x)


def _float_only(kernel: str):
    """Refuses non-floating inputs with PyTorch's "<kernel>" not implemented error, while tracing."""
    from .pointwise import refusing
    return lambda fn: refusing(fn, kernel, "f")


GLU = Op("glu", _float_only("glu_cpu")(_glu), grad_name="GluBackward0", promote="none")
PRELU = Op("prelu", _float_only("prelu_cpu")(_prelu), grad_name="PreluKernelBackward0", promote="none")
