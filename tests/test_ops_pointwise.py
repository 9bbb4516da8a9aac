"""Elementwise ops, operators and comparisons against real PyTorch, driven by tables.

Each table entry runs over the dtypes below; PyTorch decides which combinations are errors, and
pjtorch must then raise the same exception type. Inputs are (3, 5) against (5,) for binary ops, so
every case also broadcasts.
"""
from __future__ import annotations

import operator
import zlib

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ops_oracle import (ALL_DTYPES, FLOAT_DTYPES, SWEEP_DTYPES, Tally, make_inputs, realize, run_case, sample, tensor,
                        torch)

SHAPE, ROW = (3, 5), (5,)

# Float-valued math (integers become the default float): name -> input domain ('any', 'positive', 'unit').
FLOAT_MATH = {
    "sqrt": "any", "rsqrt": "any", "exp": "any", "exp2": "any", "expm1": "any", "log": "any", "log2": "any",
    "log10": "any", "log1p": "any", "sin": "any", "cos": "any", "tan": "any", "asin": "unit", "acos": "unit",
    "atan": "any", "sinh": "any", "cosh": "any", "tanh": "any", "asinh": "any", "acosh": "any", "atanh": "unit",
    "sigmoid": "any", "erf": "any", "erfc": "any", "erfinv": "unit", "lgamma": "positive", "digamma": "positive",
    "reciprocal": "any", "sinc": "any", "i0": "any", "angle": "any", "deg2rad": "any", "rad2deg": "any",
}
# Bools and all integer dtypes go the same way there, so int64 stands for them.
FLOAT_MATH_DTYPES = ("int64", *FLOAT_DTYPES, "complex64")

# Unary ops that keep (or test) the input's dtype, over every dtype.
UNARY = {
    "neg": "any", "positive": "any", "abs": "any", "sign": "any", "sgn": "any", "floor": "any", "ceil": "any",
    "trunc": "any", "frac": "any", "round": "any", "relu": "any", "square": "any", "conj": "any",
    "nan_to_num": "any", "bitwise_not": "any", "logical_not": "any",
    "isnan": "any", "isinf": "any", "isfinite": "any", "isposinf": "any", "isneginf": "any", "signbit": "any",
    "isreal": "any",
}

# name: (domain of the first operand, domain of the second).
BINARY = {
    "add": ("any", "any"), "sub": ("any", "any"), "mul": ("any", "any"), "div": ("any", "any"),
    "true_divide": ("any", "any"), "floor_divide": ("any", "positive"), "remainder": ("any", "positive"),
    "fmod": ("any", "positive"), "pow": ("any", "small"), "atan2": ("any", "any"), "maximum": ("any", "any"),
    "minimum": ("any", "any"), "fmax": ("any", "any"), "fmin": ("any", "any"), "hypot": ("any", "any"),
    "copysign": ("any", "any"), "logaddexp": ("any", "any"), "xlogy": ("any", "positive"),
    "bitwise_and": ("any", "any"), "bitwise_or": ("any", "any"), "bitwise_xor": ("any", "any"),
    "bitwise_left_shift": ("small", "small"), "bitwise_right_shift": ("any", "small"),
    "eq": ("any", "any"), "ne": ("any", "any"), "lt": ("any", "any"), "le": ("any", "any"), "gt": ("any", "any"),
    "ge": ("any", "any"), "logical_and": ("any", "any"), "logical_or": ("any", "any"),
    "logical_xor": ("any", "any"), "heaviside": ("any", "any"), "ldexp": ("any", "small"),
    "nextafter": ("any", "any"), "gcd": ("any", "any"), "lcm": ("any", "any"),
}

