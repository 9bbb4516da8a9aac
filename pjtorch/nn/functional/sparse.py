"""Lookups by integer index: embedding, embedding_bag and one_hot."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ... import dispatch
from ...autograd import grad_mode
from ...ops import nn as nn_ops
from ...ops.registry import Op
from ...tensor import dtypes, factories
from ...tensor.tensor import Tensor
from .._utils import static


def _host_values(t: Tensor) -> np.ndarray | None:
    """Indices are range-checked where reading them is free (CPU), as PyTorch's CPU kernels check them."""
    return np.asarray(t._value()) if t.device.type == "cpu" and t.numel() else None


@jax.custom_vjp
def _scale_gradient(x, scale):
    return x


_scale_gradient.defvjp(lambda x, scale: (x, scale), lambda scale, g: (g * scale, None))


def _embedding_scaled_by_frequency(weight, indices, padding_idx):
    """embedding whose gradient for each row is divided by how many times `indices` looks that row up."""
    counts = jnp.zeros(weight.shape[0], weight.dtype).at[indices.reshape(-1)].add(1)
    scale = (1 / jnp.maximum(counts, 1))[:, None]
    return nn_ops.EMBEDDING.fn(_scale_gradient(weight, scale), indices, padding_idx)


EMBEDDING_SCALED = Op("embedding", _embedding_scaled_by_frequency, grad_name="EmbeddingBackward0", promote="none")


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of `weight` at `input`; the padding row gets no gradient; max_norm renormalises used rows in place;
    scale_grad_by_freq divides each row's gradient by its count in `input`. With sparse=True the gradient is
    the same values as a dense tensor (pjtorch has no sparse layout)."""
    if input.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{dtypes.LEGACY_NAMES[input.dtype]} instead (while checking "
                           "arguments for embedding)")
    rows = weight.shape[0]
    if padding_idx is not None:
        if not -rows <= padding_idx < rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx % rows
    values = _host_values(input)
    if values is not None and (values.min() < 0 or values.max() >= rows):
        raise IndexError("index out of range in self")
    if max_norm is not None:
        with grad_mode.no_grad():
            dispatch.apply_inplace(nn_ops.EMBEDDING_RENORM, weight, (input,),
                                   static(max_norm=float(max_norm), norm_type=float(norm_type)))
    op = EMBEDDING_SCALED if scale_grad_by_freq else nn_ops.EMBEDDING
    return dispatch.apply(op, (weight, input), static(padding_idx=padding_idx))


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    if tensor.dtype is not dtypes.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    values = np.asarray(tensor._value())
    if num_classes == -1:
        if values.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(values.max()) + 1
    if values.size and values.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if values.size and values.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return dispatch.apply(nn_ops.ONE_HOT, (tensor,), static(num_classes=int(num_classes)))


_BAG_MODES = ("sum", "mean", "max")


def _bag_bounds(input: Tensor, offsets: Tensor | None, per_sample_weights: Tensor | None,
                include_last_offset: bool) -> tuple:
    """(flat indices, flat per-sample weights, [start, end) of every bag as host ints) for 1-D or 2-D input."""
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        flat_weights = None if per_sample_weights is None else per_sample_weights.reshape(-1)
        return input.reshape(-1), flat_weights, np.arange(input.shape[0] + 1) * input.shape[1]
    if input.ndim != 1:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if offsets is None:
        raise ValueError("offsets has to be a 1D Tensor but got None")
    if offsets.ndim != 1:
        raise ValueError("offsets has to be a 1D Tensor")
    starts = np.asarray(offsets._value()).astype(np.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from "
                           f"position 0. However, got {starts[0]}\n[ torch."
                           f"{dtypes.LEGACY_NAMES[dtypes.promote_types(input.dtype, offsets.dtype)]}{{}} ]")
    if starts.size and starts[-1] > input.numel():
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {input.numel()} but got "
                           f"offsets[-1] of {starts[-1]}")
    # with include_last_offset the last offset closes nothing: as on PyTorch's CPU, the last bag runs to the end
    return input, per_sample_weights, np.append(starts[:-1] if include_last_offset else starts, input.numel())


def _bag_reduce(rows, table, sizes, mode):
    """Each bag's rows gathered by `table` (index len(rows) is a fill row past the bag's end) and reduced; max
    takes the first maximum (through argmax), so its gradient goes to one row as PyTorch's does."""
    fill = jnp.full((1, rows.shape[1]), -jnp.inf if mode == "max" else 0, rows.dtype)
    gathered = jnp.concatenate([rows, fill])[table]
    if mode == "max":
        first = jnp.take_along_axis(gathered, jnp.argmax(gathered, 1)[:, None], 1)[:, 0]
        return jnp.where(sizes > 0, first, 0)
    total = gathered.sum(1)
    return total / jnp.maximum(sizes, 1) if mode == "mean" else total


# One op for the reduction, so that the bags' grad_fn is EmbeddingBagBackward0 as PyTorch names it.
BAG_REDUCE = Op("embedding_bag", _bag_reduce, grad_name="EmbeddingBagBackward0", promote="none")


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum, mean or max of the embedding rows of each bag; entries equal to padding_idx are left out of their
    bag, and an empty bag gives zeros. Composed as a lookup and one op that gathers each bag's rows into a padded
    (bags, longest bag, dim) block and reduces it, so gradients follow from those two."""
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it "
                         f"must have the same shape as the input ({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    flat, flat_weights, bounds = _bag_bounds(input, offsets, per_sample_weights, include_last_offset)
    if mode not in _BAG_MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    rows = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq)
    if flat_weights is not None:
        rows = rows * flat_weights.unsqueeze(1)
    count = flat.numel()
    keep = np.ones(count, bool)
    if padding_idx is not None:
        keep = np.asarray(flat._value()).reshape(-1) != padding_idx % weight.shape[0]
    # table[b, j]: position in `rows` of bag b's j-th kept entry, or `count` (an extra fill row) past its end
    members = [np.flatnonzero(keep[start:end]) + start for start, end in zip(bounds[:-1], bounds[1:])]
    longest = max([len(m) for m in members] + [1])
    table = np.full((len(members), longest), count, np.int64)
    for bag, positions in enumerate(members):
        table[bag, :len(positions)] = positions
    sizes = factories.tensor([[len(m)] for m in members], dtype=rows.dtype, device=rows.device)
    return dispatch.apply(BAG_REDUCE, (rows, factories.tensor(table, device=rows.device), sizes), static(mode=mode))
