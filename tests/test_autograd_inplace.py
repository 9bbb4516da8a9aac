"""In-place operations and autograd against PyTorch: the leaf error, history rebased on non-leaves,
in-place through views (CopySlices, regenerated views), and version counters: the "modified by an
inplace operation" error exactly where PyTorch raises it, and nowhere else."""
from __future__ import annotations

import pytest

from ops_oracle import Tally


def same_as_torch(cases: dict, *, expected_values: int) -> None:
    """Every script `fn(lib)` returns the same values, or raises the same error (type and message), as in
    PyTorch; `expected_values` of them return values, the rest raise."""
    tally = Tally()
    for label, fn in cases.items():
        tally.check(label, fn, lambda lib: (), message=True)
    tally.assert_clean(len(cases), values_at_least=expected_values)
    assert tally.raised == len(cases) - expected_values, f"{tally.raised} raised"


def leaf(lib, values=(1.0, 2.0, 3.0)):
    return lib.tensor(list(values), requires_grad=True)


def grads_after(lib, build) -> tuple:
    """`build(x)` makes an output from a fresh leaf x; returns the output, its grad_fn name and x.grad."""
    x = leaf(lib)
    out = build(lib, x)
    name = type(out.grad_fn).__name__
    (out * lib.tensor([1.0, -2.0, 3.0])[: out.shape[-1]]).sum().backward()
    return out, name, x.grad


def test_in_place_on_a_leaf_that_requires_grad_raises():
    def inplace(fn):
        return lambda lib: fn(lib, leaf(lib))

    cases = {
        "add_": inplace(lambda lib, x: x.add_(1)),
        "operator +=": inplace(lambda lib, x: x.__iadd__(1)),
        "zero_": inplace(lambda lib, x: x.zero_()),
        "setitem": inplace(lambda lib, x: x.__setitem__(0, 5.0)),
        "through a view": inplace(lambda lib, x: x[1:].mul_(2)),
        "copy_": inplace(lambda lib, x: x.copy_(lib.zeros(3))),
        "allowed under no_grad": inplace(lambda lib, x: _no_grad(lib, lambda: x.add_(1)) and (x, x.is_leaf, x._version)),
        "allowed on detach()": inplace(lambda lib, x: (x.detach().mul_(2), x, x._version)),
        "allowed when not requiring grad": lambda lib: lib.tensor([1.0, 2.0]).add_(1),
    }
    same_as_torch(cases, expected_values=3)


def _no_grad(lib, fn):
    with lib.no_grad():
        fn()
    return True


def test_in_place_on_a_non_leaf_rebases_its_history():
    def setitem(lib, x):
        y = x * 2
        y[0] = 5.0
        return y

    def chain(lib, x):
        y = x * x
        y.add_(x).sin_()
        return y

    def exp_(lib, x):
        y = x * 1
        y.exp_()
        return y

    def mul_by_other(lib, x):
        y = x + 1
        y.mul_(x)
        return y

    def pow_(lib, x):
        y = x + 0.5
        y.pow_(2)
        return y

    def clamp_(lib, x):
        y = x * 1
        y.clamp_(1.5, 2.5)
        return y

    def masked_fill_(lib, x):
        y = x * 3
        y.masked_fill_(x > 2, 0.0)
        return y

    def copy_(lib, x):
        y = x * 3
        y.copy_(x.exp())
        return y

    def index_put_(lib, x):
        y = x * 3
        y[lib.tensor([0, 2])] = x[:2] * 10
        return y

    def mask_assign(lib, x):
        y = x * 3
        y[x > 1.5] = 0.0
        return y

    def augmented_index(lib, x):
        y = x * 3
        y[1:] += x[:2]
        return y

    def plain_tensor_joins_the_graph(lib, x):
        y = lib.tensor([4.0, 5.0, 6.0])
        y.mul_(x)
        return y

    def plain_tensor_joins_through_a_view(lib, x):
        y = lib.tensor([4.0, 5.0, 6.0])
        y[1:] = x[1:] * 2
        return y

    same_as_torch({f.__name__: (lambda lib, f=f: grads_after(lib, f)) for f in (
        setitem, chain, exp_, mul_by_other, pow_, clamp_, masked_fill_, copy_, index_put_, mask_assign,
        augmented_index, plain_tensor_joins_the_graph, plain_tensor_joins_through_a_view)}, expected_values=13)


