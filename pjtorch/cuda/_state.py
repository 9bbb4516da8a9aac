"""The GPU a `torch.cuda` call is about, and PyTorch's CPU-only-build errors where there is none."""
from __future__ import annotations

from ..tensor.device import device as _device, gpu_devices, normalize

NOT_COMPILED = "Torch not compiled with CUDA enabled"


def gpu(index=None):
    """The JAX GPU device for a CUDA index, device or name (the current one for None)."""
    gpus = gpu_devices()
    if not gpus:
        raise AssertionError(NOT_COMPILED)
    if isinstance(index, (str, _device)):
        index = normalize(index).index
    index = 0 if index is None else index
    if index >= len(gpus):
        raise AssertionError("Invalid device id")
    return gpus[index]


def missing_binding(name: str):
    """PyTorch's CPU-only build reaches for a CUDA binding it was built without."""
    raise AttributeError(f"module 'torch._C' has no attribute '{name}'")
