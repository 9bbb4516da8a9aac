"""Binomial(total_count, probs | logits)."""
from __future__ import annotations

import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .sampling import binomial
from .utils import BinaryProbsLogits, broadcast_all, check_probs_or_logits


class Binomial(BinaryProbsLogits, Distribution):
    """Number of successes in `total_count` independent Bernoulli(probs) trials."""

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        check_probs_or_logits(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        parameter = self.probs if probs is not None else self.logits
        super().__init__(parameter.size(), validate_args=validate_args)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with pjtorch.no_grad():
            return binomial(self.total_count.expand(shape), self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, k = self.total_count, value
        log_binomial = (n + 1).lgamma() - (k + 1).lgamma() - (n - k + 1).lgamma()
        # n * softplus(logits), written so large |logits| neither overflows nor loses precision; max(x, 0) as the
        # mean of its two one-sided forms, so its gradient at 0 is 1/2 (the derivative's value there), as PyTorch's.
        positive_part = (self.logits.clamp(min=0) + self.logits - self.logits.clamp(max=0)) / 2
        log_normalizer = n * positive_part + n * (-self.logits.abs()).exp().log1p()
        return log_binomial + k * self.logits - log_normalizer

    def _homogeneous_count(self, method: str) -> int:
        """The one total_count shared by the batch, which enumerating the support needs."""
        total_count = int(self.total_count.max())
        if not bool((self.total_count == total_count).all()):
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{method}`.")
        return total_count

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = self._homogeneous_count("enumerate_support")
        values = pjtorch.arange(1 + total_count, dtype=self.probs.dtype, device=self.probs.device)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        return values.expand((-1,) + tuple(self._batch_shape)) if expand else values
