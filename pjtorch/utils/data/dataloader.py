"""DataLoader: samples or batches from a dataset, in sampler order, collated.

Loading happens in the calling process: batches are built from device arrays, so worker
processes would only add copies. With `num_workers > 0` the workers are emulated in turn, as
PyTorch's behave: each has its own shallow copy of the dataset, its own random state (seeded
base_seed + id, after which `worker_init_fn(id)` runs) and `get_worker_info()`; map-style batches
go to the workers round robin and come back in order, and an IterableDataset is iterated by every
worker, their batches interleaved round robin. A TensorDataset with the default collate (directly
or through Subsets) is batched by one indexing op per tensor instead of one read per sample.
"""
from __future__ import annotations

import contextlib
import copy
import dataclasses
import random as python_random
import threading
import warnings
from typing import Callable, Iterator

import numpy as np

from ... import cuda
from ...tensor import dtypes, factories, random
from .collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, Subset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler


class DataLoader:
    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | None = None, batch_sampler: Sampler | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False, drop_last: bool = False,
                 timeout: float = 0, worker_init_fn: Callable | None = None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.pin_memory_device = pin_memory_device
        self.worker_init_fn, self.generator, self.prefetch_factor = worker_init_fn, generator, prefetch_factor
        self.persistent_workers, self._persistent = persistent_workers, None
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None or batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler if sampler is not None else batch_sampler}")
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None and not self._iterable:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None and not self._iterable:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size, self.drop_last = batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self._auto_collation = batch_sampler is not None or (self._iterable and batch_size is not None)
        self.collate_fn = collate_fn or (default_collate if self._auto_collation else default_convert)

    def __iter__(self) -> _BaseDataLoaderIter:
        self._warn_about_pinning()
        if self._persistent is None:  # a new iterator, which in PyTorch draws its workers' base seed first
            self._base_seed = int(factories.empty((), dtype=dtypes.int64).random_(generator=self.generator).item())
        if self.num_workers:
            return _MultiProcessingDataLoaderIter(self, self._iterate_workers(self._workers()))
        return _SingleProcessDataLoaderIter(self, self._batches())

    def _batches(self) -> Iterator:
        if self._iterable:
            return self._iterate_stream(self.dataset)
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[index]) for index in self.sampler)
        return (self._fetch(self.dataset, indices) for indices in self.batch_sampler)

    def _warn_about_pinning(self) -> None:
        """PyTorch's warnings, each time an iterator starts, for pin_memory options it cannot honour."""
        if self.pin_memory and self.pin_memory_device:
            warnings.warn("pin_memory_device is deprecated, the current accelerator will be used as the device,"
                          f"ignore pin_memory_device='{self.pin_memory_device}'.", stacklevel=3)
        if self.pin_memory and not cuda.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=3)

    def _fetch(self, dataset, indices: list):
        if self.collate_fn is default_collate:
            tensors, rows = _tensor_rows(dataset, indices)
            if tensors is not None:
                rows = factories.tensor(rows, dtype=dtypes.int64, device=tensors[0].device)
                return [t[rows] for t in tensors]
        getitems = getattr(dataset, "__getitems__", None)
        samples = getitems(indices) if getitems is not None else [dataset[i] for i in indices]
        return self.collate_fn(samples)

    def _iterate_stream(self, dataset) -> Iterator:
        if not self._auto_collation:
            for sample in dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def _workers(self) -> list:
        """This epoch's emulated workers: new ones each epoch, or the same ones with persistent_workers."""
        if self._persistent is not None:
            return self._persistent
        workers = [_Worker(self, worker_id, self._base_seed) for worker_id in range(self.num_workers)]
        if self.persistent_workers:
            self._persistent = workers
        return workers

    def _iterate_workers(self, workers: list) -> Iterator:
        if not self._iterable:
            tasks = self.batch_sampler if self.batch_sampler is not None else self.sampler
            for number, task in enumerate(tasks):
                worker = workers[number % len(workers)]
                with worker.running():
                    dataset = worker.info.dataset
                    batch = self._fetch(dataset, task) if self.batch_sampler is not None else self.collate_fn(
                        dataset[task])
                yield batch
            return
        streams = [(worker, self._iterate_stream(worker.info.dataset)) for worker in workers]
        while streams:
            for stream in list(streams):
                worker, batches = stream
                with worker.running():
                    batch = next(batches, _EXHAUSTED)
                if batch is _EXHAUSTED:
                    streams.remove(stream)
                else:
                    yield batch

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is None:
                return length
            return length // self.batch_size if self.drop_last else -(-length // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


class _BaseDataLoaderIter:
    """An epoch's iterator over a DataLoader's batches; like PyTorch's, it has the loader's length."""

    def __init__(self, loader: DataLoader, batches: Iterator) -> None:
        self._loader, self._batches, self._num_yielded = loader, batches, 0

    def __iter__(self) -> _BaseDataLoaderIter:
        return self

    def __next__(self):
        batch = next(self._batches)
        self._num_yielded += 1
        return batch

    def __len__(self) -> int:
        return len(self._loader)


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    """Batches loaded in the calling process."""


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """Batches loaded by the emulated workers."""


def _tensor_rows(dataset, indices: list) -> tuple:
    """(tensors, rows) when `dataset` is a TensorDataset or Subsets of one; (None, None) otherwise."""
    while type(dataset) is Subset:
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    if type(dataset) is TensorDataset:
        return dataset.tensors, indices
    return None, None


@dataclasses.dataclass(frozen=True)
class WorkerInfo:
    """What `get_worker_info()` returns inside a worker."""

    id: int
    num_workers: int
    seed: int
    dataset: object
    rng: object = None
    worker_method: str | None = "multiprocessing"


class _Current(threading.local):
    info: WorkerInfo | None = None


_CURRENT = _Current()
_EXHAUSTED = object()


class _Worker:
    """One emulated worker: its WorkerInfo (with its own shallow copy of the dataset) and its random states
    (pjtorch's, Python's and NumPy's global generators), swapped in while it loads."""

    def __init__(self, loader: DataLoader, worker_id: int, base_seed: int) -> None:
        seed = base_seed + worker_id
        self.info = WorkerInfo(worker_id, loader.num_workers, seed, copy.copy(loader.dataset))
        self.states = _random_states()
        with self.running():
            random.manual_seed(seed)
            python_random.seed(seed)
            np.random.seed(np.random.SeedSequence([worker_id, base_seed]).generate_state(4))
            if loader.worker_init_fn is not None:
                loader.worker_init_fn(worker_id)

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        main = _random_states()
        _set_random_states(self.states)
        _CURRENT.info = self.info
        try:
            yield
        finally:
            _CURRENT.info = None
            self.states = _random_states()
            _set_random_states(main)


def _random_states() -> tuple:
    return random.get_rng_state(), python_random.getstate(), np.random.get_state()


def _set_random_states(states: tuple) -> None:
    random.set_rng_state(states[0])
    python_random.setstate(states[1])
    np.random.set_state(states[2])


def get_worker_info() -> WorkerInfo | None:
    """The current worker's WorkerInfo while a worker loads; None in the main process."""
    return _CURRENT.info
