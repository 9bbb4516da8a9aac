"""View ops: each is a layout function (shape, stride, offset, args) -> new layout.

The same function serves twice: on the parent's real layout it gives the view's window into
the shared Storage (PyTorch's strides), and on the parent's contiguous layout it gives the
view as a strided read of the parent's value, which is what autograd differentiates.
"""
from __future__ import annotations

import functools
import math
import warnings
from typing import Callable, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from .. import dispatch
from .._stack import user_stacklevel
from ..autograd import forward_ad, grad_mode
from ..ops import extra as extra_ops
from ..ops import shape as shape_ops
from ..ops import strided
from ..ops.registry import Op, SAVES_NOTHING
from . import dtypes
from .size import Size
from .storage import Storage, reinterpreted
from .tensor import Tensor, wrap_dim

_VIEW_OPS: dict = {}
_MULTI_VIEW_OPS: dict = {}


def numpy_names(kwargs: dict) -> dict:
    """PyTorch's argument parser takes NumPy's `axis` and `keepdims` for `dim` and `keepdim` everywhere."""
    if "axis" not in kwargs and "keepdims" not in kwargs:
        return kwargs
    return {{"axis": "dim", "keepdims": "keepdim"}.get(key, key): value for key, value in kwargs.items()}


def _taking_numpy_names(fn):
    """A view function with a `dim`, as `torch.*` also reaches it: PyTorch's parser takes `axis` for `dim` there."""
    @functools.wraps(fn)
    def run(*args, **kwargs):
        return fn(*args, **numpy_names(kwargs)) if kwargs else fn(*args)

    return run


def _view_op(grad_name: str) -> Op:
    found = _VIEW_OPS.get(grad_name)
    if found is None:
        found = _VIEW_OPS[grad_name] = Op("view", strided.read, grad_name=grad_name, saves=SAVES_NOTHING, hidden_inputs=1,
                                          promote="none")
    return found


def make_view(parent: Tensor, layout_fn: Callable, grad_name: str, *args) -> Tensor:
    """A tensor sharing `parent`'s storage through `layout_fn`, recorded for autograd."""
    view = _laid_view(parent, layout_fn, args)
    if _recording(parent):
        kernel, relative_offset, decision = _view_record(parent, layout_fn, grad_name, args)
        offset_array = dispatch.scalar_array(relative_offset, np.int64, parent.device)
        dispatch.record(kernel, (parent, relative_offset), (dispatch.lazy_value(parent), offset_array), (view,),
                        decision=decision)
    return view


_VIEW_RECORDS: dict = {}
_VIEW_RECORDS_LIMIT = 4096


def _view_record(parent: Tensor, layout_fn: Callable, grad_name: str, args: tuple) -> tuple:
    """(kernel, offset within the parent, dispatch's Decision) for recording a view: the view as a function of its
    parent's value. Cached, as a model takes the same views of the same shapes every step."""
    key = (layout_fn, grad_name, parent._shape, parent._storage.dtype, args)
    try:
        found = _VIEW_RECORDS.get(key)
    except TypeError:  # a list among the arguments
        found, key = None, None
    if found is None:
        shape, stride, offset = layout_fn(parent._shape, strided.contiguous_strides(parent._shape), 0, *args)
        kernel = _view_op(grad_name).kernel((("shape", tuple(shape)), ("stride", tuple(stride))))
        result = jax.ShapeDtypeStruct(shape, parent._storage.dtype.jax)
        found = (kernel, offset, dispatch.Decision(kernel, None, result))
        if key is not None and len(_VIEW_RECORDS) < _VIEW_RECORDS_LIMIT:
            _VIEW_RECORDS[key] = found
    return found


def make_views(parent: Tensor, layout_fn: Callable, grad_name: str, arguments: Sequence[tuple]) -> tuple:
    """Views of `parent`, one per argument tuple, recorded as PyTorch records unbind and split: one node with an
    output per view. PyTorch then refuses in-place changes to the views (see dispatch.check_inplace_allowed)."""
    views = tuple(_laid_view(parent, layout_fn, args) for args in arguments)
    if _recording(parent):
        contiguous = strided.contiguous_strides(parent._shape)
        layouts = tuple(layout_fn(parent._shape, contiguous, 0, *args) for args in arguments)
        kernel = _multi_view_op(grad_name).kernel((("layouts", layouts),))
        dispatch.record(kernel, (parent,), (dispatch.lazy_value(parent),), views, tuple_output=True)
        for view in views:
            view._view_creation = "multi_output"
    return views


def _laid_view(parent: Tensor, layout_fn: Callable, args: tuple) -> Tensor:
    """`parent` seen through `layout_fn(shape, stride, offset, *args)`; a dual tensor's tangent is seen the same
    way (forward AD)."""
    view = _view_of(parent, layout_fn(parent._shape, parent._stride, parent._offset, *args))
    tangent = parent._tangent
    if tangent is not None:
        forward_ad.attach(view, _view_of(tangent, layout_fn(tangent._shape, tangent._stride, tangent._offset, *args)))
    return view


