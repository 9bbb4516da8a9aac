"""Run a script under real PyTorch with its randomness shifted: ``python -m compat._reseed OFFSET SCRIPT``.

The recorder runs each script once plainly and again through this bootstrap; lines that
differ are the ones that depend on random numbers (or on timing). The start-up seed and
every explicit ``torch.manual_seed(s)`` are moved by OFFSET, so even scripts that seed
themselves draw different numbers.
"""

from __future__ import annotations

import runpy
import sys

import numpy
import torch


def shift_seeds(offset: int) -> None:
    """Seed torch and numpy from ``offset`` now and make later seeding add ``offset``."""
    original = torch.manual_seed

    def shifted_manual_seed(seed: int):
        return original(int(seed) + offset)

    torch.manual_seed = shifted_manual_seed
    torch.random.manual_seed = shifted_manual_seed
    original(offset)
    numpy.random.seed(offset)


def main() -> None:
    offset, script, *args = sys.argv[1:]
    shift_seeds(int(offset))
    sys.argv = [script, *args]
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
