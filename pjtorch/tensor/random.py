"""Random number generation: `Generator`, `manual_seed`, and the sampling factories.

A Generator is PyTorch's CPU random stream (`rng`): the same seed and the same sequence of draws give the values
PyTorch's CPU build gives. Draws are made on the host and placed on the tensor's device (PyTorch's CUDA
generator is another algorithm, whose values are not reproduced).
"""
from __future__ import annotations

import builtins
import functools
import math
import threading

import numpy as np

from . import dtypes, rng
from .device import normalize, put_fresh
from .tensor import Tensor
from .factories import (arg_type_name, check_grad_dtype, dtype_argument, invalid_arguments, is_int_argument, like,
                        new_shape, size_argument)

_DEFAULT_SEED = 67280421310721


class Generator:
    """A seeded stream of random draws; `torch.Generator().manual_seed(0)`."""

    def __init__(self, device="cpu") -> None:
        self.device = normalize(device)
        self._lock = threading.Lock()
        self._stream = rng.Stream(_DEFAULT_SEED)
        self._seed = _DEFAULT_SEED

    def manual_seed(self, seed: int) -> "Generator":
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % (1 << 64)
        with self._lock:
            self._stream.reseed(self._seed)
        return self

    def seed(self) -> int:
        fresh = int.from_bytes(np.random.default_rng().bytes(8), "little") & ((1 << 63) - 1)
        self.manual_seed(fresh)
        return fresh

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        from .factories import tensor

        with self._lock:
            return tensor(rng.state_bytes(self._stream, self._seed))

    def set_state(self, state: Tensor) -> "Generator":
        if not isinstance(state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type(state).__name__}")
        if state.dtype is not dtypes.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        with self._lock:
            self._seed = rng.restore(self._stream, np.asarray(state._value()).reshape(-1))
        return self

    def draw(self, sampler, *args):
        """`sampler(stream, *args)` with the stream to itself: a draw reads a run of consecutive words."""
        with self._lock:
            return sampler(self._stream, *args)

    def _next(self) -> tuple:
        """Key material for the samplers that run in JAX (the distributions' gamma and friends): two words of the
        stream."""
        words = self.draw(rng.Stream.words32, 2).astype(np.uint32)
        return words, np.uint32(0)


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


def _values(stream: rng.Stream, kind: str, shape: tuple, dtype: dtypes.dtype, params: tuple) -> np.ndarray:
    """The drawn values in `dtype`, by the kernel PyTorch's CPU build runs for this kind of draw."""
    count = math.prod(shape)
    double = dtype is dtypes.float64 or dtype is dtypes.complex128
    if kind == "permutation":
        values = rng.permutation(stream, shape[0])
    elif kind == "integers":
        values = rng.integers(stream, count, *params)
    elif dtype.is_complex:  # real and imaginary parts are consecutive draws, the normal's each of variance 1/2
        low_or_mean, high_or_std = params or _DEFAULT_PARAMS[kind]
        scale = math.sqrt(0.5) if kind == "normal" else 1.0
        parts = _SAMPLERS[kind](stream, 2 * count, double, low_or_mean, high_or_std * scale).reshape(-1, 2)
        values = parts[:, 0] + 1j * parts[:, 1]
    else:
        values = _SAMPLERS[kind](stream, count, double, *(params or _DEFAULT_PARAMS[kind]))
    return np.asarray(values).astype(dtype.jax).reshape(shape)


_SAMPLERS = {"uniform": rng.uniform, "normal": rng.normal}
_DEFAULT_PARAMS = {"uniform": (0.0, 1.0), "normal": (0.0, 1.0)}


def sample(kind: str, shape: tuple, dtype: dtypes.dtype, device, generator: Generator | None,
           params: tuple = (), requires_grad: bool = False) -> Tensor:
    """A fresh tensor of draws: kind "uniform" (params low, high), "normal" (mean, std), "integers" (low, high)
    or "permutation"."""
    check_grad_dtype(dtype, requires_grad)
    target = normalize(device)
    generator = generator or default_generator
    t = _host_tensor(generator.draw(_values, kind, tuple(shape), dtype, tuple(params)), dtype, target)
    return t.requires_grad_(True) if requires_grad else t


