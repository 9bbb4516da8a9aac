"""`torch.nn.utils.rnn`: PackedSequence and the pad/pack conversions, composed from differentiable ops."""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import jax.numpy as jnp

from ... import dispatch
from ...ops.registry import Op
from ...tensor import dtypes, factories, functions
from ...tensor.tensor import Tensor
from .._utils import static


def _cast_to(dtype):
    """A PackedSequence method converting its data to `dtype` (`double()`, `long()`, ...)."""
    def cast(self) -> "PackedSequence":
        return self.to(dtype=dtype)

    return cast


class PackedSequence(NamedTuple):
    """Time-major data of sequences sorted by length; batch_sizes[t] sequences are still running at step t."""
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None

    def to(self, *args, **kwargs) -> "PackedSequence":
        return self._replace(data=self.data.to(*args, **kwargs))

    double, float, half = _cast_to(dtypes.float64), _cast_to(dtypes.float32), _cast_to(dtypes.float16)
    long, int, short = _cast_to(dtypes.int64), _cast_to(dtypes.int32), _cast_to(dtypes.int16)
    char, byte = _cast_to(dtypes.int8), _cast_to(dtypes.uint8)

    def cpu(self, *args, **kwargs) -> "PackedSequence":
        return self._replace(data=self.data.cpu(*args, **kwargs))

    def cuda(self, *args, **kwargs) -> "PackedSequence":
        return self._replace(data=self.data.cuda(*args, **kwargs))

    def pin_memory(self) -> "PackedSequence":
        return self

    def is_pinned(self) -> bool:
        return self.data.is_pinned()

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    if permutation is None:
        return None
    return functions.argsort(permutation)


def _pack(x, sizes):
    return jnp.concatenate([x[t, :size] for t, size in enumerate(sizes)], 0)


# One op, as PyTorch's kernel is, so that PackedSequence.data's grad_fn is PackPaddedSequenceBackward0.
_PACK = Op("pack_padded_sequence", _pack, grad_name="PackPaddedSequenceBackward0", promote="none")


def _lengths_list(lengths) -> list:
    return [int(v) for v in (lengths.tolist() if isinstance(lengths, Tensor) else lengths)]


def pack_padded_sequence(input: Tensor, lengths, batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    values = _lengths_list(lengths)
    if enforce_sorted:
        if any(a < b for a, b in zip(values, values[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You "
                               "can pass `enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to "
                               "sidestep this requirement if you do not need ONNX exportability.")
        sorted_indices = None
    else:
        sorted_indices = functions.argsort(factories.tensor(values, dtype=dtypes.int64), descending=True, stable=True)
        values = [values[i] for i in sorted_indices.tolist()]
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    if batch_first:
        input = input.transpose(0, 1)
    if input.numel() == 0:
        raise RuntimeError("Cannot pack empty tensors.")
    if len(values) != input.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got {len(values)} "
                           f"(batch_size={input.shape[1]})")
    if values and min(values) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an element in 'lengths' that "
                           "is <= 0")
    if values and values[0] > input.shape[0]:
        raise RuntimeError(f"Expected sequence length to be larger than or equal to {values[0]}, but got "
                           f"{input.shape[0]}")
    sizes = [sum(1 for v in values if v > t) for t in range(values[0] if values else 0)]
    data = dispatch.apply(_PACK, (input,), static(sizes=tuple(sizes)))
    return PackedSequence(data, factories.tensor(sizes, dtype=dtypes.int64), sorted_indices,
                          invert_permutation(sorted_indices))


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple:
    sizes = _lengths_list(sequence.batch_sizes)
    batch, steps = (sizes[0] if sizes else 0), len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError(f"Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {steps}")
    data, rows, offset = sequence.data, [], 0
    for size in sizes:
        step = data[offset:offset + size]
        offset += size
        if size < batch:
            fill = factories.full((batch - size, *data.shape[1:]), padding_value, dtype=data.dtype,
                                  device=data.device)
            step = functions.cat([step, fill], 0)
        rows.append(step)
    for _ in range((total_length or steps) - steps):
        rows.append(factories.full((batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device))
    padded = functions.stack(rows, 0)
    lengths = [sum(1 for size in sizes if size > b) for b in range(batch)]
    lengths = factories.tensor(lengths, dtype=dtypes.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        # Reordered last, as PyTorch does: the result's grad_fn is then IndexSelectBackward0.
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths.index_select(0, sequence.unsorted_indices)
    return padded, lengths


def pad_sequence(sequences, batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    longest = max(s.shape[0] for s in sequences)
    first = sequences[0]
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    out = factories.full((*shape, *first.shape[1:]), padding_value, dtype=first.dtype, device=first.device)
    # Written row by row into the filled result, as PyTorch does (its grad_fn is CopySlices).
    for i, seq in enumerate(sequences):
        steps = slice(0, seq.shape[0]) if padding_side == "right" else slice(longest - seq.shape[0], longest)
        out[(i, steps) if batch_first else (steps, i)] = seq
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list:
    """PyTorch transposes a time-first input in place, so the caller's tensor is left batch-first."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    return [seq[:length] for seq, length in zip(padded_sequences, _lengths_list(lengths))]


def pack_sequence(sequences, enforce_sorted: bool = True) -> PackedSequence:
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list:
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence", "pad_packed_sequence",
           "pad_sequence", "unpack_sequence", "unpad_sequence"]
