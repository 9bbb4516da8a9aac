"""Regressions found by differential fuzzing against PyTorch 2.13: each test compares pjtorch with real torch
(result dtype, shape, strides, values, exception type and message, gradients and grad_fn names)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

import pjtorch as pt  # noqa: E402
import pjtorch.nn.functional as PF  # noqa: E402

LIBS = (torch, pt)
FUNCTIONAL = {torch: TF, pt: PF}
DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64")


def _make(lib, values: np.ndarray, dtype: str, requires_grad: bool = False):
    if dtype == "bfloat16":
        t = lib.from_numpy(np.asarray(values, np.float32)).to(lib.bfloat16)
    else:
        t = lib.from_numpy(np.array(values).astype(dtype))
    return t.requires_grad_() if requires_grad else t


def _values(shape, dtype: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) > 0.5
    if dtype == "uint8":
        return rng.integers(0, 10, shape)
    if dtype.startswith("int"):
        return rng.integers(-5, 5, shape)
    if dtype.startswith("complex"):
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return np.round(rng.standard_normal(shape) * 2, 2)


def _outcome(fn, lib):
    try:
        return "ok", fn(lib)
    except Exception as error:  # noqa: BLE001 - the exception itself is compared
        return "error", error


def _assert_same(expected, found) -> None:
    if isinstance(expected, torch.Tensor):
        assert isinstance(found, pt.Tensor), found
        assert str(found.dtype) == str(expected.dtype)
        assert tuple(found.shape) == tuple(expected.shape)
        if expected.numel():
            assert tuple(found.stride()) == tuple(expected.stride())
        want = expected.detach().to(torch.complex128 if expected.is_complex() else torch.float64).numpy(force=True)
        got = found.detach()
        got = np.asarray((got.float() if got.dtype is pt.bfloat16 else got).numpy()).astype(want.dtype)
        loose = expected.dtype in (torch.float16, torch.bfloat16)
        np.testing.assert_allclose(got, want, rtol=2e-2 if loose else 1e-5, atol=2e-2 if loose else 1e-6)
    elif isinstance(expected, (tuple, list)):
        assert len(found) == len(expected)
        for e, f in zip(expected, found):
            _assert_same(e, f)
    else:
        assert found == expected


def check(fn) -> None:
    """fn(lib) in torch and pjtorch: the same result, or the same exception type and first message line."""
    (kind_t, value_t), (kind_p, value_p) = _outcome(fn, torch), _outcome(fn, pt)
    if kind_t == "error":
        assert kind_p == "error", f"torch raised {value_t!r}, pjtorch returned {value_p!r}"
        assert type(value_p).__name__ == type(value_t).__name__, (value_t, value_p)
        assert str(value_p).split("\n")[0] == str(value_t).split("\n")[0]
        return
    assert kind_p == "ok", f"pjtorch raised {value_p!r}"
    _assert_same(value_t, value_p)


def check_grad(fn, values: np.ndarray, dtype: str = "float32") -> None:
    """The gradient of a weighted sum of fn(x), and the result's grad_fn name."""
    def run(lib):
        x = _make(lib, values, dtype, requires_grad=True)
        y = fn(lib, x)
        weights = lib.arange(y.numel()).reshape(y.shape).to(y.dtype)
        (y * weights).sum().backward()
        return x.grad, y.grad_fn.name()

    check(run)


# ----- error messages name PyTorch's CPU kernels -----------------------------------------------------------

KERNEL_ERRORS = [
    ("abs", "bool"), ("floor", "bool"), ("frac", "int64"), ("round", "complex64"), ("erf", "complex64"),
    ("lgamma", "complex64"), ("logit", "complex64"), ("bitwise_not", "float32"), ("i0", "complex64"),
]


@pytest.mark.parametrize("name,dtype", KERNEL_ERRORS)
def test_unary_refusal_names_the_cpu_kernel(name, dtype):
    check(lambda lib: getattr(lib, name)(_make(lib, _values((2,), dtype), dtype)))