def _host_tensor(values: np.ndarray, dtype: dtypes.dtype, device) -> Tensor:
    return Tensor._wrap_typed(put_fresh(np.asarray(values, dtype.jax), device), device, dtype)


def draws_like(t: Tensor, sampler, *params, generator: Generator | None = None, **named) -> Tensor:
    """`sampler(stream, count, *params, **named)`'s values in t's shape, dtype and device: what the in-place
    samplers (`exponential_`, `cauchy_`, ...) write."""
    values = (generator or default_generator).draw(functools.partial(sampler, **named), t.numel(), *params)
    return _host_tensor(values.reshape(tuple(t.shape)), t.dtype, t.device)


def _float_dtype(dtype, name: str) -> dtypes.dtype:
    dtype = dtype or dtypes.get_default_dtype()
    if dtype.category < dtypes.FLOATING:
        scalar_type = dtypes.LEGACY_NAMES[dtype].removesuffix("Tensor")
        raise NotImplementedError(f"\"{name}\" not implemented for '{scalar_type}'")
    return dtype


_OPTIONS = ("Tensor out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = None, "
            "bool pin_memory = False, bool requires_grad = False")
_SIZE_SIGNATURES = (f"tuple of ints size, *, torch.Generator generator, {_OPTIONS}",
                    f"tuple of ints size, *, {_OPTIONS}")
_RANDINT_SIGNATURES = tuple(f"{head}tuple of ints size, *, {tail}" for head in ("int high, ", "int low, int high, ")
                            for tail in (f"torch.Generator generator, {_OPTIONS}", _OPTIONS))
_FACTORY_KEYWORDS = frozenset({"generator", "dtype", "device", "requires_grad", "out", "layout", "pin_memory"})


def _sampling_options(function: str, options: dict, args: tuple, signatures: tuple) -> dict:
    """The keyword options checked, `dtype` as the parser reads it (Python's float is float64); a dtype no overload
    takes is the invalid-combination error over `args` and `options`."""
    for key in options:
        if key not in _FACTORY_KEYWORDS:
            raise TypeError(f"{function}() got an unexpected keyword argument '{key}'")
    if "dtype" in options:
        try:
            options["dtype"] = dtype_argument(options["dtype"], function)
        except TypeError:
            raise invalid_arguments(function, args, options, signatures) from None
    return options


def _drawn_size(function: str, args: tuple, options: dict) -> tuple:
    """rand's/randn's size, positional (`rand(2, 3)`, `rand((2, 3))`) or `size=`, with PyTorch's errors: where no
    overload takes the arguments, the specific one only when a single argument was given (as its parser does)."""
    given = (1 if args else 0) + len(options)
    if "size" in options:
        if args:
            raise invalid_arguments(function, args, options, _SIZE_SIGNATURES)
        args, position, varargs = (options.pop("size"),), None, False
    else:
        position, varargs = 1, True
    if not args:
        if given == 1:
            raise TypeError(f'{function}() missing 1 required positional arguments: "size"')
        raise invalid_arguments(function, args, options, _SIZE_SIGNATURES)
    try:
        return size_argument(args, function, position, varargs)
    except TypeError:
        if given == 1:
            raise
        raise invalid_arguments(function, args, options, _SIZE_SIGNATURES) from None


def rand(*size, **options) -> Tensor:
    """rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None,
    pin_memory=False), or rand(size=...)."""
    shape = new_shape((_drawn_size("rand", size, options),))
    options = _sampling_options("rand", options, size, _SIZE_SIGNATURES)
    return sample("uniform", shape, _float_dtype(options.get("dtype"), "check_uniform_bounds"), options.get("device"),
                  options.get("generator"), requires_grad=options.get("requires_grad", False))


def randn(*size, **options) -> Tensor:
    """randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None, layout=None,
    pin_memory=False), or randn(size=...)."""
    shape = new_shape((_drawn_size("randn", size, options),))
    options = _sampling_options("randn", options, size, _SIZE_SIGNATURES)
    return sample("normal", shape, _float_dtype(options.get("dtype"), "normal_kernel_cpu"), options.get("device"),
                  options.get("generator"), requires_grad=options.get("requires_grad", False))


