"""Attention: scaled_dot_product_attention as one op, and multi_head_attention_forward built on it."""
from __future__ import annotations

import math

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...tensor import dtypes, factories, functions, random
from ...tensor.tensor import Tensor
from .._utils import static
from .linear import linear
from .padding import pad


def _mask_kind(mask: Tensor | None) -> str | None:
    if mask is None:
        return None
    return "bool" if mask.dtype is dtypes.bool else "additive"


def _dropout_draw(shape: tuple, like: Tensor) -> Tensor:
    return random.sample("uniform", shape, like.dtype, like.device, None)


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q kᵀ / √E + mask) v; a bool mask marks positions that take part, a float mask is added."""
    query, key, value = cast_inputs("scaled_dot_product_attention", query, key, value)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True")
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else float(scale)
    groups = query.shape[-3] // key.shape[-3] if enable_gqa and query.ndim > 2 else 1
    extra = () if attn_mask is None else (attn_mask,)
    if dropout_p > 0:
        weights_shape = tuple(query.shape[:-1]) + (key.shape[-2],)
        extra += (_dropout_draw(weights_shape, query),)
    flash = query.ndim == 4 and query.shape[-1] == value.shape[-1] and dropout_p == 0
    kind = "flash" if flash else "matrix" if query.ndim == 2 else "batched"
    return dispatch.apply(nn_ops.SCALED_DOT_PRODUCT_ATTENTION[kind], (query, key, value, *extra), static(
        scale=scale, is_causal=bool(is_causal), mask_kind=_mask_kind(attn_mask), dropout_p=float(dropout_p),
        groups=groups))


def _additive_mask(mask: Tensor | None, name: str, dtype: dtypes.dtype) -> Tensor | None:
    """MultiheadAttention's masks: bool True means 'do not attend'; floats are added to the scores."""
    if mask is None:
        return None
    if mask.dtype is dtypes.bool:
        return factories.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate: tuple | None):
    """q, k, v projections from the packed (3E, E) weight, or from three separate weights."""
    if separate is not None:
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), separate, biases))
    if query is key and key is value:
        return linear(query, in_proj_weight, in_proj_bias).chunk(3, dim=-1)
    weights = in_proj_weight.chunk(3)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int, num_heads: int,
                                 in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
                                 bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                                 training: bool = True, key_padding_mask: Tensor | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | None = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
                                 k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None,
                                 static_k: Tensor | None = None, static_v: Tensor | None = None,
                                 average_attn_weights: bool = True, is_causal: bool = False) -> tuple:
    """PyTorch's MultiheadAttention math on (L, N, E) inputs (or unbatched (L, E)); returns (output, weights)."""
    if static_k is not None or static_v is not None:
        raise NotImplementedError("pjtorch's multi_head_attention_forward does not support static_k/static_v")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer module "
                           "method `generate_square_subsequent_mask` to create this mask.")
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)
    attn_mask = _additive_mask(attn_mask, "attn_mask", q.dtype)
    key_padding_mask = _additive_mask(key_padding_mask, "key_padding_mask", q.dtype)
    if attn_mask is not None and attn_mask.ndim == 2:
        attn_mask = attn_mask.unsqueeze(0)
    if bias_k is not None and bias_v is not None:
        k = functions.cat([k, bias_k.repeat(1, batch, 1)])
        v = functions.cat([v, bias_v.repeat(1, batch, 1)])
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    heads = batch * num_heads
    q = q.reshape(length, heads, head_dim).transpose(0, 1)
    k = k.reshape(k.shape[0], heads, head_dim).transpose(0, 1)
    v = v.reshape(v.shape[0], heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zeros = factories.zeros((heads, 1, head_dim), dtype=k.dtype, device=k.device)
        k, v = functions.cat([k, zeros], dim=1), functions.cat([v, zeros], dim=1)
        attn_mask = None if attn_mask is None else pad(attn_mask, (0, 1))
        key_padding_mask = None if key_padding_mask is None else pad(key_padding_mask, (0, 1))
    source = k.shape[1]
    if key_padding_mask is not None:
        padding = key_padding_mask.reshape(batch, 1, 1, source).expand(-1, num_heads, -1, -1).reshape(
            heads, 1, source)
        attn_mask = padding if attn_mask is None else attn_mask + padding
    dropout_p = dropout_p if training else 0.0
    extra = () if attn_mask is None else (attn_mask,)
    if dropout_p > 0:
        extra += (_dropout_draw((heads, length, source), q),)
    flags = static(scale=1.0 / math.sqrt(head_dim), is_causal=False, mask_kind=_mask_kind(attn_mask),
                   dropout_p=float(dropout_p))
    out, weights = dispatch.apply(nn_ops.ATTENTION_WITH_WEIGHTS, (q, k, v, *extra), flags)
    out = out.transpose(0, 1).reshape(length * batch, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(length, batch, embed_dim)
    if not batched:
        out = out.squeeze(1)
    if not need_weights:
        return out, None
    weights = weights.reshape(batch, num_heads, length, source)
    if average_attn_weights:
        weights = weights.mean(dim=1)
    return out, weights if batched else weights.squeeze(0)
