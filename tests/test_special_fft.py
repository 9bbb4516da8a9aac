"""`torch.fft` and `torch.special` against real PyTorch: values (within tolerance), result dtypes, grad_fn names,
gradients through `.backward()` of a real loss, and the exception type and message for bad arguments.
"""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
import pjtorch as pt  # noqa: E402
from nn_oracle import same_error as same_error_for  # noqa: E402

TOL = {"float32": (2e-5, 2e-5), "float64": (1e-10, 1e-10), "complex64": (2e-5, 2e-5), "complex128": (1e-10, 1e-10)}
FLOATS = ("float32", "float64")
COMPLEXES = ("complex64", "complex128")


def randn(*shape, dtype="float64", seed=0, low=None, high=None):
    """Normal values, or uniform in [low, high); complex dtypes get a random imaginary part too."""
    rng = np.random.default_rng(seed)
    draw = (lambda: rng.standard_normal(shape)) if low is None else (lambda: rng.uniform(low, high, shape))
    x = draw()
    if dtype.startswith("complex"):
        x = x + 1j * draw()
    if dtype.startswith("int"):
        x = np.round(x * 3)
    return np.asarray(x.astype(dtype))


def _np(t):
    return t.detach().resolve_conj().numpy() if hasattr(t, "detach") else np.asarray(t)


def _name(t):
    return type(t.grad_fn).__name__ if t.grad_fn is not None else None


def _tensors(lib, arrays, grad):
    tensors = []
    for x in arrays:
        t = lib.tensor(x)
        if grad and x.dtype.kind in "fc":
            t.requires_grad_(True)
        tensors.append(t)
    return tensors


def loss(lib, result, seed=1):
    """A real scalar with fixed random weights on the real and imaginary parts, so every gradient path counts."""
    if result.is_complex():
        parts = (result.real, result.imag)
    else:
        parts = (result,)
    total = 0
    for i, part in enumerate(parts):
        w = lib.tensor(randn(*part.shape, seed=seed + i)).to(part.dtype)
        total = total + (part * w).sum()
    return total


def check(fn, *arrays, grad=True, rtol=None, atol=None, backward=True):
    """fn(lib, *tensors) in both libraries: shape, dtype, values and grad_fn name; with `backward`, the gradient of
    `loss` with respect to every floating input."""
    results = []
    for lib in (pt, torch):
        tensors = _tensors(lib, arrays, grad)
        results.append((fn(lib, *tensors), tensors))
    (ours, our_inputs), (theirs, their_inputs) = results
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype) == str(theirs.dtype)
    r, a = TOL.get(str(theirs.dtype).replace("torch.", ""), (0, 0))
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=rtol or r, atol=atol or a)
    assert _name(ours) == _name(theirs)
    if backward and theirs.requires_grad:
        loss(pt, ours).backward()
        loss(torch, theirs).backward()
        for o, t in zip(our_inputs, their_inputs):
            if t.grad is None:
                assert o.grad is None
                continue
            assert str(o.grad.dtype) == str(t.grad.dtype)
            r, a = TOL[str(t.dtype).replace("torch.", "")]
            np.testing.assert_allclose(_np(o.grad), _np(t.grad), rtol=(rtol or r) * 10, atol=(atol or a) * 10)
    return ours, theirs


def same_error(fn, *arrays):
    """Both libraries raise the same exception type with the same message for `fn(lib, *tensors of arrays)`."""
    same_error_for(lambda lib: fn(lib, *[lib.tensor(x) for x in arrays]))


# ----- torch.fft: one dimension -----------------------------------------------------------------------------

ONE_DIM = ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft")
REAL_ONLY = ("rfft", "ihfft", "rfft2", "ihfft2", "rfftn", "ihfftn")


@pytest.mark.parametrize("name", ONE_DIM)
@pytest.mark.parametrize("dtype,n,dim,norm", [("float32", None, -1, None), ("complex128", 5, 0, "ortho"),
                                              ("complex64", 3, 1, "forward")])
def test_one_dim(name, dtype, n, dim, norm):
    if name in REAL_ONLY:
        dtype = dtype.replace("complex64", "float32").replace("complex128", "float64")
    x = randn(4, 7, dtype=dtype)
    check(lambda L, a: getattr(L.fft, name)(a, n, dim, norm), x)


@settings(max_examples=4, deadline=None)
@given(name=st.sampled_from(ONE_DIM), shape=st.lists(st.integers(1, 6), min_size=1, max_size=3),
       data=st.data(), complex_input=st.booleans())
