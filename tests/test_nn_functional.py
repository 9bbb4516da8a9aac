"""torch.nn.functional against PyTorch: values, grad_fn names, gradients of every float input, errors.

A case is `lambda F, lib, *inputs: ...`, run under both libraries on the same inputs (floats
require grad); the result and the gradients of sum(result * fixed cotangent) must agree.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nn_oracle import LIBS, assert_close, grad_fn_name, outputs_of, same_error, to_pj, torch
import pjtorch as pt

RNG = np.random.default_rng(1)


def randn(*shape) -> "torch.Tensor":
    return torch.from_numpy(RNG.standard_normal(shape).astype(np.float32))


def rand(*shape) -> "torch.Tensor":
    return torch.from_numpy(RNG.uniform(0.05, 0.95, shape).astype(np.float32))


LOGITS, CLASSES = randn(4, 3), torch.tensor([0, 2, 1, 2])
IGNORED = torch.tensor([0, -100, 1, 2])
PROBS = torch.softmax(randn(4, 3), 1)
IMAGE_LOGITS, IMAGE_CLASSES = randn(2, 3, 2, 2), torch.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
WEIGHTS = torch.tensor([0.2, 1.0, 3.0])
X, Y = randn(4, 3), randn(4, 3)
P, T = rand(4, 3), rand(4, 3)
Q, K, V = randn(2, 2, 5, 4), randn(2, 2, 6, 4), randn(2, 2, 6, 3)
BOOL_MASK = torch.from_numpy(RNG.uniform(size=(5, 6)) > 0.3)
BOOL_MASK[:, 0] = True
FLOAT_MASK = randn(5, 6)
IMAGE = randn(2, 3, 6, 6)

CASES = {
    "cross_entropy": (lambda F, lib, x: F.cross_entropy(x, lib_tensor(lib, CLASSES)), [LOGITS]),
    "cross_entropy sum weight": (lambda F, lib, x: F.cross_entropy(
        x, lib_tensor(lib, CLASSES), weight=lib_tensor(lib, WEIGHTS), reduction="sum"), [LOGITS]),
    "cross_entropy ignore mean weight": (lambda F, lib, x: F.cross_entropy(
        x, lib_tensor(lib, IGNORED), weight=lib_tensor(lib, WEIGHTS)), [LOGITS]),
    "cross_entropy none ignore": (lambda F, lib, x: F.cross_entropy(x, lib_tensor(lib, IGNORED), reduction="none"),
                                  [LOGITS]),
    "cross_entropy smoothing": (lambda F, lib, x: F.cross_entropy(x, lib_tensor(lib, IGNORED), label_smoothing=0.2),
                                [LOGITS]),
    "cross_entropy smoothing weight": (lambda F, lib, x: F.cross_entropy(
        x, lib_tensor(lib, IGNORED), weight=lib_tensor(lib, WEIGHTS), label_smoothing=0.1), [LOGITS]),
    "cross_entropy smoothing none": (lambda F, lib, x: F.cross_entropy(
        x, lib_tensor(lib, CLASSES), label_smoothing=0.3, reduction="none"), [LOGITS]),
    "cross_entropy probs": (lambda F, lib, x, p: F.cross_entropy(x, p), [LOGITS, PROBS]),
    "cross_entropy probs weight sum": (lambda F, lib, x, p: F.cross_entropy(
        x, p, weight=lib_tensor(lib, WEIGHTS), reduction="sum"), [LOGITS, PROBS]),
    "cross_entropy probs smoothing none": (lambda F, lib, x, p: F.cross_entropy(
        x, p, label_smoothing=0.1, reduction="none"), [LOGITS, PROBS]),
    "cross_entropy 2d targets": (lambda F, lib, x: F.cross_entropy(x, lib_tensor(lib, IMAGE_CLASSES)),
                                 [IMAGE_LOGITS]),
    "cross_entropy unbatched": (lambda F, lib, x: F.cross_entropy(x, lib.tensor(2)), [randn(3)]),
    "nll_loss": (lambda F, lib, x: F.nll_loss(F.log_softmax(x, 1), lib_tensor(lib, IGNORED)), [LOGITS]),
    "nll_loss weight none": (lambda F, lib, x: F.nll_loss(x, lib_tensor(lib, CLASSES), lib_tensor(lib, WEIGHTS),
                                                          reduction="none"), [LOGITS]),
    "mse_loss": (lambda F, lib, x, y: F.mse_loss(x, y), [X, Y]),
    "mse_loss sum": (lambda F, lib, x, y: F.mse_loss(x, y, reduction="sum"), [X, Y]),
    "mse_loss none": (lambda F, lib, x, y: F.mse_loss(x, y, reduction="none"), [X, Y]),
    "l1_loss": (lambda F, lib, x, y: F.l1_loss(x, y), [X, Y]),
    "l1_loss sum": (lambda F, lib, x, y: F.l1_loss(x, y, reduction="sum"), [X, Y]),
    "l1_loss none": (lambda F, lib, x, y: F.l1_loss(x, y, reduction="none"), [X, Y]),
    "smooth_l1_loss": (lambda F, lib, x, y: F.smooth_l1_loss(x, y), [X, Y]),
    "smooth_l1_loss beta none": (lambda F, lib, x, y: F.smooth_l1_loss(x, y, beta=0.5, reduction="none"), [X, Y]),
    "huber_loss": (lambda F, lib, x, y: F.huber_loss(x, y, delta=0.7), [X, Y]),
    "binary_cross_entropy": (lambda F, lib, p, t: F.binary_cross_entropy(p, t), [P, T]),
    "binary_cross_entropy weight sum": (lambda F, lib, p, t: F.binary_cross_entropy(
        p, t, weight=lib_tensor(lib, WEIGHTS), reduction="sum"), [P, T]),
    "bce_with_logits": (lambda F, lib, x, t: F.binary_cross_entropy_with_logits(x, t), [X * 4, T]),
    "bce_with_logits pos_weight weight none": (lambda F, lib, x, t: F.binary_cross_entropy_with_logits(
        x, t, weight=lib_tensor(lib, WEIGHTS), pos_weight=lib_tensor(lib, WEIGHTS * 2), reduction="none"),
        [X * 4, T]),
    "softmax": (lambda F, lib, x: F.softmax(x, dim=0), [X]),
    "log_softmax": (lambda F, lib, x: F.log_softmax(x, dim=-1), [X]),
    "gelu tanh": (lambda F, lib, x: F.gelu(x, approximate="tanh"), [X]),
    "leaky_relu": (lambda F, lib, x: F.leaky_relu(x, 0.3), [X]),
    "softplus": (lambda F, lib, x: F.softplus(x, beta=2.0, threshold=1.0), [X]),
    "pad constant": (lambda F, lib, x: F.pad(x, (1, 2, 0, 1), value=3.5), [IMAGE]),
    "pad negative crops": (lambda F, lib, x: F.pad(x, (-1, 2)), [IMAGE]),
    "pad reflect": (lambda F, lib, x: F.pad(x, (1, 2, 2, 1), mode="reflect"), [IMAGE]),
    "pad replicate": (lambda F, lib, x: F.pad(x, (2, 1), mode="replicate"), [randn(2, 3, 5)]),
    "pad circular": (lambda F, lib, x: F.pad(x, (1, 2, 2, 1), mode="circular"), [IMAGE]),
    "sdpa": (lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v), [Q, K, V]),
    "sdpa bool mask": (lambda F, lib, q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=lib_tensor(lib, BOOL_MASK)), [Q, K, V]),
    "sdpa float mask scale": (lambda F, lib, q, k, v: F.scaled_dot_product_attention(
        q, k, v, attn_mask=lib_tensor(lib, FLOAT_MASK), scale=0.3), [Q, K, V]),
    "sdpa causal": (lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [Q, Q, Q]),
    "sdpa gqa": (lambda F, lib, q, k, v: F.scaled_dot_product_attention(q, k, v, enable_gqa=True),
                 [randn(1, 4, 5, 4), randn(1, 2, 6, 4), randn(1, 2, 6, 3)]),
    "conv2d stride tuple": (lambda F, lib, x, w: F.conv2d(x, w, stride=(2, 1), padding=(1, 0)),
                            [IMAGE, randn(4, 3, 3, 2)]),
    "conv1d same dilation": (lambda F, lib, x, w: F.conv1d(x, w, padding="same", dilation=2),
                             [randn(2, 3, 9), randn(2, 3, 4)]),
    "conv3d": (lambda F, lib, x, w: F.conv3d(x, w, padding=1), [randn(1, 2, 4, 4, 4), randn(3, 2, 3, 3, 3)]),
    "max_pool2d indices": (lambda F, lib, x: F.max_pool2d(x, 3, 2, 1, return_indices=True), [IMAGE]),
    "max_pool2d ties after relu": (lambda F, lib, x: F.max_pool2d(F.relu(x - 5), 2), [IMAGE]),
    "avg_pool1d": (lambda F, lib, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), [randn(2, 3, 8)]),
    "adaptive_avg_pool2d uneven": (lambda F, lib, x: F.adaptive_avg_pool2d(x, (4, 5)), [IMAGE]),
    "linear": (lambda F, lib, x, w, b: F.linear(x, w, b), [X, randn(2, 3), randn(2)]),
    "layer_norm affine": (lambda F, lib, x, w, b: F.layer_norm(x, (3,), w, b, eps=1e-3), [X, randn(3), randn(3)]),
    "batch_norm training": (lambda F, lib, x, w: F.batch_norm(x, None, None, w, None, training=True),
                            [IMAGE, randn(3)]),
    "embedding": (lambda F, lib, w: F.embedding(lib.tensor([[0, 3], [3, 1]]), w, padding_idx=1), [randn(4, 2)]),
    "normalize": (lambda F, lib, x: F.normalize(x, dim=0), [X]),
}


def lib_tensor(lib, t):
    return t if lib is torch else to_pj(t, requires_grad=False)


def run(lib, case, inputs):
    F = lib.nn.functional
    return outputs_of(case(F, lib, *inputs))


@pytest.mark.parametrize("name", list(CASES))
def test_functional_matches_pytorch(name):
    case, inputs = CASES[name]
    theirs_inputs = [x.clone().requires_grad_(True) for x in inputs]
    ours_inputs = [to_pj(x) for x in theirs_inputs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs_out, ours_out = run(torch, case, theirs_inputs), run(pt, case, ours_inputs)
    assert len(ours_out) == len(theirs_out)
    for ours, theirs in zip(ours_out, theirs_out):
        assert_close(ours, theirs, rtol=2e-5, atol=3e-6, what="output")
        assert grad_fn_name(ours) == grad_fn_name(theirs)
    differentiable = [(o, t) for o, t in zip(ours_out, theirs_out) if t.requires_grad]
    cotangents = [RNG.standard_normal(tuple(t.shape)).astype(np.float32) for _, t in differentiable]
    sum((t * torch.from_numpy(c)).sum() for (_, t), c in zip(differentiable, cotangents)).backward()
    sum((o * pt.tensor(c)).sum() for (o, _), c in zip(differentiable, cotangents)).backward()
    for ours, theirs in zip(ours_inputs, theirs_inputs):
        assert_close(ours.grad, theirs.grad, rtol=2e-5, atol=3e-6, what="input grad")


def test_case_count():
    assert len(CASES) == 54


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(-1, 3), min_size=6, max_size=6), st.sampled_from(["mean", "sum", "none"]),
       st.sampled_from([0.0, 0.25]))
def test_cross_entropy_any_targets(targets, reduction, smoothing):
    """Any mix of classes and ignored targets (-1), including all ignored (a NaN mean in both, with a zero
    gradient, +0 as torch's, not NaN)."""
    logits = randn(6, 4).requires_grad_()
    ours_logits = to_pj(logits.detach()).requires_grad_()
    target = torch.tensor(targets)
    expected = torch.nn.functional.cross_entropy(logits, target, ignore_index=-1, reduction=reduction,
                                                 label_smoothing=smoothing)
    got = pt.nn.functional.cross_entropy(ours_logits, to_pj(target), ignore_index=-1, reduction=reduction,
                                         label_smoothing=smoothing)
    np.testing.assert_allclose(np.asarray(got.tolist()), np.asarray(expected.tolist()), rtol=1e-5, atol=1e-6)
    expected.sum().backward()
    got.sum().backward()
    theirs, ours = logits.grad.numpy(), np.asarray(ours_logits.grad.tolist(), np.float32)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    assert (np.signbit(ours) == np.signbit(theirs))[theirs == 0].all()


def test_one_hot_matches_pytorch():
    for args in ((torch.tensor([0, 2, 1]),), (torch.tensor([[1], [0]]), 4)):
        expected = torch.nn.functional.one_hot(*args)
        got = pt.nn.functional.one_hot(to_pj(args[0]), *args[1:])
        assert got.dtype is pt.int64 and got.tolist() == expected.tolist()


ERROR_CASES = {
    "linear shapes": lambda lib: lib.nn.functional.linear(lib.ones(4, 3), lib.ones(2, 5)),
    "linear 3d shapes": lambda lib: lib.nn.functional.linear(lib.ones(5, 4, 3), lib.ones(2, 5)),
    "linear dtypes": lambda lib: lib.nn.functional.linear(lib.ones(4, 3, dtype=lib.float64), lib.ones(2, 3)),
    "conv channels": lambda lib: lib.nn.functional.conv2d(lib.ones(2, 5, 8, 8), lib.ones(4, 3, 3, 3)),
    "conv kernel too big": lambda lib: lib.nn.functional.conv2d(lib.ones(2, 3, 2, 2), lib.ones(4, 3, 3, 3)),
    "conv padding string": lambda lib: lib.nn.functional.conv2d(lib.ones(1, 1, 3, 3), lib.ones(1, 1, 1, 1),
                                                                 padding="full"),
    "embedding index": lambda lib: lib.nn.functional.embedding(lib.tensor([10]), lib.ones(10, 3)),
    "embedding dtype": lambda lib: lib.nn.functional.embedding(lib.tensor([1.0]), lib.ones(10, 3)),
    "cross_entropy target range": lambda lib: lib.nn.functional.cross_entropy(lib.ones(4, 3),
                                                                              lib.tensor([0, 1, 5, 0])),
    "cross_entropy batch": lambda lib: lib.nn.functional.cross_entropy(lib.ones(4, 3), lib.tensor([0, 1, 2])),
    "bce range": lambda lib: lib.nn.functional.binary_cross_entropy(lib.tensor([1.5]), lib.tensor([1.0])),
    "bce size": lambda lib: lib.nn.functional.binary_cross_entropy(lib.ones(4, 1) / 2, lib.ones(4) / 2),
    "bce logits size": lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.ones(4, 1), lib.ones(4)),
    "layer_norm shape": lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3), (4,)),
    "layer_norm int shape": lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3), 3),
    "layer_norm float shape": lambda lib: lib.nn.functional.layer_norm(lib.ones(4, 3), (3.0,)),
    "dropout p": lambda lib: lib.nn.functional.dropout(lib.ones(2), 1.5),
    "max_pool pad": lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 1, 4, 4), 2, padding=2),
    "one_hot dtype": lambda lib: lib.nn.functional.one_hot(lib.tensor([1.0])),
    "one_hot range": lambda lib: lib.nn.functional.one_hot(lib.tensor([3]), 2),
    "reduction": lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2), reduction="avg"),
    "batchnorm dims": lambda lib: lib.nn.BatchNorm2d(3)(lib.ones(3, 4)),
    "batchnorm one value": lambda lib: lib.nn.BatchNorm1d(3)(lib.ones(1, 3)),
    "linear module": lambda lib: lib.nn.Linear(3, 2)(lib.ones(4, 5)),
    "pad odd": lambda lib: lib.nn.functional.pad(lib.ones(2, 2), (1,)),
    "sdpa mask and causal": lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.ones(1, 2, 2), lib.ones(1, 2, 2), lib.ones(1, 2, 2), attn_mask=lib.ones(2, 2), is_causal=True),
}


