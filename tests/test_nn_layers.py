"""Every layer against PyTorch: same weights and input give the same output, grad_fn, and gradients.

Each case builds the layer in both libraries (pjtorch gets PyTorch's initial state_dict), runs
it on one fixed input and backpropagates one fixed random cotangent; see nn_oracle.check_module.
Default initialisation is checked separately, by distribution.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from nn_oracle import LIBS, assert_close, check_module, copy_state, to_pj, torch
import pjtorch as pt

RNG = np.random.default_rng(0)


def randn(*shape) -> "torch.Tensor":
    return torch.from_numpy(RNG.standard_normal(shape).astype(np.float32))


IMAGE, SEQUENCE, BATCH = randn(2, 3, 7, 7), randn(2, 3, 10), randn(4, 5)

# name: (module factory, inputs, train mode, compare grad_fn)
CASES = {
    "Linear": (lambda nn: nn.Linear(5, 3), [BATCH], True, True),
    "Linear no bias": (lambda nn: nn.Linear(5, 3, bias=False), [BATCH], True, True),
    "Linear 3d input": (lambda nn: nn.Linear(5, 3), [randn(2, 4, 5)], True, True),
    "Linear 1d input": (lambda nn: nn.Linear(5, 3), [randn(5)], True, True),
    "Conv1d stride pad": (lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=1), [SEQUENCE], True, True),
    "Conv2d": (lambda nn: nn.Conv2d(3, 4, 3, padding=1), [IMAGE], True, True),
    "Conv2d groups dilation": (lambda nn: nn.Conv2d(4, 6, 3, dilation=2, groups=2, bias=False),
                               [randn(2, 4, 9, 9)], True, True),
    "Conv2d same reflect": (lambda nn: nn.Conv2d(3, 2, 4, padding="same", padding_mode="reflect"), [IMAGE], True,
                            True),
    "Conv2d unbatched": (lambda nn: nn.Conv2d(3, 2, 3, stride=2), [randn(3, 7, 7)], True, False),
    "MaxPool2d": (lambda nn: nn.MaxPool2d(2), [IMAGE], True, True),
    "MaxPool2d pad ceil": (lambda nn: nn.MaxPool2d(3, 2, padding=1, ceil_mode=True), [IMAGE], True, True),
    "MaxPool2d indices": (lambda nn: nn.MaxPool2d(3, 2, dilation=2, return_indices=True), [randn(1, 2, 9, 9)],
                          True, True),
    "MaxPool1d": (lambda nn: nn.MaxPool1d(3, 2), [SEQUENCE], True, True),
    "AvgPool2d": (lambda nn: nn.AvgPool2d(2), [IMAGE], True, True),
    "AvgPool2d pad ceil exclusive": (lambda nn: nn.AvgPool2d(3, 2, padding=1, ceil_mode=True,
                                                             count_include_pad=False), [IMAGE], True, True),
    "AvgPool2d divisor": (lambda nn: nn.AvgPool2d(3, 2, padding=1, divisor_override=4), [IMAGE], True, True),
    "AdaptiveAvgPool2d": (lambda nn: nn.AdaptiveAvgPool2d((3, 2)), [IMAGE], True, True),
    "AdaptiveAvgPool2d global": (lambda nn: nn.AdaptiveAvgPool2d(1), [IMAGE], True, True),
    "BatchNorm1d train": (lambda nn: nn.BatchNorm1d(5), [BATCH], True, True),
    "BatchNorm1d 3d train": (lambda nn: nn.BatchNorm1d(3, momentum=0.3), [SEQUENCE], True, True),
    "BatchNorm2d train": (lambda nn: nn.BatchNorm2d(3), [IMAGE], True, True),
    "BatchNorm2d eval": (lambda nn: nn.BatchNorm2d(3), [IMAGE], False, True),
    "BatchNorm2d no affine": (lambda nn: nn.BatchNorm2d(3, affine=False), [IMAGE], True, True),
    "BatchNorm2d no running stats": (lambda nn: nn.BatchNorm2d(3, track_running_stats=False), [IMAGE], False,
                                     True),
    "LayerNorm": (lambda nn: nn.LayerNorm(5), [BATCH], True, True),
    "LayerNorm 2d shape": (lambda nn: nn.LayerNorm((7, 7)), [IMAGE], True, True),
    "LayerNorm no bias": (lambda nn: nn.LayerNorm(5, bias=False), [BATCH], True, True),
    "Embedding": (lambda nn: nn.Embedding(10, 4), [torch.tensor([[1, 2, 2], [9, 0, 1]])], True, True),
    "Embedding padding": (lambda nn: nn.Embedding(10, 4, padding_idx=2), [torch.tensor([[1, 2, 2], [9, 0, 1]])],
                          True, True),
    "Embedding max_norm": (lambda nn: nn.Embedding(10, 4, max_norm=1.0), [torch.tensor([[1, 2, 2], [9, 0, 1]])],
                           True, True),
    "Embedding max_norm L1": (lambda nn: nn.Embedding(10, 4, max_norm=1.5, norm_type=1.0),
                              [torch.tensor([[1, 2, 2], [9, 0, 1]])], True, True),
    "Embedding scale_grad_by_freq": (lambda nn: nn.Embedding(10, 4, padding_idx=0, scale_grad_by_freq=True),
                                     [torch.tensor([[1, 2, 2], [9, 2, 1], [0, 0, 3]])], True, True),
    "Flatten": (lambda nn: nn.Flatten(), [IMAGE], True, True),
    "Identity": (lambda nn: nn.Identity(), [BATCH], True, True),
    "ReLU": (lambda nn: nn.ReLU(), [BATCH], True, True),
    "GELU": (lambda nn: nn.GELU(), [BATCH], True, True),
    "GELU tanh": (lambda nn: nn.GELU(approximate="tanh"), [BATCH], True, True),
    "SiLU": (lambda nn: nn.SiLU(), [BATCH], True, True),
    "Tanh": (lambda nn: nn.Tanh(), [BATCH], True, True),
    "Sigmoid": (lambda nn: nn.Sigmoid(), [BATCH], True, True),
    "Softmax": (lambda nn: nn.Softmax(dim=1), [BATCH], True, True),
    "LogSoftmax": (lambda nn: nn.LogSoftmax(dim=-1), [BATCH], True, True),
    "LeakyReLU": (lambda nn: nn.LeakyReLU(0.2), [BATCH], True, True),
    "ELU": (lambda nn: nn.ELU(), [BATCH], True, True),
    "Dropout eval": (lambda nn: nn.Dropout(0.5), [BATCH], False, True),
    "Sequential MLP": (lambda nn: nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.Linear(8, 2)), [BATCH], True, True),
    "MultiheadAttention": (lambda nn: nn.MultiheadAttention(8, 2), [randn(5, 2, 8)] * 3, True, False),
    "MultiheadAttention batch_first cross": (lambda nn: nn.MultiheadAttention(8, 4, batch_first=True),
                                             [randn(2, 5, 8), randn(2, 3, 8), randn(2, 3, 8)], True, False),
    "MultiheadAttention kdim vdim": (lambda nn: nn.MultiheadAttention(8, 2, kdim=6, vdim=4),
                                     [randn(5, 2, 8), randn(3, 2, 6), randn(3, 2, 4)], True, False),
    "MultiheadAttention bias_kv zero_attn": (lambda nn: nn.MultiheadAttention(8, 2, add_bias_kv=True,
                                                                              add_zero_attn=True),
                                             [randn(5, 2, 8)] * 3, True, False),
}


@pytest.mark.parametrize("name", list(CASES))
def test_layer_matches_pytorch(name):
    """atol 1e-5: a weight gradient sums hundreds of float32 products, in an order that differs between
    PyTorch's kernels and XLA's (and between pjtorch's stepwise and fused backward): 2.8e-6 was seen."""
    make, inputs, train, grad_fn = CASES[name]
    check_module(make, inputs, train=train, grad_fn=grad_fn, atol=1e-5)


def test_case_count():
    """The table above is what runs: a change that silently drops cases fails here."""
    assert len(CASES) == 50


def test_multihead_attention_masks():
    """key_padding_mask (bool, True = ignore) and a float attn_mask, weights per head."""
    query = randn(4, 2, 8)
    padding = torch.tensor([[False, False, True, False], [False, True, True, False]])
    causal = torch.triu(torch.ones(4, 4, dtype=torch.bool), diagonal=1)

    theirs, ours = torch.nn.MultiheadAttention(8, 2), pt.nn.MultiheadAttention(8, 2)
    copy_state(theirs, ours)
    expected = theirs(query, query, query, key_padding_mask=padding, attn_mask=causal, average_attn_weights=False)
    got = ours(to_pj(query), to_pj(query), to_pj(query), key_padding_mask=to_pj(padding), attn_mask=to_pj(causal),
               average_attn_weights=False)
    for mine, reference in zip(got, expected):
        assert_close(mine, reference)
    output, weights = ours(to_pj(query), to_pj(query), to_pj(query), need_weights=False)
    assert weights is None and tuple(output.shape) == (4, 2, 8)


def test_batchnorm_running_stats_over_steps():
    """Running averages (momentum and cumulative) and num_batches_tracked follow PyTorch over several batches."""
    for momentum in (0.1, None):
        theirs, ours = torch.nn.BatchNorm1d(5, momentum=momentum), pt.nn.BatchNorm1d(5, momentum=momentum)
        for _ in range(3):
            batch = randn(4, 5) * 3 + 1
            theirs(batch)
            ours(to_pj(batch))
        for name, buffer in theirs.named_buffers():
            assert_close(dict(ours.named_buffers())[name], buffer, what=name)


def test_dropout_training_statistics():
    """About p of the elements are zeroed; the rest are scaled by 1/(1-p); eval and p=0 return the input."""
    x = pt.ones(200, 100)
    dropped = pt.nn.Dropout(0.3)(x)
    kept = dropped != 0
    assert abs(kept.float().mean().item() - 0.7) < 0.02
    np.testing.assert_allclose(dropped[kept].numpy(), 1 / 0.7, rtol=1e-6)
    assert pt.nn.Dropout(0.3).eval()(x) is x
    assert pt.nn.functional.dropout(x, 0.0) is x
    x = pt.ones(5, requires_grad=True)
    out = pt.nn.functional.dropout(x, 0.5)
    assert type(out.grad_fn).__name__ == "MulBackward0"
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), out.detach().numpy())


