"""Lookups by integer index: embedding and one_hot."""
from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from ... import dispatch
from ...autograd import grad_mode
from ...ops import nn as nn_ops
from ...ops.registry import Op
from ...tensor import dtypes
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
