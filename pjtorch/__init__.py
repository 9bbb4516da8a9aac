"""pjtorch: PyTorch's programming model, every operation an XLA-compiled JAX function.

`import pjtorch as torch` and write PyTorch. This module only re-exports; the layers live in
`pjtorch.tensor` (facade, dtypes, devices, factories), `pjtorch.ops` (pure JAX functions),
`pjtorch.dispatch` (the path between them) and `pjtorch.autograd` (graph and engine).
"""
import math as _math

import jax as _jax

# PyTorch's int64 and float64 are real 64-bit types; every op passes dtypes explicitly.
_jax.config.update("jax_enable_x64", True)
# PyTorch's CPU ops finish before they return (timing a CPU loop measures the work, as the seeds'
# benchmark does); JAX's inline CPU execution also halves small-op dispatch cost. GPU stays async.
_jax.config.update("jax_cpu_enable_async_dispatch", False)

from . import autograd, backends, cuda, version  # noqa: E402
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled  # noqa: E402,E501
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled  # noqa: E402
from .tensor import methods as _methods  # noqa: E402,F401
from .tensor.device import device, get_default_device, set_default_device  # noqa: E402
from .tensor.dtypes import operands_result_type as result_type  # noqa: E402
from .tensor.dtypes import (  # noqa: E402
    bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype, finfo, float, float16, float32, float64,
    can_cast, get_default_dtype, half, iinfo, int, int8, int16, int32, int64, long, promote_types, set_default_dtype,
    short, uint8,
)
from .tensor.factories import (  # noqa: E402
    arange, as_tensor, asarray, empty, empty_like, eye, from_numpy, full, full_like, linspace, logspace, ones,
    ones_like, tensor, torch_scalar_tensor as scalar_tensor, zeros, zeros_like,
)
from .tensor.extra_functions import bincount, fill, layout, sparse_coo, strided  # noqa: E402
from .tensor.extra_functions import (  # noqa: E402
    block_diag, bucketize, cartesian_prod, cdist, column_stack, combinations, corrcoef, cov, cross, diag, diag_embed,
    diagflat, diff, dstack, histc, isin, kron, meshgrid, mode, msort, rot90, searchsorted, trace, tril_indices,
    triu_indices,
)
from .tensor.extra_functions import (  # noqa: E402
    addbmm, addmv, addmv_, addr, adjoint, are_deterministic_algorithms_enabled, baddbmm, bartlett_window,
    blackman_window, broadcast_shapes, broadcast_tensors, chain_matmul, complex, cumulative_trapezoid, detach,
    diagonal_scatter, dist, frexp, get_float32_matmul_precision, get_num_interop_threads, get_num_threads, gradient,
    hamming_window, hann_window, histogram, index_reduce, inner, is_deterministic_algorithms_warn_only_enabled,
    kaiser_window, logdet, matrix_exp, mvlgamma, nanmedian, nanquantile, narrow_copy, pdist, polar, polygamma, put,
    quantile, ravel, renorm, select_scatter, set_float32_matmul_precision, set_num_interop_threads, set_num_threads,
    slice_scatter, split_with_sizes, trapezoid, trapz, typename, unique_consecutive, unravel_index,
    use_deterministic_algorithms, vander, vdot, view_as_complex, view_as_real,
)
from .tensor.extra_functions import split_with_sizes as unsafe_split_with_sizes  # noqa: E402
from .tensor.extra_functions import (  # noqa: E402
    cholesky, cholesky_inverse, cholesky_solve, igamma, igammac, lu_solve, lu_unpack, qr, svd, triangular_solve,
    unsafe_chunk, unsafe_split,
)
from .tensor.extra_functions import (  # noqa: E402
    empty_strided, is_warn_always_enabled, nonzero_static, set_warn_always, slice_copy,
)
from .tensor.extra_functions import torch_range as range  # noqa: E402
from .tensor.extra_functions import COPIES as _COPIES  # noqa: E402
from .tensor.functions import *  # noqa: E402,F401,F403
from .tensor.functions import UNARY_FUNCTIONS as _UNARY, BINARY_FUNCTIONS as _BINARY  # noqa: E402
from .tensor.indexing import index_put  # noqa: E402
from .tensor.printing import get_printoptions, set_printoptions  # noqa: E402
from .tensor.random import (  # noqa: E402
    Generator, bernoulli, default_generator, get_rng_state, initial_seed, manual_seed, multinomial, normal, rand,
    rand_like, randint, randint_like, randn, randn_like, randperm, seed, set_rng_state,
)
from .tensor.legacy import CPU_TYPES as _LEGACY_TYPES  # noqa: E402
from .tensor.size import Size  # noqa: E402
from .tensor.tensor import Tensor  # noqa: E402
from .tensor.views import (  # noqa: E402
    as_strided, broadcast_to, chunk, diagonal, dsplit, expand, flatten, hsplit, movedim, narrow, permute, reshape,
    select, split, squeeze, t_ as t, tensor_split, transpose, unbind, unflatten, unsqueeze, vsplit,
)
from .tensor.views import movedim as moveaxis, transpose as swapaxes, transpose as swapdims  # noqa: E402

