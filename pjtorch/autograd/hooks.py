"""Tensor hooks: functions called with a tensor's gradient during backward."""
from __future__ import annotations

import weakref
from typing import Callable


class RemovableHandle:
    """What `register_hook` returns; `remove()` unregisters the hook."""

    __module__ = "torch.utils.hooks"  # printed as PyTorch prints it

    def __init__(self, hooks: list, hook: Callable) -> None:
        self._hooks = hooks
        self._hook = hook

    def remove(self) -> None:
        if self._hook in self._hooks:
            self._hooks.remove(self._hook)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


def _hook_list(t) -> list:
    if t._grad_fn is None:
        if t._leaf_hooks is None:
            t._leaf_hooks = []
        return t._leaf_hooks
    node = t._grad_fn
    if node.tensor_hooks is None:
        node.tensor_hooks = {}
    return node.tensor_hooks.setdefault(t._output_nr, [])


def register_tensor_hook(t, hook: Callable) -> RemovableHandle:
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    hooks = _hook_list(t)
    hooks.append(hook)
    return RemovableHandle(hooks, hook)


def register_post_accumulate_hook(t, hook: Callable) -> RemovableHandle:
    """`hook(t)` runs once backward has accumulated into the leaf `t`'s .grad (an optimizer step per parameter)."""
    if not t.requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if t._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if t._post_accumulate_hooks is None:
        t._post_accumulate_hooks = []
    checked = _ReturningNone(hook)
    t._post_accumulate_hooks.append(checked)
    return RemovableHandle(t._post_accumulate_hooks, checked)


class _ReturningNone:
    """A post-accumulate-grad hook, which PyTorch requires to return None (after it has run)."""

    def __init__(self, hook: Callable) -> None:
        self.hook = hook

    def __call__(self, t) -> None:
        if self.hook(t) is not None:
            raise RuntimeError("Tensor post accumulate grad hooks should return None.")


class CheckedNodeHook:
    """A grad_fn's pre- or post-hook, whose returned gradients PyTorch checks: a tuple, as long as the one given,
    of tensors (or None) keeping each given gradient's size and type."""

    def __init__(self, hook: Callable) -> None:
        self.hook = hook

    def __call__(self, grads: tuple, *context):
        result = self.hook(grads, *context)
        if result is not None:
            _check_node_hook_result(getattr(self.hook, "__name__", repr(self.hook)), grads, result)
        return result


def _check_node_hook_result(name: str, grads: tuple, result) -> None:
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(grads):
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got {len(result)}, but "
                           f"expected {len(grads)})")
    for old, new in zip(grads, result):
        if new is None:
            continue
        if not (hasattr(new, "shape") and hasattr(new, "grad_fn")):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
        if old is None:
            continue
        if new.shape != old.shape:
            raise RuntimeError(f"hook '{name}' has changed the size of value")
        if new.dtype is not old.dtype or new.device != old.device:
            raise RuntimeError(f"hook '{name}' has changed the type of value (was {old.type()} got {new.type()})")


class RetainGrad:
    """The hook behind `retain_grad()`: stores (and accumulates) a non-leaf's gradient in `.grad`."""

    def __init__(self, t) -> None:
        self._tensor = weakref.ref(t)

    def __call__(self, grad) -> None:
        t = self._tensor()
        if t is None:
            return None
        if t._grad is None:
            t._grad = grad.clone()  # recorded under create_graph (CloneBackward0), as PyTorch's hook does
        else:
            t._grad = t._grad + grad
        return None


def retain_grad(t) -> None:
    hooks = _hook_list(t)
    if not any(isinstance(h, RetainGrad) for h in hooks):
        hooks.append(RetainGrad(t))
