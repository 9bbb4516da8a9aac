"""The same workloads written by hand in JAX: the floor pjtorch is measured against.

Each builder takes the JAX device and `jit`: False runs `jax.numpy` eagerly op by op (what a
naive eager port costs), True compiles the whole iteration with `jax.jit` (what XLA can do).
Dtypes are always explicit, because pjtorch may turn on `jax_enable_x64` for the process.
"""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

Step = Callable[[], Any]


def matmul(device: jax.Device, jit: bool, size: int, dtype: str) -> Step:
    a, b = (_normal(device, (size, size), dtype, seed) for seed in (0, 1))
    product = _maybe_jit(jnp.matmul, jit)
    return lambda: product(a, b)


def elementwise(device: jax.Device, jit: bool, numel: int) -> Step:
    x, y = (_normal(device, (numel,), "float32", seed) for seed in (0, 1))
    chain = _maybe_jit(lambda x, y: jnp.exp(jnp.sin(x * 2 + 1) * y), jit)
    return lambda: chain(x, y)


def reduction(device: jax.Device, jit: bool, numel: int) -> Step:
    x = _normal(device, (numel,), "float32", 0)
    total = _maybe_jit(jnp.sum, jit)
    return lambda: total(x)


def polynomial(device: jax.Device, jit: bool) -> Step:
    """Leaf creation included, as in the pjtorch/PyTorch form."""
    derivative = _maybe_jit(jax.grad(lambda x: x**2 + 2 * x + 1), jit)
    return lambda: derivative(jax.device_put(np.float32(3.0), device))


def add3(device: jax.Device, jit: bool) -> Step:
    a = jax.device_put(np.array([1.0, 2.0, 3.0], np.float32), device)
    b = jax.device_put(np.array([4.0, 5.0, 6.0], np.float32), device)
    add = _maybe_jit(jnp.add, jit)
    return lambda: add(a, b)


def mlp_step(
    device: jax.Device, jit: bool, batch: int, n_in: int, n_hidden: int, n_out: int, lr: float
) -> Step:
    """Parameters are threaded through the step functionally, as JAX requires."""
    state = {"params": _mlp_params(device, n_in, n_hidden, n_out)}
    inputs = _normal(device, (batch, n_in), "float32", 4)
    labels = jax.device_put(np.random.default_rng(5).integers(0, n_out, batch, np.int32), device)
    update = _maybe_jit(lambda params: _sgd_update(params, inputs, labels, lr), jit)

    def step() -> Any:
        loss, state["params"] = update(state["params"])
        return loss, state["params"]

    return step


def _mlp_params(device: jax.Device, n_in: int, n_hidden: int, n_out: int) -> list[jax.Array]:
    w1 = _normal(device, (n_in, n_hidden), "float32", 2) / n_in**0.5
    w2 = _normal(device, (n_hidden, n_out), "float32", 3) / n_hidden**0.5
    zeros = [jax.device_put(np.zeros(n, np.float32), device) for n in (n_hidden, n_out)]
    return [w1, zeros[0], w2, zeros[1]]


def _mlp_loss(params: list[jax.Array], inputs: jax.Array, labels: jax.Array) -> jax.Array:
    w1, b1, w2, b2 = params
    logits = jax.nn.relu(inputs @ w1 + b1) @ w2 + b2
    log_probs = logits - jax.nn.logsumexp(logits, axis=1, keepdims=True)
    return -jnp.take_along_axis(log_probs, labels[:, None], axis=1).mean()


def _sgd_update(
    params: list[jax.Array], inputs: jax.Array, labels: jax.Array, lr: float
) -> tuple[jax.Array, list[jax.Array]]:
    loss, grads = jax.value_and_grad(_mlp_loss)(params, inputs, labels)
    return loss, [p - lr * g for p, g in zip(params, grads, strict=True)]


def _normal(device: jax.Device, shape: tuple[int, ...], dtype: str, seed: int) -> jax.Array:
    values = jax.random.normal(jax.random.key(seed), shape, jnp.dtype(dtype))
    return jax.device_put(values, device)


def _maybe_jit(fn: Callable, jit: bool) -> Callable:
    return jax.jit(fn) if jit else fn


BUILDERS: dict[str, Callable[..., Step]] = {
    "matmul": matmul,
    "elementwise": elementwise,
    "reduction": reduction,
    "polynomial": polynomial,
    "add3": add3,
    "mlp_step": mlp_step,
}
