"""Mutation against real PyTorch: the in-place form of every elementwise op, copy_/fill_/zero_/
masked_fill_/index_put_, augmented assignment, writes through views, dtype-cast errors, in-place view
ops (t_, unsqueeze_, ...), and one version counter per storage shared by views and detach() (but not .data)."""
from __future__ import annotations

import operator

import numpy as np
import pytest

import pjtorch
from tensor_oracle import reference, same

UNARY = ("abs_ absolute_ acos_ arccos_ acosh_ arccosh_ asin_ arcsin_ asinh_ arcsinh_ atan_ arctan_ atanh_ arctanh_ "
         "ceil_ cos_ cosh_ deg2rad_ digamma_ erf_ erfc_ erfinv_ exp_ exp2_ expm1_ fix_ floor_ frac_ i0_ lgamma_ log_ "
         "log10_ log1p_ log2_ logit_ neg_ negative_ nan_to_num_ rad2deg_ reciprocal_ relu_ round_ rsqrt_ sigmoid_ "
         "sign_ sgn_ sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ conj_physical_ clamp_ clip_").split()
BINARY = ("add_ sub_ subtract_ mul_ multiply_ div_ divide_ true_divide_ floor_divide_ remainder_ fmod_ pow_ "
          "float_power_ atan2_ arctan2_ hypot_ copysign_ xlogy_ eq_ ne_ not_equal_ lt_ less_ le_ less_equal_ gt_ "
          "greater_ ge_ greater_equal_ logical_and_ logical_or_ logical_xor_ clamp_min_ clamp_max_ heaviside_ "
          "ldexp_ nextafter_").split()
INTEGER_ONLY = ("bitwise_not_ bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_left_shift_ bitwise_right_shift_ gcd_ "
                "lcm_").split()

FLOATS = [-1.5, -0.25, 0.5, 0.75]
FLOAT_OTHER = [0.5, 2.0, -0.25, 0.75]
INTEGERS = [6, -3, 4, 12]
INTEGER_OTHER = [4, 2, 1, 3]


def applied_in_place(m, name: str, values: list, others: tuple, dtype: str = "float32"):
    """Runs `x.name(*others)`; returns x, whether the method returned x itself, and the version it reached."""
    x = m.tensor(values, dtype=getattr(m, dtype))
    version = x._version
    returned = getattr(x, name)(*(m.tensor(o, dtype=getattr(m, dtype)) if isinstance(o, list) else o
                                  for o in others))
    return x, returned is x, x._version - version


@pytest.mark.parametrize("name", UNARY)
def test_unary_in_place_matches_torch(name):
    others = (0.0,) if name in ("clamp_", "clip_") else ()
    same(lambda m: applied_in_place(m, name, FLOATS, others))


@pytest.mark.parametrize("name", BINARY)
def test_binary_in_place_matches_torch(name):
    same(lambda m: applied_in_place(m, name, FLOATS, (FLOAT_OTHER,)))


@pytest.mark.parametrize("name", INTEGER_ONLY)
def test_integer_in_place_matches_torch(name):
    others = () if name == "bitwise_not_" else (INTEGER_OTHER,)
    same(lambda m: applied_in_place(m, name, INTEGERS, others, "int64"))


def test_in_place_tables_size():
    assert (len(UNARY), len(BINARY), len(INTEGER_ONLY)) == (57, 37, 8)


IN_PLACE_WITH_SCALARS = {
    "add-alpha": lambda x: x.add_(1, alpha=2), "sub-alpha": lambda x: x.sub_(x.clone(), alpha=3),
    "mul-scalar": lambda x: x.mul_(2), "div-floor": lambda x: x.div_(2, rounding_mode="floor"),
    "pow-scalar": lambda x: x.pow_(2), "clamp-both": lambda x: x.clamp_(-0.3, 0.6),
    "lerp_": lambda x: x.lerp_(x.clone().fill_(1), 0.5),
    "addcmul_": lambda x: x.addcmul_(x.clone(), x.clone(), value=2),
    "broadcast-row": lambda x: x.view(2, 2).add_(x[:2].clone()),
}


