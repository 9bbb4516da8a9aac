"""kl_divergence(p, q) with closed forms registered per (type(p), type(q)) pair by `register_kl`."""
from __future__ import annotations

import math
from typing import Callable

import pjtorch
from pjtorch.nn import functional as F
from pjtorch.tensor.tensor import Tensor

from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel, _EULER_GAMMA
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .log_normal import LogNormal
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform
from .multivariate_normal import MultivariateNormal, _half_log_det, _solve_lower
from .normal import Normal
from .binomial import Binomial
from .poisson import Poisson
from .utils import sum_rightmost

_KL_REGISTRY: dict = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator registering `fn(p, q)` as KL(p || q) for instances of these (sub)classes."""
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fn: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fn
        return fn

    return decorator


def _lookup(type_p: type, type_q: type) -> Callable | None:
    """The registered pair closest to (type_p, type_q) by MRO distance."""
    p_mro, q_mro = type_p.__mro__, type_q.__mro__
    matches = [(p_mro.index(p) + q_mro.index(q), fn) for (p, q), fn in _KL_REGISTRY.items()
               if p in p_mro and q in q_mro]
    return min(matches, key=lambda match: match[0])[1] if matches else None


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """KL(p || q), batched over the distributions' batch shape."""
    fn = _lookup(type(p), type(q))
    if fn is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                                  f"{type(q).__name__}")
    return fn(p, q)


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p: ExponentialFamily, q: ExponentialFamily) -> Tensor:
    """Reached only by pairs of families without their own closed form."""
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot"
                                  + " " * 29 + "be computed using Bregman divergences")
    raise NotImplementedError(f"No KL(p || q) is implemented for p type {type(p).__name__} and q type "
                              f"{type(q).__name__}")


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    shift = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + shift - 1 - var_ratio.log())


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    terms = p.probs * (p.logits - q.logits)
    terms = terms.masked_fill((q.probs == 0).expand_as(terms), float("inf"))
    return terms.masked_fill((p.probs == 0).expand_as(terms), 0).sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    heads = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    heads = heads.masked_fill(q.probs == 0, float("inf")).masked_fill(p.probs == 0, 0)
    tails = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    tails = tails.masked_fill(q.probs == 1, float("inf")).masked_fill(p.probs == 1, 0)
    return heads + tails


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with" + " " * 26 +
                         "different event shapes cannot be computed")
    batch = pjtorch.broadcast_shapes(p.batch_shape, q.batch_shape)
    n = p.event_shape[0]
    p_tril, q_tril = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    q_batched = q_tril.expand(batch + (n, n))
    trace = _solve_lower(q_batched, p_tril.expand(batch + (n, n))).pow(2).flatten(-2).sum(-1)
    shift = _solve_lower(q_batched, (q.loc - p.loc).expand(batch + (n,)).unsqueeze(-1)).pow(2).flatten(-2).sum(-1)
    return _half_log_det(q_tril) - _half_log_det(p_tril) + 0.5 * (trace + shift - n)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return result.masked_fill((q.low > p.low) | (q.high < p.high), float("inf"))


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    p_total = p.concentration1 + p.concentration0
    q_total = q.concentration1 + q.concentration0
    log_norm_q = q.concentration1.lgamma() + q.concentration0.lgamma() + p_total.lgamma()
    log_norm_p = p.concentration1.lgamma() + p.concentration0.lgamma() + q_total.lgamma()
    return (log_norm_q - log_norm_p + (p.concentration1 - q.concentration1) * p.concentration1.digamma()
            + (p.concentration0 - q.concentration0) * p.concentration0.digamma()
            + (q_total - p_total) * p_total.digamma())


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    return (q.concentration * (p.rate / q.rate).log() + q.concentration.lgamma() - p.concentration.lgamma()
            + (p.concentration - q.concentration) * p.concentration.digamma()
            + (q.rate - p.rate) * (p.concentration / p.rate))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    return -rate_ratio.log() + rate_ratio - 1


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    distance = (p.loc - q.loc).abs()
    return -scale_ratio.log() + distance / q.scale + scale_ratio * (-distance / p.scale).exp() - 1


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    p_total, q_total = p.concentration.sum(-1), q.concentration.sum(-1)
    log_norms = p_total.lgamma() - q_total.lgamma() - (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    shifts = (p.concentration - q.concentration) * (p.concentration.digamma() - p_total.digamma().unsqueeze(-1))
    return log_norms + shifts.sum(-1)


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(LogNormal, LogNormal)
def _kl_lognormal_lognormal(p: LogNormal, q: LogNormal) -> Tensor:
    """exp is a bijection, so the divergence is the base Normals'."""
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p: Bernoulli, q: Poisson) -> Tensor:
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    """n times the Bernoulli divergence; infinite where p has more trials than q (q cannot reach those counts)."""
    if (p.total_count < q.total_count).any():
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    per_trial = p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p()
    result = p.total_count * per_trial
    return result.masked_fill(p.total_count > q.total_count, float("inf"))


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p: Normal, q: Laplace) -> Tensor:
    """-H(p) + log(2 b) + E|X - loc_q| / b, with E|X - m| the folded normal's mean."""
    shift = p.loc - q.loc
    folded_mean = (math.sqrt(2 / math.pi) * p.scale * (-0.5 * (shift / p.scale).pow(2)).exp()
                   + shift * (shift / (math.sqrt(2) * p.scale)).erf())
    return -(p.scale / q.scale).log() + folded_mean / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


