"""Further tensor and nn ops as pure JAX functions: diagonals, trace, rot90, block_diag, kron, cdist, cross,
mode, histc, isin, searchsorted; and for nn: interpolation, group norm, pixel shuffle, im2col/col2im,
adaptive max pooling, multi-margin and soft-margin losses, transposed convolution, a norm over one dim.

Like the other families, each op is a function of arrays plus static arguments; derivatives are jax.vjp.
Op names (or grad_name) give PyTorch's grad_fn.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

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
    positive = total > 0
    safe = jnp.where(positive, total, 1)
    return jnp.where(positive, safe ** (1.0 / p), 0)


def _cdist(x1, x2, p):
    diff = x1[..., :, None, :] - x2[..., None, :, :]
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
    positive = a > 0
    powered = jnp.where(positive, jnp.where(positive, a, 1) ** p, 0)
    return _safe_root(jnp.sum(powered, axis=axis), p)


CDIST = Op("cdist", _cdist)


def _cross(a, b, dim):
    a, b = jnp.broadcast_arrays(a, b)
    return jnp.moveaxis(jnp.cross(jnp.moveaxis(a, dim, -1), jnp.moveaxis(b, dim, -1)), -1, dim)


CROSS = Op("linalg_cross", _cross)


# ----- statistics and searches ---------------------------------------------------------------------

def _mode(x, dim, keepdim):
    moved = jnp.moveaxis(x, dim, -1)
    ordered = jnp.sort(moved, axis=-1)
    counts = jnp.sum(ordered[..., :, None] == ordered[..., None, :], axis=-1)
    best = jnp.argmax(counts, axis=-1)  # the first (smallest) of the most frequent values
    value = jnp.take_along_axis(ordered, best[..., None], axis=-1)
    positions = jnp.arange(moved.shape[-1])
    index = jnp.max(jnp.where(moved == value, positions, -1), axis=-1)
    value = value[..., 0]
    if keepdim:
        value, index = jnp.expand_dims(value, dim), jnp.expand_dims(index, dim)
    return value, lax.stop_gradient(index).astype(jnp.int64)


MODE = Op("mode", _mode, promote="none", saves=SAVES_INPUTS_AND_INDICES)


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


def _searchsorted(boundaries, values, right, out_int32):
    side = "right" if right else "left"
    dtype = jnp.int32 if out_int32 else jnp.int64
    if boundaries.ndim <= 1:
        found = jnp.searchsorted(boundaries.reshape(-1), values, side=side)
    else:
        lead = boundaries.shape[:-1]
        b = boundaries.reshape((-1, boundaries.shape[-1]))
        v = values.reshape((b.shape[0], -1))
        found = jax.vmap(lambda bb, vv: jnp.searchsorted(bb, vv, side=side))(b, v).reshape(lead + values.shape[-1:])
    return lax.stop_gradient(found).astype(dtype)


SEARCHSORTED = Op("searchsorted", _searchsorted, saves=SAVES_NOTHING)


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
        return jnp.mean(per)
    if reduction == "sum":
        return jnp.sum(per)
    return per[0] if unbatched else per


MULTI_MARGIN_LOSS = Op("multi_margin_loss", _multi_margin, promote="none")

def _soft_margin(x, target, reduction):
    loss = jnp.log1p(jnp.exp(-target * x))
    if reduction == "mean":
        return jnp.mean(loss)
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
