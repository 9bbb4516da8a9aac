"""Shape ops that copy (concatenation, flips, repeats, triangles, sorting) and indexing ops, as pure JAX functions."""
from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .pointwise import astype, refusing
from .reduction import vector_if_scalar
from .registry import Op, SAVES_INDICES, SAVES_NOTHING


def _cat(*arrays, dim):
    return jnp.concatenate(arrays, axis=dim)


def _stack(*arrays, dim):
    return jnp.stack(arrays, axis=dim)


def _clone(x):
    return jnp.array(x, copy=True)


def _to_dtype(x, dtype):
    return astype(x, dtype)


def _copy_into(dst, src):
    """copy_: the source broadcast to the destination's shape and cast to its dtype."""
    return jnp.broadcast_to(astype(src, dst.dtype), dst.shape)


def _fill(dst, value):
    return jnp.broadcast_to(astype(value, dst.dtype), dst.shape)


def _zero(dst):
    return jnp.zeros_like(dst)


def _roll(x, shifts, dims):
    """dims None: the flattened tensor rolled by its one shift, then given its shape back."""
    return jnp.roll(x, shifts[0] if dims is None else shifts, dims)


def _masked_select(x, positions, shape):
    """`positions`: where the mask (broadcast with x to `shape`) is true, as flat indices found on the host."""
    return jnp.broadcast_to(x, shape).reshape(-1)[positions]


def _repeat(x, repeats):
    lead = len(repeats) - x.ndim
    x = x.reshape((1,) * lead + x.shape)
    return jnp.tile(x, repeats)


def _repeat_interleave(x, repeats, dim):
    """`repeats` is an int or a tuple of ints (known while tracing, so the result's size is too)."""
    if isinstance(repeats, tuple):
        repeats = np.asarray(repeats, np.int64)
    if dim is None:
        return jnp.repeat(x.reshape(-1), repeats)
    return jnp.repeat(x, repeats, axis=dim)


