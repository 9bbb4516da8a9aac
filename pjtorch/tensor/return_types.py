"""`torch.return_types`: named (values, indices) results that print as PyTorch's do."""
from __future__ import annotations

import collections
import functools


@functools.lru_cache(maxsize=None)
def _return_type(name: str, fields: tuple) -> type:
    base = collections.namedtuple(name, fields)

    def __repr__(self) -> str:
        body = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"torch.return_types.{name}(\n{body})"

    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "torch.return_types"})


def make_return(name: str, **fields):
    return _return_type(name, tuple(fields))(*fields.values())
