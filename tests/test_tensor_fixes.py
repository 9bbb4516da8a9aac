"""Differences from PyTorch 2.13 found by hand and fixed: round's decimals overload, the Scalar overloads of binary
ops (grad_fn names and next_functions), NumPy's `axis` for view functions, missing-argument errors of the range
factories, matrix products' `out=` dtype check, and where warnings raised under `out=` point. Each test runs the
same code on real torch and on pjtorch and compares."""
from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

import pjtorch as pt  # noqa: E402
from tensor_oracle import same, same_output  # noqa: E402

LIBS = (torch, pt)


def _outcome(fn, lib):
    """The grad_fn name and next_functions of the result, its shape, or the error's type and message."""
    try:
        r = fn(lib)
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)
    if isinstance(r, (tuple, list)):
        return len(r)
    if r.grad_fn is None:
        return tuple(r.shape), str(r.dtype)
    return type(r.grad_fn).__name__, [type(n).__name__ if n else None for n, _ in r.grad_fn.next_functions]


def _same(fn):
    assert _outcome(fn, torch) == _outcome(fn, pt)


def _x(lib):
    return (lib.tensor([0.25, 1.5], requires_grad=True) * 1)


ROUNDS = {
    "plain": lambda lib: lib.round(_x(lib)),
    "decimals_0": lambda lib: lib.round(_x(lib), decimals=0),
    "decimals_1": lambda lib: lib.round(_x(lib), decimals=1),
    "method_decimals_0": lambda lib: _x(lib).round(decimals=0),
    "inplace_decimals_2": lambda lib: _x(lib).round_(decimals=2),
    "inplace_plain": lambda lib: _x(lib).round_(),
    "long_plain": lambda lib: lib.round(lib.tensor([1, 2])),
    "long_decimals_0": lambda lib: lib.round(lib.tensor([1, 2]), decimals=0),
    "long_decimals_1": lambda lib: lib.tensor([1, 2]).round(decimals=1),
    "long_inplace_decimals_1": lambda lib: lib.tensor([1, 2]).round_(decimals=1),
    "complex_decimals_1": lambda lib: lib.round(lib.tensor([1 + 1j]), decimals=1),
}


@pytest.mark.parametrize("name", ROUNDS)
def test_round_overloads(name):
    _same(ROUNDS[name])


def _y(lib):
    return lib.tensor([2.0, 3.0], requires_grad=True)


SCALAR_OVERLOADS = {
    "xlogy_tensor": lambda lib: lib.xlogy(_x(lib), _y(lib)),
    "xlogy_number_second": lambda lib: lib.xlogy(_x(lib), 2.0),
    "xlogy_number_first": lambda lib: lib.xlogy(2.0, _x(lib)),
    "xlogy_method": lambda lib: _x(lib).xlogy(2.0),
    "xlogy_inplace": lambda lib: _x(lib).xlogy_(2.0),
    "copysign_number": lambda lib: lib.copysign(_x(lib), -1.0),
    "copysign_inplace_number": lambda lib: _x(lib).copysign_(-1.0),
    "fmod_number": lambda lib: lib.fmod(_x(lib), 2.0),
    "remainder_number": lambda lib: lib.remainder(_x(lib), 2.0),
    "remainder_number_first": lambda lib: lib.remainder(2.0, _x(lib)),
    "mod_operator": lambda lib: _x(lib) % 2,
    "rmod_operator": lambda lib: 2 % _x(lib),
    "floor_divide_number": lambda lib: lib.floor_divide(_x(lib), 2),
    "floor_divide_tensors": lambda lib: lib.floor_divide(_x(lib), _y(lib)),
    "lerp_number": lambda lib: lib.lerp(_x(lib), _y(lib), 0.5),
    "lerp_tensor": lambda lib: lib.lerp(_x(lib), _y(lib), _y(lib)),
    "lerp_inplace_number": lambda lib: _x(lib).lerp_(_y(lib), 0.5),
    "atan2_number": lambda lib: lib.atan2(_x(lib), 2.0),
    "pow_number_first": lambda lib: lib.pow(2, _x(lib)),
    "clamp_min_number": lambda lib: lib.clamp(_x(lib), min=0.0),
}


