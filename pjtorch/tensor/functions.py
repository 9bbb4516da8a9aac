"""The functional API (`torch.add`, `torch.sum`, ...): PyTorch's signatures over dispatch.

Wrappers only parse arguments (dims, keepdim, dtype) into an op's static parameters and
check what PyTorch checks; every computation is an op from `pjtorch.ops`.
"""
from __future__ import annotations

import builtins
import functools
import warnings
from typing import Sequence

import numpy as np

from .. import dispatch
from .._stack import user_stacklevel
from ..autograd import grad_mode
from ..amp.autocast_mode import cast_inputs
from ..ops import extra as extra_ops, linalg as linalg_ops, pointwise, reduction, shape as shape_ops, strided
from . import dtypes, factories, views
from .return_types import make_return
from .views import numpy_names, wrap_dim_of_dimensioned
from .tensor import Tensor, wrap_dim

# ----- argument helpers ---------------------------------------------------------------------------


def as_operand(value, name: str = "other"):
    """A Tensor or a Python scalar (NumPy scalars become Python ones); anything else is a TypeError."""
    if type(value) is Tensor or isinstance(value, Tensor):
        return value
    if isinstance(value, bool | int | float | complex):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    raise TypeError(f"{name} must be a Tensor or a Number, but got {type(value).__name__}")


REQUIRED = object()  # the default of an argument PyTorch requires, so that its absence gets PyTorch's words


def required(function: str, **arguments) -> None:
    missing = [name for name, value in arguments.items() if value is REQUIRED]
    if missing:
        raise TypeError(f"{function}() missing {len(missing)} required positional arguments: "
                        + ", ".join(f'"{name}"' for name in missing))


def _distinct_dims(dims, ndim: int) -> tuple:
    """`dims` wrapped, in the order given, with PyTorch's error naming the first one repeated."""
    wrapped = tuple(wrap_dim(int(d), ndim) for d in dims)
    for i, d in enumerate(wrapped):
        if d in wrapped[:i]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def dims_arg(dim, ndim: int):
    """None, an int, or a sequence of ints -> None or a sorted tuple of wrapped dims."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return None
        wrapped = _distinct_dims(dim, ndim)
        return tuple(sorted(wrapped)) if ndim else None
    wrapped = wrap_dim(int(dim), ndim)
    return (wrapped,) if ndim else None


def _static(**kwargs) -> tuple:
    return tuple(sorted(kwargs.items()))


def _jax_dtype(dtype):
    return None if dtype is None else dtype.jax


# ----- pointwise ----------------------------------------------------------------------------------

# Unary ops whose options PyTorch also takes positionally, in this order.
_POSITIONAL_OPTIONS = {"logit": ("eps",), "nan_to_num": ("nan", "posinf", "neginf")}


def _options(name: str, args: tuple, options: dict) -> tuple:
    if args:
        names = _POSITIONAL_OPTIONS.get(name, ())
        if len(args) > len(names):
            raise TypeError(f"{name}() takes {len(names) + 1} positional arguments but {len(args) + 1} were given")
        options = {**dict(zip(names, args)), **options}
    if name == "logit" and options.get("eps", 0) is None:
        del options["eps"]
    return _static(**options)


def _unary(op):
    def run(input: Tensor, *args, **options) -> Tensor:
        return dispatch.apply(op, (input,), _options(op.name, args, options))

    def run_(input: Tensor, *args, **options) -> Tensor:
        return dispatch.apply_inplace(op, input, (), _options(op.name, args, options))

    run.__name__, run_.__name__ = op.name, op.name + "_"
    run.plain_op = op  # what the operator methods may dispatch directly for tensor and number operands
    return run, run_


UNARY_FUNCTIONS: dict = {}
for _table in (pointwise.FLOAT_UNARY, pointwise.SAME_UNARY, pointwise.PREDICATES):
    for _name, _op in _table.items():
        UNARY_FUNCTIONS[_name], UNARY_FUNCTIONS[_name + "_"] = _unary(_op)


def _self_unless_complex(name: str):
    """conj, conj_physical and positive return a real tensor itself (no new node), as PyTorch does."""
    general = UNARY_FUNCTIONS[name]

    def run(input: Tensor) -> Tensor:
        if input.dtype is dtypes.bool and name == "positive":
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return general(input) if input.is_complex() else input

    run.__name__ = name
    return run


for _name in ("conj", "conj_physical", "positive"):
    UNARY_FUNCTIONS[_name] = _self_unless_complex(_name)


def resolve_conj(input: Tensor) -> Tensor:
    return input


def resolve_neg(input: Tensor) -> Tensor:
    return input


def is_conj(input: Tensor) -> bool:
    return False


def is_neg(input: Tensor) -> bool:
    return False


def real(input: Tensor) -> Tensor:
    return input.real if input.is_complex() else input


def imag(input: Tensor) -> Tensor:
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return input.imag


# The binary functions that take a Python number first: PyTorch's `Number self` overloads, and the arithmetic
# whose `input` it lets be a number. The others (fmod, copysign, the comparisons) want a tensor first.
_NUMBER_FIRST = frozenset({"mul", "floor_divide", "remainder", "xlogy", "bitwise_and", "bitwise_or", "bitwise_xor",
                           "bitwise_left_shift", "bitwise_right_shift"})


# Of those, the ones PyTorch also runs on two numbers, making the first a 0-dim tensor; the others' `Number self`
# overloads (those listed) refuse a second number, in an error that lists the overloads.
_TWO_NUMBERS = frozenset({"add", "sub", "mul", "div", "true_divide", "floor_divide"})
_NUMBER_SELF = {name: "Number self, Tensor other" for name in (
    "remainder", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")}
_NUMBER_SELF["xlogy"] = "Number self, Tensor other, *, Tensor out = None"


def _number_input(name: str, input, other):
    """`input` as the op takes it when neither operand is a tensor (see _TWO_NUMBERS)."""
    if isinstance(input, Tensor) or isinstance(other, Tensor):
        return input
    if name in _TWO_NUMBERS:
        return factories.tensor(input)
    number_self = _NUMBER_SELF[name]
    if "out" not in number_self:  # PyTorch's parser details its mismatch only there
        number_self = (number_self, f"didn't match because some of the arguments have invalid types: "
                                    f"(!{type(input).__name__}!, !{type(other).__name__}!)")
    raise factories.invalid_arguments(name, (input, other), {}, (
        "Tensor input, Tensor other, *, Tensor out = None", number_self,
        "Tensor input, Number other, *, Tensor out = None"))


def _binary(op):
    """`op` as a function and its in-place form; a number operand picks PyTorch's Scalar overload where that
    records another node (pointwise.SCALAR_OVERLOADS)."""
    first, second = pointwise.SCALAR_OVERLOADS.get(op.name, (None, None))

    def chosen(input, other):
        if second is not None and not isinstance(other, Tensor):
            return second
        return first if first is not None and not isinstance(input, Tensor) else op

    def run(input, other, **options) -> Tensor:
        input, other = as_operand(input, "input"), as_operand(other)
        if not isinstance(input, Tensor):
            if op.name not in _NUMBER_FIRST:
                raise factories.invalid_arguments(op.name, (input, other), {}, (
                    "Tensor input, Tensor other, *, Tensor out = None",
                    "Tensor input, Number other, *, Tensor out = None"))
            input = _number_input(op.name, input, other)
        return dispatch.apply(chosen(input, other), (input, other), _static(**options) if options else ())

    def run_(input: Tensor, other, **options) -> Tensor:
        other = as_operand(other)
        if "alpha" in options:
            options = dict(_alpha(options["alpha"], input, other))
        return dispatch.apply_inplace(chosen(input, other), input, (other,), _static(**options))

    run.__name__, run_.__name__ = op.name, op.name + "_"
    if op.name not in pointwise.SCALAR_OVERLOADS:
        run.plain_op = op  # what the operator methods may dispatch directly for tensor and number operands
    return run, run_


BINARY_FUNCTIONS: dict = {}
for _name, _op in {**pointwise.BINARY, **pointwise.COMPARISONS}.items():
    BINARY_FUNCTIONS[_name], BINARY_FUNCTIONS[_name + "_"] = _binary(_op)


def _alpha(alpha, *operands) -> tuple:
    """`alpha=`, checked as PyTorch checks it against the operands' result dtype."""
    if type(alpha) is builtins.int and alpha == 1:
        return ()
    result = dtypes.operands_result_type(*operands)
    if isinstance(alpha, (builtins.bool, np.bool_)) and result is not dtypes.bool:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if result.category <= dtypes.INTEGER and not isinstance(alpha, (builtins.int, np.integer, np.bool_)):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, builtins.complex) and not result.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex number.")
    return _static(alpha=alpha) if alpha != 1 else ()


def add(input, other, *, alpha=1) -> Tensor:
    input, other = as_operand(input, "input"), as_operand(other)
    input = _number_input("add", input, other)
    return dispatch.apply(pointwise.BINARY["add"], (input, other), _alpha(alpha, input, other))


add.plain_op = pointwise.BINARY["add"]


def _is_bool(x) -> bool:
    return x.dtype is dtypes.bool if isinstance(x, Tensor) else isinstance(x, bool)


def _check_subtraction(input, other) -> None:
    """PyTorch refuses `-` whenever an operand is bool (tensor or Python bool)."""
    if _is_bool(input) and _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
                           "invert a mask, use the `~` or `logical_not()` operator instead.")


def sub(input, other, *, alpha=1) -> Tensor:
    input, other = as_operand(input, "input"), as_operand(other)
    _check_subtraction(input, other)
    input = _number_input("sub", input, other)
    return dispatch.apply(pointwise.BINARY["sub"], (input, other), _alpha(alpha, input, other))


def sub_(input: Tensor, other, *, alpha=1) -> Tensor:
    other = as_operand(other)
    _check_subtraction(input, other)
    return dispatch.apply_inplace(pointwise.BINARY["sub"], input, (other,), _alpha(alpha, input, other))


def rsub(input, other, *, alpha=1) -> Tensor:
    if not isinstance(input, Tensor):
        raise factories.invalid_arguments("rsub", (input, other), {}, (
            "Tensor input, Tensor other, *, Number alpha = 1", "Tensor input, Number other, Number alpha = 1"))
    other = as_operand(other)
    _check_subtraction(input, other)
    if isinstance(other, Tensor):  # `other - input`: broadcast in that order
        pointwise.broadcast_shapes(other._shape, input._shape)
    op = pointwise.BINARY["rsub"] if isinstance(other, Tensor) else pointwise.RSUB_SCALAR
    return dispatch.apply(op, (input, other), _alpha(alpha, input, other))


def _rounding(rounding_mode) -> tuple:
    if rounding_mode not in ("floor", "trunc"):
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    return _static(rounding_mode=rounding_mode)


def div(input, other, *, rounding_mode=None) -> Tensor:
    input, other = as_operand(input, "input"), as_operand(other)
    input = _number_input("div", input, other)
    if rounding_mode is None:
        return dispatch.apply(pointwise.BINARY["div"], (input, other))
    static = _rounding(rounding_mode)
    _check_divisor(pointwise.ROUNDING_DIV, input, other)
    return dispatch.apply(pointwise.ROUNDING_DIV, (input, other), static)


div.plain_op = pointwise.BINARY["div"]


def div_(input: Tensor, other, *, rounding_mode=None) -> Tensor:
    other = as_operand(other)
    if rounding_mode is None:
        return dispatch.apply_inplace(pointwise.BINARY["div"], input, (other,))
    static = _rounding(rounding_mode)
    _check_divisor(pointwise.ROUNDING_DIV, input, other)
    return dispatch.apply_inplace(pointwise.ROUNDING_DIV, input, (other,), static)


def _check_divisor(op, dividend, divisor) -> None:
    """PyTorch's CPU kernels raise for an integer division by zero (its CUDA ones do not). Reading a divisor
    tensor syncs, so it is done only where the division is an integer one."""
    if isinstance(divisor, Tensor):
        if divisor.dtype.category > dtypes.INTEGER or divisor.device.type != "cpu":
            return
    elif divisor != 0 or not isinstance(dividend, Tensor) or dividend.device.type != "cpu":
        return
    if dispatch.promoted_dtype(op, (dividend, divisor)).category != dtypes.INTEGER:
        return
    if isinstance(divisor, Tensor) and isinstance(dividend, Tensor):  # shapes are checked before values
        pointwise.broadcast_shapes(dividend._shape, divisor._shape)
    if not isinstance(divisor, Tensor) or not np.asarray(divisor._value()).all():
        raise RuntimeError("ZeroDivisionError")


_TENSOR_OVERLOADS = {"remainder": pointwise.TENSOR_REMAINDER, "fmod": pointwise.TENSOR_FMOD}


