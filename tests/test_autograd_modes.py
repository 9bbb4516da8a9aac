"""Grad modes against PyTorch: no_grad, enable_grad, set_grad_enabled and inference_mode as context
managers and decorators (bare, called, on generators), nested, and thread-local."""
from __future__ import annotations

import threading

import pytest

from ops_oracle import Tally, torch
import pjtorch as pt


@pytest.fixture(autouse=True)
def _grad_mode_restored():
    """A failing case must not leave grad mode off for the tests after it."""
    yield
    for lib in (torch, pt):
        lib.set_grad_enabled(True)


def same_as_torch(cases: dict) -> None:
    tally = Tally()
    for label, fn in cases.items():
        tally.check(label, fn, lambda lib: (), message=True)
    tally.assert_clean(len(cases), values_at_least=len(cases))


def recorded(lib) -> tuple:
    """Whether an op on a tensor requiring grad is recorded now, and the reported mode."""
    y = lib.ones(2, requires_grad=True) * 2
    return y.requires_grad, y.grad_fn is not None, lib.is_grad_enabled()


def test_context_managers_match_torch():
    def nested(lib):
        states = [recorded(lib)]
        with lib.no_grad():
            states.append(recorded(lib))
            with lib.enable_grad():
                states.append(recorded(lib))
                with lib.set_grad_enabled(False):
                    states.append(recorded(lib))
                states.append(recorded(lib))
            states.append(recorded(lib))
        states.append(recorded(lib))
        return tuple(states)

    def set_grad_enabled_as_a_call(lib):
        lib.set_grad_enabled(False)
        off = recorded(lib)
        lib.set_grad_enabled(True)
        return off, recorded(lib)

    def inference_mode(lib):
        with lib.inference_mode():
            inside = recorded(lib), lib.is_inference_mode_enabled()
            with lib.inference_mode(False):
                disabled = recorded(lib), lib.is_inference_mode_enabled()
        return inside, disabled, recorded(lib), lib.is_inference_mode_enabled()

    def restored_after_an_exception(lib):
        try:
            with lib.no_grad():
                raise ValueError("inside")
        except ValueError:
            pass
        return recorded(lib)

    def backward_of_a_graph_made_before_no_grad(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        with lib.no_grad():
            y.backward()
            z = x * 2
        return x.grad, z.requires_grad

    def leaf_update_under_no_grad(lib):
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        (w * w).sum().backward()
        with lib.no_grad():
            w -= 0.5 * w.grad
        return w, w.is_leaf, w.requires_grad, w.grad_fn is None

    same_as_torch({f.__name__: f for f in (
        nested, set_grad_enabled_as_a_call, inference_mode, restored_after_an_exception,
        backward_of_a_graph_made_before_no_grad, leaf_update_under_no_grad)})


def test_decorators_match_torch():
    def decorated(lib):
        @lib.no_grad()
        def called():
            return recorded(lib)

        @lib.no_grad
        def bare():
            return recorded(lib)

        @lib.enable_grad()
        def enabled():
            return recorded(lib)

        @lib.set_grad_enabled(False)
        def switched_off():
            return recorded(lib)

        @lib.inference_mode()
        def inference():
            return recorded(lib), lib.is_inference_mode_enabled()

        @lib.inference_mode
        def bare_inference():
            return lib.is_inference_mode_enabled()

        with lib.no_grad():
            inner = enabled()
        return called(), bare(), inner, switched_off(), recorded(lib), inference(), bare_inference()

    def decorated_generator(lib):
        @lib.no_grad()
        def generate():
            received = yield recorded(lib)
            yield received, recorded(lib)

        states = generate()
        first = next(states)
        outside = recorded(lib)
        second = states.send("sent")
        return first, outside, second

    def decorator_keeps_name_and_result(lib):
        @lib.no_grad()
        def double(v):
            """Doc."""
            return v * 2

        return double.__name__, double.__doc__, double(lib.ones(1, requires_grad=True)).requires_grad

    same_as_torch({f.__name__: f for f in (decorated, decorated_generator, decorator_keeps_name_and_result)})


def test_generator_under_a_mode_forwards_throw_and_close():
    events = []

    @pt.no_grad()
    def generate():
        try:
            yield 1
        except KeyError:
            events.append(("caught", pt.is_grad_enabled()))
            yield 2
        finally:
            events.append(("closed", pt.is_grad_enabled()))

    states = generate()
    assert next(states) == 1
    assert states.throw(KeyError("k")) == 2
    states.close()
    assert events == [("caught", False), ("closed", False)] and pt.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = {}
    ready, release = threading.Event(), threading.Event()

    def worker():
        seen["worker starts"] = pt.is_grad_enabled()
        with pt.no_grad():
            seen["worker inside"] = pt.is_grad_enabled()
            ready.set()
            release.wait(5)
        seen["worker ends"] = pt.is_grad_enabled()

    with pt.no_grad():
        thread = threading.Thread(target=worker)
        thread.start()
        ready.wait(5)
        seen["main while worker disabled"] = pt.is_grad_enabled()
    seen["main after"] = pt.is_grad_enabled()
    assert seen["main after"]
    seen["main records"] = (pt.ones(1, requires_grad=True) * 2).requires_grad
    release.set()
    thread.join(5)
    assert seen == {"worker starts": True, "worker inside": False, "main while worker disabled": False,
                    "main after": True, "main records": True, "worker ends": True}


def test_new_threads_start_with_grad_enabled():
    results = []
    with pt.no_grad():
        thread = threading.Thread(target=lambda: results.append(recorded(pt)))
        thread.start()
        thread.join(5)
    assert results == [(True, True, True)]


def _inference_case(body):
    """`body(m, a, x)` with `a` made in inference mode and `x` a leaf that requires grad; returns its outcome and
    `a` afterwards (PyTorch writes an in-place result before refusing it)."""
    def case(m):
        with m.inference_mode():
            a = m.ones(2)
            a.add_(1)
        x = m.ones(2, requires_grad=True)
        try:
            result = body(m, a, x)
        except RuntimeError as error:
            result = ("raised", str(error))
        return result, a.tolist()

    return case


INFERENCE_TENSORS = {
    "is-inference": lambda m, a, x: (a.is_inference(), a.detach().is_inference(), a[:1].is_inference(),
                                     (a * 2).is_inference(), a.clone().is_inference(), x.is_inference()),
    "requires-grad": lambda m, a, x: a.requires_grad_(),
    "saved-by-mul": lambda m, a, x: (x * a).sum(),
    "saved-after-exp": lambda m, a, x: x.exp().mul(a),
    "not-saved-by-add": lambda m, a, x: (x + a).sum().item(),
    "not-saved-by-cat": lambda m, a, x: m.cat([a, x]).sum().item(),
    "under-no-grad": lambda m, a, x: _under_no_grad(m, lambda: (x * a).sum().item()),
    "in-place-outside": lambda m, a, x: a.add_(1),
    "setitem-outside": lambda m, a, x: a.__setitem__(0, 5.0),
    "views-of-normal-tensors": lambda m, a, x: _view_made_in_inference_mode(m, x).is_inference(),
}


def _view_made_in_inference_mode(m, x):
    with m.inference_mode():
        return x[:1]


@pytest.mark.parametrize("name", INFERENCE_TENSORS)
def test_inference_tensors_match_torch(name):
    from tensor_oracle import same

    same(_inference_case(INFERENCE_TENSORS[name]))


def _under_no_grad(m, fn):
    with m.no_grad():
        return fn()


def _nan_gradient(m, body):
    """`body(m)` under detect_anomaly: PyTorch's error names the first node whose gradient holds NaN."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with m.autograd.detect_anomaly():
            try:
                return body(m)
            except RuntimeError as error:
                return ("raised", str(error))


ANOMALIES = {
    "div-by-zero": lambda m: (m.tensor([0.0, 1.0], requires_grad=True) / m.tensor([0.0, 1.0], requires_grad=True))
    .sum().backward(),
    "mul-by-nan": lambda m: (m.tensor([1.0], requires_grad=True) * float("nan")).sum().backward(),
    "sqrt-of-negative-grad": lambda m: m.autograd.grad(*_leaf_sqrt_sum(m)),
    "inf-is-no-anomaly": lambda m: _grad_of(m, lambda x: x.sqrt().sum(), [0.0, 1.0]),
    "nan-input-is-no-anomaly": lambda m: _grad_of(m, lambda x: (x * 2).sum(), [float("nan")]),
}


def _leaf_sqrt_sum(m):
    x = m.tensor([-1.0], requires_grad=True)
    return x.sqrt().sum(), x


def _grad_of(m, f, values):
    x = m.tensor(values, requires_grad=True)
    f(x).backward()
    return x.grad


@pytest.mark.parametrize("name", ANOMALIES)
def test_detect_anomaly_matches_torch(name):
    from tensor_oracle import same

    same(lambda m: _nan_gradient(m, ANOMALIES[name]))


def test_set_detect_anomaly_sets_at_once_and_restores_on_exit():
    from tensor_oracle import same

    def states(m):
        seen = [m.is_anomaly_enabled()]
        guard = m.autograd.set_detect_anomaly(True, check_nan=False)
        seen += [m.is_anomaly_enabled(), m.is_anomaly_check_nan_enabled()]
        with guard:
            pass
        seen.append(m.is_anomaly_enabled())
        with m.autograd.set_detect_anomaly(True):
            seen.append(m.is_anomaly_enabled())
        seen.append(m.is_anomaly_enabled())
        return seen

    same(states)
