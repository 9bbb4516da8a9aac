"""nn.Module and nn.Parameter against PyTorch: registration, traversal, state_dict, modes, conversions,
hooks, containers and printing (reprs compared character for character)."""
from __future__ import annotations

import copy
import warnings
from collections import OrderedDict

import pytest

from nn_oracle import LIBS, assert_close, copy_state, same_error, to_pj, torch
import pjtorch as pt

LIB_IDS = ["torch", "pjtorch"]


def nested(lib):
    """A model with every kind of registration: nested containers, buffers, a shared layer, a None slot."""
    nn = lib.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(2, 4, 3, padding=1, bias=False)
            self.bn = nn.BatchNorm2d(4)
            self.register_buffer("scale", lib.ones(1))
            self.register_buffer("cache", lib.zeros(2), persistent=False)
            self.skip = None

        def forward(self, x):
            return self.bn(self.conv(x)).relu() * self.scale

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(Block(), nn.MaxPool2d(2), nn.Flatten())
            self.heads = nn.ModuleDict({"a": nn.Linear(16, 3), "b": nn.Linear(16, 2)})
            self.extra = nn.ModuleList([nn.Linear(3, 3) for _ in range(3)] + [nn.ReLU()])
            self.shared = self.heads["a"]
            self.temperature = nn.Parameter(lib.tensor(1.5))

        def forward(self, x):
            h = self.features(x)
            return self.heads["a"](h) * self.temperature, self.heads["b"](h)

    return Net()


@pytest.fixture(scope="module")
def models():
    torch.manual_seed(0)
    theirs, ours = nested(torch), nested(pt)
    copy_state(theirs, ours)
    return theirs, ours


def test_repr_matches_pytorch(models):
    theirs, ours = models
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("make", [
    lambda nn: nn.Conv1d(2, 3, 3, stride=2, padding=1, dilation=2, groups=1, bias=False, padding_mode="circular"),
    lambda nn: nn.Conv2d(4, 4, (3, 5), padding="same", groups=2),
    lambda nn: nn.Conv2d(4, 4, 3, padding="valid"),
    lambda nn: nn.AvgPool2d(3, 1, 1), lambda nn: nn.AdaptiveAvgPool2d((None, 2)), lambda nn: nn.MaxPool1d(2),
    lambda nn: nn.BatchNorm1d(3, momentum=None, affine=False), lambda nn: nn.LayerNorm([2, 3], eps=1e-3),
    lambda nn: nn.Dropout(0.2, inplace=True), lambda nn: nn.Embedding(5, 2, padding_idx=-1, max_norm=1.0),
    lambda nn: nn.GELU("tanh"), lambda nn: nn.ReLU(inplace=True), lambda nn: nn.SiLU(), lambda nn: nn.Softmax(),
    lambda nn: nn.LogSoftmax(1), lambda nn: nn.LeakyReLU(0.1, True), lambda nn: nn.ELU(), lambda nn: nn.Softplus(),
    lambda nn: nn.ReLU6(), lambda nn: nn.Hardtanh(), lambda nn: nn.Identity(3, x=4), lambda nn: nn.Unflatten(1, (2, 2)),
    lambda nn: nn.MultiheadAttention(4, 2), lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1),
    lambda nn: nn.BCEWithLogitsLoss(pos_weight=None), lambda nn: nn.ModuleList(), lambda nn: nn.Sequential(),
    lambda nn: nn.ModuleDict({"x": nn.Tanh(), "y": nn.Sigmoid()}),
    lambda nn: nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1), nn.Tanh(), nn.Linear(1, 1)]),
])
def test_layer_reprs_match_pytorch(make):
    assert repr(make(pt.nn)) == repr(make(torch.nn))


def test_parameter_repr_and_identity():
    data = torch.tensor([[1.0, 2.0], [3.0, 4.5]])
    theirs, ours = torch.nn.Parameter(data), pt.nn.Parameter(to_pj(data))
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert isinstance(ours, pt.Tensor) and ours.is_leaf and ours.requires_grad and ours.grad_fn is None
    assert type(ours * 2) is pt.Tensor
    frozen = pt.nn.Parameter(pt.zeros(2), requires_grad=False)
    assert repr(frozen) == repr(torch.nn.Parameter(torch.zeros(2), requires_grad=False))


