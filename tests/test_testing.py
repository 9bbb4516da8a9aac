"""torch.testing compared with PyTorch: assert_close's verdicts and messages, make_tensor's inputs."""
import numpy
import pytest
from hypothesis import given, settings, strategies as st

import pjtorch
from tensor_oracle import outcome, reference, same_output


def test_assert_close_messages_for_tensors_scalars_and_nestings():
    same_output("""
        a = torch.tensor([1., 2., 3.])
        tr(lambda: torch.testing.assert_close(a, a.clone()))
        tr(lambda: torch.testing.assert_close(a, torch.tensor([1., 2., 3.1])))
        tr(lambda: torch.testing.assert_close(a, torch.tensor([1., 2., 3.]).double()))
        tr(lambda: torch.testing.assert_close(a, torch.tensor([1., 2.])))
        tr(lambda: torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1, 3])))
        tr(lambda: torch.testing.assert_close(1.0, 1.0 + 1e-9))
        tr(lambda: torch.testing.assert_close(1.0, 1.1))
        tr(lambda: torch.testing.assert_close(2, 3))
        tr(lambda: torch.testing.assert_close(a, [1., 2., 3.]))
        tr(lambda: torch.testing.assert_close([a, a], [a, a]))
        tr(lambda: torch.testing.assert_close({"x": a}, {"x": a + 1}))
        tr(lambda: torch.testing.assert_close(a, a + 0.01, rtol=0.1, atol=0))
        tr(lambda: torch.testing.assert_close(torch.tensor([float('nan')]), torch.tensor([float('nan')])))
        tr(lambda: torch.testing.assert_close(torch.tensor([float('nan')]), torch.tensor([float('nan')]), equal_nan=True))
        tr(lambda: torch.testing.assert_close(a, a.double(), check_dtype=False))
        tr(lambda: torch.testing.assert_close(a, a + 1, msg="custom"))
        tr(lambda: torch.testing.assert_close(a, a, rtol=0.1))
        tr(lambda: torch.testing.assert_close(torch.zeros(2, 3), torch.ones(2, 3)))
        tr(lambda: torch.testing.assert_close(torch.tensor(1.), torch.tensor(2.)))
        tr(lambda: torch.testing.assert_close(torch.tensor([True, False]), torch.tensor([True, True])))
        tr(lambda: torch.testing.assert_close(a, a.t() if a.ndim == 2 else a[None]))
        tr(lambda: torch.testing.assert_close(torch.tensor([1e-8]), torch.tensor([0.])))
        tr(lambda: torch.testing.assert_close(torch.tensor([[1., 2.], [3., 4.]]), torch.tensor([[1., 2.], [3., 5.]])))
        tr(lambda: torch.testing.assert_close(a, a.requires_grad_()))
        tr(lambda: torch.testing.assert_close(torch.tensor([1.+1j]), torch.tensor([1.+2j])))
        tr(lambda: torch.testing.assert_close((1, 2), (1, 2, 3)))
        tr(lambda: torch.testing.assert_close(torch.tensor([1, 2], dtype=torch.int32), torch.tensor([1, 2])))
    """)


