"""pjtorch: PyTorch's programming model, every operation an XLA-compiled JAX function.

`import pjtorch as torch` and write PyTorch. This module only re-exports; the layers live in
`pjtorch.tensor` (facade, dtypes, devices, factories), `pjtorch.ops` (pure JAX functions),
`pjtorch.dispatch` (the path between them) and `pjtorch.autograd` (graph and engine).
"""
import jax as _jax

# PyTorch's int64 and float64 are real 64-bit types; every op passes dtypes explicitly.
_jax.config.update("jax_enable_x64", True)
# PyTorch's CPU ops finish before they return (timing a CPU loop measures the work, as the seeds'
# benchmark does); JAX's inline CPU execution also halves small-op dispatch cost. GPU stays async.
_jax.config.update("jax_cpu_enable_async_dispatch", False)

from . import autograd, backends, cuda, version  # noqa: E402
from .autograd import enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled, no_grad, set_grad_enabled  # noqa: E402,E501
from .tensor import methods as _methods  # noqa: E402,F401
from .tensor.device import device  # noqa: E402
from .tensor.dtypes import operands_result_type as result_type  # noqa: E402
from .tensor.dtypes import (  # noqa: E402
    bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype, finfo, float, float16, float32, float64,
    get_default_dtype, half, iinfo, int, int8, int16, int32, int64, long, promote_types, set_default_dtype, short,
    uint8,
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
from .tensor.functions import *  # noqa: E402,F401,F403
from .tensor.functions import UNARY_FUNCTIONS as _UNARY, BINARY_FUNCTIONS as _BINARY  # noqa: E402
from .tensor.indexing import index_put  # noqa: E402
from .tensor.printing import get_printoptions, set_printoptions  # noqa: E402
from .tensor.random import (  # noqa: E402
    Generator, bernoulli, default_generator, get_rng_state, initial_seed, manual_seed, multinomial, normal, rand,
    rand_like, randint, randint_like, randn, randn_like, randperm, seed, set_rng_state,
)
from .tensor.size import Size  # noqa: E402
from .tensor.tensor import Tensor  # noqa: E402
from .tensor.views import (  # noqa: E402
    as_strided, broadcast_to, chunk, diagonal, dsplit, expand, flatten, hsplit, movedim, narrow, permute, reshape,
    select, split, squeeze, t_ as t, tensor_split, transpose, unbind, unflatten, unsqueeze, vsplit,
)
from .tensor.views import movedim as moveaxis, transpose as swapaxes, transpose as swapdims  # noqa: E402

globals().update({name: fn for name, fn in {**_UNARY, **_BINARY}.items() if not name.endswith("_")})
globals().update({name: fn for name, fn in _UNARY.items() if name.endswith("_")})
globals().update({alias: globals()[name] for alias, name in _methods.ALIASES.items() if name in globals()})

from . import amp, nn, optim, serialization, utils  # noqa: E402
from . import linalg  # noqa: E402
from .linalg import det, matrix_power  # noqa: E402
from .linalg import inv as inverse  # noqa: E402
from .tensor.return_types import make_return as _make_return  # noqa: E402


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
