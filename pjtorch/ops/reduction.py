"""Reductions, scans and normalisations as pure JAX functions.

`dim` arrives normalised: None (all dims) or a tuple of non-negative ints. PyTorch names the
grad_fn differently for full and per-dim reductions (SumBackward0 / SumBackward1), so those
are separate Ops over one function.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from .pointwise import absolute, astype, refusing
from .registry import (Op, SAVES_INDICES, SAVES_INPUTS_AND_INDICES, SAVES_INPUTS_AND_RESULT, SAVES_NOTHING,
                       SAVES_RESULT)


def _integral(dtype) -> bool:
    return jnp.issubdtype(dtype, jnp.integer) or dtype == jnp.bool_


def _accumulate_dtype(x, dtype):
    """PyTorch sums and multiplies integers and bools in int64 unless told otherwise."""
    if dtype is not None:
        return astype(x, dtype)
    return x.astype(jnp.int64) if _integral(x.dtype) else x


def _sum(x, dim=None, keepdim=False, dtype=None):
    x = _accumulate_dtype(x, dtype)
    return jnp.sum(x, axis=dim, keepdims=keepdim, dtype=x.dtype)


def _prod(x, dim=None, keepdim=False, dtype=None):
    x = _accumulate_dtype(x, dtype)
    return jnp.prod(x, axis=dim, keepdims=keepdim, dtype=x.dtype)


def vector_if_scalar(fn):
    """PyTorch treats a 0-dim input as one element along dim 0 (or -1); the results are 0-dim again."""
    def run(x, *rest, dim, **static):
        if x.ndim:
            return fn(x, *rest, dim=dim, **static)
        out = fn(x.reshape(1), *rest, dim=0, **static)
        return tuple(r.reshape(()) for r in out) if isinstance(out, tuple) else out.reshape(())

    return run


def _declare(name: str, fn, *, accepts: str | None = None, refusals: dict | None = None, kernel=None,
             **options) -> Op:
    """An Op refusing, while tracing, the dtype kinds PyTorch has no kernel for (see pointwise.refusing)."""
    return Op(name, refusing(fn, name, accepts, refusals, kernel) if accepts else fn, **options)


def _softmax_kernel(name: str):
    """PyTorch's CPU softmax kernels: one for the last dim, one for any other."""
    return lambda array, dim: f"{name}_lastdim_kernel_impl" if dim >= array.ndim - 1 else f"{name}_kernel_impl"


def _mean(x, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = astype(x, dtype)
    return mean(x, dim, keepdim)


def mean(x, axis=None, keepdims=False):
    """sum / count with a true division, as PyTorch divides: XLA turns a division by a constant into a product with
    its reciprocal, which rounds differently (0.30000001 where PyTorch's mean gives 0.29999998)."""
    low_precision = x.dtype in (jnp.float16, jnp.bfloat16)
    total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=jnp.float32 if low_precision else None)
    dims = range(x.ndim) if axis is None else (axis,) if isinstance(axis, int) else axis
    count = jax.lax.optimization_barrier(jnp.asarray(math.prod(x.shape[d] for d in dims), total.dtype))
    return (total / count).astype(x.dtype) if low_precision else total / count


def _nansum(x, dim=None, keepdim=False, dtype=None):
    """NaNs drop out before any cast to `dtype`, where an integer one would turn them into its minimum."""
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.where(jnp.isnan(x), jnp.zeros((), x.dtype), x)
    x = _accumulate_dtype(x, dtype)
    return jnp.nansum(x, axis=dim, keepdims=keepdim, dtype=x.dtype)


def _nanmean(x, dim=None, keepdim=False, dtype=None):
    return jnp.nanmean(x if dtype is None else astype(x, dtype), axis=dim, keepdims=keepdim)


def _amax(x, dim=None, keepdim=False):
    return jnp.max(x, axis=dim, keepdims=keepdim)


def _amin(x, dim=None, keepdim=False):
    return jnp.min(x, axis=dim, keepdims=keepdim)


def _at_index(x, index, dim, keepdim):
    """The values of `x` at `index` along `dim` (a kept dim): the gradient goes to that one element, as PyTorch's
    max/min(dim) send it to the index they report, where jax.vjp of max would split it among ties."""
    values = jnp.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = jnp.squeeze(values, dim), jnp.squeeze(index, dim)
    return values, index.astype(jnp.int64)


def _max_with_indices(x, dim, keepdim=False):
    return _at_index(x, jnp.argmax(x, axis=dim, keepdims=True), dim, keepdim)


