"""The layer classes, one family per module."""
from .activation import (
    ELU, GELU, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSigmoid, LogSoftmax, Mish, MultiheadAttention, ReLU,
    ReLU6, Sigmoid, SiLU, Softmax, Softmin, Softplus, Tanh,
)
from .adaptive import AdaptiveLogSoftmaxWithLoss
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d, SyncBatchNorm
from .container import ModuleDict, ModuleList, Sequential
from .conv import Conv1d, Conv2d, Conv3d
from .dropout import Dropout, Dropout1d, Dropout2d
from .extra import *  # noqa: F401,F403
from .extra import __all__ as _extra_all
from .flatten import Flatten, Unflatten
from .lazy import (
    LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d, LazyConv2d, LazyConv3d, LazyConvTranspose1d,
    LazyConvTranspose2d, LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d, LazyInstanceNorm3d, LazyLinear,
)
from .linear import Identity, Linear, NonDynamicallyQuantizableLinear
from .loss import BCELoss, BCEWithLogitsLoss, CTCLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss
from .module import Module
from .more import *  # noqa: F401,F403
from .more import __all__ as _more_all
from .normalization import LayerNorm
from .pooling import (
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d, AvgPool1d, AvgPool2d, AvgPool3d, FractionalMaxPool2d,
    FractionalMaxPool3d, MaxPool1d, MaxPool2d, MaxPool3d, MaxUnpool1d, MaxUnpool2d, MaxUnpool3d,
)
from .rnn import *  # noqa: F401,F403
from .rnn import __all__ as _rnn_all
from .sparse import Embedding, EmbeddingBag
from .transformer import *  # noqa: F401,F403
from .transformer import __all__ as _transformer_all

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveLogSoftmaxWithLoss", "AvgPool1d", "AvgPool2d", "AvgPool3d", "BCELoss",
    "BCEWithLogitsLoss", "BatchNorm1d", "CTCLoss", "BatchNorm2d", "BatchNorm3d", "Conv1d", "Conv2d", "Conv3d",
    "CrossEntropyLoss", "Dropout", "Dropout1d", "Dropout2d", "ELU", "Embedding", "EmbeddingBag", "Flatten", "FractionalMaxPool2d", "FractionalMaxPool3d",
    "GELU", "Hardsigmoid",
    "Hardswish", "Hardtanh", "HuberLoss", "Identity", "L1Loss", "LayerNorm", "LeakyReLU", "Linear", "LogSigmoid",
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv2d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d",
    "LazyInstanceNorm3d", "LazyLinear",
    "LogSoftmax", "MSELoss", "MaxPool1d", "MaxPool2d", "MaxPool3d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "Mish", "Module", "ModuleDict", "ModuleList",
    "MultiheadAttention", "NLLLoss", "NonDynamicallyQuantizableLinear", "ReLU", "ReLU6", "Sequential", "SiLU",
    "Sigmoid", "SmoothL1Loss", "Softmax", "Softmin", "Softplus", "SyncBatchNorm", "Tanh", "Unflatten",
]
__all__ += _extra_all + _rnn_all + _transformer_all + _more_all
