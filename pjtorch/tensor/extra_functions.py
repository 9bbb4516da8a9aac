"""Smaller parts of PyTorch's tensor API: `torch.layout` (`torch.strided`), `torch.fill`, `torch.bincount`, and
diag/diag_embed/diagflat/trace, tril/triu_indices, meshgrid, cartesian_prod, combinations, diff, kron, cdist,
cross, rot90, block_diag, msort, mode, histc, isin, searchsorted, bucketize, column_stack, dstack, cov, corrcoef.

New primitive kernels are ops in `pjtorch.ops.extra`; PyTorch's composite functions are composed from other
functions here, so that each result's grad_fn is the node PyTorch records.

The view-producing splits (`hsplit`, `vsplit`, `dsplit`) live with the other views in `views.py`.
"""
from __future__ import annotations

import math
import os

import numpy as np

from .. import dispatch
from ..ops import extra as extra_ops
from ..ops import pointwise as pointwise_ops
from ..ops import shape as shape_ops
from ..ops import strided as strided_ops
from ..ops.registry import Op, SAVES_NOTHING
from . import dtypes
from .functions import _check_unique_dim, require_tensors, accepting_out
from .tensor import Tensor, wrap_dim
from .views import wrap_dim_of_dimensioned
from .views import view_as_complex, view_as_real  # noqa: F401  (torch.view_as_*: re-exported with the others)


class layout:
    """A tensor layout (`torch.strided`, `torch.sparse_coo`): pjtorch's tensors are all strided."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__


strided = layout("strided")
sparse_coo = layout("sparse_coo")


# ----- torch.fill ---------------------------------------------------------------------------------------

# Out of place, PyTorch names the nodes FillBackward0 (a number) and FillBackward1 (a 0-dim tensor value);
# in-place fill_ has FillBackward2/3 (ops/shape.py).
_FILL = Op("fill", shape_ops._fill, grad_name="FillBackward1", saves=SAVES_NOTHING, promote="none")
_FILL_SCALAR = Op("fill", shape_ops._fill, grad_name="FillBackward0", saves=SAVES_NOTHING, promote="none",
                  hidden_inputs=1)
_FILL_SIGNATURES = " * (Tensor input, Tensor value)\n * (Tensor input, Number value)\n"
_NOTHING = object()


def fill(input: Tensor, value=_NOTHING) -> Tensor:
    """`torch.fill(input, value)`: a new tensor of input's shape and dtype, every element `value` (a number, checked
    for overflow as `fill_` checks it, or a 0-dim tensor)."""
    from .factories import arg_type_name, filled_scalar

    if value is _NOTHING:
        raise TypeError(f"fill() received an invalid combination of arguments - got ({arg_type_name(input)}), but "
                        f"expected one of:\n{_FILL_SIGNATURES}")
    if isinstance(value, Tensor):
        if value.ndim:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.ndim} "
                               "dimensions.")
        return dispatch.apply(_FILL, (input, value))
    return dispatch.apply(_FILL_SCALAR, (input, filled_scalar(value, input.dtype)))


# ----- torch.bincount -----------------------------------------------------------------------------------

_BINCOUNT_INPUT = "bincount only supports 1-d non-negative integral inputs."


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Counts of each value of a 1-d tensor of non-negative integers (int64), or the sums of `weights` at each
    (float32 for float32 weights, else float64), at least `minlength` long. The length depends on the values, so
    they are read on the host, as PyTorch also synchronises here."""
    from .factories import tensor, zeros

    if input.dtype.category != dtypes.INTEGER:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.ndim == 1 and input.numel() == 0:
        return zeros(minlength, dtype=dtypes.int64, device=input.device)
    values = np.asarray(input._value())
    if input.ndim != 1 or values.min() < 0:
        raise RuntimeError(_BINCOUNT_INPUT)
    if weights is not None and (weights.ndim != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    values = values.astype(np.int64)
    if weights is None:
        return tensor(np.bincount(values, minlength=minlength), dtype=dtypes.int64, device=input.device)
    result_dtype = dtypes.float32 if weights.dtype is dtypes.float32 else dtypes.float64
    weights = weights.to(result_dtype)  # a complex weight loses its imaginary part, with PyTorch's warning
    summed = np.bincount(values, weights=np.asarray(weights.detach()._value()).astype(np.float64),
                         minlength=minlength)
    return tensor(summed.astype(result_dtype.jax), dtype=result_dtype, device=input.device)


# ----- diagonals, trace ---------------------------------------------------------------------------------



def _static(**kwargs) -> tuple:
    return tuple(sorted(kwargs.items()))


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    ndim = input.ndim + 1
    d1, d2 = wrap_dim(dim1, ndim), wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return dispatch.apply(extra_ops.DIAG_EMBED, (input,), _static(offset=offset, dim1=d1, dim2=d2))


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    if input.ndim == 1:
        return diag_embed(input, diagonal)
    if input.ndim == 2:
        return dispatch.apply(extra_ops.DIAGONAL_COPY, (input,), _static(offset=diagonal))
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {input.ndim}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    return diag_embed(input.contiguous().view(-1) if input.ndim != 1 else input, offset)


def trace(input: Tensor) -> Tensor:
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    result = input.dtype if input.dtype.category >= dtypes.FLOATING else dtypes.int64
    return dispatch.apply(extra_ops.TRACE, (input,), _static(dtype=result.jax))


def _triangle_indices(row: int, col: int, offset: int, lower: bool, dtype, device):
    from .factories import tensor
    r, c = np.meshgrid(np.arange(row), np.arange(col), indexing="ij")
    keep = (c - r <= offset) if lower else (c - r >= offset)
    pairs = np.stack([r[keep], c[keep]]) if row and col else np.zeros((2, 0), np.int64)
    return tensor(pairs, dtype=dtype or dtypes.int64, device=device)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 requires_grad=False) -> Tensor:
    return _triangle_indices(row, col, offset, True, dtype, device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 requires_grad=False) -> Tensor:
    return _triangle_indices(row, col, offset, False, dtype, device)


# ----- grids and combinations ---------------------------------------------------------------------------

