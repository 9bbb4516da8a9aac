"""pjtorch.distributions against the real torch.distributions.

Each distribution is built by one builder taking the library (`pjtorch` or `torch`), so both get the same
parameters; values, shapes, reprs and error messages must then agree. Draws cannot match torch's stream,
so sampling is checked by shape, dtype, reproducibility under manual_seed and by moments.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import pjtorch

torch = pytest.importorskip("torch")

REPO_ROOT = Path(__file__).resolve().parents[1]


def same(actual, expected, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Same shape, dtype and values (NaN where torch has NaN)."""
    assert str(actual.dtype) == str(expected.dtype)
    assert tuple(actual.shape) == tuple(expected.shape)
    np.testing.assert_allclose(np.asarray(actual.detach().numpy()), expected.detach().numpy(), rtol=rtol, atol=atol)


def attempt(fn):
    """fn() or the NotImplementedError it raised (Poisson has no entropy, in torch either)."""
    try:
        return fn()
    except NotImplementedError as error:
        return error


def mvn_args(lib):
    cov = lib.tensor([[2.0, 0.5, 0.0], [0.5, 1.0, 0.3], [0.0, 0.3, 1.5]])
    return lib.tensor([1.0, -1.0, 0.5]), cov


# name: (builder, a value in the support, whether it has cdf and icdf; Gamma has only a cdf)
CASES = {
    "Normal": (lambda lib: lib.distributions.Normal(lib.tensor([0.0, 1.0, -1.0]), lib.tensor([1.0, 0.5, 2.0])),
               [0.2, 0.7, 1.5], True),
    "LogNormal": (lambda lib: lib.distributions.LogNormal(lib.tensor([0.0, 1.0, -1.0]), lib.tensor([1.0, 0.5, 2.0])),
                  [0.2, 0.7, 1.5], True),
    "Uniform": (lambda lib: lib.distributions.Uniform(lib.tensor([0.0, 0.1, -1.0]), lib.tensor([1.0, 2.0, 3.0])),
                [0.2, 0.7, 1.5], True),
    "Exponential": (lambda lib: lib.distributions.Exponential(lib.tensor([0.5, 2.0, 3.0])), [0.2, 0.7, 1.5], True),
    "Laplace": (lambda lib: lib.distributions.Laplace(lib.tensor([0.0, 1.0, -1.0]), lib.tensor([0.5, 2.0, 3.0])),
                [0.2, 0.7, 1.5], True),
    "Gamma": (lambda lib: lib.distributions.Gamma(lib.tensor([0.5, 2.0, 3.0]), lib.tensor([1.0, 2.0, 0.5])),
              [0.2, 0.7, 1.5], "cdf"),
    "Beta": (lambda lib: lib.distributions.Beta(lib.tensor([0.5, 2.0, 3.0]), lib.tensor([1.0, 2.0, 0.5])),
             [0.2, 0.7, 0.9], False),
    "Poisson": (lambda lib: lib.distributions.Poisson(lib.tensor([0.5, 2.0, 3.5])), [0.0, 1.0, 4.0], False),
    "Binomial": (lambda lib: lib.distributions.Binomial(lib.tensor([3.0, 5.0, 10.0]), lib.tensor([0.2, 0.5, 0.9])),
                 [1.0, 2.0, 9.0], False),
    "Bernoulli": (lambda lib: lib.distributions.Bernoulli(probs=lib.tensor([0.1, 0.5, 0.9])), [1.0, 0.0, 1.0], False),
    "BernoulliLogits": (lambda lib: lib.distributions.Bernoulli(logits=lib.tensor([-1.0, 0.0, 3.0])),
                        [1.0, 0.0, 1.0], False),
    "Categorical": (lambda lib: lib.distributions.Categorical(lib.tensor([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])),
                    [2, 0], False),
    "CategoricalLogits": (lambda lib: lib.distributions.Categorical(logits=lib.tensor([[0.0, float("-inf"), 1.0]])),
                          [2], False),
    "OneHotCategorical": (lambda lib: lib.distributions.OneHotCategorical(lib.tensor([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])),
                          [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]], False),
    "Dirichlet": (lambda lib: lib.distributions.Dirichlet(lib.tensor([[0.5, 2.0, 3.0], [0.3, 0.5, 0.9]])),
                  [0.2, 0.3, 0.5], False),
    "MultivariateNormal": (lambda lib: lib.distributions.MultivariateNormal(*mvn_args(lib)), [0.5, 0.2, 0.1], False),
    "MVNPrecision": (lambda lib: lib.distributions.MultivariateNormal(mvn_args(lib)[0], precision_matrix=mvn_args(lib)[1]),
                     [0.5, 0.2, 0.1], False),
    "MVNScaleTrilBatched": (lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2, 3), scale_tril=lib.linalg.cholesky(mvn_args(lib)[1])), [0.5, 0.2, 0.1], False),
    "Independent": (lambda lib: lib.distributions.Independent(
        lib.distributions.Normal(lib.zeros(2, 3), lib.ones(2, 3) * 2), 1), [0.5, 0.2, 0.1], False),
}


