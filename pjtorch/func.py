"""`torch.func`: composable function transforms (grad, vjp, jvp, jacrev, jacfwd, hessian, vmap),
`functional_call` and `stack_module_state`, built on pjtorch's own autograd engine.

PyTorch runs these as "levels" of wrapped tensors. Here each differentiating transform calls the
function on fresh leaves and asks the engine for gradients, keeping a graph (create_graph) only
when the result is connected to something outside the transform: an input that requires grad, a
captured tensor that does, or the leaves of an enclosing transform. That one rule is what makes
grad of grad, jacrev of jacrev and ordinary `.backward()` through a transform work.

Forward mode (jvp, jacfwd) is computed in reverse mode by the double-backward trick. `vmap` is a
Python loop: it runs the function once per batch element and stacks the results (`chunk_size` is
checked but changes nothing; randomness='same' replays the generator state for every element).
"""
from __future__ import annotations

import functools
from typing import Any, Callable, Sequence

from .autograd import grad_mode
from .autograd.function import IN_TRANSFORM, IN_VMAP
from .autograd.engine import grad as _engine_grad
from .autograd.graph import AccumulateGrad
from .tensor import factories
from .tensor.functions import stack
from .tensor.indexing import forward_mode_puts
from .tensor.random import get_rng_state, set_rng_state
from .tensor.tensor import Tensor

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]

# ----- pytrees (tuple, list, dict) -------------------------------------------------------------------


class _Spec:
    """The shape of a pytree: a leaf, or a container kind with its keys and child specs."""

    __slots__ = ("kind", "context", "children")

    def __init__(self, kind: type | None, context: Any = None, children: tuple = ()) -> None:
        self.kind, self.context, self.children = kind, context, children

    @property
    def leaves(self) -> int:
        return 1 if self.kind is None else sum(c.leaves for c in self.children)

    def __eq__(self, other) -> bool:
        return (isinstance(other, _Spec) and self.kind is other.kind and self.context == other.context
                and self.children == other.children)

    def __repr__(self, indent: int = 0) -> str:
        """PyTorch's TreeSpec repr, which its error messages print."""
        if self.kind is None:
            return "*"
        indent += 2
        inner = ""
        if self.children:
            inner = self.children[0].__repr__(indent) + ("," if len(self.children) > 1 else "")
            inner += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({self.kind.__name__}, {self.context}, [{inner}])"

    def pprint(self) -> str:
        """PyTorch's treespec_pprint: `*` for leaves, Python brackets for containers."""
        if self.kind is None:
            return "*"
        parts = [c.pprint() for c in self.children]
        if self.kind is dict:
            return "{" + ", ".join(f"{k!r}: {p}" for k, p in zip(self.context, parts)) + "}"
        if self.kind is list:
            return "[" + ", ".join(parts) + "]"
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"


def _flatten(tree) -> tuple[list, _Spec]:
    """(leaves, spec) of a nest of tuples, lists and dicts."""
    if isinstance(tree, (tuple, list)):
        pairs = [_flatten(c) for c in tree]
        return [leaf for leaves, _ in pairs for leaf in leaves], _Spec(type(tree), None, tuple(s for _, s in pairs))
    if isinstance(tree, dict):
        keys = list(tree)
        pairs = [_flatten(tree[k]) for k in keys]
        return [leaf for leaves, _ in pairs for leaf in leaves], _Spec(dict, keys, tuple(s for _, s in pairs))
    return [tree], _Spec(None)


def _unflatten(spec: _Spec, leaves) -> Any:
    """Inverse of `_flatten`; `leaves` is consumed from an iterator."""
    leaves = iter(leaves)

    def build(s: _Spec):
        if s.kind is None:
            return next(leaves)
        children = [build(c) for c in s.children]
        if s.kind is dict:
            return dict(zip(s.context, children))
        return s.kind(*children) if hasattr(s.kind, "_fields") else s.kind(children)  # namedtuples by field

    return build(spec)


