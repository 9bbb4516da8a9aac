"""Tensor creation against real PyTorch: inference in tensor(), as_tensor/from_numpy, the factories and
their _like forms, and the random factories (same seed, same values within pjtorch)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import pjtorch
from tensor_oracle import assert_same_tensor, reference, same

pytestmark = pytest.mark.filterwarnings("ignore:Creating a tensor from a list of numpy.ndarrays is extremely slow")

NUMPY_DTYPES = (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.float16, np.float32, np.float64,
                np.complex64, np.complex128)

# ----- tensor(): inference and errors ----------------------------------------------------------------

TENSOR_DATA = {
    "int": lambda m: 3, "bool": lambda m: True, "float": lambda m: 2.5, "complex": lambda m: 1j,
    "ints": lambda m: [1, 2], "mixed": lambda m: [1, 2.5], "bool-int": lambda m: [True, 2],
    "int-complex": lambda m: [1, 1j], "nested": lambda m: [[1, 2], [3, 4]], "tuples": lambda m: ((1, 2), (3, 4)),
    "empty": lambda m: [], "empty-rows": lambda m: [[], []], "deep": lambda m: [[[1.5], [2]], [[3], [4]]],
    "np-float64-scalar": lambda m: np.float64(1.5), "np-int32-scalar": lambda m: np.int32(3),
    "np-int16-list": lambda m: [np.int16(3), np.int16(4)], "np-int16-and-int": lambda m: [np.int16(3), 4],
    "np-float64-and-int": lambda m: [np.float64(3), 4], "np-float32-list": lambda m: [np.float32(1.5)],
    "ndarray-rows": lambda m: [np.array([1, 2], np.int32), np.array([3, 4], np.int32)],
    "ndarray-and-list": lambda m: [np.array([1, 2], np.int8), [3, 4]],
    "0dim-tensors": lambda m: [m.tensor(1.5), m.tensor(2.5)],
    "one-element-tensors": lambda m: [m.tensor([1]), m.tensor([2])],
    "int32-tensor-and-int": lambda m: [m.tensor(1, dtype=m.int32), 2],
    "float64-tensor-and-int": lambda m: [m.tensor(1, dtype=m.float64), 2],
    "tensor-row": lambda m: [[1, 2], m.tensor([3, 4], dtype=m.int8)],
    "int64-max": lambda m: [2 ** 63 - 1], "int64-overflow": lambda m: [2 ** 63],
    "int64-underflow": lambda m: [-2 ** 63 - 1], "scalar-overflow": lambda m: 2 ** 63,
    "ragged": lambda m: [[1, 2], [3]], "ragged-deep": lambda m: [[[1, 2]], [[3]]],
    "scalar-where-row": lambda m: [[1, 2], 3], "row-where-scalar": lambda m: [1, [2, 3]],
    "float-then-row": lambda m: [1.5, [2, 3]], "multi-element-tensors": lambda m: [m.tensor([1, 2]), m.tensor([3, 4])],
    "str": lambda m: "abc", "str-in-list": lambda m: [1, "a"], "none": lambda m: None, "none-in-list": lambda m: [None],
    "dict": lambda m: {},
}


@pytest.mark.parametrize("name", TENSOR_DATA)
def test_tensor_infers_dtype_and_shape_as_torch(name):
    make = TENSOR_DATA[name]
    same(lambda m: m.tensor(make(m)), layout=True)


TENSOR_WITH_DTYPE = {
    "float16": ([1, 2], "float16"), "truncate-int32": ([1.7, -1.7], "int32"), "wrap-uint8": ([-1], "uint8"),
    "overflow-uint8": ([300], "uint8"), "overflow-int8": ([128], "int8"), "float-overflow-int32": ([1e10], "int32"),
    "bool": ([1.5, 0.0], "bool"), "float16-inf": ([1e10], "float16"), "bfloat16": ([1, 2.5], "bfloat16"),
    "row-where-scalar-float": ([1, [2, 3]], "float32"), "row-where-scalar-bool": ([1, [2, 3]], "bool"),
    "multi-element-tensors-float": (None, "float32"), "scalar-uint8-overflow": (300, "uint8"),
    "scalar-uint8-wrap": (-1, "uint8"), "scalar-int32": (2.7, "int32"), "int64-big-into-float": ([2 ** 63], "float32"),
    "complex": ([1, 2], "complex64"), "float64": ([0.1, 0.2], "float64"),
    "complex-into-float": ([1j, 2], "float32"), "complex-zero-imag-into-float": ([1 + 0j], "float64"),
    "complex-into-int": ([1j, 2], "int64"), "scalar-complex-into-float": (1j, "float32"),
    "scalar-complex-into-int": (2 + 0j, "int32"),
}


@pytest.mark.parametrize("name", TENSOR_WITH_DTYPE)
def test_tensor_with_dtype_converts_as_torch(name):
    data, dtype = TENSOR_WITH_DTYPE[name]

    def case(m):
        values = [m.tensor([1.5, 2]), m.tensor([3, 4])] if data is None else data
        return m.tensor(values, dtype=getattr(m, dtype))

    same(case)


def test_tensor_table_sizes():
    assert (len(TENSOR_DATA), len(TENSOR_WITH_DTYPE)) == (41, 23)


@st.composite
def nested_lists(draw) -> list:
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=3))
    kind = draw(st.sampled_from(["bool", "int", "float", "complex", "mixed"]))
    leaves = {"bool": st.booleans(), "int": st.integers(-100, 100),
              "float": st.floats(-100, 100, width=32), "complex": st.complex_numbers(max_magnitude=100, width=64),
              "mixed": st.one_of(st.booleans(), st.integers(-100, 100), st.floats(-100, 100, width=32))}[kind]
    values = draw(hnp.arrays(object, shape, elements=leaves))
    return values.tolist()


@settings(max_examples=30, deadline=None)
@given(data=nested_lists())
def test_tensor_from_nested_lists_matches_torch(data):
    same(lambda m: m.tensor(data), layout=True)


@st.composite
def laid_out_arrays(draw) -> np.ndarray:
    """Arrays in every layout NumPy makes: contiguous, transposed, sliced with steps, broadcast."""
    dtype = draw(st.sampled_from(NUMPY_DTYPES))
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=4))
    base = (np.arange(int(np.prod(shape))) % 7).reshape(shape).astype(dtype)
    how = draw(st.sampled_from(["contiguous", "transposed", "stepped", "broadcast"]))
    if how == "transposed":
        return base.transpose(draw(st.permutations(range(base.ndim))))
    if how == "stepped":
        return base[(slice(None, None, draw(st.integers(1, 2))),) * base.ndim]
    if how == "broadcast":
        return np.broadcast_to(base, (2,) + base.shape)
    return base


@settings(max_examples=30, deadline=None)
@given(array=laid_out_arrays())
def test_tensor_from_ndarray_copies_with_torch_dtype_and_strides(array):
    ours = same(lambda m: m.tensor(array), layout=True)
    if array.flags.writeable and array.size:
        array[(0,) * array.ndim] += 1
        assert ours.tolist() != array.tolist()


@settings(max_examples=30, deadline=None)
@given(array=laid_out_arrays())
def test_from_numpy_shares_with_torch_strides(array):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # torch warns that a broadcast array is not writable
        ours = same(lambda m: m.from_numpy(array), layout=True)
    if not array.flags.writeable:
        return
    index = (array.shape[0] - 1,) + (0,) * (array.ndim - 1)
    array[index] = 1 if array.dtype == np.bool_ else array[index] + 3
    assert ours[index].item() == array[index].item()


def test_tensor_of_a_tensor_copies_and_warns():
    source = pjtorch.tensor([1.0, 2.0], requires_grad=True)
    with pytest.warns(UserWarning, match="sourceTensor.clone"):
        copy = pjtorch.tensor(source)
    assert copy.is_leaf and not copy.requires_grad
    copy.add_(1)
    assert source.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64"])
def test_tensor_requires_grad_makes_a_leaf(dtype):
    t = pjtorch.tensor([1, 2], dtype=getattr(pjtorch, dtype), requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.grad_fn is None


def test_tensor_requires_grad_on_integers_raises_as_torch():
    same(lambda m: m.tensor([1, 2], requires_grad=True))
    same(lambda m: m.tensor(3, requires_grad=True))


# ----- as_tensor and from_numpy ----------------------------------------------------------------------

def test_as_tensor_shares_an_ndarray_of_the_same_dtype():
    array = np.array([1.0, 2.0], np.float32)
    t = pjtorch.as_tensor(array)
    array[0] = 9.0
    assert t[0].item() == 9.0
    t[1] = 7.0
    assert array[1] == 7.0


def test_as_tensor_copies_where_dtype_differs():
    array = np.array([1, 2])
    t = pjtorch.as_tensor(array, dtype=pjtorch.float32)
    array[0] = 9
    assert t.tolist() == [1.0, 2.0] and t.dtype is pjtorch.float32


def test_as_tensor_of_a_tensor_is_that_tensor_unless_converted():
    t = pjtorch.tensor([1, 2])
    assert pjtorch.as_tensor(t) is t
    assert pjtorch.as_tensor(t, dtype=pjtorch.int64) is t
    assert pjtorch.as_tensor(t, dtype=pjtorch.float64).dtype is pjtorch.float64


AS_TENSOR_DATA = {"list": [1, 2], "float": 3.5, "nested": [[1.5], [2.5]], "ndarray": np.array([1, 2], np.int16)}


@pytest.mark.parametrize("name", AS_TENSOR_DATA)
@pytest.mark.parametrize("dtype", [None, "float64"])
def test_as_tensor_values_match_torch(name, dtype):
    data = AS_TENSOR_DATA[name]
    same(lambda m: m.as_tensor(data, dtype=None if dtype is None else getattr(m, dtype)))


FROM_NUMPY_ERRORS = {
    "negative-stride": lambda: np.arange(6)[::-1], "list": lambda: [1, 2], "numpy-scalar": lambda: np.float64(1.0),
}


@pytest.mark.parametrize("name", FROM_NUMPY_ERRORS)
def test_from_numpy_errors_match_torch(name):
    same(lambda m: m.from_numpy(FROM_NUMPY_ERRORS[name]()))


def test_from_numpy_unsupported_dtype_raises_type_error():
    same(lambda m: m.from_numpy(np.array(["a"])), message=False)


# ----- filled factories, ranges, eye -----------------------------------------------------------------

FACTORIES = {
    "zeros": lambda m: m.zeros(2, 3), "zeros-tuple": lambda m: m.zeros((2, 3), dtype=m.int32),
    "zeros-list": lambda m: m.zeros([2, 3]), "zeros-size": lambda m: m.zeros(m.Size([2, 3])),
    "zeros-0dim": lambda m: m.zeros(()), "zeros-empty": lambda m: m.zeros(0),
    "zeros-negative": lambda m: m.zeros(2, -3), "ones-negative": lambda m: m.ones(-1),
    "empty-negative": lambda m: m.empty(2, -1), "full-negative": lambda m: m.full((-1,), 1),
    "ones-bool": lambda m: m.ones(2, dtype=m.bool), "ones-complex": lambda m: m.ones(2, 2, dtype=m.complex64),
    "full-int": lambda m: m.full((2,), 3), "full-float": lambda m: m.full((2,), 3.5),
    "full-bool": lambda m: m.full((2,), True), "full-complex": lambda m: m.full((2,), 1j),
    "full-dtype": lambda m: m.full((2,), 3, dtype=m.float64),
    "full-tensor-value": lambda m: m.full([2, 1], m.tensor(3.5)),
    "full-complex-into-float": lambda m: m.full((2,), 1j, dtype=m.float32),
    "full-complex-zero-imag": lambda m: m.full((2,), 2 + 0j, dtype=m.int64),
    "full-uint8-overflow": lambda m: m.full((2,), 256, dtype=m.uint8),
    "full-uint8-wraps": lambda m: m.full((2,), -3, dtype=m.uint8),
    "full-float-into-int": lambda m: m.full((2,), 2.5, dtype=m.int64),
    "zeros-no-size": lambda m: m.zeros(), "ones-no-size": lambda m: m.ones(dtype=m.int64),
    "empty-no-size": lambda m: m.empty(requires_grad=True),
    "eye": lambda m: m.eye(3), "eye-rect": lambda m: m.eye(2, 3), "eye-int": lambda m: m.eye(3, 2, dtype=m.int64),
    "eye-0": lambda m: m.eye(0), "eye-negative-n": lambda m: m.eye(-1), "eye-negative-m": lambda m: m.eye(2, -1),
    "arange": lambda m: m.arange(5), "arange-start": lambda m: m.arange(1, 4),
    "arange-float-step": lambda m: m.arange(0, 1, 0.25), "arange-float-start": lambda m: m.arange(0.5, 3),
    "arange-down": lambda m: m.arange(10, 0, -3), "arange-dtype": lambda m: m.arange(5, dtype=m.float32),
    "arange-tenths": lambda m: m.arange(0, 1, 0.1), "arange-tensor": lambda m: m.arange(m.tensor(3)),
    "arange-float64": lambda m: m.arange(0, 10, 3, dtype=m.float64),
    "arange-uneven": lambda m: m.arange(-1.5, 1.5, 0.7),
    "arange-empty": lambda m: m.arange(0, 0), "arange-zero-step": lambda m: m.arange(0, 5, 0),
    "arange-wrong-sign": lambda m: m.arange(5, 0), "arange-inf": lambda m: m.arange(0, float("inf")),
    "arange-nan-step": lambda m: m.arange(0, 1, float("nan")),
    "linspace": lambda m: m.linspace(0, 1, 5), "linspace-1": lambda m: m.linspace(0, 1, 1),
    "linspace-0": lambda m: m.linspace(0, 1, 0), "linspace-int": lambda m: m.linspace(0, 10, 4, dtype=m.int64),
    "linspace-float64": lambda m: m.linspace(-1, 1, 7, dtype=m.float64),
    "linspace-negative-steps": lambda m: m.linspace(0, 1, -1), "linspace-down": lambda m: m.linspace(3, -3, 5),
    "linspace-complex-dtype": lambda m: m.linspace(0, 1, 3, dtype=m.complex64),
    "linspace-complex-ends": lambda m: m.linspace(1j, 2j, 3),
    "logspace": lambda m: m.logspace(0, 2, 3), "logspace-base2": lambda m: m.logspace(0, 3, 4, base=2),
    "logspace-int": lambda m: m.logspace(0, 2, 3, dtype=m.int64),
    "logspace-float64": lambda m: m.logspace(-1, 1, 3, dtype=m.float64), "logspace-0": lambda m: m.logspace(0, 1, 0),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factory_matches_torch(name):
    same(FACTORIES[name], layout=True)


def test_factory_table_size():
    assert len(FACTORIES) == 61


@pytest.mark.parametrize("factory", ["rand", "randn", "full"])
def test_factories_without_a_size_raise_type_error_as_torch(factory):
    """PyTorch's messages here come from its argument parser (listing every signature): the type must agree."""
    same(lambda m: getattr(m, factory)(), message=False)


