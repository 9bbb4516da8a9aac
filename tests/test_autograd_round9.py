"""Round 9 of the differential fuzzing of autograd, each difference found pinned here against real PyTorch:
assignment at repeated indices (every write gets its gradient, forward mode keeps the landing write's tangent),
index_put_'s leaf and overlap checks and their order, custom Functions' `mark_dirty` (unreturned or non-input dirty
tensors, version bumps, a dirty view rebasing its base), and a small random-program fuzzer kept as a test."""
import random

import numpy as np
import pytest

from tensor_oracle import reference, same_output

ASSIGNMENTS = [
    "y[[0, 0]] = v[:2]",
    "y[[0, 0, 1]] = v[:3]",
    "y[[0, 0, 1]] = v[0]",
    "y[torch.tensor([[0, 0], [2, 0]])] = v[:4].view(2, 2)",
    "y[torch.tensor([True, False, True, False])] = v[:2]",
    "y[torch.tensor([True, False, True, False])] = v[0]",
    "y.index_put_((torch.tensor([1, 1, 1]),), v[:3])",
    "y.index_put_((torch.tensor([1, 1, 1]),), v[:3], accumulate=True)",
    "y = y.index_put((torch.tensor([3, 0, 3]),), v[1:4])",
    "y = torch.index_put(y, (torch.tensor([2, 2]),), v[0])",
]


@pytest.mark.parametrize("assign", ASSIGNMENTS)
def test_every_write_at_a_repeated_index_gets_its_gradient(assign):
    same_output(f"""
        x = torch.tensor([1., 2., 3., 4.], requires_grad=True)
        v = torch.tensor([10., 20., 30., 40.], requires_grad=True)
        y = x * 1
        {assign}
        print(y)
        y.backward(torch.tensor([1., 2., 3., 4.]))
        print(x.grad, v.grad)
    """)


@pytest.mark.parametrize("key", ["[:, [2, 2]]", "[[1, 1], [0, 0]]", "[[1, 0, 1]]", "[..., [0, 0, 2]]"])
def test_repeated_indices_in_two_dims_give_each_value_its_gradient(key):
    same_output(f"""
        x = torch.arange(6., requires_grad=True)
        y = x.view(2, 3) * 1
        v = torch.tensor(7., requires_grad=True)
        w = v.expand(y{key}.shape) * torch.arange(1., 1 + y{key}.numel()).view(y{key}.shape)
        y{key} = w
        (y * torch.arange(6.).view(2, 3)).sum().backward()
        print(y, x.grad, v.grad)
    """)


def test_second_derivative_through_assignment_at_repeated_indices():
    same_output("""
        x = torch.tensor([1., 2., 3.], requires_grad=True)
        y = torch.zeros(3)
        y[[0, 0, 2]] = x ** 2
        g, = torch.autograd.grad((y * torch.tensor([1., 2., 3.])).sum(), x, create_graph=True)
        print(g, torch.autograd.grad(g.sum(), x))
    """)


def test_functional_transforms_of_assignment_at_repeated_indices():
    same_output("""
        def f(x, v):
            x = x.clone()
            x[[0, 0]] = v
            return x
        x, v = torch.zeros(3), torch.tensor([1., 2.])
        print(torch.func.vjp(f, x, v)[1](torch.tensor([10., 20., 30.])))
        print(torch.func.jacrev(f, argnums=1)(x, v))
        print(torch.autograd.functional.vjp(f, (x, v), torch.tensor([10., 20., 30.])))
        print(torch.autograd.functional.jvp(f, (x, v), (torch.ones(3), torch.tensor([5., 7.]))))
        print(torch.autograd.functional.jacobian(f, (x, v)))
    """)


def test_forward_mode_transforms_put_the_landing_writes_tangent():
    _warm_up_forward_mode()
    same_output("""
        def f(x, v):
            x = x * 1
            x[[0, 0]] = v
            x[:, [2, 2]] = v[:, :2] * 3
            return x
        x, v = torch.zeros(2, 3), torch.tensor([[1., 2., 3.], [4., 5., 6.]])
        print(torch.func.jvp(f, (x, v), (torch.ones(2, 3), torch.arange(6.).view(2, 3))))
        print(torch.func.jacfwd(f, argnums=1)(x, v))
        print(torch.func.jacrev(f, argnums=1)(x, v).sum((0, 1)))
    """)


def _warm_up_forward_mode() -> None:
    """PyTorch's first use of forward mode imports modules that warn: not what is compared."""
    torch = reference()
    torch.func.jvp(lambda x: x * 2, (torch.zeros(1),), (torch.ones(1),))