def _view_of(parent: Tensor, layout: tuple) -> Tensor:
    view = Tensor._from_storage(parent._storage, *layout)
    view._base = parent._base if parent._base is not None else parent
    view._view_version = parent._storage.version
    _inherit_view_flags(parent, view)
    return view


def _inherit_view_flags(parent: Tensor, view: Tensor) -> None:
    view._view_creation = parent._view_creation
    if not grad_mode.STATE.enabled and parent.requires_grad:
        # PyTorch's view of a tensor that requires grad, made under no_grad: it requires grad too (and prints
        # so) but is a leaf whose gradient goes nowhere.
        view._created_in_no_grad = "inference_mode" if grad_mode.STATE.inference else "no_grad"
        view._requires_grad = True
    elif parent._created_in_no_grad:
        view._created_in_no_grad = parent._created_in_no_grad


def _recording(parent: Tensor) -> bool:
    return grad_mode.STATE.enabled and (parent._grad_fn is not None or parent._requires_grad)


def _read_views(base, *, layouts: tuple) -> tuple:
    return tuple(strided.read(base, offset, shape=shape, stride=stride) for shape, stride, offset in layouts)


def _multi_view_op(grad_name: str) -> Op:
    found = _MULTI_VIEW_OPS.get(grad_name)
    if found is None:
        found = _MULTI_VIEW_OPS[grad_name] = Op("views", _read_views, grad_name=grad_name, saves=SAVES_NOTHING,
                                                promote="none")
    return found


# ----- layout functions ---------------------------------------------------------------------------

