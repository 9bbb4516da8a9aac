"""`torch.nn.utils.skip_init`: a module built without initialising its parameters."""
from __future__ import annotations

import inspect

from ...random import fork_rng
from ..modules.module import Module


def skip_init(module_cls, *args, **kwargs) -> Module:
    """PyTorch builds the module on the meta device and allocates it uninitialised; pjtorch builds it where asked
    with the random state restored after, so no draw is seen to happen (the values are arbitrary either way)."""
    if not issubclass(module_cls, Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    kwargs["device"] = kwargs.pop("device", "cpu")
    with fork_rng():
        return module_cls(*args, **kwargs)
