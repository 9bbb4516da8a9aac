"""dtypes: names, promotion, casts, sizes, finfo/iinfo and the default dtype, against real PyTorch.

The promotion tables run through `dispatch.promoted_dtype`, the path every op takes, over every
pair of dtypes (no compilation needed); a hypothesis sample then runs real ops end to end.
"""
from __future__ import annotations

import itertools
import re
import warnings
from typing import Callable

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import pjtorch
from pjtorch import dispatch
from pjtorch.ops import pointwise
from pjtorch.tensor import dtypes
from tensor_oracle import reference, same

pytestmark = pytest.mark.filterwarnings("ignore:Casting complex values to real discards the imaginary part")

ALL = dtypes.ALL
NAMES = [d.name for d in ALL]
SCALARS = (True, 3, 2.5, 1j)
ADD, DIV = pointwise.BINARY["add"], pointwise.BINARY["div"]
# PyTorch's complex32 (chalf) has no JAX counterpart: pjtorch widens it to complex64.
WIDENED = {"complex32": "complex64"}


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


@pytest.fixture
def default_float64():
    pjtorch.set_default_dtype(pjtorch.float64)
    yield
    pjtorch.set_default_dtype(pjtorch.float32)


def ref_dtype(torch, d: dtypes.dtype):
    return getattr(torch, d.name)


def name_of(torch_dtype) -> str:
    name = str(torch_dtype).removeprefix("torch.")
    return WIDENED.get(name, name)


def outcome(call: Callable[[], object]) -> tuple:
    """A dtype's name, or the error's type and message: comparable between the libraries."""
    try:
        return ("ok", name_of(call()))
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return (type(error).__name__, str(error))


def one(d: dtypes.dtype, shape: tuple = (2,)) -> pjtorch.Tensor:
    return pjtorch.ones(shape, dtype=d)


def ref_one(torch, d: dtypes.dtype, shape: tuple = (2,)):
    return torch.ones(shape, dtype=ref_dtype(torch, d))


# ----- names ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_dtype_names_reprs_and_flags_match_torch(torch, name):
    ours, theirs = getattr(pjtorch, name), getattr(torch, name)
    assert (repr(ours), str(ours)) == (repr(theirs), str(theirs))
    assert (ours.is_floating_point, ours.is_complex, ours.is_signed, ours.itemsize) == \
        (theirs.is_floating_point, theirs.is_complex, theirs.is_signed, theirs.itemsize)
    assert outcome(ours.to_complex) == outcome(theirs.to_complex)
    assert outcome(ours.to_real) == outcome(theirs.to_real)


ALIASES = ("half", "float", "double", "short", "int", "long", "cfloat", "cdouble")


@pytest.mark.parametrize("alias", ALIASES)
def test_aliases_are_the_same_dtype_as_torch(torch, alias):
    assert getattr(pjtorch, alias) is getattr(pjtorch, name_of(getattr(torch, alias)))


def test_default_dtypes_are_float32_and_int64():
    assert pjtorch.get_default_dtype() is pjtorch.float32
    assert pjtorch.tensor([1.0]).dtype is pjtorch.float32
    assert pjtorch.tensor([1]).dtype is pjtorch.int64
    assert pjtorch.tensor([True]).dtype is pjtorch.bool
    assert pjtorch.tensor([1j]).dtype is pjtorch.complex64


def test_memory_formats_print_as_torch(torch):
    for name in ("contiguous_format", "preserve_format"):
        assert repr(getattr(pjtorch, name)) == repr(getattr(torch, name))
        assert isinstance(getattr(pjtorch, name), pjtorch.memory_format)


# ----- promotion -----------------------------------------------------------------------------------