def _min_with_indices(x, dim, keepdim=False):
    return _at_index(x, jnp.argmin(x, axis=dim, keepdims=True), dim, keepdim)


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
    """PyTorch divides by N - correction clamped at 0: once that reaches 0, inf for real x (NaN where nothing
    spreads), NaN for complex x."""
    if dof(x.shape, dim, correction) > 0:
        return jnp.var(x, axis=dim, ddof=correction, keepdims=keepdim)
    spread = jnp.var(x, axis=dim, keepdims=keepdim)
    return spread * jnp.nan if jnp.iscomplexobj(x) else spread / 0.0


def dof(shape: tuple, dim, correction) -> float:
    """The degrees of freedom of var over `dim` of a `shape`."""
    return (math.prod(shape[d] for d in dim) if dim is not None else math.prod(shape)) - correction


def _std(x, dim=None, correction=1, keepdim=False):
    """sqrt of the variance, with PyTorch's zero gradient where the std is 0 (a plain root's is infinite there);
    half precision takes the root of the float32 variance and rounds once, as PyTorch does."""
    if x.dtype in (jnp.float16, jnp.bfloat16):
        return _std(x.astype(jnp.float32), dim, correction, keepdim).astype(x.dtype)
    return _root_or_zero(_var(x, dim, correction, keepdim), 0.5)


def _var_mean(x, dim=None, correction=1, keepdim=False):
    return _var(x, dim, correction, keepdim), jnp.mean(x, axis=dim, keepdims=keepdim)


def _std_mean(x, dim=None, correction=1, keepdim=False):
    return _std(x, dim, correction, keepdim), jnp.mean(x, axis=dim, keepdims=keepdim)


def _norm(x, p=2, dim=None, keepdim=False):
    """The vector p-norm over `dim` (all elements when None), PyTorch's `norm`/`vector_norm`."""
    magnitude = absolute(x) if not jnp.iscomplexobj(x) else jnp.abs(x)
    if p == float("inf"):
        return jnp.max(magnitude, axis=dim, keepdims=keepdim)
    if p == float("-inf"):
        return jnp.min(magnitude, axis=dim, keepdims=keepdim)
    if p == 0:
        return jnp.sum((magnitude != 0).astype(magnitude.dtype), axis=dim, keepdims=keepdim)
    if p == 1:
        return jnp.sum(magnitude, axis=dim, keepdims=keepdim)
    if p == 2:  # x * x for real x: |x|^2 would lose the second derivative at 0 to abs's subgradient there
        squares = magnitude * magnitude if jnp.iscomplexobj(x) else x * x
        return _root_or_zero(jnp.sum(squares, axis=dim, keepdims=keepdim), 0.5)
    return _root_or_zero(jnp.sum(_root_or_zero(magnitude, p), axis=dim, keepdims=keepdim), 1.0 / p)


def _root_or_zero(total, exponent):
    """total ** exponent, with PyTorch's zero gradient where total is 0 (a plain root's is infinite there)."""
    zero = total == 0
    return jnp.where(zero, jnp.zeros((), total.dtype), jnp.where(zero, jnp.ones((), total.dtype), total) ** exponent)


def _all(x, dim=None, keepdim=False):
    """Bool, except for uint8 input, where PyTorch answers in uint8. Elements are tested against zero (JAX would
    test only the real part of a complex one)."""
    return jnp.all(x != 0, axis=dim, keepdims=keepdim).astype(jnp.uint8 if x.dtype == jnp.uint8 else jnp.bool_)


def _any(x, dim=None, keepdim=False):
    return jnp.any(x != 0, axis=dim, keepdims=keepdim).astype(jnp.uint8 if x.dtype == jnp.uint8 else jnp.bool_)


def _logsumexp(x, dim, keepdim=False):
    return jax.scipy.special.logsumexp(x, axis=dim, keepdims=keepdim)


_HALF = (jnp.float16, jnp.bfloat16)


def _running(scan):
    """A running sum or product; PyTorch's CPU kernels carry a half-precision one in float32, rounding each
    output."""
    def run(x, dim, dtype=None):
        x = _accumulate_dtype(x, dtype)
        if x.dtype in _HALF:
            return scan(x.astype(jnp.float32), axis=dim, dtype=jnp.float32).astype(x.dtype)
        return scan(x, axis=dim, dtype=x.dtype)

    return run


_cumsum, _cumprod = _running(jnp.cumsum), _running(jnp.cumprod)


def _scan(fn, name: str):
    """cumsum/cumprod over a 0-dim input as a vector; PyTorch's kernels refuse to accumulate in bool, though a
    0-dim or empty input runs none."""
    def run(x, dim, dtype=None):
        if dtype is not None and np.dtype(dtype) == np.bool_ and x.ndim and x.size:
            raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
        return vector_if_scalar(fn)(x, dim=dim, dtype=dtype)

    return run


