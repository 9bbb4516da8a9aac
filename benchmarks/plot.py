"""A PNG of the run for people who would rather look than read.

Left: float32 matmul speedup over PyTorch CPU eager against size, one line per implementation
and device. Right: the other workloads' times relative to PyTorch eager on the same device.
matplotlib is the `bench` extra, imported only here and only when a plot is asked for.
"""

from collections import defaultdict
from pathlib import Path
from typing import Any

from benchmarks.analysis import params_key

IMPL_COLORS = {
    "pjtorch": "tab:red",
    "jax-eager": "tab:orange",
    "jax-jit": "tab:green",
    "torch": "tab:blue",
}
DEVICE_STYLES = {"cpu": "-", "gpu": "--"}
BASELINE_NAMES = {"torch": "PyTorch eager", "jax-jit": "JAX jit"}
MISSING_MATPLOTLIB = (
    "plot skipped: matplotlib is not installed; install the bench extra "
    "(pip install -e '.[bench]') to get the PNG"
)


class PlotUnavailable(RuntimeError):
    """matplotlib is missing: the JSON and the table are still written."""


def write_plot(document: dict[str, Any], path: Path) -> None:
    plt = _pyplot()
    fig, (matmul_axes, other_axes) = plt.subplots(1, 2, figsize=(14, 5.5))
    _plot_matmul_speedup(matmul_axes, document["results"])
    _plot_relative_times(other_axes, document["results"])
    fig.suptitle(_title(document["machine"]), fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _pyplot() -> Any:
    try:
        import matplotlib
    except ImportError as error:
        raise PlotUnavailable(MISSING_MATPLOTLIB) from error
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _medians(results: list[dict[str, Any]]) -> dict[tuple, float]:
    """Median seconds keyed by (workload, params key, device, impl), successful runs only."""
    return {
        (r["workload"], params_key(r["params"]), r["device"], r["impl"]): r["timing"]["median_s"]
        for r in results
        if r["status"] == "ok"
    }


def _baseline_impl(results: list[dict[str, Any]]) -> str:
    """PyTorch eager where it ran; JAX jit stands in where PyTorch is not installed."""
    return (
        "torch" if any(r["impl"] == "torch" and r["status"] == "ok" for r in results) else "jax-jit"
    )


def _plot_matmul_speedup(axes: Any, results: list[dict[str, Any]]) -> None:
    medians, baseline = _medians(results), _baseline_impl(results)
    lines: dict[tuple[str, str], list[tuple[int, float]]] = defaultdict(list)
    for r in results:
        p = r["params"]
        if r["workload"] != "matmul" or p["dtype"] != "float32" or r["status"] != "ok":
            continue
        base = medians.get(("matmul", params_key(p), "cpu", baseline))
        if base is not None:
            lines[(r["impl"], r["device"])].append((p["size"], base / r["timing"]["median_s"]))
    for (impl, device), points in sorted(lines.items()):
        xs, ys = zip(*sorted(points), strict=True)
        style = DEVICE_STYLES.get(device, ":")
        axes.plot(xs, ys, style, marker="o", color=IMPL_COLORS.get(impl), label=f"{impl} {device}")
    if not lines:
        axes.text(0.5, 0.5, "no float32 matmul results", ha="center", transform=axes.transAxes)
    sizes = sorted({size for points in lines.values() for size, _ in points})
    axes.set_xscale("log", base=2)
    axes.set_xticks(sizes, [str(size) for size in sizes])
    axes.set(
        yscale="log",
        xlabel="matrix size n (n x n, float32)",
        ylabel=f"speedup over {BASELINE_NAMES[baseline]} on CPU (higher is faster)",
        title="matmul: speedup vs size",
    )
    axes.axhline(1.0, color="grey", linewidth=0.8)
    _legend(axes)


def _plot_relative_times(axes: Any, results: list[dict[str, Any]]) -> None:
    """One group of bars per (workload, device); each workload other than matmul has one case."""
    medians, baseline = _medians(results), _baseline_impl(results)
    cases = sorted(case for case in _all_cases(results) if case[0] != "matmul")
    width = 0.8 / len(IMPL_COLORS)
    for i, impl in enumerate(IMPL_COLORS):
        offset = (i - (len(IMPL_COLORS) - 1) / 2) * width
        bars = [
            (g + offset, medians[(*case, impl)] / medians[(*case, baseline)])
            for g, case in enumerate(cases)
            if (*case, impl) in medians and (*case, baseline) in medians
        ]
        xs, heights = zip(*bars, strict=True) if bars else ((), ())
        axes.bar(xs, heights, width, color=IMPL_COLORS[impl], label=_impl_label(impl, results))
    axes.set_xticks(range(len(cases)), [f"{w}\n{d}" for w, _, d in cases], fontsize=8)
    axes.set(
        yscale="log",
        ylabel=f"time / {BASELINE_NAMES[baseline]} time, same device (lower is faster)",
        title="elementwise, reduction, per-op overhead, autograd, training step",
    )
    axes.axhline(1.0, color="grey", linewidth=0.8)
    _legend(axes)


def _all_cases(results: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(r["workload"], params_key(r["params"]), r["device"]) for r in results}


def _impl_label(impl: str, results: list[dict[str, Any]]) -> str:
    """Names the failures in the legend, so a missing bar is not read as a tiny one."""
    mine = [r for r in results if r["impl"] == impl and r["workload"] != "matmul"]
    failed = sum(r["status"] != "ok" for r in mine)
    return f"{impl} ({failed}/{len(mine)} failed)" if failed else impl


def _legend(axes: Any) -> None:
    if axes.get_legend_handles_labels()[0]:
        axes.legend(fontsize=8)


def _title(machine: dict[str, Any]) -> str:
    devices = ", ".join(d["kind"] for d in machine["devices"])
    cores = machine["logical_cores"]
    return f"pjtorch benchmarks on {machine['cpu_model']} ({cores} cores); {devices}"
