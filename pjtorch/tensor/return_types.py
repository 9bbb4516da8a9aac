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

    def __reduce__(self):
        """Pickled through this module: the class claims `torch.return_types`, which may not be importable."""
        return _rebuild, (name, fields, tuple(self))

    # PyTorch's are structseqs, which count their fields so
    count = len(fields)
    return type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__reduce__": __reduce__,
                                "__module__": "torch.return_types", "n_fields": count, "n_sequence_fields": count,
                                "n_unnamed_fields": 0})


def _rebuild(name: str, fields: tuple, values: tuple):
    return _return_type(name, fields)(*values)


def make_return(name: str, **fields):
    return _return_type(name, tuple(fields))(*fields.values())