@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_float16_with_complex_promotes_as_torch_with_complex32_widened(torch):
    """promote_types(float16, complex64) is complex64 in both. A float16 tensor with a complex number (or 0-dim
    complex tensor) is complex32 in PyTorch, which JAX has no type for: pjtorch gives complex64, same values."""
    assert pjtorch.promote_types(pjtorch.float16, pjtorch.complex64) is pjtorch.complex64
    assert name_of(torch.promote_types(torch.float16, torch.complex64)) == "complex64"
    for other in (lambda m: 1 + 2j, lambda m: m.tensor(1 + 2j)):
        ours = pjtorch.tensor([0.5, 2.0], dtype=pjtorch.float16) + other(pjtorch)
        theirs = torch.tensor([0.5, 2.0], dtype=torch.float16) + other(torch)
        assert str(theirs.dtype) == "torch.complex32" and ours.dtype is pjtorch.complex64
        assert ours.tolist() == theirs.tolist()

def test_promote_types_matches_torch_for_every_pair(torch):
    pairs = list(itertools.product(ALL, ALL))
    for a, b in pairs:
        expected = name_of(torch.promote_types(ref_dtype(torch, a), ref_dtype(torch, b)))
        assert pjtorch.promote_types(a, b).name == expected, (a, b)
    assert len(pairs) == len(ALL) ** 2 == 144


@pytest.mark.parametrize("left_shape,right_shape", [((2,), (2,)), ((2,), ()), ((), (2,)), ((), ())],
                         ids=["tensor-tensor", "tensor-0dim", "0dim-tensor", "0dim-0dim"])
def test_result_type_of_tensor_pairs_matches_torch(torch, left_shape, right_shape):
    checked = 0
    for a, b in itertools.product(ALL, ALL):
        left, right = one(a, left_shape), one(b, right_shape)
        expected = torch.result_type(ref_one(torch, a, left_shape), ref_one(torch, b, right_shape))
        assert dispatch.promoted_dtype(ADD, (left, right)).name == name_of(expected), (a, b)
        assert pjtorch.result_type(left, right).name == name_of(expected), (a, b)
        checked += 1
    assert checked == 144


@pytest.mark.parametrize("shape", [(2,), ()], ids=["tensor", "0dim"])
def test_result_type_with_python_scalars_matches_torch(torch, shape):
    checked = 0
    for d, scalar in itertools.product(ALL, SCALARS):
        expected = name_of(torch.result_type(ref_one(torch, d, shape), scalar))
        assert dispatch.promoted_dtype(ADD, (one(d, shape), scalar)).name == expected, (d, scalar)
        assert dispatch.promoted_dtype(ADD, (scalar, one(d, shape))).name == expected, (scalar, d)
        checked += 1
    assert checked == len(ALL) * len(SCALARS)


def test_three_operands_follow_categories(torch):
    """A 0-dim float64 does not widen a float16 tensor, but a 0-dim float does lift an int tensor."""
    cases = [(pjtorch.float16, pjtorch.float64, 1), (pjtorch.int32, pjtorch.float64, 2.5),
             (pjtorch.uint8, pjtorch.int64, True), (pjtorch.int8, pjtorch.bool, 1j)]
    for tensor_dtype, zero_dim_dtype, scalar in cases:
        theirs = torch.ones(2, dtype=ref_dtype(torch, tensor_dtype)) + \
            torch.ones((), dtype=ref_dtype(torch, zero_dim_dtype)) + scalar
        ours = dispatch.promoted_dtype(ADD, (one(tensor_dtype), one(zero_dim_dtype, ()), scalar))
        assert ours.name == name_of(theirs.dtype)


def test_true_division_result_dtype_matches_torch_for_every_pair(torch):
    checked = 0
    for a, b in itertools.product(ALL, ALL):
        expected = name_of((ref_one(torch, a) / ref_one(torch, b)).dtype)
        assert dispatch.promoted_dtype(DIV, (one(a), one(b))).name == expected, (a, b)
        checked += 1
    assert checked == 144


