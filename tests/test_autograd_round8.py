"""Round 8 of the differential fuzzing of autograd, printing, views, indexing and creation, each difference found
pinned here against real PyTorch: Tensor.H/mH checks, index_put's argument and check order, a lone True as an
assignment key, custom Functions returning their inputs, and torch.tensor's data errors."""
import numpy as np  # noqa: F401 - the cases name it in the expressions they evaluate
import pytest

from tensor_oracle import same, same_output


@pytest.mark.parametrize("shape", [(3,), (0,), (2, 3), (2, 3, 4)])
def test_H_and_mH_refuse_as_pytorch_does(shape):
    same_output(f"""
        for dtype in (torch.float32, torch.complex64):
            t = torch.zeros({shape}, dtype=dtype, requires_grad=True)
            tr(lambda: (t.H.shape, t.H.grad_fn.name()))
            tr(lambda: (t.mH.shape, t.mH.grad_fn.name()))
    """)


@pytest.mark.parametrize("key", ["[[0, 5], [0, 1, 2]]", "[[0, 5], [[0], [1], [2]]]", "[:, [0, 5]]"])
def test_index_tensors_are_broadcast_before_their_bounds_are_checked(key):
    same(lambda m: m.arange(24).reshape(2, 3, 4)[eval(key)])


@pytest.mark.parametrize("value", ["torch.tensor([1.5])", "torch.arange(100)", "torch.tensor([[1], [2]])",
                                   "torch.zeros(0)", "torch.tensor(2.7)", "7"])
@pytest.mark.parametrize("key", ["[[0, 5]]", "[:, [1, 3]]", "[0, [4]]"])
def test_assigning_out_of_bounds_checks_the_value_first(key, value):
    same_output(f"""
        b = torch.arange(24).reshape(2, 3, 4)
        def assign():
            b{key} = {value}
            return b
        tr(assign)
    """)


@pytest.mark.parametrize("value", ["torch.tensor([1.5])", "torch.arange(100)", "torch.tensor([[1], [2]])",
                                   "torch.tensor(2.7)", "torch.zeros(1, 1, 1, 1, 1)", "torch.tensor([1, 2, 3, 4])"])
@pytest.mark.parametrize("key", ["True", "True, 0", "None", "torch.tensor(True)"])
def test_a_lone_true_key_assigns_through_a_view(key, value):
    same_output(f"""
        b = torch.arange(24).reshape(2, 3, 4)
        def assign():
            b[{key}] = {value}
            return b
        tr(assign)
    """)


@pytest.mark.parametrize("call", [
    "b.index_put_(torch.tensor([0, 1]), torch.tensor(9))",
    "b.index_put(torch.tensor([0, 1]), torch.tensor(9))",
    "b.index_put_({0: 1}, torch.tensor(9))",
    "b.index_put_((torch.tensor([0, 1]),), 9)",
    "b.index_put((torch.tensor([0, 1]),), [9])",
    "torch.index_put(b, torch.tensor([0, 1]), torch.tensor(9))",
    "torch.index_put(b, (torch.tensor([0, 1]),), None)",
    "b.index_put_((torch.tensor([0, 5]),), torch.tensor(1.))",
    "b.index_put_((torch.tensor([0, 5]),), torch.tensor([1, 2, 3]))",
    "b.index_put_((torch.tensor([0, 5]), torch.tensor([0, 1, 2])), torch.tensor(1))",
    "b.index_put_((torch.tensor([0, 1]),), torch.tensor([[1]]))",
    "b.index_put_((torch.tensor([0, 1]),), torch.tensor([[[[1]]]]))",
])
def test_index_put_checks_its_arguments_as_pytorch_does(call):
    same_output(f"""
        b = torch.arange(24).reshape(2, 3, 4)
        tr(lambda: {call})
        print(b)
    """)


def test_calling_an_autograd_function_instance_is_the_legacy_error():
    same_output("""
        class Double(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a * 2

            @staticmethod
            def backward(ctx, grad):
                return grad * 2

        tr(lambda: Double()(torch.ones(2)))
    """)


def test_a_non_differentiable_input_returned_comes_back_detached():
    same_output("""
        class Mark(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.mark_non_differentiable(a)
                return a, b * 2

            @staticmethod
            def backward(ctx, g, h):
                return g, h

        a = torch.ones(2, requires_grad=True)
        c = a.clone()
        r, s = Mark.apply(c, a)
        print(r.requires_grad, r.grad_fn, r is c, c.grad_fn.name(), s.grad_fn is not None)
        s.sum().backward()
        print(a.grad)
    """)


def test_an_input_returned_unrecorded_is_a_new_tensor():
    same_output("""
        class Same(torch.autograd.Function):
            @staticmethod
            def forward(ctx, a):
                return a

            @staticmethod
            def backward(ctx, g):
                return g

        t = torch.ones(2)
        o = Same.apply(t)
        print(o is t, o.requires_grad, o._base is t)
        leaf = torch.ones(2, requires_grad=True)
        with torch.no_grad():
            o = Same.apply(leaf)
        print(o is leaf, o.requires_grad, o.grad_fn)
    """)


