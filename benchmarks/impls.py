"""The implementations compared side by side: pjtorch, hand-written JAX (eager and jit), PyTorch.

Each one turns (workload, device, parameters) into a step, the sync that forces the step's
result, and (pjtorch) the finish that forces what a step left for the next, so every
implementation is timed to completion.
"""

import importlib
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Protocol

import jax

from benchmarks import jax_workloads, torch_workloads
from benchmarks.devices import Target

PJTORCH = "pjtorch"
Sync = Callable[[Any], None]


@dataclass(frozen=True)
class Prepared:
    step: Callable[[], Any]
    sync: Sync
    finish: Sync | None = None


class Impl(Protocol):
    name: str

    def runs_on(self, target: Target) -> bool: ...

    def prepare(self, workload: str, target: Target, params: dict[str, Any]) -> Prepared: ...


@dataclass(frozen=True)
class JaxImpl:
    """JAX written by hand: `jit=False` is eager `jax.numpy`, `jit=True` one compiled step."""

    name: str
    jit: bool

    def runs_on(self, target: Target) -> bool:
        return True

    def prepare(self, workload: str, target: Target, params: dict[str, Any]) -> Prepared:
        step = jax_workloads.BUILDERS[workload](target.jax_device, self.jit, **params)
        return Prepared(step, jax.block_until_ready)


@dataclass(frozen=True)
class TorchLikeImpl:
    """pjtorch or real PyTorch, running the shared workload code through `module_name`.

    The module is imported on use, so a pjtorch that fails to import fails each case with
    the import error instead of stopping the suite.
    """

    name: str
    module_name: str

    def module(self) -> ModuleType:
        return importlib.import_module(self.module_name)

    def runs_on(self, target: Target) -> bool:
        if target.name == "cpu" or self.name == PJTORCH:
            return True
        return self.module().cuda.is_available()

    def prepare(self, workload: str, target: Target, params: dict[str, Any]) -> Prepared:
        step = torch_workloads.BUILDERS[workload](self.module(), target.torch_device, **params)
        if self.name == PJTORCH:
            return Prepared(step, _sync_pjtorch_outputs_leaving_writes, _sync_pjtorch_outputs)
        return Prepared(step, self.sync_for(target))

    def sync_for(self, target: Target) -> Sync:
        if target.name == "gpu":
            cuda = self.module().cuda
            return lambda _: cuda.synchronize()
        return lambda _: None


def all_impls(pjtorch_module: str) -> list[Impl]:
    """PyTorch joins only where it is installed: it is the oracle, never a dependency."""
    impls: list[Impl] = [
        TorchLikeImpl(PJTORCH, pjtorch_module),
        JaxImpl("jax-eager", jit=False),
        JaxImpl("jax-jit", jit=True),
    ]
    if importlib.util.find_spec("torch") is not None:
        impls.append(TorchLikeImpl("torch", "torch"))
    return impls


def _sync_pjtorch_outputs(outputs: Any) -> None:
    for tensor in outputs if isinstance(outputs, tuple) else (outputs,):
        _sync_pjtorch(tensor)


def _sync_pjtorch_outputs_leaving_writes(outputs: Any) -> None:
    """The sync after each step: a parameter update made under no_grad is a pending write, which pjtorch computes
    inside the next step's backward, as in a training loop; the run's `finish` computes the last one."""
    for tensor in outputs if isinstance(outputs, tuple) else (outputs,):
        _sync_pjtorch(tensor, defer_writes=True)


def _sync_pjtorch(tensor: Any, **options: Any) -> None:
    """Wait until pjtorch has computed `tensor`; JAX returns before it has.

    Uses pjtorch's own wait where the tensor or its underlying JAX array offers one, else
    copies to the host, which works on any device and any pjtorch version, only slower.
    """
    wait = getattr(tensor, "block_until_ready", None)
    array_wait = getattr(getattr(tensor, "_array", None), "block_until_ready", None)
    if callable(wait):
        wait(**options)
    elif callable(array_wait):
        array_wait()
    else:
        _copy_to_host(tensor)


def _copy_to_host(tensor: Any) -> None:
    """numpy has no bfloat16, so such tensors are widened on the way."""
    host = tensor.detach().cpu()
    (host.float() if str(host.dtype).endswith("bfloat16") else host).numpy()