def test_parameter_shares_storage_with_data():
    data = pt.zeros(3)
    param = pt.nn.Parameter(data)
    with pt.no_grad():
        param.add_(1)
    assert data.tolist() == [1.0, 1.0, 1.0]


def test_traversal_orders_and_names(models):
    theirs, ours = models
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert len(list(ours.parameters())) == len(list(theirs.parameters()))
    assert len(list(ours.modules())) == len(list(theirs.modules()))
    assert [n for n, _ in ours.named_parameters(prefix="m", recurse=False)] == ["m.temperature"]
    assert ours.get_submodule("features.0.bn") is ours.features[0].bn


def test_state_dict_keys_values_and_metadata(models):
    theirs, ours = models
    expected, got = theirs.state_dict(), ours.state_dict()
    assert list(got) == list(expected)
    for key in expected:
        assert_close(got[key], expected[key], what=key)
        assert not got[key].requires_grad
    assert dict(got._metadata) == dict(expected._metadata)
    assert ours.state_dict(keep_vars=True)["temperature"] is ours.temperature


def _broken_state(lib, model):
    state = model.state_dict()
    del state["heads.b.bias"], state["features.0.bn.running_mean"]
    state["heads.c.weight"] = lib.zeros(1)
    state["features.0.bogus"] = lib.zeros(1)
    return state


def test_load_state_dict_strict_errors_match_pytorch(models):
    theirs, ours = models
    same_error(lambda lib: (theirs if lib is torch else ours).load_state_dict(
        _broken_state(lib, theirs if lib is torch else ours)))


def test_load_state_dict_size_mismatch_matches_pytorch():
    same_error(lambda lib: lib.nn.Linear(3, 2).load_state_dict({"weight": lib.zeros(4, 3), "bias": lib.zeros(2)}))
    same_error(lambda lib: lib.nn.Linear(3, 2).load_state_dict([1, 2]))


def test_load_state_dict_non_strict_reports_keys(models):
    theirs, ours = models
    expected = theirs.load_state_dict(_broken_state(torch, theirs), strict=False)
    got = ours.load_state_dict(_broken_state(pt, ours), strict=False)
    assert (got.missing_keys, got.unexpected_keys) == (expected.missing_keys, expected.unexpected_keys)
    assert repr(got) == repr(expected)
    matched = ours.load_state_dict(ours.state_dict())
    assert repr(matched) == repr(theirs.load_state_dict(theirs.state_dict())) == "<All keys matched successfully>"


def test_load_state_dict_copies_in_place_and_assign_replaces():
    layer = pt.nn.Linear(2, 2)
    weight = layer.weight
    layer.load_state_dict({"weight": pt.ones(2, 2), "bias": pt.zeros(2)})
    assert layer.weight is weight and layer.weight.tolist() == [[1.0, 1.0], [1.0, 1.0]]
    new = pt.full((2, 2), 3.0)
    layer.load_state_dict({"weight": new, "bias": pt.zeros(2)}, assign=True)
    assert isinstance(layer.weight, pt.nn.Parameter) and layer.weight.requires_grad
    assert layer.weight.tolist() == [[3.0, 3.0], [3.0, 3.0]]


def test_old_batchnorm_checkpoint_without_num_batches_tracked_loads():
    bn = pt.nn.BatchNorm1d(2)
    state = {k: v for k, v in bn.state_dict().items() if k != "num_batches_tracked"}
    assert repr(bn.load_state_dict(state)) == "<All keys matched successfully>"


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_train_eval_propagate(lib):
    model = nested(lib)
    assert model.training and all(m.training for m in model.modules())
    assert model.eval() is model
    assert not any(m.training for m in model.modules())
    model.train()
    assert all(m.training for m in model.modules())
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        model.train("yes")


def test_to_dtype_and_half_keep_parameter_identity():
    model = nested(pt)
    param = model.heads["a"].weight
    model.double()
    assert model.heads["a"].weight is param and param.dtype is pt.float64 and param.requires_grad
    assert model.features[0].bn.num_batches_tracked.dtype is pt.int64
    model.half()
    assert param.dtype is pt.float16 and model.features[0].scale.dtype is pt.float16
    model.to(pt.float32)
    assert param.dtype is pt.float32
    model.to("cpu", dtype=pt.float64)
    assert param.dtype is pt.float64
    same_error(lambda lib: lib.nn.Linear(1, 1).to(lib.int64))


