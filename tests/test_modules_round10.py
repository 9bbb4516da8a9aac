"""Regressions from the tenth differential round on the numeric libraries: torch.linalg's LU family and
householder_product, torch.special's orthogonal polynomials and Bessel functions of the second kind, and
torch.distributions' transforms and TransformedDistribution. Each case runs under torch and pjtorch and must agree
on values, or on the exception type and message."""
from __future__ import annotations

import pytest

from tensor_oracle import reference, same, same_output

torch = reference()

INF, NAN = float("inf"), float("nan")


# ----- torch.linalg: the LU family --------------------------------------------------------------------------

_SINGULAR = {
    "rank one": [[1., 2.], [2., 4.]],
    "zeros": [[0., 0.], [0., 0.]],
    "wide": [[1., 1., 1.], [1., 1., 1.]],
    "tall": [[1., 1.], [1., 1.], [1., 1.]],
    "regular": [[4., 1.], [1., 3.]],
}


@pytest.mark.parametrize("name", sorted(_SINGULAR))
@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_lu_factor_ex_reports_the_first_zero_pivot(name, dtype):
    same(lambda m: m.linalg.lu_factor_ex(m.tensor(_SINGULAR[name], dtype=getattr(m, dtype))))


@pytest.mark.parametrize("name", sorted(_SINGULAR))
def test_lu_factor_refuses_a_zero_pivot(name):
    same(lambda m: m.linalg.lu_factor(m.tensor(_SINGULAR[name])))
    same(lambda m: m.linalg.lu_factor_ex(m.tensor(_SINGULAR[name]), check_errors=True))


def test_lu_factor_names_the_batch_element():
    same(lambda m: m.linalg.lu_factor(m.stack([m.eye(2), m.zeros(2, 2)])))
    same(lambda m: m.linalg.lu_factor_ex(m.stack([m.eye(2), m.tensor([[1., 2.], [2., 4.]]), m.zeros(2, 2)])))


@pytest.mark.parametrize("fn", ["lu", "lu_factor", "lu_factor_ex"])
@pytest.mark.parametrize("case", ["vector", "long", "half", "no pivot", "empty"])
def test_lu_family_checks(fn, case):
    inputs = {"vector": lambda m: m.ones(3), "long": lambda m: m.eye(2, dtype=m.int64),
              "half": lambda m: m.eye(2, dtype=m.float16), "no pivot": lambda m: m.eye(2),
              "empty": lambda m: m.zeros(0, 0)}
    same(lambda m: getattr(m.linalg, fn)(inputs[case](m), pivot=case != "no pivot"))


def test_solve_triangular_needs_upper_and_a_matrix_b():
    same(lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(2, 1)))
    same(lambda m: m.linalg.solve_triangular(m.eye(2), m.ones(2), upper=True))
    same(lambda m: m.linalg.solve_triangular(m.tensor([[2., 0.], [1., 1.]]), m.ones(2, 3), upper=False))


@pytest.mark.parametrize("fn", ["eig", "eigvals"])
def test_eig_names_its_kernel_for_half(fn):
    same(lambda m: getattr(m.linalg, fn)(m.eye(2, dtype=m.float16)))


# ----- torch.linalg.householder_product ---------------------------------------------------------------------

_REFLECTORS = [[1., 0.], [0.5, 1.], [0.2, 0.3]]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("k", [0, 1, 2])
def test_householder_product_values(dtype, k):
    def case(m):
        d = getattr(m, dtype)
        tau = m.tensor([1.2, 0.7], dtype=d)[:k] * (1 + (0.5j if d.is_complex else 0))
        return m.linalg.householder_product(m.tensor(_REFLECTORS, dtype=d) * (1 - (0.25j if d.is_complex else 0)),
                                            tau)

    same(case)


def test_householder_product_batched_and_square():
    same(lambda m: m.linalg.householder_product(m.arange(12.).view(2, 3, 2) / 10, m.tensor([[0.5, 1.], [1.5, 0.]])))
    same(lambda m: m.linalg.householder_product(m.arange(9., dtype=m.float64).view(3, 3) / 10,
                                                m.tensor([1., 0.5, 0.2], dtype=m.float64)))