@pytest.mark.parametrize("name", IN_PLACE_WITH_SCALARS)
def test_in_place_with_scalars_and_keywords_matches_torch(name):
    apply = IN_PLACE_WITH_SCALARS[name]

    def run(m):
        x = m.tensor(FLOATS)
        returned = apply(x)
        return x, returned.data_ptr() == x.data_ptr()

    same(run)


# ----- dtype rules of in-place ops -------------------------------------------------------------------------

CAST_CASES = {
    "int-plus-float": lambda m: m.tensor([1, 2]).add_(1.5),
    "int-div": lambda m: m.tensor([1, 2]).div_(2),
    "bool-plus-int": lambda m: m.tensor([True]).add_(1),
    "float-plus-complex": lambda m: m.tensor([1.0]).add_(1j),
    "float32-plus-float64": lambda m: m.tensor([1.0]).add_(m.tensor([1.0], dtype=m.float64)),
    "int32-plus-int64-0dim": lambda m: m.tensor([1, 2], dtype=m.int32).add_(m.tensor(5)),
    "uint8-wraps": lambda m: m.tensor([1, 2], dtype=m.uint8).mul_(m.tensor([200, 200], dtype=m.uint8)),
    "int-times-float-tensor": lambda m: m.tensor([1, 2]).mul_(m.tensor([1.5, 2.5])),
    "int-sqrt": lambda m: m.tensor([4, 9]).sqrt_(),
    "int-neg": lambda m: m.tensor([4, 9]).neg_(),
    "bool-neg": lambda m: m.tensor([True]).neg_(),
    "int-floor-divide": lambda m: m.tensor([3, 5]).floor_divide_(2),
    "int-true-divide": lambda m: m.tensor([3, 5]).true_divide_(2),
    "int-pow-int": lambda m: m.tensor([3, 5]).pow_(2), "int-pow-float": lambda m: m.tensor([3, 5]).pow_(0.5),
    "float-bitwise": lambda m: m.tensor([1.0]).bitwise_and_(3),
    "float-eq": lambda m: m.tensor([1.0, 2.0]).eq_(1),
    "int-lt-float": lambda m: m.tensor([1, 2]).lt_(1.5),
    "int-eq-float-tensor": lambda m: m.tensor([1, 2]).eq_(m.tensor([1.0, 2.5])),
    "bool-ge-float": lambda m: m.tensor([True, False]).ge_(0.5),
    "int-gcd-float": lambda m: m.tensor([4, 6]).gcd_(m.tensor([2.0, 3.0])),
    "int-mul-complex": lambda m: m.tensor([1, 2]).mul_(1j),
    "int-logical-and": lambda m: m.tensor([1, 2]).logical_and_(m.tensor([True, False])),
    "int-sigmoid": lambda m: m.tensor([1, 2]).sigmoid_(),
    "broadcast-too-big": lambda m: m.tensor([1.0, 2.0, 3.0]).add_(m.ones(2, 3)),
    "broadcast-ok": lambda m: m.ones(2, 3).add_(m.ones(3)),
    "size-mismatch": lambda m: m.ones(3).add_(m.ones(2)),
}
CAST_BUGS: dict = {}  # name -> reason, for cases pjtorch is known to get wrong (strict xfails)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=CAST_BUGS[n]))
                                  if n in CAST_BUGS else n for n in CAST_CASES])
def test_in_place_dtype_rules_and_errors_match_torch(name):
    same(CAST_CASES[name])


# ----- copy_, fill_, zero_, masked_fill_, index_put_ -----------------------------------------------------

