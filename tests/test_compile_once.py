"""Each op is traced (compiled) once per signature and reused: repeated calls with the same shapes, dtypes
and static arguments add nothing to TRACE_COUNTS; a new shape or static argument traces again."""
from __future__ import annotations

from collections import Counter
from typing import Callable

import numpy as np
import pytest

import pjtorch
from pjtorch.ops.registry import TRACE_COUNTS

SHAPE = (13, 7)


def fresh(shape: tuple, seed: float = 0.0) -> pjtorch.Tensor:
    """A new float32 tensor made on the host, so making it traces no op."""
    return pjtorch.tensor(np.arange(shape[0] * shape[1], dtype=np.float32).reshape(shape) / 7 + seed)


CALLS: dict[str, Callable[[pjtorch.Tensor, float], object]] = {
    "add": lambda x, k: x + x, "add-scalar": lambda x, k: x + k, "mul-0dim": lambda x, k: x * pjtorch.tensor(k),
    "exp": lambda x, k: x.exp(), "sum-dim": lambda x, k: x.sum(dim=1), "mean": lambda x, k: x.mean(),
    "matmul": lambda x, k: x @ x.t(),
    "to-dtype": lambda x, k: x.to(pjtorch.float64),
    "where": lambda x, k: pjtorch.where(x > k, x, -x),
    "add_": lambda x, k: x.add_(k), "mul_-view": lambda x, k: x[:, 1].mul_(k),
    "view-read": lambda x, k: x.t().tolist(), "slice-read": lambda x, k: x[1::2, ::3].tolist(),
    "index": lambda x, k: x[pjtorch.tensor([0, 2, 2])], "mask": lambda x, k: x[x > k],
    "setitem-basic": lambda x, k: x.__setitem__((slice(None), 2), k),
    "setitem-advanced": lambda x, k: x.__setitem__(pjtorch.tensor([1, 3]), k),
    "clone": lambda x, k: x.t().clone(), "reshape-copy": lambda x, k: x.t().reshape(-1),
    "backward": lambda x, k: (x.detach().requires_grad_() * k).sum().backward(),
}


def traces_after(call: Callable[[], object]) -> Counter:
    """What calling `call` traced."""
    before = Counter(TRACE_COUNTS)
    call()
    return Counter(TRACE_COUNTS) - before


@pytest.mark.parametrize("name", CALLS)
def test_repeated_calls_with_the_same_signature_do_not_retrace(name):
    run = CALLS[name]
    # Three times: a signature's first call runs eagerly, and backward compiles its fused replay when the graph of
    # deferred values is met the second time.
    traces_after(lambda: [run(fresh(SHAPE, seed), seed) for seed in (0.5, 0.25, 0.125)])
    again = traces_after(lambda: [run(fresh(SHAPE, seed), seed) for seed in (1.5, 2.5, 3.5)])
    assert again == Counter(), f"{name} retraced: {dict(again)}"


# Reading a view to the host applies its strides with NumPy to the storage's host copy: no XLA call at all.
HOST_ONLY = {"view-read", "slice-read"}


@pytest.mark.parametrize("index,name", [(i, name) for i, name in enumerate(CALLS) if name not in HOST_ONLY])
def test_a_new_shape_traces_again(index, name):
    """Each call gets a shape of its own (no other test uses 29 + index rows), so nothing warmed it before."""
    run = CALLS[name]
    traces_after(lambda: run(fresh(SHAPE, 0.5), 0.5))
    assert sum(traces_after(lambda: run(fresh((29 + index, 3), 0.5), 0.5)).values()) >= 1


@pytest.mark.parametrize("index,name", [(i, name) for i, name in enumerate(CALLS) if name in HOST_ONLY])
def test_reading_a_view_to_the_host_traces_nothing(index, name):
    assert traces_after(lambda: CALLS[name](fresh((29 + index, 3), 0.5), 0.5)) == Counter()


def test_call_table_size():
    assert len(CALLS) == 20


def test_a_new_static_argument_traces_once_and_is_then_reused():
    x = fresh(SHAPE)
    traces_after(lambda: x.sum(dim=0))
    first = traces_after(lambda: x.sum(dim=1, keepdim=True))
    assert sum(first.values()) >= 1
    assert traces_after(lambda: [x.sum(dim=1, keepdim=True), x.sum(dim=0)]) == Counter()


def test_a_new_dtype_traces_again():
    x = fresh(SHAPE)
    traces_after(lambda: x.exp())
    assert sum(traces_after(lambda: x.double().exp()).values()) >= 1
    assert traces_after(lambda: [fresh(SHAPE).double().exp() for _ in range(2)]) == Counter()


def test_trace_counts_name_the_op():
    x = fresh((17, 2))
    counted = traces_after(lambda: x.tanh())
    assert counted["tanh"] == 1
