"""Gumbel(loc, scale): the distribution of maxima."""
from __future__ import annotations

import math

import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(Distribution):
    """loc - scale * log(-log U) for U uniform on (0, 1)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        """U drawn as PyTorch's Uniform(tiny, 1 - eps) draws it, so a seed gives PyTorch's values."""
        info = pjtorch.finfo(self.loc.dtype)
        low = pjtorch.full((), info.tiny, dtype=self.loc.dtype, device=self.loc.device)
        high = pjtorch.full((), 1 - info.eps, dtype=self.loc.dtype, device=self.loc.device)
        rand = pjtorch.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        u = low + rand * (high - low)
        return self.loc + -self.scale * (-(u.log())).log()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (-(-(value - self.loc) / self.scale).exp()).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc - self.scale * (-value.log()).log()

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + _EULER_GAMMA)
