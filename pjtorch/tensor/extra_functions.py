"""Smaller parts of PyTorch's tensor API: `torch.layout` (`torch.strided`), `torch.fill`, `torch.bincount`, and
diag/diag_embed/diagflat/trace, tril/triu_indices, meshgrid, cartesian_prod, combinations, diff, kron, cdist,
cross, rot90, block_diag, msort, mode, histc, isin, searchsorted, bucketize, column_stack, dstack, cov, corrcoef.

New primitive kernels are ops in `pjtorch.ops.extra`; PyTorch's composite functions are composed from other
functions here, so that each result's grad_fn is the node PyTorch records.

The view-producing splits (`hsplit`, `vsplit`, `dsplit`) live with the other views in `views.py`.
"""
from __future__ import annotations

import numpy as np

from .. import dispatch
from ..ops import extra as extra_ops
from ..ops import shape as shape_ops
from ..ops.registry import Op, SAVES_NOTHING
from . import dtypes
from .tensor import Tensor, wrap_dim


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
    if input.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.ndim}")
    if input.dtype is dtypes.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
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
    for t in tensors:
        if t.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t}")
    for t in tensors[1:]:
        if t.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
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
    if prepend is not None or append is not None:
        parts = [p if p.ndim else p.expand(*input.shape[:dim], 1, *input.shape[dim + 1:])
                 for p in (prepend, input, append) if p is not None]
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


def kron(input: Tensor, other: Tensor) -> Tensor:
    return dispatch.apply(extra_ops.KRON, (input, other))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    if x1.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.ndim}D")
    for name, t in (("X1", x1), ("X2", x2)):
        if t.dtype.category != dtypes.FLOATING:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{dtypes.LEGACY_NAMES[t.dtype].replace('Tensor', '')}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values, got {float(p)}")
    return dispatch.apply(extra_ops.CDIST, (x1, x2), _static(p=float(p)))


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    if dim is None:
        import warnings
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release. (Triggered internally at "
                      "/__w/pytorch/pytorch/aten/src/ATen/native/Cross.cpp:63.)", UserWarning, stacklevel=2)
        dim = next((d for d in range(input.ndim) if input.shape[d] == 3), -1)
    dim = wrap_dim(dim, input.ndim)
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[dim]} and "
                           f"{other.shape[dim]}")
    return dispatch.apply(extra_ops.CROSS, (input, other), _static(dim=dim))


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and dim1 = {d1}")
    return dispatch.apply(extra_ops.ROT90, (input,), _static(k=k % 4, dims=(d0, d1)))


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
    if input.ndim == 0:
        values, indices = input.clone(), input.new_zeros((), dtype=dtypes.int64)
        return make_return("mode", values=values, indices=indices)
    dim = wrap_dim(dim, input.ndim)
    values, indices = dispatch.apply(extra_ops.MODE, (input,), _static(dim=dim, keepdim=keepdim))
    return make_return("mode", values=values, indices=indices)


# ----- searches and histograms --------------------------------------------------------------------------

def histc(input: Tensor, bins: int = 100, min=0, max=0) -> Tensor:
    if input.dtype.category != dtypes.FLOATING:
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{dtypes.LEGACY_NAMES[input.dtype][:-6]}'")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0, but got " + str(bins) + " for dimension 0")
    if min > max:
        raise RuntimeError("torch.histc(): max must be larger than min")
    # Not differentiable in PyTorch: the result has no history even for an input that requires grad.
    return dispatch.apply(extra_ops.HISTC, (input.detach(),), _static(bins=int(bins), low=float(min), high=float(max)))


def isin(elements, test_elements, *, assume_unique: bool = False, invert: bool = False) -> Tensor:
    from .factories import tensor
    if not isinstance(elements, Tensor) and not isinstance(test_elements, Tensor):
        raise TypeError("isin() received an invalid combination of arguments")
    device = (elements if isinstance(elements, Tensor) else test_elements).device
    if not isinstance(elements, Tensor):
        elements = tensor(elements, device=device)
    if not isinstance(test_elements, Tensor):
        test_elements = tensor(test_elements, device=device)
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
    values = tensor(input, dtype=sorted_sequence.dtype, device=sorted_sequence.device) if scalar else input
    if sorter is not None:
        sorted_sequence = sorted_sequence.gather(-1, sorter)
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
