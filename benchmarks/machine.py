"""What the figures were measured on: they mean little without the machine and the versions."""

import importlib.metadata
import os
import platform
import re
import subprocess
from pathlib import Path
from typing import Any

import jax

from benchmarks.devices import Target

PACKAGES = ("jax", "jaxlib", "numpy", "torch", "matplotlib")


def describe_machine(targets: list[Target], load_at_start: float | None) -> dict[str, Any]:
    """Called after the run, so the load average is recorded at both ends of it."""
    return {
        "cpu_model": cpu_model(),
        "logical_cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "platform": platform.platform(),
        "python": platform.python_version(),
        "versions": {name: _version(name) for name in PACKAGES},
        "repository_commit": repository_commit(),
        "load_average_1min": {"start": load_at_start, "end": load_average()},
        "jax_backend": jax.default_backend(),
        "devices": [_describe_device(target) for target in targets],
    }


def machine_tag(targets: list[Target]) -> str:
    """A folder name like `cpu-2core` or `gpu-nvidia-h100-80gb-hbm3`."""
    gpus = [t for t in targets if t.name == "gpu"]
    if gpus:
        return "gpu-" + _slug(gpus[0].jax_device.device_kind)
    return f"cpu-{os.cpu_count()}core"


def cpu_model() -> str:
    """/proc/cpuinfo names the model on Linux, where platform.processor() often says only x86_64."""
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        match = re.search(r"^model name\s*:\s*(.+)$", cpuinfo.read_text(), re.MULTILINE)
        if match:
            return match.group(1).strip()
    return platform.processor() or platform.machine()


def repository_commit() -> str | None:
    """Ties the figures to the pjtorch code measured; None outside a git checkout."""
    try:
        completed = subprocess.run(
            ["git", "describe", "--always", "--dirty"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return completed.stdout.strip() or None


def load_average() -> float | None:
    """Other processes on a small shared machine distort timings: record how busy it was."""
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None


def _describe_device(target: Target) -> dict[str, str]:
    device = target.jax_device
    return {"name": target.name, "jax_device": str(device), "kind": device.device_kind}


def _version(package: str) -> str | None:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
