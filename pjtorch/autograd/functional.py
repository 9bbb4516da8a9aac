"""`torch.autograd.functional`: Jacobians, Hessians and vector products of a whole function.

Everything is reverse mode on pjtorch's own engine. Products that PyTorch computes forward
(jvp, hvp) use the double-backward trick: the vjp `u -> u^T J` is linear in `u`, so
differentiating it with respect to `u` (seeded with `v`) yields `J v`.
"""
from __future__ import annotations

from typing import Callable

from ..tensor import factories
from ..tensor.functions import stack
from ..tensor.tensor import Tensor
from . import grad_mode
from .engine import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

_STRATEGIES = ("forward-mode", "reverse-mode")
_JACOBIAN_STRATEGY_ERROR = ('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
                            'function has more outputs than inputs, "forward-mode" tends to be more performant. '
                            'Otherwise, prefer to use "reverse-mode".')

# ----- argument and result plumbing ------------------------------------------------------------------


def _tupled(value, arg_name: str, fn_name: str) -> tuple:
    """(was it a tuple, its tensors as a tuple), rejecting non-tensors with PyTorch's TypeError."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, el in enumerate(values):
        if not isinstance(el, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple of Tensors but "
                            f"the {where} has type {type(el)}.")
    return is_tuple, values


def _untupled(result: tuple, is_tuple: bool):
    """Undoes `_tupled`: a lone tensor goes back out alone."""
    return result if is_tuple else result[0]


def _untupled_twice(result: tuple, outer_is_tuple: bool, inner_is_tuple: bool):
    """Undoes `_tupled` on both levels of an (output, input) nesting."""
    if not inner_is_tuple:
        result = tuple(row[0] for row in result)
    return result if outer_is_tuple else result[0]


def _fresh(tensors: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """New tensor objects, so the function's inputs differ from tensors it captures; differentiable
    views of the originals when the caller wants a graph back to them, detached copies otherwise."""
    return tuple(t.view_as(t) if create_graph and t.requires_grad else t.detach().requires_grad_(need_graph)
                 for t in tensors)


def _released(tensors: tuple, create_graph: bool) -> tuple:
    """Results keep their history only when the caller asked for a graph."""
    if create_graph:
        return tensors
    return tuple(_released(t, False) if isinstance(t, tuple) else t.detach() for t in tensors)


def _check_v(v: tuple, other: tuple, other_is_tuple: bool) -> None:
    if len(v) != len(other):
        if other_is_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prefix = f"Entry {i} in " if other_is_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {el_other.size()} but got {el_v.size()}.")


def _prepared_v(v, fn_name: str, create_graph: bool, other: tuple, other_is_tuple: bool,
                none_message: str) -> tuple | None:
    """`v` as a checked tuple, or None where it may be left out (a single one-element `other`)."""
    if v is None:
        if len(other) != 1 or other[0].nelement() != 1:
            raise RuntimeError(none_message)
        return None
    _, v = _tupled(v, "v", fn_name)
    v = _fresh(v, create_graph, need_graph=False)
    _check_v(v, other, other_is_tuple)
    return v


_V_NONE_FOR_INPUT = ("The vector v can only be None if the input to the user-provided function is a single Tensor "
                     "with a single element.")

_NOT_REQUIRING = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs must be computed "
               "in a differentiable manner from the input when running in strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the user-provided "
                   "function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided function with respect to "
                "input {i} is independent of the input. This is not allowed in strict mode. You should ensure that "
                "your function is twice differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is independent of the input. "
               "This is not allowed in strict mode. You should ensure that your function is thrice differentiable "
               "and that the hessian depends on the inputs.",
}


def _require_grads(tensors: tuple, kind: str, strict: bool) -> None:
    """In strict mode, every tensor of an intermediate stage must still be connected to the inputs."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_NOT_REQUIRING[kind].format(i=i))


def _grad_or_none(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None, create_graph: bool = False,
                  retain_graph: bool | None = None) -> tuple:
    """`autograd.grad` that skips outputs outside the graph and gives None for unreached inputs."""
    from . import _check_complexity  # the package's own checks of autograd.grad, defined after this module loads

    grad_outputs = (None,) * len(outputs) if grad_outputs is None else grad_outputs
    _check_complexity(outputs, grad_outputs, batched=False)
    kept = [(out, g) for out, g in zip(outputs, grad_outputs) if out is not None and out.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    return _grad(tuple(out for out, _ in kept), inputs, tuple(g for _, g in kept), retain_graph=retain_graph,
                 create_graph=create_graph, allow_unused=True)


_MISSING = {
    "back": "The output of the user-provided function is independent of input {i}. This is not allowed in strict "
            "mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the grad_outputs when using "
                  "the double backward trick to compute forward mode gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. This is not allowed in "
                   "strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} in the "
                         "grad_jacobian. This is not allowed in strict mode as it prevents from using the double "
                         "backward trick to replace forward mode AD.",
}


def _zeros_for_missing(grads: tuple, refs: tuple, strict: bool, create_graph: bool, stage: str) -> tuple:
    """Unreached inputs get zeros, or in strict mode the error naming the stage that lost them."""
    filled = []
    for i, (g, ref) in enumerate(zip(grads, refs)):
        if g is None:
            if strict:
                raise RuntimeError(_MISSING[stage].format(i=i))
            g = factories.zeros_like(ref)
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of input {i}. This is not "
                               "allowed in strict mode when create_graph=True.")
        filled.append(g)
    return tuple(filled)