FILLS = {
    "copy": lambda m, x: x.copy_(m.tensor([1, 2, 3, 4])),
    "copy-truncates": lambda m, x: m.ones(3, dtype=m.int32).copy_(m.tensor([1.7, -2.7, 3.0])),
    "copy-broadcast": lambda m, x: m.ones(2, 4).copy_(x), "copy-too-big": lambda m, x: x.copy_(m.ones(2, 4)),
    "copy-non-tensor": lambda m, x: x.copy_([1, 2, 3, 4]), "copy-none": lambda m, x: x.copy_(None),
    "copy-number": lambda m, x: x.copy_(5), "copy-bool": lambda m, x: x.copy_(True),
    "copy-float-into-int": lambda m, x: m.zeros(2, dtype=m.int64).copy_(2.5),
    "copy-complex-into-complex": lambda m, x: m.zeros(2, dtype=m.complex64).copy_(1 + 2j),
    "copy-number-keyword": lambda m, x: x.copy_(other=3.5),
    "copy-into-view": lambda m, x: x.view(2, 2).t().copy_(m.tensor([[1.0, 2.0], [3.0, 4.0]])),
    "fill": lambda m, x: x.fill_(2.5), "fill-0dim-tensor": lambda m, x: x.fill_(m.tensor(2.5)),
    "fill-1d-tensor": lambda m, x: x.fill_(m.tensor([1.0])),
    "fill-int-truncates": lambda m, x: m.ones(3, dtype=m.int64).fill_(2.7),
    "fill-view": lambda m, x: x[1::2].fill_(9), "zero": lambda m, x: x.zero_(), "zero-view": lambda m, x: x[:2].zero_(),
    "masked_fill": lambda m, x: x.view(2, 2).masked_fill_(m.tensor([True, False]), 5),
    "masked_fill-0dim-value": lambda m, x: x.masked_fill_(x > 0, m.tensor(2.5)),
    "masked_fill-1d-value": lambda m, x: x.masked_fill_(x > 0, m.tensor([2.5])),
    "masked_fill-int-mask": lambda m, x: x.masked_fill_(m.tensor([1, 0, 1, 0]), 5),
    "masked_fill-bad-shape": lambda m, x: x.view(2, 2).masked_fill_(m.tensor([True, False, True]), 5),
    "masked_fill-bigger-mask": lambda m, x: x[:2].masked_fill_(m.ones(2, 2, dtype=m.bool), 5),
    "masked_fill-out-of-place-bad-shape": lambda m, x: x.view(2, 2).masked_fill(m.tensor([True, False, True]), 5),
    "masked_fill-out-of-place-bigger-mask": lambda m, x: x[:2].masked_fill(m.tensor([[True], [False]]), 5),
    "masked_fill-out-of-place-1d-value": lambda m, x: m.masked_fill(x, x > 0, m.tensor([2.5])),
    "masked_fill-int-target": lambda m, x: m.zeros(3, dtype=m.int64).masked_fill_(m.tensor([True, False, True]), 2.5),
    "index_put-accumulate": lambda m, x: m.zeros(5).index_put_((m.tensor([0, 2, 0]),), m.tensor(1.0), accumulate=True),
    "index_put": lambda m, x: m.zeros(5).index_put_((m.tensor([0, 2]),), m.tensor([1.0, 2.0])),
    "index_put-2d": lambda m, x: m.zeros(2, 3).index_put_((m.tensor([0, 1]), m.tensor([2, 0])), m.tensor([7.0, 8.0])),
    "index_put-mask": lambda m, x: m.zeros(2, 3).index_put_((m.tensor([True, False]),), m.tensor(3.0)),
    "index_put-out-of-range": lambda m, x: m.zeros(5).index_put_((m.tensor([5]),), m.tensor(1.0)),
    "index_put-dtype-mismatch": lambda m, x: m.zeros(5).index_put_((m.tensor([0]),), m.tensor(1)),
    "index_put-shape-mismatch": lambda m, x: m.zeros(2, 3).index_put_((m.tensor([0, 1]),), m.tensor([1.0, 2.0])),
    "index_put-row": lambda m, x: m.zeros(2, 3).index_put_([m.tensor([0, 1])], m.tensor([1.0, 2.0, 3.0])),
    "index_put-out-of-place": lambda m, x: m.index_put(x, (m.tensor([1]),), m.tensor(9.0)),
}


@pytest.mark.parametrize("name", FILLS)
def test_fills_and_puts_match_torch(name):
    fill = FILLS[name]

    def run(m):
        x = m.tensor([1.0, -2.0, 3.0, -4.0])
        return fill(m, x), x

    same(run)


def test_copy_of_a_complex_number_into_a_real_tensor_warns_and_keeps_the_real_part():
    """PyTorch warns once per process (so only pjtorch's warning is checked: another test may have had
    PyTorch's); both keep the real part."""
    assert reference().zeros(2).copy_(2 + 1j).tolist() == [2.0, 2.0]
    with pytest.warns(UserWarning, match="Casting complex values to real discards the imaginary part"):
        x = pjtorch.zeros(2).copy_(2 + 1j)
    assert x.tolist() == [2.0, 2.0]


