"""torch.save / torch.load against PyTorch: files move both ways between the libraries, with the same values,
dtypes, strides, storage sharing, parameters and metadata, and load's weights_only and map_location rules."""
from __future__ import annotations

import collections
import io
import pickle

import numpy as np
import pytest

from nn_oracle import LIBS, copy_state, same_error, torch
import pjtorch as pt


class Custom:
    """A class no allowlist knows."""

    def __eq__(self, other) -> bool:
        return type(other) is Custom


def checkpoint_contents(lib) -> dict:
    """Everything a checkpoint commonly holds, built identically in either library."""
    torch.manual_seed(0)
    reference = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.BatchNorm1d(3))
    model = reference if lib is torch else pt.nn.Sequential(pt.nn.Linear(2, 3), pt.nn.BatchNorm1d(3))
    if lib is pt:
        copy_state(reference, model)
    x = lib.arange(6.0).reshape(2, 3)
    return {
        "state_dict": model.state_dict(), "x": x, "column": x[:, 1], "row": x[1], "transposed": x.t(),
        "parameter": lib.nn.Parameter(lib.ones(2)), "frozen": lib.nn.Parameter(lib.ones(1), requires_grad=False),
        "needs_grad": lib.ones(2, requires_grad=True) * 2, "scalar": lib.tensor(3.5), "empty": lib.zeros(0, 3),
        "dtypes": [lib.tensor([1.5, -2], dtype=d) for d in (lib.float64, lib.float16, lib.bfloat16, lib.int64,
                                                             lib.int32, lib.int16, lib.int8, lib.uint8)]
        + [lib.tensor([True, False]), lib.tensor([1 + 2j]), lib.tensor([1 - 1j], dtype=lib.complex128)],
        "dtype": lib.float16, "device": lib.device("cpu"), "size": lib.Size([2, 3]),
        "python": [1, "a", (2.5, None), {3, 4}, b"xy", 1 + 2j, bytearray(b"z"), collections.OrderedDict(k=1),
                   collections.Counter("aab")],
    }


def described(value):
    """A checkpoint's contents as plain data: tensors by type, dtype, shape, stride, offset, requires_grad, values."""
    if isinstance(value, (torch.Tensor, pt.Tensor)):
        values = value.detach().float() if str(value.dtype).endswith("bfloat16") else value.detach()
        return ("tensor", type(value).__name__, str(value.dtype), tuple(value.shape), tuple(value.stride()),
                value.storage_offset(), value.requires_grad, value.is_leaf, values.tolist())
    if isinstance(value, dict):
        return type(value).__name__, {k: described(v) for k, v in value.items()}, getattr(value, "_metadata", None)
    if isinstance(value, (list, tuple)) and not isinstance(value, (torch.Size, pt.Size)):
        return type(value).__name__, [described(v) for v in value]
    return repr(value)


def round_trip(saver, loader, obj, **load_options):
    buffer = io.BytesIO()
    saver.save(obj, buffer)
    buffer.seek(0)
    return loader.load(buffer, **load_options)


@pytest.mark.parametrize("saver, loader", [(pt, pt), (pt, torch), (torch, pt)],
                         ids=["pjtorch to pjtorch", "pjtorch to torch", "torch to pjtorch"])
def test_checkpoints_load_as_pytorch_loads_its_own(saver, loader):
    expected = round_trip(torch, torch, checkpoint_contents(torch))
    got = round_trip(saver, loader, checkpoint_contents(saver))
    assert described(got) == described(expected)
    with loader.no_grad():
        got["x"][1, 1] = 100.0
    assert got["column"].tolist() == [1.0, 100.0] and got["row"].tolist() == [3.0, 100.0, 5.0]
    assert got["transposed"][1].tolist() == [1.0, 100.0]


def test_paths_and_files(tmp_path):
    path = tmp_path / "model.pt"
    pt.save({"w": pt.ones(2)}, path)
    pt.save({"w": pt.zeros(1)}, str(tmp_path / "other.pt"))
    with open(path, "rb") as file:
        assert torch.load(file)["w"].tolist() == [1.0, 1.0]
    assert pt.load(path)["w"].tolist() == [1.0, 1.0] and pt.load(str(tmp_path / "other.pt"))["w"].tolist() == [0.0]


