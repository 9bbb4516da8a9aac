"""Random number generation: `Generator`, `manual_seed`, and the sampling factories.

A Generator holds a seed and a counter; each draw folds the counter into the seed's key inside
one compiled function per (distribution, shape, dtype), so drawing costs one XLA call and the
same seed always gives the same values. PyTorch's exact streams are not reproduced.
"""
from __future__ import annotations

import functools
import threading

import jax
import jax.numpy as jnp
import numpy as np

from . import dtypes
from .device import normalize, to_jax
from .tensor import Tensor
from .views import shape_args

_DEFAULT_SEED = 67280421310721


class Generator:
    """A seeded stream of random draws; `torch.Generator().manual_seed(0)`."""

    def __init__(self, device="cpu") -> None:
        self.device = normalize(device)
        self._lock = threading.Lock()
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: int) -> "Generator":
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise RuntimeError(f"Overflow when unpacking long long")
        self._seed = seed % (1 << 64)
        self._counter = 0
        return self

    def seed(self) -> int:
        fresh = int.from_bytes(np.random.default_rng().bytes(8), "little") & ((1 << 63) - 1)
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        from .factories import tensor

        return tensor(np.array([self._seed, self._counter], dtype=np.uint64).view(np.uint8))

    def set_state(self, state: Tensor) -> "Generator":
        seed, counter = np.asarray(state._value()).astype(np.uint8).view(np.uint64)
        self._seed, self._counter = int(seed), int(counter)
        return self

    def _next(self) -> tuple:
        """(seed words, counter) for one draw; advances the stream."""
        with self._lock:
            counter = self._counter
            self._counter += 1
        return np.array([self._seed >> 32, self._seed & 0xFFFF_FFFF], np.uint32), np.uint32(counter)


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(state: Tensor) -> None:
    default_generator.set_state(state)


@functools.lru_cache(maxsize=None)
def _sampler(kind: str, shape: tuple, dtype, params: tuple, jax_device):
    def draw(seed_words, counter):
        key = jax.random.fold_in(jax.random.wrap_key_data(seed_words, impl="threefry2x32"), counter)
        return _SAMPLERS[kind](key, shape, dtype, *params)

    return jax.jit(draw, device=jax_device)


def _uniform(key, shape, dtype, low=0.0, high=1.0):
    return jax.random.uniform(key, shape, jnp.float32 if dtype == jnp.bfloat16 else dtype, low, high).astype(dtype)


def _normal(key, shape, dtype, mean=0.0, std=1.0):
    sample = jax.random.normal(key, shape, jnp.float32 if dtype in (jnp.bfloat16, jnp.float16) else dtype)
    return (sample * std + mean).astype(dtype)


def _integers(key, shape, dtype, low, high):
    return jax.random.randint(key, shape, low, high, dtype=jnp.int64).astype(dtype)


def _permutation(key, shape, dtype, n):
    return jax.random.permutation(key, n).astype(dtype)


_SAMPLERS = {"uniform": _uniform, "normal": _normal, "integers": _integers, "permutation": _permutation}


def sample(kind: str, shape: tuple, dtype: dtypes.dtype, device, generator: Generator | None,
           params: tuple = (), requires_grad: bool = False) -> Tensor:
    target = normalize(device)
    generator = generator or default_generator
    seed_words, counter = generator._next()
    array = _sampler(kind, tuple(shape), dtype.jax, params, to_jax(target))(seed_words, counter)
    t = Tensor._wrap(array, target)
    return t.requires_grad_(True) if requires_grad else t


def _float_dtype(dtype, name: str) -> dtypes.dtype:
    dtype = dtype or dtypes.get_default_dtype()
    if dtype.category < dtypes.FLOATING:
        raise RuntimeError(f"\"{name}\" not implemented for '{dtypes.LEGACY_NAMES[dtype].replace('Tensor', '')}'")
    return dtype


def rand(*size, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None,
         layout=None, pin_memory: bool = False) -> Tensor:
    return sample("uniform", shape_args(size), _float_dtype(dtype, "check_uniform_bounds"), device, generator,
                  requires_grad=requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None,
          layout=None, pin_memory: bool = False) -> Tensor:
    return sample("normal", shape_args(size), _float_dtype(dtype, "normal_kernel_cpu"), device, generator,
                  requires_grad=requires_grad)


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad: bool = False,
            low=None, high=None) -> Tensor:
    """randint(high, size) or randint(low, high, size)."""
    positional = list(args)
    if size is None:
        size = positional.pop()
    if high is None:
        high = positional.pop()
    if low is None:
        low = positional.pop() if positional else 0
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return sample("integers", shape_args((size,)), dtype or dtypes.int64, device, generator, (int(low), int(high)))


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    return sample("permutation", (n,), dtype or dtypes.int64, device, generator, (int(n),))


def rand_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    return rand(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype=None, device=None, requires_grad: bool = False, memory_format=None) -> Tensor:
    return randn(input.shape, dtype=dtype or input.dtype, device=device or input.device, requires_grad=requires_grad)


def randint_like(input: Tensor, low=0, high=None, *, dtype=None, device=None) -> Tensor:
    if high is None:
        low, high = 0, low
    return randint(low, high, input.shape, dtype=dtype or input.dtype, device=device or input.device)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """normal(mean, std, size) with numbers, or elementwise with tensor mean/std."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        noise = randn(like.shape, generator=generator, dtype=like.dtype, device=like.device)
        return noise * std + mean
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return sample("normal", shape_args((size,)), _float_dtype(dtype, "normal_kernel_cpu"), device, generator,
                  (float(mean), float(std)), requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    probability = input if p is None else p
    draws = rand(input.shape, generator=generator, dtype=input.dtype if input.dtype.is_floating_point else None,
                 device=input.device)
    return (draws < probability).to(input.dtype)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Gumbel-top-k without replacement; inverse-CDF draws with replacement."""
    logits = input.log()
    if replacement:
        cdf = (input / input.sum(-1, keepdim=True)).cumsum(-1)
        draws = rand(input.shape[:-1] + (num_samples,), generator=generator, dtype=input.dtype, device=input.device)
        return (draws.unsqueeze(-1) > cdf.unsqueeze(-2)).sum(-1).clamp(max=input.shape[-1] - 1)
    if num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    uniform = rand(input.shape, generator=generator, dtype=input.dtype, device=input.device)
    gumbel = -(-uniform.clamp(min=1e-20).log()).log()
    return (logits + gumbel).topk(num_samples, -1).indices


def fill_random_(t: Tensor, kind: str, params: tuple, generator=None) -> Tensor:
    """In-place sampling (`uniform_`, `normal_`, ...): draws a fresh tensor and copies it in."""
    return t.copy_(sample(kind, tuple(t.shape), t.dtype, t.device, generator, params))
