"""Autograd details compared with PyTorch: the layout of a leaf's first gradient, and nodes PyTorch names but
gives no derivative."""
import pytest

from tensor_oracle import same, same_output

# Leaves of several layouts: dense but not row-major (transposed, permuted, a size-1 dim with an odd stride)
# keep theirs in .grad; overlapping or gappy ones (expanded, stepped) get a contiguous .grad.
LEAVES = {
    "transposed": lambda m: m.arange(12.).view(3, 4).t(),
    "permuted": lambda m: m.arange(24.).view(2, 3, 4).permute(2, 0, 1),
    "size_one_dim": lambda m: m.arange(6.).view(3, 2).t()[:1],
    "stepped": lambda m: m.arange(12.).view(3, 4)[:, ::2],
    "expanded": lambda m: m.arange(3.).view(3, 1).expand(3, 4),
    "contiguous": lambda m: m.arange(6.).view(2, 3),
}

# The first backward of a structure runs one node at a time; its later ones run the fused replay.
BACKWARDS = {
    "first": 1,
    "fused": 3,
}


@pytest.mark.parametrize("leaf", LEAVES)
@pytest.mark.parametrize("repeats", BACKWARDS.values(), ids=BACKWARDS.keys())
def test_a_leafs_first_grad_is_laid_out_as_pytorch_lays_it_out(leaf, repeats):
    def case(m):
        for _ in range(repeats):
            x = LEAVES[leaf](m).detach().requires_grad_()
            (x.exp() * 2).sum().backward()
        return x.grad

    same(case, layout=True)


@pytest.mark.parametrize("leaf", ["transposed", "permuted"])
def test_grad_layout_through_a_hook_and_after_accumulation(leaf):
    def hooked(m):
        x = LEAVES[leaf](m).detach().requires_grad_()
        x.register_hook(lambda g: g * 3)
        (x * x).sum().backward()
        return x.grad

    def accumulated(m):
        x = LEAVES[leaf](m).detach().requires_grad_()
        for _ in range(2):
            (x * x).sum().backward()
        return x.grad

    same(hooked, layout=True)
    same(accumulated, layout=True)


UNIQUE_CALLS = {
    "unique": "torch.unique(x)",
    "unique_unsorted": "torch.unique(x, sorted=False)",
    "unique_dim": "torch.unique(x, dim=0)",
    "method_with_counts": "x.unique(return_counts=True)[0]",
    "unique_consecutive": "torch.unique_consecutive(x)",
    "unique_consecutive_dim": "x.unique_consecutive(return_inverse=True, dim=1)[0]",
}


@pytest.mark.parametrize("call", UNIQUE_CALLS.values(), ids=UNIQUE_CALLS.keys())
def test_unique_has_pytorchs_grad_fn_and_refuses_backward(call):
    same_output(f"""
        x = torch.tensor([[1., 2.], [1., 2.], [3., 4.]], requires_grad=True)
        r = {call}
        print(r.requires_grad, r.grad_fn.name(), r.grad_fn.next_functions)
        tr(lambda: r.sum().backward())
        tr(lambda: torch.autograd.grad({call}.sum(), x, create_graph=True))
        with torch.no_grad():
            print({call}.grad_fn)
        print(x.detach().unique().grad_fn)
    """)


def test_an_op_without_a_derivative_refuses_under_create_graph_too():
    same_output("""
        x = torch.tensor([5., 7.], requires_grad=True)
        y = torch.floor_divide(x, 2.)
        tr(lambda: torch.autograd.grad(y.sum(), x, create_graph=True))
        tr(lambda: torch.autograd.grad(y.sum(), x))
    """)


