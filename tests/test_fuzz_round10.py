"""Regressions from the tenth differential-fuzz round on tensor ops: each case runs under torch and pjtorch and
must agree on dtype, shape and values, or on the exception type and message."""
from __future__ import annotations

import warnings

import pytest

from tensor_oracle import reference, same

torch = reference()


# ----- arange with an integer dtype and fractional bounds ----------------------------------------------------

_INTEGER_RANGES = [
    ((0.5, 3.7), "int64"), ((0.5, 3.7), "int32"), ((0, 5, 1.5), "int64"), ((0, 5, 1.5), "int32"),
    ((-1.5, 1.5), "int64"), ((-1.5, 1.5), "uint8"), ((-1.5, 1.5), "int16"), ((2.9,), "int64"), ((2.9,), "int8"),
    ((5, 0, -1.5), "int64"), ((5, 0, -1.5), "int32"), ((0.7, -3.2, -1), "int64"), ((0.7, -3.2, -1), "int32"),
    ((0, 5, 0.5), "int64"), ((0, 5, 0.5), "int32"), ((0, 5, -0.5), "int64"), ((-2.5, 2.5, 2), "int64"),
]


@pytest.mark.parametrize("bounds, dtype", _INTEGER_RANGES)
def test_arange_steps_an_integer_range_from_the_truncated_bounds(bounds, dtype):
    same(lambda m: m.arange(*bounds, dtype=getattr(m, dtype)))


# ----- factories write into out= ------------------------------------------------------------------------------

def _into(make, out_dtype="float32"):
    def case(m):
        out = m.empty(0, dtype=getattr(m, out_dtype))
        result = make(m, out)
        return result, out if out.numel() == 0 or not isinstance(result, tuple) else out.shape
    return case


_FACTORIES_WITH_OUT = {
    "arange": (lambda m, o: m.arange(3, out=o), "float32"),
    "arange_int32": (lambda m, o: m.arange(1, 7, 2, out=o), "int32"),
    "arange_half": (lambda m, o: m.arange(0, 1, 0.25, out=o), "float16"),
    "arange_bool": (lambda m, o: m.arange(3, out=o), "bool"),
    "linspace": (lambda m, o: m.linspace(0, 1, 3, out=o), "float64"),
    "linspace_int": (lambda m, o: m.linspace(0, 1, 3, out=o), "int32"),
    "logspace": (lambda m, o: m.logspace(0, 1, 3, out=o), "int32"),
    "zeros": (lambda m, o: m.zeros(2, out=o), "int32"),
    "ones": (lambda m, o: m.ones(2, 2, out=o), "float32"),
    "empty": (lambda m, o: (m.empty(2, 3, out=o) is o, o.shape), "float32"),
    "full": (lambda m, o: m.full((2,), 3, out=o), "float16"),
    "full_fraction": (lambda m, o: m.full((3,), 2.5, out=o), "int32"),
    "eye": (lambda m, o: m.eye(2, out=o), "float32"),
    "eye_rect": (lambda m, o: m.eye(3, 2, out=o), "int32"),
    "dtype_mismatch": (lambda m, o: m.zeros(3, dtype=m.int64, out=o), "int32"),
    "arange_dtype_mismatch": (lambda m, o: m.arange(3, dtype=m.int64, out=o), "int32"),
    "integer_requires_grad": (lambda m, o: m.ones(3, out=o, requires_grad=True), "int32"),
    "requires_grad": (lambda m, o: (m.ones(3, out=o, requires_grad=True).requires_grad, o.requires_grad), "float32"),
}


@pytest.mark.parametrize("name", _FACTORIES_WITH_OUT)
def test_factories_fill_out_in_its_dtype(name):
    make, dtype = _FACTORIES_WITH_OUT[name]
    same(_into(make, dtype))


def test_a_factory_refuses_an_out_that_requires_grad():
    same(lambda m: m.zeros(3, out=m.empty(5, requires_grad=True)))