def test_empty_has_shape_and_dtype():
    torch = reference()
    for ours, theirs in [(pjtorch.empty(2, 3), torch.empty(2, 3)),
                         (pjtorch.empty((2,), dtype=pjtorch.int16), torch.empty((2,), dtype=torch.int16))]:
        assert (tuple(ours.shape), str(ours.dtype), ours.stride()) == (tuple(theirs.shape), str(theirs.dtype),
                                                                       theirs.stride())


LIKE_SOURCES = {
    "int32": lambda m: m.ones(2, 3, dtype=m.int32), "transposed": lambda m: m.ones(2, 3).t(),
    "odd-strides": lambda m: m.ones(3, 1).t(), "stepped": lambda m: m.ones(4, 6)[:, ::2],
    "expanded": lambda m: m.ones(2, 3).expand(4, 2, 3), "permuted": lambda m: m.ones(2, 3, 4).permute(2, 0, 1),
}
LIKES = {
    "zeros_like": lambda m, t: m.zeros_like(t), "ones_like": lambda m, t: m.ones_like(t, dtype=m.float64),
    "full_like": lambda m, t: m.full_like(t, 2.7), "full_like-int": lambda m, t: m.full_like(t, 7, dtype=m.int64),
    "empty_like": lambda m, t: m.empty_like(t).zero_(),
}
RANDOM_LIKES = {
    "rand_like": lambda m, t: m.rand_like(t, dtype=m.float32), "randn_like": lambda m, t: m.randn_like(t),
    "randint_like": lambda m, t: m.randint_like(t, 1, 2),
}


