"""The functional API (`torch.add`, `torch.sum`, ...): PyTorch's signatures over dispatch.

Wrappers only parse arguments (dims, keepdim, dtype) into an op's static parameters and
check what PyTorch checks; every computation is an op from `pjtorch.ops`.
"""
from __future__ import annotations

import builtins
import numbers
from typing import Sequence

import numpy as np

from .. import dispatch
from ..ops import linalg as linalg_ops, pointwise, reduction, shape as shape_ops
from . import dtypes
from .return_types import make_return
from .tensor import Tensor, wrap_dim

# ----- argument helpers ---------------------------------------------------------------------------


def as_operand(value, name: str = "other"):
    """A Tensor or a Python scalar (NumPy scalars become Python ones); anything else is a TypeError."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, bool | int | float | complex):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value.item()
    raise TypeError(f"{name} must be a Tensor or a Number, but got {type(value).__name__}")


def dims_arg(dim, ndim: int):
    """None, an int, or a sequence of ints -> None or a sorted tuple of wrapped dims."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return None
        wrapped = tuple(sorted(wrap_dim(int(d), ndim) for d in dim))
        if len(set(wrapped)) != len(wrapped):
            raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
        return wrapped if ndim else None
    wrapped = wrap_dim(int(dim), ndim)
    return (wrapped,) if ndim else None


def _static(**kwargs) -> tuple:
    return tuple(sorted(kwargs.items()))


def _jax_dtype(dtype):
    return None if dtype is None else dtype.jax


# ----- pointwise ----------------------------------------------------------------------------------

def _unary(op):
    def run(input: Tensor, **options) -> Tensor:
        return dispatch.apply(op, (input,), _static(**options))

    def run_(input: Tensor, **options) -> Tensor:
        return dispatch.apply_inplace(op, input, (), _static(**options))

    run.__name__, run_.__name__ = op.name, op.name + "_"
    return run, run_


UNARY_FUNCTIONS: dict = {}
for _table in (pointwise.FLOAT_UNARY, pointwise.SAME_UNARY, pointwise.PREDICATES):
    for _name, _op in _table.items():
        UNARY_FUNCTIONS[_name], UNARY_FUNCTIONS[_name + "_"] = _unary(_op)


def _binary(op):
    def run(input, other, **options) -> Tensor:
        return dispatch.apply(op, (as_operand(input, "input"), as_operand(other)), _static(**options))

    def run_(input: Tensor, other, **options) -> Tensor:
        return dispatch.apply_inplace(op, input, (as_operand(other),), _static(**options))

    run.__name__, run_.__name__ = op.name, op.name + "_"
    return run, run_


BINARY_FUNCTIONS: dict = {}
for _name, _op in {**pointwise.BINARY, **pointwise.COMPARISONS}.items():
    BINARY_FUNCTIONS[_name], BINARY_FUNCTIONS[_name + "_"] = _binary(_op)


def add(input, other, *, alpha=1) -> Tensor:
    return dispatch.apply(pointwise.BINARY["add"], (as_operand(input, "input"), as_operand(other)),
                          _static(alpha=alpha) if alpha != 1 else ())


def sub(input, other, *, alpha=1) -> Tensor:
    if isinstance(input, Tensor) and input.dtype is dtypes.bool and isinstance(other, Tensor) \
            and other.dtype is dtypes.bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    return dispatch.apply(pointwise.BINARY["sub"], (as_operand(input, "input"), as_operand(other)),
                          _static(alpha=alpha) if alpha != 1 else ())


def div(input, other, *, rounding_mode=None) -> Tensor:
    op = pointwise.BINARY["div"]
    if rounding_mode is None:
        return dispatch.apply(op, (as_operand(input, "input"), as_operand(other)))
    if rounding_mode not in ("floor", "trunc"):
        raise ValueError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                         f"'{rounding_mode}'")
    return dispatch.apply(_ROUNDING_DIV, (as_operand(input, "input"), as_operand(other)),
                          _static(rounding_mode=rounding_mode))


