"""`t[key]` and `t[key] = value` with PyTorch's semantics.

Basic indexing (ints, slices, None, Ellipsis) is a chain of views sharing memory. Advanced
indexing (integer or boolean tensors, lists) copies, via one compiled gather (`index`) or
scatter (`index_put`); boolean masks become integer indices on the host, as PyTorch also
synchronises for them. JAX clamps out-of-range indices silently, so bounds are checked here.
"""
from __future__ import annotations

import numbers

import numpy as np

from .. import dispatch
from ..ops import shape as shape_ops
from . import dtypes, views
from .tensor import Tensor


# A scalar False index: a new axis of length 0 (a scalar True is a new axis of length 1, i.e. None).
EMPTY_AXIS = object()


def _as_index_tensor(part, device) -> Tensor:
    from .factories import tensor

    if isinstance(part, Tensor):
        return part
    if isinstance(part, np.ndarray):
        return tensor(part, device=device)
    if isinstance(part, (list, tuple)):
        values = [p.item() if isinstance(p, Tensor) else p for p in part]
        return tensor(values, device=device, dtype=dtypes.int64 if not values or not all(
            isinstance(v, bool) for v in values) else dtypes.bool)
    raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
                     "indices (got " + type(part).__name__ + ")")


def _normalize_key(key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    return key


def _consumed_dims(part) -> int:
    if part is None or part is Ellipsis or part is EMPTY_AXIS:
        return 0
    if isinstance(part, Tensor) and part.dtype in (dtypes.bool, dtypes.uint8):
        return part.ndim
    return 1


def _expand_ellipsis(key: tuple, ndim: int) -> tuple:
    ellipses = [i for i, part in enumerate(key) if part is Ellipsis]
    if len(ellipses) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed_dims(p) for p in key)
    if used > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if not ellipses:
        return key + (slice(None),) * (ndim - used)
    at = ellipses[0]
    return key[:at] + (slice(None),) * (ndim - used) + key[at + 1:]


def _index_int(part) -> int | None:
    if isinstance(part, bool):
        return None
    if isinstance(part, numbers.Integral):
        return int(part)
    if isinstance(part, np.integer):
        return int(part)
    return None


def _apply_basic(t: Tensor, key: tuple) -> Tensor:
    """Applies ints, slices and None as views, left to right."""
    result, dim = t, 0
    for part in key:
        if part is None or part is EMPTY_AXIS:
            result = views.unsqueeze(result, dim)
            if part is EMPTY_AXIS:
                result = views.slice_dim(result, dim, 0, 0)
            dim += 1
        elif isinstance(part, slice):
            step = 1 if part.step is None else _scalar_index(part.step)
            if step <= 0:
                raise ValueError("step must be greater than zero")
            result = views.slice_dim(result, dim, _scalar_index(part.start), _scalar_index(part.stop), step)
            dim += 1
        else:
            index = _index_int(part)
            size = result._shape[dim]
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
            result = views.select(result, dim, index)
    return result


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
            parts.append(None if bool(part) else EMPTY_AXIS)
        elif isinstance(part, (list, np.ndarray)) or (isinstance(part, tuple)):
            parts.append(_as_index_tensor(part, t.device))
        elif part is None or part is Ellipsis or isinstance(part, slice) or _index_int(part) is not None \
                or isinstance(part, Tensor):
            parts.append(part)
        else:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices (got " + type(part).__name__ + ")")
    return tuple(parts)


def getitem(t: Tensor, key) -> Tensor:
    key = _normalize_parts(t, _normalize_key(key))
    if t.ndim == 0 and not any(isinstance(p, Tensor) for p in key):
        key = tuple(p for p in key if p is not Ellipsis)
        if any(_index_int(p) is not None or isinstance(p, slice) for p in key):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
    key = _expand_ellipsis(key, t.ndim)
    if not any(isinstance(p, Tensor) for p in key):
        return _apply_basic(t, key)
    t, key = _select_integers(t, key)
    spec, arrays = _advanced_spec(t, key)
    return dispatch.apply(shape_ops.INDEX, (t, *arrays), (("spec", spec),))


