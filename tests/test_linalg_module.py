"""`torch.linalg` against real PyTorch: values (within tolerance), dtypes, shapes with batch dims, grad_fn names,
gradients through `.backward()`, named-tuple results, and the exception type and message for bad input.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
import pjtorch as pt  # noqa: E402

INF = float("inf")
TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-10), "complex64": (2e-4, 2e-5), "complex128": (1e-9, 1e-10)}


def _rng(seed=0):
    return np.random.default_rng(seed)


def randn(*shape, dtype="float32", seed=0):
    rng = _rng(seed)
    x = rng.standard_normal(shape)
    if dtype.startswith("complex"):
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype)


def spd(*shape, dtype="float32", seed=0):
    """Batches of well-conditioned symmetric (Hermitian) positive-definite matrices."""
    a = randn(*shape, dtype=dtype, seed=seed)
    n = shape[-1]
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + n * np.eye(n)).astype(dtype)


def _lib_tensor(lib, x, grad):
    t = lib.tensor(x)
    if grad and (np.issubdtype(x.dtype, np.floating) or np.issubdtype(x.dtype, np.complexfloating)):
        t.requires_grad_(True)
    return t


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _flat(result):
    return list(result) if isinstance(result, tuple) else [result]


def assert_same(ours, theirs, rtol=None, atol=None, grad_fn=True):
    ours, theirs = _flat(ours), _flat(theirs)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape)
        assert str(o.dtype) == str(t.dtype)
        dtype = str(t.dtype).replace("torch.", "")
        r, a = TOL.get(dtype, (0, 0))
        np.testing.assert_allclose(_np(o), _np(t), rtol=rtol or r, atol=atol or a)
        if grad_fn:
            theirs_name = type(t.grad_fn).__name__ if t.grad_fn is not None else None
            ours_name = type(o.grad_fn).__name__ if o.grad_fn is not None else None
            assert ours_name == theirs_name


def run_both(fn, *arrays, grad=True):
    results = []
    for lib in (pt, torch):
        tensors = [_lib_tensor(lib, x, grad) for x in arrays]
        results.append((fn(lib, *tensors), tensors))
    return results


def check(fn, *arrays, grad=True, rtol=None, atol=None, backward=None):
    """Values, shapes, dtypes and grad_fn names; with `backward` (a function of the library and the result giving a
    scalar), the gradients of every input too."""
    (ours, our_inputs), (theirs, their_inputs) = run_both(fn, *arrays, grad=grad)
    assert type(ours).__name__ == type(theirs).__name__
    if isinstance(theirs, tuple):
        assert ours._fields == type(theirs).__match_args__
    assert_same(ours, theirs, rtol, atol)
    if backward is not None:
        backward(pt, ours).backward()
        backward(torch, theirs).backward()
        for o, t in zip(our_inputs, their_inputs):
            if t.grad is None:  # PyTorch leaves an all-zero gradient undefined (vector_norm's ord=0)
                assert o.grad is None or not np.any(_np(o.grad))
                continue
            dtype = str(t.dtype).replace("torch.", "")
            r, a = TOL[dtype]
            np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=(rtol or r) * 10, atol=(atol or a) * 10)
    return ours, theirs


def weighted(lib, result, seed=1):
    """A scalar loss with fixed random weights on every floating output (so each gradient path is exercised)."""
    total = 0
    for i, r in enumerate(_flat(result)):
        if not (r.dtype.is_floating_point or r.dtype.is_complex) or r.numel() == 0:
            continue
        w = lib.tensor(randn(*r.shape, seed=seed + i).astype("float64")).to(r.real.dtype if r.dtype.is_complex
                                                                          else r.dtype)
        total = total + ((r.abs() if r.dtype.is_complex else r) * w).sum()
    return total


def squares(lib, result, seed=1):
    """Like `weighted`, on squared outputs: invariant to the sign of eigen/singular vectors."""
    total = 0
    for i, r in enumerate(_flat(result)):
        w = lib.tensor(randn(*r.shape, seed=seed + i).astype("float64")).to(r.dtype)
        total = total + (r * r * w).sum()
    return total


def same_error(fn, *arrays):
    """Both libraries raise the same exception type with the same message."""
    caught = []
    for lib in (torch, pt):
        tensors = [lib.tensor(x) for x in arrays]
        with pytest.raises(Exception) as info:
            fn(lib, *tensors)
        caught.append(info.value)
    theirs, ours = caught
    assert type(ours).__name__ == type(theirs).__name__, (ours, theirs)
    assert isinstance(ours, RuntimeError) == isinstance(theirs, RuntimeError)
    assert str(ours) == str(theirs)


# ----- norms ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("ord", [2, 0, 3, INF, -1])
@pytest.mark.parametrize("dim,keepdim", [(None, False), ((0, 2), True)])
def test_vector_norm(ord, dim, keepdim):
    x = randn(2, 3, 4)
    check(lambda L, a: L.linalg.vector_norm(a, ord, dim, keepdim), x, backward=weighted)


def test_vector_norm_dtype_complex_and_zero_gradient():
    check(lambda L, a: L.linalg.vector_norm(a, dtype=L.float64), randn(3, 4), backward=weighted)
    check(lambda L, a: L.linalg.vector_norm(a, 3, dim=0), randn(3, 4, dtype="complex64"))
    check(lambda L, a: L.linalg.vector_norm(a), np.zeros((3,), np.float32), backward=weighted)
    check(lambda L, a: L.linalg.vector_norm(a, dtype=L.float64), np.ones((2,), np.float16))


@pytest.mark.parametrize("ord", ["fro", "nuc", 2, -2, 1, -1, INF, -INF])
def test_matrix_norm(ord):
    check(lambda L, a: L.linalg.matrix_norm(a, ord), randn(2, 3, 4), backward=weighted)
    if ord in ("nuc", 1, -INF):
        check(lambda L, a: L.linalg.matrix_norm(a, ord, dim=(2, 0), keepdim=True), randn(3, 2, 4))
    if ord in ("fro", 2):
        check(lambda L, a: L.linalg.matrix_norm(a, ord, dtype=L.float64), randn(3, 3))


@pytest.mark.parametrize("case", [
    lambda L, a: L.linalg.norm(a),
    lambda L, a: L.linalg.norm(a[0]),
    lambda L, a: L.linalg.norm(a[0], "nuc"),
    lambda L, a: L.linalg.norm(a[0], 2, keepdim=True),
    lambda L, a: L.linalg.norm(a[0, 0], 3),
    lambda L, a: L.linalg.norm(a, INF, dim=(1, 2)),
    lambda L, a: L.linalg.norm(a, 3, dim=1),
    lambda L, a: L.linalg.norm(a, dim=(0, 2)),
    lambda L, a: L.linalg.norm(a, "fro", dim=(0, 2)),
])
def test_norm(case):
    check(case, randn(2, 3, 4))


@pytest.mark.parametrize("case", [
    lambda L: L.linalg.vector_norm(L.tensor([1, 2])),
    lambda L: L.linalg.vector_norm(L.ones(2), "fro"),
    lambda L: L.linalg.vector_norm(L.ones(2), dtype=L.int64),
    lambda L: L.linalg.vector_norm(L.ones(2, dtype=L.float64), dtype=L.float32),
    lambda L: L.linalg.vector_norm(L.ones(2, dtype=L.complex64), dtype=L.float32),
    lambda L: L.linalg.vector_norm(L.ones(2), dtype=L.complex64),
    lambda L: L.linalg.vector_norm(L.ones(0, 3), INF),
    lambda L: L.linalg.vector_norm(L.ones(0, 3), -INF, dim=0),
    lambda L: L.linalg.vector_norm(L.ones(2, 2), dim=5),
    lambda L: L.linalg.matrix_norm(L.ones(3)),
    lambda L: L.linalg.matrix_norm(L.ones(3, 3, dtype=L.int64)),
    lambda L: L.linalg.matrix_norm(L.ones(3, 3), 3),
    lambda L: L.linalg.matrix_norm(L.ones(3, 3), dim=(0, 0)),
    lambda L: L.linalg.matrix_norm(L.ones(3, 3), dim=(0,)),
    lambda L: L.linalg.matrix_norm(L.ones(3, 3), dim=(0, 2)),
    lambda L: L.linalg.matrix_norm(L.ones(3, 3, dtype=L.float16), "nuc"),
    lambda L: L.linalg.norm(L.ones(3), "fro"),
    lambda L: L.linalg.norm(L.ones(3, 3), 3),
    lambda L: L.linalg.norm(L.ones(2, 2, 2), 2),
    lambda L: L.linalg.norm(L.ones(2, 2, 2), dim=(0, 1, 2)),
    lambda L: L.linalg.norm(L.ones(3, 3), "fro", dim=0),
    lambda L: L.linalg.norm(L.tensor([1, 2])),
])
def test_norm_errors(case):
    same_error(case)


# ----- inverses, determinants, solvers ------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (2, 1, 2, 2), (0, 0)])
@pytest.mark.parametrize("dtype", ["float64", "complex64"])
def test_inv_det_slogdet(shape, dtype):
    a = randn(*shape, dtype=dtype) + 2 * np.eye(shape[-1], dtype=dtype)
    backward = weighted if dtype == "float64" and 0 not in shape else None
    check(lambda L, x: L.linalg.inv(x), a, backward=backward)
    check(lambda L, x: L.linalg.inv_ex(x), a, backward=backward)
    check(lambda L, x: L.linalg.det(x), a, backward=backward)
    check(lambda L, x: L.linalg.slogdet(x), a, backward=backward)


@pytest.mark.parametrize("a_shape,b_shape,left", [
    ((3, 3), (3, 2), True), ((3, 3), (3,), True), ((2, 3, 3), (2, 3), True), ((2, 3, 3), (3,), True),
    ((2, 1, 3, 3), (5, 3, 2), True), ((3, 3), (4, 3), False), ((2, 3, 3), (2, 4, 3), False),
])
def test_solve(a_shape, b_shape, left):
    a = randn(*a_shape, dtype="float64") + 3 * np.eye(a_shape[-1])
    b = randn(*b_shape, dtype="float64", seed=3)
    check(lambda L, x, y: L.linalg.solve(x, y, left=left), a, b, backward=weighted)


@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
def test_cholesky(upper, shape):
    a = spd(*shape, dtype="float64")
    check(lambda L, x: L.linalg.cholesky(x, upper=upper), a, backward=weighted)
    check(lambda L, x: L.linalg.cholesky_ex(x, upper=upper), a.astype("float32"))
    check(lambda L, x: L.linalg.cholesky(x), spd(*shape, dtype="complex128"))
    lopsided = a.copy()
    if upper:  # only one triangle is read
        lopsided[..., -1, 0] += 100
    else:
        lopsided[..., 0, -1] += 100
    check(lambda L, x: L.linalg.cholesky(x, upper=upper), lopsided)


def test_cholesky_ex_info():
    bad = np.stack([np.eye(3), np.array([[1.0, 0, 0], [0, 1, 2], [0, 2, 1]])]).astype("float32")
    check(lambda L, x: L.linalg.cholesky_ex(x).info, bad, grad=False)


_SINGULAR = np.array([[1.0, 2, 3], [2, 4, 6], [1, 1, 1]], np.float32)


@pytest.mark.parametrize("case,arrays", [
    (lambda L, a: L.linalg.inv(a), [_SINGULAR]),
    (lambda L, a: L.linalg.inv(a), [np.stack([np.eye(3, dtype=np.float32), _SINGULAR])]),
    (lambda L, a: L.linalg.inv(a), [np.zeros((3, 3), np.float32)]),
    (lambda L, a: L.linalg.inv_ex(a, check_errors=True), [_SINGULAR]),
    (lambda L, a: L.linalg.inv(a), [np.array([[1, 2], [3, 4]])]),
    (lambda L, a: L.linalg.inv(a), [np.ones(3, np.float32)]),
    (lambda L, a: L.linalg.inv(a), [np.ones((2, 3), np.float32)]),
    (lambda L, a: L.linalg.inv(a), [np.ones((2, 3), np.int64)]),
    (lambda L, a: L.linalg.inv(a), [np.ones((2, 2), np.float16)]),
    (lambda L, a: L.linalg.det(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.det(a), [np.ones((2, 2), np.float16)]),
    (lambda L, a: L.linalg.det(a), [np.ones((2, 3), np.float32)]),
    (lambda L, a: L.linalg.slogdet(a), [np.ones(2, np.float32)]),
    (lambda L, a: L.linalg.slogdet(a), [np.ones((2, 2), np.float16)]),
    (lambda L, a, b: L.linalg.solve(a, b), [_SINGULAR, np.ones(3, np.float32)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.stack([np.eye(3, dtype=np.float32), _SINGULAR]),
                                            np.ones((2, 3), np.float32)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((2, 2), np.int64), np.ones((2, 2), np.int64)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((3, 3), np.float32), np.ones((2, 2), np.float32)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((3, 3), np.float32), np.ones((3, 3), np.float64)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones(3, np.float32), np.ones(3, np.float32)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((3, 3), np.float32), np.ones((4, 3), np.float32)]),
    (lambda L, a, b: L.linalg.solve(a, b), [np.ones((2, 2), np.float32), np.array(1.0, np.float32)]),
    (lambda L, a: L.linalg.cholesky(a), [-np.eye(3, dtype=np.float32)]),
    (lambda L, a: L.linalg.cholesky(a), [np.array([[1.0, 2], [2, 1]], np.float32)]),
    (lambda L, a: L.linalg.cholesky(a), [np.stack([np.eye(2), [[1.0, 2], [2, 1]]]).astype(np.float32)]),
    (lambda L, a: L.linalg.cholesky_ex(a, check_errors=True), [-np.eye(2, dtype=np.float32)]),
    (lambda L, a: L.linalg.cholesky(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.cholesky(a), [np.ones((2, 3), np.float32)]),
    (lambda L, a: L.linalg.cholesky(a), [np.eye(2, dtype=np.float16)]),
])
def test_value_and_input_errors(case, arrays):
    same_error(case, *arrays)


# ----- decompositions -----------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(4, 3), (3, 4), (2, 4, 3)])
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape, mode):
    a = randn(*shape, dtype="float64")
    differentiable = mode == "reduced" and shape[-2] >= shape[-1] or mode == "complete" and shape[-2] <= shape[-1]
    check(lambda L, x: L.linalg.qr(x, mode), a, backward=weighted if differentiable and mode != "r" else None)
    check(lambda L, x: L.linalg.qr(x, mode=mode), a.astype("float32"))


def _up_to_sign(ours, theirs, axis):
    """Eigen/singular vectors are unique up to sign: align ours to theirs along `axis` before comparing."""
    o, t = _np(ours), _np(theirs)
    dots = np.sum(np.conj(o) * t, axis=axis, keepdims=True)
    phase = dots / np.abs(dots)
    np.testing.assert_allclose(o * phase, t, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4)])
@pytest.mark.parametrize("dtype", ["float64", "float32", "complex64"])
def test_eigh(shape, dtype):
    a = spd(*shape, dtype=dtype)
    (ours, _), (theirs, _) = run_both(lambda L, x: L.linalg.eigh(x), a)
    assert type(ours).__name__ == "linalg_eigh" and ours._fields == type(theirs).__match_args__
    assert_same(ours.eigenvalues, theirs.eigenvalues)
    assert type(ours.eigenvectors.grad_fn).__name__ == "LinalgEighBackward0"
    _up_to_sign(ours.eigenvectors, theirs.eigenvectors, axis=-2)
    check(lambda L, x: L.linalg.eigvalsh(x), a)
    check(lambda L, x: L.linalg.eigvalsh(x, UPLO="U"), randn(*shape, dtype=dtype))
    if dtype == "float64":
        _check_vector_gradient(lambda L, x: L.linalg.eigh(x), a)


def _check_vector_gradient(fn, a):
    grads = []
    for lib in (pt, torch):
        x = _lib_tensor(lib, a, True)
        squares(lib, fn(lib, x)).backward()
        grads.append(_np(x.grad))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("shape", [(3, 3), (3, 4), (2, 3, 2)])
@pytest.mark.parametrize("full_matrices", [True, False])
def test_svd(shape, full_matrices):
    a = randn(*shape, dtype="float64")
    (ours, _), (theirs, _) = run_both(lambda L, x: L.linalg.svd(x, full_matrices=full_matrices), a)
    assert type(ours).__name__ == "linalg_svd" and ours._fields == ("U", "S", "Vh")
    assert_same(ours.S, theirs.S)
    for o, t in zip(ours, theirs):
        assert tuple(o.shape) == tuple(t.shape) and str(o.dtype) == str(t.dtype)
        assert type(o.grad_fn).__name__ == "LinalgSvdBackward0"
    k = min(shape[-2:])
    reconstructed = (_np(ours.U)[..., :k] * _np(ours.S)[..., None, :]) @ _np(ours.Vh)[..., :k, :]
    np.testing.assert_allclose(reconstructed, a, atol=1e-10)
    check(lambda L, x: L.linalg.svdvals(x), a, backward=weighted)
    if not full_matrices:
        _check_vector_gradient(lambda L, x: L.linalg.svd(x, full_matrices=False), a)


@pytest.mark.parametrize("case,arrays", [
    (lambda L, a: L.linalg.qr(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.qr(a), [np.ones(2, np.float32)]),
    (lambda L, a: L.linalg.qr(a, mode="bad"), [np.ones((2, 2), np.float32)]),
    (lambda L, a: L.linalg.qr(a), [np.eye(2, dtype=np.float16)]),
    (lambda L, a: L.linalg.eigh(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.eigh(a), [np.ones((2, 3), np.float32)]),
    (lambda L, a: L.linalg.eigh(a, UPLO="X"), [np.ones((2, 2), np.float32)]),
    (lambda L, a: L.linalg.eigvalsh(a), [np.ones(2, np.float32)]),
    (lambda L, a: L.linalg.svd(a), [np.ones((2, 3), np.int64)]),
    (lambda L, a: L.linalg.svdvals(a), [np.ones(2, np.float32)]),
    (lambda L, a: L.linalg.svd(a), [np.eye(2, dtype=np.float16)]),
    (lambda L, a: L.linalg.pinv(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.pinv(a), [np.ones(3, np.float32)]),
    (lambda L, a: L.linalg.matrix_rank(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.matrix_rank(a), [np.ones(2, np.float32)]),
    (lambda L, a: L.linalg.eig(a), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.eigvals(a), [np.ones((2, 3), np.float32)]),
])
def test_decomposition_errors(case, arrays):
    same_error(case, *arrays)


# ----- pinv, matrix_rank, lstsq ---------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (4, 2), (2, 4), (2, 3, 3)])
def test_pinv(shape):
    a = randn(*shape, dtype="float64")
    check(lambda L, x: L.linalg.pinv(x), a, backward=weighted)
    if shape == (4, 2):
        check(lambda L, x: L.linalg.pinv(x, rtol=0.3), a.astype("float32"))
        check(lambda L, x: L.linalg.pinv(x, atol=0.5), a.astype("float32"))
    if shape[-1] == shape[-2]:
        check(lambda L, x: L.linalg.pinv(x, hermitian=True), spd(*shape, dtype="float64"), backward=weighted)


def test_matrix_rank():
    low = (randn(2, 5, 2, dtype="float64") @ randn(2, 2, 4, dtype="float64", seed=1))
    check(lambda L, x: L.linalg.matrix_rank(x), low)
    check(lambda L, x: L.linalg.matrix_rank(x), randn(3, 3))
    check(lambda L, x: L.linalg.matrix_rank(x, tol=1.0), randn(4, 4))
    check(lambda L, x: L.linalg.matrix_rank(x, atol=0.5, rtol=0.2), randn(4, 4))
    check(lambda L, x: L.linalg.matrix_rank(x, hermitian=True), spd(4, 4, dtype="float64"))


@pytest.mark.parametrize("a_shape,b_shape", [((5, 3), (5, 2)), ((3, 5), (3, 2)),
                                             ((2, 4, 3), (2, 4, 2)), ((4, 3), (4,))])
@pytest.mark.parametrize("driver", [None, "gelsd"])
def test_lstsq(a_shape, b_shape, driver):
    if driver == "gels" and a_shape[-2] < a_shape[-1]:
        return
    a = randn(*a_shape, dtype="float64")
    b = randn(*b_shape, dtype="float64", seed=2)
    check(lambda L, x, y: L.linalg.lstsq(x, y, driver=driver), a, b,
          backward=(lambda L, r: weighted(L, r.solution)))


@pytest.mark.parametrize("case,arrays", [
    (lambda L, a, b: L.linalg.lstsq(a, b), [np.ones((2, 2), np.int64), np.ones((2, 2), np.int64)]),
    (lambda L, a, b: L.linalg.lstsq(a, b), [np.ones((3, 3), np.float32), np.ones((2, 2), np.float32)]),
    (lambda L, a, b: L.linalg.lstsq(a, b), [np.ones((3, 3), np.float32), np.ones((3, 3), np.float64)]),
    (lambda L, a, b: L.linalg.lstsq(a, b), [np.ones(3, np.float32), np.ones(3, np.float32)]),
    (lambda L, a, b: L.linalg.lstsq(a, b), [np.ones((3, 3), np.float32), np.array(1.0, np.float32)]),
    (lambda L, a, b: L.linalg.lstsq(a, b, driver="foo"), [np.ones((3, 3), np.float32), np.ones((3, 2), np.float32)]),
])
def test_lstsq_errors(case, arrays):
    same_error(case, *arrays)


# ----- products -------------------------------------------------------------------------------------------

def test_products():
    a, b = randn(4, 3, dtype="float64"), randn(4, 3, dtype="float64", seed=1)
    check(lambda L, x, y: L.linalg.cross(x, y), a, b, backward=weighted)
    check(lambda L, x, y: L.linalg.cross(x, y, dim=0), a.T.copy(), b.T.copy(), backward=weighted)
    check(lambda L, x, y: L.linalg.cross(x, y), randn(2, 1, 3), randn(1, 4, 3))
    check(lambda L, x, y: L.linalg.cross(x, y), np.array([1, 2, 3]), np.array([4, 5, 6]))
    check(lambda L, x, y: L.linalg.vecdot(x, y), a, b, backward=weighted)
    check(lambda L, x, y: L.linalg.vecdot(x, y, dim=0), a, b, backward=weighted)
    check(lambda L, x, y: L.linalg.vecdot(x, y), a[0].copy(), b[0].copy(), backward=weighted)
    check(lambda L, x, y: L.linalg.vecdot(x, y), randn(2, 3), randn(4, 1, 3))
    check(lambda L, x, y: L.linalg.vecdot(x, y), randn(2, 3, dtype="complex64"), randn(2, 3, dtype="complex64"))
    check(lambda L, x, y: L.linalg.matmul(x, y), a, b.T.copy(), backward=weighted)
    check(lambda L, x: L.linalg.diagonal(x), randn(2, 3, 4), backward=weighted)
    check(lambda L, x: L.linalg.diagonal(x, offset=1, dim1=0, dim2=2), randn(2, 3, 4))


@pytest.mark.parametrize("shapes", [[(3, 4), (4, 2)], [(3, 4), (4, 5), (5, 2)], [(4,), (4, 3), (3,)],
                                    [(4,), (4,)], [(4,), (4, 3)], [(3, 4), (4,)], [(2, 3), (3, 3), (3, 4), (4, 2)]])
def test_multi_dot(shapes):
    arrays = [randn(*s, dtype="float64", seed=i) for i, s in enumerate(shapes)]
    check(lambda L, *xs: L.linalg.multi_dot(xs), *arrays, backward=weighted)
    check(lambda L, *xs: L.linalg.multi_dot(list(xs)), *[np.ones(s, np.int64) for s in shapes])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, -1, -2])
@pytest.mark.parametrize("shape", [(3, 3), (2, 3, 3)])
def test_matrix_power(n, shape):
    a = randn(*shape, dtype="float64") + 2 * np.eye(3)
    check(lambda L, x: L.linalg.matrix_power(x, n), a, backward=weighted)
    if n >= 0:
        check(lambda L, x: L.linalg.matrix_power(x, n), np.arange(np.prod(shape)).reshape(shape) % 3)


@pytest.mark.parametrize("case,arrays", [
    (lambda L, a, b: L.linalg.cross(a, b), [np.ones((3, 4), np.float32), np.ones((3, 4), np.float32)]),
    (lambda L, a, b: L.linalg.cross(a, b, dim=0), [np.ones((4, 3), np.float32), np.ones((4, 3), np.float32)]),
    (lambda L, a, b: L.linalg.cross(a, b), [np.ones((2, 3), np.float32), np.ones((4, 3), np.float32)]),
    (lambda L, a, b: L.linalg.cross(a, b), [np.ones(3, np.int64), np.ones(3, np.float32)]),
    (lambda L, a, b: L.linalg.cross(a, b), [np.ones((2, 3), np.float32), np.ones(3, np.float32)]),
    (lambda L, a, b: L.linalg.vecdot(a, b), [np.ones(3, np.float32), np.ones(3, np.float64)]),
    (lambda L, a, b: L.linalg.vecdot(a, b), [np.ones(3, np.int64), np.ones(3, np.int64)]),
    (lambda L, a, b: L.linalg.vecdot(a, b), [np.ones(3, np.float32), np.ones(4, np.float32)]),
    (lambda L, a: L.linalg.multi_dot([a]), [np.ones((3, 3), np.float32)]),
    (lambda L, a, b: L.linalg.multi_dot([a, b]), [np.ones((3, 3), np.float32), np.ones((2, 3, 3), np.float32)]),
    (lambda L, a, b: L.linalg.multi_dot([a, b]), [np.ones((2, 3, 3), np.float32), np.ones((3, 3), np.float32)]),
    (lambda L, a, b: L.linalg.multi_dot([a, b]), [np.ones((3, 3), np.float32), np.ones((2, 3), np.float32)]),
    (lambda L, a, b: L.linalg.multi_dot([a, b, a]), [np.ones((3, 3), np.float32), np.ones(3, np.float32)]),
    (lambda L, a, b: L.linalg.multi_dot([a, b]), [np.ones((2, 2), np.float32), np.ones((2, 2), np.float64)]),
    (lambda L, a: L.linalg.matrix_power(a, 2), [np.ones(3, np.float32)]),
    (lambda L, a: L.linalg.matrix_power(a, 2), [np.ones((2, 3), np.float32)]),
    (lambda L, a: L.linalg.matrix_power(a, -1), [np.ones((2, 2), np.int64)]),
    (lambda L, a: L.linalg.matrix_power(a, -1), [_SINGULAR]),
    (lambda L, a: L.linalg.matrix_power(a, 2.0), [np.eye(2, dtype=np.float32)]),
])
def test_product_errors(case, arrays):
    same_error(case, *arrays)


# ----- named tuples, eig, hypothesis over batch shapes -------------------------------------------------

def test_named_tuples_print_and_unpack():
    a = randn(3, 3)
    for name, call in [("linalg_slogdet", lambda L, x: L.linalg.slogdet(x)),
                       ("linalg_qr", lambda L, x: L.linalg.qr(x)),
                       ("linalg_inv_ex", lambda L, x: L.linalg.inv_ex(x))]:
        ours, theirs = call(pt, pt.tensor(a)), call(torch, torch.tensor(a))
        assert repr(ours) == repr(theirs)
        assert repr(ours).startswith(f"torch.return_types.{name}(")
        first, second = ours
        assert first is ours[0] and second is ours[1]
    assert issubclass(pt.linalg.LinAlgError, RuntimeError)


def test_eig():
    a = randn(3, 3, dtype="float64")
    (ours, _), (theirs, _) = run_both(lambda L, x: L.linalg.eigvals(x), a)
    assert_same(pt.sort(ours.real).values, torch.sort(theirs.real).values, grad_fn=False)
    assert str(ours.dtype) == str(theirs.dtype) == "torch.complex128"
    assert type(ours.grad_fn).__name__ == "LinalgEigBackward0"
    w, v = pt.linalg.eig(pt.tensor(a))
    np.testing.assert_allclose(a @ _np(v), _np(v) * _np(w)[None, :], atol=1e-10)


@settings(max_examples=3, deadline=None)
@given(batch=st.lists(st.integers(1, 3), max_size=2), n=st.integers(1, 4), seed=st.integers(0, 1000))
def test_batched_against_torch(batch, n, seed):
    a = randn(*batch, n, n, dtype="float64", seed=seed) + 2 * n * np.eye(n)
    check(lambda L, x: L.linalg.inv(x), a)
    check(lambda L, x: L.linalg.det(x), a)
    check(lambda L, x: L.linalg.cholesky(x), spd(*batch, n, n, dtype="float64", seed=seed))
    check(lambda L, x: L.linalg.matrix_norm(x, "nuc"), a)
    check(lambda L, x: L.linalg.vector_norm(x, 3, dim=-1), a)
    check(lambda L, x: L.linalg.svdvals(x), a)


def test_the_older_torch_level_names_and_tensor_methods_are_linalgs():
    def run(lib):
        a = lib.tensor([[2.0, 1.0], [1.0, 3.0]], requires_grad=True)
        results = [lib.det(a), lib.inverse(a), a.det(), a.inverse(), lib.slogdet(a)[1], a.slogdet().logabsdet,
                   a.matrix_power(2), lib.matrix_power(a, 3), lib.pinverse(a), a.pinverse()]
        return [(str(r), r.grad_fn.name()) for r in results], repr(lib.slogdet(a.detach()))

    assert run(pt) == run(torch)