@pytest.mark.parametrize("data", ["['a']", "['ab', 'cd']", "['a', 1]", "[1, 'a']", "b'ab'",
                                  "[[1, 2], [3]]", "[[1, 2], 3]", "[1, [2]]", "[2**63]", "2**63",
                                  "[torch.tensor([1, 2]), [3, 4]]"])
@pytest.mark.parametrize("kwargs", ["", ", requires_grad=True", ", dtype=torch.float64"])
def test_tensor_data_errors_come_before_requires_grads(data, kwargs):
    same_output(f"""
        tr(lambda: torch.tensor({data}{kwargs}))
    """)


@pytest.mark.parametrize("array", ["np.array([1, 2])[::-1]", "np.zeros((2, 2))[:, ::-1]", "np.array([1, 2], '>i4')",
                                   "np.array(['a'])", "np.array([1, 2], dtype=object)"])
@pytest.mark.parametrize("kwargs", ["", ", dtype=torch.float32", ", requires_grad=True"])
def test_tensor_refuses_the_numpy_arrays_pytorch_refuses(array, kwargs):
    same_output(f"""
        import numpy as np
        tr(lambda: torch.tensor({array}{kwargs}))
    """)
    same(lambda m: m.from_numpy(eval(array)))


def test_return_types_pickle_and_count_their_fields():
    same_output("""
        import copy
        import pickle
        r = torch.tensor([[3., 1.], [0., 2.]]).sort(1)
        print(pickle.loads(pickle.dumps(r)), copy.deepcopy(r), r.n_fields, r.n_sequence_fields, r.n_unnamed_fields)
        m = torch.tensor([1., 2.]).aminmax()
        print(pickle.loads(pickle.dumps(m)).max, type(pickle.loads(pickle.dumps(m))).__name__)
    """)


@pytest.mark.parametrize("call", [
    "a.view(3, 4.0)", "a.view((3, 4), 1)", "a.view()", "a.view(size=(3, 4))", "a.view(dtype=torch.int32)",
    "a.view([3, 4.5])", "a.view(None)", "a.view('a')", "a.view(3, None)", "a.view(torch.tensor([3, 4]))",
    "a.view(True, 12)", "a.view(torch.tensor(12), 1)", "a.view(np.int64(3), 4)",
    "a.reshape()", "a.reshape(3, 4.0)", "a.reshape(shape=(3, 4))", "a.reshape((3, 4), 1)", "a.reshape(12.0)",
    "a.reshape(12, shape=(12,))", "torch.reshape(a, 12.0)", "torch.reshape(a, shape=[3, 4])",
    "a.expand(2.0, 12)", "a.expand(2, 12.0)", "a.expand((2, 12.0))", "a.expand(size=(2, 12))", "a.expand((2, 12), 3)",
    "a.expand(2, 12, implicit=True)", "a.expand()",
    "a.view(2, 3, 2).permute(dims=(2, 0, 1))", "a.view(2, 3, 2).permute(2.0, 0, 1)", "a.view(2, 3, 2).permute((2, 0), 1)",
    "torch.permute(a.view(2, 3, 2), dims=(2, 0, 1))", "torch.permute(a.view(2, 3, 2), 0.0)", "a.permute()",
    "a.view(1, 12).unsqueeze((0, 1))", "a.unsqueeze(1.0)", "a.unsqueeze(True)", "torch.unsqueeze(a, 1.0)",
    "a.flatten(0.0)", "a.view(3, 4).flatten(0, 1.0)", "a.view(3, 4).transpose(0.0, 1)", "a.view(3, 4).transpose(0, 1.0)",
    "a.select(0, 1.0)", "a.select(0.0, 1)", "a.select(0, True)", "a.unflatten(0, (3, 4.0))", "a.unflatten(0, 3)",
    "torch.unflatten(a, 0, 3)", "a.unflatten(0, torch.Size([3, 4]))",
])
def test_view_methods_parse_their_arguments_as_pytorch_does(call):
    same_output(f"""
        import numpy as np
        a = torch.arange(12.)
        tr(lambda: {call})
    """)


def test_split_with_sizes_names_the_dim_as_given():
    same(lambda m: m.arange(12.).view(2, 6).split([2, 5], -1))


@pytest.mark.parametrize("dtype", ["torch.complex64", "torch.float16", "torch.float64", "torch.int16"])
@pytest.mark.parametrize("make", ["a.view(3, 4).t()", "a.view(3, 4)[:, 1:]", "a.view(3, 4)[:, ::2]", "a[1:]"])
def test_a_dtype_view_checks_in_pytorchs_order(make, dtype):
    same_output(f"""
        a = torch.arange(12.)
        tr(lambda: {make}.view({dtype}).shape)
    """)