def test_int_true_division_gives_float32_and_float32_float64_gives_float64():
    quotient = pjtorch.tensor([1, 2, 3]) / pjtorch.tensor([2, 2, 2])
    assert quotient.dtype is pjtorch.float32
    np.testing.assert_array_equal(quotient.numpy(), np.array([0.5, 1.0, 1.5], np.float32))
    assert (pjtorch.tensor([1, 2]) // pjtorch.tensor([2, 2])).dtype is pjtorch.int64
    mixed = pjtorch.tensor([1.0], dtype=pjtorch.float32) + pjtorch.tensor([1.0], dtype=pjtorch.float64)
    assert mixed.dtype is pjtorch.float64


OP_NAMES = ("add", "mul", "sub", "div", "maximum")


@settings(max_examples=20, deadline=None)
@given(a=st.sampled_from(ALL), b=st.sampled_from(ALL), op=st.sampled_from(OP_NAMES), b_zero_dim=st.booleans())
def test_real_ops_give_torch_dtype_and_values(a, b, op, b_zero_dim):
    right = np.full(() if b_zero_dim else (3,), 2)
    torch = reference()
    left_dtype, right_dtype = ref_dtype(torch, a), ref_dtype(torch, b)
    assume(torch.result_type(torch.ones(3, dtype=left_dtype), torch.ones(right.shape, dtype=right_dtype))
           is not torch.complex32)  # PyTorch's ComplexHalf, which pjtorch widens (see WIDENED)

    def case(m):
        return getattr(m, op)(m.tensor([1, 2, 3], dtype=getattr(m, a.name)), m.tensor(right, dtype=getattr(m, b.name)))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch: "ComplexHalf support is experimental"
        same(case)


# ----- casts ---------------------------------------------------------------------------------------

CAST_METHODS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
                "long": "int64", "int": "int32", "bool": "bool", "short": "int16", "char": "int8", "byte": "uint8"}
CAST_VALUES = [0.0, 1.0, 2.75, 100.5, 7.0]


