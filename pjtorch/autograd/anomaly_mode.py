"""Anomaly detection: with it on (and check_nan), backward runs node by node and stops at the first node whose
gradient holds NaN, naming it as PyTorch does. The switch is process-wide, as PyTorch's is."""
from __future__ import annotations

import os
import traceback
import warnings

import jax.numpy as jnp

_ENABLED = False
_CHECK_NAN = True

_COST_WARNING = ("Anomaly Detection has been enabled. This mode will increase the runtime and should only be enabled "
                 "for debugging.")


def is_anomaly_enabled() -> bool:
    return _ENABLED


def is_anomaly_check_nan_enabled() -> bool:
    return _CHECK_NAN


def checks_nan() -> bool:
    return _ENABLED and _CHECK_NAN


def _set(mode: bool, check_nan: bool) -> None:
    global _ENABLED, _CHECK_NAN
    _ENABLED, _CHECK_NAN = bool(mode), bool(check_nan)


class detect_anomaly:
    """Turns anomaly detection on inside a `with` block (or a decorated function), warning of its cost."""

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self.previous = (_ENABLED, _CHECK_NAN)
        warnings.warn(_COST_WARNING, UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        self.previous = (_ENABLED, _CHECK_NAN)
        _set(True, self.check_nan)

    def __exit__(self, *exc) -> None:
        _set(*self.previous)

    def __call__(self, fn):
        def run(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)

        return run


class set_detect_anomaly:
    """Sets anomaly detection at once; as a context manager, restores the previous setting on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.previous = (_ENABLED, _CHECK_NAN)
        _set(mode, check_nan)

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc) -> None:
        _set(*self.previous)


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def forward_trace() -> list:
    """The user's stack where a node is made under anomaly mode (pjtorch's own frames left out), kept as PyTorch
    keeps it in the node's metadata['traceback_']."""
    frames = [f for f in traceback.extract_stack()[:-1] if not os.path.abspath(f.filename).startswith(_PACKAGE)]
    return traceback.format_list(frames)


def trace_metadata() -> dict | None:
    """A new node's metadata under anomaly mode (its forward trace), None otherwise."""
    return {"traceback_": forward_trace()} if _ENABLED else None


def report(node) -> None:
    """PyTorch's warning, under anomaly mode, naming the node whose backward failed and where it was made."""
    if not _ENABLED:
        return
    metadata = getattr(node, "_metadata", None) or {}
    trace = metadata.get("traceback_")
    where = ("Traceback of forward call that caused the error:\n" + "".join(trace) if trace else
             "No forward pass information available. Enable detect anomaly during forward pass for more "
             "information.")
    warnings.warn(f"Error detected in {node.name()}. {where}", UserWarning, stacklevel=3)


def check_gradients(node, gradients) -> None:
    """PyTorch's error for the first NaN among a node's input gradients (arrays or Tensors, None where absent),
    after the warning that names the node (given itself, or by name)."""
    from ..tensor.tensor import Tensor

    for position, g in enumerate(gradients):
        if g is None:
            continue
        value = g._value() if isinstance(g, Tensor) else g
        if jnp.issubdtype(value.dtype, jnp.inexact) and bool(jnp.isnan(value).any()):
            name = node if isinstance(node, str) else node.name()
            report(_Named(name) if isinstance(node, str) else node)
            raise RuntimeError(f"Function '{name}' returned nan values in its {position}th output.")


class _Named:
    """A node known only by its name: no forward trace to show."""

    def __init__(self, name: str) -> None:
        self._name = name

    def name(self) -> str:
        return self._name