def _broadcast_prefix(prefix, spec: _Spec) -> list | None:
    """One entry of `prefix` per leaf of `spec`, where `prefix` is a tree whose leaves (int or None) cover
    whole subtrees; None when the structures do not match."""
    if prefix is None or isinstance(prefix, int):
        return [prefix] * spec.leaves
    if spec.kind is None:
        return None
    if isinstance(prefix, dict) and spec.kind is dict and sorted(prefix) == sorted(spec.context):
        parts = [_broadcast_prefix(prefix[k], c) for k, c in zip(spec.context, spec.children)]
    elif isinstance(prefix, (tuple, list)) and type(prefix) is spec.kind and len(prefix) == len(spec.children):
        parts = [_broadcast_prefix(p, c) for p, c in zip(prefix, spec.children)]
    else:
        return None
    return None if any(p is None for p in parts) else [d for p in parts for d in p]


# ----- connection to the world outside a transform ---------------------------------------------------


def _reaches_outside(tensors, own: set) -> bool:
    """Whether any tensor's history leads to a leaf that requires grad and is not one of `own` (ids):
    only then must a transform keep a graph, for an enclosing transform or a later backward."""
    seen = set()
    stack_ = []
    for t in tensors:
        if isinstance(t, Tensor) and t.requires_grad:
            if t.grad_fn is None:
                if id(t) not in own:
                    return True
            else:
                stack_.append(t.grad_fn)
    while stack_:
        node = stack_.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            if id(node.variable) not in own:
                return True
            continue
        stack_.extend(n for n, _ in node.next_functions)
    return False


def _released(tree, keep: bool, own: set):
    """A transform's results, detached unless they lead outside it."""
    leaves, spec = _flatten(tree)
    return _unflatten(spec, [t if not isinstance(t, Tensor) or (keep and _reaches_outside((t,), own))
                             else t.detach() for t in leaves])


def _fresh_leaves(leaves: list, connect: bool) -> list:
    """The tensors a transform differentiates with respect to: views of inputs that already require grad
    (so an outer graph sees through), new leaves otherwise."""
    fresh = []
    for t in leaves:
        if not isinstance(t, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(t)}")
        fresh.append(t.view_as(t) if connect and t.requires_grad else t.detach().requires_grad_())
    return fresh


def _grads(outputs: list, inputs: list, seeds: list, create_graph: bool) -> list:
    """d outputs / d inputs seeded with `seeds`, zeros where an input is not reached; the graph is kept
    so a vjp function or a Jacobian can run again."""
    kept = [(o, s) for o, s in zip(outputs, seeds) if o.requires_grad]
    found = [None] * len(inputs)
    if kept:
        found = _engine_grad(tuple(o for o, _ in kept), tuple(inputs), tuple(s for _, s in kept),
                             retain_graph=True, create_graph=create_graph, allow_unused=True)
    return [factories.zeros_like(i) if g is None else g for g, i in zip(found, inputs)]


# ----- argnums ---------------------------------------------------------------------------------------


