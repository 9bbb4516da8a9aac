"""Laplace(loc, scale)."""
from __future__ import annotations

import math
import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .sampling import uniform
from .utils import broadcast_all


class Laplace(Distribution):
    """Double exponential around `loc` with spread `scale`."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return math.sqrt(2) * self.scale

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        # u uniform on (-1, 1), kept off -1 so log1p(-|u|) stays finite.
        eps = pjtorch.finfo(self.loc.dtype).eps
        u = uniform(self._extended_shape(sample_shape), self.loc, eps - 1)
        return self.loc - self.scale * u.sign() * (-u.abs()).log1p()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        centered = value - self.loc
        return 0.5 - 0.5 * centered.sign() * (-centered.abs() / self.scale).expm1()

    def icdf(self, value: Tensor) -> Tensor:
        centered = value - 0.5
        return self.loc - self.scale * centered.sign() * (-2 * centered.abs()).log1p()

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
