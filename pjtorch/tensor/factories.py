"""Tensor creation: `tensor`, `from_numpy`, `zeros`, `arange`, ... and moving between devices/dtypes."""
from __future__ import annotations

import builtins
import math
import numbers
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import dispatch
from ..autograd import grad_mode
from ..ops import shape as shape_ops
from ..ops.registry import Op, SAVES_NOTHING
from . import dtypes
from .device import device as Device, normalize, to_jax
from .storage import Storage
from .tensor import Tensor
from .views import shape_args


def _finish(array, device: Device, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(jax.device_put(array, to_jax(device)), device)
    if requires_grad:
        t.requires_grad_(True)
    return t


# ----- from data ----------------------------------------------------------------------------------

def _infer_dtype(data) -> dtypes.dtype:
    """PyTorch's dtype for nested Python data: bool < int64 < default float < complex."""
    category = dtypes.BOOL
    seen = False
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, Tensor):
            category = builtins.max(category, item.dtype.category)
            seen = True
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, np.ndarray):
            category = builtins.max(category, dtypes.from_jax(item.dtype).category)
            seen = True
        elif isinstance(item, np.generic):
            category = builtins.max(category, dtypes.from_jax(item.dtype).category)
            seen = True
        else:
            category = builtins.max(category, dtypes.scalar_category(item))
            seen = True
    if not seen:
        return dtypes.get_default_dtype()
    return dtypes.default_for_category(category)


def _to_nested_values(data):
    """Python data with tensors replaced by their values, checking PyTorch's shape rules."""
    if isinstance(data, Tensor):
        return np.asarray(data._value())
    if isinstance(data, (list, tuple)):
        items = [_to_nested_values(x) for x in data]
        _check_regular(items)
        return items
    if isinstance(data, (numbers.Number, np.generic, np.ndarray)):
        return data
    raise TypeError(f"new(): invalid data type '{type(data).__name__}'")


def _check_regular(items: list) -> None:
    lengths = [len(x) if isinstance(x, (list, np.ndarray)) and np.ndim(x) else None for x in items]
    if lengths and builtins.any(length != lengths[0] for length in lengths):
        first = lengths[0] if lengths[0] is not None else 0
        bad = next(length for length in lengths if length != lengths[0])
        raise ValueError(f"expected sequence of length {first} at dim 1 (got {bad if bad is not None else 0})")