# A Python number written into a tensor is converted as PyTorch's checked_convert does: a complex one with a
# nonzero imaginary part, or one out of the dtype's range, is an error, never silently cut.
NUMBER_WRITES = {
    "fill-complex": lambda m: m.zeros(2).fill_(1j), "fill-complex-zero-imag": lambda m: m.zeros(2).fill_(2 + 0j),
    "fill-int-complex": lambda m: m.zeros(2, dtype=m.int64).fill_(1j),
    "fill-bool-complex": lambda m: m.zeros(2, dtype=m.bool).fill_(1j),
    "fill-uint8-overflow": lambda m: m.zeros(2, dtype=m.uint8).fill_(300),
    "fill-uint8-wraps": lambda m: m.zeros(2, dtype=m.uint8).fill_(-1),
    "fill-int8-overflow": lambda m: m.zeros(2, dtype=m.int8).fill_(-129),
    "fill-int-nan": lambda m: m.zeros(2, dtype=m.int32).fill_(float("nan")),
    "fill-half-overflow": lambda m: m.zeros(2, dtype=m.float16).fill_(1e6),
    "fill-half-inf": lambda m: m.zeros(2, dtype=m.float16).fill_(float("-inf")),
    "fill-bfloat16-complex": lambda m: m.zeros(2, dtype=m.bfloat16).fill_(-1j),
    "zero_": lambda m: m.ones(2, dtype=m.uint8).zero_(),
    "add-complex": lambda m: m.zeros(2).add_(1j), "mul-complex-int": lambda m: m.zeros(2, dtype=m.int32).mul_(2j),
    "masked_fill-complex": lambda m: m.zeros(2).masked_fill_(m.tensor([True, False]), 1j),
    "masked_fill-0dim-complex-value": lambda m: m.zeros(2).masked_fill(m.tensor([True, False]), m.tensor(1j)),
    "masked_fill-uint8-overflow": lambda m: m.zeros(2, dtype=m.uint8).masked_fill_(m.tensor([True, False]), 256),
    "index_fill-complex": lambda m: m.zeros(2).index_fill_(0, m.tensor([0]), 1 + 0j),
    "scatter-complex": lambda m: m.zeros(2).scatter_(0, m.tensor([0]), 1j),
    "full-complex-into-float": lambda m: m.full((2,), 1j, dtype=m.float32),
    "full-complex-zero-imag": lambda m: m.full((2,), 3 + 0j, dtype=m.float64),
    "full-int-overflow": lambda m: m.full((2,), 2 ** 31, dtype=m.int32),
    "new_full-complex": lambda m: m.zeros(2).new_full((2,), 1j),
}
# Setitem converts a number as torch.scalar_tensor does (checked, except that half and bfloat16 round to inf), after
# PyTorch's valueToTensor type check (NumPy floats are refused, integers beyond int64 are a ValueError).
NUMBER_SETITEMS = {
    "setitem-complex": lambda m, x: x.__setitem__(0, 1j),
    "setitem-slice-complex": lambda m, x: x.__setitem__(slice(None), 1j),
    "setitem-index-complex": lambda m, x: x.__setitem__(m.tensor([0]), 1j),
    "setitem-complex-zero-imag": lambda m, x: x.__setitem__(0, 1 + 0j),
    "setitem-mask-complex": lambda m, x: x.__setitem__(m.tensor([True, False]), 1j),
    "setitem-false-complex": lambda m, x: x.__setitem__(False, 1j),
    "setitem-float-overflow": lambda m, x: x.__setitem__(0, 1e300),
    "setitem-int-beyond-int64": lambda m, x: x.__setitem__(0, 2 ** 63),
    "setitem-numpy-float32": lambda m, x: x.__setitem__(0, np.float32(2.5)),
    "setitem-numpy-bool": lambda m, x: x.__setitem__(0, np.bool_(True)),
    "setitem-numpy-int": lambda m, x: x.__setitem__(slice(None), np.int64(3)),
    "setitem-numpy-float64": lambda m, x: x.__setitem__(0, np.float64(2.5)),
}
# (dtype, value): the number written by t[0] = value, t[:] = value, t[[0]] = value and t[mask] = value.
TYPED_SETITEMS = {
    "half-overflows-to-inf": ("float16", 1e10), "half-int-overflows-to-inf": ("float16", 70000),
    "half-complex": ("float16", 1j), "half-complex-zero-imag": ("float16", 1e10 + 0j),
    "bfloat16-overflows-to-inf": ("bfloat16", 1e300), "bfloat16-complex": ("bfloat16", -2j),
    "int8-overflow": ("int8", 300), "int8-underflow": ("int8", -129), "int8-truncates": ("int8", 2.7),
    "int8-nan": ("int8", float("nan")), "int32-float-overflow": ("int32", 2.5e10), "int32-inf": ("int32", float("inf")),
    "uint8-wraps": ("uint8", -255), "uint8-overflow": ("uint8", -256), "int64-min": ("int64", -2 ** 63),
    "bool-complex": ("bool", 1j), "complex64-overflow": ("complex64", 1e300j), "complex128-big": ("complex128", 1e300j),
    "float64-big": ("float64", 1e300),
}
SETITEM_KEYS = {"int": lambda m: 0, "slice": lambda m: slice(None), "index": lambda m: m.tensor([0]),
                "mask": lambda m: m.tensor([True, False])}


