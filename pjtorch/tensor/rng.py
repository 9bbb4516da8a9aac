"""PyTorch's CPU random stream: a Mersenne Twister and the transformations PyTorch's CPU kernels apply to it.

`torch.manual_seed(s)` seeds MT19937 with the low 32 bits of `s`; each kernel then reads 32-bit words (or 64-bit
words made of two, the first as the high half) in element order. Reproducing that order and those formulas makes
every draw the values PyTorch's CPU build gives for the same seed and the same sequence of calls. The draws are
made on the host with NumPy (the stream is inherently serial) and then placed on the tensor's device.
"""
from __future__ import annotations

import math

import numpy as np

STATE_WORDS = 624
_F32 = np.float32


class Stream:
    """One MT19937 state, plus the cached second value of the last scalar Box-Muller pair."""

    def __init__(self, seed: int) -> None:
        self.bits = np.random.MT19937()
        self.reseed(seed)

    def reseed(self, seed: int) -> None:
        self.bits._legacy_seeding(seed & 0xFFFF_FFFF)
        self.normal_cache = None
        self.fresh = True  # PyTorch's state records a just-seeded stream apart from one that used all 624 words

    def words32(self, n: int) -> np.ndarray:
        """n words, as uint64."""
        self.fresh = self.fresh and n == 0
        return self.bits.random_raw(n)

    def words64(self, n: int) -> np.ndarray:
        pairs = self.words32(2 * n)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]


def unit_float(stream: Stream, n: int) -> np.ndarray:
    """Uniform [0, 1) floats with 24 random bits, in float32 (float, half and bfloat16 kernels draw these)."""
    return _in_chunks(n, np.float32, lambda count: (stream.words32(count) & np.uint64(0xFF_FFFF)).astype(_F32)
                      * _F32(2.0 ** -24))  # exact: 24-bit values and a power of two


def unit_double(stream: Stream, n: int) -> np.ndarray:
    """Uniform [0, 1) doubles with 53 random bits."""
    return _in_chunks(n, np.float64, lambda count: (stream.words64(count) & np.uint64((1 << 53) - 1))
                      .astype(np.float64) * 2.0 ** -53)


CHUNK = 1 << 20  # elements converted at a time, so that a large draw never holds all its words at once


def _in_chunks(n: int, dtype, make) -> np.ndarray:
    if n <= CHUNK:
        return make(n)
    out = np.empty(n, dtype)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        out[start:stop] = make(stop - start)
    return out


def uniform(stream: Stream, n: int, double: bool, low: float, high: float) -> np.ndarray:
    """`u * (high - low) + low`, in float32 arithmetic (one fused multiply-add) except for float64 tensors."""
    if double:
        return unit_double(stream, n) * (high - low) + low
    draws = unit_float(stream, n)
    if low == 0 and high == 1:
        return draws
    return _fused_f32(draws, _F32(high) - _F32(low), _F32(low))


def _fused_f32(x: np.ndarray, scale, shift) -> np.ndarray:
    """`x * scale + shift` for float32 operands rounded once, as a fused multiply-add rounds it (the product of two
    float32 values is exact in float64)."""
    wide = x.astype(np.float64)
    wide *= np.float64(scale)
    wide += np.float64(shift)
    return wide.astype(_F32)


def normal(stream: Stream, n: int, double: bool, mean: float, std: float) -> np.ndarray:
    """PyTorch's two normal kernels: under 16 elements, one scalar Box-Muller pair per two values in double (the
    second value cached for the next draw, even across calls); from 16 on, uniform draws for every element turned
    into normals sixteen at a time (the last, partial block redrawn whole), in float32 for float tensors."""
    if n < 16:
        values = np.empty(n)
        for i in range(n):
            values[i] = _scalar_normal(stream)
        return values * std + mean
    data = unit_double(stream, n) if double else unit_float(stream, n)
    whole = n - n % 16
    data[:whole] = _box_muller_blocks(data[:whole])
    if whole != n:
        fresh = unit_double(stream, 16) if double else unit_float(stream, 16)
        data[n - 16:] = _box_muller_blocks(fresh)
    if double:
        return data * std + mean
    return data if (mean, std) == (0, 1) else _fused_f32(data, _F32(std), _F32(mean))


def _scalar_normal(stream: Stream) -> float:
    if stream.normal_cache is not None:
        value, stream.normal_cache = stream.normal_cache, None
        return value
    u1, u2 = unit_double(stream, 2)
    radius = math.sqrt(-2.0 * math.log1p(-u2))
    theta = 2.0 * math.pi * u1
    stream.normal_cache = radius * math.sin(theta)
    return radius * math.cos(theta)


