"""pjtorch.tensor.printing against real PyTorch's repr, character for character.

Real PyTorch is the oracle: tests that need it skip where it is not installed.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, arrays

from pjtorch.tensor.printing import format_tensor, get_printoptions, set_printoptions

DEFAULT_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80, "sci_mode": None}
INF = math.inf
NAN = math.nan


@pytest.fixture(autouse=True)
def _restore_print_state():
    """Every test starts from, and leaves behind, PyTorch's default print state in both libraries."""
    _reset_print_state()
    yield
    _reset_print_state()


def _reset_print_state() -> None:
    set_printoptions(profile="default")
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_printoptions(profile="default")
        torch.set_default_dtype(torch.float32)


def _torch():
    return pytest.importorskip("torch")


def _apply_options(options: dict, default_dtype: str, torch) -> None:
    """The same print state in both libraries: defaults, then ``options``."""
    _reset_print_state()
    set_printoptions(**options)
    torch.set_printoptions(**options)
    torch.set_default_dtype(getattr(torch, default_dtype))


def _pjtorch_repr(t) -> str:
    """What pjtorch prints for the tensor ``t``, given only what its facade would pass."""
    torch = sys.modules["torch"]
    host = t.detach()
    if host.is_floating_point() and host.dtype not in (torch.float16, torch.float32, torch.float64):
        host = host.float()  # bfloat16 and float8 have no NumPy dtype: the facade sends float32
    return format_tensor(
        host.numpy(),
        dtype_name=str(t.dtype).removeprefix("torch."),
        default_float_dtype_name=str(torch.get_default_dtype()).removeprefix("torch."),
        requires_grad=t.requires_grad,
        grad_fn_name=None if t.grad_fn is None else type(t.grad_fn).__name__,
    )


@dataclass(frozen=True)
class Case:
    name: str
    make: Callable  # torch module -> tensor
    options: dict = field(default_factory=dict)
    default_dtype: str = "float32"


def _with_grad(t):
    return t.requires_grad_()


def _times_one(t):
    return t.requires_grad_() * 1