def _call(func: Callable, inputs: tuple, fn_name: str, strict: bool) -> tuple:
    """Runs the user's function and tuples its result."""
    is_tuple, outputs = _tupled(func(*inputs), "outputs of the user-provided function", fn_name)
    _require_grads(outputs, "outputs", strict)
    return is_tuple, outputs


def _single_output(is_tuple: bool, outputs: tuple, fn_name: str) -> None:
    if is_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should contain a single element")


def _final_grad(create_graph: bool):
    """The last backward records a graph only when asked to."""
    return grad_mode.set_grad_enabled(True if create_graph else grad_mode.is_grad_enabled())


# ----- vector products -----------------------------------------------------------------------------


def vjp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), v^T J): one backward pass seeded with `v`."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "vjp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        v = _prepared_v(v, "vjp", create_graph, outputs, outputs_tuple,
                        "The vector v can only be None if the user-provided function returns a single Tensor with "
                        "a single element.")
    with _final_grad(create_graph):
        grads = _grad_or_none(outputs, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "back")
    return (_untupled(_released(outputs, create_graph), outputs_tuple),
            _untupled(_released(result, create_graph), inputs_tuple))


def jvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), J v) by the double-backward trick."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jvp")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        v = _prepared_v(v, "jvp", create_graph, inputs, inputs_tuple, "The vector v can only be None if the input "
                        "to the user-provided function is a single Tensor with a single element.")
        outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        # Any finite u will do: u only enters the graph of u^T J linearly.
        dummies = tuple(factories.zeros_like(out, requires_grad=True) for out in outputs)
        grad_inputs = _grad_or_none(outputs, inputs, dummies, create_graph=True)
        _require_grads(grad_inputs, "grad_inputs", strict)
    with _final_grad(create_graph):
        grads = _grad_or_none(grad_inputs, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, outputs, strict, create_graph, "back_trick")
    return (_untupled(_released(outputs, create_graph), outputs_tuple),
            _untupled(_released(result, create_graph), outputs_tuple))


def _hessian_products(func: Callable, inputs, v, create_graph: bool, strict: bool, fn_name: str) -> tuple:
    """The shared front of vhp and hvp: inputs, v, the output and its gradient (with a graph)."""
    inputs_tuple, inputs = _tupled(inputs, "inputs", fn_name)
    inputs = _fresh(inputs, create_graph, need_graph=True)
    v = _prepared_v(v, fn_name, create_graph, inputs, inputs_tuple, _V_NONE_FOR_INPUT)
    outputs_tuple, outputs = _call(func, inputs, fn_name, strict)
    _single_output(outputs_tuple, outputs, fn_name)
    jac = _grad_or_none(outputs, inputs, create_graph=True)
    _require_grads(jac, "jacobian", strict)
    return inputs_tuple, inputs, v, outputs_tuple, outputs, jac