def drawn_layout(t) -> tuple:
    """What of a random draw can match PyTorch: everything but the values."""
    return str(t.dtype), tuple(t.shape), t.stride(), t.storage_offset()


@pytest.mark.parametrize("source", LIKE_SOURCES)
@pytest.mark.parametrize("name", LIKES)
def test_like_factories_match_torch_dtype_values_and_strides(name, source):
    make, make_source = LIKES[name], LIKE_SOURCES[source]
    same(lambda m: make(m, make_source(m)), layout=True)


@pytest.mark.parametrize("source", ["transposed", "odd-strides", "stepped"])
@pytest.mark.parametrize("name", RANDOM_LIKES)
def test_random_like_factories_match_torch_layout(name, source):
    make, make_source = RANDOM_LIKES[name], LIKE_SOURCES[source]
    same(lambda m: drawn_layout(make(m, make_source(m))))


GRAD_FACTORIES = {
    "tensor": lambda m, **kw: m.tensor([1.0, 2.0], **kw), "zeros": lambda m, **kw: m.zeros(2, **kw),
    "ones": lambda m, **kw: m.ones(2, **kw), "empty": lambda m, **kw: m.empty(2, **kw),
    "full": lambda m, **kw: m.full((2,), 1.0, **kw), "eye": lambda m, **kw: m.eye(2, **kw),
    "arange": lambda m, **kw: m.arange(3.0, **kw), "linspace": lambda m, **kw: m.linspace(0, 1, 3, **kw),
    "logspace": lambda m, **kw: m.logspace(0, 1, 3, **kw), "rand": lambda m, **kw: m.rand(2, **kw),
    "randn": lambda m, **kw: m.randn(2, **kw), "normal": lambda m, **kw: m.normal(0.0, 1.0, (2,), **kw),
    "zeros_like": lambda m, **kw: m.zeros_like(m.ones(2), **kw),
    "ones_like": lambda m, **kw: m.ones_like(m.ones(2), **kw),
    "full_like": lambda m, **kw: m.full_like(m.ones(2), 3.0, **kw),
    "rand_like": lambda m, **kw: m.rand_like(m.ones(2), **kw),
    "randn_like": lambda m, **kw: m.randn_like(m.ones(2), **kw),
    "empty_like": lambda m, **kw: m.empty_like(m.ones(2), **kw),
}


