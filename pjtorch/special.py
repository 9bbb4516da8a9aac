"""torch.special: PyTorch's special functions under their scipy-style names.

Most are pjtorch functions already (`expit` is `sigmoid`, `gammaln` is `lgamma`, ...) and are re-exported, so their
grad_fn is the node PyTorch records for them. The rest are elementwise ops declared here from jax.scipy.special,
named as PyTorch names their backward nodes (SpecialErfcxBackward0, ...). Float32 is evaluated in float64 and
rounded, which agrees with PyTorch's CPU kernels more often than XLA's float32 series do.
"""
from __future__ import annotations

import math

import jax
import jax.numpy as jnp
from jax.scipy import special as jsp

from . import dispatch
from .ops import extra as extra_ops
from .ops import pointwise
from .ops.registry import Op, SAVES_NOTHING
from .tensor import functions as _functions
from .tensor.extra_functions import igamma as gammainc, igammac as gammaincc
from .tensor.extra_functions import mvlgamma as multigammaln, polygamma
from .tensor.extra_functions import _name as _dtype_name
from .tensor.extra_functions import _static
from .tensor.factories import invalid_arguments
from .tensor.functions import REQUIRED, required
from .tensor.tensor import Tensor

__all__ = ["bessel_j0", "bessel_j1", "digamma", "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1",
           "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p", "log_ndtr", "log_softmax", "logit",
           "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "multigammaln", "ndtr", "ndtri", "polygamma",
           "psi", "round", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

_UNARY = _functions.UNARY_FUNCTIONS
erf, erfc, erfinv, exp2, expm1, log1p, i0, sinc = (_UNARY[n] for n in (
    "erf", "erfc", "erfinv", "exp2", "expm1", "log1p", "i0", "sinc"))
expit, gammaln, digamma, logit = _UNARY["sigmoid"], _UNARY["lgamma"], _UNARY["digamma"], _UNARY["logit"]
psi = digamma


def _overload(op: Op, grad_name: str, unlisted: frozenset = frozenset()) -> Op:
    """`op` under another of PyTorch's overload names (a Scalar operand's XlogyBackward1, ...)."""
    return Op(op.name, op.fn, grad_name=grad_name, saves=op.saves, promote=op.promote, promote_from=op.promote_from,
              hidden_inputs=op.hidden_inputs, unlisted=op.unlisted | unlisted, elementwise=op.elementwise)


_BINARY_OVERLOADS = ("Tensor input, Tensor other, *, Tensor out = None",
                     "Number self, Tensor other, *, Tensor out = None",
                     "Tensor input, Number other, *, Tensor out = None")


def _check_a_tensor_operand(name: str, operands: tuple) -> None:
    """Two numbers match none of a binary special function's overloads."""
    if not any(isinstance(x, Tensor) for x in operands):
        raise invalid_arguments(f"special_{name}", operands, {}, _BINARY_OVERLOADS)


def _binary(name: str, op: Op, grad_name: str, detach_first: bool = False):
    """A binary function whose node names the overload PyTorch picks: Backward1 for a number first operand,
    Backward2 for a number second one."""
    ops = (op, _overload(op, grad_name + "1", frozenset({0})), _overload(op, grad_name + "2", frozenset({1})))

    def run(input, other) -> Tensor:
        _check_a_tensor_operand(name, (input, other))
        chosen = ops[2] if not isinstance(other, Tensor) else ops[1] if not isinstance(input, Tensor) else ops[0]
        return dispatch.apply(chosen, (_functions.as_operand(input, "input"), _functions.as_operand(other)))

    run.__name__ = run.__qualname__ = name
    return run


xlogy = _binary("xlogy", pointwise.BINARY["xlogy"], "XlogyBackward")
_ROUND = _overload(pointwise.SAME_UNARY["round"], "RoundBackward1")
_ADD_SCALAR = Op("add", lambda x, other: x + jnp.asarray(other, x.dtype), grad_name="AddBackward1", promote="none",
                 saves=SAVES_NOTHING)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """PyTorch's special.round always passes `decimals`, so its node is the decimals overload's (RoundBackward1),
    whose kernel refuses integers."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"round_vml_cpu" not implemented for \'{_dtype_name(input.dtype)}\'')
    return dispatch.apply(_ROUND, (input,), _static(decimals=decimals))


def _times(input: Tensor, factor: float) -> Tensor:
    return dispatch.apply(extra_ops.SCALAR_MUL, (input,), _static(factor=factor))


def ndtr(input: Tensor) -> Tensor:
    """The standard normal CDF, composed as PyTorch's C++ composes it: (1 + erf(x * sqrt(1/2))) * 0.5 with number
    operands (MulBackward1, AddBackward1, ErfBackward0, MulBackward1)."""
    input = input if input.dtype.is_floating_point else input.float()
    return _times(dispatch.apply(_ADD_SCALAR, (erf(_times(input, math.sqrt(0.5))),), _static(other=1)), 0.5)


def softmax(input: Tensor, dim: int = REQUIRED, dtype=None) -> Tensor:
    required("special_softmax", dim=dim)
    return _functions.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int = REQUIRED, *args, dtype=None) -> Tensor:
    """Unlike special.softmax, its dtype is keyword-only."""
    if args:
        raise TypeError(f"special_log_softmax() takes 2 positional arguments but {2 + len(args)} were given")
    required("special_log_softmax", dim=dim)
    return _functions.log_softmax(input, dim, dtype=dtype)


def logsumexp(input: Tensor, dim=REQUIRED, keepdim: bool = False) -> Tensor:
    required("special_logsumexp", dim=dim)
    return _functions.logsumexp(input, dim, keepdim)


# ----- ops declared here --------------------------------------------------------------------------------------

def _in_float64(fn):
    """Evaluates float32 in float64 and rounds once."""
    def run(*arrays):
        if arrays[0].dtype == jnp.float32:
            return fn(*(a.astype(jnp.float64) for a in arrays)).astype(jnp.float32)
        return fn(*arrays)

    return run


def _wide_only(fn, kernel: str):
    """`fn` for float32/float64 only: PyTorch has no half-precision CPU kernel for these (checked while tracing)."""
    def run(*arrays):
        for array in arrays:
            if array.dtype not in (jnp.float32, jnp.float64):
                name = pointwise.SCALAR_NAMES[array.dtype]
                raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')
        return fn(*arrays)

    return run


def _bessel_asymptotic(x, order: int):
    """Hankel's expansion of J_order for large x, where the series the recurrence sums needs too many terms."""
    mu, factor = 4.0 * order * order, 1 / (8 * x)
    p, q, term = jnp.ones_like(x), jnp.zeros_like(x), jnp.ones_like(x)
    for k in range(1, 12):
        term = term * (mu - (2 * k - 1) ** 2) * factor / k
        if k % 2:
            q = q + (-1) ** (k // 2) * term
        else:
            p = p + (-1) ** (k // 2) * term
    phase = x - (order / 2 + 0.25) * math.pi
    return jnp.sqrt(2 / (math.pi * x)) * (p * jnp.cos(phase) - q * jnp.sin(phase))


def _bessel_series(x, order: int):
    """The power series of J_order, for small x (where JAX's recurrence gives NaN)."""
    square, term = -x * x / 4, (x / 2) ** order
    total = term
    for k in range(1, 20):
        term = term * square / (k * (k + order))
        total = total + term
    return total


def _bessel_jn(order: int):
    """J0 (even) and J1 (odd) from |x|: the power series up to 2, JAX's recurrence up to 40, Hankel's expansion
    above (the recurrence would need ever more terms)."""
    def run(x):
        a = jnp.abs(x)
        middle = jsp.bessel_jn(jnp.clip(a, 2, 40), v=order, n_iter=100)[order]
        value = jnp.where(a <= 40, middle, _bessel_asymptotic(jnp.maximum(a, 40), order))
        value = jnp.where(a < 2, _bessel_series(jnp.minimum(a, 2), order), value)
        return value if order == 0 else jnp.sign(x) * value

    return run


def _erfcx(x):
    """JAX's erfcx underflows to 0 beyond x = 26; there the asymptotic series is exact to rounding."""
    big = jnp.maximum(x, 25)
    inverse_square = 1 / (2 * big * big)
    series, term = jnp.ones_like(x), jnp.ones_like(x)
    for k in range(1, 8):
        term = -term * (2 * k - 1) * inverse_square
        series = series + term
    return jnp.where(x > 25, series / (big * math.sqrt(math.pi)), jsp.erfcx(x))


def _log_ndtr(x):
    """For positive x, log1p of the upper tail: JAX's log(ndtr(x)) loses the tail's digits there."""
    return jnp.where(x > 0, jnp.log1p(-0.5 * jsp.erfc(jnp.maximum(x, 0) * math.sqrt(0.5))), jsp.log_ndtr(x))


def _spherical_bessel_j0(x):
    """sin(x) / x: 1 at 0 and 0 at the infinities (where sin is nan)."""
    safe = jnp.where(x == 0, 1, x)
    return jnp.where(x == 0, 1, jnp.where(jnp.isinf(x), 0, jnp.sin(safe) / safe))


@jax.custom_jvp
def _entr(x):
    """-x log x; at 0 it is +0 (JAX's -0 * log 0 would print as -0.)."""
    return jnp.where(x == 0, jnp.zeros_like(x), jsp.entr(x))


@_entr.defjvp
def _entr_jvp(primals, tangents):
    """-(1 + log x), as PyTorch differentiates it (inf at 0, nan below)."""
    (x,), (tx,) = primals, tangents
    return _entr(x), -(1 + jnp.log(x)) * tx


@jax.custom_jvp
def _zeta(x, q):
    return jsp.zeta(x, q)


@_zeta.defjvp
def _zeta_jvp(primals, tangents):
    """d/dq is -x zeta(x + 1, q); PyTorch has no derivative in x, so none flows there."""
    (x, q), (_, tq) = primals, tangents
    return _zeta(x, q), -x * _zeta(x + 1, q) * tq


# name: (fn, grad_name, half precision allowed). All promote integers to the default float dtype.
_DIFFERENTIABLE = {
    "erfcx": (_erfcx, "SpecialErfcxBackward0", False),
    "i0e": (jsp.i0e, "SpecialI0EBackward0", True),
    "i1": (jsp.i1, "SpecialI1Backward0", True),
    "i1e": (jsp.i1e, "SpecialI1EBackward0", True),
    "ndtri": (jsp.ndtri, "SpecialNdtriBackward0", False),
    "log_ndtr": (_log_ndtr, "SpecialLogNdtrBackward0", False),
    "entr": (_entr, "SpecialEntrBackward0", True),
    "xlog1py": (jsp.xlog1py, "SpecialXlog1PyBackward0", True),
    "zeta": (_zeta, "SpecialZetaBackward0", False),
}
# Functions PyTorch does not differentiate: their results never require grad.
_NOT_DIFFERENTIABLE = {
    "bessel_j0": (_bessel_jn(0), False),
    "bessel_j1": (_bessel_jn(1), False),
    "modified_bessel_i0": (jsp.i0, False),
    "modified_bessel_i1": (jsp.i1, False),
    "spherical_bessel_j0": (_spherical_bessel_j0, False),
}


def _declare(name: str, fn, half: bool, **options):
    kernel = name + "_cpu"
    if half:
        return pointwise.declare(name, _in_float64(fn), accepts="bif", kernel=kernel, opmath=True,
                                 promote="float", **options)
    return pointwise.declare(name, _wide_only(_in_float64(fn), kernel), promote="float", **options)


_OPS = {name: _declare(name, fn, half, grad_name=grad) for name, (fn, grad, half) in _DIFFERENTIABLE.items()}
_OPS.update({name: _declare(name, fn, half, saves=SAVES_NOTHING) for name, (fn, half) in _NOT_DIFFERENTIABLE.items()})


def _function(name: str):
    detach = name in _NOT_DIFFERENTIABLE

    def run(*operands) -> Tensor:
        if len(operands) == 2:
            _check_a_tensor_operand(name, operands)
        operands = tuple(x.detach() if detach and isinstance(x, Tensor) else x for x in operands)
        return dispatch.apply(_OPS[name], operands)

    run.__name__ = run.__qualname__ = name
    return run


globals().update({name: _function(name) for name in _OPS})
xlog1py = _binary("xlog1py", _OPS["xlog1py"], "SpecialXlog1PyBackward")
zeta = _binary("zeta", _OPS["zeta"], "SpecialZetaBackward")


# ----- orthogonal polynomials (x, n): not differentiable, float32/float64 only --------------------------------

def _degree_recurrence(n, p0, p1, step):
    """Degree n of a three-term recurrence, elementwise with per-element n: `step(k, p, q)` is degree k + 1 from
    degrees k - 1 (p) and k (q); steps past an element's own degree leave it alone."""
    def body(k, pq):
        p, q = pq
        advance = k < n
        r = step(k, p, q)
        return jnp.where(advance, q, p), jnp.where(advance, r, q)

    _, q = jax.lax.fori_loop(1, jnp.max(n, initial=1), body, (p0, p1))
    return jnp.where(n == 0, p0, q)


def _polynomial(first, step, special=lambda x, n, value: value, shift: bool = False):
    """A polynomial family from its degree-1 member `first(x)` and `step`; `special(x, n, value)` overrides the
    recurrence where PyTorch uses a closed form (the ends of the interval, cosines for high degrees)."""
    def run(x, n):
        x, n = jnp.broadcast_arrays(x, n)
        n = jnp.trunc(n).astype(jnp.int64)
        y = 2 * x - 1 if shift else x
        one = jnp.ones_like(x)
        value = _degree_recurrence(n, one, first(y), lambda k, p, q: step(k, y, p, q))
        return jnp.where(n < 0, jnp.zeros_like(x), special(y, n, value))

    return run


def _odd_sign(n, value):
    return jnp.where(n % 2 == 0, value, -value)


def _chebyshev_t_special(x, n, value, threshold: int = 6):
    inside = (n > threshold) & (jnp.abs(x) < 1)
    value = jnp.where(inside, jnp.cos(n * jnp.arccos(jnp.clip(x, -1, 1))), value)
    return jnp.where(jnp.abs(x) == 1, jnp.where(x > 0, 1.0, _odd_sign(n, 1.0)).astype(x.dtype), value)


def _chebyshev_u_special(x, n, value, threshold: int = 8):
    theta = jnp.arccos(jnp.clip(x, -1, 1))
    sine = jnp.sin(theta)
    closed = jnp.where(sine != 0, jnp.sin((n + 1) * theta) / jnp.where(sine != 0, sine, 1),
                       (n + 1) * jnp.cos((n + 1) * theta) / x)
    value = jnp.where((n > threshold) & (jnp.abs(x) < 1), closed, value)
    return jnp.where(jnp.abs(x) == 1, jnp.where(x > 0, n + 1, _odd_sign(n, n + 1)).astype(x.dtype), value)


def _chebyshev_v_special(x, n, value, threshold: int = 8):
    theta = jnp.arccos(jnp.clip(x, -1, 1))
    closed = jnp.where(jnp.sin(theta / 2) != 1, jnp.cos((n + 0.5) * theta) / jnp.cos(theta / 2),
                       _odd_sign(n, 2 * n + 1))
    value = jnp.where((n > threshold) & (jnp.abs(x) < 1), closed, value)
    return jnp.where(jnp.abs(x) == 1, jnp.where(x > 0, 1, _odd_sign(n, 2 * n + 1)).astype(x.dtype), value)


def _chebyshev_w_special(x, n, value, threshold: int = 8):
    theta = jnp.arccos(jnp.clip(x, -1, 1))
    ends = jnp.where(x > 0, 2 * n + 1, _odd_sign(n, 1)).astype(x.dtype)
    closed = jnp.where(jnp.cos(theta / 2) != 1, jnp.sin((n + 0.5) * theta) / jnp.sin(theta / 2), ends)
    value = jnp.where((n > threshold) & (jnp.abs(x) < 1), closed, value)
    return jnp.where(jnp.abs(x) == 1, ends, value)


def _legendre_special(x, n, value):
    return jnp.where(jnp.abs(x) == 1, jnp.where((x > 0) | (n == 0), 1, _odd_sign(n, 1)).astype(x.dtype), value)


def _laguerre_special(x, n, value):
    return jnp.where(x == 0, jnp.ones_like(x), value)


def _chebyshev_step(k, x, p, q):
    return 2 * x * q - p


_POLYNOMIALS = {
    "chebyshev_polynomial_t": _polynomial(lambda x: x, _chebyshev_step, _chebyshev_t_special),
    "chebyshev_polynomial_u": _polynomial(lambda x: 2 * x, _chebyshev_step, _chebyshev_u_special),
    "chebyshev_polynomial_v": _polynomial(lambda x: 2 * x - 1, _chebyshev_step, _chebyshev_v_special),
    "chebyshev_polynomial_w": _polynomial(lambda x: 2 * x + 1, _chebyshev_step, _chebyshev_w_special),
    "shifted_chebyshev_polynomial_t": _polynomial(lambda x: x, _chebyshev_step, _chebyshev_t_special, shift=True),
    "shifted_chebyshev_polynomial_u": _polynomial(
        lambda x: 2 * x, _chebyshev_step, lambda x, n, v: _chebyshev_u_special(x, n, v, 6), shift=True),
    "shifted_chebyshev_polynomial_v": _polynomial(
        lambda x: 2 * x - 1, _chebyshev_step, lambda x, n, v: _chebyshev_v_special(x, n, v, 6), shift=True),
    "shifted_chebyshev_polynomial_w": _polynomial(
        lambda x: 2 * x + 1, _chebyshev_step, lambda x, n, v: _chebyshev_w_special(x, n, v, 4), shift=True),
    "hermite_polynomial_h": _polynomial(lambda x: 2 * x, lambda k, x, p, q: 2 * x * q - 2 * k * p),
    "hermite_polynomial_he": _polynomial(lambda x: x, lambda k, x, p, q: x * q - k * p),
    "laguerre_polynomial_l": _polynomial(lambda x: 1 - x, lambda k, x, p, q: ((2 * k + 1 - x) * q - k * p) / (k + 1),
                                         _laguerre_special),
    "legendre_polynomial_p": _polynomial(lambda x: x, lambda k, x, p, q: ((2 * k + 1) * x * q - k * p) / (k + 1),
                                         _legendre_special),
}
# Evaluated in the input's own precision, as PyTorch's kernels are (its float32 cosines are not exact integers).
_POLYNOMIAL_OPS = {name: pointwise.declare(name, _wide_only(fn, name + "_cpu"), promote="float", saves=SAVES_NOTHING)
                   for name, fn in _POLYNOMIALS.items()}


def _polynomial_function(name: str):
    overloads = ("Tensor x, Tensor n, *, Tensor out = None", "Number x, Tensor n, *, Tensor out = None",
                 "Tensor x, Number n, *, Tensor out = None")

    def run(input, n) -> Tensor:
        if not isinstance(input, Tensor) and not isinstance(n, Tensor):
            raise invalid_arguments(f"special_{name}", (input, n), {}, overloads)
        operands = tuple(x.detach() if isinstance(x, Tensor) else x for x in (input, n))
        return dispatch.apply(_POLYNOMIAL_OPS[name], operands)

    run.__name__ = run.__qualname__ = name
    return run


globals().update({name: _polynomial_function(name) for name in _POLYNOMIALS})
__all__ += sorted(_POLYNOMIALS)


# ----- Bessel functions of the second kind, Airy's Ai (float64 throughout) -----------------------------------

_EULER_GAMMA = 0.5772156649015329


def _hankel_terms(x, order: float, terms: int):
    """Hankel's asymptotic P and Q for order `order` (accurate to rounding where x is above ~12)."""
    mu, factor = 4.0 * order * order, 1 / (8 * x)
    p, q, term = jnp.ones_like(x), jnp.zeros_like(x), jnp.ones_like(x)
    for k in range(1, terms):
        term = term * (mu - (2 * k - 1) ** 2) * factor / k
        if k % 2:
            q = q + (-1) ** (k // 2) * term
        else:
            p = p + (-1) ** (k // 2) * term
    return p, q


def _bessel_y_series(x, order: int):
    """Y0 and Y1 from their power series about 0 (x up to 12), J alongside."""
    half, square = x / 2, -x * x / 4
    log_part = (2 / math.pi) * (jnp.log(half) + _EULER_GAMMA)
    if order == 0:
        j, s, term, harmonic = jnp.ones_like(x), jnp.zeros_like(x), jnp.ones_like(x), 0.0
        for k in range(1, 60):
            term = term * square / (k * k)
            harmonic += 1 / k
            j, s = j + term, s + harmonic * term
        return log_part * j - (2 / math.pi) * s
    term = half
    j, s, harmonic = term, term, 1.0
    for k in range(1, 60):
        term = term * square / (k * (k + 1))
        harmonic_next = harmonic + 1 / k + 1 / (k + 1)
        j, s = j + term, s + harmonic_next * term
        harmonic = harmonic_next
    return log_part * j - 2 / (math.pi * x) - s / math.pi


def _bessel_y(order: int):
    """Y_order for x > 0: the series up to 12, Hankel's expansion above; -inf at 0, nan below and at inf."""
    def run(x):
        small = _bessel_y_series(jnp.clip(x, 1e-300, 12), order)
        big = jnp.maximum(x, 12)
        p, q = _hankel_terms(big, order, 24)
        phase = big - (order / 2 + 0.25) * math.pi
        large = jnp.sqrt(2 / (math.pi * big)) * (p * jnp.sin(phase) + q * jnp.cos(phase))
        value = jnp.where(x <= 12, small, large)
        value = jnp.where(x == 0, -jnp.inf, value)
        return jnp.where((x < 0) | jnp.isinf(x), jnp.nan, value)

    return run


def _bessel_k_series(x, order: int):
    """K0 and K1 from their power series about 0 (x up to 2)."""
    half, square = x / 2, x * x / 4
    if order == 0:
        i, s, term, harmonic = jnp.ones_like(x), jnp.zeros_like(x), jnp.ones_like(x), 0.0
        for k in range(1, 30):
            term = term * square / (k * k)
            harmonic += 1 / k
            i, s = i + term, s + harmonic * term
        return -(jnp.log(half) + _EULER_GAMMA) * i + s
    term = half
    i, s, harmonic = term, (1 - 2 * _EULER_GAMMA) * term, 1 - 2 * _EULER_GAMMA
    for k in range(1, 30):
        term = term * square / (k * (k + 1))
        harmonic += 1 / k + 1 / (k + 1)
        i, s = i + term, s + harmonic * term
    return 1 / x + jnp.log(half) * i - s / 2


def _scaled_k_integral(x, order: float, upper: float = 4.0, step: float = 0.05):
    """e^x K_order(x) = ∫ exp(-x (cosh t - 1)) cosh(order t) dt over t >= 0, by the trapezoid rule (exponentially
    accurate for this integrand) for x in [2, 20]."""
    t = jnp.arange(0.0, upper + step / 2, step)
    weights = jnp.full(t.shape, step).at[0].set(step / 2)
    integrand = jnp.exp(-x[..., None] * (jnp.cosh(t) - 1)) * jnp.cosh(order * t)
    return (integrand * weights).sum(-1)


def _scaled_k_asymptotic(x, order: float):
    mu, term, total = 4.0 * order * order, jnp.ones_like(x), jnp.ones_like(x)
    for k in range(1, 30):
        term = term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)
        total = total + term
    return jnp.sqrt(math.pi / (2 * x)) * total


def _scaled_k(x, order: int):
    """e^x K_order(x) for x > 0."""
    middle = _scaled_k_integral(jnp.clip(x, 2, 20), order)
    value = jnp.where(x <= 20, middle, _scaled_k_asymptotic(jnp.maximum(x, 20), order))
    return jnp.where(x <= 2, jnp.exp(x) * _bessel_k_series(jnp.clip(x, 1e-300, 2), order), value)


def _bessel_k(order: int, scaled: bool):
    """K_order or e^x K_order: inf at 0, nan below, 0 at inf."""
    def run(x):
        positive = jnp.clip(x, 1e-300, 1e300)
        value = _scaled_k(positive, order)
        if not scaled:
            value = jnp.where(x <= 2, _bessel_k_series(jnp.clip(x, 1e-300, 2), order), value * jnp.exp(-positive))
        value = jnp.where(jnp.isinf(x), 0.0, value)
        value = jnp.where(x == 0, jnp.inf, value)
        return jnp.where(x < 0, jnp.nan, value)

    return run


_AI0, _AIP0 = 0.3550280538878172, -0.2588194037928068


def _airy_series(x):
    """Ai from its Maclaurin series (|x| up to 8)."""
    cube = x ** 3
    f, g = jnp.ones_like(x), x
    f_term, g_term = jnp.ones_like(x), x
    for k in range(1, 60):
        f_term = f_term * cube / ((3 * k - 1) * (3 * k))
        g_term = g_term * cube / ((3 * k) * (3 * k + 1))
        f, g = f + f_term, g + g_term
    return _AI0 * f + _AIP0 * g


def _airy_coefficients(count: int) -> list:
    """u_k of the Airy asymptotic expansions: u_0 = 1, u_k = u_{k-1} (6k-5)(6k-3)(6k-1) / (216 k (2k-1))."""
    values = [1.0]
    for k in range(1, count):
        values.append(values[-1] * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / (216 * k * (2 * k - 1)))
    return values


_AIRY_U = _airy_coefficients(24)


def _airy_negative(x):
    """Ai(x) for x <= -8: the oscillating asymptotic expansion in zeta = (2/3) |x|^(3/2)."""
    a = -x
    zeta = (2 / 3) * a ** 1.5
    p, q = jnp.zeros_like(x), jnp.zeros_like(x)
    for k, u in enumerate(_AIRY_U):
        term = u * zeta ** (-k)
        if k % 2:
            q = q + (-1) ** (k // 2) * term
        else:
            p = p + (-1) ** (k // 2) * term
    phase = zeta + math.pi / 4
    return (p * jnp.sin(phase) - q * jnp.cos(phase)) / (math.sqrt(math.pi) * a ** 0.25)


def _airy_positive(x):
    """Ai(x) for x >= 2: sqrt(x/3)/pi K_{1/3}(zeta), underflowing to 0 above ~104 as PyTorch's does."""
    zeta = (2 / 3) * x ** 1.5
    middle = _scaled_k_integral(jnp.clip(zeta, 0.5, 20), 1 / 3, upper=6.0)
    scaled = jnp.where(zeta <= 20, middle, _scaled_k_asymptotic(jnp.maximum(zeta, 20), 1 / 3))
    return jnp.sqrt(x / 3) / math.pi * scaled * jnp.exp(-zeta)


def _airy_ai(x):
    value = jnp.where(x >= 2, _airy_positive(jnp.clip(x, 2, 200)), _airy_series(jnp.clip(x, -8, 2)))
    value = jnp.where(x < -8, _airy_negative(jnp.minimum(x, -8)), value)
    value = jnp.where(x > 103.892, 0.0, value)
    return jnp.where(jnp.isinf(x), jnp.nan, value)


_SECOND_KIND = {
    "airy_ai": _airy_ai,
    "bessel_y0": _bessel_y(0),
    "bessel_y1": _bessel_y(1),
    "modified_bessel_k0": _bessel_k(0, scaled=False),
    "modified_bessel_k1": _bessel_k(1, scaled=False),
    "scaled_modified_bessel_k0": _bessel_k(0, scaled=True),
    "scaled_modified_bessel_k1": _bessel_k(1, scaled=True),
}
_NOT_DIFFERENTIABLE.update({name: (fn, False) for name, fn in _SECOND_KIND.items()})
_OPS.update({name: _declare(name, fn, False, saves=SAVES_NOTHING) for name, fn in _SECOND_KIND.items()})
globals().update({name: _function(name) for name in _SECOND_KIND})
__all__ += sorted(_SECOND_KIND)
