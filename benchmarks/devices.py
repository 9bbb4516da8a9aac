"""The devices a run measures: the CPU always, and the first GPU where JAX sees one."""

from dataclasses import dataclass

import jax


@dataclass(frozen=True)
class Target:
    """One device, named the way each implementation names it."""

    name: str
    jax_device: jax.Device
    torch_device: str


def discover_targets() -> list[Target]:
    targets = [Target("cpu", jax.devices("cpu")[0], "cpu")]
    gpu = _first_gpu()
    if gpu is not None:
        targets.append(Target("gpu", gpu, "cuda"))
    return targets


def _first_gpu() -> jax.Device | None:
    """JAX raises rather than returning an empty list when no GPU backend is present."""
    try:
        return jax.devices("gpu")[0]
    except RuntimeError:
        return None
