"""Elementwise ops as pure JAX functions, declared in tables.

Each entry is the JAX function and, where PyTorch differs from the defaults, the grad_fn name,
what PyTorch saves for backward, and the promotion rule ('float' makes integer inputs the
default float dtype, as PyTorch's sqrt or true division do).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax.scipy import special

from .registry import Op, SAVES_NOTHING, SAVES_RESULT

# PyTorch's scalar type names, as its "not implemented for 'Bool'" errors spell them.
SCALAR_NAMES = {np.dtype(k): v for k, v in (
    (np.bool_, "Bool"), (np.uint8, "Byte"), (np.int8, "Char"), (np.int16, "Short"), (np.int32, "Int"),
    (np.int64, "Long"), (np.float16, "Half"), (jnp.bfloat16, "BFloat16"), (np.float32, "Float"),
    (np.float64, "Double"), (np.complex64, "ComplexFloat"), (np.complex128, "ComplexDouble"))}


def astype(x, dtype):
    """`x` as `dtype`; complex to real keeps the real part, as PyTorch does (JAX will refuse that cast), and
    complex to bool asks whether the number is nonzero.

    Bools go through a select: XLA folds convert(bool) * y into select(bool, y, 0) and convert(bool) / y
    likewise, which loses PyTorch's nan for False * inf and False / 0 when the cast and the arithmetic
    end up in one computation."""
    if jnp.iscomplexobj(x) and dtype == jnp.bool_:
        return x != 0
    if jnp.iscomplexobj(x) and not jnp.issubdtype(dtype, jnp.complexfloating):
        x = jnp.real(x)
    if x.dtype == jnp.bool_ and dtype != jnp.bool_:
        return jnp.where(x, jnp.ones((), dtype), jnp.zeros((), dtype))
    if kind(x.dtype) == "f" and kind(dtype) == "i":
        return _float_to_int(x, np.dtype(dtype))
    return x.astype(dtype)


def _float_to_int(x, dtype):
    """Truncates through int32 (int64 for uint8 and int64) and wraps, as PyTorch's CPU casts do;
    out-of-range values and nan become that wide type's minimum, which then wraps too."""
    wide = np.dtype(np.int64 if dtype in (np.uint8, np.int64) else np.int32)
    low = float(np.iinfo(wide).min)
    t = jnp.trunc(x.astype(jnp.float64))
    ok = (t >= low) & (t < -low)
    return jnp.where(ok, jnp.where(ok, t, 0).astype(wide), np.iinfo(wide).min).astype(dtype)


def kind(dtype) -> str:
    """'b' bool, 'i' integer, 'f' floating (bfloat16 included), 'c' complex."""
    if dtype == jnp.bool_:
        return "b"
    if jnp.issubdtype(dtype, jnp.integer):
        return "i"
    return "c" if jnp.issubdtype(dtype, jnp.complexfloating) else "f"


def refusing(fn, name: str, accepts: str, refusals: dict | None = None, kernel: str | None = None):
    """`fn`, raising PyTorch's error for an input of a kind ('b', 'i', 'f', 'c') it has no kernel for.

    Inputs arrive already promoted, as PyTorch checks the common dtype. The check runs while tracing,
    so it costs nothing once compiled, and no XLA code is built for a refused dtype. `refusals` maps a
    kind to (exception type, message) where PyTorch words the error itself; `{name}` in it is `name`.
    `kernel` is the name PyTorch's CPU kernel gives in its generic "not implemented for" error, if not `name`
    (or a function of the refused array and the static arguments giving it)."""
    def run(*arrays, **static):
        for array in arrays:
            found = kind(array.dtype)
            if found not in accepts:
                named = kernel(array, **static) if callable(kernel) else kernel or name
                error, message = (refusals or {}).get(
                    found, (NotImplementedError, f'"{named}" not implemented for \'{SCALAR_NAMES[array.dtype]}\''))
                raise error(message.format(name=name))
        return fn(*arrays, **static)

    return run


def broadcast_shapes(*shapes) -> tuple:
    """PyTorch's broadcast of `shapes`, folded left to right, with its error for a pair that cannot broadcast."""
    result = ()
    for shape in shapes:
        ndim = max(len(result), len(shape))
        a, b = (1,) * (ndim - len(result)) + tuple(result), (1,) * (ndim - len(shape)) + tuple(shape)
        for i in reversed(range(ndim)):
            if a[i] != b[i] and a[i] != 1 and b[i] != 1:
                raise RuntimeError(f"The size of tensor a ({a[i]}) must match the size of tensor b ({b[i]}) at "
                                   f"non-singleton dimension {i}")
        result = tuple(x if y == 1 else y for x, y in zip(a, b))
    return result


def _broadcasting(fn):
    """`fn`, checking PyTorch's broadcasting of its inputs while tracing (before any dtype check, as PyTorch)."""
    def run(*arrays, **static):
        if len(arrays) > 1:
            broadcast_shapes(*(a.shape for a in arrays))
        return fn(*arrays, **static)

    return run


def _opmath(fn):
    """Evaluates float16/bfloat16 in float32 and rounds once, as PyTorch does for compound formulas."""
    def run(*arrays, **static):
        low = arrays[0].dtype
        if low in (jnp.float16, jnp.bfloat16):
            return fn(*(a.astype(jnp.float32) for a in arrays), **static).astype(low)
        return fn(*arrays, **static)

    return run