@pytest.mark.parametrize("name", list(ERROR_CASES))
def test_errors_match_pytorch(name):
    same_error(ERROR_CASES[name])


def test_mse_broadcast_warning_matches_pytorch():
    messages = []
    for lib in LIBS:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.mse_loss(lib.ones(4, 1), lib.ones(4))
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_implicit_softmax_dim_warns_like_pytorch():
    for lib in LIBS:
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax has been deprecated"):
            lib.nn.functional.softmax(lib.ones(2, 3))


def test_inplace_activations_write_through():
    x = pt.tensor([-1.0, 2.0])
    assert pt.nn.functional.relu(x, inplace=True) is x and x.tolist() == [0.0, 2.0]
    y = pt.tensor([-1.0, 2.0])
    pt.nn.ReLU(inplace=True)(y)
    assert y.tolist() == [0.0, 2.0]


def test_embedding_max_norm_renormalizes_used_rows():
    for lib in LIBS:
        weight = lib.tensor([[3.0, 4.0], [0.3, 0.4], [6.0, 8.0]])
        lib.nn.functional.embedding(lib.tensor([0, 1]), weight, max_norm=1.0)
        np.testing.assert_allclose(np.asarray(weight.tolist()), [[0.6, 0.8], [0.3, 0.4], [6.0, 8.0]], rtol=1e-5)


