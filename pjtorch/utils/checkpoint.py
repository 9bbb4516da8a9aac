"""Activation checkpointing: run a function without keeping its graph, recompute it during backward.

`checkpoint(fn, *args)` is one custom autograd.Function: forward runs `fn` under no_grad (so no
intermediate is saved), backward restores the random state, reruns `fn` under enable_grad on
detached inputs and backpropagates through that fresh graph, which accumulates into the
parameters `fn` uses and yields the inputs' gradients.

With `use_reentrant=False` (PyTorch's recommendation) the node is recorded even when no input
requires grad, by passing a placeholder that does, so parameters inside `fn` still train.
"""
from __future__ import annotations

import warnings
from typing import Callable

from ..autograd import engine, grad_mode
from ..autograd.function import Function
from ..tensor import factories, random
from ..tensor.tensor import Tensor

_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. Starting in PyTorch 2.9, "
    "calling checkpoint without use_reentrant will raise an exception. use_reentrant=False is recommended, but if you "
    "need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details "
    "on the differences between the two variants."
)


class CheckpointFunction(Function):
    """forward(ctx, fn, preserve_rng_state, placeholder, *args): `placeholder` is None or a tensor requiring grad."""

    @staticmethod
    def forward(ctx, run_function: Callable, preserve_rng_state: bool, placeholder, *args):
        ctx.run_function = run_function
        ctx.rng_state = random.get_rng_state() if preserve_rng_state else None
        ctx.tensor_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.arguments = list(args)
        ctx.save_for_backward(*(args[i] for i in ctx.tensor_positions))
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grad_outputs):
        arguments = list(ctx.arguments)
        for position, saved in zip(ctx.tensor_positions, ctx.saved_tensors):
            arguments[position] = saved.detach().requires_grad_(saved.requires_grad)
        outputs = _recompute(ctx.run_function, arguments, ctx.rng_state)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grad_outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        engine.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, None) + tuple(a.grad if isinstance(a, Tensor) else None for a in arguments)


def _recompute(function: Callable, arguments: list, rng_state):
    """Runs `function` with grad on, from the random state forward had, leaving the current state as it was."""
    current = random.get_rng_state() if rng_state is not None else None
    if rng_state is not None:
        random.set_rng_state(rng_state)
    try:
        with grad_mode.enable_grad():
            return function(*arguments)
    finally:
        if current is not None:
            random.set_rng_state(current)


def checkpoint(function: Callable, *args, use_reentrant: bool | None = None, context_fn=None, determinism_check=None,
               debug: bool = False, preserve_rng_state: bool = True, **kwargs):
    """function(*args, **kwargs) whose intermediate activations are recomputed in backward instead of saved."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if grad_mode.STATE.enabled and not any(isinstance(a, Tensor) and a.requires_grad for a in args):
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)
        return CheckpointFunction.apply(function, preserve_rng_state, None, *args)
    bound = (lambda *inner: function(*inner, **kwargs)) if kwargs else function
    if not grad_mode.STATE.enabled:
        return bound(*args)
    placeholder = factories.empty(0, requires_grad=True)
    return CheckpointFunction.apply(bound, preserve_rng_state, placeholder, *args)


def checkpoint_sequential(functions, segments: int, input, use_reentrant: bool | None = None, **kwargs):
    """Runs a Sequential (or list of modules) in `segments` checkpointed chunks; the last runs normally."""
    if use_reentrant is None:
        warnings.warn(_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    functions = list(functions.children()) if hasattr(functions, "children") else list(functions)
    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        chunk = functions[start:end + 1]

        def run(x, chunk=chunk):
            for fn in chunk:
                x = fn(x)
            return x

        input = checkpoint(run, input, use_reentrant=use_reentrant, **kwargs)
    for fn in functions[end + 1:]:
        input = fn(input)
    return input
