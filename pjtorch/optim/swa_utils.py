"""`torch.optim.swa_utils`: weight averaging (SWA, EMA) of a model's parameters, the SWALR schedule, and
recomputing BatchNorm statistics for the averaged weights.

Averages are computed as PyTorch does on CPU: the default is avg + (new - avg) / (n + 1) per tensor,
the multi-tensor functions use lerp (per tensor here, which is what PyTorch's foreach lerp computes).
"""
from __future__ import annotations

import itertools
import math
from copy import deepcopy
from typing import Any, Callable, Iterable

from ..autograd import grad_mode
from ..nn.modules.batchnorm import _BatchNorm
from ..nn.modules.module import Module
from ..tensor import dtypes, factories
from ..tensor.tensor import Tensor
from .lr_scheduler import LRScheduler, _format_param
from .optimizer import Optimizer

__all__ = ["AveragedModel", "update_bn", "SWALR", "get_ema_multi_avg_fn", "get_swa_multi_avg_fn",
           "get_ema_avg_fn", "get_swa_avg_fn"]


def _check_decay(decay: float) -> None:
    if decay < 0.0 or decay > 1.0:
        raise ValueError(f"Invalid decay value {decay} provided. Please provide a value in [0,1] range.")


def get_ema_multi_avg_fn(decay: float = 0.999) -> Callable:
    """In-place EMA over lists of tensors: ema <- lerp(ema, new, 1 - decay)."""
    _check_decay(decay)

    @grad_mode.no_grad()
    def ema_update(ema_param_list: list, current_param_list: list, _) -> None:
        if ema_param_list[0].is_floating_point() or ema_param_list[0].is_complex():
            for ema, current in zip(ema_param_list, current_param_list):
                ema.lerp_(current, 1 - decay)
        else:
            for ema, current in zip(ema_param_list, current_param_list):
                ema.copy_(ema * decay + current * (1 - decay))
    return ema_update


def get_swa_multi_avg_fn() -> Callable:
    """In-place equal-weight average over lists of tensors, given how many models are already averaged."""

    @grad_mode.no_grad()
    def swa_update(averaged_param_list: list, current_param_list: list, num_averaged) -> None:
        if averaged_param_list[0].is_floating_point() or averaged_param_list[0].is_complex():
            for averaged, current in zip(averaged_param_list, current_param_list):
                averaged.lerp_(current, float(1 / (num_averaged + 1)))
        else:
            for averaged, current in zip(averaged_param_list, current_param_list):
                difference = current - averaged
                if isinstance(num_averaged, Tensor):
                    averaged.addcdiv_(difference, num_averaged + 1)
                else:
                    averaged.add_(difference, alpha=1.0 / (num_averaged + 1))
    return swa_update