def _via_float64(fn, tangent_of=None):
    """Evaluates float32 in float64 and rounds: XLA's float32 exp/log/tanh/expm1 differ from PyTorch's in
    ~10-50% of values by an ulp, enough to change printed digits; rounding from float64 agrees ~99%.
    `tangent_of`, where given, keeps the gradient in float32 as PyTorch's is (see `_from_result`): tanh's 1 - y*y
    is exactly 0 where y rounds to 1, not float64's 1e-12."""
    def rounded(x):
        return fn(x.astype(jnp.float64)).astype(jnp.float32)

    direct = fn
    if tangent_of is not None:
        rounded, direct = _from_result(rounded, tangent_of), _from_result(fn, tangent_of)

    def run(x):
        return rounded(x) if x.dtype == jnp.float32 else direct(x)
    return run


def _from_result(fn, tangent_of):
    """`fn` differentiated by PyTorch's backward formula from its result: `tangent_of(t, y)` is the jvp, written
    with the factors in the reverse of PyTorch's order (transposing reverses them), so gradients round as its do."""
    fn = jax.custom_jvp(fn)

    def jvp(primals, tangents):
        y = fn(primals[0])
        return y, tangent_of(tangents[0], y)

    fn.defjvp(jvp)
    return fn


def _exp(x):
    """exp; for complex, C99's cexp at infinite real parts (XLA's exp(re) * cis(im) gives NaN there)."""
    if kind(x.dtype) != "c":
        return _via_float64(jnp.exp, lambda t, y: t * y)(x)
    re, im = jnp.real(x), jnp.imag(x)
    odd = jnp.isinf(re) & ~jnp.isfinite(im)
    zero = jnp.zeros((), re.dtype)
    special = jnp.where(re > 0, lax.complex(jnp.full((), jnp.inf, re.dtype), jnp.full((), jnp.nan, re.dtype)),
                        lax.complex(zero, jnp.copysign(zero, im)))
    plain = jnp.exp(jnp.where(odd, zero, x))
    plain = jnp.where(im == 0, lax.complex(jnp.real(plain), im), plain)  # keeps a -0 imaginary part
    return jnp.where(odd, special, plain)


def _sqrt(x):
    """For finite complex values, C's csqrt formula in the input's precision (XLA's rounds differently):
    r = sqrt((|z| + |re|) / 2) and the other part im / 2r, placed by the sign of re."""
    if kind(x.dtype) != "c":
        return jnp.sqrt(x)
    re, im = jnp.real(x), jnp.imag(x)
    finite = jnp.isfinite(re) & jnp.isfinite(im) & ((re != 0) | (im != 0))
    r = jnp.sqrt(0.5 * (jnp.hypot(re, im) + jnp.abs(re)))
    other = 0.5 * (im / jnp.where(finite, r, 1))
    formula = jnp.where(re >= 0, lax.complex(r, other), lax.complex(jnp.abs(other), jnp.copysign(r, im)))
    return _c99_sqrt_specials(re, im, jnp.where(finite, formula, jnp.sqrt(x)))


def _c99_sqrt_specials(re, im, root):
    """C99's csqrt where XLA's differs: the imaginary part keeps im's sign (zeros included), an infinite im gives
    (inf, im), and a NaN im with an infinite re gives (inf, NaN) or (NaN, inf)."""
    out_re, out_im = jnp.real(root), jnp.imag(root)
    out_im = jnp.where(jnp.isnan(im), out_im, jnp.copysign(out_im, im))
    inf, nan = jnp.full((), jnp.inf, re.dtype), jnp.full((), jnp.nan, re.dtype)
    nan_im = jnp.isnan(im) & jnp.isinf(re)
    out_re = jnp.where(jnp.isinf(im), inf, jnp.where(nan_im, jnp.where(re > 0, inf, nan), out_re))
    out_im = jnp.where(jnp.isinf(im), im, jnp.where(nan_im, jnp.where(re > 0, nan, inf), out_im))
    return lax.complex(out_re, out_im)


def _log(x):
    """log; a complex value with an infinite part has an infinite real part, NaN imaginary or not (C99's clog)."""
    if kind(x.dtype) != "c":
        return _via_float64(jnp.log)(x)
    result = jnp.log(x)
    infinite = jnp.isinf(jnp.real(x)) | jnp.isinf(jnp.imag(x))
    return jnp.where(infinite, lax.complex(jnp.full((), jnp.inf, jnp.real(x).dtype), jnp.imag(result)), result)


def _rsqrt(x):
    return _reciprocal(_sqrt(x)) if kind(x.dtype) == "c" else lax.rsqrt(x)


def _reciprocal(x):
    return _complex_divide(jnp.ones((), x.dtype), x) if kind(x.dtype) == "c" else jnp.reciprocal(x)


# PyTorch's subgradients at the kinks (relu'(0) = 0, clamp's bounds inclusive, hardtanh's exclusive, abs'(0) = 0) come
# from writing these ops with `where` on the comparison PyTorch's derivative uses: jax.vjp of maximum or clip would
# split a tie in half. NaN passes through each as in PyTorch.
def _relu(x):
    return jnp.where(x < 0, jnp.zeros((), x.dtype), jnp.where(x > 0, x, jax.lax.stop_gradient(x)))  # keeps -0.0


def absolute(x):
    if jnp.issubdtype(x.dtype, jnp.floating):
        return x * jnp.sign(x)  # exact, -0.0 -> 0.0, and the derivative sign(x) is 0 at 0
    return jnp.abs(x)


def _fmax(x, y):
    """The gradient goes to x where x >= y (or y is NaN), else to y, as PyTorch's."""
    return jnp.where((x >= y) | jnp.isnan(y), x, y)


@jax.custom_jvp
def _hypot(x, y):
    return jnp.hypot(x, y)


@_hypot.defjvp
def _hypot_jvp(primals, tangents):
    """PyTorch's derivative x/r, y/r: NaN at the origin (jnp.hypot's own rule gives 1/2 there)."""
    (x, y), (tx, ty) = primals, tangents
    r = jnp.hypot(x, y)
    return r, (x * tx + y * ty) / r


