"""`torch.linalg`: PyTorch's linear-algebra functions over the ops in `pjtorch.ops.linalg`.

Each function checks what PyTorch checks, in its order and with its messages (shapes first, then dtypes), and
then runs one op through dispatch, so autograd (jax.vjp of the op) and grad_fn names come for free. Failures
that depend on the values (a singular matrix, one that is not positive-definite) come back from the op as an
`info` tensor, which is read on the host, as PyTorch's CPU kernels do.
"""
from __future__ import annotations

import builtins
import math
import numbers

import numpy as np

import pjtorch

from . import dispatch
from .ops import extra as _extra_ops
from .ops import linalg as _ops
from .tensor import dtypes, factories, views
from .tensor import functions as _functions
from .tensor.return_types import make_return
from .tensor.tensor import Tensor, wrap_dim

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "cross", "det", "diagonal", "eig", "eigh", "eigvals",
           "eigvalsh", "inv", "inv_ex", "lstsq", "matmul", "matrix_norm", "matrix_power", "matrix_rank",
           "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "solve_ex", "svd", "svdvals", "vecdot",
           "vector_norm", "matrix_exp", "solve_triangular", "lu_factor", "lu_factor_ex", "lu", "lu_solve", "vander",
           "cond", "tensorinv", "tensorsolve", "householder_product"]


class _LinAlgError(RuntimeError):
    """PyTorch's `torch.linalg.LinAlgError` (a RuntimeError, named `torch._C._LinAlgError`)."""


_LinAlgError.__module__ = "torch._C"
LinAlgError = _LinAlgError

_INF = float("inf")
_LOW_PRECISION = (dtypes.float16, dtypes.bfloat16)


def _static(**kwargs) -> tuple:
    return tuple(sorted(kwargs.items()))


def _name(d: dtypes.dtype) -> str:
    """PyTorch's ScalarType name: Float, Long, ComplexFloat..."""
    return dtypes.LEGACY_NAMES[d].replace("Tensor", "")


def _require_tensor(value, function: str, name: str = "A", position: int = 1) -> None:
    if not isinstance(value, Tensor):
        raise TypeError(f"{function}(): argument '{name}' (position {position}) must be Tensor, not "
                        f"{type(value).__name__}")


def _check_matrix(api: str, A: Tensor, square: bool = True, what: str = "A") -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{api}: The input tensor {what} must have at least 2 dimensions.")
    if square and A._shape[-1] != A._shape[-2]:
        raise RuntimeError(f"{api}: A must be batches of square matrices, but they are {A._shape[-2]} by "
                           f"{A._shape[-1]} matrices")


def _check_float(api: str, A: Tensor) -> None:
    if A.dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{api}: Expected a floating point or complex tensor as input. Got {_name(A.dtype)}")


def _check_kernel(kernel: str, A: Tensor) -> None:
    """PyTorch's CPU LAPACK kernels have no half-precision (or integer) version."""
    if A.dtype in _LOW_PRECISION or A.dtype.category < dtypes.FLOATING:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_name(A.dtype)}\'')


def _check_low_precision(api: str, A: Tensor) -> None:
    if A.dtype in _LOW_PRECISION:
        raise RuntimeError(f"{api}: Low precision dtypes not supported. Got {_name(A.dtype)}")


def _raise_on_info(info: Tensor, api: str, describe) -> None:
    """Raises LinAlgError for the first matrix whose `info` is nonzero, prefixed with its batch index."""
    codes = np.asarray(info._value())
    flat = codes.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        first = int(bad[0])
        prefix = f"(Batch element {first}): " if codes.ndim else ""
        raise _LinAlgError(f"{api}: {prefix}{describe(int(flat[first]))}")


def _ord_text(ord) -> str:
    if isinstance(ord, str):
        return ord
    if math.isinf(ord):
        return "inf" if ord > 0 else "-inf"
    return f"{ord:g}"


# ----- norms ----------------------------------------------------------------------------------------

