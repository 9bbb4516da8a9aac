"""Conv1d, Conv2d and Conv3d, with PyTorch's padding modes and default initialisation."""
from __future__ import annotations

from ...tensor import factories
from ...tensor.tensor import Tensor
from .. import functional as F, init
from .._utils import ntuple
from ..functional.conv import convolution, padding_pairs
from ..parameter import Parameter
from .module import Module

_PADDING_MODES = ("circular", "zeros", "reflect", "replicate")


class _ConvNd(Module):
    """Shared by the N-d convolutions: weight (out, in/groups, *kernel), optional bias, padding mode."""

    _spatial = 0

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__()
        n = self._spatial
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'same', 'valid'}}")
            if padding == "same" and any(s != 1 for s in ntuple(n, stride)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            modes = ", ".join(repr(mode) for mode in _PADDING_MODES)
            raise ValueError(f"padding_mode must be one of {{{modes}}}, but got padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = ntuple(n, kernel_size), ntuple(n, stride)
        self.padding = padding if isinstance(padding, str) else ntuple(n, padding)
        self.dilation = ntuple(n, dilation)
        self.transposed, self.output_padding = False, ntuple(n, 0)
        self.groups, self.padding_mode = groups, padding_mode
        self.weight = Parameter(factories.empty((out_channels, in_channels // groups, *self.kernel_size),
                                                device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(factories.empty(out_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.reset_weight_and_bias_(self.weight, self.bias)

    def forward(self, input: Tensor) -> Tensor:
        padding = self.padding
        if self.padding_mode != "zeros":
            amounts = self._mode_padding(input)
            input = F.pad(input, amounts, mode=self.padding_mode)
            padding = 0
        return convolution(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups,
                           spatial=self._spatial)

    def _mode_padding(self, input: Tensor) -> tuple:
        """F.pad's last-dim-first amounts for a non-zero padding mode."""
        if isinstance(self.padding, str):
            pairs = padding_pairs(self.padding, self.kernel_size, self.stride, self.dilation)
        else:
            pairs = tuple((p, p) for p in self.padding)
        return tuple(amount for low, high in reversed(pairs) for amount in (low, high))

    def extra_repr(self) -> str:
        text = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}")
        if self.padding != (0,) * len(self.padding):
            text += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            text += f", dilation={self.dilation}"
        if self.groups != 1:
            text += f", groups={self.groups}"
        if self.bias is None:
            text += ", bias=False"
        if self.padding_mode != "zeros":
            text += f", padding_mode={self.padding_mode}"
        return text


class Conv1d(_ConvNd):
    _spatial = 1


class Conv2d(_ConvNd):
    _spatial = 2


class Conv3d(_ConvNd):
    _spatial = 3
