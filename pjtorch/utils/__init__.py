"""`torch.utils`: data loading, activation checkpointing, hook handles."""
from . import checkpoint, data, hooks

__all__ = ["checkpoint", "data", "hooks"]