def test_forward_mode_puts_the_landing_writes_tangent():
    _warm_up_forward_mode()
    same_output("""
        fwAD = torch.autograd.forward_ad
        with fwAD.dual_level():
            x = fwAD.make_dual(torch.zeros(3), torch.tensor([1., 1., 1.])).clone()
            v = fwAD.make_dual(torch.tensor([1., 2.]), torch.tensor([5., 7.]))
            x[[0, 0]] = v
            print(fwAD.unpack_dual(x))
            y = fwAD.make_dual(torch.zeros(2, 2), torch.ones(2, 2)).index_put((torch.tensor([1, 1]),), v * 2)
            print(fwAD.unpack_dual(y))
    """)


@pytest.mark.parametrize("key", ["[0, 0]", "[0, 5]", "[[0, 0], [1]]", "torch.tensor([True])", "[True, False, True]",
                                 "torch.tensor([True, False, False])"])
@pytest.mark.parametrize("value", ["torch.ones(5)", "1.0", "torch.ones(2)"])
def test_assigning_into_a_leaf_is_refused_before_the_index_and_value_are_checked(key, value):
    same_output(f"""
        leaf = torch.ones(3, requires_grad=True)
        def put():
            leaf[{key}] = {value}
        tr(put)
        tr(lambda: leaf.view(3)[{key}].shape)
        tr(lambda: leaf.index_put_((torch.tensor([0, 0]),), {value} if {value!r} != '1.0' else torch.tensor(1.)))
        with torch.no_grad():
            tr(put)
    """)


@pytest.mark.parametrize("value", ["x[:3]", "x[3:]", "x[2:5]", "x[::2]", "x", "x[:0]", "x.data[:2]", "x.clone()[:3]",
                                   "x[:1]", "x[4:].view(2, 1)"])
@pytest.mark.parametrize("key", ["[0, 0, 1]", "torch.tensor([True, False, True, False, False, False])",
                                 "torch.tensor([[0, 1], [1, 0]])"])
def test_a_value_sharing_the_destinations_memory_is_refused(key, value):
    same_output(f"""
        x = torch.arange(6.)
        def put():
            x[{key}] = {value}
            return x
        tr(put)
        x = torch.arange(6.)
        tr(lambda: x.index_put_(({key},), {value}, accumulate=True))
        x = torch.arange(6.)
        tr(lambda: x.index_put(({key},), {value}))
    """)


def test_the_sequence_as_tuple_warning_says_where_pytorch_raised_it():
    same_output("""
        x = torch.zeros(3, 3)
        x[[0, [1]]] = 1.
        print(x)
    """)


DIRTY = """
    class Dirty(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            x.mul_(y)
            ctx.mark_dirty(x)
            ctx.save_for_backward(x, y)
            return {returned}

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return g * y, (g * x / y).sum()
"""


@pytest.mark.parametrize("returned", ["x * 1", "x.view(-1)", "x[0]", "y * 1"])
@pytest.mark.parametrize("grad", ["True", "False"])
def test_a_dirty_tensor_not_returned_is_refused_after_its_version_is_bumped(returned, grad):
    same_output(DIRTY.format(returned=returned) + f"""
    c = torch.ones(2, 2, requires_grad={grad}).clone()
    y = torch.tensor(3., requires_grad=True)
    tr(lambda: Dirty.apply(c, y))
    print(c._version, c.grad_fn is not None)
    with torch.no_grad():
        tr(lambda: Dirty.apply(c, y))
    print(c._version)
    """)


@pytest.mark.parametrize("make", ["c", "c[0]", "c[:, 1]", "c.t()", "c.view(4)[1:3]"])
def test_a_dirty_view_rebases_its_base(make):
    same_output(DIRTY.format(returned="x") + f"""
    a = torch.arange(1., 5.).view(2, 2).requires_grad_()
    y = torch.tensor(3., requires_grad=True)
    c = a * 1
    x = {make}
    r = Dirty.apply(x, y)
    print(r is x, r, c, c._version, x._version, type(x.grad_fn).__name__, type(c.grad_fn).__name__)
    print(torch.autograd.grad((c * torch.tensor([[1., 2.], [3., 4.]])).sum(), (a, y)))
    """)