def _box_muller_blocks(data: np.ndarray) -> np.ndarray:
    """Each block of 16 uniforms: the first eight give radii, the last eight angles. (CHUNK is a multiple of 16.)"""
    if data.size > CHUNK:
        return np.concatenate([_box_muller_blocks(data[start:start + CHUNK]) for start in range(0, data.size, CHUNK)])
    blocks = data.reshape(-1, 16)
    one, minus_two, two_pi = (data.dtype.type(v) for v in (1.0, -2.0, 2.0 * math.pi))
    radius = np.sqrt(minus_two * np.log(one - blocks[:, :8]))
    theta = two_pi * blocks[:, 8:]
    return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1).reshape(-1)


def integers(stream: Stream, n: int, low: int, high: int) -> np.ndarray:
    """`low + word % (high - low)`, from 32-bit words where the span fits them, else from 64-bit words; int64."""
    span = high - low
    words = stream.words32(n) if span < 1 << 32 else stream.words64(n)
    offsets = words % np.uint64(span)
    if low >= 0:
        return (offsets + np.uint64(low)).astype(np.int64)
    return offsets.astype(np.int64) + np.int64(low)


def permutation(stream: Stream, n: int) -> np.ndarray:
    """Fisher-Yates from the front: position i swaps with i + word % (n - i)."""
    order = list(range(n))
    for i, word in enumerate(stream.words32(max(n - 1, 0)).tolist()):
        j = i + word % (n - i)
        order[i], order[j] = order[j], order[i]
    return np.array(order, np.int64)


def bernoulli(stream: Stream, probabilities: np.ndarray, double: bool) -> np.ndarray:
    """1 where a uniform draw falls below p (24-bit draws against float32 p, 53-bit ones against float64 p)."""
    draws = unit_double(stream, probabilities.size) if double else unit_float(stream, probabilities.size)
    return draws.reshape(probabilities.shape) < probabilities


def exponential(stream: Stream, n: int, lambd: float = 1.0) -> np.ndarray:
    return -np.log1p(-unit_double(stream, n)) / lambd


def cauchy(stream: Stream, n: int, median: float = 0.0, sigma: float = 1.0) -> np.ndarray:
    return median + sigma * np.tan(math.pi * (unit_double(stream, n) - 0.5))


def geometric(stream: Stream, n: int, p: float) -> np.ndarray:
    """The number of Bernoulli(p) trials up to the first success."""
    return np.ceil(np.log(unit_double(stream, n)) / math.log1p(-p))


def log_normal(stream: Stream, n: int, mean: float = 1.0, std: float = 2.0) -> np.ndarray:
    """exp of normals drawn one by one (the scalar path, whatever the size)."""
    return np.exp(np.array([_scalar_normal(stream) for _ in range(n)]) * std + mean)


def state_bytes(stream: Stream, initial_seed: int) -> np.ndarray:
    """The state in the layout of PyTorch's CPU generator state (5056 bytes): seed, `left`, `seeded`, `next`, the
    624 words (as uint64), the legacy normal fields, then the cached float normal."""
    state = stream.bits.state["state"]
    position = int(state["pos"])
    header = np.array([initial_seed & 0xFFFF_FFFF_FFFF_FFFF], np.uint64).view(np.uint8)
    counters = np.array([STATE_WORDS + 1 - position, 1], np.int32).view(np.uint8)
    following = np.array([0 if stream.fresh else position], np.uint64).view(np.uint8)
    words = state["key"].astype(np.uint64).view(np.uint8)
    cached = stream.normal_cache
    normals = np.array([0.0, 0.0 if cached is None else cached, 0.0], np.float64).view(np.uint8)
    valid = np.array([cached is not None, 0], np.int32).view(np.uint8)
    tail = np.zeros(8, np.uint8)
    return np.concatenate([header, counters, following, words, normals, valid, tail])


def restore(stream: Stream, data: np.ndarray) -> int:
    """Sets the stream from `state_bytes`' layout; returns the initial seed it records."""
    if data.size != 5056:
        raise RuntimeError(f"Expected a CPUGeneratorImplState of size 5056 but found the input RNG state size to be "
                           f"{data.size}")
    initial_seed = int(data[:8].view(np.uint64)[0])
    left = int(data[8:12].view(np.int32)[0])
    following = int(data[16:24].view(np.uint64)[0])
    key = data[24:24 + 8 * STATE_WORDS].view(np.uint64).astype(np.uint32)
    normals = data[24 + 8 * STATE_WORDS:48 + 8 * STATE_WORDS].view(np.float64)
    valid = int(data[48 + 8 * STATE_WORDS:52 + 8 * STATE_WORDS].view(np.int32)[0])
    stream.bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": STATE_WORDS + 1 - left}}
    stream.normal_cache = float(normals[1]) if valid else None
    stream.fresh = left == 1 and following == 0
    return initial_seed
