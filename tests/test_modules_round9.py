"""Regressions from the ninth differential round on the less-visited modules (torch.linalg, torch.special,
torch.distributions, printing): each case runs under torch and pjtorch and must agree on values, or on the
exception type and message."""
from __future__ import annotations

import pytest

from tensor_oracle import reference, same, same_output

import pjtorch

torch = reference()

INF = float("inf")


# ----- torch.linalg on empty matrices and its messages ----------------------------------------------------

@pytest.mark.parametrize("ord", [1, -1, INF, -INF, 2, -2, "nuc", "fro"])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (2, 0, 0), (0, 0)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norm_of_empty_matrices(ord, shape, keepdim):
    same(lambda m: m.linalg.matrix_norm(m.zeros(shape), ord, keepdim=keepdim))


@pytest.mark.parametrize("dim", [(0, 1), (1, 0), (0, 2), (2, 0)])
@pytest.mark.parametrize("ord", [-1, -INF])
def test_matrix_norm_minimum_over_an_empty_dim_names_it(dim, ord):
    same(lambda m: m.linalg.matrix_norm(m.zeros(0, 2, 0), ord, dim=dim))


@pytest.mark.parametrize("dim", [(-2, -1), (1, 0), -1])
def test_vector_norm_names_the_empty_dim_as_given(dim):
    same(lambda m: m.linalg.vector_norm(m.zeros(0, 0), -INF, dim=dim))


@pytest.mark.parametrize("p", [None, 2, -2, "fro", "nuc", 1, -1, INF, -INF, 1.0, 3, 3.5, "bad"])
@pytest.mark.parametrize("shape", [(3,), (2, 3), (3, 3), (2, 0, 0)])
def test_cond_checks_and_empty_matrices(p, shape):
    def case(m):
        A = m.zeros(shape) if len(shape) < 2 else m.arange(float(m.Size(shape).numel())).reshape(shape) + m.eye(
            shape[-1])
        return m.linalg.cond(A.double(), p)

    same(case)


def test_tensorinv_of_an_empty_tensor():
    same(lambda m: m.linalg.tensorinv(m.zeros(0, 0), ind=1))
    same(lambda m: m.linalg.tensorinv(m.zeros(0, 2, 0, 2), ind=2))


def test_lu_solve_names_itself_as_torch_does():
    same(lambda m: m.linalg.lu_solve(m.zeros(2, 3), m.zeros(3, dtype=m.int32), m.zeros(3, 1)))


# ----- torch.special ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_spherical_bessel_j0_vanishes_at_the_infinities(dtype):
    same(lambda m: m.special.spherical_bessel_j0(m.tensor([-INF, -3.0, 0.0, 1e-4, 2.0, INF],
                                                          dtype=getattr(m, dtype))))


# ----- torch.distributions ----------------------------------------------------------------------------------

def _families(m) -> dict:
    t = lambda values: m.tensor(values, dtype=m.float64)  # noqa: E731 - a table of one-liners
    D = m.distributions
    return {
        "Normal": lambda: D.Normal(t([0., 1., -2.]), t([1., 0.5, 3.])),
        "Laplace": lambda: D.Laplace(t([0.5, 1., -2.]), t([1., 2., 0.3])),
        "Exponential": lambda: D.Exponential(t([0.5, 1., 3.])),
        "Gamma": lambda: D.Gamma(t([0.5, 2., 3.]), t([1., 0.5, 2.])),
        "Beta": lambda: D.Beta(t([0.5, 2., 3.]), t([1., 0.5, 2.])),
        "Uniform": lambda: D.Uniform(t([0., 0.2, -1.]), t([1., 0.7, 2.])),
        "Uniform inside [0, 1]": lambda: D.Uniform(t([0.1, 0.2, 0.]), t([1., 0.7, 0.5])),
        "Poisson": lambda: D.Poisson(t([0.5, 2., 3.])),
        "Bernoulli": lambda: D.Bernoulli(t([0.1, 0.5, 0.9])),
        "Binomial": lambda: D.Binomial(t([3., 5., 5.]), t([0.1, 0.5, 0.9])),
        "Binomial fewer trials": lambda: D.Binomial(t([3., 4., 5.]), t([0.3, 0.2, 0.6])),
        "LogNormal": lambda: D.LogNormal(t([0., 1., -2.]), t([1., 0.5, 3.])),
        "Categorical": lambda: D.Categorical(t([[0.1, 0.9], [0.5, 0.5], [1., 0.]])),
        "Cauchy": lambda: D.Cauchy(t([0., 1., -2.]), t([1., 0.5, 3.])),
        "Chi2": lambda: D.Chi2(t([1., 2.5, 4.])),
        "Geometric": lambda: D.Geometric(t([0.2, 0.5, 0.9])),
        "HalfNormal": lambda: D.HalfNormal(t([1., 0.5, 3.])),
        "Gumbel": lambda: D.Gumbel(t([0., 1., -2.]), t([1., 0.5, 3.])),
    }


