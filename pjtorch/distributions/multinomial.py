"""Multinomial(total_count, probs | logits): counts of `total_count` Categorical draws."""
from __future__ import annotations

import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all


class Multinomial(Distribution):
    """How often each of the categories comes up in `total_count` draws; the parameters live on the inner
    Categorical, so it prints as `Multinomial()`."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    @property
    def support(self) -> constraints.Constraint:
        return constraints.multinomial(self.total_count)

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """`total_count` Categorical draws (in PyTorch's order, so a seed gives its counts), tallied."""
        draws = self._categorical.sample(Size((self.total_count,)) + Size(sample_shape))
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = pjtorch.zeros(self._extended_shape(sample_shape), dtype=draws.dtype, device=draws.device)
        return counts.scatter_add_(-1, draws, pjtorch.ones_like(draws)).type_as(self.probs)

    def log_prob(self, value: Tensor) -> Tensor:
        """log n! - sum log x_i! + sum x_i log p_i, where a category never seen may have probability 0."""
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        logits = logits.masked_fill((value == 0) & (logits == -float("inf")), 0)
        return (value.sum(-1) + 1).lgamma() - (value + 1).lgamma().sum(-1) + (logits * value).sum(-1)

    def entropy(self) -> Tensor:
        """n H(categorical) - log n! + E[sum log x_i!], the last from each category's Binomial count."""
        n = pjtorch.tensor(float(self.total_count))
        support = self._binomial.enumerate_support()
        weights = (support + 1).lgamma()
        expected = (self._binomial.log_prob(support).exp() * weights).sum([0, -1])
        return n * self._categorical.entropy() - (n + 1).lgamma() + expected

    def expand(self, batch_shape: tuple, _instance: Distribution | None = None) -> Distribution:
        new = type(self).__new__(type(self))
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = self._binomial.expand(batch_shape + self._event_shape)
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new