def tensor(data, *, dtype: dtypes.dtype | None = None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of `data`, with PyTorch's dtype inference."""
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.clone().detach() or "
                      "sourceTensor.clone().detach().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        target = normalize(device) if device is not None else data.device
        return _finish(np.asarray(data._value()).astype((dtype or data.dtype).jax), target, requires_grad)
    if isinstance(data, np.ndarray):
        inferred = dtypes.from_jax(data.dtype)
    else:
        inferred = _infer_dtype(data)
    target_dtype = dtype or inferred
    values = np.asarray(_to_nested_values(data), dtype=target_dtype.jax if target_dtype is not dtypes.bfloat16
                        else np.float32)
    if target_dtype is dtypes.bfloat16:
        values = values.astype(dtypes.bfloat16.jax)
    if requires_grad and target_dtype.category < dtypes.FLOATING:
        raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
    return _finish(values, normalize(device), requires_grad)


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
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    dtype = dtypes.from_jax(array.dtype)
    if builtins.any(s < 0 for s in array.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a copy "
                         "of your array  with array.copy().) ")
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    storage = Storage.of_host(array, normalize("cpu"), dtype)
    return Tensor._from_storage(storage, array.shape, _element_strides(array), 0)


def _element_strides(array: np.ndarray) -> tuple:
    return tuple(s // array.itemsize for s in array.strides) if array.size else \
        tuple(int(s) for s in np.cumprod((1,) + array.shape[:0:-1])[::-1]) if array.ndim else ()


# ----- filled -------------------------------------------------------------------------------------

def _filled(size, value, dtype, device, requires_grad) -> Tensor:
    shape = shape_args(size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")
    target = normalize(device)
    dtype = dtype or dtypes.get_default_dtype()
    with jax.default_device(to_jax(target)):
        array = jnp.full(shape, value, dtype=dtype.jax)
    return _finish(array, target, requires_grad)


def zeros(*size, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None,
          pin_memory: bool = False) -> Tensor:
    return _filled(size, 0, dtype, device, requires_grad)


def ones(*size, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None,
         pin_memory: bool = False) -> Tensor:
    return _filled(size, 1, dtype, device, requires_grad)


def empty(*size, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None,
          pin_memory: bool = False, memory_format=None) -> Tensor:
    return _filled(size, 0, dtype, device, requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad: bool = False, out=None, layout=None) -> Tensor:
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    dtype = dtype or dtypes.default_for_category(dtypes.scalar_category(fill_value))
    return _filled((tuple(size),) if not isinstance(size, int) else (size,), fill_value, dtype, device, requires_grad)


def _like(input: Tensor, dtype, device) -> tuple:
    return input.shape, dtype or input.dtype, device if device is not None else input.device


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
               memory_format=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _filled((shape,), 0, dtype, device, requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
              memory_format=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _filled((shape,), 1, dtype, device, requires_grad)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
               memory_format=None) -> Tensor:
    return zeros_like(input, dtype=dtype, device=device, requires_grad=requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad: bool = False, layout=None,
              memory_format=None) -> Tensor:
    shape, dtype, device = _like(input, dtype, device)
    return _filled((shape,), fill_value, dtype, device, requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    dtype = dtype or dtypes.get_default_dtype()
    return _finish(np.eye(n, n if m is None else m, dtype=_host_dtype(dtype)).astype(dtype.jax),
                   normalize(device), requires_grad)


def _host_dtype(dtype: dtypes.dtype):
    return np.float32 if dtype is dtypes.bfloat16 else dtype.jax


# ----- ranges -------------------------------------------------------------------------------------

def _number(value):
    return value.item() if isinstance(value, Tensor) else value


def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False, out=None,
           layout=None) -> Tensor:
    start, end, step = _number(start), _number(end), _number(step)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = dtypes.default_for_category(builtins.max(dtypes.INTEGER, *(dtypes.scalar_category(v)
                                                                          for v in (start, end, step))))
    count = math.ceil((end - start) / step)
    values = start + np.arange(count, dtype=np.float64 if dtype.category >= dtypes.FLOATING else np.int64) * step
    return _finish(values.astype(_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad: bool = False, out=None,
             layout=None) -> Tensor:
    start, end = _number(start), _number(end)
    dtype = dtype or dtypes.get_default_dtype()
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    values = _symmetric_linspace(start, end, steps)
    if dtype.category == dtypes.INTEGER:
        values = np.trunc(values)
    return _finish(values.astype(_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


def _symmetric_linspace(start: float, end: float, steps: int) -> np.ndarray:
    """Filled from both ends, as PyTorch does, so the last value is exactly `end`."""
    if steps == 1:
        return np.asarray([start], np.float64)
    step = (end - start) / (steps - 1)
    index = np.arange(steps, dtype=np.float64)
    half = steps // 2
    return np.where(index < half, start + step * index, end - step * (steps - 1 - index))


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None,
             requires_grad: bool = False) -> Tensor:
    dtype = dtype or dtypes.get_default_dtype()
    values = np.power(base, _symmetric_linspace(_number(start), _number(end), steps))
    return _finish(values.astype(_host_dtype(dtype)).astype(dtype.jax), normalize(device), requires_grad)


# ----- moving between devices and dtypes ----------------------------------------------------------

_TO_DEVICE = Op("to_device", lambda x: x, grad_name="ToCopyBackward0", saves=SAVES_NOTHING, promote="none")


def to_device(t: Tensor, device: Device) -> Tensor:
    """A copy on another device; recorded so gradients flow back across."""
    moved = Tensor._wrap(jax.device_put(t._value(), to_jax(device)), device)
    if grad_mode.STATE.enabled and t.requires_grad:
        dispatch.record(_TO_DEVICE.kernel(), (t,), (t._value(),), (moved,))
    return moved


def _parse_to_args(args, kwargs) -> tuple:
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, (str, Device, int)):
            device = arg
        elif arg is not None:
            raise TypeError(f"to() received an invalid combination of arguments - got ({type(arg).__name__})")
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
    if copy and result is t:
        result = dispatch.apply(shape_ops.CLONE, (t,))
    return result
