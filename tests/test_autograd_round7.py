"""Round 7 of the differential fuzzing of autograd programs and printing, each difference found pinned here
against real PyTorch: autograd.backward/grad argument checks, torch.Size arithmetic, Tensor.__format__, hook
handles, and 0-dim edge cases of mT and chunk."""
import pytest

from tensor_oracle import same, same_output


def test_backward_and_grad_check_their_arguments_as_pytorch_does():
    same_output("""
        x = torch.ones(2, requires_grad=True)
        y = torch.ones(2)
        tr(lambda: (x * y).sum().backward(inputs=[y]))
        tr(lambda: (x * y).sum().backward(inputs=[y.view(2)]))
        tr(lambda: torch.autograd.backward([(x * y).sum()], inputs=y))
        tr(lambda: torch.autograd.backward([y.sum()], inputs=y))
        tr(lambda: torch.autograd.backward([y.sum()], inputs=[]))
        tr(lambda: torch.autograd.backward([x.sum(), y.sum()], grad_tensors=[None], inputs=[y]))
        tr(lambda: torch.autograd.backward([x.sum(), x.sum()], grad_tensors=[torch.tensor(1.)]))
        tr(lambda: torch.autograd.backward([x.sum()], grad_tensors=[torch.tensor(1.), torch.tensor(2.)]))
        print(x.grad)
        tr(lambda: torch.autograd.grad([x.sum()], x, grad_outputs=[torch.tensor(1.), torch.tensor(1.)]))
        tr(lambda: torch.autograd.grad([x.sum(), x.sum()], x, grad_outputs=[None]))
        tr(lambda: torch.autograd.grad(x.sum(), []))
        tr(lambda: torch.autograd.grad(x.sum(), ()))
        tr(lambda: torch.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True))
        tr(lambda: torch.autograd.grad(x.sum(), [], allow_unused=False, materialize_grads=True))
        tr(lambda: torch.autograd.grad(x.sum(), [torch.ones(2)], allow_unused=True))
    """)


@pytest.mark.parametrize("expression", [
    "s + (4,)", "(4,) + s", "s + s", "s + [1]", "s + 1", "s * 2", "2 * s", "s * 0", "s * True", "s * 1.5",
    "1.5 * s", "s * 'a'", "s[1:]", "s[::-1]",
])
def test_size_arithmetic_keeps_a_size(expression):
    same_output(f"""
        s = torch.Size([2, 3])
        tr(lambda: (type({expression}).__name__, {expression}))
    """)


@pytest.mark.parametrize("spec", ["", ".2f", ">5", "s"])
def test_tensor_format(spec):
    same_output(f"""
        tr(lambda: format(torch.tensor(2.5), {spec!r}))
        tr(lambda: format(torch.tensor([1.5, 2.]), {spec!r}))
        tr(lambda: format(torch.nn.Parameter(torch.tensor(2.)), {spec!r}))
        tr(lambda: format(torch.tensor(3, dtype=torch.int32), {spec!r}))
    """)


def test_a_tensor_hook_handle_prints_as_pytorchs():
    same_output("""
        x = torch.ones(2, requires_grad=True)
        handle = x.register_hook(lambda g: g * 2)
        print(type(handle).__module__, type(handle).__name__, repr(handle).split(' at ')[0])
    """)


def test_mT_of_a_0_dim_tensor_is_the_tensor_itself_with_a_warning():
    same_output("""
        import warnings
        a = torch.tensor(1.5, requires_grad=True) * 2
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            print(a.mT is a, a.mT._base is None, a.mT.grad_fn.name())
        print(sorted({(w.category.__name__, str(w.message)) for w in caught}))
        tr(lambda: torch.ones(3).mT)
    """)


def test_chunk_of_a_0_dim_tensor():
    same(lambda m: m.tensor(1.).chunk(2, 0))
    same(lambda m: m.tensor(1.).chunk(0, 0))


def test_grad_fn_classes_print_as_pytorchs_and_carry_metadata():
    same_output("""
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        g = (x * 2).sin().grad_fn
        g.metadata['k'] = 1
        print(g.metadata, type(g).__module__, type(g), repr(g).split(' at ')[0])
        acc = g.next_functions[0][0].next_functions[0][0]
        print(acc.metadata, type(acc), repr(acc).split(' at ')[0])
        v = x * 1
        v[0] = 5
        print(type(v.grad_fn), v.grad_fn.name(), v.grad_fn.metadata)

        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        node = Double.apply(x).grad_fn
        print(type(node).__module__, type(node), repr(node).split(' at ')[0], node.metadata)
    """)


def test_an_inference_tensor_has_no_version_counter():
    same_output("""
        with torch.inference_mode():
            t = torch.ones(2)
            tr(lambda: t._version)
        tr(lambda: t._version)
        tr(lambda: torch.ones(2)._version)
    """)


def test_detach__of_a_view_and_the_non_leaf_grad_warning_word_as_pytorchs():
    same_output("""
        import warnings
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        tr(lambda: (x * 2)[0:2].detach_())
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            (x * 2).grad
        print([str(w.message) for w in caught])
    """)


def test_set_grad_enabled_repr():
    same_output("""
        print(repr(torch.set_grad_enabled(False)))
        print(repr(torch.set_grad_enabled(True)))
        with torch.set_grad_enabled(False) as mode:
            print(repr(mode), torch.is_grad_enabled())
        print(torch.is_grad_enabled())
    """)


@pytest.mark.parametrize("args", ["'cuda:-1'", "'cuda', -1", "'cpu', -1", "'cpu', 1.0", "'cuda', True", "'cuda', 1",
                                  "'cpu', 0", "'cpu'"])
def test_device_index_checks(args):
    same_output(f"""
        tr(lambda: repr(torch.device({args})))
    """)


def test_a_device_pickles_and_copies():
    same_output("""
        import copy
        import pickle
        for d in (torch.device('cpu'), torch.device('cuda', 1), torch.device('meta')):
            print(repr(pickle.loads(pickle.dumps(d))), repr(copy.deepcopy(d)), d.__reduce__()[1])
    """)


def test_tensor_hooks_may_not_change_a_gradients_size_or_type():
    same_output("""
        x = torch.ones(3, requires_grad=True)
        def shrink(g):
            return g[:2]
        def widen(g):
            return g.double()
        for hook in (shrink, widen, lambda g: g[:1]):
            y = x * 2
            y.register_hook(hook)
            tr(lambda: y.sum().backward())
        z = torch.ones(3, requires_grad=True)
        z.register_hook(shrink)
        tr(lambda: (z * 2).sum().backward())
        tr(lambda: z.grad)
    """)


@pytest.mark.parametrize("fused_twice", [False, True])
def test_a_leaf_that_stopped_requiring_grad_receives_none(fused_twice):
    same_output(f"""
        for _ in range({2 if fused_twice else 1}):
            a = torch.ones(2, requires_grad=True)
            b = torch.ones(2, requires_grad=True)
            y = a * 2 + b
            a.requires_grad_(False)
            y.sum().backward()
            print(a.grad, b.grad)
    """)


def test_in_place_on_views_of_leaves_names_the_view_first():
    same_output("""
        v = torch.zeros(4)[:2].requires_grad_()
        tr(lambda: v.add_(1))
        w = v[:1]
        tr(lambda: w.add_(1))
        x = torch.zeros(4, requires_grad=True)
        tr(lambda: x[:2].add_(1))
        tr(lambda: x.add_(1))
        y = x * 2
        y[:2].add_(1)
        print(y)
    """)
