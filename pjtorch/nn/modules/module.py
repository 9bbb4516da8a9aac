"""`nn.Module`: parameters, buffers and submodules registered by attribute assignment.

The registries (`_parameters`, `_buffers`, `_modules`) are ordered dicts, so iteration order,
state_dict keys and the printed tree follow definition order exactly as in PyTorch. Calling a
module with no hooks is one attribute check and a call to `forward`.
"""
from __future__ import annotations

import functools
import itertools
from collections import OrderedDict, namedtuple
from typing import Any, Callable, Iterator, Mapping

from ...autograd import grad_mode
from ...tensor import dtypes, factories
from ...tensor.device import device as Device
from ...tensor.tensor import Tensor
from ...utils.hooks import BackwardHook, RemovableHandle
from ..parameter import Buffer, Parameter


def typename(value: Any) -> str:
    """`torch.typename`: 'torch.FloatTensor' for tensors, the qualified class name otherwise."""
    if isinstance(value, Tensor):
        return "torch." + dtypes.LEGACY_NAMES[value.dtype]
    kind = type(value)
    module = "" if kind.__module__ in ("builtins", "__builtin__", None) else kind.__module__ + "."
    return module + kind.__qualname__


_global_forward_pre_hooks: OrderedDict = OrderedDict()
_global_forward_hooks: OrderedDict = OrderedDict()
_global_forward_hooks_with_kwargs: dict = {}
_global_forward_hooks_always_called: dict = {}
_global_parameter_registration_hooks: OrderedDict = OrderedDict()
_global_buffer_registration_hooks: OrderedDict = OrderedDict()
_global_module_registration_hooks: OrderedDict = OrderedDict()


def register_module_forward_pre_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, args)` runs before every module's forward (before the module's own pre-hooks)."""
    return Module._register_hook(_global_forward_pre_hooks, {}, hook, False, False)


def register_module_forward_hook(hook: Callable, *, with_kwargs: bool = False,
                                 always_call: bool = False) -> RemovableHandle:
    """`hook(module, args, output)` (or `(module, args, kwargs, output)`) runs after every module's forward."""
    handle = Module._register_hook(_global_forward_hooks, _global_forward_hooks_with_kwargs, hook, False,
                                   with_kwargs)
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
        handle.extra_dicts += (_global_forward_hooks_always_called,)
    return handle


def _registration_hook(hooks: OrderedDict, hook: Callable) -> RemovableHandle:
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


def register_module_parameter_registration_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, name, param)` runs whenever a module registers a parameter; a returned value replaces it."""
    return _registration_hook(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, name, buffer)` runs whenever a module registers a buffer; a returned value replaces it."""
    return _registration_hook(_global_buffer_registration_hooks, hook)


def register_module_module_registration_hook(hook: Callable) -> RemovableHandle:
    """`hook(module, name, submodule)` runs whenever a module registers a submodule; a returned value replaces it."""
    return _registration_hook(_global_module_registration_hooks, hook)


