"""`torch.nn.functional`: the stateless forms of the layers, losses and activations.

Each function parses PyTorch's signature, checks what PyTorch checks, and runs one op from
`pjtorch.ops.nn` (or `pjtorch.ops.pointwise`) through dispatch, so every result is
differentiable through jax.vjp with no derivative written here.
"""
from .activation import (
    celu, elu, gelu, glu, hardshrink, hardsigmoid, hardswish, hardtanh, leaky_relu, log_softmax, logsigmoid, mish,
    prelu, relu, relu6, relu_, rrelu, selu, sigmoid, silu, softmax, softmin, softplus, softshrink, softsign, tanh,
    tanhshrink, threshold, threshold_,
)
from .attention import multi_head_attention_forward, scaled_dot_product_attention
from .conv import conv1d, conv2d, conv3d, conv_tbc
from .ctc import ctc_loss
from .dropout import dropout, dropout1d, dropout2d
from .fractional import (
    fractional_max_pool2d, fractional_max_pool2d_with_indices, fractional_max_pool3d,
    fractional_max_pool3d_with_indices,
)
from .extra import (
    adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool2d_with_indices, adaptive_max_pool3d,
    adaptive_max_pool3d_with_indices, conv_transpose1d, conv_transpose2d,
    conv_transpose3d, cosine_embedding_loss, fold, gaussian_nll_loss, group_norm, hinge_embedding_loss,
    instance_norm, interpolate, margin_ranking_loss, multi_margin_loss, pairwise_distance, pixel_shuffle,
    pixel_unshuffle, poisson_nll_loss, soft_margin_loss, triplet_margin_loss, unfold, upsample, upsample_bilinear,
    upsample_nearest,
)
from .linear import linear
from .loss import (
    binary_cross_entropy, binary_cross_entropy_with_logits, cosine_similarity, cross_entropy, huber_loss, kl_div,
    l1_loss, mse_loss, nll_loss, smooth_l1_loss,
)
from .more import *  # noqa: F401,F403
from .more import __all__ as _more_all
from .normalization import batch_norm, layer_norm, normalize
from .padding import pad
from .pooling import (
    adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d, avg_pool1d, avg_pool2d, avg_pool3d, max_pool1d,
    max_pool2d, max_pool3d, max_unpool1d, max_unpool2d, max_unpool3d,
)
from .sparse import embedding, embedding_bag, one_hot
from .vision import affine_grid, grid_sample

__all__ = [
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d", "affine_grid", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "batch_norm", "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d", "conv3d", "conv_tbc",
    "cross_entropy", "ctc_loss", "dropout", "dropout1d", "dropout2d", "elu", "embedding", "embedding_bag", "gelu", "grid_sample", "hardsigmoid", "hardswish",
    "hardtanh", "huber_loss", "l1_loss", "layer_norm", "leaky_relu", "linear", "log_softmax", "logsigmoid",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_unpool1d", "max_unpool2d", "max_unpool3d", "mish", "mse_loss", "multi_head_attention_forward", "nll_loss",
    "normalize", "one_hot", "pad", "relu", "relu6", "relu_", "scaled_dot_product_attention", "sigmoid", "silu",
    "smooth_l1_loss", "softmax", "softmin", "softplus", "tanh",
    "celu", "glu", "hardshrink", "prelu", "rrelu", "selu", "softshrink", "softsign", "tanhshrink", "threshold",
    "threshold_", "kl_div", "cosine_similarity",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool2d_with_indices", "adaptive_max_pool3d",
    "adaptive_max_pool3d_with_indices", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "cosine_embedding_loss", "fold", "gaussian_nll_loss", "group_norm", "hinge_embedding_loss", "instance_norm",
    "interpolate", "margin_ranking_loss", "multi_margin_loss", "pairwise_distance", "pixel_shuffle",
    "pixel_unshuffle", "poisson_nll_loss", "soft_margin_loss", "triplet_margin_loss", "unfold", "upsample",
    "upsample_bilinear", "upsample_nearest",
]
__all__ += _more_all
__all__ += ["fractional_max_pool2d", "fractional_max_pool2d_with_indices", "fractional_max_pool3d",
            "fractional_max_pool3d_with_indices"]
