"""`Distribution`: shapes, argument/sample validation, repr, and the defaults every distribution shares."""
from __future__ import annotations

import warnings
from typing import Any

import pjtorch
from pjtorch.tensor.size import Size
from pjtorch.tensor.tensor import Tensor

from . import constraints
from .utils import lazy_property


class Distribution:
    """Base class; subclasses set `arg_constraints`, `support` and the statistics they have."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    support: Any = None

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turns parameter/sample validation on or off for every distribution made afterwards."""
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: tuple = Size(), event_shape: tuple = Size(),
                 validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            self._check_parameters()

    @property
    def arg_constraints(self) -> dict:
        """Constraint of each parameter, by name; subclasses define it (possibly as `{}`)."""
        raise NotImplementedError

    def _check_parameters(self) -> None:
        try:
            arg_constraints = self.arg_constraints
        except NotImplementedError:
            arg_constraints = {}
            warnings.warn(f"{self.__class__} does not define `arg_constraints`. Please set `arg_constraints = {{}}` "
                          "or initialize the distribution with `validate_args=False` to turn off validation.",
                          stacklevel=3)
        for name, constraint in arg_constraints.items():
            if constraint is constraints.dependent:
                continue
            if name not in self.__dict__ and isinstance(getattr(type(self), name, None), lazy_property):
                continue
            value = getattr(self, name)
            if not constraint.check(value).all():
                raise ValueError(
                    f"Expected parameter {name} ({type(value).__name__} of shape {tuple(value.shape)}) of "
                    f"distribution {self!r} to satisfy the constraint {constraint!r}, but found invalid values:"
                    f"\n{value}")

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: tuple = Size()) -> Size:
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def expand(self, batch_shape: tuple, _instance: Distribution | None = None) -> Distribution:
        """A copy whose public tensor parameters are broadcast to `batch_shape` (their event dims kept); private
        tensors (`_unbroadcasted_scale_tril`) are shared as they are."""
        batch_shape = Size(batch_shape)
        new = _instance if _instance is not None else type(self).__new__(type(self))
        for name, value in self.__dict__.items():
            if isinstance(value, Tensor) and not name.startswith("_"):
                value = value.expand(batch_shape + value.shape[len(self._batch_shape):])
            elif isinstance(value, Distribution):
                value = value.expand(batch_shape + value.batch_shape[len(self._batch_shape):])
            new.__dict__[name] = value
        new._batch_shape = batch_shape
        return new

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def mode(self) -> Tensor:
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()

    def sample(self, sample_shape: tuple = Size()) -> Tensor:
        """Draws without gradient; distributions without rsample override this."""
        with pjtorch.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: tuple = Size()) -> Tensor:
        raise NotImplementedError

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        return self.entropy().exp()

    def _validate_sample(self, value: Any) -> None:
        """Raises ValueError, as PyTorch does, unless `value` fits the shapes and lies in the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dims = len(self._event_shape)
        if tuple(value.shape[value.dim() - event_dims:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} vs "
                             f"{self._event_shape}.")
        actual, expected = value.size(), self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {actual} vs {expected}.")
        support = self.support
        if support is None:
            return
        if not support.check(value).all():
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) to be within the "
                f"support ({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        """Given parameters only: one-element ones by value (`loc: 0.0`), the others by size."""
        params = [(name, self.__dict__[name]) for name in self.arg_constraints if name in self.__dict__]
        args = ", ".join(f"{name}: {value if value.numel() == 1 else value.size()}" for name, value in params)
        return f"{type(self).__name__}({args})"