def _wrap_argnum(argnum, count: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if -count <= argnum < count:
        return argnum % count
    raise RuntimeError(f"Got argnum={argnum}, but only {count} positional inputs")


def _argnums(argnums, count: int) -> tuple[int, ...]:
    """argnums as a tuple of non-negative positions, checked as PyTorch does."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return (_wrap_argnum(argnums, count),)
    wrapped = tuple(_wrap_argnum(a, count) for a in argnums)
    if not wrapped:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return wrapped


class _Prepared:
    """The arguments of a transformed call with the differentiated ones replaced by fresh leaves."""

    def __init__(self, args: tuple, argnums, connect: bool) -> None:
        """argnums None: every argument, grouped as a tuple (vjp's and jvp's primals)."""
        self.positions = tuple(range(len(args))) if argnums is None else _argnums(argnums, len(args))
        self.single = isinstance(argnums, int)
        self.specs, self.leaves, new_args = [], [], list(args)
        for p in self.positions:
            leaves, spec = _flatten(args[p])
            fresh = _fresh_leaves(leaves, connect)
            new_args[p] = _unflatten(spec, fresh)
            self.specs.append(spec)
            self.leaves.extend(fresh)
        self.args = tuple(new_args)
        self.own = {id(t) for t in self.leaves}

    def per_argument(self, values: list):
        """Per-leaf values regrouped like the differentiated arguments (one, or a tuple of them)."""
        values, grouped = iter(values), []
        for spec in self.specs:
            grouped.append(_unflatten(spec, [next(values) for _ in range(spec.leaves)]))
        return grouped[0] if self.single else tuple(grouped)


def _call(func: Callable, args: tuple, kwargs: dict):
    """The user's function, run as inside a transform (which custom Functions check)."""
    with IN_TRANSFORM.entered():
        return func(*args, **kwargs)


def _split_aux(output, has_aux: bool, api: str):
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
    for leaf in _flatten(output[1])[0]:
        if not isinstance(leaf, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(leaf)}")
    return output


def _tensor_leaves(output, api: str) -> tuple[list, _Spec]:
    leaves, spec = _flatten(output)
    for t in leaves:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(t)}")
    return leaves, spec


# ----- grad ------------------------------------------------------------------------------------------


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """A function returning (gradient of func's scalar output w.r.t. argnums, that output)."""
    api = "grad_and_value(f)(*args)"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        connect = grad_mode.is_grad_enabled()
        with grad_mode.enable_grad():
            prepared = _Prepared(args, argnums, connect)
            output, aux = _split_aux(_call(func, prepared.args, kwargs), has_aux, api)
            if not isinstance(output, Tensor):
                raise RuntimeError(f"{api}: Expected f(*args) to return a Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(f"{api}: Expected f(*args) to return a scalar Tensor, got tensor with "
                                   f"{output.dim()} dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
            keep = connect and _reaches_outside((output,), prepared.own)
            grads = _grads([output], prepared.leaves, [None], create_graph=keep)
        grads = _released(prepared.per_argument(grads), keep, prepared.own)
        value = _released(output, keep, prepared.own)
        if has_aux:
            return grads, (value, _released(aux, keep, prepared.own))
        return grads, value

    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """A function returning the gradient of func's scalar output w.r.t. argnums (and aux if has_aux)."""
    both = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        grads, value = both(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads

    return wrapper


# ----- vjp and jvp -----------------------------------------------------------------------------------


def vjp(func: Callable, *primals, has_aux: bool = False) -> tuple:
    """(func(*primals), vjp_fn[, aux]); vjp_fn(cotangents) gives one gradient per primal. The graph is
    kept so vjp_fn can be called again."""
    api = "vjp(f, *primals)"
    connect = grad_mode.is_grad_enabled()
    with grad_mode.enable_grad():
        prepared = _Prepared(primals, None, connect)
        output, aux = _split_aux(_call(func, prepared.args, {}), has_aux, api)
        outputs, out_spec = _tensor_leaves(output, api)
    keep = connect and _reaches_outside(outputs, prepared.own)

    def vjp_fn(cotangents) -> tuple:
        leaves, spec = _flatten(cotangents)
        if spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of outputs "
                               f"to the function. cotangents: {spec.pprint()}, primal output: {out_spec.pprint()}")
        with grad_mode.enable_grad():
            create = keep or (grad_mode.is_grad_enabled() and any(c.requires_grad for c in leaves))
            grads = _grads(outputs, prepared.leaves, leaves, create_graph=create)
        return prepared.per_argument(_released(grads, create, prepared.own))

    result = (_released(output, keep, prepared.own), vjp_fn)
    return result + (_released(aux, keep, prepared.own),) if has_aux else result


def _check_primal_tuple(values, name: str, api: str) -> list:
    leaves, _ = _flatten(values)
    if not leaves:
        raise RuntimeError(f"{api}: Expected {name} to contain at least one Tensor.")
    for t in leaves:
        if not isinstance(t, Tensor):
            raise RuntimeError(f"{api}: Expected {name} to only contain Tensors, got {type(t)}")
    return leaves


def _jvp_leaves(func: Callable, prepared: _Prepared, tangents: list, has_aux: bool, api: str, connect: bool):
    """(output, out_spec, per-output-leaf J t, aux, keep) by the double-backward trick: the vjp
    u -> u^T J is linear in u, so its gradient w.r.t. u seeded with t is J t."""
    with grad_mode.enable_grad(), forward_mode_puts():
        output, aux = _split_aux(_call(func, prepared.args, {}), has_aux, api)
    with grad_mode.enable_grad():
        outputs, out_spec = _tensor_leaves(output, api)
        differentiable = [o.is_floating_point() or o.is_complex() for o in outputs]
        dummies = [factories.zeros_like(o, requires_grad=True) if d else None for o, d in zip(outputs, differentiable)]
        used = [(o, u) for o, u in zip(outputs, dummies) if u is not None]
        back = _grads([o for o, _ in used], prepared.leaves, [u for _, u in used], create_graph=True)
        own = prepared.own | {id(u) for u in dummies if u is not None}
        keep = connect and (_reaches_outside(outputs, prepared.own) or any(t.requires_grad for t in tangents))
        if used:
            forward = _grads(back, [u for _, u in used], tangents, create_graph=keep)
        forward = iter(forward if used else [])
        result = [next(forward) if d else factories.zeros_like(o) for o, d in zip(outputs, differentiable)]
    return output, out_spec, _released(result, keep, own), aux, keep


def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False, has_aux: bool = False) -> tuple:
    """(func(*primals), J tangents[, aux]), structured like func's output."""
    api = "jvp(f, primals, tangents)"
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{api}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    primal_spec, tangent_spec = _flatten(primals)[1], _flatten(tangents)[1]
    if primal_spec != tangent_spec:
        raise RuntimeError(f"{api}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{primal_spec} and tangents with structure {tangent_spec}")
    _check_primal_tuple(primals, "primals", api)
    tangent_leaves = _check_primal_tuple(tangents, "tangents", api)
    for p, t in zip(_flatten(primals)[0], tangent_leaves):
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the original "
                               f"Tensor, this is not supported. Tensor is of size {list(p.shape)} while the given "
                               f"forward gradient is of size {list(t.shape)}.")
    connect = grad_mode.is_grad_enabled()
    prepared = _Prepared(primals, None, connect)
    output, out_spec, result, aux, keep = _jvp_leaves(func, prepared, tangent_leaves, has_aux, api, connect)
    out = (_released(output, keep, prepared.own), _unflatten(out_spec, result))
    return out + (_released(aux, keep, prepared.own),) if has_aux else out


