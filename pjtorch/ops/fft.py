"""PyTorch's three FFT primitives as pure JAX functions; torch.fft's functions compose them (pjtorch/fft.py).

Each takes its dims and its normalization already in JAX's terms ("backward", "ortho", "forward" for the direction
the JAX transform runs), so padding, conjugation and the swapped norms of hfft/ihfft stay in the composites, where
PyTorch records them as their own nodes. Derivatives are jax.vjp, as for every op.
"""
from __future__ import annotations

import jax.numpy as jnp

from .registry import Op, SAVES_NOTHING


def _c2c(x, axes, forward, norm):
    transform = jnp.fft.fftn if forward else jnp.fft.ifftn
    return transform(x, axes=axes, norm=norm)


def _r2c(x, axes, onesided, norm):
    """The onesided (rfftn) half, or the full spectrum PyTorch's fft gives a real input."""
    if onesided:
        return jnp.fft.rfftn(x, axes=axes, norm=norm)
    return jnp.fft.fftn(x.astype(jnp.result_type(x.dtype, jnp.complex64)), axes=axes, norm=norm)


def _c2r(x, axes, last_size, norm):
    sizes = tuple(x.shape[a] for a in axes[:-1]) + (last_size,)
    return jnp.fft.irfftn(x, s=sizes, axes=axes, norm=norm)


FFT_C2C = Op("fft_c2c", _c2c, grad_name="FftC2CBackward0", promote="none", saves=SAVES_NOTHING)
FFT_R2C = Op("fft_r2c", _r2c, grad_name="FftR2CBackward0", promote="none", saves=SAVES_NOTHING)
FFT_C2R = Op("fft_c2r", _c2r, grad_name="FftC2RBackward0", promote="none", saves=SAVES_NOTHING)