def _select_integers(t: Tensor, key: tuple) -> tuple:
    """Applies integer indices as selects first: PyTorch places advanced-index dims as if ints were gone."""
    kept, dim = [], 0
    for part in key:
        index = _index_int(part) if not isinstance(part, Tensor) else None
        if index is not None:
            size = t._shape[dim]
            if not -size <= index < size:
                raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
            t = views.select(t, dim, index)
            continue
        kept.append(part)
        dim += _consumed_dims(part)
    return t, tuple(kept)


def _advanced_spec(t: Tensor, key: tuple) -> tuple:
    """The static description of an advanced index and its index tensors (masks turned into indices)."""
    spec, arrays, dim = [], [], 0
    for part in key:
        if isinstance(part, Tensor):
            if part.dtype in (dtypes.bool, dtypes.uint8):
                _check_mask_shape(t, part, dim)
                found = np.nonzero(np.asarray(part._value()).reshape(part.shape) if part.ndim else
                                   np.asarray(part._value()).reshape(1))
                from .factories import tensor

                for axis in found:
                    spec.append("i")
                    arrays.append(tensor(axis.astype(np.int64), device=t.device))
                dim += part.ndim
                continue
            if part.dtype.category != dtypes.INTEGER:
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            _check_bounds(part, t._shape[dim], dim)
            spec.append("i")
            arrays.append(part)
            dim += 1
        elif isinstance(part, slice):
            spec.append(("slice", part.start, part.stop, part.step))
            dim += 1
        elif part is None:
            spec.append(None)
        else:
            raise IndexError("pjtorch does not support a False scalar index combined with tensor indices")
    return tuple(spec), arrays


def _check_mask_shape(t: Tensor, mask: Tensor, dim: int) -> None:
    for i, size in enumerate(mask.shape):
        if t._shape[dim + i] != size:
            raise IndexError(f"The shape of the mask [{', '.join(map(str, mask.shape))}] at index {i} does not "
                             f"match the shape of the indexed tensor [{', '.join(map(str, t.shape))}] at index "
                             f"{dim + i}")


def _check_bounds(index: Tensor, size: int, dim: int) -> None:
    if index.numel() == 0:
        return
    values = np.asarray(index._value())
    bad = values[(values < -size) | (values >= size)]
    if bad.size:
        raise IndexError(f"index {bad.reshape(-1)[0]} is out of bounds for dimension {dim} with size {size}")


def setitem(t: Tensor, key, value) -> None:
    key = _normalize_parts(t, _normalize_key(key))
    key = _expand_ellipsis(key, t.ndim)
    if not any(isinstance(p, Tensor) for p in key):
        target = _apply_basic(t, key)
        if isinstance(value, Tensor):
            target.copy_(value)
        else:
            target.fill_(value)
        return
    t, key = _select_integers(t, key)
    spec, arrays = _advanced_spec(t, key)
    index_put_spec(t, spec, arrays, value, accumulate=False)


def index_put_spec(t: Tensor, spec: tuple, arrays: list, value, accumulate: bool) -> Tensor:
    from .factories import tensor

    if not isinstance(value, Tensor):
        value = tensor(value, dtype=t.dtype, device=t.device)
    elif value.dtype is not t.dtype:
        value = value.to(t.dtype)
    return dispatch.apply_inplace(shape_ops.INDEX_PUT, t, (value, *arrays),
                                  (("accumulate", accumulate), ("spec", spec)))


def index_put_(t: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    key = _expand_ellipsis(tuple(indices), t.ndim)
    spec, arrays = _advanced_spec(t, key)
    return index_put_spec(t, spec, arrays, values, accumulate)


def index_put(t: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
    return index_put_(t.clone(), indices, values, accumulate)