_ROUNDING_DIV = pointwise.Op("div", pointwise._div, grad_name="DivBackward2")


def pow(input, exponent) -> Tensor:
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        exponent = as_operand(exponent, "exponent")
        result = dtypes.result_type([input.dtype], [], [exponent]) if input._shape else \
            dtypes.result_type([], [input.dtype], [exponent])
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
    return dispatch.apply_inplace(pointwise.SCALAR_POW, input, (), _static(exponent=exponent, dtype=input.dtype.jax))


def rsub(input, other, *, alpha=1) -> Tensor:
    return dispatch.apply(pointwise.BINARY["rsub"], (input, as_operand(other)),
                          _static(alpha=alpha) if alpha != 1 else ())


def clamp(input: Tensor, min=None, max=None) -> Tensor:
    return _clamp(input, min, max, inplace=False)


def clamp_(input: Tensor, min=None, max=None) -> Tensor:
    return _clamp(input, min, max, inplace=True)


def _clamp(input: Tensor, lo, hi, inplace: bool) -> Tensor:
    if lo is None and hi is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(lo, Tensor) or isinstance(hi, Tensor):
        lo = lo if lo is not None else float("-inf")
        hi = hi if hi is not None else float("inf")
        op, others, static = pointwise.CLAMP_TENSOR, (as_operand(lo, "min"), as_operand(hi, "max")), ()
    else:
        op, others, static = pointwise.CLAMP_SCALAR, (), _static(min=lo, max=hi)
        if not inplace and input.dtype.category < dtypes.FLOATING and any(
                isinstance(v, float) for v in (lo, hi)):
            input = input.to(dtypes.get_default_dtype())
    if inplace:
        return dispatch.apply_inplace(op, input, others, static)
    return dispatch.apply(op, (input, *others), static)


def clamp_min(input: Tensor, min) -> Tensor:
    return clamp(input, min=min)


def clamp_max(input: Tensor, max) -> Tensor:
    return clamp(input, max=max)


def where(condition: Tensor, input=None, other=None) -> Tensor:
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if condition.dtype is not dtypes.bool:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_scalar_type_name(condition.dtype)}")
    return dispatch.apply(pointwise.WHERE, (condition, as_operand(input, "input"), as_operand(other)))


def _scalar_type_name(d: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[d].replace("Tensor", "")


def lerp(input: Tensor, end: Tensor, weight) -> Tensor:
    return dispatch.apply(pointwise.LERP, (input, end, as_operand(weight, "weight")))


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    return dispatch.apply(pointwise.ADDCMUL, (input, tensor1, tensor2), _static(value=value))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value=1) -> Tensor:
    return dispatch.apply(pointwise.ADDCDIV, (input, tensor1, tensor2), _static(value=value))


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    return dispatch.apply(pointwise.SAME_UNARY["round"], (input,), _static(decimals=decimals) if decimals else ())


def float_power(input, exponent) -> Tensor:
    input = input.double() if isinstance(input, Tensor) else input
    exponent = exponent.double() if isinstance(exponent, Tensor) else exponent
    return pow(input, exponent)


# ----- reductions ---------------------------------------------------------------------------------

def _check_float_for(name: str, input: Tensor, dtype=None) -> None:
    effective = dtype or input.dtype
    if effective.category < dtypes.FLOATING:
        raise RuntimeError(f"{name}(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_scalar_type_name(effective)}")


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    dims = dims_arg(dim, input.ndim)
    op = reduction.SUM if dims is None and not keepdim else reduction.SUM_DIM
    return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    return dispatch.apply(reduction.NANSUM, (input,),
                          _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim, dtype=_jax_dtype(dtype)))


def prod(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    dims = None if dim is None else (wrap_dim(dim, input.ndim),) if input.ndim else None
    op = reduction.PROD if dims is None else reduction.PROD_DIM
    return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    _check_float_for("mean", input, dtype)
    dims = dims_arg(dim, input.ndim)
    op = reduction.MEAN if dims is None and not keepdim else reduction.MEAN_DIM
    return dispatch.apply(op, (input,), _static(dim=dims, keepdim=keepdim, dtype=_jax_dtype(dtype)))


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    _check_float_for("nanmean", input, dtype)
    return dispatch.apply(reduction.NANMEAN, (input,),
                          _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim, dtype=_jax_dtype(dtype)))