def linearize(func: Callable, *primals) -> tuple:
    """(func(*primals), jvp_fn): jvp_fn(*tangents) is func's jvp at primals. PyTorch traces that function once;
    here each call computes it again, with PyTorch's checks of the tangents."""
    primal_leaves, primal_spec = _flatten(primals)
    output = jvp(func, primals, tuple(_zeros_like_tree(p) for p in primals))[0]

    def jvp_fn(*tangents):
        tangent_leaves, tangent_spec = _flatten(tangents)
        if tangent_spec != primal_spec:
            raise RuntimeError(f"Expected the tangents {tangent_spec} to have the same argspec as the primals "
                               f"{primal_spec}")
        for i, (p, t) in enumerate(zip(primal_leaves, tangent_leaves)):
            if t.dtype is not p.dtype:
                raise RuntimeError(f"tangent:{i} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{p.dtype} of the corresponding primal.")
            if t.shape != p.shape:
                raise RuntimeError(f"tangent:{i} with shape {t.shape} in flattened pytree doesn't match the shape "
                                   f"{p.shape} of the corresponding primal.")
        return jvp(func, primals, tangents)[1]

    return output, jvp_fn


def _zeros_like_tree(tree):
    leaves, spec = _flatten(tree)
    return _unflatten(spec, [factories.zeros_like(t) if isinstance(t, Tensor) else t for t in leaves])