def test_householder_product_gradients():
    def case(m):
        A = m.tensor(_REFLECTORS, dtype=m.float64, requires_grad=True)
        tau = m.tensor([1.2, 0.7], dtype=m.float64, requires_grad=True)
        (m.linalg.householder_product(A, tau) * m.arange(6., dtype=m.float64).view(3, 2)).sum().backward()
        return A.grad, tau.grad

    same(case)


@pytest.mark.parametrize("shapes", [((3,), (1,)), ((2, 3), (2,)), ((3, 2), (3,)), ((2, 3, 2), (3, 2)),
                                    ((3, 2), (1, 2)), ((2, 3, 2), (2,))])
def test_householder_product_shape_checks(shapes):
    same(lambda m: m.linalg.householder_product(m.ones(shapes[0]), m.ones(shapes[1])))


@pytest.mark.parametrize("dtypes", [("float32", "float64"), ("int64", "int64"), ("float16", "float16")])
def test_householder_product_dtype_checks(dtypes):
    same(lambda m: m.linalg.householder_product(m.ones(3, 2, dtype=getattr(m, dtypes[0])),
                                                m.ones(2, dtype=getattr(m, dtypes[1]))))


# ----- torch.special: orthogonal polynomials ----------------------------------------------------------------

POLYNOMIALS = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
               "chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
               "legendre_polynomial_p", "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
               "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w"]
_XS = [-1.5, -1., -0.7, -0.3, 0., 0.2, 0.5, 0.9, 1., 1.3]
_NS = [-2, 0, 1, 2, 3, 5, 7, 9, 12]


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_polynomials_on_a_grid(name, dtype):
    def case(m):
        d = getattr(m, dtype)
        return getattr(m.special, name)(m.tensor(_XS, dtype=d)[:, None], m.tensor(_NS, dtype=d))

    same(case)


@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomial_operands(name):
    same(lambda m: getattr(m.special, name)(m.tensor([0.25, 0.5]), 3))
    same(lambda m: getattr(m.special, name)(0.25, m.tensor([4., 10.])))
    same(lambda m: getattr(m.special, name)(m.tensor([1, 2]), m.tensor([2, 3])))
    same(lambda m: getattr(m.special, name)(m.tensor([0.5], requires_grad=True), 2.7).requires_grad)
    same(lambda m: getattr(m.special, name)(m.zeros(0), 3))


@pytest.mark.parametrize("name", POLYNOMIALS)
@pytest.mark.parametrize("bad", ["numbers", "bfloat16", "float16", "complex64"])
def test_polynomial_refusals(name, bad):
    def case(m):
        if bad == "numbers":
            return getattr(m.special, name)(1, 2)
        return getattr(m.special, name)(m.tensor([0.5], dtype=getattr(m, bad)), 2)

    same(case)


# ----- torch.special: Bessel functions of the second kind and Airy's Ai -------------------------------------

_BESSEL_POINTS = [-1., 0., 1e-5, 0.5, 1., 2., 3.5, 7.5, 12., 15., 25., 60., INF, NAN]