def _extreme(name: str, all_op, dim_op, elementwise: str):
    def run(input: Tensor, dim=None, keepdim: bool = False):
        if isinstance(dim, Tensor):
            return BINARY_FUNCTIONS[elementwise](input, dim)
        if dim is None:
            if input.numel() == 0:
                raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                                   "Specify the reduction dim with the 'dim' argument.")
            return dispatch.apply(all_op, (input,))
        dims = dims_arg(dim, input.ndim)
        values, indices = dispatch.apply(dim_op, (input,), _static(dim=dims[0] if dims else None,
                                                                     keepdim=keepdim))
        return make_return(name, values=values, indices=indices)

    run.__name__ = name
    return run


max = _extreme("max", reduction.MAX_ALL, reduction.MAX_DIM, "maximum")
min = _extreme("min", reduction.MIN_ALL, reduction.MIN_DIM, "minimum")


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.AMAX, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.AMIN, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))


def aminmax(input: Tensor, *, dim=None, keepdim: bool = False):
    lo, hi = dispatch.apply(reduction.AMINMAX, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))
    return make_return("aminmax", min=lo, max=hi)


def argmax(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    dim = None if dim is None else wrap_dim(dim, input.ndim) if input.ndim else None
    return dispatch.apply(reduction.ARGMAX, (input,), _static(dim=dim, keepdim=keepdim))


def argmin(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    dim = None if dim is None else wrap_dim(dim, input.ndim) if input.ndim else None
    return dispatch.apply(reduction.ARGMIN, (input,), _static(dim=dim, keepdim=keepdim))


def _correction(unbiased, correction) -> float:
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


def _spread(op):
    def run(input: Tensor, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        _check_float_for(op.name, input)
        return dispatch.apply(op, (input,), _static(dim=dims_arg(dim, input.ndim),
                                                    correction=_correction(unbiased, correction), keepdim=keepdim))

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
    if p == "fro" or p is None:
        p = 2
    if p == "nuc":
        raise NotImplementedError("nuclear norm is not supported by pjtorch yet")
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_scalar_type_name(input.dtype)}")
    if dtype is not None:
        input = input.to(dtype)
    return dispatch.apply(reduction.NORM, (input,), _static(p=float(p), dim=dims_arg(dim, input.ndim),
                                                            keepdim=keepdim))


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.ALL, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.ANY, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    return dispatch.apply(reduction.LOGSUMEXP, (input,), _static(dim=dims_arg(dim, input.ndim), keepdim=keepdim))


def _scan(op):
    def run(input: Tensor, dim: int, *, dtype=None) -> Tensor:
        return dispatch.apply(op, (input,), _static(dim=wrap_dim(dim, input.ndim) if input.ndim else None,
                                                    dtype=_jax_dtype(dtype)))

    run.__name__ = op.name
    return run


cumsum = _scan(reduction.CUMSUM)
cumprod = _scan(reduction.CUMPROD)


def _running_extreme(op, name):
    def run(input: Tensor, dim: int):
        values, indices = dispatch.apply(op, (input,), _static(dim=wrap_dim(dim, input.ndim)))
        return make_return(name, values=values, indices=indices)

    return run


cummax = _running_extreme(reduction.CUMMAX, "cummax")
cummin = _running_extreme(reduction.CUMMIN, "cummin")


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    return dispatch.apply(reduction.LOGCUMSUMEXP, (input,), _static(dim=wrap_dim(dim, input.ndim)))


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return dispatch.apply(reduction.SOFTMAX, (input,), _static(dim=wrap_dim(dim, input.ndim) if input.ndim else None,
                                                               dtype=_jax_dtype(dtype)))


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    return dispatch.apply(reduction.LOG_SOFTMAX, (input,),
                          _static(dim=wrap_dim(dim, input.ndim) if input.ndim else None, dtype=_jax_dtype(dtype)))


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    return dispatch.apply(reduction.COUNT_NONZERO, (input,), _static(dim=dims_arg(dim, input.ndim)))


def median(input: Tensor, dim=None, keepdim: bool = False):
    if dim is None:
        return dispatch.apply(reduction.MEDIAN_ALL, (input,))
    values, indices = dispatch.apply(reduction.MEDIAN_DIM, (input,),
                                     _static(dim=wrap_dim(dim, input.ndim), keepdim=keepdim))
    return make_return("median", values=values, indices=indices)


# ----- matrix products ----------------------------------------------------------------------------

def _same_dtype(a: Tensor, b: Tensor, first: str = "m1", second: str = "m2") -> None:
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected {first} and {second} to have the same dtype, but got: "
                           f"{_c_type_name(a.dtype)} != {_c_type_name(b.dtype)}")


def _c_type_name(d: dtypes.dtype) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int", "int32": "int", "float16": "c10::Half",
            "bfloat16": "c10::BFloat16", "bool": "bool", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}[d.name]


