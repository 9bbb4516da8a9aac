"""Chi2(df): Gamma(df / 2, 1 / 2)."""
from __future__ import annotations

from pjtorch.tensor.tensor import Tensor

from . import constraints
from .gamma import Gamma


class Chi2(Gamma):
    """The sum of `df` squared standard normals; its parameter lives in Gamma's concentration, so it prints as
    `Chi2()`."""

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
