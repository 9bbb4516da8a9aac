"""ctc_loss: the CTC forward (alpha) recursion in log space, one step of tensor ops per time step.

The label layout (blanks interleaved with each target) and which targets fit in their inputs are
host-side integer work, done once with NumPy; the recursion itself is differentiable composition.
"""
from __future__ import annotations

import math

import numpy as np

from ...tensor import factories, functions
from ...tensor.tensor import Tensor
from .loss import _reduction

# Stands in for log(0) inside the recursion: finite, so logsumexp's gradient has no 0/0 in unreachable states.
_LOG_ZERO = -1e30


def _host_ints(value) -> np.ndarray:
    return np.asarray(value._value() if isinstance(value, Tensor) else value, dtype=np.int64).reshape(-1)


def _extended_labels(targets: Tensor, target_lengths: np.ndarray, batch: int, blank: int) -> list:
    """Each batch element's target with a blank before, between and after its labels."""
    values = np.asarray(targets._value()).astype(np.int64)
    if targets.ndim == 1:  # all targets concatenated
        starts = np.concatenate([[0], np.cumsum(target_lengths)[:-1]])
        labels = [values[start:start + length] for start, length in zip(starts, target_lengths)]
    else:
        rows = values.reshape(batch, -1)
        labels = [row[:length] for row, length in zip(rows, target_lengths)]
    extended = []
    for label in labels:
        row = np.full(2 * len(label) + 1, blank, np.int64)
        row[1::2] = label
        extended.append(row)
    return extended


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Tensor:
    """Negative log likelihood of each target under all alignments of log_probs (T, N, C) or (T, C).

    PyTorch's gradient with respect to log_probs is exp(log_probs) - posterior (exact once log_probs
    come from log_softmax, whose backward cancels the first term); the same is reproduced here by
    adding exp(log_probs) summed over the valid steps, minus itself detached, to each loss.
    """
    reduction = _reduction(None, None, reduction)
    unbatched = log_probs.ndim == 2
    if unbatched:
        log_probs, targets = log_probs.unsqueeze(1), targets.unsqueeze(0)
    if log_probs.ndim != 3:
        raise RuntimeError(f"ctc_loss(): log_probs must be 2-D or 3-D, but got {log_probs.ndim}-D")
    steps, batch, classes = log_probs.shape
    lengths_in, lengths_out = _host_ints(input_lengths), _host_ints(target_lengths)
    if len(lengths_in) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(lengths_out) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    for length in lengths_in:
        if length > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got value {length} (while "
                               f"checking arguments for ctc_loss_allocate_outputs)")
    extended = _extended_labels(targets, lengths_out, batch, blank)
    width = max(len(row) for row in extended)
    labels = np.full((batch, width), blank, np.int64)
    skip = np.zeros((batch, width), bool)  # may a path jump from s-2 to s (a label unlike the one before it)?
    for n, row in enumerate(extended):
        labels[n, :len(row)] = row
        skip[n, 2:len(row)] = (row[2:] != blank) & (row[2:] != row[:-2])
    repeats = np.array([int(np.sum(row[1::2][1:] == row[1::2][:-1])) for row in extended])
    feasible = lengths_in >= lengths_out + repeats

    device, dtype = log_probs.device, log_probs.dtype
    index = factories.tensor(labels, device=device).unsqueeze(0).expand(steps, batch, width)
    emissions = log_probs.gather(2, index)  # (T, N, width): log-prob of each extended label at each step
    log_zero = factories.full((batch, 1), _LOG_ZERO, dtype=dtype, device=device)
    skip_mask = factories.tensor(skip, device=device)
    start = np.full((batch, width), _LOG_ZERO)
    start[:, :2] = 0.0
    alpha = emissions[0] + factories.tensor(start, dtype=dtype, device=device)
    for t in range(1, int(lengths_in.max(initial=0))):
        previous = functions.cat([log_zero, alpha[:, :-1]], 1)
        before = functions.where(skip_mask, functions.cat([log_zero, log_zero, alpha[:, :-2]], 1), _LOG_ZERO)
        step = functions.logsumexp(functions.stack([alpha, previous, before]), 0) + emissions[t]
        running = factories.tensor((t < lengths_in)[:, None], device=device)
        alpha = functions.where(running, step, alpha)

    # a path ends on the last label or the blank after it; an empty target's second end is a log(0) column
    ends = np.array([[len(row) - 1, len(row) - 2 if len(row) > 1 else width] for row in extended])
    last = functions.cat([alpha, log_zero], 1).gather(1, factories.tensor(ends, device=device))
    losses = -functions.logsumexp(last, 1)
    valid_steps = factories.tensor((np.arange(steps)[:, None] < lengths_in[None, :])[:, :, None], device=device)
    posterior_term = functions.where(valid_steps, log_probs.exp(), 0.0).sum((0, 2))
    losses = losses + (posterior_term - posterior_term.detach())
    impossible = factories.tensor(~feasible, device=device)
    losses = functions.where(impossible, 0.0 if zero_infinity else math.inf, losses)

    if reduction == "sum":
        return losses.sum()
    if reduction == "mean":
        return (losses / factories.tensor(np.maximum(lengths_out, 1), dtype=dtype, device=device)).mean()
    return losses[0] if unbatched else losses