def test_to_converts_gradients_too():
    layer = pt.nn.Linear(2, 1)
    layer(pt.ones(1, 2)).sum().backward()
    layer.double()
    assert layer.weight.grad.dtype is pt.float64


def test_zero_grad_and_requires_grad():
    layer = pt.nn.Linear(2, 1)
    layer(pt.ones(1, 2)).sum().backward()
    layer.zero_grad(set_to_none=False)
    assert layer.weight.grad.tolist() == [[0.0, 0.0]]
    layer.zero_grad()
    assert layer.weight.grad is None
    assert layer.requires_grad_(False) is layer and not layer.weight.requires_grad


def test_apply_visits_children_first():
    model = pt.nn.Sequential(pt.nn.Linear(1, 1), pt.nn.Sequential(pt.nn.ReLU()))
    seen = []
    assert model.apply(lambda m: seen.append(type(m).__name__)) is model
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


def test_forward_hooks_and_pre_hooks():
    layer = pt.nn.Linear(2, 2)
    calls = []
    pre = layer.register_forward_pre_hook(lambda module, args: (args[0] * 0,))
    post = layer.register_forward_hook(lambda module, args, out: calls.append(args[0].sum().item()) or out + 1)
    out = layer(pt.ones(1, 2))
    assert calls == [0.0]
    assert_close(out, torch.from_numpy((layer.bias.detach() + 1).numpy()).reshape(1, 2))
    pre.remove()
    post.remove()
    assert layer(pt.ones(1, 2)).tolist() == pt.nn.functional.linear(pt.ones(1, 2), layer.weight,
                                                                      layer.bias).tolist()
    order = []
    layer.register_forward_hook(lambda *a: order.append("second"))
    layer.register_forward_hook(lambda *a: order.append("first"), prepend=True)
    layer.register_forward_pre_hook(lambda m, args, kwargs: (args, kwargs), with_kwargs=True)
    layer(pt.ones(1, 2))
    assert order == ["first", "second"]


def _hooked_run(lib, input_requires_grad: bool, hook_results=None) -> tuple:
    """A Linear with PyTorch's weights, a full backward pre-hook that doubles grad_output and a full backward hook
    (returning `hook_results(grad_input)` when given); what the hooks saw, the grad_fn, and the gradients."""
    torch.manual_seed(0)
    reference = torch.nn.Linear(3, 2)
    layer = reference if lib is torch else lib.nn.Linear(3, 2)
    if lib is pt:
        copy_state(reference, layer)
    seen = []

    def pre_hook(module, grad_output):
        seen.append(("pre", module is layer, [g.tolist() for g in grad_output]))
        return (grad_output[0] * 2,)

    def hook(module, grad_input, grad_output):
        seen.append(("full", [None if g is None else g.tolist() for g in grad_input], [g.tolist() for g in grad_output]))
        return None if hook_results is None else hook_results(grad_input)

    layer.register_full_backward_hook(hook)
    layer.register_full_backward_pre_hook(pre_hook)
    x = lib.arange(6.0).reshape(2, 3).requires_grad_(input_requires_grad)
    out = layer(x)
    grad_fns = [type(out.grad_fn).__name__] + [type(n).__name__ for n, _ in out.grad_fn.next_functions]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out.sum().backward()
    return (seen, grad_fns, None if x.grad is None else x.grad.tolist(), layer.weight.grad.tolist(),
            [str(w.message) for w in caught])


@pytest.mark.parametrize("input_requires_grad", [True, False])
def test_full_backward_hooks_match_pytorch(input_requires_grad):
    """The pre-hook sees grad_output and its result replaces it (the weights' gradient doubles); the hook sees
    grad_input (None when the input needs no grad, with PyTorch's warning) and grad_output."""
    theirs, ours = (_hooked_run(lib, input_requires_grad) for lib in LIBS)
    assert ours == theirs
    assert ours[1] == ["BackwardHookFunctionBackward", "AddmmBackward0"]
    assert len(ours[4]) == (0 if input_requires_grad else 1)


