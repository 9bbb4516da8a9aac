"""`t[key]` and `t[key] = value` with PyTorch's semantics.

Basic indexing (ints, slices, None, Ellipsis) is a chain of views sharing memory. Advanced
indexing (integer or boolean tensors, lists) copies, via one compiled gather (`index`) or
scatter (`index_put`); boolean masks become integer indices on the host, as PyTorch also
synchronises for them. JAX clamps out-of-range indices silently, so bounds are checked here.
"""
from __future__ import annotations

import numbers
import warnings

import numpy as np

from .. import dispatch
from ..ops import shape as shape_ops
from . import dtypes, views
from .tensor import Tensor

_INDEX_DTYPES = (dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool)
_SEQUENCE_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result")
_INVALID_INDEX = ("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
                  "(got {})")


def _as_index_tensor(part, device) -> Tensor:
    from .factories import tensor

    if isinstance(part, np.ndarray):
        return tensor(part, device=device)
    values = [p.item() if isinstance(p, Tensor) else p for p in part]
    boolean = bool(values) and all(isinstance(v, bool) for v in values)
    return tensor(values, device=device, dtype=dtypes.bool if boolean else dtypes.int64)


def _normalize_key(key) -> tuple:
    """A tuple of index parts; a short list holding sequences, slices, None or ... counts as a tuple (NumPy's rule)."""
    if isinstance(key, tuple):
        return key
    if isinstance(key, list) and len(key) < 32 and any(
            isinstance(item, (list, tuple, slice, Tensor, np.ndarray)) or item is None or item is Ellipsis
            for item in key):
        warnings.warn(_SEQUENCE_AS_TUPLE, UserWarning, stacklevel=3)
        return tuple(key)
    return (key,)


class _BoolAxis:
    """A scalar bool index: a new axis, advanced-indexed by [0] (True) or [] (False), as PyTorch does."""

    __slots__ = ("value",)

    def __init__(self, value: bool) -> None:
        self.value = value


def _consumed_dims(part) -> int:
    if part is None or part is Ellipsis or isinstance(part, _BoolAxis):
        return 0
    if isinstance(part, Tensor) and part.dtype in (dtypes.bool, dtypes.uint8):
        return part.ndim
    return 1


def _expand_ellipsis(key: tuple, ndim: int) -> tuple:
    """The key with `...` (or the missing trailing dims) as full slices, and each part's position in the key."""
    ellipses = [i for i, part in enumerate(key) if part is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed_dims(p) for p in key)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    at = ellipses[0] if ellipses else len(key)
    fill = (slice(None),) * (ndim - used)
    positions = tuple(range(at)) + (at,) * len(fill) + tuple(range(at + 1, len(key)))
    return key[:at] + fill + key[at + 1:], positions


def _index_int(part) -> int | None:
    if isinstance(part, bool):
        return None
    if isinstance(part, (numbers.Integral, np.integer)):
        return int(part)
    return None


def _select(t: Tensor, dim: int, index: int, position: int) -> Tensor:
    """`t.select(dim, index)` with the bounds message indexing gives, naming the index's position in the key."""
    size = t._shape[dim]
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")
    return views.select(t, dim, index)


