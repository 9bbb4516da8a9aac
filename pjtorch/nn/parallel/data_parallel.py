"""DataParallel: a wrapper that runs its `module` on the accelerators. Without one (as on PyTorch's CPU build) it
simply calls the module; with them, pjtorch runs the whole batch on the first, which gives the values PyTorch
gathers from its per-device replicas."""
from __future__ import annotations

from itertools import chain
from typing import Any

from ... import cuda
from ...tensor.device import device as Device
from ...tensor.tensor import Tensor
from ..modules.module import Module


def _device_index(device) -> int:
    return device if isinstance(device, int) else Device(device).index or 0


def _moved(value: Any, device) -> Any:
    """Tensors within tuples, lists and dicts moved to `device`, as DataParallel's scatter moves its inputs."""
    if isinstance(value, Tensor):
        return value.to(device)
    if isinstance(value, (tuple, list)):
        return type(value)(_moved(v, device) for v in value)
    if isinstance(value, dict):
        return {key: _moved(v, device) for key, v in value.items()}
    return value


class DataParallel(Module):
    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        if not cuda.is_available():
            self.device_ids = []
            return
        device_ids = list(range(cuda.device_count())) if device_ids is None else device_ids
        self.dim = dim
        self.device_ids = [_device_index(d) for d in device_ids]
        self.output_device = _device_index(device_ids[0] if output_device is None else output_device)
        self.src_device_obj = Device("cuda", self.device_ids[0])
        if len(self.device_ids) == 1:
            self.module.to(self.src_device_obj)

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        if not self.device_ids:
            return self.module(*inputs, **kwargs)
        for t in chain(self.module.parameters(), self.module.buffers()):
            if t.device != self.src_device_obj:
                raise RuntimeError("module must have its parameters and buffers on device "
                                   f"{self.src_device_obj} (device_ids[0]) but found one of them on device: {t.device}")
        return self.module(*_moved(inputs, self.src_device_obj), **_moved(kwargs, self.src_device_obj))
