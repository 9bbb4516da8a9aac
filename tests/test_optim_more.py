"""ASGD, SparseAdam, Adafactor, swa_utils, gumbel_softmax and adaptive/fractional max pooling against real
PyTorch: trajectories over several steps (float64), state_dict keys and round trips, reprs and error
messages. Each case is a function of the library (`m` is torch or pjtorch) returning nested values
compared through NumPy."""
from __future__ import annotations

import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import pjtorch as pt  # noqa: E402
from nn_oracle import same_error, same_values  # noqa: E402

check = functools.partial(same_values, rtol=1e-10, atol=1e-12)


GEN = np.random.default_rng(0)
W0, B0 = GEN.standard_normal((3, 4)), GEN.standard_normal(3)
X, Y = GEN.standard_normal((6, 4)), GEN.standard_normal((6, 3))
CUBE = GEN.standard_normal((2, 3, 4))


def _problem(m):
    """Three float64 leaves (matrix, vector, 3-d) and a loss whose gradients change every step."""
    weight = m.tensor(W0, requires_grad=True)
    bias = m.tensor(B0, requires_grad=True)
    cube = m.tensor(CUBE, requires_grad=True)
    x, y = m.tensor(X), m.tensor(Y)

    def loss():
        return ((x @ weight.T + bias - y) ** 2).mean() + (cube.sin() * cube).sum() * 0.1
    return [weight, bias, cube], loss


def _trajectory(m, name, kwargs, steps=5, groups=False):
    params, loss = _problem(m)
    given = [{"params": params[:1], "lr": 0.05}, {"params": params[1:]}] if groups else params
    opt = getattr(m.optim, name)(given, **kwargs)
    trace = []
    for _ in range(steps):
        opt.zero_grad()
        loss().backward()
        opt.step()
        trace.append([p.clone() for p in params])
    state = opt.state_dict()
    return [trace, {i: dict(s) for i, s in state["state"].items()},
            [{k: v for k, v in g.items()} for g in state["param_groups"]], repr(opt)]


OPTIMIZER_CASES = [
    ("ASGD", {}), ("ASGD", {"lr": 0.1, "lambd": 0.01, "alpha": 0.5, "t0": 2, "weight_decay": 0.1}),
    ("ASGD", {"lr": 0.05, "t0": 0, "maximize": True}),
    ("Adafactor", {}), ("Adafactor", {"lr": 0.5, "beta2_decay": -0.5, "eps": (1e-20, 1e-2), "d": 1.5,
                                      "weight_decay": 0.1}),
    ("Adafactor", {"lr": 0.02, "maximize": True}),
]


@pytest.mark.parametrize("name, kwargs", OPTIMIZER_CASES)
def test_optimizer_trajectory(name, kwargs):
    check(lambda m: _trajectory(m, name, kwargs))