@pytest.mark.parametrize("name", SCALAR_OVERLOADS)
def test_scalar_overload_nodes(name):
    _same(SCALAR_OVERLOADS[name])


def test_remainder_of_a_number_has_no_derivative():
    def run(lib):
        lib.remainder(2.0, _x(lib)).sum().backward()

    assert _outcome(run, torch) == _outcome(run, pt)


AXIS = {
    "squeeze": lambda lib: lib.squeeze(lib.zeros(1, 3), axis=0),
    "unsqueeze": lambda lib: lib.unsqueeze(lib.zeros(1, 3), axis=0),
    "select": lambda lib: lib.select(lib.zeros(1, 3), axis=1, index=0),
    "narrow": lambda lib: lib.narrow(lib.zeros(1, 3), axis=1, start=0, length=1),
    "chunk": lambda lib: lib.chunk(lib.zeros(1, 3), 3, axis=1),
    "unbind": lambda lib: lib.unbind(lib.zeros(1, 3), axis=1),
    "tensor_split": lambda lib: lib.tensor_split(lib.zeros(1, 3), 3, axis=1),
    "concat_of_a_tensor": lambda lib: lib.concat(lib.zeros(2)),
    "concatenate_of_a_tensor": lambda lib: lib.concatenate(lib.zeros(2)),
    "concat_out": lambda lib: lib.concat([lib.zeros(2)], out=5),
}


@pytest.mark.parametrize("name", AXIS)
def test_view_functions_take_axis(name):
    _same(AXIS[name])


MISSING = {
    "linspace": lambda lib: lib.linspace(0, 1),
    "logspace": lambda lib: lib.logspace(0, 1),
    "arange": lambda lib: lib.arange(),
    "eye": lambda lib: lib.eye(),
    "zeros": lambda lib: lib.zeros(),
    "empty": lambda lib: lib.empty(),
}


@pytest.mark.parametrize("name", MISSING)
def test_missing_arguments(name):
    _same(MISSING[name])


def _square(lib):
    return lib.ones(2, 2)


