"""The workloads, written once against a PyTorch-like module `t`.

The same code runs with `pjtorch` and with real `torch`, so the two are compared on identical
programs. Each builder does its setup and returns a step: a no-argument function that runs one
iteration and returns the tensors that must be computed before the iteration counts as done.
Only tensor and autograd features are used (no `torch.nn`, no `torch.optim`).
"""

from collections.abc import Callable
from types import ModuleType
from typing import Any

Step = Callable[[], Any]


def matmul(t: ModuleType, device: str, size: int, dtype: str) -> Step:
    """A square matrix product: the workload whose speed is the hardware's, not the library's."""
    a = t.randn(size, size, device=device, dtype=getattr(t, dtype))
    b = t.randn(size, size, device=device, dtype=getattr(t, dtype))
    return lambda: a @ b


def elementwise(t: ModuleType, device: str, numel: int) -> Step:
    """A chain of four elementwise ops: bound by memory traffic and by per-op dispatch."""
    x = t.randn(numel, device=device)
    y = t.randn(numel, device=device)
    return lambda: ((x * 2 + 1).sin() * y).exp()


def reduction(t: ModuleType, device: str, numel: int) -> Step:
    """A full sum over a large tensor: bound by reading memory once."""
    x = t.randn(numel, device=device)
    return lambda: x.sum()


def polynomial(t: ModuleType, device: str) -> Step:
    """The seeds' autograd example, leaf creation included, as a user's script would run it."""

    def step() -> Any:
        x = t.tensor(3.0, requires_grad=True, device=device)
        y = x**2 + 2 * x + 1
        y.backward()
        return x.grad

    return step


def add3(t: ModuleType, device: str) -> Step:
    """An add on three elements: measures nothing but the per-op overhead."""
    a = t.tensor([1.0, 2.0, 3.0], device=device)
    b = t.tensor([4.0, 5.0, 6.0], device=device)
    return lambda: a + b


def mlp_step(
    t: ModuleType, device: str, batch: int, n_in: int, n_hidden: int, n_out: int, lr: float
) -> Step:
    """One SGD step of a 784-256-10 ReLU MLP with cross-entropy: forward, backward, update."""
    params = _mlp_params(t, device, n_in, n_hidden, n_out)
    inputs = t.randn(batch, n_in, device=device)
    labels = t.randint(0, n_out, (batch,), device=device)

    def step() -> Any:
        loss = _cross_entropy(_mlp_forward(params, inputs), labels)
        loss.backward()
        with t.no_grad():
            for p in params:
                p -= lr * p.grad
                p.grad = None
        return (loss, *params)

    return step


def _mlp_params(t: ModuleType, device: str, n_in: int, n_hidden: int, n_out: int) -> list:
    """Weights scaled by 1/sqrt(fan-in), so the loss stays finite however long the step repeats."""
    w1 = (t.randn(n_in, n_hidden, device=device) / n_in**0.5).requires_grad_()
    b1 = t.zeros(n_hidden, device=device, requires_grad=True)
    w2 = (t.randn(n_hidden, n_out, device=device) / n_hidden**0.5).requires_grad_()
    b2 = t.zeros(n_out, device=device, requires_grad=True)
    return [w1, b1, w2, b2]


def _mlp_forward(params: list, inputs: Any) -> Any:
    w1, b1, w2, b2 = params
    return (inputs @ w1 + b1).relu() @ w2 + b2


def _cross_entropy(logits: Any, labels: Any) -> Any:
    """Mean negative log-likelihood, from logsumexp and gather rather than `torch.nn`."""
    log_probs = logits - logits.logsumexp(dim=1, keepdim=True)
    return -log_probs.gather(1, labels.unsqueeze(1)).mean()


BUILDERS: dict[str, Callable[..., Step]] = {
    "matmul": matmul,
    "elementwise": elementwise,
    "reduction": reduction,
    "polynomial": polynomial,
    "add3": add3,
    "mlp_step": mlp_step,
}