_FAMILIES = list(_families(torch))


@pytest.mark.parametrize("q", _FAMILIES)
@pytest.mark.parametrize("p", _FAMILIES)
def test_kl_divergence_between_families(p, q):
    """Closed forms, infinite where q misses part of p's support, or PyTorch's NotImplementedError."""
    same(lambda m: m.distributions.kl_divergence(_families(m)[p](), _families(m)[q]()))


NEW_FAMILIES = r"""
D = torch.distributions
t = lambda v: torch.tensor(v)
mk = {
 'Cauchy': lambda: D.Cauchy(t([0., 1.]), t([1., 2.])), 'Chi2': lambda: D.Chi2(t([1., 3.])),
 'Geometric': lambda: D.Geometric(t([0.3, 0.9])), 'GeometricL': lambda: D.Geometric(logits=t([0.2, -1.])),
 'HalfNormal': lambda: D.HalfNormal(t([1., 2.])), 'Gumbel': lambda: D.Gumbel(t([1., 0.]), t([2., 0.5])),
}
for name, f in mk.items():
    torch.manual_seed(0)
    d = f()
    print(name, d, d.batch_shape, d.event_shape, d.support, d.has_rsample, d.arg_constraints)
    for attr in ['mean', 'mode', 'variance', 'stddev']:
        tr(lambda: getattr(d, attr))
    tr(lambda: d.entropy())
    if name != 'Chi2':
        tr(lambda: d.sample((3,)))
    else:
        tr(lambda: d.sample((3,)).shape)
    v = t([0., 1., 2.5]).unsqueeze(-1)
    if name.startswith('Geometric'): v = t([0., 1., 3.]).unsqueeze(-1)
    tr(lambda: d.log_prob(v))
    tr(lambda: d.cdf(v))
    tr(lambda: d.icdf(t([0.1, 0.7])))
    tr(lambda: d.log_prob(t([-1.])))
    tr(lambda: d.expand((3, 2)).sample().shape)
    tr(lambda: d.expand((3, 2)))
    tr(lambda: d.rsample().shape)
tr(lambda: D.Cauchy(0., -1.))
tr(lambda: D.Chi2(-1.))
tr(lambda: D.Geometric(t([0., 0.5])))
tr(lambda: D.Geometric(t([1.5, 0.5])))
tr(lambda: D.Geometric(0.5, logits=0.1))
tr(lambda: D.Geometric(t([1., 0.5])).log_prob(t([0., 1.])))
tr(lambda: D.HalfNormal(-1.))
tr(lambda: D.Gumbel(0., 0.))
tr(lambda: D.Chi2(t([2., 4.])).df)
tr(lambda: D.Geometric(t([0.3])).logits)
tr(lambda: D.Geometric(logits=t([0.3])).probs)
torch.manual_seed(3)
tr(lambda: D.Gumbel(0., 1.).rsample((4,)))
tr(lambda: D.Gumbel(torch.zeros(2, dtype=torch.float64), 1.).rsample((2,)))
tr(lambda: D.Cauchy(torch.zeros(2, dtype=torch.float64), 1.).rsample((2,)))
tr(lambda: D.Geometric(torch.tensor([0.1, 0.5], dtype=torch.float64)).sample((3,)))
tr(lambda: D.HalfNormal(torch.ones(3)).sample())
x = torch.tensor([1., 2.], requires_grad=True)
tr(lambda: torch.autograd.grad(D.Cauchy(x, 1.).rsample().sum() + D.Gumbel(x, x).rsample().sum() + D.HalfNormal(x).rsample().sum(), x))
tr(lambda: torch.autograd.grad(D.Geometric(x / 4).log_prob(t([1., 2.])).sum(), x))
tr(lambda: torch.autograd.grad(D.Cauchy(x, x).log_prob(t([1., 2.])).sum() + D.Gumbel(x, x).entropy().sum(), x))
tr(lambda: D.kl_divergence(D.Geometric(0.3), D.Geometric(0.5)))
tr(lambda: D.kl_divergence(D.HalfNormal(1.), D.HalfNormal(2.)))
tr(lambda: D.kl_divergence(D.Gumbel(0., 1.), D.Gumbel(1., 2.)))
tr(lambda: D.kl_divergence(D.Chi2(3.), D.Gamma(1., 1.)))
tr(lambda: D.kl_divergence(D.Chi2(3.), D.Chi2(2.)))
tr(lambda: D.kl_divergence(D.Normal(0., 1.), D.Gumbel(1., 2.)))
tr(lambda: D.kl_divergence(D.Cauchy(0., 1.), D.Cauchy(1., 2.)))
"""