def test_one_dim_shapes(name, shape, data, complex_input):
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = data.draw(st.one_of(st.none(), st.integers(1, 9)))
    if name in ("irfft", "hfft") and n is None and shape[dim] == 1:
        n = 2  # the default output length 2 * (m - 1) is zero for a single input point
    dtype = "complex128" if complex_input and name not in REAL_ONLY else "float64"
    check(lambda L, a: getattr(L.fft, name)(a, n=n, dim=dim), randn(*shape, dtype=dtype))


@pytest.mark.parametrize("name", ONE_DIM + ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"))
def test_integer_input_is_promoted(name):
    check(lambda L, a: getattr(L.fft, name)(a), randn(3, 4, dtype="int64"))


# ----- torch.fft: two and n dimensions ----------------------------------------------------------------------

N_DIM = ("fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn")
TWO_DIM = ("fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2")


@pytest.mark.parametrize("name", N_DIM + TWO_DIM)
@pytest.mark.parametrize("dtype,s,dim,norm", [("float32", None, None, None), ("complex64", (4, 6), None, "ortho"),
                                              ("complex128", (-1, 5), (2, 0), "forward")])
def test_multi_dim(name, dtype, s, dim, norm):
    if name in REAL_ONLY:
        dtype = dtype.replace("complex64", "float32").replace("complex128", "float64")
    x = randn(3, 4, 5, dtype=dtype)
    if name in TWO_DIM and dim is None:
        check(lambda L, a: getattr(L.fft, name)(a, s, norm=norm), x)
    else:
        check(lambda L, a: getattr(L.fft, name)(a, s, dim, norm), x)


@settings(max_examples=4, deadline=None)
@given(name=st.sampled_from(N_DIM), shape=st.lists(st.integers(2, 5), min_size=1, max_size=3), data=st.data())
def test_multi_dim_shapes(name, shape, data):
    dims = data.draw(st.lists(st.integers(0, len(shape) - 1), min_size=1, max_size=len(shape), unique=True))
    s = data.draw(st.one_of(st.none(), st.lists(st.integers(1, 7), min_size=len(dims), max_size=len(dims))))
    dtype = "float64" if name in REAL_ONLY else "complex128"
    check(lambda L, a: getattr(L.fft, name)(a, s, dims), randn(*shape, dtype=dtype))


# ----- torch.fft: helpers -------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ("fftfreq", "rfftfreq"))
@pytest.mark.parametrize("n", (1, 4, 7))
@pytest.mark.parametrize("d,dtype", [(1.0, None), (0.1, "float64"), (2.5, "float32")])
def test_frequencies(name, n, d, dtype):
    check(lambda L: getattr(L.fft, name)(n, d, dtype=dtype and getattr(L, dtype)))


def test_frequencies_requires_grad():
    ours, theirs = check(lambda L: L.fft.fftfreq(5, requires_grad=True))
    assert ours.requires_grad and ours.is_leaf


@pytest.mark.parametrize("name", ("fftshift", "ifftshift"))
@pytest.mark.parametrize("dim", (None, 0, -1, (0, 1), [1]))
@pytest.mark.parametrize("dtype", ("float32", "complex64"))
def test_shifts(name, dim, dtype):
    check(lambda L, a: getattr(L.fft, name)(a, dim), randn(5, 4, dtype=dtype))


# ----- torch.fft: errors --------------------------------------------------------------------------------------

FFT_ERRORS = {
    "bad_norm": (lambda L, a: L.fft.fft(a, norm="bogus"), randn(4)),
    "bad_norm_n": (lambda L, a: L.fft.rfftn(a, norm="bogus"), randn(4)),
    "bad_dim": (lambda L, a: L.fft.fft(a, dim=2), randn(4, 3)),
    "bad_dim_n": (lambda L, a: L.fft.fftn(a, dim=(0, 3)), randn(4, 3)),
    "scalar": (lambda L, a: L.fft.fft(a), randn()),
    "repeated_dims": (lambda L, a: L.fft.fftn(a, dim=(0, 0)), randn(4, 3)),
    "s_dim_lengths": (lambda L, a: L.fft.fftn(a, s=(2, 2), dim=(0,)), randn(4, 3)),
    "zero_n": (lambda L, a: L.fft.fft(a, n=0), randn(4)),
    "zero_s": (lambda L, a: L.fft.rfftn(a, s=(0, 3)), randn(4, 3)),
    "irfft_one_point": (lambda L, a: L.fft.irfft(a), randn(1, dtype="complex128")),
    "rfft_complex": (lambda L, a: L.fft.rfft(a), randn(4, dtype="complex64")),
    "ihfft_complex": (lambda L, a: L.fft.ihfft(a), randn(4, dtype="complex64")),
    "rfftn_complex": (lambda L, a: L.fft.rfftn(a), randn(4, dtype="complex64")),
    "rfft2_complex": (lambda L, a: L.fft.rfft2(a), randn(2, 4, dtype="complex128")),
    "ihfftn_complex": (lambda L, a: L.fft.ihfftn(a), randn(4, dtype="complex64")),
    "ihfft2_complex": (lambda L, a: L.fft.ihfft2(a), randn(2, 4, dtype="complex64")),
    "half": (lambda L, a: L.fft.fft(a.half()), randn(4)),
    "norm_after_dim": (lambda L, a: L.fft.fft(a, dim=4, norm="x"), randn(4, 3)),
    "real_check_before_norm": (lambda L, a: L.fft.rfft(a, norm="x"), randn(4, dtype="complex64")),
    "dim_before_lengths": (lambda L, a: L.fft.fftn(a, s=(2, 2), dim=(5,)), randn(4, 3)),
    "no_axes_rfftn": (lambda L, a: L.fft.rfftn(a, dim=()), randn(4, 3)),
    "no_axes_irfftn": (lambda L, a: L.fft.irfftn(a, dim=()), randn(4, 3)),
    "no_axes_ihfftn": (lambda L, a: L.fft.ihfftn(a, dim=()), randn(4, 3)),
    "empty_dim": (lambda L, a: L.fft.fft(a[:, :0]), randn(4, 3)),
    "shift_bad_dim": (lambda L, a: L.fft.fftshift(a, dim=5), randn(4, 3)),
    "shift_scalar": (lambda L, a: L.fft.ifftshift(a), randn()),
    "negative_fftfreq": (lambda L, a: L.fft.fftfreq(-1), randn()),
    "negative_rfftfreq": (lambda L, a: L.fft.rfftfreq(-5), randn()),
    "s_too_long": (lambda L, a: L.fft.fftn(a, s=(2, 2, 2)), randn(4, 3)),
}


@pytest.mark.parametrize("case", sorted(FFT_ERRORS))
def test_fft_errors(case):
    fn, x = FFT_ERRORS[case]
    same_error(fn, x)


# ----- torch.special ------------------------------------------------------------------------------------------

# name: (low, high) of the inputs' domain, or None for standard normal values.
UNARY = {
    "bessel_j0": None, "bessel_j1": None, "digamma": (0.1, 5), "entr": (-0.5, 3), "erf": None, "erfc": None,
    "erfcx": None, "erfinv": (-0.99, 0.99), "exp2": None, "expit": None, "expm1": None, "gammaln": (0.1, 5),
    "i0": None, "i0e": None, "i1": None, "i1e": None, "log1p": (-0.9, 3), "log_ndtr": None, "logit": (0.05, 0.95),
    "modified_bessel_i0": None, "modified_bessel_i1": None, "ndtr": None, "ndtri": (0.02, 0.98), "psi": (0.1, 5),
    "sinc": None, "spherical_bessel_j0": None,
}
BINARY = {"xlogy": ((-2, 2), (0.1, 3)), "xlog1py": ((-2, 2), (-0.9, 3)), "zeta": ((1.5, 5), (0.5, 3)),
          "gammainc": ((0.5, 4), (0.1, 5)), "gammaincc": ((0.5, 4), (0.1, 5))}


def _domain(bounds, *shape, dtype="float64", seed=0):
    low, high = bounds or (None, None)
    return randn(*shape, dtype=dtype, seed=seed, low=low, high=high)


@pytest.mark.parametrize("name", sorted(UNARY))
@pytest.mark.parametrize("dtype", FLOATS)
def test_special_unary(name, dtype):
    check(lambda L, a: getattr(L.special, name)(a), _domain(UNARY[name], 3, 5, dtype=dtype))


@pytest.mark.parametrize("name", ("bessel_j0", "entr", "erfcx", "i1e", "log_ndtr", "ndtr", "spherical_bessel_j0"))
def test_special_unary_integer_input(name):
    x = np.array([0, 1, 2, 3, -1, -2]) if UNARY[name] is None else np.array([1, 2, 3])
    check(lambda L, a: getattr(L.special, name)(a), x, rtol=1e-5)


@pytest.mark.parametrize("name", sorted(BINARY))
@pytest.mark.parametrize("dtype", FLOATS)
def test_special_binary(name, dtype):
    first, second = BINARY[name]
    a, b = _domain(first, 3, 4, dtype=dtype), _domain(second, 4, dtype=dtype, seed=1)
    grad = name not in ("zeta", "gammainc", "gammaincc")  # PyTorch differentiates these in one argument only
    check(lambda L, x, y: getattr(L.special, name)(x, y), a, b, grad=grad, rtol=1e-4 if dtype == "float32" else None)


@pytest.mark.parametrize("name", ("xlogy", "xlog1py", "zeta"))
def test_special_binary_scalars(name):
    first, second = BINARY[name]
    x = _domain(second, 5)
    check(lambda L, a: getattr(L.special, name)(2.0, a), x, grad=name != "zeta")
    check(lambda L, a: getattr(L.special, name)(a if name != "zeta" else a + 1, 2), x, grad=name != "zeta")


def test_zeta_gradient_in_q():
    x, q = _domain((1.5, 4), 5), _domain((0.5, 3), 5, seed=1)
    ours, theirs = pt.tensor(x), torch.tensor(x)
    our_q, their_q = pt.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
    pt.special.zeta(ours, our_q).sum().backward()
    torch.special.zeta(theirs, their_q).sum().backward()
    np.testing.assert_allclose(_np(our_q.grad), _np(their_q.grad), rtol=1e-9)


def test_gammainc_gradient_in_x():
    a, x = _domain((0.5, 4), 5), _domain((0.1, 5), 5, seed=1)
    grads = []
    for lib in (pt, torch):
        xs = lib.tensor(x, requires_grad=True)
        lib.special.gammaincc(lib.tensor(a), xs).sum().backward()
        grads.append(_np(xs.grad))
    np.testing.assert_allclose(*grads, rtol=1e-9)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("case", ["polygamma", "multigammaln", "softmax", "log_softmax", "softmax_dtype",
                                  "logsumexp", "round", "round_decimals", "logit_eps"])
def test_special_with_options(case, dtype):
    cases = {
        "polygamma": (lambda L, a: L.special.polygamma(2, a), (0.5, 4)),
        "multigammaln": (lambda L, a: L.special.multigammaln(a, 3), (1.5, 5)),
        "softmax": (lambda L, a: L.special.softmax(a, 1), None),
        "log_softmax": (lambda L, a: L.special.log_softmax(a, 0), None),
        "softmax_dtype": (lambda L, a: L.special.softmax(a, -1, dtype=L.float64), None),
        "logsumexp": (lambda L, a: L.special.logsumexp(a, (0, 1), keepdim=True), None),
        "round": (lambda L, a: L.special.round(a * 3), None),
        "round_decimals": (lambda L, a: L.special.round(a * 100, decimals=1), None),
        "logit_eps": (lambda L, a: L.special.logit(a, eps=0.2), (0.01, 0.99)),
    }
    fn, bounds = cases[case]
    check(fn, _domain(bounds, 3, 4, dtype=dtype))


@settings(max_examples=6, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=0, max_size=3), name=st.sampled_from(sorted(UNARY)))
def test_special_unary_shapes(shape, name):
    check(lambda L, a: getattr(L.special, name)(a), _domain(UNARY[name], *shape))


