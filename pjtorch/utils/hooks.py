"""`torch.utils.hooks.RemovableHandle`: what registering a module hook returns."""
from __future__ import annotations

import itertools

_IDS = itertools.count()


class RemovableHandle:
    """Removes its hook from the dicts it was registered in (the hooks, and any per-hook flags)."""

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | tuple | None = None) -> None:
        self.hooks_dict = hooks_dict
        self.id = next(_IDS)
        extras = () if extra_dict is None else extra_dict if isinstance(extra_dict, tuple) else (extra_dict,)
        self.extra_dicts = extras

    def remove(self) -> None:
        for table in (self.hooks_dict, *self.extra_dicts):
            table.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()
