"""`torch.autograd.gradcheck`: analytical Jacobians against central finite differences.

The analytical Jacobian is built row by row from one-hot backward passes (twice, to catch a
nondeterministic backward); the numerical one column by column, perturbing each input element
in place by +-eps. Only the slow (full-Jacobian) check exists: `fast_mode` runs it too, and
forward-mode checks compare the same reverse-mode Jacobian, as pjtorch has no forward AD.
"""
from __future__ import annotations

import warnings
from typing import Callable

from ..tensor import factories, random
from ..tensor.dtypes import float64, complex128, promote_types
from ..tensor.functions import allclose, stack
from ..tensor.tensor import Tensor
from . import grad_mode
from .engine import grad as _grad

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """Raised when gradcheck or gradgradcheck finds a wrong gradient."""


_NONDET_NOTE = """\n
NOTE: If your op relies on non-deterministic operations i.e., it is listed here:
https://pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html
this failure might be expected.

If you are adding a new operator, please file an issue and then use one of the
workarounds. The workaround depends on how your test invokes gradcheck/gradgradcheck.
If the test
- manually invokes gradcheck/gradgradcheck, then call gradcheck/gradgradcheck
  with `nondet_tol=<tol>` as a keyword argument.
- is OpInfo-based (e.g., in test_ops_gradients.py), then modify the OpInfo for the test
  to have `gradcheck_nondet_tol=<tol>`.
- is a Module test (e.g., in common_nn.py), then modify the corresponding
  module_test entry to have `gradcheck_nondet_tol=<tol>`
"""

# ----- inputs and outputs -------------------------------------------------------------------------


def _as_tuple(value) -> tuple:
    if isinstance(value, tuple):
        return value
    return tuple(value) if isinstance(value, list) else (value,)


def _differentiable(values) -> tuple:
    return tuple(v for v in _as_tuple(values) if v.requires_grad)


def _diff_inputs(inputs: tuple) -> list:
    return [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]


def _is_float_or_complex(t) -> bool:
    return isinstance(t, Tensor) and (t.dtype.is_floating_point or t.dtype.is_complex)


def _check_inputs(inputs: tuple) -> None:
    """At least one input must require grad; PyTorch warns for the ones below double precision."""
    found = False
    for i, t in enumerate(inputs):
        if not (isinstance(t, Tensor) and t.requires_grad):
            continue
        if t.dtype is not float64 and t.dtype is not complex128:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating point or complex. "
                          "This check will likely fail if all the inputs are not of double precision floating "
                          "point or complex. ", stacklevel=2)
        if not all(st > 0 or sz <= 1 for st, sz in zip(t.stride(), t.size())):
            raise RuntimeError(f"The {i}th input has a dimension with stride 0. gradcheck only supports inputs that "
                               "are non-overlapping to be able to compute the numerical gradients correctly. You "
                               "should call .contiguous on the input before passing it to gradcheck.")
        found = True
    if not found:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


# ----- numerical Jacobian -------------------------------------------------------------------------


def _outputs_at(func: Callable, inputs: tuple) -> tuple:
    return tuple(o.clone() for o in _as_tuple(func(*inputs)))


def _same_kind(a: Tensor, b: Tensor, index: tuple, eps: float) -> None:
    """Perturbing an input must not change what the function returns, only its values."""
    for what, x, y in (("shape", a.shape, b.shape), ("dtype", a.dtype, b.dtype)):
        if x != y:
            raise AssertionError(f"Expected `func` to return outputs with the same {what} when inputs are perturbed "
                                 f"on index {index} by {eps}, but got: {what}s {x} and {y}.")


def _numerical_column(func: Callable, inputs: tuple, data: Tensor, step: Tensor, index: tuple,
                      eps: float) -> tuple:
    """(f(x + eps e_k) - f(x - eps e_k)) / 2 eps for every output, flattened. The whole input is
    rewritten each time (same shapes, one compiled kernel) rather than one element of it."""
    original = data.clone()
    data.copy_(original - step)
    below = _outputs_at(func, inputs)
    data.copy_(original + step)
    above = _outputs_at(func, inputs)
    data.copy_(original)
    columns = []
    for a, b in zip(below, above):
        _same_kind(a, b, index, eps)
        columns.append(((b - a) / (2 * eps)).detach().reshape(-1))
    return tuple(columns)


def _indices(shape: tuple):
    """Every index of `shape` in row-major order."""
    if not shape:
        yield ()
        return
    for first in range(shape[0]):
        for rest in _indices(shape[1:]):
            yield (first,) + rest


