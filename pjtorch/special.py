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
