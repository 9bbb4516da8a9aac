"""Helpers shared by the distributions: parameter broadcasting, probs/logits conversion, cached properties."""
from __future__ import annotations

import numbers
from typing import Any, Callable

import pjtorch
from pjtorch.tensor.tensor import Tensor


def broadcast_all(*values: Any) -> tuple:
    """Numbers become tensors of the tensors' dtype (default dtype if none), then all broadcast together."""
    tensors = [v for v in values if isinstance(v, Tensor)]
    dtype = tensors[0].dtype if tensors else pjtorch.get_default_dtype()
    device = tensors[0].device if tensors else None
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of Number, torch.Tensor or objects "
                             "implementing __torch_function__.")
    as_tensors = [v if isinstance(v, Tensor) else pjtorch.tensor(v, dtype=dtype, device=device) for v in values]
    return tuple(pjtorch.broadcast_tensors(*as_tensors))


def check_probs_or_logits(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def clamp_probs(probs: Tensor) -> Tensor:
    """Keeps probabilities strictly inside (0, 1) so their logs stay finite."""
    eps = pjtorch.finfo(probs.dtype).eps
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    clamped = clamp_probs(probs)
    return clamped.log() - (-clamped).log1p() if is_binary else clamped.log()


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    return logits.sigmoid() if is_binary else logits.softmax(-1)


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sums the `dim` rightmost dimensions (event dims reinterpreted from batch dims)."""
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1) if dim > 0 else value


class lazy_property:
    """Computed on first access and stored in the instance `__dict__` (so it then counts as a given parameter)."""

    def __init__(self, compute: Callable) -> None:
        self.compute = compute
        self.__doc__ = compute.__doc__

    def __get__(self, instance: Any, owner: type | None = None) -> Any:
        if instance is None:
            return self
        with pjtorch.enable_grad():
            value = self.compute(instance)
        instance.__dict__[self.compute.__name__] = value
        return value


class BinaryProbsLogits:
    """The `probs` and `logits` of a two-outcome parameter (Bernoulli, Binomial), each derived from the other on
    first use."""

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)