@pytest.mark.parametrize("op", ["tanh", "exp", "expm1", "sigmoid"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gradients_from_the_result_round_as_pytorchs(op, dtype):
    """PyTorch differentiates these from their result (tanh: grad * (1 - y*y)), so where y rounds to 1 the
    gradient is exactly 0 (float64 arithmetic would leave 1e-12), and elsewhere it is within an ulp."""
    import numpy as np
    import pjtorch

    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    values = np.concatenate([rng.normal(0, 4, 200), [-30., -9.5, 0., 8.7, 30.]])
    cotangent = rng.normal(0, 2, values.shape)
    grads = []
    for lib in (torch, pjtorch):
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=True)
        y = getattr(lib, op)(x)
        first, = lib.autograd.grad(y, x, lib.tensor(cotangent, dtype=x.dtype), create_graph=True)
        second, = lib.autograd.grad(first.sum(), x)
        grads.append((np.array(first.tolist()), np.array(second.tolist())))
    # The forward values themselves may differ by an ulp, which 1 - y*y's cancellation magnifies in float64 (where
    # XLA's tanh is not rounded from a wider type); zeros must be exact.
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=2.5e-7 if dtype == "float32" else 1e-7, atol=0)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-5, atol=0)


def test_saved_tensor_hooks_pack_and_unpack_as_pytorchs():
    same_output("""
        def pack_hook(x):
            print("Packing", x)
            return x

        def unpack_hook(x):
            print("Unpacking", x)
            return x

        a = torch.ones(5, requires_grad=True)
        b = torch.ones(5, requires_grad=True) * 2
        c = torch.ones(2)
        with torch.autograd.graph.saved_tensors_hooks(pack_hook, unpack_hook):
            y = a * b          # PyTorch saves `other` before `self`
            d = a[:2] * c      # only what the gradient of a needs
            e = a.exp()        # its result
            f = b.sin()        # its input
            g = a @ b          # self, then tensor
            h = torch.ones(2, 3).mm(b[:3].view(3, 1))  # mat2 (b) only
            k = a + b          # nothing
            m = c * c          # nothing: no grad
        (y.sum() + d.sum() + e.sum() + f.sum() + g + h.sum() + k.sum()).backward()
        print(a.grad, b.grad)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda t: t):
            z = a * a          # the unpacked values are what backward uses
        a.grad = None
        z.sum().backward()
        print(a.grad)
    """)


def test_saved_tensor_hooks_nest_disable_and_reach_custom_functions():
    same_output("""
        class Square(torch.autograd.Function):
            @staticmethod
            def forward(ctx, t, k):
                ctx.save_for_backward(t, None)
                ctx.k = k
                return t * t * k

            @staticmethod
            def backward(ctx, g):
                t, none = ctx.saved_tensors
                print("saved", t, none)
                return 2 * t * g * ctx.k, None

        p = torch.tensor([1., 2.], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t * 10, lambda t: t + 1):
            s = Square.apply(p, 3.)
        s.sum().backward()
        print(p.grad)
        q = torch.tensor([1., 2.], requires_grad=True)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 5):
            r = (q * q).sum()
        tr(lambda: r.backward())
        with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
            tr(lambda: torch.autograd.graph.saved_tensors_hooks(print, print).__enter__())
        with torch.autograd.graph.saved_tensors_hooks(lambda t: ("outer", t), lambda t: (print(t[0]), t[1])[1]):
            with torch.autograd.graph.saved_tensors_hooks(lambda t: ("inner", t), lambda t: (print(t[0]), t[1])[1]):
                z = q.sin()
            w = q.cos()
        (z + w).sum().backward(retain_graph=True)
        (z + w).sum().backward()
        tr(lambda: (z + w).sum().backward())
        print(q.grad)
        m = torch.tensor([1., 2.], requires_grad=True)
        with torch.autograd.graph.save_on_cpu():
            v = (m * m).exp().sum()
        v.backward()
        print(m.grad)
        lin = torch.nn.Linear(3, 2)
        with torch.no_grad():
            lin.weight.copy_(torch.arange(6.).view(2, 3))
            lin.bias.fill_(0.5)
        with torch.autograd.graph.saved_tensors_hooks(lambda t: (print("pack", tuple(t.shape)), t)[1], lambda t: t):
            out = torch.tanh(lin(torch.arange(6.).view(2, 3))).sum()
        out.backward()
        print(lin.weight.grad)
    """)


