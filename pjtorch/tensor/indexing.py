"""`t[key]` and `t[key] = value` with PyTorch's semantics.

Basic indexing (ints, slices, None, Ellipsis) is a chain of views sharing memory. Advanced
indexing (integer or boolean tensors, lists) copies, via one compiled gather (`index`) or
scatter (`index_put`); boolean masks become integer indices on the host, as PyTorch also
synchronises for them. JAX clamps out-of-range indices silently, so bounds are checked here.
"""
from __future__ import annotations

import contextlib
import functools
import numbers
import threading
import warnings

import jax
import jax.numpy as jnp
import numpy as np

from .. import dispatch
from ..ops import shape as shape_ops
from ..ops.registry import Op
from . import dtypes, views
from .tensor import Tensor, wrap_dim

_INDEX_DTYPES = (dtypes.int64, dtypes.int32, dtypes.uint8, dtypes.bool)
_SEQUENCE_AS_TUPLE = (
    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in pytorch 2.9; use "
    "x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor index, x[torch.tensor(seq)], "
    "which will result either in an error or a different result (Triggered internally at "
    "/__w/pytorch/pytorch/torch/csrc/autograd/python_variable_indexing.cpp:349.)")
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


def _index_int(part) -> int | None:
    if type(part) is int:
        return part
    if isinstance(part, bool):
        return None
    if isinstance(part, (numbers.Integral, np.integer)):
        return int(part)
    return None


def _apply_views(t: Tensor, parts: tuple, keep_full_slice: bool) -> tuple:
    """PyTorch's applySlicing: ints, slices and None become views, left to right, and each `...` skips the dims no
    part names; index tensors are collected with the dim of the viewed tensor they index. A full slice is no view
    at all, except when it is the whole key (`keep_full_slice`), as in PyTorch."""
    ndim = t.ndim
    specified = sum(_consumed_dims(p) for p in parts)
    if specified > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    result, dim, indices = t, 0, []
    for position, part in enumerate(parts):
        if part is Ellipsis:
            dim += ndim - specified
        elif part is None:
            result = views.unsqueeze(result, dim)
            dim += 1
        elif isinstance(part, _BoolAxis):
            result = views.unsqueeze(result, dim)
            indices.append((dim, _bool_axis_index(part.value, t.device)))
            dim += 1
        elif isinstance(part, slice):
            result = _slice(result, dim, part, keep_full_slice)
            dim += 1
        elif isinstance(part, Tensor):
            indices.append((dim, part))
            dim += _consumed_dims(part)
        else:
            result = _select(result, dim, _index_int(part), position)
    return result, indices


def _bool_axis_index(value: bool, device) -> Tensor:
    from .factories import tensor

    return tensor([0] if value else [], dtype=dtypes.int64, device=device)


def _select(t: Tensor, dim: int, index: int, position: int) -> Tensor:
    """`t.select(dim, index)` with the bounds message indexing gives, naming the index's position in the key."""
    size = t._shape[dim] if dim < t.ndim else 0
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {position} with size {size}")
    return views.select(t, dim, index)


def _slice(t: Tensor, dim: int, part: slice, keep_full: bool) -> Tensor:
    start, stop = _scalar_index(part.start), _scalar_index(part.stop)
    step = 1 if part.step is None else _scalar_index(part.step)
    if step == 0:
        raise ValueError("slice step cannot be zero")
    if step < 0:
        raise ValueError("step must be greater than zero")
    size = t._shape[dim] if dim < t.ndim else 0
    if not keep_full and not start and (stop is None or stop >= size) and step == 1:
        return t
    return views.slice_dim(t, wrap_dim(dim, t.ndim), start, stop, step)


def _scalar_index(value):
    if value is None:
        return None
    if isinstance(value, Tensor):
        return int(value.item())
    return int(value)