def _check_norm_dtype(api: str, A: Tensor, dtype) -> None:
    if dtype is None:
        return
    if dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{api}: dtype should be floating point or complex, but got {_name(dtype)}")
    if A.dtype.category == dtypes.COMPLEX and dtype.category != dtypes.COMPLEX:
        raise RuntimeError(f"{api}: dtype should be complex for complex inputs, but got {_name(dtype)}")
    if A.dtype.category != dtypes.COMPLEX and dtype.category == dtypes.COMPLEX:
        raise RuntimeError(f"{api}: dtype should be real for real inputs, but got {_name(dtype)}")
    if dtypes.promote_types(A.dtype, dtype) is not dtype:
        raise RuntimeError(f"{api}: the dtype of the input ({_name(A.dtype)}) should be convertible without "
                           f"narrowing to the specified dtype ({_name(dtype)})")


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    _require_tensor(x, "linalg_vector_norm", "input")
    if isinstance(ord, Tensor):
        ord = ord.item()
    if isinstance(ord, builtins.bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not {type(ord).__name__}")
    ord = float(ord)
    _check_float("linalg.vector_norm", x)
    _check_norm_dtype("linalg.vector_norm", x, dtype)
    dims = _functions.dims_arg(dim, x.ndim)
    if ord < 0 or ord == _INF:
        if dims is None and x.numel() == 0:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on an empty tensor "
                               "because the operation does not have an identity")
        for d in (dim,) if isinstance(dim, int) else (dim or ()):  # named as given, in the order given
            if x._shape[wrap_dim(int(d), x.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_ord_text(ord)} norm on the dimension "
                                   f"{d}because this dimension is empty and the operation does not have an identity")
    result = dispatch.apply(_ops.VECTOR_NORM, (x,), _static(ord=ord, dim=dims, keepdim=builtins.bool(keepdim),
                                                           dtype=None if dtype is None else dtype.jax))
    return _into(out, result)


_MATRIX_ORDS = ("fro", "nuc", 1.0, -1.0, 2.0, -2.0, _INF, -_INF)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    _require_tensor(A, "linalg_matrix_norm", "input")
    _check_matrix("linalg.matrix_norm", A, square=False)
    _check_float("linalg.matrix_norm", A)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    d0, d1 = (wrap_dim(int(d), A.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if isinstance(ord, Tensor):
        ord = ord.item()
    if not isinstance(ord, str):
        ord = float(ord)
    if ord not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.matrix_norm: Order {_ord_text(ord)} not supported.")
    if ord in ("nuc", 2.0, -2.0):
        _check_low_precision("linalg.matrix_norm", A)
    _check_norm_dtype("linalg.vector_norm" if ord == "fro" else "linalg.matrix_norm", A, dtype)
    _check_empty_minimum(A, ord, d0, d1, builtins.bool(keepdim))
    static = _static(ord=ord, dim=(d0, d1) if ord != "fro" else tuple(sorted((d0, d1))),
                     keepdim=builtins.bool(keepdim), dtype=None if dtype is None else dtype.jax)
    # PyTorch's nuclear and spectral norms end in a permute where the reduced dims are kept.
    op = _ops.MATRIX_NORM["keepdim"] if keepdim and ord in ("nuc", 2.0, -2.0) else _ops.MATRIX_NORM[ord]
    return _into(out, dispatch.apply(op, (A,), static))


def _check_empty_minimum(A: Tensor, ord, d0: int, d1: int, keepdim: bool) -> None:
    """A negative order's norm takes a minimum, which PyTorch refuses over an empty dim (the maximum of the
    nonnegative sums or singular values is 0 there): for -1/-inf the minimum is over d1/d0 after the sum over
    the other dim, for -2 over the (empty) singular values."""
    if ord == -2.0 and 0 in (A._shape[d0], A._shape[d1]):
        raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
    if ord not in (-1.0, -_INF):
        return
    summed, over = (d0, d1) if ord == -1.0 else (d1, d0)
    if A._shape[over] == 0:
        position = over - (not keepdim and summed < over)
        raise IndexError(f"amin(): Expected reduction dim {position} to have non-zero size.")


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    _require_tensor(A, "linalg_norm", "input")
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got "
                               f"[{', '.join(str(d) for d in dims)}]")
    else:
        dims = None
        if ord is not None and A.ndim not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                               f"Got {A.ndim}D.")
    if isinstance(ord, str):
        return matrix_norm(A, ord, dims if dims is not None else (-2, -1), keepdim, dtype=dtype, out=out)
    if ord is not None and ((dims is not None and len(dims) == 2) or (dims is None and A.ndim == 2)):
        return matrix_norm(A, ord, dims if dims is not None else (-2, -1), keepdim, dtype=dtype, out=out)
    return vector_norm(A, 2 if ord is None else ord, dims, keepdim, dtype=dtype, out=out)


