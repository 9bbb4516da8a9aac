"""`torch.autograd`: backward, grad, Function, and the grad-mode switches."""
from . import forward_ad, functional, graph
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from .engine import backward, grad
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
                        set_multithreading_enabled)
from .variable import Variable


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "graph", "forward_ad",
           "set_multithreading_enabled", "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "functional", "gradcheck", "gradgradcheck",
           "Variable"]