def _normalize_parts(t: Tensor, key: tuple, bare: bool) -> tuple:
    """Lists/arrays become index tensors; 0-dim integer tensors become plain ints (PyTorch treats them so)."""
    parts = []
    for part in key:
        if type(part) in _PLAIN_PARTS:  # the common keys need no conversion
            parts.append(part)
            continue
        if isinstance(part, str):
            raise TypeError(f"new(): invalid data type '{type(part).__name__}'")
        if isinstance(part, Tensor) and part.ndim == 0 and part.dtype.category == dtypes.INTEGER and (
                part.dtype is not dtypes.uint8):
            parts.append(int(part.item()))
        elif isinstance(part, bool) or (isinstance(part, Tensor) and part.ndim == 0 and (
                part.dtype in (dtypes.bool, dtypes.uint8))):
            # A 0-dim uint8 tensor is a (byte) mask, as a 0-dim bool one is: a new axis kept or emptied.
            parts.append(_BoolAxis(bool(part)))
        elif isinstance(part, (list, tuple, np.ndarray, range)):  # a range is a sequence of ints, as in PyTorch
            parts.append(_as_index_tensor(list(part) if isinstance(part, range) else part, t.device))
        elif part is None or part is Ellipsis or isinstance(part, (slice, Tensor)) or _index_int(part) is not None:
            parts.append(part)
        else:
            raise IndexError(_INVALID_INDEX.format(type(part).__name__))
    if t.ndim == 0:
        _check_0dim_parts(parts, bare)
    return tuple(parts)


_PLAIN_PARTS = frozenset({int, slice, type(None), type(Ellipsis)})


def _check_0dim_parts(parts: tuple, bare: bool) -> None:
    """PyTorch's errors for an int or slice indexing a 0-dim tensor: a `bare` one (the key itself, not in a tuple)
    has its own, one in a tuple is an index too many."""
    if any(isinstance(p, (Tensor, _BoolAxis)) for p in parts):
        return
    if not any(_index_int(p) is not None or isinstance(p, slice) for p in parts):
        return
    if not bare:
        raise IndexError("too many indices for tensor of dimension 0")
    index = _index_int(parts[0])
    if index is None:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    if index == 0:
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                         "in C++ to convert a 0-dim tensor to a number")
    raise IndexError(f"index {index} is out of bounds for dimension 0 with size 0")


def getitem(t: Tensor, key) -> Tensor:
    parts = _normalize_parts(t, _normalize_key(key), not isinstance(key, tuple))
    viewed, indices = _apply_views(t, parts, keep_full_slice=isinstance(key, slice))
    if not indices:
        return viewed if viewed is not t else views.alias(t)
    spec, arrays = _advanced_spec(viewed, indices)
    _check_bounds(viewed, spec, arrays)
    return dispatch.apply(shape_ops.index_op(len(arrays)), (viewed, *arrays), (("spec", spec),))


_WHOLE_DIM = ("slice", None, None, None)


def _advanced_spec(t: Tensor, indices: list) -> tuple:
    """The static description of an advanced index of `t` by (dim, index tensor) pairs, and its index arrays (masks
    turned into indices): 'i' where an index array applies, a whole-dim slice between them. Their bounds are left
    to `_check_bounds`: PyTorch's kernel checks them after the shapes (and, writing, the value)."""
    if indices:
        at, last = indices[-1]
        used = at + _consumed_dims(last)
        if used > t.ndim:
            raise IndexError(f"too many indices for tensor of dimension {t.ndim} (got {used})")
    spec, arrays, dim = [], [], 0
    for at, part in indices:
        spec.extend([_WHOLE_DIM] * (at - dim))
        if part.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if part.dtype in (dtypes.bool, dtypes.uint8):
            _check_mask_shape(t._shape, part, at)
            found = _mask_indices(part, t.device)
            spec.extend("i" * len(found))
            arrays.extend(found)
            dim = at + part.ndim
            continue
        spec.append("i")
        arrays.append(part)
        dim = at + 1
    _check_broadcastable(arrays)
    return tuple(spec), arrays


def masked_select(t: Tensor, mask: Tensor, shape: tuple) -> Tensor:
    """t's elements where the mask is true, both broadcast to `shape`: one gather at positions found on the host."""
    from .factories import tensor

    positions = np.flatnonzero(np.broadcast_to(np.asarray(mask._value()), shape))
    return dispatch.apply(shape_ops.MASKED_SELECT, (t, tensor(positions, device=t.device)),
                          (("shape", tuple(shape)),))


def _mask_indices(mask: Tensor, device) -> list:
    from .factories import tensor

    values = np.asarray(mask._value()).reshape(mask.shape if mask.ndim else (1,))
    return [tensor(axis.astype(np.int64), device=device) for axis in np.nonzero(values)]