def _into(out, result):
    """`out=`: PyTorch resizes and copies into it; here the result is copied in and `out` returned."""
    if out is None:
        return result
    if isinstance(result, tuple):
        for target, value in zip(out, result):
            _into(target, value)
        return out
    if out._shape != result._shape:
        out.resize_(result._shape)
    out.copy_(result)
    return out


# ----- inverses, determinants, solvers ------------------------------------------------------------

def _singular_inv(k: int) -> str:
    return (f"The diagonal element {k} is zero, the inversion could not be completed because the input matrix "
            "is singular.")


def _check_inv(A: Tensor) -> None:
    _require_tensor(A, "linalg_inv", "A")
    _check_matrix("linalg.inv", A)
    _check_float("linalg.inv", A)
    _check_low_precision("linalg.inv", A)


def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    _check_inv(A)
    inverse, info = dispatch.apply(_ops.INV_EX, (A,))
    if check_errors:
        _raise_on_info(info, "linalg.inv_ex", _singular_inv)
    return _into(out, make_return("linalg_inv_ex", inverse=inverse, info=info))


def inv(A: Tensor, *, out=None) -> Tensor:
    _check_inv(A)
    inverse, info = dispatch.apply(_ops.INV_EX, (A,))
    _raise_on_info(info, "linalg.inv", _singular_inv)
    return _into(out, inverse)


def det(A: Tensor, *, out=None) -> Tensor:
    _require_tensor(A, "linalg_det", "A")
    _check_matrix("linalg.det", A)
    _check_float("linalg.det", A)
    _check_kernel("lu_cpu", A)
    return _into(out, dispatch.apply(_ops.LINALG_DET, (A,)))


def slogdet(A: Tensor, *, out=None):
    _require_tensor(A, "linalg_slogdet", "A")
    _check_matrix("linalg.slogdet", A)
    _check_float("linalg.slogdet", A)
    _check_low_precision("linalg.slogdet", A)
    sign, logabsdet = dispatch.apply(_ops.SLOGDET, (A,))
    return _into(out, make_return("linalg_slogdet", sign=sign, logabsdet=logabsdet))


def _solve(A: Tensor, B: Tensor, left: bool):
    _require_tensor(A, "linalg_solve", "A")
    _require_tensor(B, "linalg_solve", "B", 2)
    _check_float("linalg.solve", A)
    if A.dtype is not B.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_name(A.dtype)} and B of type {_name(B.dtype)} instead")
    _check_matrix("linalg.solve", A)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._shape == A._shape[:-1])
    b_shape = B._shape + (1,) if vector else B._shape
    if len(b_shape) < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    if (A._shape[-2] != b_shape[-2]) if left else (A._shape[-1] != b_shape[-1]):
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A._shape[-2]}x{A._shape[-1]} and "
                           f"{b_shape[-2]}x{b_shape[-1]})")
    _functions.pointwise.broadcast_shapes(A._shape[:-2], b_shape[:-2])
    _check_kernel("lu_cpu", A)
    return dispatch.apply(_ops.SOLVE_EX, (A, B), _static(left=builtins.bool(left), vector=vector))