@pytest.mark.parametrize("name", ["bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
                                  "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_second_kind_bessel_functions(name, dtype):
    same(lambda m: getattr(m.special, name)(m.tensor(_BESSEL_POINTS, dtype=getattr(m, dtype))))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_airy_ai(dtype):
    same(lambda m: m.special.airy_ai(m.tensor([-5., -3., -1., 0., 0.5, 1., 3., 10., 50., 110., INF, -INF, NAN],
                                              dtype=getattr(m, dtype))))


@pytest.mark.parametrize("name", ["airy_ai", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
                                  "scaled_modified_bessel_k0", "scaled_modified_bessel_k1"])
def test_second_kind_dtypes_and_grad(name):
    same(lambda m: getattr(m.special, name)(m.tensor([1, 2])))
    same(lambda m: getattr(m.special, name)(m.tensor([1.], dtype=m.float16)))
    same(lambda m: getattr(m.special, name)(m.tensor([1.], requires_grad=True)).requires_grad)


# ----- torch.distributions: transforms ----------------------------------------------------------------------

def _transforms(m) -> dict:
    T = m.distributions.transforms
    return {
        "exp": T.ExpTransform(), "sigmoid": T.SigmoidTransform(), "tanh": T.TanhTransform(),
        "softplus": T.SoftplusTransform(), "affine": T.AffineTransform(0.5, -3.),
        "affine tensor": T.AffineTransform(m.tensor([0.5, 1., 2.], dtype=m.float64),
                                           m.tensor([2., -1., 0.5], dtype=m.float64)),
        "power": T.PowerTransform(2.), "power tensor": T.PowerTransform(m.tensor([0.5, 2., 3.], dtype=m.float64)),
        "compose": T.ComposeTransform([T.AffineTransform(0., 2.), T.SigmoidTransform()]),
        "inverse": T.ExpTransform().inv,
    }


@pytest.mark.parametrize("name", ["exp", "sigmoid", "tanh", "softplus", "affine", "affine tensor", "power",
                                  "power tensor", "compose", "inverse"])
def test_bijective_transforms(name):
    def case(m):
        t = _transforms(m)[name]
        x = m.tensor([0.2, 0.7, 1.5], dtype=m.float64)
        y = t(x)
        return (y, t.inv(y), t.log_abs_det_jacobian(x, y), repr(t), repr(t.inv), repr(t.domain), repr(t.codomain),
                t.bijective, t.inv.inv is t, t.sign if isinstance(t.sign, int) else t.sign.tolist())

    same(case)


def test_structural_transforms():
    same_output("""
T = torch.distributions.transforms
x = torch.tensor([[1., 2., 3.], [0., -1., 4.]])
sm = T.SoftmaxTransform()
print(sm, sm(x), sm.inv(sm(x)), sm.domain, sm.codomain, sm.bijective, sm.forward_shape((2, 3)))
it = T.IndependentTransform(T.ExpTransform(), 1)
print(it, it(x), it.log_abs_det_jacobian(x, it(x)), it.domain, it.codomain, it.event_dim,
      torch.allclose(it.inv(it(x)), x))
rs = T.ReshapeTransform((4,), (2, 2))
print(rs(torch.arange(8.).view(2, 4)), rs.inv(torch.zeros(3, 2, 2)).shape, rs.forward_shape((3, 4)))
print(rs.inverse_shape((5, 2, 2)), rs.log_abs_det_jacobian(torch.zeros(3, 4), torch.zeros(3, 2, 2)))
tr(lambda: rs.forward_shape((3, 5)))
tr(lambda: T.ReshapeTransform((4,), (3,)))
ab = T.AbsTransform()
print(ab(torch.tensor([-2., 3.])), ab.inv(torch.tensor([2.])), ab.bijective, ab == T.AbsTransform())
c = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(1., 2.)])
print(c)
print(c.inv, c.inv.inv is c, c.domain, c.codomain, c.event_dim)
print(T.ComposeTransform([T.SoftmaxTransform(), T.ExpTransform()]).codomain)
print(T.ComposeTransform([T.ExpTransform(), T.SoftmaxTransform()]).domain)
print(T.identity_transform, T.identity_transform(x).shape, T.ComposeTransform([]).log_abs_det_jacobian(x, x))
print(T.ExpTransform() == T.ExpTransform(), T.ExpTransform() != T.SigmoidTransform())
print(T.AffineTransform(1., 2.) == T.AffineTransform(1., 2.), T.AffineTransform(1., 2.) == T.AffineTransform(1., 3.))
print(T.AffineTransform(0., 0.).sign, T.AffineTransform(0., -2.).sign, T.AffineTransform(0., 2., event_dim=1).domain)
a = T.AffineTransform(torch.zeros(3), torch.tensor([1., 2., 4.]), event_dim=1)
print(a.log_abs_det_jacobian(torch.zeros(2, 3), torch.zeros(2, 3)), a.event_dim, a.forward_shape((2, 3)))
tr(lambda: T.ExpTransform(cache_size=2))
tr(lambda: T.SoftmaxTransform().log_abs_det_jacobian(x, x))
tr(lambda: T.SoftmaxTransform().sign)
tr(lambda: T.ComposeTransform([T.SoftmaxTransform(), T.ExpTransform()]).event_dim)
e = T.ExpTransform(cache_size=1)
y = e(x)
print(e(x) is y, e.inv(y) is x, T.ExpTransform()(x) is T.ExpTransform()(x), e.with_cache(1) is e)
print(T.ExpTransform().with_cache(1)._cache_size, T.SigmoidTransform().inv.with_cache(1).inv)
tr(lambda: T.PowerTransform(2.).with_cache(1)._cache_size)
""")


# ----- torch.distributions.TransformedDistribution ----------------------------------------------------------

def test_transformed_distribution_matches_lognormal():
    def case(m):
        D, T = m.distributions, m.distributions.transforms
        base = D.Normal(m.tensor([0., 1.], dtype=m.float64), m.tensor([1., 0.5], dtype=m.float64))
        td = D.TransformedDistribution(base, [T.AffineTransform(1., 2.), T.ExpTransform()])
        v = m.tensor([0.5, 4.0], dtype=m.float64)
        return (td.log_prob(v), td.cdf(v), td.icdf(m.tensor([0.1, 0.9], dtype=m.float64)), repr(td),
                repr(td.support), td.batch_shape, td.event_shape, td.has_rsample, td.sample((3, 2)).shape,
                td.expand((4, 2)).batch_shape, td.expand((4, 2)).log_prob(v).shape)

    same(case)


def test_transformed_distribution_shapes_and_events():
    same_output("""
D, T = torch.distributions, torch.distributions.transforms
n = D.Normal(torch.zeros(2, 3), torch.ones(2, 3))
sm = D.TransformedDistribution(n, [T.SoftmaxTransform()])
print(sm.batch_shape, sm.event_shape, sm.support, sm.base_dist)
it = D.TransformedDistribution(n, T.IndependentTransform(T.ExpTransform(), 1))
print(it.batch_shape, it.event_shape, it.log_prob(torch.ones(2, 3)), it.support)
sq = D.TransformedDistribution(D.Normal(torch.zeros(3), torch.ones(3)), [T.TanhTransform()])
print(sq.log_prob(torch.tensor([-0.5, 0., 0.9])), sq.cdf(torch.tensor([-0.5, 0., 0.9])), sq.support)
flip = D.TransformedDistribution(D.Uniform(0., 1.), [T.AffineTransform(0., -1.)])
print(flip.cdf(torch.tensor(-0.25)), flip.icdf(torch.tensor(0.25)), flip.support)
logit = D.TransformedDistribution(D.Uniform(0., 1.), T.SigmoidTransform().inv)
print(logit.log_prob(torch.tensor(0.3)), logit.cdf(torch.tensor(0.3)), logit.icdf(torch.tensor(0.5)))
wide = D.TransformedDistribution(D.Normal(0., 1.), T.AffineTransform(torch.zeros(4), torch.ones(4)))
print(wide.batch_shape, wide.base_dist.batch_shape, wide.log_prob(torch.zeros(4)))
print(D.TransformedDistribution(D.Normal(0., 1.), []).support, D.TransformedDistribution(D.Normal(0., 1.), []))
tr(lambda: D.TransformedDistribution(n, 'exp'))
tr(lambda: D.TransformedDistribution(n, [T.ExpTransform(), 1]))
tr(lambda: D.TransformedDistribution(D.Normal(0., 1.), [T.SoftmaxTransform()]))
tr(lambda: D.TransformedDistribution(n, [T.ExpTransform()]).log_prob(-torch.ones(2, 3)))
tr(lambda: D.TransformedDistribution(n, [T.ExpTransform()], validate_args=False).log_prob(-torch.ones(2, 3)))
tr(lambda: D.TransformedDistribution(n, [T.ExpTransform()]).log_prob(torch.ones(4)))
tr(lambda: D.TransformedDistribution(D.Categorical(torch.ones(3)), [T.ExpTransform()]).rsample())
""")


def test_transformed_distribution_reparameterizes():
    def case(m):
        D, T = m.distributions, m.distributions.transforms
        m.manual_seed(0)
        loc = m.tensor([0.1, -0.3], requires_grad=True)
        scale = m.tensor([1.0, 0.5], requires_grad=True)
        td = D.TransformedDistribution(D.Normal(loc, scale), [T.TanhTransform(), T.AffineTransform(2., 3.)])
        a = td.rsample((4,))
        (a.sum() + td.log_prob(m.tensor([[1.5, 2.5]])).sum()).backward()
        return a, loc.grad, scale.grad

    same(case)


def test_transform_based_families():
    same_output("""
D = torch.distributions
torch.manual_seed(0)
w = D.Weibull(torch.tensor([1., 2.]), torch.tensor([0.5, 3.]))
print(w, w.support, w.mean, w.mode, w.variance, w.entropy(), w.sample((3,)))
print(w.log_prob(torch.tensor([0.5, 1.5])), w.cdf(torch.tensor([0.5, 1.5])), w.icdf(torch.tensor([0.5, 0.9])))
p = D.Pareto(torch.tensor([1., 2.]), torch.tensor([3., 1.5]))
print(p, p.support, p.mean, p.mode, p.variance, p.entropy(), p.sample((2,)), p.log_prob(torch.tensor([1.5, 3.])))
h = D.HalfCauchy(torch.tensor([1., 2.]))
print(h, h.scale, h.support, h.mean, h.mode, h.entropy(), h.sample((2,)), h.log_prob(torch.tensor([0.5, 3.])))
print(h.cdf(torch.tensor([0.5, 3.])), h.icdf(torch.tensor([0.5, 0.9])), h.expand((3, 2)).batch_shape)
t = D.StudentT(torch.tensor([0.5, 1.5, 4.]), torch.tensor([0., 1., 2.]), torch.tensor([1., 2., 0.5]))
print(t, t.mean, t.mode, t.variance, t.entropy(), t.log_prob(torch.tensor([0., 1., 2.5])), t.sample((5,)).shape)
print(D.StudentT(3.), D.StudentT(3.).log_prob(torch.tensor(0.5)), D.StudentT(torch.tensor([2.])).expand((3, 1)))
print(D.Weibull(1., 2.).expand((3,)).sample().shape, D.Pareto(1., 2.).expand((2, 2)).log_prob(torch.ones(2, 2) * 2))
tr(lambda: D.Weibull(-1., 1.))
tr(lambda: D.Pareto(1., 0.))
tr(lambda: D.HalfCauchy(torch.tensor([-1.])))
tr(lambda: D.StudentT(-1.))
tr(lambda: D.Pareto(2., 1.).log_prob(torch.tensor(1.)))
tr(lambda: D.HalfCauchy(1.).log_prob(torch.tensor(-1.)))
tr(lambda: D.Weibull(1., 1.).log_prob(torch.tensor(-1.)))
torch.manual_seed(1)
scale = torch.tensor([1.5], requires_grad=True)
conc = torch.tensor([2.0], requires_grad=True)
x = D.Weibull(scale, conc).rsample((4,))
x.sum().backward()
print(x, scale.grad, conc.grad)
""")


# ----- torch.fft: out= and the frequency helpers --------------------------------------------------------------

@pytest.mark.parametrize("fn", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
@pytest.mark.parametrize("out", ["float32", "float64", "complex64", "complex128", "int64"])
def test_fft_out(fn, out):
    def case(m):
        o = m.empty(0, dtype=getattr(m, out))
        result = getattr(m.fft, fn)(m.tensor([1., 2., 3., 4., 5.]), out=o)
        return result, o, result is o

    same(case)


@pytest.mark.parametrize("fn", ["fft2", "rfftn", "irfft2", "ifftn"])
def test_fft_n_dimensional_out(fn):
    same(lambda m: (lambda o: (getattr(m.fft, fn)(m.arange(12.).view(3, 4), out=o), o))(
        m.empty(5, dtype=m.float32 if fn.startswith("irfft") else m.complex64)))


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n, d", [(0, 1.0), (1, 1.0), (4, 0.0), (5, 0.5), (-1, 1.0)])
def test_frequency_helpers(fn, n, d):
    same(lambda m: getattr(m.fft, fn)(n, d))


@pytest.mark.parametrize("fn", ["fftfreq", "rfftfreq"])
def test_frequency_helper_dtypes_and_out(fn):
    same(lambda m: getattr(m.fft, fn)(4, dtype=m.int64))
    same(lambda m: getattr(m.fft, fn)(4, dtype=m.float64))
    same(lambda m: (lambda o: (getattr(m.fft, fn)(4, out=o), o))(m.empty(1, dtype=m.float64)))
