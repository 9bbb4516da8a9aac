"""Differences from PyTorch 2.13 found by hand and fixed: complex views (.real, .imag, view_as_real,
view_as_complex), gamma-family edge values, small Tensor members, and full SVD under autograd. Each test runs the
same code on real torch and on pjtorch and compares."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pjtorch as pt  # noqa: E402

LIBS = (torch, pt)


def _np(t):
    return t.detach().numpy()


def _both(fn):
    return [fn(lib) for lib in LIBS]


def _same_error(fn):
    messages = []
    for lib in LIBS:
        with pytest.raises(Exception) as caught:
            fn(lib)
        messages.append((type(caught.value).__name__, str(caught.value)))
    assert messages[0] == messages[1]


# ----- complex views ------------------------------------------------------------------------------

def _complex(lib, shape=(2, 3)):
    values = np.arange(np.prod(shape)).reshape(shape)
    return lib.from_numpy((values + 1j * (values + 10)).astype(np.complex64))


VIEWS = {
    "real": lambda lib, z: z.real,
    "imag": lambda lib, z: z.imag,
    "view_as_real": lambda lib, z: lib.view_as_real(z),
    "real_of_row": lambda lib, z: z[1].real,
    "imag_of_transpose": lambda lib, z: z.t().imag,
    "real_of_column": lambda lib, z: z[:, 1].real,
    "round_trip": lambda lib, z: lib.view_as_complex(lib.view_as_real(z)),
    "view_as_real_of_slice": lambda lib, z: lib.view_as_real(z[:, 1:]),
}


@pytest.mark.parametrize("name", VIEWS)
def test_complex_view_layout_and_writes_through(name):
    """Strides and offset as PyTorch reports them; writes through the view reach the base, and back."""
    results = []
    for lib in LIBS:
        z = _complex(lib)
        view = VIEWS[name](lib, z)
        layout = (tuple(view.shape), view.stride(), view.storage_offset(), str(view.dtype).split(".")[-1])
        view.mul_(3)
        after_view_write = _np(z).copy()
        z.add_(1)
        results.append((layout, after_view_write, _np(view).copy(), z._version, view._version,
                        view.data_ptr() - z.data_ptr()))
    (torch_layout, *torch_rest), (pt_layout, *pt_rest) = results
    assert torch_layout == pt_layout
    for expected, got in zip(torch_rest, pt_rest):
        np.testing.assert_array_equal(expected, got)
    assert sum(1 for _ in VIEWS) == 8


def test_view_as_complex_shares_memory_and_checks():
    def run(lib):
        a = lib.zeros(4, 2)
        c = lib.view_as_complex(a)
        c[1] = 1 + 2j
        a[2, 1] = 7
        return _np(a).copy(), _np(c).copy(), c.stride(), lib.view_as_complex(lib.zeros(3, 4)[:, 2:]).storage_offset()

    for expected, got in zip(*_both(run)):
        np.testing.assert_array_equal(expected, got)
    for make in (lambda lib: lib.zeros(4, 3)[:, 1:], lambda lib: lib.zeros(10)[1:9].view(4, 2),
                 lambda lib: lib.zeros(3, 2).t().contiguous().t(), lambda lib: lib.zeros(3),
                 lambda lib: lib.zeros(2, 2, dtype=lib.int64)):
        _same_error(lambda lib: lib.view_as_complex(make(lib)))


def test_real_and_imag_of_real_tensors_and_setters():
    def run(lib):
        x = lib.arange(3.0)
        z = lib.zeros(3, dtype=lib.complex64)
        z.real = lib.tensor([1.0, 2.0, 3.0])
        z.imag = lib.tensor([4.0, 5.0, 6.0])
        return x.real is x, lib.real(x) is x, _np(z).copy(), z._version

    assert _both(run)[0][:2] == (True, True)
    torch_result, pt_result = _both(run)
    assert torch_result[:2] == pt_result[:2] and torch_result[3] == pt_result[3]
    np.testing.assert_array_equal(torch_result[2], pt_result[2])
    _same_error(lambda lib: lib.arange(3.0).imag)
    _same_error(lambda lib: lib.imag(lib.arange(3.0)))
    _same_error(lambda lib: lib.view_as_real(lib.arange(3.0)))


GRADS = {
    "real": lambda lib, z: z.real.sum(),
    "imag": lambda lib, z: (z.imag * 2).sum(),
    "view_as_real": lambda lib, z: lib.view_as_real(z).pow(2).sum(),
    "round_trip": lambda lib, z: lib.view_as_complex(lib.view_as_real(z) * 2).abs().sum(),
}


@pytest.mark.parametrize("name", GRADS)
def test_complex_view_gradients_and_grad_fn_names(name):
    results = []
    for lib in LIBS:
        z = _complex(lib).requires_grad_()
        loss = GRADS[name](lib, z)
        loss.backward()
        w = z * 1
        names = tuple(type(v.grad_fn).__name__ for v in (w.real, w.imag, lib.view_as_real(w),
                                                         lib.view_as_complex(lib.view_as_real(w))))
        results.append((_np(z.grad), names, str(z.grad)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-6)
    assert results[0][1:] == results[1][1:]


def test_view_as_complex_gradient():
    def run(lib):
        q = lib.from_numpy(np.arange(6.0, dtype=np.float32).reshape(3, 2)).requires_grad_()
        c = lib.view_as_complex(q)
        (c * c).abs().sum().backward()
        return _np(q.grad)

    np.testing.assert_allclose(*_both(run), rtol=1e-6)


def test_inplace_through_real_of_leaf_that_requires_grad_raises():
    _same_error(lambda lib: _complex(lib).requires_grad_().real.mul_(2))


def test_inplace_through_real_under_no_grad_then_backward():
    def run(lib):
        z = _complex(lib).requires_grad_()
        r = z.real
        with lib.no_grad():
            z.imag.zero_()
        (r * 2).sum().backward()
        return _np(z.grad), _np(z).copy()

    for expected, got in zip(*_both(run)):
        np.testing.assert_array_equal(expected, got)


# ----- gamma family edge values ------------------------------------------------------------------

EDGES = [0.0, -0.0, -1.0, -2.0, -2.5, 1.0, 2.0, 0.5, float("inf"), float("-inf"), float("nan")]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("fn", ["digamma", "lgamma", "polygamma1", "polygamma2", "polygamma3"])
def test_gamma_family_at_poles_and_infinities(fn, dtype):
    def run(lib):
        x = lib.tensor(EDGES, dtype=getattr(lib, dtype))
        if fn.startswith("polygamma"):
            return _np(lib.polygamma(int(fn[-1]), x))
        return _np(getattr(lib, fn)(x))

    expected, got = _both(run)
    np.testing.assert_allclose(got, expected, rtol=2e-6 if dtype == "float32" else 1e-12, equal_nan=True)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]))


# ----- Tensor members ----------------------------------------------------------------------------

def test_output_nr_resize_and_set():
    def run(lib):
        x = lib.arange(6.0).reshape(2, 3)
        parts = lib.unbind(x.clone().requires_grad_() * 1)
        y = lib.arange(6.0)
        y.resize_(3, 2)
        shapes = [(tuple(y.shape), y.stride(), _np(y).copy())]
        y.resize_(2)
        shapes.append((tuple(y.shape), y.stride(), _np(y).copy()))
        y.resize_as_(lib.zeros(2, 2))
        shapes.append((tuple(y.shape), y.stride(), _np(y).copy()))
        z = lib.zeros(3)
        z.set_(lib.arange(4.0))
        return (x.output_nr, parts[1].output_nr, x.is_set_to(x), x.is_set_to(x.detach()), x.is_set_to(x.view(-1)),
                x.is_same_size(lib.zeros(2, 3)), x.is_signed(), x.is_conj(), x.is_neg(), x.is_meta,
                x.is_quantized, x.is_nested, x.const_data_ptr() == x.data_ptr(), x._is_view(), x[0]._is_view(),
                repr(x.storage_type()), repr(x.type("torch.DoubleTensor")), _np(z), shapes,
                [_np(t) for t in reversed(lib.arange(3))])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_result, pt_result = _both(run)
    assert repr(torch_result) == repr(pt_result)
    _same_error(lambda lib: lib.ones(2, requires_grad=True).resize_(3))


def test_as_subclass_shares_memory_and_history():
    def run(lib):
        class Sub(lib.Tensor):
            pass

        a = lib.ones(2, requires_grad=True)
        s = a.as_subclass(Sub)
        (s * 2).sum().backward()
        return type(s).__name__, type(s.grad_fn).__name__, s.requires_grad, s.is_leaf, _np(a.grad)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch_result, pt_result = _both(run)
    assert torch_result[:4] == pt_result[:4]
    np.testing.assert_array_equal(torch_result[4], pt_result[4])


# ----- linalg.svd(full_matrices=True) under autograd ---------------------------------------------

@pytest.mark.parametrize("shape", [(3, 3), (4, 3), (3, 4), (2, 4, 3)])
def test_full_svd_forward_and_backward(shape):
    values = np.sin(np.arange(np.prod(shape), dtype=np.float64).reshape(shape) ** 1.7)

    def run(lib):
        A = lib.from_numpy(values.copy()).requires_grad_()
        U, S, Vh = lib.linalg.svd(A, full_matrices=True)
        k = min(shape[-2:])
        (S.sum() + (U[..., :k] @ Vh[..., :k, :]).pow(2).sum()).backward()
        orthogonal = (_np(U.mT @ U), _np(Vh @ Vh.mT))
        return tuple(U.shape), tuple(Vh.shape), type(U.grad_fn).__name__, _np(S), _np(A.grad), orthogonal

    torch_result, pt_result = _both(run)
    assert torch_result[:3] == pt_result[:3]
    np.testing.assert_allclose(pt_result[3], torch_result[3], rtol=1e-10)
    np.testing.assert_allclose(pt_result[4], torch_result[4], atol=1e-10)
    for product in pt_result[5]:
        np.testing.assert_allclose(product, np.broadcast_to(np.eye(product.shape[-1]), product.shape), atol=1e-12)


def test_no_internal_helpers_at_top_level():
    assert not hasattr(pt, "required") and not hasattr(pt, "is_number")
