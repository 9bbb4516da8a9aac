"""Matrix products and linear algebra as pure JAX functions.

Products run in the input dtype with the highest precision XLA offers on the device, matching
PyTorch's float32 results (XLA's default may use reduced-precision passes on GPU).
"""
from __future__ import annotations

import jax
import jax.numpy as jnp

from .pointwise import refusing
from .registry import Op

_PRECISION = jax.lax.Precision.HIGHEST


def _matmul(a, b):
    return jnp.matmul(a, b, precision=_PRECISION)


def _outer(a, b):
    return jnp.outer(a, b)


def _einsum(*operands, equation):
    return jnp.einsum(equation, *operands, precision=_PRECISION)


def _tensordot(a, b, axes):
    return jnp.tensordot(a, b, axes=axes, precision=_PRECISION)


def _addmm(bias, a, b, beta=1, alpha=1):
    product = jnp.matmul(a, b, precision=_PRECISION)
    return (bias if beta == 1 else beta * bias) + (product if alpha == 1 else alpha * product)


def _linear(x, weight, bias=None):
    out = jnp.matmul(x, weight.T, precision=_PRECISION)
    return out if bias is None else out + bias


def _linear_no_bias(x, weight):
    return jnp.matmul(x, weight.T, precision=_PRECISION)


def _solve(a, b):
    return jnp.linalg.solve(a, b)


# kind: (grad_fn name, the kernel PyTorch names when it refuses bool).
MATMUL_KINDS = {"mm": ("MmBackward0", "addmm_impl_cpu_"), "dot": ("DotBackward0", "dot"),
                "mv": ("MvBackward0", "addmv_impl_cpu"), "bmm": ("BmmBackward0", "bmm"),
                "vm": ("SqueezeBackward4", "addmm_impl_cpu_"), "batched": ("UnsafeViewBackward0", "bmm")}
# Products have no bool kernel in PyTorch; integers multiply exactly.
MATMUL = {kind: Op("matmul", refusing(_matmul, kernel, "ifc"), grad_name=name, promote="none")
          for kind, (name, kernel) in MATMUL_KINDS.items()}
OUTER = Op("outer", _outer, grad_name="MulBackward0")
# PyTorch's einsum ends in a view of a bmm where labels are summed over several operands, a sum or a permute for
# one operand, and a product where nothing is summed: the grad_fn it reports.
EINSUM = {name: Op("einsum", refusing(_einsum, "bmm", "ifc"), grad_name=name, promote="none")
          for name in ("ViewBackward0", "SumBackward1", "PermuteBackward0", "MulBackward0")}
TENSORDOT = Op("tensordot", refusing(_tensordot, "addmm_impl_cpu_", "ifc"), grad_name="ViewBackward0",
               promote="none")
ADDMM = Op("addmm", _addmm, promote="none")
LINEAR = Op("linear", _linear, grad_name="AddmmBackward0", promote="none")
LINEAR_NO_BIAS = Op("linear", _linear_no_bias, grad_name="MmBackward0", promote="none")
INV = Op("inv", jnp.linalg.inv, grad_name="LinalgInvExBackward0", promote="float")
DET = Op("det", jnp.linalg.det, grad_name="LinalgDetBackward0", promote="float")
SOLVE = Op("solve", _solve, grad_name="LinalgSolveExBackward0", promote="float")
CHOLESKY = Op("cholesky", jnp.linalg.cholesky, grad_name="LinalgCholeskyExBackward0", promote="float")
TRACE = Op("trace", jnp.trace, promote="none")