def _check_mask_shape(shape: tuple, mask: Tensor, at: int) -> None:
    for i, size in enumerate(mask.shape):
        if shape[at + i] != size:
            raise IndexError(f"The shape of the mask {_dims(mask.shape)} at index {i} does not match the shape of "
                             f"the indexed tensor {_dims(shape)} at index {at + i}")


def _indexes_nothing(arrays: list) -> bool:
    """The index tensors broadcast to no index at all: PyTorch checks none of their values."""
    return 0 in np.broadcast_shapes(*(tuple(a.shape) for a in arrays))


def _check_empty_dims(t: Tensor, spec: tuple, arrays: list) -> None:
    """Indices into an empty dim: PyTorch refuses them first."""
    if 0 in [size for part, size in zip(spec, t._shape) if part == "i"] and not _indexes_nothing(arrays):
        raise IndexError("index is out of bounds for dimension with size 0")


def _check_bounds(t: Tensor, spec: tuple, arrays: list) -> None:
    """JAX would clamp: refuse as PyTorch does, naming the index tensor's place among the advanced indices."""
    if _indexes_nothing(arrays):
        return
    _check_empty_dims(t, spec, arrays)
    sizes = [size for part, size in zip(spec, t._shape) if part == "i"]
    for ordinal, (index, size) in enumerate(zip(arrays, sizes)):
        if index.numel() == 0:
            continue
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
    sizes = tuple(max(size, 1) if part == "i" else size for part, size in zip(spec, t._shape))
    probe = np.broadcast_to(np.empty((), np.bool_), sizes + tuple(t._shape[len(sizes):]))
    shapes = iter(a.shape for a in arrays)
    key = tuple(np.zeros(next(shapes), np.intp) if part == "i" else slice(*part[1:]) if isinstance(part, tuple)
                else part for part in spec)
    return probe[key].shape


# ----- writing -----------------------------------------------------------------------------------------

def setitem(t: Tensor, key, value) -> None:
    value = _assigned_value(t, value)
    if key is False:
        return
    if key is True:  # PyTorch's set_item takes a lone True as None: a view, so the value is cast, not refused
        _copy_to(views.unsqueeze(t, 0), value)
        return
    target, indices = _apply_views(t, _normalize_parts(t, _normalize_key(key), not isinstance(key, tuple)),
                                   keep_full_slice=False)
    if not indices:
        _copy_to(target, value)
        return
    dispatch.check_inplace_allowed(target)
    spec, arrays = _advanced_spec(target, indices)
    _check_no_overlap(target, indices, value, accumulate=False)
    index_put_spec(target, spec, arrays, _masked_fill_value(target, indices, value), accumulate=False)


def _assigned_value(t: Tensor, value) -> Tensor:
    """PyTorch's valueToTensor: a tensor as it is; a Python bool or integer (or NumPy integer) read as a 64-bit
    integer, a Python float or complex as itself, each then made a 0-dim tensor of t's dtype as
    `torch.scalar_tensor` makes it (checked for overflow); anything else, NumPy floats included, is a TypeError."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (bool, numbers.Integral, np.integer)) and not isinstance(value, np.bool_):
        value = int(value)
        if not -2 ** 63 <= value < 2 ** 63:
            raise ValueError("Overflow when unpacking long long")
    elif isinstance(value, float):
        value = float(value)
    elif isinstance(value, complex):
        value = complex(value)
    else:
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else f"{kind.__module__}.{kind.__name__}"
        raise TypeError(f"can't assign a {name} to a {t.type()}")
    from .factories import torch_scalar_tensor

    return torch_scalar_tensor(value, dtype=t.dtype, device=t.device)


def _copy_to(target: Tensor, value) -> None:
    """PyTorch's copy_to: a number becomes a 0-dim tensor of the target's dtype; copy_ when the shapes agree, fill_
    from a 0-dim CPU value, else the value's leading size-1 dims dropped and the rest expanded to the target."""
    if not isinstance(value, Tensor):
        from .factories import tensor

        value = tensor(value, dtype=target.dtype, device=target.device)
    if value._shape == target._shape:
        target.copy_(value)
    elif not value._shape and value.device.type == "cpu":
        target.fill_(value)
    else:
        target.copy_(views.expand(views.reshape(value, _without_leading_ones(value._shape)), target._shape))


