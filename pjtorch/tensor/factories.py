"""Tensor creation: `tensor`, `from_numpy`, `zeros`, `arange`, ... and moving between devices/dtypes."""
from __future__ import annotations

import builtins
import functools
import math
import numbers
import operator
import warnings
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from .. import dispatch
from ..autograd import grad_mode
from ..ops import shape as shape_ops, strided
from ..ops.strided import is_dense
from ..ops.registry import Op, SAVES_NOTHING
from . import dtypes
from .device import device as Device, normalize, put, to_jax
from .storage import Storage
from .tensor import Tensor
from .views import shape_args


def _finish(array, device: Device, requires_grad: bool) -> Tensor:
    check_grad_dtype(dtypes.from_jax(array.dtype), requires_grad)
    t = Tensor._wrap(put(array, device), device)
    if requires_grad:
        t.requires_grad_(True)
    return t


# ----- from data ----------------------------------------------------------------------------------

def _infer_dtype(data) -> dtypes.dtype:
    """PyTorch's `infer_scalar_type`: leaves' dtypes promoted together; Python numbers by category."""
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return dtypes.from_jax(data.dtype)
    if isinstance(data, (list, tuple, range)):
        if not data:
            return dtypes.get_default_dtype()
        if set(map(type, data)) <= _PYTHON_SCALAR_SET:
            return dtypes.default_for_category(builtins.max(map(dtypes.scalar_category, data)))
        return functools.reduce(dtypes.promote_types, map(_infer_dtype, data))
    if isinstance(data, (str, bytes)):
        raise _invalid_data_type(data)
    if isinstance(data, _PYTHON_SCALARS):
        return dtypes.default_for_category(dtypes.scalar_category(data))
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _sizes(data) -> tuple:
    """The shape PyTorch reads off nested data: the lengths along each first element (tensors are leaves). A string
    there is a sequence whose items are strings, so PyTorch descends until it has too many dims."""
    sizes = []
    while _is_sequence(data):
        sizes.append(len(data))
        if not len(data):
            break
        data = data[0]
        if isinstance(data, str):
            raise ValueError("too many dimensions 'str'")
    return tuple(sizes)


def _is_sequence(item) -> bool:
    return isinstance(item, (list, tuple, range)) or (isinstance(item, np.ndarray) and item.ndim > 0)


def _leaves(data, sizes: tuple, dim: int, dtype: dtypes.dtype, out: list) -> None:
    """Appends `data`'s scalars in row-major order, raising PyTorch's errors for irregular nesting."""
    if dim == len(sizes):
        out.append(_leaf(data, dtype))
        return
    if not (_is_sequence(data) or isinstance(data, Tensor) and data.ndim):
        raise TypeError("not a sequence")
    if len(data) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(data)})")
    if dim == len(sizes) - 1 and isinstance(data, list) and set(map(type, data)) <= (
            _PYTHON_SCALAR_SET if dtype.is_complex else _REAL_SCALAR_SET):
        out.extend(data)
    elif isinstance(data, np.ndarray) and data.shape == sizes[dim:]:
        out.extend(data.ravel().tolist())
    else:
        for item in data:
            _leaves(item, sizes, dim + 1, dtype, out)


def _leaf(item, dtype: dtypes.dtype):
    """One scalar as PyTorch unpacks it for `dtype` (integers through __index__, tensors through theirs)."""
    if isinstance(item, np.generic):
        if dtype.category < dtypes.FLOATING and not (isinstance(item, (np.integer, builtins.float))
                                                     or dtype is dtypes.bool and isinstance(item, np.bool_)):
            # Only NumPy integers (and np.float64, a Python float) pass an integer or bool dtype's unpacking.
            raise TypeError(f"'numpy.{type(item).__name__}' object cannot be interpreted as an integer")
        return item.item()
    if dtype is dtypes.bool and isinstance(item, builtins.complex):
        return builtins.bool(item)
    if dtype.category >= dtypes.FLOATING:
        if isinstance(item, Tensor):
            return item.item() if item.numel() == 1 else float(item)
        if not isinstance(item, numbers.Number) or isinstance(item, builtins.complex) and not dtype.is_complex:
            raise TypeError(f"must be real number, not {type(item).__name__}")
        return item
    return item if isinstance(item, (builtins.float, builtins.bool, np.bool_)) else operator.index(item)


