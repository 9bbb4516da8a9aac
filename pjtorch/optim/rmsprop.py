"""RMSprop, optionally centered and with momentum."""
from __future__ import annotations

from typing import Iterable

from .optimizer import Optimizer, check_tensor_lr
from .updates import RMSPROP_UPDATE


class RMSprop(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8,
                 weight_decay: float = 0, momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach=None, maximize: bool = False, differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                                  "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable})

    def _update_group(self, group: dict, params: list) -> None:
        keys = ("square_avg",) + (("momentum_buffer",) if group["momentum"] > 0 else ()) + \
            (("grad_avg",) if group["centered"] else ())
        for param in params:
            self._step_counter(param)
            self._zeros_like_state(param, keys)
        static = {key: group[key] for key in ("alpha", "eps", "weight_decay", "momentum", "centered", "maximize")}
        self._run_update(RMSPROP_UPDATE, group, params, ("step",) + keys, static)