def _dims_text(t: Tensor) -> str:
    return "x".join(str(s) for s in t._shape)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """PyTorch's matmul: dot, matrix-vector, matrix-matrix, and broadcast batched products."""
    if not isinstance(input, Tensor) or not isinstance(other, Tensor):
        raise TypeError(f"matmul(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    a, b = input.ndim, other.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    _same_dtype(input, other)
    if a == 2 and b == 2:
        return mm(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        kind = "vm"
        if input._shape[0] != other._shape[0]:
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{input._shape[0]} and "
                               f"{_dims_text(other)})")
    else:
        kind = "bmm" if a == 3 and b == 3 and input._shape[0] == other._shape[0] else "batched"
        inner_a = input._shape[-1]
        inner_b = other._shape[-2] if b > 1 else other._shape[0]
        if inner_a != inner_b:
            left = _dims_text(input) if a <= 2 else f"{input.numel() // inner_a // (input._shape[-2])}" \
                f"x{input._shape[-2]}x{inner_a}"
            raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                               f"[{input.numel() // inner_a // input._shape[-2] if a > 2 else 1}, {inner_a}] "
                               f"but got: [{other._shape[0] if b > 2 else 1}, {inner_b}]." if a > 2 and b > 2
                               else f"mat1 and mat2 shapes cannot be multiplied ({left} and {_dims_text(other)})")
        _check_batch_broadcast(input, other)
    return dispatch.apply(linalg_ops.MATMUL[kind], (input, other))


def _check_batch_broadcast(a: Tensor, b: Tensor) -> None:
    batch_a, batch_b = a._shape[:-2], b._shape[:-2] if b.ndim > 1 else ()
    for x, y in zip(reversed(batch_a), reversed(batch_b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at non-singleton "
                               f"dimension {len(batch_a) - 1 - list(reversed(batch_a)).index(x)}")


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input._shape[1] != mat2._shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_dims_text(input)} and {_dims_text(mat2)})")
    _same_dtype(input, mat2, "mat1", "mat2")
    return dispatch.apply(linalg_ops.MATMUL["mm"], (input, mat2))


def bmm(input: Tensor, mat2: Tensor) -> Tensor:
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    if input._shape[0] != mat2._shape[0] or input._shape[2] != mat2._shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{input._shape[0]}, "
                           f"{input._shape[2]}] but got: [{mat2._shape[0]}, {mat2._shape[1]}].")
    _same_dtype(input, mat2, "batch1", "batch2")
    return dispatch.apply(linalg_ops.MATMUL["bmm"], (input, mat2))


def mv(input: Tensor, vec: Tensor) -> Tensor:
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input._shape[1] != vec._shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._shape[0]}), mat ({_dims_text(input)}), "
                           f"vec ({vec._shape[0]})")
    _same_dtype(input, vec, "mat", "vec")
    return dispatch.apply(linalg_ops.MATMUL["mv"], (input, vec))