@pytest.mark.parametrize("name", GRAD_FACTORIES)
def test_factories_take_dtype_device_and_requires_grad(name):
    make = GRAD_FACTORIES[name]
    t = make(pjtorch, dtype=pjtorch.float64, device="cpu", requires_grad=True)
    assert (t.dtype, str(t.device), t.requires_grad, t.is_leaf, t.grad_fn) == (pjtorch.float64, "cpu", True, True, None)
    t = make(pjtorch, device=pjtorch.device("cpu"))
    assert not t.requires_grad and t.device == pjtorch.device("cpu")


INTEGER_GRAD = {
    "zeros": lambda m: m.zeros(2, dtype=m.int64, requires_grad=True),
    "eye": lambda m: m.eye(2, dtype=m.int32, requires_grad=True),
    "arange": lambda m: m.arange(3, requires_grad=True),
    "randint": lambda m: m.randint(5, (3,), requires_grad=True),
    "randperm": lambda m: m.randperm(3, requires_grad=True),
    "full_like": lambda m: m.full_like(m.ones(2), 1, dtype=m.int64, requires_grad=True),
}


@pytest.mark.parametrize("name", INTEGER_GRAD)
def test_requires_grad_on_integer_factories_raises_as_torch(name):
    same(INTEGER_GRAD[name])