def _tensor_list(tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        return list(tensors[0])
    return list(tensors)


def meshgrid(*tensors, indexing: str | None = None):
    import warnings
    tensors = _tensor_list(tensors)
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument. "
                      "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/TensorShape.cpp:4215.)",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid: Expected at least one tensor as input.")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(tensors)
    if swap:
        order[0], order[1] = order[1], order[0]
    shape = [t.numel() for t in order]
    grids = []
    for i, t in enumerate(order):
        view_shape = [1] * len(order)
        view_shape[i] = -1
        grids.append(t.view(view_shape).expand(shape))
    if swap:
        grids[0], grids[1] = grids[1], grids[0]
    return tuple(grids)


def cartesian_prod(*tensors) -> Tensor:
    from .functions import stack
    tensors = _tensor_list(tensors)
    for t in tensors:
        if t.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return stack([g.flatten() for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    import itertools
    from .factories import empty, tensor
    from .functions import stack
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return empty(0, dtype=input.dtype, device=input.device)
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    chosen = np.array(list(pick(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return stack([input[tensor(chosen[:, i], device=input.device)] for i in range(r)], 1)


# ----- differences and products -------------------------------------------------------------------------

def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    from .functions import cat
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.ndim)
    if n == 0:
        return input
    if prepend is not None or append is not None:
        parts = [_diff_part(name, p, input, dim) for name, p in (("prepend", prepend), ("input", input),
                                                                   ("append", append)) if p is not None]
        input = cat(parts, dim)
    for _ in range(n):
        length = input.shape[dim]
        if length == 0:
            break
        if input.dtype is dtypes.bool:
            input = input.narrow(dim, 1, length - 1).logical_xor(input.narrow(dim, 0, length - 1))
        else:
            input = input.narrow(dim, 1, length - 1) - input.narrow(dim, 0, length - 1)
    return input


def _diff_part(name: str, part: Tensor, input: Tensor, dim: int) -> Tensor:
    """diff's prepend or append: a tensor of as many dims as the input, the same sizes but along `dim`."""
    if not isinstance(part, Tensor):
        raise TypeError(f"diff(): argument '{name}' must be Tensor, not {type(part).__name__}")
    if part.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for d, (size, given) in enumerate(zip(input.shape, part.shape)):
        if d != dim and size != given:
            raise RuntimeError(f"diff expects the shape of tensor to prepend or append to match that of input except "
                               f"along the differencing dimension; input.size({d}) = {size}, but got tensor.size({d})"
                               f" = {given}")
    return part


def kron(input: Tensor, other: Tensor) -> Tensor:
    """A 0-dim operand takes full part in type promotion here (it is a factor of every block)."""
    common = dtypes.promote_types(input.dtype, other.dtype)
    if input.ndim == 0 or other.ndim == 0:
        input, other = input.to(common), other.to(common)
    return dispatch.apply(extra_ops.KRON, (input, other))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    for t in (x1, x2):
        if t.dtype in (dtypes.float16, dtypes.bfloat16):
            raise NotImplementedError(f"\"cdist\" not implemented for '{_name(t.dtype)}'")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dtype.category != dtypes.FLOATING:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{dtypes.LEGACY_NAMES[t.dtype].replace('Tensor', '')}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {float(p)}")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {_name(x1.dtype)} but found {_name(x2.dtype)}")
    return dispatch.apply(extra_ops.CDIST, (x1, x2), _static(p=float(p)))


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)", UserWarning,
                      stacklevel=3)  # past the `out=` wrapper or the method binding, to the caller
        dim = next((d for d, size in enumerate(broadcast_shapes(input.shape, other.shape)) if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    wrapped = wrap_dim_of_dimensioned(dim, input.ndim)
    if input.shape[wrapped] != 3 or other.shape[wrapped] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[wrapped]} and "
                           f"{other.shape[wrapped]}")
    pointwise_ops.broadcast_shapes(input._shape, other._shape)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_name(input.dtype)} but found {_name(other.dtype)}")
    return dispatch.apply(extra_ops.CROSS, (input, other), _static(dim=wrapped))


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    result = dispatch.apply(extra_ops.ROT90, (input,), _static(k=k % 4, dims=(d0, d1)))
    if k % 2 == 0:
        return result
    # PyTorch's odd rotations are a transposed view of a flipped copy: the input's strides, d0 and d1 swapped.
    stride = list(strided_ops.contiguous_strides(tuple(input.shape)))
    stride[d0], stride[d1] = stride[d1], stride[d0]
    return dispatch.laid_out(result, tuple(stride))


def block_diag(*tensors) -> Tensor:
    from .factories import empty
    blocks = []
    for i, t in enumerate(tensors):
        if t.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.ndim} dimensions")
        blocks.append(t.reshape(1, -1) if t.ndim < 2 else t)
    if not blocks:
        return empty(1, 0)
    return dispatch.apply(extra_ops.BLOCK_DIAG, blocks)


def msort(input: Tensor) -> Tensor:
    from .functions import sort
    return sort(input, 0).values


def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    from .return_types import make_return
    from .functions import int_dim
    if input.ndim == 0:
        wrap_dim(int_dim("mode", dim), 0)  # a 0-dim input takes dim -1 or 0
        values, indices = input.clone(), input.new_zeros((), dtype=dtypes.int64)
        return make_return("mode", values=values, indices=indices)
    from .functions import _check_reduced_dims
    dim = wrap_dim(int_dim("mode", dim), input.ndim)
    _check_reduced_dims("mode", input, (dim,))
    values, indices = dispatch.apply(extra_ops.MODE, (input,), _static(dim=dim, keepdim=keepdim))
    return make_return("mode", values=values, indices=indices)


# ----- searches and histograms --------------------------------------------------------------------------

def histc(input: Tensor, bins: int = 100, min=0, max=0) -> Tensor:
    """PyTorch's checks name the kernel that refuses the dtype first: the bin edges' linspace for bool, the
    range's aminmax for complex without a range. A range taken from the data is checked as PyTorch does, on the
    host."""
    if input.dtype.category != dtypes.FLOATING:
        kernel = "linspace_cpu" if input.dtype is dtypes.bool else \
            "aminmax_cpu" if input.is_complex() and min == max else "histogram_cpu"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc: max must be larger than min")
    if not (math.isfinite(min) and math.isfinite(max)):
        raise RuntimeError(f"torch.histc: range of [{min:g}, {max:g}] is not finite")
    if min == max and input.numel():
        _check_data_range(input)
    # Not differentiable in PyTorch: the result has no history even for an input that requires grad.
    return dispatch.apply(extra_ops.HISTC, (input.detach(),), _static(bins=int(bins), low=float(min), high=float(max)))


def _check_data_range(input: Tensor) -> None:
    """histc's range taken from the data must be finite. PyTorch's vectorised min/max of several elements turns a
    NaN negative, which its message prints as `-nan`."""
    values = input._host_values().astype(np.float64)
    low, high = values.min(), values.max()
    if math.isnan(low) or math.isnan(high):
        nan = "nan" if values.size == 1 else "-nan"
        raise RuntimeError(f"torch.histc: range of [{nan}, {nan}] is not finite")
    if not (math.isfinite(low) and math.isfinite(high)):
        raise RuntimeError(f"torch.histc: range of [{low:g}, {high:g}] is not finite")


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    from .factories import tensor
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments")
    device = (elements if isinstance(elements, Tensor) else test_elements).device
    if not isinstance(elements, Tensor):
        elements = tensor(elements, device=device)
    if not isinstance(test_elements, Tensor):
        test_elements = tensor(test_elements, device=device)
    for operand in (elements, test_elements):
        if operand.dtype is dtypes.bool or operand.is_complex():
            raise RuntimeError(f"Unsupported input type encountered for isin(): {_name(operand.dtype)}")
    return dispatch.apply(extra_ops.ISIN, (elements, test_elements), _static(invert=invert))


def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False, side=None,
                 sorter=None) -> Tensor:
    from .factories import tensor
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    scalar = not isinstance(input, Tensor)
    values = tensor(input, device=sorted_sequence.device) if scalar else input  # a number promotes as a 0-dim tensor
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, _checked_sorter(sorter, sorted_sequence))
    if values.ndim == 0 and sorted_sequence.ndim != 1:
        raise RuntimeError("torch.searchsorted(): input value can be a scalar only when boundaries tensor dimension "
                           f"is 1, but we got boundaries tensor dim({sorted_sequence.ndim}) and input value's "
                           "dim(0) numel(1)")
    if sorted_sequence.ndim > 1 and (values.ndim != sorted_sequence.ndim
                                     or tuple(values.shape[:-1]) != tuple(sorted_sequence.shape[:-1])):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions"
                           f" of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                           f"{list(sorted_sequence.shape)} and input value tensor {list(values.shape)}")
    if sorted_sequence.ndim == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive dimension, but got 0 "
                           "dimension")
    return dispatch.apply(extra_ops.SEARCHSORTED, (sorted_sequence, values),
                          _static(right=bool(right), out_int32=bool(out_int32)))


def _checked_sorter(sorter: Tensor, boundaries: Tensor) -> Tensor:
    if sorter.dtype is not dtypes.int64:
        raise RuntimeError(f"torch.searchsorted(): sorter must be a tensor of long dtype but got dtype "
                           f"{_name(sorter.dtype)}")
    if tuple(sorter.shape) != tuple(boundaries.shape):
        raise RuntimeError(f"torch.searchsorted(): boundary and sorter must have the same size, but got boundary "
                           f"tensor {list(boundaries.shape)}and got sorter tensor {list(sorter.shape)}")
    if sorter.numel() and not bool(((sorter >= 0) & (sorter < boundaries.shape[-1])).all()):
        raise RuntimeError("torch.searchsorted(): sorter index out of range")
    return sorter


def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ----- stacking ---------------------------------------------------------------------------------------

