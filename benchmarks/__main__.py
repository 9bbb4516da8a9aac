"""Command line: parse options, run the suite, write the JSON, print the table, draw the plot."""

import argparse
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from benchmarks import suite
from benchmarks.devices import Target, discover_targets
from benchmarks.impls import Impl, JaxImpl, all_impls
from benchmarks.machine import describe_machine, load_average, machine_tag
from benchmarks.plot import PlotUnavailable, write_plot
from benchmarks.progress import ProgressBar
from benchmarks.report import build_document, format_report, write_json
from benchmarks.runner import plan_tasks, run_tasks
from benchmarks.seed_matmul import plan_seed_tasks, run_seed_tasks
from benchmarks.timing import FULL, QUICK

RESULTS_ROOT = Path(__file__).resolve().parent / "results"
JSON_NAME = "results.json"
PLOT_NAME = "speedup.png"


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="pjtorch vs hand-written JAX vs PyTorch on every device JAX sees: "
        "prints a table, writes results.json and speedup.png.",
    )
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, few repeats: under a minute"
    )
    parser.add_argument(
        "--out",
        type=Path,
        help="folder for JSON and plot (default: benchmarks/results/<machine-tag>/)",
    )
    parser.add_argument(
        "--only",
        type=_workload_list,
        default=list(suite.ALL_NAMES),
        help=f"comma-separated workloads, from: {','.join(suite.ALL_NAMES)}",
    )
    parser.add_argument("--impl-module", default="pjtorch", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    targets = discover_targets()
    impls = all_impls(args.impl_module)
    document = run_suite(args, targets, impls)
    out_dir = args.out or RESULTS_ROOT / machine_tag(targets)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_json(document, out_dir / JSON_NAME)
    print(format_report(document))
    print(f"\nJSON: {out_dir / JSON_NAME}")
    try:
        write_plot(document, out_dir / PLOT_NAME)
        print(f"plot: {out_dir / PLOT_NAME}")
    except PlotUnavailable as missing:
        print(missing, file=sys.stderr)
    return 0


def run_suite(args: argparse.Namespace, targets: list[Target], impls: list[Impl]) -> dict[str, Any]:
    tasks = plan_tasks(args.only, targets, impls, args.quick)
    seed_tasks = []
    if suite.SEED_WORKLOAD in args.only:
        seed_tasks = plan_seed_tasks(impls, targets, suite.seed_sizes(args.quick))
    load_at_start = load_average()
    progress = ProgressBar(len(tasks) + len(seed_tasks))
    policy = QUICK if args.quick else FULL
    results = run_tasks(tasks, policy, progress)
    seed_results = run_seed_tasks(seed_tasks, progress)
    progress.close()
    return build_document(
        options={
            "quick": args.quick,
            "only": args.only,
            "pjtorch_module": args.impl_module,
            "timing_policy": asdict(policy),
        },
        machine=describe_machine(targets, load_at_start),
        implementations={impl.name: _describe_impl(impl) for impl in impls},
        results=[r.as_dict() for r in results],
        seed_results=[r.as_dict() for r in seed_results],
    )


def _describe_impl(impl: Impl) -> str:
    if isinstance(impl, JaxImpl):
        return "hand-written JAX, " + (
            "whole step under jax.jit" if impl.jit else "eager jax.numpy"
        )
    return f"shared PyTorch-style workload code run with module {impl.module_name!r}"


def _workload_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(suite.ALL_NAMES))
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown workload(s) {unknown}; choose from {','.join(suite.ALL_NAMES)}"
        )
    return names


if __name__ == "__main__":
    sys.exit(main())
