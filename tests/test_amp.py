"""Autocast and GradScaler against PyTorch: which ops run in low precision, which in float32, and loss
scaling's step skipping and scale updates."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from nn_oracle import assert_close, copy_state, to_pj, torch
import pjtorch as pt
from pjtorch.amp.autocast_mode import FLOAT32_OPS, LOWER_PRECISION_OPS


def _x3d(lib, x):
    return x.reshape(1, 1, 2, 2, 3).expand(1, 2, 2, 2, 3).contiguous()


# Functional calls under CPU autocast: (lib, x (4, 3), w (2, 3)) -> tensor. PyTorch decides each result's dtype.
AUTOCAST_CASES = {
    "linear": lambda lib, x, w: lib.nn.functional.linear(x, w),
    "linear with bias": lambda lib, x, w: lib.nn.functional.linear(x, w, w[:, 0]),
    "Linear module": lambda lib, x, w: _linear_module(lib, w)(x),
    "conv1d": lambda lib, x, w: lib.nn.functional.conv1d(x.reshape(1, 4, 3), w[:, :1, None].expand(2, 4, 1)),
    "conv2d": lambda lib, x, w: lib.nn.functional.conv2d(x.reshape(1, 1, 4, 3), w.reshape(1, 1, 2, 3)),
    "mse_loss": lambda lib, x, w: lib.nn.functional.mse_loss(lib.nn.functional.linear(x, w), x[:, :2]),
    "cross_entropy": lambda lib, x, w: lib.nn.functional.cross_entropy(lib.nn.functional.linear(x, w),
                                                                       lib.tensor([0, 1, 0, 1])),
    "bce_with_logits": lambda lib, x, w: lib.nn.functional.binary_cross_entropy_with_logits(
        lib.nn.functional.linear(x, w), x[:, :2].sigmoid()),
    "softmax stays low": lambda lib, x, w: lib.nn.functional.softmax(lib.nn.functional.linear(x, w), 1),
    "softmax of float32 stays float32": lambda lib, x, w: lib.nn.functional.softmax(x, 1),
    "log_softmax": lambda lib, x, w: lib.nn.functional.log_softmax(lib.nn.functional.linear(x, w), 1),
    "softplus": lambda lib, x, w: lib.nn.functional.softplus(lib.nn.functional.linear(x, w)),
    "layer_norm": lambda lib, x, w: lib.nn.functional.layer_norm(lib.nn.functional.linear(x, w), (2,)),
    "relu and sum stay low": lambda lib, x, w: lib.nn.functional.relu(lib.nn.functional.linear(x, w)).sum(),
    "sum of float32 stays float32": lambda lib, x, w: x.sum(),
    "avg_pool3d to float32": lambda lib, x, w: lib.nn.functional.avg_pool3d(_x3d(lib, x).bfloat16(), 2),
    "max_pool3d to float32": lambda lib, x, w: lib.nn.functional.max_pool3d(_x3d(lib, x).bfloat16(), 2),
    "adaptive_avg_pool3d to float32": lambda lib, x, w: lib.nn.functional.adaptive_avg_pool3d(
        _x3d(lib, x).bfloat16(), 1),
    "avg_pool2d stays low": lambda lib, x, w: lib.nn.functional.avg_pool2d(x.reshape(1, 1, 4, 3).bfloat16(), 2),
    "reflect pad 1d to float32": lambda lib, x, w: lib.nn.functional.pad(x[None].bfloat16(), (1, 1), mode="reflect"),
    "replicate pad 2d to float32": lambda lib, x, w: lib.nn.functional.pad(x[None, None].bfloat16(), (1, 1, 1, 1),
                                                                           mode="replicate"),
    "reflect pad 3d stays low": lambda lib, x, w: lib.nn.functional.pad(_x3d(lib, x).bfloat16(), (1, 1, 1, 1, 1, 1),
                                                                        mode="reflect"),
    "constant pad stays low": lambda lib, x, w: lib.nn.functional.pad(x.bfloat16(), (1, 1)),
    "double stays double": lambda lib, x, w: lib.nn.functional.linear(x.double(), w.double()),
    "sdpa": lambda lib, x, w: lib.nn.functional.scaled_dot_product_attention(x[None], x[None], x[None]),
    "MultiheadAttention": lambda lib, x, w: _attention(lib)(x[:, None], x[:, None], x[:, None])[0],
}


def _linear_module(lib, w):
    layer = lib.nn.Linear(3, 2)
    with lib.no_grad():
        layer.weight.copy_(w)
        layer.bias.copy_(w[:, 0])
    return layer


def _attention(lib):
    lib.manual_seed(0)
    module = lib.nn.MultiheadAttention(3, 1)
    if lib is pt:
        torch.manual_seed(0)
        copy_state(torch.nn.MultiheadAttention(3, 1), module)
    return module


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("name", list(AUTOCAST_CASES))
def test_cpu_autocast_dtypes_match_pytorch(name, dtype):
    torch.manual_seed(0)
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


# Matrix products reached through pjtorch.tensor.functions: they need autocast_mode.cast_inputs called there
# (a dispatch-path hook outside nn/amp), so until that lands they keep their inputs' dtype.
MATRIX_PRODUCT_CASES = {
    "matmul": lambda lib, x, w: lib.matmul(x, w.t()),
    "@": lambda lib, x, w: x @ w.t(),
    "Tensor.matmul 1-d @ 2-d": lambda lib, x, w: x[0].matmul(w.t()),
    "mm": lambda lib, x, w: lib.mm(x, w.t()),
    "bmm": lambda lib, x, w: lib.bmm(x[None], w.t()[None]),
    "addmm": lambda lib, x, w: lib.addmm(x[:, :2], x, w.t()),
    "einsum": lambda lib, x, w: lib.einsum("ij,kj->ik", x, w),
    "tensordot": lambda lib, x, w: lib.tensordot(x, w.t(), 1),
    "mv stays float32 on CPU": lambda lib, x, w: lib.mv(x, w[0]),
    "dot stays float32 on CPU": lambda lib, x, w: lib.dot(w[0], w[1]),
}


def test_cpu_autocast_matrix_products_match_pytorch():
    torch.manual_seed(0)
    x, w = torch.randn(4, 3), torch.randn(2, 3)
    got, expected = {}, {}
    for lib, args, results in ((torch, (x, w), expected), (pt, (to_pj(x), to_pj(w)), got)):
        with lib.autocast("cpu", dtype=lib.bfloat16):
            for name, case in MATRIX_PRODUCT_CASES.items():
                results[name] = str(case(lib, *args).dtype)
    assert got == expected


def test_op_lists_follow_pytorchs_policies():
    """Spot checks against aten/src/ATen/autocast_mode.{h,cpp}: CUDA lowers mv, CPU does not; softmax is float32
    only on CUDA; 3-d pooling is float32 only on CPU."""
    assert "mv" in LOWER_PRECISION_OPS["cuda"] and "mv" not in LOWER_PRECISION_OPS["cpu"]
    assert "softmax" in FLOAT32_OPS["cuda"] and "softmax" not in FLOAT32_OPS["cpu"]
    assert "avg_pool3d" in FLOAT32_OPS["cpu"] and "avg_pool3d" not in FLOAT32_OPS["cuda"]
    assert not any(LOWER_PRECISION_OPS[device] & FLOAT32_OPS[device] for device in ("cpu", "cuda"))


def test_the_deprecated_cuda_amp_spellings_warn_and_work_as_torch_amp():
    from tensor_oracle import same_output

    same_output("""
        scaler = torch.cuda.amp.GradScaler()
        print(scaler.is_enabled(), scaler.get_scale())
        with torch.cuda.amp.autocast():
            x = torch.ones(2, 2) @ torch.ones(2, 2)
        print(x.dtype)
        with torch.cuda.amp.autocast(enabled=False):
            pass
        w = torch.ones(2, requires_grad=True)
        opt = torch.optim.SGD([w], lr=0.1)
        scaler.scale((w * 2).sum()).backward()
        scaler.step(opt)
        scaler.update()
        print(w, scaler.get_scale())

        class Doubled(torch.autograd.Function):
            @staticmethod
            @torch.cuda.amp.custom_fwd
            def forward(ctx, t):
                return t * 2

            @staticmethod
            @torch.cuda.amp.custom_bwd
            def backward(ctx, g):
                return g * 2

        v = torch.ones(2, requires_grad=True)
        Doubled.apply(v).sum().backward()
        print(v.grad)
    """)


def test_custom_fwd_casts_inputs_and_turns_autocast_off_inside():
    from tensor_oracle import same_output

    same_output("""
        class Product(torch.autograd.Function):
            @staticmethod
            @torch.amp.custom_fwd(device_type="cpu", cast_inputs=torch.float32)
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                print("inside", a.dtype, b.dtype, (a @ b).dtype)
                return a @ b

            @staticmethod
            @torch.amp.custom_bwd(device_type="cpu")
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g @ b.t(), a.t() @ g

        a = torch.ones(2, 2, dtype=torch.bfloat16, requires_grad=True)
        b = torch.ones(2, 2, requires_grad=True)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = Product.apply(a, b)
            print(out.dtype, (a @ b).dtype)
        out.sum().backward()
        print(a.grad.dtype, b.grad)
        tr(lambda: Product.apply(a, b).dtype)
    """)