def _chain(t, depth: int = 3) -> list:
    """The first-input names down a grad_fn chain."""
    names, node = [], t.grad_fn
    while node is not None and len(names) < depth:
        names.append(type(node).__name__ if type(node).__module__ != "builtins" else node.name())
        node = node.next_functions[0][0] if node.next_functions else None
    return [name.rsplit("::", 1)[-1] for name in names]


@pytest.mark.parametrize("shape,weighted", [((4, 5), False), ((4, 5), True), ((2, 5, 3), False), ((5,), False)])
def test_cross_entropy_records_log_softmax_then_nll_loss_as_torch(shape, weighted):
    found = {}
    for lib in LIBS:
        x = lib.tensor(np.linspace(-2, 2, int(np.prod(shape)), dtype=np.float32).reshape(shape), requires_grad=True)
        target = lib.tensor(np.arange(np.prod(shape[:1] + shape[2:]) if len(shape) > 1 else 1).reshape(
            (shape[0],) + shape[2:] if len(shape) > 1 else ()) % shape[1 if len(shape) > 1 else 0])
        weight = lib.linspace(0.5, 1.5, shape[1 if len(shape) > 1 else 0]) if weighted else None
        loss = lib.nn.functional.cross_entropy(x * 2, target, weight=weight)
        loss.backward()
        found[lib.__name__] = (_chain(loss), round(loss.item(), 5), np.round(np.asarray(x.grad.tolist()), 5).tolist())
    assert found["pjtorch"] == found["torch"]