@pytest.mark.parametrize("name,a,b", [
    ("floor_divide", "bool", "bool"), ("remainder", "bool", "complex64"), ("bitwise_and", "float32", "float32"),
    ("bitwise_left_shift", "float32", "int64"), ("lt", "complex64", "complex64"), ("atan2", "complex64", "float32"),
])
def test_binary_refusal_names_the_cpu_kernel(name, a, b):
    check(lambda lib: getattr(lib, name)(_make(lib, _values((2,), a), a), _make(lib, _values((2,), b, 1), b)))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_div_refusal_names_the_kernel(mode):
    check(lambda lib: lib.div(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool), rounding_mode=mode))


@pytest.mark.parametrize("name,dim,shape", [("softmax", -1, (2, 3)), ("softmax", 0, (2, 3)),
                                            ("log_softmax", 0, (2, 3)), ("log_softmax", 0, ())])
def test_softmax_refusal_names_the_kernel(name, dim, shape):
    check(lambda lib: getattr(lib, name)(lib.ones(shape, dtype=lib.int64), dim))


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2, dtype=lib.complex64).amax(), lambda lib: lib.ones(2, dtype=lib.complex64).max(),
    lambda lib: lib.ones(2, dtype=lib.bool).median(), lambda lib: lib.ones(2, dtype=lib.bool).kthvalue(1),
    lambda lib: lib.ones(2, dtype=lib.int64).logcumsumexp(0),
    lambda lib: lib.addcmul(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.bool)),
])
def test_reduction_refusal_names_the_kernel(fn):
    check(fn)


# ----- unary values, dtypes and gradients -------------------------------------------------------------------

def test_digamma_at_zero_and_log1p_grad_name():
    check(lambda lib: lib.digamma(lib.tensor([0.0, -0.0, -2.0, 1.5])))
    check(lambda lib: lib.digamma(lib.tensor([True, False])))
    check_grad(lambda lib, x: lib.log1p(x), np.array([0.5, 1.0, 2.0]))


def test_angle_of_zero_dim_float_keeps_float32():
    for dtype in ("bool", "int32", "float32", "float16"):
        check(lambda lib: lib.angle(_make(lib, np.array(-1 if dtype != "bool" else True), dtype)))
    check(lambda lib: lib.angle(lib.tensor([-1.0, 0.0, 2.0, float("nan")])))


def test_logit_gradient_is_nan_outside_the_unit_interval():
    values = np.array([-0.5, 0.3, 1.5, 0.7])
    check_grad(lambda lib, x: lib.logit(x), values)
    check_grad(lambda lib, x: lib.logit(x, 0.1), values)
    check_grad(lambda lib, x: x.logit(eps=0.2), values)


def test_conj_and_positive_of_real_tensors_are_the_tensor_itself():
    for lib in LIBS:
        x = lib.ones(3, requires_grad=True)
        assert lib.conj(x) is x and lib.positive(x) is x and x.conj() is x and lib.real(x) is x
        assert lib.resolve_conj(x) is x and lib.resolve_neg(x) is x
    check(lambda lib: lib.imag(lib.ones(2)))
    check(lambda lib: lib.imag(lib.tensor([1 + 2j, 3 - 1j])).contiguous())  # (its strides: a views.py matter)
    check(lambda lib: lib.positive(lib.ones(2, dtype=lib.bool)))


def test_nan_to_num_takes_positional_options():
    check(lambda lib: lib.nan_to_num(lib.tensor([float("nan"), float("inf"), -float("inf"), 1.0]), 1.0, 2.0, -3.0))


# ----- activations ------------------------------------------------------------------------------------------