CASES = [
    # 0-d
    Case("scalar whole float", lambda torch: torch.tensor(8.0)),
    Case("scalar fraction", lambda torch: torch.tensor(3.14)),
    Case("scalar bool", lambda torch: torch.tensor(True)),
    Case("scalar int64", lambda torch: torch.tensor(5)),
    Case("scalar int8", lambda torch: torch.tensor(-5, dtype=torch.int8)),
    Case("scalar negative zero", lambda torch: torch.tensor(-0.0)),
    Case("scalar nan", lambda torch: torch.tensor(NAN)),
    Case("scalar -inf", lambda torch: torch.tensor(-INF)),
    Case("scalar tiny", lambda torch: torch.tensor(1e-5)),
    Case("scalar huge whole", lambda torch: torch.tensor(1e10)),
    Case("scalar complex", lambda torch: torch.tensor(1.5 - 0j)),
    Case("scalar bfloat16", lambda torch: torch.tensor(0.1, dtype=torch.bfloat16)),
    Case("scalar float16", lambda torch: torch.tensor(0.1, dtype=torch.float16)),
    Case("scalar with grad", lambda torch: _with_grad(torch.tensor(2.0))),
    # 1-d floats
    Case("whole floats", lambda torch: torch.tensor([1.0, 2.0, 3.0])),
    Case("fixed precision", lambda torch: torch.tensor([0.1, 0.25])),
    Case("scientific by ratio", lambda torch: torch.tensor([1e-5, 1e5])),
    Case("whole ratio 1000 stays", lambda torch: torch.tensor([1.0, 1000.0])),
    Case("whole ratio 1001 goes sci", lambda torch: torch.tensor([1.0, 1001.0])),
    Case("whole above 1e8 goes sci", lambda torch: torch.tensor([2e8, 3e8])),
    Case("small fraction goes sci", lambda torch: torch.tensor([5e-5, 1e-4])),
    Case("inf pads to width", lambda torch: torch.tensor([INF, 1.5])),
    Case("inf among whole", lambda torch: torch.tensor([100.0, INF, 1.0])),
    Case("negative zero", lambda torch: torch.tensor([-0.0, 1.0])),
    Case("only non-finite and zero", lambda torch: torch.tensor([NAN, -INF, 0.0])),
    Case("all zeros", lambda torch: torch.zeros(4)),
    Case("sci with inf", lambda torch: torch.tensor([-1e9, 1.0, INF])),
    Case("negative widths", lambda torch: torch.tensor([-1.5, 22.25, -333.125])),
    Case("float64 subnormal", lambda torch: torch.tensor([1e-320, 1.0], dtype=torch.float64)),
    Case("float64 three-digit exponent", lambda torch: torch.tensor([1e300, -1e-300], dtype=torch.float64)),
    Case("float16 tenth", lambda torch: torch.tensor([0.1], dtype=torch.float16)),
    Case("float16 overflowing", lambda torch: torch.tensor([65504.0, -0.5], dtype=torch.float16)),
    Case("bfloat16 tenth", lambda torch: torch.tensor([0.1], dtype=torch.bfloat16)),
    Case("bfloat16 mixed", lambda torch: torch.tensor([1.0, 2.5, 1e10, -3.3], dtype=torch.bfloat16)),
    Case("float8 e4m3fn", lambda torch: torch.tensor([0.1, 3.0, -448.0]).to(torch.float8_e4m3fn)),
    Case("float8 e5m2", lambda torch: torch.tensor([0.1, 3.0]).to(torch.float8_e5m2)),
    Case("long row wraps", lambda torch: torch.arange(30.0) / 7),
    # 1-d other dtypes
    Case("int64", lambda torch: torch.tensor([1, -20, 300])),
    Case("int64 extremes", lambda torch: torch.tensor([-(2**63), 2**63 - 1])),
    Case("int32", lambda torch: torch.tensor([7, 8], dtype=torch.int32)),
    Case("int16", lambda torch: torch.tensor([-7, 8], dtype=torch.int16)),
    Case("int8", lambda torch: torch.tensor([-128, 127], dtype=torch.int8)),
    Case("uint8", lambda torch: torch.tensor([0, 255], dtype=torch.uint8)),
    Case("uint16", lambda torch: torch.tensor([0, 65535], dtype=torch.uint16)),
    Case("bool", lambda torch: torch.tensor([True, False, True])),
    Case("bool all true", lambda torch: torch.tensor([True, True])),
    Case("long int row wraps", lambda torch: torch.arange(100)),
    Case("complex64", lambda torch: torch.tensor([1 + 2j, 3 - 4j])),
    Case("complex128", lambda torch: torch.tensor([0.5 + 1e-6j, -2 + 0j], dtype=torch.complex128)),
    Case("complex signed zero and specials", lambda torch: torch.tensor([complex(0, -0.0), complex(NAN, INF), complex(1, -INF)])),
    Case("complex sci real", lambda torch: torch.tensor([1e-5 + 1j, 3 + 2j])),
    Case("complex long row", lambda torch: torch.arange(20.0) * (1.5 - 0.25j)),
    # n-d
    Case("2-d int", lambda torch: torch.arange(6).reshape(2, 3)),
    Case("2-d float", lambda torch: torch.arange(12.0).reshape(3, 4) / 3),
    Case("3-d blank lines", lambda torch: torch.arange(24.0).reshape(2, 3, 4)),
    Case("4-d blank lines", lambda torch: torch.arange(12.0, dtype=torch.float64).reshape(2, 1, 3, 2)),
    Case("2-d wrapped rows", lambda torch: torch.arange(100.0).reshape(10, 10) * 1e6),
    Case("3-d bool", lambda torch: torch.arange(8).reshape(2, 2, 2) % 3 == 0),
    # summarised
    Case("1-d summarised", lambda torch: torch.arange(2000)),
    Case("2-d summarised", lambda torch: torch.arange(1e6).reshape(1000, 1000)),
    Case("2-d summarised fractions", lambda torch: torch.arange(2000.0).reshape(2, 1000) / 3),
    Case("4-d summarised", lambda torch: torch.linspace(-5, 5, 10_000).reshape(10, 10, 10, 10)),
    Case("summary decides notation", lambda torch: torch.cat([torch.ones(3), torch.full((1000,), 1e-9), torch.ones(3)])),
    Case("complex summarised", lambda torch: torch.arange(1200.0).reshape(40, 30) * (1 + 1j)),
    # empty
    Case("empty default float", lambda torch: torch.tensor([])),
    Case("empty 2-d", lambda torch: torch.zeros(0, 3)),
    Case("empty 3-d", lambda torch: torch.zeros(2, 0, 3)),
    Case("empty int64", lambda torch: torch.tensor([], dtype=torch.int64)),
    Case("empty bool", lambda torch: torch.zeros(0, dtype=torch.bool)),
    Case("empty complex64", lambda torch: torch.zeros(0, dtype=torch.complex64)),
    Case("empty float64", lambda torch: torch.zeros(0, dtype=torch.float64)),
    Case("empty int32 3-d", lambda torch: torch.zeros(2, 0, 3, dtype=torch.int32)),
    Case("empty with grad", lambda torch: _with_grad(torch.zeros(0, 2))),
    # default dtype float64
    Case("f64 default hides float64", lambda torch: torch.tensor([1.5]), default_dtype="float64"),
    Case("f64 default shows float32", lambda torch: torch.tensor([1.5], dtype=torch.float32), default_dtype="float64"),
    Case("f64 default hides complex128", lambda torch: torch.tensor([1j]), default_dtype="float64"),
    Case("f64 default shows complex64", lambda torch: torch.tensor([1j], dtype=torch.complex64), default_dtype="float64"),
    Case("f64 default empty float32", lambda torch: torch.zeros(0, dtype=torch.float32), default_dtype="float64"),
    Case("f64 default empty float64", lambda torch: torch.zeros(0), default_dtype="float64"),
    # suffixes
    Case("requires grad", lambda torch: _with_grad(torch.tensor([1.0, 2.0]))),
    Case("grad fn", lambda torch: _times_one(torch.tensor([1.0, 2.0]))),
    Case("dtype then grad fn", lambda torch: _times_one(torch.tensor([1.0, 2.0], dtype=torch.float64))),
    Case("suffix wraps after long row", lambda torch: _with_grad(torch.arange(8.0)), {"linewidth": 40}),
    Case("each suffix wraps", lambda torch: _times_one(torch.arange(6.0, dtype=torch.float64)), {"linewidth": 40}),
    Case("suffix after 2-d", lambda torch: _times_one(torch.arange(12.0, dtype=torch.float64).reshape(2, 6)), {"linewidth": 40}),
    Case("suffix after default-width row", lambda torch: torch.arange(17, dtype=torch.int16)),
    Case("complex with grad", lambda torch: _with_grad(torch.tensor([1 + 1j]))),
    Case("bfloat16 grad fn", lambda torch: _times_one(torch.tensor([1.0, 2.5], dtype=torch.bfloat16))),
    # print options
    Case("precision 2", lambda torch: torch.tensor([0.123456, 2.5]), {"precision": 2}),
    Case("precision 10 shows float32 error", lambda torch: torch.tensor([0.1]), {"precision": 10}),
    Case("precision 0", lambda torch: torch.tensor([0.5, 1.5, 1e-6]), {"precision": 0}),
    Case("sci forced on whole", lambda torch: torch.tensor([1.0, 2.0]), {"sci_mode": True}),
    Case("sci forced with nan", lambda torch: torch.tensor([NAN, 1.0]), {"sci_mode": True}),
    Case("sci forced on zeros", lambda torch: torch.zeros(3), {"sci_mode": True}),
    Case("sci forced on complex", lambda torch: torch.tensor([1 + 0j, 0.5 - 2j]), {"sci_mode": True}),
    Case("sci forced wraps by its width", lambda torch: torch.arange(20.0), {"sci_mode": True}),
    Case("sci off on wide range", lambda torch: torch.tensor([1e-6, -1e10]), {"sci_mode": False}),
    Case("sci off on whole huge", lambda torch: torch.tensor([1e20, 1.0]), {"sci_mode": False}),
    Case("small threshold", lambda torch: torch.arange(10.0), {"threshold": 5, "edgeitems": 2}),
    Case("threshold not reached", lambda torch: torch.arange(10.0), {"threshold": 10, "edgeitems": 2}),
    Case("edgeitems 0 summarised 1-d", lambda torch: torch.arange(10), {"threshold": 5, "edgeitems": 0}),
    Case("edgeitems 0 summarised 3-d", lambda torch: torch.zeros(10, 10, 10), {"threshold": 5, "edgeitems": 0}),
    Case("edgeitems 0 not summarised", lambda torch: torch.arange(4), {"edgeitems": 0}),
    Case("edgeitems 1 3-d", lambda torch: torch.arange(60).reshape(3, 4, 5), {"threshold": 10, "edgeitems": 1}),
    Case("linewidth 40", lambda torch: torch.arange(30.0) / 3, {"linewidth": 40}),
    Case("linewidth tiny", lambda torch: torch.arange(6).reshape(2, 3), {"linewidth": 1}),
    Case("profile short", lambda torch: torch.arange(2000.0) / 3, {"profile": "short"}),
    Case("profile full", lambda torch: torch.arange(1500), {"profile": "full"}),
]
EXPECTED_CASE_COUNT = 108


