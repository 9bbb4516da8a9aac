"""ASGD, SparseAdam, Adafactor and Muon: PyTorch's validation, defaults and state."""
from __future__ import annotations

from typing import Iterable

from ..tensor import dtypes, factories
from ..tensor.dtypes import finfo
from ..tensor.tensor import Tensor
from . import extra_updates as updates
from .more import _check, _options
from .optimizer import Optimizer, check_tensor_lr


def _scalar_state(value: float, param: Tensor) -> Tensor:
    """PyTorch keeps scalar optimizer state as float32 0-dim tensors beside the parameter."""
    return factories.tensor(float(value), dtype=dtypes.float32, device=param.device)


class ASGD(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach=None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        check_tensor_lr(lr)
        _check(**{"learning rate": lr, "weight_decay value": weight_decay})
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update_group(self, group: dict, params: list) -> None:
        for param in params:
            state = self.state[param]
            if not state:
                state.update(step=_scalar_state(0, param), eta=_scalar_state(group["lr"], param),
                             mu=_scalar_state(1, param), ax=factories.zeros_like(param))
        static = {key: float(group[key]) for key in ("lambd", "alpha", "t0", "weight_decay")}
        self._run_update(updates.ASGD_UPDATE, group, params, ("step", "eta", "mu", "ax"),
                         {**static, "maximize": group["maximize"]})


class SparseAdam(Optimizer):
    """Adam for sparse gradients. pjtorch has no sparse layout, so every gradient is dense and, as in PyTorch,
    stepping on one is an error."""

    def __init__(self, params: Iterable, lr: float = 1e-3, betas: tuple = (0.9, 0.999), eps: float = 1e-8,
                 maximize: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 < lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for index, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {index}: {beta}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "maximize": maximize})
        complex_params = [[g, p] for g, group in enumerate(self.param_groups)
                          for p, param in enumerate(group["params"]) if param.is_complex()]
        if complex_params:
            raise ValueError(f"Complex params at indices {complex_params}: SparseAdam does not support complex "
                             "parameters")

    def _update_group(self, group: dict, params: list) -> None:
        raise RuntimeError("SparseAdam does not support dense gradients, please consider Adam instead")


class Adafactor(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1e-2, beta2_decay: float = -0.8, eps: tuple = (None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None, maximize: bool = False) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        super().__init__(params, {"lr": lr, "beta2_decay": beta2_decay, "eps": eps, "d": d,
                                  "weight_decay": weight_decay, "foreach": foreach, "maximize": maximize})

    def _update_group(self, group: dict, params: list) -> None:
        """Params with 2+ dims keep factored row/column statistics, the rest a full one: one update call each.
        Like PyTorch, a missing eps1 is the machine epsilon of the group's first parameter, used for all."""
        if any(p.is_complex() for p in params):
            raise RuntimeError("Adafactor does not support complex parameters")
        for param in params:
            state = self.state[param]
            if not state:
                state["step"] = _scalar_state(0, param)
                grad = param.grad
                if grad.ndim > 1:
                    state["row_var"] = grad.new_zeros(grad.shape[:-1] + (1,))
                    state["col_var"] = grad.new_zeros(grad.shape[:-2] + (1,) + grad.shape[-1:])
                else:
                    state["variance"] = factories.zeros_like(grad)
        eps1, eps2 = group["eps"]
        static = {"eps1": float(finfo(params[0].dtype).eps if eps1 is None else eps1), "eps2": float(eps2),
                  **{key: float(group[key]) for key in ("beta2_decay", "d", "weight_decay")},
                  **_options(group, "maximize")}
        factored = [p for p in params if p.grad.ndim > 1]
        full = [p for p in params if p.grad.ndim <= 1]
        if factored:
            self._run_update(updates.ADAFACTOR_UPDATE, group, factored, ("step", "row_var", "col_var"),
                             {**static, "factored": True})
        if full:
            self._run_update(updates.ADAFACTOR_UPDATE, group, full, ("step", "variance"),
                             {**static, "factored": False})


class Muon(Optimizer):
    """Momentum whose update is orthogonalised by Newton-Schulz iterations; for 2-d parameters only."""

    def __init__(self, params: Iterable, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients: tuple = (3.4445, -4.775, 2.0315), eps: float = 1e-7,
                 ns_steps: int = 5, adjust_lr_fn: str | None = None) -> None:
        check_tensor_lr(lr)
        for name, value in (("Learning rate", lr), ("weight decay", weight_decay), ("momentum", momentum)):
            if not 0.0 <= value:
                raise ValueError(f"{name} should be >= 0 but is: {value}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        super().__init__(params, {"lr": lr, "weight_decay": weight_decay, "momentum": momentum, "nesterov": nesterov,
                                  "ns_coefficients": ns_coefficients, "eps": eps, "ns_steps": ns_steps,
                                  "adjust_lr_fn": adjust_lr_fn})
        for group in self.param_groups:
            for param in group["params"]:
                if param.ndim != 2:
                    raise ValueError("Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{param.size()}")

    def _update_group(self, group: dict, params: list) -> None:
        if any(p.is_complex() for p in params):
            raise RuntimeError("Muon does not support complex parameters")
        for param in params:
            if not self.state[param]:
                self._zeros_like_state(param, ("momentum_buffer",))
        static = {"weight_decay": float(group["weight_decay"]), "momentum": float(group["momentum"]),
                  "nesterov": bool(group["nesterov"]), "ns_coefficients": tuple(map(float, group["ns_coefficients"])),
                  "eps": float(group["eps"]), "ns_steps": int(group["ns_steps"]), "adjust_lr_fn": group["adjust_lr_fn"]}
        self._run_update(updates.MUON_UPDATE, group, params, ("momentum_buffer",), static)