# ----- Jacobians -------------------------------------------------------------------------------------


def _refuse_complex(name: str, tree, kind: str) -> None:
    """PyTorch's Jacobian transforms take real inputs and outputs only."""
    for i, t in enumerate(_flatten(tree)[0]):
        if isinstance(t, Tensor) and t.is_complex():
            raise RuntimeError(f"{name}: Expected all {kind} to be real but received complex tensor at flattened "
                               f"input idx: {i}")


def _jacobian(func: Callable, args: tuple, kwargs: dict, argnums, has_aux: bool, api: str):
    """d output / d args[argnums], one backward pass per output element, shaped output.shape + input.shape
    and nested (output tree, then the argnums grouping of input trees)."""
    _refuse_complex("jacrev", args, "inputs")
    connect = grad_mode.is_grad_enabled()
    with grad_mode.enable_grad():
        prepared = _Prepared(args, argnums, connect)
        output, aux = _split_aux(_call(func, prepared.args, kwargs), has_aux, api)
        outputs, out_spec = _tensor_leaves(output, api)
        _refuse_complex("jacrev", outputs, "outputs")
        keep = connect and _reaches_outside(outputs, prepared.own)
        blocks = []
        for out in outputs:
            n = out.nelement()
            if n == 0:
                rows = [factories.zeros(out.shape + i.shape, dtype=i.dtype, device=i.device) for i in prepared.leaves]
            else:
                basis = factories.eye(n, dtype=out.dtype, device=out.device)
                per_row = [_grads([out], prepared.leaves, [basis[j].view(out.shape)], create_graph=keep)
                           for j in range(n)]
                rows = [stack([r[k] for r in per_row]).view(out.shape + i.shape)
                        for k, i in enumerate(prepared.leaves)]
            blocks.append(prepared.per_argument(_released(rows, keep, prepared.own)))
    jac = _unflatten(out_spec, blocks)
    return (jac, _released(aux, keep, prepared.own)) if has_aux else jac


def _forward_jacobian(func: Callable, args: tuple, kwargs: dict, argnums, has_aux: bool, api: str):
    """The Jacobian as jacfwd builds it (see `jacobian_columns`), nested like jacrev's."""
    connect = grad_mode.is_grad_enabled()
    with grad_mode.enable_grad(), forward_mode_puts(), IN_VMAP.entered():  # PyTorch's jacfwd vmaps func's jvp
        prepared = _Prepared(args, argnums, connect)
        output, aux = _split_aux(_call(func, prepared.args, kwargs), has_aux, api)
    with grad_mode.enable_grad():
        outputs, out_spec = _tensor_leaves(output, api)
        _refuse_complex("jacfwd", outputs, "outputs")
        keep = connect and _reaches_outside(outputs, prepared.own)
        blocks, own = jacobian_columns(outputs, prepared.leaves, keep)
    jac = _unflatten(out_spec, [prepared.per_argument(_released(rows, keep, prepared.own | own)) for rows in blocks])
    return (jac, _released(aux, keep, prepared.own)) if has_aux else jac


def jacobian_columns(outputs: list, leaves: list, keep: bool) -> tuple[list, set]:
    """(per output, per leaf: d output / d leaf, ids of the helper leaves) built as forward mode builds it, one
    column per leaf element, each a jvp with a basis tangent by the double-backward trick of `_jvp_leaves`, so each
    entry is forward mode's product, down to the sign of a zero. `keep`: the columns keep a graph."""
    dummies = [factories.zeros_like(o, requires_grad=True) if o.is_floating_point() or o.is_complex() else None
               for o in outputs]
    used = [u for u in dummies if u is not None]
    back = _grads([o for o, u in zip(outputs, dummies) if u is not None], leaves, used, create_graph=True)
    columns = [[iter(_grads(back, used, _basis_tangents(leaves, k, j), create_graph=keep))
                for j in range(leaf.nelement())] for k, leaf in enumerate(leaves)]
    blocks = [[_jacobian_block(out, leaf, [next(c) for c in per_element] if dummy is not None else [])
               for leaf, per_element in zip(leaves, columns)] for out, dummy in zip(outputs, dummies)]
    return blocks, {id(u) for u in used}