# ----- KL(p || q) = -H(p) + cross-entropy(p, q), with the cross-entropy from p's moments ---------------------

def _moments(p: Distribution) -> tuple:
    """(E[X], E[X^2], E[log X]) under p, for the families whose cross-entropies below need them."""
    if isinstance(p, Beta):
        total = p.concentration1 + p.concentration0
        return p.mean, p.variance + p.mean.pow(2), p.concentration1.digamma() - total.digamma()
    if isinstance(p, Exponential):
        return p.rate.reciprocal(), 2 * p.rate.pow(-2), -_EULER_GAMMA - p.rate.log()
    if isinstance(p, Gamma):
        return p.mean, p.variance + p.mean.pow(2), p.concentration.digamma() - p.rate.log()
    if isinstance(p, Uniform):
        mean_log = (pjtorch.xlogy(p.high, p.high) - p.high - pjtorch.xlogy(p.low, p.low) + p.low) / (p.high - p.low)
        return p.mean, p.variance + p.mean.pow(2), mean_log
    return p.mean, p.variance + p.mean.pow(2), None  # Laplace


def _cross_normal(q: Normal, mean, second, _) -> Tensor:
    return (q.scale * math.sqrt(2 * math.pi)).log() + (second - 2 * q.loc * mean + q.loc.pow(2)) / (2 * q.variance)


def _cross_exponential(q: Exponential, mean, second, mean_log) -> Tensor:
    return -q.rate.log() + q.rate * mean


def _cross_gamma(q: Gamma, mean, second, mean_log) -> Tensor:
    return (q.concentration.lgamma() - q.concentration * q.rate.log() - (q.concentration - 1) * mean_log
            + q.rate * mean)


_CROSS_ENTROPY = {Normal: _cross_normal, Exponential: _cross_exponential, Gamma: _cross_gamma}


def _for(table: dict, d: Distribution) -> Callable:
    """The entry of `table` for d's family (a Chi2 is a Gamma)."""
    return next(entry for family, entry in table.items() if isinstance(d, family))


def _by_moments(p: Distribution, q: Distribution) -> Tensor:
    return -p.entropy() + _for(_CROSS_ENTROPY, q)(q, *_moments(p))


def _infinite(p: Distribution, q: Distribution) -> Tensor:
    """q gives no mass to part of p's support."""
    return pjtorch.full_like(p.mean, float("inf"))


_MOMENT_PAIRS = [(Beta, Normal), (Beta, Exponential), (Beta, Gamma), (Exponential, Normal), (Exponential, Gamma),
                 (Gamma, Normal), (Gamma, Exponential), (Laplace, Normal), (Uniform, Normal), (Gumbel, Normal)]