def _singular_solve(_: int) -> str:
    return "The solver failed because the input matrix is singular."


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    result, info = _solve(A, B, left)
    if check_errors:
        _raise_on_info(info, "torch.linalg.solve_ex", _singular_solve)
    return _into(out, make_return("linalg_solve_ex", result=result, info=info))


def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    result, info = _solve(A, B, left)
    _raise_on_info(info, "torch.linalg.solve", _singular_solve)
    return _into(out, result)


def _not_pd(k: int) -> str:
    return (f"The factorization could not be completed because the input is not positive-definite (the leading "
            f"minor of order {k} is not positive-definite).")


def _cholesky(A: Tensor, upper: bool):
    _require_tensor(A, "linalg_cholesky", "A")
    _check_matrix("linalg.cholesky", A)
    _check_float("linalg.cholesky", A)
    _check_kernel("cholesky_cpu", A)
    return dispatch.apply(_ops.CHOLESKY_EX, (A,), _static(upper=builtins.bool(upper)))


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    factor, info = _cholesky(A, upper)
    if check_errors:
        _raise_on_info(info, "linalg.cholesky_ex", _not_pd)
    return _into(out, make_return("linalg_cholesky_ex", L=factor, info=info))


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    factor, info = _cholesky(A, upper)
    _raise_on_info(info, "linalg.cholesky", _not_pd)
    return _into(out, factor)


# ----- decompositions ---------------------------------------------------------------------------------

