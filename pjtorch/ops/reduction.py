"""Reductions, scans and normalisations as pure JAX functions.

`dim` arrives normalised: None (all dims) or a tuple of non-negative ints. PyTorch names the
grad_fn differently for full and per-dim reductions (SumBackward0 / SumBackward1), so those
are separate Ops over one function.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .registry import Op, SAVES_NOTHING, SAVES_RESULT


def _integral(dtype) -> bool:
    return jnp.issubdtype(dtype, jnp.integer) or dtype == jnp.bool_


def _accumulate_dtype(x, dtype):
    """PyTorch sums and multiplies integers and bools in int64 unless told otherwise."""
    if dtype is not None:
        return x.astype(dtype)
    return x.astype(jnp.int64) if _integral(x.dtype) else x


def _sum(x, dim=None, keepdim=False, dtype=None):
    return jnp.sum(_accumulate_dtype(x, dtype), axis=dim, keepdims=keepdim)


def _prod(x, dim=None, keepdim=False, dtype=None):
    return jnp.prod(_accumulate_dtype(x, dtype), axis=dim, keepdims=keepdim)


def _mean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = x.astype(dtype)
    return jnp.mean(x, axis=dim, keepdims=keepdim)


def _nansum(x, dim=None, keepdim=False, dtype=None):
    return jnp.nansum(_accumulate_dtype(x, dtype), axis=dim, keepdims=keepdim)


def _nanmean(x, dim=None, keepdim=False, dtype=None):
    return jnp.nanmean(x if dtype is None else x.astype(dtype), axis=dim, keepdims=keepdim)


def _amax(x, dim=None, keepdim=False):
    return jnp.max(x, axis=dim, keepdims=keepdim)


def _amin(x, dim=None, keepdim=False):
    return jnp.min(x, axis=dim, keepdims=keepdim)


def _max_with_indices(x, dim, keepdim=False):
    return jnp.max(x, axis=dim, keepdims=keepdim), jnp.argmax(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


def _min_with_indices(x, dim, keepdim=False):
    return jnp.min(x, axis=dim, keepdims=keepdim), jnp.argmin(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


def _argmax(x, dim=None, keepdim=False):
    if dim is None:
        found = jnp.argmax(x.reshape(-1))
        return (found.reshape((1,) * x.ndim) if keepdim else found).astype(jnp.int64)
    return jnp.argmax(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


def _argmin(x, dim=None, keepdim=False):
    if dim is None:
        found = jnp.argmin(x.reshape(-1))
        return (found.reshape((1,) * x.ndim) if keepdim else found).astype(jnp.int64)
    return jnp.argmin(x, axis=dim, keepdims=keepdim).astype(jnp.int64)


def _var(x, dim=None, correction=1, keepdim=False):
    return jnp.var(x, axis=dim, ddof=correction, keepdims=keepdim)


def _std(x, dim=None, correction=1, keepdim=False):
    return jnp.std(x, axis=dim, ddof=correction, keepdims=keepdim)


def _var_mean(x, dim=None, correction=1, keepdim=False):
    return _var(x, dim, correction, keepdim), jnp.mean(x, axis=dim, keepdims=keepdim)


def _std_mean(x, dim=None, correction=1, keepdim=False):
    return _std(x, dim, correction, keepdim), jnp.mean(x, axis=dim, keepdims=keepdim)


def _norm(x, p=2, dim=None, keepdim=False):
    """The vector p-norm over `dim` (all elements when None), PyTorch's `norm`/`vector_norm`."""
    magnitude = jnp.abs(x)
    if p == float("inf"):
        return jnp.max(magnitude, axis=dim, keepdims=keepdim)
    if p == float("-inf"):
        return jnp.min(magnitude, axis=dim, keepdims=keepdim)
    if p == 0:
        return jnp.sum((magnitude != 0).astype(magnitude.dtype), axis=dim, keepdims=keepdim)
    if p == 1:
        return jnp.sum(magnitude, axis=dim, keepdims=keepdim)
    if p == 2:
        return jnp.sqrt(jnp.sum(magnitude * magnitude, axis=dim, keepdims=keepdim))
    return jnp.sum(magnitude ** p, axis=dim, keepdims=keepdim) ** (1.0 / p)


def _all(x, dim=None, keepdim=False):
    return jnp.all(x, axis=dim, keepdims=keepdim)


def _any(x, dim=None, keepdim=False):
    return jnp.any(x, axis=dim, keepdims=keepdim)


def _logsumexp(x, dim, keepdim=False):
    return jax.scipy.special.logsumexp(x, axis=dim, keepdims=keepdim)


def _cumsum(x, dim, dtype=None):
    return jnp.cumsum(_accumulate_dtype(x, dtype), axis=dim)


def _cumprod(x, dim, dtype=None):
    return jnp.cumprod(_accumulate_dtype(x, dtype), axis=dim)


def _cummax(x, dim):
    values = jax.lax.cummax(x, axis=dim)
    return values, _running_index(x, values, dim)


def _cummin(x, dim):
    values = jax.lax.cummin(x, axis=dim)
    return values, _running_index(x, values, dim)


