"""Matrix products and linear algebra as pure JAX functions.

Products run in the input dtype with the highest precision XLA offers on the device, matching
PyTorch's float32 results (XLA's default may use reduced-precision passes on GPU).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .pointwise import refusing
from .registry import Op

_PRECISION = jax.lax.Precision.HIGHEST


def _matmul(a, b):
    return jnp.matmul(a, b, precision=_PRECISION)


def _outer(a, b):
    return jnp.outer(a, b)


def _einsum(*operands, equation):
    return jnp.einsum(equation, *operands, precision=_PRECISION)


def _tensordot(a, b, axes):
    return jnp.tensordot(a, b, axes=axes, precision=_PRECISION)


def _addmm(bias, a, b, beta=1, alpha=1):
    product = jnp.matmul(a, b, precision=_PRECISION)
    return (bias if beta == 1 else beta * bias) + (product if alpha == 1 else alpha * product)


def _linear(x, weight, bias=None):
    out = jnp.matmul(x, weight.T, precision=_PRECISION)
    return out if bias is None else out + bias


def _linear_no_bias(x, weight):
    return jnp.matmul(x, weight.T, precision=_PRECISION)


def _solve(a, b):
    return jnp.linalg.solve(a, b)


# kind: (grad_fn name, the kernel PyTorch names when it refuses bool, its names of the operands).
MATMUL_KINDS = {"mm": ("MmBackward0", "addmm_impl_cpu_", ("self", "mat2")),
                "dot": ("DotBackward0", "dot", ("self", "tensor")),
                "mv": ("MvBackward0", "addmv_impl_cpu", ("self", "vec")),
                "bmm": ("BmmBackward0", "bmm", ("self", "mat2")),
                "batched": ("UnsafeViewBackward0", "bmm", ("self", "mat2"))}
# Products have no bool kernel in PyTorch; integers multiply exactly.
MATMUL = {kind: Op("matmul", refusing(_matmul, kernel, "ifc"), grad_name=name, promote="none", input_names=names)
          for kind, (name, kernel, names) in MATMUL_KINDS.items()}
OUTER = Op("outer", _outer, grad_name="MulBackward0")
# PyTorch's einsum ends in a view of a bmm where labels are summed over several operands, a sum or a permute for
# one operand, and a product where nothing is summed: the grad_fn it reports.
EINSUM = {name: Op("einsum", refusing(_einsum, "bmm", "ifc"), grad_name=name, promote="none")
          for name in ("ViewBackward0", "SumBackward1", "PermuteBackward0", "MulBackward0")}
TENSORDOT = Op("tensordot", refusing(_tensordot, "addmm_impl_cpu_", "ifc"), grad_name="ViewBackward0",
               promote="none")
ADDMM = Op("addmm", _addmm, promote="none")
LINEAR = Op("linear", _linear, grad_name="AddmmBackward0", promote="none")
LINEAR_NO_BIAS = Op("linear", _linear_no_bias, grad_name="MmBackward0", promote="none")
INV = Op("inv", jnp.linalg.inv, grad_name="LinalgInvExBackward0", promote="float")
DET = Op("det", jnp.linalg.det, grad_name="LinalgDetBackward0", promote="float")
SOLVE = Op("solve", _solve, grad_name="LinalgSolveExBackward0", promote="float")
CHOLESKY = Op("cholesky", jnp.linalg.cholesky, grad_name="LinalgCholeskyExBackward0", promote="float")
TRACE = Op("trace", jnp.trace, promote="none")


# ----- torch.linalg ---------------------------------------------------------------------------------
# Each op is a pure function of arrays; the wrappers in `pjtorch.linalg` check shapes and dtypes first, in
# PyTorch's order and with its messages. Value-dependent failures (a singular matrix, a matrix that is not
# positive-definite) come back as an int32 `info` output, which the wrappers read on the host.

from .registry import SAVES_INPUTS_AND_RESULT  # noqa: E402

_INF = float("inf")


def _mT(x):
    return jnp.swapaxes(x, -1, -2)


def _mH(x):
    return jnp.conj(_mT(x)) if jnp.iscomplexobj(x) else _mT(x)


def _safe_root(total, root):
    """`total ** (1/root)` whose gradient is 0 (not NaN) where total is 0, as PyTorch's norm backward masks it."""
    zero = total == 0
    safe = jnp.where(zero, jnp.ones_like(total), total)
    value = jnp.sqrt(safe) if root == 2 else safe ** (1.0 / root)
    return jnp.where(zero, jnp.zeros_like(total), value)


