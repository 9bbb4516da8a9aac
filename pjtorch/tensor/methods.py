"""Binds the functional API onto Tensor as methods and operators, in one table-driven place."""
from __future__ import annotations

import importlib
import re
import warnings

import jax.numpy as jnp
import numpy as np

from .. import dispatch
from ..autograd.graph import node_class
from ..ops import pointwise, strided
from . import dtypes, extra_functions, factories, functions, indexing, legacy, random, rng, views
from .storage import Storage
from .functions import BINARY_FUNCTIONS, UNARY_FUNCTIONS, as_operand
from .tensor import Tensor


def _method(fn):
    fn = getattr(fn, "without_out", fn)  # methods take no `out=`: skip the torch-function wrapper

    def method(self, *args, **kwargs):
        try:
            return fn(self, *args, **functions.numpy_names(kwargs)) if kwargs else fn(self, *args)
        except TypeError as error:
            raise _counted_from_self(error, self) from None

    method.__name__ = getattr(fn, "__name__", "method")
    method.__doc__ = getattr(fn, "__doc__", None)
    return method


_ARGUMENT_POSITION = re.compile(r"^(\w+\(\): argument '\w+' \(position )(\d+)\)")


def _counted_from_self(error: TypeError, self: Tensor) -> TypeError:
    """A method's argument parser does not count `self`: the function's "(position 2)" is the method's 1, and its
    list of overloads names neither `self` nor `out`."""
    overload_call = getattr(error, "overload_call", None)
    if overload_call is not None and overload_call[1] and overload_call[1][0] is self:
        function, args, kwargs, signatures = overload_call
        return factories.invalid_arguments(function, args[1:], kwargs, tuple(
            _method_signature(s) if isinstance(s, str) else (_method_signature(s[0]), s[1]) for s in signatures))
    match = _ARGUMENT_POSITION.match(str(error))
    if match is None or match.group(2) == "1":
        return error
    return TypeError(f"{match.group(1)}{int(match.group(2)) - 1}){str(error)[match.end():]}")


def _method_signature(signature: str) -> str:
    """A function overload as the Tensor method lists it: without the leading `Tensor input` and without `out`."""
    if signature.startswith("Tensor input"):
        signature = signature[len("Tensor input"):].removeprefix(", ")
    return _OUT_PARAMETER.sub("", signature)


# `out` as the last parameter (with the `*` before it when it is the only keyword-only one).
_OUT_PARAMETER = re.compile(r"(?:^|,? ?)(?:\*, )?(?:Tensor|tuple of Tensors) out = None$")


def _reflected(fn):
    """`2 - t` -> fn(2, t): the scalar is the left operand."""
    fn = getattr(fn, "without_out", fn)

    def method(self, other):
        try:
            other = as_operand(other)
        except TypeError:
            return NotImplemented
        return fn(other, self)

    return method


def _forward(fn, op=None):
    """`t ⊕ other` as fn(t, other); where fn is a plain dispatch of `op`, a tensor or Python number goes straight
    to dispatch (the per-op hot path: no conversion can apply to them)."""
    apply, fn = dispatch.apply, getattr(fn, "without_out", fn)

    def method(self, other):
        if op is not None and type(other) in _PLAIN_OPERANDS:
            return apply(op, (self, other), ())
        try:
            other = as_operand(other)
        except TypeError:
            return NotImplemented
        return fn(self, other)

    return method


_PLAIN_OPERANDS = frozenset({Tensor, bool, int, float, complex})


def _inplace_operator(fn):
    def method(self, other):
        fn(self, as_operand(other))
        return self

    return method