def test_full_backward_hook_result_replaces_grad_input_as_in_pytorch():
    def scaled(grad_input):
        return (grad_input[0] * 10,)

    theirs, ours = (_hooked_run(lib, True, scaled) for lib in LIBS)
    assert ours == theirs
    same_error(lambda lib: _hooked_run(lib, True, lambda grad_input: (grad_input[0], grad_input[0])))
    same_error(lambda lib: _hooked_run(lib, False, lambda grad_input: (lib.ones(2, 3),)))


def test_full_backward_hook_positions_and_removal_match_pytorch():
    """grad_input has one entry per positional argument (None for non-tensors); outputs that are not tensors pass
    through; removing the handles restores the plain graph."""
    def run(lib):
        class Mixed(lib.nn.Module):
            def forward(self, a, k, b):
                return a * k, 3

        module, seen = Mixed(), []
        handle = module.register_full_backward_hook(
            lambda m, grad_input, grad_output: seen.append(
                [None if g is None else g.tolist() for g in grad_input + grad_output]))
        a = lib.ones(2, requires_grad=True)
        out = module(a, 2.0, "b")
        out[0].sum().backward()
        handle.remove()
        plain = type(module(a, 2.0, "b")[0].grad_fn).__name__
        return seen, out[1], plain, dict(module._backward_hooks)

    assert run(pt) == run(torch) == ([[[2.0, 2.0], None, None, [1.0, 1.0], None]], 3, "MulBackward0", {})


def test_full_backward_hook_sees_zeros_for_tensor_inputs_without_grad():
    def run(lib):
        class Scale(lib.nn.Module):
            def forward(self, a, b):
                return a * b

        module, seen = Scale(), []
        module.register_full_backward_hook(lambda m, gi, go: seen.append([None if g is None else g.tolist()
                                                                          for g in gi]))
        module(lib.ones(2, requires_grad=True), lib.ones(2)).sum().backward()
        return seen

    assert run(pt) == run(torch)


def test_buffer_registers_by_assignment_as_in_pytorch():
    def run(lib):
        module = lib.nn.Module()
        made = lib.nn.Buffer(lib.ones(2), persistent=False)
        module.kept = lib.nn.Buffer(lib.zeros(1))
        module.hidden = made
        module.register_buffer("explicit", lib.nn.Buffer(lib.ones(1), persistent=False))
        module.kept = lib.nn.Buffer(lib.zeros(3), persistent=False)
        module.plain = lib.ones(1)
        return (type(made).__name__, made.persistent, isinstance(made, lib.nn.Buffer),
                isinstance(lib.ones(1), lib.nn.Buffer), lib.nn.Buffer().tolist(),
                lib.nn.Buffer(lib.ones(1, requires_grad=True)).requires_grad, module.hidden is made,
                list(module.state_dict()), [name for name, _ in module.named_buffers()],
                sorted(module._non_persistent_buffers_set))

    assert run(pt) == run(torch)
    assert run(pt)[7] == ["explicit"]


def test_buffer_assignment_errors_match_pytorch():
    def over_parameter(lib):
        layer = lib.nn.Linear(1, 1)
        layer.weight = lib.nn.Buffer(lib.ones(1, 1))

    def over_attribute(lib):
        module = lib.nn.Module()
        module.taken = 3
        module.taken = lib.nn.Buffer(lib.ones(1))

    same_error(over_parameter)
    same_error(over_attribute)


@pytest.mark.parametrize("lib", LIBS, ids=LIB_IDS)
def test_setattr_registration_rules(lib):
    module = lib.nn.Module()
    module.w = lib.nn.Parameter(lib.zeros(1))
    module.sub = lib.nn.Linear(1, 1)
    module.register_buffer("b", lib.zeros(1))
    module.plain = lib.zeros(1)
    assert [n for n, _ in module.named_parameters()] == ["w", "sub.weight", "sub.bias"]
    assert [n for n, _ in module.named_buffers()] == ["b"]
    module.b = lib.ones(1)
    assert module._buffers["b"] is module.b
    module.w = None
    assert module.w is None and "w" not in dict(module.named_parameters())
    del module.sub
    assert not hasattr(module, "sub")