def bitcast(x, dtype):
    """x's bytes read as `dtype`, the last dim scaled by the ratio of element sizes (PyTorch's view(dtype)).
    Complex goes through its (real, imag) float pairs and bool through uint8, which XLA cannot bitcast."""
    dtype = np.dtype(dtype)
    if jnp.iscomplexobj(x):
        x = jnp.stack([jnp.real(x), jnp.imag(x)], axis=-1).reshape(*x.shape[:-1], -1)
    elif x.dtype == jnp.bool_:
        x = x.astype(jnp.uint8)
    if dtype.kind == "c":
        pairs = bitcast(x, np.dtype(f"f{dtype.itemsize // 2}")).reshape(*x.shape[:-1], -1, 2)
        return lax.complex(pairs[..., 0], pairs[..., 1])
    if dtype == np.bool_:
        return bitcast(x, np.uint8) != 0
    if dtype.itemsize < x.dtype.itemsize:
        return lax.bitcast_convert_type(x, dtype).reshape(*x.shape[:-1], -1)
    if dtype.itemsize > x.dtype.itemsize:
        x = x.reshape(*x.shape[:-1], -1, dtype.itemsize // x.dtype.itemsize)
    return lax.bitcast_convert_type(x, dtype)


def _sort(x, dim, descending=False, stable=False):
    """Always stable (PyTorch's unstable sort is free to be), NaN sorting above everything, as PyTorch."""
    order = jnp.argsort(x, axis=dim, stable=True, descending=descending)
    return jnp.take_along_axis(x, order, axis=dim), order.astype(jnp.int64)


def _topk(x, k, dim, largest=True, sorted=True):
    moved = jnp.moveaxis(x, dim, -1)
    # The smallest of x are the largest of its reversal: ~x for integers (no overflow), -x for floats.
    keys = moved if largest else jnp.invert(moved) if jnp.issubdtype(x.dtype, jnp.integer) else -moved
    indices = jax.lax.top_k(keys, k)[1].astype(jnp.int64)
    if k and moved.size:  # where equal values compete, the index PyTorch's selection leaves wins
        nearest = jnp.take_along_axis(moved, jax.lax.top_k(keys, min(k + 1, moved.shape[-1]))[1], axis=-1)
        tied = jnp.any(_same_or_both_nan(nearest[..., 1:], nearest[..., :-1]))
        indices = lax.cond(tied, lambda: picked_on_host(moved, _stl_topk, k, largest, sorted), lambda: indices)
    values = jnp.take_along_axis(moved, indices, axis=-1)
    return jnp.moveaxis(values, -1, dim), jnp.moveaxis(indices, -1, dim)


def picked_on_host(rows, pick, width: int, *options):
    """`pick(row, width, *options)` (a list of `width` indices into the row) for each row of the last dim, run on
    the host: for the selections whose choice among equal values is libstdc++'s, emulated below."""
    def run(values):
        flat = np.asarray(values)
        flat = flat.reshape(-1, flat.shape[-1]).astype(np.float64 if flat.dtype.kind == "f" else flat.dtype)
        chosen = [pick(row.tolist(), width, *options) for row in flat]
        return np.asarray(chosen, np.int64).reshape(values.shape[:-1] + (width,))

    return jax.pure_callback(run, jax.ShapeDtypeStruct(rows.shape[:-1] + (width,), jnp.int64),
                             lax.stop_gradient(rows), vmap_method="sequential")


# ----- libstdc++'s selection and sorting, whose handling of equal elements PyTorch's indices show ------------

def _stl_topk(values: list, k: int, largest: bool, sorted: bool) -> list:
    """topk's indices as PyTorch's CPU kernel picks them: std::partial_sort where k is small beside the row,
    else std::nth_element (then std::sort of the first k - 1 when sorted)."""
    pairs = [(v, i) for i, v in enumerate(values)]
    comp = _stl_greater if largest else _stl_less
    if k * 64 <= len(pairs):
        _heap_select(pairs, 0, k, len(pairs), comp)
        _sort_heap(pairs, 0, k, comp)
    else:
        _nth_element(pairs, k - 1, comp)
        if sorted:
            _stl_sort(pairs, 0, k - 1, comp)
    return [i for _, i in pairs[:k]]


def stl_mode(values: list, width: int = 1) -> list:
    """mode's index as PyTorch's CPU kernel finds it: std::sort by `<` (NaN compares false), then the first
    longest run of equal values (NaN equals nothing), reporting its last element's index."""
    pairs = [(v, i) for i, v in enumerate(values)]
    _stl_sort(pairs, 0, len(pairs), lambda a, b: a[0] < b[0])
    best, best_count, count = 0, 0, 0
    for at, (value, index) in enumerate(pairs):
        count += 1
        if at == len(pairs) - 1 or value != pairs[at + 1][0]:
            if count > best_count:
                best, best_count = index, count
            count = 0
    return [best]


def _stl_greater(a, b) -> bool:
    """PyTorch's topk order: NaN above everything."""
    return (a[0] != a[0] and b[0] == b[0]) or a[0] > b[0]


def _stl_less(a, b) -> bool:
    return (a[0] == a[0] and b[0] != b[0]) or a[0] < b[0]


def _swap(a, i, j):
    a[i], a[j] = a[j], a[i]


def _median_to_first(a, result, x, y, z, comp):
    if comp(a[x], a[y]):
        _swap(a, result, y if comp(a[y], a[z]) else z if comp(a[x], a[z]) else x)
    else:
        _swap(a, result, x if comp(a[x], a[z]) else z if comp(a[y], a[z]) else y)


def _partition_pivot(a, first, last, comp):
    """std::__unguarded_partition_pivot: median of three to the front, then Hoare's partition around it."""
    _median_to_first(a, first, first + 1, first + (last - first) // 2, last - 1, comp)
    pivot, first = first, first + 1
    while True:
        while comp(a[first], a[pivot]):
            first += 1
        last -= 1
        while comp(a[pivot], a[last]):
            last -= 1
        if first >= last:
            return first
        _swap(a, first, last)
        first += 1


def _insertion_sort(a, first, last, comp):
    for i in range(first + 1, last):
        value = a[i]
        if comp(value, a[first]):
            a[first + 1:i + 1] = a[first:i]
            a[first] = value
        else:
            _linear_insert(a, i, comp)


def _linear_insert(a, i, comp):
    value = a[i]
    while comp(value, a[i - 1]):
        a[i] = a[i - 1]
        i -= 1
    a[i] = value


def _adjust_heap(a, first, hole, length, value, comp):
    top = child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if comp(a[first + child], a[first + child - 1]):
            child -= 1
        a[first + hole] = a[first + child]
        hole = child
    if length % 2 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        a[first + hole] = a[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2
    while hole > top and comp(a[first + parent], value):
        a[first + hole] = a[first + parent]
        hole, parent = parent, (parent - 1) // 2
    a[first + hole] = value


def _pop_heap(a, first, last, result, comp):
    value, a[result] = a[result], a[first]
    _adjust_heap(a, first, 0, last - first, value, comp)


def _heap_select(a, first, middle, last, comp):
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length > 1 else ():
        _adjust_heap(a, first, parent, length, a[first + parent], comp)
    for i in range(middle, last):
        if comp(a[i], a[first]):
            _pop_heap(a, first, middle, i, comp)


def _sort_heap(a, first, last, comp):
    for end in range(last - 1, first, -1):
        _pop_heap(a, first, end, end, comp)


def _nth_element(a, nth, comp):
    first, last = 0, len(a)
    depth = 2 * (last.bit_length() - 1)
    while last - first > 3:
        if not depth:
            _heap_select(a, first, nth + 1, last, comp)
            _swap(a, first, nth)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        first, last = (cut, last) if cut <= nth else (first, cut)
    _insertion_sort(a, first, last, comp)


def _stl_sort(a, first, last, comp):
    """std::sort: introsort down to runs of 16, then one insertion sort."""
    if last - first < 2:
        return
    _introsort(a, first, last, 2 * ((last - first).bit_length() - 1), comp)
    _insertion_sort(a, first, min(last, first + 16), comp)
    for i in range(first + 16, last):
        _linear_insert(a, i, comp)


def _introsort(a, first, last, depth, comp):
    while last - first > 16:
        if not depth:
            _heap_select(a, first, last, last, comp)
            _sort_heap(a, first, last, comp)
            return
        depth -= 1
        cut = _partition_pivot(a, first, last, comp)
        _introsort(a, cut, last, depth, comp)
        last = cut


def _kthvalue(x, k, dim, keepdim=False):
    """The k-th smallest along `dim`; where it ties, the index PyTorch's quickselect leaves at k - 1."""
    ordered, order = _sort(x, dim)
    ordered, order = jnp.moveaxis(ordered, dim, -1), jnp.moveaxis(order, dim, -1)
    tied = jnp.sum(_same_or_both_nan(ordered, ordered[..., k - 1:k]), axis=-1) > 1
    rows = lax.stop_gradient(jnp.moveaxis(x, dim, -1)).reshape(-1, x.shape[dim])
    indices = lax.cond(jnp.any(tied), lambda: lax.map(lambda row: _quick_select(row, k - 1), rows).reshape(tied.shape),
                       lambda: order[..., k - 1])
    indices = jnp.expand_dims(indices, dim)
    values = jnp.take_along_axis(x, indices, axis=dim)
    if not keepdim:
        values, indices = jnp.squeeze(values, dim), jnp.squeeze(indices, dim)
    return values, indices


def _same_or_both_nan(a, b):
    return (a == b) | ((a != a) & (b != b))


def _greater_or_nan(a, b):
    """PyTorch's quickselect order: NaN above everything."""
    return ((a != a) & (b == b)) | (a > b)


def _quick_select(row, k):
    """The index at position k after PyTorch's CPU quickselect (SortingUtils.h's quick_select_template) of `row`,
    which decides which of several equal values kthvalue reports."""
    def swap(state, i, j, when=True):
        values, index = state
        i, j = jnp.where(when, i, j), j
        return (values.at[i].set(values[j]).at[j].set(values[i]), index.at[i].set(index[j]).at[j].set(index[i]))

    def partition(state, low, high):
        pivot_at = low + (high - low) // 2
        state = swap(state, pivot_at, low + 1)
        state = swap(state, low + 1, high, _greater_or_nan(state[0][low + 1], state[0][high]))
        state = swap(state, low, high, _greater_or_nan(state[0][low], state[0][high]))
        state = swap(state, low + 1, low, _greater_or_nan(state[0][low + 1], state[0][low]))
        pivot = state[0][low]

        def step(carry):
            state, i, j, _ = carry
            i = lax.while_loop(lambda i: _greater_or_nan(pivot, state[0][i]), lambda i: i + 1, i + 1)
            j = lax.while_loop(lambda j: _greater_or_nan(state[0][j], pivot), lambda j: j - 1, j - 1)
            return swap(state, i, j, j >= i), i, j, j >= i

        state, i, j, _ = lax.while_loop(lambda carry: carry[3], step, (state, low + 1, high, True))
        state = swap(state, low, j)
        return state, jnp.where(j <= k, i, low), jnp.where(j >= k, j - 1, high)

    def outer(carry):
        state, low, high, _ = carry
        pair = high == low + 1
        pair_state = swap(state, low, high, pair & _greater_or_nan(state[0][low], state[0][high]))
        return lax.cond(high > low + 1, lambda: (*partition(state, low, high), True),
                        lambda: (pair_state, low, high, False))

    start = ((row, jnp.arange(row.shape[0], dtype=jnp.int64)), jnp.int64(0), jnp.int64(row.shape[0] - 1), True)
    (_, index), *_ = lax.while_loop(lambda carry: carry[3], outer, start)
    return index[k]


def _gather(x, index, dim):
    """Index may be smaller than x away from `dim`: x is cut to it there (PyTorch allows it)."""
    x = x[tuple(slice(None) if d == dim else slice(0, size) for d, size in enumerate(index.shape))]
    return jnp.take_along_axis(x, index, axis=dim, mode="clip")


def _axis_indices(index, dim):
    """Full index arrays addressing x at `index` along `dim` and at each position elsewhere."""
    grids = jnp.meshgrid(*[jnp.arange(s) for s in index.shape], indexing="ij")
    grids[dim] = index
    return tuple(grids)


def _scattered(src, index):
    """The part of src that index reaches: its leading corner, or a 0-dim value broadcast."""
    return jnp.broadcast_to(src, index.shape) if src.ndim == 0 else src[tuple(slice(0, s) for s in index.shape)]


def _scatter(x, index, src, dim):
    return x.at[_axis_indices(index, dim)].set(_scattered(src, index).astype(x.dtype))


def _scatter_add(x, index, src, dim):
    """Adds src into x at index; for bools adding is `or`, as in PyTorch."""
    src = _scattered(src, index)
    where = x.at[_axis_indices(index, dim)]
    return where.max(src) if x.dtype == jnp.bool_ else where.add(src.astype(x.dtype))


_BOOL_REDUCTIONS = {"sum": "amax", "prod": "amin"}


def _scatter_reduce(x, index, src, dim, reduce, include_self=True):
    src = _scattered(src, index).astype(x.dtype)
    where = _axis_indices(index, dim)
    if x.dtype == jnp.bool_:  # adding is `or`, multiplying `and`
        reduce = _BOOL_REDUCTIONS.get(reduce, reduce)
    if reduce == "sum":
        return x.at[where].add(src) if include_self else x.at[where].set(0).at[where].add(src)
    if reduce == "prod":
        return x.at[where].multiply(src) if include_self else x.at[where].set(1).at[where].multiply(src)
    if reduce == "amax":
        return x.at[where].max(src)
    if reduce == "amin":
        return x.at[where].min(src)
    if reduce == "mean":
        total = x.at[where].add(src) if include_self else x.at[where].set(0).at[where].add(src)
        count = jnp.ones_like(x).at[where].add(jnp.ones_like(src)) if include_self else \
            jnp.zeros_like(x).at[where].add(jnp.ones_like(src))
        mean = total / jnp.maximum(count, 1)
        return mean.astype(x.dtype) if jnp.issubdtype(x.dtype, jnp.inexact) else (total // jnp.maximum(count, 1))
    raise ValueError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")


def _index_select(x, index, dim):
    """A 0-dim x has one element, and its (checked) single index selects it."""
    return jnp.take(x, index, axis=dim) if x.ndim else x


def _along_index(x, index, source, dim, write):
    """`write(x.at[index], source)` along `dim`: a 0-dim x or source (checked to pair with a vector) is a vector
    of its elements, and a 0-dim index one index."""
    if x.ndim == 0 or source.ndim == 0:
        x_moved, source, dim = x.reshape(-1), source.reshape(-1), None
    else:
        x_moved, source = jnp.moveaxis(x, dim, 0), jnp.moveaxis(source, dim, 0)
    written = write(x_moved.at[index.reshape(-1)], source)
    return written.reshape(x.shape) if dim is None else jnp.moveaxis(written, 0, dim)


def _index_add(x, index, source, dim, alpha=1):
    """Adds alpha * source; for bools adding is `or`, as in PyTorch."""
    if x.dtype == jnp.bool_:
        return _along_index(x, index, source & bool(alpha), dim, lambda at, s: at.max(s))
    scaled = (source * alpha).astype(x.dtype) if alpha != 1 else source
    return _along_index(x, index, scaled, dim, lambda at, s: at.add(s))


def _index_copy(x, index, source, dim):
    return _along_index(x, index, source, dim, lambda at, s: at.set(s))


def _index_fill(x, index, value, dim):
    """A 0-dim x is filled as the one-element vector it is (its only valid index is 0)."""
    moved = jnp.moveaxis(x, dim, 0) if x.ndim else x.reshape(1)
    return jnp.moveaxis(moved.at[index].set(value.astype(x.dtype)), 0, dim).reshape(x.shape)


def _take(x, index):
    """Indices arrive checked; negative ones count from the end."""
    return jnp.take(x.reshape(-1), jnp.where(index < 0, index + x.size, index), mode="clip")


def _masked_fill(x, mask, value):
    return jnp.where(mask, value.astype(x.dtype), x)


def _masked_scatter(x, mask, source):
    """The mask's (checked) count of ones is at most source's size: an empty source writes nothing. `x` broadcasts
    against the mask (out of place), so its gradient is summed back inside this one node, as PyTorch's."""
    shape = jnp.broadcast_shapes(x.shape, mask.shape)
    x, mask = jnp.broadcast_to(x, shape), jnp.broadcast_to(mask, shape)
    if not source.size:
        return x
    positions = jnp.cumsum(mask.reshape(-1)) - 1
    picked = source.reshape(-1)[jnp.clip(positions, 0, source.size - 1)].reshape(shape)
    return jnp.where(mask, picked.astype(x.dtype), x)


def _index_key(spec: tuple, indices) -> tuple:
    """The NumPy index for a static spec: 'i' takes the next index array, ('slice', a, b, c) a slice, None an axis."""
    arrays = iter(indices)
    key = []
    for part in spec:
        if part == "i":
            key.append(next(arrays))
        elif isinstance(part, tuple):
            key.append(slice(*part[1:]))
        else:
            key.append(part)
    return tuple(key)


def _advanced_index(x, *indices, spec):
    return x[_index_key(spec, indices)]


def _index_put(x, *values_and_indices, spec, accumulate=False):
    values, indices = values_and_indices[0], values_and_indices[1:]
    key = _index_key(spec, indices)
    values = values.astype(x.dtype)
    return x.at[key].add(values) if accumulate else x.at[key].set(values)


def _tril(x, diagonal=0):
    return jnp.tril(x, diagonal)


def _triu(x, diagonal=0):
    return jnp.triu(x, diagonal)


def _pad(x, pad_width, mode="constant", value=0.0):
    if mode == "constant":
        return jnp.pad(x, pad_width, mode="constant", constant_values=value)
    return jnp.pad(x, pad_width, mode={"replicate": "edge", "reflect": "reflect", "circular": "wrap"}[mode])


CAT = Op("cat", _cat, saves=SAVES_NOTHING)
STACK = Op("stack", _stack, saves=SAVES_NOTHING)
CLONE = Op("clone", _clone, saves=SAVES_NOTHING, promote="none")
TO_DTYPE = Op("to", _to_dtype, grad_name="ToCopyBackward0", saves=SAVES_NOTHING, promote="none", elementwise=True)
COPY = Op("copy_", _copy_into, grad_name="CopyBackwards", saves=SAVES_NOTHING, promote="none")
FILL = Op("fill_", _fill, grad_name="FillBackward3", saves=SAVES_NOTHING, promote="none")
FILL_SCALAR = Op("fill_", _fill, grad_name="FillBackward2", saves=SAVES_NOTHING, promote="none", hidden_inputs=1)
ZERO = Op("zero_", _zero, grad_name="ZeroBackward0", saves=SAVES_NOTHING, promote="none")
FLIP = Op("flip", lambda x, dims: jnp.flip(x, dims), saves=SAVES_NOTHING, promote="none", elementwise=True)
ROLL = Op("roll", _roll, saves=SAVES_NOTHING, promote="none")
REPEAT = Op("repeat", _repeat, saves=SAVES_NOTHING, promote="none")
REPEAT_INTERLEAVE = Op("repeat_interleave", _repeat_interleave, grad_name="IndexSelectBackward0", promote="none")
# With an int count PyTorch expands and flattens: the result is a view's.
REPEAT_INTERLEAVE_INT = Op("repeat_interleave", _repeat_interleave, grad_name="ViewBackward0", promote="none")
SORT = Op("sort", refusing(vector_if_scalar(_sort), "sort", "bif", {
    "c": (RuntimeError, " Sort does not support complex dtypes on CPU")}), promote="none", saves=SAVES_INDICES)
# sort(stable=...) is PyTorch's second overload (SortBackward1).
SORT_STABLE = Op("sort", SORT.fn, grad_name="SortBackward1", promote="none", saves=SAVES_INDICES)
TOPK = Op("topk", refusing(vector_if_scalar(_topk), "topk", "if", {
    "b": (RuntimeError, "topk does not support bool dtypes on CPU"),
    "c": (RuntimeError, " topk does not support complex dtypes on CPU")}), promote="none", saves=SAVES_INDICES)
KTHVALUE = Op("kthvalue", refusing(vector_if_scalar(_kthvalue), "kthvalue", "if", kernel="kthvalue_cpu"), promote="none",
              saves=SAVES_INDICES)
GATHER = Op("gather", _gather, promote="none", hidden_inputs=1)
SCATTER = Op("scatter", _scatter, promote="none", unlisted=frozenset({1}))
SCATTER_VALUE = Op("scatter", _scatter, grad_name="ScatterBackward1", promote="none", unlisted=frozenset({1, 2}))
SCATTER_ADD = Op("scatter_add", _scatter_add, promote="none", unlisted=frozenset({1}))
SCATTER_REDUCE = Op("scatter_reduce", _scatter_reduce, grad_name="ScatterReduceBackward0", promote="none",
                    unlisted=frozenset({1}))
INDEX_SELECT = Op("index_select", _index_select, promote="none", hidden_inputs=1)
INDEX_ADD = Op("index_add", _index_add, promote="none", unlisted=frozenset({1}))
INDEX_COPY = Op("index_copy", _index_copy, promote="none", unlisted=frozenset({1}))
INDEX_FILL = Op("index_fill", _index_fill, promote="none", unlisted=frozenset({1, 2}))
INDEX_FILL_TENSOR = Op("index_fill", _index_fill, grad_name="IndexFillBackward1", promote="none",
                       unlisted=frozenset({1}))
TAKE = Op("take", _take, promote="none", hidden_inputs=1)
MASKED_FILL = Op("masked_fill", _masked_fill, promote="none", unlisted=frozenset({1, 2}))
MASKED_FILL_TENSOR = Op("masked_fill", _masked_fill, grad_name="MaskedFillBackward1", promote="none",
                        unlisted=frozenset({1}))
MASKED_SCATTER = Op("masked_scatter", _masked_scatter, promote="none", unlisted=frozenset({1}))
MASKED_SELECT = Op("masked_select", _masked_select, promote="none", hidden_inputs=1)
TRIL = Op("tril", _tril, saves=SAVES_NOTHING, promote="none")
TRIU = Op("triu", _triu, saves=SAVES_NOTHING, promote="none")
PAD = Op("pad", _pad, grad_name="ConstantPadNdBackward0", promote="none")


@functools.lru_cache(maxsize=None)
def index_op(count: int) -> Op:
    """`x[indices]` with `count` index arrays after x, which PyTorch's IndexBackward0 does not list."""
    return Op("index", _advanced_index, grad_name="IndexBackward0", promote="none", hidden_inputs=count)


@functools.lru_cache(maxsize=None)
def index_put_op(count: int) -> Op:
    """`x[indices] = values` with `count` index arrays after x and the values; PyTorch lists only those two."""
    return Op("index_put", _index_put, grad_name="IndexPutBackward0", promote="none", hidden_inputs=count)
