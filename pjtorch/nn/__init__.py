"""`torch.nn`: Module, Parameter and Buffer, the layers, `functional`, `init` and `utils`."""
from . import functional, init, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "Parameter", "UninitializedBuffer", "UninitializedParameter", "functional", "init", "utils",
           *_modules_all]