def _basis_tangents(leaves: list, k: int, j: int) -> list:
    """Tangents for every leaf: zero except element j of leaf k, which is one."""
    tangents = [factories.zeros_like(leaf) for leaf in leaves]
    tangents[k].view(-1)[j] = 1
    return tangents


def _jacobian_block(out: Tensor, leaf: Tensor, columns: list) -> Tensor:
    """d out / d leaf (shape out.shape + leaf.shape) from its columns, zeros where there are none."""
    if not columns:
        return factories.zeros(out.shape + leaf.shape, dtype=out.dtype, device=out.device)
    return stack(columns, dim=-1).view(out.shape + leaf.shape)


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None) -> Callable:
    """A function returning the Jacobian of func w.r.t. argnums (reverse mode)."""
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _jacobian(func, args, kwargs, argnums, has_aux, "vjp(f, *primals)")

    return wrapper


def jacfwd(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable:
    """A function returning the Jacobian of func w.r.t. argnums, column by column as forward mode builds it."""
    _check_randomness(randomness)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        _refuse_complex("jacfwd", args, "inputs")
        for p in _argnums(argnums, len(args)):
            for t in _flatten(args[p])[0]:
                if not isinstance(t, Tensor):
                    raise AttributeError(f"'{type(t).__name__}' object has no attribute 'numel'")
                if not (t.is_floating_point() or t.is_complex()):
                    raise ValueError(f"Expected primal to be floating point or complex, but got: {t.dtype}")
        return _forward_jacobian(func, args, kwargs, argnums, has_aux, "jvp(f, primals, tangents)")

    return wrapper


def hessian(func: Callable, argnums: int | tuple[int, ...] = 0) -> Callable:
    """The Jacobian of the Jacobian: shapes output.shape + input.shape + input.shape."""
    return jacfwd(jacrev(func, argnums), argnums)


# ----- vmap ------------------------------------------------------------------------------------------


def _check_randomness(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")


def _name(func: Callable) -> str:
    if hasattr(func, "__name__"):
        return func.__name__
    if isinstance(func, functools.partial):
        return f"functools.partial({_name(func.func)}, ...)"
    return repr(func)


def _batched_inputs(func: Callable, in_dims, args: tuple) -> tuple[list, list, _Spec, int]:
    """(leaves, their in_dims, spec, batch size), checked as PyTorch's vmap checks them."""
    where = f"vmap({_name(func)}, in_dims={in_dims}, ...)(<inputs>)"
    if not isinstance(in_dims, (int, tuple)):
        raise ValueError(f"{where}: expected `in_dims` to be int or a (potentially nested) tuple matching the "
                         f"structure of inputs, got: {type(in_dims)}.")
    if not args:
        raise ValueError(f"vmap({_name(func)})(<inputs>): got no inputs. Maybe you forgot to add inputs, or you are "
                         "trying to vmap over a function with no inputs. The latter is unsupported.")
    leaves, spec = _flatten(args)
    dims = _broadcast_prefix(in_dims, spec)
    if dims is None:
        raise ValueError(f"{where}: in_dims is not compatible with the structure of `inputs`. in_dims has structure "
                         f"{_flatten(in_dims)[1]} but inputs has structure {spec}.")
    sizes = []
    for leaf, dim in zip(leaves, dims):
        if dim is None:
            continue
        if not isinstance(leaf, Tensor):
            raise ValueError(f"{where}: Got in_dim={dim} for an input but the input is of type {type(leaf)}. We "
                             "cannot vmap over non-Tensor arguments, please use None as the respective in_dim")
        if not -leaf.dim() <= dim < leaf.dim():
            raise ValueError(f"{where}: Got in_dim={dim} for some input, but that input is a Tensor of "
                             f"dimensionality {leaf.dim()} so expected in_dim to satisfy "
                             f"-{leaf.dim()} <= in_dim < {leaf.dim()}.")
        sizes.append(leaf.shape[dim])
    if not sizes:
        raise ValueError("vmap: Expected at least one Tensor to vmap over")
    if any(s != sizes[0] for s in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped dimension, got sizes "
                         f"{sizes} for the mapped dimension")
    return leaves, dims, spec, sizes[0]


def _element(leaf, dim, index: int | None):
    """One batch element of an input: `select` (differentiable), or for an empty batch a zero stand-in."""
    if dim is None:
        return leaf
    if index is None:
        shape = leaf.shape[:dim % leaf.dim()] + leaf.shape[dim % leaf.dim() + 1:]
        return factories.zeros(shape, dtype=leaf.dtype, device=leaf.device)
    return leaf.select(dim, index)


def _stacked(func: Callable, results: list, out_dims, empty: bool):
    """Per-element outputs stacked along out_dims into func's output structure."""
    leaves, spec = _flatten(results[0])
    if isinstance(out_dims, tuple) and len(out_dims) == 1 and spec.kind is None:
        out_dims = out_dims[0]
    dims = _broadcast_prefix(out_dims, spec)
    if dims is None:
        raise ValueError(f"vmap({_name(func)}, ..., out_dims={out_dims})(<inputs>): out_dims is not compatible with "
                         f"the structure of `outputs`. out_dims has structure {_flatten(out_dims)[1]} but outputs "
                         f"has structure {spec}.")
    columns = list(zip(*(_flatten(r)[0] for r in results)))
    stacked = []
    for column, dim in zip(columns, dims):
        first = column[0]
        if dim is None:
            if isinstance(first, Tensor) and any(c.shape != first.shape or not bool((c == first).all())
                                                 for c in column[1:]):
                raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` can not return a BatchedTensor when "
                                 "out_dim is None")
            stacked.append(first)
            continue
        if not isinstance(first, Tensor):
            raise ValueError(f"vmap({_name(func)}, ...): `{_name(func)}` must only return Tensors, got type "
                             f"{type(first)}. Did you mean to set out_dims= to None for output?")
        out = stack(list(column), dim=dim)
        stacked.append(out.narrow(dim, 0, 0) if empty else out)
    return _unflatten(spec, stacked)


def vmap(func: Callable, in_dims: int | tuple = 0, out_dims: int | tuple = 0, randomness: str = "error", *,
         chunk_size: int | None = None) -> Callable:
    """func mapped over a batch dimension of its inputs. A loop: func runs once per element (select along
    in_dims) and the outputs are stacked along out_dims, so shapes and values are PyTorch's, and gradients
    flow through; chunk_size is checked and otherwise has no effect."""
    _check_randomness(randomness)
    if chunk_size is not None and chunk_size <= 0:
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got {chunk_size})")

    @functools.wraps(func)
    def wrapped(*args, **kwargs):
        leaves, dims, spec, size = _batched_inputs(func, in_dims, args)
        state = get_rng_state()
        results = []
        for index in range(size) if size else [None]:
            if randomness == "same":
                set_rng_state(state)
            before = get_rng_state()
            with IN_TRANSFORM.entered(), IN_VMAP.entered():
                results.append(func(*_unflatten(spec, [_element(t, d, index) for t, d in zip(leaves, dims)]),
                                    **kwargs))
            if randomness == "error" and bool((get_rng_state() != before).any()):
                raise RuntimeError("vmap: called random operation while in randomness error mode. Please either use "
                                   "the 'same' or 'different' randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
        return _stacked(func, results, out_dims, empty=not size)

    return wrapped


# ----- modules ---------------------------------------------------------------------------------------

_MISSING = object()


def _swap(module, name: str, value):
    """Puts `value` at dotted `name` in `module` (its parameter or buffer slot when there is one) and
    returns what was there; `_MISSING` removes, or reports an absent attribute."""
    prefix, _, attr = name.rpartition(".")
    owner = module
    for part in prefix.split(".") if prefix else ():
        parent = owner
        if not hasattr(parent, part):
            raise AttributeError(f"{parent._get_name()} has no attribute `{part}`")
        owner = getattr(parent, part)
        if not hasattr(owner, "_parameters"):
            raise TypeError(f"submodule `{part}`: {owner} is not an instance of torch.nn.Module")
    if value is not _MISSING and value is not None and not isinstance(value, Tensor):
        raise TypeError(f"{value} is not an instance of torch.Tensor")
    for registry in (owner._parameters, owner._buffers):
        if attr in registry:
            original = registry[attr]
            if value is _MISSING:
                del registry[attr]
            else:
                registry[attr] = value
            return original
    original = getattr(owner, attr, _MISSING)
    if value is not _MISSING:
        setattr(owner, attr, value)
    elif original is not _MISSING:
        delattr(owner, attr)
    return original


def _named_tensors(module) -> dict:
    named = dict(module.named_parameters(remove_duplicate=False))
    named.update(module.named_buffers(remove_duplicate=False))
    return named


def _untied(module, given: dict) -> dict:
    """`given` plus every name tied (the same tensor) to a given name, all mapped to the given value."""
    names_of = {}
    for name, t in _named_tensors(module).items():
        names_of.setdefault(id(t), set()).add(name)
    tied = {n: names for names in names_of.values() if len(names) > 1 for n in names}
    untied = dict(given)
    for name in given:
        if name not in tied:
            continue
        values = {id(given[n]) for n in tied[name] if n in given}
        if len(values) > 1:
            raise ValueError(f"functional_call got multiple values for keys {sorted(tied[name])}, which are tied. "
                             "Consider using tie_weights=False")
        for other in tied[name]:
            untied[other] = given[name]
    return untied


def _merged(parameter_and_buffer_dicts) -> dict:
    if isinstance(parameter_and_buffer_dicts, dict):
        return parameter_and_buffer_dicts
    if not isinstance(parameter_and_buffer_dicts, (tuple, list)):
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
        raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
    counts = {}
    for d in parameter_and_buffer_dicts:
        for k in d:
            counts[k] = counts.get(k, 0) + 1
    repeated = [k for k, n in counts.items() if n > 1]
    if repeated:
        raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
    return {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}


def functional_call(module, parameter_and_buffer_dicts, args: Any = None, kwargs: dict | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with the given tensors in place of its parameters and buffers (so gradients
    reach them), the originals put back afterwards."""
    given = _merged(parameter_and_buffer_dicts)
    swaps = _untied(module, given) if tie_weights else dict(given)
    if strict:
        valid = set(_named_tensors(module))
        missing, unexpected = sorted(valid - set(swaps)), sorted(set(swaps) - valid)
        errors = ([f"Unexpected key(s): {', '.join(map(repr, unexpected))}."] if unexpected else []) + \
                 ([f"Missing key(s): {', '.join(map(repr, missing))}."] if missing else [])
        if errors:
            raise RuntimeError(f"Error(s) in reparametrizing for {module._get_name()}:\n\t" + "\n\t".join(errors))
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    originals = {}
    try:
        for name, value in swaps.items():
            originals[name] = _swap(module, name, value)
        return module(*args, **(kwargs or {}))
    finally:
        for name, original in originals.items():
            _swap(module, name, original)


def stack_module_state(models: Sequence) -> tuple[dict, dict]:
    """(params, buffers) of same-class models, each entry stacked along a new leading dimension; stacked
    parameters are new leaves, for vmap over `functional_call` (model ensembling)."""
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stacked(named: list[dict]) -> dict:
        result = {}
        for name in named[0]:
            tensors = [n[name] for n in named]
            flags = {t.requires_grad for t in tensors}
            if len(flags) > 1:
                raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
            result[name] = stack(tensors).detach().requires_grad_() if flags == {True} else stack(tensors)
        return result

    return (stacked([dict(m.named_parameters()) for m in models]),
            stacked([dict(m.named_buffers()) for m in models]))