@pytest.mark.parametrize("call", [
    "torch.ones_like(t, memory_format=torch.contiguous_format)",
    "torch.empty_like(t, memory_format=torch.contiguous_format).stride()",
    "torch.zeros_like(t, memory_format=torch.preserve_format)",
    "torch.full_like(t, 2, memory_format=torch.contiguous_format)",
    "torch.zeros_like(t)",
    "t.to(torch.float64, memory_format=torch.contiguous_format)",
    "t.to(memory_format=torch.contiguous_format)",
])
def test_memory_format_of_likes_and_to(call):
    same(lambda m: eval(call, {"torch": m, "t": m.arange(12.).view(3, 4).t()}), layout=True)


def test_copy_backwards_names_itself_with_its_namespace():
    same_output("""
        a = torch.tensor([1., 2., 3.], requires_grad=True)
        b = torch.zeros(3)
        b.copy_(a)
        print(b.grad_fn.name(), type(b.grad_fn).__name__, b.grad_fn)
        b.sum().backward()
        print(a.grad)
    """)


@pytest.mark.parametrize("call", [
    "torch.zeros(2, 2, dtype=int)", "torch.zeros(2, dtype=float)", "torch.ones(2, dtype=bool)", "torch.empty(2, dtype=complex).dtype",
    "torch.zeros(2, dtype='float32')", "torch.zeros(2, dtype=np.float32)", "torch.tensor([1.5], dtype=int)",
    "torch.arange(3, dtype=float)", "torch.full((2,), 1, dtype=bool)", "torch.eye(2, dtype=float)",
    "torch.linspace(0, 1, 2, dtype=int)", "torch.logspace(0, 1, 2, dtype=float)",
    "torch.zeros_like(torch.ones(2), dtype=int)", "torch.ones_like(torch.ones(2), dtype='x')",
    "torch.zeros_like([1, 2])", "torch.full_like(np.zeros(2), 1)",
])
def test_factories_take_python_types_as_dtypes_and_refuse_others(call):
    same_output(f"""
        import numpy as np
        tr(lambda: {call})
    """)


@pytest.mark.parametrize("call", [
    "torch.full((2,), torch.tensor(3.))", "torch.full((2,), torch.tensor([3.]))", "torch.full(2, 3)",
    "torch.full((2,), 'a')", "torch.full((2,), None)", "torch.full([2, 2], np.float32(1.5))",
    "torch.arange('a')", "torch.arange(None)", "torch.arange(end=3)", "torch.arange(True)",
    "torch.linspace(0, 1, 2.5)", "torch.linspace(0, 1, None)", "torch.logspace(0, 1, 2.0)",
    "torch.eye(2.5)", "torch.eye(None)", "torch.eye(2, 3.0)",
    "torch.ones((2, 3), (4,))", "torch.zeros((2,), 3)",
])
def test_factories_parse_numbers_and_sizes_as_pytorch_does(call):
    same_output(f"""
        import numpy as np
        tr(lambda: {call})
    """)


@pytest.mark.parametrize("mode", ["1", "0", "np.True_", "torch.tensor(True)", "None", "'yes'", "1.0", "False"])
def test_set_grad_enabled_takes_only_a_bool(mode):
    same_output(f"""
        import numpy as np
        tr(lambda: repr(torch.set_grad_enabled({mode})))
        torch.set_grad_enabled(True)
        print(torch.is_grad_enabled())
    """)


def test_setup_context_sees_keyword_arguments_bound_as_forwards():
    same_output("""
        class Scale(torch.autograd.Function):
            @staticmethod
            def forward(x, k=2.0):
                return x * k

            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.k = inputs[1]

            @staticmethod
            def backward(ctx, g):
                return g * ctx.k, None

        x = torch.tensor([1., 2.], requires_grad=True)
        for call in (lambda: Scale.apply(x, k=3.), lambda: Scale.apply(x), lambda: Scale.apply(x, 4.)):
            y = call()
            print(y)
            y.sum().backward()
            print(x.grad)
    """)


def test_non_tensor_outputs_get_no_gradient_and_a_non_tensor_gradient_is_refused():
    same_output("""
        class Mixed(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.clone(), 5, "s"

            @staticmethod
            def backward(ctx, g, g2, g3):
                print(g2, g3)
                return g

        class Number(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, g):
                return 1.0

        x = torch.tensor([1., 2.], requires_grad=True)
        out = Mixed.apply(x)
        out[0].sum().backward()
        print(out[1:], x.grad)
        tr(lambda: Number.apply(x).sum().backward())
    """)


@pytest.mark.parametrize("call", ["t.new_zeros(2.5)", "t.new_zeros()", "t.new_ones((2, 3))", "t.new_empty(-1)",
                                  "t.new_zeros(2, 3.0)", "t.new_zeros(-1)", "t.new_ones(torch.Size([2]))"])
def test_new_factories_refuse_sizes_in_their_own_name(call):
    same_output(f"""
        t = torch.ones(2)
        tr(lambda: {call}.shape)
    """)
