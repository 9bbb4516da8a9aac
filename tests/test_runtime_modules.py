"""torch.cuda without a GPU, torch.backends / accelerator / mps / xpu, torch.profiler and torch.utils.benchmark,
each compared with real PyTorch (its CPU-only build), timings masked."""
import re
import time

import pytest

import pjtorch
from tests.tensor_oracle import _printed, reference, same_output
from tests.test_devices_numpy import needs_no_gpu

CUDA_PROGRAM = """
for name in ["is_initialized", "get_arch_list", "memory_allocated", "max_memory_allocated", "memory_reserved",
             "max_memory_reserved", "memory_stats", "memory_summary", "reset_peak_memory_stats", "mem_get_info",
             "seed", "seed_all", "init", "current_stream", "default_stream", "utilization", "temperature",
             "get_rng_state", "get_rng_state_all", "initial_seed", "ipc_collect", "reset_max_memory_allocated",
             "reset_max_memory_cached", "memory_cached", "max_memory_cached", "memory_snapshot", "synchronize",
             "current_blas_handle", "is_current_stream_capturing", "list_gpu_processes", "is_tf32_supported",
             "empty_cache", "current_device", "get_device_capability", "get_device_properties"]:
    tr(lambda: getattr(torch.cuda, name)())
tr(lambda: torch.cuda.memory_allocated(0))
tr(lambda: torch.cuda.set_device(0))
tr(lambda: torch.cuda.set_per_process_memory_fraction(0.5))
tr(lambda: torch.cuda.Event(enable_timing=True))
tr(lambda: torch.cuda.Stream())
tr(lambda: torch.cuda.stream(None).__enter__())
tr(lambda: torch.cuda.set_rng_state(torch.zeros(5, dtype=torch.uint8)))
tr(lambda: torch.cuda.manual_seed_all(3))
tr(lambda: torch.cuda.nvtx.range_push("a"))
tr(lambda: torch.cuda.nvtx.mark("a"))
def in_range():
    with torch.cuda.nvtx.range("a"):
        return 1
tr(in_range)
tr(lambda: issubclass(torch.cuda.OutOfMemoryError, RuntimeError))
tr(lambda: torch.OutOfMemoryError is torch.cuda.OutOfMemoryError)
"""

BACKENDS_PROGRAM = """
for expression in ["torch.backends.cuda.is_built()", "torch.backends.cudnn.is_available()",
                   "torch.backends.cudnn.version()", "torch.backends.cudnn.enabled", "torch.backends.cudnn.benchmark",
                   "torch.backends.cudnn.deterministic", "torch.backends.cudnn.allow_tf32",
                   "torch.backends.cuda.matmul.allow_tf32", "torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction",
                   "torch.backends.cuda.flash_sdp_enabled()", "torch.backends.mps.is_available()",
                   "torch.backends.mps.is_built()", "torch.backends.mkldnn.is_available()",
                   "torch.backends.mkl.is_available()", "torch.backends.openmp.is_available()",
                   "torch.backends.opt_einsum.is_available()", "torch.backends.quantized.engine",
                   "torch.accelerator.is_available()", "torch.accelerator.device_count()",
                   "torch.accelerator.current_accelerator()", "torch.accelerator.current_device_index()",
                   "torch.accelerator.synchronize()", "torch.accelerator.memory_allocated()",
                   "torch.accelerator.max_memory_reserved()", "torch.accelerator.empty_cache()", "torch.mps.is_available()", "torch.mps.device_count()",
                   "torch.mps.synchronize()", "torch.mps.empty_cache()", "torch.mps.manual_seed(0)",
                   "torch.xpu.is_available()", "torch.xpu.device_count()", "torch.xpu.synchronize()",
                   "torch.xpu.current_device()", "torch.xpu.empty_cache()"]:
    tr(lambda: eval(expression))
torch.backends.cudnn.benchmark = True
print(torch.backends.cudnn.benchmark)
torch.backends.cudnn.benchmark = False
"""


@needs_no_gpu
def test_cuda_module_without_a_gpu_answers_as_the_cpu_build():
    same_output(CUDA_PROGRAM)


@needs_no_gpu
def test_backends_accelerator_mps_and_xpu_answer_as_torch():
    same_output(BACKENDS_PROGRAM)


# ----- torch.profiler ------------------------------------------------------------------------------

SCHEDULES = [dict(wait=1, warmup=1, active=2), dict(wait=1, warmup=1, active=2, repeat=1),
             dict(wait=0, warmup=0, active=1, repeat=2, skip_first=3), dict(wait=2, warmup=0, active=3, repeat=2)]


@pytest.mark.parametrize("arguments", SCHEDULES)
def test_profiler_schedule_actions_match_torch(arguments):
    same_output(f"""
schedule = torch.profiler.schedule(**{arguments!r})
print([schedule(step).name for step in range(16)])
""")


