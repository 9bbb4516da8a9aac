"""torch.autograd.Function against PyTorch: a user-written forward and backward as one graph node,
with ctx.save_for_backward / saved_tensors / needs_input_grad, several outputs, dirty and
non-differentiable outputs, once_differentiable, gradient checks, and the errors PyTorch raises."""
from __future__ import annotations

from ops_oracle import Tally, torch
import pjtorch as pt


def same_as_torch(cases: dict, *, expected_values: int) -> None:
    tally = Tally()
    for label, fn in cases.items():
        tally.check(label, fn, lambda lib: (), message=True)
    tally.assert_clean(len(cases), values_at_least=expected_values)
    assert tally.raised == len(cases) - expected_values, f"{tally.raised} raised"


def functions(lib):
    """The same custom Functions, defined over `lib`."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, scale):
            ctx.save_for_backward(x)
            ctx.scale = scale
            return x ** 3 * scale

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2 * ctx.scale, None

    class Needs(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c):
            ctx.seen = ctx.needs_input_grad
            return a * b

        @staticmethod
        def backward(ctx, grad):
            return grad, grad, None

    class SplitSum(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum(), x * 2

        @staticmethod
        def backward(ctx, grad_sum, grad_double):
            return grad_sum + grad_double * 2

    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            (result,) = ctx.saved_tensors
            return grad * result

    return Cube, Needs, SplitSum, Exp


def test_functions_match_torch():
    def cube(lib):
        cube_fn = functions(lib)[0]
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = cube_fn.apply(x, 2.0)
        node = y.grad_fn
        y.sum().backward()
        return y, x.grad, type(node).__name__, node.name(), len(node.next_functions), repr(y)

    def needs_input_grad(lib):
        needs = functions(lib)[1]
        a = lib.tensor([1.0], requires_grad=True)
        out = needs.apply(a, lib.tensor([2.0]), 3)
        out.backward()
        return out.grad_fn is not None, a.grad

    def no_input_requires_grad(lib):
        out = functions(lib)[0].apply(lib.tensor([1.0, 2.0]), 2.0)
        return out, out.requires_grad, out.grad_fn is None

    def under_no_grad(lib):
        with lib.no_grad():
            out = functions(lib)[0].apply(lib.tensor([1.0, 2.0], requires_grad=True), 2.0)
        return out.requires_grad

    def several_outputs(lib):
        split_sum = functions(lib)[2]
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        total, double = split_sum.apply(x)
        same_node = total.grad_fn is double.grad_fn
        (double * lib.tensor([1.0, 3.0])).sum().backward()
        return same_node, x.grad

    def saved_output(lib):
        exp = functions(lib)[3]
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        exp.apply(x).sum().backward()
        return x.grad

    def inside_a_larger_graph(lib):
        cube_fn = functions(lib)[0]
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        y = cube_fn.apply(x.sin() * 2, 0.5).exp().sum()
        y.backward()
        return x.grad

    def second_derivative(lib):
        cube_fn = functions(lib)[0]
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (first,) = lib.autograd.grad(cube_fn.apply(x, 1.0).sum(), x, create_graph=True)
        (second,) = lib.autograd.grad(first.sum(), x)
        return first, second

    def twice_without_retain_graph(lib):
        y = functions(lib)[0].apply(lib.tensor([1.0], requires_grad=True), 1.0)
        y.backward()
        y.backward()

    def twice_with_retain_graph(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = functions(lib)[0].apply(x, 1.0)
        y.backward(retain_graph=True)
        y.backward()
        return x.grad

    def saved_input_modified(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        y = functions(lib)[0].apply(h, 1.0)
        h.add_(1)
        y.sum().backward()

    def saved_output_modified(lib):
        y = functions(lib)[3].apply(lib.tensor([1.0, 2.0], requires_grad=True))
        y.add_(1)
        y.sum().backward()

    def hook_on_the_output(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = functions(lib)[0].apply(x, 1.0)
        y.register_hook(lambda grad: grad * 10)
        y.sum().backward()
        return x.grad

    same_as_torch({f.__name__: f for f in (
        cube, needs_input_grad, no_input_requires_grad, under_no_grad, several_outputs, saved_output,
        inside_a_larger_graph, second_derivative, twice_without_retain_graph, twice_with_retain_graph,
        saved_input_modified, saved_output_modified, hook_on_the_output)}, expected_values=10)


def test_needs_input_grad_and_next_functions_match_torch():
    def script(lib):
        needs = functions(lib)[1]
        a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0])
        out = needs.apply(a, b, 3)
        return out.grad_fn.next_functions[1], type(out.grad_fn.next_functions[0][0]).__name__

    same_as_torch({"next_functions": script}, expected_values=1)
    for lib in (torch, pt):
        needs = functions(lib)[1]
        a, b = lib.tensor([1.0], requires_grad=True), lib.tensor([2.0])
        ctx_seen = []
        original = needs.forward

        def spy(ctx, *args, original=original, seen=ctx_seen):
            seen.append(ctx.needs_input_grad)
            return original(ctx, *args)

        needs.forward = staticmethod(spy)
        needs.apply(a, b, 3)
        assert ctx_seen == [(True, False, False)], lib.__name__


def _returning(lib, gradients):
    """A Function of (x, k, y) whose backward returns `gradients(grad)`."""

    class Scale(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, k, y):
            return x * k + y

        @staticmethod
        def backward(ctx, grad):
            return gradients(grad)

    x, y = lib.tensor([1.0, 2.0], requires_grad=True), lib.tensor([1.0, 2.0], requires_grad=True)
    Scale.apply(x, 3.0, y).sum().backward()
    return x.grad, y.grad


def test_backward_results_are_checked_as_torch():
    cases = {
        "exact": lambda g: (g * 3, None, g),
        "extra trailing None": lambda g: (g * 3, None, g, None),
        "None for an input": lambda g: (g * 3, None, None),
        "too few": lambda g: (g * 3, None),
        "too many": lambda g: (g * 3, None, g, g),
        "gradient for a number": lambda g: (g * 3, g, g),
        "wrong shape": lambda g: (g[:1], None, g),
        "broadcast shape is summed": lambda g: (g.expand(4, 2), None, g),
        "scalar for a vector": lambda g: (g.sum(), None, g),
        "other dtype is cast": lambda g: (g.double(), None, g),
    }
    same_as_torch({label: lambda lib, fn=fn: _returning(lib, fn) for label, fn in cases.items()}, expected_values=5)


def test_output_kinds_match_torch():
    def identity_is_a_view(lib):
        class Identity(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 5

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = Identity.apply(x)
        y.sum().backward()
        return y is x, y._base is x, type(y.grad_fn).__name__, x.grad

    def dirty_input(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        h = x * 1
        y = Double.apply(h)
        name = type(h.grad_fn).__name__
        (y * y).sum().backward()
        return y is h, name, y, x.grad

    def dirty_leaf(lib):
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(2)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        Double.apply(lib.tensor([1.0, 2.0], requires_grad=True))

    def non_differentiable_output(lib):
        class WithIndex(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                order = lib.tensor([1.0, 0.0])
                ctx.mark_non_differentiable(order)
                return x * 2, order

            @staticmethod
            def backward(ctx, grad, grad_order):
                return grad * 2 + grad_order

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        value, order = WithIndex.apply(x)
        value.sum().backward()
        return value.requires_grad, order.requires_grad, x.grad

    def unmaterialized_grads(lib):
        seen = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(False)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, first, second):
                seen.append(second is None)
                return first * 2

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        Two.apply(x)[0].sum().backward()
        return seen[0], x.grad

    def once_differentiable(lib):
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x ** 2

            @staticmethod
            @lib.autograd.function.once_differentiable
            def backward(ctx, grad):
                (x,) = ctx.saved_tensors
                return 2 * x * grad

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (first,) = lib.autograd.grad(Square.apply(x).sum(), x, create_graph=True)
        y = Square.apply(x)
        (weighted,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        try:
            weighted.sum().backward()
        except RuntimeError as error:
            return first, first.requires_grad, weighted.requires_grad, str(error)

    same_as_torch({f.__name__: f for f in (
        identity_is_a_view, dirty_input, dirty_leaf, non_differentiable_output, unmaterialized_grads,
        once_differentiable)}, expected_values=5)


def test_post_hook_of_a_custom_function_sees_what_its_backward_returned():
    """Unlike a built-in node's, a custom Function node's post-hook gets backward's value even for an input that
    needs no grad (PyTorch does not mask it)."""
    def run(lib):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g * 2, g * 3

        seen = []
        out = Scale.apply(lib.ones(2, requires_grad=True), lib.ones(2))
        out.grad_fn.register_hook(lambda gi, go: seen.append([None if g is None else g.tolist() for g in gi]))
        product = lib.ones(2, requires_grad=True) * lib.ones(2)
        product.grad_fn.register_hook(lambda gi, go: seen.append([None if g is None else g.tolist() for g in gi]))
        out.sum().backward()
        product.sum().backward()
        return seen

    assert run(pt) == run(torch) == [[[2.0, 2.0], [3.0, 3.0]], [[1.0, 1.0], None]]