def test_dropout2d_drops_whole_channels():
    out = pt.nn.Dropout2d(0.5)(pt.ones(8, 16, 3, 3))
    per_channel = out.reshape(8, 16, 9)
    assert bool(((per_channel == 0).all(-1) | (per_channel == 2).all(-1)).all())


def _stats(t) -> tuple:
    v = t.detach().numpy().reshape(-1)
    return v.min(), v.max(), v.mean(), v.std()


def test_linear_and_conv_default_init_distribution():
    """Weights and biases ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)), as PyTorch's kaiming_uniform_(a=sqrt(5)).

    Shapes are ones other tests build too, since each new shape compiles a random sampler.
    """
    for layer, fan_in in ((pt.nn.Linear(64, 64), 64), (pt.nn.Conv2d(3, 4, 3), 27)):
        bound = 1 / math.sqrt(fan_in)
        for param in (layer.weight, layer.bias):
            low, high, _, _ = _stats(param)
            assert -bound <= low and high <= bound
        low, high, mean, std = _stats(layer.weight)
        assert low < -0.8 * bound and high > 0.8 * bound
    low, high, mean, std = _stats(pt.nn.Linear(64, 64).weight)
    assert abs(mean) < 0.0125 and abs(std - 0.125 / math.sqrt(3)) < 0.004