OUT_DTYPES = {
    "mm": lambda lib: lib.mm(_square(lib), _square(lib), out=lib.empty(2, 2, dtype=lib.float64)),
    "mm_long": lambda lib: lib.mm(_square(lib), _square(lib), out=lib.empty(2, 2, dtype=lib.int64)),
    "matmul": lambda lib: lib.matmul(_square(lib), _square(lib), out=lib.empty(2, 2, dtype=lib.float64)),
    "matmul_vector": lambda lib: lib.matmul(_square(lib)[0], _square(lib), out=lib.empty(2, dtype=lib.float64)),
    "bmm": lambda lib: lib.bmm(_square(lib)[None], _square(lib)[None], out=lib.empty(1, 2, 2, dtype=lib.float64)),
    "mv": lambda lib: lib.mv(_square(lib), _square(lib)[0], out=lib.empty(2, dtype=lib.float64)),
    "dot": lambda lib: lib.dot(_square(lib)[0], _square(lib)[0], out=lib.empty((), dtype=lib.float64)),
    "outer": lambda lib: lib.outer(_square(lib)[0], _square(lib)[0], out=lib.empty(2, 2, dtype=lib.float64)),
    "add_widens": lambda lib: lib.add(_square(lib), _square(lib), out=lib.empty(2, 2, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", OUT_DTYPES)
def test_out_dtype_checks(name):
    _same(OUT_DTYPES[name])


def _warned_at(lib, fn):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn(lib)
    return [(w.filename, w.category) for w in caught]


@pytest.mark.parametrize("fn", [lambda lib: lib.cross(lib.ones(2, 3), lib.ones(2, 3)),
                                lambda lib: lib.where(lib.tensor([1, 0], dtype=lib.uint8), lib.ones(2), 0.0)],
                         ids=["cross", "where_uint8"])
def test_warnings_point_at_the_caller(fn):
    """torch warns once per process (TORCH_WARN_ONCE): set_warn_always makes it warn here whatever ran before."""
    before = torch.is_warn_always_enabled()
    torch.set_warn_always(True)
    try:
        assert _warned_at(torch, fn) == _warned_at(pt, fn) == [(__file__, UserWarning)]
    finally:
        torch.set_warn_always(before)


@pytest.mark.parametrize("index", [lambda lib: lib.tensor([[0], [2], [9]])[:2],
                                   lambda lib: lib.tensor([[0], [2], [9]])[1:],
                                   lambda lib: lib.tensor([[-1], [2]]),
                                   lambda lib: lib.tensor([[1], [2]])],
                         ids=["view_in_range", "view_out_of_range", "negative", "whole"])
@pytest.mark.parametrize("repeat", [1, 3])
def test_gather_checks_the_indices_it_reads_not_the_rest_of_their_storage(index, repeat):
    """The bounds check may look at the whole storage first (cached), but only the view's values decide."""
    for _ in range(repeat):
        same(lambda m: m.arange(6.0).reshape(2, 3).gather(1, index(m)))


@pytest.mark.parametrize("gradient", [lambda m: [m.ones(2)], lambda m: (m.ones(2), m.ones(2)), lambda m: 2.0,
                                      lambda m: m.full((2,), 3.0), lambda m: ["x"]])
def test_tensor_backward_hands_its_gradient_to_autograd_backward_unwrapped(gradient):
    """`t.backward(g)` is `torch.autograd.backward(t, g)`: a list or tuple of gradients is zipped with the one output."""
    def run(m):
        x = m.ones(2, requires_grad=True)
        (x * 2).backward(gradient(m))
        return x.grad
    same(run)


ACCUMULATOR_HOOKS = '''
x = torch.ones(3, requires_grad=True)
acc = (x * 1).grad_fn.next_functions[0][0]
handle = acc.register_hook(lambda grad_inputs, grad_outputs: print("post", grad_inputs, grad_outputs))
acc.register_prehook(lambda grad_outputs: print("pre", grad_outputs))
(x * 3).sum().backward()
print(x.grad)
handle.remove()
(x * 2).sum().backward()
print(x.grad)
'''


def test_an_accumulators_post_hooks_see_no_inputs_and_the_gradient_it_took():
    same_output(ACCUMULATOR_HOOKS)


RETURN_TYPES = '''
x = torch.tensor([[1., 5.], [3., 2.]])
print(isinstance(x.max(1), torch.return_types.max), isinstance(torch.sort(x), torch.return_types.max))
print(isinstance(torch.aminmax(x), torch.return_types.aminmax), torch.return_types.topk.n_fields)
print(isinstance(torch.linalg.slogdet(x), torch.return_types.linalg_slogdet), torch.return_types.max.__module__)
print(torch.return_types.max((torch.tensor(1.), torch.tensor(0))))
'''


def test_return_types_are_reachable_and_built_from_one_sequence():
    same_output(RETURN_TYPES)


HALF_PRECISION_CALLS = {
    "mul": lambda m, a, s: a * s, "rmul": lambda m, a, s: s * a, "div": lambda m, a, s: a / s,
    "mul by a 0-dim float32": lambda m, a, s: a * m.tensor(s), "true_divide": lambda m, a, s: m.true_divide(a, s),
    "floor_divide": lambda m, a, s: m.floor_divide(a, s), "div trunc": lambda m, a, s: m.div(a, s, rounding_mode="trunc"),
    "div floor": lambda m, a, s: m.div(a, s, rounding_mode="floor"), "mul_": lambda m, a, s: a.clone().mul_(s),
    "div_": lambda m, a, s: a.clone().div_(s), "lerp": lambda m, a, s: m.lerp(a, m.ones_like(a), s),
    "leaky_relu": lambda m, a, s: m.nn.functional.leaky_relu(a, s),
    "add": lambda m, a, s: a + s, "rsub": lambda m, a, s: s - a, "remainder": lambda m, a, s: m.remainder(a, s),
    "tensors": lambda m, a, s: a * (a + 1) / (a - 7.5),
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("call", HALF_PRECISION_CALLS, ids=str)
def test_half_precision_calls_round_numbers_as_pytorch(call, dtype):
    """PyTorch multiplies and divides float16/bfloat16 in float32 with the number unrounded (`half * 0.1` uses
    float32's 0.1) and rounds once, while add/sub/remainder round the number to the tensor's dtype first: a
    third of the results differ in the last bit otherwise."""
    import numpy as np

    values = np.linspace(-3, 3, 2001)
    fn = HALF_PRECISION_CALLS[call]
    for number in (0.1, 1 / 3, 2.7):
        expected = fn(torch, torch.tensor(values).to(getattr(torch, dtype)), number)
        got = fn(pt, pt.tensor(values).to(getattr(pt, dtype)), number)
        assert str(got.dtype) == str(expected.dtype)
        np.testing.assert_array_equal(got.float().numpy(), expected.float().numpy())


def test_masked_scatter_broadcasts_its_input_inside_one_node():
    """Out of place, the input broadcasts against the mask within MaskedScatterBackward0 (no ExpandBackward0), and
    its gradient is summed back over the broadcast rows."""
    def program(m):
        x = m.ones(3, requires_grad=True)
        s = m.arange(6.0, requires_grad=True)
        y = x.masked_scatter(m.tensor([[True, False, True], [False, True, True]]), s)
        (y * m.arange(6.0).view(2, 3)).sum().backward()
        return (y.tolist(), [type(n).__name__ for n, _ in y.grad_fn.next_functions], x.grad.tolist(), s.grad.tolist(),
                m.zeros(3).masked_scatter(m.zeros(2, 3, dtype=m.bool), m.ones(0)).shape)

    assert program(pt) == program(torch)


def test_small_fixes_from_round_9_reports():
    """A number past float16's range gives inf without NumPy's overflow warning; binary_cross_entropy_with_logits'
    gradient at 0 is -1/2 and 1/2 (not -1 and 0); torch's top-level conv_tbc/bilinear/channel_shuffle exist."""
    def program(m):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            big = m.ones(2, dtype=m.float16) * 1e38
        x = m.zeros(2, requires_grad=True)
        m.nn.functional.binary_cross_entropy_with_logits(x, m.tensor([1.0, 0.0]), reduction="sum").backward()
        names = [callable(getattr(m, n, None)) for n in ("conv_tbc", "bilinear", "channel_shuffle",
                                                         "native_channel_shuffle")]
        return repr(big), x.grad.tolist(), names

    assert program(pt) == program(torch)


@pytest.mark.parametrize("dtype", ["long", "int32", "uint8", "bool"])
@pytest.mark.parametrize("fill", [lambda t: t.uniform_(), lambda t: t.normal_(),
                                  lambda t: t.uniform_(-1, 1), lambda t: t.normal_(2.0, 0.5)])
def test_uniform_and_normal_sampling_refuse_integer_tensors(dtype, fill):
    """PyTorch's CPU kernels name themselves in the error (check_uniform_bounds, normal_kernel_cpu)."""
    same(lambda m: fill(m.empty(3, dtype=getattr(m, dtype))))


def test_torch_is_inference_as_pytorch():
    same_output("""
        x = torch.ones(2)
        with torch.inference_mode():
            y = x * 2
        print(torch.is_inference(x), torch.is_inference(y), torch.is_inference(y.detach()))
        try:
            torch.is_inference(3)
        except TypeError as error:
            print(error)
    """)