def value_for(lib, case):
    value = CASES[case][1]
    dtype = lib.long if case.startswith("Categorical") else lib.float32
    return lib.tensor(value, dtype=dtype)


@pytest.mark.parametrize("case", CASES)
def test_statistics_shapes_and_repr_match_torch(case):
    build, _, has_cdf = CASES[case]
    ours, theirs = build(pjtorch), build(torch)
    assert repr(ours) == repr(theirs)
    assert (ours.batch_shape, ours.event_shape) == (theirs.batch_shape, theirs.event_shape)
    assert repr(ours.support) == repr(theirs.support)
    assert ours.has_rsample == theirs.has_rsample
    same(ours.log_prob(value_for(pjtorch, case)), theirs.log_prob(value_for(torch, case)))
    for statistic in ("entropy", "mean", "mode", "variance", "stddev"):
        expected = attempt(lambda: getattr(theirs, statistic))
        actual = attempt(lambda: getattr(ours, statistic))
        if statistic == "entropy":
            expected, actual = attempt(expected), attempt(actual)
        if isinstance(expected, NotImplementedError):
            assert isinstance(actual, NotImplementedError)
        else:
            same(actual, expected, rtol=2e-5)
    probe = [0.1, 0.35, 0.75]
    if has_cdf:
        same(ours.cdf(pjtorch.tensor(probe)), theirs.cdf(torch.tensor(probe)), rtol=1e-5, atol=1e-6)
    if has_cdf is True:
        same(ours.icdf(pjtorch.tensor(probe)), theirs.icdf(torch.tensor(probe)))
    expanded_ours, expanded_theirs = ours.expand((4,) + tuple(ours.batch_shape)), theirs.expand((4,) + theirs.batch_shape)
    assert repr(expanded_ours) == repr(expanded_theirs)
    assert expanded_ours.batch_shape == expanded_theirs.batch_shape
    same(expanded_ours.log_prob(value_for(pjtorch, case)), expanded_theirs.log_prob(value_for(torch, case)))


@pytest.mark.parametrize("case", CASES)
def test_sample_shapes_and_dtypes_match_torch(case):
    ours, theirs = CASES[case][0](pjtorch), CASES[case][0](torch)
    drawn, expected = ours.sample((2, 3)), theirs.sample((2, 3))
    assert (tuple(drawn.shape), str(drawn.dtype)) == (tuple(expected.shape), str(expected.dtype))
    assert not drawn.requires_grad
    if ours.has_rsample:
        assert tuple(ours.rsample((2,)).shape) == tuple(theirs.rsample((2,)).shape)


