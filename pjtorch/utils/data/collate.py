"""default_collate: a list of samples into one batch, recursing through tuples, lists and dicts."""
from __future__ import annotations

import collections.abc

import numpy as np

from ...tensor import dtypes, factories, functions
from ...tensor.tensor import Tensor

ERROR_FORMAT = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def default_collate(batch: list | tuple):
    """Tensors stack along a new dim 0; numbers become a tensor; tuples and lists become a list of batches."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return functions.stack(batch, 0)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OSU":
            raise TypeError(ERROR_FORMAT.format(elem.dtype))
        return default_collate([factories.as_tensor(b) for b in batch])
    if isinstance(elem, np.generic):
        return factories.as_tensor(np.asarray(batch))
    if isinstance(elem, float):
        return factories.tensor(batch, dtype=dtypes.float64)
    if isinstance(elem, int):
        return factories.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(samples) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(sample) != size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        # Each column is collated as the tuple zip makes, so a column of strings stays a tuple, as in PyTorch.
        columns = [default_collate(samples) for samples in zip(*batch)]
        if isinstance(elem, tuple):
            return columns
        try:
            return type(elem)(columns)
        except TypeError:
            return columns
    raise TypeError(ERROR_FORMAT.format(type(elem)))


def default_convert(data):
    """batch_size=None: NumPy arrays become tensors, recursively; tuples become lists, as in PyTorch."""
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OSU":
        return factories.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return type(data)({key: default_convert(value) for key, value in data.items()})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (list, tuple)):
        return [default_convert(d) for d in data]
    return data
