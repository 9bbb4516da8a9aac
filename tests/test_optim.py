"""torch.optim against PyTorch: the same weights and data give the same parameters after every step.

Each optimizer configuration trains the same small MLP in both libraries for several steps from
PyTorch's initial weights; parameters and optimizer state must agree to float rounding. The
learning-rate schedules are compared value for value.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from nn_oracle import assert_close, copy_state, same_error, to_pj, torch
import pjtorch as pt
from pjtorch.ops.registry import TRACE_COUNTS

RNG = np.random.default_rng(2)
INPUTS = RNG.standard_normal((6, 4)).astype(np.float32)
TARGETS = RNG.standard_normal((6, 3)).astype(np.float32)
STEPS = 5


def mlp(lib):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3))


def pair():
    torch.manual_seed(0)
    theirs, ours = mlp(torch), mlp(pt)
    copy_state(theirs, ours)
    return theirs, ours


def train_step(lib, model, optimizer) -> None:
    optimizer.zero_grad()
    x, y = lib.tensor(INPUTS), lib.tensor(TARGETS)
    lib.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()


def assert_same_params(ours, theirs, rtol=1e-5, atol=1e-6, what=""):
    mine = dict(ours.named_parameters())
    for name, param in theirs.named_parameters():
        assert_close(mine[name], param, rtol, atol, f"{what} {name}")


def assert_same_state(ours_opt, theirs_opt):
    expected, got = theirs_opt.state_dict(), ours_opt.state_dict()
    assert got["param_groups"] == expected["param_groups"]
    assert list(got["state"]) == list(expected["state"])
    for index, state in expected["state"].items():
        assert list(got["state"][index]) == list(state)
        for key, value in state.items():
            assert_close(got["state"][index][key], value, rtol=1e-5, atol=1e-6, what=f"state {index} {key}")


CONFIGS = {
    "SGD": lambda lib, p: lib.optim.SGD(p, lr=0.1),
    "SGD momentum dampening wd": lambda lib, p: lib.optim.SGD(p, lr=0.05, momentum=0.9, dampening=0.1,
                                                              weight_decay=0.01),
    "SGD nesterov maximize": lambda lib, p: lib.optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True, maximize=True),
    "Adam": lambda lib, p: lib.optim.Adam(p, lr=0.01),
    "Adam amsgrad wd": lambda lib, p: lib.optim.Adam(p, lr=0.01, betas=(0.8, 0.9), weight_decay=0.1, amsgrad=True),
    "Adam maximize eps": lambda lib, p: lib.optim.Adam(p, lr=0.02, eps=1e-3, maximize=True),
    "AdamW": lambda lib, p: lib.optim.AdamW(p, lr=0.01),
    "AdamW amsgrad": lambda lib, p: lib.optim.AdamW(p, lr=0.01, weight_decay=0.5, amsgrad=True),
    "RMSprop": lambda lib, p: lib.optim.RMSprop(p, lr=0.01),
    "RMSprop centered momentum wd": lambda lib, p: lib.optim.RMSprop(p, lr=0.01, alpha=0.9, momentum=0.5,
                                                                     centered=True, weight_decay=0.1),
    "RMSprop maximize": lambda lib, p: lib.optim.RMSprop(p, lr=0.001, maximize=True, eps=1e-4),
}


@pytest.mark.parametrize("name", list(CONFIGS))
def test_optimizer_steps_match_pytorch(name):
    theirs, ours = pair()
    theirs_opt, ours_opt = CONFIGS[name](torch, theirs.parameters()), CONFIGS[name](pt, ours.parameters())
    for step in range(STEPS):
        train_step(torch, theirs, theirs_opt)
        train_step(pt, ours, ours_opt)
        assert_same_params(ours, theirs, what=f"step {step}")
    assert_same_state(ours_opt, theirs_opt)


def test_config_count():
    assert len(CONFIGS) == 11


def test_param_groups_with_own_hyperparameters():
    theirs, ours = pair()

    def make(lib, model):
        return lib.optim.SGD([{"params": model[0].parameters(), "lr": 0.2, "momentum": 0.5},
                              {"params": model[2].parameters()}], lr=0.05, nesterov=False)

    theirs_opt, ours_opt = make(torch, theirs), make(pt, ours)
    for _ in range(3):
        train_step(torch, theirs, theirs_opt)
        train_step(pt, ours, ours_opt)
    assert_same_params(ours, theirs)
    assert_same_state(ours_opt, theirs_opt)
    assert repr(ours_opt) == repr(theirs_opt)


def test_add_param_group_and_frozen_params_are_skipped():
    theirs, ours = pair()
    for model in (theirs, ours):
        model[2].bias.requires_grad_(False)
    theirs_opt = torch.optim.Adam(theirs[0].parameters(), lr=0.01)
    ours_opt = pt.optim.Adam(ours[0].parameters(), lr=0.01)
    theirs_opt.add_param_group({"params": [theirs[2].weight, theirs[2].bias], "lr": 0.1})
    ours_opt.add_param_group({"params": [ours[2].weight, ours[2].bias], "lr": 0.1})
    for _ in range(2):
        train_step(torch, theirs, theirs_opt)
        train_step(pt, ours, ours_opt)
    assert_same_params(ours, theirs)
    assert_same_state(ours_opt, theirs_opt)


def test_zero_grad_set_to_none_and_zeroing():
    _, ours = pair()
    optimizer = pt.optim.SGD(ours.parameters(), lr=0.1)
    train_step(pt, ours, optimizer)
    optimizer.zero_grad(set_to_none=False)
    assert all(p.grad is not None and p.grad.abs().sum().item() == 0 for p in ours.parameters())
    optimizer.zero_grad()
    assert all(p.grad is None for p in ours.parameters())


def test_state_dict_round_trip_continues_identically():
    """Save after 3 steps, load into a fresh optimizer, 2 more steps: same as 5 uninterrupted steps (and as PyTorch
    continuing from its own saved state)."""
    theirs, ours = pair()
    theirs_opt = torch.optim.Adam(theirs.parameters(), lr=0.01, amsgrad=True)
    ours_opt = pt.optim.Adam(ours.parameters(), lr=0.01, amsgrad=True)
    for _ in range(3):
        train_step(torch, theirs, theirs_opt)
        train_step(pt, ours, ours_opt)
    saved = ours_opt.state_dict()
    resumed = pt.optim.Adam(ours.parameters(), lr=0.5)
    resumed.load_state_dict({"state": {i: {k: v.clone() for k, v in s.items()} for i, s in saved["state"].items()},
                             "param_groups": saved["param_groups"]})
    assert resumed.param_groups[0]["lr"] == 0.01
    for _ in range(2):
        train_step(torch, theirs, theirs_opt)
        train_step(pt, ours, resumed)
    assert_same_params(ours, theirs)
    assert_same_state(resumed, theirs_opt)


def test_loading_pytorch_optimizer_state():
    theirs, ours = pair()
    theirs_opt = torch.optim.SGD(theirs.parameters(), lr=0.1, momentum=0.9)
    train_step(torch, theirs, theirs_opt)
    copy_state(theirs, ours)
    ours_opt = pt.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    state = theirs_opt.state_dict()
    ours_opt.load_state_dict({"state": {i: {k: to_pj(v) for k, v in s.items()} for i, s in state["state"].items()},
                              "param_groups": state["param_groups"]})
    train_step(torch, theirs, theirs_opt)
    train_step(pt, ours, ours_opt)
    assert_same_params(ours, theirs)


def test_step_with_closure_returns_loss():
    _, ours = pair()
    optimizer = pt.optim.SGD(ours.parameters(), lr=0.1)

    def closure():
        optimizer.zero_grad()
        loss = pt.nn.functional.mse_loss(ours(pt.tensor(INPUTS)), pt.tensor(TARGETS))
        loss.backward()
        return loss

    loss = optimizer.step(closure)
    assert loss.grad_fn is not None and loss.item() > 0


def test_one_compiled_update_per_step():
    """The whole group updates in one fused kernel, compiled once and reused every step."""
    _, ours = pair()
    optimizer = pt.optim.AdamW(ours.parameters(), lr=0.003, weight_decay=0.02)
    train_step(pt, ours, optimizer)
    before = TRACE_COUNTS["adam_update"]
    for _ in range(3):
        train_step(pt, ours, optimizer)
    assert TRACE_COUNTS["adam_update"] == before
    version = ours[0].weight._version
    train_step(pt, ours, optimizer)
    assert ours[0].weight._version == version + 1


def test_params_keep_identity_and_update_in_place():
    _, ours = pair()
    weight = ours[0].weight
    data = weight.data
    optimizer = pt.optim.SGD(ours.parameters(), lr=0.1)
    train_step(pt, ours, optimizer)
    assert ours[0].weight is weight and data.tolist() == weight.tolist()


CONSTRUCTION_ERRORS = {
    "lr": lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=-1),
    "momentum": lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], momentum=-1),
    "nesterov": lambda lib: lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1, nesterov=True),
    "betas": lambda lib: lib.optim.Adam([lib.nn.Parameter(lib.zeros(1))], betas=(1.0, 0.9)),
    "eps": lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.zeros(1))], eps=-1),
    "alpha": lambda lib: lib.optim.RMSprop([lib.nn.Parameter(lib.zeros(1))], alpha=-1),
    "empty": lambda lib: lib.optim.Adam([]),
    "tensor": lambda lib: lib.optim.Adam(lib.nn.Parameter(lib.zeros(1))),
    "set": lambda lib: lib.optim.Adam([{"params": {lib.nn.Parameter(lib.zeros(1))}}]),
    "non-leaf": lambda lib: lib.optim.Adam([lib.zeros(1, requires_grad=True) * 2]),
    "duplicate group": lambda lib: lib.optim.Adam([{"params": [p]}, {"params": [p]}]) if (
        p := lib.nn.Parameter(lib.zeros(1))) is not None else None,
}


@pytest.mark.parametrize("name", list(CONSTRUCTION_ERRORS))
def test_construction_errors_match_pytorch(name):
    same_error(CONSTRUCTION_ERRORS[name])


def test_load_state_dict_errors_match_pytorch():
    def mismatched(lib):
        model = lib.nn.Linear(1, 1)
        lib.optim.SGD(model.parameters()).load_state_dict(lib.optim.SGD([model.weight]).state_dict())

    same_error(mismatched)


def test_reprs_match_pytorch():
    for make in CONFIGS.values():
        param = [torch.nn.Parameter(torch.zeros(1))]
        assert repr(make(pt, [pt.nn.Parameter(pt.zeros(1))])) == repr(make(torch, param))


SCHEDULES = {
    "StepLR": lambda lib, opt: lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5),
    "MultiStepLR": lambda lib, opt: lib.optim.lr_scheduler.MultiStepLR(opt, [2, 5, 5], gamma=0.3),
    "ExponentialLR": lambda lib, opt: lib.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9),
    "CosineAnnealingLR": lambda lib, opt: lib.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4, eta_min=0.01),
    "LambdaLR": lambda lib, opt: lib.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1)),
}


def _schedule(lib, make, steps: int = 12, epochs: tuple = ()) -> tuple:
    param = lib.nn.Parameter(lib.zeros(1))
    optimizer = lib.optim.SGD([{"params": [param]}, {"params": [lib.nn.Parameter(lib.zeros(1))], "lr": 0.3}],
                              lr=0.1)
    scheduler = make(lib, optimizer)
    values = [scheduler.get_last_lr()]
    for _ in range(steps):
        optimizer.step()
        scheduler.step()
        values.append(scheduler.get_last_lr())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for epoch in epochs:
            scheduler.step(epoch)
            values.append(scheduler.get_last_lr())
    return values, scheduler.state_dict(), optimizer.param_groups[0]


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_schedules_match_pytorch(name):
    theirs_values, theirs_state, theirs_group = _schedule(torch, SCHEDULES[name], epochs=(3, 7))
    ours_values, ours_state, ours_group = _schedule(pt, SCHEDULES[name], epochs=(3, 7))
    np.testing.assert_allclose(ours_values, theirs_values, rtol=1e-12)
    theirs_state.pop("lr_lambdas", None), ours_state.pop("lr_lambdas", None)
    assert ours_state == theirs_state
    assert set(ours_group) == set(theirs_group)


def test_scheduler_before_optimizer_warns_like_pytorch():
    messages = []
    for lib in (torch, pt):
        optimizer = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        scheduler = lib.optim.lr_scheduler.StepLR(optimizer, 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            scheduler.step()
        messages.append([str(w.message) for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 1


def test_scheduled_lr_changes_never_recompile():
    _, ours = pair()
    optimizer = pt.optim.SGD(ours.parameters(), lr=0.1, momentum=0.9)
    scheduler = pt.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=10)
    train_step(pt, ours, optimizer)
    train_step(pt, ours, optimizer)
    before = TRACE_COUNTS["sgd_update"]
    for _ in range(4):
        scheduler.step()
        train_step(pt, ours, optimizer)
    assert TRACE_COUNTS["sgd_update"] == before