def column_stack(tensors) -> Tensor:
    from .functions import hstack
    return hstack([t.reshape(-1, 1) if t.ndim <= 1 else t for t in tensors])


def dstack(tensors) -> Tensor:
    from .functions import atleast_3d, cat
    return cat([atleast_3d(t) for t in tensors], 2)


# ----- statistics -------------------------------------------------------------------------------------

def cov(input: Tensor, *, correction: int = 1, fweights: Tensor | None = None,
        aweights: Tensor | None = None) -> Tensor:
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input.ndim} dimensions")
    if input.dtype is dtypes.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    if x.dtype.category < dtypes.FLOATING:
        x = x.to(dtypes.get_default_dtype())
    n = x.shape[1]
    weights = None
    if fweights is not None:
        weights = fweights
    if aweights is not None:
        weights = aweights if weights is None else weights * aweights
    if weights is None:
        avg = x.mean(1)
        norm_factor = n - correction
        w_sum = None
    else:
        w_sum = weights.sum()
        avg = (x * weights).sum(1) / w_sum
        if aweights is None or correction == 0:
            norm_factor = w_sum - correction
        else:
            norm_factor = w_sum - correction * (weights * aweights).sum() / w_sum
    if not isinstance(norm_factor, Tensor) and norm_factor <= 0:
        import warnings
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm_factor = 0
    centred = x - avg.unsqueeze(1)
    weighted = centred if weights is None else centred * weights
    c = weighted.mm(centred.t().conj())
    return (c / norm_factor).squeeze()


def corrcoef(input: Tensor) -> Tensor:
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = c.diagonal()
    stddev = d.sqrt()
    c = c / stddev.view(-1, 1)
    c = c / stddev.view(1, -1)
    return c.clamp(-1, 1)


# ----- distances --------------------------------------------------------------------------------------

def _name(d: dtypes.dtype) -> str:
    return dtypes.LEGACY_NAMES[d][:-6]


def _tensor_operands(function: str, input, other) -> None:
    """PyTorch's TypeError where a function of two tensors is given something else."""
    from .functions import _require_tensor
    _require_tensor("input", 1, input, function)
    _require_tensor("other", 2, other, function)


def dist(input: Tensor, other: Tensor, p=2) -> Tensor:
    """The p-norm of input - other (broadcast), p any float (inf, -inf and 0 included)."""
    from .functions import _check_subtraction
    _tensor_operands("dist", input, other)
    _check_subtraction(input, other)
    common = dtypes.promote_types(input.dtype, other.dtype)
    if common.category < dtypes.FLOATING:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got {_name(common)} "
                           "instead.")
    return dispatch.apply(extra_ops.DIST, (input, other), _static(p=float(p)))


def pdist(input: Tensor, p: float = 2) -> Tensor:
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if input.dtype.category != dtypes.FLOATING:
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"pdist\" not implemented for '{_name(input.dtype)}'")
    return dispatch.apply(extra_ops.PDIST, (input,), _static(p=float(p)))


# ----- nan-ignoring medians and quantiles ---------------------------------------------------------------

def nanmedian(input: Tensor, dim=None, keepdim: bool = False):
    """The lower median of the non-NaN elements (NaN where there are none); with `dim`, (values, indices)."""
    from .functions import _check_reduced_dims, _refused_when_empty, empty_median, int_dim
    from .return_types import make_return
    if dim is None and _refused_when_empty(input):
        return empty_median(input)
    if input.dtype is dtypes.bool or input.is_complex():
        kernel = "median_cpu" if dim is None else "median_out"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(input.dtype)}'")
    if dim is None:
        return dispatch.apply(extra_ops.NANMEDIAN_ALL, (input,))
    dim = wrap_dim(int_dim("nanmedian", dim), input.ndim)
    _check_reduced_dims("median", input, (dim,))  # PyTorch's empty-dim check is median's own
    values, indices = dispatch.apply(extra_ops.NANMEDIAN_DIM, (input,), _static(dim=dim, keepdim=keepdim))
    return make_return("nanmedian", values=values, indices=indices)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile_q(q, input: Tensor) -> Tensor:
    """q as a 1-d tensor of input's dtype, checked as PyTorch checks it."""
    from .factories import tensor
    if isinstance(q, Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
        if q.dtype is not input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        values = np.asarray(q.detach()._value()).reshape(-1)
        if values.size and (values.min() < 0 or values.max() > 1):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
        return q.detach().reshape(-1)
    if not 0 <= q <= 1:
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    return tensor([q], dtype=input.dtype, device=input.device)


def _quantile(input: Tensor, q, dim, keepdim: bool, interpolation: str, ignore_nan: bool) -> Tensor:
    if not isinstance(q, Tensor) and not 0 <= q <= 1:  # a number's range is checked first
        raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q}")
    if input.numel() == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError("quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but "
                           f"got {interpolation}")
    scalar = not isinstance(q, Tensor) or q.ndim == 0
    qs = _quantile_q(q, input)
    wrapped = None if dim is None else wrap_dim(dim, input.ndim)  # a 0-dim input's dim -1 or 0 wraps to 0
    source = input.reshape(1) if input.ndim == 0 else input
    out = dispatch.apply(extra_ops.QUANTILE, (source, qs), _static(
        dim=wrapped, keepdim=bool(keepdim) and wrapped is not None, interpolation=interpolation,
        ignore_nan=ignore_nan, scalar=scalar))
    if (keepdim and wrapped is None) or input.ndim == 0:
        out = out.reshape(((() if scalar else (qs.shape[0],)) + ((1,) * input.ndim if keepdim else ())))
    return out


def quantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, False)


def nanquantile(input: Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear") -> Tensor:
    return _quantile(input, q, dim, keepdim, interpolation, True)


# ----- renorm, frexp, complex numbers, gamma functions --------------------------------------------------

def _check_renorm(input: Tensor, p, maxnorm) -> None:
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_name(input.dtype)}")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")


