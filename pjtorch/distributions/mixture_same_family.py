"""MixtureSameFamily(mixture_distribution, component_distribution): a Categorical choice among components of one
family, batched along the components' rightmost batch dim."""
from __future__ import annotations

import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .categorical import Categorical
from .distribution import Distribution


class MixtureSameFamily(Distribution):
    """Draws a component index from `mixture_distribution`, then a value from that component."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical, component_distribution: Distribution,
                 validate_args: bool | None = None) -> None:
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        mixture_batch, component_batch = mixture_distribution.batch_shape, component_distribution.batch_shape[:-1]
        for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
            if size1 != 1 and size2 != 1 and size1 != size2:
                raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not compatible with "
                                 f"`component_distribution.batch_shape`({component_batch})")
        km, kc = mixture_distribution.logits.shape[-1], component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        self._event_ndims = len(component_distribution.event_shape)
        super().__init__(component_batch, component_distribution.event_shape, validate_args=validate_args)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    @property
    def support(self) -> constraints.Constraint:
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mean(self) -> Tensor:
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        return (probs * self._component_distribution.mean).sum(-1 - self._event_ndims)

    @property
    def variance(self) -> Tensor:
        """The law of total variance: the mean of the components' variances plus the variance of their means."""
        probs = self._pad_mixture_dimensions(self._mixture_distribution.probs)
        dim = -1 - self._event_ndims
        mean_of_variances = (probs * self._component_distribution.variance).sum(dim)
        spread = (self._component_distribution.mean - self._pad(self.mean)).pow(2)
        return mean_of_variances + (probs * spread).sum(dim)

    def cdf(self, x: Tensor) -> Tensor:
        x = self._pad(x)
        return (self._component_distribution.cdf(x) * self._mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self._component_distribution.log_prob(self._pad(x))
        log_mix_prob = self._mixture_distribution.logits.log_softmax(-1)
        return (log_prob_x + log_mix_prob).logsumexp(-1)

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """The mixture's draws first, then every component's (PyTorch's order, so a seed gives its values)."""
        with pjtorch.no_grad():
            sample_shape = Size(sample_shape)
            gather_dim = len(sample_shape) + len(self.batch_shape)
            event_shape = tuple(self.event_shape)
            picks = self._mixture_distribution.sample(sample_shape)
            samples = self._component_distribution.sample(sample_shape)
            index = picks.reshape(tuple(picks.shape) + (1,) * (len(event_shape) + 1))
            index = index.repeat((1,) * picks.dim() + (1,) + event_shape)
            return samples.gather(gather_dim, index).squeeze(gather_dim)

    def expand(self, batch_shape: tuple, _instance: Distribution | None = None) -> Distribution:
        batch_shape = Size(batch_shape)
        new = type(self).__new__(type(self))
        new._component_distribution = self._component_distribution.expand(batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(batch_shape)
        new._num_component, new._event_ndims = self._num_component, self._event_ndims
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _pad(self, x: Tensor) -> Tensor:
        return x.unsqueeze(-1 - self._event_ndims)

    def _pad_mixture_dimensions(self, x: Tensor) -> Tensor:
        """The mixture weights shaped to broadcast against the components' batch and event dims."""
        mixture_ndims = len(self._mixture_distribution.batch_shape)
        pad_ndims = 0 if mixture_ndims == 1 else len(self.batch_shape) - mixture_ndims
        return x.reshape(tuple(x.shape[:-1]) + (1,) * pad_ndims + tuple(x.shape[-1:]) + (1,) * self._event_ndims)

    def __repr__(self) -> str:
        return f"MixtureSameFamily(\n  {self._mixture_distribution},\n  {self._component_distribution})"