def test_scalar_parameters_repr_and_dtype():
    for lib_name, lib in (("pjtorch", pjtorch), ("torch", torch)):
        d = lib.distributions
        printed = [repr(d.Normal(0.0, 1.0)), repr(d.Normal(lib.tensor([0.5]), 1.0)), repr(d.Bernoulli(0.3)),
                   repr(d.Binomial(10, lib.tensor(0.5))), repr(d.Uniform(0.0, 2)), repr(d.Categorical(logits=lib.zeros(3))),
                   repr(d.Beta(1.0, 2.0)), repr(d.OneHotCategorical(lib.ones(3))), repr(d.LogNormal(0.0, 1.0)),
                   str(d.Normal(0, 1).loc.dtype), str(d.Normal(lib.tensor(0.0, dtype=lib.float64), 1).scale.dtype),
                   repr(d.constraints.real_vector), repr(d.Normal(0.0, 1.0).arg_constraints)]
        if lib_name == "pjtorch":
            ours = printed
        else:
            assert ours == printed


INVALID = [
    lambda d, lib: d.Normal(0.0, -1.0),
    lambda d, lib: d.Normal(lib.zeros(2), lib.tensor([1.0, -1.0])),
    lambda d, lib: d.Bernoulli(probs=1.5),
    lambda d, lib: d.Bernoulli(0.5, logits=1.0),
    lambda d, lib: d.Bernoulli(),
    lambda d, lib: d.Beta(-1.0, 1.0),
    lambda d, lib: d.Gamma(1.0, 0.0),
    lambda d, lib: d.Laplace(0.0, 0.0),
    lambda d, lib: d.LogNormal(0.0, -1.0),
    lambda d, lib: d.Poisson(-1.0),
    lambda d, lib: d.Binomial(2.5, 0.5),
    lambda d, lib: d.Uniform(1.0, 0.0),
    lambda d, lib: d.Categorical(lib.tensor([1.0, -1.0])),
    lambda d, lib: d.Categorical(lib.tensor(1.0)),
    lambda d, lib: d.Dirichlet(lib.tensor([1.0, -2.0])),
    lambda d, lib: d.MultivariateNormal(lib.zeros(2)),
    lambda d, lib: d.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda d, lib: d.MultivariateNormal(lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda d, lib: d.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda d, lib: d.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda d, lib: d.Independent(d.Normal(0.0, 1.0), 1),
    lambda d, lib: d.Normal(0.0, 1.0).log_prob(1.0),
    lambda d, lib: d.Normal(0.0, 1.0).log_prob(lib.tensor([float("nan")])),
    lambda d, lib: d.Normal(lib.zeros(2), lib.ones(2)).log_prob(lib.zeros(3)),
    lambda d, lib: d.Exponential(1.0).log_prob(lib.tensor(-1.0)),
    lambda d, lib: d.Categorical(lib.ones(3)).log_prob(lib.tensor(3)),
    lambda d, lib: d.Dirichlet(lib.ones(3)).log_prob(lib.ones(2) / 2),
    lambda d, lib: d.Dirichlet(lib.ones(3)).log_prob(lib.ones(3)),
    lambda d, lib: d.Binomial(3, 0.5).log_prob(lib.tensor(4.0)),
    lambda d, lib: d.Bernoulli(0.3).log_prob(lib.tensor(0.5)),
    lambda d, lib: d.Uniform(0.0, 1.0).log_prob(lib.tensor(2.0)),
    lambda d, lib: d.OneHotCategorical(lib.ones(3)).log_prob(lib.tensor([1.0, 1.0, 0.0])),
    lambda d, lib: d.Binomial(lib.tensor([2.0, 3.0]), 0.5).entropy(),
    lambda d, lib: d.Gamma(1.0, 1.0).icdf(lib.tensor(0.5)),
    lambda d, lib: d.Distribution().mode,
    lambda d, lib: d.kl_divergence(d.Normal(0.0, 1.0), d.Categorical(lib.ones(2))),
    lambda d, lib: d.kl_divergence(d.MultivariateNormal(lib.zeros(2), lib.eye(2)),
                                   d.MultivariateNormal(lib.zeros(3), lib.eye(3))),
]


def outcome(fn, lib):
    try:
        fn(lib.distributions, lib)
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return type(error).__name__, str(error).replace("pjtorch.", "torch.")
    return None


@pytest.mark.filterwarnings("ignore:.*does not define `arg_constraints`")
@pytest.mark.parametrize("index", range(len(INVALID)))
def test_invalid_arguments_raise_torch_errors(index):
    expected = outcome(INVALID[index], torch)
    assert expected is not None
    assert outcome(INVALID[index], pjtorch) == expected


def test_base_distribution_without_arg_constraints_warns_as_torch_does():
    for lib in (pjtorch, torch):
        with pytest.warns(UserWarning, match="does not define `arg_constraints`"):
            lib.distributions.Distribution()


def test_validate_args_false_skips_checks():
    d = pjtorch.distributions
    assert repr(d.Normal(0.0, -1.0, validate_args=False)) == "Normal(loc: 0.0, scale: -1.0)"
    assert np.isnan(d.Normal(0.0, 1.0, validate_args=False).log_prob(pjtorch.tensor(float("nan"))).item())
    d.Distribution.set_default_validate_args(False)
    try:
        d.Exponential(-1.0)
    finally:
        d.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        d.Exponential(-1.0)


KL_PAIRS = [
    lambda d, lib: (d.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 0.5])), d.Normal(0.3, 1.5)),
    lambda d, lib: (d.Categorical(lib.tensor([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])),
                    d.Categorical(logits=lib.tensor([0.0, 1.0, 2.0]))),
    lambda d, lib: (d.Categorical(lib.tensor([0.0, 0.5, 0.5])), d.Categorical(lib.tensor([0.5, 0.5, 0.0]))),
    lambda d, lib: (d.OneHotCategorical(lib.tensor([0.1, 0.2, 0.7])), d.OneHotCategorical(lib.ones(3))),
    lambda d, lib: (d.Bernoulli(lib.tensor([0.1, 0.5, 1.0, 0.0])), d.Bernoulli(lib.tensor([0.3, 0.0, 0.5, 0.2]))),
    lambda d, lib: (d.MultivariateNormal(*mvn_args(lib)), d.MultivariateNormal(lib.zeros(2, 3), scale_tril=lib.eye(3) * 2)),
    lambda d, lib: (d.Uniform(lib.tensor([0.0, -1.0]), lib.tensor([1.0, 1.0])), d.Uniform(-0.5, 2.0)),
    lambda d, lib: (d.Beta(lib.tensor([0.5, 2.0]), lib.tensor([1.0, 3.0])), d.Beta(1.5, 3.0)),
    lambda d, lib: (d.Gamma(lib.tensor([0.5, 2.0]), lib.tensor([1.0, 3.0])), d.Gamma(2.0, 1.5)),
    lambda d, lib: (d.Exponential(lib.tensor([0.5, 2.0])), d.Exponential(2.0)),
    lambda d, lib: (d.Laplace(lib.tensor([0.0, 1.0]), lib.tensor([1.0, 3.0])), d.Laplace(0.5, 2.0)),
    lambda d, lib: (d.Dirichlet(lib.tensor([[0.5, 2.0, 3.0], [0.3, 0.5, 0.9]])), d.Dirichlet(lib.ones(3))),
    lambda d, lib: (d.Independent(d.Normal(lib.zeros(2, 3), lib.ones(2, 3)), 1),
                    d.Independent(d.Normal(lib.ones(3), 2 * lib.ones(3)), 1)),
]


