"""The fixed set of workloads: which parameters each runs with, per mode and device.

Sizes are capped on the CPU in full mode (an 8192 matmul takes seconds per call on two cores)
and tiny in quick mode, so `--quick` finishes in under a minute on a small CPU.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

MATMUL_SIZES = (256, 512, 1024, 2048, 4096, 8192)
MATMUL_DTYPES = ("float32", "bfloat16", "float16")
CPU_MATMUL_CAP = {"float32": 4096, "bfloat16": 2048, "float16": 2048}
QUICK_MATMUL_SIZES = {"cpu": (128, 256), "gpu": (256, 1024)}
SEED_SIZES = {"quick": (256,), "full": (256, 1024, 4096)}
ELEMENTWISE_NUMEL = {"quick": 2**16, "cpu": 2**22, "gpu": 2**26}
REDUCTION_NUMEL = {"quick": 2**16, "cpu": 2**24, "gpu": 2**27}
MLP_PARAMS = {"batch": 64, "n_in": 784, "n_hidden": 256, "n_out": 10, "lr": 0.01}
FLOAT32_BYTES = 4
SEED_WORKLOAD = "seed_matmul"


@dataclass(frozen=True)
class Throughput:
    """Work done by one call, so that work / seconds gives a rate in `unit`."""

    unit: str
    amount_per_call: float


@dataclass(frozen=True)
class Workload:
    name: str
    params_for: Callable[[bool, str], list[dict[str, Any]]]
    describe: Callable[[dict[str, Any]], str]
    throughput: Callable[[dict[str, Any]], Throughput] | None = None


def _matmul_params(quick: bool, device: str) -> list[dict[str, Any]]:
    if quick:
        return [{"size": size, "dtype": "float32"} for size in QUICK_MATMUL_SIZES[device]]
    return [
        {"size": size, "dtype": dtype}
        for dtype in MATMUL_DTYPES
        for size in MATMUL_SIZES
        if device != "cpu" or size <= CPU_MATMUL_CAP[dtype]
    ]


def _numel_params(table: dict[str, int]) -> Callable[[bool, str], list[dict[str, Any]]]:
    return lambda quick, device: [{"numel": table["quick" if quick else device]}]


def _no_params(quick: bool, device: str) -> list[dict[str, Any]]:
    return [{}]


def _describe_numel(params: dict[str, Any]) -> str:
    return f"n=2^{params['numel'].bit_length() - 1}"


def _describe_mlp(params: dict[str, Any]) -> str:
    return f"{params['n_in']}-{params['n_hidden']}-{params['n_out']} b{params['batch']}"


WORKLOADS = {
    w.name: w
    for w in (
        Workload(
            "matmul",
            _matmul_params,
            lambda p: f"{p['size']} {p['dtype']}",
            lambda p: Throughput("GFLOP/s", 2 * p["size"] ** 3 / 1e9),
        ),
        Workload(
            "elementwise",
            _numel_params(ELEMENTWISE_NUMEL),
            _describe_numel,
            lambda p: Throughput("GB/s", 3 * p["numel"] * FLOAT32_BYTES / 1e9),
        ),
        Workload(
            "reduction",
            _numel_params(REDUCTION_NUMEL),
            _describe_numel,
            lambda p: Throughput("GB/s", p["numel"] * FLOAT32_BYTES / 1e9),
        ),
        Workload("polynomial", _no_params, lambda p: "x**2+2x+1 fwd+bwd"),
        Workload("add3", _no_params, lambda p: "3 elements"),
        Workload("mlp_step", lambda quick, device: [dict(MLP_PARAMS)], _describe_mlp),
    )
}
ALL_NAMES = (*WORKLOADS, SEED_WORKLOAD)


def seed_sizes(quick: bool) -> tuple[int, ...]:
    return SEED_SIZES["quick" if quick else "full"]


def describe(workload: str, params: dict[str, Any]) -> str:
    return WORKLOADS[workload].describe(params)


def throughput(workload: str, params: dict[str, Any]) -> Throughput | None:
    """Memory-bound rates count the minimum traffic: inputs read and output written once."""
    rule = WORKLOADS[workload].throughput
    return rule(params) if rule else None
