"""The run's document (the JSON written to disk) and the table printed from it."""

import datetime
import json
from pathlib import Path
from typing import Any

from benchmarks import analysis, suite
from benchmarks.seed_matmul import SEED_NOTE

SCHEMA = "pjtorch-benchmarks/1"
ERROR_COLUMN_CHARS = 70
BUSY_LOAD_PER_CORE = 0.5


def build_document(
    *,
    options: dict[str, Any],
    machine: dict[str, Any],
    implementations: dict[str, str],
    results: list[dict[str, Any]],
    seed_results: list[dict[str, Any]],
) -> dict[str, Any]:
    measured = [analysis.with_throughput(r) for r in results]
    return {
        "schema": SCHEMA,
        "created": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "options": options,
        "machine": machine,
        "implementations": implementations,
        "results": measured,
        "ratios": analysis.time_ratios(measured),
        "gpu_speedups": analysis.gpu_speedups(measured),
        "seed_matmul": {
            "note": SEED_NOTE,
            "results": seed_results,
            "ratios": analysis.seed_ratios(seed_results),
        },
    }


def write_json(document: dict[str, Any], path: Path) -> None:
    path.write_text(json.dumps(document, indent=2) + "\n")


def format_report(document: dict[str, Any]) -> str:
    sections = [_machine_line(document["machine"]), _results_table(document)]
    if document["gpu_speedups"]:
        sections.append(_gpu_table(document["gpu_speedups"]))
    if document["seed_matmul"]["results"]:
        sections.append(_seed_table(document["seed_matmul"]))
    return "\n\n".join(sections)


def format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def format_ratio(ratio: float) -> str:
    return f"{ratio:.3g}x"


def _machine_line(machine: dict[str, Any]) -> str:
    versions = ", ".join(f"{name} {v}" for name, v in machine["versions"].items() if v)
    devices = ", ".join(d["kind"] for d in machine["devices"])
    load = machine["load_average_1min"]
    line = (
        f"{machine['cpu_model']}, {machine['logical_cores']} cores; {devices}; "
        f"load average {load['start']} at start, {load['end']} at end\n{versions}"
    )
    return line + _busy_warning(load["start"], machine["logical_cores"])


def _busy_warning(load_at_start: float | None, cores: int) -> str:
    """Other processes competing for the cores distort every figure, PyTorch's OpenMP most.

    Only the load before the run is judged: the run itself keeps the cores busy.
    """
    if load_at_start is None or load_at_start < BUSY_LOAD_PER_CORE * cores:
        return ""
    return (
        f"\nWARNING: the machine was busy before the run (load average {load_at_start:.1f} on "
        f"{cores} cores): timings, ratios to PyTorch above all, are unreliable; rerun when quiet."
    )


def _results_table(document: dict[str, Any]) -> str:
    ratios = {
        (r["workload"], analysis.params_key(r["params"]), r["device"], r["impl"], r["baseline"]): r
        for r in document["ratios"]
    }
    header = ["workload", "case", "dev", "impl", "median", "IQR", "min..max", "1st call", "rate"]
    header += [f"/{b}" for b in analysis.BASELINES]
    rows = [_result_row(r, ratios) for r in document["results"]]
    return _align([header, *rows])


def _result_row(result: dict[str, Any], ratios: dict[tuple, dict[str, Any]]) -> list[str]:
    case = suite.describe(result["workload"], result["params"])
    row = [result["workload"], case, result["device"], result["impl"]]
    timing = result["timing"]
    if timing is None:
        return row + ["failed: " + result["error"][:ERROR_COLUMN_CHARS]]
    rate = result["throughput"]
    key = (result["workload"], analysis.params_key(result["params"]), result["device"])
    row += [
        format_seconds(timing["median_s"]),
        f"{format_seconds(timing['q1_s'])}..{format_seconds(timing['q3_s'])}",
        f"{format_seconds(timing['min_s'])}..{format_seconds(timing['max_s'])}",
        format_seconds(timing["first_call_s"]),
        f"{rate['value']:.3g} {rate['unit']}" if rate else "",
    ]
    for baseline in analysis.BASELINES:
        ratio = ratios.get((*key, result["impl"], baseline))
        row.append(format_ratio(ratio["time_ratio"]) if ratio else "")
    return row


def _gpu_table(speedups: list[dict[str, Any]]) -> str:
    header = ["GPU speedup over CPU", "case", "impl", "cpu/gpu"]
    rows = [
        [
            s["workload"],
            suite.describe(s["workload"], s["params"]),
            s["impl"],
            format_ratio(s["speedup"]),
        ]
        for s in speedups
    ]
    return _align([header, *rows])


def _seed_table(seed: dict[str, Any]) -> str:
    ratios = {(r["size"], r["device"]): r["time_ratio"] for r in seed["ratios"]}
    header = ["seed benchmark_matmul", "dev", "impl", "as written", "pending after", "/torch"]
    rows = []
    for r in seed["results"]:
        row = [str(r["size"]), r["device"], r["impl"]]
        if r["status"] != "ok":
            rows.append(row + ["failed: " + r["error"][:ERROR_COLUMN_CHARS]])
            continue
        ratio = ratios.get((r["size"], r["device"])) if r["impl"] == "pjtorch" else None
        row += [format_seconds(r["seconds_per_run"]), format_seconds(r["pending_after_return_s"])]
        rows.append(row + [format_ratio(ratio) if ratio is not None else ""])
    return _align([header, *rows]) + "\n" + seed["note"]


def _align(rows: list[list[str]]) -> str:
    """Left-aligned columns; a failure message in a short row runs past the remaining columns."""
    full_rows = [row for row in rows if len(row) == len(rows[0])]
    widths = [max(len(row[i]) for row in full_rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip() for row in rows
    ]
    rule = "-" * len(lines[0])
    return "\n".join([lines[0], rule, *lines[1:]])
