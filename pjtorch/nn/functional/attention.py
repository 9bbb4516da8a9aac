"""Attention: scaled_dot_product_attention as one op, and multi_head_attention_forward built on it."""
from __future__ import annotations

import math
import warnings

from ... import dispatch
from ...amp.autocast_mode import cast_inputs
from ...ops import nn as nn_ops
from ...tensor import dtypes, factories, functions, random
from ...tensor.tensor import Tensor
from .. import attention
from .._utils import static
from ..attention import SDPBackend
from .linear import linear
from .padding import pad


def _mask_kind(mask: Tensor | None) -> str | None:
    if mask is None:
        return None
    return "bool" if mask.dtype is dtypes.bool else "additive"


def _dropout_draw(shape: tuple, like: Tensor) -> Tensor:
    """The 53-bit draws of PyTorch's dropout mask (kept where below 1 - p)."""
    return random.sample("uniform", shape, dtypes.float64, like.device, None)


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
    flash = _uses_flash(_flash_obstacle(query, key, value, dropout_p))
    kind = "flash" if flash else "matrix" if query.ndim == 2 else "batched"
    return dispatch.apply(nn_ops.SCALED_DOT_PRODUCT_ATTENTION[kind], (query, key, value, *extra), static(
        scale=scale, is_causal=bool(is_causal), mask_kind=_mask_kind(attn_mask), dropout_p=float(dropout_p),
        groups=groups))


def _flash_obstacle(query: Tensor, key: Tensor, value: Tensor, dropout_p: float) -> str | None:
    """Why PyTorch's CPU flash kernel cannot take these inputs (its first failed check, in its words), or None."""
    if dropout_p > 0:
        return "Both fused kernels do not support non-zero dropout. (Triggered internally at " \
            "/__w/pytorch/pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp.h:241.)"
    if not query.ndim == key.ndim == value.ndim == 4:
        return "All fused kernels requires query, key and value to be 4 dimensional, but got Query dim: " \
            f"{query.ndim}, Key dim: {key.ndim}, Value dim: {value.ndim} instead. (Triggered internally at " \
            "/__w/pytorch/pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp.h:327.)"
    if not query.shape[-1] == key.shape[-1] == value.shape[-1]:
        return "Flash attention requires q,k,v to have the same last dimension. Got Query.size(-1): " \
            f"{query.shape[-1]}, Key.size(-1): {key.shape[-1]}, Value.size(-1): {value.shape[-1]} instead. " \
            "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp.cpp:21.)"
    return None


def _uses_flash(obstacle: str | None) -> bool:
    """PyTorch's CPU choice: its flash kernel where nothing stands in the way and it is enabled, else the math
    one if enabled; otherwise its warnings and error."""
    if not (attention.enabled(SDPBackend.MATH) or attention.enabled(SDPBackend.FLASH_ATTENTION)):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This is likely due to "
                           "turning off both the math kernel and the fused kernels.")
    if obstacle is None and attention.enabled(SDPBackend.FLASH_ATTENTION):
        return True
    if attention.enabled(SDPBackend.MATH):
        return False
    warnings.warn("Flash attention kernel not used because: (Triggered internally at "
                  "/__w/pytorch/pytorch/aten/src/ATen/native/transformers/sdp_utils_cpp.cpp:99.)", stacklevel=3)
    warnings.warn(obstacle, stacklevel=3)
    raise RuntimeError("No available kernel.  Aborting execution.")


def _additive_mask(mask: Tensor | None, name: str, dtype: dtypes.dtype) -> Tensor | None:
    """MultiheadAttention's masks: bool True means 'do not attend'; floats are added to the scores."""
    if mask is None:
        return None
    if mask.dtype is dtypes.bool:
        return factories.zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def canonical_masks(padding: Tensor | None, padding_name: str, mask: Tensor | None, mask_name: str,
                    dtype: dtypes.dtype) -> tuple:
    """(padding, mask) as additive float masks; like PyTorch, warns when both are given with different dtypes."""
    additive_padding = _additive_mask(padding, padding_name, dtype)
    if padding is not None and mask is not None and padding.dtype != mask.dtype:
        warnings.warn(f"Support for mismatched {padding_name} and {mask_name} is deprecated. Use same type for "
                      "both instead.", stacklevel=2)
    return additive_padding, _additive_mask(mask, mask_name, dtype)


def _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate: tuple | None):
    """q, k, v projections from the packed (3E, E) weight, or from three separate weights."""
    if separate is not None:
        sizes = (query.shape[-1], key.shape[-1], value.shape[-1])
        for name, weight, size in zip(("query", "key", "value"), separate, sizes):
            if tuple(weight.shape) != (sizes[0], size):
                raise AssertionError(f"expecting {name} weights shape of {(sizes[0], size)}, but got {weight.shape}")
        biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
        return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), separate, biases))
    if query is key and key is value:
        return linear(query, in_proj_weight, in_proj_bias).chunk(3, dim=-1)
    weights = in_proj_weight.chunk(3)
    biases = (None,) * 3 if in_proj_bias is None else in_proj_bias.chunk(3)
    return tuple(linear(x, w, b) for x, w, b in zip((query, key, value), weights, biases))


def _check_ranks(query: Tensor, key: Tensor, value: Tensor, key_padding_mask: Tensor | None,
                 attn_mask: Tensor | None, num_heads: int) -> None:
    """PyTorch's checks of the ranks of the inputs and masks, batched (3-D query) or not (2-D)."""
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                             "tensor")
    kind = "batched (3-D)" if query.ndim == 3 else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None and attn_mask.ndim not in (2, 3):
        raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                             f"{attn_mask.ndim}-D tensor instead")
    if query.ndim == 2 and attn_mask is not None and attn_mask.ndim == 3:
        expected = (num_heads, query.shape[0], key.shape[0])
        if tuple(attn_mask.shape) != expected:
            raise AssertionError(f"Expected `attn_mask` shape to be {expected} but got {attn_mask.shape}")


def _batched_attn_mask(attn_mask: Tensor | None, heads: int, length: int, source: int) -> Tensor | None:
    """The attention mask as (1 or batch * heads, L, S), after checking its shape."""
    if attn_mask is None:
        return None
    if attn_mask.ndim == 2:
        if tuple(attn_mask.shape) != (length, source):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should be "
                               f"{(length, source)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.ndim == 3:
        if tuple(attn_mask.shape) != (heads, length, source):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should be "
                               f"{(heads, length, source)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")


def _check_padding_mask(key_padding_mask: Tensor, batch: int, source: int) -> None:
    for dim, size in enumerate((batch, source)):
        if key_padding_mask.shape[dim] != size:
            raise AssertionError(f"Expected key_padded_mask.shape[{dim}] to be {size}, but got "
                                 f"{key_padding_mask.shape[dim]}")


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
    _check_ranks(query, key, value, key_padding_mask, attn_mask, num_heads)
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
    length, batch, embed_dim = query.shape
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight and key.shape[:2] != value.shape[:2]:
        raise AssertionError(f"key's sequence and batch dims {key.shape[:2]} do not match value's {value.shape[:2]}")
    if not use_separate_proj_weight and key.shape != value.shape:
        raise AssertionError(f"key shape {key.shape} does not match value shape {value.shape}")
    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight else None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)
    key_padding_mask, attn_mask = canonical_masks(key_padding_mask, "key_padding_mask", attn_mask, "attn_mask",
                                                  query.dtype)
    attn_mask = _batched_attn_mask(attn_mask, batch * num_heads, length, key.shape[0])
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
        _check_padding_mask(key_padding_mask, batch, source)
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
