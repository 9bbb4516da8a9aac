"""PyTorch's legacy constructors and tensor types: `torch.Tensor(2, 3)`, `torch.FloatTensor([1, 2])`,
`t.new(...)`, `isinstance(t, torch.LongTensor)` and `t.type(torch.IntTensor)`."""
from __future__ import annotations

import builtins

import numpy as np

from . import dtypes, factories
from .device import device as Device
from .size import Size
from .tensor import Tensor, cpp_type_name


def legacy_new(dtype: dtypes.dtype, device, args: tuple, kwargs: dict, *, any_tensor: bool = False) -> Tensor:
    """The legacy constructor: sizes make an uninitialized tensor, a sequence is data, a tensor is aliased (of any
    dtype for `torch.Tensor(t)`, else only of this one)."""
    unexpected = [k for k in kwargs if k != "device"]
    if unexpected:
        given = ", ".join([type(a).__name__ for a in args] + [f"{k}={_kind(kwargs[k])}" for k in kwargs])
        raise TypeError(f"new() received an invalid combination of arguments - got ({given}), but expected one of:\n"
                        " * (*, torch.device device = None)\n"
                        f"      didn't match because some of the keywords were incorrect: {', '.join(unexpected)}\n"
                        " * (torch.Storage storage)\n * (Tensor other)\n"
                        " * (tuple of ints size, *, torch.device device = None)\n"
                        " * (object data, *, torch.device device = None)\n")
    device = kwargs.get("device", device)
    if not args:
        return factories.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and not _is_size(args[0]):
        return _from_data(args[0], dtype, device, any_tensor)
    sizes = tuple(args[0]) if len(args) == 1 and isinstance(args[0], Size) else args
    for size in sizes:
        if not isinstance(size, int) or isinstance(size, builtins.bool):
            raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element of type "
                            f"{type(size).__name__}")
    negative = [s for s in sizes if s < 0]
    if negative:
        raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: [{', '.join(map(str, sizes))}]")
    return factories.empty(*sizes, dtype=dtype, device=device)


def _kind(value) -> str:
    return "torch.dtype" if isinstance(value, dtypes.dtype) else type(value).__name__


def _is_size(arg) -> bool:
    return isinstance(arg, Size) or (isinstance(arg, int) and not isinstance(arg, builtins.bool))


def _from_data(data, dtype: dtypes.dtype, device, any_tensor: bool) -> Tensor:
    if isinstance(data, Tensor):
        if data.dtype is not dtype and not any_tensor:
            raise TypeError(f"expected {_options(dtype, device)} (got {_options(data.dtype, data.device)})")
        return data.detach()
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if not isinstance(data, (list, tuple, range, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return factories.tensor(data, dtype=dtype, device=device)


def _options(dtype: dtypes.dtype, device) -> str:
    device = Device(device) if device is not None else Device("cpu")
    return (f"TensorOptions(dtype={cpp_type_name(dtype)}, device={device}, layout=Strided, requires_grad=false "
            "(default), pinned_memory=false (default), memory_format=(nullopt))")


class _LegacyType(type):
    """The metaclass of `torch.FloatTensor` and its kin: calling one is the legacy constructor of its dtype, and a
    tensor is an instance of the one naming its dtype and device."""

    def __call__(cls, *args, **kwargs) -> Tensor:
        return legacy_new(cls.dtype, cls.device_type, args, kwargs)

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, Tensor) and obj.dtype is cls.dtype and obj.device.type == cls.device_type

    def __repr__(cls) -> str:
        return f"<class '{cls.qualified_name}'>"


def _legacy_type(dtype: dtypes.dtype, device_type: str) -> type:
    name = dtypes.LEGACY_NAMES[dtype]
    prefix = "torch.cuda." if device_type == "cuda" else "torch."
    return _LegacyType(name, (), {"dtype": dtype, "device_type": device_type, "is_cuda": device_type == "cuda",
                                  "qualified_name": prefix + name})


CPU_TYPES = {dtype: _legacy_type(dtype, "cpu") for dtype in dtypes.LEGACY_NAMES}
CUDA_TYPES = {dtype: _legacy_type(dtype, "cuda") for dtype in dtypes.LEGACY_NAMES}
# `t.storage_type()`: classes standing for PyTorch's typed storages (`torch.FloatStorage`), naming the dtype.
STORAGE_TYPES = {dtype: type(name.replace("Tensor", "Storage"), (), {"__module__": "torch", "dtype": dtype})
                 for dtype, name in dtypes.LEGACY_NAMES.items()}
BY_NAME = {t.qualified_name: t for t in (*CPU_TYPES.values(), *CUDA_TYPES.values())}


def convert_type(t: Tensor, target, non_blocking: bool = False) -> Tensor:
    """`t.type(target)`: a dtype, a legacy type, or a legacy type's name."""
    if isinstance(target, str):
        if target not in BY_NAME:
            raise ValueError(f"invalid type: '{target}'")
        target = BY_NAME[target]
    if isinstance(target, _LegacyType):
        return t.to(device=target.device_type, dtype=target.dtype, non_blocking=non_blocking)
    return t.to(target, non_blocking=non_blocking)
