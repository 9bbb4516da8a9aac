"""Reading and writing a strided window of a flat buffer, as pure JAX functions.

A view is PyTorch's (shape, stride, offset) over its base's row-major buffer. Reads lower to
slices, reshapes and a transpose where the layout allows (every non-overlapping layout does),
so XLA sees cheap data movement rather than a gather; writes scatter at the view's positions.
"""
from __future__ import annotations

import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from .registry import TRACE_COUNTS


@functools.lru_cache(maxsize=4096)
def contiguous_strides(shape: tuple) -> tuple:
    strides, running = [], 1
    for size in reversed(shape):
        strides.append(running)
        running *= max(size, 1)
    return tuple(reversed(strides))


@functools.lru_cache(maxsize=4096)
def elementwise_strides(shape: tuple, operands: tuple) -> tuple:
    """The strides PyTorch gives an elementwise result of `shape` from its operands' (shape, stride): dims ordered
    from fastest to slowest as the operands' strides order them (the first operand that tells two dims apart
    decides; a broadcast dim, or one of size 1, tells nothing; equal strides put the smaller dim first), then
    packed densely. Operands all contiguous and of the result's shape give a contiguous result (PyTorch's fast
    path, which ignores the strides of size-1 dims)."""
    ndim = len(shape)
    if 0 in shape or all(tuple(op_shape) == shape and _is_contiguous(op_shape, op_stride)
                         for op_shape, op_stride in operands):
        return contiguous_strides(shape)
    aligned = []
    for operand_shape, operand_stride in operands:
        lead = ndim - len(operand_shape)
        aligned.append(tuple(0 if d < lead or (operand_shape[d - lead] == 1 and shape[d] != 1)
                             else operand_stride[d - lead] for d in range(ndim)))

    def order(first: int, second: int) -> int:
        """1 when `first` should come after `second` (be slower), -1 before, 0 when no operand tells."""
        for strides in aligned:
            a, b = strides[first], strides[second]
            if a == 0 or b == 0:
                continue
            if a != b:
                return -1 if a < b else 1
            if shape[first] > shape[second]:
                return 1
        return 0

    perm = list(reversed(range(ndim)))  # fastest first
    for i in range(1, ndim):
        moving = i
        for j in range(i - 1, -1, -1):
            comparison = order(perm[j], perm[moving])
            if comparison > 0:
                perm[j], perm[moving] = perm[moving], perm[j]
                moving = j
            elif comparison < 0:
                break
    result, running = [0] * ndim, 1
    for d in perm:
        result[d] = running
        running *= shape[d]
    return tuple(result)


def _is_contiguous(shape: tuple, stride: tuple) -> bool:
    """PyTorch's is_contiguous: row-major, ignoring the strides of size-1 dims."""
    expected = 1
    for size, step in zip(reversed(shape), reversed(stride)):
        if size != 1 and step != expected:
            return False
        expected *= size
    return True


def is_dense(shape: tuple, stride: tuple) -> bool:
    """PyTorch's is_non_overlapping_and_dense: the strides are contiguous ones of some order of the dims."""
    expected = 1
    for step, size in sorted((step, size) for size, step in zip(shape, stride) if size != 1):
        if step != expected:
            return False
        expected *= size
    return True


def partially_overlap(a: tuple, b: tuple) -> bool:
    """Whether two (shape, stride, offset) layouts over one buffer share some elements without being the same
    window, as PyTorch's get_overlap_status sees it: only dense layouts are judged (others are "too hard")."""
    (a_shape, a_stride, a_offset), (b_shape, b_stride, b_offset) = a, b
    a_size, b_size = math.prod(a_shape), math.prod(b_shape)
    if not a_size or not b_size or not (is_dense(a_shape, a_stride) and is_dense(b_shape, b_stride)):
        return False
    if a_offset == b_offset and a_size == b_size:
        return False  # the same elements: a full overlap, which elementwise ops handle
    return a_offset < b_offset + b_size and b_offset < a_offset + a_size


