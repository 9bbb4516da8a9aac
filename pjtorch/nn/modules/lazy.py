"""Lazy layers: the input size is left open until the first forward, which materialises the parameters,
initialises them and turns the module into its eager class (LazyLinear -> Linear)."""
from __future__ import annotations

import itertools

from ...autograd import grad_mode
from ...tensor import dtypes, factories
from ...tensor.tensor import Tensor
from ..parameter import UninitializedBuffer, UninitializedParameter, is_lazy
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .conv import Conv1d, Conv2d, Conv3d
from .extra import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .linear import Linear

__all__ = ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
           "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d",
           "LazyInstanceNorm2d", "LazyInstanceNorm3d", "LazyLinear", "LazyModuleMixin"]


class LazyModuleMixin:
    """Runs `initialize_parameters(*args)` in a forward pre-hook once, then becomes `cls_to_become`."""

    cls_to_become: type | None = None
    _size_attr: str  # the attribute the input determines; 0 until it does

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._initialize_hook = self.register_forward_pre_hook(self._infer_parameters, with_kwargs=True)

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(), self._buffers.values()))

    def initialize_parameters(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def _infer_parameters(self, module, args: tuple, kwargs: dict | None = None) -> None:
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {self._get_name()} has not been fully initialized")
        module._initialize_hook.remove()
        delattr(module, "_initialize_hook")
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        """Placeholders are saved as they are (they have no data to detach)."""
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            if value is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = value if keep_vars or is_lazy(value) else value.detach()

    def _load_from_state_dict(self, state_dict: dict, prefix: str, *args) -> None:
        """Loading real tensors gives the placeholders their shapes first (PyTorch's lazy load hook)."""
        for name, value in itertools.chain(self._parameters.items(), self._buffers.items()):
            incoming = state_dict.get(prefix + name)
            if value is not None and is_lazy(value) and incoming is not None and not is_lazy(incoming):
                with grad_mode.no_grad():
                    value.materialize(incoming.shape)
        super()._load_from_state_dict(state_dict, prefix, *args)

    def reset_parameters(self) -> None:
        """Nothing to initialise while the shapes are unknown."""
        if not self.has_uninitialized_params() and getattr(self, self._size_attr) != 0:
            super().reset_parameters()


class LazyLinear(LazyModuleMixin, Linear):
    cls_to_become = Linear
    _size_attr = "in_features"

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None) -> None:
        super().__init__(0, 0, False)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            with grad_mode.no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


class _LazyConvNd(LazyModuleMixin):
    """The convolution's in_channels is read from the input's channel dim (dim 0 for unbatched input)."""

    _size_attr = "in_channels"

    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, dilation=1, groups: int = 1,
                 bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode)
        self._placeholders(out_channels, bias, device, dtype)

    def _placeholders(self, out_channels: int, bias: bool, device, dtype) -> None:
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def initialize_parameters(self, input: Tensor, *args, **kwargs) -> None:
        if self.has_uninitialized_params():
            self.in_channels = input.shape[0 if input.dim() == self._spatial + 1 else 1]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            with grad_mode.no_grad():
                channels = (self.in_channels, self.out_channels // self.groups) if self.transposed else \
                    (self.out_channels, self.in_channels // self.groups)
                self.weight.materialize((*channels, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class LazyConv1d(_LazyConvNd, Conv1d):
    cls_to_become = Conv1d


class LazyConv2d(_LazyConvNd, Conv2d):
    cls_to_become = Conv2d


class LazyConv3d(_LazyConvNd, Conv3d):
    cls_to_become = Conv3d


class _LazyConvTransposeNd(_LazyConvNd):
    def __init__(self, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0, groups: int = 1,
                 bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None) -> None:
        super(_LazyConvNd, self).__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                                          dilation, padding_mode)
        self._placeholders(out_channels, bias, device, dtype)


class LazyConvTranspose1d(_LazyConvTransposeNd, ConvTranspose1d):
    cls_to_become = ConvTranspose1d


class LazyConvTranspose2d(_LazyConvTransposeNd, ConvTranspose2d):
    cls_to_become = ConvTranspose2d


class LazyConvTranspose3d(_LazyConvTransposeNd, ConvTranspose3d):
    cls_to_become = ConvTranspose3d


class _LazyNormBase(LazyModuleMixin):
    """num_features is read from the input's dim 1."""

    _size_attr = "num_features"

    def __init__(self, eps: float = 1e-5, momentum: float | None = 0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None, *, bias: bool = True) -> None:
        super().__init__(0, eps, momentum, False, False, bias=False)
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = UninitializedParameter(device=device, dtype=dtype)
            if bias:
                self.bias = UninitializedParameter(device=device, dtype=dtype)
        if track_running_stats:
            self.running_mean = UninitializedBuffer(device=device, dtype=dtype)
            self.running_var = UninitializedBuffer(device=device, dtype=dtype)
            self.num_batches_tracked = factories.tensor(0, dtype=dtypes.int64, device=device)

    def initialize_parameters(self, input: Tensor) -> None:
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            with grad_mode.no_grad():
                for name in ("weight", "bias", "running_mean", "running_var"):
                    if getattr(self, name) is not None and is_lazy(getattr(self, name)):
                        getattr(self, name).materialize((self.num_features,))
                self.reset_parameters()


class LazyBatchNorm1d(_LazyNormBase, BatchNorm1d):
    cls_to_become = BatchNorm1d


class LazyBatchNorm2d(_LazyNormBase, BatchNorm2d):
    cls_to_become = BatchNorm2d


class LazyBatchNorm3d(_LazyNormBase, BatchNorm3d):
    cls_to_become = BatchNorm3d


class LazyInstanceNorm1d(_LazyNormBase, InstanceNorm1d):
    cls_to_become = InstanceNorm1d


class LazyInstanceNorm2d(_LazyNormBase, InstanceNorm2d):
    cls_to_become = InstanceNorm2d


class LazyInstanceNorm3d(_LazyNormBase, InstanceNorm3d):
    cls_to_become = InstanceNorm3d