@pytest.mark.parametrize("method", CAST_METHODS)
def test_cast_methods_give_torch_dtype_and_values(torch, method):
    ours = getattr(pjtorch.tensor(CAST_VALUES), method)()
    theirs = getattr(torch.tensor(CAST_VALUES), method)()
    assert ours.dtype.name == CAST_METHODS[method] == name_of(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


@settings(max_examples=25, deadline=None)
@given(source=st.sampled_from(ALL), target=st.sampled_from(ALL))
def test_to_dtype_matches_torch(torch, source, target):
    values = [0, 1, 3, 0, 5]
    ours = pjtorch.tensor(values, dtype=source).to(target)
    theirs = torch.tensor(values, dtype=ref_dtype(torch, source)).to(ref_dtype(torch, target))
    assert ours.dtype is target
    assert ours.tolist() == theirs.tolist()


def test_to_same_dtype_returns_self_and_copy_true_copies():
    t = pjtorch.tensor([1.0, 2.0])
    assert t.to(pjtorch.float32) is t
    assert t.to(dtype=pjtorch.float32, copy=True) is not t
    assert t.float() is t


def test_float_to_int_truncates_toward_zero(torch):
    values = [-2.7, -0.5, 0.5, 2.7, 1e9]
    assert pjtorch.tensor(values).long().tolist() == torch.tensor(values).long().tolist()
    assert pjtorch.tensor(values).int().tolist() == torch.tensor(values).int().tolist()


# ----- sizes and machine limits --------------------------------------------------------------------

@pytest.mark.parametrize("name", NAMES)
def test_element_size_itemsize_and_nbytes_match_torch(torch, name):
    ours, theirs = pjtorch.zeros(2, 3, dtype=getattr(pjtorch, name)), torch.zeros(2, 3, dtype=getattr(torch, name))
    assert (ours.element_size(), ours.itemsize, ours.nbytes) == (theirs.element_size(), theirs.itemsize, theirs.nbytes)
    view = ours[:, 1]
    assert view.nbytes == theirs[:, 1].nbytes


FLOATS = ["float16", "bfloat16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
FINFO_FIELDS = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")


@pytest.mark.parametrize("name", FLOATS)
def test_finfo_matches_torch(torch, name):
    ours, theirs = pjtorch.finfo(getattr(pjtorch, name)), torch.finfo(getattr(torch, name))
    assert {f: getattr(ours, f) for f in FINFO_FIELDS} == {f: getattr(theirs, f) for f in FINFO_FIELDS}
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name", INTS)
def test_iinfo_matches_torch(torch, name):
    ours, theirs = pjtorch.iinfo(getattr(pjtorch, name)), torch.iinfo(getattr(torch, name))
    assert (ours.bits, ours.min, ours.max, ours.dtype) == (theirs.bits, theirs.min, theirs.max, theirs.dtype)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("call", [lambda m: m.finfo(m.int32), lambda m: m.iinfo(m.float32),
                                  lambda m: m.iinfo(m.bool), lambda m: m.set_default_dtype(m.int64)],
                         ids=["finfo-int", "iinfo-float", "iinfo-bool", "default-int"])
def test_limit_and_default_errors_match_torch(torch, call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value), match=f"^{re.escape(str(theirs.value))}$"):
        call(pjtorch)


def test_finfo_default_is_default_dtype():
    assert pjtorch.finfo().dtype == "float32"


# ----- default dtype -------------------------------------------------------------------------------

def test_float64_default_changes_inference_factories_and_promotion(torch, default_float64):
    assert pjtorch.get_default_dtype() is pjtorch.float64
    ints = pjtorch.tensor([1, 2])
    made = {
        "tensor": pjtorch.tensor([1.5]),
        "zeros": pjtorch.zeros(2),
        "ones": pjtorch.ones(1),
        "full": pjtorch.full((1,), 2.0),
        "arange": pjtorch.arange(0.0, 2.0), "linspace": pjtorch.linspace(0, 1, 3), "rand": pjtorch.rand(2),
        "div": ints / ints, "scalar": ints + 1.5, "complex": pjtorch.tensor([1j]), "complex_scalar": ints + 1j,
        "eye": pjtorch.eye(2),
    }
    torch.set_default_dtype(torch.float64)
    try:
        tints = torch.tensor([1, 2])
        expected = {
            "tensor": torch.tensor([1.5]),
            "zeros": torch.zeros(2),
            "ones": torch.ones(1),
            "full": torch.full((1,), 2.0),
            "arange": torch.arange(0.0, 2.0), "linspace": torch.linspace(0, 1, 3), "rand": torch.rand(2),
            "div": tints / tints, "scalar": tints + 1.5, "complex": torch.tensor([1j]), "complex_scalar": tints + 1j,
            "eye": torch.eye(2),
        }
    finally:
        torch.set_default_dtype(torch.float32)
    assert {k: t.dtype.name for k, t in made.items()} == {k: name_of(t.dtype) for k, t in expected.items()}
    assert len(made) == 12


def test_set_default_dtype_is_restored_by_fixture():
    assert pjtorch.get_default_dtype() is pjtorch.float32


# ----- 64-bit is real ------------------------------------------------------------------------------

def test_int64_holds_values_beyond_32_bits():
    big = 2 ** 40 + 3
    t = pjtorch.tensor([big])
    assert t.dtype is pjtorch.int64 and t.item() == big
    assert (t * 1024).item() == big * 1024
    limit = pjtorch.iinfo(pjtorch.int64).max
    assert pjtorch.tensor([limit]).item() == limit
    assert pjtorch.tensor([limit]).numpy().dtype == np.int64


def test_float64_keeps_double_precision():
    t = pjtorch.tensor([1.0], dtype=pjtorch.float64) + 1e-12
    assert t.dtype is pjtorch.float64 and t.item() == 1.0 + 1e-12
    assert (pjtorch.tensor([1.0]) + 1e-12).item() == 1.0
    assert pjtorch.tensor([0.1], dtype=pjtorch.float64).numpy().dtype == np.float64
