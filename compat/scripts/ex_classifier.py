"""A small classifier trained end to end on a synthetic dataset, with a progress bar.

Plain PyTorch. The data and the initial weights come from integer arithmetic rather than the
random generator, so PyTorch and pjtorch start from the same numbers and their loss curves can
be compared line by line; only the timing line differs between runs.
"""
import math
import sys
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def integers(count, seed):
    """`count` integers in [0, 2**31): two rounds of a linear congruential generator, exact in int64."""
    state = (torch.arange(count, dtype=torch.int64) * 7919 + seed * 104729 + 12345) % 2**31
    for _ in range(2):
        state = (state * 1103515245 + 12345) % 2**31
    return state


def uniform(shape, seed, bound):
    """Values in [-bound, bound) of the given shape."""
    return (integers(math.prod(shape), seed) / 2**31 * 2 - 1).reshape(shape) * bound


def make_dataset(samples=512, features=8):
    """Features in [-1, 1] (multiples of 1/1000); the label is decided by two integer comparisons."""
    raw = (integers(samples * features, seed=1) % 2001 - 1000).reshape(samples, features)
    labels = (raw[:, 0] + raw[:, 1] > 0).long() + (raw[:, 2] - raw[:, 3] > 200).long()
    return TensorDataset(raw.float() / 1000, labels)


def build_model(features=8, hidden=32, classes=3):
    model = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                          nn.Linear(hidden, classes))
    with torch.no_grad():
        for seed, param in enumerate(model.parameters()):
            fan_in = param.shape[-1] if param.dim() > 1 else param.shape[0]
            param.copy_(uniform(param.shape, seed + 10, 1 / math.sqrt(fan_in)))
    return model


def progress(epoch, epochs, step, steps, loss, width=20):
    done = width * step // steps
    bar = "#" * done + "." * (width - done)
    end = "\n" if step == steps else ""
    print(f"\repoch {epoch}/{epochs} [{bar}] {step}/{steps} loss {loss:.3f}", end=end, file=sys.stderr, flush=True)


def main(epochs=5):
    dataset = make_dataset()
    labels = dataset.tensors[1]
    print(f"{len(dataset)} samples, class counts {[(labels == c).sum().item() for c in range(3)]}")
    loader = DataLoader(dataset, batch_size=64)
    model = build_model()
    print(model)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    start = time.perf_counter()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for step, (inputs, labels) in enumerate(loader, start=1):
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), labels)
            loss.backward()
            optimizer.step()
            total += loss.item()
            progress(epoch, epochs, step, len(loader), total / step)
    seconds = time.perf_counter() - start
    with torch.no_grad():
        inputs, labels = dataset.tensors
        logits = model(inputs)
        accuracy = (logits.argmax(dim=1) == labels).float().mean().item()
        print(f"final loss {loss_fn(logits, labels).item():.4f}, accuracy {accuracy:.1%}")
    print(f"trained {epochs * len(loader)} steps in {seconds:.2f} seconds")


if __name__ == "__main__":
    main()
