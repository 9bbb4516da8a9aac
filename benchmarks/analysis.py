"""Derived figures: throughput, time ratios between implementations, GPU-over-CPU speedups.

They are computed from the raw result dicts, the same ones written to JSON, so every derived
number can be checked against the times it came from.
"""

import json
from collections import defaultdict
from typing import Any

from benchmarks import suite

BASELINES = ("jax-jit", "torch")


def params_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True)


def with_throughput(result: dict[str, Any]) -> dict[str, Any]:
    """The result plus its achieved rate (GFLOP/s or GB/s), where the workload has one."""
    rule = suite.throughput(result["workload"], result["params"])
    rate = None
    if rule and result["timing"]:
        rate = {"unit": rule.unit, "value": rule.amount_per_call / result["timing"]["median_s"]}
    return {**result, "throughput": rate}


def time_ratios(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each implementation's median time over each baseline's, same case and device (>1: slower)."""
    groups: dict[tuple, dict[str, float]] = defaultdict(dict)
    params_of = {}
    for r in _ok(results):
        key = (r["workload"], params_key(r["params"]), r["device"])
        groups[key][r["impl"]] = r["timing"]["median_s"]
        params_of[key] = r["params"]
    return [
        {
            "workload": key[0],
            "params": params_of[key],
            "device": key[2],
            "impl": impl,
            "baseline": baseline,
            "time_ratio": median / medians[baseline],
        }
        for key, medians in groups.items()
        for impl, median in medians.items()
        for baseline in BASELINES
        if baseline in medians and baseline != impl
    ]


def gpu_speedups(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """CPU median over GPU median for each implementation and case measured on both."""
    groups: dict[tuple, dict[str, float]] = defaultdict(dict)
    params_of = {}
    for r in _ok(results):
        key = (r["workload"], params_key(r["params"]), r["impl"])
        groups[key][r["device"]] = r["timing"]["median_s"]
        params_of[key] = r["params"]
    return [
        {
            "workload": key[0],
            "params": params_of[key],
            "impl": key[2],
            "speedup": medians["cpu"] / medians["gpu"],
        }
        for key, medians in groups.items()
        if "cpu" in medians and "gpu" in medians
    ]


def seed_ratios(seed_results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """pjtorch's seed figure over PyTorch's, same size and device."""
    seconds = {
        (r["size"], r["device"], r["impl"]): r["seconds_per_run"]
        for r in seed_results
        if r["status"] == "ok"
    }
    return [
        {
            "size": size,
            "device": device,
            "impl": "pjtorch",
            "baseline": "torch",
            "time_ratio": value / seconds[(size, device, "torch")],
        }
        for (size, device, impl), value in seconds.items()
        if impl == "pjtorch" and seconds.get((size, device, "torch"))
    ]


def _ok(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in results if r["status"] == "ok"]