def _running_index(x, values, dim):
    """Index of the last element equal to the running extreme, as PyTorch's cummax reports."""
    positions = jnp.arange(x.shape[dim]).reshape([-1 if d == dim else 1 for d in range(x.ndim)])
    hits = jnp.where(x == values, positions, -1)
    return jax.lax.cummax(hits, axis=dim).astype(jnp.int64)


def _logcumsumexp(x, dim):
    return jax.lax.cumlogsumexp(x, axis=dim)


def _softmax(x, dim, dtype=None):
    return jax.nn.softmax(x if dtype is None else x.astype(dtype), axis=dim)


def _log_softmax(x, dim, dtype=None):
    return jax.nn.log_softmax(x if dtype is None else x.astype(dtype), axis=dim)


def _count_nonzero(x, dim=None):
    return jnp.count_nonzero(x, axis=dim).astype(jnp.int64)


def _median_all(x):
    flat = jnp.sort(x.reshape(-1))
    return flat[(flat.shape[0] - 1) // 2]


def _median_dim(x, dim, keepdim=False):
    order = jnp.argsort(x, axis=dim, stable=True)
    middle = (x.shape[dim] - 1) // 2
    index = jnp.take(order, jnp.array([middle]), axis=dim)
    values = jnp.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = jnp.squeeze(values, dim), jnp.squeeze(index, dim)
    return values, index.astype(jnp.int64)


def _aminmax(x, dim=None, keepdim=False):
    return jnp.min(x, axis=dim, keepdims=keepdim), jnp.max(x, axis=dim, keepdims=keepdim)


SUM = Op("sum", _sum, grad_name="SumBackward0", saves=SAVES_NOTHING, promote="none")
SUM_DIM = Op("sum", _sum, grad_name="SumBackward1", saves=SAVES_NOTHING, promote="none")
NANSUM = Op("nansum", _nansum, promote="none")
PROD = Op("prod", _prod, grad_name="ProdBackward0", promote="none")
PROD_DIM = Op("prod", _prod, grad_name="ProdBackward1", promote="none")
MEAN = Op("mean", _mean, grad_name="MeanBackward0", saves=SAVES_NOTHING, promote="none")
MEAN_DIM = Op("mean", _mean, grad_name="MeanBackward1", saves=SAVES_NOTHING, promote="none")
NANMEAN = Op("nanmean", _nanmean, grad_name="DivBackward0", promote="none")
AMAX = Op("amax", _amax, promote="none", saves=SAVES_RESULT)
AMIN = Op("amin", _amin, promote="none", saves=SAVES_RESULT)
MAX_ALL = Op("max", _amax, grad_name="MaxBackward1", promote="none", saves=SAVES_RESULT)
MIN_ALL = Op("min", _amin, grad_name="MinBackward1", promote="none", saves=SAVES_RESULT)
MAX_DIM = Op("max", _max_with_indices, grad_name="MaxBackward0", promote="none", saves=SAVES_NOTHING)
MIN_DIM = Op("min", _min_with_indices, grad_name="MinBackward0", promote="none", saves=SAVES_NOTHING)
ARGMAX = Op("argmax", _argmax, promote="none")
ARGMIN = Op("argmin", _argmin, promote="none")
VAR = Op("var", _var, grad_name="VarBackward0", promote="none")
STD = Op("std", _std, grad_name="StdBackward0", promote="none", saves=SAVES_RESULT)
VAR_MEAN = Op("var_mean", _var_mean, grad_name="VarMeanBackward0", promote="none")
STD_MEAN = Op("std_mean", _std_mean, grad_name="StdMeanBackward0", promote="none")
NORM = Op("norm", _norm, grad_name="LinalgVectorNormBackward0", promote="none", saves=SAVES_RESULT)
ALL = Op("all", _all, promote="none")
ANY = Op("any", _any, promote="none")
LOGSUMEXP = Op("logsumexp", _logsumexp, promote="float", saves=SAVES_RESULT)
CUMSUM = Op("cumsum", _cumsum, saves=SAVES_NOTHING, promote="none")
CUMPROD = Op("cumprod", _cumprod, promote="none", saves=SAVES_RESULT)
CUMMAX = Op("cummax", _cummax, promote="none")
CUMMIN = Op("cummin", _cummin, promote="none")
LOGCUMSUMEXP = Op("logcumsumexp", _logcumsumexp, promote="float")
SOFTMAX = Op("softmax", _softmax, grad_name="SoftmaxBackward0", promote="float", saves=SAVES_RESULT)
LOG_SOFTMAX = Op("log_softmax", _log_softmax, grad_name="LogSoftmaxBackward0", promote="float",
                 saves=SAVES_RESULT)
COUNT_NONZERO = Op("count_nonzero", _count_nonzero, promote="none")
MEDIAN_ALL = Op("median", _median_all, grad_name="MedianBackward0", promote="none")
MEDIAN_DIM = Op("median", _median_dim, grad_name="MedianBackward1", promote="none")
AMINMAX = Op("aminmax", _aminmax, promote="none")