def test_setattr_errors_match_pytorch():
    def assign_tensor_to_parameter(lib):
        m = lib.nn.Linear(1, 1)
        m.weight = lib.zeros(1, 1)

    def missing_attribute(lib):
        return lib.nn.Linear(1, 1).nope

    def assign_module_slot(lib):
        m = lib.nn.Sequential(lib.nn.ReLU())
        setattr(m, "0", 3)

    def buffer_name_taken(lib):
        m = lib.nn.Linear(1, 1)
        m.register_buffer("weight", lib.zeros(1))

    for case in (assign_tensor_to_parameter, missing_attribute, assign_module_slot, buffer_name_taken):
        same_error(case)


def test_call_runs_forward_and_missing_forward_errors():
    same_error(lambda lib: lib.nn.Module()(1))
    same_error(lambda lib: lib.nn.Module(3))
    same_error(lambda lib: lib.nn.Module(size=3))


def test_sequential_indexing_and_mutation():
    layers = [pt.nn.Linear(1, 1), pt.nn.ReLU(), pt.nn.Tanh()]
    seq = pt.nn.Sequential(*layers)
    assert seq[0] is layers[0] and seq[-1] is layers[2] and len(seq) == 3
    assert isinstance(seq[1:], pt.nn.Sequential) and list(seq[1:]) == layers[1:]
    seq.append(pt.nn.Sigmoid())
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Linear", "Tanh", "Sigmoid"]
    assert list(seq._modules) == ["0", "1", "2"]
    named = pt.nn.Sequential(OrderedDict([("fc", pt.nn.Linear(1, 1)), ("act", pt.nn.ReLU())]))
    assert [n for n, _ in named.named_parameters()] == ["fc.weight", "fc.bias"]
    with pytest.raises(IndexError):
        seq[5]


def test_module_list_and_dict():
    items = pt.nn.ModuleList([pt.nn.Linear(1, 1)])
    items += [pt.nn.ReLU()]
    items.insert(0, pt.nn.Tanh())
    assert [type(m).__name__ for m in items] == ["Tanh", "Linear", "ReLU"]
    assert [n for n, _ in items.named_parameters()] == ["1.weight", "1.bias"]
    table = pt.nn.ModuleDict([("x", pt.nn.ReLU())])
    table["y"] = pt.nn.Linear(1, 1)
    assert list(table.keys()) == ["x", "y"] and "y" in table and len(table) == 2
    assert table.pop("x").__class__.__name__ == "ReLU" and list(table) == ["y"]


def test_deepcopy_gives_independent_parameters():
    model = pt.nn.Sequential(pt.nn.Linear(2, 2), pt.nn.BatchNorm1d(2))
    clone = copy.deepcopy(model)
    assert clone[0].weight is not model[0].weight and isinstance(clone[0].weight, pt.nn.Parameter)
    with pt.no_grad():
        clone[0].weight.fill_(0)
    assert model[0].weight.abs().sum().item() > 0
    assert repr(clone) == repr(model)


def test_nested_model_forward_and_backward_match_pytorch(models):
    theirs, ours = models
    x = torch.randn(2, 2, 4, 4)
    theirs.train()
    ours.train()
    expected, got = theirs(x), ours(to_pj(x))
    for mine, reference in zip(got, expected):
        assert_close(mine, reference, rtol=1e-4, atol=1e-5)
    (expected[0].sum() + expected[1].pow(2).sum()).backward()
    (got[0].sum() + got[1].pow(2).sum()).backward()
    mine = dict(ours.named_parameters())
    for name, param in theirs.named_parameters():
        if param.grad is None:
            assert mine[name].grad is None, name
        else:
            assert_close(mine[name].grad, param.grad, rtol=1e-4, atol=1e-5, what=name)


def test_the_full_backward_hook_warning_points_at_the_users_backward_line():
    """With no input requiring grad, PyTorch warns from the backward call; the warning names the user's file."""
    for lib in LIBS:
        layer = lib.nn.Linear(2, 2)
        layer.register_full_backward_hook(lambda module, grad_input, grad_output: None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            layer(lib.ones(1, 2)).sum().backward()
        found = [w for w in caught if "Full backward hook is firing" in str(w.message)]
        assert found and found[0].filename == __file__, (lib.__name__, [w.filename for w in found])