_TIMES = re.compile(r" *\d+\.\d+(us|ms|s|%)")

REGIONS_PROGRAM = """
import time
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
    with torch.profiler.record_function("model_inference"):
        for _ in range(3):
            with torch.profiler.record_function("layer"):
                time.sleep(0.002)
averages = prof.key_averages()
print(sorted((event.key, event.count) for event in averages))
print(averages.table(sort_by="cpu_time_total", row_limit=10))
"""


def test_profiler_table_of_marked_regions_is_laid_out_as_torch():
    """Regions without tensor ops are all PyTorch's table lists too, so the tables agree but for the times."""
    ours, theirs = (_TIMES.sub("T", _printed(lib, REGIONS_PROGRAM)) for lib in (pjtorch, reference()))
    assert ours == theirs


def test_profiler_self_time_excludes_nested_regions():
    with pjtorch.profiler.profile() as prof:
        with pjtorch.profiler.record_function("outer"):
            time.sleep(0.01)
            with pjtorch.profiler.record_function("inner"):
                time.sleep(0.02)
    events = {event.key: event for event in prof.key_averages()}
    outer, inner = events["outer"], events["inner"]
    assert outer.cpu_time_total >= inner.cpu_time_total + 9_000
    assert abs(outer.self_cpu_time_total - (outer.cpu_time_total - inner.cpu_time_total)) < 1e-6
    assert inner.self_cpu_time_total == inner.cpu_time_total >= 19_000


def test_profiler_schedule_hands_each_active_span_to_on_trace_ready():
    traces = []
    schedule = pjtorch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2)
    with pjtorch.profiler.profile(schedule=schedule,
                                  on_trace_ready=lambda p: traces.append([e.key for e in p.events()])) as prof:
        for step in range(10):
            with pjtorch.profiler.record_function(f"step{step}"):
                pass
            prof.step()
    assert traces == [["step2", "step3"], ["step6", "step7"]]


def test_record_function_decorates_and_autograd_profiler_is_the_same_profiler():
    @pjtorch.profiler.record_function("decorated")
    def work(x):
        return x * 2

    with pjtorch.autograd.profiler.profile() as prof:
        assert work(pjtorch.ones(2)).tolist() == [2.0, 2.0]
        work(pjtorch.ones(2))
    assert [(e.key, e.count) for e in prof.key_averages()] == [("decorated", 2)]


# ----- torch.utils.benchmark -----------------------------------------------------------------------

BENCHMARK_PROGRAM = """
import torch.utils.benchmark as benchmark
x = torch.ones(100)
for kwargs in [dict(), dict(description="desc"), dict(sub_label="sub"), dict(label="lab"),
               dict(label="L", sub_label="S", description="D", setup="y = torch.ones(2)")]:
    print(benchmark.Timer("x * 2", globals={"x": x}, **kwargs).timeit(20))
print(benchmark.Timer("x * 2\\ny = 1", setup="import math\\nz = 2", globals={"x": x}).timeit(5))
measurement = benchmark.Timer("x + 1", globals={"x": x}).timeit(30)
print(measurement.number_per_run, len(measurement.times), measurement.median > 0, measurement.mean > 0)
"""


def test_benchmark_timer_measurements_print_as_torch(monkeypatch):
    import sys

    monkeypatch.setitem(sys.modules, "torch.utils.benchmark", __import__("pjtorch.utils.benchmark").utils.benchmark)
    ours = _TIMES.sub("T", re.sub(r"\d+\.\d+ (us|ms|ns|s)", "T", _printed(pjtorch, BENCHMARK_PROGRAM)))
    monkeypatch.delitem(sys.modules, "torch.utils.benchmark")
    theirs = re.sub(r"\d+\.\d+ (us|ms|ns|s)", "T", _printed(reference(), BENCHMARK_PROGRAM))
    assert ours == _TIMES.sub("T", theirs)


def test_blocked_autorange_measures_blocks_of_many_runs():
    from pjtorch.utils import benchmark

    measurement = benchmark.Timer("sum(range(100))").blocked_autorange(min_run_time=0.05)
    assert measurement.number_per_run >= 10 and len(measurement.times) >= 2
    assert sum(measurement.raw_times) >= 0.05
    assert "measurements," in repr(measurement) and "Median:" in repr(measurement)


def test_timer_stops_its_clock_once_deferred_work_is_done():
    """A statement run under no_grad leaves its results deferred; the Timer computes them inside the clock."""
    from pjtorch.ops import deferred
    from pjtorch.utils import benchmark

    x, kept = pjtorch.randn(8, 8), []
    benchmark.Timer("with torch.no_grad():\n    kept.append(x @ x + 1)", globals={"x": x, "kept": kept}).timeit(4)
    assert kept and not any(deferred.pending(t._storage._array) for t in kept)
    expected = (x @ x + 1).numpy()
    assert all((t.numpy() == expected).all() for t in kept)