ACTIVATIONS = {
    "gelu": lambda F, x: F.gelu(x), "silu": lambda F, x: F.silu(x), "mish": lambda F, x: F.mish(x),
    "hardtanh": lambda F, x: F.hardtanh(x, -2.0, 0.5), "relu6": lambda F, x: F.relu6(x),
    "leaky_relu": lambda F, x: F.leaky_relu(x, 0.2), "elu": lambda F, x: F.elu(x),
    "softplus": lambda F, x: F.softplus(x), "hardsigmoid": lambda F, x: F.hardsigmoid(x),
    "hardswish": lambda F, x: F.hardswish(x), "logsigmoid": lambda F, x: F.logsigmoid(x),
    "selu": lambda F, x: F.selu(x), "celu": lambda F, x: F.celu(x, 0.5), "softsign": lambda F, x: F.softsign(x),
    "tanhshrink": lambda F, x: F.tanhshrink(x), "softshrink": lambda F, x: F.softshrink(x, 0.5),
    "hardshrink": lambda F, x: F.hardshrink(x, 0.5), "threshold": lambda F, x: F.threshold(x, 0.5, -1.0),
    "glu": lambda F, x: F.glu(x, -1), "rrelu": lambda F, x: F.rrelu(x, training=False),
    "prelu": lambda F, x: F.prelu(x, (torch if F is TF else pt).tensor([0.25], dtype=x.dtype)),
}


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_activation_dtypes_values_and_gradients(name):
    activation = ACTIVATIONS[name]
    for dtype in ("bool", "int64", "float16", "float32", "complex64"):
        values = _values((2, 4), dtype)
        check(lambda lib: activation(FUNCTIONAL[lib], _make(lib, values, dtype)))
    check_grad(lambda lib, x: activation(FUNCTIONAL[lib], x), _values((2, 4), "float32", 3))


def test_activation_argument_errors():
    check(lambda lib: FUNCTIONAL[lib].glu(lib.ones(3)))
    check(lambda lib: FUNCTIONAL[lib].glu(lib.ones(())))
    check(lambda lib: FUNCTIONAL[lib].prelu(lib.ones(2, 3, 4), lib.ones(4)))
    check(lambda lib: FUNCTIONAL[lib].hardtanh(lib.ones(3, dtype=lib.uint8)))
    check(lambda lib: FUNCTIONAL[lib].softshrink(lib.ones(3), -1.0))


# ----- reductions -------------------------------------------------------------------------------------------

def test_reduction_messages():
    check(lambda lib: lib.zeros(2, 0, 3).amax(-2))
    check(lambda lib: lib.zeros(2, 0, 3).amin((0, -2)))
    check(lambda lib: lib.ones(3, dtype=lib.int32).std())
    check(lambda lib: lib.var_mean(lib.ones(3, dtype=lib.int32)))
    check(lambda lib: lib.ones(3, dtype=lib.int32).nanmean())
    check(lambda lib: lib.ones(3, dtype=lib.complex64).nansum())


# ----- clamp ------------------------------------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(dtype=st.sampled_from(("bool", "int64", "int32", "float32")), which=st.sampled_from(("min", "max", "both")),
       tensor_bounds=st.booleans())
def test_clamp_keeps_the_dtype_and_names_its_grad_fn(dtype, which, tensor_bounds):
    values, bound = _values((2, 3), dtype), _values((3,), dtype, 1)

    def run(lib):
        x = _make(lib, values, dtype)
        lo = _make(lib, bound, dtype) if tensor_bounds else 0
        hi = _make(lib, bound, dtype) if tensor_bounds else 1
        kwargs = {"min": lo} if which == "min" else {"max": hi} if which == "max" else {"min": lo, "max": hi}
        return x.clamp(**kwargs)

    check(run)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.clamp(min=0), lambda lib, x: x.clamp(max=lib.zeros(3)), lambda lib, x: x.clamp(lib.zeros(3)),
    lambda lib, x: x.clamp_min(0.5), lambda lib, x: x.clamp_max(0.5), lambda lib, x: x.clamp_min(lib.zeros(3)),
    lambda lib, x: lib.clamp_max(x, lib.zeros(3)), lambda lib, x: x.clamp(-0.5, 0.5),
])
def test_clamp_gradients(fn):
    check_grad(fn, _values((2, 3), "float32"))


