"""Further tensor and nn ops as pure JAX functions: diagonals, trace, rot90, block_diag, kron, cdist, cross,
mode, histc, isin, searchsorted; and for nn: interpolation, group norm, pixel shuffle, im2col/col2im,
adaptive max pooling, multi-margin and soft-margin losses, transposed convolution, a norm over one dim.

Like the other families, each op is a function of arrays plus static arguments; derivatives are jax.vjp.
Op names (or grad_name) give PyTorch's grad_fn.
"""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .pointwise import refusing
from .reduction import mean, nan_as
from .shape import picked_on_host, stl_mode
from .registry import Op, SAVES_NOTHING, SAVES_INPUTS_AND_INDICES

_PRECISION = lax.Precision.HIGHEST


# ----- diagonals -----------------------------------------------------------------------------------

def _diag_embed(x, offset, dim1, dim2):
    n = x.shape[-1] + abs(offset)
    out_ndim = x.ndim + 1
    rows = np.arange(x.shape[-1]) + max(-offset, 0)
    cols = np.arange(x.shape[-1]) + max(offset, 0)
    square = jnp.zeros(x.shape[:-1] + (n, n), x.dtype).at[..., rows, cols].set(x)
    # square has its two new dims last; move them to dim1, dim2.
    return jnp.moveaxis(square, (out_ndim - 2, out_ndim - 1), (dim1, dim2))


DIAG_EMBED = Op("diag_embed", _diag_embed, promote="none", saves=SAVES_NOTHING)


def _diagonal_copy(x, offset):
    return jnp.diagonal(x, offset)


DIAGONAL_COPY = Op("diagonal_copy", _diagonal_copy, grad_name="DiagonalBackward0_copy", promote="none",
                   saves=SAVES_NOTHING)


def _trace(x, dtype):
    return jnp.trace(x).astype(dtype)


TRACE = Op("trace", _trace, promote="none")


# ----- rearrangements ------------------------------------------------------------------------------

def _rot90(x, k, dims):
    return jnp.rot90(x, k, axes=dims)


ROT90 = Op("rot90", _rot90, promote="none", saves=SAVES_NOTHING)


def _block_diag(*blocks):
    rows = sum(b.shape[0] for b in blocks)
    cols = sum(b.shape[1] for b in blocks)
    dtype = blocks[0].dtype
    out = jnp.zeros((rows, cols), dtype)
    r = c = 0
    for b in blocks:
        out = out.at[r:r + b.shape[0], c:c + b.shape[1]].set(b)
        r, c = r + b.shape[0], c + b.shape[1]
    return out


BLOCK_DIAG = Op("block_diag", _block_diag, saves=SAVES_NOTHING)


def _kron(a, b):
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    out = a.reshape(sum(((s, 1) for s in a.shape), ())) * b.reshape(sum(((1, s) for s in b.shape), ()))
    return out.reshape(tuple(p * q for p, q in zip(a.shape, b.shape)))


KRON = Op("kron", _kron, grad_name="UnsafeViewBackward0")


# ----- distances and products ----------------------------------------------------------------------

def _safe_root(total, p):
    """total ** (1/p), with a zero (not NaN) gradient at 0; a NaN total stays NaN."""
    zero = total == 0
    return jnp.where(zero, 0, jnp.where(zero, 1, total) ** (1.0 / p))


def _cdist(x1, x2, p):
    """PyTorch's distance kernels: p = 0 counts min(ceil(|d|), 1) (NaN counting as NaN), p = inf keeps the largest
    |d| by a comparison that passes over NaN."""
    diff = x1[..., :, None, :] - x2[..., None, :, :]
    if p == 0:
        return jnp.sum(jnp.minimum(jnp.ceil(jnp.abs(diff)), 1), axis=-1)
    if p == float("inf"):
        return jnp.max(jnp.where(jnp.isnan(diff), 0, jnp.abs(diff)), axis=-1, initial=0)
    return _p_norm(diff, p, axis=-1)


def _p_norm(diff, p, axis):
    a = jnp.abs(diff)
    if p == 0:
        return jnp.sum((a != 0).astype(diff.dtype), axis=axis)
    if p == float("inf"):
        return jnp.max(a, axis=axis)
    if p == 1:
        return jnp.sum(a, axis=axis)
    if p == 2:
        return _safe_root(jnp.sum(diff * diff, axis=axis), 2)
    nonzero = a != 0  # NaN included, to come through
    powered = jnp.where(nonzero, jnp.where(nonzero, a, 1) ** p, 0)
    return _safe_root(jnp.sum(powered, axis=axis), p)


CDIST = Op("cdist", _cdist)


def _cross(a, b, dim):
    a, b = jnp.broadcast_arrays(a, b)
    return jnp.moveaxis(jnp.cross(jnp.moveaxis(a, dim, -1), jnp.moveaxis(b, dim, -1)), -1, dim)


CROSS = Op("linalg_cross", _cross)


# ----- statistics and searches ---------------------------------------------------------------------

def _mode(x, dim, keepdim):
    """The most frequent value along `dim`, and the index PyTorch's kernel reports for it."""
    moved = jnp.moveaxis(x, dim, -1)
    index = picked_on_host(moved, stl_mode, 1)
    value = jnp.take_along_axis(moved, index, axis=-1)
    if not keepdim:
        return value[..., 0], index[..., 0]
    return jnp.expand_dims(value[..., 0], dim), jnp.expand_dims(index[..., 0], dim)


MODE = Op("mode", refusing(_mode, "mode", "bif", kernel="mode_cpu"), promote="none", saves=SAVES_INPUTS_AND_INDICES)


def _scalar_kthvalue(x, k, dim, keepdim):
    return x, jnp.zeros((), jnp.int64)