globals().update({legacy.__name__: legacy for legacy in _LEGACY_TYPES.values()})  # torch.FloatTensor, ...
globals().update({name: fn for name, fn in {**_UNARY, **_BINARY}.items() if not name.endswith("_")})
globals().update({name: fn for name, fn in _UNARY.items() if name.endswith("_")})
globals().update({alias: globals()[name] for alias, name in _methods.ALIASES.items() if name in globals()})
# The in-place forms PyTorch also exports as functions (`torch.gcd_(a, b)`, `torch.arccos_(x)`).
globals().update({name: getattr(Tensor, name) for name in (
    "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_", "arctanh_", "fix_", "negative_", "gcd_", "lcm_",
    "ldexp_", "xlogy_", "index_put_", "resize_as_", "as_strided_") if hasattr(Tensor, name)})
e, pi, inf, nan, newaxis = _math.e, _math.pi, _math.inf, _math.nan, None
globals().update(_COPIES)

from . import amp, nn, optim, serialization, utils  # noqa: E402
from .cuda import amp as _cuda_amp  # noqa: E402,F401  (torch.cuda.amp, once torch.amp exists)
from .nn.functional import (  # noqa: E402
    adaptive_avg_pool1d, avg_pool1d, bilinear, channel_shuffle, conv1d, conv2d, conv3d, conv_tbc, conv_transpose1d,
    conv_transpose2d, conv_transpose3d, cosine_similarity, max_pool1d, max_pool2d, max_pool3d, native_channel_shuffle,
    pairwise_distance, pixel_shuffle, pixel_unshuffle, prelu, rrelu,
)
from .tensor.extra_functions import (  # noqa: E402
    adaptive_max_pool1d, batch_norm, binary_cross_entropy_with_logits, constant_pad_nd, dropout, embedding,
    group_norm, kl_div, layer_norm, margin_ranking_loss, max_pool1d_with_indices, poisson_nll_loss,
    triplet_margin_loss,
)
from . import linalg  # noqa: E402
from . import fft, special, testing  # noqa: E402
from . import compiler, func  # noqa: E402
from . import distributions  # noqa: E402
from . import accelerator, profiler, random  # noqa: E402
from . import _config as __config__  # noqa: E402
from ._absent_backends import mps, xpu  # noqa: E402
from .autograd import profiler as _autograd_profiler  # noqa: E402,F401  (torch.autograd.profiler)
from .cuda import OutOfMemoryError  # noqa: E402
from .compiler import compile  # noqa: E402
from .func import vmap  # noqa: E402
from .linalg import det, matrix_power  # noqa: E402
from .linalg import householder_product as orgqr  # noqa: E402
from .linalg import inv as inverse  # noqa: E402
from .tensor.return_types import make_return as _make_return  # noqa: E402
from .tensor import return_types  # noqa: E402


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    return linalg.pinv(input, rcond=rcond)


def slogdet(input: Tensor):
    """linalg.slogdet, under the older name PyTorch's result type carries (`torch.return_types.slogdet`)."""
    sign, logabsdet = linalg.slogdet(input)
    return _make_return("slogdet", sign=sign, logabsdet=logabsdet)
from .amp import autocast  # noqa: E402
from .serialization import load, save  # noqa: E402

__version__ = version.__version__
__pjtorch_version__ = version.pjtorch_version
