"""DistributedSampler: each of `num_replicas` processes reads its own strided share of the (shuffled, padded)
indices. pjtorch has no process group, so the replica count and rank must be given."""
from __future__ import annotations

import math
from typing import Iterator

from ...tensor import random
from .sampler import Sampler


def _no_process_group() -> None:
    raise ValueError("Default process group has not been initialized, please make sure to call init_process_group.")


class DistributedSampler(Sampler):
    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        if num_replicas is None or rank is None:
            _no_process_group()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.epoch, self.drop_last, self.shuffle, self.seed = 0, drop_last, shuffle, seed
        if drop_last and len(dataset) % num_replicas != 0:
            self.num_samples = math.ceil((len(dataset) - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(len(dataset) / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self) -> Iterator[int]:
        """This rank's indices: the epoch's permutation (seeded by seed + epoch), padded by repeating it from the
        start or cut to a multiple of num_replicas, then every num_replicas-th from `rank`."""
        if self.shuffle:
            generator = random.Generator().manual_seed(self.seed + self.epoch)
            indices = random.randperm(len(self.dataset), generator=generator).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if self.drop_last:
            indices = indices[:self.total_size]
        else:
            padding = self.total_size - len(indices)
            indices += (indices * math.ceil(padding / len(indices)))[:padding] if padding else []
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """A different shuffle each epoch (the same on every replica)."""
        self.epoch = epoch