def vhp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), v^T H): a backward pass through the gradient, seeded with `v`."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _hessian_products(func, inputs, v, create_graph,
                                                                                 strict, "vhp")
    with _final_grad(create_graph):
        grads = _grad_or_none(jac, inputs, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back")
    return (_untupled(_released(outputs, create_graph), outputs_tuple),
            _untupled(_released(result, create_graph), inputs_tuple))


def hvp(func: Callable, inputs, v=None, create_graph: bool = False, strict: bool = False) -> tuple:
    """(func(inputs), H v): the double-backward trick applied to the gradient."""
    with grad_mode.enable_grad():
        inputs_tuple, inputs, v, outputs_tuple, outputs, jac = _hessian_products(func, inputs, v, create_graph,
                                                                                 strict, "hvp")
        dummies = tuple(factories.zeros_like(t, requires_grad=True) for t in inputs)
        double_back = _grad_or_none(jac, inputs, dummies, create_graph=True)
        _require_grads(jac, "hessian", strict)
    with _final_grad(create_graph):
        grads = _grad_or_none(double_back, dummies, v, create_graph=create_graph)
        result = _zeros_for_missing(grads, inputs, strict, create_graph, "double_back_trick")
    return (_untupled(_released(outputs, create_graph), outputs_tuple),
            _untupled(_released(result, create_graph), inputs_tuple))


# ----- full matrices -------------------------------------------------------------------------------


def _jacobian_rows(out: Tensor, index: int, inputs: tuple, strict: bool, create_graph: bool,
                   vectorize: bool = False) -> tuple:
    """d out / d inputs, one backward pass per element of `out` seeded with that element's one-hot
    (one compiled backward for all of them), each input's rows stacked."""
    if out.is_complex() and not vectorize:  # PyTorch differentiates each element as an implicit scalar output
        raise RuntimeError(f"grad can be implicitly created only for real scalar outputs but got {out.dtype}")
    rows = tuple([] for _ in inputs)
    basis = factories.eye(out.nelement(), dtype=out.dtype, device=out.device)
    for j in range(out.nelement()):
        grads = _grad_or_none((out,), inputs, (basis[j].view(out.shape),), retain_graph=True,
                              create_graph=create_graph)
        for k, (g, inp) in enumerate(zip(grads, inputs)):
            if g is None:
                if strict:
                    raise RuntimeError(f"Output {index} of the user-provided function is independent of input {k}. "
                                       "This is not allowed in strict mode.")
                g = factories.zeros_like(inp)
            elif strict and create_graph and not g.requires_grad:
                raise RuntimeError(f"The jacobian of the user-provided function is independent of input {index}. "
                                   "This is not allowed in strict mode when create_graph=True.")
            rows[k].append(g)
    return tuple(stack(r, dim=0).view(out.size() + inp.size()) for r, inp in zip(rows, inputs))


def _check_forward_mode(create_graph: bool, strict: bool) -> None:
    """PyTorch's forward-mode Jacobian takes neither strict nor create_graph."""
    if create_graph:
        raise NotImplementedError('torch.autograd.functional.jacobian: `create_graph=True` and '
                                  '`strategy="forward-mode"` are not supported together (yet). Please either set '
                                  '`create_graph=False` or `strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and `strategy="forward-mode"` are not '
                           'supported together (yet). Please either set `strict=False` or '
                           '`strategy="reverse-mode"`.')


def _forward_mode_nesting(result: tuple, outputs_tuple: bool, inputs_tuple: bool):
    """Forward mode nests (output, input) in lists where reverse mode uses tuples; PyTorch shows that."""
    rows = [list(row) for row in result]
    if not inputs_tuple:
        rows = tuple(row[0] for row in rows)
    return rows if outputs_tuple else rows[0]


def _jacobian_forward_mode(func: Callable, inputs, vectorize: bool, connected: bool | None = None):
    """The forward-mode answer, column by column as torch.func.jacfwd builds it. Its result keeps a graph to
    inputs that require grad (`connected`), as PyTorch's tangents do."""
    from .. import func as func_transforms

    inputs_tuple, tupled = _tupled(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse Hessian isonly "
                                  "implemented for `vectorize=True`.")
    if connected is None:
        connected = grad_mode.is_grad_enabled() and any(t.requires_grad for t in tupled)
    with grad_mode.enable_grad():
        fresh = _fresh(tupled, connected, need_graph=True)
        outputs_tuple, outputs = _call(func, fresh, "jacobian", False)
        result = tuple(tuple(blocks) for blocks in func_transforms.jacobian_columns(list(outputs), list(fresh),
                                                                                     connected)[0])
    return _forward_mode_nesting(_released(result, connected), outputs_tuple, inputs_tuple)


def jacobian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
             strategy: str = "reverse-mode"):
    """d func(inputs) / d inputs, nested (output, input) the way the arguments were given."""
    if strategy not in _STRATEGIES:
        raise AssertionError(_JACOBIAN_STRATEGY_ERROR)
    if strategy == "forward-mode":
        _check_forward_mode(create_graph, strict)
        return _jacobian_forward_mode(func, inputs, vectorize)
    with grad_mode.enable_grad():
        inputs_tuple, inputs = _tupled(inputs, "inputs", "jacobian")
        inputs = _fresh(inputs, create_graph, need_graph=True)
        outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize and strict:
            raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not "
                               "supported together. Please either set `strict=False` or `vectorize=False`.")
        result = tuple(_jacobian_rows(out, i, inputs, strict, create_graph, vectorize)
                       for i, out in enumerate(outputs))
        return _untupled_twice(_released(result, create_graph), outputs_tuple, inputs_tuple)


def hessian(func: Callable, inputs, create_graph: bool = False, strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode"):
    """The Jacobian of the gradient of a one-element function, nested (input, input)."""
    inputs_tuple, inputs = _tupled(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in _STRATEGIES:
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*args):
        outputs_tuple, outputs = _call(func, args, "hessian", strict)
        _single_output(outputs_tuple, outputs, "hessian")
        return outputs[0].squeeze()

    def gradient(*args):
        jac = jacobian(scalar_func, args, create_graph=True)
        _require_grads(jac, "jacobian", strict)
        return jac

    if outer_jacobian_strategy == "forward-mode":
        # PyTorch's forward-over-reverse marks the inputs as requiring grad, so every block keeps a graph.
        _check_forward_mode(create_graph, strict)
        result = _jacobian_forward_mode(gradient, inputs, vectorize, connected=grad_mode.is_grad_enabled())
    else:
        result = jacobian(gradient, inputs, create_graph=create_graph, strict=strict, vectorize=vectorize)
    return _untupled_twice(result, inputs_tuple, inputs_tuple)
