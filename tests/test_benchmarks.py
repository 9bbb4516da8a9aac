"""`python -m benchmarks --quick` runs end to end and writes a well-formed JSON file and a PNG.

Nothing here asserts on a time: only that figures exist, are positive, and agree with each
other. The GPU paths are checked by logic on synthetic results, since CI has no GPU.
"""

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # benchmarks/ is a program beside the package, not installed

from benchmarks import analysis, report, suite  # noqa: E402
from benchmarks.__main__ import parse_args  # noqa: E402
from benchmarks.devices import Target  # noqa: E402
from benchmarks.impls import all_impls  # noqa: E402
from benchmarks.runner import plan_tasks  # noqa: E402
from benchmarks.seed_matmul import plan_seed_tasks  # noqa: E402

TIMED_WORKLOADS = {"matmul", "elementwise", "reduction", "polynomial", "add3", "mlp_step"}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
HAS_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
SUBPROCESS_TIMEOUT_S = 300


def run_benchmarks(out: Path, *options: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "benchmarks", "--quick", "--out", str(out), *options]
    completed = subprocess.run(
        command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=SUBPROCESS_TIMEOUT_S
    )
    assert completed.returncode == 0, completed.stderr[-4000:]
    return completed


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("bench")
    return out, run_benchmarks(out)


@pytest.fixture(scope="module")
def document(quick_run: tuple[Path, subprocess.CompletedProcess]) -> dict[str, Any]:
    return json.loads((quick_run[0] / "results.json").read_text())


def test_every_workload_is_reported_for_every_implementation(document: dict[str, Any]) -> None:
    assert {r["workload"] for r in document["results"]} == TIMED_WORKLOADS
    impls = set(document["implementations"])
    assert {"pjtorch", "jax-eager", "jax-jit"} <= impls
    for workload in TIMED_WORKLOADS:
        assert {r["impl"] for r in document["results"] if r["workload"] == workload} == impls
    assert {r["impl"] for r in document["seed_matmul"]["results"]} == impls & {"pjtorch", "torch"}


def test_results_are_ok_with_ordered_positive_times_or_failed_with_a_message(
    document: dict[str, Any],
) -> None:
    for result in document["results"]:
        if result["status"] == "failed":
            assert result["timing"] is None and result["error"]
            continue
        assert result["status"] == "ok" and result["error"] is None
        t = result["timing"]
        assert 0 < t["min_s"] <= t["q1_s"] <= t["median_s"] <= t["q3_s"] <= t["max_s"]
        assert t["first_call_s"] > 0 and t["repeats"] >= 3 and t["inner_loops"] >= 1


def test_hand_written_jax_never_fails(document: dict[str, Any]) -> None:
    """If JAX itself fails the harness is broken, whatever state pjtorch is in."""
    jax_results = [r for r in document["results"] if r["impl"].startswith("jax")]
    devices = [d["name"] for d in document["machine"]["devices"]]
    cases = sum(
        len(suite.WORKLOADS[w].params_for(True, d)) for w in TIMED_WORKLOADS for d in devices
    )
    assert len(jax_results) == 2 * cases
    assert all(r["status"] == "ok" for r in jax_results), [r["error"] for r in jax_results]


def test_throughput_is_work_over_median_time(document: dict[str, Any]) -> None:
    rated = [r for r in document["results"] if r["throughput"]]
    assert {r["workload"] for r in rated} == {"matmul", "elementwise", "reduction"}
    for r in rated:
        rule = suite.throughput(r["workload"], r["params"])
        assert r["throughput"]["unit"] == rule.unit
        assert math.isclose(
            r["throughput"]["value"] * r["timing"]["median_s"], rule.amount_per_call
        )


def test_ratios_agree_with_the_times_they_come_from(document: dict[str, Any]) -> None:
    medians = {
        (r["workload"], analysis.params_key(r["params"]), r["device"], r["impl"]): r["timing"][
            "median_s"
        ]
        for r in document["results"]
        if r["status"] == "ok"
    }
    assert document["ratios"], "jax-eager/jax-jit at least always has a ratio"
    for ratio in document["ratios"]:
        case = (ratio["workload"], analysis.params_key(ratio["params"]), ratio["device"])
        expected = medians[(*case, ratio["impl"])] / medians[(*case, ratio["baseline"])]
        assert math.isclose(ratio["time_ratio"], expected)
    pairs_expected = sum(
        1
        for (w, p, d, impl) in medians
        for baseline in analysis.BASELINES
        if baseline != impl and (w, p, d, baseline) in medians
    )
    assert len(document["ratios"]) == pairs_expected


def test_seed_results_are_positive_or_failed(document: dict[str, Any]) -> None:
    seed = document["seed_matmul"]
    assert {r["size"] for r in seed["results"]} == set(suite.seed_sizes(quick=True))
    for r in seed["results"]:
        if r["status"] == "ok":
            assert r["seconds_per_run"] > 0 and r["pending_after_return_s"] > 0
        else:
            assert r["error"]


def test_machine_is_described(document: dict[str, Any]) -> None:
    machine = document["machine"]
    assert machine["cpu_model"] and machine["logical_cores"] >= 1
    assert machine["versions"]["jax"] and machine["versions"]["numpy"]
    assert machine["devices"][0]["name"] == "cpu"
    assert document["options"]["quick"] is True


def test_table_is_printed(quick_run: tuple[Path, subprocess.CompletedProcess]) -> None:
    stdout = quick_run[1].stdout
    assert "median" in stdout and "seed benchmark_matmul" in stdout
    assert all(workload in stdout for workload in TIMED_WORKLOADS)


