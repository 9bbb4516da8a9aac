"""`torch.Size`: a tuple that prints as PyTorch prints it."""
from __future__ import annotations

import math


class Size(tuple):
    """The shape of a tensor; `torch.Size([2, 3])`."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, item):
        found = tuple.__getitem__(self, item)
        return Size(found) if isinstance(item, slice) else found

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __reduce__(self):
        return (Size, (tuple(self),))