def test_grad_with_batched_grad_outputs():
    same_output("""
        w = torch.tensor([1., 2.], requires_grad=True)
        v = torch.tensor([3., 4., 5.], requires_grad=True)
        out = w ** 2
        s = (w * 3).sum()
        batched = dict(is_grads_batched=True, retain_graph=True)
        tr(lambda: torch.autograd.grad(out, w, grad_outputs=torch.eye(2), **batched))
        tr(lambda: torch.autograd.grad(out, w, grad_outputs=torch.ones(3, 2), **batched))
        tr(lambda: torch.autograd.grad(out, [w, v], grad_outputs=torch.eye(2), allow_unused=True, **batched))
        tr(lambda: torch.autograd.grad(out, w, grad_outputs=torch.ones(3), **batched))
        tr(lambda: torch.autograd.grad(out, w, **batched))
        tr(lambda: torch.autograd.grad(s, w, grad_outputs=torch.tensor([1., 2., 3.]), **batched))
        tr(lambda: torch.autograd.grad((out, s), w, grad_outputs=(torch.eye(2), torch.tensor([1., 2.])), **batched))
        print(torch.autograd.grad(out, w, grad_outputs=torch.eye(2), is_grads_batched=True, create_graph=True)[0]
              .requires_grad)
        tr(lambda: torch.autograd.grad(out, w, torch.eye(2), is_grads_batched=True))
        tr(lambda: torch.autograd.grad(out, w, torch.eye(2), is_grads_batched=True))
    """)


def test_forward_mode_ad_with_dual_tensors():
    import warnings

    torch = pytest.importorskip("torch")
    with warnings.catch_warnings():  # torch's first forward-AD op imports torch.jit, which warns
        warnings.simplefilter("ignore")
        with torch.autograd.forward_ad.dual_level():
            torch.autograd.forward_ad.make_dual(torch.ones(1), torch.ones(1)) * 2
    same_output("""
        import_fwad = torch.autograd.forward_ad
        primal = torch.tensor([1., 2., 3.])
        tangent = torch.tensor([1., 0., 0.5])
        tr(lambda: import_fwad.make_dual(primal, tangent))
        with import_fwad.dual_level():
            dual = import_fwad.make_dual(primal, tangent)
            print(dual)
            print(import_fwad.unpack_dual(primal).tangent)
            out = dual ** 2 + 1.0 ** 2
            print(out)
            print(import_fwad.unpack_dual(out))
            print(import_fwad.unpack_dual(dual[1:].sin().sum()))
            print(import_fwad.unpack_dual(dual.view(3, 1).t() @ torch.ones(3, 2)).tangent)
            print(import_fwad.unpack_dual(torch.relu(dual - 1.5)).tangent)
            print(import_fwad.unpack_dual(torch.cat([dual, primal])).tangent)
            print(import_fwad.unpack_dual(dual.sum(0)).tangent, import_fwad.unpack_dual(dual.mean()).tangent)
            print([import_fwad.unpack_dual(part).tangent for part in dual.split(2)])
            print(import_fwad.unpack_dual(dual.detach()).tangent)
            linear = torch.nn.Linear(3, 2)
            with torch.no_grad():
                linear.weight.copy_(torch.arange(6.).view(2, 3))
                linear.bias.zero_()
            print(import_fwad.unpack_dual(linear(dual)).tangent.detach())
            copy = import_fwad.make_dual(primal.clone(), tangent)
            copy.mul_(2)
            print(import_fwad.unpack_dual(copy).tangent)
            tr(lambda: import_fwad.make_dual(primal, torch.ones(2)))
            tr(lambda: import_fwad.make_dual(torch.tensor([1, 2]), torch.ones(2)))
            tr(lambda: import_fwad.dual_level().__enter__())
            primal_again = import_fwad.unpack_dual(dual).primal
            print(primal_again, primal_again is primal, import_fwad.unpack_dual(primal_again).tangent)
        print(import_fwad.unpack_dual(out).tangent)
        x = torch.tensor([1., 2.], requires_grad=True)
        with import_fwad.dual_level():
            d = import_fwad.make_dual(x, torch.tensor([1., 1.]))
            total = (d * d).sum()
            print(import_fwad.unpack_dual(total).tangent.item())
            total.backward()
        print(x.grad)
    """)