def randint(*args, **options) -> Tensor:
    """randint(high, size) or randint(low, high, size) (each also by keyword), with generator=, dtype=, device=,
    requires_grad=. Where no overload takes the arguments, PyTorch's specific error comes only for exactly two
    arguments (those its parser checks against `randint(high, size)`), else its list of overloads."""
    given = len(args) + len(options)
    bound = _bind_randint(args, options)
    if bound is None:
        if given == 2:
            # PyTorch names the first missing parameter of (high, size) and every one after it, given or not.
            names = ("high", "size")[len(args):]
            missing = next((names[i:] for i, n in enumerate(names) if n not in options), ())
            if missing:
                count = len(missing)
                raise TypeError(f"randint() missing {count} required positional argument{'s' if count == 1 else ''}: "
                                + ", ".join(f'"{n}"' for n in missing))
        raise invalid_arguments("randint", args, options, _RANDINT_SIGNATURES)
    (low, high, size), positions, extra = bound
    try:
        for name, value in (("low", low), ("high", high)):
            if not is_int_argument(value):
                where = f" (position {positions[name]})" if positions.get(name) else ""
                raise TypeError(f"randint(): argument '{name}'{where} must be int, not {arg_type_name(value)}")
        if not isinstance(size, (tuple, list)):
            where = f" (position {positions['size']})" if positions.get("size") else ""
            raise TypeError(f"randint(): argument 'size'{where} must be tuple of ints, not {arg_type_name(size)}")
        shape = size_argument((size,), "randint", positions.get("size"), varargs=False)
    except TypeError:
        if given == 2:
            raise
        raise invalid_arguments("randint", args, options, _RANDINT_SIGNATURES) from None
    options = _sampling_options("randint", extra, args, _RANDINT_SIGNATURES)
    low, high = builtins.int(low), builtins.int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return sample("integers", new_shape((shape,)), options.get("dtype") or dtypes.int64, options.get("device"),
                  options.get("generator"), (low, high), options.get("requires_grad", False))


def _bind_randint(args: tuple, options: dict):
    """((low, high, size), positions, other keywords) by the overload (high, size) or (low, high, size) that the
    arguments fill, or None."""
    extra = {k: v for k, v in options.items() if k not in ("low", "high", "size")}
    for names in (("high", "size"), ("low", "high", "size")):
        if len(args) > len(names) or "low" in options and "low" not in names:
            continue
        values = dict(zip(names, args))
        if any(k in values for k in options):
            continue
        values.update({k: v for k, v in options.items() if k in ("low", "high", "size")})
        if all(n in values for n in names):
            positions = {n: i + 1 for i, n in enumerate(names[:len(args)])}
            return (values.get("low", 0), values["high"], values["size"]), positions, extra
    return None


_RANDPERM_SIGNATURES = (f"int n, *, torch.Generator generator, {_OPTIONS}", f"int n, *, {_OPTIONS}")
_LIKE_OPTIONS = ("torch.memory_format memory_format = None, torch.dtype dtype = None, torch.layout layout = None, "
                 "torch.device device = None, bool pin_memory = False, bool requires_grad = False")
_LIKE_SIGNATURES = (f"Tensor input, *, torch.Generator generator, {_LIKE_OPTIONS}", f"Tensor input, *, {_LIKE_OPTIONS}")
_NOTHING = object()


def randperm(n=_NOTHING, *, generator=None, dtype=None, device=None, requires_grad: bool = False, out=None,
             layout=None, pin_memory: bool = False) -> Tensor:
    if n is _NOTHING:
        raise invalid_arguments("randperm", (), {}, _RANDPERM_SIGNATURES)
    try:
        dtype = dtype_argument(dtype, "randperm") or dtypes.int64
    except TypeError:
        raise invalid_arguments("randperm", (n,), {"dtype": dtype}, _RANDPERM_SIGNATURES) from None
    return sample("permutation", new_shape((n,)), dtype, device, generator, (), requires_grad)


