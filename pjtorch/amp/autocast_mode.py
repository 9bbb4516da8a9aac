"""`torch.autocast`: mixed precision by casting the inputs of selected ops.

Inside `autocast(device_type, dtype)`, ops that gain from low precision (linear, convolution,
matrix products, attention) cast their floating inputs to `dtype`, and ops that need range
(losses, and on CUDA softmax and normalisation) cast them to float32, following PyTorch's
per-device op lists. float64 inputs are never cast. The state is thread-local, per device type.
"""
from __future__ import annotations

import functools
import threading
import warnings
from typing import Callable

from ..tensor import dtypes
from ..tensor.tensor import Tensor

_DEFAULT_DTYPES = {"cuda": dtypes.float16, "cpu": dtypes.bfloat16}

# Ops autocast runs in float32, by device type (PyTorch's "autocast to float32" lists, where pjtorch has the op).
_LOSSES = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
                     "binary_cross_entropy", "binary_cross_entropy_with_logits"})
FLOAT32_OPS = {"cpu": _LOSSES, "cuda": _LOSSES | {"softmax", "log_softmax", "layer_norm"}}


class _State(threading.local):
    def __init__(self) -> None:
        self.dtypes: dict = {}


STATE = _State()


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return device_type in STATE.dtypes


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    return STATE.dtypes.get(device_type, _DEFAULT_DTYPES.get(device_type, dtypes.float16))


class autocast:
    """Context manager (and decorator) turning autocast on or off for one device type."""

    def __init__(self, device_type: str, dtype: dtypes.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEFAULT_DTYPES:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else _DEFAULT_DTYPES[device_type]
        self._enabled = bool(enabled) and self._supported()

    def _supported(self) -> bool:
        """PyTorch's checks: CUDA must exist; on CPU only the two half types are supported."""
        if self.device == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=3)
                return False
        elif self.fast_dtype not in (dtypes.float16, dtypes.bfloat16):
            device_name = self.device.upper()
            warnings.warn(f"In {device_name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{device_name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=3)
            return False
        return True

    def __enter__(self) -> "autocast":
        self._previous = STATE.dtypes.get(self.device)
        if self._enabled:
            STATE.dtypes[self.device] = self.fast_dtype
        else:
            STATE.dtypes.pop(self.device, None)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is None:
            STATE.dtypes.pop(self.device, None)
        else:
            STATE.dtypes[self.device] = self._previous

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)

        return wrapped


def _castable(value, target: dtypes.dtype) -> bool:
    return (isinstance(value, Tensor) and value.dtype is not target and value.dtype.is_floating_point
            and value.dtype is not dtypes.float64)


def lower_precision(*values) -> tuple:
    """The inputs of a low-precision op (linear, conv, matmul, attention), cast as autocast wants them."""
    if not STATE.dtypes:
        return values
    device_type = next((v.device.type for v in values if isinstance(v, Tensor)), None)
    target = STATE.dtypes.get(device_type)
    if target is None:
        return values
    return tuple(v.to(target) if _castable(v, target) else v for v in values)


def float32_for(op_name: str, *values) -> tuple:
    """The inputs of `op_name`, cast to float32 if autocast is on and the op is on its device's float32 list."""
    if not STATE.dtypes:
        return values
    device_type = next((v.device.type for v in values if isinstance(v, Tensor)), None)
    if device_type not in STATE.dtypes or op_name not in FLOAT32_OPS[device_type]:
        return values
    return tuple(v.to(dtypes.float32) if _castable(v, dtypes.float32) else v for v in values)
