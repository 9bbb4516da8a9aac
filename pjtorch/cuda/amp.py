"""`torch.cuda.amp`: the deprecated CUDA spellings of `torch.amp`'s autocast and GradScaler, still common in
tutorials; each warns as PyTorch does, then behaves as the `torch.amp` form for "cuda"."""
from __future__ import annotations

import warnings

from .. import amp
from ..tensor import dtypes


def _deprecated(name: str) -> None:
    warnings.warn(f"`torch.cuda.amp.{name}(args...)` is deprecated. Please use `torch.amp.{name}('cuda', args...)` "
                  "instead.", FutureWarning, stacklevel=3)


class autocast(amp.autocast):
    def __init__(self, enabled: bool = True, dtype: dtypes.dtype = dtypes.float16, cache_enabled: bool = True) -> None:
        _deprecated("autocast")
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class GradScaler(amp.GradScaler):
    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        _deprecated("GradScaler")
        super().__init__("cuda", init_scale=init_scale, growth_factor=growth_factor, backoff_factor=backoff_factor,
                         growth_interval=growth_interval, enabled=enabled)


def custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use `torch.amp.custom_fwd(args..., "
                  "device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use `torch.amp.custom_bwd(args..., "
                  "device_type='cuda')` instead.", FutureWarning, stacklevel=2)
    return amp.custom_bwd(bwd, device_type="cuda")
