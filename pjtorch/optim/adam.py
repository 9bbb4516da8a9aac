"""Adam (with amsgrad) and AdamW, which is Adam with decoupled weight decay."""
from __future__ import annotations

from typing import Iterable

from ..tensor.tensor import Tensor
from .optimizer import Optimizer, check_tensor_lr
from .updates import ADAM_UPDATE


def _checked_betas(betas, foreach_without_capture: bool) -> tuple:
    """Adam's betas: both floats or both 1-element Tensors (kept as 0-dim ones), as a tuple."""
    if not (all(isinstance(beta, float) for beta in betas[:2]) or all(isinstance(beta, Tensor) for beta in betas[:2])):
        raise ValueError("betas must be either both floats or both Tensors")
    for index, beta in enumerate(betas[:2]):
        if isinstance(beta, Tensor):
            if foreach_without_capture:
                raise ValueError(f"betas[{index}] as a Tensor is not supported for capturable=False and foreach=True")
            if beta.numel() != 1:
                raise ValueError(f"Tensor betas[{index}] must be 1-element")
    return tuple(beta.squeeze() if isinstance(beta, Tensor) and beta.dim() else beta for beta in betas)


class Adam(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, amsgrad: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused=None,
                 decoupled_weight_decay: bool = False) -> None:
        if isinstance(lr, Tensor) and foreach and not capturable:
            raise ValueError("lr as a Tensor is not supported for capturable=False and foreach=True")
        check_tensor_lr(lr)
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
        betas = _checked_betas(betas, foreach and not capturable)
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