def qr(A: Tensor, mode: str = "reduced", *, out=None):
    _require_tensor(A, "linalg_qr", "A")
    _check_matrix("linalg.qr", A, square=False)
    _check_float("linalg.qr", A)
    if mode not in ("reduced", "r", "complete"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    _check_kernel("geqrf_cpu", A)
    q, r = dispatch.apply(_ops.QR, (A,), _static(mode=mode))
    return _into(out, make_return("linalg_qr", Q=q, R=r))


def _check_eigh(A: Tensor, UPLO: str) -> None:
    _check_matrix("linalg.eigh", A)
    if UPLO not in ("L", "U", "l", "u"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    _check_kernel("linalg_eigh_cpu", A)


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    _require_tensor(A, "linalg_eigh", "A")
    _check_eigh(A, UPLO)
    w, v = dispatch.apply(_ops.EIGH, (A,), _static(UPLO=UPLO.upper()))
    return _into(out, make_return("linalg_eigh", eigenvalues=w, eigenvectors=v))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    _require_tensor(A, "linalg_eigvalsh", "A")
    _check_eigh(A, UPLO)
    return _into(out, dispatch.apply(_ops.EIGVALSH, (A,), _static(UPLO=UPLO.upper())))


def _check_svd(A: Tensor) -> None:
    _check_matrix("linalg.svd", A, square=False)
    _check_float("linalg.svd", A)
    _check_kernel("linalg_svd_cpu", A)


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    _require_tensor(A, "linalg_svd", "A")
    _check_svd(A)
    u, s, vh = dispatch.apply(_ops.SVD, (A,), _static(full_matrices=builtins.bool(full_matrices)))
    return _into(out, make_return("linalg_svd", U=u, S=s, Vh=vh))


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    _require_tensor(A, "linalg_svdvals", "A")
    _check_svd(A)
    return _into(out, dispatch.apply(_ops.SVDVALS, (A,)))


def eig(A: Tensor, *, out=None):
    _require_tensor(A, "linalg_eig", "input")
    _check_matrix("linalg.eig", A)
    A.dtype.to_complex()  # PyTorch's "Unknown Complex ScalarType for Long"
    _check_kernel("linalg_eig_out_cpu", A)
    w, v = dispatch.apply(_ops.EIG, (A,))
    return _into(out, make_return("linalg_eig", eigenvalues=w, eigenvectors=v))


def eigvals(A: Tensor, *, out=None) -> Tensor:
    _require_tensor(A, "linalg_eigvals", "input")
    _check_matrix("linalg.eigvals", A)
    A.dtype.to_complex()
    _check_kernel("linalg_eig_out_cpu", A)
    return _into(out, dispatch.apply(_ops.EIGVALS, (A,)))


# ----- pseudo-inverse, rank, least squares ------------------------------------------------------------

def _number(value):
    if value is None:
        return None
    return value.item() if isinstance(value, Tensor) else float(value)


def _tolerances(A: Tensor, atol, rtol) -> tuple:
    """PyTorch's defaults: rtol = eps * max(m, n) when neither is given, 0 when only a positive atol is."""
    atol, rtol = _number(atol), _number(rtol)
    if rtol is None:
        eps = float(np.finfo(np.dtype(A.dtype.jax)).eps)
        rtol = 0.0 if atol is not None and atol > 0 else eps * max(A._shape[-2], A._shape[-1])
    return float(atol or 0.0), float(rtol)


_PINV_DTYPES = ("float32", "float64", "complex64", "complex128")


def pinv(A: Tensor, rcond=None, hermitian: bool = False, *, atol=None, rtol=None, out=None) -> Tensor:
    _require_tensor(A, "linalg_pinv", "input")
    if A.ndim < 2 or A.dtype.name not in _PINV_DTYPES:
        raise RuntimeError(f"linalg.pinv({_name(A.dtype)}{{[{', '.join(str(s) for s in A._shape)}]}}): expected a "
                           "tensor with 2 or more dimensions of float, double, cfloat or cdouble types")
    if rcond is not None:
        rtol = rcond
    atol, rtol = _tolerances(A, atol, rtol)
    return _into(out, dispatch.apply(_ops.PINV, (A,), _static(atol=atol, rtol=rtol,
                                                             hermitian=builtins.bool(hermitian))))


def matrix_rank(A: Tensor, tol=None, hermitian: bool = False, *, atol=None, rtol=None, out=None) -> Tensor:
    _require_tensor(A, "linalg_matrix_rank", "input")
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if A.dtype.name not in _PINV_DTYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    atol, rtol = _tolerances(A, atol, rtol)
    return _into(out, dispatch.apply(_ops.MATRIX_RANK, (A,), _static(atol=atol, rtol=rtol,
                                                                    hermitian=builtins.bool(hermitian))))


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A: Tensor, B: Tensor, rcond=None, *, driver=None):
    _require_tensor(A, "linalg_lstsq", "self")
    _require_tensor(B, "linalg_lstsq", "b", 2)
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    if A.dtype.name not in _PINV_DTYPES or B.dtype.name not in _PINV_DTYPES:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if A.dtype is not B.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's "
                           f"dtype {_name(A.dtype)} and other's dtype {_name(B.dtype)}")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B._shape == A._shape[:-1])
    rows = B._shape[-1] if vector else B._shape[-2]
    if A._shape[-2] != rows:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size("
                           f"{-1 if vector else -2})")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    _functions.pointwise.broadcast_shapes(A._shape[:-2], B._shape[:-1] if vector else B._shape[:-2])
    m, n = A._shape[-2:]
    rcond = _number(rcond)
    if rcond is None or rcond < 0:
        rcond = float(np.finfo(np.dtype(A.dtype.jax)).eps) * max(m, n)
    solution, residuals, rank, singular = dispatch.apply(
        _ops.LSTSQ, (A, B), _static(rcond=rcond, driver=driver, vector=vector))
    if residuals.numel() and driver != "gels" and builtins.bool((np.asarray(rank._value()) < n).any()):
        residuals = factories.empty(0, dtype=residuals.dtype)
    return make_return("linalg_lstsq", solution=solution, residuals=residuals, rank=rank,
                       singular_values=singular.detach())


# ----- products -----------------------------------------------------------------------------------------