@pytest.mark.parametrize("index", range(len(KL_PAIRS)))
def test_kl_divergence_matches_torch(index):
    ours = pjtorch.distributions.kl_divergence(*KL_PAIRS[index](pjtorch.distributions, pjtorch))
    theirs = torch.distributions.kl_divergence(*KL_PAIRS[index](torch.distributions, torch))
    same(ours, theirs, rtol=2e-5)


def test_register_kl_dispatches_to_the_most_specific_pair():
    d = pjtorch.distributions

    class Wide(d.Normal):
        pass

    @d.register_kl(Wide, d.Normal)
    def _kl_wide_normal(p, q):
        return pjtorch.tensor(-1.0)

    assert d.kl_divergence(Wide(0.0, 1.0), d.Normal(0.0, 1.0)).item() == -1.0
    assert d.kl_divergence(d.Normal(0.0, 1.0), Wide(0.0, 2.0)).item() == pytest.approx(0.5 * (0.25 - 1 - np.log(0.25)))


def test_log_prob_and_entropy_gradients_match_torch():
    def grads(lib):
        d = lib.distributions
        loc = lib.tensor([1.0, 2.0], requires_grad=True)
        scale = lib.tensor([0.5, 2.0], requires_grad=True)
        cov = lib.tensor([[2.0, 0.5], [0.5, 1.0]], requires_grad=True)
        logits = lib.tensor([0.1, 0.5, -1.0], requires_grad=True)
        total = (d.Normal(loc, scale).log_prob(lib.tensor([0.3, 1.0])).sum()
                 + d.Gamma(scale, loc).log_prob(lib.tensor([0.4, 1.0])).sum() + d.Beta(loc, scale).entropy().sum()
                 + d.MultivariateNormal(loc, cov).log_prob(lib.tensor([0.5, -0.2]))
                 + d.Categorical(logits=logits).entropy())
        total.backward()
        return loc.grad, scale.grad, cov.grad, logits.grad

    for ours, theirs in zip(grads(pjtorch), grads(torch)):
        same(ours, theirs, rtol=1e-4, atol=1e-5)