SCALAR_KTHVALUE = Op("kthvalue", _scalar_kthvalue, promote="none", saves=SAVES_INPUTS_AND_INDICES)


def _histc(x, bins, low, high):
    flat = x.reshape(-1)
    if low == high:
        lo, hi = jnp.min(flat) if flat.size else jnp.array(0, x.dtype), jnp.max(flat) if flat.size else \
            jnp.array(0, x.dtype)
        equal = lo == hi
        lo, hi = jnp.where(equal, lo - 1, lo), jnp.where(equal, hi + 1, hi)
    else:
        lo, hi = jnp.asarray(low, x.dtype), jnp.asarray(high, x.dtype)
    inside = (flat >= lo) & (flat <= hi)
    position = ((flat - lo) * bins / (hi - lo)).astype(jnp.int64)
    position = jnp.where(position == bins, bins - 1, position)
    position = jnp.where(inside, position, bins)
    counts = jnp.zeros(bins + 1, x.dtype).at[position].add(jnp.ones_like(flat))
    return lax.stop_gradient(counts[:bins])


HISTC = Op("histc", _histc, promote="none", saves=SAVES_NOTHING)


def _isin(elements, test, invert):
    found = jnp.isin(elements, test)
    return ~found if invert else found


ISIN = Op("isin", _isin, saves=SAVES_NOTHING)


def _binary_search(rows, values, right):
    """PyTorch's CPU binary search of each row of `rows` (values: one row of them each). Its plain comparisons,
    which a NaN boundary or value answers False, steer it: unlike a total order's search, a NaN boundary counts as
    below a value and a NaN value lands past the end."""
    n = rows.shape[-1]
    start = jnp.zeros(values.shape, jnp.int64)
    end = jnp.full(values.shape, n, jnp.int64)
    for _ in range(n.bit_length()):
        mid = (start + end) // 2
        middle = jnp.take_along_axis(rows, jnp.minimum(mid, n - 1), axis=-1)
        onward = ~(middle > values) if right else ~(middle >= values)
        active = start < end
        start = jnp.where(active & onward, mid + 1, start)
        end = jnp.where(active & ~onward, mid, end)
    return start


def _searchsorted(boundaries, values, right, out_int32):
    dtype = jnp.int32 if out_int32 else jnp.int64
    if boundaries.ndim <= 1:
        flat = values.reshape(1, -1)
        found = _binary_search(boundaries.reshape(1, -1), flat, right).reshape(values.shape)
    else:
        lead = boundaries.shape[:-1]
        rows = int(np.prod(lead))
        b = boundaries.reshape((rows, boundaries.shape[-1]))
        v = values.reshape((rows, values.shape[-1]))
        found = _binary_search(b, v, right).reshape(lead + values.shape[-1:])
    return lax.stop_gradient(found).astype(dtype)


# PyTorch refuses a bool or complex common dtype of the boundaries and values.
SEARCHSORTED = Op("searchsorted", refusing(_searchsorted, "searchsorted", "if", kernel="searchsorted_out_cpu"),
                  saves=SAVES_NOTHING)


# ----- nn: interpolation ---------------------------------------------------------------------------

def _nearest_index(in_size, out_size, scale):
    """PyTorch's 'nearest': floor(dst * scale) where scale is in/out (or 1/scale_factor when given)."""
    s = (in_size / out_size) if scale is None else 1.0 / scale
    return np.minimum(np.floor(np.arange(out_size, dtype=np.float32) * np.float32(s)).astype(np.int64), in_size - 1)


