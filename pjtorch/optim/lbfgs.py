"""L-BFGS, PyTorch's algorithm step for step: a two-loop recursion over the last `history_size` steps
and either a fixed step or a strong-Wolfe line search. Scalars the line search branches on are read
to the host once each (PyTorch compares the same values), the direction stays on the device.

PyTorch's scalars are a mix of Python floats (losses, tolerances) and 0-dim tensors (dot products, norms, and
any step size computed from them), and arithmetic touching a tensor rounds to its dtype. Here the tensor-valued
ones are NumPy scalars of the parameters' dtype, whose promotion with Python floats (NEP 50) is PyTorch's, so
every comparison and interpolation rounds as PyTorch's does and long runs do not drift apart in float32."""
from __future__ import annotations

from typing import Callable, Iterable

import numpy as np

from ..autograd import grad_mode
from ..tensor import functions
from ..tensor.tensor import Tensor
from .optimizer import Optimizer, check_tensor_lr


def _scalar(value: Tensor) -> np.generic:
    """A 0-dim tensor's value as a NumPy scalar of its dtype: it rounds as the tensor would in later arithmetic."""
    return value.dtype.jax.type(value.item())


def _cubic_interpolate(x1: float, f1: float, g1: float, x2: float, f2: float, g2: float,
                       bounds: tuple | None = None) -> float:
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clamped to `bounds`."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square < 0:
        return (low + high) / 2.0
    d2 = d2_square ** 0.5
    if x1 <= x2:
        min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(min_pos, low), high)


def _strong_wolfe(evaluate: Callable, t: float, d: Tensor, f: float, g: Tensor, gtd: float, c1: float = 1e-4,
                  c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25) -> tuple:
    """(loss, flat grad, step, evaluations) of a step along d meeting the strong Wolfe conditions."""
    d_norm = _scalar(d.abs().max())
    f_new, g_new = evaluate(t)
    evals, gtd_new = 1, _scalar(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done, ls_iter = False, 0
    bracket = bracket_f = bracket_g = bracket_gtd = None
    while ls_iter < max_ls:
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f, bracket_g, bracket_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], \
                [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g, done = [t], [f_new], [g_new], True
            break
        if gtd_new >= 0:
            bracket, bracket_f, bracket_g, bracket_gtd = [t_prev, t], [f_prev, f_new], [g_prev, g_new], \
                [gtd_prev, gtd_new]
            break
        next_t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                    bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev, t = t, f_new, g_new, gtd_new, next_t
        f_new, g_new = evaluate(t)
        evals, gtd_new, ls_iter = evals + 1, _scalar(g_new.dot(d)), ls_iter + 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point meets the conditions
    insufficient_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1])
        top, bottom = max(bracket), min(bracket)
        eps = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < eps:
            if insufficient_progress or t >= top or t <= bottom:
                t = top - eps if abs(t - top) < abs(t - bottom) else bottom + eps
                insufficient_progress = False
            else:
                insufficient_progress = True
        else:
            insufficient_progress = False
        f_new, g_new = evaluate(t)
        evals, gtd_new, ls_iter = evals + 1, _scalar(g_new.dot(d)), ls_iter + 1
        if f_new > f + c1 * t * gtd or f_new >= bracket_f[low]:
            bracket[high], bracket_f[high], bracket_g[high], bracket_gtd[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_g[low], bracket_gtd[low] = t, f_new, g_new, gtd_new
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    def __init__(self, params: Iterable, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
                 tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
                 line_search_fn: str | None = None) -> None:
        check_tensor_lr(lr)
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(params, {"lr": lr, "max_iter": max_iter, "max_eval": max_eval,
                                  "tolerance_grad": tolerance_grad, "tolerance_change": tolerance_change,
                                  "history_size": history_size, "line_search_fn": line_search_fn})
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self) -> Tensor:
        return functions.cat([p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1)
                              for p in self._params], 0)

    def _add_grad(self, step: float, update: Tensor) -> None:
        offset = 0
        for param in self._params:
            numel = param.numel()
            param.add_(update[offset:offset + numel].view_as(param), alpha=float(step))
            offset += numel

    def _evaluate(self, closure: Callable) -> float:
        with grad_mode.enable_grad():
            return float(closure())

    def step(self, closure: Callable):  # type: ignore[override]
        """Up to max_iter L-BFGS iterations; `closure` must zero the gradients, compute the loss and backprop."""
        with grad_mode.no_grad(), np.errstate(all="ignore"):  # PyTorch's scalar tensors overflow silently
            return self._step(closure)

    def _step(self, closure: Callable):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with grad_mode.enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if _scalar(flat_grad.abs().max()) <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        t = _scalar(t) if isinstance(t, Tensor) else t
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        h_diag, prev_flat_grad, prev_loss = state.get("H_diag"), state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, old_dirs, old_stps, ro, h_diag = flat_grad.neg(), [], [], [], 1
            else:
                al = state.setdefault("al", [None] * history_size)
                d, h_diag = self._direction(flat_grad, flat_grad - prev_flat_grad, d * float(t), old_dirs, old_stps,
                                            ro, h_diag, history_size, al)
            prev_flat_grad = flat_grad.clone()
            prev_loss = loss
            t = min(1.0, _scalar(1.0 / flat_grad.abs().sum())) * lr if state["n_iter"] == 1 else lr
            gtd = _scalar(flat_grad.dot(d))
            if gtd > -tolerance_change:
                break

            evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                start = [p.clone() for p in self._params]

                def evaluate(step: float, start=start, d=d) -> tuple:
                    self._add_grad(step, d)
                    value = self._evaluate(closure)
                    grad = self._gather_flat_grad()
                    for param, saved in zip(self._params, start):
                        param.copy_(saved)
                    return value, grad

                loss, flat_grad, t, evals = _strong_wolfe(evaluate, t, d, loss, flat_grad, gtd)
                self._add_grad(t, d)
                converged = _scalar(flat_grad.abs().max()) <= tolerance_grad
            else:
                self._add_grad(t, d)
                converged = False
                if n_iter != max_iter:
                    loss = self._evaluate(closure)
                    flat_grad = self._gather_flat_grad()
                    converged = _scalar(flat_grad.abs().max()) <= tolerance_grad
                    evals = 1
            current_evals += evals
            state["func_evals"] += evals
            if n_iter == max_iter or current_evals >= max_eval or converged:
                break
            if _scalar((d * float(t)).abs().max()) <= tolerance_change or abs(loss - prev_loss) < tolerance_change:
                break

        if isinstance(t, np.generic):  # a tensor in PyTorch's state
            t = flat_grad.new_tensor(t.item())
        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss

    @staticmethod
    def _direction(flat_grad: Tensor, y: Tensor, s: Tensor, old_dirs: list, old_stps: list, ro: list, h_diag,
                   history_size: int, al: list) -> tuple:
        """(-H g, H's diagonal scale), H built by the two-loop recursion from the stored (y, s) pairs after
        adding this one (kept only when its curvature y·s is positive); `al`, the recursion's coefficients, is the
        state's list, which PyTorch keeps between steps."""
        ys = y.dot(s)
        if _scalar(ys) > 1e-10:
            if len(old_dirs) == history_size:
                del old_dirs[0], old_stps[0], ro[0]
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            h_diag = ys / y.dot(y)
        q = flat_grad.neg()
        for i in range(len(old_dirs) - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q = q - old_dirs[i] * al[i]
        r = q * h_diag
        for i in range(len(old_dirs)):
            r = r + old_stps[i] * (al[i] - old_dirs[i].dot(r) * ro[i])
        return r, h_diag