def _integer_division(fn, op):
    """floor_divide, remainder, fmod (and their in-place forms) with PyTorch's integer division-by-zero error.
    remainder and fmod of a tensor by a tensor are PyTorch's Tensor overload (RemainderBackward1, not 0)."""
    overload = _TENSOR_OVERLOADS.get(op.name)

    def run(input, other) -> Tensor:
        tensor_other = isinstance(other, Tensor)
        input, other = as_operand(input, "input"), as_operand(other)
        if not isinstance(input, Tensor) and op.name in _NUMBER_FIRST:
            input = _number_input(op.name, input, other)
        _check_divisor(op, input, other)
        if overload is not None and tensor_other and isinstance(input, Tensor):
            if fn.__name__.endswith("_"):
                return dispatch.apply_inplace(overload, input, (other,))
            return dispatch.apply(overload, (input, other))
        return fn(input, other)

    run.__name__ = fn.__name__
    return run


def _same_dtypes(input: Tensor, values: Tensor) -> None:
    """heaviside's dtype check; complex operands are left to its kernel's refusal, which PyTorch checks first."""
    if input.dtype is not values.dtype and not (input.is_complex() or values.is_complex()):
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")


def _ldexp_exponent(input: Tensor, other: Tensor) -> None:
    """PyTorch's ldexp has no kernel for a bool exponent of a non-bool input."""
    if other.dtype is dtypes.bool and input.dtype is not dtypes.bool:
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")


def _ldexp_target(input: Tensor, other: Tensor) -> None:
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"ldexp can't be cast to the desired output type {_scalar_type_name(input.dtype)}")
    _ldexp_exponent(input, other)


def _tensors_only(fn, other_name: str, check=None):
    """PyTorch's binary ops that take no Python numbers (gcd, ldexp, ...): its TypeError for one, then `check`."""
    def run(input, other) -> Tensor:
        _require_tensor("input", 1, input, fn.__name__)
        _require_tensor(other_name, 2, other, fn.__name__)
        if check is not None:
            check(input, other)
        return fn(input, other)

    run.__name__ = fn.__name__
    return run


def true_divide(input, other) -> Tensor:
    input, other = as_operand(input, "input"), as_operand(other)
    return dispatch.apply(pointwise.BINARY["true_divide"], (_number_input("true_divide", input, other), other))


def _check_integer_power(result: dtypes.dtype, exponent) -> None:
    """PyTorch's refusal of negative integer powers, then of an exponent the result dtype cannot hold (float32 and
    float64 take any, overflowing to inf)."""
    if result.category <= dtypes.INTEGER and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if result not in _WIDE_RESULTS:
        dtypes.checked_scalar(exponent, result)


_WIDE_RESULTS = frozenset({dtypes.bool, dtypes.float32, dtypes.float64})


_REAL_NUMBERS = frozenset({int, float})


def _power_operands(name: str, input, exponent) -> None:
    """pow and float_power want a tensor for the base or the exponent: PyTorch's error for two numbers."""
    if not isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        raise factories.invalid_arguments(name, (input, exponent), {}, (
            "Tensor input, Tensor exponent, *, Tensor out = None", "Number self, Tensor exponent, *, Tensor out = None",
            "Tensor input, Number exponent, *, Tensor out = None"))


def pow(input, exponent) -> Tensor:
    if type(exponent) in _REAL_NUMBERS and type(input) is Tensor and input._storage.dtype.category == dtypes.FLOATING:
        # `x ** 2`, the common case, without the promotion below: a real number keeps a floating tensor's dtype
        if input._storage.dtype not in _WIDE_RESULTS:
            dtypes.checked_scalar(exponent, input._storage.dtype)
        return dispatch.apply(pointwise.SCALAR_POW, (input,), (("dtype", input._storage.dtype.jax),
                                                               ("exponent", exponent)))
    _power_operands("pow", input, exponent)
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        exponent = as_operand(exponent, "exponent")
        result = dtypes.result_type([input.dtype], [], [exponent]) if input._shape else \
            dtypes.result_type([], [input.dtype], [exponent])
        _check_integer_power(result, exponent)
        return dispatch.apply(pointwise.SCALAR_POW, (input,), _static(exponent=exponent, dtype=result.jax))
    if not isinstance(input, Tensor):
        return dispatch.apply(pointwise.RPOW, (exponent, as_operand(input, "input")))
    return dispatch.apply(pointwise.BINARY["pow"], (input, exponent))


def pow_(input: Tensor, exponent) -> Tensor:
    if isinstance(exponent, Tensor):
        return dispatch.apply_inplace(pointwise.BINARY["pow"], input, (exponent,))
    exponent = as_operand(exponent, "exponent")
    result = dtypes.result_type([input.dtype], [], [exponent])
    dispatch._check_castable(result, input.dtype)
    _check_integer_power(result, exponent)
    return dispatch.apply_inplace(pointwise.SCALAR_POW, input, (), _static(exponent=exponent, dtype=input.dtype.jax))


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    return _clamp(input, min, max, inplace=False)


def clamp_(input: Tensor, min=None, max=None) -> Tensor:
    return _clamp(input, min, max, inplace=True)


def _clamp_input(name: str, input, lo, hi) -> None:
    """clamp and its one-sided forms want a tensor first: PyTorch's argument error otherwise."""
    if isinstance(input, Tensor):
        return
    if name == "clamp":
        given, bounds = ((lo, hi) if hi is not None else (lo,)), "{kind} min = None, {kind} max = None"
    else:
        given, bounds = ((lo,) if name == "clamp_min" else (hi,)), "{kind} " + name.removeprefix("clamp_")
    signatures = tuple(f"Tensor input, {bounds.format(kind=kind)}, *, Tensor out = None"
                       for kind in ("Tensor", "Number"))
    raise factories.invalid_arguments(name, (input, *given), {}, signatures)


# PyTorch's refusal of a complex number bounding a real tensor (clamp's only of a floating one), before any promotion.
_COMPLEX_BOUND_OF_FLOAT = {
    "clamp": (RuntimeError, "value cannot be converted to type double without overflow"),
    "clamp_min": (NotImplementedError, "clamp is not supported for complex types"),
    "clamp_max": (NotImplementedError, "clamp is not supported for complex types"),
}


def _clamp(input: Tensor, lo, hi, inplace: bool, name: str = "clamp") -> Tensor:
    _clamp_input(name, input, lo, hi)
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    given = [v for v in (lo, hi) if v is not None]
    if builtins.any(isinstance(v, Tensor) for v in given) and not builtins.all(isinstance(v, Tensor) for v in given):
        # beside a number, PyTorch's parser takes a 0-dim tensor bound as a number too (its Number overload)
        if not builtins.all(v.ndim == 0 for v in given if isinstance(v, Tensor)):
            raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                            f"{', '.join('NoneType' if v is None else type(v).__name__ for v in (lo, hi))}), but "
                            "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = "
                            "None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
        lo, hi = (v.item() if isinstance(v, Tensor) else v for v in (lo, hi))
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        if name == "clamp" and input.is_complex():
            raise NotImplementedError("clamp is not supported for complex types")
        if name == "clamp_min":
            op, others, static = pointwise.CLAMP_MIN_TENSOR, (lo,), ()
        elif name == "clamp_max":
            op, others, static = pointwise.CLAMP_MAX_TENSOR, (hi,), ()
        else:
            op, others = pointwise.CLAMP_TENSOR, tuple(v for v in (lo, hi) if v is not None)
            static = _static(has_min=lo is not None, has_max=hi is not None)
    else:
        lo, hi = (as_operand(v, n) if v is not None else None for v, n in ((lo, "min"), (hi, "max")))
        bounds = [v for v in (lo, hi) if v is not None]
        if builtins.any(isinstance(v, builtins.complex) for v in bounds) and (
                name != "clamp" or input.dtype.category == dtypes.FLOATING):
            error, message = _COMPLEX_BOUND_OF_FLOAT[name]
            raise error(message)
        result = dtypes.result_type([input.dtype] if input._shape else [], [] if input._shape else [input.dtype],
                                    bounds)
        if inplace and not dtypes.can_cast(result, input.dtype):
            raise RuntimeError(f"result type {_scalar_type_name(result)} can't be cast to the desired output type "
                               f"{_c_type_name(input.dtype)}")
        if not inplace and result is not input.dtype:
            input = to_dtype(input, result)
        # the bounds as the kernel converts them: refused where they overflow, wrapped into an unsigned dtype
        lo, hi = (None if v is None else dtypes.checked_scalar(v, result) for v in (lo, hi))
        if name == "clamp_min":
            op, others, static = pointwise.CLAMP_MIN_SCALAR, (), _static(min=lo)
        elif name == "clamp_max":
            op, others, static = pointwise.CLAMP_MAX_SCALAR, (), _static(max=hi)
        else:
            op, others, static = pointwise.CLAMP_SCALAR, (), _static(min=lo, max=hi)
    if inplace:
        return dispatch.apply_inplace(op, input, others, static)
    return dispatch.apply(op, (input, *others), static)


clip, clip_ = clamp, clamp_


def clamp_min(input: Tensor, min) -> Tensor:
    return _clamp(input, min, None, inplace=False, name="clamp_min")


def clamp_max(input: Tensor, max) -> Tensor:
    return _clamp(input, None, max, inplace=False, name="clamp_max")


def clamp_min_(input: Tensor, min) -> Tensor:
    return _clamp(input, min, None, inplace=True, name="clamp_min")


def clamp_max_(input: Tensor, max) -> Tensor:
    return _clamp(input, None, max, inplace=True, name="clamp_max")


def where(condition: Tensor, input=None, other=None) -> Tensor:
    if condition.dtype is dtypes.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning,
                      stacklevel=3)  # past the `out=` wrapper or the method binding, to the caller
        condition = to_dtype(condition, dtypes.bool)
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if condition.dtype is not dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_scalar_type_name(condition.dtype)}")
    return dispatch.apply(pointwise.WHERE, (condition, as_operand(input, "input"), as_operand(other)))


def _scalar_type_name(d: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[d].replace("Tensor", "")


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    check_lerp(input, end, weight)
    return dispatch.apply(lerp_op(weight), (input, end, as_operand(weight, "weight")))


def check_lerp(input: Tensor, end: Tensor, weight) -> None:
    """PyTorch does not promote here: `end` and a dimensioned `weight` must have the input's dtype, checked
    before it looks for a kernel for that dtype."""
    for name, operand in (("end", end), ("weight", weight)):
        if isinstance(operand, Tensor) and (operand._shape or name == "end") and operand.dtype is not input.dtype:
            raise RuntimeError(f"expected dtype {_c_type_name(input.dtype)} for `{name}` but got dtype "
                               f"{_c_type_name(operand.dtype)}")
    if input.dtype.category < dtypes.FLOATING:
        kernel = "lerp_kernel_tensor" if isinstance(weight, Tensor) else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(input.dtype)}\'')


def lerp_op(weight):
    """PyTorch's Tensor overload of lerp for a tensor weight (LerpBackward1), its Scalar one for a number."""
    return pointwise.LERP if isinstance(weight, Tensor) else pointwise.LERP_SCALAR


def addc_value(op, operands: tuple, value):
    """addcmul/addcdiv's `value` as PyTorch takes it: no part in the promotion, but converted to the operands'
    dtype (checked against float for half precision, which it computes in), refused where that overflows."""
    result = dispatch.promoted_dtype(op, operands)
    value = dtypes.checked_scalar(value, dtypes.float32 if result in (dtypes.float16, dtypes.bfloat16) else result)
    return builtins.int(value) if result.category == dtypes.INTEGER else value


def require_tensors(function: str, names: tuple, values: tuple) -> None:
    for position, (name, value) in enumerate(zip(names, values), 1):
        _require_tensor(name, position, value, function)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    require_tensors("addcmul", ("input", "tensor1", "tensor2"), (input, tensor1, tensor2))
    operands = (input, tensor1, tensor2)
    return dispatch.apply(pointwise.ADDCMUL, operands, _static(value=addc_value(pointwise.ADDCMUL, operands, value)))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    require_tensors("addcdiv", ("input", "tensor1", "tensor2"), (input, tensor1, tensor2))
    if tensor1.dtype.category <= dtypes.INTEGER and tensor2.dtype.category <= dtypes.INTEGER:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.")
    operands = (input, tensor1, tensor2)
    return dispatch.apply(pointwise.ADDCDIV, operands, _static(value=addc_value(pointwise.ADDCDIV, operands, value)))


# The generic wrappers above know no alpha, rounding mode or PyTorch's special checks: these replace them.
BINARY_FUNCTIONS.update(add=add, sub=sub, sub_=sub_, rsub=rsub, div=div, div_=div_, true_divide=true_divide,
                        pow=pow, pow_=pow_)
for _name in ("floor_divide", "remainder", "fmod"):
    for _suffix in ("", "_"):
        BINARY_FUNCTIONS[_name + _suffix] = _integer_division(BINARY_FUNCTIONS[_name + _suffix],
                                                              pointwise.BINARY[_name])