# Python operators: (operator, domain of the right operand).
OPERATORS = {
    "+": (operator.add, "any"), "-": (operator.sub, "any"), "*": (operator.mul, "any"),
    "/": (operator.truediv, "positive"), "//": (operator.floordiv, "positive"), "%": (operator.mod, "positive"),
    "**": (operator.pow, "small"), "&": (operator.and_, "any"), "|": (operator.or_, "any"),
    "^": (operator.xor, "any"), "<<": (operator.lshift, "small"), ">>": (operator.rshift, "small"),
    "==": (operator.eq, "any"), "<": (operator.lt, "any"), ">=": (operator.ge, "any"),
}
# The scalars each operator meets on either side (integer divisors stay nonzero: PyTorch raises there).
SCALARS = {"int": 3, "float": 2.5}
OPERATOR_DTYPES = ("bool", "int32", "float32")


def _rng(*key) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def _method_too(name: str):
    """Calls `lib.name(*args)` and, where torch has it, `args[0].name(*rest)` (cheap: the same kernel)."""
    has_method = hasattr(torch.Tensor, name)

    def call(lib, *args):
        result = getattr(lib, name)(*args)
        return (result, getattr(args[0], name)(*args[1:])) if has_method else result

    return call


def _unary_cases(name: str, domain: str, dtypes: tuple) -> None:
    tally, call = Tally(), _method_too(name)
    for dtype in dtypes:
        made = make_inputs([(dtype, SHAPE, domain)], _rng(name, dtype))
        tally.check(f"{name}[{dtype}]", call, lambda lib: realize(lib, made))
    tally.assert_clean(len(dtypes))


@pytest.mark.parametrize("name", FLOAT_MATH)
def test_float_math(name):
    _unary_cases(name, FLOAT_MATH[name], FLOAT_MATH_DTYPES)


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    _unary_cases(name, UNARY[name], SWEEP_DTYPES)


@pytest.mark.parametrize("name", BINARY)
def test_binary(name):
    tally, call = Tally(), _method_too(name)
    left, right = BINARY[name]
    for dtype in SWEEP_DTYPES:
        made = make_inputs([(dtype, SHAPE, left), (dtype, ROW, right)], _rng(name, dtype))
        tally.check(f"{name}[{dtype}]", call, lambda lib: realize(lib, made))
    tally.assert_clean(len(SWEEP_DTYPES))


@pytest.mark.parametrize("symbol", OPERATORS)
def test_operator_with_scalars(symbol):
    """`t op s` and `s op t` (the reflected dunder) for int and float scalars, and `t op t`."""
    fn, domain = OPERATORS[symbol]
    tally = Tally()
    for dtype in OPERATOR_DTYPES:
        made = make_inputs([(dtype, SHAPE, domain), (dtype, ROW, domain)], _rng(symbol, dtype))
        tally.check(f"t {symbol} t [{dtype}]", lambda lib, x, y: fn(x, y), lambda lib: realize(lib, made))
        for kind, scalar in SCALARS.items():
            tally.check(f"t {symbol} {kind} [{dtype}]", lambda lib, x, s: fn(x, s),
                        lambda lib: realize(lib, made)[:1] + [scalar])
            tally.check(f"{kind} {symbol} t [{dtype}]", lambda lib, x, s: fn(s, x),
                        lambda lib: realize(lib, made)[1:] + [scalar])
    tally.assert_clean(len(OPERATOR_DTYPES) * (1 + 2 * len(SCALARS)))


UNARY_OPERATORS = {"-t": operator.neg, "abs(t)": abs, "~t": operator.invert, "+t": operator.pos}


def test_unary_operators():
    tally = Tally()
    for label, fn in UNARY_OPERATORS.items():
        for dtype in ALL_DTYPES:
            made = make_inputs([(dtype, SHAPE)], _rng(label, dtype))
            tally.check(f"{label} [{dtype}]", lambda lib, x: fn(x), lambda lib: realize(lib, made))
    tally.assert_clean(len(UNARY_OPERATORS) * len(ALL_DTYPES))


def test_promotion_across_dtypes():
    """PyTorch's result dtype for every pair of dimensioned tensors, through `+`."""
    tally = Tally()
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            made = make_inputs([(a, ROW), (b, ROW)], _rng("promote", a, b))
            tally.check(f"{a} + {b}", lambda lib, x, y: x + y, lambda lib: realize(lib, made))
    tally.assert_clean(len(ALL_DTYPES) ** 2)