def _fmin(x, y):
    return jnp.where((x <= y) | jnp.isnan(y), x, y)


def _sign(x):
    """PyTorch's (0 < x) - (x < 0): NaN and -0.0 give +0.0."""
    if x.dtype == jnp.bool_:
        return x
    return (x > 0).astype(x.dtype) - (x < 0).astype(x.dtype)


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
    return _logit_unclamped(x)


@jax.custom_jvp
def _logit_unclamped(x):
    return jnp.log(x / (1 - x))


@_logit_unclamped.defjvp
def _logit_unclamped_jvp(primals, tangents):
    """PyTorch's derivative: 1 / (x (1 - x)) inside [0, 1], NaN outside it."""
    (x,), (t,) = primals, tangents
    inside = (x >= 0) & (x <= 1)
    return _logit_unclamped(x), t * jnp.where(inside, 1 / (x * (1 - x)), jnp.full_like(x, jnp.nan))


def _lgamma(x):
    """Evaluated in float64, then rounded: XLA's float32 lgamma is a few ulps off PyTorch's (lgamma(1) = 4.8e-7)."""
    return special.gammaln(x.astype(jnp.float64)).astype(x.dtype)


def _digamma(x):
    """PyTorch's digamma: -inf at +0 and +inf at -0 (the pole), NaN at negative integers."""
    return jnp.where(x == 0, jnp.copysign(jnp.asarray(jnp.inf, x.dtype), -x), special.digamma(x))


def _angle(x):
    """jnp.angle, which turns a 0-dim float32 into float64; for reals PyTorch gives pi below 0, NaN for NaN."""
    if jnp.iscomplexobj(x):
        return jnp.arctan2(jnp.imag(x), jnp.real(x))
    return jnp.where(jnp.isnan(x), x, jnp.where(x < 0, jnp.asarray(np.pi, x.dtype), jnp.zeros((), x.dtype)))


def _nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    return jnp.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


def _sgn(x):
    if jnp.iscomplexobj(x):
        magnitude = jnp.abs(x)
        return jnp.where(magnitude == 0, 0, x / jnp.where(magnitude == 0, 1, magnitude))
    return _sign(x)


def _square(x):
    """PyTorch squares bools as pow(x, 2) does: in int64."""
    x = x.astype(jnp.int64) if x.dtype == jnp.bool_ else x
    return x * x


def _gelu(x, approximate="none"):
    return jax.nn.gelu(x, approximate=approximate == "tanh")


def _hardtanh(x, min_val=-1.0, max_val=1.0):
    """Clamped in x's own dtype (integer tensors stay integer, as PyTorch's)."""
    low, high = jnp.asarray(min_val).astype(x.dtype), jnp.asarray(max_val).astype(x.dtype)
    inside = jnp.where((x == low) | (x == high), jax.lax.stop_gradient(x), x)  # a bound itself: no gradient
    return jnp.where(x < low, low, jnp.where(x > high, high, inside))


def _softshrink(x, lambd=0.5):
    return jnp.where(x > lambd, x - lambd, jnp.where(x < -lambd, x + lambd, jnp.zeros((), x.dtype)))


def _hardshrink(x, lambd=0.5):
    return jnp.where((x >= -lambd) & (x <= lambd), jnp.zeros((), x.dtype), x)


def _threshold(x, threshold=0.0, value=0.0):
    return jnp.where(x <= jnp.asarray(threshold).astype(x.dtype) if jnp.issubdtype(x.dtype, jnp.integer) else
                     x <= threshold, jnp.asarray(value).astype(x.dtype), x)


def _celu(x, alpha=1.0):
    return jnp.where(x > 0, x, alpha * jnp.expm1(x / alpha))


_SELU_ALPHA, _SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _selu(x):
    return _SELU_SCALE * jnp.where(x > 0, x, _SELU_ALPHA * jnp.expm1(x))


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
    """min(max(x + 3, 0), 6) / 6 as PyTorch's kernel; its derivative is 1/6 strictly inside (-3, 3) and 0 at the
    corners (jax.vjp of clip would give 1/12 there)."""
    inside = (x > -3) & (x < 3)
    return jnp.where(inside, (x + 3) / 6, lax.stop_gradient(jnp.clip(x + 3, 0, 6) / 6))


def _hardswish(x):
    """x * min(max(x + 3, 0), 6) / 6; PyTorch's derivative: 0 for x <= -3, x/3 + 1/2 below 3, 1 from 3 on."""
    value = x * jnp.clip(x + 3, 0, 6) / 6
    return jnp.where(x <= -3, lax.stop_gradient(value), jnp.where(x < 3, value, x))


def _bitwise_not(x):
    return jnp.logical_not(x) if x.dtype == jnp.bool_ else jnp.bitwise_not(x)


# Kinds PyTorch accepts ('b' bool, 'i' integer, 'f' floating, 'c' complex), and its own wording where it has one.
REAL, NUMERIC, INTEGRAL = "bif", "ifc", "bi"
_NO_COMPLEX_ROUNDING = {"accepts": "if", "refusals": {
    "c": (NotImplementedError, "{name} is not supported for complex inputs")}}
_NO_COMPLEX_ANGLES = {"accepts": REAL, "refusals": {
    "c": (RuntimeError, "{name} is not supported for complex tensors.")}}
_NEG_BOOL = (RuntimeError, "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")
_EXTREMUM_COMPLEX = {"c": (RuntimeError, "{name} not implemented for complex tensors.")}