def _matrix(columns: list, like: Tensor, shape: tuple, dim: int) -> Tensor:
    """The columns (or rows) stacked, or an empty matrix of `like`'s dtype when there are none."""
    return stack(columns, dim=dim) if columns else like.new_zeros(shape)


def _numerical_jacobians(func: Callable, inputs: tuple, outputs: tuple, eps: float) -> list:
    """[differentiable input][float output]: (input numel, output numel) matrices in the output's dtype."""
    result = []
    float_outputs = [o for o in outputs if _is_float_or_complex(o)]
    for t in _diff_inputs(inputs):
        rows = [[] for _ in float_outputs]
        data = t.data
        steps = factories.eye(t.numel(), dtype=t.dtype, device=t.device) * eps
        for k, index in enumerate(_indices(tuple(t.shape))):
            for row, column in zip(rows, _numerical_column(func, inputs, data, steps[k].view(t.shape), index, eps)):
                row.append(column)
        result.append([_matrix(r, o, (t.numel(), o.numel()), 0) for r, o in zip(rows, float_outputs)])
    return result


# ----- analytical Jacobian ------------------------------------------------------------------------


def _analytical_rows(output: Tensor, diff_inputs: list) -> list:
    """[input][output element]: the gradient of each output element, by one-hot backward passes."""
    rows = [[] for _ in diff_inputs]
    basis = factories.eye(output.numel(), dtype=output.dtype, device=output.device)
    for j in range(output.numel()):
        grads = _grad(output, diff_inputs, basis[j].view(output.shape), retain_graph=True, allow_unused=True)
        for k, g in enumerate(grads):
            rows[k].append(None if g is None else g.clone())
    return rows


def _stacked(rows: list, diff_inputs: list, numel: int) -> tuple:
    """(matrices, sizes all right, dtypes all right), one (input numel, numel) matrix per input."""
    matrices, sizes_ok, types_ok = [], True, True
    for inp, grads in zip(diff_inputs, rows):
        columns = []
        for g in grads:
            if g is None:
                columns.append(inp.new_zeros((inp.numel(),)))
                continue
            if g.size() != inp.size():
                sizes_ok = False
            elif g.dtype != inp.dtype:
                types_ok = False
            columns.append(g.reshape(-1).to(inp.dtype))
        matrices.append(_matrix(columns, inp, (inp.numel(), numel), 1))
    return matrices, sizes_ok, types_ok


def _jacobians_agree(first: list, second: list, tolerance: float) -> bool:
    return all(a.numel() == 0 or not ((a - b).abs().max() > tolerance) for a, b in zip(first, second))


def _analytical_jacobians(inputs: tuple, output: Tensor, nondet_tol: float, check_grad_dtypes: bool) -> list:
    """The analytical Jacobian of one output, checked for size, dtype and reentrancy as PyTorch does
    (including PyTorch's swap of the size and dtype messages)."""
    diff_inputs = _diff_inputs(inputs)
    first, sizes_ok, types_ok = _stacked(_analytical_rows(output.clone(), diff_inputs), diff_inputs, output.numel())
    second, _, _ = _stacked(_analytical_rows(output.clone(), diff_inputs), diff_inputs, output.numel())
    if not sizes_ok and check_grad_dtypes:
        raise GradcheckError("Gradient has dtype mismatch")
    if not types_ok:
        raise GradcheckError("Analytical gradient has incorrect size")
    if not _jacobians_agree(first, second, nondet_tol):
        raise GradcheckError("Backward is not reentrant, i.e., running backward with same input and grad_output "
                             "multiple times gives different values, although analytical gradient matches "
                             f"numerical gradient.The tolerance for nondeterminism was {nondet_tol}." + _NONDET_NOTE)
    return first


# ----- the checks ---------------------------------------------------------------------------------


def _close(a: Tensor, n: Tensor, rtol: float, atol: float) -> bool:
    common = promote_types(a.dtype, n.dtype)
    return allclose(a.to(common), n.to(common), rtol, atol)


def _mismatch(a: Tensor, n: Tensor, output_index: int, input_index: int, forward: bool) -> GradcheckError:
    mode = "computed with forward mode " if forward else ""
    return GradcheckError(f"Jacobian {mode}mismatch for output {output_index:d} with respect to input "
                          f"{input_index:d},\nnumerical:{n}\nanalytical:{a}\n")