# ----- random ----------------------------------------------------------------------------------------

DRAWS = {
    "rand": lambda gen: pjtorch.rand(3, 4, generator=gen),
    "randn": lambda gen: pjtorch.randn((3, 4), generator=gen, dtype=pjtorch.float64),
    "randint": lambda gen: pjtorch.randint(2, 9, (3, 4), generator=gen),
    "randperm": lambda gen: pjtorch.randperm(12, generator=gen),
    "normal": lambda gen: pjtorch.normal(2.0, 3.0, (3, 4), generator=gen),
    "normal-tensor-mean": lambda gen: pjtorch.normal(pjtorch.zeros(3, 4), 1.0, generator=gen),
    "rand-complex": lambda gen: pjtorch.rand(3, generator=gen, dtype=pjtorch.complex64),
}


def values_of_draw(t: pjtorch.Tensor) -> list:
    return t.tolist()


@pytest.mark.parametrize("name", DRAWS)
def test_same_seed_gives_same_values_and_draws_advance(name):
    draw = DRAWS[name]
    pjtorch.manual_seed(1234)
    first, second = values_of_draw(draw(None)), values_of_draw(draw(None))
    pjtorch.manual_seed(1234)
    assert values_of_draw(draw(None)) == first and values_of_draw(draw(None)) == second
    assert first != second
    generator = pjtorch.Generator().manual_seed(99)
    from_generator = values_of_draw(draw(generator))
    pjtorch.manual_seed(1234)
    assert values_of_draw(draw(pjtorch.Generator().manual_seed(99))) == from_generator
    assert values_of_draw(draw(None)) == first, "drawing from a Generator must not advance the global stream"