def test_cauchy_chi2_geometric_halfnormal_gumbel():
    """Statistics, PyTorch's samples for a seed, log_prob/cdf/icdf, support and parameter errors, gradients."""
    same_output(NEW_FAMILIES)


MULTINOMIAL = r"""
D = torch.distributions
torch.manual_seed(0)
m = D.Multinomial(5, torch.tensor([0.2, 0.3, 0.5]))
print(m, m.support, m.batch_shape, m.event_shape, m.param_shape, m.has_enumerate_support, m.has_rsample, m.total_count)
tr(lambda: m.sample())
tr(lambda: m.sample((2,)))
tr(lambda: D.Multinomial(10, logits=torch.tensor([[0., 1.], [2., -1.]])).sample((3,)))
tr(lambda: m.mean); tr(lambda: m.variance); tr(lambda: m.stddev); tr(lambda: m.entropy()); tr(lambda: m.probs); tr(lambda: m.logits)
tr(lambda: m.log_prob(torch.tensor([1., 1., 3.])))
tr(lambda: m.log_prob(torch.tensor([[1., 1., 3.], [5., 0., 0.]])))
tr(lambda: m.log_prob(torch.tensor([1., 1., 1.])))
tr(lambda: m.log_prob(torch.tensor([1., -1., 5.])))
tr(lambda: m.log_prob(torch.tensor([1., 4.])))
tr(lambda: D.Multinomial(torch.tensor(5), torch.tensor([0.2, 0.8])))
tr(lambda: D.Multinomial(5, torch.tensor([0.2, -0.8])))
tr(lambda: D.Multinomial(5))
tr(lambda: D.Multinomial(3, torch.tensor([0., 1.])).log_prob(torch.tensor([0., 3.])))
tr(lambda: D.Multinomial(3, logits=torch.tensor([[0., 1.], [1., 1.]])).entropy())
tr(lambda: m.expand((2, 3)).sample().shape)
tr(lambda: m.expand((2,)).log_prob(torch.tensor([1., 1., 3.])))
tr(lambda: m.expand((2,)).batch_shape)
x = torch.tensor([0.5, 1.5, 1.0], requires_grad=True)
tr(lambda: torch.autograd.grad(D.Multinomial(4, logits=x).log_prob(torch.tensor([1., 2., 1.])), x))
tr(lambda: torch.autograd.grad(D.Multinomial(4, probs=x).entropy(), x))
"""


def test_multinomial():
    """PyTorch's counts for a seed, log_prob with zero-probability categories, entropy and their gradients."""
    same_output(MULTINOMIAL)


