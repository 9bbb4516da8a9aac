"""`torch.nn`: Module, Parameter and Buffer, the layers, `functional`, `init`, `utils`, `attention` and
`parallel`."""
from . import attention, functional, grad, init, parallel, utils
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Buffer", "DataParallel", "Parameter", "UninitializedBuffer", "UninitializedParameter", "attention",
           "functional", "init", "parallel", "utils", *_modules_all]
