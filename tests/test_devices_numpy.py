"""Devices and NumPy against real PyTorch: torch.device parsing, equality and printing; CUDA refused
as a CPU build refuses it; mixing devices; from_numpy/.numpy() sharing memory both ways."""
from __future__ import annotations

import numpy as np
import pytest

import pjtorch
from pjtorch.tensor.device import gpu_devices
from pjtorch.tensor.tensor import Tensor
from tensor_oracle import same

NO_GPU = not gpu_devices()
needs_no_gpu = pytest.mark.skipif(not NO_GPU, reason="compares with PyTorch's CPU build, which has no CUDA")

DEVICES = {
    "cuda-index": lambda m: m.device("cuda:1"), "cuda-pair": lambda m: m.device("cuda", 1),
    "cpu-index": lambda m: m.device("cpu", 0), "cpu-index-string": lambda m: m.device("cpu:0"),
    "copy": lambda m: m.device(m.device("cuda:2")),
    "meta": lambda m: m.device("meta"),
    "xpu": lambda m: m.device("xpu"),
    "negative-index": lambda m: m.device("cuda:-1"), "bad-index": lambda m: m.device("cuda:x"),
    "leading-zero": lambda m: m.device("cuda:01"),
    "space": lambda m: m.device(" cpu"),
    "unknown": lambda m: m.device("foo"),
    "upper-case": lambda m: m.device("CPU"), "index-twice": lambda m: m.device("cuda:1", 0),
    "float": lambda m: m.device(1.5),
    "none": lambda m: m.device(None),
    "dtype-string": lambda m: m.zeros(1).to("float32"),
}


@pytest.mark.parametrize("name", DEVICES)
def test_device_construction_matches_torch(name):
    make = DEVICES[name]
    same(lambda m: (lambda d: (repr(d), str(d), d.type, d.index))(make(m)))


def test_device_table_size():
    assert len(DEVICES) == 17


@needs_no_gpu
def test_an_int_device_needs_an_accelerator():
    same(lambda m: m.device(0))


def test_device_equality_and_hashing_match_torch():
    def compare(m):
        d = m.device
        return (d("cpu") == d("cpu"), d("cpu") == "cpu", d("cpu") == d("cpu", 0), d("cuda") == d("cuda:0"),
                d("cuda:1") == d("cuda", 1), hash(d("cuda:1")) == hash(d("cuda", 1)), d("cuda:1") != d("cuda:2"),
                len({d("cpu"), d("cpu"), d("cuda:0")}))

    same(compare)


# ----- CUDA where there is none ------------------------------------------------------------------------

CUDA_CALLS = {
    "available": lambda m: m.cuda.is_available(), "count": lambda m: m.cuda.device_count(),
    "method": lambda m: m.zeros(2).cuda(), "factory": lambda m: m.zeros(2, device="cuda"),
    "to": lambda m: m.zeros(2).to("cuda"), "to-index": lambda m: m.zeros(2).to("cuda:1"),
    "tensor": lambda m: m.tensor([1], device="cuda"), "current": lambda m: m.cuda.current_device(),
    "name": lambda m: m.cuda.get_device_name(), "synchronize": lambda m: m.cuda.synchronize(),
    "seed": lambda m: m.cuda.manual_seed(0), "bf16": lambda m: m.cuda.is_bf16_supported(),
    "rand": lambda m: m.rand(2, device="cuda"), "like": lambda m: m.zeros_like(m.ones(2), device="cuda"),
}


@needs_no_gpu
@pytest.mark.parametrize("name", CUDA_CALLS)
def test_cuda_without_a_gpu_behaves_as_torch_cpu_build(name):
    same(CUDA_CALLS[name])


def test_cpu_tensor_attributes_and_moves_match_torch():
    def attributes(m):
        x = m.zeros(2)
        return (x.device, x.is_cuda, x.is_cpu, x.get_device(), x.type(), x.cpu() is x, x.to("cpu") is x,
                x.to(m.device("cpu")) is x, x.to("cpu", m.float64), x.to(device="cpu", dtype=m.int32),
                x.to(m.zeros(1, dtype=m.float64)), x.to(m.float16).device)

    same(attributes)


# ----- mixing devices -------------------------------------------------------------------------------------

def labelled_cuda(values: list) -> Tensor:
    """A tensor that says it is on cuda:0 while its array stays on the CPU: enough to exercise the device check."""
    return Tensor._wrap(pjtorch.tensor(values)._value(), pjtorch.device("cuda", 0))


MIXES = {
    "add": lambda cpu, gpu: cpu + gpu, "reversed": lambda cpu, gpu: gpu * cpu,
    "in-place": lambda cpu, gpu: gpu.add_(cpu), "matmul": lambda cpu, gpu: cpu @ gpu,
}


@pytest.mark.parametrize("name", MIXES)
def test_mixing_devices_raises_torchs_error(name):
    mix = MIXES[name]
    with pytest.raises(RuntimeError, match=r"^Expected all tensors to be on the same device, but found at least two "
                                           r"devices, cuda:0 and cpu!$"):
        mix(pjtorch.ones(2), labelled_cuda([1.0, 2.0]))


