"""torch.fft: discrete Fourier transforms, composed as PyTorch composes them.

The three primitives (complex-to-complex, real-to-complex, complex-to-real) are ops in `pjtorch.ops.fft`; resizing
to `n`/`s` (zero padding or slicing), the complex cast and the conjugations of ifft/hfft/ihfft are ordinary pjtorch
ops here, so each result's graph has the nodes PyTorch records.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from . import dispatch
from .ops import fft as fft_ops
from .tensor import dtypes
from .tensor.extra_functions import _name as _dtype_name
from .tensor.extra_functions import _static, constant_pad_nd
from .tensor.factories import tensor as _tensor
from .tensor.tensor import Tensor, wrap_dim
from .tensor.views import wrap_dim_of_dimensioned

__all__ = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
           "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

# PyTorch's norm names mean the same scaling as JAX's, for the direction the user asked for; hfft and ihfft run
# the opposite transform, so they pass the opposite name.
_NORMS = {None: "backward", "backward": "backward", "ortho": "ortho", "forward": "forward"}
_OPPOSITE = {"backward": "forward", "ortho": "ortho", "forward": "backward"}


# ----- arguments ------------------------------------------------------------------------------------------

def _norm(norm, opposite: bool = False) -> str:
    if norm not in _NORMS:
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return _OPPOSITE[_NORMS[norm]] if opposite else _NORMS[norm]


def _floating(input: Tensor) -> Tensor:
    """Integers and bools become the default float; half precision has no CPU FFT in PyTorch."""
    category = input.dtype.category
    if category < dtypes.FLOATING:
        return input.to(dtypes.get_default_dtype())
    if input.dtype.itemsize < 4 or (category == dtypes.COMPLEX and input.dtype.itemsize < 8):
        raise RuntimeError(f"Unsupported dtype {_dtype_name(input.dtype)}")
    return input


def _real(input: Tensor, message: str) -> Tensor:
    input = _floating(input)
    if input.is_complex():
        raise RuntimeError(message.format(_dtype_name(input.dtype)))
    return input


def _complex(input: Tensor) -> Tensor:
    input = _floating(input)
    return input if input.is_complex() else input.to(input.dtype.to_complex())


def _dims(input: Tensor, s, dim) -> tuple:
    """(dims, sizes) for the n-dimensional transforms, checked in PyTorch's order: sizes None where the input's own
    size is kept."""
    if dim is not None:
        dims = tuple(wrap_dim(d, input.ndim) for d in dim)
        if len(set(dims)) != len(dims):
            raise RuntimeError("FFT dims must be unique")
    if s is None:
        return (dims if dim is not None else tuple(range(input.ndim))), (None,) * (input.ndim if dim is None
                                                                                  else len(dims))
    if dim is not None and len(s) != len(dims):
        raise RuntimeError("When given, dim and shape arguments must have the same length")
    if len(s) > input.ndim:
        raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has {input.ndim} dimensions.")
    if dim is None:
        dims = tuple(range(input.ndim - len(s), input.ndim))
    return dims, tuple(None if n == -1 else n for n in s)


def _some(dims: tuple, name: str) -> tuple:
    if not dims:
        raise RuntimeError(f"{name} must transform at least one axis")
    return dims


def _one_dim(input: Tensor, dim: int) -> tuple:
    return (wrap_dim_of_dimensioned(dim, input.ndim),)


def _resize(input: Tensor, dims: tuple, sizes: tuple) -> Tensor:
    """Slices each dim longer than its size, then zero-pads the shorter ones (PyTorch's Slice / ConstantPadNd)."""
    for d, n in zip(dims, sizes):
        if (n if n is not None else input.shape[d]) < 1:
            raise RuntimeError(f"Invalid number of data points ({n if n is not None else input.shape[d]}) specified")
        if n is not None and n < input.shape[d]:
            input = input.narrow(d, 0, n)
    pad = [0] * (2 * input.ndim)
    for d, n in zip(dims, sizes):
        if n is not None and n > input.shape[d]:
            pad[2 * (input.ndim - 1 - d) + 1] = n - input.shape[d]
    return constant_pad_nd(input, pad) if any(pad) else input


# ----- the primitives ---------------------------------------------------------------------------------------

def _c2c(input: Tensor, dims: tuple, forward: bool, norm: str) -> Tensor:
    return dispatch.apply(fft_ops.FFT_C2C, (input,), _static(axes=dims, forward=forward, norm=norm))


def _r2c(input: Tensor, dims: tuple, onesided: bool, norm: str) -> Tensor:
    return dispatch.apply(fft_ops.FFT_R2C, (input,), _static(axes=dims, onesided=onesided, norm=norm))


def _c2r(input: Tensor, dims: tuple, sizes: tuple, norm, opposite: bool = False) -> Tensor:
    """The real inverse: `sizes[-1]` (default 2 * (m - 1)) is the last dim's output length."""
    last = sizes[-1] if sizes[-1] is not None else 2 * (input.shape[dims[-1]] - 1)
    if last < 1:
        raise RuntimeError(f"Invalid number of data points ({last}) specified")
    input = _resize(input, dims, sizes[:-1] + (last // 2 + 1,))
    return dispatch.apply(fft_ops.FFT_C2R, (input,), _static(axes=dims, last_size=last, norm=_norm(norm, opposite)))


# ----- one dimension ------------------------------------------------------------------------------------------

def fft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """A real input takes the real-to-complex path with the full spectrum, as PyTorch's does."""
    input, dims = _floating(input), _one_dim(input, dim)
    input, norm = _resize(input, dims, (n,)), _norm(norm)
    return _c2c(input, dims, True, norm) if input.is_complex() else _r2c(input, dims, False, norm)


def ifft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """For a real input: the conjugate of the forward transform, scaled as the inverse."""
    input, dims = _floating(input), _one_dim(input, dim)
    input = _resize(input, dims, (n,))
    if input.is_complex():
        return _c2c(input, dims, False, _norm(norm))
    return _r2c(input, dims, False, _norm(norm, opposite=True)).conj()


def rfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    input = _real(input, "rfft expects a real input tensor, but got {}")
    dims = _one_dim(input, dim)
    input = _resize(input, dims, (n,))
    return _r2c(input, dims, True, _norm(norm))


def irfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    input, dims = _complex(input), _one_dim(input, dim)
    return _c2r(input, dims, (n,), norm)


def hfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    """The real spectrum of a Hermitian signal: irfft of its conjugate, with the forward scaling."""
    input, dims = _complex(input), _one_dim(input, dim)
    return _c2r(input.conj(), dims, (n,), norm, opposite=True)


def ihfft(input: Tensor, n=None, dim: int = -1, norm=None) -> Tensor:
    input = _real(input, "ihfft expects a real input tensor, but got {}")
    dims = _one_dim(input, dim)
    input = _resize(input, dims, (n,))
    return _r2c(input, dims, True, _norm(norm, opposite=True)).conj()


# ----- n dimensions -----------------------------------------------------------------------------------------

def _complex_n(input: Tensor, s, dim, norm, forward: bool) -> Tensor:
    input = _complex(input)
    dims, sizes = _dims(input, s, dim)
    input = _resize(input, dims, sizes)
    return _c2c(input, dims, forward, _norm(norm))


def fftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _complex_n(input, s, dim, norm, True)


def ifftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    return _complex_n(input, s, dim, norm, False)


def rfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    input = _real(input, "rfftn expects a real-valued input tensor, but got {}")
    dims, sizes = _dims(input, s, dim)
    input = _resize(input, _some(dims, "rfftn"), sizes)
    return _r2c(input, dims, True, _norm(norm))


def irfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    input = _complex(input)
    dims, sizes = _dims(input, s, dim)
    return _c2r(input, _some(dims, "irfftn"), sizes, norm)


def hfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    input = _complex(input)
    dims, sizes = _dims(input, s, dim)
    return _c2r(input.conj(), _some(dims, "hfftn"), sizes, norm, opposite=True)


def ihfftn(input: Tensor, s=None, dim=None, norm=None) -> Tensor:
    """The onesided transform of the last dim, conjugated, then the inverse transform of the others (a lazy conj()
    when there are none, as in PyTorch)."""
    input = _real(input, "Only supports floating-point dtypes, but found: {}")
    dims, sizes = _dims(input, s, dim)
    input = _resize(input, _some(dims, "ihfftn"), sizes)
    half = _r2c(input, dims[-1:], True, _norm(norm, opposite=True))
    if len(dims) == 1:
        return half.conj()
    return _c2c(half.conj_physical(), dims[:-1], False, _norm(norm))


def _two_dims(function):
    """The 2-D form: the n-D function over the last two dims by default."""
    def two(input: Tensor, s=None, dim=(-2, -1), norm=None) -> Tensor:
        return function(input, s, dim, norm)

    two.__name__ = function.__name__[:-1] + "2"
    return two


fft2, ifft2, rfft2, irfft2, hfft2, ihfft2 = map(_two_dims, (fftn, ifftn, rfftn, irfftn, hfftn, ihfftn))


# ----- helpers --------------------------------------------------------------------------------------------

def _frequencies(function: str, values: np.ndarray, n: int, d: float, dtype, device, requires_grad: bool,
                 out) -> Tensor:
    """values * (1 / (n * d)), computed in the result dtype as PyTorch's arange-then-multiply is (so a zero
    n * d gives nan and infinities)."""
    dtype = dtype or (out.dtype if out is not None else dtypes.get_default_dtype())
    if dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"{function} requires a floating point or complex dtype")
    step = math.inf if n * d == 0 else 1.0 / (n * d)
    with np.errstate(invalid="ignore"):
        scaled = values.astype(dtype.jax) * dtype.jax.type(step)
    return _into(function, out, _tensor(scaled, dtype=dtype, device=device, requires_grad=requires_grad))


def _count(n: int) -> None:
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")


def fftfreq(n: int, d: float = 1.0, *, out=None, dtype=None, layout=None, device=None,
            requires_grad: bool = False) -> Tensor:
    _count(n)
    values = np.arange(n)
    values[(n + 1) // 2:] -= n
    return _frequencies("fftfreq", values, n, d, dtype, device, requires_grad, out)


def rfftfreq(n: int, d: float = 1.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    length = int(n / 2) + 1  # C's truncating division, as PyTorch's: rfftfreq(-1) is [-0.]
    _count(length)
    return _frequencies("rfftfreq", np.arange(length), n, d, dtype, device, requires_grad, out)


def _into(function: str, out, result: Tensor, conjugated: bool = False) -> Tensor:
    """`out=`: of the result's kind (complex or floating), resized and filled; where PyTorch's result is a
    conjugate view (`conjugated`), of exactly its dtype."""
    if out is None:
        return result
    if result.is_complex() and not out.is_complex():
        raise RuntimeError(f"{function} expects a complex output tensor, but got {_dtype_name(out.dtype)}")
    if not result.is_complex() and (out.is_complex() or out.dtype.category < dtypes.FLOATING):
        raise RuntimeError(f"{function} expects a floating point output tensor, but got {_dtype_name(out.dtype)}")
    if conjugated and out.dtype is not result.dtype:
        raise RuntimeError(f"Found dtype {_dtype_name(out.dtype)} but expected {_dtype_name(result.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(result.shape)
    out.copy_(result)
    return out


_CONJUGATED = frozenset({"ifft", "ihfft"})  # conj() of a real input's forward transform


def _with_out(function):
    """`function` taking PyTorch's keyword-only `out=` as well."""
    @functools.wraps(function)
    def run(*args, out=None, **kwargs) -> Tensor:
        input = args[0] if args else kwargs.get("input")
        conjugated = function.__name__ in _CONJUGATED and isinstance(input, Tensor) and not input.is_complex()
        return _into(function.__name__, out, function(*args, **kwargs), conjugated)

    return run


def _shift(input: Tensor, dim, inverse: bool) -> Tensor:
    """A roll by half of each dim; with no dims (a 0-dim input) it is roll's own "`shifts` required" error."""
    dims = tuple(range(input.ndim)) if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
    dims = tuple(wrap_dim(d, input.ndim) for d in dims)
    if not dims:
        raise RuntimeError("`shifts` required")
    shifts = tuple((input.shape[d] + inverse) // 2 for d in dims)
    return input.roll(shifts, dims)


def fftshift(input: Tensor, dim=None) -> Tensor:
    return _shift(input, dim, False)


def ifftshift(input: Tensor, dim=None) -> Tensor:
    return _shift(input, dim, True)


fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, rfftn, irfftn, hfftn, ihfftn, fft2, ifft2, rfft2, irfft2, hfft2, \
    ihfft2 = map(_with_out, (fft, ifft, rfft, irfft, hfft, ihfft, fftn, ifftn, rfftn, irfftn, hfftn, ihfftn, fft2, ifft2,
                             rfft2, irfft2, hfft2, ihfft2))
