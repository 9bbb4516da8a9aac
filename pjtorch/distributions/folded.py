"""What HalfNormal and HalfCauchy share: |X| for X of a distribution symmetric about 0, held as `base_dist`."""
from __future__ import annotations

import math

import pjtorch
from pjtorch.tensor.tensor import Tensor


class FoldedAtZero:
    """Twice the base's density and probability above 0, nothing below. A subclass's `_as_value` converts what
    `log_prob` is given before the base reads it."""

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return pjtorch.zeros_like(self.scale)

    def _as_value(self, value):
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = self._as_value(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return pjtorch.where(value >= 0, log_prob, -math.inf)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)