for _name, _other_name, _check, _check_ in (("heaviside", "values", _same_dtypes, _same_dtypes),
                                            ("ldexp", "other", _ldexp_exponent, _ldexp_target),
                                            ("nextafter", "other", None, None), ("gcd", "other", None, None),
                                            ("lcm", "other", None, None), ("atan2", "other", None, None),
                                            *((_name, "other", None, None) for _name in (
                                                "maximum", "minimum", "fmax", "fmin", "hypot", "logical_and",
                                                "logical_or", "logical_xor", "logaddexp", "logaddexp2", "igamma",
                                                "igammac") if _name in BINARY_FUNCTIONS)):
    BINARY_FUNCTIONS[_name] = _tensors_only(BINARY_FUNCTIONS[_name], _other_name, _check)
    BINARY_FUNCTIONS[_name + "_"] = _tensors_only(BINARY_FUNCTIONS[_name + "_"], _other_name, _check_)


def _round(decimals) -> tuple:
    """Passing `decimals` at all, 0 included, is PyTorch's decimals overload (RoundBackward1), which refuses
    integers; without it, round leaves integers as they are."""
    if decimals is None:
        return pointwise.SAME_UNARY["round"], ()
    return pointwise.ROUND_DECIMALS, _static(decimals=decimals)


def round(input: Tensor, *, decimals: int | None = None) -> Tensor:
    op, static = _round(decimals)
    return dispatch.apply(op, (input,), static)


def round_(input: Tensor, *, decimals: int | None = None) -> Tensor:
    op, static = _round(decimals)
    return dispatch.apply_inplace(op, input, (), static)


UNARY_FUNCTIONS.update(round=round, round_=round_)


def float_power(input, exponent) -> Tensor:
    """pow in double precision: complex128 where either operand is complex, else float64."""
    _power_operands("float_power", input, exponent)
    complex_operand = builtins.any(x.is_complex() if isinstance(x, Tensor) else isinstance(x, complex)
                                   for x in (input, exponent))
    wide = dtypes.complex128 if complex_operand else dtypes.float64
    input, exponent = (to_dtype(x, wide) if isinstance(x, Tensor) else x for x in (input, exponent))
    return pow(input, exponent)


# ----- reductions ---------------------------------------------------------------------------------

def _check_float_for(name: str, input: Tensor, dtype=None) -> None:
    effective = dtype or input.dtype
    if effective.category < dtypes.FLOATING:
        raise RuntimeError(f"{name}(): could not infer output dtype. {'Input' if dtype is None else 'Optional'} dtype "
                           f"must be either a floating point or complex dtype. Got: {_scalar_type_name(effective)}")


# The overloads of sum and mean: keepdim without a dim matches neither.
_WHOLE_OR_DIMS = {name: (f"Tensor input, *, torch.dtype dtype = None{out}",
                         "Tensor input, tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None, "
                         "Tensor out = None") for name, out in (("sum", ""), ("mean", ", Tensor out = None"))}


def _check_keepdim_has_dim(name: str, input: Tensor, dim, keepdim: bool, dtype) -> None:
    if dim is None and keepdim and dtype is None:
        raise factories.invalid_arguments(name, (input,), {"keepdim": keepdim}, _WHOLE_OR_DIMS[name])


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    _check_keepdim_has_dim("sum", input, dim, keepdim, dtype)
    dims = dims_arg(dim, input.ndim)
    op = reduction.SUM if dim is None and not keepdim else reduction.SUM_DIM  # a given dim names the node, even [] or 0-dim
    return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    dims = dims_arg(dim, input.ndim)  # dims are checked first
    if input.is_complex() and input.device.type == "cpu":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if dtype is not None and dtype.is_complex and input.is_floating_point() and input.device.type == "cpu":
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{_scalar_type_name(dtype)}'")
    return dispatch.apply(reduction.NANSUM, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if isinstance(dim, tuple):  # no overload of prod takes several dims
        raise factories.invalid_arguments("prod", (input, dim), {"dtype": dtype} if dtype else {}, (
            "Tensor input, *, torch.dtype dtype = None",
            "Tensor input, int dim, bool keepdim = False, *, torch.dtype dtype = None, Tensor out = None"))
    dims = None if dim is None else (wrap_dim(int_dim("prod", dim), input.ndim),)  # a 0-dim input: dim -1 or 0
    dims = dims if input.ndim else None
    op = reduction.PROD if dim is None else reduction.PROD_DIM
    return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    _check_keepdim_has_dim("mean", input, dim, keepdim, dtype)
    _check_float_for("mean", input, dtype)
    dims = dims_arg(dim, input.ndim)
    op = reduction.MEAN if dim is None and not keepdim else reduction.MEAN_DIM
    return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_scalar_type_name(input.dtype)}")
    if dtype is not None:
        _check_float_for("nanmean", input, dtype)
    if input.is_complex() and input.device.type == "cpu":
        raise RuntimeError("nansum on CPU does not support complex inputs")
    if dtype is not None and dtype.is_complex and input.device.type == "cpu":
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{_scalar_type_name(dtype)}'")
    return dispatch.apply(reduction.NANMEAN, (input,),
                          _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim, dtype=_jax_dtype(dtype)))


def _check_reduced_dims(name: str, input: Tensor, dims) -> None:
    """PyTorch refuses to reduce an empty dim for ops without an identity (max, argmax, median, ...)."""
    for d in dims if input.ndim else ():
        if input._shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


def int_dim(name: str, dim, position: int | None = None) -> int:
    """A dim PyTorch takes as an int only (prod, max, median, mode, ...): a tuple or list is its TypeError (naming
    the position where PyTorch passes the dim on by position)."""
    if not isinstance(dim, int):
        where = f" (position {position})" if position else ""
        raise TypeError(f"{name}(): argument 'dim'{where} must be int, not {type(dim).__name__}")
    return dim


def _one_dim(name: str, input: Tensor, dim) -> int:
    """The single dim of max(dim), median(dim), kthvalue(...): wrapped, and not empty."""
    dim = wrap_dim(int_dim(name, dim), input.ndim)
    _check_reduced_dims(name, input, (dim,))
    return dim


_UNSET = object()
_EXTREME_SIGNATURES = ("Tensor input, *, Tensor out = None", "Tensor input, Tensor other, *, Tensor out = None",
                       "Tensor input, int dim, bool keepdim = False, *, tuple of Tensors out = None")
_NO_KEEPDIM = "didn't match because some of the keywords were incorrect: keepdim"


def _extreme_arguments(name: str, input: Tensor, dim, keepdim) -> TypeError:
    """max/min given neither a tensor nor one dim, or `keepdim` without a dim: PyTorch's parser error, which says
    which overloads a `keepdim=` rules out."""
    args = (input,) if dim is None else (input, dim)
    if keepdim is _UNSET:
        return factories.invalid_arguments(name, args, {}, _EXTREME_SIGNATURES)
    first, second, third = _EXTREME_SIGNATURES
    refused = ((first, _NO_KEEPDIM), (second, _NO_KEEPDIM) if dim is None else second, third)
    return factories.invalid_arguments(name, args, {"keepdim": keepdim}, refused)


def _extreme(name: str, all_op, dim_op, elementwise: str):
    def run(input: Tensor, dim=None, keepdim: bool = _UNSET):
        if isinstance(dim, Tensor):
            return BINARY_FUNCTIONS[elementwise](input, dim)
        if isinstance(dim, (tuple, list)) or dim is None and keepdim is not _UNSET:  # neither `other` nor one dim
            raise _extreme_arguments(name, input, dim, keepdim)
        keepdim = False if keepdim is _UNSET else keepdim
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            return dispatch.apply(all_op, (input,))
        values, indices = dispatch.apply(dim_op, (input,), _static(dim=_one_dim(name, input, dim), keepdim=keepdim))
        return make_return(name, values=values, indices=indices)

    run.__name__ = name
    return run


max = _extreme("max", reduction.MAX_ALL, reduction.MAX_DIM, "maximum")
min = _extreme("min", reduction.MIN_ALL, reduction.MIN_DIM, "minimum")


def _extreme_value(name: str, op):
    def run(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
        dims = dims_arg(dim, input.ndim)
        if dims is None and input.numel() == 0:
            raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                               "the reduction dim with the 'dim' argument.")
        if dims and input.ndim:  # PyTorch names the dim as given, not wrapped
            for given in (dim if isinstance(dim, (tuple, list)) else (dim,)):
                if input._shape[wrap_dim(int(given), input.ndim)] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {given} to have non-zero size.")
        return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim))

    run.__name__ = name
    return run


amax = _extreme_value("amax", reduction.AMAX)
amin = _extreme_value("amin", reduction.AMIN)


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False):
    dims = dims_arg(dim, input.ndim)
    if dims is None and input.numel() == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                           "identity.")
    if dims and input._shape[dims[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {dims[0]} to have non-zero size.")
    lo, hi = dispatch.apply(reduction.AMINMAX, (input,), _static(dim=dims, keepdim=keepdim))
    return make_return("aminmax", min=lo, max=hi)


def _arg_extreme(name: str, op):
    def run(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
        if dim is not None:
            int_dim(name, dim)
        if input.dtype is dtypes.bool:
            raise RuntimeError(f"{name}(): does not support bool input")
        if dim is None and input.numel() == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        if dim is not None:
            dim = _one_dim(name, input, dim)
        # A 0-dim input has one element, whichever dim is named.
        return dispatch.apply(op, (input,), _static(dim=dim if input.ndim else None, keepdim=keepdim))

    run.__name__ = name
    return run


argmax = _arg_extreme("argmax", reduction.ARGMAX)
argmin = _arg_extreme("argmin", reduction.ARGMIN)


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


_SPREAD_NAMES = {"var_mean": "var_mean", "std_mean": "std_mean"}


# PyTorch's overloads of var, std, var_mean and std_mean (the last two take no `out`).
_SPREAD_SIGNATURES = ("Tensor input, tuple of ints dim, bool unbiased = True, bool keepdim = False{out}",
                      "Tensor input, tuple of ints dim = None, *, Number correction = None, bool keepdim = False{out}",
                      "Tensor input, bool unbiased = True")


def _spread(op):
    def run(input: Tensor, dim=None, unbiased=None, keepdim=None, *, correction=None):
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        elif dim is None and unbiased is not None and keepdim is not None:  # `unbiased` alone takes no keepdim
            out = "" if op.name.endswith("_mean") else ", *, Tensor out = None"
            out_kw = ", Tensor out = None" if out else ""
            raise factories.invalid_arguments(op.name, (input,), {"unbiased": unbiased, "keepdim": keepdim}, (
                _SPREAD_SIGNATURES[0].format(out=out), _SPREAD_SIGNATURES[1].format(out=out_kw), _SPREAD_SIGNATURES[2]))
        keepdim = bool(keepdim)
        if input.dtype.category < dtypes.FLOATING:
            raise RuntimeError(f"{_SPREAD_NAMES.get(op.name, 'std and var')} only support floating point and complex "
                               "dtypes")
        dims, correction = dims_arg(dim, input.ndim), _correction(unbiased, correction)
        if reduction.dof(input._shape, dims, correction) <= 0:
            warnings.warn(f"{'var_mean' if op.name.endswith('_mean') else 'var'}(): degrees of freedom is <= 0. "
                          "Correction should be strictly less than the reduction factor (input numel divided by "
                          "output numel). (Triggered internally at "
                          "/__w/pytorch/pytorch/aten/src/ATen/native/ReduceOps.cpp:1861.)", UserWarning,
                          stacklevel=user_stacklevel())
        return dispatch.apply(op, (input,), _static(dim=dims, correction=correction, keepdim=keepdim))

    run.__name__ = op.name
    return run


var = _spread(reduction.VAR)
std = _spread(reduction.STD)
_var_mean = _spread(reduction.VAR_MEAN)
_std_mean = _spread(reduction.STD_MEAN)


def var_mean(*args, **kwargs) -> tuple:
    return tuple(_var_mean(*args, **kwargs))


def std_mean(*args, **kwargs) -> tuple:
    return tuple(_std_mean(*args, **kwargs))


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    if p is None or p == "fro" and (dim is None or isinstance(dim, builtins.int) or len(dim) <= 2):
        p = 2
    if isinstance(p, str):
        return _matrix_norm(input, p, dim, keepdim, dtype)
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_scalar_type_name(input.dtype)}")
    if dtype is not None:
        if dtype.is_complex and not input.is_complex():
            raise RuntimeError(f"linalg.vector_norm: dtype should be real for real inputs, but got "
                               f"{_scalar_type_name(dtype)}")
        input = input.to(dtype)
    dims = dims_arg(dim, input.ndim)
    _check_norm_identity(input, float(p), dims)
    return dispatch.apply(reduction.NORM, (input,), _static(p=float(p), dim=dims, keepdim=keepdim))


def _matrix_norm(input: Tensor, p: str, dim, keepdim: bool, dtype) -> Tensor:
    """torch.norm's "nuc" (and any other string order): linalg.matrix_norm over the two dims given, or over all."""
    from .. import linalg
    dims = tuple(range(input.ndim)) if dim is None else (dim,) if isinstance(dim, builtins.int) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dims))}")
    return linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype)


