"""`torch.autograd`: backward, grad, Function, and the grad-mode switches."""
from . import graph
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled


class _Anomaly:
    """set_detect_anomaly/detect_anomaly are accepted; pjtorch's errors already name the failing op."""

    enabled = False


def set_detect_anomaly(mode: bool, check_nan: bool = True) -> None:
    _Anomaly.enabled = bool(mode)


def is_anomaly_enabled() -> bool:
    return _Anomaly.enabled


class detect_anomaly:
    def __init__(self, check_nan: bool = True) -> None:
        self._previous = _Anomaly.enabled

    def __enter__(self) -> None:
        _Anomaly.enabled = True

    def __exit__(self, *exc) -> None:
        _Anomaly.enabled = self._previous


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "graph",
           "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled"]