@pytest.mark.parametrize("make", ["a", "a[0]", "a.detach()", "torch.ones(2, 2)", "torch.ones(2, 2)[1]"])
def test_dirty_leaves_and_plain_tensors_as_pytorch_treats_them(make):
    same_output(DIRTY.format(returned="x") + f"""
    a = torch.ones(2, 2, requires_grad=True)
    x = {make}
    y = torch.tensor(3., requires_grad=True)
    tr(lambda: Dirty.apply(x, y))
    print(x._version, x.requires_grad, x.grad_fn is not None)
    tr(lambda: torch.autograd.grad(x.sum(), y))
    """)


def test_marking_a_tensor_that_is_not_an_input_dirty_warns():
    same_output("""
        class New(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a = torch.ones(2, requires_grad=True)
        r = New.apply(a)
        print(r, r._version)
        r.sum().backward()
        print(a.grad)
        print(New.apply(torch.ones(2)))
    """)


# ----- a small differential fuzzer of autograd programs ---------------------------------------------------------

UNARY = ["{a}.exp()", "{a}.tanh()", "{a} * {a}", "({a}.abs() + 1).log()", "{a}.clamp(-0.5, 0.5)", "{a}.cumsum(-1)",
         "{a}.t()", "{a}.sum(-1, keepdim=True)", "{a}[0]", "{a}[:, 1:]", "{a}[[1, 1]]", "{a}.detach()", "{a}.clone()",
         "{a}.max(-1).values", "{a}.unbind(0)[0]", "{a}.detach().requires_grad_()"]
BINARY = ["{a} + {b}", "{a} * {b}", "torch.where({a} > 0, {a}, {b})", "{a}.index_put((torch.tensor([0, 0]),), {b})",
          "torch.stack([{a}, {b}])", "{a}.masked_fill({b} > 0, 0.5)"]
INPLACE = ["{a}.add_({b})", "{a}.mul_(2)", "{a}.sin_()", "{a}[0] = 1.5", "{a}[{a} > 0] = 0.0", "{a}[0].mul_(3)",
           "{a}[[0, 0]] = {b}", "{a}[:, [2, 2]] = {b}", "{a}.index_put_((torch.tensor([1, 1]),), {b}, True)",
           "{a}.t_()", "{a}.copy_({b})", "{a}.retain_grad()", "{a}.register_hook(lambda g: g * 2)"]
ENDINGS = ["loss.backward()", "loss.backward(retain_graph=True); loss.backward()",
           "gs = torch.autograd.grad(loss, [{leaves}], allow_unused=True)",
           "gs = torch.autograd.grad(loss, [{leaves}], create_graph=True, allow_unused=True); "
           "gs = torch.autograd.grad(sum((g * g).sum() for g in gs if g is not None), [{leaves}], allow_unused=True)"]


def _program(seed: int) -> str:
    rng = random.Random(seed)
    lines, names = [], []
    for i in range(rng.randint(1, 2)):
        values = [[round(rng.uniform(-2, 2), 2) for _ in range(3)] for _ in range(2)]
        lines.append(f"a{i} = torch.tensor({values}, requires_grad={rng.random() < 0.8})")
        names.append(f"a{i}")
    leaves = ", ".join(names)
    for k in range(rng.randint(3, 7)):
        a, b = rng.choice(names), rng.choice(names)
        table = rng.choice([UNARY, BINARY, INPLACE])
        statement = rng.choice(table).format(a=a, b=b)
        if table is not INPLACE:
            names.append(f"v{k}")
            statement = f"v{k} = {statement}"
        lines.append(statement)
    picks = rng.sample(names, min(len(names), 2))
    lines.append("loss = " + " + ".join(f"({p} * 1.5).sum()" for p in picks))
    lines.append(rng.choice(ENDINGS).format(leaves=leaves))
    lines.append("print([(n, show(t.grad)) for n, t in sorted(globals().items()) if istensor(t) and t.is_leaf])")
    return "\n".join(lines)


PRELUDE = """
def show(t):
    return None if t is None else (t.shape, [round(v, 3) for v in t.detach().reshape(-1).tolist()])
def istensor(t):
    return type(t).__name__ == 'Tensor'
def run(line):
    try:
        exec(line, globals())
    except Exception as e:
        print(type(e).__name__, str(e)[:160])
    name = line.split(' = ')[0] if ' = ' in line.split('(')[0] else line.split('.')[0].split('[')[0]
    t = globals().get(name)
    if istensor(t):
        print(name, show(t), t.requires_grad, t.is_leaf, t.grad_fn and t.grad_fn.name(), t._version)
"""


