"""kl_divergence(p, q) with closed forms registered per (type(p), type(q)) pair by `register_kl`."""
from __future__ import annotations

from typing import Callable

import pjtorch
from pjtorch.nn import functional as F
from pjtorch.tensor.tensor import Tensor

from .bernoulli import Bernoulli
from .beta import Beta
from .categorical import Categorical
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exponential import Exponential
from .gamma import Gamma
from .independent import Independent
from .laplace import Laplace
from .one_hot_categorical import OneHotCategorical
from .uniform import Uniform
from .multivariate_normal import MultivariateNormal, _half_log_det, _solve_lower
from .normal import Normal
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
