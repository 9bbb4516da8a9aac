"""Differential checks of the tensor core's operations (casts, powers, complex arithmetic, dtype views, to()),
each compared with real PyTorch."""
import warnings

import pytest

import pjtorch

torch = pytest.importorskip("torch")

INF, NAN = float("inf"), float("nan")


def _outcome(mod, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn(mod)
        except Exception as e:  # noqa: BLE001 - the exception is the outcome compared
            return ("raises", type(e).__name__, str(e).splitlines()[0] if str(e) else "")
    if isinstance(result, tuple):
        return tuple(_described(r) for r in result)
    return _described(result)


def _described(result):
    """A tensor's printed form with its dtype, layout and exact values (signs of zeros and NaNs included)."""
    if not hasattr(result, "shape"):
        return result
    return repr(result), str(result.dtype), tuple(result.shape), result.stride(), result.storage_offset(), \
        str(result.tolist())


def _same(fn):
    assert _outcome(pjtorch, fn) == _outcome(torch, fn)


_FLOATS = [300.0, -1.0, 1e10, NAN, INF, -INF, -129.7, 70000.5, -3e9, 2.0 ** 31, 2.0 ** 63, -2.0 ** 63, 255.9, -0.5]


@pytest.mark.parametrize("source", ["float16", "bfloat16", "float32", "float64", "complex64"])
def test_float_to_integer_cast_wraps(source):
    for target in ["uint8", "int8", "int16", "int32", "int64"]:
        _same(lambda m: m.tensor(_FLOATS, dtype=m.float64).to(getattr(m, source)).to(getattr(m, target)))


@pytest.mark.parametrize("exponent", ["True", "False", "1", "2", "0", "-1", "1.5", "1j"])
def test_bool_tensor_to_scalar_power(exponent):
    _same(lambda m: m.tensor([True, False]) ** eval(exponent))


_COMPLEX = [0j, 1 + 1j, -2 + 0.5j, complex(INF, 0), 0.5j, complex(-INF, 1), complex(1, NAN)]


def test_complex_tensor_to_scalar_power():
    for exponent in [2, 4, 0.5, -0.5, -2, 1.5, 0j]:
        _same(lambda m: m.tensor(_COMPLEX, dtype=m.complex64) ** exponent)


def test_complex_power_of_zero():
    _same(lambda m: m.tensor(0j, dtype=m.complex128) ** m.tensor([1j, 0j, 1 + 0j, -1 + 0j, 2 + 1j],
                                                                   dtype=m.complex128))
    _same(lambda m: 0j ** m.tensor([0.0, 2.0, -1.0]))
    _same(lambda m: m.tensor([0.0, 0.0]) ** m.tensor([1j, 0j]))


@pytest.mark.parametrize("op", ["exp", "sqrt", "log"])
def test_complex_special_values(op):
    _same(lambda m: getattr(m, op)(m.tensor([complex(re, im) for re in (0.0, 2.0, INF, -INF, NAN)
                                             for im in (0.0, 1.0, INF, -INF, NAN)], dtype=m.complex64)))


def test_complex_division_by_zero_and_infinity():
    _same(lambda m: m.tensor([1 + 1j, 0j, 2j, 1 + 0j]) / m.tensor([0j, 0j, complex(INF, INF), complex(NAN, 1)]))


_DTYPES = ["bool", "uint8", "int16", "float32", "float64", "complex64"]


@pytest.mark.parametrize("source", _DTYPES)
def test_view_as_dtype(source):
    def viewed(m, target):
        x = m.tensor([[1.5, -2.0, 0.0, 3.25, 7.0, 1e-3, -0.5, 100.0]], dtype=m.float64)
        return (x > 0 if source == "bool" else x.to(getattr(m, source))).view(getattr(m, target))

    for target in _DTYPES:
        _same(lambda m: viewed(m, target))


@pytest.mark.parametrize("case", ["x[0, 0].view(m.int16)", "x[:, :3].view(m.complex128)", "x[:, 1:3].view(m.int64)",
                                  "x[:, :0].view(m.int16)", "x.reshape(2, 4).t().view(m.int16)",
                                  "x.reshape(4, 2)[:, :1].view(m.int8)", "x[:, 1:].view(m.int8)"])
def test_view_as_dtype_layouts_and_errors(case):
    _same(lambda m: eval(case, {"m": m, "x": m.arange(8, dtype=m.float32).reshape(1, 8)}))


@pytest.mark.parametrize("args", ["5.0", "1j", "False", "float", "int", "bool", "complex", "m.float16, False",
                                  "'cpu', 2.0", "None"])
def test_to_with_python_numbers_and_types(args):
    _same(lambda m: eval(f"m.ones(2).to({args})", {"m": m}))


def test_to_with_python_type_dtype_keyword():
    _same(lambda m: (m.ones(2).to(dtype=float), m.ones(2).to(dtype=int), m.ones(2).to(dtype=complex)))
