"""Geometric(probs | logits): the number of failures before the first success."""
from __future__ import annotations

import pjtorch
from pjtorch.nn import functional as F
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import BinaryProbsLogits, broadcast_all, check_probs_or_logits


class Geometric(BinaryProbsLogits, Distribution):
    """Failures before the first success of Bernoulli(probs) trials; support {0, 1, 2, ...}."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args: bool | None = None) -> None:
        check_probs_or_logits(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        given = self.probs if probs is not None else self.logits
        super().__init__(given.size(), validate_args=validate_args)
        if self._validate_args and probs is not None and not bool((self.probs > 0).all()):
            raise ValueError(f"Expected parameter probs ({type(given).__name__} of shape {tuple(given.shape)}) of "
                             f"distribution {self!r} to be positive but found invalid values:\n"
                             f"{given.detach()[given <= 0]}")

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return pjtorch.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """floor(log u / log(1 - p)) for u uniform on [tiny, 1): inverting the cdf."""
        tiny = pjtorch.finfo(self.probs.dtype).tiny
        with pjtorch.no_grad():
            u = pjtorch.empty(self._extended_shape(sample_shape), dtype=self.probs.dtype,
                              device=self.probs.device).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        certain = (probs == 1) & (value == 0)  # 0 * log(0) failures before a certain success is 0
        return value * (-probs.masked_fill(certain, 0)).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
