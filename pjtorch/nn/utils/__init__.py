"""`torch.nn.utils`: gradient clipping, parameter/vector conversion, weight_norm and the rnn sequence helpers."""
from . import rnn
from .clip_grad import clip_grad_norm_, clip_grad_value_
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .weight_norm import remove_weight_norm, weight_norm

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "remove_weight_norm", "rnn", "vector_to_parameters", "weight_norm"]
