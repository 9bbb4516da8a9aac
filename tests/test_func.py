"""torch.func against PyTorch: values, shapes and nesting of grad, grad_and_value, vjp, jvp, jacrev,
jacfwd, hessian, vmap, functional_call and stack_module_state; their compositions; whether results
keep a graph; and the error types and messages of common misuse."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from hypothesis import given, settings, strategies as st

from ops_oracle import same_as_torch, torch
import pjtorch as pt

X = np.array([0.5, -1.25, 2.0])
Y = np.array([[1.5, -0.5, 0.75], [0.25, 3.0, -1.0]])


def inputs(lib, requires_grad: bool = False):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=requires_grad)
    y = lib.tensor(Y, dtype=lib.float64, requires_grad=requires_grad)
    return x, y


def scalar(a, b):
    return (a.sin() * (b * b).sum(0)).sum()


def two_outputs(a, b):
    return a * a * b.sum(), (b * a.exp()).sum(0)


def test_grad_and_value():
    F = lambda lib: lib.func  # noqa: E731
    same_as_torch({
        "grad": lambda lib: F(lib).grad(scalar)(*inputs(lib)),
        "argnums 1": lambda lib: F(lib).grad(scalar, argnums=1)(*inputs(lib)),
        "argnums tuple": lambda lib: F(lib).grad(scalar, argnums=(0, 1))(*inputs(lib)),
        "argnums negative": lambda lib: F(lib).grad(scalar, argnums=-1)(*inputs(lib)),
        "has_aux": lambda lib: F(lib).grad(lambda a, b: (scalar(a, b), {"m": a * 2}), has_aux=True)(*inputs(lib)),
        "grad_and_value": lambda lib: F(lib).grad_and_value(scalar, argnums=(1, 0))(*inputs(lib)),
        "grad_and_value aux": lambda lib: F(lib).grad_and_value(lambda a: ((a ** 3).sum(), a), has_aux=True)(
            inputs(lib)[0]),
        "dict argument": lambda lib: F(lib).grad(lambda d: (d["a"] * d["b"]).sum())(
            {"a": inputs(lib)[0], "b": inputs(lib)[0] * 2}),
        "kwargs pass through": lambda lib: F(lib).grad(lambda a, scale=1.0: (a * a).sum() * scale)(
            inputs(lib)[0], scale=3.0),
        "independent": lambda lib: F(lib).grad(lambda a: lib.ones((), dtype=lib.float64))(inputs(lib)[0]),
        "grad of grad": lambda lib: F(lib).grad(lambda a: F(lib).grad(lambda b: (b ** 4).sum())(a).sum())(
            inputs(lib)[0]),
        "third order": lambda lib: F(lib).grad(F(lib).grad(F(lib).grad(lambda a: a.sin() * a)))(
            lib.tensor(0.7, dtype=lib.float64)),
        "input requires grad": lambda lib: F(lib).grad(lambda a: (a ** 3).sum())(inputs(lib, True)[0]),
        "captured requires grad": lambda lib: (lambda w: F(lib).grad(lambda a: (w * a * a).sum())(inputs(lib)[0]))(
            inputs(lib, True)[0]),
        "captured, result independent of it": lambda lib: (lambda w: F(lib).grad(lambda a: (w + a).sum())(
            inputs(lib)[0]))(inputs(lib, True)[0]),
        "inner no_grad": lambda lib: F(lib).grad(lambda a: (a.detach() ** 2).sum() + (a * a).sum())(inputs(lib)[0]),
        # errors
        "non-scalar": lambda lib: F(lib).grad(lambda a: a * 2)(inputs(lib)[0]),
        "one element, not scalar": lambda lib: F(lib).grad_and_value(lambda a: a.sum(0, keepdim=True))(
            inputs(lib)[0]),
        "tuple output": lambda lib: F(lib).grad(lambda a: (a.sum(), a))(inputs(lib)[0]),
        "int output": lambda lib: F(lib).grad(lambda a: 3)(inputs(lib)[0]),
        "aux not a pair": lambda lib: F(lib).grad(lambda a: a.sum(), has_aux=True)(inputs(lib)[0]),
        "argnum out of range": lambda lib: F(lib).grad(scalar, argnums=2)(*inputs(lib)),
        "argnums empty": lambda lib: F(lib).grad(scalar, argnums=())(*inputs(lib)),
        "argnums repeated": lambda lib: F(lib).grad(scalar, argnums=(0, 0))(*inputs(lib)),
        "argnums float": lambda lib: F(lib).grad(scalar, argnums=1.0)(*inputs(lib)),
        "non-tensor argument": lambda lib: F(lib).grad(lambda a: a)(3.0),
        "integer argument": lambda lib: F(lib).grad(lambda a: a.sum())(lib.arange(3)),
    }, expected_values=16)


def test_grad_under_no_grad_and_backward_through():
    for lib in (torch, pt):
        x, _ = inputs(lib, True)
        with lib.no_grad():
            g = lib.func.grad(lambda a: (a ** 3).sum())(x)
        assert not g.requires_grad
    results = []
    for lib in (torch, pt):
        x, _ = inputs(lib, True)
        lib.func.grad(lambda a: (a ** 3).sum())(x).sum().backward()
        results.append(x.grad.numpy())
    np.testing.assert_allclose(results[1], results[0])


def test_vjp_and_jvp():
    F = lambda lib: lib.func  # noqa: E731

    def vjp_call(lib, cotangents=None, fn=two_outputs, args=None, has_aux=False):
        args = inputs(lib) if args is None else args
        result = F(lib).vjp(fn, *args, has_aux=has_aux)
        out, vjp_fn = result[0], result[1]
        ct = cotangents(lib, out) if cotangents else tuple(lib.ones_like(o) for o in out)
        return (out, vjp_fn(ct), vjp_fn(ct)) + result[2:]

    same_as_torch({
        "vjp tuple out": lambda lib: vjp_call(lib),
        "vjp single": lambda lib: vjp_call(lib, lambda lib, o: lib.ones_like(o) * 2,
                                           lambda a: a.sin() * a, inputs(lib)[:1]),
        "vjp aux": lambda lib: vjp_call(lib, lambda lib, o: lib.ones_like(o), lambda a: (a.exp(), a.cos()),
                                        inputs(lib)[:1], has_aux=True),
        "vjp independent input": lambda lib: vjp_call(lib, lambda lib, o: lib.ones_like(o), lambda a, b: a * 2,
                                                      inputs(lib)),
        "vjp wrong shape": lambda lib: vjp_call(lib, lambda lib, o: lib.ones(2, dtype=lib.float64),
                                                lambda a: a * 2, inputs(lib)[:1]),
        "vjp wrong structure": lambda lib: vjp_call(lib, lambda lib, o: (o, o), lambda a: a * 2, inputs(lib)[:1]),
        "vjp non-tensor out": lambda lib: F(lib).vjp(lambda a: 3, inputs(lib)[0]),
        "vjp aux not pair": lambda lib: F(lib).vjp(lambda a: a, inputs(lib)[0], has_aux=True),
        "vjp non-tensor primal": lambda lib: F(lib).vjp(lambda a: a, 3.0),
        "jvp tuple out": lambda lib: F(lib).jvp(two_outputs, inputs(lib), (lib.ones(3, dtype=lib.float64),
                                                                          lib.ones(2, 3, dtype=lib.float64) * 2)),
        "jvp single": lambda lib: F(lib).jvp(lambda a: a.sin(), inputs(lib)[:1], (inputs(lib)[0] * 3,)),
        "jvp aux": lambda lib: F(lib).jvp(lambda a: (a.exp(), a * 2), inputs(lib)[:1], (inputs(lib)[0],),
                                          has_aux=True),
        "jvp primals not tuple": lambda lib: F(lib).jvp(lambda a: a, inputs(lib)[0], inputs(lib)[0]),
        "jvp length mismatch": lambda lib: F(lib).jvp(lambda a: a, inputs(lib)[:1], inputs(lib)[:1] * 2),
        "jvp shape mismatch": lambda lib: F(lib).jvp(lambda a: a, inputs(lib)[:1], (lib.ones(2),)),
        "jvp empty": lambda lib: F(lib).jvp(lambda: inputs(lib)[0], (), ()),
        "jvp non-tensor out": lambda lib: F(lib).jvp(lambda a: 3, inputs(lib)[:1], inputs(lib)[:1]),
        "jvp non-tensor primal": lambda lib: F(lib).jvp(lambda a: a, (3.0,), (3.0,)),
    }, expected_values=7)


def test_jacobians():
    F = lambda lib: lib.func  # noqa: E731
    same_as_torch({
        "jacrev": lambda lib: F(lib).jacrev(lambda a: a.sin() * a.sum())(inputs(lib)[0]),
        "jacfwd": lambda lib: F(lib).jacfwd(lambda a: a.sin() * a.sum())(inputs(lib)[0]),
        "jacrev matrix in and out": lambda lib: F(lib).jacrev(lambda b: b.T @ b)(inputs(lib)[1]),
        "jacrev argnums tuple, tuple out": lambda lib: F(lib).jacrev(two_outputs, argnums=(0, 1))(*inputs(lib)),
        "jacfwd argnums 1, tuple out": lambda lib: F(lib).jacfwd(two_outputs, argnums=1)(*inputs(lib)),
        "jacrev dict out": lambda lib: F(lib).jacrev(lambda a: {"s": a.sum(), "p": a * a})(inputs(lib)[0]),
        "jacrev scalar": lambda lib: F(lib).jacrev(lambda a: (a * a).sum())(inputs(lib)[0]),
        "jacrev aux": lambda lib: F(lib).jacrev(lambda a: (a.exp(), a.sum()), has_aux=True)(inputs(lib)[0]),
        "jacrev of jacrev": lambda lib: F(lib).jacrev(F(lib).jacrev(lambda a: a.sin() * a.prod()))(inputs(lib)[0]),
        "jacfwd of jacrev": lambda lib: F(lib).jacfwd(F(lib).jacrev(lambda a, b: a * b.sum(), argnums=1))(
            *inputs(lib)),
        "hessian": lambda lib: F(lib).hessian(lambda a: (a.sin() * a.cos().sum()).sum())(inputs(lib)[0]),
        "hessian argnums": lambda lib: F(lib).hessian(scalar, argnums=(0, 1))(*inputs(lib)),
        "hessian vector out": lambda lib: F(lib).hessian(lambda a: a ** 3)(inputs(lib)[0]),
        "jacrev input requires grad": lambda lib: F(lib).jacrev(lambda a: a * a)(inputs(lib, True)[0]),
        "jacrev non-tensor out": lambda lib: F(lib).jacrev(lambda a: 3)(inputs(lib)[0]),
        "jacfwd non-tensor out": lambda lib: F(lib).jacfwd(lambda a: 3)(inputs(lib)[0]),
        "jacrev aux not pair": lambda lib: F(lib).jacrev(lambda a: a, has_aux=True)(inputs(lib)[0]),
        "jacfwd argnum out of range": lambda lib: F(lib).jacfwd(lambda a: a, argnums=2)(inputs(lib)[0]),
        "jacrev integer input": lambda lib: F(lib).jacrev(lambda a: a * 2)(lib.arange(3)),
        "jacfwd integer input": lambda lib: F(lib).jacfwd(lambda a: a * 2)(lib.arange(3)),
        "jacrev chunk_size 0": lambda lib: F(lib).jacrev(lambda a: a, chunk_size=0)(inputs(lib)[0]),
        "jacfwd bad randomness": lambda lib: F(lib).jacfwd(lambda a: a, randomness="bad")(inputs(lib)[0]),
    }, expected_values=14)


def test_vmap():
    F = lambda lib: lib.func  # noqa: E731
    same_as_torch({
        "dot": lambda lib: F(lib).vmap(lambda a, b: (a * b).sum())(inputs(lib)[1], inputs(lib)[1] * 2),
        "in_dims None": lambda lib: F(lib).vmap(lambda a, b: a * b, in_dims=(None, 0))(*inputs(lib)),
        "in_dims 1, out_dims 1": lambda lib: F(lib).vmap(lambda b: b.cumsum(0), in_dims=1, out_dims=1)(
            inputs(lib)[1]),
        "negative dims": lambda lib: F(lib).vmap(lambda b: b * 2, in_dims=-1, out_dims=-1)(inputs(lib)[1]),
        "nested tuple in_dims": lambda lib: F(lib).vmap(lambda t: t[0] + t[1], in_dims=((0, 1),))(
            (inputs(lib)[1], inputs(lib)[1].T)),
        "dict in_dims": lambda lib: F(lib).vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
            {"a": inputs(lib)[1], "b": inputs(lib)[0]}),
        "tuple out, out_dims tuple": lambda lib: F(lib).vmap(lambda a: (a * 2, a.sum()), out_dims=(1, 0))(
            inputs(lib)[1]),
        "out_dims None for unbatched": lambda lib: F(lib).vmap(lambda a: (a * 2, lib.ones(2)), out_dims=(0, None))(
            inputs(lib)[1]),
        "unbatched output": lambda lib: F(lib).vmap(lambda a: lib.ones(4))(inputs(lib)[1]),
        "kwargs unbatched": lambda lib: F(lib).vmap(lambda a, s=1: a * s)(inputs(lib)[1], s=inputs(lib)[0]),
        "nested vmap": lambda lib: F(lib).vmap(F(lib).vmap(lambda a, b: a * b, in_dims=(0, None)),
                                               in_dims=(None, 0))(inputs(lib)[0], inputs(lib)[0] + 1),
        "vmap of grad": lambda lib: F(lib).vmap(F(lib).grad(lambda a: (a.sin() * a).sum()))(inputs(lib)[1]),
        "grad of vmap": lambda lib: F(lib).grad(lambda b: F(lib).vmap(lambda r: (r * r).sum())(b).sum())(
            inputs(lib)[1]),
        "vmap of jacrev": lambda lib: F(lib).vmap(F(lib).jacrev(lambda a: a.exp() * a.sum()))(inputs(lib)[1]),
        "requires grad flows": lambda lib: F(lib).vmap(lambda a: a * 2)(inputs(lib, True)[1]),
        "empty batch": lambda lib: F(lib).vmap(lambda a: a * 2)(lib.zeros(0, 3)),
        "chunk_size": lambda lib: F(lib).vmap(lambda a: a.sum(), chunk_size=1)(inputs(lib)[1]),
        "randomness same": lambda lib: F(lib).vmap(lambda a: a * 0, randomness="same")(inputs(lib)[1]),
        # errors
        "sizes differ": lambda lib: F(lib).vmap(lambda a, b: a)(inputs(lib)[1], lib.ones(3, 3)),
        "in_dims is None": lambda lib: F(lib).vmap(lambda a: a, in_dims=None)(inputs(lib)[1]),
        "nothing mapped": lambda lib: F(lib).vmap(lambda a: a, in_dims=(None,))(inputs(lib)[1]),
        "float argument": lambda lib: F(lib).vmap(lambda a, b: a * b)(inputs(lib)[1], 2.0),
        "in_dims structure": lambda lib: F(lib).vmap(lambda a, b: a, in_dims=(0,))(*inputs(lib)),
        "in_dim out of range": lambda lib: F(lib).vmap(lambda a: a, in_dims=2)(inputs(lib)[1]),
        "scalar input": lambda lib: F(lib).vmap(lambda a: a)(lib.tensor(1.0)),
        "no inputs": lambda lib: F(lib).vmap(lambda: 1)(),
        "int output": lambda lib: F(lib).vmap(lambda a: 3)(inputs(lib)[1]),
        "out_dims structure": lambda lib: F(lib).vmap(lambda a: (a, a), out_dims=(0, 1, 0))(inputs(lib)[1]),
        "out_dims None for batched": lambda lib: F(lib).vmap(lambda a: a, out_dims=None)(inputs(lib)[1]),
        "out_dim out of range": lambda lib: F(lib).vmap(lambda a: a, out_dims=3)(inputs(lib)[1]),
        "bad randomness": lambda lib: F(lib).vmap(lambda a: a, randomness="x")(inputs(lib)[1]),
        "random op in error mode": lambda lib: F(lib).vmap(lambda a: a + lib.randn(3))(inputs(lib)[1]),
        "chunk_size 0": lambda lib: F(lib).vmap(lambda a: a, chunk_size=0)(inputs(lib)[1]),
    }, expected_values=18)


@settings(max_examples=8, deadline=None)
@given(batch=st.integers(1, 3), shape=st.lists(st.integers(1, 3), max_size=2), in_dim=st.integers(-1, 2),
       out_dim=st.integers(-1, 2))
def test_vmap_shapes(batch, shape, in_dim, out_dim):
    full = list(shape)
    in_dim = in_dim % (len(full) + 1)
    full.insert(in_dim, batch)
    values = np.arange(int(np.prod(full)), dtype=np.float64).reshape(full) / 7
    out_dim = out_dim % (len(shape) + 1)
    results = [lib.func.vmap(lambda a: a.exp() * a.sum(), in_dims=in_dim, out_dims=out_dim)(lib.tensor(values))
               for lib in (torch, pt)]
    assert tuple(results[1].shape) == tuple(results[0].shape)
    np.testing.assert_allclose(results[1].numpy(), results[0].numpy(), rtol=1e-12)


@settings(max_examples=6, deadline=None)
@given(shape=st.lists(st.integers(1, 3), max_size=2), out_rank=st.integers(0, 2))
def test_jacrev_shapes(shape, out_rank):
    values = (np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape) + 1) / 5

    def f(a, lib):
        flat = a.reshape(-1)
        return [flat.sin().sum(), flat.exp() * flat.sum(), lib.outer(flat, flat.cos())][out_rank]

    results = [(lib.func.jacrev(lambda a: f(a, lib))(lib.tensor(values)),
                lib.func.jacfwd(lambda a: f(a, lib))(lib.tensor(values))) for lib in (torch, pt)]
    for want, got in zip(results[0], results[1]):
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def linear_pair(lib):
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 2).double()
    with lib.no_grad():
        model.weight.copy_(lib.tensor(Y[:, :3] / 2, dtype=lib.float64))
        model.bias.copy_(lib.tensor([0.25, -0.5], dtype=lib.float64))
    params = {k: (v.detach() * 2).requires_grad_() for k, v in model.named_parameters()}
    return model, params


def test_functional_call():
    F = lambda lib: lib.func  # noqa: E731
    x = lambda lib: inputs(lib)[1]  # noqa: E731

    def grads_reach_given(lib):
        model, params = linear_pair(lib)
        F(lib).functional_call(model, params, (x(lib),)).sum().backward()
        return params["weight"].grad, params["bias"].grad, model.weight.grad, model.weight

    def tied(lib, values):
        model = lib.nn.Sequential(lib.nn.Linear(3, 3, bias=False).double(), lib.nn.Linear(3, 3, bias=False).double())
        model[1].weight = model[0].weight
        given = {name: lib.eye(3, dtype=lib.float64) * (i + 2) for i, name in enumerate(values)}
        return F(lib).functional_call(model, given, x(lib)), model[1].weight is model[0].weight

    same_as_torch({
        "dict": lambda lib: F(lib).functional_call(*linear_pair(lib), (x(lib),)),
        "single arg, tuple of dicts": lambda lib: F(lib).functional_call(linear_pair(lib)[0], (
            {"weight": linear_pair(lib)[1]["weight"]}, {"bias": linear_pair(lib)[1]["bias"]}), x(lib)),
        "kwargs": lambda lib: F(lib).functional_call(*linear_pair(lib), (), {"input": x(lib)}),
        "partial dict": lambda lib: F(lib).functional_call(linear_pair(lib)[0], {"bias": lib.zeros(2, dtype=lib.float64)}, x(lib)),
        "originals restored": lambda lib: (lambda m, p: (F(lib).functional_call(m, p, x(lib)), m.weight, m.bias))(
            *linear_pair(lib)),
        "gradients reach the given tensors": grads_reach_given,
        "grad w.r.t. params": lambda lib: (lambda m, params: F(lib).grad(lambda p: F(lib).functional_call(
            m, p, x(lib)).pow(2).sum())(params))(*linear_pair(lib)),
        "tied weights": lambda lib: tied(lib, ["0.weight"]),
        "buffer swap": lambda lib: F(lib).functional_call(lib.nn.BatchNorm1d(3).double().eval(), {
            "running_mean": inputs(lib)[0]}, x(lib)),
        # errors
        "tied weights, two values": lambda lib: tied(lib, ["0.weight", "1.weight"]),
        "repeated keys": lambda lib: F(lib).functional_call(linear_pair(lib)[0], (linear_pair(lib)[1],) * 2, x(lib)),
        "not a dict": lambda lib: F(lib).functional_call(linear_pair(lib)[0], 3, x(lib)),
        "not all dicts": lambda lib: F(lib).functional_call(linear_pair(lib)[0], [{}, 3], x(lib)),
        "strict": lambda lib: F(lib).functional_call(linear_pair(lib)[0], {"weight": x(lib), "foo": x(lib)}, x(lib),
                                                     strict=True),
        "non-tensor value": lambda lib: F(lib).functional_call(linear_pair(lib)[0], {"weight": 3.0}, x(lib)),
        "unknown submodule": lambda lib: F(lib).functional_call(linear_pair(lib)[0], {"foo.x": x(lib)}, x(lib)),
    }, expected_values=9)


def test_ensemble_with_stack_module_state():
    results = []
    for lib in (torch, pt):
        lib.manual_seed(0)
        models = [lib.nn.Linear(3, 2).double() for _ in range(3)]
        with lib.no_grad():
            for i, m in enumerate(models):
                m.weight.copy_(lib.tensor(Y[:, :3] * (i + 1), dtype=lib.float64))
                m.bias.fill_(i / 4)
        params, buffers = lib.func.stack_module_state(models)
        out = lib.func.vmap(lambda p, b, x: lib.func.functional_call(models[0], (p, b), (x,)), in_dims=(0, 0, None))(
            params, buffers, lib.tensor(Y, dtype=lib.float64))
        out.sum().backward()
        results.append((out, params["weight"].grad, params["weight"].is_leaf, sorted(params), models[0].weight))
    for want, got in zip(*results):
        if isinstance(want, torch.Tensor):
            np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)
            assert tuple(got.shape) == tuple(want.shape)
        else:
            assert got == want


def test_stack_module_state():
    def frozen(lib):
        b = lib.nn.Linear(3, 2)
        b.weight.requires_grad_(False)
        return [lib.nn.Linear(3, 2), b]

    same_as_torch({
        "buffers": lambda lib: lib.func.stack_module_state([lib.nn.BatchNorm1d(3) for _ in range(2)]),
        "no models": lambda lib: lib.func.stack_module_state([]),
        "modes differ": lambda lib: lib.func.stack_module_state([lib.nn.Linear(3, 2), lib.nn.Linear(3, 2).eval()]),
        "classes differ": lambda lib: lib.func.stack_module_state([lib.nn.Linear(3, 2), lib.nn.Conv1d(1, 1, 1)]),
        "requires_grad differs": lambda lib: lib.func.stack_module_state(frozen(lib)),
    }, expected_values=1)


def test_import_under_alias():
    """`import torch.func` and `from torch.func import ...` resolve to pjtorch.func under the alias."""
    script = ("import pjtorch._alias as alias; alias.install_as_torch()\n"
              "import torch.func\nfrom torch.func import grad, vmap, functional_call\nimport torch\n"
              "assert torch.func is __import__('pjtorch').func and functional_call is torch.func.functional_call\n"
              "print(vmap(grad(lambda x: (x * x).sum()))(torch.ones(2, 3)).tolist())\n")
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=root,
                            env={**os.environ, "PYTHONPATH": str(root)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[[2.0, 2.0, 2.0], [2.0, 2.0, 2.0]]"
