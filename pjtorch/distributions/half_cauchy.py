"""HalfCauchy(scale): |Cauchy(0, scale)|."""
from __future__ import annotations

import math

import pjtorch
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .cauchy import Cauchy
from .folded import FoldedAtZero
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform


class HalfCauchy(FoldedAtZero, TransformedDistribution):
    """The Cauchy folded at 0; its parameter lives on `base_dist`, so it prints as `HalfCauchy()`."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), AbsTransform(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return pjtorch.full(self._extended_shape(), math.inf, dtype=self.scale.dtype, device=self.scale.device)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def _as_value(self, value) -> Tensor:
        return pjtorch.as_tensor(value, dtype=self.base_dist.scale.dtype, device=self.base_dist.scale.device)
