"""Training end to end: the example classifiers' loss curves against PyTorch's, and gradient clipping.
(Autocast and GradScaler are in test_amp.py, activation checkpointing in test_nn_checkpoint.py.)"""
from __future__ import annotations

import math
import pathlib
import types

import numpy as np
import pytest

from nn_oracle import assert_close, copy_state, to_pj, torch
import pjtorch as pt

EXAMPLE = pathlib.Path(__file__).resolve().parent.parent / "examples" / "train_classifier.py"


def load_example(use_real_torch: bool) -> types.ModuleType:
    """The example as a module; with real torch its single `import pjtorch as torch` line becomes `import torch`."""
    source = EXAMPLE.read_text()
    assert source.count("import pjtorch as torch") == 1
    if use_real_torch:
        source = source.replace("import pjtorch as torch", "import torch")
    module = types.ModuleType("train_classifier_" + ("torch" if use_real_torch else "pjtorch"))
    exec(compile(source, str(EXAMPLE), "exec"), module.__dict__)
    return module


def test_example_loss_curve_matches_pytorch():
    """Same initial weights and batches: every step's loss agrees with PyTorch's over three epochs."""
    theirs, ours = load_example(True), load_example(False)
    torch.manual_seed(0)
    theirs_model, ours_model = theirs.build_model(), ours.build_model()
    copy_state(theirs_model, ours_model)
    curves = []
    for example, model in ((theirs, theirs_model), (ours, ours_model)):
        loader = example.torch.utils.data.DataLoader(example.make_dataset(samples=512), batch_size=64)
        curves.append(example.train(model, loader, epochs=3, lr=0.01, show_progress=False))
    assert len(curves[1]) == len(curves[0]) == 24
    np.testing.assert_allclose(curves[1], curves[0], rtol=2e-4, atol=2e-5)
    assert curves[1][-1] < 0.7 * curves[1][0]
    for name, param in theirs_model.named_parameters():
        if name != "0.bias":  # feeds BatchNorm, so its true gradient is 0: Adam amplifies rounding noise there
            assert_close(dict(ours_model.named_parameters())[name], param, rtol=1e-3, atol=1e-4, what=name)
    accuracies = [example.accuracy(model, example.torch.utils.data.DataLoader(example.make_dataset(samples=512),
                                                                              batch_size=256))
                  for example, model in ((theirs, theirs_model), (ours, ours_model))]
    assert accuracies[1] == pytest.approx(accuracies[0], abs=0.01) and accuracies[1] > 0.7


def test_compat_example_prints_pytorchs_loss_curve():
    """The compat report's classifier example, run under pjtorch, prints PyTorch's recorded output line for line
    (every step's running loss, the final loss and accuracy; only the timing line is compared by format)."""
    from compat.harness import Status, Suite, evaluate
    from compat.manifest import load_manifest

    entry = next(e for e in load_manifest() if e.name == "ex_classifier")
    outcome = evaluate(entry, Suite(timeout_s=300))
    assert outcome.status is Status.PASSED, outcome.verdict
    assert outcome.expectation.output.count(" loss ") == 41 and outcome.expectation.random_lines == {55}


@pytest.mark.parametrize("norm_type", [2.0, 1.0, math.inf])
def test_clip_grad_norm_matches_pytorch(norm_type):
    torch.manual_seed(0)
    theirs, ours = torch.nn.Linear(4, 3), pt.nn.Linear(4, 3)
    copy_state(theirs, ours)
    x = torch.randn(5, 4) * 10
    theirs(x).pow(2).sum().backward()
    ours(to_pj(x)).pow(2).sum().backward()
    expected = torch.nn.utils.clip_grad_norm_(theirs.parameters(), 1.5, norm_type)
    got = pt.nn.utils.clip_grad_norm_(ours.parameters(), 1.5, norm_type)
    assert_close(got, expected, rtol=1e-5)
    for mine, reference in zip(ours.parameters(), theirs.parameters()):
        assert_close(mine.grad, reference.grad, rtol=1e-5)


def test_clip_grad_value_matches_pytorch():
    for lib in (torch, pt):
        param = lib.nn.Parameter(lib.zeros(3))
        param.grad = lib.tensor([-2.0, 0.5, 3.0])
        lib.nn.utils.clip_grad_value_([param], 1.0)
        assert param.grad.tolist() == [-1.0, 0.5, 1.0]