def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Each slice along `dim` whose p-norm exceeds maxnorm, scaled down to norm maxnorm."""
    _check_renorm(input, p, maxnorm)
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    return dispatch.apply(extra_ops.RENORM, (input,), _static(p=float(p), dim=wrap_dim(dim, input.ndim),
                                                              maxnorm=float(maxnorm)))


def renorm_(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    _check_renorm(input, p, maxnorm)
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} dimensions")
    return dispatch.apply_inplace(extra_ops.RENORM, input, (), _static(p=float(p), dim=wrap_dim(dim, input.ndim),
                                                                       maxnorm=float(maxnorm)))


def frexp(input: Tensor):
    from .return_types import make_return
    if input.dtype.category != dtypes.FLOATING:
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    mantissa, exponent = dispatch.apply(extra_ops.FREXP, (input,))
    return make_return("frexp", mantissa=mantissa, exponent=exponent)


def _check_complex_parts(first: Tensor, second: Tensor) -> None:
    allowed = (dtypes.float16, dtypes.float32, dtypes.float64)
    if first.dtype not in allowed or second.dtype not in allowed:
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got {_name(first.dtype)} "
                           f"and {_name(second.dtype)}")
    if first.dtype is not second.dtype:
        raise RuntimeError(f"Expected object of scalar type {_name(first.dtype)} but got scalar type "
                           f"{_name(second.dtype)} for second argument")


def polar(abs: Tensor, angle: Tensor) -> Tensor:
    require_tensors("polar", ("abs", "angle"), (abs, angle))
    _check_complex_parts(abs, angle)
    if abs.dtype is dtypes.float16:
        raise NotImplementedError("\"polar_cpu\" not implemented for 'Half'")
    return dispatch.apply(extra_ops.POLAR, (abs, angle))


def complex(real: Tensor, imag: Tensor) -> Tensor:
    require_tensors("complex", ("real", "imag"), (real, imag))
    _check_complex_parts(real, imag)
    if real.dtype is dtypes.float16:
        raise NotImplementedError("pjtorch has no complex32 (ComplexHalf) dtype")
    return dispatch.apply(extra_ops.COMPLEX, (real, imag))


def polygamma(n: int, input: Tensor) -> Tensor:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if input.is_complex():
        kernel = {0: "digamma", 1: "trigamma"}.get(n, "polygamma")
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_name(input.dtype)}'")
    return dispatch.apply(extra_ops.POLYGAMMA, (input,), _static(n=int(n)))


def mvlgamma(input: Tensor, p: int) -> Tensor:
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if input.dtype is dtypes.bool:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if input.is_complex():
        raise NotImplementedError(f"\"arange_cpu\" not implemented for '{_name(input.dtype)}'")
    return dispatch.apply(extra_ops.MVLGAMMA, (input,), _static(p=int(p)))


# ----- matrix-vector products ---------------------------------------------------------------------------

def _check_same_dtype(name: str, *tensors: Tensor) -> None:
    if len({t.dtype for t in tensors}) > 1:
        names = ", ".join(_name(t.dtype) for t in tensors[:-1]) + f", and {_name(tensors[-1].dtype)}"
        raise RuntimeError(f"{name} input tensors must have the same dtype, but got {names}")


def _check_scalars(input: Tensor, beta, alpha) -> None:
    if input.dtype.category <= dtypes.INTEGER:
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")


def _scaled(op, input: Tensor, operands: tuple, beta, alpha) -> Tensor:
    _check_scalars(input, beta, alpha)
    return dispatch.apply(op, (input,) + operands, _static(beta=beta, alpha=alpha))


def _scaled_(op, input: Tensor, operands: tuple, beta, alpha) -> Tensor:
    _check_scalars(input, beta, alpha)
    return dispatch.apply_inplace(op, input, operands, _static(beta=beta, alpha=alpha))


def _check_addmv(input: Tensor, mat: Tensor, vec: Tensor) -> None:
    if mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {mat.ndim}, {vec.ndim}")
    if mat.shape[1] != vec.shape[0] or input.ndim > 1 or (input.ndim == 1 and input.shape[0] not in (1, mat.shape[0])):
        raise RuntimeError(f"size mismatch, got input ({input.shape[0] if input.ndim else 1}), mat "
                           f"({mat.shape[0]}x{mat.shape[1]}), vec ({vec.shape[0]})")
    _check_same_dtype("addmv", input, mat, vec)


def addmv(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_addmv(input, mat, vec)
    return _scaled(extra_ops.ADDMV, input, (mat, vec), beta, alpha)


def addmv_(input: Tensor, mat: Tensor, vec: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_addmv(input, mat, vec)
    return _scaled_(extra_ops.ADDMV, input, (mat, vec), beta, alpha)


def _check_addr(input: Tensor, vec1: Tensor, vec2: Tensor) -> None:
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D" if vec1.ndim != 1 else
                           f"addr: Expected 1-D argument vec2, but got {vec2.ndim}-D")
    input.expand(vec1.shape[0], vec2.shape[0])  # PyTorch's error where input does not broadcast to the result
    _check_same_dtype("addr", input, vec1, vec2)


def addr(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_addr(input, vec1, vec2)
    return _scaled(extra_ops.ADDR, input, (vec1, vec2), beta, alpha)


def addr_(input: Tensor, vec1: Tensor, vec2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_addr(input, vec1, vec2)
    return _scaled_(extra_ops.ADDR, input, (vec1, vec2), beta, alpha)


def _check_batches(batch1: Tensor, batch2: Tensor) -> None:
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{batch1.shape[0]}, "
                           f"{batch1.shape[2]}] but got: [{batch2.shape[0]}, {batch2.shape[1]}].")


def _check_addbmm(input: Tensor, batch1: Tensor, batch2: Tensor) -> None:
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3 else "batch2 must be a 3D tensor")
    input.expand(batch1.shape[1], batch2.shape[2])
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {batch1.shape[0]} and "
                           f"{batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x{batch1.shape[2]} and "
                           f"{batch2.shape[1]}x{batch2.shape[2]})")
    _check_same_dtype("addbmm", input, batch1, batch2)


def addbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_addbmm(input, batch1, batch2)
    return _scaled(extra_ops.ADDBMM, input, (batch1, batch2), beta, alpha)


def addbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_addbmm(input, batch1, batch2)
    return _scaled_(extra_ops.ADDBMM, input, (batch1, batch2), beta, alpha)


def _check_baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor) -> None:
    if batch1.ndim == 3 and batch2.ndim == 3:
        input.expand(batch1.shape[0], batch1.shape[1], batch2.shape[2])
    _check_batches(batch1, batch2)
    _check_same_dtype("baddbmm", input, batch1, batch2)


def baddbmm(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_baddbmm(input, batch1, batch2)
    return _scaled(extra_ops.BADDBMM, input, (batch1, batch2), beta, alpha)


def baddbmm_(input: Tensor, batch1: Tensor, batch2: Tensor, *, beta=1, alpha=1) -> Tensor:
    _check_baddbmm(input, batch1, batch2)
    return _scaled_(extra_ops.BADDBMM, input, (batch1, batch2), beta, alpha)


def vdot(input: Tensor, other: Tensor) -> Tensor:
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D tensors")
    if input.dtype is not other.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found {_name(input.dtype)} and "
                           f"{_name(other.dtype)}")
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"dot\" not implemented for 'Bool'")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and src [{other.shape[0]}] "
                           f"to have the same number of elements, but got {input.shape[0]} and {other.shape[0]} "
                           "elements respectively")
    return dispatch.apply(extra_ops.VDOT, (input, other))


def inner(input: Tensor, other: Tensor) -> Tensor:
    from .functions import tensordot
    if input.ndim == 0 or other.ndim == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got shapes "
                           f"{list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))


def chain_matmul(*matrices) -> Tensor:
    import warnings
    from ..linalg import multi_dot
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than multiple "
                  "parameters.", UserWarning, stacklevel=2)
    matrices = _tensor_list(matrices)
    if len(matrices) == 1:
        return matrices[0].clone()
    return multi_dot(matrices)


def logdet(input: Tensor) -> Tensor:
    """log(det): NaN for a negative determinant, -inf for a singular matrix."""
    from ..linalg import _check_matrix, slogdet
    from .functions import where
    _check_matrix("logdet", input)
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"logdet: Expected a floating point or complex tensor as input. Got {_name(input.dtype)}")
    if input.dtype in (dtypes.float16, dtypes.bfloat16):
        raise RuntimeError(f"logdet: Low precision dtypes not supported. Got {_name(input.dtype)}")
    sign, logabsdet = slogdet(input)
    if input.is_complex():
        return sign.log() + logabsdet
    return where(sign == -1, float("nan"), logabsdet)


def matrix_exp(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{input.shape[-2]} by {input.shape[-1]} matrices")
    if input.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{_name(input.dtype)}")
    return dispatch.apply(extra_ops.MATRIX_EXP, (input,))


# ----- integrals, gradients, Vandermonde ----------------------------------------------------------------

def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    from .factories import arange
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    base = x if x.dtype.category >= dtypes.FLOATING else x.to(dtypes.int64)
    powers = arange(n, device=x.device)
    result = base.unsqueeze(1) ** powers.to(base.dtype) if n else base.unsqueeze(1).expand(x.shape[0], 0) * 1
    return result if increasing else result.flip(1)


def _times(t: Tensor, factor) -> Tensor:
    """t * factor for a number factor, recorded as PyTorch's composites record it (MulBackward1)."""
    if t.dtype.category != dtypes.FLOATING or isinstance(factor, Tensor):
        return t * factor
    return dispatch.apply(extra_ops.SCALAR_MUL, (t,), _static(factor=factor))


def _over(t: Tensor, divisor) -> Tensor:
    if t.dtype.category != dtypes.FLOATING:
        return t / divisor
    return dispatch.apply(extra_ops.SCALAR_DIV, (t,), _static(divisor=divisor))


def _refuse_bool_samples(name: str, y: Tensor) -> None:
    if y.dtype is dtypes.bool:
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")


def trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    """The trapezoid rule along `dim`, with sample points x (a tensor) or uniform spacing dx (default 1)."""
    _refuse_bool_samples("trapezoid", y)
    if isinstance(x, Tensor):
        if dx is not None:
            raise TypeError("trapezoid() received an invalid combination of arguments")
        return _trapezoid_points(y, x, dim)
    spacing = 1 if dx is None and x is None else (dx if dx is not None else x)
    dim = wrap_dim(dim, y.ndim)
    if y.shape[dim] == 0:
        return y.sum(dim) * 0
    ends = y.narrow(dim, 0, 1) + y.narrow(dim, y.shape[dim] - 1, 1)
    return _times(y.sum(dim) - ends.squeeze(dim) * 0.5, spacing)


def _trapezoid_points(y: Tensor, x: Tensor, dim: int) -> Tensor:
    dim = wrap_dim(dim, y.ndim)
    if y.shape[dim] == 0:
        return y.sum(dim) * 0
    steps = diff(x, dim=-1 if x.ndim == 1 else dim)
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        steps = steps.view(*([-1] + [1] * (y.ndim - dim - 1)))
    pairs = y.narrow(dim, 1, y.shape[dim] - 1) + y.narrow(dim, 0, y.shape[dim] - 1)
    return _over((steps * pairs).sum(dim), 2)


def trapz(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x=None, *, dx=None, dim: int = -1) -> Tensor:
    _refuse_bool_samples("cumulative_trapezoid", y)
    dim = wrap_dim(dim, y.ndim)
    length = y.shape[dim]
    pairs = (y.narrow(dim, 1, max(length - 1, 0)) + y.narrow(dim, 0, max(length - 1, 0))) if length else y
    if isinstance(x, Tensor):
        steps = diff(x, dim=-1 if x.ndim == 1 else dim)
        if x.ndim == 1:
            steps = steps.view(*([-1] + [1] * (y.ndim - dim - 1)))
        return (steps * pairs / 2).cumsum(dim)
    spacing = 1 if dx is None and x is None else (dx if dx is not None else x)
    return (pairs * (spacing / 2)).cumsum(dim)


def _gradient_dims(input: Tensor, dim) -> list:
    if dim is None:
        return list(range(input.ndim))
    dims = [dim] if isinstance(dim, int) else list(dim)
    return [wrap_dim(d, input.ndim) for d in dims]


def _spacing_mismatch(input: Tensor, spacing, dim) -> str:
    if dim is None:
        return (f"torch.gradient expected spacing to be unspecified, a scalar, or a list of length equal to 'self.dim() "
                f"= {input.ndim}', since dim argument was not given, but got a list of length {len(spacing)}")
    return (f"torch.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments to have "
            f"the same length, but got a spacing argument of length {len(spacing)} and a dim argument of length "
            f"{len([dim] if isinstance(dim, int) else dim)}.")


def _gradient_spacings(input: Tensor, spacing, dims: list, dim) -> list:
    """One spacing per dim: a number, or a 1-d tensor of coordinates."""
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            raise RuntimeError(_spacing_mismatch(input, spacing, dim))
        return list(spacing)
    return [spacing] * len(dims)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1):
    """Central differences inside, one-sided differences of `edge_order` at the ends, per dim."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if input.dtype is dtypes.uint8:
        raise RuntimeError("torch.gradient does not support uint8 input.")
    if input.dtype is dtypes.bool:
        from .functions import _check_subtraction
        _check_subtraction(input, input)
    dims = _gradient_dims(input, dim)
    spacings = _gradient_spacings(input, spacing, dims, dim)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    return tuple(_gradient_along(input, s, d, edge_order) for s, d in zip(spacings, dims))


def _gradient_along(y: Tensor, spacing, dim: int, edge_order: int) -> Tensor:
    from .functions import cat
    if y.dtype.category < dtypes.FLOATING:
        y = y.to(dtypes.get_default_dtype())
    n = y.shape[dim]
    if not isinstance(spacing, Tensor):
        return _uniform_gradient(y, float(spacing), dim, edge_order, n, cat)
    return _coordinate_gradient(y, spacing, dim, edge_order, n, cat)


def _uniform_gradient(y: Tensor, h: float, dim: int, edge_order: int, n: int, cat) -> Tensor:
    part = lambda start, length: y.narrow(dim, start, length)  # noqa: E731
    inner = (part(2, n - 2) - part(0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / h
        last = (part(n - 1, 1) - part(n - 2, 1)) / h
    else:
        first = (part(0, 1) * -1.5 + part(1, 1) * 2 - part(2, 1) * 0.5) / h
        last = (part(n - 3, 1) * 0.5 - part(n - 2, 1) * 2 + part(n - 1, 1) * 1.5) / h
    return cat([first, inner, last], dim)


def _coordinate_gradient(y: Tensor, x: Tensor, dim: int, edge_order: int, n: int, cat) -> Tensor:
    """Second-order differences for unevenly spaced coordinates x (a 1-d tensor of length n)."""
    shape = [1] * y.ndim
    shape[dim] = -1
    x = x.to(y.dtype) if x.dtype.category < dtypes.FLOATING else x
    h = diff(x).view(shape)
    part = lambda t, start, length: t.narrow(dim, start, length)  # noqa: E731
    h0, h1 = part(h, 0, n - 2), part(h, 1, n - 2)
    inner = (part(y, 2, n - 2) * (h0 / (h1 * (h0 + h1))) - part(y, 0, n - 2) * (h1 / (h0 * (h0 + h1)))
             + part(y, 1, n - 2) * ((h1 - h0) / (h0 * h1)))
    if edge_order == 1:
        first = (part(y, 1, 1) - part(y, 0, 1)) / part(h, 0, 1)
        last = (part(y, n - 1, 1) - part(y, n - 2, 1)) / part(h, n - 2, 1)
    else:
        a, b = part(h, 0, 1), part(h, 1, 1)
        first = (part(y, 0, 1) * (-(2 * a + b) / (a * (a + b))) + part(y, 1, 1) * ((a + b) / (a * b))
                 - part(y, 2, 1) * (a / (b * (a + b))))
        a, b = part(h, n - 3, 1), part(h, n - 2, 1)
        last = (part(y, n - 3, 1) * (b / (a * (a + b))) - part(y, n - 2, 1) * ((a + b) / (a * b))
                + part(y, n - 1, 1) * ((2 * b + a) / (b * (a + b))))
    return cat([first, inner, last], dim)


# ----- writes into copies: put, index_reduce, *_scatter -------------------------------------------------

def _check_put(input: Tensor, index: Tensor, source: Tensor) -> None:
    if index.dtype is not dtypes.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {_name(index.dtype)}")
    if input.dtype is not source.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got self.dtype = "
                           f"{_name(input.dtype)} and source.dtype = {_name(source.dtype)}")
    if index.numel() != source.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of elements, but got "
                         f"source.numel() = {source.numel()}, index.numel() = {index.numel()}")
    values = np.asarray(index._value()).reshape(-1)
    size = input.numel()
    if values.size and not size:
        raise IndexError("put_(): Tried to put elements into an empty tensor")
    bad = values[(values >= size) | (values < -size)]
    if bad.size:
        raise IndexError(f"out of range: tried to access index {bad[0]} on a tensor of {size} elements.")


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """input with source's elements written (or added) at the flat positions `index`."""
    _check_put(input, index, source)
    return dispatch.apply(extra_ops.PUT, (input, index, source), _static(accumulate=bool(accumulate)))