_NAMED = {
    **{name: fn for name, fn in UNARY_FUNCTIONS.items()},
    **{name: fn for name, fn in BINARY_FUNCTIONS.items()},
    "add": functions.add, "sub": functions.sub, "subtract": functions.sub, "div": functions.div,
    "divide": functions.div, "multiply": BINARY_FUNCTIONS["mul"], "pow": functions.pow, "pow_": functions.pow_,
    "clamp": functions.clamp, "clamp_": functions.clamp_, "clip": functions.clamp, "clip_": functions.clamp_,
    "clamp_min": functions.clamp_min, "clamp_max": functions.clamp_max, "round": functions.round,
    "lerp": functions.lerp, "addcmul": functions.addcmul, "addcdiv": functions.addcdiv,
    "float_power": functions.float_power,
    "sum": functions.sum, "nansum": functions.nansum, "prod": functions.prod, "mean": functions.mean,
    "nanmean": functions.nanmean, "max": functions.max, "min": functions.min, "amax": functions.amax,
    "amin": functions.amin, "aminmax": functions.aminmax, "argmax": functions.argmax, "argmin": functions.argmin,
    "std": functions.std, "var": functions.var, "norm": functions.norm, "all": functions.all, "any": functions.any,
    "logsumexp": functions.logsumexp, "cumsum": functions.cumsum, "cumprod": functions.cumprod,
    "cummax": functions.cummax, "cummin": functions.cummin, "logcumsumexp": functions.logcumsumexp,
    "softmax": functions.softmax, "log_softmax": functions.log_softmax, "count_nonzero": functions.count_nonzero,
    "median": functions.median,
    "matmul": functions.matmul, "mm": functions.mm, "bmm": functions.bmm, "mv": functions.mv, "dot": functions.dot,
    "outer": functions.outer, "ger": functions.outer, "addmm": functions.addmm,
    "clone": functions.clone, "contiguous": functions.contiguous, "copy_": functions.copy_, "fill_": functions.fill_,
    "zero_": functions.zero_, "fliplr": functions.fliplr, "flipud": functions.flipud,
    "roll": functions.roll, "repeat": functions.repeat, "tile": functions.tile_method,
    "repeat_interleave": functions.repeat_interleave, "tril": functions.tril, "triu": functions.triu,
    "tril_": functions.tril_, "triu_": functions.triu_, "sort": functions.sort, "argsort": functions.argsort,
    "topk": functions.topk, "kthvalue": functions.kthvalue,
    "gather": functions.gather, "scatter": functions.scatter, "scatter_": functions.scatter_,
    "scatter_add": functions.scatter_add, "scatter_add_": functions.scatter_add_,
    "scatter_reduce": functions.scatter_reduce, "index_select": functions.index_select,
    "index_add": functions.index_add, "index_add_": functions.index_add_, "index_copy": functions.index_copy,
    "index_copy_": functions.index_copy_, "index_fill": functions.index_fill, "index_fill_": functions.index_fill_,
    "take": functions.take, "take_along_dim": functions.take_along_dim, "masked_fill": functions.masked_fill,
    "masked_fill_": functions.masked_fill_, "masked_select": functions.masked_select,
    "masked_scatter": functions.masked_scatter, "nonzero": functions.nonzero, "argwhere": functions.argwhere,
    "unique": functions.unique, "allclose": functions.allclose, "isclose": functions.isclose,
    "equal": functions.equal, "index_put_": indexing.index_put_, "index_put": indexing.index_put,
    "view": views.view, "reshape": views.reshape_method, "view_as": views.view_as, "reshape_as": views.reshape_as,
    "flatten": views.flatten, "unflatten": views.unflatten, "permute": views.permute_method,
    "transpose": views.transpose, "swapaxes": views.transpose, "swapdims": views.transpose, "t": views.t_,
    "movedim": views.movedim, "moveaxis": views.movedim, "squeeze": views.squeeze, "unsqueeze": views.unsqueeze,
    "select": views.select, "narrow": views.narrow, "expand": views.expand, "expand_as": views.expand_as,
    "broadcast_to": views.broadcast_to_method, "diagonal": views.diagonal, "unfold": views.unfold,
    "as_strided": views.as_strided, "unbind": views.unbind, "split": views.split, "chunk": views.chunk,
    "tensor_split": views.tensor_split, "hsplit": views.hsplit, "vsplit": views.vsplit, "dsplit": views.dsplit,
    "bincount": extra_functions.bincount,
    "diag": extra_functions.diag, "diag_embed": extra_functions.diag_embed, "diagflat": extra_functions.diagflat,
    "trace": extra_functions.trace, "diff": extra_functions.diff, "histc": extra_functions.histc,
    "kron": extra_functions.kron, "rot90": extra_functions.rot90, "mode": extra_functions.mode,
    "msort": extra_functions.msort, "cross": extra_functions.cross, "cov": extra_functions.cov,
    "corrcoef": extra_functions.corrcoef, "clamp_min_": functions.clamp_min_, "clamp_max_": functions.clamp_max_,
    "to": factories.to, "scatter_reduce_": functions.scatter_reduce_, "masked_scatter_": functions.masked_scatter_,
    "cumsum_": functions.cumsum_, "cumprod_": functions.cumprod_,
    **{name: getattr(extra_functions, name) for name in (
        "dist", "nanmedian", "quantile", "nanquantile", "renorm", "renorm_", "frexp", "mvlgamma", "addmv", "addmv_",
        "addr", "addr_", "addbmm", "addbmm_", "baddbmm", "baddbmm_", "vdot", "inner", "logdet", "matrix_exp", "put",
        "put_", "index_reduce", "index_reduce_", "diagonal_scatter", "select_scatter", "slice_scatter",
        "unique_consecutive", "histogram", "ravel", "adjoint", "type_as", "sum_to_size", "fill_diagonal_",
        "split_with_sizes", "narrow_copy", "svd", "qr", "cholesky", "cholesky_solve", "cholesky_inverse",
        "triangular_solve", "igamma", "igammac", "igamma_", "igammac_", "lu_solve", "addmm_", "nonzero_static")},
}