def dot(input: Tensor, other: Tensor) -> Tensor:
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
    return dispatch.apply(linalg_ops.OUTER, (input, vec2))


ger = outer


def einsum(equation: str, *operands) -> Tensor:
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return dispatch.apply(linalg_ops.EINSUM, operands, _static(equation=equation))


def tensordot(a: Tensor, b: Tensor, dims=2) -> Tensor:
    if isinstance(dims, (list, tuple)):
        dims = tuple(tuple(d) if isinstance(d, (list, tuple)) else (d,) for d in dims)
    return dispatch.apply(linalg_ops.TENSORDOT, (a, b), _static(axes=dims))


def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    return dispatch.apply(linalg_ops.ADDMM, (input, mat1, mat2), _static(beta=beta, alpha=alpha))


# ----- copies and conversions ---------------------------------------------------------------------

def clone(input: Tensor, *, memory_format=None, contiguous: bool = False) -> Tensor:
    return dispatch.apply(shape_ops.CLONE, (input,))


def contiguous(input: Tensor, memory_format=None) -> Tensor:
    return input if input.is_contiguous() else clone(input)


def to_dtype(input: Tensor, dtype: dtypes.dtype) -> Tensor:
    if input.dtype is dtype:
        return input
    return dispatch.apply(shape_ops.TO_DTYPE, (input,), _static(dtype=dtype.jax))


def view_as_dtype(input: Tensor, dtype: dtypes.dtype) -> Tensor:
    if dtype.itemsize != input.dtype.itemsize:
        raise RuntimeError("pjtorch supports view(dtype) only between dtypes of the same size")
    return Tensor._wrap(__import__("jax").lax.bitcast_convert_type(input._value(), dtype.jax), input.device)


def copy_(dst: Tensor, src, non_blocking: bool = False) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"copy_(): argument 'src' (position 1) must be Tensor, not {type(src).__name__}")
    _check_broadcastable_to(src._shape, dst._shape)
    if src.device != dst.device:
        from . import factories

        src = factories.to_device(src, dst.device)
    return dispatch.apply_inplace(shape_ops.COPY, dst, (src,))


def _check_broadcastable_to(source: tuple, target: tuple) -> None:
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
    return dispatch.apply_inplace(shape_ops.FILL, input, (as_operand(value, "value"),))


def zero_(input: Tensor) -> Tensor:
    return fill_(input, 0)


# ----- joining, reordering, triangles -------------------------------------------------------------

def _common_dtype_tensors(tensors: Sequence[Tensor]) -> list:
    common = tensors[0].dtype
    for t in tensors[1:]:
        common = dtypes.promote_types(common, t.dtype)
    return [t if t.dtype is common else to_dtype(t, common) for t in tensors]


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    joined = [t for t in tensors if not (t.ndim == 1 and t._shape[0] == 0)] or tensors[:1]
    reference = joined[0]
    if reference.ndim == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    dim = wrap_dim(dim, reference.ndim)
    for i, t in enumerate(joined):
        if t.ndim != reference.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {reference.ndim} and {t.ndim}")
        for d in range(reference.ndim):
            if d != dim and t._shape[d] != reference._shape[d]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. Expected size "
                                   f"{reference._shape[d]} but got size {t._shape[d]} for tensor number {i} in the "
                                   "list.")
    return dispatch.apply(shape_ops.CAT, _common_dtype_tensors(joined), _static(dim=dim))


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], start=1):
        if t._shape != tensors[0]._shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(tensors[0]._shape)} at "
                               f"entry 0 and {list(t._shape)} at entry {i}")
    dim = wrap_dim(dim, tensors[0].ndim + 1)
    return dispatch.apply(shape_ops.STACK, _common_dtype_tensors(tensors), _static(dim=dim))


def hstack(tensors: Sequence[Tensor]) -> Tensor:
    tensors = [atleast_1d(t) for t in tensors]
    return cat(tensors, 0 if tensors[0].ndim == 1 else 1)


def vstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([atleast_2d(t) for t in tensors], 0)


row_stack = vstack


def dstack(tensors: Sequence[Tensor]) -> Tensor:
    return cat([atleast_3d(t) for t in tensors], 2)


def column_stack(tensors: Sequence[Tensor]) -> Tensor:
    return hstack([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors])


def atleast_1d(t: Tensor) -> Tensor:
    return t.reshape(1) if t.ndim == 0 else t


def atleast_2d(t: Tensor) -> Tensor:
    return t.reshape(1, -1) if t.ndim < 2 else t


def atleast_3d(t: Tensor) -> Tensor:
    if t.ndim == 0:
        return t.reshape(1, 1, 1)
    if t.ndim == 1:
        return t.reshape(1, -1, 1)
    if t.ndim == 2:
        return t.unsqueeze(-1)
    return t


def flip(input: Tensor, dims) -> Tensor:
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    return dispatch.apply(shape_ops.FLIP, (input,), _static(dims=tuple(wrap_dim(d, input.ndim) for d in dims)))


def fliplr(input: Tensor) -> Tensor:
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    return flip(input, (0,))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    if dims is None:
        return roll(input.flatten(), shifts, 0).view(input.shape)
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    return dispatch.apply(shape_ops.ROLL, (input,), _static(shifts=shifts,
                                                            dims=tuple(wrap_dim(d, input.ndim) for d in dims)))


def repeat(input: Tensor, *repeats) -> Tensor:
    from .views import shape_args

    repeats = shape_args(repeats)
    if len(repeats) < input.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of "
                           "tensor")
    return dispatch.apply(shape_ops.REPEAT, (input,), _static(repeats=repeats))


def tile(input: Tensor, dims) -> Tensor:
    dims = tuple(dims)
    return repeat(input, (1,) * (input.ndim - len(dims)) + dims)


def repeat_interleave(input: Tensor, repeats, dim=None) -> Tensor:
    if isinstance(repeats, Tensor):
        repeats = tuple(repeats.tolist()) if repeats.ndim else int(repeats.item())
    return dispatch.apply(shape_ops.REPEAT_INTERLEAVE, (input,),
                          _static(repeats=repeats, dim=None if dim is None else wrap_dim(dim, input.ndim)))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    return dispatch.apply(shape_ops.TRIL, (input,), _static(diagonal=diagonal))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    return dispatch.apply(shape_ops.TRIU, (input,), _static(diagonal=diagonal))


def tril_(input: Tensor, diagonal: int = 0) -> Tensor:
    return dispatch.apply_inplace(shape_ops.TRIL, input, (), _static(diagonal=diagonal))


def triu_(input: Tensor, diagonal: int = 0) -> Tensor:
    return dispatch.apply_inplace(shape_ops.TRIU, input, (), _static(diagonal=diagonal))


def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False):
    values, indices = dispatch.apply(shape_ops.SORT, (input,), _static(
        dim=wrap_dim(dim, input.ndim) if input.ndim else None, descending=descending))
    return make_return("sort", values=values, indices=indices)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    return sort(input, dim, descending).indices


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    dim = wrap_dim(dim, input.ndim) if input.ndim else 0
    size = input._shape[dim] if input.ndim else 1
    if not 0 <= k <= size:
        raise RuntimeError("selected index k out of range")
    values, indices = dispatch.apply(shape_ops.TOPK, (input,), _static(k=k, dim=dim, largest=largest))
    return make_return("topk", values=values, indices=indices)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    values, indices = dispatch.apply(shape_ops.KTHVALUE, (input,),
                                     _static(k=k, dim=wrap_dim(dim, input.ndim), keepdim=keepdim))
    return make_return("kthvalue", values=values, indices=indices)


# ----- gathering and scattering -------------------------------------------------------------------