def test_norm_embedding_attention_default_init():
    bn = pt.nn.BatchNorm2d(4)
    assert bn.weight.tolist() == [1.0] * 4 and bn.bias.tolist() == [0.0] * 4
    assert bn.running_var.tolist() == [1.0] * 4 and bn.num_batches_tracked.item() == 0
    emb = pt.nn.Embedding(64, 64, padding_idx=3)
    low, high, mean, std = _stats(emb.weight)
    assert abs(mean) < 0.05 and abs(std - 1) < 0.05
    assert emb.weight[3].tolist() == [0.0] * 64
    mha = pt.nn.MultiheadAttention(8, 2)
    bound = math.sqrt(6 / (8 + 3 * 8))
    low, high, _, _ = _stats(mha.in_proj_weight)
    assert -bound <= low and high <= bound and low < -0.8 * bound
    assert mha.in_proj_bias.abs().sum().item() == 0 and mha.out_proj.bias.abs().sum().item() == 0


@pytest.mark.parametrize("lib", LIBS, ids=["torch", "pjtorch"])
def test_layer_parameters_are_leaves_requiring_grad(lib):
    layer = lib.nn.Conv1d(2, 3, 2)
    assert all(p.is_leaf and p.requires_grad for p in layer.parameters())
    assert [n for n, _ in layer.named_parameters()] == ["weight", "bias"]


def test_sparse_embedding_gradient_has_pytorchs_values():
    """PyTorch's sparse=True gradient is a sparse COO tensor; pjtorch accepts the flag and gives the same values
    densely (it has no sparse layout), so optimizers that take dense gradients train identically."""
    torch.manual_seed(0)
    theirs = torch.nn.Embedding(6, 3, sparse=True)
    ours = pt.nn.Embedding(6, 3, sparse=True)
    copy_state(theirs, ours)
    indices = [[0, 2, 2], [5, 2, 1]]
    theirs(torch.tensor(indices)).pow(2).sum().backward()
    ours(pt.tensor(indices)).pow(2).sum().backward()
    assert theirs.weight.grad.is_sparse and repr(ours) == repr(theirs) == "Embedding(6, 3, sparse=True)"
    assert_close(ours.weight.grad, theirs.weight.grad.to_dense())


def test_batch_norm_running_statistics_keep_float64_precision():
    """The momentum is a double in a float64 buffer (a float32 momentum was 1.5e-8 off)."""
    found = {}
    for lib in (pt, torch):
        bn = lib.nn.BatchNorm1d(3, momentum=0.3).double()
        x = lib.linspace(-3, 5, 12, dtype=lib.float64).reshape(4, 3) ** 2
        for _ in range(3):
            bn(x)
        found[lib.__name__] = np.array([bn.running_mean.tolist(), bn.running_var.tolist()])
    np.testing.assert_allclose(found["pjtorch"], found["torch"], rtol=1e-14)
