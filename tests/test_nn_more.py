"""parametrize / parametrizations, hook-based spectral_norm, lazy modules and gradient-norm helpers against real
PyTorch: values, gradients of the originals, reprs, state_dict keys and error messages. Each case is a function
of the library (`m` is torch or pjtorch) returning nested tensors/values compared through NumPy."""
from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import pjtorch as pt  # noqa: E402
from nn_oracle import same_error, same_values  # noqa: E402

check = functools.partial(same_values, rtol=1e-6, atol=1e-9)


def _linear(m, n_in: int, n_out: int, bias: bool = True):
    """A float64 Linear with deterministic weights (an identity bump keeps matrices well conditioned)."""
    lin = m.nn.Linear(n_in, n_out, bias=bias).double()
    with m.no_grad():
        lin.weight.copy_(m.linspace(-1, 1, n_in * n_out, dtype=m.float64).reshape(n_out, n_in)
                         + m.eye(n_out, n_in, dtype=m.float64))
        if bias:
            lin.bias.fill_(0.5)
    return lin


def _input(m, n_in: int):
    return m.linspace(-1, 1, 2 * n_in, dtype=m.float64).reshape(2, n_in)


def _symmetric(m):
    class Symmetric(m.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).mT

        def right_inverse(self, A):
            return A.triu()
    return Symmetric()


# ----- parametrize ------------------------------------------------------------------------------------

def test_register_parametrization_values_grads_repr_and_state_dict():
    def run(m):
        P = m.nn.utils.parametrize
        lin = _linear(m, 3, 3)
        P.register_parametrization(lin, "weight", _symmetric(m))
        out = [repr(lin), type(lin).__name__, P.is_parametrized(lin), P.is_parametrized(lin, "bias"),
               list(lin.state_dict()), [n for n, _ in lin.named_parameters()], lin.weight]
        lin(_input(m, 3)).pow(2).sum().backward()
        out.append(lin.parametrizations.weight.original.grad)
        lin.weight = 2 * m.eye(3, dtype=m.float64)
        out.append(lin.parametrizations.weight.original)
        with P.cached():
            out.append(lin.weight is lin.weight)
        out.append(lin.weight is lin.weight)
        P.register_parametrization(lin, "weight", _symmetric(m))
        out += [repr(lin), P.type_before_parametrizations(lin).__name__]
        P.remove_parametrizations(lin, "weight")
        out += [repr(lin), type(lin).__name__, lin.weight, list(lin.state_dict())]
        return out
    check(run)


def test_remove_parametrizations_keeps_original():
    def run(m):
        P = m.nn.utils.parametrize
        lin = _linear(m, 3, 3)
        P.register_parametrization(lin, "weight", _symmetric(m))
        P.remove_parametrizations(lin, "weight", leave_parametrized=False)
        return [type(lin).__name__, lin.weight]
    check(run)


def test_parametrize_errors():
    def shrink(m):
        class Shrink(m.nn.Module):
            def forward(self, X):
                return X[:2]
        return Shrink()

    same_error(lambda m: m.nn.utils.parametrize.register_parametrization(_linear(m, 3, 3), "nothing", _symmetric(m)))
    same_error(lambda m: m.nn.utils.parametrize.register_parametrization(_linear(m, 3, 3), "weight", shrink(m)))
    same_error(lambda m: m.nn.utils.parametrize.remove_parametrizations(_linear(m, 3, 3), "weight"))


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrizations_weight_norm(dim):
    def run(m):
        lin = m.nn.utils.parametrizations.weight_norm(_linear(m, 4, 3), dim=dim)
        out = [repr(lin), list(lin.state_dict()), lin.parametrizations.weight.original0, lin.weight]
        lin(_input(m, 4)).pow(2).sum().backward()
        out += [lin.parametrizations.weight.original0.grad, lin.parametrizations.weight.original1.grad]
        m.nn.utils.parametrize.remove_parametrizations(lin, "weight")
        return out + [lin.weight]
    check(run)


ORTHOGONAL_CASES = [((4, 4), None, True), ((4, 4), "cayley", True), ((5, 3), "householder", False),
                    ((3, 5), "householder", False), ((5, 3), None, True), ((3, 5), "cayley", True)]