def _without_leading_ones(shape: tuple) -> tuple:
    first = next((i for i, size in enumerate(shape) if size != 1), len(shape))
    return tuple(shape[first:])


def index_put_spec(t: Tensor, spec: tuple, arrays: list, value, accumulate: bool, inplace: bool = True,
                   strip: bool = True) -> Tensor:
    """`t[spec] = value` (or `+=` with accumulate), into t or, not in place, into a new tensor. Assignment `strip`s
    the value's leading size-1 dims first (PyTorch's slicePrefix1sSize); index_put itself does not."""
    from .factories import tensor

    if not isinstance(value, Tensor):
        value = tensor(value, dtype=t.dtype, device=t.device)
    _check_empty_dims(t, spec, arrays)
    indexed = _indexed_shape(t, spec, arrays)
    stripped = _without_leading_ones(value._shape) if strip else value._shape
    if not _broadcasts(stripped, indexed):  # checked before the dtypes, as PyTorch does
        raise RuntimeError(f"shape mismatch: value tensor of shape {_dims(value._shape)} cannot be broadcast to "
                           f"indexing result of shape {_dims(indexed)}")
    if value.dtype is not t.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_scalar_name(t.dtype)} for the destination and {_scalar_name(value.dtype)} for the "
                           "source.")
    _check_bounds(t, spec, arrays)
    if stripped != value._shape:
        value = views.reshape(value, stripped)
    op, static = _put_op(len(arrays), accumulate)
    static += (("spec", spec),)
    if inplace:
        return dispatch.apply_inplace(op, t, (value, *arrays), static)
    return dispatch.apply(op, (t, value, *arrays), static)


def _put(spec: tuple, x, values, *indices):
    """x[spec] = values, JAX's way: where indices repeat, one write lands."""
    return x.at[shape_ops._index_key(spec, indices)].set(values.astype(x.dtype))


_put_like_torch = jax.custom_jvp(_put, nondiff_argnums=(0,))


@_put_like_torch.defjvp
def _put_like_torch_jvp(spec: tuple, primals: tuple, tangents: tuple) -> tuple:
    """A tangent whose transpose is PyTorch's IndexPutBackward0: the destination's gradient zeroed where written,
    and every write's gradient, a repeated index's included, the gradient at its position (grad[indices]); JAX's
    own rule gives a repeated position's gradient only to the write that lands."""
    x, values, *indices = primals
    key = shape_ops._index_key(spec, indices)
    tangent_x, tangent_values = tangents[:2]
    kept = jnp.ones(x.shape, bool).at[key].set(False)
    tangent = jnp.where(kept, tangent_x, 0).at[key].add(tangent_values.astype(x.dtype))
    return _put(spec, *primals), tangent


def _assign(x, values, *indices, spec: tuple):
    return _put_like_torch(spec, x, values, *indices)


def _assign_forward(x, values, *indices, spec: tuple):
    """Forward mode: PyTorch puts the tangents as it puts the values (the landing write's wins), which is not the
    transpose of its backward formula when indices repeat."""
    return _put(spec, x, values, *indices)


_assign.forward_mode = _assign_forward


@functools.lru_cache(maxsize=None)
def _assign_op(count: int) -> Op:
    """`x[indices] = values` with `count` index arrays after x and the values; PyTorch lists only those two."""
    return Op("index_put", _assign, grad_name="IndexPutBackward0", promote="none", hidden_inputs=count)


class _ForwardPuts(threading.local):
    depth = 0


_FORWARD_PUTS = _ForwardPuts()


@contextlib.contextmanager
def forward_mode_puts():
    """Within torch.func's forward-mode transforms (jvp, jacfwd), which pjtorch computes by differentiating the
    backward: assignment records JAX's own put, whose backward's backward is PyTorch's forward-mode rule (the
    landing write's tangent), not the transpose of PyTorch's backward formula."""
    _FORWARD_PUTS.depth += 1
    try:
        yield
    finally:
        _FORWARD_PUTS.depth -= 1