PROMOTION_OPS = {"add": operator.add, "mul": operator.mul, "div": operator.truediv, "lt": operator.lt}
_OPERAND = st.one_of(
    st.tuples(st.sampled_from(ALL_DTYPES), st.sampled_from([(), ROW])),
    st.sampled_from([(True,), (2,), (-1.5,), (1 + 2j,)]),
)


@settings(max_examples=20, deadline=None)
@given(op=st.sampled_from(sorted(PROMOTION_OPS)), left=_OPERAND, right=_OPERAND)
def test_promotion_with_zero_dim_and_scalars(op, left, right):
    """0-dim tensors and Python scalars take part by category only."""
    if len(left) == 1 and len(right) == 1:
        left = ("int64", ())
    made = make_inputs([x if len(x) > 1 else x[0] for x in (left, right)], np.random.default_rng(0))
    # A complex scalar or 0-dim tensor makes float16 complex32, a dtype JAX does not have (pjtorch widens it).
    assume(torch.result_type(*realize(torch, made)) != torch.complex32)
    run_case(f"{left} {op} {right}", lambda lib, x, y: PROMOTION_OPS[op](x, y), lambda lib: realize(lib, made))


# Ops with scalar options or several tensors: label -> (call, input specs).
OTHERS = {
    "clamp(min, max)": (lambda lib, x: lib.clamp(x, -1, 2), [("float32", SHAPE)]),
    "clamp(float bounds) of int": (lambda lib, x: lib.clamp(x, min=-1.5), [("int64", SHAPE)]),
    "clamp(int max) of int": (lambda lib, x: x.clamp(max=2), [("int32", SHAPE)]),
    "clamp(tensor bounds)": (lambda lib, x, lo, hi: lib.clamp(x, lo, hi),
                             [("float32", SHAPE), ("float32", ROW), ("float32", ())]),
    "clamp(tensor min only)": (lambda lib, x, lo: x.clamp(min=lo), [("float64", SHAPE), ("float64", ROW)]),
    "clamp(no bounds)": (lambda lib, x: lib.clamp(x), [("float32", SHAPE)]),
    "clip": (lambda lib, x: lib.clip(x, 0, 1), [("float32", SHAPE)]),
    "clamp_min": (lambda lib, x: lib.clamp_min(x, 0.5), [("float32", SHAPE)]),
    "clamp_max": (lambda lib, x: x.clamp_max(0.5), [("float32", SHAPE)]),
    "lerp(scalar weight)": (lambda lib, a, b: lib.lerp(a, b, 0.25), [("float32", SHAPE), ("float32", ROW)]),
    "lerp(tensor weight)": (lambda lib, a, b, w: a.lerp(b, w),
                            [("float32", SHAPE), ("float32", ROW), ("float32", SHAPE, "unit")]),
    "lerp(int)": (lambda lib, a, b: lib.lerp(a, b, 0.5), [("int64", SHAPE), ("int64", ROW)]),
    "lerp(mixed dtypes)": (lambda lib, a, b: lib.lerp(a, b, 0.5), [("float32", SHAPE), ("float64", ROW)]),
    "lerp(weight dtype)": (lambda lib, a, w: lib.lerp(a, a, w), [("float32", SHAPE), ("float64", ROW, "unit")]),
    "lerp(0-dim weight dtype)": (lambda lib, a, w: lib.lerp(a, a, w), [("float16", SHAPE), ("float64", (), "unit")]),
    "lerp(float16)": (lambda lib, a, b: lib.lerp(a, b, 0.3), [("float16", SHAPE), ("float16", ROW)]),
    "addcmul": (lambda lib, x, a, b: lib.addcmul(x, a, b, value=0.5),
                [("float32", SHAPE), ("float32", ROW), ("float32", SHAPE)]),
    "addcmul(int)": (lambda lib, x, a, b: x.addcmul(a, b, value=2),
                     [("int64", SHAPE), ("int64", ROW), ("int64", SHAPE)]),
    "addcdiv": (lambda lib, x, a, b: lib.addcdiv(x, a, b, value=2),
                [("float64", SHAPE), ("float64", ROW), ("float64", SHAPE, "positive")]),
    "addcdiv(int)": (lambda lib, x, a, b: lib.addcdiv(x, a, b),
                     [("int64", SHAPE), ("int64", ROW), ("int64", SHAPE, "positive")]),
    "div(rounding_mode=floor)": (lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
                                 [("float32", SHAPE), ("float32", ROW, "positive")]),
    "div(rounding_mode=trunc) int": (lambda lib, a, b: a.div(b, rounding_mode="trunc"),
                                     [("int64", SHAPE), ("int64", ROW, "positive")]),
    "div(rounding_mode=bad)": (lambda lib, a, b: lib.div(a, b, rounding_mode="ceil"),
                               [("float32", SHAPE), ("float32", ROW)]),
    "add(alpha)": (lambda lib, a, b: lib.add(a, b, alpha=2), [("int64", SHAPE), ("int64", ROW)]),
    "sub(alpha float)": (lambda lib, a, b: lib.sub(a, b, alpha=0.5), [("float32", SHAPE), ("float32", ROW)]),
    "sub(bool, bool)": (lambda lib, a, b: a - b, [("bool", SHAPE), ("bool", ROW)]),
    "sub(bool, True)": (lambda lib, a: a - True, [("bool", SHAPE)]),
    "sub(int, True)": (lambda lib, a: lib.sub(a, True), [("int64", SHAPE)]),
    "rsub(bool)": (lambda lib, a: 1 - a, [("bool", SHAPE)]),
    "sub_(bool)": (lambda lib, a, b: a.sub_(b), [("int64", SHAPE), ("bool", ROW)]),
    "div(floor) of bool": (lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), [("bool", SHAPE), ("bool", ROW)]),
    "div(trunc) of complex": (lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
                              [("complex64", SHAPE), ("complex64", ROW)]),
    "div_(rounding_mode)": (lambda lib, a, b: a.div_(b, rounding_mode="floor"),
                            [("int32", SHAPE), ("int32", ROW, "positive")]),
    "add_ (broadcasts the other)": (lambda lib, a, b: a.add_(b), [("float32", SHAPE), ("float32", ROW)]),
    "mul_ int by float": (lambda lib, a: a.mul_(2.5), [("int64", SHAPE)]),
    "iadd float by int": (lambda lib, a, b: a.__iadd__(b), [("float16", SHAPE), ("int64", ROW)]),
    "clamp_ int by float": (lambda lib, a: a.clamp_(min=0.5), [("int64", SHAPE)]),
    "clamp(bool, bool)": (lambda lib, a: lib.clamp(a, True), [("bool", SHAPE)]),
    "clamp(bool, int bounds)": (lambda lib, a: lib.clamp(a, 0, 1), [("bool", SHAPE)]),
    "clamp(complex)": (lambda lib, a: lib.clamp(a, 0, 1), [("complex64", SHAPE)]),
    "rsub": (lambda lib, a: lib.rsub(a, 2), [("float32", SHAPE)]),
    "pow(int tensor, negative int)": (lambda lib, a: a ** -2, [("int64", SHAPE, "positive")]),
    "pow(float tensor, negative int)": (lambda lib, a: a ** -2, [("float32", SHAPE, "positive")]),
    "pow(scalar base, tensor)": (lambda lib, a: lib.pow(2, a), [("int64", SHAPE, "small")]),
    "pow(int, negative int tensor)": (lambda lib, a, b: a ** b, [("int64", SHAPE), ("int64", ROW)]),
    "pow(int scalar, negative int tensor)": (lambda lib, b: (-1) ** b, [("int32", SHAPE)]),
    "pow(bool tensor, int)": (lambda lib, a: a ** 2, [("bool", SHAPE)]),
    "pow_(int, negative int)": (lambda lib, a: a.pow_(-1), [("int64", SHAPE, "positive")]),
    "pow(tensor, float exponent)": (lambda lib, a: lib.pow(a, 0.5), [("float32", SHAPE, "positive")]),
    "pow(int tensor, float exponent)": (lambda lib, a: a.pow(1.5), [("int32", SHAPE, "positive")]),
    "float_power": (lambda lib, a, b: lib.float_power(a, b), [("int64", SHAPE), ("float32", ROW, "small")]),
    "round(decimals)": (lambda lib, a: lib.round(a * 1.37, decimals=1), [("float64", SHAPE)]),
    "nan_to_num(nan, posinf)": (lambda lib, a: lib.nan_to_num(a.log(), nan=7.0, neginf=-9.0),
                                [("float32", SHAPE)]),
    "where": (lambda lib, c, a, b: lib.where(c, a, b), [("bool", SHAPE), ("float32", SHAPE), ("float32", ROW)]),
    "where(mixed dtypes)": (lambda lib, c, a, b: lib.where(c, a, b),
                            [("bool", SHAPE), ("int64", SHAPE), ("float32", ROW)]),
    "where(scalars)": (lambda lib, c: lib.where(c, 1.5, 0), [("bool", SHAPE)]),
    "where(scalar, tensor)": (lambda lib, c, b: lib.where(c, 2, b), [("bool", SHAPE), ("int32", ROW)]),
    "where(tensor method)": (lambda lib, c, a: a.where(c, -1.0), [("bool", SHAPE), ("float64", SHAPE)]),
    "where(non-bool condition)": (lambda lib, c, a, b: lib.where(c, a, b),
                                  [("uint8", SHAPE), ("float32", SHAPE), ("float32", ROW)]),
    "where(condition only)": (lambda lib, c: lib.where(c), [("bool", SHAPE)]),
    "isclose": (lambda lib, a, b: lib.isclose(a, b + 1e-6), [("float32", SHAPE), ("float32", ROW)]),
    "isclose(rtol, atol, equal_nan)": (
        lambda lib, a, b: lib.isclose(a.sqrt(), b.sqrt() + 0.1, rtol=0.0, atol=0.2, equal_nan=True),
        [("float64", SHAPE), ("float64", SHAPE)]),
    "isclose(int)": (lambda lib, a, b: lib.isclose(a, b), [("int64", SHAPE), ("int64", ROW)]),
    "isclose(dtype mismatch)": (lambda lib, a, b: lib.isclose(a, b), [("float32", SHAPE), ("float64", SHAPE)]),
    "allclose(true)": (lambda lib, a: lib.allclose(a, a + 1e-7), [("float32", SHAPE)]),
    "allclose(false)": (lambda lib, a: a.allclose(a + 1), [("float32", SHAPE)]),
    "allclose(broadcast)": (lambda lib, a, b: lib.allclose(a, b), [("float32", SHAPE), ("float32", ROW)]),
    "equal(same)": (lambda lib, a: lib.equal(a, a.clone()), [("int64", SHAPE)]),
    "equal(different values)": (lambda lib, a: lib.equal(a, a + 1), [("int64", SHAPE)]),
    "equal(different shapes)": (lambda lib, a, b: lib.equal(a, b), [("float32", SHAPE), ("float32", ROW)]),
    "equal(different dtypes)": (lambda lib, a: a.equal(a.double()), [("float32", SHAPE)]),
    "logical_and(mixed)": (lambda lib, a, b: lib.logical_and(a, b), [("float32", SHAPE), ("int64", ROW)]),
    "bitwise_and(bool, int)": (lambda lib, a, b: a & b, [("bool", SHAPE), ("int32", ROW)]),
    "maximum(int, float)": (lambda lib, a, b: lib.maximum(a, b), [("int64", SHAPE), ("float16", ROW)]),
    "atan2(int)": (lambda lib, a, b: lib.atan2(a, b), [("int64", SHAPE), ("int64", ROW)]),
    "remainder(negative divisor)": (lambda lib, a: a % -3, [("int64", SHAPE)]),
    "fmod(negative divisor)": (lambda lib, a: lib.fmod(a, -1.5), [("float32", SHAPE)]),
    "floor_divide(negative)": (lambda lib, a: a // -2.5, [("float32", SHAPE)]),
    "comparison with 0-dim tensor": (lambda lib, a, b: a > b, [("float32", SHAPE), ("float64", ())]),
    "eq with float scalar on int": (lambda lib, a: a == 1.0, [("int64", SHAPE)]),
    "add complex scalar": (lambda lib, a: a + 1j, [("float32", SHAPE)]),
    "mul complex by int": (lambda lib, a, b: a * b, [("complex64", SHAPE), ("int64", ROW)]),
    "div by zero (float)": (lambda lib, a: a / 0, [("float32", SHAPE)]),
    "int tensor / 0-dim float16": (lambda lib, a, b: a / b, [("int64", SHAPE), ("float16", (), "positive")]),
    "relu of int": (lambda lib, a: lib.relu(a), [("int64", SHAPE)]),
    "sigmoid of float16": (lambda lib, a: a.sigmoid(), [("float16", SHAPE)]),
    # Ops that take tensors only, with PyTorch's own dtype rules.
    "heaviside(mixed dtypes)": (lambda lib, a, b: lib.heaviside(a, b), [("float32", SHAPE), ("float64", ROW)]),
    "heaviside(0-dim of another dtype)": (lambda lib, a, b: a.heaviside(b), [("int64", SHAPE), ("int32", ())]),
    "heaviside(number)": (lambda lib, a: lib.heaviside(a, 0.5), [("float32", SHAPE)]),
    "heaviside(complex)": (lambda lib, a, b: lib.heaviside(a, b), [("complex64", SHAPE), ("float32", ROW)]),
    "heaviside_(mixed dtypes)": (lambda lib, a, b: a.heaviside_(b), [("float32", SHAPE), ("int64", ROW)]),
    "ldexp(int, int)": (lambda lib, a, b: lib.ldexp(a, b), [("int32", SHAPE), ("int64", ROW, "small")]),
    "ldexp(float16, float32)": (lambda lib, a, b: lib.ldexp(a, b), [("float16", SHAPE), ("float32", ROW, "small")]),
    "ldexp(float32, 0-dim float64)": (lambda lib, a, b: a.ldexp(b), [("float32", SHAPE), ("float64", (), "small")]),
    "ldexp(complex)": (lambda lib, a, b: lib.ldexp(a, b), [("complex64", SHAPE), ("int64", ROW, "small")]),
    "ldexp(number)": (lambda lib, a: lib.ldexp(a, 2), [("float32", SHAPE)]),
    "ldexp_(int target)": (lambda lib, a, b: a.ldexp_(b), [("int64", SHAPE), ("int64", ROW, "small")]),
    "ldexp_(bool target)": (lambda lib, a, b: a.ldexp_(b), [("bool", SHAPE), ("float32", ROW, "small")]),
    "ldexp_(float32 by float64)": (lambda lib, a, b: a.ldexp_(b), [("float32", SHAPE), ("float64", ROW, "small")]),
    "nextafter(int, float)": (lambda lib, a, b: lib.nextafter(a, b), [("int64", SHAPE), ("float32", ROW)]),
    "nextafter(float16, float32)": (lambda lib, a, b: lib.nextafter(a, b), [("float16", SHAPE), ("float32", ROW)]),
    "nextafter(int, int)": (lambda lib, a, b: lib.nextafter(a, b), [("int32", SHAPE), ("int64", ROW)]),
    "nextafter(0-dim float64)": (lambda lib, a, b: lib.nextafter(a, b), [("float32", SHAPE), ("float64", ())]),
    "nextafter_(int target)": (lambda lib, a, b: a.nextafter_(b), [("int64", SHAPE), ("float32", ROW)]),
    "gcd(int32, int64)": (lambda lib, a, b: lib.gcd(a, b), [("int32", SHAPE), ("int64", ROW)]),
    "gcd(uint8, bool)": (lambda lib, a, b: lib.gcd(a, b), [("uint8", SHAPE), ("bool", ROW)]),
    "gcd(int, float)": (lambda lib, a, b: lib.gcd(a, b), [("int64", SHAPE), ("float32", ROW)]),
    "gcd(number)": (lambda lib, a: a.gcd(2), [("int64", SHAPE)]),
    "gcd(number, tensor)": (lambda lib, a: lib.gcd(2, a), [("int64", SHAPE)]),
    "lcm(0-dim int32)": (lambda lib, a, b: lib.lcm(a, b), [("int64", SHAPE), ("int32", ())]),
    "lcm_(int32 by int64)": (lambda lib, a, b: a.lcm_(b), [("int32", SHAPE), ("int64", ROW)]),
    "lcm_(int by float)": (lambda lib, a, b: a.lcm_(b), [("int64", SHAPE), ("float32", ROW)]),
    "deg2rad_(int)": (lambda lib, a: a.deg2rad_(), [("int64", SHAPE)]),
    "rad2deg_(float16)": (lambda lib, a: a.rad2deg_(), [("float16", SHAPE)]),
    # Integer division by zero raises on the CPU (data-dependent); floating division gives inf and nan.
    "int // 0": (lambda lib, a: a // 0, [("int64", SHAPE)]),
    "int % 0": (lambda lib, a: a % 0, [("int32", SHAPE)]),
    "uint8 // 0-tensor": (lambda lib, a, b: a // (b * 0), [("uint8", SHAPE), ("uint8", ROW)]),
    "int % tensor with a 0": (lambda lib, a, b: a % b, [("int64", SHAPE), ("int64", ROW, "small")]),
    "fmod(int, 0)": (lambda lib, a: lib.fmod(a, 0), [("int64", SHAPE)]),
    "remainder(int, bool tensor)": (lambda lib, a, b: lib.remainder(a, b), [("int64", SHAPE), ("bool", ROW)]),
    "div(int, 0, floor)": (lambda lib, a: lib.div(a, 0, rounding_mode="floor"), [("int64", SHAPE)]),
    "div(int, 0-tensor, trunc)": (lambda lib, a, b: a.div(b * 0, rounding_mode="trunc"),
                                  [("int32", SHAPE), ("int32", ())]),
    "floor_divide_(int, 0)": (lambda lib, a: a.floor_divide_(0), [("int64", SHAPE)]),
    "int //= 0-tensor": (lambda lib, a, b: a.__ifloordiv__(b * 0), [("int64", SHAPE), ("int64", ())]),
    "number // int tensor with a 0": (lambda lib, a: 7 // a, [("int64", SHAPE, "small")]),
    "number % int tensor with a 0": (lambda lib, a: 7 % a, [("uint8", SHAPE, "small")]),
    "int // 0.0": (lambda lib, a: a // 0.0, [("int64", SHAPE)]),
    "int % 0.0": (lambda lib, a: a % 0.0, [("int64", SHAPE)]),
    "int / 0": (lambda lib, a: a / 0, [("int64", SHAPE)]),
    "int // 0-dim float 0": (lambda lib, a, b: a // (b * 0), [("int64", SHAPE), ("float32", ())]),
    "float // 0": (lambda lib, a: a // 0, [("float32", SHAPE)]),
    "float % float tensor with a 0": (lambda lib, a, b: a % b, [("float64", SHAPE), ("float64", ROW, "small")]),
    # A bool operand keeps IEEE arithmetic: False * inf and False / 0 are nan.
    "bool * inf": (lambda lib, a: a * float("inf"), [("bool", SHAPE)]),
    "bool * inf tensor": (lambda lib, a, b: a * (b / 0), [("bool", SHAPE), ("float32", ROW, "positive")]),
    "bool / bool": (lambda lib, a, b: a / b, [("bool", SHAPE), ("bool", ROW)]),
    "bool / 0": (lambda lib, a: lib.true_divide(a, 0), [("bool", SHAPE)]),
    "bool + nan": (lambda lib, a: a + float("nan"), [("bool", SHAPE)]),
}


# Cases whose error message must be PyTorch's too, not only its exception type.
EXACT_MESSAGES = {
    "heaviside(mixed dtypes)", "heaviside(0-dim of another dtype)", "heaviside(number)", "heaviside(complex)",
    "heaviside_(mixed dtypes)", "ldexp(number)", "ldexp_(int target)", "ldexp_(bool target)",
    "nextafter_(int target)", "gcd(number, tensor)", "lcm_(int by float)", "deg2rad_(int)", "int // 0", "int % 0",
    "uint8 // 0-tensor", "int % tensor with a 0", "fmod(int, 0)", "remainder(int, bool tensor)",
    "div(int, 0, floor)", "div(int, 0-tensor, trunc)", "floor_divide_(int, 0)", "int //= 0-tensor",
    "number // int tensor with a 0", "number % int tensor with a 0",
}


@pytest.mark.filterwarnings("ignore:where received a uint8 condition tensor")
def test_other_pointwise():
    tally = Tally()
    for label, (fn, specs) in OTHERS.items():
        made = make_inputs(specs, _rng(label))
        tally.check(label, fn, lambda lib: realize(lib, made), message=label in EXACT_MESSAGES)
    tally.assert_clean(len(OTHERS))
    assert EXACT_MESSAGES <= set(OTHERS)


@pytest.mark.parametrize("shape", [(), (0,), (2, 0, 3)])
def test_zero_dim_and_empty(shape):
    """Unary, binary and scalar forms keep 0-dim and empty shapes, as PyTorch does."""
    tally = Tally()
    for dtype in ("int64", "float32"):
        made = make_inputs([(dtype, shape), (dtype, shape[-1:] if shape else ())], _rng(shape, dtype))
        for label, fn in {"exp": lambda lib, x, y: x.exp(), "neg": lambda lib, x, y: -x,
                          "add": lambda lib, x, y: x + y, "mul scalar": lambda lib, x, y: 2.5 * x,
                          "lt": lambda lib, x, y: x < y, "where": lambda lib, x, y: lib.where(x > 0, x, y)}.items():
            tally.check(f"{label}{shape}[{dtype}]", fn, lambda lib: realize(lib, made))
    tally.assert_clean(12)


BROADCAST_ERROR = "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 1"


def test_broadcast_error_message():
    made = make_inputs([("float32", (2, 3)), ("float32", (2, 4))], _rng("broadcast"))
    run_case("(2, 3) + (2, 4)", lambda lib, a, b: a + b, lambda lib: realize(lib, made), message=True)


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_broadcasting(data):
    """Random shape pairs: broadcast where PyTorch does, the same error where it does not."""
    ndim = data.draw(st.integers(0, 3), label="ndim")
    left = data.draw(st.lists(st.sampled_from([1, 2, 3]), min_size=ndim, max_size=ndim), label="left")
    right = data.draw(st.lists(st.sampled_from([1, 2, 3]), min_size=0, max_size=3), label="right")
    made = make_inputs([("float32", tuple(left)), ("int32", tuple(right))], np.random.default_rng(1))
    run_case(f"{left} * {right}", lambda lib, a, b: a * b, lambda lib: realize(lib, made), message=True)


def test_values_print_as_torch():
    """Results print exactly as PyTorch prints them."""
    values = sample("float32", SHAPE, _rng("repr"))
    for fn in (lambda lib, x: x.exp(), lambda lib, x: x // 2, lambda lib, x: (x * 3).to(lib.int32) % 4,
               lambda lib, x: x > 0, lambda lib, x: x.to(lib.float16).sigmoid(), lambda lib, x: x.sum() / 7):
        expected, actual = (repr(fn(lib, tensor(lib, values, "float32"))) for lib in (torch, __import__("pjtorch")))
        assert actual == expected


def test_inplace_into_smaller_shape():
    made = make_inputs([("float32", ROW), ("float32", SHAPE)], _rng("inplace"))
    run_case("(5,).add_((3, 5))", lambda lib, a, b: a.add_(b), lambda lib: realize(lib, made), message=True)


def test_table_sizes():
    assert (len(FLOAT_MATH), len(UNARY), len(BINARY), len(OPERATORS), len(OTHERS)) == (33, 23, 37, 15, 137)