def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    _require_tensor(input, "linalg_cross", "input")
    _require_tensor(other, "linalg_cross", "other", 2)
    if input.ndim != other.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, input.ndim)
    if input._shape[d] != 3 or other._shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {input._shape[d]} and "
                           f"{other._shape[d]}")
    _functions.pointwise.broadcast_shapes(input._shape, other._shape)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"expected scalar type {_name(input.dtype)} but found {_name(other.dtype)}")
    return _into(out, dispatch.apply(_ops.CROSS, (input, other), _static(dim=d)))


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    _require_tensor(x, "linalg_vecdot", "x")
    _require_tensor(y, "linalg_vecdot", "y", 2)
    _check_float("linalg.vecdot", x)
    if x.dtype is not y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{_name(x.dtype)} and y of type {_name(y.dtype)} instead")
    if x.ndim == 1 and y.ndim == 1:
        wrap_dim(dim, 1)
        if x._shape[0] != y._shape[0]:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{x._shape[0]}] and src [{y._shape[0]}] "
                               f"to have the same number of elements, but got {x._shape[0]} and {y._shape[0]} "
                               "elements respectively")
        return _into(out, dispatch.apply(_ops.VECDOT["VdotBackward0"], (x, y), _static(dim=0)))
    shape = _functions.pointwise.broadcast_shapes(x._shape, y._shape)
    d = wrap_dim(dim, len(shape))
    return _into(out, dispatch.apply(_ops.VECDOT["SumBackward1"], (x, y), _static(dim=d - len(shape))))


def matmul(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    return _into(out, _functions.matmul(input, other))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    return views.diagonal(A, offset, dim1, dim2)


def multi_dot(tensors, *, out=None) -> Tensor:
    tensors = list(tensors)
    if len(tensors) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(tensors)}")
    first, last = tensors[0], tensors[-1]
    if first.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.ndim}D")
    if last.ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.ndim}D")
    for i, t in enumerate(tensors[1:-1], start=1):
        if t.ndim != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.ndim}D")
    for i, t in enumerate(tensors[1:], start=1):
        if t.dtype is not first.dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{_functions._c_type_name(first.dtype)} and tensor {i} "
                               f"{_functions._c_type_name(t.dtype)}")
    shapes = [t._shape for t in tensors]
    if first.ndim == 1:
        shapes[0] = (1,) + shapes[0]
    if last.ndim == 1:
        shapes[-1] = shapes[-1] + (1,)
    for i in range(len(shapes) - 1):
        if shapes[i][1] != shapes[i + 1][0]:
            raise RuntimeError(f"multi_dot(): tensors {i} and {i + 1} with shapes [{', '.join(map(str, shapes[i]))}] "
                               f"and [{', '.join(map(str, shapes[i + 1]))}] cannot be multiplied")
    return _into(out, dispatch.apply(_ops.MULTI_DOT, tuple(tensors),
                                     _static(first_vector=first.ndim == 1, last_vector=last.ndim == 1)))


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    _require_tensor(A, "linalg_matrix_power", "input")
    if isinstance(n, builtins.bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"linalg_matrix_power(): argument 'n' (position 2) must be int, not {type(n).__name__}")
    n = int(n)
    _check_matrix("linalg.matrix_power", A)
    if n < 0:
        A, n = inv(A), -n
        if n == 1:
            return _into(out, A)
    if n == 0:
        name = "CopyBackwards"
    elif n == 1:
        name = "CloneBackward0"
    else:
        name = "MmBackward0" if A.ndim == 2 else "UnsafeViewBackward0"
    return _into(out, dispatch.apply(_ops.MATRIX_POWER[name], (A,), _static(n=n)))


# ----- exponential, triangular solves, LU ---------------------------------------------------------------