def positions(shape: tuple, stride: tuple, offset: int) -> np.ndarray:
    """The flat buffer index of every element of the view, in row-major order."""
    index = np.full(shape, offset, dtype=np.int64)
    for dim, (size, step) in enumerate(zip(shape, stride)):
        axis_shape = [1] * len(shape)
        axis_shape[dim] = size
        index = index + (np.arange(size, dtype=np.int64) * step).reshape(axis_shape)
    return index


def _slice_plan(shape: tuple, stride: tuple):
    """Dims ordered by decreasing stride, if they nest without overlap; else None."""
    moving = [d for d in range(len(shape)) if shape[d] > 1 and stride[d] != 0]
    order = sorted(moving, key=lambda d: -stride[d])
    inner_extent = 1
    for d in reversed(order):
        if stride[d] < inner_extent:
            return None
        inner_extent += (shape[d] - 1) * stride[d]
    return order


def read(base, offset=0, *, shape: tuple, stride: tuple):
    """The view's values, given its base's array (any shape; its row-major buffer is what counts).

    `offset` may be a runtime value, so views differing only in where they start share one
    compiled read (`x[i]` in a loop compiles once)."""
    flat = base.reshape(-1)
    if math.prod(shape) == 0:
        return jnp.zeros(shape, flat.dtype)
    order = _slice_plan(shape, stride)
    if order is None:
        return flat[positions(shape, stride, 0) + offset]
    extent = 1 + sum((shape[d] - 1) * stride[d] for d in order)
    block = jax.lax.dynamic_slice(flat, (offset,), (extent,))
    for d in order:
        need = shape[d] * stride[d]
        block = _fit_last_axis(block, need).reshape(block.shape[:-1] + (shape[d], stride[d]))
    if order:
        block = jnp.transpose(block[..., 0], np.argsort(order))
    else:
        block = block[:1].reshape(())
    expanded = block.reshape(tuple(shape[d] if d in order else 1 for d in range(len(shape))))
    return jnp.broadcast_to(expanded, shape)


def _fit_last_axis(block, length: int):
    """Cut or zero-pad the last axis to `length` (padding is never selected by a non-overlapping view)."""
    have = block.shape[-1]
    if have >= length:
        return block[..., :length]
    pad = [(0, 0)] * (block.ndim - 1) + [(0, length - have)]
    return jnp.pad(block, pad)


def write(base, values, offset=0, *, shape: tuple, stride: tuple):
    """The base's array with the view's positions set to `values` (broadcast to the view's shape)."""
    flat = base.reshape(-1)
    if math.prod(shape) == 0:
        return base
    index = positions(shape, stride, 0).reshape(-1) + offset
    filled = jnp.broadcast_to(values.astype(flat.dtype), shape).reshape(-1)
    return flat.at[index].set(filled, unique_indices=True).reshape(base.shape)


@functools.lru_cache(maxsize=None)
def compiled_read(shape: tuple, stride: tuple):
    """Compiled `(base, offset) -> view values` for one view shape and stride."""
    return jax.jit(_counted("strided.read", functools.partial(read, shape=shape, stride=stride)))


class ViewRead:
    """A view's read as a kernel a deferred value can hold (`fn` to trace into a larger program, `jit` to run
    alone): `(storage array, offset) -> view values`."""

    __slots__ = ("fn", "jit", "shape")

    def __init__(self, shape: tuple, stride: tuple) -> None:
        self.shape = shape
        self.fn = functools.partial(read, shape=shape, stride=stride)
        self.jit = compiled_read(shape, stride)


@functools.lru_cache(maxsize=None)
def read_kernel(shape: tuple, stride: tuple) -> ViewRead:
    return ViewRead(tuple(shape), tuple(stride))


@functools.lru_cache(maxsize=None)
def compiled_write(shape: tuple, stride: tuple):
    """Compiled `(base, values, offset) -> new base` for one view shape and stride."""
    return jax.jit(_counted("strided.write", functools.partial(write, shape=shape, stride=stride)))


def _counted(name: str, fn):
    """`fn`, counting its traces in TRACE_COUNTS as the op kernels do."""
    def traced(*arrays):
        TRACE_COUNTS[name] += 1
        return fn(*arrays)

    return traced
