"""Differential checks of nn, nn.functional and optim against PyTorch: the recurrent and
Transformer layers, the padding and parameter containers, the newer functional forms and losses,
the added optimizers and lr schedules, reprs and error messages."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from nn_oracle import assert_close, check_module, copy_state, same_error, to_pj, torch
import pjtorch as pt

RNG = np.random.default_rng(0)


def randn(*shape) -> "torch.Tensor":
    return torch.from_numpy(RNG.standard_normal(shape).astype(np.float32))


def outputs(result) -> list:
    """Tensors of a (possibly nested) result, in order."""
    if isinstance(result, (tuple, list)):
        return [t for r in result for t in outputs(r)]
    return [result]


def compare_functional(fn, *args, grad: bool = True, rtol: float = 2e-5, atol: float = 2e-6) -> None:
    """fn(lib, *tensors): same outputs and input gradients under both libraries."""
    theirs_args = [a.clone().requires_grad_(grad and a.is_floating_point()) for a in args]
    ours_args = [to_pj(a) for a in theirs_args]
    theirs, ours = outputs(fn(torch, *theirs_args)), outputs(fn(pt, *ours_args))
    assert len(theirs) == len(ours)
    for o, t in zip(ours, theirs):
        assert_close(o, t, rtol, atol, "output")
    if grad and theirs[0].requires_grad:
        cotangent = randn(*theirs[0].shape)
        theirs[0].backward(cotangent)
        ours[0].backward(to_pj(cotangent))
        for o, t in zip(ours_args, theirs_args):
            if t.grad is not None:
                assert_close(o.grad, t.grad, rtol, atol, "input grad")


# ----- recurrent layers -------------------------------------------------------------------------------

def flat(nn, name: str, *args, **kwargs):
    """The layer wrapped so that its nested (output, (h, c)) result comes back as one flat tuple."""
    class Flat(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = getattr(nn, name)(*args, **kwargs)

        def forward(self, x):
            return tuple(outputs(self.inner(x)))
    return Flat()


RNN_CASES = [
    ("LSTM", (3, 5), {"proj_size": 2, "bidirectional": True}),
    ("GRU", (3, 4), {"bias": False, "batch_first": True}),
]


@pytest.mark.parametrize("name,args,kwargs", RNN_CASES)
def test_recurrent_layers_match(name, args, kwargs):
    shape = (2, 3, 3) if kwargs.get("batch_first") else (3, 2, 3)
    check_module(lambda nn: flat(nn, name, *args, **kwargs), [randn(*shape)], grad_fn=False, atol=1e-5)


@pytest.mark.parametrize("name", ["LSTMCell"])
def test_cells_match(name):
    check_module(lambda nn: flat(nn, name, 3, 4, bias=False), [randn(3)], grad_fn=False, atol=1e-5)


@pytest.mark.parametrize("name", ["LSTM"])
def test_packed_sequences_match(name):
    torch.manual_seed(0)
    theirs, ours = getattr(torch.nn, name)(3, 4, bidirectional=True), getattr(pt.nn, name)(3, 4, bidirectional=True)
    copy_state(theirs, ours)
    seqs = [randn(n, 3) for n in (2, 3, 1)]
    packed_t = torch.nn.utils.rnn.pack_sequence(seqs, enforce_sorted=False)
    packed_o = pt.nn.utils.rnn.pack_sequence([to_pj(s) for s in seqs], enforce_sorted=False)
    assert_close(packed_o.batch_sizes, packed_t.batch_sizes)
    out_t, hidden_t = theirs(packed_t)
    out_o, hidden_o = ours(packed_o)
    assert_close(out_o.data, out_t.data, atol=1e-5)
    for o, t in zip(outputs(hidden_o), outputs(hidden_t)):
        assert_close(o, t, atol=1e-5)
    padded_t, lengths_t = torch.nn.utils.rnn.pad_packed_sequence(out_t, batch_first=True)
    padded_o, lengths_o = pt.nn.utils.rnn.pad_packed_sequence(out_o, batch_first=True)
    assert_close(padded_o, padded_t, atol=1e-5)
    assert_close(lengths_o, lengths_t)


def test_pad_sequence_matches():
    seqs = [randn(n, 2) for n in (3, 1, 2)]
    for kwargs in ({}, {"batch_first": True, "padding_value": -1.0}, {"padding_side": "left"}):
        compare_functional(lambda lib, *s: lib.nn.utils.rnn.pad_sequence(list(s), **kwargs), *seqs)


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(2, 2, 5)),
    lambda lib: lib.nn.GRU(3, 4)(lib.zeros(2, 3, 3), lib.zeros(2, 3, 4)),
    lambda lib: lib.nn.RNN(3, 4)(lib.zeros(1, 2, 3, 3)),
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(2, 3), (lib.zeros(1, 1, 4), lib.zeros(1, 1, 4))),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=4),
    lambda lib: lib.nn.GRU(3, 4, proj_size=2),
    lambda lib: lib.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.zeros(1, 2, 3)),
    lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(3, 2, 1), [1, 3]),
])
def test_recurrent_errors_match(case):
    same_error(case)


# ----- transformer ------------------------------------------------------------------------------------

def test_transformer_with_masks_matches():
    torch.manual_seed(0)
    make = lambda nn: nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True, norm_first=True,  # noqa: E731
                                     activation="gelu")
    theirs, ours = make(torch.nn), make(pt.nn)
    assert repr(ours) == repr(theirs)
    copy_state(theirs, ours)
    src, tgt = randn(2, 5, 8), randn(2, 4, 8)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert_close(pt.nn.Transformer.generate_square_subsequent_mask(4), mask)
    padding = torch.tensor([[False] * 5, [False] * 3 + [True] * 2])
    out_t = theirs(src, tgt, tgt_mask=mask, src_key_padding_mask=padding)
    out_o = ours(to_pj(src), to_pj(tgt), tgt_mask=to_pj(mask), src_key_padding_mask=pt.tensor(padding.numpy()))
    assert_close(out_o, out_t, atol=2e-5)


def test_transformer_encoder_warns_like_pytorch():
    messages = []
    for lib in (torch, pt):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.TransformerEncoder(lib.nn.TransformerEncoderLayer(8, 2, 16), 1)
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1]


# ----- reprs and registration -------------------------------------------------------------------------

REPR_CASES = [
    "RNN(3, 4, nonlinearity='relu')", "LSTM(3, 4, 2, batch_first=True, bidirectional=True)",
    "GRU(3, 4, dropout=0.5, num_layers=2)", "LSTM(3, 4, proj_size=2)", "LSTMCell(3, 4)", "GRUCell(3, 4, bias=False)",
    "RNNCell(3, 4, nonlinearity='relu')", "TransformerDecoderLayer(8, 2, 16, batch_first=True, norm_first=True)",
    "Bilinear(2, 3, 4)", "RMSNorm(4)", "RMSNorm([4, 5], eps=1e-3)", "LocalResponseNorm(2)", "Softmax2d()",
    "RReLU(0.1, 0.3, True)", "AlphaDropout(0.2)", "Dropout3d()", "ChannelShuffle(2)", "LPPool2d(2, 3)",
    "LPPool1d(1.5, 2, 1)", "MultiLabelSoftMarginLoss()", "MultiLabelMarginLoss()", "TripletMarginWithDistanceLoss()",
    "ZeroPad2d(2)", "ConstantPad1d(2, 3.5)", "ReflectionPad2d((1, 0, 2, 1))", "ReplicationPad3d(1)",
    "CircularPad1d(2)", "AvgPool1d(2)", "AvgPool1d(3, 1, 1)",
    "ParameterList([nn.Parameter(torch.randn(3, 4)), torch.randn(2)])",
    "ParameterDict({'a': nn.Parameter(torch.randn(3)), 'b': torch.randn(2, 2)})",
]


@pytest.mark.parametrize("source", REPR_CASES)
def test_reprs_and_parameters_match(source):
    built = []
    for lib in (torch, pt):
        torch.manual_seed(0)
        module = eval("nn." + source, {"nn": lib.nn, "torch": lib})  # noqa: S307 - fixed test sources
        built.append((repr(module), [(n, tuple(p.shape)) for n, p in module.named_parameters()],
                      list(module.state_dict()), [n for n, _ in module.named_modules()]))
    assert built[1] == built[0]


@pytest.mark.parametrize("source,shape", [
    ("ZeroPad2d((1, 0, 2, 1))", (2, 3, 4)), ("ConstantPad3d(1, -2.0)", (1, 2, 3, 3, 2)),
    ("ReflectionPad1d(2)", (2, 3, 4)), ("ReplicationPad2d((1, 2, 0, 1))", (1, 2, 3, 4)),
    ("Softmax2d()", (2, 3, 4, 5)), ("RMSNorm([3, 4])", (2, 3, 4)), ("AlphaDropout(0.3)", (2, 3)),
])
def test_stateless_layers_match(source, shape):
    check_module(lambda nn: eval("nn." + source, {"nn": nn}), [randn(*shape)], train=False, grad_fn=False)  # noqa: S307


def test_bilinear_layer_matches():
    check_module(lambda nn: nn.Bilinear(3, 4, 2), [randn(5, 3), randn(5, 4)], grad_fn=False)


def test_parameter_list_registers_and_indexes():
    for lib in (torch, pt):
        params = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(2))])
        params.append(lib.zeros(3))
        params += [lib.zeros(1)]
        assert [tuple(p.shape) for p in params] == [(2,), (3,), (1,)]
        assert [n for n, _ in params.named_parameters()] == ["0", "1", "2"]
        assert isinstance(params[-1], lib.nn.Parameter)


# ----- functional -------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [2.0, 1.0, float("inf")])
def test_pdist_matches(p):
    compare_functional(lambda lib, x: lib.nn.functional.pdist(x, p), randn(5, 4), atol=1e-5)


@pytest.mark.parametrize("reduction", ["none", "sum"])
def test_multilabel_losses_match(reduction):
    x, weight = randn(5, 4), torch.rand(4)
    target = (torch.rand(5, 4) > 0.5).float()
    compare_functional(lambda lib, x, t, w: lib.nn.functional.multilabel_soft_margin_loss(
        x, t, weight=w, reduction=reduction), x, target, weight, grad=False)
    compare_functional(lambda lib, x, t: lib.nn.functional.multilabel_soft_margin_loss(x, t, reduction=reduction),
                       x, target)
    labels = torch.tensor([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0], [0, 1, 2, 3], [2, -1, 0, 1]])
    compare_functional(lambda lib, x, t: lib.nn.functional.multilabel_margin_loss(x, t, reduction=reduction),
                       x, labels)
    compare_functional(lambda lib, a, p, n: lib.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, swap=True, reduction=reduction), x, randn(5, 4), randn(5, 4))


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.nn.functional.local_response_norm(x, 3),
    lambda lib, x: lib.nn.functional.local_response_norm(x[0], 2, alpha=0.1, beta=0.5, k=2.0),
    lambda lib, x: lib.nn.functional.lp_pool2d(x, 2, 2),
    lambda lib, x: lib.nn.functional.lp_pool1d(x[0], 3, 2, stride=1),
    lambda lib, x: lib.nn.functional.channel_shuffle(x, 3),
    lambda lib, x: lib.nn.functional.rms_norm(x, (5, 4)),
    lambda lib, x: lib.nn.functional.max_pool2d_with_indices(x, 2),
    lambda lib, x: lib.nn.functional.linear(x, x[0, 0, 0]),
])
def test_more_functional_forms_match(fn):
    compare_functional(fn, randn(2, 6, 5, 4), atol=1e-5)


def test_bilinear_functional_matches():
    compare_functional(lambda lib, a, b, w, c: lib.nn.functional.bilinear(a, b, w, c),
                       randn(2, 5, 3), randn(2, 5, 4), randn(2, 3, 4), randn(2))


@pytest.mark.parametrize("case", [
    lambda lib: lib.nn.functional.pdist(lib.zeros(2, 3, 4)),
    lambda lib: lib.nn.functional.channel_shuffle(lib.zeros(2, 6, 3), 4),
    lambda lib: lib.nn.functional.local_response_norm(lib.zeros(2, 3), 2),
    lambda lib: lib.nn.functional.rms_norm(lib.zeros(2, 3), [5, 4]),
    lambda lib: lib.nn.functional.pad(lib.zeros(2, 3, 5, 5), (1, 2), mode="reflect"),
    lambda lib: lib.nn.functional.pad(lib.zeros(3, 4), (5, 5), mode="circular"),
    lambda lib: lib.nn.functional.conv2d(lib.zeros(1, 2, 5, 5), lib.zeros(3, 2, 3, 3), padding="same", stride=2),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 5), lib.zeros(4)),
    lambda lib: lib.nn.functional.nll_loss(lib.zeros(4, 5), lib.zeros(4, dtype=lib.int32)),
    lambda lib: lib.nn.functional.cross_entropy(lib.zeros(4, 5), lib.zeros(4, dtype=lib.int64),
                                                weight=lib.ones(5, requires_grad=True)),
    lambda lib: lib.nn.functional.binary_cross_entropy_with_logits(lib.zeros(3), lib.zeros(3),
                                                                   pos_weight=lib.ones(3, requires_grad=True)),
])
def test_functional_errors_match(case):
    same_error(case)


def test_byte_class_targets_are_accepted():
    x, target = randn(4, 5), torch.tensor([0, 3, 1, 4], dtype=torch.uint8)
    compare_functional(lambda lib, x, t: lib.nn.functional.cross_entropy(x, t), x, target)


# ----- optim ------------------------------------------------------------------------------------------

def _train(lib, name: str, kwargs: dict, schedule=None, steps: int = 5):
    """A few steps on two parameter groups; the parameters and the lr history afterwards."""
    w0, b0, x0 = randn(3, 4), randn(4), randn(5, 3)
    w, b = to_pj(w0, True) if lib is pt else w0.requires_grad_(), to_pj(b0, True) if lib is pt else b0.requires_grad_()
    x = to_pj(x0) if lib is pt else x0
    optimizer = getattr(lib.optim, name)([{"params": [w]}, {"params": [b], "lr": 0.05}], **kwargs)
    scheduler = schedule(lib, optimizer) if schedule else None
    history = []
    for step in range(steps):
        optimizer.zero_grad()
        loss = ((x @ w + b).tanh() ** 2).sum()
        loss.backward()
        optimizer.step()
        if isinstance(scheduler, lib.optim.lr_scheduler.ReduceLROnPlateau):
            scheduler.step(1.0 if step < 2 else 2.0)
        elif scheduler is not None:
            scheduler.step()
        history.append([group["lr"] for group in optimizer.param_groups])
    return w, b, history, repr(optimizer)


OPTIMIZER_CASES = [
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.1, "weight_decay": 0.1, "initial_accumulator_value": 0.2}),
    ("Adamax", {"lr": 0.1, "weight_decay": 0.1}), ("NAdam", {"lr": 0.1}),
    ("NAdam", {"lr": 0.1, "weight_decay": 0.1, "decoupled_weight_decay": True}),
    ("RAdam", {"lr": 0.1, "weight_decay": 0.1}), ("RAdam", {"lr": 0.1, "betas": (0.5, 0.6)}),
    ("Adadelta", {"lr": 0.5, "rho": 0.5, "weight_decay": 0.1}),
    ("Rprop", {"lr": 0.1, "etas": (0.3, 1.5), "step_sizes": (0.01, 0.2)}),
]


@pytest.mark.parametrize("name,kwargs", OPTIMIZER_CASES)
def test_added_optimizers_match(name, kwargs):
    global RNG
    RNG = np.random.default_rng(1)
    theirs = _train(torch, name, kwargs)
    RNG = np.random.default_rng(1)
    ours = _train(pt, name, kwargs)
    assert_close(ours[0], theirs[0], 1e-4, 1e-5)
    assert_close(ours[1], theirs[1], 1e-4, 1e-5)
    assert ours[3] == theirs[3]


def _schedule(name, *args, **kwargs):
    return lambda lib, optimizer: getattr(lib.optim.lr_scheduler, name)(optimizer, *args, **kwargs)


SCHEDULES = [
    _schedule("LinearLR", start_factor=0.2, total_iters=4), _schedule("ConstantLR", factor=0.5, total_iters=3),
    _schedule("MultiplicativeLR", lambda epoch: 0.9), _schedule("PolynomialLR", total_iters=4, power=2.0),
    _schedule("CosineAnnealingWarmRestarts", 2, 2, 0.001), _schedule("OneCycleLR", [0.5, 0.2], total_steps=8),
    _schedule("OneCycleLR", 0.5, epochs=2, steps_per_epoch=4, three_phase=True, anneal_strategy="linear"),
    _schedule("CyclicLR", 0.01, 0.1, step_size_up=2, mode="triangular2"),
    _schedule("CyclicLR", 0.01, 0.1, step_size_up=2, step_size_down=1, mode="exp_range", gamma=0.9),
    _schedule("ReduceLROnPlateau", patience=1, factor=0.5, cooldown=1),
    lambda lib, o: lib.optim.lr_scheduler.SequentialLR(o, [lib.optim.lr_scheduler.LinearLR(o, 0.1, total_iters=2),
                                                           lib.optim.lr_scheduler.ExponentialLR(o, 0.8)], [2]),
    lambda lib, o: lib.optim.lr_scheduler.ChainedScheduler([lib.optim.lr_scheduler.ConstantLR(o, 0.1),
                                                            lib.optim.lr_scheduler.ExponentialLR(o, 0.8)]),
]


@pytest.mark.parametrize("index", range(len(SCHEDULES)))
def test_added_schedulers_match(index):
    name, kwargs = ("SGD", {"lr": 0.1, "momentum": 0.9}) if index % 2 else ("Adam", {"lr": 0.1})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _train(torch, name, kwargs, SCHEDULES[index])
        ours = _train(pt, name, kwargs, SCHEDULES[index])
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-9)
    assert ours[3] == theirs[3]


@pytest.mark.parametrize("case", [
    lambda lib: lib.optim.Adagrad([lib.zeros(1, requires_grad=True)], lr_decay=-1),
    lambda lib: lib.optim.NAdam([lib.zeros(1, requires_grad=True)], betas=(1.0, 0.9)),
    lambda lib: lib.optim.Adadelta([lib.zeros(1, requires_grad=True)], rho=2),
    lambda lib: lib.optim.Rprop([lib.zeros(1, requires_grad=True)], etas=(1.5, 1.2)),
    lambda lib: lib.optim.lr_scheduler.LinearLR(lib.optim.SGD([lib.zeros(1, requires_grad=True)]), 0),
    lambda lib: lib.optim.lr_scheduler.OneCycleLR(lib.optim.SGD([lib.zeros(1, requires_grad=True)]), 0.1),
    lambda lib: lib.optim.lr_scheduler.CyclicLR(lib.optim.Adagrad([lib.zeros(1, requires_grad=True)]), 0.1, 1.0),
    lambda lib: lib.optim.lr_scheduler.ReduceLROnPlateau(lib.optim.SGD([lib.zeros(1, requires_grad=True)]),
                                                         mode="avg"),
])
def test_optim_errors_match(case):
    same_error(case)


def test_parameters_vector_round_trip():
    torch.manual_seed(0)
    theirs, ours = torch.nn.Linear(3, 2), pt.nn.Linear(3, 2)
    copy_state(theirs, ours)
    vector_t = torch.nn.utils.parameters_to_vector(theirs.parameters())
    vector_o = pt.nn.utils.parameters_to_vector(ours.parameters())
    assert_close(vector_o, vector_t.detach())
    torch.nn.utils.vector_to_parameters(vector_t * 2, theirs.parameters())
    pt.nn.utils.vector_to_parameters(vector_o * 2, ours.parameters())
    assert_close(ours.weight.detach(), theirs.weight.detach())