def test_post_accumulate_grad_hooks_and_gradient_edges():
    same_output("""
        x = torch.tensor([1., 2.], requires_grad=True)
        y = torch.tensor([3.], requires_grad=True)
        handle = x.register_post_accumulate_grad_hook(lambda t: print("post x", t.grad, t is x))
        y.register_post_accumulate_grad_hook(lambda t: print("post y", t.grad))
        x.register_hook(lambda g: print("pre x", g))
        (x * 2).sum().add(y.sum() * 3).backward()
        tr(lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None))
        tr(lambda: torch.tensor([1.]).register_post_accumulate_grad_hook(lambda t: None))
        handle.remove()
        (x * 2).sum().backward()
        print(x.grad, torch.autograd.grad((x * x).sum(), x))
        edge = torch.autograd.graph.get_gradient_edge(x * 3)
        print(type(edge).__name__, edge.node.name(), edge.output_nr)
        z = x * 3
        print(torch.autograd.grad(z.sum(), torch.autograd.graph.get_gradient_edge(z)))
        print(torch.autograd.graph.get_gradient_edge(x).node.name())
        tr(lambda: torch.autograd.graph.get_gradient_edge(torch.ones(1)))
        v = torch.ones(2)
        torch.autograd.graph.increment_version(v)
        print(v._version)
        a = torch.ones(2, requires_grad=True)
        s = a.sin()
        torch.autograd.graph.increment_version(a)
        tr(lambda: s.sum().backward())
        with torch.autograd.set_multithreading_enabled(False):
            print("no worker threads")
    """)


def test_an_optimizer_step_per_parameter_from_post_accumulate_hooks():
    same_output("""
        model = torch.nn.Linear(3, 2)
        with torch.no_grad():
            model.weight.copy_(torch.arange(6.).view(2, 3))
            model.bias.zero_()
        optimizers = {p: torch.optim.SGD([p], lr=0.1) for p in model.parameters()}

        def step(p):
            optimizers[p].step()
            optimizers[p].zero_grad()

        for p in model.parameters():
            p.register_post_accumulate_grad_hook(step)
        for _ in range(3):
            model(torch.ones(4, 3)).pow(2).sum().backward()
        print(model.weight, model.bias)
    """)


def test_a_node_reports_the_first_modified_saved_tensor_in_pytorchs_order():
    same_output("""
        y = torch.tensor([[1.1, 0.2, -0.6], [0.5, 2.0, -1.0]], requires_grad=True)
        v1 = y + 0
        v2 = v1.unsqueeze(0)
        v3 = v1[1:]
        product = v3 * v2          # saves other (v2) and self (v3); both are then modified
        v3[v3 > 1] = 0
        tr(lambda: product.sum().backward())
    """)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_means_divide_as_pytorch_does(dtype):
    """XLA would multiply by the reciprocal of the count; PyTorch divides (0.29999998 vs 0.30000001). (Only short
    vectors: over more elements PyTorch sums in an order of its own, which no division fixes.)"""
    same_output(f"""
        for values in ([0.3, -1.2, 0.7, 1.5, -0.4, 0.9], [0.1, 0.2, 0.4], [1.7, 2.9, -0.3, 0.55, 1.25, 3.3, 0.05]):
            x = torch.tensor(values, dtype=torch.{dtype})
            print(x.mean().item(), x.view(1, -1).mean(1).item(), x.mean(0, keepdim=True).item())
    """)