def test_plot_is_a_png(quick_run: tuple[Path, subprocess.CompletedProcess]) -> None:
    out, completed = quick_run
    if not HAS_MATPLOTLIB:
        assert "matplotlib is not installed" in completed.stderr
        return
    assert (out / "speedup.png").read_bytes().startswith(PNG_MAGIC)


def test_a_broken_pjtorch_is_recorded_and_the_run_goes_on(tmp_path: Path) -> None:
    run_benchmarks(tmp_path, "--only", "add3,seed_matmul", "--impl-module", "no_such_pjtorch")
    document = json.loads((tmp_path / "results.json").read_text())
    failed = [
        r
        for r in document["results"] + document["seed_matmul"]["results"]
        if r["impl"] == "pjtorch"
    ]
    assert failed and all("ModuleNotFoundError" in r["error"] for r in failed)
    assert any(r["status"] == "ok" for r in document["results"])


def test_unknown_workload_is_refused() -> None:
    with pytest.raises(SystemExit):
        parse_args(["--only", "matmul,no_such_workload"])


def test_full_mode_caps_matmul_on_cpu_only() -> None:
    cpu = suite.WORKLOADS["matmul"].params_for(False, "cpu")
    gpu = suite.WORKLOADS["matmul"].params_for(False, "gpu")
    assert max(p["size"] for p in cpu) < 8192
    assert {(p["size"], p["dtype"]) for p in gpu} == {
        (size, dtype) for size in suite.MATMUL_SIZES for dtype in suite.MATMUL_DTYPES
    }


def test_gpu_tasks_are_planned_for_every_implementation_that_runs_there() -> None:
    """A stand-in GPU target (the CPU device renamed) exercises the planning logic only."""
    import jax

    cpu = Target("cpu", jax.devices("cpu")[0], "cpu")
    gpu = Target("gpu", jax.devices("cpu")[0], "cuda")
    impls = all_impls("pjtorch")
    tasks = plan_tasks(["matmul", "add3"], [cpu, gpu], impls, quick=False)
    on_gpu = {task.impl.name for task in tasks if task.target is gpu}
    torch_has_cuda = any(impl.name == "torch" and impl.runs_on(gpu) for impl in impls)
    assert on_gpu == {"pjtorch", "jax-eager", "jax-jit"} | ({"torch"} if torch_has_cuda else set())
    assert max(t.params.get("size", 0) for t in tasks if t.target is gpu) == 8192
    seed_tasks = plan_seed_tasks(impls, [cpu, gpu], suite.seed_sizes(quick=False))
    assert {(t.impl.name, t.target.name) for t in seed_tasks} >= {("pjtorch", "gpu")}


def synthetic_result(workload: str, params: dict, device: str, impl: str, median_s: float) -> dict:
    timing = {
        "first_call_s": median_s,
        "median_s": median_s,
        "q1_s": median_s,
        "q3_s": median_s,
        "min_s": median_s,
        "max_s": median_s,
        "repeats": 3,
        "inner_loops": 1,
    }
    return {
        "workload": workload,
        "params": params,
        "device": device,
        "impl": impl,
        "status": "ok",
        "timing": timing,
        "error": None,
    }


@pytest.fixture
def gpu_document() -> dict[str, Any]:
    """A run as a GPU machine would produce it, built without a GPU."""
    results = [
        synthetic_result("matmul", {"size": size, "dtype": "float32"}, device, impl, base_s * scale)
        for size in (256, 1024)
        for device, scale in (("cpu", 1.0), ("gpu", 0.1))
        for impl, base_s in (("pjtorch", 2e-3), ("jax-jit", 1e-3), ("torch", 1e-3))
    ]
    results += [
        synthetic_result("add3", {}, device, impl, 1e-5)
        for device in ("cpu", "gpu")
        for impl in ("pjtorch", "torch")
    ]
    seed = [
        {
            "status": "ok",
            "impl": impl,
            "device": "gpu",
            "size": 256,
            "seconds_per_run": s,
            "pending_after_return_s": 1e-5,
            "error": None,
        }
        for impl, s in (("pjtorch", 2e-3), ("torch", 1e-3))
    ]
    machine = {
        "cpu_model": "test cpu",
        "logical_cores": 2,
        "versions": {"jax": "0"},
        "load_average_1min": {"start": 0.0, "end": 0.0},
        "devices": [{"name": "cpu", "kind": "cpu"}, {"name": "gpu", "kind": "H100"}],
    }
    return report.build_document(
        options={}, machine=machine, implementations={}, results=results, seed_results=seed
    )


def test_gpu_speedup_is_cpu_time_over_gpu_time(gpu_document: dict[str, Any]) -> None:
    speedups = gpu_document["gpu_speedups"]
    assert len(speedups) == 2 * 3 + 2
    assert all(math.isclose(s["speedup"], 10.0) for s in speedups if s["workload"] == "matmul")
    assert [r["time_ratio"] for r in gpu_document["seed_matmul"]["ratios"]] == [2.0]
    assert "GPU speedup over CPU" in report.format_report(gpu_document)


def test_a_busy_machine_is_flagged(gpu_document: dict[str, Any]) -> None:
    assert "WARNING" not in report.format_report(gpu_document)
    gpu_document["machine"]["load_average_1min"]["start"] = 8.0
    assert "WARNING: the machine was busy" in report.format_report(gpu_document)


@pytest.mark.skipif(not HAS_MATPLOTLIB, reason="matplotlib is the bench extra")
def test_gpu_results_plot(gpu_document: dict[str, Any], tmp_path: Path) -> None:
    from benchmarks.plot import write_plot

    write_plot(gpu_document, tmp_path / "gpu.png")
    assert (tmp_path / "gpu.png").read_bytes().startswith(PNG_MAGIC)