@pytest.mark.parametrize("shape, orthogonal_map, trivialization", ORTHOGONAL_CASES)
def test_parametrizations_orthogonal(shape, orthogonal_map, trivialization):
    """Square or untrivialized weights are deterministic and compared exactly; the others draw random
    completions, so only orthogonality is checked."""
    def run(m):
        n, k = shape
        lin = m.nn.utils.parametrizations.orthogonal(_linear(m, k, n, bias=False), orthogonal_map=orthogonal_map,
                                                    use_trivialization=trivialization)
        w = lin.weight
        gram = w.mT @ w if n >= k else w @ w.mT
        out = [repr(lin), list(lin.state_dict()), bool(m.allclose(gram, m.eye(min(n, k), dtype=m.float64)))]
        if n == k or not trivialization:
            (w * m.arange(float(n * k), dtype=m.float64).reshape(n, k)).sum().backward()
            out += [w, lin.parametrizations.weight.original.grad]
        return out
    check(run)


def test_orthogonal_errors():
    same_error(lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), orthogonal_map="foo"))
    same_error(lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), "bias"))
    same_error(lambda m: m.nn.utils.parametrizations.orthogonal(m.nn.Linear(3, 3), "nothing"))


def test_parametrizations_spectral_norm():
    """u and v start random, so both libraries are given the same ones."""
    def run(m):
        lin = m.nn.utils.parametrizations.spectral_norm(_linear(m, 4, 3))
        sn = lin.parametrizations.weight[0]
        with m.no_grad():
            sn._u.copy_(m.tensor([1.0, 0.0, 0.0], dtype=m.float64))
            sn._v.copy_(m.full((4,), 0.5, dtype=m.float64))
        out = [repr(lin), list(lin.state_dict())]
        lin(_input(m, 4)).pow(2).sum().backward()
        out += [lin.parametrizations.weight.original.grad, sn._u, sn._v]
        lin.eval()
        vector = m.nn.Linear(1, 3)
        with m.no_grad():
            vector.bias.copy_(m.tensor([3.0, 4.0, 0.0]))
        return out + [lin.weight, m.nn.utils.parametrizations.spectral_norm(vector, "bias").bias]
    check(run)


def test_spectral_norm_errors():
    same_error(lambda m: m.nn.utils.parametrizations.spectral_norm(m.nn.Linear(3, 3), dim=3))
    same_error(lambda m: m.nn.utils.parametrizations.spectral_norm(m.nn.Linear(3, 3), n_power_iterations=0))
    same_error(lambda m: m.nn.utils.spectral_norm(m.nn.Linear(3, 3), n_power_iterations=0))
    same_error(lambda m: m.nn.utils.remove_spectral_norm(m.nn.Linear(3, 3)))


# ----- hook-based spectral_norm -----------------------------------------------------------------------

@pytest.mark.parametrize("transposed", [False, True])
def test_hook_spectral_norm(transposed):
    def run(m):
        if transposed:
            layer = m.nn.ConvTranspose1d(3, 2, 2).double()
            with m.no_grad():
                layer.weight.copy_(m.linspace(-1, 2, 12, dtype=m.float64).reshape(3, 2, 2))
                layer.bias.fill_(0.1)
            u, v, x = m.tensor([0.6, 0.8], dtype=m.float64), m.full((6,), 6 ** -0.5, dtype=m.float64), m.ones(1, 3, 4)
        else:
            layer, u, v, x = _linear(m, 4, 3), m.tensor([1.0, 0.0, 0.0]), m.full((4,), 0.5), _input(m, 4)
        layer = m.nn.utils.spectral_norm(layer)
        with m.no_grad():
            layer.weight_u.copy_(u)
            layer.weight_v.copy_(v)
        out = [list(layer.state_dict()), [n for n, _ in layer.named_parameters()]]
        layer(x.double()).pow(2).sum().backward()
        out += [layer.weight_orig.grad, layer.weight_u, layer.weight_v, layer.weight]
        layer.eval()
        layer(x.double())
        out.append(layer.weight)
        m.nn.utils.remove_spectral_norm(layer)
        return out + [list(layer.state_dict()), layer.weight]
    check(run)


def test_hook_spectral_norm_twice():
    same_error(lambda m: m.nn.utils.spectral_norm(m.nn.utils.spectral_norm(m.nn.Linear(2, 2))))