for _name, _fn in _NAMED.items():
    setattr(Tensor, _name, _method(_fn))


def _where(self, condition, other):
    return functions.where(condition, self, other)


def _cast(dtype):
    def method(self, memory_format=None):
        return functions.to_dtype(self, dtype)

    return method


def _new_factory(fn):
    name = f"new_{fn.__name__}"

    def method(self, *size, dtype=None, device=None, requires_grad=False, **kwargs):
        shape = factories.new_shape(size, function=name)  # refused in the method's own name, as PyTorch does
        return fn(shape, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    return method


def _new_tensor(self, data, dtype=None, device=None, requires_grad=False):
    return factories.tensor(data, dtype=dtype or self.dtype, device=device or self.device,
                            requires_grad=requires_grad)


def _new_full(self, size, fill_value, dtype=None, device=None, requires_grad=False):
    return factories.full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device,
                          requires_grad=requires_grad)


def _pin_memory(self, device=None):
    """Host memory is handed to the accelerator by XLA itself: with one present this is the tensor unchanged."""
    from .. import cuda
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return self


def _new_empty_strided(self, size, stride, dtype=None, device=None, requires_grad=False, **kwargs):
    return factories.empty(size, dtype=dtype or self.dtype, device=device or self.device,
                           requires_grad=requires_grad).as_strided(size, stride)


def _polygamma(self, n):
    return extra_functions.polygamma(n, self)


def _polygamma_(self, n):
    return self.copy_(extra_functions.polygamma(n, self))


def _mvlgamma_(self, p):
    return self.copy_(extra_functions.mvlgamma(self, p))


def _unsafe_split(self, split_size, dim=0):
    return views.split(self, split_size, dim)


def _apply_(self, callable):
    """Calls a Python function on every element, as PyTorch's CPU-only apply_ does (slow by design)."""
    values = np.vectorize(callable, otypes=[self.dtype.jax])(np.asarray(self._value()))
    return self.copy_(factories.tensor(values, dtype=self.dtype))


def _map_(self, other, callable):
    values = np.vectorize(callable, otypes=[self.dtype.jax])(np.asarray(self._value()),
                                                            np.asarray(other.expand_as(self)._value()))
    return self.copy_(factories.tensor(values, dtype=self.dtype))


def _cpu(self, memory_format=None):
    return factories.to(self, "cpu")


