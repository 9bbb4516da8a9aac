"""`torch.compile` and `torch.compiler`: pjtorch's ops already run as compiled XLA, and its fused backward
replays a recorded graph under one `jax.jit`, so compiling a model or function keeps its behaviour as is. A
module comes back wrapped as PyTorch's OptimizedModule (its state_dict keys start with `_orig_mod.`)."""
from __future__ import annotations

import functools
from typing import Any, Callable

from .nn.modules.module import Module


class OptimizedModule(Module):
    """A compiled module: calls, attributes and parameters are the original module's, held as `_orig_mod`."""

    def __init__(self, mod: Module) -> None:
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args, **kwargs):
        return self._orig_mod(*args, **kwargs)

    def __getattr__(self, name: str):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self._modules["_orig_mod"], name)


def compile(model: Callable | None = None, *, fullgraph: bool = False, dynamic: bool | None = None,
            backend: str | Callable = "inductor", mode: str | None = None, options: dict | None = None,
            disable: bool = False) -> Any:
    """`model` compiled (usable as `@torch.compile` or `@torch.compile(mode=...)`)."""
    if model is None:
        return functools.partial(compile, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)

    return compiled


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def reset() -> None:
    """Forgets compiled code: nothing to forget beyond JAX's own caches."""


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    """A function excluded from compilation: it runs as it is."""
    return (lambda f: f) if fn is None else fn


def allow_in_graph(fn: Callable) -> Callable:
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    return fn