def test_clamp_mixed_bounds_is_a_type_error():
    check(lambda lib: lib.clamp(lib.ones(3), lib.zeros(3), 1.0))


@pytest.mark.parametrize("fn", [
    lambda b: b.clamp(True), lambda b: b.clamp(max=False), lambda b: b.clamp(False, True), lambda b: b.clamp(0),
    lambda b: b.clamp_min(True), lambda b: b.clamp_max(False), lambda b: b.clamp_min(0),
])
def test_clamp_of_bools(fn):
    check(lambda lib: fn(lib.tensor([True, False])))


# ----- shape ops --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("equation,shapes", [
    ("ij,j->i", [(2, 3), (3,)]), ("ij->j", [(2, 3)]), ("ij,ij->ij", [(2, 3), (2, 3)]),
    ("i,j", [(2,), (3,)]), ("ij,jk", [(2, 3), (3, 2)]),
])
def test_einsum_grad_fn_names(equation, shapes):
    def run(lib):
        operands = [_make(lib, _values(s, "float32", i), "float32", True) for i, s in enumerate(shapes)]
        y = lib.einsum(equation, *operands)
        y.sum().backward()
        return y, y.grad_fn.name(), [o.grad for o in operands]

    check(run)


def test_tensordot_grad_fn_name():
    check_grad(lambda lib, x: lib.tensordot(x, x, ([1], [1])), _values((2, 3), "float32"))


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.repeat_interleave(2), lambda lib, x: x.repeat_interleave(2, dim=1),
    lambda lib, x: x.repeat_interleave(lib.tensor([1, 2]), dim=0), lambda lib, x: x.repeat_interleave(lib.tensor(2)),
    lambda lib, x: x.sort(stable=True)[0], lambda lib, x: x.sort()[0], lambda lib, x: lib.sort(x, dim=0, stable=False)[0],
    lambda lib, x: x.scatter(1, lib.tensor([[0], [2]]), 5.0),
])
def test_shape_op_gradients_and_names(fn):
    check_grad(fn, _values((2, 3), "float32"))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16"])
def test_repeat_interleave_with_tensor_repeats(dtype):
    check(lambda lib: lib.repeat_interleave(_make(lib, _values((2, 3), dtype), dtype), lib.tensor([1, 2]), dim=0))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16"])
def test_cat_with_legacy_empty_tensor_promotes(dtype):
    check(lambda lib: lib.cat([_make(lib, _values((2, 3), dtype), dtype), lib.tensor([])]))


@settings(max_examples=20, deadline=None)
@given(shape=st.sampled_from([(), (0,), (4,), (2, 3), (2, 0, 3), (3, 1, 2)]), seed=st.integers(0, 99))
def test_nonzero_layout(shape, seed):
    values = _values(shape, "int64", seed) > 0
    check(lambda lib: _make(lib, values, "bool").nonzero())
    check(lambda lib: lib.argwhere(_make(lib, values, "bool")))


# ----- losses -----------------------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides")
@pytest.mark.parametrize("reduction", ["mean", "batchmean", "sum", "none"])
@pytest.mark.parametrize("log_target", [False, True])
def test_kl_div(reduction, log_target):
    target = np.random.default_rng(1).random((3, 4))
    target[0, 0] = 0.0

    def run(lib, x):
        t = _make(lib, np.log(target + 1e-3) if log_target else target, "float32")
        return FUNCTIONAL[lib].kl_div(x, t, reduction=reduction, log_target=log_target).reshape(-1)

    check_grad(run, _values((3, 4), "float32"))