def _put_op(count: int, accumulate: bool) -> tuple:
    """The op and its static arguments: accumulating is a scatter-add, whose JAX derivative is PyTorch's."""
    if accumulate or _FORWARD_PUTS.depth:
        return shape_ops.index_put_op(count), (("accumulate", accumulate),)
    return _assign_op(count), ()


def _scalar_name(d: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[d].removesuffix("Tensor")


def _broadcasts(shape: tuple, target: tuple) -> bool:
    return len(shape) <= len(target) and all(s in (1, t) for s, t in zip(reversed(shape), reversed(target)))


def _index_put(name: str, inplace: bool):
    def run(t: Tensor, indices: tuple, values: Tensor, accumulate: bool = False) -> Tensor:
        if not isinstance(indices, (tuple, list)):
            raise TypeError(f"{name}(): argument 'indices' (position 2) must be tuple of Tensors, not "
                            f"{type(indices).__name__}")
        if not isinstance(values, Tensor):
            raise TypeError(f"{name}(): argument 'values' (position 3) must be Tensor, not {type(values).__name__}")
        placed = _placed(indices)
        if inplace:
            dispatch.check_inplace_allowed(t)
        spec, arrays = _advanced_spec(t, placed)
        if inplace:
            _check_no_overlap(t, placed, values, accumulate)
        if not accumulate:
            values = _masked_fill_value(t, placed, values)
        return index_put_spec(t, spec, arrays, values, accumulate, inplace=inplace, strip=False)

    run.__name__ = name
    return run


index_put_ = _index_put("index_put_", inplace=True)
index_put = _index_put("index_put", inplace=False)


def _fills_mask(indices: list, value) -> bool:
    """PyTorch's canDispatchToMaskedFill: a one-element CPU value put at one boolean mask (no other index tensor)."""
    return (isinstance(value, Tensor) and value.numel() == 1 and value.device.type == "cpu" and len(indices) == 1
            and indices[0][1].dtype in (dtypes.bool, dtypes.uint8))


def _check_no_overlap(t: Tensor, indices: list, value, accumulate: bool) -> None:
    """PyTorch's assert_no_overlap of index_put_'s destination and value (bar a masked fill, which reads the value
    as a number): the same tensor, or dense ones of one memory whose spans meet, are refused."""
    if not isinstance(value, Tensor) or (not accumulate and _fills_mask(indices, value)):
        return
    if value is t or (t._storage.memory is value._storage.memory and _spans_meet(_dense_span(t), _dense_span(value))):
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor refer "
                           "to a single memory location. Please clone() the tensor before performing the operation.")


def _dense_span(t: Tensor) -> range:
    """The bytes a non-empty dense tensor covers; empty for any other, whose overlap PyTorch does not work out."""
    from .factories import is_dense

    if not t.numel() or not is_dense(t._shape, t._stride):
        return range(0)
    size = t.dtype.itemsize
    return range(t._offset * size, (t._offset + t.numel()) * size)


def _spans_meet(a: range, b: range) -> bool:
    return bool(a) and bool(b) and a.start < b.stop and b.start < a.stop


def _masked_fill_value(t: Tensor, indices: list, value):
    """A value PyTorch puts by `masked_fill_(mask, value.item())` (see `_fills_mask`): its dtype need not match t's
    and the number is checked as masked_fill checks it; a uint8 mask is then refused. The write itself stays an
    index_put (IndexPutBackward0, as in PyTorch), with the value cast to t's dtype."""
    if not _fills_mask(indices, value):
        return value
    mask = indices[0][1]
    if mask.dtype is dtypes.uint8:
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype unsigned char")
    dtypes.checked_scalar(value.item(), t.dtype)
    if value.dtype is not t.dtype:
        if value.dtype.is_complex and not t.dtype.is_complex:
            value = value.real
        value = value.to(t.dtype)
    return value


def _placed(indices: tuple) -> list:
    """index_put's index tensors with the dim each starts at (a mask covers as many dims as it has)."""
    placed, dim = [], 0
    for position, index in enumerate(indices):
        if not isinstance(index, Tensor):
            raise TypeError(f"expected Tensor as element {position} in argument 0, but got {type(index).__name__}")
        placed.append((dim, index))
        dim += _consumed_dims(index)
    return placed
