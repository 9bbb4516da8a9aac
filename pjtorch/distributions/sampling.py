"""Draws for the distributions: uniform and exponential ones as PyTorch's in-place samplers make them (so they
are PyTorch's values); Gamma, Poisson and Binomial, which pjtorch's factories lack, in JAX keyed from the default
generator's stream.

Each JAX draw takes its key from `pjtorch.default_generator`, so `manual_seed` makes them reproducible.
Gamma draws carry a gradient to the concentration by implicit reparameterization (JAX's
`random_gamma_grad`), which makes Gamma, Beta and Dirichlet `rsample` differentiable.
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

import pjtorch
from pjtorch.autograd import Function
from pjtorch.tensor import random, rng
from pjtorch.tensor.random import default_generator
from pjtorch.tensor.tensor import Tensor


def _key(seed_words, counter):
    return jax.random.fold_in(jax.random.wrap_key_data(seed_words, impl="threefry2x32"), counter)


@jax.jit
def _gamma(seed_words, counter, concentration):
    """The draws and their derivative in the concentration: one compilation serves sample and rsample."""
    sample = jax.random.gamma(_key(seed_words, counter), concentration, dtype=concentration.dtype)
    sample = jnp.maximum(sample, jnp.finfo(sample.dtype).tiny)
    return sample, jax.lax.random_gamma_grad(concentration, sample)


@jax.jit
def _poisson(seed_words, counter, rate):
    return jax.random.poisson(_key(seed_words, counter), rate).astype(rate.dtype)


@jax.jit
def _binomial(seed_words, counter, count, probs):
    return jax.random.binomial(_key(seed_words, counter), count, probs).astype(probs.dtype)


def _bucket(numel: int) -> int:
    """Powers of two from 4096 up: these kernels take seconds to compile, so small draws share one compilation."""
    return max(4096, 1 << max(0, numel - 1).bit_length())


def _flat(array, size: int):
    """`array` flattened and padded with ones (a valid value of every parameter here) to `size` elements."""
    flat = array.reshape(-1)
    return jnp.concatenate([flat, jnp.ones(size - flat.size, flat.dtype)])


def _draw(kernel, *params: Tensor):
    """Runs `kernel` on the next key of the default generator, elementwise over the (same-shaped) params."""
    shape = params[0].shape
    size = _bucket(params[0].numel())
    seed_words, counter = default_generator._next()
    flat = kernel(seed_words, counter, *(_flat(p._value(), size) for p in params))
    return jax.tree.map(lambda result: result[:params[0].numel()].reshape(shape), flat)


class _StandardGamma(Function):
    """Gamma(concentration, 1) draws whose backward is d(sample)/d(concentration) at the drawn sample."""

    @staticmethod
    def forward(ctx, concentration: Tensor) -> Tensor:
        sample, grad = _draw(_gamma, concentration)
        ctx.save_for_backward(Tensor._wrap(grad, concentration.device))
        return Tensor._wrap(sample, concentration.device)

    @staticmethod
    def backward(ctx, grad_output: Tensor) -> Tensor:
        (dsample,) = ctx.saved_tensors
        return grad_output * dsample


def uniform(shape: tuple, like: Tensor, low: float = 0.0) -> Tensor:
    """Uniform draws on [low, 1) with `like`'s dtype and device, made as PyTorch's `uniform_(low, 1)` makes them."""
    return pjtorch.empty(shape, dtype=like.dtype, device=like.device).uniform_(low, 1)


def exponential(shape: tuple, like: Tensor) -> Tensor:
    """Exp(1) draws with `like`'s dtype and device, made as PyTorch's `exponential_()` makes them."""
    return random.draws_like(pjtorch.empty(shape, dtype=like.dtype, device=like.device), rng.exponential, 1.0)


def standard_gamma(concentration: Tensor) -> Tensor:
    """One Gamma(concentration, 1) draw per element, differentiable in `concentration`."""
    return _StandardGamma.apply(concentration)


def poisson(rate: Tensor) -> Tensor:
    return Tensor._wrap(_draw(_poisson, rate), rate.device)


def binomial(count: Tensor, probs: Tensor) -> Tensor:
    return Tensor._wrap(_draw(_binomial, count, probs), probs.device)
