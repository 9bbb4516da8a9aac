"""`torch.nn.utils.parametrizations`: orthogonal, weight_norm and spectral_norm as parametrizations, so the
constrained weight is recomputed from `parametrizations.<name>.original*` on every access."""
from __future__ import annotations

from enum import Enum, auto

from ... import dispatch, linalg
from ...autograd import grad_mode
from ...ops.registry import SAVES_NOTHING, Op
from ...tensor import factories, functions, random
from ...tensor.dtypes import finfo
from ...tensor.tensor import Tensor
from .. import functional as F
from .._utils import static
from ..modules.extra import ConvTranspose1d, ConvTranspose2d, ConvTranspose3d
from ..modules.module import Module
from . import parametrize
from .weight_norm import _weight_norm, norm_except_dim

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]

def _geqrf(x):
    """LAPACK's compact QR (reflectors below the diagonal, R on and above it); only needed without autograd. JAX
    has it only in a private module, imported here so that a JAX which moves it breaks this path alone."""
    from jax._src.lax.linalg import geqrf

    return geqrf(x)


GEQRF = Op("geqrf", _geqrf, saves=SAVES_NOTHING, promote="none")


def _householder_product(a: Tensor, tau: Tensor) -> Tensor:
    """`torch.linalg.householder_product` from differentiable ops: the first k columns of H_1 ... H_k, with
    H_i = I - tau_i v_i v_i^H and v_i the i-th column of `a` below a unit diagonal."""
    n, k = a.shape[-2], a.shape[-1]
    eye = factories.eye(n, k, dtype=a.dtype)
    reflectors = a.tril(-1) + eye
    q = eye.expand(*a.shape)
    for i in reversed(range(k)):
        v = reflectors[..., i:i + 1]
        q = q - tau[..., i:i + 1].unsqueeze(-1) * (v @ (v.mH @ q))
    return q


def _is_orthogonal(q: Tensor) -> bool:
    n, k = q.shape[-2], q.shape[-1]
    eps = 10.0 * n * finfo(q.dtype).eps
    return bool((q.mH @ q).allclose(factories.eye(k, dtype=q.dtype), atol=eps))


def _make_orthogonal(a: Tensor) -> Tensor:
    """The Q of a's QR decomposition with R's diagonal made positive."""
    q, r = linalg.qr(a)
    return q * r.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained matrix to an orthogonal one (times the `base` buffer under trivialization)."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X, n, k = X.mT, k, n
        if self.orthogonal_map == _OrthMaps.householder:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            Q = _householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            X = X.tril()
            if n != k:
                X = functions.cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = A.matrix_exp()
            else:
                eye = factories.eye(n, dtype=A.dtype)
                Q = linalg.solve(eye.add(A, alpha=-0.5), eye.add(A, alpha=0.5))
            Q = Q[..., :k]
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        with grad_mode.no_grad():
            Q_init = Q
            n, k = Q.shape[-2], Q.shape[-1]
            transpose = n < k
            if transpose:
                Q, n, k = Q.mT, k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map != _OrthMaps.householder:
                    raise NotImplementedError("It is not possible to assign to the matrix exponential or the Cayley "
                                              "parametrizations when use_trivialization=False.")
                A, tau = dispatch.apply(GEQRF, (Q,), static())
                diag = A.diagonal(dim1=-2, dim2=-1)
                diag.copy_(diag.sign() * (1 - 2 * (tau == 0.0).to(diag.dtype)))
                return A.mT if transpose else A
            if n == k:
                Q = Q.clone() if _is_orthogonal(Q) else _make_orthogonal(Q)
            else:
                noise = random.randn(*(tuple(Q.shape[:-2]) + (n, n - k)), dtype=Q.dtype)
                Q = _make_orthogonal(functions.cat([Q, noise], dim=-1))
            self.base = Q
            neg_eye = factories.zeros_like(Q_init)
            neg_eye.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
            return neg_eye


def _tensor_named(module: Module, name: str) -> Tensor:
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    return weight


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Constrain `module.<name>` (a matrix or batch of them) to orthogonal/unitary matrices."""
    weight = _tensor_named(module, name)
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", "householder". '
                         f"Got: {orthogonal_map}")
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


class _WeightNorm(Module):
    """weight = g * v / ||v||, with originals original0 = g and original1 = v."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return _weight_norm(weight_v, weight_g, self.dim)

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return norm_except_dim(weight, 2, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


class _SpectralNorm(Module):
    """weight / sigma, sigma estimated by power iteration on the `_u`, `_v` buffers (one step per training
    forward); 1-D weights are simply normalised."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight)
            h, w = weight_mat.shape
            self.register_buffer("_u", F.normalize(weight_mat.new_empty(h).normal_(0, 1), dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(weight_mat.new_empty(w).normal_(0, 1), dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.dim()) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        with grad_mode.no_grad():
            for _ in range(n_power_iterations):
                self._u.copy_(F.normalize(weight_mat.mv(self._v), dim=0, eps=self.eps))
                self._v.copy_(F.normalize(weight_mat.mH.mv(self._u), dim=0, eps=self.eps))

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        sigma = self._u.clone().vdot(weight_mat.mv(self._v.clone()))
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_dim(module: Module, dim: int | None) -> int:
    """PyTorch's default: dim 1 (output channels) for transposed convolutions, 0 otherwise."""
    if dim is not None:
        return dim
    return 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d)) else 0


def spectral_norm(module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12,
                  dim: int | None = None) -> Module:
    weight = _tensor_named(module, name)
    parametrize.register_parametrization(
        module, name, _SpectralNorm(weight, n_power_iterations, spectral_dim(module, dim), eps))
    return module