def test_rsample_carries_gradient_to_parameters():
    d = pjtorch.distributions
    loc = pjtorch.tensor([1.0, 2.0], requires_grad=True)
    scale = pjtorch.tensor([0.5, 2.0], requires_grad=True)
    pjtorch.manual_seed(3)
    draws = d.Normal(loc, scale).rsample((4,))
    pjtorch.manual_seed(3)
    noise = pjtorch.randn(4, 2)
    draws.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [4.0, 4.0])
    np.testing.assert_allclose(scale.grad.numpy(), noise.sum(0).numpy(), rtol=1e-6)
    np.testing.assert_allclose(draws.detach().numpy(), (loc + noise * scale).detach().numpy(), rtol=1e-6)

    low = pjtorch.tensor(1.0, requires_grad=True)
    pjtorch.manual_seed(4)
    d.Uniform(low, 3.0).rsample((5,)).sum().backward()
    pjtorch.manual_seed(4)
    assert low.grad.item() == pytest.approx((1 - pjtorch.rand(5)).sum().item())
    lower = pjtorch.tensor([0.0, 1.0], requires_grad=True)
    d.MultivariateNormal(lower, pjtorch.eye(2)).rsample((3,)).sum().backward()
    np.testing.assert_allclose(lower.grad.numpy(), [3.0, 3.0])


def test_gamma_rsample_gradient_is_the_implicit_reparameterization():
    concentration = pjtorch.tensor([0.5, 2.0, 7.0], requires_grad=True)
    draws = pjtorch.distributions.Gamma(concentration, pjtorch.ones(3)).rsample()
    draws.sum().backward()
    expected = torch._standard_gamma_grad(torch.tensor([0.5, 2.0, 7.0]), torch.tensor(draws.detach().numpy()))
    np.testing.assert_allclose(concentration.grad.numpy(), expected.numpy(), rtol=1e-4)
    beta_param = pjtorch.tensor(2.0, requires_grad=True)
    pjtorch.distributions.Beta(beta_param, 3.0).rsample((4,)).sum().backward()
    assert beta_param.grad is not None and np.isfinite(beta_param.grad.item())