@pytest.mark.parametrize("name", ["ASGD", "Adafactor"])
def test_param_groups_and_float32(name):
    check(lambda m: _trajectory(m, name, {}, steps=3, groups=True))

    def float32(m):
        weight = m.tensor(W0, dtype=m.float32, requires_grad=True)
        opt = getattr(m.optim, name)([weight], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            (weight ** 3).sum().backward()
            opt.step()
        return [weight, opt.state_dict()["state"][0]]
    check(float32, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["ASGD", "Adafactor"])
def test_state_dict_round_trip(name):
    def run(m):
        params, loss = _problem(m)
        opt = getattr(m.optim, name)(params, lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            loss().backward()
            opt.step()
        twin_params = [p.detach().clone().requires_grad_() for p in params]
        twin = getattr(m.optim, name)(twin_params, lr=0.1)
        twin.load_state_dict(opt.state_dict())
        for optimizer, leaves in ((opt, params), (twin, twin_params)):
            for p, q in zip(leaves, params):
                p.grad = q.detach().cos()
            optimizer.step()
        return [params, twin_params, twin.state_dict()["state"]]
    check(run)


@pytest.mark.parametrize("case", [
    lambda m: m.optim.ASGD([m.zeros(2, requires_grad=True)], lr=-1),
    lambda m: m.optim.ASGD([m.zeros(2, requires_grad=True)], weight_decay=-1),
    lambda m: m.optim.Adafactor([m.zeros(2, requires_grad=True)], lr=-1),
    lambda m: m.optim.Adafactor([m.zeros(2, requires_grad=True)], beta2_decay=0.1),
    lambda m: m.optim.Adafactor([m.zeros(2, requires_grad=True)], eps=(-1, 1e-3)),
    lambda m: m.optim.Adafactor([m.zeros(2, requires_grad=True)], eps=(None, -1)),
    lambda m: m.optim.Adafactor([m.zeros(2, requires_grad=True)], d=0.5),
    lambda m: m.optim.Adafactor([m.zeros(2, requires_grad=True)], weight_decay=-1),
    lambda m: m.optim.SparseAdam([m.zeros(2, requires_grad=True)], lr=0),
    lambda m: m.optim.SparseAdam([m.zeros(2, requires_grad=True)], eps=0),
    lambda m: m.optim.SparseAdam([m.zeros(2, requires_grad=True)], betas=(0.9, 1.0)),
    lambda m: m.optim.SparseAdam([m.zeros(2, requires_grad=True), m.zeros(2, dtype=m.complex64, requires_grad=True)]),
])
def test_construction_errors(case):
    same_error(case)


def test_sparse_adam_rejects_dense_gradients_and_complex_adafactor():
    def sparse_adam(m):
        weight = m.zeros(3, requires_grad=True)
        opt = m.optim.SparseAdam([weight])
        weight.sum().backward()
        opt.step()
    same_error(sparse_adam)

    def complex_adafactor(m):
        weight = m.zeros(3, dtype=m.complex64, requires_grad=True)
        opt = m.optim.Adafactor([weight])
        weight.abs().sum().backward()
        opt.step()
    same_error(complex_adafactor)
    check(lambda m: [repr(m.optim.SparseAdam([m.zeros(2, requires_grad=True)], lr=0.1, maximize=True)),
                     m.optim.SparseAdam([m.zeros(2, requires_grad=True)]).state_dict()])


# ----- swa_utils --------------------------------------------------------------------------------------

def _net(m):
    """BatchNorm1d -> Linear -> Tanh -> Linear in float64 with fixed weights."""
    net = m.nn.Sequential(m.nn.BatchNorm1d(4), m.nn.Linear(4, 3), m.nn.Tanh(), m.nn.Linear(3, 2)).double()
    with m.no_grad():
        for index, param in enumerate(net.parameters()):
            param.copy_(m.linspace(-1, 1, param.numel(), dtype=m.float64).reshape(param.shape) * (index + 1))
    return net


def _averaging_run(m, kind):
    swa = m.optim.swa_utils
    net = _net(m)
    options = {"default": {}, "ema_multi": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.8)},
               "ema": {"avg_fn": swa.get_ema_avg_fn(0.7)}, "swa_multi": {"multi_avg_fn": swa.get_swa_multi_avg_fn()},
               "ema_buffers": {"multi_avg_fn": swa.get_ema_multi_avg_fn(0.5), "use_buffers": True},
               "buffers": {"use_buffers": True}}[kind]
    averaged = swa.AveragedModel(net, **options)
    opt = m.optim.SGD(net.parameters(), lr=0.05)
    x = m.tensor(X)
    for _ in range(4):
        opt.zero_grad()
        net(x).pow(2).mean().backward()
        opt.step()
        averaged.update_parameters(net)
    averaged.eval()
    return [list(averaged.parameters()), list(averaged.buffers()), averaged(x),
            list(averaged.state_dict()), averaged.n_averaged]


@pytest.mark.parametrize("kind", ["default", "ema_multi", "ema", "swa_multi", "ema_buffers", "buffers"])
def test_averaged_model(kind):
    """rtol 1e-6: pjtorch's BatchNorm running-statistics update itself rounds at float32 level."""
    check(lambda m: _averaging_run(m, kind), rtol=1e-6, atol=1e-9)


def test_averaged_model_errors_and_repr():
    same_error(lambda m: m.optim.swa_utils.AveragedModel(m.nn.Linear(2, 2), avg_fn=lambda *a: a[0],
                                                         multi_avg_fn=lambda *a: None))
    same_error(lambda m: m.optim.swa_utils.get_ema_multi_avg_fn(1.5))
    same_error(lambda m: m.optim.swa_utils.get_ema_avg_fn(-0.1))
    check(lambda m: repr(m.optim.swa_utils.AveragedModel(m.nn.Linear(2, 2))))


def test_update_bn():
    def run(m):
        net = _net(m)
        loader = [(m.tensor(X[:3]), 0), m.tensor(X[3:])]
        net.eval()
        m.optim.swa_utils.update_bn(loader, net)
        bn = net[0]
        return [bn.running_mean, bn.running_var, bn.num_batches_tracked, bn.momentum, net.training]
    check(run, rtol=1e-6, atol=1e-9)


