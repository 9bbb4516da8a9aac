"""`torch.nn.parallel`: DataParallel."""
from .data_parallel import DataParallel

__all__ = ["DataParallel"]