def test_different_seeds_differ_and_state_round_trips():
    pjtorch.manual_seed(1)
    one = pjtorch.rand(8).tolist()
    pjtorch.manual_seed(2)
    assert pjtorch.rand(8).tolist() != one
    state = pjtorch.get_rng_state()
    ahead = pjtorch.rand(8).tolist()
    pjtorch.set_rng_state(state)
    assert pjtorch.rand(8).tolist() == ahead
    assert pjtorch.manual_seed(7).initial_seed() == 7 and pjtorch.initial_seed() == 7


SAMPLES = 10000


def test_random_values_have_the_right_ranges_and_statistics():
    pjtorch.manual_seed(0)
    uniform = pjtorch.rand(SAMPLES).numpy()
    assert uniform.dtype == np.float32 and 0 <= uniform.min() and uniform.max() < 1
    assert abs(uniform.mean() - 0.5) < 0.02
    normal = pjtorch.normal(2.0, 3.0, (SAMPLES,)).numpy()
    assert abs(normal.mean() - 2.0) < 0.15 and abs(normal.std() - 3.0) < 0.15
    integers = pjtorch.randint(-3, 4, (SAMPLES,)).numpy()
    assert integers.dtype == np.int64 and set(np.unique(integers)) == set(range(-3, 4))
    assert sorted(pjtorch.randperm(12).tolist()) == list(range(12))
    complex_draws = pjtorch.rand(SAMPLES, dtype=pjtorch.complex64).numpy()
    assert 0 <= complex_draws.real.min() and complex_draws.imag.max() < 1 and complex_draws.imag.min() >= 0


RANDOM_CASES = {
    "rand": lambda m: m.rand(3, 4), "rand-tuple": lambda m: m.rand((3, 4)),
    "rand-float64": lambda m: m.rand(2, dtype=m.float64), "rand-bfloat16": lambda m: m.rand(2, dtype=m.bfloat16),
    "rand-complex": lambda m: m.rand(3, dtype=m.complex64), "randn-complex": lambda m: m.randn(2, dtype=m.complex64),
    "rand-int": lambda m: m.rand(2, dtype=m.int64), "randn-int": lambda m: m.randn(2, dtype=m.int32),
    "rand-negative": lambda m: m.rand(-1), "randn-negative": lambda m: m.randn(2, -1),
    "randint": lambda m: m.randint(5, (3, 4)), "randint-low": lambda m: m.randint(2, 5, (3, 4)),
    "randint-int32": lambda m: m.randint(5, (3, 4), dtype=m.int32),
    "randint-float": lambda m: m.randint(5, (3, 4), dtype=m.float32),
    "randint-empty-range": lambda m: m.randint(5, 5, (3,)),
    "randint-keywords": lambda m: m.randint(high=5, size=(3, 4)),
    "randint-negative": lambda m: m.randint(3, (-1,)),
    "randperm": lambda m: m.randperm(12), "randperm-float": lambda m: m.randperm(5, dtype=m.float32),
    "randperm-0": lambda m: m.randperm(0), "randperm-negative": lambda m: m.randperm(-1),
    "normal": lambda m: m.normal(0, 1, (3, 4)), "normal-float64": lambda m: m.normal(0, 1, (2,), dtype=m.float64),
    "normal-negative-std": lambda m: m.normal(0, -1, (2,)),
    "normal-tensor-mean": lambda m: m.normal(m.zeros(2, dtype=m.float64), 1.0),
    "normal-tensor-std": lambda m: m.normal(0.0, m.ones(3, 4)),
    "rand_like-int": lambda m: m.rand_like(m.ones(2, dtype=m.int64)),
    "randint_like": lambda m: m.randint_like(m.ones(3, 4), 10), "seed-overflow": lambda m: m.manual_seed(2 ** 64),
}


