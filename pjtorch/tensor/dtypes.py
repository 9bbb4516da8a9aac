"""PyTorch's dtypes, their JAX counterparts, and PyTorch's type-promotion rules.

Promotion works by *category* (bool < integer < floating < complex): dimensioned tensors
decide the result unless a 0-dim tensor or a Python scalar belongs to a higher category.
"""
from __future__ import annotations

import builtins
import functools
import math
import threading

import jax.numpy as jnp
import numpy as np

BOOL, INTEGER, FLOATING, COMPLEX = range(4)


class dtype:
    """A PyTorch dtype: prints as `torch.float32` and maps to one JAX dtype."""

    __slots__ = ("name", "jax", "itemsize", "category", "is_signed")

    def __init__(self, name: str, jax_dtype, category: int, is_signed: bool) -> None:
        self.name = name
        self.jax = np.dtype(jax_dtype)
        self.itemsize = self.jax.itemsize
        self.category = category
        self.is_signed = is_signed

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOATING

    @property
    def is_complex(self) -> bool:
        return self.category == COMPLEX

    def to_real(self) -> "dtype":
        return {complex64: float32, complex128: float64}.get(self, self)

    def to_complex(self) -> "dtype":
        """complex128 for float64, complex64 for the other floats (PyTorch's complex32 is widened)."""
        if self.category < FLOATING:
            raise RuntimeError(f"Unknown Complex ScalarType for {LEGACY_NAMES[self].removesuffix('Tensor')}")
        return {float64: complex128}.get(self, complex64) if self.category != COMPLEX else self

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))


bool = dtype("bool", np.bool_, BOOL, False)
uint8 = dtype("uint8", np.uint8, INTEGER, False)
int8 = dtype("int8", np.int8, INTEGER, True)
int16 = dtype("int16", np.int16, INTEGER, True)
int32 = dtype("int32", np.int32, INTEGER, True)
int64 = dtype("int64", np.int64, INTEGER, True)
float16 = dtype("float16", np.float16, FLOATING, True)
bfloat16 = dtype("bfloat16", jnp.bfloat16, FLOATING, True)
float32 = dtype("float32", np.float32, FLOATING, True)
float64 = dtype("float64", np.float64, FLOATING, True)
complex64 = dtype("complex64", np.complex64, COMPLEX, True)
complex128 = dtype("complex128", np.complex128, COMPLEX, True)

ALL = (bool, uint8, int8, int16, int32, int64, float16, bfloat16, float32, float64, complex64, complex128)
_BY_NAME = {d.name: d for d in ALL}
_BY_JAX = {d.jax: d for d in ALL}


def _by_name(name: str) -> dtype:
    return _BY_NAME[name]


def from_jax(jax_dtype) -> dtype:
    """The PyTorch dtype of a JAX/NumPy dtype (NumPy's unsupported ones raise TypeError)."""
    found = _BY_JAX.get(jax_dtype)
    if found is not None:
        return found
    try:
        return _BY_JAX[np.dtype(jax_dtype)]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{np.dtype(jax_dtype).type.__name__}. The only supported types "
            "are: float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, uint16, "
            "uint8, and bool."
        ) from None


class _DefaultDtype(threading.local):
    value = float32


_default = _DefaultDtype()


def get_default_dtype() -> dtype:
    return _default.value


def set_default_dtype(d: dtype) -> None:
    if not isinstance(d, dtype) or d.category != FLOATING:
        raise TypeError("only floating-point types are supported as the default type")
    _default.value = d


def default_for_category(category: int) -> dtype:
    """The dtype PyTorch gives a Python scalar of this category."""
    if category == FLOATING:
        return _default.value
    if category == COMPLEX:
        return complex128 if _default.value is float64 else complex64
    return int64 if category == INTEGER else bool


def scalar_category(value) -> int:
    if isinstance(value, builtins.bool):
        return BOOL
    if isinstance(value, builtins.int):
        return INTEGER
    if isinstance(value, builtins.float):
        return FLOATING
    if isinstance(value, builtins.complex):
        return COMPLEX
    raise TypeError(f"unsupported scalar type {type(value).__name__}")


def can_cast(from_: dtype, to: dtype) -> bool:
    """PyTorch's rule for writing a result into a tensor of another dtype (in-place ops, out=): never to a lower
    category (complex to real, floating to integral, anything but bool to bool)."""
    return from_.category <= to.category


_PROMOTE_CACHE: dict = {}


def promote_types(a: dtype, b: dtype) -> dtype:
    """PyTorch's pairwise promotion (torch.promote_types)."""
    key = (a, b)
    found = _PROMOTE_CACHE.get(key)
    if found is None:
        found = _PROMOTE_CACHE[key] = _promote_uncached(a, b)
    return found