def test_hand_picked_cases_match_pytorch():
    torch = _torch()
    assert len(CASES) == EXPECTED_CASE_COUNT
    checked, mismatches = 0, []
    for case in CASES:
        _apply_options(case.options, case.default_dtype, torch)
        t = case.make(torch)
        expected, actual = repr(t), _pjtorch_repr(t)
        checked += 1
        if actual != expected:
            mismatches.append(f"{case.name}:\nexpected {expected}\nactual   {actual}")
    assert checked == EXPECTED_CASE_COUNT
    assert not mismatches, "\n\n".join(mismatches)


def test_str_and_repr_agree_in_pytorch():
    torch = _torch()
    t = torch.tensor([[1.5, 2.0], [3.0, 4.0]]).requires_grad_()
    assert str(t) == repr(t) == _pjtorch_repr(t)


@pytest.mark.parametrize(
    ("kwargs", "expected"),
    [
        ({"device": "cuda:0"}, "tensor([1., 2.], device='cuda:0')"),
        ({"device": "cuda:0", "requires_grad": True}, "tensor([1., 2.], device='cuda:0', requires_grad=True)"),
        (
            {"device": "cuda:0", "dtype_name": "float64", "grad_fn_name": "AddBackward0"},
            "tensor([1., 2.], device='cuda:0', dtype=torch.float64, grad_fn=<AddBackward0>)",
        ),
        ({"requires_grad": True, "grad_fn_name": "MulBackward0"}, "tensor([1., 2.], grad_fn=<MulBackward0>)"),
        ({"is_nested_prefix": "Parameter("}, "Parameter([1., 2.])"),
    ],
)
def test_suffix_order_follows_pytorch(kwargs, expected):
    kwargs = {"dtype_name": "float32", **kwargs}
    assert format_tensor(np.array([1.0, 2.0], dtype=np.float32), **kwargs) == expected