def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    _check_put(input, index, source)
    return dispatch.apply_inplace(extra_ops.PUT, input, (index, source), _static(accumulate=bool(accumulate)))


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def _check_index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str) -> int:
    import warnings
    warnings.warn("index_reduce() is in beta and the API may change at any time.", UserWarning, stacklevel=3)
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if index.dtype not in (dtypes.int64, dtypes.int32):
        raise RuntimeError("index_reduce_(): Expected index to have integer dtype")
    if input.dtype is not source.dtype:
        raise RuntimeError("index_reduce_(): self and source must have the same scalar type")
    refused = {("mean", False): "div_floor_cpu", ("amax", True): "maximum_cpu", ("amin", True): "minimum_cpu"}.get(
        (reduce, input.is_complex())) if input.dtype is dtypes.bool or input.is_complex() else None
    if refused:
        raise NotImplementedError(f"\"{refused}\" not implemented for '{_name(input.dtype)}'")
    dim = wrap_dim(dim, input.ndim)
    values = np.asarray(index._value()).reshape(-1)
    if values.size and (values.min() < 0 or values.max() >= (input.shape[dim] if input.ndim else 1)):
        raise IndexError("index out of range in self")
    return dim


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    dim = _check_index_reduce(input, dim, index, source, reduce)
    return dispatch.apply(extra_ops.INDEX_REDUCE, (input, index, source),
                          _static(dim=dim, reduce=reduce, include_self=bool(include_self)))


def index_reduce_(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    dim = _check_index_reduce(input, dim, index, source, reduce)
    return dispatch.apply_inplace(extra_ops.INDEX_REDUCE, input, (index, source),
                                  _static(dim=dim, reduce=reduce, include_self=bool(include_self)))


def _check_scatter_slice(src: Tensor, slice_shape) -> None:
    if tuple(src.shape) != tuple(slice_shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(slice_shape)}")


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    _check_scatter_slice(src, input.diagonal(offset, dim1, dim2).shape)
    d1, d2 = wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim)
    return dispatch.apply(extra_ops.DIAGONAL_SCATTER, (input, src.to(input.dtype)),
                          _static(offset=offset, dim1=d1, dim2=d2))


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    _check_scatter_slice(src, input.select(dim, index).shape)
    dim = wrap_dim(dim, input.ndim)
    index = index + input.shape[dim] if index < 0 else index
    return dispatch.apply(extra_ops.SELECT_SCATTER, (input, src.to(input.dtype)), _static(dim=dim, index=index))


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    dim = wrap_dim(dim, input.ndim)
    start, end, step = slice(start, end, step).indices(input.shape[dim])
    _check_scatter_slice(src, input[(slice(None),) * dim + (slice(start, end, step),)].shape)
    return dispatch.apply(extra_ops.SLICE_SCATTER, (input, src.to(input.dtype)),
                          _static(dim=dim, start=start, end=end, step=step))


# ----- host-side searches: unique_consecutive, unravel_index, histogram ---------------------------------

def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim=None):
    """The first of each run of equal elements (or slices along `dim`), with each element's run number and the
    run lengths on request. The result's size depends on the values, so they are read on the host."""
    from .factories import tensor
    if input.is_complex():
        raise NotImplementedError(f"\"unique\" not implemented for '{_name(input.dtype)}'")
    values = np.asarray(input._value()).reshape(input.shape)
    axis = None if dim is None else wrap_dim_of_dimensioned(dim, input.ndim)
    if axis is not None:
        _check_unique_dim(input, axis)
    moved = values.reshape(-1, 1) if axis is None else \
        np.moveaxis(values, axis, 0).reshape(values.shape[axis], -1 if values.shape[axis] else 0)
    starts = np.ones(moved.shape[0], bool)
    starts[1:] = np.any(moved[1:] != moved[:-1], axis=1)
    run = np.cumsum(starts) - 1
    kept = np.moveaxis(np.moveaxis(values, axis, 0)[starts], 0, axis) if axis is not None else \
        values.reshape(-1)[starts]
    result = [tensor(kept, dtype=input.dtype, device=input.device)]
    dispatch.record_without_derivative("unique_consecutive", "UniqueConsecutiveBackward0", input, result[0])
    if return_inverse:
        result.append(tensor(run.reshape(input.shape if axis is None else -1), dtype=dtypes.int64,
                             device=input.device))
    if return_counts:
        result.append(tensor(np.diff(np.append(np.flatnonzero(starts), moved.shape[0])), dtype=dtypes.int64,
                             device=input.device))
    return result[0] if len(result) == 1 else tuple(result)


def unravel_index(indices, shape) -> tuple:
    from .factories import tensor
    if not isinstance(indices, Tensor):
        indices = tensor(indices)
    if indices.dtype.category != dtypes.INTEGER:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(shape))
    flat = indices.to(dtypes.int64)
    coords = []
    for size in reversed(shape):
        coords.append(flat.remainder(size))
        flat = flat.div(size, rounding_mode="floor")
    return tuple(reversed(coords))


def histogram(input: Tensor, bins=100, *, range=None, weight: Tensor | None = None, density: bool = False):
    """Counts (or summed weights, or a density) in bins given as a count over `range` or as edges."""
    from .factories import tensor
    from .return_types import make_return
    if input.dtype not in (dtypes.float32, dtypes.float64):
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{_name(input.dtype)}'")
    values = np.asarray(input.detach()._value()).reshape(-1)
    edges = np.asarray(bins.detach()._value()) if isinstance(bins, Tensor) else bins
    if isinstance(edges, int):
        low, high = range if range is not None else ((values.min(), values.max()) if values.size else (0, 0))
        edges = np.linspace(low, high, edges + 1) if low != high else np.linspace(low - 0.5, high + 0.5, edges + 1)
    w = None if weight is None else np.asarray(weight.detach()._value()).reshape(-1)
    hist, edges = np.histogram(values, bins=edges, weights=w, density=density)
    dtype = input.dtype
    return make_return("histogram", hist=tensor(hist.astype(dtype.jax), dtype=dtype, device=input.device),
                       bin_edges=tensor(np.asarray(edges).astype(dtype.jax), dtype=dtype, device=input.device))


# ----- windows ------------------------------------------------------------------------------------------

def _cosine_sum(n, coefficients):
    """sum_k (-1)^k a_k cos(2 pi k i / n), i = 0..n: the generalized cosine windows (Hann, Hamming, Blackman)."""
    phase = 2 * np.pi * np.arange(n + 1) / n if n else np.zeros(1)
    return sum(((-1) ** k) * a * np.cos(k * phase) for k, a in enumerate(coefficients))


_WINDOWS = {
    "hann_window": lambda n: _cosine_sum(n, (0.5, 0.5)),
    "hamming_window": lambda n, alpha=0.54, beta=0.46: _cosine_sum(n, (alpha, beta)),
    "blackman_window": lambda n: _cosine_sum(n, (0.42, 0.5, 0.08)),
    "bartlett_window": lambda n: 1 - np.abs(2 * np.arange(n + 1) / n - 1) if n else np.ones(1),
    "kaiser_window": lambda n, beta=12.0: np.i0(beta * np.sqrt(np.clip(
        1 - (2 * np.arange(n + 1) / n - 1) ** 2 if n else np.zeros(1), 0, None))) / np.i0(beta),
}


def _options_text(dtype, device) -> str:
    """How PyTorch's C++ prints a factory's TensorOptions in its errors."""
    from .functions import _c_type_name
    place = "cpu" if device is None else str(device)
    return (f"TensorOptions(dtype={_c_type_name(dtype)}, device={place}, layout=Strided (default), "
            "requires_grad=false (default), pinned_memory=false, memory_format=(nullopt))")