@pytest.mark.parametrize("seed", range(40))
def test_random_autograd_program(seed):
    lines = _program(seed).split("\n")
    same_output(PRELUDE + "\n".join(f"run({line!r})" for line in lines))


def test_the_fuzzer_makes_distinct_programs():
    programs = {_program(seed) for seed in range(40)}
    assert len(programs) == 40
    assert np.mean(["[[0, 0]]" in p or "index_put" in p or "[2, 2]]" in p for p in programs]) > 0.2


def test_repeated_index_gradients_in_complex_and_double_precision():
    same_output("""
        v = torch.tensor([1+1j, 2-1j], requires_grad=True)
        y = torch.zeros(3, dtype=torch.complex64)
        y[[0, 0]] = v * (1 + 2j)
        (y.abs() ** 2).sum().backward()
        print(v.grad)
        x = torch.ones(2, 3, dtype=torch.float64, requires_grad=True)
        y = x * 2
        y[[1, 1], [0, 0]] = x[0, :2] ** 2
        g, = torch.autograd.grad((y ** 2).sum(), x, create_graph=True)
        print(g, torch.autograd.grad(g.sum(), x))
        i = torch.zeros(3, dtype=torch.long)
        i[[0, 0]] = torch.tensor([4, 5])
        print(i)
    """)


@pytest.mark.parametrize("call", ["torch.autograd.grad([y.sum(), None], [x])", "torch.autograd.grad([y.sum(), 3], x)",
                                  "torch.autograd.backward([y.sum(), None])", "torch.autograd.grad([y.sum(), None], [])",
                                  "torch.autograd.backward([y.sum(), None], [torch.ones(())])",
                                  "torch.autograd.backward([None, y.sum()], [torch.ones(()), torch.ones(())])"])
def test_an_output_that_is_not_a_tensor_is_refused_as_pytorch_does(call):
    same_output(f"""
        x = torch.ones(2, requires_grad=True)
        y = x * 2
        tr(lambda: {call})
        print(x.grad)
    """)


from tensor_oracle import same_output

VIEW_FUNCTIONS = """
    class ViewOf(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return {view}

        @staticmethod
        def backward(ctx, g):
            return g.expand(2, 2) if g.shape != (2, 2) else g
"""


@pytest.mark.parametrize("view", ["x.view(4).view(2, 2)", "x[:1].expand(2, 2)", "x", "x.t()"])
def test_a_custom_functions_output_view_may_not_be_changed_in_place(view):
    same_output(VIEW_FUNCTIONS.format(view=view) + """
    a = torch.ones(2, 2, requires_grad=True)
    b = a.clone()
    y = ViewOf.apply(b)
    tr(lambda: y.mul_(2))
    tr(lambda: y[0].mul_(2))
    y = ViewOf.apply(b)
    b.add_(1)
    tr(lambda: y.grad_fn.name())
    with torch.no_grad():
        y = ViewOf.apply(b)
    tr(lambda: y.add_(1))
    with torch.no_grad():
        tr(lambda: ViewOf.apply(b).add_(1).sum())
    n = ViewOf.apply(torch.ones(2, 2))
    tr(lambda: n.add_(1).sum())
    """)


def test_a_view_made_in_inference_mode_names_inference_mode():
    same_output("""
        a = torch.ones(2, 3, requires_grad=True)
        with torch.inference_mode():
            v = a.view_as(a)
            w = a[0]
        tr(lambda: v.add_(1))
        tr(lambda: w.mul_(2))
        tr(lambda: w[1:].mul_(2))
        b = a * 2
        with torch.inference_mode():
            v = b.view_as(b)
        tr(lambda: v.add_(1))
    """)


def test_hooks_run_in_pytorchs_order():
    same_output("""
        log = []
        a0 = torch.tensor([[-0.06, 1.67], [1.87, -0.57]], requires_grad=True)
        a1 = torch.tensor([[1.02, 0.47], [1.64, 1.93]], requires_grad=True)
        a1.register_hook(lambda g: log.append(('a1', g.sum().item())))
        v1 = a1.var()
        v1.register_hook(lambda g: log.append(('v1', g.sum().item())))
        a0.register_hook(lambda g: log.append(('a0', g.sum().item())))
        loss = (a0 * 1.5).sum() + (v1 * 1.5).sum() + (a1 * 1.5).sum()
        torch.autograd.grad(loss, [a0, a1], retain_graph=True)
        loss.backward(retain_graph=True)
        loss.backward(inputs=[a1])
        print([(n, round(v, 4)) for n, v in log])
    """)
