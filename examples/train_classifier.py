"""Train a small classifier on a synthetic dataset: PyTorch code, run by pjtorch on JAX.

    python examples/train_classifier.py [--epochs 5] [--batch-size 64] [--lr 0.01]
    python -m pjtorch.run examples/train_classifier.py

The data are overlapping Gaussian blobs, one centre per class (about 85% accuracy is the best
any classifier can do); the model gets close within a few epochs. Everything below is plain
PyTorch; only the import line names pjtorch.
"""
from __future__ import annotations

import argparse
import sys
import time

import numpy as np

import pjtorch as torch


def make_dataset(samples: int = 2048, features: int = 20, classes: int = 4, seed: int = 0):
    """Points around one random centre per class, with unit Gaussian noise."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(0.0, 0.5, (classes, features))
    labels = rng.integers(0, classes, samples)
    points = centres[labels] + rng.normal(0.0, 1.0, (samples, features))
    return torch.utils.data.TensorDataset(torch.tensor(points, dtype=torch.float32), torch.tensor(labels))


def build_model(features: int = 20, hidden: int = 64, classes: int = 4) -> torch.nn.Module:
    nn = torch.nn
    return nn.Sequential(
        nn.Linear(features, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, classes),
    )


def progress(epoch: int, epochs: int, step: int, steps: int, loss: float, width: int = 30) -> None:
    done = width * step // steps
    bar = "#" * done + "." * (width - done)
    end = "\n" if step == steps else ""
    print(f"\repoch {epoch}/{epochs} [{bar}] {step}/{steps} loss {loss:.4f}", end=end, file=sys.stderr, flush=True)


def train(model: torch.nn.Module, loader, epochs: int, lr: float, show_progress: bool = True) -> list[float]:
    """AdamW with a cosine schedule; returns the loss of every step."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs * len(loader))
    loss_fn = torch.nn.CrossEntropyLoss()
    losses = []
    for epoch in range(1, epochs + 1):
        model.train()
        for step, (inputs, labels) in enumerate(loader, start=1):
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            optimizer.step()
            scheduler.step()
            losses.append(loss.item())
            if show_progress:
                progress(epoch, epochs, step, len(loader), losses[-1])
    return losses


@torch.no_grad()
def accuracy(model: torch.nn.Module, loader) -> float:
    model.eval()
    correct = total = 0
    for inputs, labels in loader:
        correct += (model(inputs).argmax(dim=1) == labels).sum().item()
        total += labels.shape[0]
    return correct / total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    train_set, test_set = torch.utils.data.random_split(make_dataset(seed=args.seed), [0.8, 0.2],
                                                        generator=torch.Generator().manual_seed(args.seed))
    train_loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True,
                                               generator=torch.Generator().manual_seed(args.seed))
    test_loader = torch.utils.data.DataLoader(test_set, batch_size=256)
    model = build_model()
    print(model, flush=True)
    start = time.perf_counter()
    losses = train(model, train_loader, args.epochs, args.lr)
    seconds = time.perf_counter() - start
    print(f"trained {len(losses)} steps in {seconds:.1f}s; final loss {losses[-1]:.4f}; "
          f"test accuracy {accuracy(model, test_loader):.1%}")


if __name__ == "__main__":
    main()