def _vector_norm(x, ord=2.0, dim=None, keepdim=False, dtype=None):
    if dtype is not None:
        x = x.astype(dtype)
    if ord == 2:
        square = (x * jnp.conj(x)).real if jnp.iscomplexobj(x) else x * x
        return _safe_root(jnp.sum(square, axis=dim, keepdims=keepdim), 2)
    magnitude = jnp.abs(x)
    if ord == _INF:
        return jnp.max(magnitude, axis=dim, keepdims=keepdim)
    if ord == -_INF:
        return jnp.min(magnitude, axis=dim, keepdims=keepdim)
    if ord == 0:
        return jnp.sum((magnitude != 0).astype(magnitude.dtype), axis=dim, keepdims=keepdim)
    if ord == 1:
        return jnp.sum(magnitude, axis=dim, keepdims=keepdim)
    return _safe_root(jnp.sum(magnitude ** ord, axis=dim, keepdims=keepdim), ord)


def _svdvals(a):
    if a.shape[-1] == 0 or a.shape[-2] == 0:
        return jnp.zeros(a.shape[:-2] + (0,), jnp.finfo(a.dtype).dtype)
    return jnp.linalg.svd(a, compute_uv=False)


def _matrix_norm(x, ord="fro", dim=(-2, -1), keepdim=False, dtype=None):
    if dtype is not None:
        x = x.astype(dtype)
    d0, d1 = dim
    if ord == "fro":
        return _vector_norm(x, 2, dim, keepdim)
    if ord in ("nuc", 2, -2):
        s = _svdvals(jnp.moveaxis(x, (d0, d1), (-2, -1)))
        if ord == "nuc":
            out = jnp.sum(s, axis=-1)
        elif s.shape[-1] == 0:
            out = jnp.zeros(s.shape[:-1], s.dtype)
        else:
            out = jnp.max(s, axis=-1) if ord == 2 else jnp.min(s, axis=-1)
        if keepdim:
            out = jnp.expand_dims(out, tuple(sorted((d0 % x.ndim, d1 % x.ndim))))
        return out
    # 1/-1: largest/smallest column sum (sum over rows d0, then extreme over d1); inf/-inf: the transpose. The
    # largest of no (nonnegative) sums is 0, as PyTorch gives; the smallest is refused before it gets here.
    summed, over = (d0, d1) if abs(ord) == 1 else (d1, d0)
    sums = jnp.sum(jnp.abs(x), axis=summed, keepdims=True)
    out = jnp.max(sums, axis=over, keepdims=True, initial=0) if ord > 0 else jnp.min(sums, axis=over, keepdims=True)
    return out if keepdim else jnp.squeeze(out, axis=(d0, d1))


def _lu_info(a):
    """LAPACK getrf's info: the 1-based index of the first zero pivot of U, else 0 (per matrix, int32)."""
    n = a.shape[-1]
    if n == 0 or 0 in a.shape:
        return jnp.zeros(a.shape[:-2], jnp.int32)
    lu, _, _ = jax.lax.linalg.lu(jax.lax.stop_gradient(a))
    zero = jnp.diagonal(lu, axis1=-2, axis2=-1) == 0
    return jnp.where(jnp.any(zero, axis=-1), jnp.argmax(zero, axis=-1) + 1, 0).astype(jnp.int32)


def _inv_ex(a):
    if a.shape[-1] == 0 or 0 in a.shape:
        return a, jnp.zeros(a.shape[:-2], jnp.int32)
    return jnp.linalg.inv(a), _lu_info(a)


def _det(a):
    if a.shape[-1] == 0:
        return jnp.ones(a.shape[:-2], a.dtype)
    return jnp.linalg.det(a)