def test_in_place_through_views_matches_torch():
    def row_of_a_clone(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.clone()
        row = y[0]
        row.mul_(3)
        names = type(row.grad_fn).__name__, type(y.grad_fn).__name__
        (y * lib.tensor([[1.0, 2.0], [3.0, 4.0]])).sum().backward()
        return (*names, y, row, x.grad)

    def column_times_other(lib):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        y = x.clone()
        y[:, 1].mul_(x[0])
        (y ** 2).sum().backward()
        return y, x.grad

    def view_of_a_view(lib):
        x = leaf(lib, (1.0, 2.0, 3.0, 4.0))
        y = x * 1
        inner = y.view(2, 2)[1]
        inner.exp_()
        (y * y).sum().backward()
        return y, x.grad, type(inner.grad_fn).__name__

    def view_taken_before_the_change(lib):
        x = leaf(lib)
        y = x * 2
        front = y[:2]
        y.mul_(2)
        name = type(front.grad_fn).__name__
        (front * front).sum().backward()
        return name, front, x.grad

    def base_changed_through_one_view_read_through_another(lib):
        x = leaf(lib)
        y = x * 2
        a, b = y[:2], y[1:]
        a.add_(x[:2])
        b.sum().backward()
        return b, x.grad

    def whole_view(lib):
        x = leaf(lib)
        y = x * 2
        same = y.view(3)
        same.mul_(2)
        y.sum().backward()
        return x.grad, y, same

    def transposed_view(lib):
        x = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        y = x * 1
        y.t()[0].mul_(10)
        (y * y).sum().backward()
        return y, x.grad

    same_as_torch({f.__name__: f for f in (
        row_of_a_clone, column_times_other, view_of_a_view, view_taken_before_the_change,
        base_changed_through_one_view_read_through_another, whole_view, transposed_view)}, expected_values=7)


def test_version_counters_match_torch():
    def versions(lib):
        x = lib.tensor([1.0, 2.0, 3.0])
        v = x[1:]
        d = x.detach()
        counts = [x._version]
        x.add_(1)
        counts.append((x._version, v._version, d._version))
        v.mul_(2)
        counts.append((x._version, v._version, d._version))
        d.zero_()
        x[0] = 1.0
        counts.append((x._version, v._version, d._version))
        return tuple(counts), (x * 2)._version

    same_as_torch({"versions": versions}, expected_values=1)


# A value saved for backward, then changed in place: PyTorch raises at backward (with the tensor named by
# what produced it) when the op saved it, and not when the op saved nothing or something else.
def _modified_after(op):
    def script(lib):
        x = leaf(lib)
        y = x * 1
        out = op(lib, y)
        y.add_(1)
        out.sum().backward()
        return x.grad

    return script


SAVED_VALUE_CASES = {
    # ops that save their input
    "mul": _modified_after(lambda lib, y: y * y), "sin": _modified_after(lambda lib, y: y.sin()),
    "log": _modified_after(lambda lib, y: y.log()), "pow": _modified_after(lambda lib, y: y ** 2),
    "div": _modified_after(lambda lib, y: 1 / (y + 1) / y), "abs": _modified_after(lambda lib, y: y.abs()),
    "prod": _modified_after(lambda lib, y: y.prod()), "matmul": _modified_after(lambda lib, y: y @ y),
    "mul by a constant tensor": _modified_after(lambda lib, y: lib.ones(3) * y),
    # ops that save only what the gradient of an input requiring grad needs
    "where": _modified_after(lambda lib, y: lib.where(y > 1, y, y * 0)),
    "gather": _modified_after(lambda lib, y: y.gather(0, lib.tensor([1]))),
    # ops that save their result, which the change does not touch: no error
    "exp": _modified_after(lambda lib, y: y.exp()), "sigmoid": _modified_after(lambda lib, y: y.sigmoid()),
    "tanh": _modified_after(lambda lib, y: y.tanh()), "sqrt": _modified_after(lambda lib, y: y.sqrt()),
    "relu": _modified_after(lambda lib, y: y.relu()),
    # ops that save nothing of y
    "add": _modified_after(lambda lib, y: y + 1), "sum": _modified_after(lambda lib, y: y.sum()),
    "mean": _modified_after(lambda lib, y: y.mean()), "neg": _modified_after(lambda lib, y: -y),
    "mul by constant": _modified_after(lambda lib, y: y * 3), "view": _modified_after(lambda lib, y: y.view(3) * 1),
    "cat": _modified_after(lambda lib, y: lib.cat([y, y])), "clone": _modified_after(lambda lib, y: y.clone()),
    "max dim values": _modified_after(lambda lib, y: y.max(0)[0]),
    "index list": _modified_after(lambda lib, y: y[[0, 2]]),
}


def test_saved_value_modified_in_place_raises_only_where_torch_does():
    same_as_torch(SAVED_VALUE_CASES, expected_values=17)


REDUCTIONS = {
    "max()": lambda y: y.max(), "min()": lambda y: y.min(), "amax": lambda y: y.amax(0), "amin": lambda y: y.amin(0),
    "norm": lambda y: y.norm(), "norm 1": lambda y: y.norm(1), "std": lambda y: y.std(), "var": lambda y: y.var(),
    "logsumexp": lambda y: y.logsumexp(0), "cumprod": lambda y: y.cumprod(0), "cumsum": lambda y: y.cumsum(0),
    "logcumsumexp": lambda y: y.logcumsumexp(0), "prod": lambda y: y.prod(), "prod dim": lambda y: y.prod(0),
    "median()": lambda y: y.median(), "median(0)": lambda y: y.median(0), "aminmax": lambda y: y.aminmax(),
    "max(0)": lambda y: y.max(0), "sort": lambda y: y.sort(0), "topk": lambda y: y.topk(2, 0),
    "kthvalue": lambda y: y.kthvalue(1, 0), "cummax": lambda y: y.cummax(0), "softmax": lambda y: y.softmax(0),
}


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _after_changing(change):
    """A reduction of y = x * 1 (x of shape (3, 2)), `change(y, out)` in place, then backward."""
    def case(reduce):
        def script(lib):
            x = lib.arange(1.0, 7.0).reshape(3, 2).requires_grad_()
            y = x * 1
            out = reduce(y)
            change(y, out)
            _first(out).sum().backward()
            return x.grad

        return script

    return case


def test_reductions_save_what_torch_saves():
    input_changed = _after_changing(lambda y, out: y.add_(1))
    result_changed = _after_changing(lambda y, out: _first(out).add_(1))
    indices_changed = _after_changing(lambda y, out: out[1].add_(1))
    cases = {f"input of {name}": input_changed(reduce) for name, reduce in REDUCTIONS.items()}
    cases.update({f"result of {name}": result_changed(reduce) for name, reduce in REDUCTIONS.items()})
    cases.update({f"indices of {name}": indices_changed(REDUCTIONS[name])
                  for name in ("max(0)", "sort", "topk", "kthvalue", "median(0)", "cummax")})
    same_as_torch(cases, expected_values=15)


def test_second_backward_through_reductions_raises_where_torch_does():
    def twice(reduce):
        def script(lib):
            x = lib.tensor([[1.0, 5.0], [3.0, 2.0]], requires_grad=True)
            out = _first(reduce(x)).sum()
            out.backward()
            out.backward()
            return x.grad

        return script

    same_as_torch({name: twice(reduce) for name, reduce in REDUCTIONS.items()}, expected_values=1)


def test_scalar_divided_by_a_tensor():
    same_as_torch({"2 / y": _modified_after(lambda lib, y: 2 / y)}, expected_values=1)


def test_fill_names_its_node_as_torch():
    same_as_torch({"fill_": lambda lib: grads_after(lib, lambda lib, x: (x * 3).fill_(2.0))}, expected_values=1)


def test_fills_record_as_torch():
    from test_autograd_graph import structure

    def recorded(fill):
        def script(lib):
            x = leaf(lib)
            value = lib.tensor(2.0, requires_grad=True)
            y = fill(lib, x * 3, value)
            node = structure(y.grad_fn, depth=2)
            (y * lib.tensor([1.0, -2.0, 3.0])).sum().backward()
            return node, x.grad, value.grad

        return script

    same_as_torch({name: recorded(fill) for name, fill in {
        "fill_ number": lambda lib, y, v: y.fill_(2.0), "fill_ int": lambda lib, y, v: y.fill_(2),
        "fill_ tensor": lambda lib, y, v: y.fill_(v), "fill_ constant tensor": lambda lib, y, v: y.fill_(lib.tensor(2.0)),
        "zero_": lambda lib, y, v: y.zero_(), "fill_ through a view": lambda lib, y, v: (y[1:].fill_(2.0), y)[1],
        "fill_ tensor through a view": lambda lib, y, v: (y[1:].fill_(v), y)[1],
        "zero_ through a view": lambda lib, y, v: (y[:2].zero_(), y)[1],
    }.items()}, expected_values=8)


def test_modified_saved_values_in_other_shapes_match_torch():
    def result_changed_later(lib):
        y = leaf(lib) * 1
        y.exp_()
        y.add_(1)
        y.sum().backward()

    def result_changed_through_a_view(lib):
        y = leaf(lib) * 1
        y[1:].exp_()
        y.add_(1)
        y.sum().backward()

    def operand_of_an_in_place_op(lib):
        x = leaf(lib)
        y, w = x * 1, x * 1
        y.mul_(w)
        w.add_(1)
        y.sum().backward()

    def operand_is_the_target(lib):
        y = leaf(lib) * 1
        y.mul_(y)
        y.sum().backward()

    def operand_of_an_in_place_op_through_a_view(lib):
        x = leaf(lib)
        y, w = x * 1, x * 1
        y[1:].mul_(w[1:])
        w.add_(1)
        y.sum().backward()

    def in_place_op_keeps_its_own_input(lib):
        x = leaf(lib)
        y = x * 1
        y.sin_()
        y.sum().backward()
        return x.grad

    def leaf_changed_through_detach(lib):
        x = leaf(lib)
        y = x.sin()
        x.detach().zero_()
        y.sum().backward()

    def changed_back_still_counts(lib):
        x = leaf(lib)
        y = x * 1
        z = y.sin()
        y.add_(1).sub_(1)
        z.sum().backward()

    def retained_graph_sees_the_change(lib):
        x = leaf(lib)
        y = x * 1
        z = (y * y).sum()
        z.backward(retain_graph=True)
        y.add_(1)
        z.backward()

    same_as_torch({f.__name__: f for f in (
        result_changed_later, result_changed_through_a_view, operand_of_an_in_place_op, operand_is_the_target,
        operand_of_an_in_place_op_through_a_view, in_place_op_keeps_its_own_input, leaf_changed_through_detach,
        changed_back_still_counts, retained_graph_sees_the_change)}, expected_values=1)