def test_device_suffix_wraps_like_other_suffixes():
    values = np.arange(12, dtype=np.float32)
    text = format_tensor(values, dtype_name="float32", device="cuda:0", requires_grad=True)
    assert text == (
        "tensor([ 0.,  1.,  2.,  3.,  4.,  5.,  6.,  7.,  8.,  9., 10., 11.],\n"
        "       device='cuda:0', requires_grad=True)"
    )


def test_summarised_output_does_not_depend_on_hidden_values():
    values = np.arange(1e6, dtype=np.float32).reshape(1000, 1000)
    values[3:-3, :] = np.nan
    values[:, 3:-3] = 1e-20
    clean = np.arange(1e6, dtype=np.float32).reshape(1000, 1000)
    assert format_tensor(values, dtype_name="float32") == format_tensor(clean, dtype_name="float32")


# ---- set_printoptions / get_printoptions ----------------------------------------------------


def test_defaults():
    assert get_printoptions() == DEFAULT_OPTIONS


def test_explicit_options_round_trip():
    set_printoptions(precision=6, threshold=50, edgeitems=2, linewidth=100, sci_mode=True)
    assert get_printoptions() == {"precision": 6, "threshold": 50, "edgeitems": 2, "linewidth": 100, "sci_mode": True}


def test_any_call_without_sci_mode_resets_it():
    set_printoptions(sci_mode=False)
    set_printoptions(precision=3)
    assert get_printoptions() == {**DEFAULT_OPTIONS, "precision": 3}