@pytest.mark.parametrize("name", NUMBER_SETITEMS)
def test_numbers_assigned_by_setitem_convert_as_torch(name):
    def run(m):
        x = m.zeros(2)
        NUMBER_SETITEMS[name](m, x)
        return x

    same(run)


@pytest.mark.parametrize("key", SETITEM_KEYS)
@pytest.mark.parametrize("name", TYPED_SETITEMS)
def test_numbers_assigned_by_setitem_into_each_dtype_convert_as_torch(name, key):
    dtype, value = TYPED_SETITEMS[name]

    def run(m):
        x = m.zeros(2, dtype=getattr(m, dtype))
        x[SETITEM_KEYS[key](m)] = value
        return x

    same(run)


# A one-element CPU value put at a single boolean mask is PyTorch's masked_fill_ (canDispatchToMaskedFill): its dtype
# need not match, its number is checked, a uint8 mask is refused; other advanced indices need the same dtype.
MASK_PUTS = {
    "float64-value": lambda m: m.tensor([True, False]), "row-mask": lambda m: (m.tensor([True, False]), slice(None)),
    "list-of-bools": lambda m: [True, False], "uint8-mask": lambda m: m.tensor([1, 0], dtype=m.uint8),
    "integer-index": lambda m: m.tensor([0]), "0-dim-bool": lambda m: m.tensor(True),
}


@pytest.mark.parametrize("value", ["0-dim", "1-element", "two-elements", "complex", "int-overflow"])
@pytest.mark.parametrize("name", MASK_PUTS)
def test_one_element_value_at_a_mask_is_masked_fill_as_in_torch(name, value):
    values = {"0-dim": lambda m: m.tensor(2.5, dtype=m.float64), "1-element": lambda m: m.tensor([[2.5]]),
              "two-elements": lambda m: m.tensor([2.5, 1.0], dtype=m.float64),
              "complex": lambda m: m.tensor(1 + 0j), "int-overflow": lambda m: m.tensor(1e10)}

    def run(m):
        x = m.zeros(2, 2, dtype=m.int32 if value == "int-overflow" else m.float32)
        x[MASK_PUTS[name](m)] = values[value](m)
        return x

    same(run)


def test_masked_setitem_keeps_index_put_history():
    def run(m):
        x = m.zeros(2, requires_grad=True).clone()
        v = m.tensor(3.0, requires_grad=True)
        x[m.tensor([True, False])] = v
        x.sum().backward()
        return x, type(x.grad_fn).__name__, v.grad

    same(run)


def test_fill_table_size():
    assert (len(FILLS), len(CAST_CASES), len(NUMBER_WRITES), len(NUMBER_SETITEMS), len(TYPED_SETITEMS),
            len(MASK_PUTS)) == (38, 27, 23, 12, 19, 6)


