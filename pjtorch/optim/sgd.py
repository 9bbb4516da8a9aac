"""SGD with momentum, dampening, Nesterov, weight decay and maximize."""
from __future__ import annotations

from typing import Iterable

from .optimizer import Optimizer, check_tensor_lr
from .updates import SGD_UPDATE


class SGD(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach=None,
                 differentiable: bool = False, fused=None) -> None:
        check_tensor_lr(lr)
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                                  "foreach": foreach, "differentiable": differentiable, "fused": fused})

    def _update_group(self, group: dict, params: list) -> None:
        """The momentum buffer starts as the first gradient, so params with and without one update separately."""
        static = {key: group[key] for key in ("momentum", "dampening", "nesterov", "weight_decay", "maximize")}
        if group["momentum"] == 0:
            self._run_update(SGD_UPDATE, group, params, (), {**static, "has_buffers": False})
            return
        fresh = [p for p in params if "momentum_buffer" not in self.state[p]]
        running = [p for p in params if "momentum_buffer" in self.state[p]]
        if running:
            self._run_update(SGD_UPDATE, group, running, ("momentum_buffer",), {**static, "has_buffers": True})
        if fresh:
            for param in fresh:
                self._zeros_like_state(param, ("momentum_buffer",))
            self._run_update(SGD_UPDATE, group, fresh, ("momentum_buffer",), {**static, "has_buffers": False})
