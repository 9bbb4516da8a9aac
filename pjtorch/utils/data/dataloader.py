"""DataLoader: samples or batches from a dataset, in sampler order, collated.

Loading happens in the calling process (`num_workers` is accepted and ignored: batches are
built from device arrays, so worker processes would only add copies). A TensorDataset with the
default collate (directly or through Subsets) is batched by one indexing op per tensor instead
of one read per sample.
"""
from __future__ import annotations

from typing import Callable, Iterator

from ...tensor import dtypes, factories
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
        self.dataset, self.num_workers, self.pin_memory, self.timeout = dataset, num_workers, pin_memory, timeout
        self.worker_init_fn, self.generator, self.prefetch_factor = worker_init_fn, generator, prefetch_factor
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

    def __iter__(self) -> Iterator:
        if self._iterable:
            return self._iterate_stream()
        if self.batch_sampler is None:
            return (self.collate_fn(self.dataset[index]) for index in self.sampler)
        return (self._fetch(indices) for indices in self.batch_sampler)

    def _fetch(self, indices: list):
        if self.collate_fn is default_collate:
            tensors, rows = _tensor_rows(self.dataset, indices)
            if tensors is not None:
                rows = factories.tensor(rows, dtype=dtypes.int64, device=tensors[0].device)
                return [t[rows] for t in tensors]
        getitems = getattr(self.dataset, "__getitems__", None)
        samples = getitems(indices) if getitems is not None else [self.dataset[i] for i in indices]
        return self.collate_fn(samples)

    def _iterate_stream(self) -> Iterator:
        if not self._auto_collation:
            for sample in self.dataset:
                yield self.collate_fn(sample)
            return
        batch = []
        for sample in self.dataset:
            batch.append(sample)
            if len(batch) == self.batch_size:
                yield self.collate_fn(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            length = len(self.dataset)
            if self.batch_size is None:
                return length
            return length // self.batch_size if self.drop_last else -(-length // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _tensor_rows(dataset, indices: list) -> tuple:
    """(tensors, rows) when `dataset` is a TensorDataset or Subsets of one; (None, None) otherwise."""
    while type(dataset) is Subset:
        indices = [dataset.indices[i] for i in indices]
        dataset = dataset.dataset
    if type(dataset) is TensorDataset:
        return dataset.tensors, indices
    return None, None


def get_worker_info() -> None:
    """Always None: pjtorch loads in the main process."""
    return None