def test_a_factory_keeps_the_layout_of_an_out_of_the_right_shape():
    def case(m):
        out = m.empty(2, 3).t()
        m.zeros(3, 2, out=out)
        return out, out.stride()

    same(case)


def test_arange_warns_when_it_resizes_a_nonempty_out():
    def messages(m):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = m.arange(3, out=m.empty(5))
        return result, [str(w.message).split(" (Triggered")[0] for w in caught]

    assert messages(torch)[1] == messages(__import__("pjtorch"))[1]
    same(lambda m: messages(m)[0])


# ----- out= dtype checks --------------------------------------------------------------------------------------

_OUT_DTYPE_CASES = {
    "abs": lambda m: m.abs(m.tensor([-1., 5]), out=m.empty(0, dtype=m.float64)),
    "abs_int": lambda m: m.abs(m.tensor([-1, 5]), out=m.empty(0, dtype=m.int8)),
    "neg": lambda m: m.neg(m.tensor([1, 5]), out=m.empty(0, dtype=m.int32)),
    "floor": lambda m: m.floor(m.tensor([1.5]), out=m.empty(0, dtype=m.float64)),
    "round_int": lambda m: m.round(m.tensor([1]), out=m.empty(0)),
    "round_decimals": lambda m: m.round(m.tensor([1., 5]), decimals=1, out=m.empty(0, dtype=m.float64)),
    "sign_bool": lambda m: m.sign(m.tensor([True]), out=m.empty(0)),
    "bitwise_not": lambda m: m.bitwise_not(m.tensor([1, 2]), out=m.empty(0, dtype=m.int32)),
    "sqrt_widens": lambda m: m.sqrt(m.tensor([1, 4]), out=m.empty(0, dtype=m.float64)),
    "signbit": lambda m: m.signbit(m.tensor([-1., 2.]), out=m.empty(0)),
    "isposinf": lambda m: m.isposinf(m.tensor([-1., 2.]), out=m.empty(0, dtype=m.int32)),
    "nan_to_num": lambda m: m.nan_to_num(m.tensor([1., 2.]), out=m.empty(0, dtype=m.float64)),
    "clamp_numbers": lambda m: m.clamp(m.tensor([1., 5]), 2, 3, out=m.empty(0, dtype=m.float64)),
    "clamp_int_numbers": lambda m: m.clamp(m.tensor([1, 5]), 2, 3, out=m.empty(0)),
    "clamp_promoting_number": lambda m: m.clamp(m.tensor([1, 5]), 2.5, 3, out=m.empty(0)),
    "clamp_mixed_bounds": lambda m: m.clamp(m.tensor([1, 5]), m.tensor(2), 3, out=m.empty(0, dtype=m.int32)),
    "clamp_tensor_bound": lambda m: m.clamp(m.tensor([1, 5]), m.tensor(2), out=m.empty(0)),
    "clip": lambda m: m.clip(m.tensor([1, 5]), 2, out=m.empty(0, dtype=m.int32)),
    "all_float": lambda m: m.all(m.tensor([1., 5]), out=m.empty(0)),
    "all_uint8": lambda m: m.all(m.tensor([1., 5]), 0, out=m.empty(0, dtype=m.uint8)),
    "all_byte_to_bool": lambda m: m.all(m.tensor([1, 5], dtype=m.uint8), out=m.empty(0, dtype=m.bool)),
    "any_float": lambda m: m.any(m.tensor([1., 5]), 0, out=m.empty(0)),
    "argmax": lambda m: m.argmax(m.tensor([1, 5]), out=m.empty(0, dtype=m.int32)),
    "argmin": lambda m: m.argmin(m.tensor([1, 5]), 0, out=m.empty(0)),
    "max_values": lambda m: m.max(m.tensor([[1., 5]]), 1, out=(m.empty(0, dtype=m.float64), m.empty(0, dtype=m.long))),
    "max_indices": lambda m: m.max(m.tensor([[1, 5]]), 1, out=(m.empty(0, dtype=m.long), m.empty(0))),
    "min_indices": lambda m: m.min(m.tensor([[1., 5]]), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "max_binary_widens": lambda m: m.max(m.tensor([1, 5]), m.tensor([2., 3]), out=m.empty(0, dtype=m.float64)),
    "sort": lambda m: m.sort(m.tensor([[1., 5]]), 1, out=(m.empty(0, dtype=m.float64), m.empty(0, dtype=m.long))),
    "topk": lambda m: m.topk(m.tensor([[1., 5]]), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "kthvalue": lambda m: m.kthvalue(m.tensor([[1., 5]]), 1, out=(m.empty(0, dtype=m.float64),
                                                                  m.empty(0, dtype=m.long))),
    "kthvalue_indices": lambda m: m.kthvalue(m.tensor([[1., 5]]), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "median": lambda m: m.median(m.tensor([[1., 5]]), 1, out=(m.empty(0, dtype=m.float64), m.empty(0, dtype=m.long))),
    "nanmedian_indices": lambda m: m.nanmedian(m.tensor([[1., 5]]), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "mode": lambda m: m.mode(m.tensor([[1., 5]]), 1, out=(m.empty(0, dtype=m.float64), m.empty(0, dtype=m.long))),
    "mode_indices": lambda m: m.mode(m.tensor([[1., 5]]), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "cummax": lambda m: m.cummax(m.tensor([[1., 5]]), 1, out=(m.empty(0, dtype=m.float64), m.empty(0, dtype=m.long))),
    "cummin_indices": lambda m: m.cummin(m.tensor([[1., 5]]), 1, out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "aminmax": lambda m: m.aminmax(m.tensor([[1., 5]]), out=(m.empty(0), m.empty(0, dtype=m.int32))),
    "amax": lambda m: m.amax(m.tensor([[1., 5]]), out=m.empty(0, dtype=m.float64)),
    "norm": lambda m: m.norm(m.tensor([[1., 5]]), dim=1, out=m.empty(0, dtype=m.float64)),
    "where": lambda m: m.where(m.tensor([True]), m.tensor([1.]), m.tensor([2.]), out=m.empty(0, dtype=m.float64)),
    "where_promoted": lambda m: m.where(m.tensor([True]), m.tensor([1]), m.tensor([2.]), out=m.empty(0)),
    "gather": lambda m: m.gather(m.tensor([1., 5]), 0, m.tensor([0]), out=m.empty(0, dtype=m.float64)),
    "index_select": lambda m: m.index_select(m.tensor([1., 5]), 0, m.tensor([0]), out=m.empty(0, dtype=m.float64)),
    "take": lambda m: m.take(m.tensor([1., 5]), m.tensor([0]), out=m.empty(0, dtype=m.float64)),
    "masked_select": lambda m: m.masked_select(m.tensor([1., 5]), m.tensor([True, False]),
                                               out=m.empty(0, dtype=m.float64)),
    "tril": lambda m: m.tril(m.tensor([[1., 5]]), out=m.empty(0, dtype=m.float64)),
    "triu_int": lambda m: m.triu(m.tensor([[1, 5]]), out=m.empty(0, dtype=m.int32)),
    "nonzero": lambda m: m.nonzero(m.tensor([[1., 5]]), out=m.empty(0, dtype=m.int32)),
    "take_along_dim": lambda m: m.take_along_dim(m.tensor([1., 5]), m.tensor([0]), out=m.empty(0, dtype=m.float64)),
    "searchsorted": lambda m: m.searchsorted(m.tensor([1., 5]), m.tensor([2.]), out=m.empty(0, dtype=m.int32)),
    "searchsorted_int32": lambda m: m.searchsorted(m.tensor([1., 5]), m.tensor([2.]), out_int32=True,
                                                   out=m.empty(0, dtype=m.int64)),
    "bucketize": lambda m: m.bucketize(m.tensor([1, 5]), m.tensor([2., 3]), out=m.empty(0, dtype=m.int32)),
    "logcumsumexp": lambda m: m.logcumsumexp(m.tensor([[1., 5]]), 0, out=m.empty(0, dtype=m.float64)),
    "cross": lambda m: m.cross(m.ones(3), m.ones(3), dim=0, out=m.empty(0, dtype=m.float64)),
    "diag": lambda m: m.diag(m.ones(3), out=m.empty(0, dtype=m.float64)),
    "histc": lambda m: m.histc(m.ones(3), bins=4, out=m.empty(0, dtype=m.float64)),
    "heaviside": lambda m: m.heaviside(m.tensor([1., -1]), m.tensor([0.5]), out=m.empty(0, dtype=m.float64)),
    "cumsum_in_out_dtype": lambda m: m.cumsum(m.tensor([0.5, 0.5, 0.7]), 0, out=m.empty(0, dtype=m.int64)),
    "cumprod_in_out_dtype": lambda m: m.cumprod(m.tensor([1.5, 2.5]), 0, out=m.empty(0, dtype=m.int64)),
    "cumsum_dtype_and_out": lambda m: m.cumsum(m.tensor([1, 2]), 0, dtype=m.float64, out=m.empty(0, dtype=m.int64)),
    "sum_in_out_dtype": lambda m: m.sum(m.tensor([[0.5, 0.5, 0.7]]), 1, out=m.empty(0, dtype=m.int64)),
    "sum_widens": lambda m: m.sum(m.tensor([[100, 100]], dtype=m.int8), 1, out=m.empty(0, dtype=m.int16)),
    "prod_in_out_dtype": lambda m: m.prod(m.tensor([[1.5, 2.5]]), 1, out=m.empty(0, dtype=m.int64)),
    "sum_dtype_and_out": lambda m: m.sum(m.tensor([[1.5]]), 1, dtype=m.float64, out=m.empty(0)),
    "nansum_dtype_and_out": lambda m: m.nansum(m.tensor([[1.5]]), 1, dtype=m.float64, out=m.empty(0)),
}


@pytest.mark.parametrize("name", _OUT_DTYPE_CASES)
def test_out_dtype_is_checked_as_torch_checks_it(name):
    same(_OUT_DTYPE_CASES[name])


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "isreal", "conj", "positive", "relu", "selu", "celu"])
def test_functions_without_out(name):
    same(lambda m: getattr(m, name)(m.tensor([1., 2.]), out=m.empty(0)))


# ----- add / sub: alpha= against the result dtype ----------------------------------------------------------

_ALPHAS = [
    ("add", [1, 2], [1, 2], 2.5), ("add", [1, 2], [1., 2.], 2.5), ("add", [1, 2], 2, 2.5), ("add", [1, 2], 2, 1j),
    ("add", [1., 2.], 2, 1j), ("add", [1., 2.], 2, 2), ("add", [True], [True], 2), ("add", [True], [True], 2.5),
    ("add", [True], [True], True), ("add", [True, False], [False, False], 0), ("add", [1], [True], True),
    ("add", [1.], [2.], True), ("sub", [1, 2], [1, 2], 2.5), ("sub", [1, 2], [1, 2], 3), ("rsub", [1, 2], [1, 2], 2.5),
    ("rsub", [1., 2.], 3, 2), ("add", [1 + 1j], 2, 1j),
]


@pytest.mark.parametrize("name, x, y, alpha", _ALPHAS)
def test_alpha_is_checked_against_the_result_dtype(name, x, y, alpha):
    same(lambda m: getattr(m, name)(m.tensor(x), m.tensor(y) if isinstance(y, list) else y, alpha=alpha))


@pytest.mark.parametrize("name", ["add_", "sub_"])
def test_in_place_alpha_is_checked(name):
    same(lambda m: getattr(m.tensor([1, 2]), name)(m.tensor([1, 2]), alpha=2.5))
    same(lambda m: getattr(m.tensor([1., 2.]), name)(m.tensor([1, 2]), alpha=2.5))


# ----- atleast_*d with several tensors ----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["atleast_1d", "atleast_2d", "atleast_3d"])
def test_atleast_takes_several_tensors_or_a_sequence(name):
    same(lambda m: getattr(m, name)(m.tensor(1), m.tensor([2, 3])))
    same(lambda m: getattr(m, name)([m.tensor(1), m.tensor([[2, 3]])]))
    same(lambda m: getattr(m, name)((m.tensor(1.),)))
    same(lambda m: getattr(m, name)(m.tensor([1, 2])))


# ----- torch.norm's string orders -----------------------------------------------------------------------------

_NORMS = [
    ("nuc", None, False), ("nuc", (1, 2), False), ("nuc", (1, 2), True), ("nuc", 1, False), ("fro", (1, 2), False),
    ("fro", (0, 1, 2), False), ("fro", None, False), ("fro", 1, True), ("foo", (1, 2), False), (2, (1, 2), False),
]


@pytest.mark.parametrize("p, dim, keepdim", _NORMS)
def test_norm_with_a_string_order(p, dim, keepdim):
    same(lambda m: m.norm(m.arange(24.).reshape(2, 3, 4), p, dim=dim, keepdim=keepdim))


def test_nuclear_norm_of_a_matrix():
    same(lambda m: m.arange(12.).reshape(3, 4).norm("nuc"))
    same(lambda m: m.norm(m.arange(12.).reshape(3, 4), "nuc", dtype=m.float64))
    same(lambda m: m.norm(m.arange(12).reshape(3, 4), "nuc"))


# ----- copy_ into a shape the source cannot broadcast to ----------------------------------------------------

@pytest.mark.parametrize("target, source", [((2, 2), (3,)), ((2, 3), (3, 1)), ((2, 3), (0,)), ((0,), (2,)),
                                            ((2,), (2, 2)), ((2,), (1, 2)), ((2, 3), (4, 2, 3)), ((2, 3), (2, 1))])
def test_copy_refuses_a_source_as_torch_words_it(target, source):
    same(lambda m: m.zeros(target).copy_(m.ones(source)))


# ----- max/min given keepdim without a dim -----------------------------------------------------------------

@pytest.mark.parametrize("name", ["max", "min"])
def test_max_with_keepdim_and_no_dim_is_refused(name):
    same(lambda m: getattr(m.tensor([[1, 2]]), name)(keepdim=True))
    same(lambda m: getattr(m, name)(m.tensor([[1, 2]]), keepdim=False), message=False)
    same(lambda m: getattr(m, name)(m.tensor([[1, 2]]), (0,), keepdim=True))
    same(lambda m: getattr(m, name)(m.tensor([[1, 2]]), 1, True))


# ----- unique_consecutive over a dim of an empty tensor --------------------------------------------------

@pytest.mark.parametrize("shape, dim", [((0,), 0), ((0,), -1), ((2, 0, 3), 1), ((2, 0, 3), 0), ((0, 3), 0),
                                        ((0, 3), 1), ((3, 2), 0), ((3, 2), 1)])
def test_unique_consecutive_over_a_dim_of_an_empty_tensor(shape, dim):
    same(lambda m: (m.arange(float(shape[0] * shape[-1])).reshape(shape) // 2).unique_consecutive(
        dim=dim, return_counts=True, return_inverse=True))


# ----- argument checks in torch's order --------------------------------------------------------------------

def test_meshgrid_checks_dtypes_before_dims():
    same(lambda m: m.meshgrid(m.zeros(2, 3), m.zeros(2, dtype=m.int64), indexing="ij"))


@pytest.mark.parametrize("dims", [[-2, 0], [1, -1], [0, 0]])
def test_rot90_names_the_dims_as_given(dims):
    same(lambda m: m.zeros(2, 3).rot90(1, dims))


# ----- advanced indexing into an empty dim -----------------------------------------------------------------

_EMPTY_DIM_KEYS = {
    "list": lambda m: ([0],), "tensor": lambda m: (m.tensor([0, 0]),), "after_slice": lambda m: (slice(None), [0]),
    "two": lambda m: (m.tensor([1]), m.tensor([0])), "ellipsis": lambda m: (Ellipsis, m.tensor([0, 0])),
    "none_of_them": lambda m: (m.tensor([5]), m.tensor([], dtype=m.long)),
}


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
@pytest.mark.parametrize("key", _EMPTY_DIM_KEYS)
def test_indexing_an_empty_dim(shape, key):
    same(lambda m: m.zeros(shape)[_EMPTY_DIM_KEYS[key](m)])


@pytest.mark.parametrize("value", ["scalar", "row", "mismatched"])
def test_assigning_through_an_empty_dim(value):
    def case(m):
        x = m.zeros(0, 3)
        x[[0, 0]] = {"scalar": -1., "row": m.tensor([[1., 2., 3.]]), "mismatched": m.tensor([1., 2.])}[value]
        return x

    same(case)


# ----- argument checks of scatter_add, take, searchsorted's sorter and diff's prepend/append ---------------

_ARGUMENT_CHECKS = {
    "scatter_add_number": lambda m: m.scatter_add(m.zeros(3, 4), 1, m.tensor([[0, 1]]), 1.),
    "scatter_add_method_number": lambda m: m.zeros(3, 4).scatter_add(1, m.tensor([[0, 1]]), 1.),
    "scatter_add__number": lambda m: m.zeros(3, 4).scatter_add_(1, m.tensor([[0, 1]]), 1.),
    "take_bool_index": lambda m: m.zeros(3, 4).take(m.tensor([True])),
    "take_int32_index": lambda m: m.zeros(3, 4).take(m.tensor([1], dtype=m.int32)),
    "take_float_index": lambda m: m.take(m.zeros(3, 4), m.tensor([1.])),
    "sorter_int32": lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([2]), sorter=m.tensor([0, 1, 2],
                                                                                                    dtype=m.int32)),
    "sorter_float": lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([2]), sorter=m.tensor([0, 1, 2.])),
    "sorter_out_of_range": lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([2]), sorter=m.tensor([0, 1, -1])),
    "sorter_short": lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([2]), sorter=m.tensor([0, 1])),
    "sorter_shape": lambda m: m.searchsorted(m.tensor([1, 2, 3]), m.tensor([2]), sorter=m.tensor([[0, 1, 2]])),
    "sorter": lambda m: m.searchsorted(m.tensor([3, 1, 2]), m.tensor([2, 3]), sorter=m.tensor([1, 2, 0])),
    "diff_0dim_append": lambda m: m.diff(m.tensor([1, 2]), append=m.tensor(5)),
    "diff_number_append": lambda m: m.diff(m.tensor([1, 2]), append=5),
    "diff_more_dims": lambda m: m.diff(m.tensor([1, 2]), prepend=m.tensor([[5]])),
    "diff_other_size": lambda m: m.diff(m.tensor([[1, 2]]), dim=0, append=m.tensor([[5, 6, 7]])),
    "diff_both": lambda m: m.diff(m.tensor([[1, 2]]), dim=0, append=m.tensor([[5, 6]]),
                                  prepend=m.tensor([[0, 0], [1, 1]])),
    "diff_promotes": lambda m: m.diff(m.tensor([1, 2]), append=m.tensor([5.])),
}


@pytest.mark.parametrize("name", _ARGUMENT_CHECKS)
def test_arguments_are_checked_as_torch_checks_them(name):
    same(_ARGUMENT_CHECKS[name])
