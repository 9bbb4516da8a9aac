"""Elementwise ops as pure JAX functions, declared in tables.

Each entry is the JAX function and, where PyTorch differs from the defaults, the grad_fn name,
what PyTorch saves for backward, and the promotion rule ('float' makes integer inputs the
default float dtype, as PyTorch's sqrt or true division do).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax
from jax.scipy import special

from .registry import Op, SAVES_NOTHING, SAVES_RESULT


def _via_float64(fn):
    """Evaluates float32 in float64 and rounds: XLA's float32 exp/log/tanh/expm1 differ from PyTorch's in
    ~10-50% of values by an ulp, enough to change printed digits; rounding from float64 agrees ~99%."""
    def run(x):
        if x.dtype == jnp.float32:
            return fn(x.astype(jnp.float64)).astype(jnp.float32)
        return fn(x)
    return run


def _relu(x):
    return jnp.maximum(x, jnp.zeros((), x.dtype))


def _sign(x):
    return jnp.sign(x) if x.dtype != jnp.bool_ else x


def _round(x, decimals=0):
    if jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_:
        return x
    if decimals == 0:
        return jnp.round(x)
    scale = jnp.asarray(10.0 ** decimals, x.dtype)
    return jnp.round(x * scale) / scale


def _keep_integral(fn):
    """floor/ceil/trunc leave integer tensors unchanged, as PyTorch does."""
    def run(x):
        if jnp.issubdtype(x.dtype, jnp.integer) or x.dtype == jnp.bool_:
            return x
        return fn(x)
    return run


def _frac(x):
    return x - jnp.trunc(x)


def _logit(x, eps=None):
    if eps is not None:
        x = jnp.clip(x, eps, 1 - eps)
    return jnp.log(x / (1 - x))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _sgn(x):
    if jnp.iscomplexobj(x):
        magnitude = jnp.abs(x)
        return jnp.where(magnitude == 0, 0, x / jnp.where(magnitude == 0, 1, magnitude))
    return _sign(x)


def _square(x):
    return x * x


def _gelu(x, approximate="none"):
    return jax.nn.gelu(x, approximate=approximate == "tanh")


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    return jnp.clip(x, min_val, max_val)


def _leaky_relu(x, negative_slope=0.01):
    return jnp.where(x > 0, x, x * negative_slope)


def _elu(x, alpha=1.0):
    return jnp.where(x > 0, x, alpha * jnp.expm1(x))


def _softplus(x, beta=1.0, threshold=20.0):
    scaled = x * beta
    return jnp.where(scaled > threshold, x, jnp.log1p(jnp.exp(scaled)) / beta)


def _silu(x):
    return x * jax.nn.sigmoid(x)


def _mish(x):
    return x * jnp.tanh(jax.nn.softplus(x))


def _hardsigmoid(x):
    return jnp.clip(x / 6 + 0.5, 0, 1)


def _hardswish(x):
    return x * _hardsigmoid(x)


def _bitwise_not(x):
    return jnp.logical_not(x) if x.dtype == jnp.bool_ else jnp.bitwise_not(x)


# name: (fn, extra Op options). Float-valued math promotes integers to the default float dtype.
_FLOAT_UNARY = {
    "sqrt": (jnp.sqrt, {"saves": SAVES_RESULT}),
    "rsqrt": (lax.rsqrt, {"saves": SAVES_RESULT}),
    "exp": (_via_float64(jnp.exp), {"saves": SAVES_RESULT}),
    "exp2": (jnp.exp2, {"saves": SAVES_RESULT}),
    "expm1": (_via_float64(jnp.expm1), {"saves": SAVES_RESULT}),
    "log": (_via_float64(jnp.log), {}),
    "log2": (jnp.log2, {}),
    "log10": (jnp.log10, {}),
    "log1p": (jnp.log1p, {}),
    "sin": (jnp.sin, {}),
    "cos": (jnp.cos, {}),
    "tan": (jnp.tan, {"saves": SAVES_RESULT}),
    "asin": (jnp.arcsin, {}),
    "acos": (jnp.arccos, {}),
    "atan": (jnp.arctan, {}),
    "sinh": (jnp.sinh, {}),
    "cosh": (jnp.cosh, {}),
    "tanh": (_via_float64(jnp.tanh), {"saves": SAVES_RESULT}),
    "asinh": (jnp.arcsinh, {}),
    "acosh": (jnp.arccosh, {}),
    "atanh": (jnp.arctanh, {}),
    "sigmoid": (jax.nn.sigmoid, {"saves": SAVES_RESULT}),
    "erf": (special.erf, {}),
    "erfc": (special.erfc, {}),
    "erfinv": (special.erfinv, {}),
    "lgamma": (special.gammaln, {}),
    "digamma": (special.digamma, {}),
    "reciprocal": (jnp.reciprocal, {"saves": SAVES_RESULT}),
    "sinc": (jnp.sinc, {}),
    "logit": (_logit, {}),
    "i0": (special.i0, {}),
    "angle": (jnp.angle, {}),
}

# Ops that keep their input's dtype.
_SAME_UNARY = {
    "neg": (jnp.negative, {"saves": SAVES_NOTHING}),
    "positive": (lambda x: x, {"saves": SAVES_NOTHING}),
    "abs": (jnp.abs, {}),
    "sign": (_sign, {}),
    "sgn": (_sgn, {}),
    "floor": (_keep_integral(jnp.floor), {"saves": SAVES_NOTHING}),
    "ceil": (_keep_integral(jnp.ceil), {"saves": SAVES_NOTHING}),
    "trunc": (_keep_integral(jnp.trunc), {"saves": SAVES_NOTHING}),
    "frac": (_frac, {"saves": SAVES_NOTHING}),
    "round": (_round, {"saves": SAVES_NOTHING}),
    "relu": (_relu, {"saves": SAVES_RESULT}),
    "square": (_square, {"grad_name": "PowBackward0"}),
    "conj": (jnp.conj, {"saves": SAVES_NOTHING}),
    "conj_physical": (jnp.conj, {"saves": SAVES_NOTHING}),
    "nan_to_num": (_nan_to_num, {}),
    "bitwise_not": (_bitwise_not, {}),
    "gelu": (_gelu, {}),
    "silu": (_silu, {}),
    "mish": (_mish, {}),
    "hardtanh": (_hardtanh, {}),
    "relu6": (lambda x: jnp.clip(x, 0, 6), {"grad_name": "HardtanhBackward0"}),
    "leaky_relu": (_leaky_relu, {}),
    "elu": (_elu, {}),
    "softplus": (_softplus, {}),
    "hardsigmoid": (_hardsigmoid, {}),
    "hardswish": (_hardswish, {}),
    "logsigmoid": (jax.nn.log_sigmoid, {"grad_name": "LogSigmoidBackward0"}),
}

# Predicates: results are bool, never differentiable.
_PREDICATES = {
    "isnan": jnp.isnan,
    "isinf": jnp.isinf,
    "isposinf": jnp.isposinf,
    "isneginf": jnp.isneginf,
    "isfinite": jnp.isfinite,
    "signbit": jnp.signbit,
    "logical_not": jnp.logical_not,
    "isreal": jnp.isreal,
}


def _true_divide(a, b):
    return a / b


def _div(a, b, rounding_mode=None):
    if rounding_mode is None:
        return a / b
    if rounding_mode == "floor":
        return _floor_divide(a, b)
    if jnp.issubdtype(a.dtype, jnp.integer):
        return lax.div(a, b)
    return jnp.trunc(a / b)


def _floor_divide(a, b):
    if jnp.issubdtype(a.dtype, jnp.integer):
        return jnp.floor_divide(a, b)
    return jnp.floor(a / b)


def _add(a, b, alpha=1):
    return a + b if alpha == 1 else a + b * alpha


def _sub(a, b, alpha=1):
    return a - b if alpha == 1 else a - b * alpha


def _rsub(a, b, alpha=1):
    return b - a if alpha == 1 else b - a * alpha


def _scalar_pow(a, exponent, dtype):
    """x ** c with c a Python number: a static exponent lets XLA use multiplies for small integers."""
    a = a.astype(dtype)
    if isinstance(exponent, int) and not isinstance(exponent, bool) and 0 <= exponent <= 64:
        return lax.integer_pow(a, exponent)
    return jnp.power(a, jnp.asarray(exponent, dtype))


def _xlogy(a, b):
    return special.xlogy(a, b)


_BINARY = {
    "add": (_add, {"saves": SAVES_NOTHING}),
    "sub": (_sub, {"saves": SAVES_NOTHING}),
    "rsub": (_rsub, {"saves": SAVES_NOTHING, "grad_name": "RsubBackward1"}),
    "mul": (jnp.multiply, {}),
    "div": (_div, {"promote": "float"}),
    "true_divide": (_true_divide, {"promote": "float", "grad_name": "DivBackward0"}),
    "floor_divide": (_floor_divide, {}),
    "remainder": (jnp.remainder, {}),
    "fmod": (jnp.fmod, {}),
    "pow": (jnp.power, {"grad_name": "PowBackward1"}),
    "atan2": (jnp.arctan2, {"promote": "float"}),
    "maximum": (jnp.maximum, {}),
    "minimum": (jnp.minimum, {}),
    "fmax": (jnp.fmax, {}),
    "fmin": (jnp.fmin, {}),
    "hypot": (jnp.hypot, {}),
    "copysign": (jnp.copysign, {"promote": "float"}),
    "logaddexp": (jnp.logaddexp, {}),
    "logaddexp2": (jnp.logaddexp2, {}),
    "xlogy": (_xlogy, {"promote": "float"}),
    "bitwise_and": (jnp.bitwise_and, {}),
    "bitwise_or": (jnp.bitwise_or, {}),
    "bitwise_xor": (jnp.bitwise_xor, {}),
    "bitwise_left_shift": (jnp.left_shift, {}),
    "bitwise_right_shift": (jnp.right_shift, {}),
}

_COMPARISONS = {
    "eq": jnp.equal, "ne": jnp.not_equal, "lt": jnp.less, "le": jnp.less_equal,
    "gt": jnp.greater, "ge": jnp.greater_equal,
    "logical_and": jnp.logical_and, "logical_or": jnp.logical_or, "logical_xor": jnp.logical_xor,
}


def _build(table: dict, **defaults) -> dict:
    return {name: Op(name, fn, **{**defaults, **options}) for name, (fn, options) in table.items()}


FLOAT_UNARY = _build(_FLOAT_UNARY, promote="float")
SAME_UNARY = _build(_SAME_UNARY)
PREDICATES = {name: Op(name, fn) for name, fn in _PREDICATES.items()}
BINARY = _build(_BINARY)
COMPARISONS = {name: Op(name, fn) for name, fn in _COMPARISONS.items()}

SCALAR_POW = Op("pow", _scalar_pow, grad_name="PowBackward0", promote="none")
RPOW = Op("pow", lambda exponent, base: jnp.power(base, exponent), grad_name="PowBackward2")


def _clamp(x, lo, hi):
    if lo is not None:
        x = jnp.maximum(x, lo)
    if hi is not None:
        x = jnp.minimum(x, hi)
    return x


def _clamp_scalar(x, min=None, max=None):
    return _clamp(x, None if min is None else jnp.asarray(min, x.dtype), None if max is None else jnp.asarray(max, x.dtype))


CLAMP_SCALAR = Op("clamp", _clamp_scalar, grad_name="ClampBackward1")
CLAMP_TENSOR = Op("clamp", lambda x, lo, hi: _clamp(x, lo, hi), grad_name="ClampBackward0")
CLAMP_MIN_TENSOR = Op("clamp_min", lambda x, lo: jnp.maximum(x, lo))
CLAMP_MAX_TENSOR = Op("clamp_max", lambda x, hi: jnp.minimum(x, hi))
WHERE = Op("where", lambda cond, x, y: jnp.where(cond, x, y), promote_from=1)
LERP = Op("lerp", lambda start, end, weight: start + weight * (end - start))
ADDCMUL = Op("addcmul", lambda x, a, b, value=1: x + value * a * b)
ADDCDIV = Op("addcdiv", lambda x, a, b, value=1: x + value * a / b)
