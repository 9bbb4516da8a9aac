"""torch.utils.data against PyTorch: datasets, samplers, batching, collation and their errors.

Shuffled orders come from pjtorch's own random stream, so they are checked as permutations that a
seeded generator reproduces; everything deterministic is compared with PyTorch's output directly.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from nn_oracle import LIBS, same_error, torch
import pjtorch as pt

Point = namedtuple("Point", ["x", "y"])


def plain(value):
    """Tensors as (dtype name, nested lists); containers recursively; anything else as is."""
    if hasattr(value, "dtype") and hasattr(value, "tolist"):
        return str(value.dtype).split(".")[-1], tuple(value.shape), value.tolist()
    if isinstance(value, dict):
        return type(value).__name__, {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value).__name__, [plain(v) for v in value]
    return value


def batches(lib, dataset_of, **options) -> list:
    return [plain(b) for b in lib.utils.data.DataLoader(dataset_of(lib), **options)]


class Squares:
    """A map-style dataset of mixed samples: a tensor, a number, a string, a numpy array, a dict."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": self.lib.tensor([i, i * i], dtype=self.lib.float32), "i": i, "f": i / 2, "name": f"n{i}",
                "arr": np.full(2, i, np.int32), "flag": i % 2 == 0, "pair": (i, float(i))}


DATASETS = {
    "tensors": lambda lib: lib.utils.data.TensorDataset(lib.arange(10.0).reshape(5, 2), lib.arange(5)),
    "mixed samples": lambda lib: Squares(lib),
    "namedtuples": lambda lib: [Point(lib.tensor(float(i)), i) for i in range(4)],
    "lists": lambda lib: [[i, [i, i + 1]] for i in range(4)],
    "numpy scalars": lambda lib: [np.float32(i) for i in range(3)],
}


@pytest.mark.parametrize("name", list(DATASETS))
@pytest.mark.parametrize("options", [{"batch_size": 2}, {"batch_size": 2, "drop_last": True}, {"batch_size": None},
                                     {}], ids=["batch2", "drop_last", "no_batching", "batch1"])
def test_sequential_batches_match_pytorch(name, options):
    assert batches(pt, DATASETS[name], **options) == batches(torch, DATASETS[name], **options)


def test_lengths_match_pytorch():
    for options in ({"batch_size": 3}, {"batch_size": 3, "drop_last": True}, {"batch_size": None}, {}):
        assert len(pt.utils.data.DataLoader(list(range(10)), **options)) == \
            len(torch.utils.data.DataLoader(list(range(10)), **options))


def test_shuffle_with_generator_is_a_reproducible_permutation():
    dataset = pt.utils.data.TensorDataset(pt.arange(20))

    def order(seed):
        loader = pt.utils.data.DataLoader(dataset, batch_size=6, shuffle=True,
                                          generator=pt.Generator().manual_seed(seed))
        return [v for (batch,) in loader for v in batch.tolist()]

    first = order(3)
    assert sorted(first) == list(range(20)) and first != list(range(20))
    assert order(3) == first and order(4) != first
    loader = pt.utils.data.DataLoader(dataset, batch_size=20, shuffle=True, generator=pt.Generator().manual_seed(3))
    epochs = [next(iter(loader))[0].tolist() for _ in range(2)]
    assert epochs[0] != epochs[1]


def test_unseeded_shuffle_follows_manual_seed():
    def order():
        pt.manual_seed(7)
        return list(pt.utils.data.RandomSampler(range(10)))

    assert order() == order() and sorted(order()) == list(range(10))


def test_random_sampler_with_replacement_and_batch_sampler():
    sampler = pt.utils.data.RandomSampler(range(4), replacement=True, num_samples=50,
                                          generator=pt.Generator().manual_seed(0))
    drawn = list(sampler)
    assert len(drawn) == 50 and set(drawn) <= {0, 1, 2, 3}
    for lib in LIBS:
        batched = lib.utils.data.BatchSampler(lib.utils.data.SequentialSampler(range(7)), 3, drop_last=False)
        assert list(batched) == [[0, 1, 2], [3, 4, 5], [6]] and len(batched) == 3


