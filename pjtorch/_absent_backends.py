"""`torch.mps` and `torch.xpu`: device kinds JAX does not drive, answering as PyTorch's builds without them."""
from types import ModuleType


def _raise(error: type, message: str):
    def refuse(*args, **kwargs):
        raise error(message)

    return refuse


def _absent(name: str, **refusals) -> ModuleType:
    module = ModuleType(f"torch.{name}")
    module.is_available = lambda: False
    module.device_count = lambda: 0
    module.is_initialized = lambda: False
    module.manual_seed = module.manual_seed_all = module.seed = lambda *args: None
    module.empty_cache = lambda: None
    module.__dict__.update(refusals)
    return module


_NO_XPU = _raise(AssertionError, "Torch not compiled with XPU enabled")
mps = _absent("mps", synchronize=_raise(RuntimeError, "Cannot execute deviceSynchronize() without MPS backend."),
              empty_cache=_raise(RuntimeError, "Cannot execute emptyCache() without MPS backend."))
xpu = _absent("xpu", synchronize=_NO_XPU, current_device=_NO_XPU, get_device_name=_NO_XPU,
              get_device_properties=_NO_XPU)