def _check_fits(values: list, dtype: dtypes.dtype) -> None:
    """PyTorch refuses integers that overflow an integer dtype (negatives wrap into unsigned ones)."""
    if dtype.category != dtypes.INTEGER or not values:
        return
    low, high = builtins.min(values), builtins.max(values)
    if isinstance(low, builtins.int) and low < -2 ** 63 or isinstance(high, builtins.int) and high >= 2 ** 63:
        raise ValueError("Overflow when unpacking long long")
    info = np.iinfo(dtype.jax)
    floor = -info.max if info.min == 0 else info.min
    if low < floor or high > info.max:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    floats = [v for v in values if isinstance(v, builtins.float)]
    if floats:
        # A float is checked as a real number against the dtype's range (compared in double precision): NaN,
        # infinities, anything past the range and, for unsigned dtypes, any negative float (-0.0 is not) overflow.
        array = np.asarray(floats, dtype=np.float64)
        with np.errstate(invalid="ignore"):
            fits = (array >= builtins.float(info.min)) & (array <= builtins.float(info.max))
        if not fits.all():
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")


def _from_data(data, dtype: dtypes.dtype) -> np.ndarray:
    """A host array of `dtype` holding nested Python data (lists, tuples, numbers, ndarrays, tensors)."""
    sizes = _sizes(data)
    values: list = []
    _leaves(data, sizes, 0, dtype, values)
    _check_fits(values, dtype)
    with np.errstate(over="ignore", invalid="ignore"):  # out-of-range floats become inf, as in PyTorch
        return np.asarray(values).astype(dtype.jax).reshape(sizes)


def tensor(data, *, dtype: dtypes.dtype | None = None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of `data`, with PyTorch's dtype inference."""
    dtype = dtype_argument(dtype, "tensor")
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
                      "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        target = normalize(device) if device is not None else data.device
        return _finish(np.asarray(data._value()).astype((dtype or data.dtype).jax), target, requires_grad)
    if type(data) in _PYTHON_SCALARS:
        return _scalar_tensor(data, dtype, device, requires_grad)
    if isinstance(data, (str, bytes)):
        raise _invalid_data_type(data)
    if isinstance(data, np.ndarray):
        _check_numpy_layout(data)
        if dtype is None or data.dtype.kind not in "biufc":
            inferred = dtypes.from_jax(data.dtype)  # NumPy's strings and objects are refused, dtype or not
            dtype = dtype or inferred
        return _copy_of_ndarray(data, dtype, normalize(device), requires_grad)
    _sizes(data)  # PyTorch reads the shape before the dtype, so a nested string is that error
    # the data's own errors come before requires_grad's, which _finish checks
    return _finish(_from_data(data, dtype or _infer_dtype(data)), normalize(device), requires_grad)


def _invalid_data_type(data) -> TypeError:
    return TypeError(f"new(): invalid data type '{type(data).__name__}'")


_PYTHON_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)
_PYTHON_SCALAR_SET = frozenset(_PYTHON_SCALARS)
_REAL_SCALAR_SET = _PYTHON_SCALAR_SET - {builtins.complex}


def _scalar_tensor(value, dtype, device, requires_grad: bool) -> Tensor:
    """A 0-dim tensor from the cache of device scalars (arrays are immutable, so sharing one is safe)."""
    dtype = dtype or dtypes.default_for_category(dtypes.scalar_category(value))
    value = _leaf(value, dtype)
    if dtype.category == dtypes.INTEGER:
        _check_fits([value], dtype)
        value = np.asarray(value).astype(dtype.jax).item()
    check_grad_dtype(dtype, requires_grad)
    target = normalize(device)
    t = Tensor._wrap(dispatch.scalar_array(value, dtype.jax, target), target)
    if requires_grad:
        t._requires_grad = True
    return t


def as_tensor(data, dtype: dtypes.dtype | None = None, device=None) -> Tensor:
    """Shares memory where it can (a tensor of the same dtype and device, or a NumPy array on CPU)."""
    if isinstance(data, Tensor):
        return to(data, device=device, dtype=dtype)
    target = normalize(device)
    if isinstance(data, np.ndarray) and target.type == "cpu" and (dtype is None or dtype.jax == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad: bool = False) -> Tensor:
    result = as_tensor(obj, dtype=dtype, device=device)
    return result.requires_grad_(requires_grad) if requires_grad else result


def from_numpy(array: np.ndarray) -> Tensor:
    """A CPU tensor sharing `array`'s memory: writes on either side are seen by the other."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {_type_name(array)})")
    _check_numpy_layout(array)
    dtype = dtypes.from_jax(array.dtype)
    if builtins.any(s % array.itemsize for s in array.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. Copy the numpy array "
                         "to reallocate the memory.")
    strides = _element_strides(array)
    host = array if array.flags.c_contiguous else _flat_buffer(array, strides)
    return Tensor._from_storage(Storage.of_host(host, normalize("cpu"), dtype), array.shape, strides, 0)


def _check_numpy_layout(array: np.ndarray) -> None:
    """What PyTorch's tensor_from_numpy refuses, copying or not."""
    if builtins.any(s < 0 for s in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a copy "
                         "of your array  with array.copy().) ")
    if not array.dtype.isnative:
        raise ValueError("given numpy array has byte order different from the native byte order. Conversion between "
                         "byte orders is currently not supported.")


