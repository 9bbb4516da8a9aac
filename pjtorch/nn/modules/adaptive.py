"""AdaptiveLogSoftmaxWithLoss: a head over the frequent classes and one cluster token per tail of rarer classes,
each tail scored through its own narrower projection."""
from __future__ import annotations

import itertools
from collections import namedtuple
from typing import Sequence

from ...tensor import functions
from ...tensor.tensor import Tensor
from .. import functional as F
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, device=device, dtype=dtype)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        """(log-probability of each target, mean negative log-likelihood)."""
        _check_shapes(input_, target_)
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        used_rows = 0
        output = input.new_zeros(target.size(0))
        gather_inds = target.new_empty(target.size(0))
        bounds = [0] + self.cutoffs
        for i in range(len(bounds) - 1):
            target_mask = (target >= bounds[i]) & (target < bounds[i + 1])
            row_indices = target_mask.nonzero().view(-1)
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - bounds[i]
                cluster_output = self.tail[i - 1](input.index_select(0, row_indices))
                gather_inds.index_fill_(0, row_indices, self.shortlist_size + i - 1)
                local_logprob = F.log_softmax(cluster_output, dim=1).gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()
        if used_rows != target.size(0):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head_logprob = F.log_softmax(self.head(input), dim=1)
        output += head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        """Log-probabilities of every class: the head's for the shortlist, cluster token's plus the tail's after."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_logprob = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster_logprob + head_logprob[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row; the tails are evaluated only for rows whose head picks a cluster."""
        head_output = self.head(input)
        output = functions.argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        if not not_in_shortlist.any():
            return output
        if not_in_shortlist.all():
            return functions.argmax(self._get_full_log_prob(input, head_output), dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist], head_output[not_in_shortlist])
        output[not_in_shortlist] = functions.argmax(log_prob, dim=1)
        return output


def _check_shapes(input: Tensor, target: Tensor) -> None:
    if target.dim() == 1:
        if input.size(0) != target.size(0):
            raise RuntimeError("Input and target should have the same size in the batch dimension.")
        if input.dim() != 2:
            raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with size {input.size()}")
    elif target.dim() == 0:
        if input.dim() != 1:
            raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with size {input.size()}")
    else:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