def _promote_uncached(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a.category != b.category:
        high, low = (a, b) if a.category > b.category else (b, a)
        if high.category == COMPLEX and low in (float64,):
            return complex128
        return high
    if a.category == FLOATING and {a, b} == {float16, bfloat16}:
        return float32
    if a.category == INTEGER and (a is uint8 or b is uint8):
        other = b if a is uint8 else a
        return int16 if other is int8 else other
    return a if a.itemsize >= b.itemsize else b


def result_type(tensor_dtypes: list, zero_dim_dtypes: list, scalars: list) -> dtype:
    """The dtype of an elementwise op over dimensioned tensors, 0-dim tensors and Python scalars.

    Each group is promoted within itself; then, as PyTorch's `combine_categories` does, a lower
    group only counts where it is of a higher category (scalars take their category's default).
    """
    wrapped = None
    if scalars:
        wrapped = default_for_category(max(scalar_category(s) for s in scalars))
    return _combine(_promote_all(tensor_dtypes), _combine(_promote_all(zero_dim_dtypes), wrapped))


def _promote_all(group: list) -> "dtype | None":
    result = None
    for d in group:
        result = d if result is None else promote_types(result, d)
    return result


def _combine(higher: "dtype | None", lower: "dtype | None") -> "dtype | None":
    if higher is None or lower is None:
        return lower if higher is None else higher
    if higher.category == COMPLEX:
        return higher
    if lower.category == COMPLEX:
        return higher.to_complex() if higher.category == FLOATING else lower
    if higher.category == FLOATING:
        return higher
    if higher is bool or lower.category == FLOATING:
        return promote_types(higher, lower)
    return higher


def checked_scalar(value, target: dtype):
    """A Python number as PyTorch writes it into a `target` tensor (fill_, full, masked_fill, setitem): a
    RuntimeError where it overflows the dtype, else the value, made real (or bool) for a non-complex target.
    A complex number overflows a real dtype unless its imaginary part is 0; negative integers wrap into unsigned
    ones; anything fits a bool."""
    if target is bool or target.category == COMPLEX or isinstance(value, builtins.bool):
        return builtins.bool(value) if target is bool and isinstance(value, builtins.complex) else value
    fits = True
    if isinstance(value, builtins.complex):
        fits, value = value.imag == 0, value.real
    low, high = _limits(target)
    wraps = low == 0 and isinstance(value, builtins.int)
    if target.category == INTEGER:
        # Out of range, NaN and infinities overflow an integer dtype; negative integers wrap into unsigned ones.
        fits = fits and (-high if wraps else low) <= value <= high
    else:
        fits = fits and (isinstance(value, builtins.float) and not math.isfinite(value) or low <= value <= high)
    if not fits:
        raise RuntimeError(f"value cannot be converted to type {C_NAMES[target]} without overflow")
    return value % (high + 1) if wraps and target.category == INTEGER else value


@functools.lru_cache(maxsize=None)
def _limits(d: dtype) -> tuple:
    if d.category == INTEGER:
        info = np.iinfo(d.jax)
        return builtins.int(info.min), builtins.int(info.max)
    info = jnp.finfo(d.jax)
    return builtins.float(info.min), builtins.float(info.max)


def operands_result_type(*operands) -> dtype:
    """`torch.result_type`: the dtype of an elementwise op over tensors and Python numbers."""
    dimensioned, zero_dim, scalars = [], [], []
    for x in operands:
        if isinstance(getattr(x, "dtype", None), dtype):
            (dimensioned if x.ndim else zero_dim).append(x.dtype)
        else:
            scalars.append(x)
    return result_type(dimensioned, zero_dim, scalars)


class finfo:
    """Machine limits of a floating dtype (a complex one gives its real part's), with PyTorch's names."""

    def __init__(self, type: dtype | None = None) -> None:
        type = type or get_default_dtype()
        if type.category < FLOATING:
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        real = type.to_real()
        info = jnp.finfo(real.jax)
        self.dtype = real.name
        self.bits = info.bits
        self.eps = builtins.float(info.eps)
        self.max = builtins.float(info.max)
        self.min = builtins.float(info.min)
        self.tiny = self.smallest_normal = builtins.float(info.tiny)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.tiny:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Machine limits of an integer dtype, with PyTorch's attribute names."""

    def __init__(self, type: dtype) -> None:
        if type is bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.category != INTEGER:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle 'torch.iinfo'")
        info = np.iinfo(type.jax)
        self.dtype = type.name
        self.bits = info.bits
        self.max = builtins.int(info.max)
        self.min = builtins.int(info.min)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"


# The legacy tensor type names PyTorch still uses in messages and `Tensor.type()`.
LEGACY_NAMES = {
    bool: "BoolTensor", uint8: "ByteTensor", int8: "CharTensor", int16: "ShortTensor", int32: "IntTensor",
    int64: "LongTensor", float16: "HalfTensor", bfloat16: "BFloat16Tensor", float32: "FloatTensor",
    float64: "DoubleTensor", complex64: "ComplexFloatTensor", complex128: "ComplexDoubleTensor",
}

# The C++ type names of PyTorch's overflow messages (bool and complex dtypes take any number).
C_NAMES = {
    uint8: "uint8_t", int8: "int8_t", int16: "int16_t", int32: "int", int64: "int64_t", float16: "c10::Half",
    bfloat16: "c10::BFloat16", float32: "float", float64: "double",
}


class memory_format:
    """A PyTorch memory format (`torch.contiguous_format`, ...): which strides a copy is laid out with."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_memory_format_by_name, (self.name,))


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")


def _memory_format_by_name(name: str) -> memory_format:
    return globals()[name]


half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
cfloat, cdouble = complex64, complex128