def test_a_0dim_cpu_tensor_joins_any_device():
    result = labelled_cuda([1.0, 2.0]) + pjtorch.tensor(3.0)
    assert result.device == pjtorch.device("cuda", 0) and result.get_device() == 0


# ----- NumPy sharing ----------------------------------------------------------------------------------

def test_from_numpy_shares_both_ways_including_in_place_ops():
    array = np.arange(6.0).reshape(2, 3)
    t = pjtorch.from_numpy(array)
    array[0, 0] = 100
    assert t[0, 0].item() == 100
    t.add_(1)
    t[1] *= 2
    t.t()[2].zero_()
    np.testing.assert_array_equal(array, [[101, 2, 0], [8, 10, 0]])
    assert t.tolist() == array.tolist()


def test_numpy_shares_both_ways_including_views():
    t = pjtorch.arange(6.0).reshape(2, 3)
    array = t.numpy()
    array[1, 1] = -1
    assert t[1, 1].item() == -1
    t.mul_(2)
    assert array[1, 1] == -2 and array[0, 2] == 4
    column = t[:, 1].numpy()
    column[:] = 7
    assert t[:, 1].tolist() == [7.0, 7.0] and array[0, 1] == 7
    view = t.t()
    assert view.numpy().strides == (4, 12) and np.shares_memory(view.numpy(), array)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64, np.int8, np.int16, np.int32, np.int64,
                                   np.uint8, np.bool_, np.complex64, np.complex128])
def test_round_trip_through_numpy_keeps_dtype_and_memory(dtype):
    array = np.zeros(4, dtype)
    t = pjtorch.from_numpy(array)
    back = t.numpy()
    assert back.dtype == dtype and np.shares_memory(back, array) and str(t.dtype) == f"torch.{np.dtype(dtype).name}"


def test_from_numpy_of_non_contiguous_arrays_shares():
    base, expected = np.arange(24.0).reshape(2, 3, 4), np.arange(24.0).reshape(2, 3, 4)
    for view in (lambda a: a.transpose(2, 0, 1), lambda a: a[:, ::2, 1::2], lambda a: a[1]):
        array = view(base)
        t = pjtorch.from_numpy(array)
        assert t.stride() == tuple(s // 8 for s in array.strides)
        t.add_(1000)
        view(expected)[...] += 1000
        np.testing.assert_array_equal(t.numpy(), array)
        assert np.shares_memory(t.numpy(), base)
    np.testing.assert_array_equal(base, expected)


NUMPY_CALLS = {
    "requires-grad": lambda m: m.ones(2, requires_grad=True).numpy(),
    "asarray-requires-grad": lambda m: np.asarray(m.ones(2, requires_grad=True)),
    "array-requires-grad": lambda m: np.array(m.ones(2, requires_grad=True)),
    "bfloat16": lambda m: m.ones(2, dtype=m.bfloat16).numpy(),
    "asarray-bfloat16": lambda m: np.asarray(m.ones(2, dtype=m.bfloat16)),
    "detached": lambda m: m.ones(2, requires_grad=True).detach().numpy().tolist(),
    "force": lambda m: m.ones(2, requires_grad=True).numpy(force=True).tolist(),
    "0dim": lambda m: (m.tensor(3.5).numpy().shape, float(np.asarray(m.tensor(3.5)))),
    "asarray-dtype": lambda m: np.asarray(m.ones(2), dtype=np.float64).dtype.name,
    "transposed-strides": lambda m: np.asarray(m.arange(6).reshape(2, 3).t()).strides,
    "sliced-strides": lambda m: m.zeros(2, 3)[:, 1:].numpy().strides,
    "ufunc": lambda m: np.sin(m.tensor([0.5, 1.0])),
    "ufunc-0dim": lambda m: np.exp(m.tensor(1.0)),
    "ufunc-with-scalar": lambda m: np.add(m.ones(2, dtype=m.int32), 3),
    "ufunc-bool-result": lambda m: np.isnan(m.tensor([1.0, float("nan")])),
    "ndarray-plus-tensor": lambda m: np.ones(2) + m.ones(2),
}


@pytest.mark.filterwarnings("ignore:__array__ implementation doesn't accept a copy keyword")  # torch's __array__
@pytest.mark.filterwarnings("ignore:__array_wrap__ must accept context")  # torch's __array_wrap__
@pytest.mark.parametrize("name", NUMPY_CALLS)
def test_numpy_conversions_match_torch(name):
    same(NUMPY_CALLS[name])


def test_numpy_array_copy_does_not_share():
    t = pjtorch.zeros(3)
    copied = np.array(t, copy=True)
    copied[0] = 5
    assert t[0].item() == 0
    shared = np.asarray(t)
    shared[1] = 5
    assert t[1].item() == 5


def test_operations_read_the_shared_memory_after_numpy_writes():
    array = np.ones(3, np.float32)
    t = pjtorch.from_numpy(array)
    doubled = t * 2
    array[:] = 10
    assert doubled.tolist() == [2.0, 2.0, 2.0] and (t * 2).tolist() == [20.0, 20.0, 20.0]
