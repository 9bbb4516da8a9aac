"""Make ``import torch`` mean ``import pjtorch``, so PyTorch scripts run unchanged.

``install_as_torch()`` puts pjtorch in ``sys.modules`` under the name ``torch`` and adds a
finder to ``sys.meta_path`` that answers every ``torch.X.Y`` import with ``pjtorch.X.Y``. The
very same module objects are returned (``torch.nn is pjtorch.nn``), so state is never split
between two copies. The finder sits first on ``sys.meta_path`` and claims every ``torch.*``
name, so a real PyTorch installed alongside is never reached.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
from types import ModuleType


class _AliasFinder(importlib.abc.MetaPathFinder):
    """Finds ``alias.X`` by importing ``target.X``."""

    def __init__(self, alias: str, target: str) -> None:
        self.alias = alias
        self.target = target

    def find_spec(self, fullname: str, path=None, target=None) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(self.alias + "."):
            return None
        real_name = self.target + fullname[len(self.alias):]
        module = _import_if_present(real_name)
        if module is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(module), is_package=hasattr(module, "__path__"))


class _AliasLoader(importlib.abc.Loader):
    """Hands the import system an already-imported module instead of making a new one."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module
        self.real_spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return self.module

    def exec_module(self, module: ModuleType) -> None:
        # The import system has just stamped the alias spec on the module; give it back its own.
        module.__spec__ = self.real_spec


def _import_if_present(name: str) -> ModuleType | None:
    """Import ``name``; None if that module (not something it imports) does not exist."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as error:
        if error.name is not None and (name == error.name or name.startswith(error.name + ".")):
            return None
        raise


def install_as_torch(target: str = "pjtorch", alias: str = "torch") -> ModuleType:
    """Alias ``target`` as ``alias`` for all later imports and return the target package.

    Idempotent. Raises if ``alias`` is already imported as a different module, since code
    holding that module would silently keep using it.
    """
    package = importlib.import_module(target)
    existing = sys.modules.get(alias)
    if existing is not None and existing is not package:
        raise RuntimeError(f"'{alias}' is already imported as {existing.__name__!r}; install the alias before importing it")
    sys.modules[alias] = package
    if not any(isinstance(f, _AliasFinder) and f.alias == alias for f in sys.meta_path):
        sys.meta_path.insert(0, _AliasFinder(alias, target))
    _name_classes_as(alias, target)
    return package


def _name_classes_as(alias: str, target: str) -> None:
    """Classes print as PyTorch's (`<class 'torch.nn.modules.linear.Linear'>`). Only under the alias: there the
    torch-named module is the very module that defines each class, so pickle finds them by that name too."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == target or name.startswith(target + ".")):
            continue
        for value in list(vars(module).values()):
            if isinstance(value, type) and value.__module__ == name:
                value.__module__ = alias + name[len(target):]