def test_assert_close_messages_for_arrays_lists_options_and_special_values():
    same_output("""
        import numpy
        tr(lambda: torch.testing.assert_close(torch.tensor(1.), 1.0))
        tr(lambda: torch.testing.assert_close(numpy.array([1., 2.]), numpy.array([1., 2.5])))
        tr(lambda: torch.testing.assert_close([[1., 2.], [3., 4.]], [[1., 2.], [3., 4.5]]))
        tr(lambda: torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.5]), msg=lambda m: "wrapped: " + m[:10]))
        tr(lambda: torch.testing.assert_close(torch.tensor([1., 2.], dtype=torch.float16), torch.tensor([1., 2.001], dtype=torch.float16)))
        tr(lambda: torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.00001]).double(), check_dtype=False))
        tr(lambda: torch.testing.assert_close(torch.tensor([1., 2.]), torch.tensor([1., 2.1]).double(), check_dtype=False))
        tr(lambda: torch.testing.assert_close(torch.ones(2, 2).t(), torch.ones(2, 2), check_stride=True))
        tr(lambda: torch.testing.assert_close(torch.ones(0), torch.ones(0)))
        tr(lambda: torch.testing.assert_close(torch.tensor([1., float('inf')]), torch.tensor([1., float('inf')])))
        tr(lambda: torch.testing.assert_close(torch.tensor([1., float('inf')]), torch.tensor([1., -float('inf')])))
        tr(lambda: torch.testing.assert_close(torch.tensor([[0., 5.]]), torch.tensor([[0., 0.]])))
        tr(lambda: torch.testing.assert_close(torch.tensor([1.5]), torch.tensor([1.0]), atol=1, rtol=0))
        tr(lambda: torch.testing.assert_close(torch.tensor([3.]), torch.tensor([1.0]), atol=1, rtol=0))
        tr(lambda: torch.testing.assert_close(True, False))
        tr(lambda: torch.testing.assert_close(1, 1.0))
        tr(lambda: torch.testing.assert_close(None, None))
        tr(lambda: torch.testing.assert_close([torch.tensor([1.]), [torch.tensor([2.])]], [torch.tensor([1.]), [torch.tensor([3.])]]))
        tr(lambda: torch.testing.assert_close(torch.tensor([1, 2]), torch.tensor([1., 2.])))
        tr(lambda: torch.testing.assert_close(torch.tensor([100000.]), torch.tensor([100000.1])))
    """)


def test_assert_allclose_is_the_deprecated_spelling():
    same_output("""
        tr(lambda: torch.testing.assert_allclose(torch.tensor([1., 2.]), [1., 2.]))
        tr(lambda: torch.testing.assert_allclose(torch.tensor([1., 2.]), [1., 2.5]))
    """)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(-1e3, 1e3, width=32) | st.sampled_from([0.0, float("inf"), float("nan")]), min_size=1,
                max_size=6),
       st.lists(st.floats(-1e-3, 1e-3), min_size=6, max_size=6),
       st.sampled_from(["float32", "float64", "float16", "int64"]), st.booleans())
def test_assert_close_agrees_with_pytorch(values, noise, dtype, equal_nan):
    """The verdict and the message, over values near each other, infinities and NaNs, for several dtypes."""
    torch = reference()
    results = []
    for lib in (torch, pjtorch):
        kind = getattr(lib, dtype)
        actual = lib.tensor([v if kind.is_floating_point else int(v) if numpy.isfinite(v) else 7 for v in values])
        actual = actual.to(kind)
        expected = (actual + lib.tensor(noise[:len(values)]).to(kind)) if kind.is_floating_point else actual * 2
        results.append(outcome(lambda: lib.testing.assert_close(actual, expected, equal_nan=equal_nan)))
    (kind_torch, torch_result), (kind_ours, ours) = results
    assert kind_ours == kind_torch
    if kind_torch == "raised":
        assert type(ours) is type(torch_result) and str(ours) == str(torch_result)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex64"])
def test_make_tensor_gives_the_shape_dtype_and_range_asked_for(dtype):
    kind = getattr(pjtorch, dtype)
    t = pjtorch.testing.make_tensor(3, 4, dtype=kind, device="cpu")
    assert t.shape == (3, 4) and t.dtype is kind
    values = numpy.asarray(t.tolist())
    if dtype not in ("bool", "complex64"):
        assert values.min() >= (0 if dtype == "uint8" else -9) and values.max() <= 9
    bounded = pjtorch.testing.make_tensor((5, 2), dtype=kind, low=1, high=3, requires_grad=kind.is_floating_point,
                                          noncontiguous=True, exclude_zero=True)
    assert bounded.shape == (5, 2) and not bounded.is_contiguous()
    assert bounded.requires_grad == kind.is_floating_point
    assert (bounded != 0).all()
    if dtype not in ("bool", "complex64"):
        assert 1 <= numpy.asarray(bounded.tolist()).min() and numpy.asarray(bounded.tolist()).max() <= 3