def _apply_basic(t: Tensor, key: tuple, positions: tuple) -> Tensor:
    """Applies ints, slices and None as views, left to right."""
    result, dim = t, 0
    for part, position in zip(key, positions):
        if part is None:
            result = views.unsqueeze(result, dim)
            dim += 1
        elif isinstance(part, slice):
            step = 1 if part.step is None else _scalar_index(part.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            if step < 0:
                raise ValueError("step must be greater than zero")
            result = views.slice_dim(result, dim, _scalar_index(part.start), _scalar_index(part.stop), step)
            dim += 1
        else:
            result = _select(result, dim, _index_int(part), position)
    return result if result is not t else views.alias(t)


def _scalar_index(value):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return int(value.item())
    return int(value)


def _normalize_parts(t: Tensor, key: tuple) -> tuple:
    """Lists/arrays become index tensors; 0-dim integer tensors become plain ints (PyTorch treats them so)."""
    parts = []
    for part in key:
        if isinstance(part, Tensor) and part.ndim == 0 and part.dtype.category == dtypes.INTEGER:
            parts.append(int(part.item()))
        elif isinstance(part, bool) or (isinstance(part, Tensor) and part.ndim == 0 and part.dtype is dtypes.bool):
            parts.append(_BoolAxis(bool(part)))
        elif isinstance(part, (list, tuple, np.ndarray)):
            parts.append(_as_index_tensor(part, t.device))
        elif part is None or part is Ellipsis or isinstance(part, (slice, Tensor)) or _index_int(part) is not None:
            parts.append(part)
        else:
            raise IndexError(_INVALID_INDEX.format(type(part).__name__))
    return tuple(parts)


def _is_basic(key: tuple) -> bool:
    return not any(isinstance(p, (Tensor, _BoolAxis)) for p in key)


def getitem(t: Tensor, key) -> Tensor:
    parts = _normalize_parts(t, _normalize_key(key))
    if t.ndim == 0 and _is_basic(parts):
        if any(_index_int(p) is not None for p in parts):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        if any(isinstance(p, slice) for p in parts):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    key, positions = _expand_ellipsis(parts, t.ndim)
    if _is_basic(key):
        return _apply_basic(t, key, positions)
    t, key = _bool_axes_as_indices(t, key)
    t, key = _select_integers(t, key, positions)
    spec, arrays = _advanced_spec(t, key)
    return dispatch.apply(shape_ops.INDEX, (t, *arrays), (("spec", spec),))


def _bool_axes_as_indices(t: Tensor, key: tuple) -> tuple:
    from .factories import tensor

    parts, dim = [], 0
    for part in key:
        if isinstance(part, _BoolAxis):
            t = views.unsqueeze(t, dim)
            part = tensor([0] if part.value else [], dtype=dtypes.int64, device=t.device)
        parts.append(part)
        dim += _consumed_dims(part)
    return t, tuple(parts)


def _select_integers(t: Tensor, key: tuple, positions: tuple) -> tuple:
    """Applies integer indices as selects first: PyTorch places advanced-index dims as if ints were gone."""
    kept, dim = [], 0
    for part, position in zip(key, positions):
        index = _index_int(part)
        if index is not None:
            t = _select(t, dim, index, position)
            continue
        kept.append(part)
        dim += _consumed_dims(part)
    return t, tuple(kept)


def _advanced_spec(t: Tensor, key: tuple) -> tuple:
    """The static description of an advanced index and its index tensors (masks turned into indices).

    `viewed` is the shape PyTorch has reached when it meets each index tensor: it applies slices and None
    first, as views, so its mask errors name that shape.
    """
    spec, arrays, dim = [], [], 0
    viewed, at = list(t._shape), 0
    for part in key:
        if isinstance(part, Tensor):
            if part.dtype not in _INDEX_DTYPES:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if part.dtype in (dtypes.bool, dtypes.uint8):
                _check_mask_shape(viewed, part, at)
                found = _mask_indices(part, t.device)
                spec.extend("i" * len(found))
                arrays.extend(found)
                dim, at = dim + part.ndim, at + part.ndim
                continue
            _check_bounds(part, t._shape[dim], len(arrays))
            spec.append("i")
            arrays.append(part)
        elif isinstance(part, slice):
            bounds = tuple(_scalar_index(b) for b in (part.start, part.stop, part.step))
            spec.append(("slice",) + bounds)
            viewed[at] = len(range(*slice(*bounds).indices(viewed[at])))
        else:
            spec.append(None)
            viewed.insert(at, 1)
            at += 1
            continue
        dim, at = dim + 1, at + 1
    _check_broadcastable(arrays)
    return tuple(spec), arrays


def _mask_indices(mask: Tensor, device) -> list:
    from .factories import tensor

    values = np.asarray(mask._value()).reshape(mask.shape if mask.ndim else (1,))
    return [tensor(axis.astype(np.int64), device=device) for axis in np.nonzero(values)]


def _check_mask_shape(viewed: list, mask: Tensor, at: int) -> None:
    for i, size in enumerate(mask.shape):
        if viewed[at + i] != size:
            raise IndexError(f"The shape of the mask {_dims(mask.shape)} at index {i} does not match the shape of "
                             f"the indexed tensor {_dims(viewed)} at index {at + i}")


def _check_bounds(index: Tensor, size: int, ordinal: int) -> None:
    """JAX would clamp: refuse as PyTorch does, naming the index tensor's place among the advanced indices."""
    if index.numel() == 0:
        return
    values = np.asarray(index._value())
    bad = values[(values < -size) | (values >= size)]
    if bad.size:
        raise IndexError(f"index {bad.reshape(-1)[0]} is out of bounds for dimension {ordinal} with size {size}")


def _check_broadcastable(arrays: list) -> None:
    shapes = [tuple(a.shape) for a in arrays]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join(_dims(s) for s in shapes)) from None


