"""Differential regressions for the tensor core (creation, indexing, views), each compared with real PyTorch."""
import warnings

import numpy as np
import pytest

import pjtorch

torch = pytest.importorskip("torch")


def _outcome(mod, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn(mod)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return ("raises", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    if isinstance(result, tuple):
        return tuple(repr(r) if hasattr(r, "shape") else r for r in result)
    return repr(result) if hasattr(result, "shape") else result


def _same(fn):
    assert _outcome(pjtorch, fn) == _outcome(torch, fn)


@pytest.mark.parametrize("values", [[-0.5], [1.5, -2.25], [256.0], [255.9], [-128.5], [127.99], [float("nan")],
                                    [float("inf")], [1e10], [-0.0, 3.0], [1, 2.5, -1], [np.float64(-1.5)]])
@pytest.mark.parametrize("dtype", ["uint8", "int8", "int32", "int64"])
def test_tensor_float_data_overflowing_integer_dtype(values, dtype):
    _same(lambda m: m.tensor(values, dtype=getattr(m, dtype)))


@pytest.mark.parametrize("data", ["[1, 2j]", "complex(1, 2)", "[0j, 1]"])
def test_tensor_complex_data_into_bool(data):
    _same(lambda m: m.tensor(eval(data), dtype=m.bool))


@pytest.mark.parametrize("data", ["[np.float32(1.5), 2]", "[np.float16(1), 1]", "np.bool_(True)",
                                  "[np.bool_(True), False]", "[np.complex64(1j)]", "[np.int32(3), 4]"])
@pytest.mark.parametrize("dtype", ["int32", "uint8", "bool", "float32"])
def test_tensor_numpy_scalars_into_integer_dtypes(data, dtype):
    _same(lambda m: m.tensor(eval(data), dtype=getattr(m, dtype)))


@pytest.mark.parametrize("dtype", [None, "int32", "float32"])
def test_tensor_of_str_with_dtype(dtype):
    _same(lambda m: m.tensor("abc", **({} if dtype is None else {"dtype": getattr(m, dtype)})))


def test_arange_and_full_with_numpy_scalars():
    _same(lambda m: (m.arange(np.int64(4)), m.arange(np.float32(2.5)), m.arange(0, np.int32(6), np.int64(2))))
    _same(lambda m: (m.full((2,), np.float32(1.5)), m.full((2,), np.int32(1)), m.full((2,), np.bool_(True))))


def test_arange_bool_refused():
    _same(lambda m: m.arange(5, dtype=m.bool))


@pytest.mark.parametrize("index", ["torch.tensor(0, dtype=torch.uint8)", "torch.tensor(1, dtype=torch.uint8)",
                                   "(torch.tensor(1, dtype=torch.uint8), 0)"])
def test_zero_dim_uint8_index_is_a_mask(index):
    def get(m):
        x = m.arange(24).reshape(2, 3, 4)
        return x[eval(index, {"torch": m})]

    def put(m):
        x = m.arange(24).reshape(2, 3, 4)
        x[eval(index, {"torch": m})] = -1
        return x

    _same(get)
    _same(put)


@pytest.mark.parametrize("index", ["'a'", "(0, 'a')"])
def test_str_index_error(index):
    def get(m):
        return m.arange(6).reshape(2, 3)[eval(index)]

    _same(get)


@pytest.mark.parametrize("dims", [(0, 2, 0), (0, -3), [2, -1], (0, 2)])
def test_squeeze_repeated_dims(dims):
    _same(lambda m: m.zeros(1, 2, 1).squeeze(dims))


@pytest.mark.parametrize("expr", ["x.transpose(0, 1)", "x.transpose(-1, 0)", "x.permute()", "y.permute()",
                                  "y.unfold(0, -1, 1)", "x.unfold(0, 1, 1)", "x.unfold(0, 0, 1)", "y.narrow(0, 0, -1)",
                                  "x.narrow(0, 0, 1)", "y.movedim((0, 1), (0, 0))", "y.movedim((0, 0), (0, 1))",
                                  "y.movedim((0,), (0, 1))", "y.movedim((0, -1), (1, 0))"])
def test_view_argument_errors(expr):
    def run(m):
        x, y = m.tensor(3.5), m.arange(12.).reshape(3, 4)
        return eval(expr)

    _same(run)


@pytest.mark.parametrize("items", ["[2.5]", "[torch.tensor(2)]", "[torch.tensor([2])]", "[None]", "[np.int64(3)]",
                                   "3", "[True, 2]", "[-1, 2]"])
def test_size_construction(items):
    _same(lambda m: repr(m.Size(eval(items, {"torch": m, "np": np}))))


def test_zero_sign_survives_scalar_cache():
    def run(m):
        return (m.tensor(-0.0), m.tensor(0.0), m.tensor(-0.0, dtype=m.bfloat16), m.tensor(0.0, dtype=m.bfloat16),
                m.full((2,), -0.0), m.full((2,), 0.0), m.tensor(complex(0.0, -0.0)), m.tensor(0j))

    _same(run)


@pytest.mark.parametrize("dtype", ["bool", "bfloat16", "complex64", "float16", "int8"])
def test_expand_error_names_the_type_as_pytorch(dtype):
    _same(lambda m: m.zeros(2, dtype=getattr(m, dtype)).expand(()))


@pytest.mark.parametrize("index", ["[0]", "torch.tensor([True, False])", "[[0, 1]]"])
@pytest.mark.parametrize("value", ["torch.tensor([1, 2, 3])", "torch.tensor([True, False, True])"])
def test_setitem_shape_mismatch_reported_before_dtype_mismatch(index, value):
    def run(m):
        x = m.zeros(2)
        x[eval(index, {"torch": m})] = eval(value, {"torch": m})
        return x

    _same(run)


@pytest.mark.parametrize("args", [(0, 1, 11), (-1e6, 1e6, 7), (3.0, -1, 13), (0.5, 9.7, 4), (-2.5, 9.7, 5),
                                  (-94.19184248502641, -55.66166674539299, 11), (1, 2, 1), (0, 1, 0)])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64", "int32"])
def test_linspace_rounds_as_pytorch(args, dtype):
    _same(lambda m: m.linspace(*args, dtype=getattr(m, dtype)).tolist())


def test_logspace_integer_truncates_ends():
    _same(lambda m: m.logspace(0.5, 2.5, 3, base=3, dtype=m.int32).tolist())


def test_tensor_from_range():
    _same(lambda m: (m.tensor(range(5)), m.tensor([range(2), range(2)]), m.tensor(range(0)),
                     m.tensor(range(3), dtype=m.float32)))


@pytest.mark.parametrize("shape", [(), (3,), (2, 2), (2, 2, 2)])
def test_T_records_permute(shape):
    _same(lambda m: repr(m.ones(*shape, requires_grad=True).T))