def _check_index(index: Tensor, name: str = "index") -> None:
    if not isinstance(index, Tensor) or index.dtype is not dtypes.int64:
        kind = _scalar_type_name(index.dtype) if isinstance(index, Tensor) else type(index).__name__
        raise RuntimeError(f"{name}(): Expected dtype int64 for index" + ("" if kind == "Long" else f", got {kind}")
                           if name in ("gather", "scatter", "scatter_add") else
                           f"{name}(): Expected dtype int32/int64 for index")


def _index_in_range(index: Tensor, size: int, dim: int, name: str) -> None:
    if index.numel():
        values = np.asarray(index._value())
        bad = values[(values < -size) | (values >= size)] if name == "index_select" else \
            values[(values < 0) | (values >= size)]
        if bad.size:
            if name == "gather":
                raise RuntimeError(f"index {bad.reshape(-1)[0]} is out of bounds for dimension {dim} with size "
                                   f"{size}")
            raise IndexError(f"index out of range in self")


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    _check_index(index, "gather")
    dim = wrap_dim(dim, input.ndim)
    if index.ndim != input.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    _index_in_range(index, input._shape[dim], dim, "gather")
    return dispatch.apply(shape_ops.GATHER, (input, index), _static(dim=dim))


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    return _scatter(input, dim, index, src if src is not None else value, reduce, inplace=False)


def scatter_(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce=None) -> Tensor:
    return _scatter(input, dim, index, src if src is not None else value, reduce, inplace=True)


def _scatter(input, dim, index, src, reduce, inplace):
    _check_index(index, "scatter")
    dim = wrap_dim(dim, input.ndim)
    _index_in_range(index, input._shape[dim], dim, "scatter")
    if reduce is not None:
        op, static = shape_ops.SCATTER_REDUCE, _static(dim=dim, reduce={"add": "sum", "multiply": "prod"}[reduce])
    else:
        op, static = shape_ops.SCATTER, _static(dim=dim)
    if not isinstance(src, Tensor):
        src = _scalar_tensor(src, input)
    if inplace:
        return dispatch.apply_inplace(op, input, (index, src), static)
    return dispatch.apply(op, (input, index, src), static)


def _scalar_tensor(value, like: Tensor) -> Tensor:
    from . import factories

    return factories.tensor(value, dtype=like.dtype, device=like.device)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    _check_index(index, "scatter_add")
    dim = wrap_dim(dim, input.ndim)
    return dispatch.apply(shape_ops.SCATTER_ADD, (input, index, src), _static(dim=dim))


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    dim = wrap_dim(dim, input.ndim)
    return dispatch.apply_inplace(shape_ops.SCATTER_ADD, input, (index, src), _static(dim=dim))


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    return dispatch.apply(shape_ops.SCATTER_REDUCE, (input, index, src),
                          _static(dim=wrap_dim(dim, input.ndim), reduce=reduce, include_self=include_self))


def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise IndexError("index_select(): Expected dtype int32/int64 for index")
    dim = wrap_dim(dim, input.ndim)
    _index_in_range(index, input._shape[dim] if input.ndim else 1, dim, "index_select")
    return dispatch.apply(shape_ops.INDEX_SELECT, (input, index.reshape(-1)), _static(dim=dim))


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    return dispatch.apply(shape_ops.INDEX_ADD, (input, index, source),
                          _static(dim=wrap_dim(dim, input.ndim), alpha=alpha))


