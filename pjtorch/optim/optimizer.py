"""`torch.optim.Optimizer`: parameter groups, per-parameter state, and the fused update step.

A subclass names its update Op (from `updates`) and its state; `step` runs that Op once per
parameter group on every parameter that has a gradient, under no_grad, and writes the results
back in place (each parameter and state tensor keeps its identity and bumps its version, as
PyTorch's in-place updates do).
"""
from __future__ import annotations

import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain
from typing import Any, Callable, Iterable

from .. import dispatch
from ..autograd import grad_mode
from ..ops.registry import Op
from ..tensor import dtypes, factories
from ..tensor.tensor import Tensor
from ..utils.hooks import RemovableHandle

_global_optimizer_pre_hooks: OrderedDict = OrderedDict()
_global_optimizer_post_hooks: OrderedDict = OrderedDict()


def _register(hooks: OrderedDict, hook: Callable, prepend: bool = False) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    if prepend:
        hooks.move_to_end(handle.id, last=False)
    return handle


def register_optimizer_step_pre_hook(hook: Callable) -> RemovableHandle:
    """`hook(optimizer, args, kwargs)` runs before every optimizer's step; it may return new (args, kwargs)."""
    return _register(_global_optimizer_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable) -> RemovableHandle:
    """`hook(optimizer, args, kwargs)` runs after every optimizer's step."""
    return _register(_global_optimizer_post_hooks, hook)


def _replaced(state_dict: dict, hook_result: dict | None) -> dict:
    return state_dict if hook_result is None else hook_result


