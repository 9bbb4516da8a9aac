"""`torch.nn.init`: in-place initialisers with PyTorch's fan computations and gains.

Each runs under no_grad (so it may fill a parameter) and draws from the given generator or the
default one. The distributions are PyTorch's; the random streams are pjtorch's own.
"""
from __future__ import annotations

import math
from typing import Callable
import warnings

from ..autograd import grad_mode
from .. import linalg
from ..tensor import factories, functions, random
from ..tensor.tensor import Tensor

_LINEAR_GAIN_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                    "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The factor that keeps activations' variance stable through `nonlinearity`."""
    if nonlinearity in _LINEAR_GAIN_FNS:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive_field = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field, tensor.shape[0] * receptive_field


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    with grad_mode.no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    with grad_mode.no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """Normal(mean, std) restricted to [a, b], drawn as PyTorch draws it (so seeded streams agree): normal draws
    redrawn where out of bounds when [a, b] holds over 30% of the mass, else uniform proposals on [a, b] accepted
    by the density ratio."""
    def cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.")
    with grad_mode.no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            _redraw_normal(tensor, mean, std, a, b, generator)
        else:
            _accept_uniform(tensor, mean, std, a, b, generator)
        return tensor


def _redraw_normal(tensor: Tensor, mean: float, std: float, a: float, b: float, generator) -> None:
    """Normal draws, the out-of-bounds ones (bounds rounded to the tensor's dtype) redrawn until none is left."""
    low, high = tensor.new_tensor(a, device="cpu").item(), tensor.new_tensor(b, device="cpu").item()
    result = tensor.normal_(mean, std, generator=generator)
    while True:
        outside = (result < low) | (result > high)
        if not outside.any():
            break
        result = functions.where(outside, factories.empty_like(result).normal_(mean, std, generator=generator),
                                 result)
    if result is not tensor:
        tensor.copy_(result)


def _accept_uniform(tensor: Tensor, mean: float, std: float, a: float, b: float, generator) -> None:
    """Uniform proposals on [a, b], each kept when log(u) <= its log density below the peak; the rejected ones
    are proposed again, in PyTorch's order of draws."""
    mode = max(a, min(mean, b))
    log_peak = -0.5 * ((mode - mean) / std) ** 2

    def rejected(candidates: Tensor) -> Tensor:
        log_density = candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
        return factories.empty_like(tensor).uniform_(generator=generator).log_().gt(log_density)

    tensor.uniform_(a, b, generator=generator)
    pending = rejected(tensor.clone())
    result = tensor
    while pending.any():
        candidates = factories.empty_like(tensor).uniform_(a, b, generator=generator)
        result = functions.where(pending, candidates, result)
        pending = functions.where(pending, rejected(candidates), pending)
    if result is not tensor:
        tensor.copy_(result)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with grad_mode.no_grad():
        return tensor.fill_(val)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0.0)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor: Tensor, a: float, mode: str, nonlinearity: str) -> float | None:
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return None
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    std = _kaiming_std(tensor, a, mode, nonlinearity)
    if std is None:
        return tensor
    return normal_(tensor, 0.0, std, generator)


def reset_weight_and_bias_(weight: Tensor, bias: Tensor | None) -> None:
    """PyTorch's default for Linear and Conv layers: kaiming_uniform_(a=sqrt(5)) and bias ~ U(+-1/sqrt(fan_in)),
    drawn as U(0, 0) (still a draw from the generator) where the weight has no inputs."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)


def orthogonal_(tensor: Tensor, gain: float = 1, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix over dim 0 vs the rest: Q of a Gaussian matrix's QR, signs fixed by R's diagonal."""
    if tensor.ndimension() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with grad_mode.no_grad():
        flattened = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator)
        q, r = linalg.qr(flattened.t() if rows < cols else flattened)
        q = q * r.diagonal().sign()
        q = q.t() if rows < cols else q
        tensor.view_as(q).copy_(q)
        return tensor.mul_(gain)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with grad_mode.no_grad():
        return tensor.copy_(factories.eye(*tensor.shape, dtype=tensor.dtype))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """The identity convolution: a 1 at the kernel centre linking output channel d (per group) to input d."""
    if tensor.ndimension() not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = sizes[0] // groups
    centre = tuple(size // 2 for size in sizes[2:])
    with grad_mode.no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, sizes[1])):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def sparse_(tensor: Tensor, sparsity: float, std: float = 0.01, generator=None) -> Tensor:
    """N(0, std) entries with ceil(sparsity * rows) random ones zeroed in every column."""
    if tensor.ndimension() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with grad_mode.no_grad():
        tensor.normal_(0, std, generator=generator)
        for col in range(cols):
            tensor[random.randperm(rows, generator=generator)[:num_zeros], col] = 0
    return tensor


def _deprecated(new: Callable) -> Callable:
    """PyTorch's old names without the trailing underscore, which still work but warn."""
    old = new.__name__[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.", FutureWarning,
                      stacklevel=2)
        return new(*args, **kwargs)

    deprecated_init.__name__ = old
    return deprecated_init


uniform, normal, constant = _deprecated(uniform_), _deprecated(normal_), _deprecated(constant_)
eye, dirac, orthogonal, sparse = _deprecated(eye_), _deprecated(dirac_), _deprecated(orthogonal_), _deprecated(sparse_)
xavier_uniform, xavier_normal = _deprecated(xavier_uniform_), _deprecated(xavier_normal_)
kaiming_uniform, kaiming_normal = _deprecated(kaiming_uniform_), _deprecated(kaiming_normal_)