def test_manual_seed_makes_sampling_reproducible():
    d = pjtorch.distributions
    concentration = pjtorch.tensor([0.5, 2.0, 7.0])

    def draw():
        return [d.Normal(0.0, 1.0).sample((3,)), d.Gamma(concentration, 1.0).sample((2,)), d.Poisson(concentration).sample(),
                d.Binomial(10, pjtorch.tensor([0.2, 0.9])).sample((3,)), d.Categorical(pjtorch.ones(4)).sample((5,)),
                d.Dirichlet(concentration).sample(), d.Bernoulli(0.5).sample((6,))]

    pjtorch.manual_seed(5)
    first = draw()
    pjtorch.manual_seed(5)
    second = draw()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(first[1].numpy(), draw()[1].numpy())


MOMENTS = [
    lambda d: d.Gamma(3.0, 2.0),
    lambda d: d.Poisson(3.0),
    lambda d: d.Binomial(10, pjtorch.tensor(0.3)),
    lambda d: d.Beta(2.0, 3.0),
    lambda d: d.Laplace(1.0, 2.0),
    lambda d: d.Exponential(2.0),
    lambda d: d.Uniform(-1.0, 3.0),
    lambda d: d.LogNormal(0.0, 0.5),
    lambda d: d.Categorical(pjtorch.tensor([0.2, 0.3, 0.5])),
    lambda d: d.Bernoulli(0.3),
]


@pytest.mark.parametrize("index", range(len(MOMENTS)))
def test_draws_have_the_distribution_moments(index):
    dist = MOMENTS[index](pjtorch.distributions)
    # Beta draws a pair per sample: 2048 of them fill the same 4096-element kernel as the others.
    draws = dist.sample((2048,) if isinstance(dist, pjtorch.distributions.Beta) else (4096,)).double()
    if isinstance(dist, pjtorch.distributions.Categorical):
        np.testing.assert_allclose(np.bincount(draws.long().numpy(), minlength=3) / 4096, [0.2, 0.3, 0.5], atol=0.03)
        return
    mean, std = dist.mean.item(), dist.stddev.item()
    assert abs(draws.mean().item() - mean) < 5 * std / np.sqrt(len(draws))
    assert abs(draws.std().item() / std - 1) < 0.1


def test_multivariate_normal_draws_have_its_covariance():
    cov = pjtorch.tensor([[2.0, 0.5], [0.5, 1.0]])
    draws = pjtorch.distributions.MultivariateNormal(pjtorch.tensor([1.0, -1.0]), cov).sample((4096,))
    np.testing.assert_allclose(np.cov(draws.numpy().T), cov.numpy(), atol=0.1)
    np.testing.assert_allclose(draws.mean(0).numpy(), [1.0, -1.0], atol=0.06)


def test_enumerate_support_matches_torch():
    for build in (lambda lib: lib.distributions.Bernoulli(lib.tensor([0.1, 0.5])),
                  lambda lib: lib.distributions.Categorical(lib.ones(2, 3)),
                  lambda lib: lib.distributions.OneHotCategorical(lib.ones(2, 3)),
                  lambda lib: lib.distributions.Binomial(3, lib.tensor([0.1, 0.5]))):
        same(build(pjtorch).enumerate_support(), build(torch).enumerate_support())
        same(build(pjtorch).enumerate_support(False), build(torch).enumerate_support(False))


def test_torch_distributions_imports_under_the_alias(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(textwrap.dedent("""
        import torch
        import torch.distributions.normal
        from torch.distributions import Categorical, constraints
        from torch.distributions.kl import kl_divergence
        import pjtorch.distributions
        print(torch.distributions is pjtorch.distributions, torch.distributions.Normal is torch.distributions.normal.Normal)
        print(type(Categorical(torch.ones(2))), constraints.simplex, kl_divergence(torch.distributions.Normal(0., 1.),
              torch.distributions.Normal(0., 1.)))
    """), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pjtorch.run", str(script)], cwd=REPO_ROOT, capture_output=True,
                            text=True, timeout=120, env={"PYTHONPATH": str(REPO_ROOT), "PATH": "/usr/bin:/bin"})
    assert result.stdout.splitlines() == [
        "True True", "<class 'torch.distributions.categorical.Categorical'> Simplex() tensor(0.)"], result.stderr