@pytest.mark.parametrize("name", RANDOM_CASES)
def test_random_factories_shapes_dtypes_and_errors_match_torch(name):
    """Values cannot match PyTorch's stream: compare everything else."""
    make = RANDOM_CASES[name]

    def case(m):
        drawn = make(m)
        return drawn_layout(drawn) if hasattr(drawn, "dtype") else type(drawn).__name__

    same(case)


def test_random_table_size():
    assert len(RANDOM_CASES) == 29


def test_factories_values_match_torch_for_integer_dtypes_exactly():
    torch = reference()
    ours = pjtorch.arange(-2 ** 40, 2 ** 40, 2 ** 38)
    theirs = torch.arange(-2 ** 40, 2 ** 40, 2 ** 38)
    assert_same_tensor(ours, theirs)


# Arguments PyTorch's parser refuses, with its messages: a missing size (the overload list where no single argument
# was given, else "missing"), sizes that are not ints, and randint's overloads (high, size) and (low, high, size).
SIZE_ARGUMENT_ERRORS = {
    "rand()": lambda m: m.rand(), "randn()": lambda m: m.randn(),
    "rand(dtype=)": lambda m: m.rand(dtype=m.float64), "randn(requires_grad=)": lambda m: m.randn(requires_grad=True),
    "rand(dtype=, device=)": lambda m: m.rand(dtype=m.float32, device="cpu"),
    "randn(generator=, dtype=, device=)": lambda m: m.randn(generator=m.Generator(), dtype=m.float32, device="cpu"),
    "rand(size=)": lambda m: m.rand(size=(2, 3)).shape, "randn(2, size=)": lambda m: m.randn(2, size=(2,)),
    "rand(2.5)": lambda m: m.rand(2.5), "randn(None)": lambda m: m.randn(None), "rand('a')": lambda m: m.rand("a"),
    "rand(True)": lambda m: m.rand(True), "rand(2, (3,))": lambda m: m.rand(2, (3,)),
    "randn((2, 2.5))": lambda m: m.randn((2, 2.5)), "rand(tensor)": lambda m: m.rand(m.tensor([2, 3])),
    "rand(0-dim tensor)": lambda m: m.rand(m.tensor(2), 3).shape,
    "rand(None, dtype=)": lambda m: m.rand(None, dtype=m.float32),
    "zeros()": lambda m: m.zeros(), "zeros(size=)": lambda m: m.zeros(size=(2,)).shape,
    "ones(2, size=)": lambda m: m.ones(2, size=(2,)), "empty(2.5)": lambda m: m.empty(2.5),
    "zeros([2, None])": lambda m: m.zeros([2, None]),
    "randint()": lambda m: m.randint(), "randint(5)": lambda m: m.randint(5),
    "randint(0, 5)": lambda m: m.randint(0, 5),
    "randint(5, size=2)": lambda m: m.randint(5, size=2), "randint(0, 5, 2)": lambda m: m.randint(0, 5, 2),
    "randint(size=)": lambda m: m.randint(size=(2,)), "randint(5, dtype=)": lambda m: m.randint(5, dtype=m.int32),
    "randint(dtype=, device=)": lambda m: m.randint(dtype=m.int32, device="cpu"),
    "randint(low=, size=)": lambda m: m.randint(low=0, size=(2,)),
    "randint(low=, high=)": lambda m: m.randint(low=0, high=5),
    "randint(5, dtype=, device=)": lambda m: m.randint(5, dtype=m.int32, device="cpu"),
    "randint(5.5, size)": lambda m: m.randint(5.5, (2,)), "randint(True, size)": lambda m: m.randint(True, (2,)),
    "randint(0, 5.0, size)": lambda m: m.randint(0, 5.0, (2,)),
    "randint(high=, size=)": lambda m: m.randint(high=5, size=(2,)).shape,
    "randint(5, [2])": lambda m: m.randint(5, [2]).shape,
    "randint(t, size)": lambda m: m.randint(m.tensor(5), (2,)).shape,
    "randperm()": lambda m: m.randperm(), "rand_like()": lambda m: m.rand_like(),
    "randn_like()": lambda m: m.randn_like(),
}