def _check_norm_identity(input: Tensor, p: float, dims) -> None:
    """A negative or infinite norm has no value over nothing: PyTorch refuses an empty reduction for it."""
    if not (p < 0 or p == float("inf")):
        return
    if dims is None and not input.numel():
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty tensor because the "
                           f"operation does not have an identity")
    for d in dims or ():
        if input.ndim and not input._shape[d]:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on the dimension {d}because this "
                               f"dimension is empty and the operation does not have an identity")


def _truth_dims(dim, ndim: int):
    """all/any's dims: unlike sum's, an empty tuple of dims reduces none, leaving each element's truth."""
    return () if isinstance(dim, (tuple, list)) and not dim else dims_arg(dim, ndim)


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.ALL, (input,), _static(dim=_truth_dims(dim, input.ndim), keepdim=keepdim))


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.ANY, (input,), _static(dim=_truth_dims(dim, input.ndim), keepdim=keepdim))


def logsumexp(input: Tensor, dim=REQUIRED, keepdim: bool = False) -> Tensor:
    required("logsumexp", dim=dim)
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' must be tuple of ints, not NoneType")
    return dispatch.apply(reduction.LOGSUMEXP, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))


def _scan_dim(name: str, dim) -> int:
    """A scan's or softmax's dim, an int (PyTorch's error counts it as the second argument, as it mostly is)."""
    required(name, dim=dim)
    if not isinstance(dim, int):
        raise TypeError(f"{name}(): argument 'dim' (position 2) must be int, not {type(dim).__name__}")
    return dim


def _scan(op):
    def run(input: Tensor, dim: int = REQUIRED, *, dtype=None) -> Tensor:
        dim = _scan_dim(op.name, dim)
        return dispatch.apply(op, (input,), _static(dim=wrap_dim(dim, input.ndim), dtype=_jax_dtype(dtype)))

    run.__name__ = op.name
    return run


cumsum = _scan(reduction.CUMSUM)
cumprod = _scan(reduction.CUMPROD)


def _running_extreme(op, name):
    def run(input: Tensor, dim: int = REQUIRED):
        dim = _scan_dim(name, dim)
        if not input.ndim and dim not in (-1, 0):
            raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
        values, indices = dispatch.apply(op, (input,), _static(dim=wrap_dim(dim, input.ndim)))
        return make_return(name, values=values, indices=indices)

    run.__name__ = name
    return run


cummax = _running_extreme(reduction.CUMMAX, "cummax")
cummin = _running_extreme(reduction.CUMMIN, "cummin")


def logcumsumexp(input: Tensor, dim: int = REQUIRED) -> Tensor:
    dim = _scan_dim("logcumsumexp", dim)
    return dispatch.apply(reduction.LOGCUMSUMEXP, (input,), _static(dim=wrap_dim(dim, input.ndim)))


def softmax(input: Tensor, dim: int = REQUIRED, dtype=None) -> Tensor:
    """With `dtype`, the input is cast first (so integers may be soft-maxed), as PyTorch does."""
    dim = wrap_dim(_scan_dim("softmax", dim), input.ndim)
    return dispatch.apply(reduction.SOFTMAX, (input if dtype is None else to_dtype(input, dtype),), _static(dim=dim))


def log_softmax(input: Tensor, dim: int = REQUIRED, dtype=None) -> Tensor:
    dim = wrap_dim(_scan_dim("log_softmax", dim), input.ndim)
    return dispatch.apply(reduction.LOG_SOFTMAX, (input if dtype is None else to_dtype(input, dtype),),
                          _static(dim=dim))


def count_nonzero(input: Tensor, dim=None, **options) -> Tensor:
    if options:
        dim_given = () if dim is None else (dim,)
        refused = f"didn't match because some of the keywords were incorrect: {', '.join(options)}"
        raise factories.invalid_arguments("count_nonzero", (input, *dim_given), options, (
            "Tensor input, int dim = None", "Tensor input, tuple of ints dim") if dim_given else (
            ("Tensor input, int dim = None", refused), ("Tensor input, tuple of ints dim", refused)))
    return dispatch.apply(reduction.COUNT_NONZERO, (input,), _static(dim=dims_arg(dim, input.ndim)))


def median(input: Tensor, dim=None, keepdim: bool = False):
    if dim is None:
        return empty_median(input) if _refused_when_empty(input) else dispatch.apply(reduction.MEDIAN_ALL, (input,))
    values, indices = dispatch.apply(reduction.MEDIAN_DIM, (input,),
                                     _static(dim=_one_dim("median", input, dim), keepdim=keepdim))
    return make_return("median", values=values, indices=indices)


def _refused_when_empty(input: Tensor) -> bool:
    """An empty input's median is NaN (in its dtype) before PyTorch looks for a kernel of that dtype."""
    return not input.numel() and (input.dtype is dtypes.bool or input.is_complex())


def empty_median(input: Tensor) -> Tensor:
    return factories.tensor(float("nan"), device=input.device).to(input.dtype)


# ----- matrix products ----------------------------------------------------------------------------

def _c_type_name(d: dtypes.dtype) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "bool": "bool", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}[d.name]


def _dims_text(shape: tuple) -> str:
    return "x".join(str(s) for s in shape)


# PyTorch's checks for each product, in its order (shapes before dtypes), on the shapes it sees after
# matmul has folded or batched its operands.

def _check_mm(a_shape: tuple, b_shape: tuple, a_dtype, b_dtype) -> None:
    if a_shape[1] != b_shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims_text(a_shape)} and "
                           f"{_dims_text(b_shape)})")
    if a_dtype is not b_dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_type_name(a_dtype)} != "
                           f"{_c_type_name(b_dtype)}")


def _check_mv(mat_shape: tuple, vec_size: int, mat_dtype, vec_dtype) -> None:
    if mat_shape[1] != vec_size:
        raise RuntimeError(f"size mismatch, got input ({mat_shape[0]}), mat ({_dims_text(mat_shape)}), "
                           f"vec ({vec_size})")
    if mat_dtype is not vec_dtype:
        vec, mat = _scalar_type_name(vec_dtype), _scalar_type_name(mat_dtype)
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got {vec}, {mat}, and {vec}")


def _check_bmm(a_shape: tuple, b_shape: tuple, a_dtype, b_dtype) -> None:
    if b_shape[:2] != (a_shape[0], a_shape[2]):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{a_shape[0]}, "
                           f"{a_shape[2]}] but got: [{b_shape[0]}, {b_shape[1]}].")
    _check_same_scalar_type(a_dtype, b_dtype)


def _check_same_scalar_type(expected: dtypes.dtype, found: dtypes.dtype) -> None:
    if expected is not found:
        raise RuntimeError(f"expected scalar type {_scalar_type_name(expected)} but found {_scalar_type_name(found)}")


def _require_tensor(name: str, position: int, value, function: str) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul: dot, matrix-vector, matrix-matrix, a batch folded into rows when only the first
    operand has one, and broadcast batched products otherwise; each with that path's checks and messages."""
    _require_tensor("input", 1, input, "matmul")
    _require_tensor("other", 2, other, "matmul")
    input, other = cast_inputs("matmul", input, other)
    a, b = input.ndim, other.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 2 and b == 2:
        return mm(input, other)
    if a == 1 and b == 2:
        _check_mm((1, input._shape[0]), other._shape, input.dtype, other.dtype)
        return views.squeezed_result(mm(input.unsqueeze(0), other), 0)
    if b <= 2:  # the batch folded into the rows of one matrix product, as PyTorch folds it
        rows = (int(np.prod(input._shape[:-1])), input._shape[-1])
        if b == 1:
            _check_mv(rows, other._shape[0], input.dtype, other.dtype)
        else:
            _check_mm(rows, other._shape, input.dtype, other.dtype)
        product = (mv if b == 1 else mm)(input.reshape(rows), other)
        return views.unsafe_view(product, input._shape[:-1] + other._shape[1:])
    _check_batched(input, other)
    return dispatch.apply(linalg_ops.MATMUL["batched"], (input, other))


def _check_batched(input: Tensor, other: Tensor) -> None:
    """The checks of the broadcast batched path: batch dims broadcast, then bmm over their product."""
    left = input._shape if input.ndim > 1 else (1, input._shape[0])
    right = other._shape if other.ndim > 1 else (other._shape[0], 1)
    batch = pointwise.broadcast_shapes(left[:-2], right[:-2])
    count = int(np.prod(batch))
    _check_bmm((count, *left[-2:]), (count, *right[-2:]), input.dtype, other.dtype)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    input, mat2 = cast_inputs("mm", input, mat2)
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_mm(input._shape, mat2._shape, input.dtype, mat2.dtype)
    return dispatch.apply(linalg_ops.MATMUL["mm"], (input, mat2))


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    input, mat2 = cast_inputs("bmm", input, mat2)
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_bmm(input._shape, mat2._shape, input.dtype, mat2.dtype)
    return dispatch.apply(linalg_ops.MATMUL["bmm"], (input, mat2))


def mv(input: Tensor, vec: Tensor) -> Tensor:
    input, vec = cast_inputs("mv", input, vec)
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    _check_mv(input._shape, vec._shape[0], input.dtype, vec.dtype)
    return dispatch.apply(linalg_ops.MATMUL["mv"], (input, vec))


def dot(input: Tensor, other: Tensor) -> Tensor:
    input, other = cast_inputs("dot", input, other)
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_scalar_type_name(input.dtype)} and {_scalar_type_name(other.dtype)}")
    if input._shape[0] != other._shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input._shape[0]}] and src "
                           f"[{other._shape[0]}] to have the same number of elements, but got {input._shape[0]} and "
                           f"{other._shape[0]} elements respectively")
    return dispatch.apply(linalg_ops.MATMUL["dot"], (input, other))


def outer(input: Tensor, vec2: Tensor) -> Tensor:
    for name, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {t.ndim}-D")
    return dispatch.apply(linalg_ops.OUTER, (input, vec2))


ger = outer


def einsum(equation: str, *operands) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    operands = _einsum_operands(equation.replace(" ", ""), cast_inputs("einsum", *operands))
    order = _einsum_permutation(equation.replace(" ", ""), len(operands))
    if order is not None:
        return views.permute(operands[0], order)  # a view, as PyTorch's einsum returns for a pure permutation
    return dispatch.apply(linalg_ops.EINSUM[_einsum_grad_name(equation.replace(" ", ""), len(operands))], operands,
                          _static(equation=equation))


def _einsum_permutation(equation: str, count: int) -> tuple | None:
    """The dims order when the equation only reorders one operand's distinct labels (`'ijk->kij'`), else None."""
    inputs, arrow, output = equation.partition("->")
    if count != 1 or "..." in equation or len(set(inputs)) != len(inputs):
        return None
    if not arrow:
        output = "".join(sorted(inputs))
    if sorted(output) != sorted(inputs):
        return None
    return tuple(inputs.index(label) for label in output)


def _einsum_grad_name(equation: str, count: int) -> str:
    inputs, arrow, output = equation.partition("->")
    labels = inputs.replace("...", "").replace(",", "")
    if not arrow:
        output = "".join(sorted(label for label in set(labels) if labels.count(label) == 1))
    summed = builtins.any(label not in output for label in labels)
    if count == 1:
        return "SumBackward1" if summed else "PermuteBackward0"
    return "ViewBackward0" if summed else "MulBackward0"


def _einsum_operands(equation: str, operands: tuple) -> tuple:
    """PyTorch's checks of an einsum call, and its operands with size-1 dims expanded where a subscript
    broadcasts (PyTorch broadcasts them; XLA requires equal sizes)."""
    inputs, _, output = equation.partition("->")
    terms = inputs.split(",")
    if len(terms) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(terms) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    sizes: dict = {}
    for i, (term, t) in enumerate(zip(terms, operands)):
        labels = term.replace("...", "")
        if "..." not in term and len(labels) != t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) does not match "
                               f"the number of dimensions ({t.ndim}) for operand {i} and no ellipsis was given")
        if len(labels) > t.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({len(labels)}) is more than "
                               f"the number of dimensions ({t.ndim}) for operand {i}")
        for label, size in _einsum_label_sizes(term, t._shape):
            seen = sizes.setdefault(label, size)
            if size != seen and 1 not in (size, seen):
                raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand {i} which does not "
                                   f"broadcast with previously seen size {seen}")
            sizes[label] = builtins.max(size, seen) if 1 in (size, seen) else size
    for position, label in enumerate(output.replace("...", "")):
        if label not in sizes:
            raise RuntimeError(f"einsum(): output subscript {label} does not appear in the equation for any input "
                               "operand")
        if label in output[position + 1:]:
            raise RuntimeError(f"einsum(): output subscript {label} appears more than once in the output")
    for t in operands[1:]:
        _check_same_scalar_type(operands[0].dtype, t.dtype)
    return tuple(_expand_labels(term, t, sizes) for term, t in zip(terms, operands))