def _dims(shape: tuple) -> str:
    return f"[{', '.join(map(str, shape))}]"


def _indexed_shape(t: Tensor, spec: tuple, arrays: list) -> tuple:
    """The shape `t[spec]` has, by NumPy's (and PyTorch's) placement of the advanced-index dims."""
    probe = np.broadcast_to(np.empty((), np.bool_), tuple(t._shape))
    shapes = iter(a.shape for a in arrays)
    key = tuple(np.zeros(next(shapes), np.intp) if part == "i" else slice(*part[1:]) if isinstance(part, tuple)
                else part for part in spec)
    return probe[key].shape


# ----- writing -----------------------------------------------------------------------------------------

def setitem(t: Tensor, key, value) -> None:
    if not isinstance(value, (Tensor, numbers.Number)):
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {name} to a {t.type()}")
    key, positions = _expand_ellipsis(_normalize_parts(t, _normalize_key(key)), t.ndim)
    if _is_basic(key):
        target = _apply_basic(t, key, positions)
        if isinstance(value, Tensor):
            _copy_to(target, value)
        else:
            target.fill_(value)
        return
    t, key = _bool_axes_as_indices(t, key)
    t, key = _select_integers(t, key, positions)
    spec, arrays = _advanced_spec(t, key)
    index_put_spec(t, spec, arrays, value, accumulate=False)


def _copy_to(target: Tensor, value: Tensor) -> None:
    """PyTorch's setitem copy: leading size-1 dims of the value dropped, then expanded to the target."""
    if value._shape != target._shape and value.ndim:
        value = views.expand(views.reshape(value, _without_leading_ones(value._shape)), target._shape)
    target.copy_(value)


def _without_leading_ones(shape: tuple) -> tuple:
    first = next((i for i, size in enumerate(shape) if size != 1), len(shape))
    return tuple(shape[first:])


def index_put_spec(t: Tensor, spec: tuple, arrays: list, value, accumulate: bool) -> Tensor:
    from .factories import tensor

    if not isinstance(value, Tensor):
        value = tensor(value, dtype=t.dtype, device=t.device)
    elif value.dtype is not t.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_scalar_name(t.dtype)} for the destination and {_scalar_name(value.dtype)} for the "
                           "source.")
    indexed = _indexed_shape(t, spec, arrays)
    stripped = _without_leading_ones(value._shape)
    if not _broadcasts(stripped, indexed):
        raise RuntimeError(f"shape mismatch: value tensor of shape {_dims(value._shape)} cannot be broadcast to "
                           f"indexing result of shape {_dims(indexed)}")
    if stripped != value._shape:
        value = views.reshape(value, stripped)
    return dispatch.apply_inplace(shape_ops.INDEX_PUT, t, (value, *arrays),
                                  (("accumulate", accumulate), ("spec", spec)))


def _scalar_name(d: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[d].removesuffix("Tensor")


def _broadcasts(shape: tuple, target: tuple) -> bool:
    return len(shape) <= len(target) and all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def index_put_(t: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    key, _ = _expand_ellipsis(tuple(indices), t.ndim)
    spec, arrays = _advanced_spec(t, key)
    return index_put_spec(t, spec, arrays, values, accumulate)


def index_put(t: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    return index_put_(t.clone(), indices, values, accumulate)