def _cuda(self, device=None, non_blocking=False, memory_format=None):
    return factories.to(self, "cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))


def _random_fill(kind):
    def method(self, *params, generator=None, **named):
        values = tuple(params) + tuple(named.values())
        return random.fill_random_(self, kind, tuple(float(v) for v in values), generator)

    return method


def _random_(self, low=None, high=None, *, generator=None):
    """random_() spans the dtype (integers up to its max, floats up to 2**mantissa bits); random_(to); random_(from, to)."""
    if low is None:
        low, high = 0, _random_range_end(self.dtype)
    elif high is None:
        low, high = 0, low
    drawn = random.randint(low, high, self.shape, dtype=self.dtype, device=self.device, generator=generator)
    return self.copy_(drawn)


def _random_range_end(dtype) -> int:
    if dtype is dtypes.bool:
        return 2
    if dtype.category == dtypes.INTEGER:
        return int(np.iinfo(dtype.jax).max) + 1
    return 2 ** (jnp.finfo(dtype.jax).nmant + 1) + 1


def _bernoulli_(self, p=0.5, *, generator=None):
    """Each element 1 with probability p: a number, or a tensor of them broadcast to self."""
    if isinstance(p, Tensor):
        return self.copy_(random.bernoulli(p.expand(self.shape), generator=generator))
    return self.copy_(random.bernoulli(self, float(p), generator=generator))


def _in_place_sampler(sampler):
    """`t.exponential_(...)` and friends: t's values become the sampler's draws."""
    def method(self, *params, generator=None, **named):
        return self.copy_(random.draws_like(self, sampler, *params, generator=generator, **named))

    return method


_exponential_, _cauchy_ = _in_place_sampler(rng.exponential), _in_place_sampler(rng.cauchy)
_geometric_, _log_normal_ = _in_place_sampler(rng.geometric), _in_place_sampler(rng.log_normal)


def _set_part(part):
    """`z.real = v` and `z.imag = v`: copies into that view of `z`."""
    def setter(self, value):
        part(self).copy_(value)

    return setter


def _resize_(self, *sizes, memory_format=None):
    """Contiguous strides over the same storage from the same offset; a storage too small for the new size is
    replaced by a larger one holding the old values (so, unlike PyTorch's, other views of it no longer share)."""
    shape = views.shape_args(sizes)
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if any(size < 0 for size in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"[{', '.join(map(str, shape))}]")
    storage, needed = self._storage, self._offset + int(np.prod(shape))
    if needed > storage.numel:
        if storage.memory._host is not None:
            raise RuntimeError("Trying to resize storage that is not resizable")
        flat = storage.array.reshape(-1)
        grown = jnp.concatenate([flat, jnp.zeros(needed - flat.size, flat.dtype)])
        storage = Storage(grown, storage.device, storage.dtype)
    if shape != self._shape:  # a resize is an in-place change: PyTorch bumps the version counter
        storage.version = self._storage.version + 1
    stride = strided.contiguous_strides(shape)
    resized = Tensor._from_storage(storage, shape, stride, self._offset)
    self._storage, self._shape, self._stride, self._whole = storage, resized._shape, stride, resized._whole
    return self


def _set_(self, source=None):
    """`t.set_(other)`: `t` becomes another handle on `other`'s memory and layout; `t.set_()`: empty."""
    if source is None:
        source = factories.empty(0, dtype=self.dtype, device=self.device)
    if not isinstance(source, Tensor):
        raise TypeError("pjtorch's set_ takes a tensor (or nothing): its storages are not user objects")
    if source.dtype is not self.dtype:
        raise RuntimeError(f"Could not set tensor of type {self.dtype.name} to a tensor of type {source.dtype.name}")
    self._storage, self._shape, self._stride, self._offset = source._storage, source._shape, source._stride, source._offset
    self._whole = source._whole
    return self


def _as_subclass(self, cls):
    """A `cls` instance sharing memory and history (AliasBackward0, as PyTorch's)."""
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError(f"as_subclass(): argument 'cls' must be a subclass of Tensor, not {cls!r}")
    alias = views.alias(self)
    alias.__class__ = cls
    return alias


_TYPED_STORAGE_WARNING = ("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the "
                          "only storage class. This should only matter to you if you are using storages directly.  To "
                          "access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")


def _storage_type(self):
    warnings.warn(_TYPED_STORAGE_WARNING, UserWarning, stacklevel=2)
    return legacy.STORAGE_TYPES[self.dtype]


def _late(module: str, name: str):
    """A method that is a function of a module built on this package (so imported on call)."""
    def method(self, *args, **kwargs):
        return getattr(importlib.import_module(module), name)(self, *args, **kwargs)

    return method


_EXTRA = {
    "where": _where,
    "det": _late("pjtorch.linalg", "det"), "inverse": _late("pjtorch.linalg", "inv"),
    "matrix_power": _late("pjtorch.linalg", "matrix_power"), "slogdet": _late("pjtorch", "slogdet"),
    "pinverse": _late("pjtorch", "pinverse"),
    "float": _cast(dtypes.float32), "double": _cast(dtypes.float64), "half": _cast(dtypes.float16),
    "bfloat16": _cast(dtypes.bfloat16), "long": _cast(dtypes.int64), "int": _cast(dtypes.int32),
    "short": _cast(dtypes.int16), "char": _cast(dtypes.int8), "byte": _cast(dtypes.uint8),
    "bool": _cast(dtypes.bool), "cfloat": _cast(dtypes.complex64), "cdouble": _cast(dtypes.complex128),
    "new_zeros": _new_factory(factories.zeros), "new_ones": _new_factory(factories.ones),
    "new_empty": _new_factory(factories.empty), "new_tensor": _new_tensor, "new_full": _new_full,
    "cpu": _cpu, "cuda": _cuda,
    "uniform_": _random_fill("uniform"), "normal_": _random_fill("normal"), "random_": _random_,
    "bernoulli_": _bernoulli_, "exponential_": _exponential_, "log_normal_": _log_normal_, "cauchy_": _cauchy_,
    "geometric_": _geometric_, "bernoulli": random.bernoulli, "multinomial": random.multinomial,
    "new_empty_strided": _new_empty_strided, "polygamma": _polygamma, "polygamma_": _polygamma_,
    "mvlgamma_": _mvlgamma_, "unsafe_split": _unsafe_split, "unsafe_chunk": views.chunk,
    "unsafe_split_with_sizes": extra_functions.split_with_sizes, "apply_": _apply_, "map_": _map_,
    "resolve_conj": functions.resolve_conj, "resolve_neg": functions.resolve_neg,
    "pin_memory": _pin_memory, "is_pinned": lambda self, device=None: False, "share_memory_": lambda self: self,
    "to_dense": lambda self, dtype=None, *, masked_grad=None: self if dtype is None else self.to(dtype),
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem,
    "T": property(views.T), "mT": property(views.mT), "H": property(views.H), "mH": property(views.mH),
    "resize_": _resize_, "resize_as_": lambda self, other, memory_format=None: _resize_(self, other.shape),
    "set_": _set_, "as_subclass": _as_subclass, "storage_type": _storage_type,
    "output_nr": property(lambda self: self._output_nr), "const_data_ptr": Tensor.data_ptr,
    "is_same_size": lambda self, other: self._shape == other._shape,
    "is_signed": lambda self: self.dtype.is_signed, "is_nonzero": functions.is_nonzero,
    "is_conj": functions.is_conj, "is_neg": functions.is_neg, "is_shared": lambda self: False,
    "_is_view": lambda self: self._base is not None, "__reversed__": lambda self: self if self.ndim == 0 else self.flip(0),
    "real": property(views.real, _set_part(views.real)),
    "imag": property(views.imag, _set_part(views.imag)),
    "layout": property(lambda self: extra_functions.strided), "is_sparse": property(lambda self: False),
}
for _name, _fn in _EXTRA.items():
    setattr(Tensor, _name, _fn)
for _name in ("is_meta", "is_quantized", "is_nested", "is_sparse_csr", "is_mkldnn", "is_xla", "is_mps", "is_xpu"):
    setattr(Tensor, _name, property(lambda self: False))  # pjtorch has only strided, dense, CPU/GPU tensors

# Operators: (dunder, function, reflected dunder or None, in-place dunder or None).
_OPERATORS = (
    ("__add__", functions.add, "__radd__", "__iadd__", "add_"),
    ("__sub__", functions.sub, None, "__isub__", "sub_"),
    ("__mul__", BINARY_FUNCTIONS["mul"], "__rmul__", "__imul__", "mul_"),
    ("__truediv__", functions.div, "__rtruediv__", "__itruediv__", "div_"),
    ("__floordiv__", BINARY_FUNCTIONS["floor_divide"], "__rfloordiv__", "__ifloordiv__", "floor_divide_"),
    ("__mod__", BINARY_FUNCTIONS["remainder"], "__rmod__", "__imod__", "remainder_"),
    ("__pow__", functions.pow, "__rpow__", "__ipow__", "pow_"),
    ("__and__", BINARY_FUNCTIONS["bitwise_and"], "__rand__", "__iand__", "bitwise_and_"),
    ("__or__", BINARY_FUNCTIONS["bitwise_or"], "__ror__", "__ior__", "bitwise_or_"),
    ("__xor__", BINARY_FUNCTIONS["bitwise_xor"], "__rxor__", "__ixor__", "bitwise_xor_"),
    ("__lshift__", BINARY_FUNCTIONS["bitwise_left_shift"], "__rlshift__", "__ilshift__", "bitwise_left_shift_"),
    ("__rshift__", BINARY_FUNCTIONS["bitwise_right_shift"], "__rrshift__", "__irshift__", "bitwise_right_shift_"),
    ("__eq__", BINARY_FUNCTIONS["eq"], None, None, None),
    ("__ne__", BINARY_FUNCTIONS["ne"], None, None, None),
    ("__lt__", BINARY_FUNCTIONS["lt"], None, None, None),
    ("__le__", BINARY_FUNCTIONS["le"], None, None, None),
    ("__gt__", BINARY_FUNCTIONS["gt"], None, None, None),
    ("__ge__", BINARY_FUNCTIONS["ge"], None, None, None),
)
# PyTorch's reflected forms of commutative operators keep the tensor first (`2 * x` is `x.mul(2)`),
# which decides the order of next_functions.
_COMMUTATIVE = {"__radd__", "__rmul__", "__rand__", "__ror__", "__rxor__"}
for _dunder, _fn, _reflected_name, _inplace_name, _method_name in _OPERATORS:
    # `plain_op`: the op a function only dispatches (for default options), with no conversion or check of its own
    setattr(Tensor, _dunder, _forward(_fn, getattr(_fn, "plain_op", None)))
    if _reflected_name in _COMMUTATIVE:
        setattr(Tensor, _reflected_name, _forward(_fn, getattr(_fn, "plain_op", None)))
    elif _reflected_name:
        setattr(Tensor, _reflected_name, _reflected(_fn))
    if _inplace_name:
        setattr(Tensor, _inplace_name, _inplace_operator(getattr(Tensor, _method_name)))

Tensor.__rsub__ = _forward(functions.rsub)
# `2 / x` is `x.reciprocal() * 2` in PyTorch (MulBackward0, saving reciprocal's result).
Tensor.__rtruediv__ = _forward(lambda self, other: BINARY_FUNCTIONS["mul"](UNARY_FUNCTIONS["reciprocal"](self), other))
def _matmul_operator(fn):
    """`@` takes tensors only: anything else is Python's own TypeError (unsupported operand type(s) for @)."""
    def method(self, other):
        return fn(self, other) if isinstance(other, Tensor) else NotImplemented

    return method


# No __imatmul__, as in PyTorch: `x @= y` rebinds x to `x @ y`.
Tensor.__matmul__ = _matmul_operator(functions.matmul)
Tensor.__rmatmul__ = _matmul_operator(lambda self, other: functions.matmul(other, self))
Tensor.__neg__ = lambda self: UNARY_FUNCTIONS["neg"](self)
Tensor.__abs__ = lambda self: UNARY_FUNCTIONS["abs"](self)


def _positive(self):
    """`+t` is `t` itself (PyTorch's aliases it), except that bool tensors refuse it."""
    if self.dtype is dtypes.bool:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return self


def _invert(self):
    if self.dtype.category > dtypes.INTEGER:
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return UNARY_FUNCTIONS["bitwise_not"](self)


Tensor.__pos__ = _positive
Tensor.__invert__ = _invert

# PyTorch's alternative names for existing ops, for methods, their in-place forms and `torch.*`.
ALIASES = {
    "absolute": "abs", "arccos": "acos", "arccosh": "acosh", "arcsin": "asin", "arcsinh": "asinh",
    "arctan": "atan", "arctanh": "atanh", "arctan2": "atan2", "fix": "trunc", "negative": "neg",
    "subtract": "sub", "multiply": "mul", "divide": "div", "not_equal": "ne", "less": "lt", "less_equal": "le",
    "greater": "gt", "greater_equal": "ge",
}
for _alias, _name in ALIASES.items():
    for _suffix in ("", "_"):
        if hasattr(Tensor, _name + _suffix):
            setattr(Tensor, _alias + _suffix, getattr(Tensor, _name + _suffix))


def _float_power_(self, exponent):
    if self.dtype is not dtypes.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {functions._scalar_type_name(self.dtype)} but "
                           "the operation's result requires dtype Double")
    return functions.pow_(self, exponent.double() if isinstance(exponent, Tensor) else exponent)


