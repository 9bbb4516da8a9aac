"""Grad modes: thread-local switches usable as context managers and as decorators."""
from __future__ import annotations

import functools
import inspect
import threading
from typing import Callable


class _State(threading.local):
    enabled = True
    inference = False


STATE = _State()


def is_grad_enabled() -> bool:
    return STATE.enabled


def is_inference_mode_enabled() -> bool:
    return STATE.inference


class _Mode:
    """Sets the grad mode on entry and restores it on exit; decorating a function wraps each call."""

    def _enter_state(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> None:
        self._saved = (STATE.enabled, STATE.inference)
        self._enter_state()

    def __exit__(self, *exc) -> None:
        STATE.enabled, STATE.inference = self._saved

    def __call__(self, fn: Callable) -> Callable:
        clone = self.clone
        if inspect.isgeneratorfunction(fn):
            return _generator_under(clone, fn)

        @functools.wraps(fn)
        def wrapped(*args, **kwargs):
            with clone():
                return fn(*args, **kwargs)

        return wrapped

    def clone(self) -> "_Mode":
        return self.__class__()


def _generator_under(make_mode: Callable, fn: Callable) -> Callable:
    """A generator function whose body runs under the mode each time it resumes, as PyTorch's decorators do."""

    @functools.wraps(fn)
    def wrapped(*args, **kwargs):
        gen = fn(*args, **kwargs)
        resume, value = gen.send, None
        while True:
            with make_mode():
                try:
                    response = resume(value)
                except StopIteration as stop:
                    return stop.value
            try:
                value, resume = (yield response), gen.send
            except GeneratorExit:
                with make_mode():
                    gen.close()
                raise
            except BaseException as error:  # noqa: BLE001 - forwarded into the wrapped generator
                value, resume = error, gen.throw

    return wrapped


class _BareDecorator(_Mode):
    """A mode that also decorates bare: `@no_grad` as well as `@no_grad()`."""

    def __new__(cls, orig_func: Callable | None = None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_BareDecorator):
    """Disables gradient recording, e.g. for inference or optimizer updates."""

    def _enter_state(self) -> None:
        STATE.enabled = False


class enable_grad(_BareDecorator):
    """Enables gradient recording inside a no_grad region."""

    def _enter_state(self) -> None:
        STATE.enabled = True


class set_grad_enabled(_Mode):
    """Sets grad mode to `mode` at once; as a context manager it restores the previous mode on exit."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            from ..tensor.factories import arg_type_name

            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not "
                            f"{arg_type_name(mode)}")
        self.mode = mode
        self._previous = STATE.enabled
        STATE.enabled = self.mode

    def __enter__(self) -> None:
        self._saved = (self._previous, STATE.inference)

    def __call__(self, fn: Callable) -> Callable:
        STATE.enabled = self._previous
        return super().__call__(fn)

    def _enter_state(self) -> None:
        STATE.enabled = self.mode

    def clone(self) -> "_Mode":
        return _GradSwitch(self.mode)

    def __repr__(self) -> str:
        return f"torch.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


class _GradSwitch(_Mode):
    """set_grad_enabled applied per call of a decorated function."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def _enter_state(self) -> None:
        STATE.enabled = self.mode


class inference_mode(_Mode):
    """Like no_grad, and tensors made inside are inference tensors."""

    def __new__(cls, mode: bool | Callable = True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)

    def _enter_state(self) -> None:
        """PyTorch's InferenceMode(mode): grad mode off and inference on, or (mode=False) the reverse."""
        STATE.enabled = not self.mode
        STATE.inference = self.mode

    def clone(self) -> "inference_mode":
        return inference_mode(self.mode)


class set_multithreading_enabled:
    """PyTorch's switch for running backward on worker threads; pjtorch's backward runs on the calling thread
    either way (as one XLA call where it can)."""

    def __init__(self, mode: bool) -> None:
        self.mode = mode

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc_info) -> None:
        return None