def _einsum_label_sizes(term: str, shape: tuple) -> list:
    """(label, size) for each subscript of one operand; an ellipsis stands for the dims no label names."""
    head, _, tail = term.partition("...")
    return list(zip(head, shape[:len(head)])) + list(zip(tail, shape[len(shape) - len(tail):] if tail else ()))


def _expand_labels(term: str, t: Tensor, sizes: dict) -> Tensor:
    head, _, tail = term.partition("...")
    target = list(t._shape)
    for label, dim in list(zip(head, range(len(head)))) + list(zip(tail, range(t.ndim - len(tail), t.ndim))):
        target[dim] = sizes[label]
    return t if tuple(target) == t._shape else t.expand(*target)


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    a, b = cast_inputs("tensordot", a, b)
    dims_a, dims_b = _tensordot_dims(a, b, dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    for da, db in zip(dims_a, dims_b):
        size_a, size_b = a._shape[wrap_dim(da, a.ndim)], b._shape[wrap_dim(db, b.ndim)]
        if size_a != size_b and 1 not in (size_a, size_b):
            raise RuntimeError(f"contracted dimensions need to match, but first has size {size_a} in dim {da} and "
                               f"second has size {size_b} in dim {db}")
        # A contracted dim of size 1 against a longer one: PyTorch sums the longer one out first.
        if size_a == 1 and size_b != 1:
            b = sum(b, db, keepdim=True)
        elif size_b == 1 and size_a != 1:
            a = sum(a, da, keepdim=True)
    axes = (tuple(wrap_dim(d, a.ndim) for d in dims_a), tuple(wrap_dim(d, b.ndim) for d in dims_b))
    return dispatch.apply(linalg_ops.TENSORDOT, (a, b), _static(axes=axes))


def _tensordot_dims(a: Tensor, b: Tensor, dims) -> tuple:
    if isinstance(dims, Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > builtins.min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return tuple(range(-dims, 0)), tuple(range(dims))
    return tuple(tuple(d) if isinstance(d, (list, tuple)) else (d,) for d in dims)


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    input, mat1, mat2 = cast_inputs("addmm", input, mat1, mat2)
    return dispatch.apply(linalg_ops.ADDMM, (input, mat1, mat2), _static(beta=beta, alpha=alpha))


# ----- copies and conversions ---------------------------------------------------------------------

def clone(input: Tensor, *, memory_format: dtypes.memory_format = dtypes.preserve_format) -> Tensor:
    """A copy in its own storage. With preserve_format (the default) a non-contiguous input's layout is kept, as
    PyTorch keeps it: its strides where it is dense, else dense strides in the same order of dims."""
    result = dispatch.apply(shape_ops.CLONE, (input,))
    if input._whole or memory_format is dtypes.contiguous_format:
        return result
    if memory_format is not dtypes.preserve_format:
        raise RuntimeError(f"pjtorch does not support {memory_format}")
    stride = _preserved_strides(input._shape, input._stride)
    return result if stride == result._stride else dispatch.laid_out(result, stride)


@functools.lru_cache(maxsize=4096)
def _preserved_strides(shape: tuple, stride: tuple) -> tuple:
    """PyTorch's empty_like strides under preserve_format: a dense layout as it is, else `infer_dense_strides`
    (dims ordered by stride, stably, a stride-0 dim staying where it is; then packed densely)."""
    if 0 in shape or factories.is_dense(shape, stride):
        return stride if 0 not in shape else strided.contiguous_strides(shape)
    ndim = len(shape)
    perm = list(reversed(range(ndim)))  # innermost first
    for i in range(1, ndim):
        moving = i
        for j in range(i - 1, -1, -1):
            a, b = perm[j], perm[moving]
            if stride[a] == 0 or stride[b] == 0:
                continue
            if stride[a] > stride[b] or stride[a] == stride[b] and shape[a] > shape[b]:
                perm[j], perm[moving] = perm[moving], perm[j]
                moving = j
            elif stride[a] < stride[b]:
                break
    result, running = [0] * ndim, 1
    for d in perm:
        result[d] = running
        running *= builtins.max(shape[d], 1)
    return tuple(result)


def contiguous(input: Tensor, *args, memory_format: dtypes.memory_format = dtypes.contiguous_format) -> Tensor:
    """`input` itself where already contiguous; otherwise a contiguous copy (preserve_format cannot say which)."""
    if args:
        raise TypeError(f"contiguous() takes 0 positional arguments but {len(args)} "
                        f"{'was' if len(args) == 1 else 'were'} given")
    if not isinstance(memory_format, dtypes.memory_format):
        raise TypeError(f"contiguous(): argument 'memory_format' must be torch.memory_format, not "
                        f"{factories.arg_type_name(memory_format)}")
    if input.is_contiguous():
        return input
    if memory_format is dtypes.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    return clone(input, memory_format=dtypes.contiguous_format)


def to_dtype(input: Tensor, dtype: dtypes.dtype) -> Tensor:
    if input.dtype is dtype:
        return input
    _warn_if_discarding_imaginary(input.dtype, dtype)
    return dispatch.apply(shape_ops.TO_DTYPE, (input,), _static(dtype=dtype.jax))


def _warn_if_discarding_imaginary(source: dtypes.dtype, target: dtypes.dtype) -> None:
    if source.is_complex and not target.is_complex and target is not dtypes.bool:
        warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)


def view_as_dtype(input: Tensor, dtype: dtypes.dtype) -> Tensor:
    if dtype.itemsize != input.dtype.itemsize:
        raise RuntimeError("pjtorch supports view(dtype) only between dtypes of the same size")
    return Tensor._wrap(__import__("jax").lax.bitcast_convert_type(input._value(), dtype.jax), input.device)


def copy_(dst: Tensor, other, non_blocking: bool = False) -> Tensor:
    """A Python number is copied as a 0-dim tensor of its default dtype, as PyTorch does (unchecked: 1j into a
    real tensor warns and keeps the real part)."""
    if not isinstance(other, Tensor):
        try:
            other = factories.tensor(as_operand(other), device=dst.device)
        except TypeError:
            raise TypeError(f"copy_(): argument 'other' (position 1) must be Tensor, not "
                            f"{type(other).__name__}") from None
    _check_broadcastable_to(other._shape, dst._shape)
    _warn_if_discarding_imaginary(other.dtype, dst.dtype)
    if other.device != dst.device:
        other = factories.to_device(other, dst.device)
    return dispatch.apply_inplace(shape_ops.COPY, dst, (other,))


def _check_broadcastable_to(source: tuple, target: tuple) -> None:
    pointwise.broadcast_shapes(target, source)  # sizes that cannot broadcast at all: PyTorch's error for the pair
    if len(source) > len(target) or builtins.any(
            s != 1 and s != t for s, t in zip(reversed(source), reversed(target))):
        raise RuntimeError(f"output with shape [{', '.join(map(str, target))}] doesn't match the broadcast shape "
                           f"[{', '.join(map(str, _broadcast_shape(source, target)))}]")


def _broadcast_shape(a: tuple, b: tuple) -> tuple:
    return tuple(np.broadcast_shapes(tuple(a), tuple(b))) if _broadcastable(a, b) else tuple(a)


def _broadcastable(a: tuple, b: tuple) -> bool:
    try:
        np.broadcast_shapes(tuple(a), tuple(b))
        return True
    except ValueError:
        return False


def fill_(input: Tensor, value) -> Tensor:
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                           "dimensions.")
    value = as_operand(value, "value")
    if isinstance(value, Tensor):
        return dispatch.apply_inplace(shape_ops.FILL, input, (value,))
    return dispatch.apply_inplace(shape_ops.FILL_SCALAR, input, (dtypes.checked_scalar(value, input.dtype),))


def zero_(input: Tensor) -> Tensor:
    return dispatch.apply_inplace(shape_ops.ZERO, input, ())


# ----- joining, reordering, triangles -------------------------------------------------------------

def _common_dtype_tensors(tensors: Sequence[Tensor]) -> list:
    common = tensors[0].dtype
    for t in tensors[1:]:
        common = dtypes.promote_types(common, t.dtype)
    return [t if t.dtype is common else to_dtype(t, common) for t in tensors]


def _tensor_list(name: str, tensors) -> list:
    """The joining functions take a sequence of tensors; a tensor itself (iterable as it is) is refused."""
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    return list(tensors)


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return _cat("cat", tensors, dim)


def concat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return _cat("concat", tensors, dim)


