"""Adam (with amsgrad) and AdamW, which is Adam with decoupled weight decay."""
from __future__ import annotations

from typing import Iterable

from .optimizer import Optimizer
from .updates import ADAM_UPDATE


class Adam(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable, "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay})

    def _update_group(self, group: dict, params: list) -> None:
        keys = ("exp_avg", "exp_avg_sq") + (("max_exp_avg_sq",) if group["amsgrad"] else ())
        for param in params:
            self._step_counter(param)
            self._zeros_like_state(param, keys)
        beta1, beta2 = group["betas"]
        static = {"beta1": float(beta1), "beta2": float(beta2), "eps": group["eps"],
                  "weight_decay": group["weight_decay"], "amsgrad": group["amsgrad"], "maximize": group["maximize"],
                  "decoupled_weight_decay": group["decoupled_weight_decay"]}
        self._run_update(ADAM_UPDATE, group, params, ("step",) + keys, static)


class AdamW(Adam):
    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 1e-2, amsgrad: bool = False, *, maximize: bool = False, foreach=None,
                 capturable: bool = False, differentiable: bool = False, fused=None) -> None:
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