# name: (fn, options). Options are the Op's (grad_name, saves, promote) plus `accepts`/`refusals` (see
# `refusing`) and `opmath` (evaluate float16/bfloat16 in float32). Float-valued math promotes integers
# to the default float dtype, and evaluates half precision in float32 as PyTorch does.
_FLOAT_UNARY = {
    "sqrt": (_sqrt, {"saves": SAVES_RESULT}),
    "rsqrt": (_rsqrt, {"saves": SAVES_RESULT}),
    "exp": (_exp, {"saves": SAVES_RESULT}),
    "exp2": (jnp.exp2, {"saves": SAVES_RESULT}),
    "expm1": (_via_float64(jnp.expm1, lambda t, y: t * (y + 1)), {"saves": SAVES_RESULT}),
    "log": (_log, {}),
    "log2": (jnp.log2, {}),
    "log10": (jnp.log10, {}),
    "log1p": (jnp.log1p, {"grad_name": "Log1PBackward0"}),
    "sin": (jnp.sin, {}),
    "cos": (jnp.cos, {}),
    "tan": (jnp.tan, {"saves": SAVES_RESULT}),
    "asin": (jnp.arcsin, {}),
    "acos": (jnp.arccos, {}),
    "atan": (jnp.arctan, {}),
    "sinh": (jnp.sinh, {}),
    "cosh": (jnp.cosh, {}),
    "tanh": (_via_float64(jnp.tanh, lambda t, y: t * (1 - y * y)), {"saves": SAVES_RESULT}),
    "asinh": (jnp.arcsinh, {}),
    "acosh": (jnp.arccosh, {}),
    "atanh": (jnp.arctanh, {}),
    "sigmoid": (_from_result(jax.nn.sigmoid, lambda t, y: t * y * (1 - y)), {"saves": SAVES_RESULT}),
    "erf": (special.erf, {"accepts": REAL, "kernel": "erf_vml_cpu"}),
    "erfc": (special.erfc, {"accepts": REAL, "kernel": "erfc_vml_cpu"}),
    "erfinv": (special.erfinv, {"accepts": REAL, "kernel": "erfinv_vml_cpu"}),
    "lgamma": (_lgamma, {"accepts": REAL, "kernel": "lgamma_vml_cpu"}),
    "digamma": (_digamma, {"accepts": REAL}),
    "reciprocal": (_reciprocal, {"saves": SAVES_RESULT}),
    "sinc": (jnp.sinc, {}),
    "logit": (_logit, {"accepts": REAL, "kernel": "logit_cpu"}),
    "i0": (special.i0, {"accepts": REAL, "kernel": "i0_vml_cpu"}),
    "angle": (_angle, {}),
    "deg2rad": (jnp.deg2rad, {"grad_name": "Deg2RadBackward0", **_NO_COMPLEX_ANGLES}),
    "rad2deg": (jnp.rad2deg, {"grad_name": "Rad2DegBackward0", **_NO_COMPLEX_ANGLES}),
}

_HARDTANH = {"accepts": "if", "refusals": {"b": (RuntimeError, "Bool inputs not supported for hardtanh"),
                                           "c": (NotImplementedError, "clamp is not supported for complex types")}}

