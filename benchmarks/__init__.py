"""pjtorch's benchmark suite: `python -m benchmarks [--quick] [--out DIR] [--only NAMES]`.

Runs a fixed set of workloads with pjtorch, hand-written JAX (eager and jit) and PyTorch side
by side on every device JAX sees, and writes a table, a JSON file and a PNG plot.
"""
