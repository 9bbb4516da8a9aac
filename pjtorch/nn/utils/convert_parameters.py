"""parameters_to_vector / vector_to_parameters: one flat tensor to and from a module's parameters."""
from __future__ import annotations

from typing import Iterable

from ...tensor import functions
from ...tensor.tensor import Tensor


def _check_device(param: Tensor, device):
    """PyTorch requires every parameter on one device."""
    if device is None:
        return param.device
    if param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not supported.")
    return device


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    device, flat = None, []
    for param in parameters:
        device = _check_device(param, device)
        flat.append(param.view(-1))
    return functions.cat(flat)


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    device, offset = None, 0
    for param in parameters:
        device = _check_device(param, device)
        count = param.numel()
        param.data = vec[offset:offset + count].view_as(param).data
        offset += count