_INFINITE_PAIRS = [(Normal, Beta), (Normal, Exponential), (Normal, Gamma), (Normal, Uniform), (Laplace, Beta),
                   (Laplace, Exponential), (Laplace, Gamma), (Laplace, Uniform), (Exponential, Beta),
                   (Exponential, Uniform), (Gamma, Beta), (Gamma, Uniform), (Poisson, Bernoulli),
                   (Poisson, Binomial), (Gumbel, Beta), (Gumbel, Exponential), (Gumbel, Gamma), (Gumbel, Uniform)]
for _pair in _MOMENT_PAIRS:
    register_kl(*_pair)(_by_moments)
for _pair in _INFINITE_PAIRS:
    register_kl(*_pair)(_infinite)


@register_kl(Uniform, Exponential)
@register_kl(Uniform, Gamma)
def _kl_uniform_positive(p: Uniform, q: Distribution) -> Tensor:
    """Infinite where p reaches below 0, outside q's support."""
    return _by_moments(p, q).masked_fill(p.low < 0, float("inf"))


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p: Uniform, q: Beta) -> Tensor:
    """-H(p) + log B(a, b) - (a - 1) E[log X] - (b - 1) E[log(1 - X)], infinite where p leaves [0, 1]."""
    mean_log = _moments(p)[2]
    mirrored = Uniform(1 - p.high, 1 - p.low, validate_args=False)
    log_beta = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = (-p.entropy() + log_beta - (q.concentration1 - 1) * mean_log
              - (q.concentration0 - 1) * _moments(mirrored)[2])
    return result.masked_fill((p.high > 1) | (p.low < 0), float("inf"))


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p: Beta, q: Uniform) -> Tensor:
    result = -p.entropy() + (q.high - q.low).log()
    return result.masked_fill((q.low > 0) | (q.high < 1), float("inf"))


# E[exp(-t X)] under p, for the cross-entropy to a Gumbel.
_EXP_MOMENT = {
    Exponential: lambda p, t: p.rate / (p.rate + t),
    Gamma: lambda p, t: (p.rate / (p.rate + t)).pow(p.concentration),
    Normal: lambda p, t: (-t * p.loc + 0.5 * (t * p.scale).pow(2)).exp(),
    Uniform: lambda p, t: ((-t * p.low).exp() - (-t * p.high).exp()) / (t * (p.high - p.low)),
}


@register_kl(Exponential, Gumbel)
@register_kl(Gamma, Gumbel)
@register_kl(Normal, Gumbel)
@register_kl(Uniform, Gumbel)
def _kl_to_gumbel(p: Distribution, q: Gumbel) -> Tensor:
    """-H(p) + log scale + E[z] + E[exp(-z)] for z = (X - loc) / scale."""
    t = q.scale.reciprocal()
    return (-p.entropy() + q.scale.log() + (p.mean - q.loc) * t
            + (q.loc * t).exp() * _for(_EXP_MOMENT, p)(p, t))


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    ratio = p.scale / q.scale
    return (-ratio.log() + (p.loc - q.loc) / q.scale + ratio * _EULER_GAMMA
            + ((q.loc - p.loc) / q.scale + (1 + ratio).lgamma()).exp() - (1 + _EULER_GAMMA))


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p: Geometric, q: Geometric) -> Tensor:
    """-H(p) - E[X] log(1 - q) - log q, with E[X] = 1 / p - 1."""
    return -p.entropy() - (-q.probs).log1p() * (1 / p.probs - 1) - q.probs.log()


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    return (((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)) / (4 * p.scale * q.scale)).log()


def _different_transforms(p: Distribution, q: Distribution) -> Tensor:
    """PyTorch's bare error where two transformed distributions' transforms differ."""
    raise NotImplementedError


_TRANSFORMED = (LogNormal, HalfNormal, Gumbel)  # PyTorch's transformed distributions: KL only for equal transforms
for _p in _TRANSFORMED:
    for _q in _TRANSFORMED:
        if _p is not _q:
            register_kl(_p, _q)(_different_transforms)