def get_ema_avg_fn(decay: float = 0.999) -> Callable:
    """EMA of one tensor, returned (not in place)."""
    _check_decay(decay)

    @grad_mode.no_grad()
    def ema_update(ema_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return decay * ema_param + (1 - decay) * current_param
    return ema_update


def get_swa_avg_fn() -> Callable:
    """Equal-weight running average of one tensor, returned (not in place)."""

    @grad_mode.no_grad()
    def swa_update(averaged_param: Tensor, current_param: Tensor, num_averaged) -> Tensor:
        return averaged_param + (current_param - averaged_param) / (num_averaged + 1)
    return swa_update


class AveragedModel(Module):
    """A copy of `model` whose parameters (and buffers with use_buffers) are running averages of `model`'s,
    updated by `update_parameters`; the first update copies them."""

    def __init__(self, model: Module, device=None, avg_fn: Callable | None = None,
                 multi_avg_fn: Callable | None = None, use_buffers: bool = False) -> None:
        super().__init__()
        if avg_fn is not None and multi_avg_fn is not None:
            raise AssertionError("Only one of avg_fn and multi_avg_fn should be provided")
        self.module = deepcopy(model)
        if device is not None:
            self.module = self.module.to(device)
        self.register_buffer("n_averaged", factories.tensor(0, dtype=dtypes.int64, device=device))
        self.avg_fn = avg_fn
        self.multi_avg_fn = multi_avg_fn
        self.use_buffers = use_buffers

    def forward(self, *args, **kwargs):
        return self.module(*args, **kwargs)

    def update_parameters(self, model: Module) -> None:
        if self.use_buffers:
            averaged = list(itertools.chain(self.module.parameters(), self.module.buffers()))
            current = list(itertools.chain(model.parameters(), model.buffers()))
        else:
            averaged, current = list(self.parameters()), list(model.parameters())
        pairs = [(mine.detach(), theirs.detach().to(mine.device)) for mine, theirs in zip(averaged, current)]
        if bool(self.n_averaged == 0):
            for mine, theirs in pairs:
                mine.copy_(theirs)
        elif self.avg_fn is not None:
            for mine, theirs in pairs:
                mine.copy_(self.avg_fn(mine, theirs, self.n_averaged.to(mine.device)))
        elif self.multi_avg_fn is not None:
            for (device, _), group in _group_by_device_and_dtype(pairs).items():
                self.multi_avg_fn([m for m, _ in group], [t for _, t in group], self.n_averaged.to(device))
        else:
            average = get_swa_avg_fn()
            for mine, theirs in pairs:
                mine.copy_(average(mine, theirs, self.n_averaged.to(mine.device)))
        if not self.use_buffers:
            with grad_mode.no_grad():
                for mine, theirs in zip(self.module.buffers(), model.buffers()):
                    mine.detach().copy_(theirs.detach().to(mine.device))
        self.n_averaged += 1


def _group_by_device_and_dtype(pairs: list) -> dict:
    groups: dict = {}
    for mine, theirs in pairs:
        groups.setdefault((mine.device, mine.dtype), []).append((mine, theirs))
    return groups


@grad_mode.no_grad()
def update_bn(loader: Iterable[Any], model: Module, device=None) -> None:
    """One pass over `loader` in training mode with every BatchNorm's running stats reset and momentum None,
    so the stats become plain averages over the pass."""
    momenta = {}
    for module in model.modules():
        if isinstance(module, _BatchNorm):
            module.reset_running_stats()
            momenta[module] = module.momentum
    if not momenta:
        return
    was_training = model.training
    model.train()
    for module in momenta:
        module.momentum = None
    for input in loader:
        if isinstance(input, (list, tuple)):
            input = input[0]
        if device is not None:
            input = input.to(device)
        model(input)
    for module, momentum in momenta.items():
        module.momentum = momentum
    model.train(was_training)


class SWALR(LRScheduler):
    """Anneals each group's lr to its `swa_lr` over `anneal_epochs` steps (cosine or linear), then holds it."""

    def __init__(self, optimizer: Optimizer, swa_lr, anneal_epochs: int = 10, anneal_strategy: str = "cos",
                 last_epoch: int = -1) -> None:
        for value, group in zip(_format_param("swa_lr", optimizer, swa_lr), optimizer.param_groups):
            group["swa_lr"] = value
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got {anneal_strategy}")
        self._set_anneal_func(anneal_strategy)
        if not isinstance(anneal_epochs, int) or anneal_epochs < 0:
            raise ValueError(f"anneal_epochs must be equal or greater than 0, got {anneal_epochs}")
        self.anneal_epochs = anneal_epochs
        super().__init__(optimizer, last_epoch)

    @staticmethod
    def _linear_anneal(t: float) -> float:
        return t

    @staticmethod
    def _cosine_anneal(t: float) -> float:
        return (1 - math.cos(math.pi * t)) / 2

    @staticmethod
    def _get_initial_lr(lr: float, swa_lr: float, alpha: float) -> float:
        """The lr the annealing started from, recovered from the current one (so other changes compose)."""
        if alpha == 1:
            return swa_lr
        return (lr - alpha * swa_lr) / (1 - alpha)

    def get_lr(self) -> list:
        self._warn_if_called_outside_step()
        step = self._step_count - 1
        if self.anneal_epochs == 0:
            step = max(1, step)
        prev_alpha = self.anneal_func(max(0, min(1, (step - 1) / max(1, self.anneal_epochs))))
        prev_lrs = [self._get_initial_lr(group["lr"], group["swa_lr"], prev_alpha)
                    for group in self.optimizer.param_groups]
        alpha = self.anneal_func(max(0, min(1, step / max(1, self.anneal_epochs))))
        return [group["swa_lr"] * alpha + lr * (1 - alpha) for group, lr in zip(self.optimizer.param_groups, prev_lrs)]

    def _set_anneal_func(self, anneal_strategy: str) -> None:
        self._anneal_strategy = anneal_strategy
        self.anneal_func = self._cosine_anneal if anneal_strategy == "cos" else self._linear_anneal

    def state_dict(self) -> dict:
        return {key: value for key, value in self.__dict__.items() if key not in ("optimizer", "anneal_func")}

    def load_state_dict(self, state_dict: dict) -> None:
        self.__dict__.update(state_dict)
        self._set_anneal_func(self._anneal_strategy)