def _flip(self, *dims, **options):
    """The method takes its dims as varargs too (`x.flip(0, 1)`), the function only as a sequence."""
    return functions._flip(self, views.shape_args(dims) if dims else options.get("dims", functions.REQUIRED))


def _lerp_(self, end, weight):
    functions.check_lerp(self, end, weight)
    return dispatch.apply_inplace(functions.lerp_op(weight), self, (end, as_operand(weight, "weight")))


def _addcmul_(self, tensor1, tensor2, *, value=1):
    value = functions.addc_value(pointwise.ADDCMUL, (self, tensor1, tensor2), value)
    return dispatch.apply_inplace(pointwise.ADDCMUL, self, (tensor1, tensor2), (("value", value),))


def _addcdiv_(self, tensor1, tensor2, *, value=1):
    value = functions.addc_value(pointwise.ADDCDIV, (self, tensor1, tensor2), value)
    return dispatch.apply_inplace(pointwise.ADDCDIV, self, (tensor1, tensor2), (("value", value),))


def _sorting(name: str):
    """Tensor.sort and Tensor.argsort, whose refusal of a positional dim beside `stable` lists the method's
    overloads."""
    function = getattr(functions, name)

    def method(self, *positional, stable=None, **options):
        if positional and stable is not None:
            raise factories.invalid_arguments(name, positional, {**options, "stable": stable}, (
                "*, bool stable, int dim = -1, bool descending = False",
                ("int dim = -1, bool descending = False", "didn't match because some of the keywords were incorrect: "
                 "stable")))
        return function(self, *positional, stable=stable, **options)

    method.__name__ = name
    return method


