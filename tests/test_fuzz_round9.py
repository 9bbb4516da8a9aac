"""Regressions from the ninth differential-fuzz round on tensor ops: each case runs under torch and pjtorch and
must agree on dtype, shape and values, or on the exception type and message."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from tensor_oracle import reference, same, same_output

torch = reference()

NAN = float("nan")


# ----- index_add / index_copy / index_fill: argument checks in torch's order ---------------------------------

def _index_write(name, shape, dim, index, source_shape, index_dtype="int64", source_dtype="float32"):
    def case(m):
        x = m.zeros(shape)
        index_tensor = m.tensor(index, dtype=getattr(m, index_dtype))
        source = m.arange(float(np.prod(source_shape, dtype=int))).reshape(source_shape).to(getattr(m, source_dtype))
        return getattr(x, name)(dim, index_tensor, source), getattr(m, name.rstrip("_"))(x, dim, index_tensor, source)
    return case


_INDEX_WRITES = [
    ((3, 4), 0, [0, 2], (2, 4)), ((3, 4), 1, [3, 0], (3, 2)), ((3, 4), -1, [1], (3, 1)), ((3, 4), 0, 1, (1, 4)),
    ((3, 4), 1, 2, (3, 1)), ((3, 4), 0, 1, (4,)), ((3,), 0, 1, ()), ((3,), 0, [1], ()), ((), 0, [0], ()),
    ((), 0, [0], (1,)), ((), 0, [0, 0], (2,)), ((3,), 0, 1, (1,)), ((3, 4), 0, [[0, 2]], (2, 4)),
    ((3, 4), 0, [0, 2], (3, 4)), ((3, 4), 0, [0, 2], (2, 3)), ((3, 4), 0, [0, 2], (2, 4, 1)), ((3, 4), 0, [0, 2], (2,)),
    ((3, 4), 0, [1], ()), ((3, 4), 0, [0, 2], ()), ((3, 4), 1, [0, 2], (2,)), ((3, 4), 2, [0], (1, 4)),
    ((2, 3, 4), 1, [0, 2], (2, 2, 5)), ((2, 3, 4), 0, [0, 2], (2, 2, 5)), ((3, 4), 1, [3, 3], (2, 2)),
    ((3, 4), 0, [5], (1, 4)), ((3, 4), 1, [-1], (3, 1)), ((3,), 0, [5], (1,)), ((3,), 0, [-1], (1,)),
    ((2, 3, 4), 2, [4], (2, 3, 1)), ((3, 0), 0, [5], (1, 0)), ((3, 4), 0, [], (0, 4)),
]


@pytest.mark.parametrize("name", ["index_add_", "index_copy_"])
@pytest.mark.parametrize("shape, dim, index, source_shape", _INDEX_WRITES)
def test_index_add_and_copy_check_their_arguments_as_torch(name, shape, dim, index, source_shape):
    same(_index_write(name, shape, dim, index, source_shape))


@pytest.mark.parametrize("name", ["index_add_", "index_copy_"])
@pytest.mark.parametrize("index_dtype, source_dtype", [("float32", "float32"), ("int32", "float32"),
                                                       ("int64", "float64"), ("float32", "float64")])
@pytest.mark.parametrize("shape, dim, index, source_shape", [((3, 4), 0, [0, 2], (2, 4)), ((3, 4), 0, [0, 2], (3, 4)),
                                                             ((3, 4), 0, [[0, 2]], (2, 4)), ((3, 4), 0, [0, 2], (4,)),
                                                             ((3, 4), 1, [4], (3, 1)), ((3, 4), 3, [0], (1, 4))])
def test_index_add_and_copy_check_dtypes_in_torchs_order(name, index_dtype, source_dtype, shape, dim, index,
                                                         source_shape):
    same(_index_write(name, shape, dim, index, source_shape, index_dtype, source_dtype))


@pytest.mark.parametrize("dtype", ["bool", "int64", "float16"])
@pytest.mark.parametrize("alpha", [1, 2])
def test_index_add_of_other_dtypes(dtype, alpha):
    same(lambda m: m.zeros(3, 2, dtype=getattr(m, dtype)).index_add_(0, m.tensor([1, 1]),
                                                                     m.ones(2, 2, dtype=getattr(m, dtype)),
                                                                     alpha=alpha))


@pytest.mark.parametrize("value", [1.5, "0-dim", "1-dim", 2j, "complex"])
@pytest.mark.parametrize("dim, index, index_dtype", [(0, [0, 2], "int64"), (1, [-1], "int64"), (0, [[1]], "int64"),
                                                     (5, [0], "int64"), (5, [0], "float32"), (0, [0], "int32"),
                                                     (1, [4], "int64"), (1, [-5], "int64"), (0, 1, "int64")])
def test_index_fill_checks_its_arguments_as_torch(value, dim, index, index_dtype):
    def case(m):
        fill = {"0-dim": m.tensor(2.0), "1-dim": m.tensor([2.0]), "complex": m.tensor(1j)}.get(value, value)
        index_tensor = m.tensor(index, dtype=getattr(m, index_dtype))
        return m.zeros(3, 4).index_fill_(dim, index_tensor, fill), m.index_fill(m.zeros(3, 4), dim, index_tensor, fill)

    same(case)


def test_index_fill_of_a_0_dim_tensor():
    for index in ([0], [-1], [1]):
        same(lambda m: m.tensor(1.0).index_fill_(0, m.tensor(index), 5.0))


# ----- masked_scatter ------------------------------------------------------------------------------------

_MASKS = {"rows": [[True, False, True, False]] * 3, "vector": [True, False], "row": [False, True, True, True],
          "all": True, "none": False}


@pytest.mark.parametrize("mask", list(_MASKS))
@pytest.mark.parametrize("mask_dtype", ["bool", "float32", "uint8"])
@pytest.mark.parametrize("source", [12, 2, 0, "float64", "0-dim"])
@pytest.mark.parametrize("shape", [(3, 4), (4,), ()])
def test_masked_scatter_checks_as_torch(mask, mask_dtype, source, shape):
    def case(m):
        mask_tensor = m.tensor(_MASKS[mask]).to(getattr(m, mask_dtype))
        values = {"float64": m.arange(12.0, dtype=m.float64), "0-dim": m.tensor(7.0)}.get(source)
        values = m.arange(float(source)) if values is None else values
        return (m.masked_scatter(m.zeros(shape), mask_tensor, values),
                m.zeros(shape).masked_scatter_(mask_tensor, values))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same(case)


def test_masked_scatter_warns_of_a_uint8_mask_as_torch():
    same_output("""
        tr(lambda: torch.zeros(2).masked_scatter_(torch.tensor([1, 0], dtype=torch.uint8), torch.ones(2)))
        tr(lambda: torch.zeros(2).masked_scatter_(torch.tensor([1, 0], dtype=torch.uint8), torch.ones(2).double()))
    """)


# ----- scatter with reduce= ------------------------------------------------------------------------------

@pytest.mark.parametrize("reduce", ["add", "multiply", "sum", "mean"])
@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
@pytest.mark.parametrize("src", ["number", "tensor"])
def test_scatter_with_reduce(reduce, dtype, src):
    def case(m):
        x = m.arange(1, 13).reshape(3, 4).to(getattr(m, dtype))
        index = m.tensor([[0, 2], [2, 2]])
        value = m.full((2, 2), 3).to(x.dtype) if src == "tensor" else 3
        return x.clone().scatter_(0, index, value, reduce=reduce), m.scatter(x, 0, index, value, reduce=reduce)

    same(case)


def test_scatter_reduce_checks_its_arguments_in_torchs_order():
    same_output("""
        x = torch.zeros(2, 3)
        tr(lambda: x.scatter_(0, torch.tensor([[1.0]]), 1.0, reduce='sum'))
        tr(lambda: x.scatter_(3, torch.tensor([[1]]), 1.0, reduce='sum'))
    """)


# ----- function forms take one sequence, methods varargs ----------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda m, a: m.reshape(a, 3, 8), lambda m, a: m.reshape(a, 24), lambda m, a: m.reshape(a, (24.0,)),
    lambda m, a: m.reshape(a, 6.0), lambda m, a: m.reshape(a, (3, 8)), lambda m, a: m.reshape(a, shape=[4, 6]),
    lambda m, a: m.reshape(a), lambda m, a: m.permute(a, 2, 0, 1), lambda m, a: m.permute(a, 2),
    lambda m, a: m.permute(a, (2, 0, 1)), lambda m, a: m.permute(a, dims=[2, 1, 0]), lambda m, a: m.permute(a, None),
    lambda m, a: m.permute(a, (1, 0), (0, 1)), lambda m, a: m.tile(a, 2), lambda m, a: m.tile(a, 2, 1),
    lambda m, a: m.tile(a, (2, 1)), lambda m, a: m.tile(a), lambda m, a: m.flip(a, 0), lambda m, a: m.flip(a, 0, 1),
    lambda m, a: m.flip(a, (0, 2)), lambda m, a: m.flip(a, dims=[1]), lambda m, a: m.flip(a),
    lambda m, a: m.broadcast_to(a, 2, 3, 4), lambda m, a: m.broadcast_to(a, (5, 2, 3, 4)),
    lambda m, a: a.reshape(3, 8), lambda m, a: a.reshape((24,)), lambda m, a: a.permute(2, 0, 1),
    lambda m, a: a.permute(dims=(2, 0, 1)), lambda m, a: a.tile(2, 1), lambda m, a: a.tile((2,)),
    lambda m, a: a.tile(dims=(2, 1)), lambda m, a: a.tile(), lambda m, a: a.flip(0, 1), lambda m, a: a.flip(),
    lambda m, a: a.broadcast_to(2, 2, 3, 4), lambda m, a: m.zeros((2, 3.0)), lambda m, a: m.zeros([2.0]),
    lambda m, a: m.zeros(2, 3.0),
])
def test_sizes_as_varargs_or_one_sequence(call):
    same(lambda m: call(m, m.arange(24.0).reshape(2, 3, 4)))


# ----- contiguous / ravel -----------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
@pytest.mark.parametrize("memory_format", ["default", "contiguous_format", "preserve_format", 3, "positional"])
def test_contiguous_memory_formats(layout, memory_format):
    def case(m):
        a = m.arange(24.0).reshape(2, 3, 4)
        a = a if layout == "contiguous" else a.transpose(0, 2)
        if memory_format == "default":
            out = a.contiguous()
        elif memory_format == "positional":
            out = a.contiguous(m.contiguous_format)
        else:
            out = a.contiguous(memory_format=getattr(m, memory_format, memory_format))
        return out, out is a

    same(case, layout=True)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-dim"])
def test_ravel_is_a_view_of_the_contiguous_tensor(layout):
    def case(m):
        a = {"contiguous": m.arange(6.0), "transposed": m.arange(6.0).reshape(2, 3).t(), "0-dim": m.tensor(2.0)}[layout]
        a.requires_grad_()
        flat = a.ravel() if layout != "transposed" else m.ravel(a)
        return flat, flat._base is None, flat._base is a, type(flat.grad_fn).__name__

    same(case, layout=True)


# ----- topk and mode: which of several equal values PyTorch's kernels report ----------------------------------

def _ties(seed, shape, high=4, nans=0.0):
    rng = np.random.default_rng(seed)
    values = rng.integers(0, high, size=shape).astype(float)
    values[rng.random(shape) < nans] = NAN
    return values


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("largest", [True, False])
def test_topk_picks_torchs_index_among_ties(seed, largest):
    n = [1, 3, 5, 8, 17, 33, 64, 130, 200, 300, 7, 16][seed]
    values = _ties(seed, (3, n), nans=0.15 if seed % 3 == 0 else 0.0)
    for k in sorted({1, 2, n // 2 or 1, n}):
        same(lambda m: m.topk(m.tensor(values), k, largest=largest))
        same(lambda m: m.topk(m.tensor(values, dtype=m.int64 if seed % 3 else m.float16), k, 1, largest=largest))
        same(lambda m: m.topk(m.tensor(values).t(), k, 0, largest, True))


def test_topk_with_ties_keeps_its_gradient():
    def case(m):
        x = m.tensor([[1.0, 3, 3, 2, 3, 1, 1, 2]] * 2, requires_grad=True)
        (m.topk(x, 3).values * m.tensor([1.0, 2.0, 3.0])).sum().backward()
        return x.grad

    same(case)


@pytest.mark.parametrize("seed", range(8))
def test_mode_reports_torchs_index_and_treats_nan_as_unequal(seed):
    n = [4, 5, 16, 17, 30, 64, 100, 3][seed]
    values = _ties(seed, (4, n), high=[2, 4, 5, 3, 6, 4, 8, 2][seed], nans=0.3 if seed % 2 else 0.0)
    same(lambda m: m.mode(m.tensor(values)))
    same(lambda m: m.mode(m.tensor(values), 0, True))
    same(lambda m: m.mode(m.tensor(values, dtype=m.float64).t(), 0))
    same(lambda m: m.mode(m.tensor(np.nan_to_num(values), dtype=m.int32), 1))


@pytest.mark.parametrize("values", [[1.0, NAN, NAN, 2.0], [NAN, 1.0, 1.0, NAN, NAN], [3.0, 1, 3, 1, 2], [NAN]])
def test_mode_with_nan(values):
    same(lambda m: m.mode(m.tensor(values)))


# ----- histc's range from the data, empty medians --------------------------------------------------------------

@pytest.mark.parametrize("values", [[1.0, NAN, 2.0], [NAN], [NAN, NAN], [1.0, float("inf")], [-float("inf"), 1.0],
                                    [5.0] * 30 + [NAN], [2.0, 2.0], [1.0, 2.0, 5.0], []])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_histc_with_a_range_from_the_data(values, dtype):
    same(lambda m: m.histc(m.tensor(values, dtype=getattr(m, dtype)), bins=4))
    same(lambda m: m.histc(m.tensor(values, dtype=getattr(m, dtype)), bins=4, min=0, max=3))


@pytest.mark.parametrize("dtype", ["bool", "complex64", "int64", "int8", "float16", "float32"])
def test_median_of_an_empty_tensor(dtype):
    same(lambda m: m.median(m.tensor([], dtype=getattr(m, dtype))))
    same(lambda m: m.nanmedian(m.zeros(0, 2, dtype=getattr(m, dtype))))
    same(lambda m: m.median(m.zeros(2, 0, dtype=getattr(m, dtype)), 0))


@pytest.mark.parametrize("args", [(True,), (True, True), (True, True, True), (False, False, True, None)])
def test_unique_takes_its_flags_by_position(args):
    same(lambda m: m.unique(m.tensor([3, 1, 3, 2]), *args))
    same(lambda m: m.tensor([3, 1, 3, 2]).unique(*args[:3]))


# ----- 0-dim tensors take dims -1 and 0 ------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [-2, -1, 0, 1])
@pytest.mark.parametrize("call", [
    lambda m, x, d: x.cummax(d), lambda m, x, d: x.cummin(d), lambda m, x, d: x.unbind(d),
    lambda m, x, d: x.quantile(0.5, d), lambda m, x, d: x.nanquantile(0.25, d, True), lambda m, x, d: x.sum(d),
    lambda m, x, d: x.softmax(d), lambda m, x, d: x.cumsum(d), lambda m, x, d: x.argmax(d), lambda m, x, d: x.max(d),
    lambda m, x, d: x.unsqueeze(d), lambda m, x, d: x.squeeze(d), lambda m, x, d: x.flatten(d),
    lambda m, x, d: x.select(d, 0), lambda m, x, d: x.sort(d), lambda m, x, d: x.logsumexp(d),
    lambda m, x, d: x.std(d), lambda m, x, d: x.roll(1, d), lambda m, x, d: x.median(d), lambda m, x, d: x.mode(d),
    lambda m, x, d: x.kthvalue(1, d), lambda m, x, d: m.cat([x], d), lambda m, x, d: x.movedim(d, 0),
    lambda m, x, d: x.unique(dim=d), lambda m, x, d: x.index_add(d, m.tensor([0]), m.tensor(1.0)),
    lambda m, x, d: x.topk(1, d), lambda m, x, d: x.aminmax(dim=d), lambda m, x, d: x.tensor_split(2, d),
])
def test_dims_of_a_0_dim_tensor(call, dim):
    same(lambda m: call(m, m.tensor(5.0), dim))


# ----- an input partly sharing the written memory ---------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda m, y: m.add(y[:4], 1, out=y[1:5]), lambda m, y: m.exp(y[:4], out=y[2:]),
    lambda m, y: m.mul(y[:3], y[3:], out=y[3:]), lambda m, y: m.add(y[1:], y[1:], out=y[1:]),
    lambda m, y: m.add(y[:3], 1, out=y[3:]),
])
def test_out_partly_sharing_an_inputs_memory(call):
    def case(m):
        y = m.arange(6.0)
        return call(m, y), y

    same(case)


# ----- fuzz findings: half-precision softmax, argument order of checks ---------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name, dim", [("softmax", 1), ("log_softmax", 0)])
def test_half_precision_softmax_is_computed_in_float32(dtype, name, dim):
    """Computed in half precision the small results were far off (0.0 for -1.03e-03). (Along the other dims torch's
    kernels round an intermediate differently, an ulp here and there: not matched yet.)"""
    values = np.random.default_rng(3).standard_normal((6, 5)) * 4
    same(lambda m: getattr(m, name)(m.tensor(values, dtype=getattr(m, dtype)), dim))
    same(lambda m: m.log_softmax(m.tensor([[-2.44, -3.54], [-0.0, 3.33]], dtype=getattr(m, dtype)), -2))


@pytest.mark.parametrize("dim", [(0, 1), [0], 1.0])
def test_softmax_takes_an_int_dim(dim):
    same(lambda m: m.softmax(m.ones(2, 3), dim))
    same(lambda m: m.log_softmax(m.ones(2, 3), dim))


def test_integer_division_checks_shapes_before_zeros():
    same(lambda m: m.floor_divide(m.ones(2, 3, dtype=m.int64), m.tensor([0, 1], dtype=m.int64)))
    same(lambda m: m.remainder(m.ones(2, 3, dtype=m.int64), m.zeros(2, dtype=m.int64)))
    same(lambda m: m.floor_divide(m.ones(2, 3, dtype=m.int64), m.tensor([0, 1, 2], dtype=m.int64)))


def test_rsub_broadcasts_other_first():
    same(lambda m: m.rsub(m.ones(2), m.ones(3)))
    same(lambda m: m.rsub(m.ones(2, 1), m.ones(3), alpha=2))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", ["cumsum", "cumprod"])
def test_half_precision_running_sums_carry_float32(dtype, name):
    values = np.random.default_rng(5).standard_normal((3, 40)) * [[1.0], [0.2], [3.0]]
    same(lambda m: getattr(m, name)(m.tensor(values, dtype=getattr(m, dtype)), 1))
    same(lambda m: getattr(m, name)(m.tensor([[-1.79, 4.38, 2.07], [2.22, -3.98, 1.02]], dtype=getattr(m, dtype)), -1))


@pytest.mark.parametrize("dtype", ["int8", "uint8", "float16", "int64", "bool"])
@pytest.mark.parametrize("value", [300, -1, 2.5, 1e10, 1j])
def test_full_like_checks_its_value_for_the_dtype(dtype, value):
    same(lambda m: m.full_like(m.zeros(2), value, dtype=getattr(m, dtype)))
    same(lambda m: m.full_like(m.zeros(2, dtype=getattr(m, dtype)), value))


@pytest.mark.parametrize("call", [
    lambda m: m.bitwise_and(m.ones(2, dtype=m.int8), m.ones(2), out=m.zeros(2, dtype=m.int64)),
    lambda m: m.bitwise_right_shift(m.ones(2), 300, out=m.zeros(2, dtype=m.uint8)),
    lambda m: m.remainder(m.tensor(1j), False, out=m.zeros((), dtype=m.int64)),
    lambda m: m.bitwise_and(m.ones(2), m.ones(2), out=m.zeros(2)),
    lambda m: m.float_power(m.tensor([-2]), m.tensor([-3.0]), out=m.zeros(1, dtype=m.float16)),
    lambda m: m.float_power(m.tensor([1 + 1j]), 2, out=m.zeros(1)),
    lambda m: m.float_power(m.tensor([3]), 2, out=m.zeros(1, dtype=m.float64)),
])
def test_out_dtype_is_checked_before_the_kernel(call):
    same(call)


@pytest.mark.parametrize("call", [
    lambda m: m.roll(m.tensor([]), -2, 1), lambda m: m.roll(m.zeros(2, 0), 1, 5),
    lambda m: m.roll(m.zeros(2, 0), (1, 2), (0,)), lambda m: m.zeros(0).put(m.tensor([1]), m.tensor([1.0])),
    lambda m: m.zeros(0).put(m.tensor([], dtype=m.int64), m.tensor([])),
    lambda m: m.unique(m.ones(2), dim=(0,)), lambda m: m.mode(m.ones(2), dim=(0,)),
    lambda m: m.median(m.ones(2), dim=(0,)), lambda m: m.nanmedian(m.ones(2), dim=[0]),
    lambda m: m.arange(-0.5, dtype=m.bool), lambda m: m.arange(3, dtype=m.bool),
    lambda m: m.arange(-1, dtype=m.complex64),
    lambda m: m.stack([m.tensor(1.0), m.ones(2)], -2), lambda m: m.stack([m.ones(2), m.tensor(1.0)], 2),
    lambda m: m.stack([m.ones(2), m.ones(2)], -3), lambda m: m.nansum(m.tensor(1j), -3),
    lambda m: m.norm(m.tensor([]), -3, keepdim=True), lambda m: m.norm(m.tensor([]), float("inf")),
    lambda m: m.norm(m.tensor([]), 0), lambda m: m.norm(m.zeros(2, 0), -1, dim=1),
    lambda m: m.norm(m.zeros(2, 0), -1, 0),
    lambda m: m.norm(m.zeros(2, 0), -float("inf"), dim=(0, 1)), lambda m: m.norm(m.ones(2, 3), -1.5, 1),
])
def test_checks_of_empty_and_odd_arguments(call):
    same(call)
