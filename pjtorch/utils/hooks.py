"""Module hook machinery: `RemovableHandle` (what registering a module hook returns) and `BackwardHook` (what
runs a module's full backward hooks, as `torch.utils.hooks.BackwardHook` does)."""
from __future__ import annotations

import itertools
import warnings
from typing import Callable

from .._stack import user_stacklevel
from ..autograd import grad_mode
from ..autograd.function import Function
from ..tensor.tensor import Tensor

_IDS = itertools.count()


class RemovableHandle:
    """Removes its hook from the dicts it was registered in (the hooks, and any per-hook flags)."""

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | tuple | None = None) -> None:
        self.hooks_dict = hooks_dict
        self.id = next(_IDS)
        extras = () if extra_dict is None else extra_dict if isinstance(extra_dict, tuple) else (extra_dict,)
        self.extra_dicts = extras

    def remove(self) -> None:
        for table in (self.hooks_dict, *self.extra_dicts):
            table.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class BackwardHookFunction(Function):
    """An identity whose grad_fn (`BackwardHookFunctionBackward`) sees the gradients of a module's inputs or outputs."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[arg for arg in args if not arg.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *args):
        return args


class BackwardHook:
    """One module call's full backward hooks: the module's tensor inputs and outputs pass through a
    BackwardHookFunction each; the outputs' node captures grad_output (and runs the pre-hooks, which may replace
    it), the inputs' node calls `hook(module, grad_input, grad_output)` (which may replace grad_input).
    Non-tensor positions read None."""

    def __init__(self, module, user_hooks: list, user_pre_hooks: list) -> None:
        self.module = module
        self.user_hooks, self.user_pre_hooks = user_hooks, user_pre_hooks
        self.grad_outputs = None
        self.n_outputs = self.n_inputs = -1
        self.output_tensors_index = self.input_tensors_index = None

    @staticmethod
    def _pack_with_none(indices: list, values, size: int) -> tuple:
        packed = [None] * size
        for index, value in zip(indices, values):
            packed[index] = value
        return tuple(packed)

    def setup_input_hook(self, args: tuple) -> tuple:
        result, self.input_tensors_index = self._apply_on_tensors(self._set_user_hook, args)
        self.n_inputs = len(args)
        return result

    def setup_output_hook(self, output):
        is_tuple = isinstance(output, tuple)
        outputs = output if is_tuple else (output,)
        result, self.output_tensors_index = self._apply_on_tensors(self._set_output_hook, outputs)
        self.n_outputs = len(outputs)
        return result if is_tuple else result[0]

    def _apply_on_tensors(self, register: Callable, args: tuple) -> tuple:
        """(args with their tensors passed through one BackwardHookFunction, the tensors' positions), or
        (args, None) when no tensor requires grad (or grad mode is off)."""
        positions = [i for i, arg in enumerate(args) if isinstance(arg, Tensor)]
        tensors = [args[i] for i in positions]
        if not (grad_mode.STATE.enabled and any(t.requires_grad for t in tensors)):
            return args, None
        wrapped = BackwardHookFunction.apply(*tensors)
        register(next(t.grad_fn for t in wrapped if t.grad_fn is not None
                      and t.grad_fn.name() == "BackwardHookFunctionBackward"))
        replaced = list(args)
        for position, value in zip(positions, wrapped):
            replaced[position] = value
        return (type(args)(*replaced) if hasattr(args, "_fields") else tuple(replaced)), positions

    def _set_user_hook(self, grad_fn) -> None:
        def hook(grad_input, _):
            if self.grad_outputs is None:
                return None  # the gradient reached the inputs without passing through the outputs
            packed = self._pack_with_none(self.input_tensors_index, grad_input, self.n_inputs)
            for user_hook in self.user_hooks:
                result = user_hook(self.module, packed, self.grad_outputs)
                if result is None:
                    continue
                if len(result) != len(packed):
                    raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                       f"{len(result)}, but expected {len(packed)}")
                packed = result
            self.grad_outputs = None
            return tuple(packed[i] for i in self.input_tensors_index)

        grad_fn.register_hook(hook)

    def _set_output_hook(self, grad_fn) -> None:
        def hook(_, grad_output):
            self.grad_outputs = self._pack_with_none(self.output_tensors_index, grad_output, self.n_outputs)
            for user_pre_hook in self.user_pre_hooks:
                result = user_pre_hook(self.module, self.grad_outputs)
                if result is None:
                    continue
                if len(result) != len(self.grad_outputs):
                    raise RuntimeError("Backward pre hook returned an invalid number of grad_output, got "
                                       f"{len(result)}, but expected {len(self.grad_outputs)}")
                self.grad_outputs = result
            local_grad_outputs = self.grad_outputs
            if self.input_tensors_index is None:
                self._call_hooks_without_input_gradients()
            return tuple(local_grad_outputs[i] for i in self.output_tensors_index)

        grad_fn.register_hook(hook)

    def _call_hooks_without_input_gradients(self) -> None:
        warnings.warn("Full backward hook is firing when gradients are computed with respect to module outputs since "
                      "no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
                      "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.",
                      stacklevel=user_stacklevel())
        grad_inputs = (None,) * self.n_inputs
        for user_hook in self.user_hooks:
            result = user_hook(self.module, grad_inputs, self.grad_outputs)
            if result is not None and not (isinstance(result, tuple) and all(r is None for r in result)):
                raise RuntimeError("Backward hook for Modules where no input requires gradient should always return "
                                   "None or None for all gradients.")
        self.grad_outputs = None
