"""Regressions from the seventh differential-fuzz round on tensor ops: each case runs under torch and pjtorch and
must agree on dtype, shape, values, or on the exception type and message."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tensor_oracle import reference, same, same_output

import pjtorch

torch = reference()

NAN, INF = float("nan"), float("inf")


# ----- Python numbers where tensors are expected ------------------------------------------------------------

@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "true_divide", "floor_divide", "multiply", "divide",
                                  "subtract", "remainder", "xlogy", "bitwise_and", "bitwise_left_shift", "rsub"])
@pytest.mark.parametrize("pair", [(2, 3.0), (True, True), (2.5, 1j), (3, 0)])
def test_two_numbers(name, pair):
    same(lambda m: getattr(m, name)(*pair))


@pytest.mark.parametrize("name", ["rsub", "isclose", "allclose", "equal", "polar", "complex"])
@pytest.mark.parametrize("first", [True, 2.5, None])
def test_tensor_only_operands(name, first):
    x = lambda m: m.tensor([1.0, 2.0])  # noqa: E731
    same(lambda m: getattr(m, name)(x(m) if first is None else first, 2 if first is None else x(m)))


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("position", [0, 1, 2])
def test_addc_operands_must_be_tensors(name, position):
    def case(m):
        args = [m.tensor([1.0, 2.0]) for _ in range(3)]
        args[position] = 2
        return getattr(m, name)(*args)

    same(case)


@pytest.mark.parametrize("name", ["rsub", "maximum_", "isnan_", "signbit_", "logaddexp_"])
def test_no_such_tensor_method(name):
    assert hasattr(torch.Tensor, name) == hasattr(pjtorch.Tensor, name)


# ----- clamp ------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bounds", [(7, "t"), ("t", 2), ("t", 2.5), ("t", True), (None, "t"), ("t", None), ("v", 2),
                                    (1.5, "v"), ("v", "t")])
@pytest.mark.parametrize("dtype", ["int32", "float32"])
def test_clamp_mixes_tensor_and_number_bounds(bounds, dtype):
    t = lambda m: m.tensor([-3, 5, 1]).to(getattr(m, dtype))  # noqa: E731
    args = lambda m: [m.tensor(1) if b == "t" else m.tensor([1, 2, 3]) if b == "v" else b for b in bounds]  # noqa: E731
    same(lambda m: m.clamp(t(m), *args(m)))
    same(lambda m: t(m).clamp(min=args(m)[0], max=args(m)[1]), message=False)  # a method words its errors its own way


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int16", "int64", "float16", "float32"])
@pytest.mark.parametrize("call", [lambda x: x.clamp_(0.5), lambda x: x.clamp_(1j), lambda x: x.clamp(1j),
                                  lambda x: x.clamp_min_(0.5), lambda x: x.clamp_min_(1j), lambda x: x.clamp(max=1j),
                                  lambda x: x.clamp_max_(-0.5), lambda x: x.clamp_(-1, 1)])
def test_clamp_number_bound_errors(dtype, call):
    same(lambda m: call(m.tensor([1, 2]).to(getattr(m, dtype))))


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "float16"])
@pytest.mark.parametrize("bounds", [(-1, 5), (-1, None), (None, -1), (300, None), (-200, None), (-256, 1), (1e6, None)])
def test_clamp_number_bounds_convert_to_the_dtype(dtype, bounds):
    same(lambda m: m.tensor([1, 2, 100]).to(getattr(m, dtype)).clamp(*bounds))
    same(lambda m: m.tensor([1, 2, 100]).to(getattr(m, dtype)).clamp_(*bounds))


# ----- indexing and sorting ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("key", [0, -1, 5, slice(None), slice(0, 1), (0,), (-1,), (0, None), (None, 0), (Ellipsis, 0),
                                 (slice(None),), (None, slice(None)), (2, 0), (Ellipsis, None)])
def test_indexing_a_0dim_tensor(key):
    same(lambda m: m.tensor(3)[key])

    def write(m):
        t = m.tensor(3)
        t[key] = 5
        return t

    same(write)


@pytest.mark.parametrize("case", [
    lambda m, x: m.sort(x, 0, stable=True), lambda m, x: m.sort(x, 0, True, stable=True),
    lambda m, x: m.sort(x, 0, descending=True, stable=False), lambda m, x: m.sort(x, dim=0, stable=True),
    lambda m, x: m.sort(x, 0, True), lambda m, x: x.sort(0, stable=True), lambda m, x: x.sort(0, descending=True),
    lambda m, x: m.argsort(x, 0, stable=True), lambda m, x: x.argsort(0, stable=True),
    lambda m, x: m.argsort(x, dim=0, stable=True, descending=True), lambda m, x: x.argsort(0, True),
])
def test_sort_takes_dim_by_keyword_beside_stable(case):
    same(lambda m: case(m, m.tensor([3, 1, 2, 1])))


# ----- reductions ------------------------------------------------------------------------------------------------

X = lambda m: m.tensor([[1.0, 2.0], [3.0, 0.0]])  # noqa: E731


@pytest.mark.parametrize("case", [
    lambda m: m.count_nonzero(X(m), 0, keepdim=True), lambda m: m.count_nonzero(X(m), keepdim=True),
    lambda m: m.nanmedian(X(m), dim=(0,)), lambda m: m.mean(X(m), (), dtype=m.int64),
    lambda m: m.mean(X(m), dtype=m.int64), lambda m: m.mean(X(m).int()), lambda m: m.prod(X(m), (0,)),
    lambda m: m.prod(X(m), 0, dtype=m.int64), lambda m: m.max(X(m), (0,)), lambda m: m.min(X(m), [0]),
    lambda m: m.quantile(X(m).int(), 1.5), lambda m: m.nanquantile(X(m).int(), -0.5),
    lambda m: m.quantile(X(m).int(), 0.5), lambda m: m.aminmax(X(m).cfloat()),
    lambda m: m.norm(X(m), p=0, dtype=m.complex64), lambda m: m.norm(X(m), p=2, dtype=m.complex64),
    lambda m: m.norm(X(m).cfloat(), dtype=m.complex64), lambda m: m.nansum(X(m), dtype=m.complex64),
    lambda m: m.nansum(X(m), 0, dtype=m.float64),
])
def test_reduction_argument_errors(case):
    same(case)


@pytest.mark.parametrize("name", ["var", "std", "var_mean", "std_mean"])
@pytest.mark.parametrize("options", [dict(unbiased=True, keepdim=True), dict(unbiased=False), dict(keepdim=True),
                                     dict(dim=0, unbiased=False, keepdim=True), dict(correction=0, keepdim=True)])
def test_unbiased_alone_takes_no_keepdim(name, options):
    same(lambda m: getattr(m, name)(X(m), **options))


@pytest.mark.parametrize("dtype", ["float32", "complex64"])
@pytest.mark.parametrize("correction", [1, 2, 3])
def test_variance_with_no_degrees_of_freedom(dtype, correction):
    x = lambda m: m.tensor([[-1.179, 0.97], [2.0, 2.0]], dtype=getattr(m, dtype))  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(lambda m: m.var(x(m), dim=1, correction=correction))
        same(lambda m: m.std(x(m), correction=correction))
        same(lambda m: m.var_mean(x(m), 0, correction=correction))
        same(lambda m: m.std_mean(x(m), (0, 1), correction=correction, keepdim=True))


def test_variance_warns_of_no_degrees_of_freedom():
    same_output("""
        x = torch.ones(2, 2)
        print(torch.var(x, 1, correction=2), torch.var_mean(x, correction=4), torch.var(torch.ones(1)))
    """)


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("values", [[0.0, INF], [-INF, 0.0], [-INF, 0.6, INF, 2.0], [[1.0, 5, 2], [3, 4, -1]]])
def test_quantile_interpolates_as_lerp(interpolation, values):
    q = lambda m: m.tensor([0.0, 0.1, 0.3, 0.5, 0.66, 0.7, 0.9, 1.0])  # noqa: E731
    same(lambda m: m.quantile(m.tensor(values), q(m), dim=-1, interpolation=interpolation))


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int16", "int64"])
@pytest.mark.parametrize("name", ["median", "nanmedian"])
def test_median_of_nothing(dtype, name):
    same(lambda m: getattr(m, name)(m.zeros(0, dtype=getattr(m, dtype))))
    same(lambda m: getattr(m, name)(m.zeros(2, 0, dtype=getattr(m, dtype))))


@pytest.mark.parametrize("case", [
    lambda m: m.cummax(m.tensor([4.0]), ()), lambda m: m.cummin(m.tensor([4.0]), [0]),
    lambda m: m.cumsum(m.tensor([4.0]), (0,)), lambda m: m.tensor([4.0]).cumprod([0]),
    lambda m: m.logcumsumexp(m.tensor([4.0]), (0,)), lambda m: m.tensor([True]).argmin(dim=[-1, 0]),
    lambda m: m.nanmean(m.zeros(0), dtype=m.int32), lambda m: m.nanmean(m.zeros(3), 0, dtype=m.int32),
    lambda m: m.quantile(m.zeros(2, 0, dtype=m.int32), 0.5), lambda m: m.nanquantile(m.zeros(2, 0).half(), 0.5),
])
def test_scan_and_reduction_argument_checks(case):
    same(case)


# ----- products, distances, searches and selections ------------------------------------------------------------

A = lambda m: m.tensor([[-5, -1, 6], [-5, -7, 4]], dtype=m.int32)  # noqa: E731


@pytest.mark.parametrize("case", [
    lambda m: m.cross(A(m), A(m).short(), dim=-1), lambda m: m.cross(A(m).float(), A(m), dim=1),
    lambda m: m.cross(m.ones(3, 3), m.ones(2, 3), dim=-1), lambda m: m.cross(A(m), A(m)[:1].flip(1), dim=1),
    lambda m: m.cdist(m.ones(1, 3, dtype=m.float64), m.ones(2, 3)),
    lambda m: m.cdist(m.ones(1, 3, dtype=m.int64), m.ones(2, 2, dtype=m.float64)),
    lambda m: m.cdist(m.ones(1, 3, dtype=m.int64), m.ones(2, 3, dtype=m.float64)),
])
def test_cross_and_cdist_operand_checks(case):
    same(case)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, INF])
def test_cdist_of_nan_and_inf(p):
    same(lambda m: m.cdist(m.tensor([[NAN, 1.0], [-INF, 1.0], [2.0, 0.5]]), m.tensor([[1.0, 1.0], [0.0, NAN]]), p=p))


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0), (2, 0, 2)])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select_out_of_an_empty_tensor(shape, dim):
    same(lambda m: m.index_select(m.zeros(shape), dim, m.tensor([5])))


@pytest.mark.parametrize("index", [(), (1,), (2,), (0,), (1, 1)])
def test_gather_from_a_0dim_tensor(index):
    same(lambda m: m.gather(m.tensor(9.0), 0, m.zeros(index, dtype=m.int64)))
    same(lambda m: m.gather(m.tensor(9.0), -1, m.ones(index, dtype=m.int64)))


@pytest.mark.parametrize("boundaries", [[-3.8, 3.4, NAN], [NAN, NAN], [1.0, NAN, 2.0, 2.0], [], [1.0, 2.0, 2.0, 5.0]])
@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_steps_as_pytorch_over_nan(boundaries, right):
    values = [5.0, NAN, -4.0, 2.0, 1.0]
    same(lambda m: m.searchsorted(m.tensor(boundaries), m.tensor(values), right=right))
    same(lambda m: m.bucketize(m.tensor(values), m.tensor(boundaries), right=right))
    same(lambda m: m.searchsorted(m.tensor([boundaries, boundaries[::-1]]), m.tensor([values, values]), right=right))


@pytest.mark.parametrize("case", [
    lambda m: m.searchsorted(m.ones(2, 2), 2), lambda m: m.searchsorted(m.tensor(1.0), 2),
    lambda m: m.searchsorted(m.tensor(1.0), m.tensor(2.0)), lambda m: m.searchsorted(m.ones(2, 2), m.tensor(2.0)),
])
def test_searchsorted_of_a_scalar(case):
    same(case)


# ----- pointwise values ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("divisor", [-1.0, 1.0, -5.0, INF, -INF])
def test_floor_division_zero_takes_the_quotients_sign(dtype, divisor):
    x = lambda m: m.tensor([-0.2, 0.2, -0.0, 0.0, 3.0, -3.0, 0.5, 1e-30]).to(getattr(m, dtype))  # noqa: E731
    for case in (lambda m: m.floor_divide(x(m), divisor), lambda m: m.div(x(m), divisor, rounding_mode="floor"),
                 lambda m: x(m) // divisor):
        got = same(case)
        assert [np.copysign(1, v) for v in got.float().tolist()] == \
            [np.copysign(1, v) for v in case(torch).float().tolist()]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "uint8"])
def test_sign_of_nan_and_negative_zero(dtype):
    x = lambda m: m.tensor([NAN, -0.0, 0.0, -2.0, INF] if dtype[0] in "fb" else [3, 0, 5]).to(  # noqa: E731
        getattr(m, dtype))
    for name in ("sign", "sgn"):
        got = same(lambda m: getattr(m, name)(x(m)))
        assert [np.copysign(1, v) for v in got.double().tolist()] == \
            [np.copysign(1, v) for v in getattr(torch, name)(x(torch)).double().tolist()]


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("exponent", [0.5, -0.5, 1.5, -1, 2.0])
def test_square_root_powers_are_roots(dtype, exponent):
    x = lambda m: m.tensor([-INF, -4.0, 0.0, -0.0, 4.0, INF, NAN], dtype=getattr(m, dtype))  # noqa: E731
    same(lambda m: x(m) ** exponent)
    same(lambda m: x(m).pow_(exponent))
    signs = lambda t: [np.copysign(1, v) for v in t.double().tolist() if v == v]  # noqa: E731  (NaN's aside)
    assert signs(x(pjtorch) ** exponent) == signs(x(torch) ** exponent)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_kernel_names(name):
    same(lambda m: getattr(m, name)(m.tensor([1, 2]), m.tensor([3, 4])))
    same(lambda m: getattr(m, name)(m.tensor([1j]), m.tensor([3.0])))


REDUCTION_NODES = """
x = torch.tensor(2.0, requires_grad=True)
y = torch.arange(6.).reshape(2, 3).requires_grad_()
for name in ("sum", "mean", "prod"):
    for t in (x, y):
        for options in ({"dim": 0}, {"dim": 0, "keepdim": True}, {"dim": -1}, {}):
            result = getattr(t, name)(**options)
            result.sum().backward()
            print(name, result, type(result.grad_fn).__name__, t.grad)
            t.grad = None