def concatenate(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    return _cat("concatenate", tensors, dim)


def _cat(name: str, tensors: Sequence[Tensor], dim: int) -> Tensor:
    """cat and its aliases, each naming itself in its argument errors as PyTorch's parser does."""
    tensors = _tensor_list(name, tensors)
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    for i, t in enumerate(tensors):
        if t.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    joined = [t for t in tensors if not (t.ndim == 1 and t._shape[0] == 0)] or tensors[:1]
    reference = joined[0]
    # Only legacy empty tensors: PyTorch returns an empty result whatever dim says.
    dim = wrap_dim(dim, reference.ndim) if reference._shape != (0,) else 0
    for i, t in enumerate(joined):
        if t.ndim != reference.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {reference.ndim} and {t.ndim}")
        for d in range(reference.ndim):
            if d != dim and t._shape[d] != reference._shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{reference._shape[d]} but got size {t._shape[d]} for tensor number {i} in the "
                                   "list.")
    # Skipped legacy empty tensors still take part in the result's dtype, as in PyTorch.
    common = tensors[0].dtype
    for t in tensors[1:]:
        common = dtypes.promote_types(common, t.dtype)
    joined = [t if t.dtype is common else to_dtype(t, common) for t in joined]
    return dispatch.apply(shape_ops.CAT, joined, _static(dim=dim))


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = _tensor_list("stack", tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    dim = wrap_dim(dim, tensors[0].ndim + 1)
    for i, t in enumerate(tensors[1:], start=1):
        if t._shape != tensors[0]._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0]._shape)} at "
                               f"entry 0 and {list(t._shape)} at entry {i}")
    return dispatch.apply(shape_ops.STACK, _common_dtype_tensors(tensors), _static(dim=dim))


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    tensors = [atleast_1d(t) for t in _tensor_list("hstack", tensors)]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([atleast_2d(t) for t in _tensor_list("vstack", tensors)], 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([_at_least_3d(t) for t in _tensor_list("dstack", tensors)], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    return hstack([t.reshape(-1, 1) if t.ndim <= 1 else t for t in _tensor_list("column_stack", tensors)])


def _at_least_1d(t: Tensor) -> Tensor:
    return t.reshape(1) if t.ndim == 0 else t


def _at_least_2d(t: Tensor) -> Tensor:
    return t.reshape(1, -1) if t.ndim < 2 else t


def _at_least_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.reshape(1, -1, 1)
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return t


def _at_least(name: str, make):
    """PyTorch's atleast_*d: one tensor gives a tensor; several, or one list or tuple of them, a tuple."""
    def run(*tensors):
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return make(tensors[0])
        items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
        return tuple(make(t) for t in items)

    run.__name__ = name
    return run


atleast_1d = _at_least("atleast_1d", _at_least_1d)
atleast_2d = _at_least("atleast_2d", _at_least_2d)
atleast_3d = _at_least("atleast_3d", _at_least_3d)


def _flip(input: Tensor, dims=REQUIRED) -> Tensor:
    required("flip", dims=dims)
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' must be tuple of ints, not {type(dims).__name__}")
    wrapped = _distinct_dims(dims, input.ndim)
    return dispatch.apply(shape_ops.FLIP, (input,), _static(dims=wrapped if input.ndim else ()))  # 0-dim: no flip


def fliplr(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return _flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return _flip(input, (0,))


flip = views.sequence_function(_flip, "flip", "dims")


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:0")
        return dispatch.apply(shape_ops.ROLL, (input,), _static(shifts=shifts, dims=None))
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(dims) != len(shifts):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    if not input.numel():  # nothing to move: the dims are not checked
        return clone(input)
    return dispatch.apply(shape_ops.ROLL, (input,), _static(
        shifts=shifts, dims=tuple(wrap_dim_of_dimensioned(d, input.ndim) for d in dims)))


def repeat(input: Tensor, *repeats) -> Tensor:
    from .views import shape_args

    if not repeats:
        raise TypeError('repeat() missing 1 required positional arguments: "repeats"')
    repeats = shape_args(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    factories.new_shape((tuple(r * s for r, s in zip(repeats, (1,) * (len(repeats) - input.ndim) + input._shape)),))
    return dispatch.apply(shape_ops.REPEAT, (input,), _static(repeats=repeats))


def tile_method(input: Tensor, *args, dims=None) -> Tensor:
    dims = views.int_tuple(views.one_keyword("tile", args, "dims", dims), "tile", "dims")
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


tile = views.sequence_function(tile_method, "tile", "dims")


def repeat_interleave(input: Tensor, repeats=None, dim=None, *, output_size=None) -> Tensor:
    """Each element (or slice along `dim`) repeated; `repeat_interleave(repeats)` alone repeats each index."""
    if repeats is None:
        if input.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        repeats, input = input, factories.arange(input.numel(), dtype=input.dtype, device=input.device)
    size = input._shape[wrap_dim(dim, input.ndim)] if dim is not None else input.numel()
    if isinstance(repeats, Tensor):
        counts = _repeat_counts(repeats, size, 0 if dim is None else dim)
        op, total = shape_ops.REPEAT_INTERLEAVE, builtins.sum(counts) if isinstance(counts, tuple) else counts * size
        if output_size is not None and output_size != total:
            raise RuntimeError("allocated size does not match required size")
    else:
        counts, op, total = int(repeats), shape_ops.REPEAT_INTERLEAVE_INT, int(repeats) * size
        if counts < 0:
            raise RuntimeError("Repeats must be non-negative")
        if output_size is not None and output_size != total:
            raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but got {output_size}")
    return dispatch.apply(op, (input,), _static(repeats=counts, dim=None if dim is None else wrap_dim(dim, input.ndim)))


def _repeat_counts(repeats: Tensor, size: int, dim: int):
    """A repeats tensor as the op takes it (one count as an int, else a tuple), with PyTorch's checks."""
    if repeats.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype not in (dtypes.int32, dtypes.int64):
        raise NotImplementedError(f"\"repeat_interleave_cpu\" not implemented for '{_scalar_type_name(repeats.dtype)}'")
    counts = repeats.reshape(-1).tolist()
    if len(counts) not in (1, size):
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{len(counts)} and input.size({dim}) = {size}")
    if builtins.any(c < 0 for c in counts):
        raise RuntimeError("repeats can not be negative")
    return counts[0] if len(counts) == 1 else tuple(counts)


def _check_matrix_triangle(name: str, input: Tensor) -> None:
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    _check_matrix_triangle("tril", input)
    return dispatch.apply(shape_ops.TRIL, (input,), _static(diagonal=diagonal))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    _check_matrix_triangle("triu", input)
    return dispatch.apply(shape_ops.TRIU, (input,), _static(diagonal=diagonal))


def tril_(input: Tensor, diagonal: int = 0) -> Tensor:
    _check_matrix_triangle("tril", input)
    return dispatch.apply_inplace(shape_ops.TRIL, input, (), _static(diagonal=diagonal))


def triu_(input: Tensor, diagonal: int = 0) -> Tensor:
    _check_matrix_triangle("triu", input)
    return dispatch.apply_inplace(shape_ops.TRIU, input, (), _static(diagonal=diagonal))


def _stable_by_keyword(name: str, input, positional: tuple, options: dict, stable, signatures: tuple) -> dict:
    """sort's and argsort's `dim` and `descending`: PyTorch's overload taking `stable` has them keyword-only."""
    if positional and stable is not None:
        raise factories.invalid_arguments(name, (input, *positional), {**options, "stable": stable}, signatures)
    return {**dict(zip(("dim", "descending"), positional)), **options}


_SORT_SIGNATURES = ("Tensor input, *, bool stable, int dim = -1, bool descending = False, tuple of Tensors out = None",
                    "Tensor input, int dim = -1, bool descending = False, *, tuple of Tensors out = None")
_ARGSORT_SIGNATURES = ("Tensor input, *, bool stable, int dim = -1, bool descending = False, Tensor out = None",
                       ("Tensor input, int dim = -1, bool descending = False",
                        "didn't match because some of the keywords were incorrect: stable"))


def sort(input: Tensor, *positional, stable: bool | None = None, **options):
    return _sort(input, stable=stable, **_stable_by_keyword("sort", input, positional, options, stable,
                                                            _SORT_SIGNATURES))


def _sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool | None = None):
    op = shape_ops.SORT if stable is None else shape_ops.SORT_STABLE
    values, indices = dispatch.apply(op, (input,), _static(dim=wrap_dim(dim, input.ndim),
                                                                       descending=descending))
    # PyTorch lays both results out as a dense input is laid out (x.t().sort() is transposed too).
    stride = strided.elementwise_strides(tuple(input._shape), ((tuple(input._shape), input._stride),))
    if stride != values._stride:
        values, indices = dispatch.laid_out(values, stride), dispatch.laid_out(indices, stride)
    return make_return("sort", values=values, indices=indices)


def argsort(input: Tensor, *positional, stable: bool | None = None, **options) -> Tensor:
    options = _stable_by_keyword("argsort", input, positional, options, stable, _ARGSORT_SIGNATURES)
    return _sort(input, options.get("dim", -1), options.get("descending", False)).indices


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    dim = wrap_dim(dim, input.ndim)
    size = input._shape[dim] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    if input.ndim == 0:  # PyTorch gives a 0-dim input's one element back for k = 0 too
        k = 1
    values, indices = dispatch.apply(shape_ops.TOPK, (input,), _static(k=k, dim=dim, largest=largest))
    return make_return("topk", values=values, indices=indices)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    dim = _one_dim("kthvalue", input, dim)
    if not 1 <= k <= (input._shape[dim] if input.ndim else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    op = shape_ops.KTHVALUE if input.ndim else extra_ops.SCALAR_KTHVALUE  # a 0-dim input of any dtype is its own
    values, indices = dispatch.apply(op, (input,), _static(k=k, dim=dim, keepdim=keepdim))
    return make_return("kthvalue", values=values, indices=indices)


# ----- gathering and scattering -------------------------------------------------------------------

def _check_index(name: str, index: Tensor) -> None:
    if not isinstance(index, Tensor) or index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"{name}(): Expected dtype int32/int64 for index")


def _index_values(index: Tensor) -> np.ndarray:
    """An index tensor's values on the host: checking them is data-dependent, as it is in PyTorch."""
    return index._host_values().reshape(-1)


_EXTREMA: dict = {}  # id(array) -> (array, min, max) for the index arrays checked lately
_EXTREMA_LIMIT = 64


def _storage_extrema(index: Tensor) -> tuple | None:
    """The least and greatest value in an index's whole storage, found once per array (arrays are immutable;
    a NumPy-shared storage is not, so it is not cached)."""
    storage = index._storage
    if storage._host is not None or storage.memory is not storage or storage.device.type != "cpu":
        return None
    array = storage.array
    found = _EXTREMA.get(id(array))
    if found is None or found[0] is not array:
        values = np.asarray(array)
        if not values.size:
            return None
        if len(_EXTREMA) >= _EXTREMA_LIMIT:
            _EXTREMA.clear()
        found = _EXTREMA[id(array)] = (array, values.min(), values.max())
    return found[1], found[2]


def _check_index_bounds(index: Tensor, dim: int, size: int) -> None:
    """Every index in [0, size): at once where the whole storage is (a training loop's fixed labels)."""
    extrema = _storage_extrema(index)
    if extrema is not None and extrema[0] >= 0 and extrema[1] < size:
        return
    values = _index_values(index)
    bad = values[(values < 0) | (values >= size)]
    if bad.size:
        raise RuntimeError(f"index {bad[0]} is out of bounds for dimension {dim} with size {size}")


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    _check_index("gather", index)
    dim = wrap_dim(dim, input.ndim)
    if input.ndim == 0 and index.ndim <= 1:  # a 0-dim input gathers as a vector of one element
        return gather(input.reshape(1), 0, index.reshape(-1)).reshape(index._shape)
    if index.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, (wanted, have) in enumerate(zip(index._shape, input._shape)):
        if d != dim and wanted > have:
            raise RuntimeError(f"Size does not match at dimension {d} expected index {list(index._shape)} to be no "
                               f"larger than self {list(input._shape)} apart from dimension {dim}")
    _check_index_bounds(index, dim, input._shape[dim] if input.ndim else 1)
    return dispatch.apply(shape_ops.GATHER, (input, index), _static(dim=dim))


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    return _scatter(input, dim, index, src if src is not None else value, reduce, inplace=False)


def scatter_(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    return _scatter(input, dim, index, src if src is not None else value, reduce, inplace=True)


def _check_scatter(input: Tensor, dim: int, index: Tensor, src) -> int:
    """PyTorch's checks for scatter and scatter_add, in its order; the wrapped dim."""
    _check_index("scatter", index)
    if isinstance(src, Tensor) and src.dtype is not input.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    dim = wrap_dim(dim, input.ndim)
    for name, other in (("self", input), ("src", src)):
        if isinstance(other, Tensor) and index.ndim != other.ndim:
            raise RuntimeError(f"Index tensor must have the same number of dimensions as {name} tensor")
    too_large = builtins.any(i > s for d, (i, s) in enumerate(zip(index._shape, input._shape)) if d != dim)
    if isinstance(src, Tensor):
        too_large = too_large or builtins.any(i > s for i, s in zip(index._shape, src._shape))
    if too_large:
        raise RuntimeError(f"Expected index {list(index._shape)} to be no larger than self {list(input._shape)} "
                           f"apart from dimension {dim}" + (f" and to be no larger size than src {list(src._shape)}"
                                                            if isinstance(src, Tensor) else ""))
    _check_index_bounds(index, dim, input._shape[dim] if input.ndim else 1)
    return dim


_SCATTER_REDUCE_NAMES = {"add": "sum", "multiply": "prod"}


def _scatter(input, dim, index, src, reduce, inplace):
    dim = _check_scatter(input, dim, index, src)
    if reduce is not None:
        if reduce not in _SCATTER_REDUCE_NAMES:
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor):
            views.warn_once("The reduce argument of torch.scatter with Tensor src is deprecated and will be removed "
                            "in a future PyTorch release. Use torch.scatter_reduce instead for more reduction "
                            "options.")
        op, static = shape_ops.SCATTER_REDUCE, _static(dim=dim, reduce=_SCATTER_REDUCE_NAMES[reduce])
    else:
        op, static = shape_ops.SCATTER if isinstance(src, Tensor) else shape_ops.SCATTER_VALUE, _static(dim=dim)
    if not isinstance(src, Tensor):
        src = _scalar_tensor(src, input)
    if inplace:
        return dispatch.apply_inplace(op, input, (index, src), static)
    return dispatch.apply(op, (input, index, src), static)


def _scalar_tensor(value, like: Tensor) -> Tensor:
    return factories.scalar_tensor(as_operand(value, "value"), dtype=like.dtype, device=like.device)


def _require_src(name: str, src, position: int) -> None:
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position {position}) must be Tensor, not {type(src).__name__}")


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _require_src("scatter_add", src, 4)
    dim = _check_scatter(input, dim, index, src)
    return dispatch.apply(shape_ops.SCATTER_ADD, (input, index, src), _static(dim=dim))


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _require_src("scatter_add_", src, 4)
    dim = _check_scatter(input, dim, index, src)
    return dispatch.apply_inplace(shape_ops.SCATTER_ADD, input, (index, src), _static(dim=dim))


_SCATTER_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _check_scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str) -> tuple:
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch's older names, still taken
    if reduce not in _SCATTER_REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if reduce == "mean" and input.dtype is dtypes.bool:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for 'Bool'")
    return _static(dim=_check_scatter(input, dim, index, src), reduce=reduce)


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    static = _check_scatter_reduce(input, dim, index, src, reduce) + (("include_self", include_self),)
    return dispatch.apply(extra_ops.SCATTER_REDUCE, (input, index, src), tuple(sorted(static)))


def scatter_reduce_(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    static = _check_scatter_reduce(input, dim, index, src, reduce) + (("include_self", include_self),)
    return dispatch.apply_inplace(extra_ops.SCATTER_REDUCE, input, (index, src), tuple(sorted(static)))


def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    _check_masked_scatter(input, mask, source)
    _check_mask_count(mask.expand(input._shape), source)
    return dispatch.apply_inplace(shape_ops.MASKED_SCATTER, input, (mask, source))


def _check_masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> None:
    """masked_scatter's dtype checks, in PyTorch's order (a uint8 mask is warned about, then refused)."""
    if source.dtype is not input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but got"
                           f"{_scalar_type_name(input.dtype)} and {_scalar_type_name(source.dtype)}")
    if mask.dtype is dtypes.uint8:
        warnings.warn("masked_scatter_ received a mask with dtype torch.uint8, this behavior is now deprecated,"
                      "please use a mask with dtype torch.bool instead.", UserWarning, stacklevel=user_stacklevel())
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype "
                           f"{_scalar_type_name(mask.dtype)}")


def _check_mask_count(mask: Tensor, source: Tensor) -> None:
    """The (broadcast) mask selects no more elements than the source has: data-dependent, as in PyTorch."""
    if np.count_nonzero(mask._host_values()) > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")


def _scan_(op):
    """cumsum_/cumprod_: PyTorch accumulates in the tensor's own dtype, and refuses another `dtype`."""
    def run(input: Tensor, dim: int, *, dtype=None) -> Tensor:
        if dtype is not None and dtype is not input.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {_c_type_name(input.dtype)} and output tensor "
                               f"dtype {_c_type_name(dtype)} should match")
        return dispatch.apply_inplace(op, input, (), _static(dim=wrap_dim(dim, input.ndim),
                                                             dtype=_jax_dtype(input.dtype)))

    run.__name__ = op.name + "_"
    return run