def _registered(hooks: OrderedDict, module: "Module", name: str, value):
    for hook in list(hooks.values()):
        result = hook(module, name, value)
        if result is not None:
            value = result
    return value


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns; prints as PyTorch's when everything matched."""

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(text: str, spaces: int) -> str:
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of every layer and model: subclass it, assign layers in __init__, define forward."""

    training: bool
    _version: int = 1

    def __init__(self, *args, **kwargs) -> None:
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were "
                            "given")
        setattr_ = object.__setattr__
        setattr_(self, "training", True)
        setattr_(self, "_parameters", {})
        setattr_(self, "_buffers", {})
        setattr_(self, "_non_persistent_buffers_set", set())
        setattr_(self, "_modules", {})
        setattr_(self, "_backward_pre_hooks", OrderedDict())
        setattr_(self, "_backward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks", OrderedDict())
        setattr_(self, "_forward_hooks_with_kwargs", {})
        setattr_(self, "_forward_hooks_always_called", {})
        setattr_(self, "_forward_pre_hooks", OrderedDict())
        setattr_(self, "_forward_pre_hooks_with_kwargs", {})
        setattr_(self, "_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_state_dict_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_pre_hooks", OrderedDict())
        setattr_(self, "_load_state_dict_post_hooks", OrderedDict())

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    # ----- calling ------------------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not (self._forward_hooks or self._forward_pre_hooks or self._backward_hooks or self._backward_pre_hooks
                or _global_forward_pre_hooks or _global_forward_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args: tuple, kwargs: dict):
        """Where the call raises, the forward hooks registered with always_call=True that have not run yet still
        run (with output None, their own errors turned into warnings) before the error goes on."""
        called: set = set()
        try:
            return self._run_with_hooks(args, kwargs, called)
        except Exception:
            self._run_always_called_hooks(args, kwargs, called)
            raise

    def _run_always_called_hooks(self, args: tuple, kwargs: dict, called: set) -> None:
        import warnings
        for hook_id, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]:
            is_global = hook_id in _global_forward_hooks_always_called
            if hook_id in called or not (is_global or hook_id in self._forward_hooks_always_called):
                continue
            try:
                if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                    hook(self, args, kwargs, None)
                else:
                    hook(self, args, None)
            except Exception as error:
                warnings.warn(f"{'global ' if is_global else ''}module forward hook with ``always_call=True`` raised "
                              f"an exception that was silenced as another error was raised in forward: {error}",
                              stacklevel=4)

    def _run_with_hooks(self, args: tuple, kwargs: dict, called: set):
        """PyTorch's order: forward pre-hooks, backward hooks on the inputs, forward, forward hooks, backward hooks
        on the outputs."""
        for hook_id, hook in [*_global_forward_pre_hooks.items(), *self._forward_pre_hooks.items()]:
            if hook_id in self._forward_pre_hooks_with_kwargs:
                result = hook(self, args, kwargs)
                if result is not None:
                    if not (isinstance(result, tuple) and len(result) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                           f"but got {result}.")
                    args, kwargs = result
            else:
                result = hook(self, args)
                if result is not None:
                    args = result if isinstance(result, tuple) else (result,)
        backward_hook = None
        if self._backward_hooks or self._backward_pre_hooks:
            backward_hook = BackwardHook(self, list(self._backward_hooks.values()),
                                         list(self._backward_pre_hooks.values()))
            args = backward_hook.setup_input_hook(args)
        output = self.forward(*args, **kwargs)
        for hook_id, hook in [*_global_forward_hooks.items(), *self._forward_hooks.items()]:
            called.add(hook_id)
            if hook_id in self._forward_hooks_with_kwargs or hook_id in _global_forward_hooks_with_kwargs:
                result = hook(self, args, kwargs, output)
            else:
                result = hook(self, args, output)
            if result is not None:
                output = result
        if backward_hook is not None:
            output = backward_hook.setup_output_hook(output)
        return output

    def register_forward_pre_hook(self, hook: Callable, *, prepend: bool = False,
                                  with_kwargs: bool = False) -> RemovableHandle:
        """`hook(module, args)` runs before forward; a returned value replaces the positional args."""
        return self._register_hook(self._forward_pre_hooks, self._forward_pre_hooks_with_kwargs, hook, prepend,
                                   with_kwargs)

    def register_forward_hook(self, hook: Callable, *, prepend: bool = False, with_kwargs: bool = False,
                              always_call: bool = False) -> RemovableHandle:
        """`hook(module, args, output)` runs after forward; a returned value replaces the output."""
        handle = self._register_hook(self._forward_hooks, self._forward_hooks_with_kwargs, hook, prepend,
                                     with_kwargs)
        if always_call:
            self._forward_hooks_always_called[handle.id] = True
            handle.extra_dicts += (self._forward_hooks_always_called,)
        return handle

    def register_full_backward_pre_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(module, grad_output)` runs when the gradients of the outputs are known; a returned tuple replaces
        grad_output."""
        return self._register_hook(self._backward_pre_hooks, {}, hook, prepend, False)

    def register_full_backward_hook(self, hook: Callable, prepend: bool = False) -> RemovableHandle:
        """`hook(module, grad_input, grad_output)` runs when the gradients of the positional inputs are known; a
        returned tuple replaces grad_input. Entries for non-tensor inputs (or all, when no input requires grad)
        are None."""
        return self._register_hook(self._backward_hooks, {}, hook, prepend, False)

    @staticmethod
    def _register_hook(hooks: OrderedDict, with_kwargs_ids: dict, hook: Callable, prepend: bool,
                       with_kwargs: bool) -> RemovableHandle:
        handle = RemovableHandle(hooks, extra_dict=with_kwargs_ids)
        hooks[handle.id] = hook
        if with_kwargs:
            with_kwargs_ids[handle.id] = True
        if prepend:
            hooks.move_to_end(handle.id, last=False)
        return handle

    # ----- registration -------------------------------------------------------------------------
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_new_name(name, "parameter", self._parameters)
        if param is not None:
            if not isinstance(param, Parameter):
                raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                                "(torch.nn.Parameter or None required)")
            if param.grad_fn is not None:
                raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                                 "created explicitly. To express '{name}' as a function of another Tensor, compute "
                                 "the value in the forward() method.")
        self._parameters[name] = _registered(_global_parameter_registration_hooks, self, name, param)

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_new_name(name, "buffer", self._buffers)
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        self._buffers[name] = _registered(_global_buffer_registration_hooks, self, name, tensor)
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: "Module | None") -> None:
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registered(_global_module_registration_hooks, self, name, module)

    register_module = add_module

    def _check_new_name(self, name: str, kind: str, registry: dict) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')
        if hasattr(self, name) and name not in registry:
            raise KeyError(f"attribute '{name}' already exists")

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._forget(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                self._forget(name, self.__dict__, self._parameters, self._buffers)
                modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer):
                    self.register_buffer(name, value, value.persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    buffers[name] = _registered(_global_buffer_registration_hooks, self, name, value)
                else:
                    object.__setattr__(self, name, value)

    def _forget(self, name: str, *registries: dict) -> None:
        for registry in registries:
            registry.pop(name, None)
        self._non_persistent_buffers_set.discard(name)

    def __getattr__(self, name: str):
        registries = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            found = registries.get(registry)
            if found is not None and name in found:
                return found[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list:
        attrs = list(super().__dir__()) + list(self._parameters) + list(self._modules) + list(self._buffers)
        return sorted(key for key in set(attrs) if not key[0].isdigit())

    # ----- traversal ----------------------------------------------------------------------------
    def _named_members(self, members: Callable, prefix: str, recurse: bool, remove_duplicate: bool) -> Iterator:
        seen = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield (module_prefix + "." + name if module_prefix else name), value

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, buffer in self.named_buffers(recurse=recurse):
            yield buffer

    def named_children(self) -> Iterator[tuple[str, "Module"]]:
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self) -> Iterator["Module"]:
        for _, module in self.named_children():
            yield module

    def named_modules(self, memo: set | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, "Module"]]:
        memo = set() if memo is None else memo
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is not None:
                yield from module.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self) -> Iterator["Module"]:
        for _, module in self.named_modules():
            yield module

    def get_submodule(self, target: str) -> "Module":
        module = self
        for item in target.split(".") if target else ():
            if not hasattr(module, item):
                raise AttributeError(module._get_name() + " has no attribute `" + item + "`")
            module = getattr(module, item)
            if not isinstance(module, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return module

    def get_parameter(self, target: str) -> Parameter:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        param = getattr(module, name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target: str) -> Tensor:
        module_path, _, name = target.rpartition(".")
        module = self.get_submodule(module_path)
        if not hasattr(module, name):
            raise AttributeError(module._get_name() + " has no attribute `" + name + "`")
        if name not in module._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return getattr(module, name)

    # ----- modes and conversions ----------------------------------------------------------------
    def train(self, mode: bool = True) -> "Module":
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self) -> "Module":
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> "Module":
        for param in self.parameters():
            param.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        for param in self.parameters():
            if param.grad is None:
                continue
            if set_to_none:
                param.grad = None
            else:
                param.grad = param.grad.detach()
                param.grad.zero_()

    def apply(self, fn: Callable[["Module"], None]) -> "Module":
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply(self, convert: Callable[[Tensor], Tensor], recurse: bool = True) -> "Module":
        """Converts every parameter and buffer, keeping each Parameter object (optimizers hold them)."""
        for module in self.children() if recurse else ():
            module._apply(convert)
        for param in self._parameters.values():
            if param is None:
                continue
            with grad_mode.no_grad():
                converted = convert(param)
            if converted is not param:
                param.data = converted
            if param.grad is not None:
                param.grad = convert(param.grad)
        for name, buffer in self._buffers.items():
            if buffer is not None:
                self._buffers[name] = convert(buffer)
        return self

    def to(self, *args, **kwargs) -> "Module":
        """to(device), to(dtype), to(device, dtype), to(tensor): dtype changes only floating tensors."""
        device, dtype = _parse_to(args, kwargs)
        if dtype is not None and dtype.category < dtypes.FLOATING:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")

        def convert(t: Tensor) -> Tensor:
            wanted = dtype if dtype is not None and (t.is_floating_point() or t.is_complex()) else None
            return t.to(device=device, dtype=wanted)

        return self._apply(convert)

    def _cast_floating(self, dtype: dtypes.dtype) -> "Module":
        return self._apply(lambda t: t.to(dtype) if t.is_floating_point() else t)

    def float(self) -> "Module":
        return self._cast_floating(dtypes.float32)

    def double(self) -> "Module":
        return self._cast_floating(dtypes.float64)

    def half(self) -> "Module":
        return self._cast_floating(dtypes.float16)

    def bfloat16(self) -> "Module":
        return self._cast_floating(dtypes.bfloat16)

    def type(self, dst_type) -> "Module":
        """Every parameter and buffer cast to `dst_type`."""
        return self._apply(lambda t: t.type(dst_type))

    def to_empty(self, *, device, recurse: bool = True) -> "Module":
        """Parameters and buffers replaced by uninitialised tensors of the same shapes on `device`."""
        return self._apply(lambda t: factories.empty_like(t, device=device), recurse=recurse)

    def share_memory(self) -> "Module":
        """Nothing to move: pjtorch's DataLoader workers run in this process, so tensors are already shared."""
        return self

    def cpu(self) -> "Module":
        return self._apply(lambda t: t.cpu())

    def cuda(self, device: int | Device | None = None) -> "Module":
        return self._apply(lambda t: t.cuda(device))

    # ----- state_dict ---------------------------------------------------------------------------
    def state_dict(self, *, destination: OrderedDict | None = None, prefix: str = "",
                   keep_vars: bool = False) -> OrderedDict:
        """Parameters and persistent buffers by dotted name, detached unless keep_vars."""
        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            result = hook(self, destination, prefix, local_metadata)
            destination = destination if result is None else result
        return destination

    def register_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, prefix, keep_vars)` runs before state_dict() saves this module's entries."""
        return self._register_hook(self._state_dict_pre_hooks, {}, hook, False, False)

    def register_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, state_dict, prefix, local_metadata)` runs once this module and its children are saved; it
        may change state_dict in place but must return None."""
        def checked(module: Module, state_dict: dict, prefix: str, local_metadata: dict) -> None:
            if hook(module, state_dict, prefix, local_metadata) is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return self._register_hook(self._state_dict_hooks, {}, checked, False, False)

    def _register_state_dict_hook(self, hook: Callable) -> RemovableHandle:
        """The older post-hook: a returned mapping replaces the state_dict."""
        return self._register_hook(self._state_dict_hooks, {}, hook, False, False)

    def register_load_state_dict_pre_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)`
        runs before this module loads its entries."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook: Callable, with_module: bool = False) -> RemovableHandle:
        return self._register_hook(self._load_state_dict_pre_hooks, {},
                                   functools.partial(hook, self) if with_module else hook, False, False)

    def register_load_state_dict_post_hook(self, hook: Callable) -> RemovableHandle:
        """`hook(module, incompatible_keys)` runs once this module and its children are loaded; it may edit the
        missing and unexpected key lists in place before strict loading checks them."""
        return self._register_hook(self._load_state_dict_post_hooks, {}, hook, False, False)

    def _save_to_state_dict(self, destination: dict, prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buffer in self._buffers.items():
            if buffer is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buffer if keep_vars else buffer.detach()

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copies matching entries in place; missing and unexpected keys are errors when strict."""
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)

        def load(module: Module, local: dict, prefix: str) -> None:
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local, prefix, local_metadata, True, missing, unexpected, errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(child_prefix)}, child_prefix)
            for hook in module._load_state_dict_post_hooks.values():
                if hook(module, _IncompatibleKeys(missing, unexpected)) is not None:
                    raise AssertionError("Hooks registered with ``register_load_state_dict_post_hook`` are not "
                                         "expected to return new values, if incompatible_keys need to be modified, "
                                         "it should be done inplace.")

        load(self, OrderedDict(state_dict), "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def _load_from_state_dict(self, state_dict: dict, prefix: str, local_metadata: dict, strict: bool,
                              missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
        persistent = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                       if v is not None}
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, current in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            incoming = state_dict[key]
            if not isinstance(incoming, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like '
                                  f"object from checkpoint but received {type(incoming)}")
                continue
            if len(current.shape) == 0 and len(incoming.shape) == 1:
                incoming = incoming[0]
            if incoming.shape != current.shape:
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {incoming.shape} from "
                                  f"checkpoint, the shape in current model is {current.shape}.")
                continue
            try:
                with grad_mode.no_grad():
                    if assign:
                        self._assign_loaded(name, current, incoming)
                    else:
                        current.copy_(incoming)
            except Exception as error:
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{current.size()} and whose dimensions in the checkpoint are {incoming.size()}, "
                                  f"an exception occurred : {error.args}.")
        if strict:
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                parts = key[len(prefix):].split(".", 1)
                if (len(parts) > 1 and parts[0] not in self._modules) or (len(parts) == 1
                                                                          and parts[0] not in local_state):
                    unexpected_keys.append(key)

    def _assign_loaded(self, name: str, current: Tensor, incoming: Tensor) -> None:
        if isinstance(current, Parameter):
            incoming = incoming if isinstance(incoming, Parameter) else Parameter(incoming, current.requires_grad)
        setattr(self, name, incoming)

    # ----- printing -----------------------------------------------------------------------------
    def _get_name(self) -> str:
        return type(self).__name__

    def extra_repr(self) -> str:
        """The text inside this module's parentheses, before its children; layers override it."""
        return ""

    def __repr__(self) -> str:
        extra = self.extra_repr()
        extra_lines = extra.split("\n") if extra else []
        child_lines = [f"({key}): " + _addindent(repr(module), 2) for key, module in self._modules.items()]
        lines = extra_lines + child_lines
        text = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                text += extra_lines[0]
            else:
                text += "\n  " + "\n  ".join(lines) + "\n"
        return text + ")"


def _parse_to(args: tuple, kwargs: dict) -> tuple:
    """(device, dtype) from Module.to's accepted forms."""
    device, dtype = kwargs.get("device"), kwargs.get("dtype")
    tensor = kwargs.get("tensor")
    for arg in args:
        if isinstance(arg, dtypes.dtype):
            dtype = arg
        elif isinstance(arg, Tensor):
            tensor = arg
        elif arg is not None:
            device = arg
    if tensor is not None:
        device, dtype = tensor.device, tensor.dtype
    return device, dtype
