"""Adagrad, Adamax, NAdam, RAdam, Adadelta and Rprop: PyTorch's validation, defaults and state."""
from __future__ import annotations

from typing import Iterable

from ..tensor import dtypes, factories
from . import more_updates as updates
from .optimizer import Optimizer, check_tensor_lr


def _check(**bounds) -> None:
    """Each value must be >= 0; PyTorch's message names the hyperparameter (`label` -> value)."""
    for label, value in bounds.items():
        if not 0.0 <= value:
            raise ValueError(f"Invalid {label.replace('_', ' ', 1) if label.startswith('epsilon') else label}: "
                             f"{value}")


def _check_betas(betas) -> None:
    for index, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {index}: {beta}")


def _options(group: dict, *keys: str) -> dict:
    return {key: group[key] for key in keys}


class Adagrad(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr, "lr_decay value": lr_decay, "weight_decay value": weight_decay,
                  "initial_accumulator_value value": initial_accumulator_value, "epsilon value": eps})
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "fused": fused})
        for group in self.param_groups:
            for param in group["params"]:
                state = self.state[param]
                state["step"] = factories.tensor(0.0, dtype=dtypes.float32, device=param.device)
                state["sum"] = factories.full_like(param, group["initial_accumulator_value"])

    def _update_group(self, group: dict, params: list) -> None:
        static = _options(group, "lr_decay", "weight_decay", "eps", "maximize")
        self._run_update(updates.ADAGRAD_UPDATE, group, params, ("step", "sum"), static)


class Adamax(Optimizer):
    def __init__(self, params: Iterable, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, foreach=None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr, "epsilon value": eps})
        _check_betas(betas)
        _check(**{"weight_decay value": weight_decay})
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update_group(self, group: dict, params: list) -> None:
        keys = ("exp_avg", "exp_inf")
        for param in params:
            self._step_counter(param)
            self._zeros_like_state(param, keys)
        beta1, beta2 = group["betas"]
        static = {"beta1": float(beta1), "beta2": float(beta2), **_options(group, "eps", "weight_decay", "maximize")}
        self._run_update(updates.ADAMAX_UPDATE, group, params, ("step",) + keys, static)


class NAdam(Optimizer):
    def __init__(self, params: Iterable, lr: float = 2e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr, "epsilon value": eps})
        _check_betas(betas)
        _check(**{"weight_decay value": weight_decay, "momentum_decay value": momentum_decay})
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "differentiable": differentiable})

    def _update_group(self, group: dict, params: list) -> None:
        keys = ("exp_avg", "exp_avg_sq")
        for param in params:
            self._step_counter(param)
            self.state[param].setdefault("mu_product", factories.tensor(1.0, dtype=dtypes.float32,
                                                                        device=param.device))
            self._zeros_like_state(param, keys)
        beta1, beta2 = group["betas"]
        static = {"beta1": float(beta1), "beta2": float(beta2),
                  **_options(group, "eps", "weight_decay", "momentum_decay", "maximize", "decoupled_weight_decay")}
        self._run_update(updates.NADAM_UPDATE, group, params, ("step", "mu_product") + keys, static)


class RAdam(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 weight_decay: float = 0, decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr, "epsilon value": eps})
        _check_betas(betas)
        _check(**{"weight_decay value": weight_decay})
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay,
                                  "differentiable": differentiable})

    def _update_group(self, group: dict, params: list) -> None:
        keys = ("exp_avg", "exp_avg_sq")
        for param in params:
            self._step_counter(param)
            self._zeros_like_state(param, keys)
        beta1, beta2 = group["betas"]
        static = {"beta1": float(beta1), "beta2": float(beta2),
                  **_options(group, "eps", "weight_decay", "maximize", "decoupled_weight_decay")}
        self._run_update(updates.RADAM_UPDATE, group, params, ("step",) + keys, static)


class Adadelta(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6,
                 weight_decay: float = 0, foreach=None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr})
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check(**{"epsilon value": eps, "weight_decay value": weight_decay})
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    def _update_group(self, group: dict, params: list) -> None:
        keys = ("square_avg", "acc_delta")
        for param in params:
            self._step_counter(param)
            self._zeros_like_state(param, keys)
        static = _options(group, "rho", "eps", "weight_decay", "maximize")
        self._run_update(updates.ADADELTA_UPDATE, group, params, ("step",) + keys, static)


class Rprop(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, etas: tuple = (0.5, 1.2), step_sizes: tuple = (1e-6, 50),
                 *, capturable: bool = False, foreach=None, maximize: bool = False,
                 differentiable: bool = False) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr})
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "capturable": capturable})

    def _update_group(self, group: dict, params: list) -> None:
        for param in params:
            self._step_counter(param)
            state = self.state[param]
            if "prev" not in state:
                state["prev"] = factories.zeros_like(param)
                state["step_size"] = factories.full_like(param.grad, group["lr"])
        (etaminus, etaplus), (low, high) = group["etas"], group["step_sizes"]
        static = {"etaminus": float(etaminus), "etaplus": float(etaplus), "step_size_min": float(low),
                  "step_size_max": float(high), "maximize": group["maximize"]}
        self._run_update(updates.RPROP_UPDATE, group, params, ("step", "prev", "step_size"), static)