def matrix_exp(A: Tensor) -> Tensor:
    from .tensor.extra_functions import matrix_exp as exp
    return exp(A)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool | None = None, left: bool = True,
                     unitriangular: bool = False, out=None) -> Tensor:
    if upper is None:
        raise TypeError('linalg_solve_triangular() missing 1 required positional arguments: "upper"')
    _check_matrix("linalg.solve_triangular", A)
    _check_matrix("linalg.solve_triangular", B, square=False, what="B")
    if A.dtype.category < dtypes.FLOATING:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_name(A.dtype)}'")
    rows, cols = (A.shape[-1], B.shape[-1]) if left else (B.shape[-2], A.shape[-1])
    if B.ndim < 2 or (B.shape[-2] if left else B.shape[-1]) != A.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{B.shape[-2] if B.ndim > 1 else 1}x{B.shape[-1]})")
    batch = tuple(_functions._broadcast_shape(tuple(A.shape[:-2]), tuple(B.shape[:-2])))
    A, B = A.expand(*batch, *A.shape[-2:]), B.expand(*batch, rows, cols)
    return _into(out, dispatch.apply(_extra_ops.SOLVE_TRIANGULAR, (A, B), _static(
        upper=builtins.bool(upper), left=builtins.bool(left), unitriangular=builtins.bool(unitriangular))))


def _check_lu(api: str, A: Tensor, pivot: bool) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{api}: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    _check_kernel("lu_cpu", A)
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")


def _zero_pivot(LU: Tensor) -> Tensor:
    """LAPACK getrf's info: the 1-based index of U's first zero diagonal entry, else 0 (per matrix, int32)."""
    zero = LU.detach().diagonal(dim1=-2, dim2=-1) == 0
    if zero.shape[-1] == 0:
        return pjtorch.zeros(zero.shape[:-1], dtype=dtypes.int32)
    return pjtorch.where(zero.any(-1), zero.int().argmax(-1) + 1, 0).int()


def _raise_on_zero_pivot(info: Tensor, api: str) -> None:
    """lu_factor's error (a plain RuntimeError) for the first matrix with a zero pivot."""
    try:
        _raise_on_info(info, api, lambda k: f"U[{k},{k}] is zero and using it on lu_solve would result in a "
                                            "division by zero. If you still want to perform the factorization, "
                                            "consider calling linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    except _LinAlgError as error:
        raise RuntimeError(str(error)) from None


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    _check_lu("torch.lu_factor", A, pivot)
    LU, pivots, _ = dispatch.apply(_extra_ops.LU_FACTOR, (A,))
    info = _zero_pivot(LU)
    if check_errors:
        _raise_on_zero_pivot(info, "torch.linalg.lu_factor_ex")
    return _into(out, make_return("linalg_lu_factor_ex", LU=LU, pivots=pivots, info=info))


def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    LU, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_on_zero_pivot(info, "torch.linalg.lu_factor")
    return _into(out, make_return("linalg_lu_factor", LU=LU, pivots=pivots))


def lu(A: Tensor, *, pivot: bool = True, out=None):
    _check_lu("linalg.lu", A, pivot)
    P, L, U = dispatch.apply(_extra_ops.LU, (A,))
    return _into(out, make_return("linalg_lu", P=P, L=L, U=U))


def lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False,
             out=None) -> Tensor:
    _check_matrix("torch.linalg.lu_solve", LU)
    if pivots.dtype is not dtypes.int32:
        raise RuntimeError("linalg.lu_solve: Expected pivots to be integers. Got " + _name(pivots.dtype))
    return _into(out, dispatch.apply(_extra_ops.LU_SOLVE, (LU, pivots, B.to(LU.dtype)),
                                     _static(left=builtins.bool(left), adjoint=builtins.bool(adjoint))))


def vander(x: Tensor, N: int | None = None) -> Tensor:
    """Powers x^0 .. x^(N-1) along a new last dim (integers as int64), differentiable."""
    n = (x.shape[-1] if x.ndim else 1) if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    base = x if x.dtype.category >= dtypes.FLOATING else x.to(dtypes.int64)
    return base.unsqueeze(-1) ** factories.arange(n, device=x.device).to(base.dtype)