SPECIAL_ERRORS = {
    "erfcx_half": (lambda L, a: L.special.erfcx(a.half()), randn(3)),
    "ndtri_int_half": (lambda L, a: L.special.ndtri(a.half()), randn(3)),
    "round_integer": (lambda L, a: L.special.round(a), np.arange(3)),
    "log_softmax_no_dim": (lambda L, a: L.special.log_softmax(a), randn(3)),
    "log_softmax_positional_dtype": (lambda L, a: L.special.log_softmax(a, 0, L.float64), randn(3)),
    "logsumexp_no_dim": (lambda L, a: L.special.logsumexp(a), randn(3)),
    "xlog1py_complex": (lambda L, a: L.special.xlog1py(a, 2), randn(3, dtype="complex64")),
    "bessel_j0_half": (lambda L, a: L.special.bessel_j0(a.half()), randn(3)),
    "zeta_bfloat16": (lambda L, a: L.special.zeta(a.bfloat16(), 2.0), randn(3)),
    "softmax_no_dim": (lambda L, a: L.special.softmax(a), randn(3)),
    "logsumexp_bad_dim": (lambda L, a: L.special.logsumexp(a, 2), randn(3)),
    "polygamma_negative": (lambda L, a: L.special.polygamma(-1, a), randn(3)),
    "complex_erfcx": (lambda L, a: L.special.erfcx(a), randn(3, dtype="complex64")),
    "complex_xlogy": (lambda L, a: L.special.xlogy(a, a), randn(3, dtype="complex64")),
}


@pytest.mark.parametrize("case", sorted(SPECIAL_ERRORS))
def test_special_errors(case):
    fn, x = SPECIAL_ERRORS[case]
    same_error(fn, x)


def test_module_contents_match():
    for name in ("fft", "special"):
        ours, theirs = getattr(pt, name), getattr(torch, name)
        assert all(callable(getattr(ours, n)) and hasattr(theirs, n) for n in ours.__all__)