@pytest.mark.parametrize("strategy, epochs", [("cos", 3), ("linear", 4), ("cos", 0)])
def test_swalr(strategy, epochs):
    def run(m):
        weight = m.zeros(2, requires_grad=True)
        opt = m.optim.SGD([{"params": [weight]}, {"params": [m.zeros(1, requires_grad=True)], "lr": 0.3}], lr=1.0)
        scheduler = m.optim.swa_utils.SWALR(opt, swa_lr=[0.05, 0.1], anneal_epochs=epochs,
                                            anneal_strategy=strategy)
        lrs = [scheduler.get_last_lr()]
        for _ in range(6):
            opt.step()
            scheduler.step()
            lrs.append(scheduler.get_last_lr())
        state = scheduler.state_dict()
        twin = m.optim.swa_utils.SWALR(opt, swa_lr=0.5)
        twin.load_state_dict(state)
        return [lrs, sorted(state), twin._anneal_strategy, opt.param_groups[0]["swa_lr"]]
    check(run, rtol=1e-12)


@pytest.mark.parametrize("case", [
    lambda m: m.optim.swa_utils.SWALR(m.optim.SGD([m.zeros(1, requires_grad=True)]), 0.1, anneal_strategy="exp"),
    lambda m: m.optim.swa_utils.SWALR(m.optim.SGD([m.zeros(1, requires_grad=True)]), 0.1, anneal_epochs=-1),
    lambda m: m.optim.swa_utils.SWALR(m.optim.SGD([m.zeros(1, requires_grad=True)]), [0.1, 0.2]),
])
def test_swalr_errors(case):
    same_error(case)


# ----- gumbel_softmax and adaptive max pooling --------------------------------------------------------

@pytest.mark.parametrize("hard", [False, True])
def test_gumbel_softmax(hard):
    """Samples differ from PyTorch's by design: check the properties they share."""
    def run(m):
        m.manual_seed(1)
        logits = m.tensor(GEN.standard_normal((4, 5, 3)), requires_grad=True)
        out = m.nn.functional.gumbel_softmax(logits, tau=0.5, hard=hard, dim=1)
        weights = m.arange(60, dtype=m.float64).reshape(4, 5, 3)
        (out * weights).sum().backward()
        grad_sum = logits.grad.sum(1)  # softmax's gradient sums to zero along dim, straight-through keeps that
        is_one_hot = bool(((out == 0) | (out == 1)).all()) and bool((out.sum(1) == 1).all())
        return [list(out.shape), out.sum(1), grad_sum, is_one_hot, out.dtype == m.float64]
    check(run, atol=1e-9)


def test_gumbel_softmax_straight_through_gradient_is_soft_gradient():
    logits = pt.tensor(GEN.standard_normal((3, 6)), requires_grad=True)
    pt.manual_seed(3)
    hard = pt.nn.functional.gumbel_softmax(logits, hard=True)
    (hard * pt.arange(6.0, dtype=pt.float64)).sum().backward()
    hard_grad = logits.grad.clone()
    logits.grad = None
    pt.manual_seed(3)
    soft = pt.nn.functional.gumbel_softmax(logits)
    (soft * pt.arange(6.0, dtype=pt.float64)).sum().backward()
    np.testing.assert_allclose(hard_grad.numpy(), logits.grad.numpy(), atol=1e-12)
    np.testing.assert_array_equal(hard.argmax(-1).numpy(), soft.argmax(-1).numpy())
    with pytest.warns(UserWarning, match="`eps` parameter is deprecated"):
        pt.nn.functional.gumbel_softmax(logits, eps=1e-3)


@pytest.mark.parametrize("shape, size", [((2, 3, 5, 6, 7), (2, 3, 4)), ((3, 4, 4, 5), 2),
                                         ((1, 2, 6, 5, 4), (None, 3, None)), ((2, 7, 3, 5), (7, 1, 5))])
def test_adaptive_max_pool3d(shape, size):
    data = GEN.standard_normal(shape)

    def run(m):
        x = m.tensor(data, requires_grad=True)
        values, indices = m.nn.functional.adaptive_max_pool3d(x, size, return_indices=True)
        (values * values).sum().backward()
        module = m.nn.AdaptiveMaxPool3d(size)
        return [values, indices, x.grad, module(x), repr(module),
                m.nn.functional.adaptive_max_pool3d_with_indices(x, size)[1]]
    check(run)


@pytest.mark.parametrize("case", [
    lambda m: m.nn.functional.adaptive_max_pool3d(m.zeros(2, 3, 4), 2),
    lambda m: m.nn.functional.adaptive_max_pool3d(m.zeros(2, 3, 4, 5, 6, 7), 2),
    lambda m: m.nn.functional.adaptive_max_pool3d(m.zeros(2, 3, 4, 5, dtype=m.long), 2),
])
def test_adaptive_max_pool3d_errors(case):
    same_error(case)
