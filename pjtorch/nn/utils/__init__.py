"""`torch.nn.utils`: gradient clipping, parameter/vector conversion, weight and spectral norm (hook-based and as
parametrizations), BatchNorm fusion, skip_init and the rnn sequence helpers (`prune` is imported on request, as in
PyTorch)."""
from . import fusion, parametrizations, parametrize, rnn
from .clip_grad import clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights
from .init import skip_init
from .spectral_norm import remove_spectral_norm, spectral_norm
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "fuse_conv_bn_eval",
           "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights", "fusion", "get_total_norm",
           "parameters_to_vector", "parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
           "rnn", "skip_init", "spectral_norm", "vector_to_parameters", "weight_norm"]