# PyTorch refuses to write into a tensor whose elements share memory (an expanded one), except for fills.
OVERLAPPING_WRITES = {
    "add_": lambda m, t: t.add_(1), "copy_": lambda m, t: t.copy_(m.zeros(2, 3)), "exp_": lambda m, t: t.exp_(),
    "mul_-tensor": lambda m, t: t.mul_(m.ones(3)), "eq_": lambda m, t: t.eq_(1), "clamp_": lambda m, t: t.clamp_(0, 1),
    "lerp_": lambda m, t: t.lerp_(m.zeros(3), 0.5), "pow_": lambda m, t: t.pow_(2),
    "uniform_": lambda m, t: t.uniform_(), "setitem-tensor": lambda m, t: t.__setitem__(slice(None), m.zeros(3)),
    "index_copy_": lambda m, t: t.index_copy_(1, m.tensor([0]), m.ones(2, 1)),
    "one-element": lambda m, t: m.ones(1).expand(1).add_(1), "empty": lambda m, t: m.ones(1).expand(0).add_(1),
    "fill_": lambda m, t: t.fill_(4), "zero_": lambda m, t: t.zero_(),
    "setitem-number": lambda m, t: t.__setitem__(0, 2.0),
    "masked_fill_": lambda m, t: t.masked_fill_(m.tensor([True, False, True]), 2.0),
}


@pytest.mark.filterwarnings("ignore:Use of masked_fill_ on expanded tensors is deprecated")
@pytest.mark.parametrize("name", OVERLAPPING_WRITES)
def test_writes_to_an_expanded_tensor_raise_as_torch(name):
    write = OVERLAPPING_WRITES[name]

    def run(m):
        base = m.ones(1, 3)
        write(m, base.expand(2, 3))
        return base

    same(run)


# ----- augmented assignment ------------------------------------------------------------------------------

AUGMENTED = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv, "//=": operator.ifloordiv,
    "%=": operator.imod, "**=": operator.ipow, "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
    "<<=": operator.ilshift, ">>=": operator.irshift, "@=": operator.imatmul,
}


@pytest.mark.parametrize("symbol", AUGMENTED)
@pytest.mark.parametrize("other_kind", ["tensor", "scalar"])
def test_augmented_assignment_keeps_identity_and_matches_torch(symbol, other_kind):
    apply = AUGMENTED[symbol]
    floating = symbol not in ("&=", "|=", "^=", "<<=", ">>=")

    def run(m):
        x = m.tensor([[6, 3], [4, 12]], dtype=m.float32 if floating else m.int64)
        other = m.tensor([[4, 2], [1, 3]], dtype=x.dtype) if other_kind == "tensor" or symbol == "@=" else 2
        alias, version = x, x._version
        x = apply(x, other)
        return x, x is alias, x._version - version

    same(run)


def test_augmented_assignment_on_an_indexed_view_writes_the_base():
    def run(m):
        x = m.zeros(2, 3)
        x[0] += 1
        x[:, 1] *= 5
        x[1, ::2] -= m.tensor([1.0, 2.0])
        x[x > 0] += 10
        return x

    same(run)


# ----- in place through views --------------------------------------------------------------------------

VIEW_WRITES = {
    "column": lambda x: x[:, 1].mul_(10), "transposed": lambda x: x.t().add_(100),
    "diagonal": lambda x: x.diagonal().fill_(-1), "row-view-of-view": lambda x: x.view(2, 2, 2)[1].t().sub_(5),
    "unbind": lambda x: [row.add_(i) for i, row in enumerate(x.unbind(1))],
    "split": lambda x: x.split(1, 1)[1].zero_(), "expanded-read": lambda x: x.add_(x[:1].expand(4, 2).clone()),
    "through-detach": lambda x: x.detach()[0].fill_(7),
}


@pytest.mark.parametrize("name", VIEW_WRITES)
def test_in_place_through_views_matches_torch(name):
    write = VIEW_WRITES[name]

    def run(m):
        x = m.arange(8.0).reshape(4, 2)
        write(x)
        return x

    same(run)


# ----- in-place view ops ---------------------------------------------------------------------------------

