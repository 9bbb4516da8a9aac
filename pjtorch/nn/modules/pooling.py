"""Pooling layers: MaxPool, AvgPool, AdaptiveAvgPool, MaxUnpool and FractionalMaxPool over 1-3 spatial dims."""
from __future__ import annotations

from ...tensor.tensor import Tensor
from .. import functional as F
from .._utils import ntuple
from .module import Module


class _MaxPoolNd(Module):
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input: Tensor):
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                    ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    _function = staticmethod(F.max_pool1d)


class MaxPool2d(_MaxPoolNd):
    _function = staticmethod(F.max_pool2d)


class MaxPool3d(_MaxPoolNd):
    _function = staticmethod(F.max_pool3d)


class _AvgPoolNd(Module):
    _function = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                    self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True) -> None:
        """PyTorch keeps AvgPool1d's sizes as 1-tuples (so they print as `(2,)`)."""
        single = lambda v: ntuple(1, v)  # noqa: E731
        super().__init__(single(kernel_size), single(stride if stride is not None else kernel_size),
                         single(padding), ceil_mode, count_include_pad)

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPoolNd):
    _function = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPoolNd):
    _function = staticmethod(F.avg_pool3d)


class _AdaptiveAvgPoolNd(Module):
    _function = None

    def __init__(self, output_size) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return type(self)._function(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_AdaptiveAvgPoolNd):
    _function = staticmethod(F.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_AdaptiveAvgPoolNd):
    _function = staticmethod(F.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_AdaptiveAvgPoolNd):
    _function = staticmethod(F.adaptive_avg_pool3d)


class _MaxUnpoolNd(Module):
    _function, _spatial = None, 0

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size = ntuple(self._spatial, kernel_size)
        self.stride = ntuple(self._spatial, stride if stride is not None else kernel_size)
        self.padding = ntuple(self._spatial, padding)

    def forward(self, input: Tensor, indices: Tensor, output_size=None) -> Tensor:
        return type(self)._function(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _function, _spatial = staticmethod(F.max_unpool1d), 1


class MaxUnpool2d(_MaxUnpoolNd):
    _function, _spatial = staticmethod(F.max_unpool2d), 2


class MaxUnpool3d(_MaxUnpoolNd):
    _function, _spatial = staticmethod(F.max_unpool3d), 3


class _FractionalMaxPoolNd(Module):
    """Fractional max pooling to a fixed output size or ratio; `_random_samples` (a buffer) fixes the windows."""

    _function, _spatial = None, 0

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                 _random_samples: Tensor | None = None) -> None:
        super().__init__()
        n, name = self._spatial, type(self).__name__
        self.kernel_size = ntuple(n, kernel_size)
        self.return_indices = return_indices
        self.register_buffer("_random_samples", _random_samples)
        self.output_size = ntuple(n, output_size) if output_size is not None else None
        self.output_ratio = ntuple(n, output_ratio) if output_ratio is not None else None
        if output_size is None and output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output size, or a pooling ratio")
        if output_size is not None and output_ratio is not None:
            raise ValueError("only one of output_size and output_ratio may be specified")
        if self.output_ratio is not None and not all(0 < r < 1 for r in self.output_ratio[:n]):
            raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

    def forward(self, input: Tensor):
        return type(self)._function(input, self.kernel_size, self.output_size, self.output_ratio,
                                    self.return_indices, _random_samples=self._random_samples)


class FractionalMaxPool2d(_FractionalMaxPoolNd):
    _function, _spatial = staticmethod(F.fractional_max_pool2d), 2


class FractionalMaxPool3d(_FractionalMaxPoolNd):
    _function, _spatial = staticmethod(F.fractional_max_pool3d), 3
