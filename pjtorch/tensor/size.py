"""`torch.Size`: a tuple that prints as PyTorch prints it."""
from __future__ import annotations

import math
import operator


class Size(tuple):
    """The shape of a tensor; `torch.Size([2, 3])`."""

    __module__ = "torch"  # printed as PyTorch prints it: <class 'torch.Size'>

    def __new__(cls, sizes=()):
        if type(sizes) is Size and cls is Size:  # immutable: the very object serves (every op's shape passes here)
            return sizes
        sizes = tuple(sizes)
        for s in sizes:
            if type(s) is not int:
                return tuple.__new__(cls, [_size_item(position, s) for position, s in enumerate(sizes)])
        return tuple.__new__(cls, sizes)

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, item):
        found = tuple.__getitem__(self, item)
        return tuple.__new__(Size, found) if isinstance(item, slice) else found

    def __add__(self, other):
        """Only tuples concatenate, from either side, and the result stays a Size, as in PyTorch."""
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, times):
        if not hasattr(times, "__index__"):
            raise TypeError(f"can't multiply sequence by non-int of type '{type(times).__name__}'")
        return Size(tuple.__mul__(self, times))

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def _size_item(position: int, item) -> int:
    """One entry as `torch.Size` reads it: anything with `__index__` (bools, NumPy integers), or a one-element
    integer tensor; else PyTorch's TypeError."""
    if hasattr(item, "numel") and hasattr(item, "item") and not isinstance(item, (int, float)) and item.numel() == 1:
        value = item.item()
        if isinstance(value, int):
            return int(value)
    try:
        return operator.index(item)
    except TypeError:
        raise TypeError(f"torch.Size() takes an iterable of 'int' (item {position} is '{type(item).__name__}')") \
            from None