# Ops that keep their input's dtype.
_SAME_UNARY = {
    "neg": (jnp.negative, {"saves": SAVES_NOTHING, "accepts": NUMERIC, "refusals": {"b": _NEG_BOOL}}),
    "positive": (lambda x: x, {"saves": SAVES_NOTHING, "accepts": NUMERIC, "refusals": {
        "b": (RuntimeError, "The `+` operator, on a bool tensor is not supported.")}}),
    "abs": (absolute, {"accepts": NUMERIC, "kernel": "abs_cpu"}),
    "sign": (_sign, {"accepts": REAL, "refusals": {"c": (NotImplementedError, (
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead."))}}),
    "sgn": (_sgn, {}),
    "floor": (_keep_integral(jnp.floor), {"saves": SAVES_NOTHING, "kernel": "floor_vml_cpu", **_NO_COMPLEX_ROUNDING}),
    "ceil": (_keep_integral(jnp.ceil), {"saves": SAVES_NOTHING, "kernel": "ceil_vml_cpu", **_NO_COMPLEX_ROUNDING}),
    "trunc": (_keep_integral(jnp.trunc), {"saves": SAVES_NOTHING, "kernel": "trunc_vml_cpu", **_NO_COMPLEX_ROUNDING}),
    "frac": (_frac, {"saves": SAVES_NOTHING, "accepts": "f", "kernel": "frac_cpu"}),
    "round": (_round, {"saves": SAVES_NOTHING, "accepts": "if", "kernel": "round_vml_cpu"}),
    "relu": (_relu, {"saves": SAVES_RESULT, "accepts": "if", "refusals": {
        "b": (RuntimeError, "Boolean inputs not supported for relu"),
        "c": (NotImplementedError, "clamp is not supported for complex types")}}),
    "square": (_square, {"grad_name": "PowBackward0"}),
    "conj": (jnp.conj, {"saves": SAVES_NOTHING}),
    "conj_physical": (jnp.conj, {"saves": SAVES_NOTHING}),
    "nan_to_num": (_nan_to_num, {}),
    "bitwise_not": (_bitwise_not, {"accepts": INTEGRAL, "kernel": "bitwise_not_cpu"}),
    "gelu": (_gelu, {"opmath": True, "accepts": "f", "kernel": "GeluKernelImpl"}),
    "silu": (_silu, {"opmath": True, "accepts": "fc", "kernel": "silu_cpu"}),
    "mish": (_mish, {"opmath": True, "accepts": "f", "kernel": "mish_cpu"}),
    "hardtanh": (_hardtanh, _HARDTANH),
    "relu6": (lambda x: _hardtanh(x, 0, 6), {"grad_name": "HardtanhBackward0", **_HARDTANH}),
    "leaky_relu": (_leaky_relu, {"opmath": True, "accepts": "f", "kernel": "leaky_relu_cpu"}),
    "elu": (_elu, {"opmath": True, "accepts": "f", "kernel": "elu_cpu"}),
    "softplus": (_softplus, {"opmath": True, "accepts": "f", "kernel": "softplus_cpu"}),
    "hardsigmoid": (_hardsigmoid, {"opmath": True, "accepts": "f", "kernel": "hardsigmoid_cpu"}),
    "hardswish": (_hardswish, {"opmath": True, "accepts": "f", "kernel": "hardswish_cpu"}),
    "logsigmoid": (jax.nn.log_sigmoid, {"grad_name": "LogSigmoidBackward0", "opmath": True, "accepts": "f",
                                        "kernel": "log_sigmoid_cpu"}),
    "rrelu_with_noise": (_leaky_relu, {"opmath": True, "accepts": "f", "kernel": "leaky_relu_cpu"}),
    "softshrink": (_softshrink, {"accepts": "f", "kernel": "softshrink_check"}),
    "hardshrink": (_hardshrink, {"accepts": "f", "kernel": "hardshrink_cpu"}),
    "threshold": (_threshold, {"accepts": "if", "kernel": "threshold_cpu"}),
    "celu": (_celu, {"opmath": True, "accepts": "f", "kernel": "elu_cpu"}),
    "selu": (_selu, {"opmath": True, "accepts": "f", "kernel": "elu_cpu", "grad_name": "EluBackward0"}),
}

# Predicates: results are bool, never differentiable.
_PREDICATES = {
    "isnan": (jnp.isnan, {}),
    "isinf": (jnp.isinf, {}),
    "isposinf": (jnp.isposinf, {"accepts": REAL, "refusals": {
        "c": (RuntimeError, "isposinf does not support complex inputs.")}}),
    "isneginf": (jnp.isneginf, {"accepts": REAL, "refusals": {
        "c": (RuntimeError, "isneginf does not support complex inputs.")}}),
    "isfinite": (jnp.isfinite, {}),
    "signbit": (jnp.signbit, {"accepts": REAL, "refusals": {
        "c": (NotImplementedError, "signbit is not implemented for complex tensors.")}}),
    "logical_not": (jnp.logical_not, {}),
    "isreal": (jnp.isreal, {}),
}


def _true_divide(a, b):
    return _complex_divide(a, b) if kind(a.dtype) == "c" else a / exact_divisor(a, b)


def exact_divisor(a, b):
    """`b` broadcast to the quotient's shape behind a barrier: XLA rewrites a division by a broadcast divisor into
    a product with its reciprocal, an ulp off PyTorch's true quotient in ~40% of float32 values."""
    shape = jnp.broadcast_shapes(a.shape, b.shape)
    return b if b.shape == shape else lax.optimization_barrier(jnp.broadcast_to(b, shape))


def _complex_divide(a, b):
    """Smith's scaled complex division (NumPy's, which PyTorch follows): NaN where the divisor has an
    infinite or NaN part that XLA's formula turns into 0, and (a.re / 0, a.im / 0) for a zero divisor."""
    a, b = jnp.broadcast_arrays(a, b)
    p, q, c, d = jnp.real(a), jnp.imag(a), jnp.real(b), jnp.imag(b)
    wide = jnp.abs(c) >= jnp.abs(d)
    zero = wide & (c == 0) & (d == 0)
    ratio = jnp.where(wide, d / jnp.where(zero, 1, c), c / d)
    scale = 1 / jnp.where(wide, c + d * ratio, d + c * ratio)
    re = jnp.where(wide, (p + q * ratio) * scale, (p * ratio + q) * scale)
    im = jnp.where(wide, (q - p * ratio) * scale, (q * ratio - p) * scale)
    return jnp.where(zero, lax.complex(p / jnp.abs(c), q / jnp.abs(d)), lax.complex(re, im))


def _div(a, b, rounding_mode):
    if rounding_mode == "floor":
        return _floor_divide(a, b)
    if jnp.issubdtype(a.dtype, jnp.integer):
        return lax.div(*jnp.broadcast_arrays(a, b))
    return jnp.trunc(a / exact_divisor(a, b))


def _floor_divide(a, b):
    """Python's floor division, for floats too (floor(a / b) is off where a / b rounds up to an integer); a zero
    quotient takes the sign of a / b, as PyTorch's does."""
    if not jnp.issubdtype(jnp.result_type(a, b), jnp.floating):
        return jnp.floor_divide(a, b)
    b = exact_divisor(a, b)
    quotient = jnp.floor_divide(a, b)
    return jnp.where(quotient == 0, jnp.copysign(jnp.zeros_like(quotient), a / b), quotient)


def _add(a, b, alpha=1):
    return a + b if alpha == 1 else _plus_scaled(a, b, alpha)


def _sub(a, b, alpha=1):
    return a - b if alpha == 1 else _plus_scaled(a, b, -alpha)


def _rsub(a, b, alpha=1):
    return b - a if alpha == 1 else _plus_scaled(b, a, -alpha)


def _plus_scaled(a, b, alpha):
    """a + alpha * b as PyTorch's kernel computes it: alpha rounded to the operands' dtype, float16/bfloat16
    evaluated in float32 and rounded once."""
    low = jnp.result_type(a, b)
    if low == jnp.bool_:  # bool + alpha * bool stays a logical or
        return a | (b & bool(alpha))
    if low in (jnp.float16, jnp.bfloat16):
        scale = jnp.asarray(alpha, low).astype(jnp.float32)
        return (a.astype(jnp.float32) + b.astype(jnp.float32) * scale).astype(low)
    return a + b * alpha


def _power(a, b):
    """jnp.power, with PyTorch's integers to negative powers: 1 and -1 keep their magnitude, others give 0."""
    if kind(a.dtype) == "c":
        return _exp(_c99_multiply(b, _log(a)))
    if kind(a.dtype) != "i":
        return jnp.power(a, b)
    if not jnp.issubdtype(b.dtype, jnp.signedinteger):
        return _integer_power(a, b)
    unit = jnp.where((a == -1) & (b % 2 != 0), -1, 1).astype(a.dtype)
    return jnp.where(b >= 0, _integer_power(a, jnp.maximum(b, 0)), jnp.where(jnp.abs(a) == 1, unit, 0).astype(a.dtype))


def _integer_power(a, b):
    """a ** b (b >= 0) by squaring, wrapping as PyTorch's does: jitted jnp.power gets overflowing powers wrong
    (int16 5 ** 250 gives 18489, not -711)."""
    a, b = jnp.broadcast_arrays(a, b.astype(a.dtype))
    result = jnp.ones_like(a)
    for _ in range(np.iinfo(a.dtype).bits):
        result = jnp.where(b & 1, result * a, result)
        a, b = a * a, b >> 1
    return result


def _scalar_pow(a, exponent, dtype):
    """x ** c with c a Python number: a static exponent lets XLA use multiplies for small integers."""
    a = a.astype(dtype)
    if a.dtype == jnp.bool_:
        return a | jnp.logical_not(exponent)
    if kind(a.dtype) == "c":
        return _complex_scalar_pow(a, exponent)
    if isinstance(exponent, int) and not isinstance(exponent, bool) and exponent >= 0 and \
            (exponent <= 64 or kind(a.dtype) == "i"):
        return lax.integer_pow(a, exponent)
    if exponent in _ROOT_POWERS and kind(a.dtype) == "f" and a.dtype != jnp.float16:
        return _ROOT_POWERS[exponent](a)
    return jnp.power(a, jnp.asarray(exponent, dtype))


# PyTorch takes x ** 0.5 and x ** -0.5 as (r)sqrt (but for float16), whose -inf and -0.0 differ from pow's.
_ROOT_POWERS = {0.5: jnp.sqrt, -0.5: lax.rsqrt}


def _complex_scalar_pow(a, exponent):
    """PyTorch's complex x ** c: products for 2, 3 and -2, sqrt and reciprocals for +-0.5 and -1, exp(c log x) else."""
    one = jnp.ones((), a.dtype)
    special = {0: lambda: jnp.ones_like(a), 1: lambda: a, 2: lambda: a * a, 3: lambda: a * a * a,
               -2: lambda: _complex_divide(one, a * a), 0.5: lambda: _sqrt(a),
               -0.5: lambda: _complex_divide(one, _sqrt(a)), -1: lambda: _complex_divide(one, a)}
    if exponent in special:
        return special[exponent]()
    return _exp(_c99_multiply(jnp.asarray(exponent, a.dtype), _log(a)))


def _c99_multiply(x, y):
    """x * y as C99's Annex G (so PyTorch's std::pow) multiplies: where the plain formula gives NaN in both parts
    but an operand is infinite, NaN parts become signed zeros, infinite ones signed ones, and it scales by inf."""
    a, b, c, d = jnp.real(x), jnp.imag(x), jnp.real(y), jnp.imag(y)
    products = (a * c, b * d, a * d, b * c)
    re, im = products[0] - products[1], products[2] + products[3]
    x_inf, y_inf = jnp.isinf(a) | jnp.isinf(b), jnp.isinf(c) | jnp.isinf(d)
    a, b = _unit_if_inf(a, b, x_inf)
    c, d = _unit_if_inf(c, d, y_inf)
    a, b = _zero_if_nan(a, b, y_inf)
    c, d = _zero_if_nan(c, d, x_inf)
    big = ~x_inf & ~y_inf & (jnp.isinf(products[0]) | jnp.isinf(products[1]) | jnp.isinf(products[2])
                             | jnp.isinf(products[3]))
    a, b = _zero_if_nan(a, b, big)
    c, d = _zero_if_nan(c, d, big)
    redo = jnp.isnan(re) & jnp.isnan(im) & (x_inf | y_inf | big)
    inf = jnp.full((), jnp.inf, re.dtype)
    return lax.complex(jnp.where(redo, inf * (a * c - b * d), re), jnp.where(redo, inf * (a * d + b * c), im))


def _unit_if_inf(re, im, mask):
    one, zero = jnp.ones((), re.dtype), jnp.zeros((), re.dtype)
    box = lambda v: jnp.where(mask, jnp.copysign(jnp.where(jnp.isinf(v), one, zero), v), v)
    return box(re), box(im)


def _zero_if_nan(re, im, mask):
    zero = jnp.zeros((), re.dtype)
    box = lambda v: jnp.where(mask & jnp.isnan(v), jnp.copysign(zero, v), v)
    return box(re), box(im)


def _xlogy(a, b):
    return special.xlogy(a, b)


def _heaviside(x, values):
    """`values` where x is 0, else 1 for x > 0 and 0 otherwise (NaN included), as PyTorch's kernel."""
    return jnp.where(x == 0, values, jnp.where(x > 0, jnp.ones((), x.dtype), jnp.zeros((), x.dtype)))


def _ldexp(x, exponent):
    return x * jnp.power(2, exponent)  # exact for integral exponents, where XLA's exp2 may not be


def _atan2(y, x):
    """atan2 with PyTorch's zero gradient at (0, 0), where its 1 / (x*x + y*y) is infinite and it masks it to 0."""
    origin = (y == 0) & (x == 0)
    return jnp.arctan2(jnp.where(origin, lax.stop_gradient(y), y), jnp.where(origin, lax.stop_gradient(x), x))


@jax.custom_jvp
def _nextafter(x, toward):
    """jnp.nextafter, differentiable as PyTorch's: the gradient passes to `x` unchanged, none to `toward`."""
    return jnp.nextafter(x, toward)


_nextafter.defjvps(lambda tangent, result, x, toward: jnp.broadcast_to(tangent, result.shape),
                   lambda tangent, result, x, toward: jnp.zeros_like(result))


_BINARY = {
    "add": (_add, {"saves": SAVES_NOTHING}),
    "sub": (_sub, {"saves": SAVES_NOTHING}),
    "rsub": (_rsub, {"saves": SAVES_NOTHING}),
    "mul": (jnp.multiply, {"opmath_numbers": True}),
    "div": (_true_divide, {"promote": "float", "opmath_numbers": True}),
    "true_divide": (_true_divide, {"promote": "float", "grad_name": "DivBackward0", "opmath_numbers": True}),
    "floor_divide": (_floor_divide, {"accepts": "if", "opmath": True, "grad_name": "NotImplemented",
                                     "opmath_numbers": True}),
    "remainder": (jnp.remainder, {"accepts": "if", "opmath": True}),
    "fmod": (jnp.fmod, {"accepts": "if"}),
    "pow": (_power, {"grad_name": "PowBackward1", "accepts": NUMERIC}),
    "atan2": (_atan2, {"promote": "float", "accepts": REAL, "opmath": True}),
    "maximum": (jnp.maximum, {"accepts": REAL, "refusals": _EXTREMUM_COMPLEX}),
    "minimum": (jnp.minimum, {"accepts": REAL, "refusals": _EXTREMUM_COMPLEX}),
    "fmax": (_fmax, {"accepts": REAL, "refusals": _EXTREMUM_COMPLEX}),
    "fmin": (_fmin, {"accepts": REAL, "refusals": _EXTREMUM_COMPLEX}),
    "hypot": (_hypot, {"accepts": "f", "opmath": True}),
    "copysign": (jnp.copysign, {"promote": "float", "accepts": REAL}),
    "logaddexp": (jnp.logaddexp, {"accepts": "fc", "opmath": True}),
    "logaddexp2": (jnp.logaddexp2, {"accepts": "f", "opmath": True}),
    "xlogy": (_xlogy, {"promote": "float", "accepts": REAL, "opmath": True}),
    "bitwise_and": (jnp.bitwise_and, {"accepts": INTEGRAL}),
    "bitwise_or": (jnp.bitwise_or, {"accepts": INTEGRAL}),
    "bitwise_xor": (jnp.bitwise_xor, {"accepts": INTEGRAL}),
    "bitwise_left_shift": (jnp.left_shift, {"accepts": "i"}),
    "bitwise_right_shift": (jnp.right_shift, {"accepts": "i"}),
    "heaviside": (_heaviside, {"accepts": REAL, "grad_name": "NotImplemented", "refusals": {
        "c": (RuntimeError, "heaviside is not yet implemented for complex tensors.")}}),
    "ldexp": (_ldexp, {"promote": "float", "opmath": True}),
    "nextafter": (_nextafter, {"accepts": "f"}),
    "gcd": (jnp.gcd, {"accepts": "i"}),
    "lcm": (jnp.lcm, {"accepts": "i"}),
}

_COMPARISONS = {
    "eq": (jnp.equal, {}), "ne": (jnp.not_equal, {}), "lt": (jnp.less, {"accepts": REAL}),
    "le": (jnp.less_equal, {"accepts": REAL}), "gt": (jnp.greater, {"accepts": REAL}),
    "ge": (jnp.greater_equal, {"accepts": REAL}), "logical_and": (jnp.logical_and, {}),
    "logical_or": (jnp.logical_or, {}), "logical_xor": (jnp.logical_xor, {}),
}


def declare(name: str, fn, *, accepts: str | None = None, refusals: dict | None = None, opmath: bool = False,
            kernel: str | None = None, **options) -> Op:
    """An elementwise Op from a table entry: `fn` wrapped for half precision, refused dtypes and PyTorch's
    broadcasting errors (all checked while tracing), then the Op's own options."""
    if opmath:
        fn = _opmath(fn)
    if accepts is not None:
        fn = refusing(fn, name, accepts, refusals, kernel)
    return Op(name, _broadcasting(fn), elementwise=True, **options)


def _build(table: dict, **defaults) -> dict:
    return {name: declare(name, fn, **{**defaults, **options}) for name, (fn, options) in table.items()}


FLOAT_UNARY = _build(_FLOAT_UNARY, promote="float", opmath=True)
SAME_UNARY = _build(_SAME_UNARY)
PREDICATES = _build(_PREDICATES)
# The names PyTorch's CPU kernels give in their "not implemented for" errors.
_BINARY_KERNELS = {"floor_divide": "div_floor_cpu", "bitwise_left_shift": "lshift_cpu",
                   "bitwise_right_shift": "rshift_cpu", "pow": "pow"}


def _with_kernels(table: dict) -> dict:
    return {name: (fn, {"kernel": _BINARY_KERNELS.get(name, name + "_cpu"), **options})
            for name, (fn, options) in table.items()}


BINARY = _build(_with_kernels(_BINARY))
COMPARISONS = _build(_with_kernels(_COMPARISONS))

ROUNDING_DIV = declare("div", _div, grad_name="DivBackward2", accepts="if", opmath_numbers=True,
                       kernel=lambda array, rounding_mode, **_: f"div_{rounding_mode}_cpu")
SCALAR_POW = Op("pow", _scalar_pow, grad_name="PowBackward0", promote="none")
RSUB_SCALAR = declare("rsub", _rsub, saves=SAVES_NOTHING, grad_name="RsubBackward1", kernel="rsub_cpu",
                      unlisted=frozenset({1}))  # `2 - x`: PyTorch's Scalar overload, which lists only x
# remainder/fmod of two tensors: PyTorch's Tensor overload, named apart from the Scalar one.
TENSOR_REMAINDER = declare("remainder", jnp.remainder, grad_name="RemainderBackward1", accepts="if", opmath=True,
                           kernel="remainder_cpu")
TENSOR_FMOD = declare("fmod", jnp.fmod, grad_name="FmodBackward1", accepts="if", kernel="fmod_cpu")
RPOW = Op("pow", refusing(lambda exponent, base: _power(base, exponent), "pow", NUMERIC), grad_name="PowBackward2",
          unlisted=frozenset({1}))
# round(x, decimals=...): PyTorch's decimals overload. (Its bool refusal names round_vml_cpu or round_cpu by size.)
ROUND_DECIMALS = declare("round", _round, saves=SAVES_NOTHING, grad_name="RoundBackward1", accepts="f",
                         kernel=lambda array, decimals: "round_cpu" if decimals else "round_vml_cpu")


def overload(op: Op, grad_name: str, unlisted: frozenset = frozenset()) -> Op:
    """`op` under another of PyTorch's overload names; `unlisted` adds the positions it takes as a Scalar, which
    its next_functions omits."""
    return Op(op.name, op.fn, grad_name=grad_name, saves=op.saves, promote=op.promote, promote_from=op.promote_from,
              hidden_inputs=op.hidden_inputs, unlisted=op.unlisted | unlisted, elementwise=op.elementwise,
              opmath_numbers=op.opmath_numbers)


# PyTorch's Scalar overloads of binary ops, as (number first, number second) grad_fn names, where they differ from
# the Tensor overload's node (by name, or by leaving the number out of next_functions); None: no such overload.
_SCALAR_OVERLOAD_NAMES = {
    "xlogy": ("XlogyBackward1", "XlogyBackward2"),
    "copysign": (None, "CopysignBackward1"),
    "remainder": ("NotImplemented", "RemainderBackward0"),
    "fmod": (None, "FmodBackward0"),
    "floor_divide": ("NotImplemented", "NotImplemented"),
}
SCALAR_OVERLOADS = {name: tuple(None if grad_name is None else overload(BINARY[name], grad_name, frozenset({i}))
                                for i, grad_name in enumerate(names))
                    for name, names in _SCALAR_OVERLOAD_NAMES.items()}


def _clamp(x, lo, hi):
    """Inclusive bounds for the gradient; a NaN bound makes NaN, as PyTorch's maximum/minimum would."""
    if lo is not None:
        x = jnp.where((x < lo) | jnp.isnan(lo), lo, x)
    if hi is not None:
        x = jnp.where((x > hi) | jnp.isnan(hi), hi, x)
    return x


def _clamp_scalar(x, min=None, max=None):
    return _clamp(x, None if min is None else jnp.asarray(min, x.dtype), None if max is None else jnp.asarray(max, x.dtype))


def _clamp_tensors(x, *bounds, has_min=True, has_max=True):
    """clamp with tensor bounds; only the bounds given are passed (a missing one must not promote x). With both,
    PyTorch's clamp kernel has no bool version (with one it runs maximum's or minimum's, which has)."""
    if has_min and has_max and x.dtype == jnp.bool_:
        raise NotImplementedError('"clamp_cpu" not implemented for \'Bool\'')
    return _clamp(x, bounds[0] if has_min else None, bounds[-1] if has_max else None)


_CLAMP_REFUSALS = {"c": (NotImplementedError, "clamp is not supported for complex types")}
CLAMP_SCALAR = declare("clamp", _clamp_scalar, grad_name="ClampBackward1", accepts="if", refusals=_CLAMP_REFUSALS,
                       kernel=lambda array, min=None, max=None: "clamp_scalar_cpu" if min is not None and max is not None
                       else "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
CLAMP_TENSOR = declare("clamp", _clamp_tensors, grad_name="ClampBackward0", accepts="bif",
                       kernel=lambda array, has_min, has_max: "clamp_cpu" if has_min and has_max else
                       "maximum_cpu" if has_min else "minimum_cpu")
# clamp_min / clamp_max are ops of their own in PyTorch (their grad_fn names differ from clamp's).
CLAMP_MIN_SCALAR = declare("clamp_min", lambda x, min: _clamp_scalar(x, min=min), grad_name="ClampMinBackward0",
                           accepts="if", refusals=_CLAMP_REFUSALS, kernel="clamp_min_scalar_cpu")
CLAMP_MAX_SCALAR = declare("clamp_max", lambda x, max: _clamp_scalar(x, max=max), grad_name="ClampMaxBackward0",
                           accepts="if", refusals=_CLAMP_REFUSALS, kernel="clamp_max_scalar_cpu")
CLAMP_MIN_TENSOR = declare("clamp_min", lambda x, lo: _clamp(x, lo, None), grad_name="ClampMinBackward1",
                           accepts="bif", kernel="maximum_cpu")
CLAMP_MAX_TENSOR = declare("clamp_max", lambda x, hi: _clamp(x, None, hi), grad_name="ClampMaxBackward1",
                           accepts="bif", kernel="minimum_cpu")
WHERE = declare("where", lambda cond, x, y: jnp.where(cond, x, y), promote_from=1, unlisted=frozenset({0}))
# lerp with a tensor weight is PyTorch's Tensor overload; with a number, its Scalar one (LERP_SCALAR, below).
LERP = declare("lerp", lambda start, end, weight: start + weight * (end - start), opmath=True, opmath_numbers=True,
               grad_name="LerpBackward1")
LERP_SCALAR = overload(LERP, "LerpBackward0", frozenset({2}))
ADDCMUL = declare("addcmul", lambda x, a, b, value=1: x + value * a * b, opmath=True, accepts="ifc",
                  kernel="addcmul_cpu_out")
ADDCDIV = declare("addcdiv", lambda x, a, b, value=1: x + value * a / b, opmath=True)