def _running_extreme(scan):
    """cummax/cummin: the running extreme (bools scanned as uint8, which XLA can) and where it was last seen."""
    def run(x, dim):
        if x.dtype == jnp.bool_:
            values = scan(x.astype(jnp.uint8), axis=dim).astype(x.dtype)
            return values, _running_index(x, values, dim)
        index = _running_index(x, scan(jax.lax.stop_gradient(x), axis=dim), dim)
        return jnp.take_along_axis(x, index, axis=dim), index  # the gradient goes to the index, as PyTorch's

    return run


def _running_index(x, values, dim):
    """Index of the last element equal to the running extreme, as PyTorch's cummax reports."""
    positions = jnp.arange(x.shape[dim]).reshape([-1 if d == dim else 1 for d in range(x.ndim)])
    hits = jnp.where((x == values) | (jnp.isnan(x) if jnp.issubdtype(x.dtype, jnp.inexact) else False), positions, -1)
    return jax.lax.cummax(hits, axis=dim).astype(jnp.int64)


def _logcumsumexp(x, dim):
    return jax.lax.cumlogsumexp(x, axis=dim)


def _in_float32(fn):
    """PyTorch's CPU kernels compute a half-precision softmax in float32, rounding once at the end."""
    def run(x, dim):
        if x.dtype in _HALF:
            return fn(x.astype(jnp.float32), axis=dim).astype(x.dtype)
        return fn(x, axis=dim)

    return run


_softmax = _in_float32(jax.nn.softmax)
_log_softmax = _in_float32(jax.nn.log_softmax)


def _count_nonzero(x, dim=None):
    return jnp.count_nonzero(x, axis=dim).astype(jnp.int64)


def nan_as(dtype) -> np.ndarray:
    """PyTorch's result for the median of nothing: a NaN, converted (as a C cast does) to `dtype`."""
    with np.errstate(invalid="ignore"):
        return np.array(np.nan).astype(dtype)


def _median_all(x):
    flat = x.reshape(-1)
    if not flat.size:
        return jnp.asarray(nan_as(flat.dtype))
    if jnp.issubdtype(flat.dtype, jnp.floating):
        return _median_spread(flat)
    return _lower_median(flat)