cumsum_ = _scan_(reduction.CUMSUM)
cumprod_ = _scan_(reduction.CUMPROD)


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    dim = wrap_dim(dim, input.ndim)
    if input.ndim == 0 and index.numel() != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {index.numel()} value(s)")
    if input.ndim > 1 and not input._shape[dim] and index.numel():
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    # an empty vector takes the kernel's path of non-empty inputs
    _check_select_bounds(index, dim, input._shape[dim] if input.ndim else 1, input.numel() or input.ndim == 1)
    return dispatch.apply(shape_ops.INDEX_SELECT, (input, index.reshape(-1)), _static(dim=dim))


def _check_select_bounds(index: Tensor, dim: int, size: int, numel: int) -> None:
    """Negative indices are out of range too. PyTorch's CPU kernel words the error by path: as below for a
    non-empty input, except along dim 1, which (as any dim of an empty input) is an out-of-DATA-bounds
    RuntimeError."""
    values = _index_values(index)
    bad = values[(values < 0) | (values >= size)]
    if bad.size and dim != 1 and numel:
        raise IndexError("index out of range in self")
    if bad.size:
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad[0]} axis_dim={size}")


def _index_count_error(name: str, count: int, found: int, dim: int) -> Exception:
    if name == "index_add_":
        return RuntimeError(f"index_add_(): Number of indices ({count}) should be equal to source.size(dim): "
                            f"({found}), for dim: {dim}")
    return IndexError(f"index_copy_(): Number of indices ({count}) should be equal to source.size(dim) ({found})")


def _check_index_add(input: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """index_add's argument checks, in PyTorch's order; the wrapped dim."""
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: {index.ndim} with type: "
                         f"{_scalar_type_name(index.dtype)} and size: {list(index._shape)}")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError(f"index_add_(): Expected dtype int32/int64 for index but got: "
                           f"{_scalar_type_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_add_(): self ({_scalar_type_name(input.dtype)}) and source "
                           f"({_scalar_type_name(source.dtype)}) must have the same scalar type")
    if dim and dim >= source.ndim:
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source tensor with dim "
                           f"{source.ndim}")
    found = source._shape[dim] if source.ndim else 1
    if index.numel() != found:
        if not source.ndim:  # the message asks a 0-dim source for its size
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        raise _index_count_error("index_add_", index.numel(), found, dim)
    if _without(input._shape, dim, source.ndim) != _without(source._shape, dim, input.ndim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the specified dimension. "
                           f"Got self.shape = {list(input._shape)} source.shape = {list(source._shape)}")
    _check_write_bounds(index, dim, input, _index_add_bounds_error)
    return dim


def _without(shape: tuple, dim: int, other_ndim: int = 1) -> list:
    """`shape` less its `dim`: the slice index_add/index_copy compare (a 0-dim side keeps the other whole)."""
    return list(shape[:dim] + shape[dim + 1:]) if shape and other_ndim else list(shape)


def _index_add_bounds_error(input: Tensor, index: Tensor, dim: int, bad: int) -> Exception:
    """PyTorch's CPU kernel words it by path: int32 indices and vectors go index_select's way."""
    if index.dtype is dtypes.int32 or input.ndim <= 1:
        return IndexError("index out of range in self")
    return RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {input._shape[dim]}")


def _index_copy_bounds_error(input: Tensor, index: Tensor, dim: int, bad: int) -> Exception:
    return IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with size "
                      f"{input._shape[dim] if input.ndim else 1}")


def _index_fill_bounds_error(input: Tensor, index: Tensor, dim: int, bad: int) -> Exception:
    return IndexError(f"index {bad} is out of bounds for dimension {dim} with size "
                      f"{input._shape[dim] if input.ndim else 1}")


def _check_write_bounds(index: Tensor, dim: int, input: Tensor, error, lowest: int = 0) -> None:
    """Every index within [lowest, size) (a 0-dim input has size 1); an empty input checks nothing."""
    if not input.numel():
        return
    size = input._shape[dim] if input.ndim else 1
    values = _index_values(index)
    bad = values[(values < lowest) | (values >= size)]
    if bad.size:
        raise error(input, index, dim, bad[0])


def _check_index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> int:
    """index_copy's argument checks, in PyTorch's order; the wrapped dim."""
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.ndim})")
    count = index.numel()
    if not source.ndim and count != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element (got {count})")
    if source.ndim != input.ndim and source.ndim and input.ndim:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their dimensionality must "
                         f"match. Source dimensionality ({source.ndim}), destination dimensionality ({input.ndim})")
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_scalar_type_name(index.dtype)}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) "
                           f"{_scalar_type_name(input.dtype)} and (source) {_scalar_type_name(source.dtype)}")
    mine, theirs = _without(input._shape, dim), _without(source._shape, dim)
    if mine != theirs:
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice shapes. Destination slice "
                           f"shape: {' '.join(map(str, mine))} at dimension {dim} and source slice shape: "
                           f"{' '.join(map(str, theirs))} at dimension 0.")
    if source.ndim and count != source._shape[dim]:
        raise _index_count_error("index_copy_", count, source._shape[dim], dim)
    _check_write_bounds(index, dim, input, _index_copy_bounds_error)
    return dim


def _check_index_fill(input: Tensor, dim: int, index: Tensor, value) -> int:
    """index_fill's argument checks, in PyTorch's order; the wrapped dim."""
    if isinstance(value, Tensor) and value.ndim:
        raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if not isinstance(index, Tensor) or index.dtype is not dtypes.int64:
        raise IndexError("index_fill_(): Expected dtype int64 for index.")
    if _is_complex_value(value) and not input.is_complex():
        raise RuntimeError("index_fill_(): Converting complex Scalar to non-complex type is not supported")
    dim = wrap_dim(dim, input.ndim)
    if index.ndim > 1:
        raise RuntimeError("Index has to be a vector/scalar")
    size = input._shape[dim] if input.ndim else 1
    _check_write_bounds(index, dim, input, _index_fill_bounds_error, -size)
    return dim


def _is_complex_value(value) -> bool:
    return value.is_complex() if isinstance(value, Tensor) else isinstance(value, complex)


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    dim = _check_index_add(input, dim, index, source)
    return dispatch.apply(shape_ops.INDEX_ADD, (input, index, source), _static(dim=dim, alpha=alpha))


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    dim = _check_index_add(input, dim, index, source)
    return dispatch.apply_inplace(shape_ops.INDEX_ADD, input, (index, source), _static(dim=dim, alpha=alpha))


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _check_index_copy(input, dim, index, source)
    return dispatch.apply(shape_ops.INDEX_COPY, (input, index, source), _static(dim=dim))


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    dim = _check_index_copy(input, dim, index, source)
    return dispatch.apply_inplace(shape_ops.INDEX_COPY, input, (index, source), _static(dim=dim))


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    op = shape_ops.INDEX_FILL_TENSOR if isinstance(value, Tensor) else shape_ops.INDEX_FILL
    dim = _check_index_fill(input, dim, index, value)
    return dispatch.apply(op, (input, index, _index_fill_value(value, input)), _static(dim=dim))


def index_fill_(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    op = shape_ops.INDEX_FILL_TENSOR if isinstance(value, Tensor) else shape_ops.INDEX_FILL
    dim = _check_index_fill(input, dim, index, value)
    return dispatch.apply_inplace(op, input, (index, _index_fill_value(value, input)), _static(dim=dim))


def _index_fill_value(value, input: Tensor):
    return value if isinstance(value, Tensor) else _scalar_tensor(value, input)


def take(input: Tensor, index: Tensor) -> Tensor:
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got {_scalar_type_name(index.dtype)}")
    values, size = _index_values(index), input.numel()
    bad = values[(values < -size) | (values >= size)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad[0]} on a tensor of {size} elements.")
    return dispatch.apply(shape_ops.TAKE, (input, index))


def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    """gather along `dim` after broadcasting input and indices against each other everywhere else; with no dim,
    along the flattened input."""
    if indices.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_scalar_type_name(indices.dtype)}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    if input.ndim != indices.ndim:
        raise RuntimeError(f"torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {input.ndim} dimensions for input, and {indices.ndim} dimensions for indices")
    dim = wrap_dim(dim, input.ndim)
    common = list(pointwise.broadcast_shapes(input._shape[:dim] + (1,) + input._shape[dim + 1:],
                                             indices._shape[:dim] + (1,) + indices._shape[dim + 1:]))
    sized = lambda size: tuple(common[:dim] + [size] + common[dim + 1:])  # noqa: E731
    return gather(input.expand(sized(input._shape[dim])), dim, indices.expand(sized(indices._shape[dim])))


def _check_mask(mask: Tensor, name: str) -> None:
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype {_c_type_name(mask.dtype)}")


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    op = shape_ops.MASKED_FILL_TENSOR if isinstance(value, Tensor) else shape_ops.MASKED_FILL
    value = _masked_fill_value(input, mask, value)
    pointwise.broadcast_shapes(mask._shape, input._shape)
    return dispatch.apply(op, (input, mask, value))


def masked_fill_(input: Tensor, mask: Tensor, value) -> Tensor:
    op = shape_ops.MASKED_FILL_TENSOR if isinstance(value, Tensor) else shape_ops.MASKED_FILL
    value = _masked_fill_value(input, mask, value)
    pointwise.broadcast_shapes(input._shape, mask._shape)
    return dispatch.apply_inplace(op, input, (mask, value))


def _masked_fill_value(input: Tensor, mask: Tensor, value) -> Tensor:
    """PyTorch's checks of a masked fill, in its order; the value as a 0-dim tensor. A tensor value is read as a
    number, so a complex one into a real tensor is refused as a complex number would be."""
    _check_mask(mask, "masked_fill_")
    if not isinstance(value, Tensor):
        return _scalar_tensor(value, input)
    if value.ndim:
        raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value.ndim} dimension(s).")
    if value.is_complex() and not input.is_complex():
        dtypes.checked_scalar(value.item(), input.dtype)
    return value


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    if mask.dtype is not dtypes.bool:
        raise RuntimeError("masked_select: expected BoolTensor for mask")
    from .indexing import masked_select as select

    return select(input, mask, pointwise.broadcast_shapes(mask._shape, input._shape))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Scatters into `input` broadcast against the mask (before anything else is checked)."""
    shape = pointwise.broadcast_shapes(mask._shape, input._shape)
    _check_masked_scatter(input, mask, source)
    mask = mask.expand(shape)
    _check_mask_count(mask, source)
    return dispatch.apply(shape_ops.MASKED_SCATTER, (input, mask, source))


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Data-dependent shape: computed on the host, as PyTorch synchronises for it too."""
    found = np.nonzero(np.asarray(input._value()).reshape(input._shape) if input.ndim else
                       np.asarray(input._value()).reshape(1))
    if as_tuple:
        return tuple(factories.tensor(np.asarray(i, np.int64), device=input.device) for i in found)
    # A 0-dim input has no dims to report: one empty row per nonzero element.
    # PyTorch fills the result column-major: strides (1, N).
    stacked = np.stack(found, axis=0) if input.ndim else np.zeros((0, found[0].size), np.int64)
    count = stacked.shape[1]
    flat = factories.tensor(stacked.astype(np.int64).reshape(-1), device=input.device)
    return flat.as_strided((count, stacked.shape[0]), (1, count))


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def _check_unique_dim(input: Tensor, dim: int) -> None:
    """PyTorch's unique(dim=...) takes an empty tensor only when its one empty dim is the selected one."""
    if input.numel():
        return
    if input._shape[dim] != 0:
        raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
    if builtins.sum(1 for size in input._shape if size == 0) > 1:
        raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim=None):
    """Sorted distinct elements (or slices along `dim`); NaNs stay distinct. Read on the host, as the size depends
    on the values."""
    if input.is_complex():
        raise NotImplementedError(f"\"unique\" not implemented for '{_scalar_type_name(input.dtype)}'")
    values = np.asarray(input._value()).reshape(input._shape)
    if input.dtype is dtypes.bfloat16:
        values = values.astype(np.float32)  # NumPy does not sort bfloat16 (exactly widened, narrowed back below)
    if dim is not None:
        dim = wrap_dim_of_dimensioned(int_dim("unique_dim", dim, 2), input.ndim)  # passed on by position
        _check_unique_dim(input, dim)
    if dim is not None and input._shape[dim] == 0:
        found = (values, np.zeros(0, np.int64), np.zeros(0, np.int64))
    else:
        found = np.unique(values.reshape(-1) if dim is None else values, return_inverse=True, return_counts=True,
                          axis=dim, equal_nan=False)
    parts = [factories.tensor(found[0], dtype=input.dtype, device=input.device)]
    dispatch.record_without_derivative(*(("_unique2", "Unique2Backward0") if dim is None else
                                         ("unique_dim", "UniqueDimBackward0")), input, parts[0])
    if return_inverse:
        inverse = np.asarray(found[1], np.int64).reshape(input._shape if dim is None else -1)
        parts.append(factories.tensor(inverse, dtype=dtypes.int64, device=input.device))
    if return_counts:
        parts.append(factories.tensor(np.asarray(found[2], np.int64), dtype=dtypes.int64, device=input.device))
    return parts[0] if len(parts) == 1 else tuple(parts)