# ----- lazy modules -----------------------------------------------------------------------------------

LAZY_CASES = [("LazyLinear", (3,), {}, (2, 4)), ("LazyLinear", (3,), {"bias": False}, (4,)),
              ("LazyConv1d", (4, 3), {}, (2, 2, 7)), ("LazyConv2d", (4, 3), {"padding": 1, "groups": 2}, (1, 2, 5, 5)),
              ("LazyConv3d", (2, 1), {}, (3, 4, 4, 4)), ("LazyBatchNorm1d", (), {}, (4, 3)),
              ("LazyBatchNorm2d", (), {"affine": False}, (2, 3, 2, 2))]


@pytest.mark.parametrize("name, args, kwargs, shape", LAZY_CASES)
def test_lazy_modules(name, args, kwargs, shape):
    def run(m):
        layer = getattr(m.nn, name)(*args, **kwargs)
        out = [repr(layer), layer.has_uninitialized_params(), [type(p).__name__ for p in layer.parameters()],
               list(layer.state_dict())]
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            y = layer(m.ones(*shape))
        out += [repr(layer), type(layer).__name__, list(y.shape), [list(p.shape) for p in layer.parameters()],
                [type(p).__name__ for p in layer.parameters()],
                {k: list(v.shape) for k, v in layer.state_dict().items()}]
        if "BatchNorm" in name:
            out += [y, layer.running_mean, layer.running_var]
        return out
    check(run)


def test_lazy_load_state_dict_materializes():
    def run(m):
        layer = m.nn.LazyLinear(2)
        layer.load_state_dict(m.nn.Linear(5, 2).state_dict())
        out = [repr(m.nn.parameter.UninitializedParameter()), list(layer.weight.shape), type(layer).__name__]
        return out + [list(layer(m.ones(1, 5)).shape), type(layer).__name__]
    check(run)


# ----- gradient-norm helpers --------------------------------------------------------------------------

@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_get_total_norm_and_clip_grads_with_norm(norm_type):
    def run(m):
        params = [m.tensor([3.0, -4.0], requires_grad=True), m.tensor([[1.0, 2.0]], requires_grad=True)]
        sum(p.pow(2).sum() for p in params).backward()
        total = m.nn.utils.get_total_norm([p.grad for p in params], norm_type)
        m.nn.utils.clip_grads_with_norm_(params, 1.5, total)
        with pytest.warns(FutureWarning):
            again = m.nn.utils.clip_grad_norm(params, 1.0, norm_type)
        return [total, again] + [p.grad for p in params]
    check(run, rtol=1e-5, atol=1e-6)
    same_error(lambda m: m.nn.utils.get_total_norm([m.tensor([float("inf")])], error_if_nonfinite=True))


# ----- init -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 2, 3)])
def test_init_orthogonal_is_orthogonal(shape):
    """The draws differ from PyTorch's; the result's rows (or columns) are orthonormal, scaled by gain."""
    w = pt.nn.init.orthogonal_(pt.empty(*shape, dtype=pt.float64), gain=2.0).reshape(shape[0], -1)
    gram = w @ w.t() if w.shape[0] <= w.shape[1] else w.t() @ w
    np.testing.assert_allclose(np.asarray(gram.tolist()), 4 * np.eye(min(w.shape)), atol=1e-10)


def test_init_eye_dirac_and_sparse():
    check(lambda m: [m.nn.init.eye_(m.empty(2, 3)), m.nn.init.dirac_(m.empty(4, 2, 3)),
                     m.nn.init.dirac_(m.empty(4, 3, 3, 2), groups=2)])
    w = pt.nn.init.sparse_(pt.empty(10, 4), 0.3)
    assert (np.asarray(w.tolist()) == 0).sum(axis=0).tolist() == [3] * 4
    for case in (lambda m: m.nn.init.orthogonal_(m.empty(3)), lambda m: m.nn.init.eye_(m.empty(3)),
                 lambda m: m.nn.init.dirac_(m.empty(3, 3)), lambda m: m.nn.init.dirac_(m.empty(3, 3, 3), groups=2),
                 lambda m: m.nn.init.sparse_(m.empty(3), 0.5)):
        same_error(case)