@pytest.mark.parametrize(
    ("profile", "expected"),
    [
        ("short", {"precision": 2, "threshold": 1000, "edgeitems": 2, "linewidth": 80}),
        ("full", {"precision": 4, "threshold": math.inf, "edgeitems": 3, "linewidth": 80}),
        ("default", {"precision": 4, "threshold": 1000, "edgeitems": 3, "linewidth": 80}),
    ],
)
def test_profiles(profile, expected):
    set_printoptions(precision=9, threshold=1, edgeitems=9, linewidth=9)
    set_printoptions(profile=profile)
    assert get_printoptions() == {**expected, "sci_mode": None}


def test_explicit_options_override_profile_and_unknown_profile_is_ignored():
    set_printoptions(profile="short", precision=6)
    assert get_printoptions()["precision"] == 6
    set_printoptions(profile="no such profile", linewidth=120)
    assert get_printoptions() == {"precision": 6, "threshold": 1000, "edgeitems": 2, "linewidth": 120, "sci_mode": None}


def test_get_printoptions_returns_a_copy():
    get_printoptions()["precision"] = 99
    assert get_printoptions() == DEFAULT_OPTIONS


def test_printoptions_sequence_matches_pytorch():
    torch = _torch()
    calls = [
        {"precision": 2, "sci_mode": True},
        {"linewidth": 60},
        {"profile": "full", "edgeitems": 1},
        {"profile": "short"},
        {"profile": "unknown", "threshold": 7},
    ]
    for call in calls:
        set_printoptions(**call)
        torch.set_printoptions(**call)
        assert get_printoptions() == torch._tensor_str.get_printoptions()


# ---- generated arrays --------------------------------------------------------------------------

NUMPY_DTYPES = {
    "bool": np.bool_,
    "uint8": np.uint8,
    "int8": np.int8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
    "complex64": np.complex64,
    "complex128": np.complex128,
}
FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")
COMPLEX_NAMES = ("complex64", "complex128")
SPECIAL_FLOATS = st.sampled_from([0.0, -0.0, INF, -INF, NAN])