def _cond_order_text(p) -> str:
    """The order as PyTorch's message prints it: a float in C's %f (`1.000000`), infinities as `inf`."""
    if isinstance(p, float) and not math.isinf(p):
        return f"{p:f}"
    return _ord_text(p) if isinstance(p, float) else str(p)


def _check_cond_arguments(A: Tensor, p) -> None:
    """In PyTorch's order: a string order checks the matrix first, a numeric one its rank, then the order."""
    if isinstance(p, str):
        _check_matrix(f"linalg.cond(ord={p})", A, square=False)
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if p not in (None, 2, -2) and p not in _MATRIX_ORDS:
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if p not in (None, 2, -2):
        _check_matrix(f"linalg.cond(ord={_cond_order_text(p)})", A)


def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """The condition number: the ratio of extreme singular values (p None, 2, -2), else norm(A) * norm(inv(A))."""
    _check_cond_arguments(A, p)
    if A.numel() == 0:  # PyTorch's condition number of empty matrices is 0, whatever the order
        return _into(out, factories.zeros(A.shape[:-2], dtype=A.dtype.to_real(), device=A.device))
    if p in (None, 2, -2):
        s = svdvals(A)
        ratio = s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
        return _into(out, ratio)
    return _into(out, matrix_norm(A, p) * matrix_norm(inv(A), p))


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {math.prod(cols)} != {math.prod(rows)}")
    return _into(out, inv(A.reshape(math.prod(rows), math.prod(cols))).reshape((*cols, *rows)))


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    if dims is not None:
        moved = [wrap_dim(d, A.ndim) for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)
    trailing = tuple(A.shape[B.ndim:])
    return _into(out, solve(A.reshape(B.numel(), -1), B.reshape(-1)).reshape(trailing))


# ----- Householder products -------------------------------------------------------------------------------

def _check_householder(A: Tensor, tau: Tensor) -> None:
    api = "torch.linalg.householder_product"
    if A.ndim < 2:
        raise RuntimeError(f"{api}: input must have at least 2 dimensions.")
    if A.shape[-2] < A.shape[-1]:
        raise RuntimeError(f"{api}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if A.shape[-1] < tau.shape[-1] if tau.ndim else False:
        raise RuntimeError(f"{api}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A.ndim - tau.ndim != 1:
        raise RuntimeError(f"{api}: Expected tau to have one dimension less than input, but got tau.ndim equal to "
                           f"{tau.ndim} and input.ndim is equal to {A.ndim}")
    if tuple(tau.shape[:-1]) != tuple(A.shape[:-2]):
        raise RuntimeError(f"{api}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
                           f"{list(tau.shape[:-1])}")
    if tau.dtype is not A.dtype:
        raise RuntimeError(f"{api}: tau dtype {_name(tau.dtype)} does not match input dtype {_name(A.dtype)}")
    _check_kernel("orgqr_cpu", A)


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first n columns of H_1 ... H_k, H_i = I - tau_i v_i v_i^H, v_i being column i of A below the diagonal
    with a 1 on it (LAPACK's orgqr); made of differentiable tensor ops."""
    _require_tensor(A, "linalg_householder_product", "input")
    _require_tensor(tau, "linalg_householder_product", "tau", 2)
    _check_householder(A, tau)
    m, n = A.shape[-2], A.shape[-1]
    Q = pjtorch.eye(m, n, dtype=A.dtype).expand(*A.shape[:-2], m, n)
    below = A.tril(-1)
    for i in reversed(range(tau.shape[-1])):
        unit = pjtorch.zeros(m, dtype=A.dtype)
        unit[i] = 1
        v = below[..., :, i] + unit
        projection = (v.conj().unsqueeze(-1) * Q).sum(-2, keepdim=True)
        Q = Q - tau[..., i, None, None] * v.unsqueeze(-1) * projection
    return _into(out, Q)