def _check_jacobians(func: Callable, inputs: tuple, func_out: tuple, outputs: tuple, eps: float, rtol: float,
                     atol: float, nondet_tol: float, check_grad_dtypes: bool, forward: bool) -> None:
    """Every (output, input) block of the analytical Jacobian must match the numerical one."""
    numerical = _numerical_jacobians(func, inputs, func_out, eps)
    if not outputs:
        if any(bool((m != 0).sum() > 0) for per_input in numerical for m in per_input):
            raise GradcheckError("Numerical gradient for function expected to be zero")
        return
    per_output = list(zip(*numerical))
    per_output = [n for o, n in zip(func_out, per_output) if o.requires_grad]
    for i, (o, numerical_i) in enumerate(zip(outputs, per_output)):
        analytical = _analytical_jacobians(inputs, o, nondet_tol if not forward else float("inf"),
                                           check_grad_dtypes and not forward)
        for j, (a, n) in enumerate(zip(analytical, numerical_i)):
            if not _close(a, n, rtol, atol):
                raise _mismatch(a, n, i, j, forward)


def _check_grad_output_used(outputs: tuple, inputs: tuple) -> None:
    """Zero output gradients must give zero input gradients of the inputs' dtype and size."""
    diff_inputs = _diff_inputs(inputs)
    grads = _grad(outputs, diff_inputs, [factories.zeros_like(o) for o in outputs], allow_unused=True)
    for g, inp in zip(grads, diff_inputs):
        if g is None:
            continue
        if not bool(g.eq(0).all()):
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != inp.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.device != inp.device:
            raise GradcheckError("grad is incorrect device")
        if g.size() != inp.size():
            raise GradcheckError("grad is incorrect size")


def _run_checks(func: Callable, inputs, eps: float, atol: float, rtol: float, nondet_tol: float,
                check_grad_dtypes: bool, check_forward_ad: bool, check_backward_ad: bool) -> bool:
    inputs = _as_tuple(inputs)
    _check_inputs(inputs)
    func_out = _as_tuple(func(*inputs))
    outputs = _differentiable(func_out)
    for forward, wanted in ((False, check_backward_ad), (True, check_forward_ad)):
        if wanted:
            _check_jacobians(func, inputs, func_out, outputs, eps, rtol, atol, nondet_tol, check_grad_dtypes, forward)
    if check_backward_ad:
        _check_grad_output_used(outputs, inputs)
    return True


def gradcheck(func: Callable, inputs, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: bool | None = None) -> bool:
    """True when the analytical gradients of `func` at `inputs` match finite differences."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    try:
        return _run_checks(func, inputs, eps, atol, rtol, nondet_tol, check_grad_dtypes, check_forward_ad,
                           check_backward_ad)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _random_grad_outputs(func: Callable, inputs: tuple) -> tuple:
    """Uniform [-1, 1) gradients shaped like the differentiable outputs, as PyTorch's make_tensor gives."""
    made = []
    for out in _differentiable(func(*inputs)):
        dtype = out.dtype if _is_float_or_complex(out) else float64
        values = random.rand(tuple(out.shape), dtype=dtype, device=out.device) * 2 - 1
        made.append(values.requires_grad_(True))
    return tuple(made)


def _gradient_function(func: Callable, inputs: tuple, grad_outputs: tuple) -> Callable:
    """The function whose gradient gradgradcheck checks: inputs and grad_outputs -> input gradients."""
    diff_inputs = {i for i, x in enumerate(inputs) if isinstance(x, Tensor) and x.requires_grad}
    diff_grads = {i for i, x in enumerate(grad_outputs) if x.requires_grad}
    count = len(grad_outputs)

    def gradient(*args):
        args_in = tuple(x.requires_grad_() if i in diff_inputs else x for i, x in enumerate(args[:-count]))
        outputs = _differentiable(func(*args_in))
        seeds = tuple(x.requires_grad_() if i in diff_grads else x for i, x in enumerate(args[-count:]))
        wrt = tuple(x for i, x in enumerate(args_in) if i in diff_inputs)
        with grad_mode.enable_grad():
            grads = _grad(outputs, wrt, seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradient


def gradgradcheck(func: Callable, inputs, grad_outputs=None, *, eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  nondet_tol: float = 0.0, check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """gradcheck of the function's backward: second derivatives against finite differences of gradients."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    inputs = _as_tuple(inputs)
    grad_outputs = _random_grad_outputs(func, inputs) if grad_outputs is None else _as_tuple(grad_outputs)
    return gradcheck(_gradient_function(func, inputs, grad_outputs), inputs + grad_outputs, eps=eps, atol=atol,
                     rtol=rtol, raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                     check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)
