"""`torch.amp`: autocast and GradScaler for float16/bfloat16 mixed precision."""
from .autocast_mode import autocast, custom_bwd, custom_fwd, get_autocast_dtype, is_autocast_enabled
from .grad_scaler import GradScaler

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd", "get_autocast_dtype", "is_autocast_enabled"]
