"""`ExponentialFamily`: the base PyTorch gives the families with densities exp(<theta, T(x)> - A(theta))."""
from __future__ import annotations

from .distribution import Distribution


class ExponentialFamily(Distribution):
    """Marks a family as exponential; divergences between two different such families have no closed form here,
    as in PyTorch (see `kl`)."""

    @property
    def _natural_params(self) -> tuple:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        raise NotImplementedError