def _nearest_exact_index(in_size, out_size, scale):
    """'nearest-exact': floor((dst + 0.5) * scale)."""
    s = (in_size / out_size) if scale is None else 1.0 / scale
    src = np.floor((np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * np.float32(s)).astype(np.int64)
    return np.minimum(src, in_size - 1)


def _upsample_nearest(x, sizes, scales, exact=False):
    spatial = len(sizes)
    index = _nearest_exact_index if exact else _nearest_index
    for i, (out_size, scale) in enumerate(zip(sizes, scales)):
        axis = x.ndim - spatial + i
        x = jnp.take(x, index(x.shape[axis], out_size, scale), axis=axis)
    return x


def _linear_weights(in_size, out_size, align_corners, scale):
    if align_corners:
        s = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = np.arange(out_size, dtype=np.float64) * s
    else:
        s = (in_size / out_size) if scale is None else 1.0 / scale
        src = np.maximum((np.arange(out_size, dtype=np.float64) + 0.5) * s - 0.5, 0.0)
    low = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    high = np.minimum(low + 1, in_size - 1)
    frac = src - low
    matrix = np.zeros((out_size, in_size))
    np.add.at(matrix, (np.arange(out_size), low), 1 - frac)
    np.add.at(matrix, (np.arange(out_size), high), frac)
    return matrix


def _upsample_linear(x, sizes, align_corners, scales):
    spatial = len(sizes)
    for i, (out_size, scale) in enumerate(zip(sizes, scales)):
        axis = x.ndim - spatial + i
        matrix = jnp.asarray(_linear_weights(x.shape[axis], out_size, align_corners, scale), x.dtype)
        x = jnp.moveaxis(jnp.tensordot(x, matrix, axes=([axis], [1]), precision=_PRECISION), -1, axis)
    return x


UPSAMPLE_NEAREST = {n: Op(f"upsample_nearest{n}d", _upsample_nearest, grad_name=f"UpsampleNearest{n}DBackward0",
                          promote="none", saves=SAVES_NOTHING) for n in (1, 2, 3)}
UPSAMPLE_NEAREST_EXACT = {n: Op(f"upsample_nearest_exact{n}d", _upsample_nearest,
                                grad_name=f"UpsampleNearestExact{n}DBackward0", promote="none", saves=SAVES_NOTHING)
                          for n in (1, 2, 3)}
UPSAMPLE_LINEAR = {name: Op(f"upsample_{name}", _upsample_linear,
                            grad_name=f"Upsample{name[:-2].capitalize()}{name[-2:].upper()}Backward0",
                            promote="none", saves=SAVES_NOTHING)
                   for name in ("linear1d", "bilinear2d", "trilinear3d")}


# ----- nn: normalisation ---------------------------------------------------------------------------

def _group_norm(x, *affine, groups, eps, has_weight, has_bias):
    low = x.dtype in (jnp.float16, jnp.bfloat16)
    xx = x.astype(jnp.float32) if low else x
    n, c = x.shape[0], x.shape[1]
    grouped = xx.reshape((n, groups, -1))
    mean = jnp.mean(grouped, axis=-1, keepdims=True)
    var = jnp.mean(jnp.square(grouped - mean), axis=-1, keepdims=True)
    out = ((grouped - mean) * lax.rsqrt(var + eps)).reshape(x.shape)
    shape = (1, c) + (1,) * (x.ndim - 2)
    rest = list(affine)
    if has_weight:
        out = out * rest.pop(0).reshape(shape)
    if has_bias:
        out = out + rest.pop(0).reshape(shape)
    return out.astype(x.dtype)


GROUP_NORM = Op("native_group_norm", _group_norm, promote="none")


# ----- nn: rearrangement ---------------------------------------------------------------------------

def _pixel_shuffle(x, r):
    *lead, c, h, w = x.shape
    oc = c // (r * r)
    y = x.reshape(tuple(lead) + (oc, r, r, h, w))
    k = len(lead)
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return y.reshape(tuple(lead) + (oc, h * r, w * r))


def _pixel_unshuffle(x, r):
    *lead, c, h, w = x.shape
    k = len(lead)
    y = x.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    y = jnp.transpose(y, tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return y.reshape(tuple(lead) + (c * r * r, h // r, w // r))


PIXEL_SHUFFLE = Op("pixel_shuffle", _pixel_shuffle, promote="none", saves=SAVES_NOTHING)
PIXEL_UNSHUFFLE = Op("pixel_unshuffle", _pixel_unshuffle, promote="none", saves=SAVES_NOTHING)


def _im2col_indices(size, kernel, dilation, padding, stride):
    """(blocks per dim, index of each kernel offset and block into the padded input) for one spatial dim."""
    blocks = (size + 2 * padding - dilation * (kernel - 1) - 1) // stride + 1
    index = np.arange(kernel)[:, None] * dilation + np.arange(blocks)[None, :] * stride
    return blocks, index


def _im2col(x, kernel_size, dilation, padding, stride):
    unbatched = x.ndim == 3
    if unbatched:
        x = x[None]
    n, c, h, w = x.shape
    xp = jnp.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    bh, ih = _im2col_indices(h, kernel_size[0], dilation[0], padding[0], stride[0])
    bw, iw = _im2col_indices(w, kernel_size[1], dilation[1], padding[1], stride[1])
    # (n, c, kh, bh, kw, bw)
    cols = xp[:, :, ih[:, :, None, None], iw[None, None, :, :]]
    cols = jnp.transpose(cols, (0, 1, 2, 4, 3, 5)).reshape(n, c * kernel_size[0] * kernel_size[1], bh * bw)
    return cols[0] if unbatched else cols


def _col2im(x, output_size, kernel_size, dilation, padding, stride):
    unbatched = x.ndim == 2
    if unbatched:
        x = x[None]
    n = x.shape[0]
    kh, kw = kernel_size
    c = x.shape[1] // (kh * kw)
    h, w = output_size
    bh, ih = _im2col_indices(h, kh, dilation[0], padding[0], stride[0])
    bw, iw = _im2col_indices(w, kw, dilation[1], padding[1], stride[1])
    cols = x.reshape(n, c, kh, kw, bh, bw)
    cols = jnp.transpose(cols, (0, 1, 2, 4, 3, 5))
    out = jnp.zeros((n, c, h + 2 * padding[0], w + 2 * padding[1]), x.dtype)
    out = out.at[:, :, ih[:, :, None, None], iw[None, None, :, :]].add(cols)
    out = out[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w]
    return out[0] if unbatched else out


IM2COL = Op("im2col", _im2col, grad_name="Im2ColBackward0", promote="none", saves=SAVES_NOTHING)
COL2IM = Op("col2im", _col2im, grad_name="Col2ImBackward0", promote="none", saves=SAVES_NOTHING)


# ----- nn: adaptive max pooling --------------------------------------------------------------------

def _adaptive_max_pool(x, output_size):
    """Each output cell's window [floor(i*in/out), ceil((i+1)*in/out)); its first maximum (NaN wins) and its
    flat index over the input's spatial dims."""
    spatial = len(output_size)
    lead = x.shape[:x.ndim - spatial]
    sizes = x.shape[x.ndim - spatial:]
    windows = []
    for n, o in zip(sizes, output_size):
        starts = (np.arange(o) * n) // o
        ends = -((-(np.arange(o) + 1) * n) // o)
        k = int(np.max(ends - starts))
        idx = starts[:, None] + np.arange(k)[None, :]
        valid = idx < ends[:, None]
        windows.append((np.minimum(idx, n - 1), valid, k))
    flat = x.reshape(lead + (-1,))
    # Gather every (out cell, window offset) combination as flat indices.
    index = np.zeros((1,) * (2 * spatial), np.int64)
    valid = np.ones((1,) * (2 * spatial), bool)
    for d, (idx, ok, k) in enumerate(windows):
        shape = [1] * (2 * spatial)
        shape[d], shape[spatial + d] = idx.shape
        index = index * sizes[d] + idx.reshape(shape)
        valid = valid & ok.reshape(shape)
    out_cells = int(np.prod(output_size))
    index = np.broadcast_to(index, tuple(output_size) + tuple(w[2] for w in windows)).reshape(out_cells, -1)
    valid = np.broadcast_to(valid, tuple(output_size) + tuple(w[2] for w in windows)).reshape(out_cells, -1)
    picked = flat[..., index]  # lead + (cells, window)
    if jnp.issubdtype(x.dtype, jnp.floating):
        lowest = -jnp.inf
        key = jnp.where(jnp.isnan(picked), jnp.inf, picked)
    else:
        lowest = jnp.iinfo(x.dtype).min
        key = picked
    key = jnp.where(valid, key, lowest)
    best = jnp.argmax(key, axis=-1)
    values = jnp.take_along_axis(picked, best[..., None], axis=-1)[..., 0]
    indices = jnp.asarray(index)[jnp.arange(out_cells), best]
    return (values.reshape(lead + tuple(output_size)),
            lax.stop_gradient(indices).reshape(lead + tuple(output_size)).astype(jnp.int64))


ADAPTIVE_MAX_POOL = {n: Op(f"adaptive_max_pool{n}d", _adaptive_max_pool, grad_name=f"AdaptiveMaxPool{n}DBackward0",
                           promote="none", saves=SAVES_INPUTS_AND_INDICES) for n in (2, 3)}


# ----- nn: losses and activations ------------------------------------------------------------------

def _multi_margin(x, target, *weight, p, margin, reduction, has_weight):
    unbatched = x.ndim == 1
    if unbatched:
        x, target = x[None], target.reshape(1)
    picked = jnp.take_along_axis(x, target[:, None], axis=1)
    z = jnp.maximum(margin - picked + x, 0)
    if p == 2:
        z = z * z
    if has_weight:
        z = z * weight[0][target][:, None]
    not_target = jnp.arange(x.shape[1])[None, :] != target[:, None]
    per = jnp.sum(jnp.where(not_target, z, 0), axis=1) / x.shape[1]
    if reduction == "mean":
        return mean(per)
    if reduction == "sum":
        return jnp.sum(per)
    return per[0] if unbatched else per


MULTI_MARGIN_LOSS = Op("multi_margin_loss", _multi_margin, promote="none")

def _soft_margin(x, target, reduction):
    loss = jnp.log1p(jnp.exp(-target * x))
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return jnp.sum(loss)
    return loss


SOFT_MARGIN_LOSS = Op("soft_margin_loss", _soft_margin)


# ----- nn: transposed convolution ------------------------------------------------------------------

def _conv_transpose(x, weight, *bias, stride, padding, output_padding, dilation, groups):
    """PyTorch's layout: weight is (in, out/groups, *kernel). The gradient of a convolution with respect to its
    input: the input dilated by stride, padded by dilation*(k-1)-padding, convolved with the flipped kernel."""
    spatial = weight.ndim - 2
    unbatched = x.ndim == spatial + 1
    if unbatched:
        x = x[None]
    cin, cout_g = weight.shape[0], weight.shape[1]
    kernel = weight.shape[2:]
    w = weight.reshape((groups, cin // groups, cout_g) + kernel)
    w = jnp.swapaxes(w, 1, 2).reshape((groups * cout_g, cin // groups) + kernel)
    w = jnp.flip(w, axis=tuple(range(2, 2 + spatial)))
    pads = [(d * (k - 1) - p, d * (k - 1) - p + op)
            for k, p, op, d in zip(kernel, padding, output_padding, dilation)]
    out = lax.conv_general_dilated(x, w, window_strides=(1,) * spatial, padding=pads, lhs_dilation=stride,
                                   rhs_dilation=dilation, feature_group_count=groups, precision=_PRECISION)
    if bias:
        out = out + bias[0].reshape((-1,) + (1,) * spatial)
    return out[0] if unbatched else out


CONV_TRANSPOSE = Op("convolution", _conv_transpose, grad_name="ConvolutionBackward0", promote="none")


def _norm_dim(x, p, dim, keepdim):
    out = _p_norm(x, p, axis=dim)
    return jnp.expand_dims(out, dim) if keepdim else out


NORM_DIM = Op("norm", _norm_dim, grad_name="NormBackward1", promote="none")


# ----- distances, medians, quantiles ---------------------------------------------------------------

def _dist(a, b, p):
    diff = (a - b).reshape(-1)
    diff = jnp.abs(diff) if jnp.iscomplexobj(diff) else diff
    if p == -float("inf"):
        return jnp.min(jnp.abs(diff)) if diff.size else jnp.array(jnp.inf, jnp.abs(diff).dtype)
    return _p_norm(diff, p, axis=0)


DIST = Op("dist", _dist)


def _pdist(x, p):
    rows, cols = np.triu_indices(x.shape[0], 1)
    return _p_norm(x[rows] - x[cols], p, axis=-1)


PDIST = Op("pdist", _pdist, grad_name="PdistBackward0", promote="none")


def _nan_last_order(x, axis):
    """A stable order of `x` along `axis` with NaNs after every number, and how many numbers each slice holds."""
    order = jnp.argsort(x, axis=axis, stable=True)
    present = jnp.sum(~jnp.isnan(x), axis=axis, keepdims=True) if jnp.issubdtype(x.dtype, jnp.floating) else \
        jnp.full(x.shape[:axis] + (1,) + x.shape[axis + 1:], x.shape[axis])
    return order, present


@jax.custom_jvp
def _nanmedian_all(x):
    flat = x.reshape(-1)
    if not flat.size:
        return jnp.asarray(nan_as(flat.dtype))
    order, present = _nan_last_order(flat, 0)
    pick = jnp.maximum((present - 1) // 2, 0)
    value = flat[jnp.take(order, pick)][0]
    return jnp.where(present[0] > 0, value, jnp.nan).astype(x.dtype)


@_nanmedian_all.defjvp
def _nanmedian_all_jvp(primals, tangents):
    """The gradient is spread evenly over the elements equal to the median (or over the NaNs, when it is NaN)."""
    (x,), (tangent,) = primals, tangents
    value = _nanmedian_all(x)
    ties = jnp.where(jnp.isnan(value), jnp.isnan(x), x == value)
    return value, jnp.sum(jnp.where(ties, tangent, 0)) / jnp.maximum(jnp.sum(ties), 1).astype(x.dtype)


def _nanmedian_dim(x, dim, keepdim):
    squeeze = x.ndim == 0
    x = x.reshape(1) if squeeze else x
    order, present = _nan_last_order(x, dim)
    index = jnp.take_along_axis(order, jnp.maximum((present - 1) // 2, 0), axis=dim)
    values = jnp.take_along_axis(x, index, axis=dim)
    if squeeze or not keepdim:
        values, index = values.reshape(values.shape[:dim] + values.shape[dim + 1:]), \
            index.reshape(index.shape[:dim] + index.shape[dim + 1:])
    return values, lax.stop_gradient(index).astype(jnp.int64)


NANMEDIAN_ALL = Op("nanmedian", _nanmedian_all, grad_name="NanmedianBackward0", promote="none")
NANMEDIAN_DIM = Op("nanmedian", _nanmedian_dim, grad_name="NanmedianBackward1", promote="none",
                   saves=SAVES_INPUTS_AND_INDICES)

# Where a quantile's rank falls between two sorted neighbours, the weight given to the upper one.
_QUANTILE_WEIGHTS = {
    "linear": lambda rank: rank - jnp.floor(rank),
    "lower": lambda rank: jnp.zeros_like(rank),
    "higher": lambda rank: (rank > jnp.floor(rank)).astype(rank.dtype),
    "midpoint": lambda rank: jnp.where(rank > jnp.floor(rank), 0.5, 0.0).astype(rank.dtype),
    "nearest": lambda rank: (jnp.round(rank) > jnp.floor(rank)).astype(rank.dtype),
}


def _quantile(x, q, dim, keepdim, interpolation, ignore_nan, scalar):
    """Quantiles along `dim` (None: the flattened input), the q's as a new leading dim; a slice holding a NaN gives
    NaN, unless `ignore_nan`, when only an all-NaN slice does."""
    if dim is None:
        x, dim = x.reshape(-1), 0
    moved = jnp.moveaxis(x, dim, -1)
    ordered = jnp.sort(moved, axis=-1)
    present = jnp.sum(~jnp.isnan(moved), axis=-1, keepdims=True)
    count = present if ignore_nan else jnp.full_like(present, moved.shape[-1])
    rank = q.reshape((-1,) + (1,) * moved.ndim) * (count - 1).astype(q.dtype)
    rank = jnp.clip(rank, 0, None)
    low = jnp.floor(rank).astype(jnp.int64)
    high = jnp.minimum(jnp.ceil(rank).astype(jnp.int64), jnp.maximum(count - 1, 0))
    weight = _QUANTILE_WEIGHTS[interpolation](rank)
    ordered = jnp.broadcast_to(ordered, (q.size,) + ordered.shape)
    below = jnp.take_along_axis(ordered, low, axis=-1)
    above = jnp.take_along_axis(ordered, high, axis=-1)
    if interpolation in ("linear", "midpoint"):  # PyTorch's lerp, exact at either end (and NaN for inf - inf)
        diff = above - below
        out = jnp.where(weight < 0.5, below + weight * diff, above - diff * (1 - weight))
    else:  # the other interpolations pick an element
        out = jnp.where(weight > 0, above, below)
    missing = (present == 0) if ignore_nan else (present < moved.shape[-1])
    out = jnp.where(jnp.broadcast_to(missing, out.shape), jnp.nan, out)[..., 0]
    out = jnp.expand_dims(out, dim + 1) if keepdim else out
    return out[0] if scalar else out


QUANTILE = Op("quantile", _quantile, grad_name="SqueezeBackward4", promote="none", unlisted=frozenset({1}))


# ----- renorm, frexp, polar, complex ---------------------------------------------------------------

def _renorm(x, p, dim, maxnorm):
    axes = tuple(d for d in range(x.ndim) if d != dim)
    norms = _p_norm(x, p, axis=axes) if axes else jnp.abs(x)
    norms = jnp.expand_dims(norms, axes) if axes else norms
    factor = jnp.where(norms > maxnorm, maxnorm / (norms + 1e-7), 1.0).astype(x.dtype)
    return x * factor


RENORM = Op("renorm", _renorm, promote="none")


def _frexp(x):
    _, exponent = jnp.frexp(x)
    exponent = lax.stop_gradient(exponent).astype(jnp.int32)
    finite = jnp.isfinite(x) & (x != 0)
    mantissa = jnp.where(finite, x / jnp.exp2(exponent.astype(x.dtype)), x)
    return mantissa, exponent


FREXP = Op("frexp", _frexp, promote="none")


def _polar(magnitude, angle):
    return lax.complex(magnitude * jnp.cos(angle), magnitude * jnp.sin(angle))


POLAR = Op("polar", _polar, promote="none")
COMPLEX = Op("complex", lambda real, imag: lax.complex(real, imag), promote="none", saves=SAVES_NOTHING)


def _view_as_real(x):
    """(real, imag) pairs, written through conj so that the conjugated vjp's zero parts are +0 as PyTorch's are."""
    conj = jnp.conj(x)
    return jnp.stack([conj.real, -conj.imag], axis=-1)


VIEW_AS_REAL = Op("view_as_real", _view_as_real, promote="none", saves=SAVES_NOTHING)
VIEW_AS_COMPLEX = Op("view_as_complex", lambda x: lax.complex(x[..., 0], x[..., 1]), promote="none",
                     saves=SAVES_NOTHING)


def _mvlgamma(x, p):
    offsets = jnp.arange(p, dtype=x.dtype) / 2
    return jnp.sum(jax.scipy.special.gammaln(x[..., None] - offsets), axis=-1) + \
        jnp.asarray(p * (p - 1) / 4 * np.log(np.pi), x.dtype)


MVLGAMMA = Op("mvlgamma", _mvlgamma, promote="float")
@functools.partial(jax.custom_jvp, nondiff_argnums=(1,))
def _polygamma(x, n):
    """Evaluated in float64 (XLA's float32 series is a few ulps off PyTorch's), then rounded to x's dtype. At the
    poles (0, -1, -2, ...) PyTorch gives -inf for digamma at 0 (NaN at the others), and (-1)^(n+1) inf above."""
    if n == 1:
        return _trigamma(x)
    wide = x.astype(jnp.float64)
    pole = (wide <= 0) & (wide == jnp.floor(wide))
    at_pole = (jnp.where(wide == 0, -jnp.inf, jnp.nan) if n == 0 else jnp.inf if n % 2 else -jnp.inf)
    return jnp.where(pole, at_pole, jax.scipy.special.polygamma(n, wide)).astype(x.dtype)


def _trigamma(x):
    """PyTorch's trigamma series, in x's precision as PyTorch computes it (its tail in double, as C++ promotes it):
    the reflection below 1/2 makes a pole pi^2 / sin(pi x)^2 as sin rounds there (inf at 0, about 1.3e15 at -1 in
    float32), and gives 0 at inf and NaN at -inf."""
    dtype = jnp.promote_types(x.dtype, jnp.float32)
    x = x.astype(dtype)
    pi = jnp.asarray(np.pi, dtype)
    reflect = x < 0.5
    sin_pi_x = jnp.sin(pi * x)
    result = jnp.where(reflect, -(pi * pi) / (sin_pi_x * sin_pi_x), jnp.zeros_like(x))
    x = jnp.where(reflect, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (x * x)
        x = x + 1
    wide, ixx = x.astype(jnp.float64), (1 / (x * x)).astype(jnp.float64)
    tail = ((1 + 1 / (2 * x)).astype(jnp.float64) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / wide
    result = (result + tail).astype(dtype)
    return jnp.where(reflect, -result, result)


@_polygamma.defjvp
def _polygamma_jvp(n, primals, tangents):
    """The derivative is the next polygamma, poles included (where autodiff of the masked form gives NaN)."""
    (x,), (tangent,) = primals, tangents
    return _polygamma(x, n), _polygamma(x, n + 1) * tangent


POLYGAMMA = Op("polygamma", lambda x, n: _polygamma(x, n), promote="float")


# ----- matrix-vector products ----------------------------------------------------------------------

def _scaled_sum(input, product, beta, alpha):
    """beta * input + alpha * product, where beta == 0 ignores input (NaNs included), as BLAS does."""
    scaled = product if alpha == 1 else product * alpha
    if beta == 0:
        return jnp.broadcast_to(scaled, jnp.broadcast_shapes(input.shape, scaled.shape)).astype(product.dtype)
    return (input if beta == 1 else input * beta) + scaled


def _addmv(input, mat, vec, beta, alpha):
    return _scaled_sum(input, jnp.matmul(mat, vec, precision=_PRECISION), beta, alpha)


def _addr(input, vec1, vec2, beta, alpha):
    product = vec1[:, None] * vec2[None, :]
    if input.dtype == jnp.bool_:
        return (input & (beta != 0)) | (product & (alpha != 0))
    return _scaled_sum(input, product, beta, alpha)


def _addbmm(input, batch1, batch2, beta, alpha):
    return _scaled_sum(input, jnp.einsum("bij,bjk->ik", batch1, batch2, precision=_PRECISION), beta, alpha)


def _baddbmm(input, batch1, batch2, beta, alpha):
    return _scaled_sum(input, jnp.matmul(batch1, batch2, precision=_PRECISION), beta, alpha)


ADDMV = Op("addmv", _addmv, promote="none")
ADDR = Op("addr", _addr, promote="none")
ADDBMM = Op("addbmm", _addbmm, promote="none")
BADDBMM = Op("baddbmm", _baddbmm, promote="none")
VDOT = Op("vdot", lambda a, b: jnp.sum(jnp.conj(a) * b, dtype=a.dtype), promote="none")


def _matrix_exp(x):
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return _matrix_exp(x.astype(jnp.float32)).astype(x.dtype)
    return jax.scipy.linalg.expm(x) if x.ndim == 2 else jax.vmap(_matrix_exp)(x) if x.ndim > 2 else jnp.exp(x)


MATRIX_EXP = Op("linalg_matrix_exp", _matrix_exp, promote="none")


# ----- scatters into copies ------------------------------------------------------------------------

def _put(x, index, source, accumulate):
    flat = x.reshape(-1)
    index = jnp.where(index < 0, index + flat.size, index).reshape(-1)
    source = source.reshape(-1)
    return (flat.at[index].add(source) if accumulate else flat.at[index].set(source)).reshape(x.shape)


PUT = Op("put", _put, promote="none", unlisted=frozenset({1}))


def _index_reduce(x, index, source, dim, reduce, include_self):
    if x.dtype == jnp.bool_:  # or, and: as integers 0 and 1
        counted = _index_reduce(x.astype(jnp.int32), index, source.astype(jnp.int32), dim, reduce, include_self)
        return counted != 0
    moved = jnp.moveaxis(x, dim, 0)
    source = jnp.moveaxis(source, dim, 0)
    touched = jnp.zeros(moved.shape[0], bool).at[index].set(True).reshape((-1,) + (1,) * (moved.ndim - 1))
    identity = _REDUCE_IDENTITY[reduce](moved.dtype)
    start = moved if include_self else jnp.where(touched, jnp.asarray(identity, moved.dtype), moved)
    out = _segment_prod(start, index, source) if reduce == "prod" else \
        {"amax": start.at[index].max, "amin": start.at[index].min, "mean": start.at[index].add}[reduce](source)
    if reduce == "mean":
        counts = jnp.zeros(moved.shape[0], moved.dtype).at[index].add(1).reshape(touched.shape)
        counts = counts + (1 if include_self else 0)
        divided = out / jnp.maximum(counts, 1)
        out = jnp.where(touched, divided if jnp.issubdtype(out.dtype, jnp.inexact) else
                        jnp.floor_divide(out, jnp.maximum(counts, 1)).astype(out.dtype), out)
    return jnp.moveaxis(out, 0, dim)


def _segment_prod(start, index, source):
    """start[i] times every source row sent to i, as a masked product (JAX's scatter-multiply has no gradient for
    repeated indices)."""
    hits = (index[:, None] == jnp.arange(start.shape[0])[None, :]).reshape(index.shape + start.shape[:1] +
                                                                           (1,) * (start.ndim - 1))
    return start * jnp.prod(jnp.where(hits, source[:, None], jnp.ones((), source.dtype)), axis=0)


def _lowest(dtype):
    return -jnp.inf if jnp.issubdtype(dtype, jnp.inexact) else jnp.iinfo(dtype).min


def _highest(dtype):
    return jnp.inf if jnp.issubdtype(dtype, jnp.inexact) else jnp.iinfo(dtype).max


_REDUCE_IDENTITY = {"prod": lambda d: 1, "mean": lambda d: 0, "amax": _lowest, "amin": _highest}
INDEX_REDUCE = Op("index_reduce", _index_reduce, promote="none", unlisted=frozenset({1}))


def _diagonal_scatter(x, src, offset, dim1, dim2):
    moved = jnp.moveaxis(x, (dim1, dim2), (-2, -1))
    length = src.shape[-1]
    rows = np.arange(length) + max(-offset, 0)
    cols = np.arange(length) + max(offset, 0)
    return jnp.moveaxis(moved.at[..., rows, cols].set(src), (-2, -1), (dim1, dim2))


def _slice_scatter(x, src, dim, start, end, step):
    where = (slice(None),) * dim + (slice(start, end, step),)
    return x.at[where].set(src)


def _select_scatter(x, src, dim, index):
    return x.at[(slice(None),) * dim + (index,)].set(src)


DIAGONAL_SCATTER = Op("diagonal_scatter", _diagonal_scatter, promote="none", saves=SAVES_NOTHING)
SLICE_SCATTER = Op("slice_scatter", _slice_scatter, promote="none", saves=SAVES_NOTHING)
SELECT_SCATTER = Op("select_scatter", _select_scatter, promote="none", saves=SAVES_NOTHING)


# ----- scatter_reduce ------------------------------------------------------------------------------

def _scatter_candidates(x, index, src, dim, fill):
    """For every position of x along `dim`, the src values scattered to it (`fill` elsewhere), as a trailing
    axis; and whether any arrived. A masked form rather than a scatter, so that prod, amax and amin have
    PyTorch's gradients (ties share evenly) even where indices repeat."""
    n = x.shape[dim]
    src = src[tuple(slice(0, s) for s in index.shape)].astype(x.dtype)
    hits = jnp.moveaxis(index, dim, -1)[..., None] == jnp.arange(n)
    candidates = jnp.where(hits, jnp.moveaxis(src, dim, -1)[..., None], jnp.asarray(fill, x.dtype))
    candidates, touched = jnp.moveaxis(candidates, -1, dim), jnp.moveaxis(jnp.any(hits, axis=-2), -1, dim)
    pad = [(0, full - part) for full, part in zip(x.shape, touched.shape)]
    candidates = jnp.pad(candidates, pad + [(0, 0)], constant_values=jnp.asarray(fill, x.dtype))
    return candidates, jnp.pad(touched, pad)


def _scatter_extreme(x, index, src, dim, include_self, pick, fill):
    candidates, touched = _scatter_candidates(x, index, src, dim, fill)
    if include_self:
        candidates = jnp.concatenate([x[..., None], candidates], axis=-1)
    return jnp.where(touched, pick(candidates, axis=-1, initial=fill), x)


def _scatter_prod(x, index, src, dim, include_self):
    candidates, touched = _scatter_candidates(x, index, src, dim, 1)
    product = jnp.prod(candidates, axis=-1)
    return jnp.where(touched, product * x if include_self else product, x)


def _scatter_sum(x, index, src, dim, include_self):
    from .shape import _axis_indices
    where = _axis_indices(index, dim)
    src = src[tuple(slice(0, s) for s in index.shape)].astype(x.dtype)
    start = x if include_self else x.at[where].set(0)
    return start.at[where].add(src), where


def _scatter_mean(x, index, src, dim, include_self):
    total, where = _scatter_sum(x, index, src, dim, include_self)
    count = (jnp.ones_like(x) if include_self else jnp.zeros_like(x).at[where].set(0)).at[where].add(1)
    count = jnp.maximum(count, 1)
    return total / count if jnp.issubdtype(x.dtype, jnp.inexact) else jnp.floor_divide(total, count)


_SCATTER_REDUCE = {
    "sum": lambda x, i, s, d, inc: _scatter_sum(x, i, s, d, inc)[0],
    "prod": _scatter_prod,
    "mean": _scatter_mean,
    "amax": lambda x, i, s, d, inc: _scatter_extreme(x, i, s, d, inc, jnp.max, _lowest(x.dtype)),
    "amin": lambda x, i, s, d, inc: _scatter_extreme(x, i, s, d, inc, jnp.min, _highest(x.dtype)),
}


def _scatter_reduce(x, index, src, dim, reduce, include_self=True):
    if x.dtype == jnp.bool_:  # sum is or, prod is and: as integers 0 and 1
        return _scatter_reduce(x.astype(jnp.int32), index, src.astype(jnp.int32), dim, reduce, include_self) != 0
    return _SCATTER_REDUCE[reduce](x, index, src, dim, include_self)


SCATTER_REDUCE = Op("scatter_reduce", _scatter_reduce, grad_name="ScatterReduceBackward0", promote="none",
                    unlisted=frozenset({1}))


# ----- a tensor times or over a number, as PyTorch's C++ composites record it ---------------------------

SCALAR_MUL = Op("mul", lambda x, factor: x * jnp.asarray(factor, x.dtype), grad_name="MulBackward1", promote="none",
                saves=SAVES_NOTHING)
SCALAR_DIV = Op("div", lambda x, divisor: x / jnp.asarray(divisor, x.dtype), grad_name="DivBackward1",
                promote="none", saves=SAVES_NOTHING)


# ----- triangular solves and LU --------------------------------------------------------------------

def _solve_triangular(a, b, upper, left, unitriangular):
    return lax.linalg.triangular_solve(a, b, left_side=left, lower=not upper, unit_diagonal=unitriangular)


SOLVE_TRIANGULAR = Op("linalg_solve_triangular", _solve_triangular)


def _lu_factor(a):
    lu, pivots, _ = lax.linalg.lu(a)
    return lu, lax.stop_gradient(pivots + 1).astype(jnp.int32), jnp.zeros(a.shape[:-2], jnp.int32)


LU_FACTOR = Op("linalg_lu_factor_ex", _lu_factor, promote="none")


def _unpack(lu, permutation, m, n):
    """P, L, U from a packed LU factor and its row permutation (A[perm] = L U)."""
    k = min(m, n)
    lower = jnp.tril(lu[..., :, :k], -1) + jnp.eye(m, k, dtype=lu.dtype)
    upper = jnp.triu(lu[..., :k, :])
    p = jnp.swapaxes(jax.nn.one_hot(permutation, m, dtype=lu.dtype), -1, -2)
    return lax.stop_gradient(p), lower, upper


def _lu(a):
    lu, _, permutation = lax.linalg.lu(a)
    return _unpack(lu, permutation, a.shape[-2], a.shape[-1])


LU = Op("linalg_lu", _lu, promote="none")


def _lu_unpack(lu, pivots):
    permutation = lax.linalg.lu_pivots_to_permutation(pivots - 1, lu.shape[-2])
    return _unpack(lu, permutation, lu.shape[-2], lu.shape[-1])


LU_UNPACK = Op("lu_unpack", _lu_unpack, promote="none", unlisted=frozenset({1}))


def _lu_solve(lu, pivots, b, left, adjoint):
    """Solves A X = B (or X A = B, or with A^H) for A = P L U, by permutation and two triangular solves."""
    p, lower, upper = _lu_unpack(lu, pivots)
    solve = lax.linalg.triangular_solve
    if left and not adjoint:
        y = jnp.swapaxes(p, -1, -2) @ b
        return solve(upper, solve(lower, y, left_side=True, lower=True, unit_diagonal=True), left_side=True)
    if left:
        y = solve(upper, b, left_side=True, transpose_a=True, conjugate_a=True)
        return p @ solve(lower, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True,
                         unit_diagonal=True)
    if not adjoint:
        y = solve(upper, b, left_side=False)
        return solve(lower, y, left_side=False, lower=True, unit_diagonal=True) @ jnp.swapaxes(p, -1, -2)
    return jnp.conj(jnp.swapaxes(_lu_solve(lu, pivots, jnp.conj(jnp.swapaxes(b, -1, -2)), True, False), -1, -2))


LU_SOLVE = Op("linalg_lu_solve", _lu_solve, promote="none", unlisted=frozenset({1}))


def _cholesky_solve(b, factor, upper):
    solve = lax.linalg.triangular_solve
    if upper:
        y = solve(factor, b, left_side=True, lower=False, transpose_a=True, conjugate_a=True)
        return solve(factor, y, left_side=True, lower=False)
    y = solve(factor, b, left_side=True, lower=True)
    return solve(factor, y, left_side=True, lower=True, transpose_a=True, conjugate_a=True)


CHOLESKY_SOLVE = Op("cholesky_solve", _cholesky_solve)


def _cholesky_inverse(factor, upper):
    eye = jnp.broadcast_to(jnp.eye(factor.shape[-1], dtype=factor.dtype), factor.shape)
    return _cholesky_solve(eye, factor, upper)


CHOLESKY_INVERSE = Op("cholesky_inverse", _cholesky_inverse, promote="none")
IGAMMA = Op("igamma", lambda a, x: jax.scipy.special.gammainc(a, x), promote="float")
IGAMMAC = Op("igammac", lambda a, x: jax.scipy.special.gammaincc(a, x), promote="float")