def _lower_median(flat):
    """The lower middle element; NaN where there is one, as PyTorch's median propagates NaN."""
    middle = jnp.sort(flat)[(flat.shape[0] - 1) // 2]
    return jnp.where(jnp.isnan(flat).any(), jnp.nan, middle) if jnp.issubdtype(flat.dtype, jnp.inexact) else middle


@jax.custom_jvp
def _median_spread(flat):
    return _lower_median(flat)


@_median_spread.defjvp
def _median_spread_jvp(primals, tangents):
    """PyTorch spreads the gradient of a whole-tensor median evenly over the elements equal to it."""
    (flat,), (tangent,) = primals, tangents
    median = _lower_median(flat)
    ties = (flat == median) | (jnp.isnan(flat) & jnp.isnan(median))
    return median, jnp.sum(jnp.where(ties, tangent, 0)) / jnp.maximum(jnp.sum(ties), 1).astype(flat.dtype)


def _median_dim(x, dim, keepdim=False):
    """The lower middle element along `dim` and its index; where a NaN is found, the first NaN, as PyTorch's."""
    order = jnp.argsort(x, axis=dim, stable=True)
    middle = (x.shape[dim] - 1) // 2
    index = jnp.take(order, jnp.array([middle]), axis=dim)
    if jnp.issubdtype(x.dtype, jnp.inexact) and x.shape[dim]:
        nans = jnp.isnan(x)
        index = jnp.where(nans.any(axis=dim, keepdims=True), jnp.argmax(nans, axis=dim, keepdims=True), index)
    values = jnp.take_along_axis(x, index, axis=dim)
    if not keepdim:
        values, index = jnp.squeeze(values, dim), jnp.squeeze(index, dim)
    return values, index.astype(jnp.int64)


def _aminmax(x, dim=None, keepdim=False):
    return jnp.min(x, axis=dim, keepdims=keepdim), jnp.max(x, axis=dim, keepdims=keepdim)


# PyTorch's own wording where a dtype is refused.
_NO_COMPLEX = {"c": (RuntimeError, "{name}(): does not support complex input")}
_ARG_REFUSALS = {"b": (RuntimeError, "{name}(): does not support bool input"), **_NO_COMPLEX}


SUM = Op("sum", _sum, grad_name="SumBackward0", saves=SAVES_NOTHING, promote="none")
SUM_DIM = Op("sum", _sum, grad_name="SumBackward1", saves=SAVES_NOTHING, promote="none")
NANSUM = Op("nansum", _nansum, promote="none")
PROD = Op("prod", _prod, grad_name="ProdBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
PROD_DIM = Op("prod", _prod, grad_name="ProdBackward1", promote="none", saves=SAVES_INPUTS_AND_RESULT)
MEAN = Op("mean", _mean, grad_name="MeanBackward0", saves=SAVES_NOTHING, promote="none")
MEAN_DIM = Op("mean", _mean, grad_name="MeanBackward1", saves=SAVES_NOTHING, promote="none")
NANMEAN = Op("nanmean", _nanmean, grad_name="DivBackward0", promote="none")
AMAX = _declare("amax", _amax, promote="none", saves=SAVES_INPUTS_AND_RESULT, accepts="bif", kernel="max_values_cpu")
AMIN = _declare("amin", _amin, promote="none", saves=SAVES_INPUTS_AND_RESULT, accepts="bif", kernel="min_values_cpu")
MAX_ALL = _declare("max", _amax, grad_name="MaxBackward1", promote="none", saves=SAVES_INPUTS_AND_RESULT, kernel="max_all",
                   accepts="bif")
MIN_ALL = _declare("min", _amin, grad_name="MinBackward1", promote="none", saves=SAVES_INPUTS_AND_RESULT, kernel="min_all",
                   accepts="bif")
MAX_DIM = _declare("max", vector_if_scalar(_max_with_indices), grad_name="MaxBackward0", promote="none",
                   saves=SAVES_INDICES, accepts="bif", refusals=_NO_COMPLEX)
MIN_DIM = _declare("min", vector_if_scalar(_min_with_indices), grad_name="MinBackward0", promote="none",
                   saves=SAVES_INDICES, accepts="bif", refusals=_NO_COMPLEX)
ARGMAX = _declare("argmax", _argmax, promote="none", accepts="if", refusals=_ARG_REFUSALS)
ARGMIN = _declare("argmin", _argmin, promote="none", accepts="if", refusals=_ARG_REFUSALS)
VAR = Op("var", _var, grad_name="VarBackward0", promote="none")
STD = Op("std", _std, grad_name="StdBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
VAR_MEAN = Op("var_mean", _var_mean, grad_name="VarMeanBackward0", promote="none")
STD_MEAN = Op("std_mean", _std_mean, grad_name="StdMeanBackward0", promote="none")
NORM = Op("norm", _norm, grad_name="LinalgVectorNormBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
ALL = Op("all", _all, promote="none")
ANY = Op("any", _any, promote="none")
LOGSUMEXP = Op("logsumexp", _logsumexp, promote="float", saves=SAVES_INPUTS_AND_RESULT)
CUMSUM = Op("cumsum", _scan(_cumsum, "cumsum"), saves=SAVES_NOTHING, promote="none")
CUMPROD = Op("cumprod", _scan(_cumprod, "cumprod"), promote="none", saves=SAVES_INPUTS_AND_RESULT)
CUMMAX = _declare("cummax", vector_if_scalar(_running_extreme(jax.lax.cummax)), promote="none",
                  saves=SAVES_INPUTS_AND_INDICES, accepts="bif", kernel="cummax_cpu")
CUMMIN = _declare("cummin", vector_if_scalar(_running_extreme(jax.lax.cummin)), promote="none",
                  saves=SAVES_INPUTS_AND_INDICES, accepts="bif", kernel="cummin_cpu")
LOGCUMSUMEXP = _declare("logcumsumexp", vector_if_scalar(_logcumsumexp), promote="none",
                        saves=SAVES_INPUTS_AND_RESULT, accepts="fc", kernel="logcumsumexp_out_cpu")
SOFTMAX = _declare("softmax", vector_if_scalar(_softmax), grad_name="SoftmaxBackward0", promote="none",
                   saves=SAVES_RESULT, accepts="f", kernel=_softmax_kernel("softmax"))
LOG_SOFTMAX = _declare("log_softmax", vector_if_scalar(_log_softmax), grad_name="LogSoftmaxBackward0",
                       promote="none", saves=SAVES_RESULT, accepts="f", kernel=_softmax_kernel("log_softmax"))
COUNT_NONZERO = Op("count_nonzero", _count_nonzero, promote="none")
MEDIAN_ALL = _declare("median", _median_all, grad_name="MedianBackward0", promote="none", kernel="median_cpu",
                      saves=SAVES_INPUTS_AND_RESULT, accepts="if")
MEDIAN_DIM = _declare("median", vector_if_scalar(_median_dim), grad_name="MedianBackward1", promote="none", kernel="median_out",
                      saves=SAVES_INDICES, accepts="if")
AMINMAX = _declare("aminmax", _aminmax, promote="none", saves=SAVES_INPUTS_AND_RESULT, accepts="bif",
                   kernel="aminmax_cpu")
