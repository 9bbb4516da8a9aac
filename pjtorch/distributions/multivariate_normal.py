"""MultivariateNormal, parameterized by one of covariance, precision or lower Cholesky factor of covariance."""
from __future__ import annotations

import math

import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .distribution import Distribution
from .utils import lazy_property


def _solve_lower(scale_tril: Tensor, rhs: Tensor) -> Tensor:
    """`scale_tril^-1 @ rhs`, broadcasting the batch dims."""
    return pjtorch.linalg.solve_triangular(scale_tril, rhs, upper=False)


def _half_log_det(scale_tril: Tensor) -> Tensor:
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """Gaussian vector; all work goes through the Cholesky factor `scale_tril` of the covariance."""

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = {name: matrix for name, matrix in (("covariance_matrix", covariance_matrix),
                                                   ("precision_matrix", precision_matrix),
                                                   ("scale_tril", scale_tril)) if matrix is not None}
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        (name, matrix), = given.items()
        if matrix.dim() < 2:
            kind = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{kind} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = pjtorch.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + matrix.shape[-2:]))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)
        # The factor every computation uses, kept at the matrix's own (unbroadcast) batch shape.
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = matrix
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = pjtorch.linalg.cholesky(matrix)
        else:
            self._unbroadcasted_scale_tril = pjtorch.linalg.cholesky(pjtorch.linalg.inv(matrix))

    def _expanded(self, matrix: Tensor) -> Tensor:
        return matrix.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._expanded(self._unbroadcasted_scale_tril)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        return self._expanded(self._unbroadcasted_scale_tril @ self._unbroadcasted_scale_tril.mT)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return self._expanded(pjtorch.cholesky_inverse(self._unbroadcasted_scale_tril))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        eps = pjtorch.randn(self._extended_shape(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self._unbroadcasted_scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff, tril = value - self.loc, self._unbroadcasted_scale_tril
        mahalanobis = _solve_lower(tril.expand(diff.shape[:-1] + tril.shape[-2:]), diff.unsqueeze(-1))
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + mahalanobis.squeeze(-1).pow(2).sum(-1)) - _half_log_det(tril)

    def entropy(self) -> Tensor:
        n = self._event_shape[0]
        entropy = 0.5 * n * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril)
        return entropy.expand(self._batch_shape)