# name: (what the op is applied to, given a (3, 4) view of arange(12), and the op).
IN_PLACE_VIEWS = {
    "t_": (lambda x: x, lambda t: t.t_()), "t_-1d": (lambda x: x[0], lambda t: t.t_()),
    "t_-3d": (lambda x: x.view(3, 2, 2), lambda t: t.t_()),
    "transpose_": (lambda x: x, lambda t: t.transpose_(0, 1)),
    "transpose_-negative": (lambda x: x, lambda t: t.transpose_(-1, 0)),
    "transpose_-bad-dim": (lambda x: x, lambda t: t.transpose_(0, 2)),
    "swapaxes_": (lambda x: x, lambda t: t.swapaxes_(1, 0)), "swapdims_": (lambda x: x, lambda t: t.swapdims_(0, 1)),
    "unsqueeze_": (lambda x: x, lambda t: t.unsqueeze_(1)), "unsqueeze_-end": (lambda x: x, lambda t: t.unsqueeze_(-1)),
    "unsqueeze_-bad-dim": (lambda x: x, lambda t: t.unsqueeze_(3)),
    "squeeze_": (lambda x: x.view(1, 3, 1, 4), lambda t: t.squeeze_()),
    "squeeze_-dim": (lambda x: x.view(3, 1, 4), lambda t: t.squeeze_(1)),
    "squeeze_-dims": (lambda x: x.view(1, 3, 1, 4), lambda t: t.squeeze_((0, 2))),
    "squeeze_-not-one": (lambda x: x, lambda t: t.squeeze_(0)),
    "as_strided_": (lambda x: x, lambda t: t.as_strided_((2, 2), (1, 4), 1)),
    "as_strided_-keeps-offset": (lambda x: x[1:], lambda t: t.as_strided_((2,), (4,))),
    "t_-of-a-strided-view": (lambda x: x[1:, ::2], lambda t: t.t_()),
    "unsqueeze_-of-a-column": (lambda x: x[:, 1], lambda t: t.unsqueeze_(0)),
}


@pytest.mark.parametrize("name", IN_PLACE_VIEWS)
def test_in_place_view_ops_match_torch(name):
    """The tensor itself takes the view's shape, strides and offset (returning itself, bumping the version) and
    still shares memory with its base both ways."""
    prepare, op = IN_PLACE_VIEWS[name]

    def run(m):
        base = m.arange(12.0)
        target = prepare(base.view(3, 4))
        version = target._version
        returned = op(target)
        changed = (returned is target, target._version - version, target.is_contiguous())
        target.mul_(-1)
        base[0] = 100.0
        return changed, target, base

    same(run, layout=True)


def test_in_place_view_table_size():
    assert len(IN_PLACE_VIEWS) == 19


IN_PLACE_VIEW_HISTORY = {
    "t_": lambda y: y.t_(), "transpose_": lambda y: y.transpose_(1, 0), "swapaxes_": lambda y: y.swapaxes_(0, 1),
    "unsqueeze_": lambda y: y.unsqueeze_(0), "squeeze_": lambda y: y.unsqueeze_(0).squeeze_(),
    "squeeze_-dim": lambda y: y.unsqueeze_(0).squeeze_(0), "squeeze_-dims": lambda y: y.unsqueeze_(0).squeeze_((0,)),
    "as_strided_": lambda y: y.as_strided_((2, 2), (1, 4), 1),
    "t_-then-write-a-row": lambda y: y.t_()[0].mul_(2), "t_-then-write-a-column": lambda y: y.t_()[:, 1].add_(1),
    "unsqueeze_-then-write": lambda y: y.unsqueeze_(1)[1].mul_(3),
}


@pytest.mark.parametrize("name", IN_PLACE_VIEW_HISTORY)
def test_in_place_view_ops_record_torch_history_and_gradients(name):
    """PyTorch's grad_fn names (TBackward1, SqueezeBackward4, ...), and correct gradients, also for writes through
    views of the tensor once its layout is no longer row-major."""
    def run(m):
        x = m.arange(12.0, requires_grad=True)
        y = (x * 1).view(3, 4)
        IN_PLACE_VIEW_HISTORY[name](y)
        node = y.grad_fn
        names = (node.name().removeprefix("torch::autograd::"),
                 [n.name().removeprefix("torch::autograd::") for n, _ in node.next_functions if n is not None])
        (y * m.arange(float(y.numel())).view(y.shape)).sum().backward()
        return names, y, x.grad

    same(run)


