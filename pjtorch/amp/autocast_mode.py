"""`torch.autocast`: mixed precision by casting the inputs of selected ops.

Inside `autocast(device_type, dtype)`, ops that gain from low precision (linear, convolution,
matrix products, attention) cast their floating inputs to `dtype`, and ops that need range
(losses; on CPU 3-d pooling and some paddings; on CUDA also softmax, normalisation, exp, log,
sum...) cast them to float32, following PyTorch's per-device op lists. Every other op runs in its inputs' dtype.
float64 inputs are never cast. The state is thread-local, per device type.

An op joins autocast by passing its tensor inputs through `cast_inputs(name, ...)` first.
"""
from __future__ import annotations

import functools
import threading
import warnings
from typing import Callable

from ..tensor import dtypes
from ..tensor.tensor import Tensor

_DEFAULT_DTYPES = {"cuda": dtypes.float16, "cpu": dtypes.bfloat16}

# PyTorch's cast policies (aten/src/ATen/autocast_mode.{h,cpp}), by device type, for the ops pjtorch has.
# On CPU, einsum and tensordot are compositions of mm/bmm in PyTorch, so they end up in low precision too.
_CONVOLUTIONS = frozenset({"conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                           "prelu", "linear", "matmul", "mm", "bmm", "addmm", "baddbmm", "addbmm", "linalg_vecdot",
                           "scaled_dot_product_attention"})
LOWER_PRECISION_OPS = {
    "cpu": _CONVOLUTIONS | {"einsum", "tensordot"},
    "cuda": _CONVOLUTIONS | {"einsum", "mv", "addmv", "addr", "chain_matmul", "linalg_multi_dot"},
}
_LOSSES = frozenset({"mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "kl_div", "soft_margin_loss",
                     "margin_ranking_loss", "cosine_embedding_loss", "hinge_embedding_loss", "poisson_nll_loss",
                     "triplet_margin_loss", "multi_margin_loss", "multilabel_margin_loss",
                     "binary_cross_entropy_with_logits", "cross_entropy", "cdist", "prod"})
FLOAT32_OPS = {
    "cpu": _LOSSES | {"binary_cross_entropy", "avg_pool3d", "max_pool3d", "adaptive_avg_pool3d", "reflection_pad1d",
                      "reflection_pad2d", "replication_pad1d", "replication_pad2d", "replication_pad3d", "trace",
                      "quantile", "nanquantile"},
    "cuda": _LOSSES | {"acos", "asin", "cosh", "erfinv", "exp", "expm1", "log", "log10", "log2", "log1p",
                       "reciprocal", "rsqrt", "sinh", "tan", "pow", "softplus", "layer_norm", "group_norm",
                       "cosine_similarity", "dist", "pdist", "renorm", "logsumexp", "softmax", "log_softmax",
                       "cumprod", "cumsum", "linalg_vector_norm", "linalg_matrix_norm", "norm", "sum"},
}
BCE_UNSAFE = ("torch.nn.functional.binary_cross_entropy and torch.nn.BCELoss are unsafe to autocast.\n"
              "Many models use a sigmoid layer right before the binary cross entropy layer.\n"
              "In this case, combine the two layers using torch.nn.functional.binary_cross_entropy_with_logits\n"
              "or torch.nn.BCEWithLogitsLoss.  binary_cross_entropy_with_logits and BCEWithLogits are\n"
              "safe to autocast.")


class _State(threading.local):
    def __init__(self) -> None:
        self.dtypes: dict = {}


STATE = _State()


def is_autocast_enabled(device_type: str = "cuda") -> bool:
    return device_type in STATE.dtypes


def get_autocast_dtype(device_type: str) -> dtypes.dtype:
    return STATE.dtypes.get(device_type, _DEFAULT_DTYPES.get(device_type, dtypes.float16))


class autocast:
    """Context manager (and decorator) turning autocast on or off for one device type."""

    def __init__(self, device_type: str, dtype: dtypes.dtype | None = None, enabled: bool = True,
                 cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type not in _DEFAULT_DTYPES:
            raise RuntimeError(f"User specified an unsupported autocast device_type '{device_type}'")
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else _DEFAULT_DTYPES[device_type]
        self._enabled = bool(enabled) and self._supported()

    def _supported(self) -> bool:
        """PyTorch's checks: CUDA must exist; on CPU only the two half types are supported."""
        if self.device == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", stacklevel=3)
                return False
        elif self.fast_dtype not in (dtypes.float16, dtypes.bfloat16):
            device_name = self.device.upper()
            warnings.warn(f"In {device_name} autocast, but the target dtype is not supported. Disabling autocast.\n"
                          f"{device_name} Autocast only supports dtypes of torch.bfloat16, torch.float16 currently.",
                          stacklevel=3)
            return False
        return True

    def __enter__(self) -> "autocast":
        self._previous = STATE.dtypes.get(self.device)
        if self._enabled:
            STATE.dtypes[self.device] = self.fast_dtype
        else:
            STATE.dtypes.pop(self.device, None)
        return self

    def __exit__(self, *exc) -> None:
        if self._previous is None:
            STATE.dtypes.pop(self.device, None)
        else:
            STATE.dtypes[self.device] = self._previous

    def __call__(self, fn: Callable) -> Callable:
        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return fn(*args, **kwargs)

        return wrapped


def _castable(value, target: dtypes.dtype) -> bool:
    return (isinstance(value, Tensor) and value.dtype is not target and value.dtype.is_floating_point
            and value.dtype is not dtypes.float64)


def cast_inputs(op_name: str, *values) -> tuple:
    """`values` as autocast wants them for `op_name` on their device: in the autocast dtype for a low-precision op,
    in float32 for a float32 op, unchanged otherwise (and whenever autocast is off)."""
    if not STATE.dtypes:
        return values
    device_type = next((v.device.type for v in values if isinstance(v, Tensor)), None)
    target = STATE.dtypes.get(device_type)
    if target is None:
        return values
    if op_name == "binary_cross_entropy" and device_type == "cuda":
        raise RuntimeError(BCE_UNSAFE)
    if op_name in LOWER_PRECISION_OPS[device_type]:
        return tuple(v.to(target) if _castable(v, target) else v for v in values)
    if op_name in FLOAT32_OPS[device_type]:
        return tuple(v.to(dtypes.float32) if _castable(v, dtypes.float32) else v for v in values)
    return values


def custom_fwd(fwd: Callable | None = None, *, device_type: str, cast_inputs: dtypes.dtype | None = None):
    """For a custom Function's forward: with `cast_inputs`, while autocast is on, its floating tensor inputs are
    cast to that dtype and it runs with autocast off; otherwise it runs as written."""
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorated(ctx, *args, **kwargs):
        if cast_inputs is None or not is_autocast_enabled(device_type):
            return fwd(ctx, *args, **kwargs)
        with autocast(device_type, enabled=False):
            cast = [v.to(cast_inputs) if _castable(v, cast_inputs) else v for v in args]
            return fwd(ctx, *cast, **{k: v.to(cast_inputs) if _castable(v, cast_inputs) else v
                                      for k, v in kwargs.items()})

    return decorated


def custom_bwd(bwd: Callable | None = None, *, device_type: str):
    """For a custom Function's backward (which pjtorch runs with autocast as it finds it)."""
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)
    return bwd
