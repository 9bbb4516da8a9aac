"""`torch.autograd`: backward, grad, Function, and the grad-mode switches."""
import warnings

from . import forward_ad, functional, graph
from .anomaly_mode import detect_anomaly, is_anomaly_check_nan_enabled, is_anomaly_enabled, set_detect_anomaly
from . import engine
from .function import Function, FunctionCtx, once_differentiable
from .gradcheck import gradcheck, gradgradcheck
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled,
                        set_multithreading_enabled)
from .variable import Variable
from ..tensor.tensor import Tensor


__all__ = ["backward", "grad", "Function", "FunctionCtx", "once_differentiable", "no_grad", "enable_grad",
           "set_grad_enabled", "inference_mode", "is_grad_enabled", "is_inference_mode_enabled", "graph", "forward_ad",
           "set_multithreading_enabled", "set_detect_anomaly", "detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "functional", "gradcheck", "gradgradcheck",
           "Variable"]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    """The engine's backward behind PyTorch's argument checks: an input that cannot retain a gradient is refused
    (as retain_grad refuses it), and the gradients are matched to the tensors as PyTorch zips them."""
    tensors = engine._as_tuple(tensors)
    grad_tensors = _one_per_output(tensors, grad_tensors)
    _check_outputs(tensors)
    _check_complexity(tensors, grad_tensors, batched=False)
    named = () if inputs is None else engine._as_tuple(inputs)
    if named:
        engine._root_edges(tensors)  # a root's error comes first
        for t in named:
            if isinstance(t, Tensor) and not t.requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
    engine.backward(tensors, grad_tensors, retain_graph, create_graph, inputs)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph: bool = False,
         only_inputs: bool = True, allow_unused=None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple:
    """The engine's grad behind PyTorch's argument checks, in PyTorch's order."""
    if not only_inputs:
        warnings.warn("only_inputs argument is deprecated and is ignored now (defaults to True). To accumulate "
                      "gradient for other parts of the graph, please use torch.autograd.backward.", FutureWarning,
                      stacklevel=2)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True, but got: "
                         "allow_unused=False.")
    outputs = engine._as_tuple(outputs)
    grad_outputs = _one_per_output(outputs, grad_outputs)
    if not engine._as_tuple(inputs):
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    _check_outputs(outputs)
    _check_complexity(outputs, grad_outputs, is_grads_batched)
    return engine.grad(outputs, inputs, grad_outputs, retain_graph, create_graph, only_inputs, allow_unused,
                       is_grads_batched, materialize_grads)


def _one_per_output(outputs: tuple, grads):
    """PyTorch zips gradients with outputs: extra gradients are dropped, missing ones are an error."""
    if grads is None:
        return None
    grads = engine._as_tuple(grads)
    if len(grads) < len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    return grads[:len(outputs)]


def _check_complexity(outputs: tuple, grads, batched: bool) -> None:
    """PyTorch's _make_grads: a gradient of the output's shape must also match its being complex or real."""
    for i, (out, g) in enumerate(zip(outputs, grads or ())):
        if not (isinstance(out, Tensor) and isinstance(g, Tensor)):
            continue
        if (g.shape[1:] if batched else g.shape) == out.shape and g.is_complex() != out.is_complex():
            raise RuntimeError("For complex Tensors, both grad_output and output are required to have the same "
                               f"dtype. Mismatch in dtype: grad_output[{i}] has a dtype of {g.dtype} and output[{i}] "
                               f"has a dtype of {out.dtype}.")


def _check_outputs(outputs: tuple) -> None:
    """PyTorch's _make_grads: every output differentiated is a tensor (or a GradientEdge)."""
    for out in outputs:
        if not isinstance(out, (Tensor, graph.GradientEdge)):
            raise AssertionError("Expected output to be a torch.Tensor")