def _slogdet(a):
    if a.shape[-1] == 0:
        return jnp.ones(a.shape[:-2], a.dtype), jnp.zeros(a.shape[:-2], jnp.finfo(a.dtype).dtype)
    sign, logabsdet = jnp.linalg.slogdet(a)
    return sign.astype(a.dtype), logabsdet


def _solve_ex(a, b, left=True, vector=False):
    if not left:  # X A = B  <=>  A^T X^T = B^T
        a = _mT(a)
        b = b if vector else _mT(b)
    if vector:
        b = b[..., None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    x = jnp.linalg.solve(a, b) if a.shape[-1] and 0 not in b.shape else jnp.zeros(b.shape, b.dtype)
    if vector:
        x = x[..., 0]
    elif not left:
        x = _mT(x)
    return x, _lu_info(a)


def _hermitian_from(a, lower=True):
    """The Hermitian matrix one triangle of `a` describes (what LAPACK reads), whose gradient flows as through
    (A + A^H) / 2: PyTorch's backward returns the symmetric part."""
    tri = jnp.tril(a) if lower else jnp.triu(a)
    strict = jnp.tril(a, -1) if lower else jnp.triu(a, 1)
    real_diag = jnp.tril(jnp.triu(tri)).real.astype(a.dtype) if jnp.iscomplexobj(a) else jnp.tril(jnp.triu(tri))
    hermitian = strict + _mH(strict) + real_diag
    symmetric = (a + _mH(a)) / 2
    return symmetric + jax.lax.stop_gradient(hermitian - symmetric)


def _cholesky_info(a):
    """potrf's info: the order of the first leading minor that is not positive-definite, else 0."""
    n = a.shape[-1]
    eye = jnp.eye(n, dtype=a.dtype)
    index = jnp.arange(n)

    def order(k):
        inside = (index[:, None] < k) & (index[None, :] < k)
        minor = jnp.where(inside, a, eye)
        return jnp.all(jnp.isfinite(jax.lax.linalg.cholesky(minor, symmetrize_input=False)), axis=(-2, -1))

    good = jnp.stack([order(k) for k in range(1, n + 1)], axis=-1)
    return jnp.where(jnp.all(good, axis=-1), 0, jnp.argmin(good, axis=-1) + 1).astype(jnp.int32)


def _cholesky_ex(a, upper=False):
    if a.shape[-1] == 0 or 0 in a.shape:
        return a, jnp.zeros(a.shape[:-2], jnp.int32)
    h = _hermitian_from(a, lower=not upper)
    factor = jax.lax.linalg.cholesky(h, symmetrize_input=False)
    failed = ~jnp.all(jnp.isfinite(factor), axis=(-2, -1))
    plain = jax.lax.stop_gradient(h)
    info = jax.lax.cond(jnp.any(failed), _cholesky_info, lambda m: jnp.zeros(m.shape[:-2], jnp.int32), plain)
    return (_mH(factor) if upper else factor), info


def _qr(a, mode="reduced"):
    if mode == "r":
        return jnp.zeros((0,), a.dtype), jnp.linalg.qr(a, mode="r")
    q, r = jnp.linalg.qr(a, mode=mode)
    return q, r


def _eigh(a, UPLO="L"):
    w, v = jnp.linalg.eigh(_hermitian_from(a, lower=UPLO == "L"), symmetrize_input=False)
    return w, v


def _eigvalsh(a, UPLO="L"):
    return _eigh(a, UPLO)[0]


def _svd(a, full_matrices=True):
    """A non-square full SVD is the reduced one completed to square U (or Vh) by QR, outside the gradient: JAX
    differentiates only the reduced SVD, and PyTorch's backward likewise ignores the completing vectors."""
    m, n = a.shape[-2:]
    if not full_matrices or m == n or 0 in (m, n):
        return tuple(jnp.linalg.svd(a, full_matrices=full_matrices))
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    if m > n:
        return jnp.concatenate([u, _completion(u)], axis=-1), s, vh
    v = jnp.conj(jnp.swapaxes(vh, -1, -2))
    return u, s, jnp.concatenate([vh, jnp.conj(jnp.swapaxes(_completion(v), -1, -2))], axis=-2)


def _completion(q):
    """Orthonormal columns completing the orthonormal columns of `q` to a square unitary matrix."""
    complete = jnp.linalg.qr(jax.lax.stop_gradient(q), mode="complete")[0]
    return complete[..., q.shape[-1]:]


def _tolerance(s, atol, rtol):
    """max(atol, rtol * largest singular value), PyTorch's cut-off for pinv and matrix_rank."""
    largest = jnp.max(s, axis=-1, keepdims=True) if s.shape[-1] else jnp.zeros(s.shape[:-1] + (1,), s.dtype)
    return jnp.maximum(atol, rtol * largest)


def _pinv(a, atol=0.0, rtol=0.0, hermitian=False):
    if 0 in a.shape[-2:]:
        return jnp.zeros(a.shape[:-2] + (a.shape[-1], a.shape[-2]), a.dtype)
    if hermitian:  # the value from an eigendecomposition; the gradient, as PyTorch's, that of a general pinv
        w, v = jnp.linalg.eigh(jax.lax.stop_gradient(a))
        keep = jnp.abs(w) > _tolerance(jnp.abs(w), atol, rtol)
        inverse = jnp.where(keep, 1 / jnp.where(keep, w, 1), 0).astype(a.dtype)
        value = jnp.matmul(v * inverse[..., None, :], _mH(v), precision=_PRECISION)
        general = _pinv(a, atol, rtol, False)
        return general + jax.lax.stop_gradient(value - general)
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    keep = s > _tolerance(s, atol, rtol)
    inverse = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(a.dtype)
    return jnp.matmul(_mH(vh) * inverse[..., None, :], _mH(u), precision=_PRECISION)


def _matrix_rank(a, atol=0.0, rtol=0.0, hermitian=False):
    s = jnp.abs(jnp.linalg.eigvalsh(a)) if hermitian else _svdvals(a)
    return jnp.sum(s > _tolerance(s, atol, rtol), axis=-1).astype(jnp.int64)


def _lstsq(a, b, rcond=0.0, driver="gelsy", vector=False):
    if vector:
        b = b[..., None]
    batch = jnp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = jnp.broadcast_to(a, batch + a.shape[-2:])
    b = jnp.broadcast_to(b, batch + b.shape[-2:])
    m, n = a.shape[-2:]
    real = jnp.finfo(a.dtype).dtype
    u, s, vh = jnp.linalg.svd(a, full_matrices=False)
    keep = s > _tolerance(s, 0.0, rcond)
    inverse = jnp.where(keep, 1 / jnp.where(keep, s, 1), 0).astype(a.dtype)
    x = jnp.matmul(_mH(vh) * inverse[..., None, :], jnp.matmul(_mH(u), b, precision=_PRECISION),
                   precision=_PRECISION)
    rank = jnp.sum(keep, axis=-1).astype(jnp.int64) if driver != "gels" else jnp.zeros((0,), jnp.int64)
    if m > n and driver != "gelsy":
        diff = jnp.matmul(a, x, precision=_PRECISION) - b
        residuals = jnp.sum((diff * jnp.conj(diff)).real if jnp.iscomplexobj(diff) else diff * diff, axis=-2)
    else:
        residuals = jnp.zeros((0,), real)
    singular = s.astype(real) if driver in ("gelsd", "gelss") else jnp.zeros((0,), real)
    if vector:
        x = x[..., 0]
    return x, residuals, rank, singular


def _cross(a, b, dim=-1):
    shape = jnp.broadcast_shapes(a.shape, b.shape)
    return jnp.cross(jnp.broadcast_to(a, shape), jnp.broadcast_to(b, shape), axis=dim)


def _vecdot(x, y, dim=-1):
    return jnp.sum(jnp.conj(x) * y if jnp.iscomplexobj(x) else x * y, axis=dim)


def _multi_dot(*arrays, first_vector=False, last_vector=False):
    arrays = list(arrays)
    if first_vector:
        arrays[0] = arrays[0][None, :]
    if last_vector:
        arrays[-1] = arrays[-1][:, None]
    out = arrays[0]
    for other in arrays[1:]:
        out = jnp.matmul(out, other, precision=_PRECISION)
    if first_vector:
        out = out[0]
    if last_vector:
        out = out[..., 0]
    return out


def _matrix_power(a, n=2):
    if n == 0:
        return jnp.broadcast_to(jnp.eye(a.shape[-1], dtype=a.dtype), a.shape)
    if n < 0:
        a, n = jnp.linalg.inv(a), -n
    result = a
    for _ in range(n - 1):
        result = jnp.matmul(result, a, precision=_PRECISION)
    return result


def _eig(a):
    w, v = jnp.linalg.eig(a)
    return w, v


def _eigvals(a):
    return jnp.linalg.eigvals(a)


VECTOR_NORM = Op("linalg_vector_norm", _vector_norm, grad_name="LinalgVectorNormBackward0", promote="none",
                 saves=SAVES_INPUTS_AND_RESULT)
# The grad_fn PyTorch reports for each matrix norm: 'fro' is a vector norm, 'nuc' a sum of singular values, the
# others an amax/amin of singular values or of column/row sums.
MATRIX_NORM = {ord: Op("linalg_matrix_norm", _matrix_norm, grad_name=name, promote="none")
               for ord, name in (("fro", "LinalgVectorNormBackward0"), ("nuc", "SumBackward1"),
                                 (2, "AmaxBackward0"), (1, "AmaxBackward0"), (_INF, "AmaxBackward0"),
                                 (-2, "AminBackward0"), (-1, "AminBackward0"), (-_INF, "AminBackward0"),
                                 ("keepdim", "PermuteBackward0"))}
INV_EX = Op("linalg_inv_ex", _inv_ex, grad_name="LinalgInvExBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
LINALG_DET = Op("linalg_det", _det, grad_name="LinalgDetBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
SLOGDET = Op("linalg_slogdet", _slogdet, grad_name="LinalgSlogdetBackward0", promote="none",
             saves=SAVES_INPUTS_AND_RESULT)
SOLVE_EX = Op("linalg_solve_ex", _solve_ex, grad_name="LinalgSolveExBackward0", promote="none",
              saves=SAVES_INPUTS_AND_RESULT)
CHOLESKY_EX = Op("linalg_cholesky_ex", _cholesky_ex, grad_name="LinalgCholeskyExBackward0", promote="none",
                 saves=SAVES_INPUTS_AND_RESULT)
QR = Op("linalg_qr", _qr, grad_name="LinalgQrBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
EIGH = Op("linalg_eigh", _eigh, grad_name="LinalgEighBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
EIGVALSH = Op("linalg_eigvalsh", _eigvalsh, grad_name="LinalgEighBackward0", promote="none",
              saves=SAVES_INPUTS_AND_RESULT)
SVD = Op("linalg_svd", _svd, grad_name="LinalgSvdBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
SVDVALS = Op("linalg_svdvals", _svdvals, grad_name="LinalgSvdBackward0", promote="none",
             saves=SAVES_INPUTS_AND_RESULT)
PINV = Op("linalg_pinv", _pinv, grad_name="LinalgPinvBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
MATRIX_RANK = Op("linalg_matrix_rank", _matrix_rank, promote="none")
LSTSQ = Op("linalg_lstsq", _lstsq, grad_name="LinalgLstsqBackward0", promote="none")
CROSS = Op("linalg_cross", _cross, grad_name="LinalgCrossBackward0", promote="none")
VECDOT = {name: Op("linalg_vecdot", _vecdot, grad_name=name, promote="none")
          for name in ("SumBackward1", "VdotBackward0")}
MULTI_DOT = Op("linalg_multi_dot", _multi_dot, grad_name="ViewBackward0", promote="none")
MATRIX_POWER = {name: Op("linalg_matrix_power", _matrix_power, grad_name=name, promote="none")
                for name in ("CopyBackwards", "CloneBackward0", "MmBackward0", "UnsafeViewBackward0",
                             "LinalgInvExBackward0")}
EIG = Op("linalg_eig", _eig, grad_name="LinalgEigBackward0", promote="none", saves=SAVES_INPUTS_AND_RESULT)
EIGVALS = Op("linalg_eigvals", _eigvals, grad_name="LinalgEigBackward0", promote="none",
             saves=SAVES_INPUTS_AND_RESULT)