for name in ("sum", "mean"):
    print(getattr(y, name)(dim=[]), getattr(y, name)(dim=()), getattr(x, name)(dim=[]), getattr(y, name)(dim=[], keepdim=True))
    tr(lambda: getattr(y, name)(keepdim=True))
    tr(lambda: getattr(torch, name)(y, keepdim=True))
"""


def test_reductions_given_a_dim_name_their_node_as_pytorch_even_for_0_dim_inputs():
    same_output(REDUCTION_NODES)


def test_method_errors_list_the_overloads_as_the_method_has_them():
    same_output("""
x = torch.ones(2, 3)
for call in (lambda: x.prod((0,)), lambda: x.count_nonzero(0, keepdim=True), lambda: x.std(unbiased=False, keepdim=True),
             lambda: torch.prod(x, (0,)), lambda: x.cumsum((0,)), lambda: x.sort(0, stable=True)):
    tr(call)
""")


def test_view_edge_cases_of_0_dim_tensors_and_missing_sizes():
    same_output("""
t0 = torch.tensor(3.0)
tr(lambda: torch.split(t0, 1))
tr(lambda: torch.movedim(t0, 0, 0))
tr(lambda: torch.movedim(t0, -1, -1))
tr(lambda: torch.ones(2, 2).diagonal(dim1=-1, dim2=-1))
tr(lambda: torch.ones(2, 2).diagonal(dim1=1, dim2=-1))
tr(lambda: torch.ones(2).expand())
tr(lambda: torch.ones(2).repeat())
""")


def test_index_fill_of_a_0_dim_tensor():
    same_output("""
tr(lambda: torch.tensor(1.).index_fill_(0, torch.tensor([0]), 2.))
tr(lambda: torch.tensor(1.).index_fill(0, torch.tensor(0), torch.tensor(3.)))
tr(lambda: torch.tensor(1.).index_fill(-1, torch.tensor([0]), 2.))
tr(lambda: torch.tensor(1.).index_fill(0, torch.tensor([1]), 2.))
x = torch.tensor(1., requires_grad=True)
y = x.index_fill(0, torch.tensor([0]), 2.)
y.backward()
print(y, x.grad)
print(torch.arange(6.).reshape(2, 3).index_fill(1, torch.tensor([0, 2]), -1))
""")


def test_binary_special_functions_refuse_two_numbers():
    same_output("""
for name in ("zeta", "xlog1py", "xlogy"):
    tr(lambda: getattr(torch.special, name)(2, 3.0))
    tr(lambda: getattr(torch.special, name)(2.0, torch.tensor([3.0])))
    tr(lambda: getattr(torch.special, name)(torch.tensor([2.0]), 3.0))
""")