def _window(name: str):
    """A window of `window_length` samples: periodic ones are the first N of a symmetric window of N + 1."""
    def make(window_length: int, periodic: bool = True, *params, dtype=None, layout=None, device=None,
             requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
        from .factories import tensor
        dtype = dtype or dtypes.get_default_dtype()
        if dtype.category != dtypes.FLOATING:
            raise RuntimeError(f"{name} expects floating point dtypes, got: {_options_text(dtype, device)}")
        if window_length < 0:
            raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
        if window_length <= 1:
            return tensor(np.ones(window_length), dtype=dtype, device=device, requires_grad=requires_grad)
        symmetric = window_length if periodic else window_length - 1
        values = _WINDOWS[name](symmetric, *params)[:window_length]
        return tensor(values, dtype=dtype, device=device, requires_grad=requires_grad)

    make.__name__ = name
    return make


hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window = (_window(n) for n in _WINDOWS)


# ----- broadcasting and small helpers -------------------------------------------------------------------

def broadcast_shapes(*shapes):
    """The shape all `shapes` broadcast to, computed without tensors (ints count as 1-d shapes)."""
    from .size import Size
    shapes = [(shape,) if isinstance(shape, int) else tuple(shape) for shape in shapes]
    for shape in shapes:
        if any(s < 0 for s in shape):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
    result = [1] * max((len(s) for s in shapes), default=0)
    for index, shape in enumerate(shapes):
        for back, size in enumerate(reversed(shape), start=1):
            if size != 1 and result[-back] not in (1, size):
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at -{back}! Mismatching "
                                   f"argument at index {index} had {shape}; but expected shape should be "
                                   f"broadcastable to {result}")
            result[-back] = size if size != 1 else result[-back]
    return Size(result)


def broadcast_tensors(*tensors) -> tuple:
    """Views of `tensors` expanded to their common shape; a mismatch raises the elementwise ops' error, not
    torch.broadcast_shapes' own."""
    tensors = _tensor_list(tensors)
    shape = pointwise_ops.broadcast_shapes(*(t.shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def ravel(input: Tensor) -> Tensor:
    """A view of the contiguous input (a copy of it first where it is not), as PyTorch's contiguous().view(-1)."""
    return input.contiguous().view(-1)


def adjoint(input: Tensor) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor."
                           if input.ndim == 1 else
                           "tensor.adjoint() is only supported on matrices or batches of matrices. Got 0-D tensor.")
    return input.transpose(-2, -1).conj()


def type_as(input: Tensor, other: Tensor) -> Tensor:
    return input.to(other.dtype)


def sum_to_size(input: Tensor, *size) -> Tensor:
    """input summed over the dims where `size` (which input must expand to) is 1 or missing."""
    from .views import shape_args
    size = tuple(shape_args(size))
    lead = input.ndim - len(size)
    if lead < 0 or any(s not in (1, n) for s, n in zip(size, input.shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(input.shape)}}}.")
    reduced = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size) if s == 1 and input.shape[lead + i] != 1)
    out = input.sum(reduced, keepdim=True) if reduced else input
    return out.view(size) if lead else out


def fill_diagonal_(input: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Writes fill_value along the main diagonal (all dims equal, or a tall matrix, restarting every
    cols + 1 rows when `wrap`)."""
    from .factories import tensor
    if input.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if input.ndim > 2 and len(set(input.shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    step = int(np.sum(np.cumprod((1,) + tuple(input.shape[:0:-1]))))
    wraps = wrap and input.ndim == 2 and input.shape[0] > input.shape[1]
    positions = np.arange(0, input.numel(), step) if wraps else np.arange(min(input.shape)) * step
    index = tensor(positions, dtype=dtypes.int64, device=input.device)
    return put_(input, index, input.new_full((positions.size,), fill_value))


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    total = sum(split_sizes)
    if total != input.shape[wrap_dim(dim, input.ndim)]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {input.shape[dim]} (input tensor's "
                           f"size at dimension {dim}), but got split_sizes={list(split_sizes)}")
    return tuple(input.split(list(split_sizes), dim))


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    return input.narrow(dim, start, length).clone(memory_format=dtypes.contiguous_format)


def detach(input: Tensor) -> Tensor:
    return input.detach()


def typename(obj) -> str:
    """`torch.typename`: 'torch.FloatTensor' style for tensors, the qualified class name otherwise."""
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualified = getattr(obj, "__qualname__", None) or type(obj).__qualname__
    return f"{module}.{qualified}" if module and module != "builtins" else qualified


# ----- runtime settings pjtorch accepts and reports -----------------------------------------------------

_SETTINGS = {"num_threads": os.cpu_count() or 1, "num_interop_threads": os.cpu_count() or 1, "deterministic": False, "deterministic_warn_only": False,
             "float32_matmul_precision": "highest"}


def get_num_threads() -> int:
    return _SETTINGS["num_threads"]


def set_num_threads(num: int) -> None:
    """XLA picks its own threads; the number is kept so that code reading it back sees what it set."""
    if num <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _SETTINGS["num_threads"] = int(num)


def get_num_interop_threads() -> int:
    return _SETTINGS["num_interop_threads"]


def set_num_interop_threads(num: int) -> None:
    if num <= 0:
        raise RuntimeError("set_num_interop_threads expects a positive integer")
    _SETTINGS["num_interop_threads"] = int(num)


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """XLA's CPU and GPU kernels used here are deterministic already; the flag is only recorded."""
    _SETTINGS["deterministic"], _SETTINGS["deterministic_warn_only"] = bool(mode), bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    return _SETTINGS["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _SETTINGS["deterministic_warn_only"]


def set_float32_matmul_precision(precision: str) -> None:
    """Recorded only: pjtorch's float32 matmuls always run at full precision."""
    import warnings
    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the currentsetFloat32MatmulPrecision "
                      "call has no effect.", UserWarning, stacklevel=2)
        return
    _SETTINGS["float32_matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    return _SETTINGS["float32_matmul_precision"]


# ----- nn functions under their `torch.*` signatures ----------------------------------------------------
# PyTorch's torch-level forms take a reduction as an enum (0 none, 1 mean, 2 sum) and positional flags.

_REDUCTIONS = ("none", "mean", "sum")


def _functional():
    from ..nn import functional
    return functional


def dropout(input: Tensor, p: float, train: bool) -> Tensor:
    return _functional().dropout(input, p, train)


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    return _functional().embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                                   scale_grad_by_freq=scale_grad_by_freq)


def layer_norm(input: Tensor, normalized_shape, weight=None, bias=None, eps: float = 1e-05,
               cudnn_enable: bool = True) -> Tensor:
    return _functional().layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input: Tensor, num_groups: int, weight=None, bias=None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Tensor:
    return _functional().group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input: Tensor, weight, bias, running_mean, running_var, training: bool, momentum: float, eps: float,
               cudnn_enabled: bool) -> Tensor:
    return _functional().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    return _functional().pad(input, tuple(pad), "constant", value)


def adaptive_max_pool1d(input: Tensor, output_size) -> tuple:
    return tuple(_functional().adaptive_max_pool1d(input, output_size, return_indices=True))


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode: bool = False) -> tuple:
    return tuple(_functional().max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode,
                                          return_indices=True))


def kl_div(input: Tensor, target: Tensor, reduction: int = 1, *, log_target: bool = False) -> Tensor:
    return _functional().kl_div(input, target, reduction=_REDUCTIONS[reduction], log_target=log_target)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight=None, pos_weight=None,
                                     reduction: int = 1) -> Tensor:
    return _functional().binary_cross_entropy_with_logits(input, target, weight, reduction=_REDUCTIONS[reduction],
                                                          pos_weight=pos_weight)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 1) -> Tensor:
    return _functional().margin_ranking_loss(input1, input2, target, margin, reduction=_REDUCTIONS[reduction])


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    return _functional().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_REDUCTIONS[reduction])


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: int = 1) -> Tensor:
    return _functional().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                             reduction=_REDUCTIONS[reduction])


# ----- PyTorch's older linear-algebra functions, over torch.linalg --------------------------------------

def svd(input: Tensor, some: bool = True, compute_uv: bool = True):
    """(U, S, V) with V, not V^H; without compute_uv, U and V are zeros of the full shapes."""
    from .. import linalg
    from .return_types import make_return
    if not compute_uv:
        s = linalg.svdvals(input)
        m, n = input.shape[-2], input.shape[-1]
        zeros = lambda rows, cols: input.new_zeros(*input.shape[:-2], rows, cols)  # noqa: E731
        return make_return("svd", U=zeros(m, m), S=s, V=zeros(n, n))
    u, s, vh = linalg.svd(input, full_matrices=not some)
    return make_return("svd", U=u, S=s, V=vh.mH)