def test_tensor_dataset_fast_path_equals_per_sample_collation():
    x, y = pt.randn(9, 3), pt.arange(9)
    dataset = pt.utils.data.TensorDataset(x, y)
    fast = list(pt.utils.data.DataLoader(dataset, batch_size=4))
    slow = list(pt.utils.data.DataLoader(dataset, batch_size=4, collate_fn=lambda s: pt.utils.data.default_collate(s)))
    for a, b in zip(fast, slow):
        assert plain(a) == plain(b)


def test_iterable_dataset_batches():
    class Stream(pt.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(7))

    assert [b.tolist() for b in pt.utils.data.DataLoader(Stream(), batch_size=3)] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [b.tolist() for b in pt.utils.data.DataLoader(Stream(), batch_size=3, drop_last=True)] == [[0, 1, 2],
                                                                                                    [3, 4, 5]]


def test_subset_concat_and_random_split():
    dataset = list(range(10))
    parts = pt.utils.data.random_split(dataset, [0.7, 0.3], generator=pt.Generator().manual_seed(1))
    assert [len(p) for p in parts] == [7, 3]
    assert sorted(parts[0][i] for i in range(7)) + sorted(parts[1][i] for i in range(3)) != [] and \
        sorted([parts[0][i] for i in range(7)] + [parts[1][i] for i in range(3)]) == dataset
    joined = pt.utils.data.ConcatDataset([[1, 2], [3]])
    assert len(joined) == 3 and [joined[i] for i in range(3)] == [1, 2, 3] and joined[-1] == 3


ERRORS = {
    "tensor sizes": lambda lib: lib.utils.data.TensorDataset(lib.zeros(3), lib.zeros(4)),
    "sampler and shuffle": lambda lib: lib.utils.data.DataLoader([1], sampler=[0], shuffle=True),
    "batch_sampler options": lambda lib: lib.utils.data.DataLoader([1], batch_sampler=[[0]], batch_size=2),
    "drop_last without batching": lambda lib: lib.utils.data.DataLoader([1], batch_size=None, drop_last=True),
    "ragged lists": lambda lib: list(lib.utils.data.DataLoader([[1, 2], [3]], batch_size=2)),
    "uncollatable": lambda lib: list(lib.utils.data.DataLoader([object(), object()], batch_size=2)),
    "split lengths": lambda lib: lib.utils.data.random_split(range(5), [2, 2]),
    "batch size": lambda lib: lib.utils.data.BatchSampler(range(3), 0, False),
}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(name):
    theirs = ERRORS[name]
    if name == "uncollatable":
        for lib in LIBS:
            with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
                theirs(lib)
        return
    same_error(theirs)


# Multi-worker loading, run as source under both libraries: PyTorch's in a child process that never imports
# JAX (its workers fork, and forking a process running JAX risks a deadlock), pjtorch's here.
WORKER_SCENARIOS = '''
import math


class Squares(data.Dataset):
    def __len__(self):
        return 7

    def __getitem__(self, i):
        info = data.get_worker_info()
        return lib.tensor([i * i]), -1 if info is None else info.id


class Sharded(data.IterableDataset):
    """Splits range(n) between the workers, as PyTorch's documentation shows."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = data.get_worker_info()
        if info is None:
            return iter(range(self.n))
        per = math.ceil(self.n / info.num_workers)
        return iter(range(info.id * per, min(self.n, (info.id + 1) * per)))


class Unsharded(data.IterableDataset):
    def __iter__(self):
        return iter(range(3))


class Seeds(data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = data.get_worker_info()
        return [info.seed, info.num_workers, type(info.dataset).__name__]


def listed(batch):
    if hasattr(batch, "tolist"):
        return batch.tolist()
    return [listed(b) for b in batch] if isinstance(batch, (list, tuple)) else batch


results = {"main": repr(data.get_worker_info())}
for workers in (0, 2, 3):
    results[workers] = [
        listed(list(data.DataLoader(Squares(), batch_size=2, num_workers=workers))),
        listed(list(data.DataLoader(Squares(), batch_size=None, num_workers=workers))),
        listed(list(data.DataLoader(Sharded(10), batch_size=3, num_workers=workers))),
        [int(b) for b in data.DataLoader(Sharded(10), batch_size=None, num_workers=workers)],
        listed(list(data.DataLoader(Sharded(11), batch_size=2, drop_last=True, num_workers=workers))),
        listed(list(data.DataLoader(Unsharded(), batch_size=2, num_workers=workers))),
        len(data.DataLoader(Squares(), batch_size=2, num_workers=workers)),
    ]
seeds = [listed(b) for b in data.DataLoader(Seeds(), batch_size=None, num_workers=2, persistent_workers=True)]
results["seeds"] = [seeds[1][0] - seeds[0][0], seeds[2] == seeds[0], seeds[0][1:]]
'''