@pytest.mark.parametrize("name", SIZE_ARGUMENT_ERRORS)
def test_size_arguments_are_parsed_as_torch(name):
    same(SIZE_ARGUMENT_ERRORS[name])


# torch.scalar_tensor: a 0-dim tensor of a number, default float dtype; half and bfloat16 overflow to inf unchecked.
SCALAR_TENSORS = {
    "int": lambda m: m.scalar_tensor(3), "bool": lambda m: m.scalar_tensor(True),
    "float": lambda m: m.scalar_tensor(1.5),
    "dtype": lambda m: m.scalar_tensor(2.7, dtype=m.int8), "uint8-wraps": lambda m: m.scalar_tensor(-3, dtype=m.uint8),
    "int8-overflow": lambda m: m.scalar_tensor(300, dtype=m.int8),
    "half-overflow-is-inf": lambda m: m.scalar_tensor(1e10, dtype=m.float16),
    "bfloat16-overflow-is-inf": lambda m: m.scalar_tensor(1e300, dtype=m.bfloat16),
    "half-complex": lambda m: m.scalar_tensor(1j, dtype=m.float16),
    "float-overflow": lambda m: m.scalar_tensor(1e300), "complex-into-float": lambda m: m.scalar_tensor(1j),
    "complex": lambda m: m.scalar_tensor(1 + 2j, dtype=m.complex64),
    "complex64-overflow": lambda m: m.scalar_tensor(1e300j, dtype=m.complex64),
    "bool-complex": lambda m: m.scalar_tensor(1j, dtype=m.bool),
    "uint64-range": lambda m: m.scalar_tensor(2 ** 63),
    "int64-overflow": lambda m: m.scalar_tensor(2 ** 63, dtype=m.int64),
    "too-big": lambda m: m.scalar_tensor(2 ** 64), "too-small": lambda m: m.scalar_tensor(-2 ** 63 - 1),
    "numpy-float32": lambda m: m.scalar_tensor(np.float32(2.5)),
    "numpy-bool": lambda m: m.scalar_tensor(np.bool_(True)),
    "0-dim-tensor": lambda m: m.scalar_tensor(m.tensor(2.5)), "tensor": lambda m: m.scalar_tensor(m.tensor([2.5])),
    "str": lambda m: m.scalar_tensor("a"), "none": lambda m: m.scalar_tensor(None),
    "missing": lambda m: m.scalar_tensor(), "two-positional": lambda m: m.scalar_tensor(2, m.float64),
    "keyword": lambda m: m.scalar_tensor(s=2, dtype=m.float64),
    "requires_grad": lambda m: m.scalar_tensor(2, requires_grad=True),
    "requires_grad-int": lambda m: m.scalar_tensor(2, dtype=m.int64, requires_grad=True),
    "layout": lambda m: m.scalar_tensor(2, layout=m.strided, device="cpu"),
}


@pytest.mark.parametrize("name", SCALAR_TENSORS)
def test_scalar_tensor_matches_torch(name):
    def run(m):
        t = SCALAR_TENSORS[name](m)
        return t, t.requires_grad, t.is_leaf

    same(run)


def test_scalar_tensor_follows_the_default_dtype():
    def run(m):
        m.set_default_dtype(m.float64)
        try:
            return m.scalar_tensor(1)
        finally:
            m.set_default_dtype(m.float32)

    same(run)


def test_argument_table_sizes():
    assert (len(SIZE_ARGUMENT_ERRORS), len(SCALAR_TENSORS)) == (42, 30)