MIXTURE = r"""
D = torch.distributions
torch.manual_seed(0)
mix = D.Categorical(torch.ones(5,))
comp = D.Normal(torch.arange(5.), torch.full((5,), 0.5))
gmm = D.MixtureSameFamily(mix, comp)
print(gmm, gmm.batch_shape, gmm.event_shape, gmm.support)
tr(lambda: gmm.sample((4,)))
tr(lambda: gmm.mean); tr(lambda: gmm.variance); tr(lambda: gmm.stddev)
tr(lambda: gmm.log_prob(torch.tensor([0., 1.5, 7.])))
tr(lambda: gmm.cdf(torch.tensor([0., 1.5, 7.])))
comp2 = D.Independent(D.Normal(torch.arange(10.).reshape(5, 2), torch.ones(5, 2)), 1)
gmm2 = D.MixtureSameFamily(mix, comp2)
print(gmm2, gmm2.batch_shape, gmm2.event_shape)
tr(lambda: gmm2.sample((3,)))
tr(lambda: gmm2.mean); tr(lambda: gmm2.variance)
tr(lambda: gmm2.log_prob(torch.tensor([[0., 1.], [2., 2.]])))
mix3 = D.Categorical(torch.rand(3, 5))
comp3 = D.Independent(D.Normal(torch.randn(3, 5, 2), torch.rand(3, 5, 2) + 0.5), 1)
gmm3 = D.MixtureSameFamily(mix3, comp3)
print(gmm3.batch_shape, gmm3.event_shape)
tr(lambda: gmm3.sample((2,)).shape)
tr(lambda: gmm3.sample())
tr(lambda: gmm3.mean); tr(lambda: gmm3.variance)
tr(lambda: gmm3.log_prob(torch.zeros(4, 3, 2)))
tr(lambda: gmm3.expand((2, 3)).sample().shape)
tr(lambda: gmm.expand((2,)).log_prob(torch.tensor([0., 1.])))
tr(lambda: D.MixtureSameFamily(comp, comp))
tr(lambda: D.MixtureSameFamily(mix, 3))
tr(lambda: D.MixtureSameFamily(D.Categorical(torch.ones(4)), comp))
tr(lambda: D.MixtureSameFamily(D.Categorical(torch.ones(2, 5)), D.Normal(torch.zeros(3, 5), 1.)))
tr(lambda: gmm.log_prob(torch.tensor([[0.], [1.]])).shape)
w = torch.zeros(5, requires_grad=True)
mu = torch.arange(5.).requires_grad_()
g = D.MixtureSameFamily(D.Categorical(logits=w), D.Normal(mu, 1.))
tr(lambda: torch.autograd.grad(g.log_prob(torch.tensor([0.5, 2.])).sum(), [w, mu]))
tr(lambda: gmm.has_rsample)
tr(lambda: gmm.rsample())
"""


def test_mixture_same_family():
    """Gaussian mixtures over scalar and vector events, batched: PyTorch's draws for a seed, moments, log_prob,
    support, the constructor's checks and gradients to the weights and the components."""
    same_output(MIXTURE)


@pytest.mark.parametrize("counts", [[1.0, 2.0], [0.0, 4.0]])
def test_binomial_log_prob_gradient_at_even_odds(counts):
    """At logits 0 the normalizer's gradient is n / 2 (not a one-sided 0 or n)."""
    def case(m):
        probs = m.tensor([0.2, 0.5], requires_grad=True)
        return m.autograd.grad(m.distributions.Binomial(4, probs=probs).log_prob(m.tensor(counts)).sum(), probs)

    same(case)


def test_exponential_families_share_a_base():
    for name in ("Normal", "Exponential", "Gamma", "Beta", "Poisson", "Bernoulli", "Dirichlet"):
        assert issubclass(getattr(pjtorch.distributions, name), pjtorch.distributions.ExponentialFamily)
    assert not issubclass(pjtorch.distributions.Laplace, pjtorch.distributions.ExponentialFamily)


def test_distribution_parameter_type_errors():
    same(lambda m: m.distributions.Normal("a", 1))
    with pytest.warns(UserWarning, match="does not define `arg_constraints`") as caught:
        pjtorch.distributions.Distribution()
    assert caught[0].filename == __file__  # PyTorch's warning points at the code that made the distribution


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_entr_is_positive_zero_at_zero_with_torchs_gradient(dtype):
    def case(m):
        x = m.tensor([-1.0, 0.0, 0.5, 1.0], dtype=getattr(m, dtype), requires_grad=True)
        y = m.special.entr(x)
        y.sum().backward()
        return y.detach(), m.copysign(m.ones(4, dtype=x.dtype), y.detach()), x.grad

    same(case)
    same(lambda m: m.copysign(m.ones(3), m.special.entr(m.tensor([0.0, 0.5, 1.0], dtype=m.float16)).float()))


# ----- torch.testing ----------------------------------------------------------------------------------------

def test_assert_close_reports_complex64_differences_correctly_rounded():
    same_output("""
        tr(lambda: torch.testing.assert_close(torch.tensor([1+1j]), torch.tensor([1+1.1j])))
        tr(lambda: torch.testing.assert_close(torch.tensor([3+4j, 1j]), torch.tensor([3+4.5j, 1j])))
    """)