def rand_like(input: Tensor = _NOTHING, *, generator=None, dtype=None, device=None, requires_grad: bool = False,
              memory_format=None, layout=None, pin_memory: bool = False) -> Tensor:
    if input is _NOTHING:
        raise invalid_arguments("rand_like", (), {}, _LIKE_SIGNATURES)
    dtype, device = dtype or input.dtype, device or input.device
    return like(input, lambda shape: rand(shape, generator=generator, dtype=dtype, device=device), requires_grad,
                memory_format)


def randn_like(input: Tensor = _NOTHING, *, generator=None, dtype=None, device=None, requires_grad: bool = False,
               memory_format=None, layout=None, pin_memory: bool = False) -> Tensor:
    if input is _NOTHING:
        raise invalid_arguments("randn_like", (), {}, _LIKE_SIGNATURES)
    dtype, device = dtype or input.dtype, device or input.device
    return like(input, lambda shape: randn(shape, generator=generator, dtype=dtype, device=device), requires_grad,
                memory_format)


def randint_like(input: Tensor, low=0, high=None, *, dtype=None, device=None) -> Tensor:
    if high is None:
        low, high = 0, low
    dtype, device = dtype or input.dtype, device or input.device
    return like(input, lambda shape: randint(low, high, shape, dtype=dtype, device=device))


def normal(mean=0.0, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """normal(mean, std, size) with numbers, or elementwise with tensor mean/std."""
    if isinstance(mean, Tensor) or isinstance(std, Tensor):
        like = mean if isinstance(mean, Tensor) else std
        noise = randn(like.shape, generator=generator, dtype=like.dtype, device=like.device)
        return noise * std + mean
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    return sample("normal", new_shape((size,)), _float_dtype(dtype, "normal_kernel_cpu"), device, generator,
                  (float(mean), float(std)), requires_grad)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """1 where a draw falls below the probability: each element's own (`input`) or one number `p`."""
    generator = generator or default_generator
    if p is None:
        probabilities = np.asarray(input._value())
        hits = generator.draw(rng.bernoulli, probabilities, input.dtype is dtypes.float64)
    else:
        hits = generator.draw(rng.bernoulli, np.full(tuple(input.shape), float(p)), True)
    return _host_tensor(hits, input.dtype, input.device)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """PyTorch's CPU kernels: with replacement, a 53-bit draw per sample looked up in the row's normalised
    cumulative sum; without (or for one sample), the top `num_samples` of p / q for exponential draws q (the
    exponential race)."""
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    generator = generator or default_generator
    if replacement and num_samples > 1:
        rows = np.asarray(input._value(), np.float64).reshape(-1, input.shape[-1])
        cumulative = np.cumsum(rows, axis=1)
        cumulative /= cumulative[:, -1:]
        draws = generator.draw(rng.unit_double, rows.shape[0] * num_samples).reshape(rows.shape[0], num_samples)
        picks = np.stack([np.searchsorted(c, d, side="left") for c, d in zip(cumulative, draws)])
        picks = np.minimum(picks, input.shape[-1] - 1)
        return _host_tensor(picks.reshape(tuple(input.shape[:-1]) + (num_samples,)), dtypes.int64, input.device)
    ratios = input / draws_like(input, rng.exponential, 1.0, generator=generator)
    if num_samples == 1:
        return ratios.argmax(-1, keepdim=True)
    return ratios.topk(num_samples, -1).indices


# The CPU kernels of in-place sampling that take floating tensors only, as PyTorch's dtype errors name them.
_FLOATING_KERNELS = {"uniform": "check_uniform_bounds", "normal": "normal_kernel_cpu"}


def fill_random_(t: Tensor, kind: str, params: tuple, generator=None) -> Tensor:
    """In-place sampling (`uniform_`, `normal_`, ...): draws a fresh tensor and copies it in."""
    kernel = _FLOATING_KERNELS.get(kind)
    if kernel is not None and t.dtype.category < dtypes.FLOATING:
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{dtypes.LEGACY_NAMES[t.dtype][:-6]}'")
    return t.copy_(sample(kind, tuple(t.shape), t.dtype, t.device, generator, params))