def _hooked_step(step: Callable) -> Callable:
    """`step` between the global and the optimizer's own step hooks (pre: global first; post: own first)."""
    @functools.wraps(step)
    def wrapper(*args, **kwargs):
        optimizer = args[0]
        for hook in chain(_global_optimizer_pre_hooks.values(), optimizer._optimizer_step_pre_hooks.values()):
            result = hook(optimizer, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError(f"{step} must return None or a tuple of (new_args, new_kwargs), but got "
                                       f"{result}.")
                args, kwargs = result
        out = step(*args, **kwargs)
        for hook in chain(optimizer._optimizer_step_post_hooks.values(), _global_optimizer_post_hooks.values()):
            hook(optimizer, args, kwargs)
        return out

    wrapper.hooked = True
    return wrapper


def _typename(value: Any) -> str:
    if isinstance(value, Tensor):
        return "torch." + dtypes.LEGACY_NAMES[value.dtype]
    return type(value).__module__ + "." + type(value).__qualname__ if type(value).__module__ != "builtins" \
        else type(value).__qualname__


def check_tensor_lr(lr) -> None:
    """An lr given as a Tensor must hold one element (checked before any bound on its value)."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")


class Optimizer:
    """Base class: holds `param_groups` (dicts of params and hyperparameters) and `state` (per param)."""

    def __init__(self, params: Iterable, defaults: dict) -> None:
        self.defaults = defaults
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        self._lr_tensors: dict = {}
        self._optimizer_step_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_step_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_state_dict_post_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_pre_hooks: OrderedDict = OrderedDict()
        self._optimizer_load_state_dict_post_hooks: OrderedDict = OrderedDict()
        if not getattr(type(self).step, "hooked", False):
            type(self).step = _hooked_step(type(self).step)
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, but "
                            "got " + _typename(params))
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but the ordering of "
                            "tensors in sets will change between runs. Please use a list instead.")
        else:
            param_group["params"] = list(params)
        _split_names(param_group)
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is " + _typename(param))
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in future, this will cause "
                          "an error; see github.com/pytorch/pytorch/issues/40967 for more information", stacklevel=3)
        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                raise ValueError("all optimizer param groups should be with/without names. cannot add param group "
                                 f"{'with' if 'param_names' in param_group else 'without'} names to the optimizer")
        existing = {id(p) for group in self.param_groups for p in group["params"]}
        if existing & {id(p) for p in params}:
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ----- the step -----------------------------------------------------------------------------
    def step(self, closure: Callable | None = None):
        """Updates every parameter with a gradient; `closure` re-evaluates the loss first if given."""
        loss = None
        if closure is not None:
            with grad_mode.enable_grad():
                loss = closure()
        with grad_mode.no_grad():
            for group in self.param_groups:
                params = [p for p in group["params"] if p.grad is not None]
                if params:
                    _check_capturable(type(self).__name__, group, params)
                    self._update_group(group, params)
        return loss

    def _update_group(self, group: dict, params: list) -> None:
        raise NotImplementedError

    def _run_update(self, op: Op, group: dict, params: list, state_keys: tuple, static: dict) -> None:
        """One call of `op` on (lr, params, grads, each state list); results written back in place."""
        operands = [self._lr_tensor(group["lr"], params[0].device), *params, *(p.grad for p in params)]
        targets = list(params)
        for key in state_keys:
            tensors = [self.state[p][key] for p in params]
            operands += tensors
            targets += tensors
        results = dispatch.apply(op, tuple(operands), tuple(sorted({**static, "count": len(params)}.items())))
        for target, result in zip(targets, results if isinstance(results, tuple) else (results,)):
            target._assign(result._storage.lazy_array)  # under no_grad, a pending write

    def _lr_tensor(self, lr: float, device) -> Tensor:
        """lr as a float64 operand, so changing it never recompiles and PyTorch's double arithmetic is kept."""
        key = (float(lr), device)
        found = self._lr_tensors.get(key)
        if found is None:
            if len(self._lr_tensors) > 16:
                self._lr_tensors.clear()
            found = self._lr_tensors[key] = factories.tensor(float(lr), dtype=dtypes.float64, device=device)
        return found

    def _zeros_like_state(self, param: Tensor, keys: Iterable[str]) -> None:
        state = self.state[param]
        for key in keys:
            if key not in state:
                state[key] = factories.zeros_like(param)

    def _step_counter(self, param: Tensor) -> None:
        self.state[param].setdefault("step", factories.tensor(0.0, dtype=dtypes.float32, device=param.device))

    # ----- gradients ----------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for param in group["params"]:
                if param.grad is None:
                    continue
                if set_to_none:
                    param.grad = None
                else:
                    grad = param.grad
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    # ----- hooks --------------------------------------------------------------------------------
    def register_step_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` runs before this optimizer's step; it may return new (args, kwargs)."""
        return _register(self._optimizer_step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(optimizer, args, kwargs)` runs after this optimizer's step."""
        return _register(self._optimizer_step_post_hooks, hook)

    def register_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer)` runs before state_dict() builds its result."""
        return _register(self._optimizer_state_dict_pre_hooks, hook, prepend)

    def register_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer, state_dict)` runs on state_dict()'s result; a returned dict replaces it."""
        return _register(self._optimizer_state_dict_post_hooks, hook, prepend)

    def register_load_state_dict_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer, state_dict)` runs before load_state_dict(); a returned dict is loaded instead."""
        return _register(self._optimizer_load_state_dict_pre_hooks, hook, prepend)

    def register_load_state_dict_post_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(optimizer)` runs after load_state_dict()."""
        return _register(self._optimizer_load_state_dict_post_hooks, hook, prepend)

    # ----- state_dict ---------------------------------------------------------------------------
    def state_dict(self) -> dict:
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}, indices in group order."""
        for hook in self._optimizer_state_dict_pre_hooks.values():
            hook(self)
        mapping: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for param in group["params"]:
                mapping.setdefault(id(param), len(mapping))
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {(mapping[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        result = {"state": state, "param_groups": groups}
        for hook in self._optimizer_state_dict_post_hooks.values():
            result = _replaced(result, hook(self, result))
        return result

    def load_state_dict(self, state_dict: dict) -> None:
        state_dict = state_dict.copy()
        for hook in self._optimizer_load_state_dict_pre_hooks.values():
            state_dict = _replaced(state_dict, hook(self, state_dict))
        saved_groups = deepcopy(state_dict["param_groups"])
        if len(self.param_groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(self.param_groups, saved_groups)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                             "group")
        by_index = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                            chain.from_iterable(g["params"] for g in self.param_groups)))
        state: defaultdict = defaultdict(dict)
        for index, value in state_dict["state"].items():
            if index in by_index:
                param = by_index[index]
                state[param] = {key: _cast_state(param, key, v) for key, v in value.items()}
            else:
                state[index] = value
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group:
                saved.setdefault("param_names", group["param_names"])
        self.state = state
        self.param_groups = saved_groups
        for hook in self._optimizer_load_state_dict_post_hooks.values():
            hook(self)

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for index, group in enumerate(self.param_groups):
            text += f"\nParameter Group {index}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"


# What PyTorch's capturable check names, per optimizer (single-tensor, foreach), and the implementations whose
# list of devices includes xla.
_CAPTURED_STATE = {"NAdam": ("params, mu_products and state_steps", "params, mu_products, and state_steps"),
                   "ASGD": ("params, mus, etas, and state_steps",) * 2}
_XLA_LISTED = {False: {"Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Rprop", "ASGD"},
               True: {"RMSprop", "Rprop"}}


def _check_capturable(name: str, group: dict, params: list) -> None:
    """capturable=True is for CUDA graphs: PyTorch refuses it for CPU parameters when it steps."""
    if not group.get("capturable") or all(p.device.type != "cpu" for p in params):
        return
    foreach = bool(group.get("foreach"))
    devices = ["cuda", "xpu", "hpu", "privateuseone"] + (["xla"] if name in _XLA_LISTED[foreach] else [])
    what = _CAPTURED_STATE.get(name, ("params and state_steps",) * 2)[foreach]
    raise AssertionError(f"If capturable=True, {what} must be on supported devices: {devices}.")


def _split_names(param_group: dict) -> None:
    """(name, tensor) pairs, as named_parameters() gives them, become the params and a 'param_names' list."""
    pairs = [param for param in param_group["params"] if isinstance(param, tuple)]
    if not pairs:
        return
    if len(pairs) != len(param_group["params"]):
        raise ValueError("all optimizer params should be with/without names. Some param names are missing")
    param_group["params"] = [tensor for _, tensor in pairs]
    param_group["param_names"] = [name for name, _ in pairs]


def _cast_state(param: Tensor, key: str, value):
    """Loaded state follows its parameter's device (and dtype, except the step counter)."""
    if not isinstance(value, Tensor):
        return value
    if key == "step" or not param.is_floating_point():
        return value.to(device=param.device)
    return value.to(dtype=param.dtype, device=param.device)