for _name, _fn in {
    "sort": _sorting("sort"), "argsort": _sorting("argsort"), "float_power_": _float_power_, "flip": _flip, "lerp_": _lerp_, "addcmul_": _addcmul_, "addcdiv_": _addcdiv_,
}.items():
    setattr(Tensor, _name, _fn)


# In-place view ops: the tensor takes the view's layout, and its history the view's node under PyTorch's name.
_IN_PLACE_VIEW_NAMES = {
    "TBackward0": "TBackward1", "TransposeBackward0": "TransposeBackward1", "UnsqueezeBackward0": "UnsqueezeBackward1",
    "SqueezeBackward0": "SqueezeBackward3", "SqueezeBackward1": "SqueezeBackward4",
    "SqueezeBackward2": "SqueezeBackward5", "AsStridedBackward0": "AsStridedBackward1",
}


def _in_place_view(view):
    def method(self, *args, **kwargs):
        dispatch.check_inplace_allowed(self)
        made = view(self, *args, **kwargs)
        self._shape, self._stride, self._offset, self._whole = made._shape, made._stride, made._offset, made._whole
        self._storage.version += 1
        self._view_version = self._storage.version
        node = made._grad_fn
        if node is not None:
            renamed = node_class(_IN_PLACE_VIEW_NAMES[node.name()])
            self._grad_fn = renamed(node.kernel, node.edges, node.saved, node.versions, node.out_meta)
            self._output_nr = 0
        return self

    return method


def _t_(self):
    if self.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
    return views.t_(self)


for _name, _view in {"t_": _t_, "transpose_": views.transpose, "swapaxes_": views.transpose,
                     "swapdims_": views.transpose, "squeeze_": views.squeeze, "unsqueeze_": views.unsqueeze,
                     "as_strided_": views.as_strided}.items():
    setattr(Tensor, _name, _in_place_view(_view))

# Forms the op tables make that PyTorch's Tensor lacks (`x.rsub(2)`, `x.maximum_(y)`): AttributeError there too.
for _name in ("rsub", "rsub_", "angle_", "conj_", "fmax_", "fmin_", "maximum_", "minimum_", "logaddexp_",
              "logaddexp2_", "positive_", "signbit_", "isfinite_", "isinf_", "isnan_", "isneginf_", "isposinf_",
              "isreal_"):
    if _name in Tensor.__dict__:
        delattr(Tensor, _name)