def _deprecated(message: str) -> None:
    import warnings
    warnings.warn(message, UserWarning, stacklevel=3)


def qr(input: Tensor, some: bool = True):
    from .. import linalg
    from .return_types import make_return
    _deprecated("torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
                "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, "
                "some)\nshould be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete') "
                "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2505.)")
    q, r = linalg.qr(input, "reduced" if some else "complete")
    return make_return("qr", Q=q, R=r)


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    from .. import linalg
    _deprecated("torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future "
                "PyTorch release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
                "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\nThis "
                "transform will produce equivalent results for all valid (symmetric positive definite) inputs. "
                "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:1765.)")
    return linalg.cholesky(input, upper=upper)


def _check_cholesky_operands(name: str, input: Tensor, factor: Tensor) -> None:
    for what, t in (("b", input), ("A", factor)):
        if t.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor {what} must have at least 2 dimensions.")
    if input.dtype is not factor.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_name(input.dtype)} and A "
                           f"of type {_name(factor.dtype)} instead.")


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """X with A X = B, where A = L L^H (or U^H U) is given by its Cholesky factor input2."""
    from .functions import _broadcast_shape
    _check_cholesky_operands("cholesky_solve", input, input2)
    batch = tuple(_broadcast_shape(tuple(input.shape[:-2]), tuple(input2.shape[:-2])))
    b, factor = input.expand(*batch, *input.shape[-2:]), input2.expand(*batch, *input2.shape[-2:])
    return dispatch.apply(extra_ops.CHOLESKY_SOLVE, (b, factor), _static(upper=bool(upper)))


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    if input.ndim < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    return dispatch.apply(extra_ops.CHOLESKY_INVERSE, (input,), _static(upper=bool(upper)))


def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):
    from .. import linalg
    from .return_types import make_return
    _deprecated("torch.triangular_solve is deprecated in favor of torch.linalg.solve_triangularand will be removed in "
                "a future PyTorch release.\ntorch.linalg.solve_triangular has its arguments reversed and does not "
                "return a copy of one of the inputs.\nX = torch.triangular_solve(B, A).solution\nshould be replaced "
                "with\nX = torch.linalg.solve_triangular(A, B). (Triggered internally at "
                "/__w/pytorch/pytorch/aten/src/ATen/native/BatchLinearAlgebra.cpp:2273.)")
    coefficient = A.mT if transpose else A
    solution = linalg.solve_triangular(coefficient, b, upper=bool(upper) != bool(transpose),
                                       unitriangular=unitriangular)
    return make_return("triangular_solve", solution=solution, cloned_coefficient=A.clone())


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True):
    from .return_types import make_return
    P, L, U = dispatch.apply(extra_ops.LU_UNPACK, (LU_data, LU_pivots))
    return make_return("lu_unpack", P=P, L=L, U=U)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """The regularized lower incomplete gamma function P(input, other)."""
    _tensor_operands("igamma", input, other)
    _check_igamma(input, other)
    return dispatch.apply(extra_ops.IGAMMA, (input, other))


def igammac(input: Tensor, other: Tensor) -> Tensor:
    _tensor_operands("igammac", input, other)
    _check_igamma(input, other, "igammac")
    return dispatch.apply(extra_ops.IGAMMAC, (input, other))


def _check_igamma(input: Tensor, other: Tensor, name: str = "igamma") -> None:
    """PyTorch's broadcasting error first; then its kernel takes floating dtypes only (integers unpromoted)."""
    from ..ops.pointwise import broadcast_shapes as broadcast
    broadcast(tuple(input.shape), tuple(other.shape))
    common = dtypes.promote_types(input.dtype, other.dtype)
    if common.category != dtypes.FLOATING:
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for '{_name(common)}'")


def igamma_(input: Tensor, other: Tensor) -> Tensor:
    return dispatch.apply_inplace(extra_ops.IGAMMA, input, (other,))


def igammac_(input: Tensor, other: Tensor) -> Tensor:
    return dispatch.apply_inplace(extra_ops.IGAMMAC, input, (other,))


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The older argument order of torch.linalg.lu_solve (b first)."""
    from ..linalg import lu_solve as solve
    return solve(LU_data, LU_pivots, b)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    return tuple(input.chunk(chunks, dim))


def unsafe_split(input: Tensor, split_size, dim: int = 0) -> tuple:
    return tuple(input.split(split_size, dim))


# ----- copies of views, and small factories -------------------------------------------------------------

def _copy_of(view_name: str):
    """`torch.<view>_copy`: the view's values in a tensor of their own (contiguous, as PyTorch's are)."""
    def copy(input: Tensor, *args, **kwargs):
        made = input if view_name == "view_as" else getattr(input, view_name)(*args, **kwargs)
        if isinstance(made, (tuple, list)):
            return tuple(part.clone(memory_format=dtypes.contiguous_format) for part in made)
        return made.clone(memory_format=dtypes.contiguous_format)

    copy.__name__ = f"{view_name}_copy"
    return copy


_VIEWS_COPIED = ("view", "permute", "t", "transpose", "unsqueeze", "squeeze", "expand", "select", "unfold",
                 "unbind", "split", "as_strided", "detach", "view_as_real", "view_as_complex", "diagonal")
COPIES = {f"{name}_copy": _copy_of(name) for name in _VIEWS_COPIED}
COPIES["alias_copy"] = _copy_of("view_as")


def slice_copy(input: Tensor, dim: int = 0, start=None, end=None, step: int = 1) -> Tensor:
    dim = wrap_dim(dim, input.ndim)
    return input[(slice(None),) * dim + (slice(start, end, step),)].clone(memory_format=dtypes.contiguous_format)


def addmm_(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1, alpha=1) -> Tensor:
    from ..ops import linalg as linalg_ops
    return dispatch.apply_inplace(linalg_ops.ADDMM, input, (mat1, mat2), _static(alpha=alpha, beta=beta))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """nonzero's rows, cut or padded with fill_value to exactly `size` rows."""
    from .factories import full
    from .functions import cat, nonzero
    found = nonzero(input)[:size]
    padding = full((size - found.shape[0], max(input.ndim, 1) if input.ndim else 0), fill_value,
                   dtype=dtypes.int64, device=input.device)
    return cat([found, padding]) if padding.shape[0] else found.contiguous()


def torch_range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad: bool = False, **options) -> Tensor:
    """torch.range: like arange but with `end` included (deprecated by PyTorch, with its warning)."""
    import warnings
    from .factories import arange
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values in "
                  "[start, end).", UserWarning, stacklevel=2)
    if end is None:
        start, end = 0, start
    count = int(np.floor((end - start) / step)) + 1
    values = arange(count, dtype=dtypes.float64, device=device) * step + start
    return values.to(dtype or dtypes.get_default_dtype()).requires_grad_(requires_grad)


def empty_strided(size, stride, *, dtype=None, device=None, requires_grad: bool = False, **options) -> Tensor:
    from .factories import empty
    span = 1 + sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    return empty(span, dtype=dtype, device=device).as_strided(tuple(size), tuple(stride)).requires_grad_(
        requires_grad)


_WARN_ALWAYS = {"enabled": False}


def set_warn_always(b: bool) -> None:
    """Recorded only: pjtorch's warnings follow Python's own filters."""
    _WARN_ALWAYS["enabled"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _WARN_ALWAYS["enabled"]


# The functions here PyTorch gives an `out=` argument.
_WITH_OUT = (
    "addbmm addmv addr baddbmm bucketize chain_matmul cholesky cholesky_inverse cholesky_solve complex cross diag diff "
    "frexp histc igamma igammac inner kron lu_solve mode msort mvlgamma nanmedian nanquantile narrow_copy polar "
    "polygamma quantile renorm searchsorted triangular_solve vdot"
).split()
for _function in _WITH_OUT:
    globals()[_function] = accepting_out(globals()[_function])
