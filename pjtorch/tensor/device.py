"""`torch.device` and the mapping from PyTorch device names to JAX devices.

PyTorch's `cuda` is JAX's `gpu` platform; `cpu` is JAX's CPU. Indices follow JAX's device order.
"""
from __future__ import annotations

import functools
import re

import jax
import numpy as np

_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga", "maia", "xla",
          "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")
_DEVICE_STRING = re.compile(r"([a-zA-Z_]+)(?::([1-9]\d*|0))?")
_NOT_A_DEVICE = ("device() received an invalid combination of arguments - got ({}), but expected one of:\n"
                 " * (torch.device device)\n      didn't match because some of the arguments have invalid types: "
                 "(!{}!)\n * (str type, int index = -1)\n")


class device:
    """A device as PyTorch names it: `device(type='cuda', index=0)`, printed as `cuda:0`."""

    __slots__ = ("type", "index")

    def __init__(self, type: "str | device | int", index: int | None = None) -> None:
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            if not gpu_devices():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            self.type, self.index = "cuda", type
            return
        if not isinstance(type, str):
            raise TypeError(_NOT_A_DEVICE.format(_typename(type), _typename(type)))
        parsed = _DEVICE_STRING.fullmatch(type)
        if parsed is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, suffix = parsed.groups()
        if name not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}")
        if suffix and index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device(): argument 'index' (position 2) must be int, not {_typename(index)}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type = name
        self.index = int(suffix) if suffix else index

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __reduce__(self) -> tuple:
        return device, (self.type,) if self.index is None else (self.type, self.index)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


def _typename(value: object) -> str:
    return type(value).__name__


CPU = device("cpu")
_DEFAULT = [CPU]  # set_default_device's choice


@functools.lru_cache(maxsize=None)
def gpu_devices() -> tuple:
    try:
        return tuple(jax.devices("gpu"))
    except RuntimeError:
        return ()


@functools.lru_cache(maxsize=None)
def cpu_device():
    return jax.devices("cpu")[0]


def normalize(spec: "str | device | int | None") -> device:
    """A concrete device (CUDA gets its current index) from anything PyTorch accepts; None is the default device."""
    if spec is None:
        return _DEFAULT[0]
    found = spec if isinstance(spec, device) else device(spec)
    if found.type == "cpu":
        return CPU
    # One object per device, so that dispatch's fast path can compare devices by identity.
    return _CANONICAL.setdefault((found.type, 0 if found.index is None else found.index), found
                                 if found.index is not None else device(found.type, 0))


_CANONICAL: dict = {}


def set_default_device(spec: "str | device | int | None") -> None:
    """Where factories put tensors when not told (None: back to the CPU)."""
    _DEFAULT[0] = CPU if spec is None else normalize(spec)


def get_default_device() -> device:
    """The default device, checked as PyTorch checks it (a CUDA default fails where there is no GPU)."""
    to_jax(_DEFAULT[0])
    return _DEFAULT[0]


def to_jax(target: device):
    """The JAX device behind a PyTorch device; raises as PyTorch does where it does not exist."""
    if target.type == "cpu":
        return cpu_device()
    if target.type == "cuda":
        gpus = gpu_devices()
        if not gpus:
            raise AssertionError("Torch not compiled with CUDA enabled")
        if target.index >= len(gpus):
            raise RuntimeError(
                "CUDA error: invalid device ordinal\nCUDA kernel errors might be asynchronously reported at some "
                "other API call, so the stacktrace below might be incorrect."
            )
        return gpus[target.index]
    if target.type == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled")
    raise RuntimeError(f"PyTorch is not linked with support for {target.type} devices")


@functools.lru_cache(maxsize=None)
def _identity_on(jax_device):
    return jax.jit(lambda x: x, out_shardings=jax.sharding.SingleDeviceSharding(jax_device))


def put(host_array, target: device):
    """Copies a host (NumPy) array to a device: a cached jitted identity, ~5x cheaper than jax.device_put."""
    return _identity_on(to_jax(target))(host_array)


def put_fresh(host_array: np.ndarray, target: device):
    """A device array of a host array that nobody else holds or changes afterwards (it may be shared, not copied):
    JAX's own batched transfer, ~20 µs where jax.device_put costs ~100 µs, and no compilation per shape as the
    jitted identity of `put` needs. Falls back to jax.device_put where this JAX lacks that entry point."""
    jax_device = to_jax(target)
    try:
        return _batched_device_put(_shaped(host_array.shape, host_array.dtype), _sharding(jax_device), [host_array],
                                   [jax_device], True)
    except (AttributeError, TypeError):
        return jax.device_put(host_array, jax_device)


def _batched_device_put(*args):
    from jax._src.lib import xla_client

    return xla_client.batched_device_put(*args)


@functools.lru_cache(maxsize=4096)
def _shaped(shape: tuple, dtype):
    from jax._src import core

    return core.ShapedArray(shape, dtype)


@functools.lru_cache(maxsize=None)
def _sharding(jax_device):
    return jax.sharding.SingleDeviceSharding(jax_device)


def of_jax(jax_device) -> device:
    """The PyTorch device of a JAX device."""
    if jax_device.platform == "cpu":
        return CPU
    return device("cuda", gpu_devices().index(jax_device))
