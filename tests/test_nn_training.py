"""Training end to end: the example classifier's loss curve against PyTorch's, activation checkpointing,
autocast, GradScaler and gradient clipping."""
from __future__ import annotations

import math
import pathlib
import types
import warnings

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


def _block(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Dropout(0.3), lib.nn.Linear(6, 2))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_checkpoint_gradients_equal_plain_backward(use_reentrant):
    """Recomputation (with the same dropout mask, by restoring the RNG) gives the same gradients."""
    from pjtorch.utils.checkpoint import checkpoint

    block = _block(pt)
    x = pt.randn(3, 4, requires_grad=True)
    pt.manual_seed(5)
    plain = block(x)
    plain.pow(2).sum().backward()
    expected = [p.grad.clone() for p in block.parameters()] + [x.grad.clone()]
    block.zero_grad()
    x.grad = None
    pt.manual_seed(5)
    recomputed = checkpoint(block, x, use_reentrant=use_reentrant)
    assert_close(recomputed, plain)
    assert recomputed.grad_fn is not None
    recomputed.pow(2).sum().backward()
    for got, want in zip([p.grad for p in block.parameters()] + [x.grad], expected):
        assert_close(got, want)


def test_non_reentrant_checkpoint_trains_parameters_of_input_without_grad():
    from pjtorch.utils.checkpoint import checkpoint

    layer = pt.nn.Linear(3, 2)
    checkpoint(layer, pt.ones(1, 3), use_reentrant=False).sum().backward()
    assert layer.weight.grad.tolist() == [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]


def test_checkpoint_warnings_match_pytorch():
    messages = []
    for lib in (torch, pt):
        layer = lib.nn.Linear(2, 2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.utils.checkpoint.checkpoint(layer, lib.ones(1, 2))
        messages.append(sorted(str(w.message) for w in caught))
    assert messages[0] == messages[1] and len(messages[0]) == 2


def test_checkpoint_sequential_matches_plain():
    from pjtorch.utils.checkpoint import checkpoint_sequential

    model = pt.nn.Sequential(pt.nn.Linear(2, 3), pt.nn.ReLU(), pt.nn.Linear(3, 3), pt.nn.Tanh(), pt.nn.Linear(3, 1))
    x = pt.randn(4, 2)
    expected = model(x)
    got = checkpoint_sequential(model, 2, x, use_reentrant=False)
    assert_close(got, expected)
    got.sum().backward()
    assert all(p.grad is not None for p in model.parameters())


AUTOCAST_CASES = {
    "linear": lambda lib, x, w: lib.nn.functional.linear(x, w),
    "conv2d": lambda lib, x, w: lib.nn.functional.conv2d(x.reshape(1, 1, 4, 3), w.reshape(1, 1, 2, 3)),
    "mse_loss": lambda lib, x, w: lib.nn.functional.mse_loss(lib.nn.functional.linear(x, w), x[:, :2]),
    "cross_entropy": lambda lib, x, w: lib.nn.functional.cross_entropy(lib.nn.functional.linear(x, w),
                                                                       lib.tensor([0, 1, 0, 1])),
    "softmax": lambda lib, x, w: lib.nn.functional.softmax(lib.nn.functional.linear(x, w), 1),
    "layer_norm": lambda lib, x, w: lib.nn.functional.layer_norm(lib.nn.functional.linear(x, w), (2,)),
    "double stays double": lambda lib, x, w: lib.nn.functional.linear(x.double(), w.double()),
    "sdpa": lambda lib, x, w: lib.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None]),
}


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(AUTOCAST_CASES))
def test_cpu_autocast_dtypes_match_pytorch(name, dtype):
    x, w = torch.randn(4, 3), torch.randn(2, 3)
    results = []
    for lib, args in ((torch, (x, w)), (pt, (to_pj(x), to_pj(w)))):
        with lib.autocast("cpu", dtype=getattr(lib, dtype)):
            results.append(AUTOCAST_CASES[name](lib, *args))
    assert str(results[1].dtype) == str(results[0].dtype)
    np.testing.assert_allclose(np.asarray(results[1].float().tolist()), np.asarray(results[0].float().tolist()),
                               rtol=3e-2, atol=3e-2)


def test_unsupported_autocast_dtype_warns_like_pytorch():
    messages = []
    for lib in (torch, pt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.autocast("cpu", dtype=lib.float64)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_autocast_scoping_and_gradients():
    w = pt.randn(2, 3, requires_grad=True)
    with pt.autocast("cpu"):
        assert pt.amp.is_autocast_enabled("cpu")
        with pt.autocast("cpu", enabled=False):
            assert pt.nn.functional.linear(pt.ones(1, 3), w).dtype is pt.float32
        y = pt.nn.functional.linear(pt.ones(1, 3), w)
    assert not pt.amp.is_autocast_enabled("cpu")
    assert y.dtype is pt.bfloat16
    y.float().sum().backward()
    assert w.grad.dtype is pt.float32

    @pt.autocast("cpu", dtype=pt.float16)
    def half_linear(x):
        return pt.nn.functional.linear(x, w)

    assert half_linear(pt.ones(1, 3)).dtype is pt.float16


def test_cuda_autocast_without_gpu_warns_and_does_nothing():
    if pt.cuda.is_available():
        pytest.skip("a GPU is present")
    with pytest.warns(UserWarning, match="CUDA is not available or torch_xla is imported. Disabling autocast."):
        with pt.autocast("cuda"):
            assert pt.nn.functional.linear(pt.ones(1, 2), pt.ones(1, 2)).dtype is pt.float32


def _scaled_step(lib, scaler, model, optimizer, poison: bool):
    optimizer.zero_grad()
    loss = model(lib.ones(2, 3)).sum()
    if poison:
        loss = loss * float("inf")
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()


def test_grad_scaler_matches_pytorch():
    """Scaling, unscaling, skipping the step on inf, and the scale's backoff and growth, as PyTorch's."""
    torch.manual_seed(0)
    theirs, ours = torch.nn.Linear(3, 2), pt.nn.Linear(3, 2)
    copy_state(theirs, ours)
    theirs_opt, ours_opt = torch.optim.SGD(theirs.parameters(), lr=0.1), pt.optim.SGD(ours.parameters(), lr=0.1)
    theirs_scaler = torch.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    ours_scaler = pt.amp.GradScaler("cpu", init_scale=1024.0, growth_interval=2)
    for poison in (False, True, False, False, False):
        _scaled_step(torch, theirs_scaler, theirs, theirs_opt, poison)
        _scaled_step(pt, ours_scaler, ours, ours_opt, poison)
        assert ours_scaler.get_scale() == theirs_scaler.get_scale()
        assert_close(ours.weight, theirs.weight)
        assert_close(ours.bias, theirs.bias)
    assert ours_scaler.state_dict() == {k: v for k, v in theirs_scaler.state_dict().items()}


def test_grad_scaler_unscale_before_clipping():
    layer = pt.nn.Linear(3, 1)
    optimizer = pt.optim.SGD(layer.parameters(), lr=0.1)
    scaler = pt.amp.GradScaler("cpu", init_scale=8.0)
    scaler.scale(layer(pt.ones(1, 3)).sum()).backward()
    scaler.unscale_(optimizer)
    assert layer.bias.grad.tolist() == [1.0]
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(optimizer)
    scaler.step(optimizer)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(optimizer)


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