def test_cosine_similarity():
    other = _values((3, 4), "float32", 2)
    check_grad(lambda lib, x: FUNCTIONAL[lib].cosine_similarity(x, _make(lib, other, "float32")), _values((3, 4), "float32"))
    check_grad(lambda lib, x: FUNCTIONAL[lib].cosine_similarity(x, _make(lib, other[:1], "float32"), dim=0),
               _values((3, 4), "float32"))


@pytest.mark.parametrize("dtype,value", [("uint8", -1), ("int8", 300), ("int8", -1000), ("int16", 2**40),
                                         ("int32", 2**63 - 1), ("uint8", 2**63 + 5)])
@pytest.mark.parametrize("op", ["add", "mul", "sub"])
def test_python_int_out_of_the_dtypes_range_wraps_as_in_torch(dtype, value, op):
    def run(lib):
        x = lib.tensor([1, 7], dtype=getattr(lib, dtype))
        return getattr(x, op)(value).tolist()

    assert run(pt) == run(torch)


def test_python_int_beyond_64_bits_raises_torchs_overflow_error():
    for lib in (pt, torch):
        with pytest.raises(OverflowError, match="int too big to convert"):
            lib.tensor([1]) + 2**70


# ----- layouts of casts and flips, in-place broadcast checks, argument parsing -------------------------------

@pytest.mark.parametrize("fn", [
    lambda lib: lib.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).to(lib.float64),
    lambda lib: lib.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).int(),
    lambda lib: lib.arange(24.0).reshape(2, 3, 4)[:, ::2].half(),
    lambda lib: lib.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1).flip(1, 2),
    lambda lib: lib.arange(6.0).reshape(2, 3).t().flip(0),
])
def test_casts_and_flips_keep_the_inputs_layout(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(1, 2, dtype=lib.int64).fmod_(lib.ones(3, 1)),
    lambda lib: lib.tensor([False]).add_(lib.tensor([[2]])),
    lambda lib: lib.ones(2, 3).add_(lib.ones(4, 3, dtype=lib.complex64)),
    lambda lib: lib.ones(2, 3)[:, 1].mul_(lib.ones(2, 2)),
    lambda lib: lib.ones(2).lerp_(lib.ones(3, 2), 0.5),
])
def test_inplace_checks_the_broadcast_shape_before_the_cast(fn):
    check(fn)


@pytest.mark.parametrize("fn", [
    lambda lib: lib.lerp(lib.ones(2, dtype=lib.bool), lib.ones(2, dtype=lib.int16), 2),
    lambda lib: lib.lerp(lib.ones(2, dtype=lib.int64), lib.ones(2, dtype=lib.int64), lib.ones(2)),
    lambda lib: lib.ones(2, dtype=lib.int8).lerp_(lib.ones(2, dtype=lib.int64), 0.5),
    lambda lib: lib.ones(2, dtype=lib.int64).lerp_(lib.ones(2, dtype=lib.int64), 0.5),
])
def test_lerp_checks_dtypes_before_the_kernel(fn):
    check(fn)


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "hypot", "logical_and", "logical_or",
                                  "logical_xor", "logaddexp", "logaddexp2", "atan2", "gcd"])
def test_binary_ops_without_a_scalar_overload_refuse_numbers(name):
    x = lambda lib: lib.arange(6.0).reshape(2, 3)  # noqa: E731
    check(lambda lib: getattr(lib, name)(x(lib), 2))
    check(lambda lib: getattr(x(lib), name)(2.5))


@pytest.mark.parametrize("call", ["x.flip(0)", "x.flip(0, 1)", "x.flip((0, 1))", "x.flip(dims=0)", "x.flip()",
                                  "lib.flip(x, dims=0)", "lib.flip(x, [1])"])
def test_flip_takes_varargs_as_a_method_only(call):
    check(lambda lib: eval(call, {"lib": lib, "x": lib.arange(6.0).reshape(2, 3)}))