def _element_strides(array: np.ndarray) -> tuple:
    return tuple(s // array.itemsize for s in array.strides)


def _type_name(value) -> str:
    """A type's name as CPython's tp_name gives it: `list`, `numpy.float64`."""
    kind = type(value)
    return kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"


def _flat_buffer(array: np.ndarray, strides: tuple) -> np.ndarray:
    """The 1-D span of memory a positively strided ndarray lies in, as a view sharing that memory."""
    extent = 1 + builtins.sum((n - 1) * s for n, s in zip(array.shape, strides)) if array.size else 0
    return np.lib.stride_tricks.as_strided(array, (extent,), (array.itemsize,))


def _copy_of_ndarray(array: np.ndarray, dtype: dtypes.dtype, device: Device, requires_grad: bool) -> Tensor:
    """`torch.tensor(ndarray)`: a copy that keeps a dense array's strides exactly (others become contiguous)."""
    check_grad_dtype(dtype, requires_grad)
    strides = _element_strides(array)
    if strides == strided.contiguous_strides(array.shape) or not (array.size == 0 or is_dense(array.shape, strides)):
        return _finish(np.array(array, dtype=dtype.jax, order="C"), device, requires_grad)
    flat = np.empty(array.size, dtype.jax)
    np.lib.stride_tricks.as_strided(flat, array.shape, tuple(s * flat.itemsize for s in strides))[...] = array
    t = Tensor._from_storage(Storage(put(flat, device), device, dtype), array.shape, strides, 0)
    return t.requires_grad_(True) if requires_grad else t


# ----- filled -------------------------------------------------------------------------------------

def new_shape(size, negative_message: str | None = None, function: str | None = None) -> tuple:
    """The shape a factory was asked for (`f(2, 3)`, `f((2, 3))`; `f()` is PyTorch's TypeError, `f(())` a 0-dim
    shape), refusing negative sizes as PyTorch does, and (given the function's name) arguments that are not ints
    with PyTorch's argument parser's messages."""
    if not size:
        raise TypeError(f'{function + "() " if function else ""}missing 1 required positional arguments: "size"')
    shape = size_argument(size, function) if function else shape_args(size)
    for s in shape:
        if s < 0:
            raise RuntimeError(negative_message or
                               f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")
    return shape


def size_argument(args: tuple, function: str, position: int | None = 1, varargs: bool = True,
                  name: str = "size") -> tuple:
    """PyTorch's parsing of a `tuple of ints` argument (`args` holds what was passed for it: one sequence, or with
    `varargs` the ints themselves): ints, NumPy ints and 0-dim integer tensors; anything else is its TypeError."""
    where = f" (position {position})" if position else ""
    if varargs and len(args) > 1 and not is_int_argument(args[0]):
        raise TypeError(f"{function}() takes 1 positional argument but {len(args)} were given")
    if len(args) == 1 and isinstance(args[0], (builtins.tuple, builtins.list)):
        items = args[0]
        if items and not is_int_argument(items[0]):  # the parser's overload match looks at the first element
            raise TypeError(f"{function}(): argument '{name}'{where} must be tuple of ints, but found element of type "
                            f"{arg_type_name(items[0])} at pos 0")
    elif varargs and builtins.all(is_int_argument(a) for a in args[:1]):
        items = args
    else:
        raise TypeError(f"{function}(): argument '{name}'{where} must be tuple of ints, not {arg_type_name(args[0])}")
    for i, item in enumerate(items):
        if not is_int_argument(item):
            raise TypeError(f"{function}(): argument '{name}' failed to unpack the object at pos {i + 1} with error "
                            f'"type must be tuple of ints,but got {arg_type_name(item)}"')
    return tuple(builtins.int(item) for item in items)


def is_int_argument(value) -> bool:
    if isinstance(value, Tensor):
        return value.ndim == 0 and value.dtype.category == dtypes.INTEGER
    return isinstance(value, (builtins.int, np.integer)) and not isinstance(value, builtins.bool)


def arg_type_name(value) -> str:
    """A value's type as PyTorch's argument parser names it in its errors."""
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, dtypes.dtype):
        return "torch.dtype"
    if isinstance(value, Device):
        return "torch.device"
    if type(value).__module__.split(".")[0] in ("pjtorch", "torch") and type(value).__name__ in ("Generator", "layout"):
        return "torch._C.Generator" if type(value).__name__ == "Generator" else "torch.layout"
    return _type_name(value)


def invalid_arguments(function: str, args: tuple, kwargs: dict, signatures: tuple) -> TypeError:
    """PyTorch's error where no overload of `function` takes the arguments given; a signature may come as a pair
    (signature, why it did not match), which PyTorch's parser adds for some."""
    positional = ", ".join(arg_type_name(a) for a in args)
    keywords = [f"{k}={arg_type_name(v)}" for k, v in reversed(kwargs.items())]
    got = (positional + "".join(", " + k for k in keywords)) if args else "".join(k + ", " for k in keywords)
    expected = "".join(f" * ({signature})\n" if isinstance(signature, str) else
                       f" * ({signature[0]})\n      {signature[1]}\n" for signature in signatures)
    error = TypeError(f"{function}() received an invalid combination of arguments - got ({got}), but expected one "
                      f"of:\n{expected}")
    error.overload_call = (function, args, kwargs, signatures)  # so that a Tensor method can restate it as its own
    return error


def dtype_argument(dtype, function: str):
    """A factory's `dtype` as PyTorch's parser takes it: a torch.dtype, or Python's bool, int, float or complex type
    for bool, int64, float64 and complex128; nothing else (NumPy types, names) passes."""
    if dtype is None or isinstance(dtype, dtypes.dtype):
        return dtype
    found = _PYTHON_TYPE_DTYPES.get(dtype) if isinstance(dtype, type) else None
    if found is None:
        raise TypeError(f"{function}(): argument 'dtype' must be torch.dtype, not {arg_type_name(dtype)}")
    return found


def check_grad_dtype(dtype: dtypes.dtype, requires_grad: bool) -> None:
    if requires_grad and dtype.category < dtypes.FLOATING:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")


def _filled(shape: tuple, value, dtype, device, requires_grad) -> Tensor:
    target = normalize(device)
    dtype = dtype or dtypes.get_default_dtype()
    check_grad_dtype(dtype, requires_grad)
    t = Tensor._wrap(filled_array(shape, value, dtype.jax, target), target)
    return t.requires_grad_(True) if requires_grad else t


@functools.lru_cache(maxsize=None)
def _filler(shape: tuple, dtype, jax_device):
    return jax.jit(lambda value: jnp.full(shape, value, dtype),
                   out_shardings=jax.sharding.SingleDeviceSharding(jax_device))


def filled_array(shape: tuple, value, dtype, device: Device):
    """A constant array made on the device by one cached compiled call (eager jnp.full costs ~100 us)."""
    scalar = dispatch.scalar_array(value, dtype, device)
    if not shape:
        return scalar
    return _filler(tuple(shape), dtype, to_jax(device))(scalar)


def _factory_size(function: str, args: tuple, size) -> tuple:
    """The size a `zeros`-like factory was given, positionally (`f(2, 3)`, `f((2, 3))`) or as `size=`."""
    if size is None:
        return args
    if args:
        raise TypeError(f"{function}() got multiple values for argument 'size'")
    return (size,)


def _filling_out(fn):
    """`out=` for a factory: PyTorch makes the result in `out`'s dtype (a different `dtype=` is an error), resizes
    `out` to it, fills it and returns `out` itself."""
    name = fn.__name__

    @functools.wraps(fn)
    def run(*args, out=None, dtype=None, requires_grad: bool = False, **kwargs):
        if out is None:
            return fn(*args, dtype=dtype, requires_grad=requires_grad, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {arg_type_name(out)}")
        dtype = dtype_argument(dtype, name)
        if dtype is not None and dtype is not out.dtype:
            raise RuntimeError(f"dtype {_scalar_type_name(dtype)} does not match dtype of out parameter "
                               f"({_scalar_type_name(out.dtype)})")
        if out.requires_grad and grad_mode.STATE.enabled:
            raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.")
        check_grad_dtype(out.dtype, requires_grad)
        result = fn(*args, dtype=out.dtype, **kwargs)
        if name == "arange" and 0 < out.numel() != result.numel():
            warnings.warn(f"The number of elements in the out tensor of shape [{out.numel()}] is {out.numel()} which "
                          f"does not match the computed number of elements {result.numel()}. Note that this may occur "
                          f"as a result of rounding error. The out tensor will be resized to a tensor of shape "
                          f"({result.numel()},).", UserWarning, stacklevel=2)
        with grad_mode.no_grad():
            if out.shape != result.shape:
                out.resize_(result.shape)
            out.copy_(result)
        return out.requires_grad_(True) if requires_grad else out

    return run


def _scalar_type_name(dtype: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[dtype][:-6]


@_filling_out
def zeros(*args, size=None, dtype=None, device=None, requires_grad: bool = False, layout=None,
          pin_memory: bool = False) -> Tensor:
    return _filled(new_shape(_factory_size("zeros", args, size), "zeros: Dimension size must be non-negative.",
                             "zeros"), 0, dtype_argument(dtype, "zeros"), device, requires_grad)


@_filling_out
def ones(*args, size=None, dtype=None, device=None, requires_grad: bool = False, layout=None,
         pin_memory: bool = False) -> Tensor:
    return _filled(new_shape(_factory_size("ones", args, size), function="ones"), 1, dtype_argument(dtype, "ones"),
                   device, requires_grad)


@_filling_out
def empty(*args, size=None, dtype=None, device=None, requires_grad: bool = False, layout=None,
          pin_memory: bool = False, memory_format=None) -> Tensor:
    return _filled(new_shape(_factory_size("empty", args, size), function="empty"), 0, dtype_argument(dtype, "empty"),
                   device, requires_grad)


@_filling_out
def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, layout=None) -> Tensor:
    if not (isinstance(fill_value, (numbers.Number, np.generic)) or isinstance(fill_value, Tensor) and
            not fill_value.ndim):  # a 0-dim tensor passes as a Number
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {arg_type_name(fill_value)}")
    shape = size_argument((size,), "full", varargs=False)
    return _full(shape, fill_value, dtype_argument(dtype, "full"), device, requires_grad)


def _full(size: tuple, fill_value, dtype, device, requires_grad: bool) -> Tensor:
    if isinstance(fill_value, np.bool_):
        fill_value = builtins.float(fill_value)  # PyTorch's Scalar parser reads a NumPy bool as a float
    elif isinstance(fill_value, (Tensor, np.generic)):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = dtypes.default_for_category(dtypes.scalar_category(fill_value))
    else:
        fill_value = filled_scalar(fill_value, dtype)
    return _filled(new_shape((size,)), fill_value, dtype, device, requires_grad)


def scalar_tensor(value, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A 0-dim tensor of `value` (the default float dtype unless given), converted as `fill_` writes a number into
    a tensor (checked for overflow, unlike `tensor()`'s conversion): masked_fill's and index_fill's values. Not
    `torch.scalar_tensor`, which rounds half and bfloat16 unchecked: that is `torch_scalar_tensor`."""
    return _full((), value, dtype or dtypes.get_default_dtype(), device, requires_grad)


def filled_scalar(value, dtype: dtypes.dtype):
    """`dtypes.checked_scalar` (PyTorch's checked conversion of a Scalar), plus the cases it lets through: an
    integer beyond uint64's range is not a Scalar at all, and a complex64 overflows where a part exceeds float32."""
    if isinstance(value, builtins.int) and not isinstance(value, builtins.bool):
        _python_number(value)
    if dtype is dtypes.complex64:
        _check_complex64(value)
    return dtypes.checked_scalar(value, dtype)


_MISSING = object()


def torch_scalar_tensor(s=_MISSING, *extra, dtype=None, device=None, requires_grad: bool = False, layout=None,
                        pin_memory: bool = False) -> Tensor:
    """`torch.scalar_tensor`: a 0-dim tensor of the number `s` (or of a 0-dim tensor's value), of the default float
    dtype unless given, converted as PyTorch writes a number into a new tensor (see `written_scalar`)."""
    if s is _MISSING:
        raise TypeError('scalar_tensor() missing 1 required positional arguments: "s"')
    if extra:
        raise TypeError(f"scalar_tensor() takes 1 positional argument but {1 + len(extra)} were given")
    if isinstance(s, Tensor) and s.ndim == 0:
        s = s.item()
    if isinstance(s, Tensor) or not isinstance(s, (numbers.Number, np.bool_)):
        raise TypeError(f"scalar_tensor(): argument 's' (position 1) must be Number, not {type(s).__name__}")
    dtype = dtype or dtypes.get_default_dtype()
    return _filled((), written_scalar(_python_number(s), dtype), dtype, device, requires_grad)


def _python_number(value):
    """A number as PyTorch's Scalar parser reads it: bools and integers (up to uint64's range) as int, other
    NumPy scalars through float() (a NumPy complex64 loses its imaginary part, with NumPy's warning)."""
    if isinstance(value, (builtins.bool, builtins.int, np.integer, np.bool_)):
        value = builtins.int(value)
        if value >= 2 ** 64:
            raise OverflowError("int too big to convert")
        if value < -2 ** 63:
            raise OverflowError("can't convert negative int to unsigned")
        return value
    if isinstance(value, builtins.complex):
        return builtins.complex(value)
    return builtins.float(value)


_FLOAT32_MAX = builtins.float(np.finfo(np.float32).max)


def _check_complex64(value) -> None:
    number = builtins.complex(value)
    if builtins.any(math.isfinite(part) and builtins.abs(part) > _FLOAT32_MAX for part in (number.real, number.imag)):
        raise RuntimeError("value cannot be converted to type c10::complex<float> without overflow")


def written_scalar(value, dtype: dtypes.dtype):
    """A Python number as PyTorch writes it into a new 0-dim tensor (`torch.scalar_tensor`, and `t[i] = number`):
    checked for overflow as `fill_` checks, except that half and bfloat16 go through double (so only a complex number
    with a nonzero imaginary part fails, naming `double`) and then round unchecked, overflowing to inf."""
    if dtype in (dtypes.float16, dtypes.bfloat16):
        if isinstance(value, builtins.complex):
            if value.imag != 0:
                raise RuntimeError("value cannot be converted to type double without overflow")
            value = value.real
        with np.errstate(over="ignore"):
            return builtins.float(np.asarray(builtins.float(value)).astype(dtype.jax))
    return filled_scalar(value, dtype)


def like(input: Tensor, make: Callable[[tuple], Tensor], requires_grad: bool = False, memory_format=None) -> Tensor:
    """`make(shape)` laid out as `input` is where that is dense (PyTorch's preserve_format, the default), else (or
    asked for contiguous_format) contiguous."""
    stride = input._stride
    if memory_format is dtypes.contiguous_format or stride == strided.contiguous_strides(input._shape) or \
            not is_dense(input._shape, stride):
        made = make(tuple(input._shape))
    else:
        flat = make((input.numel(),))
        made = Tensor._from_storage(flat._storage, input._shape, stride, 0)
    return made.requires_grad_(True) if requires_grad else made


def _filled_like(function: str, input: Tensor, value, dtype, device, requires_grad: bool, memory_format) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{function}(): argument 'input' (position 1) must be Tensor, not {arg_type_name(input)}")
    dtype = dtype_argument(dtype, function) or input.dtype
    check_grad_dtype(dtype, requires_grad)
    device = device if device is not None else input.device
    return like(input, lambda shape: _filled(shape, value, dtype, device, False), requires_grad, memory_format)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
               memory_format=None) -> Tensor:
    return _filled_like("zeros_like", input, 0, dtype, device, requires_grad, memory_format)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
              memory_format=None) -> Tensor:
    return _filled_like("ones_like", input, 1, dtype, device, requires_grad, memory_format)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
               memory_format=None) -> Tensor:
    return _filled_like("empty_like", input, 0, dtype, device, requires_grad, memory_format)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
              memory_format=None) -> Tensor:
    """The value is converted with full's overflow check, into the given dtype or else the input's."""
    if isinstance(input, Tensor):
        fill_value = filled_scalar(fill_value.item() if isinstance(fill_value, Tensor) else fill_value,
                                   dtype_argument(dtype, "full_like") or input.dtype)
    return _filled_like("full_like", input, fill_value, dtype, device, requires_grad, memory_format)


@_filling_out
def eye(n: int = _MISSING, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False,
        layout=None, pin_memory: bool = False) -> Tensor:
    _require("eye", (n,))
    if not is_int_argument(n):
        raise TypeError(f"eye(): argument 'n' (position 1) must be int, not {arg_type_name(n)}")
    if m is not None and not is_int_argument(m):
        raise invalid_arguments("eye", (n, m), {}, _SIGNATURES["eye"])
    m = n if m is None else m
    for name, size in (("n", n), ("m", m)):
        if size < 0:
            raise RuntimeError(f"{name} must be greater or equal to 0, got {size}")
    dtype = dtype_argument(dtype, "eye") or dtypes.get_default_dtype()
    return _finish(np.eye(n, m, dtype=_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


def _host_dtype(dtype: dtypes.dtype):
    return np.float32 if dtype is dtypes.bfloat16 else dtype.jax


# ----- ranges -------------------------------------------------------------------------------------

def _is_number(value) -> bool:
    """What PyTorch's parser takes for a Number: Python and NumPy numbers, and 0-dim tensors."""
    return isinstance(value, (numbers.Number, np.generic)) or isinstance(value, Tensor) and not value.ndim


def _number(value):
    return value.item() if isinstance(value, (Tensor, np.generic)) else value


_FACTORY_OPTIONS = ("torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
                    "bool pin_memory = False, bool requires_grad = False")
_OUT_OPTIONS = "Tensor out = None, " + _FACTORY_OPTIONS
_SPACE_SIGNATURES = tuple(f"{first} start, {second} end, int steps, {{base}}*, {_OUT_OPTIONS}"
                          for first, second in (("Tensor", "Tensor"), ("Number", "Tensor"), ("Tensor", "Number"),
                                                ("Number", "Number")))
# PyTorch's overloads of the range functions, as its "invalid combination of arguments" error lists them.
_SIGNATURES = {
    "arange": (f"Number end, *, {_OUT_OPTIONS}", f"Number start, Number end, *, {_FACTORY_OPTIONS}",
               f"Number start, Number end, Number step = 1, *, {_OUT_OPTIONS}"),
    "linspace": tuple(signature.format(base="") for signature in _SPACE_SIGNATURES),
    "logspace": tuple(signature.format(base="float base = 10.0, ") for signature in _SPACE_SIGNATURES),
    "eye": (f"int n, *, {_OUT_OPTIONS}", f"int n, int m, *, {_OUT_OPTIONS}"),
}


def _require(function: str, args: tuple) -> None:
    """PyTorch's parser error for a call that leaves out a required argument (the `_MISSING` ones)."""
    if any(a is _MISSING for a in args):
        raise invalid_arguments(function, tuple(a for a in args if a is not _MISSING), {}, _SIGNATURES[function])


@_filling_out
def arange(start=_MISSING, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False,
           layout=None) -> Tensor:
    if start is _MISSING and end is not None:  # arange(end=n)
        start, end = end, None
    _require("arange", (start,))
    if end is None and not _is_number(start):
        raise TypeError(f"arange(): argument 'end' (position 1) must be Number, not {arg_type_name(start)}")
    dtype = dtype_argument(dtype, "arange")
    if dtype is not None and (dtype is dtypes.bool or dtype.is_complex):  # refused before the range is looked at
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{dtypes.LEGACY_NAMES[dtype][:-6]}'")
    start, end, step = _number(start), _number(end), _number(step)
    if end is None:
        start, end = 0, start
    if step == 0 or math.isnan(step):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(start) and math.isfinite(end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = dtypes.default_for_category(builtins.max(dtypes.INTEGER, *(dtypes.scalar_category(v)
                                                                          for v in (start, end, step))))
    if dtype.category <= dtypes.INTEGER:
        values = _integer_range(start, end, step, dtype)
    else:
        values = start + np.arange(math.ceil((end - start) / step), dtype=np.float64) * step
    return _finish(values.astype(_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


def _integer_range(start, end, step, dtype: dtypes.dtype) -> np.ndarray:
    """PyTorch steps an integer range in int64 from the truncated start and step; int64 also counts it from the
    truncated ends (and refuses a step that truncates to 0), the narrower integer dtypes count it in doubles."""
    first, last, stride = (_truncated(v) for v in (start, end, step))
    if dtype is not dtypes.int64:
        count = math.ceil((end - start) / step)
    elif stride == 0:
        raise ValueError("step must be nonzero")
    else:
        span = last - first + stride - (1 if stride > 0 else -1)
        count = builtins.max(0, abs(span) // abs(stride) * (1 if (span < 0) == (stride < 0) else -1))
    return first + np.arange(count, dtype=np.int64) * stride


@_filling_out
def linspace(start=_MISSING, end=_MISSING, steps: int = _MISSING, *, dtype=None, device=None,
             requires_grad: bool = False, layout=None) -> Tensor:
    _require("linspace", (start, end, steps))
    if not is_int_argument(steps):
        raise invalid_arguments("linspace", (start, end, steps), {}, _SIGNATURES["linspace"])
    start, end = _number(start), _number(end)
    dtype = dtype_argument(dtype, "linspace") or _range_dtype(start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    start, end = dtypes.checked_scalar(start, dtype), dtypes.checked_scalar(end, dtype)
    if dtype.category <= dtypes.INTEGER:
        start, end = _truncated(start), _truncated(end)  # PyTorch converts the ends to the integer dtype first
        values = np.trunc(_float_linspace(start, end, steps, dtypes.float64))
    elif dtype.category == dtypes.FLOATING:
        values = _float_linspace(start, end, steps, dtype)
    else:
        values = _symmetric_linspace(start, end, steps)
    return _finish(values.astype(_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


def _truncated(value):
    return builtins.int(value.real if isinstance(value, builtins.complex) else value)


def _float_linspace(start, end, steps: int, dtype: dtypes.dtype) -> np.ndarray:
    """PyTorch's CPU kernel in the dtype itself: ends and step rounded to it, then `start + step * i` for the first
    half and `end - step * (steps - 1 - i)` for the rest, fused (one rounding) for float32/float64 and rounded after
    each operation for half and bfloat16."""
    if isinstance(start, builtins.complex) or isinstance(end, builtins.complex):
        return _symmetric_linspace(start, end, steps)
    kind = np.dtype(dtype.jax).type  # integer dtypes come as float64: their step is a double, fused as float64's
    with np.errstate(over="ignore", invalid="ignore"):
        first, last = kind(start), kind(end)
        if steps <= 1:
            return np.asarray([first] * steps, kind)
        step = kind(kind(last - first) / kind(steps - 1))
        index = np.arange(steps)
        half = steps // 2
        multiples = np.where(index < half, index, steps - 1 - index)
        bases = np.where(index < half, first, last)
        signed_step = np.where(index < half, step, -step).astype(kind)
        if dtype in (dtypes.float16, dtypes.bfloat16):
            return (bases + (signed_step * multiples.astype(kind)).astype(kind)).astype(kind)
        if dtype is dtypes.float32:
            return (bases.astype(np.float64) + signed_step.astype(np.float64) * multiples).astype(kind)
        if steps <= 4096 and math.isfinite(start) and math.isfinite(end):
            from fractions import Fraction
            return np.asarray([builtins.float(Fraction(builtins.float(b)) + Fraction(builtins.float(s)) * builtins.int(m))
                               for b, s, m in zip(bases, signed_step, multiples)], np.float64)
        return bases + signed_step * multiples


def _range_dtype(start, end) -> dtypes.dtype:
    """The default float dtype, or the default complex one where an end point is complex."""
    complex_ends = isinstance(start, builtins.complex) or isinstance(end, builtins.complex)
    return dtypes.default_for_category(dtypes.COMPLEX if complex_ends else dtypes.FLOATING)


def _symmetric_linspace(start, end, steps: int) -> np.ndarray:
    """Filled from both ends, as PyTorch does, so the last value is exactly `end`."""
    kind = np.result_type(start, end, np.float64)
    if steps == 1:
        return np.asarray([start], kind)
    step = (end - start) / (steps - 1)
    index = np.arange(steps, dtype=np.float64)
    half = steps // 2
    return np.where(index < half, start + step * index, end - step * (steps - 1 - index)).astype(kind)


@_filling_out
def logspace(start=_MISSING, end=_MISSING, steps: int = _MISSING, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    _require("logspace", (start, end, steps))
    if not is_int_argument(steps):
        raise invalid_arguments("logspace", (start, end, steps), {}, _SIGNATURES["logspace"])
    start, end = _number(start), _number(end)
    dtype = dtype_argument(dtype, "logspace") or _range_dtype(start, end)
    start, end = dtypes.checked_scalar(start, dtype), dtypes.checked_scalar(end, dtype)
    if dtype.category <= dtypes.INTEGER:
        start, end = _truncated(start), _truncated(end)  # PyTorch converts the ends to the integer dtype first
    values = np.power(base, _symmetric_linspace(start, end, steps))
    return _finish(values.astype(_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


# ----- moving between devices and dtypes ----------------------------------------------------------

_TO_DEVICE = Op("to_device", lambda x: x, grad_name="ToCopyBackward0", saves=SAVES_NOTHING, promote="none")


def to_device(t: Tensor, device: Device) -> Tensor:
    """A copy on another device; recorded so gradients flow back across."""
    moved = Tensor._wrap(jax.device_put(t._value(), to_jax(device)), device)
    if grad_mode.STATE.enabled and t.requires_grad:
        dispatch.record(_TO_DEVICE.kernel(), (t,), (t._value(),), (moved,))
    return moved


_TO_SIGNATURES = (
    "torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None",
    "torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None",
    "Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None")
_PYTHON_TYPE_DTYPES = {bool: dtypes.bool, int: dtypes.int64, float: dtypes.float64, complex: dtypes.complex128}


def _python_type_dtype(dtype):
    """PyTorch takes Python's bool, int, float and complex types as dtypes; to() reads a positional bool, float or
    complex value as its type (an int is a device index)."""
    return _PYTHON_TYPE_DTYPES.get(dtype, dtype) if isinstance(dtype, type) else dtype


def _parse_to_args(args, kwargs) -> tuple:
    device, dtype = kwargs.get("device"), _python_type_dtype(kwargs.get("dtype"))
    for position, arg in enumerate(args):
        if isinstance(arg, dtypes.dtype):
            dtype = arg
        elif position == 0 and isinstance(arg, (bool, float, complex)) or arg in _PYTHON_TYPE_DTYPES:
            dtype = _python_type_dtype(arg if isinstance(arg, type) else type(arg))
        elif isinstance(arg, bool) and position > 0:
            continue  # non_blocking or copy
        elif isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, (str, Device, int)):
            device = arg
        elif arg is not None:
            raise invalid_arguments("to", args, kwargs, _TO_SIGNATURES)
    return (None if device is None else normalize(device)), dtype


def to(t: Tensor, *args, **kwargs) -> Tensor:
    device, dtype = _parse_to_args(args, kwargs)
    copy = kwargs.get("copy", False)
    result = t
    if device is not None and device != t.device:
        to_jax(device)
        result = to_device(result, device)
    if dtype is not None and dtype is not result.dtype:
        from .functions import to_dtype

        result = to_dtype(result, dtype)
    if result is not t and kwargs.get("memory_format") is dtypes.contiguous_format and not result.is_contiguous():
        from .functions import contiguous

        result = contiguous(result)
    if copy and result is t:
        result = dispatch.apply(shape_ops.CLONE, (t,))
    return result