def test_training_resumes_across_libraries():
    """A pjtorch checkpoint of model and Adam state resumes in PyTorch (and back) exactly where it stopped."""
    torch.manual_seed(0)
    theirs = torch.nn.Linear(3, 2)
    ours = pt.nn.Linear(3, 2)
    copy_state(theirs, ours)
    ours_optimizer = pt.optim.Adam(ours.parameters(), lr=0.1)
    for _ in range(2):
        ours_optimizer.zero_grad()
        ours(pt.ones(4, 3)).pow(2).sum().backward()
        ours_optimizer.step()
    saved = {"model": ours.state_dict(), "optimizer": ours_optimizer.state_dict(), "epoch": 2}
    loaded = round_trip(pt, torch, saved)
    theirs.load_state_dict(loaded["model"])
    theirs_optimizer = torch.optim.Adam(theirs.parameters(), lr=0.1)
    theirs_optimizer.load_state_dict(loaded["optimizer"])
    back = round_trip(torch, pt, {"model": theirs.state_dict(), "optimizer": theirs_optimizer.state_dict()})
    ours.load_state_dict(back["model"])
    ours_optimizer.load_state_dict(back["optimizer"])
    for model, optimizer, lib in ((theirs, theirs_optimizer, torch), (ours, ours_optimizer, pt)):
        optimizer.zero_grad()
        model(lib.ones(4, 3)).pow(2).sum().backward()
        optimizer.step()
    assert loaded["epoch"] == 2
    for mine, reference in zip(ours.parameters(), theirs.parameters()):
        np.testing.assert_allclose(mine.tolist(), reference.tolist(), rtol=1e-6)


def test_weights_only_refuses_other_globals_as_pytorch_does():
    same_error(lambda lib: round_trip(lib, lib, {"custom": Custom()}))
    same_error(lambda lib: round_trip(lib, lib, [range(3)]))
    same_error(lambda lib: round_trip(lib, lib, {}, weights_only=True, pickle_module=pickle))


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "pjtorch"])
def test_weights_only_false_and_allowlists_load_other_globals(lib):
    obj = {"custom": Custom(), "t": lib.ones(1)}
    assert round_trip(lib, lib, obj, weights_only=False)["custom"] == Custom()
    assert round_trip(lib, lib, obj, pickle_module=pickle)["custom"] == Custom()
    with lib.serialization.safe_globals([Custom]):
        assert round_trip(lib, lib, obj)["custom"] == Custom()
        assert Custom in lib.serialization.get_safe_globals()
    assert Custom not in lib.serialization.get_safe_globals()
    before = lib.serialization.get_safe_globals()
    lib.serialization.add_safe_globals([Custom])
    try:
        assert round_trip(lib, lib, obj)["custom"] == Custom()
    finally:
        lib.serialization.clear_safe_globals()
        lib.serialization.add_safe_globals(before)


def _saved_on_cuda() -> bytes:
    """A PyTorch checkpoint whose storage says it lives on cuda:0 (written on a CPU, then relabelled)."""
    buffer = io.BytesIO()
    torch.save({"w": torch.arange(3.0)}, buffer)
    source = __import__("zipfile").ZipFile(io.BytesIO(buffer.getvalue()))
    relabelled = io.BytesIO()
    with __import__("zipfile").ZipFile(relabelled, "w") as archive:
        for name in source.namelist():
            data = source.read(name)
            if name.endswith("data.pkl"):
                data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")
            archive.writestr(name, data)
    return relabelled.getvalue()


def test_map_location_matches_pytorch():
    if pt.cuda.is_available() or torch.cuda.is_available():
        pytest.skip("the unmapped load succeeds where there is a GPU")
    same_error(lambda lib: lib.load(io.BytesIO(_saved_on_cuda())))
    for lib in LIBS:
        for mapping in ("cpu", lib.device("cpu"), {"cuda:0": "cpu"}, lambda storage, location: storage):
            loaded = lib.load(io.BytesIO(_saved_on_cuda()), map_location=mapping)["w"]
            assert loaded.device.type == "cpu" and loaded.tolist() == [0.0, 1.0, 2.0]