def _float_regimes() -> st.SearchStrategy[st.SearchStrategy[float]]:
    """A strategy of element strategies: one regime per array, so arrays are often uniform."""
    whole = st.integers(0, 12).map(lambda digits: st.integers(-(10**digits), 10**digits).map(float))
    scaled = st.integers(-40, 40).map(
        lambda exponent: st.floats(-10, 10).map(lambda mantissa: mantissa * 10.0**exponent)
    )
    return st.one_of(
        whole,
        scaled,
        st.just(st.floats(-1000, 1000)),
        st.just(st.floats(allow_nan=True, allow_infinity=True)),
    )


@st.composite
def _float_values(draw, shape: tuple[int, ...]) -> np.ndarray:
    regime = draw(_float_regimes())
    elements = st.one_of(regime, SPECIAL_FLOATS) if draw(st.booleans()) else regime
    return draw(arrays(np.float64, shape, elements=elements))


def _integer_elements(dtype: type) -> st.SearchStrategy[int]:
    info = np.iinfo(dtype)
    full = st.integers(int(info.min), int(info.max))
    small = st.integers(max(int(info.min), -20), 20)
    return st.one_of(full, small)


@st.composite
def tensor_arrays(draw) -> tuple[str, np.ndarray]:
    """A dtype name and a float64/complex128/integer array holding values exact in that dtype's range."""
    dtype_name = draw(st.sampled_from(sorted(NUMPY_DTYPES)))
    shape = draw(array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=6))
    if dtype_name in FLOAT_NAMES:
        return dtype_name, draw(_float_values(shape))
    if dtype_name in COMPLEX_NAMES:
        values = np.empty(shape, dtype=np.complex128)
        values.real, values.imag = draw(_float_values(shape)), draw(_float_values(shape))
        return dtype_name, values
    if dtype_name == "bool":
        return dtype_name, draw(arrays(np.bool_, shape))
    dtype = NUMPY_DTYPES[dtype_name]
    return dtype_name, draw(arrays(dtype, shape, elements=_integer_elements(dtype)))


print_options = st.fixed_dictionaries(
    {
        "precision": st.integers(0, 8),
        "threshold": st.one_of(st.integers(0, 60), st.just(1000), st.just(math.inf)),
        "edgeitems": st.integers(0, 4),
        "linewidth": st.integers(1, 120),
        "sci_mode": st.sampled_from([None, True, False]),
    }
)


def _torch_tensor(torch, dtype_name: str, values: np.ndarray):
    with np.errstate(over="ignore", invalid="ignore"):
        if dtype_name == "bfloat16":
            return torch.from_numpy(values.astype(np.float32)).to(torch.bfloat16)
        return torch.from_numpy(np.ascontiguousarray(values.astype(NUMPY_DTYPES[dtype_name])))


def _host_values(torch, t, send_float16_as_float32: bool) -> np.ndarray:
    """The values a facade might hand over: bfloat16 always, float16 sometimes, as float32."""
    widen = t.dtype == torch.bfloat16 or (t.dtype == torch.float16 and send_float16_as_float32)
    return (t.float() if widen else t).detach().numpy()


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    generated=tensor_arrays(),
    options=st.one_of(st.just({}), print_options),
    default_dtype=st.sampled_from(["float32", "float64"]),
    grad=st.sampled_from(["none", "requires_grad", "grad_fn"]),
    send_float16_as_float32=st.booleans(),
)
def test_generated_arrays_match_pytorch(generated, options, default_dtype, grad, send_float16_as_float32):
    torch = _torch()
    dtype_name, values = generated
    _apply_options(options, default_dtype, torch)
    t = _torch_tensor(torch, dtype_name, values)
    differentiable = t.is_floating_point() or t.is_complex()
    if differentiable and grad != "none":
        t = _with_grad(t) if grad == "requires_grad" else _times_one(t)
    actual = format_tensor(
        _host_values(torch, t, send_float16_as_float32),
        dtype_name=dtype_name,
        default_float_dtype_name=default_dtype,
        requires_grad=t.requires_grad,
        grad_fn_name=None if t.grad_fn is None else type(t.grad_fn).__name__,
    )
    assert actual == repr(t)