def _run_worker_scenarios(lib_name: str) -> dict:
    """The scenarios' results under one library, as JSON (dict keys become strings)."""
    import json
    import subprocess
    import sys

    prelude = f"import json, {lib_name} as lib\nfrom {lib_name}.utils import data\n"
    if lib_name == "torch":
        code = prelude + WORKER_SCENARIOS + "\nprint(json.dumps(results))\n"
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)
    namespace: dict = {}
    exec(prelude + WORKER_SCENARIOS, namespace)
    return json.loads(json.dumps(namespace["results"]))


def test_worker_loading_matches_pytorch():
    """Map-style batches go to the workers round robin and come back in order; an IterableDataset is iterated by
    every worker (sharded through get_worker_info, or duplicated when it is not), batches interleaved; each
    worker's seed is base_seed + id and its dataset a copy."""
    ours, theirs = _run_worker_scenarios("pjtorch"), _run_worker_scenarios("torch")
    assert ours == theirs
    assert ours["2"][5] == [[0, 1], [0, 1], [2], [2]]


def test_worker_random_state_is_the_workers_own():
    """Random draws inside a worker neither use nor advance the main process's generators, and worker_init_fn runs
    once per worker (once in all with persistent_workers) with the worker's info and seed set."""
    import random as python_random

    class Draws(pt.utils.data.Dataset):
        def __len__(self):
            return 4

        def __getitem__(self, i):
            return [pt.rand(1).item(), python_random.random(), float(np.random.rand())]

    started = []

    def init(worker_id):
        info = pt.utils.data.get_worker_info()
        started.append((worker_id, info.id, info.seed))

    loader = pt.utils.data.DataLoader(Draws(), batch_size=None, num_workers=2, worker_init_fn=init,
                                      persistent_workers=True, generator=pt.Generator().manual_seed(3))
    pt.manual_seed(0)
    python_random.seed(0)
    np.random.seed(0)
    first = [list(map(float, draws)) for draws in loader]
    after = [pt.rand(1).item(), python_random.random(), float(np.random.rand())]
    pt.manual_seed(0)
    python_random.seed(0)
    np.random.seed(0)
    assert after == [pt.rand(1).item(), python_random.random(), float(np.random.rand())]
    second = [list(map(float, draws)) for draws in loader]
    assert first[0] != first[1] and first[0] != first[2] and second != first
    assert [(w, i) for w, i, _ in started] == [(0, 0), (1, 1)] and started[1][2] == started[0][2] + 1
    fresh = pt.utils.data.DataLoader(Draws(), batch_size=None, num_workers=2,
                                     generator=pt.Generator().manual_seed(3))
    assert [list(map(float, draws)) for draws in fresh] == first


def test_worker_option_errors_match_pytorch():
    for options in ({"num_workers": 0, "prefetch_factor": 2}, {"persistent_workers": True}, {"timeout": -1},
                    {"num_workers": 1, "prefetch_factor": -1}):
        same_error(lambda lib: lib.utils.data.DataLoader([1, 2], **options))
