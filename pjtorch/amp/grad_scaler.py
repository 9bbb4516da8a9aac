"""`torch.amp.GradScaler`: loss scaling for float16 training, with PyTorch's step-skipping semantics.

`scale(loss)` multiplies by the scale; `unscale_(optimizer)` divides that optimizer's gradients
in place and records whether any is inf/nan (one compiled op over all of them); `step` skips
the optimizer step when one was; `update` halves the scale after an overflow and doubles it
after `growth_interval` clean steps.
"""
from __future__ import annotations

import warnings
from enum import Enum

import jax.numpy as jnp

from .. import dispatch
from ..autograd import grad_mode
from ..ops.registry import Op, SAVES_NOTHING
from ..tensor import dtypes, factories
from ..tensor.tensor import Tensor


def _unscale(inv_scale, *grads):
    """(found_inf as 0./1., grads * inv_scale), PyTorch's _amp_foreach_non_finite_check_and_unscale_."""
    scaled = tuple(g * inv_scale.astype(g.dtype) for g in grads)
    finite = jnp.all(jnp.stack([jnp.all(jnp.isfinite(g)) for g in grads]))
    return (jnp.where(finite, 0.0, 1.0).astype(jnp.float32), *scaled)


UNSCALE = Op("unscale", _unscale, saves=SAVES_NOTHING, promote="none")


class _Stage(Enum):
    READY = 0
    UNSCALED = 1
    STEPPED = 2


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                              stacklevel=2)
                self._enabled = False
        if growth_factor <= 1.0:
            raise AssertionError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise AssertionError("The backoff factor must be < 1.0.")
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer: dict = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def get_scale(self) -> float:
        return self._scale if self._enabled else 1.0

    def _state(self, optimizer) -> dict:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _Stage.READY, "found_inf": None})

    def scale(self, outputs):
        """outputs * scale, for a tensor or any nesting of lists/tuples of them."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * factories.tensor(self._scale, dtype=dtypes.float32, device=outputs.device)
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def unscale_(self, optimizer) -> None:
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] is _Stage.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        params = [p for group in optimizer.param_groups for p in group["params"] if p.grad is not None]
        if any(p.grad.dtype is dtypes.float16 for p in params):
            raise ValueError("Attempting to unscale FP16 gradients.")
        found = factories.tensor(0.0, dtype=dtypes.float32)
        if params:
            inv_scale = factories.tensor(1.0 / self._scale, dtype=dtypes.float32, device=params[0].device)
            with grad_mode.no_grad():
                found, *grads = dispatch.apply(UNSCALE, (inv_scale, *(p.grad for p in params)))
                for param, grad in zip(params, grads):
                    param.grad._assign(grad._value())
        state["found_inf"] = found
        state["stage"] = _Stage.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """optimizer.step(), unless the (unscaled) gradients held an inf or nan."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        state = self._state(optimizer)
        if state["stage"] is _Stage.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is _Stage.READY:
            self.unscale_(optimizer)
        result = None
        if not float(state["found_inf"]):
            result = optimizer.step(*args, **kwargs)
        state["stage"] = _Stage.STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        else:
            found = [s["found_inf"] for s in self._per_optimizer.values() if s["found_inf"] is not None]
            if not found:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(float(f) for f in found):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def state_dict(self) -> dict:
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor, "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval, "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict: dict) -> None:
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a disabled "
                               "instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]