def test_in_place_view_ops_on_a_leaf_that_requires_grad():
    same(lambda m: m.zeros(2, 3, requires_grad=True).t_())
    same(lambda m: m.zeros(2, 3, requires_grad=True)[0].unsqueeze_(0))

    def under_no_grad(m):
        w = m.zeros(2, 3, requires_grad=True)
        with m.no_grad():
            w.t_()
        return w.detach(), w.stride(), w.is_leaf, w.requires_grad

    same(under_no_grad)


@pytest.mark.parametrize("write", [lambda c: c[1].mul_(3), lambda c: c[:, 2].add_(c[0, :1]),
                                   lambda c: c.unsqueeze_(0)[0, 1:3].sub_(1)], ids=["row", "column", "unsqueeze_"])
def test_gradients_through_views_of_a_clone_that_kept_its_strides(write):
    """A clone of a transposed tensor keeps its strides, so its views' storage layouts are not row-major offsets
    into its value: the history of writes through them must still give PyTorch's gradients."""
    def run(m):
        x = m.arange(12.0, requires_grad=True)
        c = (x * 1).view(3, 4).t().clone()
        write(c)
        (c * m.arange(12.0).view(c.shape)).sum().backward()
        return c.stride(), c, x.grad

    same(run)


# ----- version counters ----------------------------------------------------------------------------------

def test_version_counter_is_shared_by_views_and_detach_but_not_data():
    def run(m):
        x = m.zeros(4)
        view, detached, data = x[1:], x.detach(), x.data
        seen = []
        for mutate in (lambda: view.add_(1), lambda: detached.mul_(2), lambda: x.__setitem__(0, 5),
                       lambda: x.copy_(m.ones(4)), lambda: x.fill_(2), lambda: x.zero_(), lambda: data.add_(1),
                       lambda: x.index_put_((m.tensor([0]),), m.tensor(1.0)), lambda: x.masked_fill_(x > 1, 0)):
            mutate()
            seen.append((x._version, view._version, detached._version, data._version))
        return seen, x

    same(run)


def test_numpy_writes_are_seen_but_do_not_count_as_versions():
    def run(m):
        x = m.zeros(3)
        x.numpy()[0] = 4
        return x, x._version

    same(run)


def test_in_place_on_a_leaf_that_requires_grad_raises_as_torch():
    same(lambda m: m.ones(3, requires_grad=True).add_(1))
    same(lambda m: m.ones(3, requires_grad=True)[0].add_(1))


def test_in_place_on_a_leaf_under_no_grad_is_allowed():
    def run(m):
        w = m.ones(3, requires_grad=True)
        with m.no_grad():
            w.sub_(0.5)
        return w.detach(), w.requires_grad, w.is_leaf, w._version

    same(run)


def test_writes_through_data_are_not_an_autograd_error():
    """PyTorch's saved tensors alias memory, so its gradient here sees the doubled w (4); pjtorch saves
    immutable values and gives 2. What must hold in both: `.data` writes raise no version error."""
    w = pjtorch.ones(3, requires_grad=True)
    loss = (w * w).sum()
    w.data.mul_(2)
    loss.backward()
    assert w.grad.shape == (3,) and w.tolist() == [2.0, 2.0, 2.0]


def test_a_repeated_in_place_call_keeps_every_rule_of_the_first():
    """The second call of a signature takes dispatch's decided path: values, version, identity, grad-mode refusals
    and recording must all be as on the first."""
    for _ in range(3):
        x = pjtorch.arange(6.0)
        before = x._version
        result = x.mul_(2).add_(pjtorch.ones(6), alpha=3).sub_(1)
        assert result is x and x._version == before + 3
        assert x.tolist() == [float(2 * i + 2) for i in range(6)]
        leaf = pjtorch.ones(6, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
            leaf.mul_(2)
        with pjtorch.no_grad():
            leaf.mul_(2)
        assert leaf.grad_fn is None and leaf.tolist() == [2.0] * 6
        y = leaf * 1
        y.mul_(pjtorch.full((6,), 3.0))
        assert y.grad_fn.name() == "MulBackward0"
        y.sum().backward()
        assert leaf.grad.tolist() == [3.0] * 6
        z = pjtorch.zeros(2, 3)
        z.t().add_(1)
        assert z.tolist() == [[1.0] * 3] * 2