def infer_size(shape: Sequence[int], numel: int) -> tuple:
    """Resolves one -1 and checks the element count, with PyTorch's messages."""
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    for i, s in enumerate(shape):
        if s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {_bracketed(shape)}")
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {_bracketed(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{_bracketed(shape)}' is invalid for input of size {numel}")
        shape = shape[:unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{_bracketed(shape)}' is invalid for input of size {numel}")
    return shape


def _bracketed(shape: tuple) -> str:
    """A shape as PyTorch's messages print it: [2, 3]."""
    return f"[{', '.join(map(str, shape))}]"


def view_strides(old_shape: tuple, old_stride: tuple, new_shape: tuple):
    """Strides giving `new_shape` over the same memory, or None where a copy would be needed.

    Old dims are merged into chunks that are contiguous with each other; each chunk must be
    covered exactly by a run of new dims, which then take strides within the chunk.
    """
    if math.prod(old_shape) == 0 or not old_shape:
        return strided.contiguous_strides(new_shape)
    new_stride = [0] * len(new_shape)
    view_d = len(new_shape) - 1
    chunk_base_stride = old_stride[-1]
    tensor_numel, view_numel = 1, 1
    for d in range(len(old_shape) - 1, -1, -1):
        tensor_numel *= old_shape[d]
        if d == 0 or (old_shape[d - 1] != 1 and old_stride[d - 1] != tensor_numel * chunk_base_stride):
            while view_d >= 0 and (view_numel < tensor_numel or new_shape[view_d] == 1):
                new_stride[view_d] = view_numel * chunk_base_stride
                view_numel *= new_shape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base_stride = old_stride[d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return tuple(new_stride)


def _view_layout(shape, stride, offset, new_shape):
    new_stride = view_strides(tuple(shape), tuple(stride), new_shape)
    if new_stride is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one dimension "
                           "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return new_shape, new_stride, offset


def _permute_layout(shape, stride, offset, dims):
    return tuple(shape[d] for d in dims), tuple(stride[d] for d in dims), offset


def _squeeze_layout(shape, stride, offset, dims):
    kept = [d for d in range(len(shape)) if not (d in dims and shape[d] == 1)]
    return tuple(shape[d] for d in kept), tuple(stride[d] for d in kept), offset


def _unsqueeze_layout(shape, stride, offset, dim):
    inner = stride[dim] * shape[dim] if dim < len(shape) else 1
    return shape[:dim] + (1,) + shape[dim:], stride[:dim] + (inner,) + stride[dim:], offset


def _select_layout(shape, stride, offset, dim, index):
    return shape[:dim] + shape[dim + 1:], stride[:dim] + stride[dim + 1:], offset + index * stride[dim]


def _slice_layout(shape, stride, offset, dim, start, stop, step):
    length = max(0, (stop - start + step - 1) // step)
    return (shape[:dim] + (length,) + shape[dim + 1:], stride[:dim] + (stride[dim] * step,) + stride[dim + 1:],
            offset + start * stride[dim])


def _expand_layout(shape, stride, offset, sizes):
    lead = len(sizes) - len(shape)
    new_stride = []
    for i, size in enumerate(sizes):
        if i < lead:
            new_stride.append(0)
            continue
        old = shape[i - lead]
        new_stride.append(0 if old == 1 and size != 1 else stride[i - lead])
    return tuple(sizes), tuple(new_stride), offset


def _diagonal_layout(shape, stride, offset, diag_offset, dim1, dim2):
    if diag_offset >= 0:
        length = max(0, min(shape[dim1], shape[dim2] - diag_offset))
        start = offset + diag_offset * stride[dim2] if length else offset
    else:
        length = max(0, min(shape[dim1] + diag_offset, shape[dim2]))
        start = offset - diag_offset * stride[dim1] if length else offset
    kept = [d for d in range(len(shape)) if d not in (dim1, dim2)]
    return (tuple(shape[d] for d in kept) + (length,),
            tuple(stride[d] for d in kept) + (stride[dim1] + stride[dim2],), start)


def _unfold_layout(shape, stride, offset, dim, size, step):
    if not shape:  # a 0-dim tensor unfolds as one element: shape (size,) with size 0 or 1
        return (size,), (1,), offset
    count = (shape[dim] - size) // step + 1
    return (shape[:dim] + (count,) + shape[dim + 1:] + (size,),
            stride[:dim] + (stride[dim] * step,) + stride[dim + 1:] + (stride[dim],), offset)


def _as_strided_layout(shape, stride, offset, size, new_stride, storage_offset):
    return tuple(size), tuple(new_stride), offset if storage_offset is None else storage_offset


# ----- view methods -------------------------------------------------------------------------------

def shape_args(args) -> tuple:
    """`f(2, 3)`, `f((2, 3))` and `f(torch.Size([2, 3]))` all mean shape (2, 3)."""
    if len(args) == 1 and isinstance(args[0], (tuple, list, Size)):
        args = args[0]
    return tuple(int(a) for a in args)


def int_tuple(args: tuple, function: str, name: str) -> tuple:
    """A `tuple of ints` parameter as PyTorch's parser takes it, as ints or as one sequence, with its errors (the
    position counted as a function's: a method's wrapper restates it as its own)."""
    if not args:
        raise TypeError(f'{function}() missing 1 required positional arguments: "{name}"')
    items = args[0] if len(args) == 1 and type(args[0]) in _PLAIN_SEQUENCES else args
    for item in items:  # the common case, plain ints, needs no parsing
        if type(item) is not int:
            from .factories import size_argument

            return size_argument(args, function, position=2, name=name)
    return tuple(items)


_PLAIN_SEQUENCES = (tuple, list, Size)


def int_argument(value, function: str, name: str, position: int) -> int:
    """An `int` parameter as PyTorch's parser takes it (not a bool, a float or None), its position counted as a
    function's."""
    if type(value) is int:
        return value
    from .factories import arg_type_name, is_int_argument

    if not is_int_argument(value):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be int, not {arg_type_name(value)}")
    return int(value)


def one_keyword(function: str, args: tuple, name: str, value) -> tuple:
    """The arguments with a parameter given by keyword instead."""
    if value is None:
        return args
    if args:
        raise TypeError(f"{function}() got multiple values for argument '{name}'")
    return (value,)


_VIEW_SIGNATURES = ("torch.dtype dtype", "tuple of ints size")


def view(t: Tensor, *args, **kwargs) -> Tensor:
    """`view(dtype)` or `view(*size)`, PyTorch's two overloads, told apart (and refused) as its parser does."""
    if not kwargs and args and (type(args[0]) is int or len(args) == 1 and type(args[0]) in _PLAIN_SEQUENCES):
        return make_view(t, _view_layout, "ViewBackward0", infer_size(int_tuple(args, "view", "size"), t.numel()))
    from .factories import arg_type_name, invalid_arguments, is_int_argument

    if len(kwargs) == 1 and not args and next(iter(kwargs)) in ("size", "dtype"):
        args, kwargs = tuple(kwargs.values()), {}
    if kwargs or not args or len(args) > 1 and not is_int_argument(args[0]):
        raise invalid_arguments("view", args, kwargs, _VIEW_SIGNATURES)
    if len(args) == 1 and isinstance(args[0], dtypes.dtype):
        return view_dtype(t, args[0])
    if len(args) == 1 and not isinstance(args[0], (tuple, list)) and not is_int_argument(args[0]):
        why = f"didn't match because some of the arguments have invalid types: (!{arg_type_name(args[0])}!)"
        raise invalid_arguments("view", args, {}, tuple((signature, why) for signature in _VIEW_SIGNATURES))
    new_shape = infer_size(int_tuple(args, "view", "size"), t.numel())
    return make_view(t, _view_layout, "ViewBackward0", new_shape)


def view_dtype(t: Tensor, dtype) -> Tensor:
    """`t`'s bytes as `dtype` (a copy here: storages are typed), with PyTorch's shape and its checks."""
    old, new = t.dtype.itemsize, dtype.itemsize
    if old != new:
        _check_dtype_view(t, dtype)
    shape, stride, offset = tuple(t._shape), t._stride, t._offset
    if old != new:
        shape = (*shape[:-1], shape[-1] * old // new)
        stride = tuple(step * old // new for step in stride[:-1]) + (1,)
        offset = offset * old // new
    value = shape_ops.bitcast(t._value(), dtype.jax) if t.numel() else t._value().astype(dtype.jax)
    return _laid_out(value.reshape(shape), t.device, dtype, stride, offset)


def view_as_real(input: Tensor) -> Tensor:
    """The complex `input` as (real, imaginary) pairs along a new last dim, sharing its memory."""
    if not input.is_complex():
        raise RuntimeError("view_as_real is only supported for complex tensors")
    stride = tuple(2 * step for step in input._stride) + (1,)
    return _reinterpret(input, input.dtype.to_real(), (*input._shape, 2), stride, 2 * input._offset,
                        extra_ops.VIEW_AS_REAL)


def view_as_complex(input: Tensor) -> Tensor:
    """Pairs along a last dim of 2 as complex numbers, sharing `input`'s memory."""
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError(f"view_as_complex is only supported for half, float and double tensors, but got a tensor of "
                           f"scalar type: {dtypes.LEGACY_NAMES[input.dtype].removesuffix('Tensor')}")
    if input.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input._shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input._stride[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(step % 2 for step in input._stride[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    stride = tuple(step // 2 for step in input._stride[:-1])
    return _reinterpret(input, input.dtype.to_complex(), input._shape[:-1], stride, input._offset // 2,
                        extra_ops.VIEW_AS_COMPLEX)


def _reinterpret(input: Tensor, dtype, shape: tuple, stride: tuple, offset: int, op: Op) -> Tensor:
    """A view of `input`'s memory as another dtype, recorded as `op` (a pure function of `input`'s value).

    Its `_base` stays None: dispatch rebases in-place history and regenerates views through layouts in one
    dtype, which cannot reach a base of another. So it is a base itself, remembering what it reinterprets, and
    Tensor._assign refuses in-place changes through it that autograd would have to track."""
    view = Tensor._from_storage(reinterpreted(input._storage, dtype), shape, stride, offset)
    view._reinterpreted_from = input
    _inherit_view_flags(input, view)
    if _recording(input):
        dispatch.record(op.kernel(), (input,), (input._value(),), (view,))
    return view


def real(t: Tensor) -> Tensor:
    """`t.real`: a view of the real parts (SelectBackward0, as in PyTorch); `t` itself when not complex."""
    return select(view_as_real(t), -1, 0) if t.is_complex() else t


def imag(t: Tensor) -> Tensor:
    if not t.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return select(view_as_real(t), -1, 1)


def _laid_out(value, device, dtype, stride: tuple, offset: int) -> Tensor:
    """A new tensor holding `value` at PyTorch's strides and offset, where they do not overlap."""
    shape = tuple(value.shape)
    if (offset == 0 and stride == strided.contiguous_strides(shape)) or strided._slice_plan(shape, stride) is None:
        return Tensor._wrap_typed(value, device, dtype)
    extent = offset + (1 + sum((size - 1) * step for size, step in zip(shape, stride)) if value.size else 0)
    buffer = strided.compiled_write(shape, stride)(jnp.zeros((extent,), value.dtype), value, offset)
    return Tensor._from_storage(Storage(buffer, device, dtype), shape, stride, offset)


def _check_dtype_view(t: Tensor, dtype) -> None:
    """PyTorch's conditions for viewing as a dtype of another element size."""
    from ..ops.pointwise import SCALAR_NAMES
    what = f"to view {SCALAR_NAMES[t.dtype.jax]} as {SCALAR_NAMES[dtype.jax]} (different element sizes)"
    if t.ndim == 0:
        raise RuntimeError(f"self.dim() cannot be 0 {what}")
    ratio = dtype.itemsize // t.dtype.itemsize
    if ratio > 1:  # growing elements: PyTorch checks the size and offset before the last stride
        if t._shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got {t._shape[-1]}")
        if t._offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {what}, but got {t._offset}")
    if t._stride[-1] != 1:
        raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {t._stride[-1]}")
    if ratio > 1:
        for i, step in enumerate(t._stride[:-1]):
            if step % ratio:
                raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {what}, but got {step}")


def reshape_method(t: Tensor, *args, shape=None) -> Tensor:
    new_shape = infer_size(int_tuple(one_keyword("reshape", args, "shape", shape), "reshape", "shape"), t.numel())
    if view_strides(tuple(t._shape), t._stride, new_shape) is not None:
        return make_view(t, _view_layout, "ViewBackward0", new_shape)
    from . import functions

    return unsafe_view(functions.contiguous(t), new_shape)


def unsafe_view(t: Tensor, shape: tuple) -> Tensor:
    """PyTorch's _unsafe_view of `t`, a fresh result nobody else holds (a clone, a product): reshaped, recorded as
    UnsafeViewBackward0, and not a view."""
    out = make_view(t, _view_layout, "UnsafeViewBackward0", tuple(shape))
    out._base = None
    return out


def squeezed_result(t: Tensor, dim: int) -> Tensor:
    """PyTorch's in-place `squeeze_(dim)` on a fresh result nobody else holds: SqueezeBackward4, not a view."""
    out = make_view(t, _squeeze_layout, "SqueezeBackward4", (wrap_dim(dim, t.ndim),))
    out._base = None
    return out


def view_as(t: Tensor, other: Tensor) -> Tensor:
    return view(t, other.shape)


def reshape_as(t: Tensor, other: Tensor) -> Tensor:
    return reshape_method(t, other.shape)


def flatten(t: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    start_dim = int_argument(start_dim, "flatten", "start_dim", 2)
    end_dim = int_argument(end_dim, "flatten", "end_dim", 3)
    start, end = wrap_dim(start_dim, t.ndim), wrap_dim(end_dim, t.ndim)
    if t.ndim == 0:
        return reshape_method(t, 1)
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return t
    shape = t._shape
    return reshape_method(t, shape[:start] + (math.prod(shape[start:end + 1]),) + shape[end + 1:])


def unflatten(t: Tensor, dim: int, sizes) -> Tensor:
    from .factories import size_argument

    dim = wrap_dim(dim, t.ndim)
    sizes = size_argument((sizes,), "unflatten", position=3, varargs=False, name="sizes")
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known, size = math.prod(s for s in sizes if s != -1), t._shape[dim]
    fits = known != 0 and size % known == 0 if -1 in sizes else known == size
    if not fits:
        raise RuntimeError(f"unflatten: Provided sizes [{', '.join(map(str, sizes))}] don't multiply up to the size "
                           f"of dim {dim} ({size}) in the input tensor")
    sizes = infer_size(sizes, size)
    return view(t, t._shape[:dim] + tuple(sizes) + t._shape[dim + 1:])


def permute_method(t: Tensor, *args, dims=None) -> Tensor:
    dims = int_tuple(one_keyword("permute", args, "dims", dims), "permute", "dims")
    if len(dims) != t.ndim:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
                           f"length of the desired ordering of dimensions i.e. input.dim() = {t.ndim} is not equal "
                           f"to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, t.ndim) for d in dims)
    if len(set(dims)) != len(dims):
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return make_view(t, _permute_layout, "PermuteBackward0", dims)


def transpose(t: Tensor, dim0: int, dim1: int) -> Tensor:
    dim0, dim1 = int_argument(dim0, "transpose", "dim0", 2), int_argument(dim1, "transpose", "dim1", 3)
    if t.ndim == 0:
        wrap_dim(dim0, 0), wrap_dim(dim1, 0)
        return make_view(t, _permute_layout, "TransposeBackward0", ())
    dim0, dim1 = wrap_dim(dim0, t.ndim), wrap_dim(dim1, t.ndim)
    dims = list(range(t.ndim))
    dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return make_view(t, _permute_layout, "TransposeBackward0", tuple(dims))


def t_(t: Tensor) -> Tensor:
    if t.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {t.ndim}D")
    return make_view(t, _permute_layout, "TBackward0", tuple(reversed(range(t.ndim))))


_TENSOR_SHAPE_CPP = "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:{}.)"
T_DEPRECATION = ("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it "
                 "will throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                 "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor. "
                 + _TENSOR_SHAPE_CPP.format(4314))
_ZERO_DIM_DEPRECATIONS = {
    "H": "Tensor.H is deprecated on 0-D tensors. Consider using x.conj(). " + _TENSOR_SHAPE_CPP.format(4335),
    "mT": "Tensor.mT is deprecated on 0-D tensors. This function is the identity in these cases. "
          + _TENSOR_SHAPE_CPP.format(4373),
    "mH": "Tensor.mH is deprecated on 0-D tensors. Consider using x.conj(). " + _TENSOR_SHAPE_CPP.format(4382),
}
_warned: set = set()


def warn_once(message: str) -> None:
    """PyTorch's TORCH_WARN_ONCE: each of these deprecations is shown once per process."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, UserWarning, stacklevel=user_stacklevel())


def T(t: Tensor) -> Tensor:
    if t.ndim != 2:
        warnings.warn(T_DEPRECATION, UserWarning, stacklevel=user_stacklevel())
    return make_view(t, _permute_layout, "PermuteBackward0", tuple(reversed(range(t.ndim))))


def mT(t: Tensor) -> Tensor:
    """Batched matrix transpose; a 0-D tensor is returned itself."""
    if t.ndim == 0:
        warn_once(_ZERO_DIM_DEPRECATIONS["mT"])
        return t
    if t.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {t.ndim}-D tensor.")
    return transpose(t, -2, -1)


def H(t: Tensor) -> Tensor:
    """Conjugate transpose of a matrix; PyTorch refuses batches here (they are mH's)."""
    if t.ndim == 0:
        warn_once(_ZERO_DIM_DEPRECATIONS["H"])
        return t.conj()
    if t.ndim != 2:
        hint = " For batches of matrices, consider using tensor.mH" if t.ndim > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {t.ndim}-D tensor.{hint}")
    return transpose(t, -2, -1).conj()


def mH(t: Tensor) -> Tensor:
    if t.ndim == 0:
        warn_once(_ZERO_DIM_DEPRECATIONS["mH"])
        return t.conj()
    if t.ndim < 2:
        raise RuntimeError(f"tensor.mH is only supported on matrices or batches of matrices. Got {t.ndim}-D tensor.")
    return transpose(t, -2, -1).conj()


def movedim(t: Tensor, source, destination) -> Tensor:
    source = [wrap_dim(d, t.ndim) for d in (source if isinstance(source, (tuple, list)) else [source])]
    destination = [wrap_dim(d, t.ndim) for d in
                   (destination if isinstance(destination, (tuple, list)) else [destination])]
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({_list(source)} dims) should contain "
                           f"the same number of dims as destination ({_list(destination)} dims)")
    for name, dims in (("source", source), ("destination", destination)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({_list(dims)})")
    order = [d for d in range(t.ndim) if d not in source]
    for dst, src in sorted(zip(destination, source)):
        order.insert(dst, src)
    del order[t.ndim:]  # a 0-dim tensor's dim 0 (or -1) is no dim at all
    return make_view(t, _permute_layout, "PermuteBackward0", tuple(order))


def _list(values) -> str:
    return "[" + ", ".join(map(str, values)) + "]"


@_taking_numpy_names
def squeeze(t: Tensor, dim=None) -> Tensor:
    if dim is None:
        return make_view(t, _squeeze_layout, "SqueezeBackward0", tuple(range(t.ndim)))
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    name = "SqueezeBackward2" if isinstance(dim, (tuple, list)) else "SqueezeBackward1"
    wrapped = tuple(wrap_dim(d, t.ndim) for d in dims)
    for position, d in enumerate(wrapped):
        if d in wrapped[:position]:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return make_view(t, _squeeze_layout, name, wrapped)


@_taking_numpy_names
def unsqueeze(t: Tensor, dim: int) -> Tensor:
    dim = int_argument(dim, "unsqueeze", "dim", 2)
    return make_view(t, _unsqueeze_layout, "UnsqueezeBackward0", wrap_dim(dim, t.ndim + 1))


@_taking_numpy_names
def select(t: Tensor, dim: int, index: int) -> Tensor:
    dim, index = int_argument(dim, "select", "dim", 2), int_argument(index, "select", "index", 3)
    if t.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, t.ndim)
    size = t._shape[dim]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size [{', '.join(map(str, t._shape))}] "
                         f"at dimension {dim}")
    return make_view(t, _select_layout, "SelectBackward0", dim, index % size if size else index)


def slice_dim(t: Tensor, dim: int, start, stop, step: int = 1) -> Tensor:
    """`t[..., start:stop:step, ...]` on one dim, with Python's clamping of out-of-range bounds."""
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start, stop, _ = slice(start, stop).indices(t._shape[dim])
    stop = max(stop, start)
    return make_view(t, _slice_layout, "SliceBackward0", dim, start, stop, step)


@_taking_numpy_names
def narrow(t: Tensor, dim: int, start, length: int) -> Tensor:
    if t.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = wrap_dim(dim, t.ndim)
    size = t._shape[dim]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    start = start % size if start < 0 else start
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return make_view(t, _slice_layout, "SliceBackward0", dim, start, start + length, 1)


def _type_string(t: Tensor) -> str:
    """PyTorch's `toString()` of a tensor's type: the legacy name (`torch.FloatTensor`) where one exists, else
    `CPUBoolType`, `CPUBFloat16Type`, `CPUComplexFloatType`..."""
    from . import dtypes

    if t.dtype in (dtypes.bool, dtypes.bfloat16) or t.dtype.is_complex:
        backend = "CUDA" if t.device.type == "cuda" else "CPU"
        return f"{backend}{dtypes.LEGACY_NAMES[t.dtype].removesuffix('Tensor')}Type"
    return t.type()


def expand(t: Tensor, *args, size=None, implicit: bool = False) -> Tensor:
    sizes = int_tuple(one_keyword("expand", args, "size", size), "expand", "size")
    if len(sizes) < t.ndim:
        raise RuntimeError(f"expand({_type_string(t)}{{[{', '.join(map(str, t._shape))}]}}, size=[{', '.join(map(str, sizes))}"
                           f"]): the number of sizes provided ({len(sizes)}) must be greater or equal to the number "
                           f"of dimensions in the tensor ({t.ndim})")
    lead = len(sizes) - t.ndim
    resolved = []
    for i in reversed(range(len(sizes))):  # PyTorch checks from the last dim, so reports the last mismatch
        size = sizes[i]
        old = t._shape[i - lead] if i >= lead else None
        if size == -1:
            if old is None:
                raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, "
                                   f"non-existing dimension {i}")
            size = old
        elif old is not None and old != 1 and old != size:
            raise RuntimeError(f"The expanded size of the tensor ({size}) must match the existing size ({old}) at "
                               f"non-singleton dimension {i}.  Target sizes: [{', '.join(map(str, sizes))}].  "
                               f"Tensor sizes: [{', '.join(map(str, t._shape))}]")
        resolved.append(size)
    return make_view(t, _expand_layout, "ExpandBackward0", tuple(reversed(resolved)))


def expand_as(t: Tensor, other: Tensor) -> Tensor:
    return expand(t, other.shape)


def broadcast_to_method(t: Tensor, *args, size=None) -> Tensor:
    return expand(t, *args, size=size)


def sequence_function(method, function: str, name: str):
    """The torch.* form of a method that takes its sizes as varargs too (`x.reshape(2, 3)`): PyTorch's function
    takes one sequence, by position or keyword, and refuses more positional arguments."""
    def run(input: Tensor, *args, **kwargs) -> Tensor:
        from .factories import size_argument

        if len(args) > 1:
            raise TypeError(f"{function}() takes 2 positional arguments but {len(args) + 1} were given")
        if args:
            size_argument(args, function, position=2, varargs=False, name=name)
        return method(input, *args, **kwargs)

    run.__name__ = run.__qualname__ = function
    run.__module__ = method.__module__
    return run


reshape = sequence_function(reshape_method, "reshape", "shape")
permute = sequence_function(permute_method, "permute", "dims")
broadcast_to = sequence_function(broadcast_to_method, "broadcast_to", "size")


def diagonal(t: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    given = (dim1, dim2)
    dim1, dim2 = wrap_dim(dim1, t.ndim), wrap_dim(dim2, t.ndim)
    if dim1 == dim2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {given[0]}, {given[1]}")
    return make_view(t, _diagonal_layout, "DiagonalBackward0", offset, dim1, dim2)


def unfold(t: Tensor, dimension: int, size: int, step: int) -> Tensor:
    dim = wrap_dim(dimension, t.ndim)
    length = t._shape[dim] if t.ndim else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {length} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return make_view(t, _unfold_layout, "UnfoldBackward0", dim, size, step)


def as_strided(t: Tensor, size, stride, storage_offset=None) -> Tensor:
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = t._offset if storage_offset is None else int(storage_offset)
    _check_strided_layout(t, size, stride, offset)
    return make_view(t, _as_strided_layout, "AsStridedBackward0", size, stride, storage_offset)


def _check_strided_layout(t: Tensor, size: tuple, stride: tuple, offset: int) -> None:
    """PyTorch's setStrided checks, in its order: as many strides as sizes, no negative stride, the elements
    reached within the storage (reported in bytes), a non-negative offset."""
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           + _dims(stride))
    itemsize = np.dtype(t.dtype.jax).itemsize
    needed = 0
    if all(n != 0 for n in size[:next((i for i, n in enumerate(size) if n < 0), len(size))]):
        if any(n < 0 for n in size):
            raise RuntimeError(f"Storage size calculation overflowed with sizes={_dims(size)} and "
                               f"strides={_dims(stride)}")
        needed = (1 + sum(s * (n - 1) for n, s in zip(size, stride)) + offset) * itemsize
    available = t._storage.numel * itemsize
    if needed > available:
        raise RuntimeError(f"setStorage: sizes {_dims(size)}, strides {_dims(stride)}, storage offset {offset}, and "
                           f"itemsize {itemsize} requiring a storage size of {needed} are out of bounds for storage of "
                           f"size {available}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")


def wrap_dim_of_dimensioned(dim: int, ndim: int) -> int:
    """wrap_dim for ops that want a dimensioned tensor (unbind, roll, unique, cross, fft), with PyTorch's error for a
    0-dim one."""
    if ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    return wrap_dim(dim, ndim)


def _dims(values: tuple) -> str:
    return f"[{', '.join(map(str, values))}]"


@_taking_numpy_names
def unbind(t: Tensor, dim: int = 0) -> tuple:
    dim = wrap_dim_of_dimensioned(wrap_dim(dim, t.ndim), t.ndim)  # a dim out of [-1, 0] is out of range first
    return make_views(t, _select_layout, "UnbindBackward0", [(dim, i) for i in range(t._shape[dim])])


def split(t: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    if t.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    given_dim, dim = dim, wrap_dim(dim, t.ndim)
    size = t._shape[dim]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        bounds = [(start, min(start + step, size)) for start in range(0, size, step)] if size else [(0, 0)]
        name = "SplitBackward0"
    else:
        sections = [int(s) for s in split_size_or_sections]
        if sum(sections) != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size "
                               f"at dimension {given_dim}), but got split_sizes={sections}")
        starts = [sum(sections[:i]) for i in range(len(sections))]
        bounds = [(start, start + s) for start, s in zip(starts, sections)]
        name = "SplitWithSizesBackward0"
    return make_views(t, _slice_layout, name, [(dim, lo, hi, 1) for lo, hi in bounds])


@_taking_numpy_names
def chunk(t: Tensor, chunks: int, dim: int = 0) -> tuple:
    if t.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    size = t._shape[wrap_dim(dim, t.ndim)]
    return split(t, -(-size // chunks) if size else [0] * chunks, dim)  # an empty dim: `chunks` empty pieces


@_taking_numpy_names
def tensor_split(t: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    if t.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    dim = wrap_dim(dim, t.ndim)
    size = t._shape[dim]
    if isinstance(indices_or_sections, Tensor):
        indices_or_sections = _split_points(indices_or_sections)
    if isinstance(indices_or_sections, int):
        count = indices_or_sections
        if count <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {count}")
        base, extra = divmod(size, count)
        sizes = [base + 1 if i < extra else base for i in range(count)]
        starts = [sum(sizes[:i]) for i in range(len(sizes))]
        bounds = [(lo, lo + s) for lo, s in zip(starts, sizes)]
    else:  # piece i is t[cut i-1 : cut i] along dim, as a Python slice takes its (maybe negative) bounds
        cuts = [int(i) for i in indices_or_sections]
        bounds = [slice(lo, hi).indices(size)[:2] for lo, hi in zip([0, *cuts], [*cuts, size])]
    return tuple(make_view(t, _slice_layout, "SliceBackward0", dim, lo, max(lo, hi), 1) for lo, hi in bounds)


def _split_points(points: Tensor):
    """tensor_split's tensor argument: a 0-dim one is the number of sections, a vector the indices."""
    if points.ndim > 1:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                           f"one-dimensional tensor, but got a tensor with {points.ndim} dims")
    if points.dtype is not dtypes.int64:
        raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                           f"{dtypes.LEGACY_NAMES[points.dtype].removesuffix('Tensor')}")
    return points.tolist()


def hsplit(t: Tensor, indices_or_sections=None, **named) -> tuple:
    """Splits along dim 1 (dim 0 of a 1-d tensor) into equal sections or at indices: `tensor_split` views."""
    return _directional_split(t, "hsplit", 1, indices_or_sections, named)


def vsplit(t: Tensor, indices_or_sections=None, **named) -> tuple:
    return _directional_split(t, "vsplit", 2, indices_or_sections, named)


def dsplit(t: Tensor, indices_or_sections=None, **named) -> tuple:
    return _directional_split(t, "dsplit", 3, indices_or_sections, named)


_SPLIT_SIGNATURES = ("int sections", "tuple of ints indices")


def _directional_split(t: Tensor, name: str, min_dims: int, sections, named: dict) -> tuple:
    """PyTorch's hsplit/vsplit/dsplit: `sections` (an int that must divide the dim) or `indices` (a sequence)."""
    if sections is None and len(named) == 1 and next(iter(named)) in ("sections", "indices"):
        sections = next(iter(named.values()))
    elif named:
        raise TypeError(f"{name}() got an unexpected keyword argument '{next(iter(named))}'")
    if not (isinstance(sections, (list, tuple)) or isinstance(sections, int) and not isinstance(sections, bool)):
        from .factories import arg_type_name

        kind = arg_type_name(sections)
        expected = "".join(f" * ({signature})\n      didn't match because some of the arguments have invalid types: "
                           f"(!{kind}!)\n" for signature in _SPLIT_SIGNATURES)
        raise TypeError(f"{name}() received an invalid combination of arguments - got ({kind}), but expected one "
                        f"of:\n{expected}")
    if t.ndim < min_dims:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {min_dims} dimension, but got a tensor with "
                           f"{t.ndim} dimensions!")
    dim = {"hsplit": 0 if t.ndim == 1 else 1, "vsplit": 0, "dsplit": 2}[name]
    if isinstance(sections, int):
        size = t._shape[dim]
        if sections == 0 or size % sections:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {dim}, but the size of the dimension "
                               f"{size} is not divisible by the split_size {sections}!")
    return tensor_split(t, sections, dim)


def alias(t: Tensor) -> Tensor:
    return make_view(t, _permute_layout, "AliasBackward0", tuple(range(t.ndim)))
