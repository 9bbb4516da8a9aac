"""Graph lifetime: memory over many forward/backward iterations must stay flat.

    python -m benchmarks.memory [--iterations 10000] [--every 1000]

Each iteration builds a small graph (a linear layer, relu, a squared-error loss), runs
backward and drops it, as a training loop does. It prints, every `--every` iterations, the
process's resident memory, the live JAX arrays and the Python objects the collector tracks;
a tape that grew (or nodes kept alive) would show as a steady climb in all three.
"""
from __future__ import annotations

import argparse
import gc
import resource
import sys

import jax

import pjtorch as torch


def resident_mb() -> float:
    """Current resident set size (Linux /proc), falling back to the peak where it is unavailable."""
    try:
        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def snapshot() -> tuple:
    gc.collect()
    return resident_mb(), len(jax.live_arrays()), len(gc.get_objects())


def train_step(weight, bias, inputs, target) -> None:
    loss = ((inputs @ weight + bias).relu() - target).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        weight -= 0.01 * weight.grad
        bias -= 0.01 * bias.grad
    weight.grad = None
    bias.grad = None


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=10_000)
    parser.add_argument("--every", type=int, default=1_000)
    args = parser.parse_args(argv)
    torch.manual_seed(0)
    weight = torch.randn(32, 16, requires_grad=True)
    bias = torch.zeros(16, requires_grad=True)
    inputs, target = torch.randn(64, 32), torch.randn(64, 16)
    train_step(weight, bias, inputs, target)
    first = snapshot()
    print(f"{'iteration':>10} {'RSS MB':>9} {'live arrays':>12} {'gc objects':>11}")
    print(f"{0:>10} {first[0]:>9.1f} {first[1]:>12} {first[2]:>11}")
    for i in range(1, args.iterations + 1):
        train_step(weight, bias, inputs, target)
        if i % args.every == 0:
            rss, arrays, objects = snapshot()
            print(f"{i:>10} {rss:>9.1f} {arrays:>12} {objects:>11}", flush=True)
    rss, arrays, objects = snapshot()
    print(f"growth over {args.iterations} iterations: {rss - first[0]:+.1f} MB RSS, "
          f"{arrays - first[1]:+d} live arrays, {objects - first[2]:+d} gc objects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