# ----- comparisons of whole tensors ---------------------------------------------------------------

def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    require_tensors("allclose", ("input", "other"), (input, other))
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


_ISCLOSE = pointwise.Op("isclose", lambda a, b, rtol, atol, equal_nan: __import__("jax").numpy.isclose(
    a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    require_tensors("isclose", ("input", "other"), (input, other))
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_scalar_type_name(input.dtype)} did not match {_scalar_type_name(other.dtype)}")
    return dispatch.apply(_ISCLOSE, (input, other), _static(rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> bool:
    require_tensors("equal", ("input", "other"), (input, other))
    if input._shape != other._shape:
        return False
    return bool(BINARY_FUNCTIONS["eq"](input, other).all().item())


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_floating_point(input: Tensor) -> bool:
    return input.dtype.is_floating_point


def is_complex(input: Tensor) -> bool:
    return input.dtype.is_complex


def numel(input: Tensor) -> int:
    return input.numel()


def is_inference(input: Tensor) -> bool:
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input.is_inference()


def is_nonzero(input: Tensor) -> bool:
    return bool(input)  # Tensor.__bool__ words the ambiguity errors as PyTorch's is_nonzero does


def _category(d: dtypes.dtype) -> int:
    return 3 if d.is_complex else 2 if d.is_floating_point else 0 if d is dtypes.bool else 1


# Where PyTorch checks `out=`'s dtype exactly (most functions only check it can hold the result): the error, given
# the result's and out's C type names ({result}, {out}) and scalar type names ({Result}, {Out}).
_EXPECTED = "Expected out tensor to have dtype {result}, but got {out} instead"
_FOUND = "Found dtype {Out} but expected {Result}"
_SEARCH = ("torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) depending "
           "on whether out_int32 flag is True, but we got output tensor's dtype {Out} and out_int32 flag is {int32}")
_EXACT_OUT_DTYPE = {
    **dict.fromkeys("mm matmul bmm gather tril triu take_along_dim cross diag norm argmax argmin cumsum cumprod sum "
                    "prod".split(), _EXPECTED),
    "nansum": "nansum: provided dtype must match dtype of result. Got {Out} and {Result}.",
    **dict.fromkeys("abs absolute bitwise_not ceil conj_physical floor fix frac hardshrink neg negative round sgn "
                    "sign trunc".split(), _FOUND),
    **{f"is{side}inf": f"is{side}inf does not support non-boolean outputs." for side in ("pos", "neg")},
    "signbit": "signbit does not support non-boolean outputs.",
    "dot": "result dtype {Out} does not match input dtype {Result}",
    "mv": "addmv input tensors must have the same dtype, but got {Out}, {Result}, and {Result}",
    "float_power": "the output given to float_power has dtype {Out} but the operation's result requires dtype "
                   "{Result}",
    "amax": "Expected the dtype for input and out to match, but got {Result} for input's dtype and {Out} for out's "
            "dtype.",
    "amin": "Expected the dtype for input and out to match, but got {Result} for input's dtype and {Out} for out's "
            "dtype.",
    "where": "Expected out type to be {Result} but got {Out}",
    "index_select": "index_select(): self and result must have the same scalar type",
    "masked_select": "masked_select(): self and result must have the same scalar type",
    "take": "take(): self and out expected to have the same dtype, but got self.dtype = {Result} and out.dtype = {Out}",
    "nonzero": "nonzero: Expected out tensor to have scalar type Long but got scalar type{Out}",
    "logcumsumexp": "expected scalar_type {Result} but found {Out}",
    "histc": "torch.histogram: input tensor and hist tensor should have the same dtype, but got input {result} and "
             "hist {out}",
    "nan_to_num": "nan_to_num: dtype of out: {Out} should be same as input: {Result}",
    "heaviside": "heaviside is not yet implemented for tensors with different dtypes.",
    "searchsorted": _SEARCH, "bucketize": _SEARCH,
}
# The same for the (values, indices) outputs of the functions returning both: the error for each.
_MEDIAN_OUT = ("Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
               "torch.{Out}Tensor does not equal torch.{Result}Tensor (while checking arguments for median)",
               "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.{Out}Tensor instead "
               "(while checking arguments for median)")
_EXACT_TUPLE_OUT = {
    **dict.fromkeys("max min sort topk aminmax".split(), (_EXPECTED, _EXPECTED)),
    "kthvalue": ("output values must be of same type as input", "output indices must be of scalar type Long"),
    "median": _MEDIAN_OUT, "nanmedian": _MEDIAN_OUT,
    "mode": ("expected scalar type '{Result}' but got '{Out}' for values output",
             "expected scalar type '{Result}' but got '{Out}' for indices output"),
    "cummax": ("expected scalar_type {Result} but found {Out}",) * 2,
    "cummin": ("expected scalar_type {Result} but found {Out}",) * 2,
}
# Reductions to a truth value write a bool or a uint8 `out=`.
_TRUTH_OUT = {"all", "any"}
# Sums, products and their scans compute in `out=`'s dtype when no `dtype=` is given.
_IN_OUT_DTYPE = {"cumsum", "cumprod", "sum", "prod", "nansum"}


# clamp checks `out=` against its result's dtype exactly where a bound is a number (it only checks that a result
# with tensor bounds casts to it).
_CLAMPS = {"clamp", "clip"}


def _check_clamp_out(args: tuple, kwargs: dict, out: Tensor) -> None:
    bounds = [b for b in (*args[1:], kwargs.get("min"), kwargs.get("max")) if b is not None]
    if args and isinstance(args[0], Tensor) and not builtins.all(isinstance(b, Tensor) for b in bounds):
        expected = dtypes.operands_result_type(args[0], *bounds)
        if expected is not out.dtype:
            raise RuntimeError(_FOUND.format(Out=_scalar_type_name(out.dtype), Result=_scalar_type_name(expected)))


def _check_exact_out(message: str, result: Tensor, out: Tensor) -> None:
    if result.dtype is not out.dtype:
        raise RuntimeError(message.format(
            result=_c_type_name(result.dtype), out=_c_type_name(out.dtype), Result=_scalar_type_name(result.dtype),
            Out=_scalar_type_name(out.dtype), int32=result.dtype is dtypes.int32))


def _check_out_castable(args: tuple, out) -> None:
    """PyTorch checks that its operands' common dtype casts to `out`'s before it looks for a kernel."""
    operands = [a for a in args[:2] if isinstance(a, (Tensor, builtins.bool, builtins.int, builtins.float,
                                                      builtins.complex))]
    if not isinstance(out, Tensor) or not operands or not isinstance(operands[0], Tensor):
        return
    result = dtypes.operands_result_type(*operands)
    if not dtypes.can_cast(result, out.dtype):
        raise RuntimeError(f"result type {_scalar_type_name(result)} can't be cast to the desired output type "
                           f"{_scalar_type_name(out.dtype)}")


def _write_out(name: str, result, out):
    """Copy a result into the caller's `out=` tensor(s), resizing as PyTorch does, and return them."""
    if isinstance(result, tuple):
        if not isinstance(out, (tuple, list)) or len(out) != len(result):
            raise TypeError(f"{name}(): argument 'out' must be tuple of {len(result)} Tensors")
        for message, part, target in zip(_EXACT_TUPLE_OUT.get(name, ()), result, out):
            if isinstance(target, Tensor):
                _check_exact_out(message, part, target)
        written = [_write_out(name, r, o) for r, o in zip(result, out)]
        fields = getattr(result, "_fields", None)
        return make_return(f"{name}_out", **dict(zip(fields, written))) if fields else tuple(written)
    if not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not isinstance(result, Tensor):
        result = factories.tensor(result, dtype=out.dtype, device=out.device)
    if result.requires_grad or (out.requires_grad and grad_mode.is_grad_enabled()):
        raise RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                           "but one of the arguments requires grad.")
    if name in _EXACT_OUT_DTYPE:
        _check_exact_out(_EXACT_OUT_DTYPE[name], result, out)
    if name in _TRUTH_OUT:
        if out.dtype not in (dtypes.bool, dtypes.uint8):
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {_scalar_type_name(out.dtype)}")
    elif _category(result.dtype) > _category(out.dtype):
        raise RuntimeError(f"result type {_scalar_type_name(result.dtype)} can't be cast to the desired output "
                           f"type {_scalar_type_name(out.dtype)}")
    if out._shape != result._shape:
        if out.numel():
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"[{', '.join(map(str, out._shape))}], which does not match the required output shape "
                          f"[{', '.join(map(str, result._shape))}]. This behavior is deprecated, and in a future "
                          "PyTorch release outputs will not be resized unless they have zero elements. You can "
                          "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with "
                          "t.resize_(0).", UserWarning, stacklevel=3)
        out.resize_(result._shape)
    return copy_(out, result)


def accepting_out(fn):
    """The `torch.*` form of a function also takes `out=`: the result is computed, then copied into `out`.
    `without_out` is the plain function, which the Tensor methods (that take no `out=`) bind instead."""
    name = fn.__name__

    @functools.wraps(fn)
    def run(*args, out=None, **kwargs):
        if out is not None:
            for target in out if isinstance(out, (tuple, list)) else (out,):
                dispatch.check_no_partial_overlap(target, args)
        if name in _IN_OUT_DTYPE and isinstance(out, Tensor) and kwargs.get("dtype") is None:
            kwargs["dtype"] = out.dtype
        if name in _CLAMPS and isinstance(out, Tensor):
            _check_clamp_out(args, kwargs, out)
        try:
            result = fn(*args, **numpy_names(kwargs)) if kwargs else fn(*args)
        except NotImplementedError:
            _check_out_castable(args, out)
            raise
        return result if out is None else _write_out(name, result, out)

    run.without_out = fn
    return run


# The functions PyTorch gives an `out=` argument (with softmax, log_softmax and argsort, which take NumPy's names
# through the same wrapper).
_WITH_OUT = (
    "add addcdiv addcmul addmm all amax amin aminmax any argmax argmin atan2 bitwise_and bitwise_left_shift "
    "bitwise_or bitwise_right_shift bitwise_xor bmm cat clamp clip column_stack concat concatenate conj_physical "
    "copysign cummax cummin cumprod cumsum div dot dstack eq float_power floor_divide fmax fmin fmod gather gcd ge "
    "ger gt heaviside hstack hypot index_select kthvalue lcm ldexp le lerp logaddexp logaddexp2 logcumsumexp "
    "logical_and logical_or logical_xor logsumexp lt masked_select matmul max maximum mean median min minimum mm "
    "mul mv nan_to_num nanmean nansum ne nextafter nonzero norm outer pow prod remainder round row_stack sort std "
    "softmax log_softmax argsort stack "
    "std_mean sub sum take take_along_dim tensordot topk tril triu true_divide var var_mean vstack where xlogy"
).split()
def _refusing_out(name: str, fn):
    """A pointwise function PyTorch gives no `out=` (pjtorch's would hand it on to the kernel)."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        if "out" in kwargs:
            raise TypeError(f"{name}() got an unexpected keyword argument 'out'")
        return fn(*args, **kwargs)

    run.without_out = fn
    return run


_WITHOUT_OUT = {"celu", "conj", "isfinite", "isinf", "isnan", "isreal", "positive", "relu", "selu"}
for _table in (UNARY_FUNCTIONS, BINARY_FUNCTIONS):
    for _name, _fn in _table.items():
        if not _name.endswith("_"):
            _table[_name] = _refusing_out(_name, _fn) if _name in _WITHOUT_OUT else accepting_out(_fn)
for _name in _WITH_OUT:
    if _name in globals():  # the others are pointwise functions of the tables, wrapped above
        globals()[_name] = accepting_out(globals()[_name])


_HELPERS = {"as_operand", "numpy_names", "accepting_out", "dims_arg", "make_return", "wrap_dim", "Tensor", "to_dtype",
            "view_as_dtype", "required", "lerp_op", "tile_method"}
# In-place forms PyTorch has as Tensor methods only, not as `torch.*` functions.
_METHODS_ONLY = {"scatter_reduce_", "masked_scatter_", "cumsum_", "cumprod_"}
__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and name not in _HELPERS | _METHODS_ONLY
           and getattr(value, "__module__", None) == __name__ and not isinstance(value, type)]
# `torch.contiguous_format` and the like, which clone() takes, are exported from here.
memory_format, contiguous_format = dtypes.memory_format, dtypes.contiguous_format
preserve_format = dtypes.preserve_format
__all__ += ["memory_format", "contiguous_format", "preserve_format"]