def index_add_(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    return dispatch.apply_inplace(shape_ops.INDEX_ADD, input, (index, source),
                                  _static(dim=wrap_dim(dim, input.ndim), alpha=alpha))


def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return dispatch.apply(shape_ops.INDEX_COPY, (input, index, source), _static(dim=wrap_dim(dim, input.ndim)))


def index_copy_(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    return dispatch.apply_inplace(shape_ops.INDEX_COPY, input, (index, source), _static(dim=wrap_dim(dim, input.ndim)))


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    return dispatch.apply(shape_ops.INDEX_FILL, (input, index, _scalar_tensor(value, input)),
                          _static(dim=wrap_dim(dim, input.ndim)))


def index_fill_(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    return dispatch.apply_inplace(shape_ops.INDEX_FILL, input, (index, _scalar_tensor(value, input)),
                                  _static(dim=wrap_dim(dim, input.ndim)))


def take(input: Tensor, index: Tensor) -> Tensor:
    _index_in_range(index, input.numel(), 0, "index_select")
    return dispatch.apply(shape_ops.TAKE, (input, index))


def take_along_dim(input: Tensor, indices: Tensor, dim=None) -> Tensor:
    if dim is None:
        return take(input, indices)
    return gather(input, dim, indices.expand(
        tuple(s if d != wrap_dim(dim, input.ndim) else indices._shape[d] for d, s in enumerate(input._shape))))


def _check_mask(mask: Tensor, name: str) -> None:
    if mask.dtype is not dtypes.bool:
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{_scalar_type_name(mask.dtype).lower() if mask.dtype is not dtypes.uint8 else 'unsigned char'}")


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    _check_mask(mask, "masked_fill_")
    value = value if isinstance(value, Tensor) else _scalar_tensor(value, input)
    return dispatch.apply(shape_ops.MASKED_FILL, (input, mask, value))


def masked_fill_(input: Tensor, mask: Tensor, value) -> Tensor:
    _check_mask(mask, "masked_fill_")
    value = value if isinstance(value, Tensor) else _scalar_tensor(value, input)
    return dispatch.apply_inplace(shape_ops.MASKED_FILL, input, (mask, value))


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    _check_mask(mask, "masked_select")
    shape = np.broadcast_shapes(tuple(input._shape), tuple(mask._shape))
    from .indexing import getitem

    return getitem(input.expand(shape), mask.expand(shape))


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    return dispatch.apply(shape_ops.MASKED_SCATTER, (input, mask, source))


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Data-dependent shape: computed on the host, as PyTorch synchronises for it too."""
    from . import factories

    found = np.nonzero(np.asarray(input._value()).reshape(input._shape) if input.ndim else
                       np.asarray(input._value()).reshape(1))
    if as_tuple:
        return tuple(factories.tensor(np.asarray(i, np.int64), device=input.device) for i in found)
    stacked = np.stack(found, axis=1) if found else np.zeros((0, 0), np.int64)
    return factories.tensor(stacked.astype(np.int64), device=input.device)


def argwhere(input: Tensor) -> Tensor:
    return nonzero(input)


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim=None):
    from . import factories

    values = np.asarray(input._value())
    found = np.unique(values if dim is None else values, return_inverse=return_inverse,
                      return_counts=return_counts, axis=dim)
    if not isinstance(found, tuple):
        return factories.tensor(found, dtype=input.dtype, device=input.device)
    parts = [factories.tensor(found[0], dtype=input.dtype, device=input.device)]
    for extra in found[1:]:
        parts.append(factories.tensor(np.asarray(extra, np.int64).reshape(
            input._shape if extra is found[1] and return_inverse and dim is None else -1), device=input.device))
    return tuple(parts)


# ----- comparisons of whole tensors ---------------------------------------------------------------

def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    return bool(isclose(input, other, rtol, atol, equal_nan).all().item())


_ISCLOSE = pointwise.Op("isclose", lambda a, b, rtol, atol, equal_nan: __import__("jax").numpy.isclose(
    a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_scalar_type_name(input.dtype)} did not match {_scalar_type_name(other.dtype)}")
    return dispatch.apply(_ISCLOSE, (input, other), _static(rtol=rtol, atol=atol, equal_nan=equal_nan))


def equal(input: Tensor, other: Tensor) -> bool:
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


def is_nonzero(input: Tensor) -> bool:
    if input.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.item())


def is_number(value) -> bool:
    return isinstance(value, numbers.Number)


_HELPERS = {"as_operand", "dims_arg", "make_return", "wrap_dim", "Tensor", "to_dtype", "view_as_dtype"}
__all__ = [name for name, value in list(globals().items())
           if callable(value) and not name.startswith("_") and name not in _HELPERS
           and getattr(value, "__module__", None) == __name__ and not isinstance(value, type)]
