"""Round 10 of the differential fuzzing of autograd, each difference found pinned here against real PyTorch:
jacfwd, hessian and forward-mode Jacobians built column by column as forward mode builds them (the signs of their
zeros show when printed), custom Functions under forward AD (`jvp`, `save_for_forward`) and under torch.func's
transforms (setup_context and vmap support required), and aux outputs that must be tensors."""
import textwrap

import pytest

import pjtorch
from tensor_oracle import _printed, reference, same_output

_TRANSFORM_PREAMBLE = "def tr(f):\n    try:\n        print('ok', f())\n    except Exception as e:\n" \
                      "        print(type(e).__name__, e)\n"


def same_printed(program: str) -> None:
    """same_output, less the DeprecationWarnings PyTorch's forward AD of a custom Function emits on its first use
    in a process (from torch.jit), which depend on test order."""
    def printed(lib) -> list:
        out = _printed(lib, _TRANSFORM_PREAMBLE + textwrap.dedent(program))
        return [line for line in out.splitlines() if not line.startswith("warning: DeprecationWarning")]

    assert printed(pjtorch) == printed(reference())


# ----- Jacobians in forward mode ---------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "fn.jacfwd(torch.sin)(x)",
    "fn.jacfwd(f, argnums=(0, 1))(x, y)",
    "fn.hessian(f)(x, y)",
    "fn.hessian(f, argnums=1)(x, y)",
    "fn.hessian(lambda a: (a.sin() * a.cos()).sum())(x)",
    "fn.jacfwd(lambda a: (a.sin(), a), has_aux=True)(x)",
    "fn.jacfwd(lambda a: {'s': a.cos(), 't': (a ** 2).sum()})(x)",
    "fn.jacfwd(fn.jacfwd(lambda a: (a ** 3).sin().sum()))(x)",
    "fn.vmap(fn.jacfwd(torch.cos))(torch.stack([x, y]))",
    "torch.autograd.functional.jacobian(torch.sin, x, vectorize=True, strategy='forward-mode')",
    "torch.autograd.functional.jacobian(lambda a, b: (a * b.cos(), b), (x, y), vectorize=True, "
    "strategy='forward-mode')",
])
def test_forward_mode_jacobians_have_forward_modes_zeros(call):
    same_printed(f"""
        fn = torch.func
        x, y = torch.tensor([1., 2.]), torch.tensor([0.5, -1.])
        def f(a, b):
            return (a * b.sin()).sum()
        print({call})
    """)


def test_jacfwd_shapes_and_graph():
    same_printed("""
        fn = torch.func
        x = torch.tensor([1., 2.])
        print(fn.jacfwd(lambda a: a.sum())(torch.tensor(3.)), fn.jacfwd(lambda a: a * 2)(torch.tensor(3.)))
        print(fn.jacfwd(lambda a: a * 2)(torch.zeros(0)))
        print(fn.jacfwd(lambda a, b: a @ b, argnums=1)(torch.ones(2, 3), torch.ones(3)))
        print(fn.jacfwd(lambda a: a.exp())(x.double()))
        w = torch.tensor([1., 2.], requires_grad=True)
        J = fn.jacfwd(lambda a: a * w)(x)
        print(J)
        J.sum().backward()
        print(w.grad)
    """)


# ----- custom Functions in forward mode ----------------------------------------------------------------

def test_function_jvp_gets_tangents_and_what_save_for_forward_kept():
    same_printed("""
        fwAD = torch.autograd.forward_ad
        class J(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x, y, k):
                print('forward sees a tangent:', fwAD.unpack_dual(x).tangent is not None)
                ctx.save_for_forward(x, y)
                return x * y, x + 1
            @staticmethod
            def backward(ctx, g, h):
                return g, g, None
            @staticmethod
            def jvp(ctx, tx, ty, tk):
                print('jvp', tx, ty, tk, ctx.saved_tensors)
                return tx * 10, ty + 1
        x, y = torch.tensor([1., 2.]), torch.tensor([3., 4.])
        with fwAD.dual_level():
            a, b = J.apply(fwAD.make_dual(x, torch.ones(2)), y, 3)
            print(fwAD.unpack_dual(a), fwAD.unpack_dual(b))
    """)


def test_setup_context_function_jvp_in_forward_ad_and_transforms():
    same_printed("""
        class Sin(torch.autograd.Function):
            @staticmethod
            def forward(x):
                return x.sin()
            @staticmethod
            def setup_context(ctx, inputs, output):
                ctx.save_for_forward(inputs[0])
                ctx.save_for_backward(inputs[0])
            @staticmethod
            def backward(ctx, g):
                x, = ctx.saved_tensors
                return g * x.cos()
            @staticmethod
            def jvp(ctx, t):
                x, = ctx.saved_tensors
                return t * x.cos()
        x = torch.tensor([0., 1.])
        print(torch.func.jvp(Sin.apply, (x,), (torch.ones(2),)))
        print(torch.autograd.functional.jvp(Sin.apply, x, torch.ones(2)))
        fwAD = torch.autograd.forward_ad
        with fwAD.dual_level():
            print(fwAD.unpack_dual(Sin.apply(fwAD.make_dual(x, torch.ones(2)))))
        xg = x.clone().requires_grad_()
        with fwAD.dual_level():
            out = Sin.apply(fwAD.make_dual(xg, torch.full((2,), 2.)))
            print(fwAD.unpack_dual(out).tangent)
        out.sum().backward()
        print(xg.grad)
    """)


def test_function_without_jvp_refuses_forward_ad():
    same_printed("""
        class NoJvp(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.exp()
            @staticmethod
            def backward(ctx, g):
                return g
        fwAD = torch.autograd.forward_ad
        with fwAD.dual_level():
            tr(lambda: NoJvp.apply(fwAD.make_dual(torch.tensor([0., 1.]), torch.ones(2))))
            print(NoJvp.apply(torch.tensor([0., 1.])))
    """)


# ----- custom Functions under torch.func --------------------------------------------------------------

_OLD_STYLE = """
class Old(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x ** 2
    @staticmethod
    def backward(ctx, g):
        return g
class NoRule(torch.autograd.Function):
    @staticmethod
    def forward(x):
        return x ** 2
    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
    @staticmethod
    def backward(ctx, g):
        x, = ctx.saved_tensors
        return 2 * x * g
class Rule(NoRule):
    generate_vmap_rule = True
x = torch.tensor([[1., 2.], [3., 4.]])
"""


@pytest.mark.parametrize("call", [
    "torch.vmap(Old.apply)(x)",
    "torch.func.grad(lambda t: Old.apply(t).sum())(x)",
    "torch.func.jacrev(Old.apply)(x[0])",
    "torch.func.jvp(Old.apply, (x,), (x,))",
    "torch.func.vjp(Old.apply, x)[0]",
    "torch.vmap(NoRule.apply)(x)",
    "torch.vmap(torch.func.grad(lambda t: NoRule.apply(t).sum()))(x)",
    "torch.func.jacrev(NoRule.apply)(x[0])",
    "torch.func.jacfwd(NoRule.apply)(x[0])",
    "torch.func.grad(lambda t: NoRule.apply(t).sum())(x)",
    "torch.vmap(Rule.apply)(x)",
    "torch.vmap(torch.func.grad(lambda t: Rule.apply(t).sum()))(x)",
    "torch.autograd.functional.jacobian(Old.apply, x[0])",
    "Old.apply(x)",
])
def test_functions_under_transforms_need_setup_context_and_a_vmap_rule(call):
    same_printed(_OLD_STYLE + f"tr(lambda: {call})\n")


# ----- aux outputs -------------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "fn.grad(lambda a: ((a * 2).sum(), 1), has_aux=True)(x)",
    "fn.grad(lambda a: ((a * 2).sum(), (a, 'x')), has_aux=True)(x)",
    "fn.grad(lambda a: ((a * 2).sum(), None), has_aux=True)(x)",
    "fn.grad_and_value(lambda a: ((a * 2).sum(), 2.5), has_aux=True)(x)",
    "fn.vjp(lambda a: (a * 2, 1), x, has_aux=True)[2]",
    "fn.jvp(lambda a: (a * 2, 1), (x,), (x,), has_aux=True)[2]",
    "fn.jacrev(lambda a: (a * 2, 1), has_aux=True)(x)",
    "fn.jacfwd(lambda a: (a * 2, [1]), has_aux=True)(x)",
    "fn.grad(lambda a: ((a * 2).sum(), {'k': a}), has_aux=True)(x)",
])
def test_aux_outputs_must_be_tensors(call):
    same_output(f"""
        fn = torch.func
        x = torch.tensor([1., 2.])
        tr(lambda: {call})
    """)


# ----- hooks' results ----------------------------------------------------------------------------------

@pytest.mark.parametrize("hook, pre", [
    ("named", False),
    ("lambda gi, go: [gi[0] * 2]", False),
    ("lambda gi, go: (3,)", False),
    ("lambda gi, go: (torch.ones(3),)", False),
    ("lambda gi, go: (torch.ones(2, dtype=torch.float64),)", False),
    ("lambda gi, go: gi[0]", False),
    ("lambda gi, go: ()", False),
    ("lambda gi, go: (gi[0] * 2,)", False),
    ("lambda gi, go: (None,)", False),
    ("lambda go: (go[0], go[0])", True),
    ("lambda go: (torch.ones(3),)", True),
    ("lambda go: (go[0] * 3,)", True),
    ("lambda go: 'no'", True),
])
def test_grad_fn_hooks_results_are_checked(hook, pre):
    same_output(f"""
        def named(a, b=None):
            return (a[0], a[0])
        x = torch.tensor([1., 2.], requires_grad=True)
        z = x.sin()
        z.grad_fn.{'register_prehook' if pre else 'register_hook'}({hook})
        tr(lambda: z.sum().backward())
        print(x.grad)
    """)


def test_post_accumulate_grad_hook_must_return_none():
    same_output("""
        x = torch.tensor([1., 2.], requires_grad=True)
        h = x.register_post_accumulate_grad_hook(lambda p: p.grad.mul_(0.5))
        tr(lambda: (x * 4).sum().backward())
        print(x.grad)
        h.remove()
        x.register_post_accumulate_grad_hook(lambda p: print('seen', p.grad))
        (x * 4).sum().backward()
        print(x.grad)
    """)


# ----- anomaly mode -------------------------------------------------------------------------------------

def test_anomaly_mode_keeps_the_forward_trace_and_changes_the_version_hint():
    same_output("""
        import warnings
        x = torch.tensor([1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            with torch.autograd.detect_anomaly():
                y = x.exp()
                print(list(y.grad_fn.metadata), [line.split(',')[-1] for line in y.grad_fn.metadata['traceback_']])
                y.add_(1)
                tr(lambda: y.sum().backward())
            print(x.exp().grad_fn.metadata)
    """)


def test_anomaly_mode_warns_with_the_forward_trace_of_the_failing_node():
    same_output("""
        x = torch.tensor([1., 2.], requires_grad=True)
        with torch.autograd.detect_anomaly():
            y = x.exp()
            y.add_(1)
            tr(lambda: y.sum().backward())
            z = (x * 0).sqrt()
            tr(lambda: z.sum().backward())
        with torch.autograd.detect_anomaly(check_nan=False):
            z = (x * 0).sqrt()
            tr(lambda: z.sum().backward())
            print(x.grad)
    """)


def test_only_inputs_is_deprecated():
    same_output("""
        x = torch.tensor([1., 2.], requires_grad=True)
        print(torch.autograd.grad((x * x).sum(), x, only_inputs=False))
        print(torch.autograd.grad((x * x).sum(), x, only_inputs=True))
    """)


# ----- custom Function details, linearize ----------------------------------------------------------------

def test_save_for_backward_takes_only_tensors_when_recorded():
    same_output("""
        class Saves(torch.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, None, 2.5)
                return x * 2
            @staticmethod
            def backward(ctx, g):
                return g
        x = torch.ones(2, requires_grad=True)
        tr(lambda: Saves.apply(x))
        with torch.no_grad():
            tr(lambda: Saves.apply(x))
        tr(lambda: Saves.apply(torch.ones(2)))
        print(torch.autograd.Function.generate_vmap_rule, Saves.generate_vmap_rule)
    """)


def test_linearize_gives_the_output_and_a_checked_jvp_function():
    same_output("""
        import warnings
        warnings.simplefilter('ignore')  # PyTorch's tracing warns from torch.fx
        x = torch.tensor([1., 2.])
        out, jvp_fn = torch.func.linearize(torch.sin, x)
        print(out, jvp_fn(torch.ones(2)), jvp_fn(torch.tensor([0., 3.])))
        out, jvp_fn = torch.func.linearize(lambda a, b: (a * b, a.sum()), x, x * 2)
        print(out, jvp_fn(torch.ones(2), torch.zeros(2)))
        tr(lambda: jvp_fn(torch.ones(3)))
        tr(lambda: jvp_fn([torch.ones(2)]))
        tr(lambda: jvp_fn(torch.ones(2), torch.ones(2, dtype=torch.float64)))
        tr(lambda: jvp_fn(torch.ones(2), torch.ones(3)))
    """)


# ----- complex inputs and outputs --------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    "torch.autograd.grad(z.abs().sum(), z, torch.tensor(1+0j))",
    "torch.autograd.grad(z * 2, z, torch.tensor([1.]))",
    "torch.autograd.grad(z * 2, z, torch.tensor([1.]), is_grads_batched=True)",
    "torch.autograd.grad(z * 2, z, torch.ones(2))",
    "(z * 2).backward(torch.tensor([1.]))",
    "torch.autograd.grad(z * 2, z, torch.tensor([1+0j]))[0].shape",
    "torch.func.jacrev(lambda t: t * (2 + 1j))(z.detach())",
    "torch.func.jacrev(lambda t: t * (2 + 1j))(x)",
    "torch.func.jacrev(lambda t: (t * (2 + 1j)).abs())(z.detach())",
    "torch.func.jacrev(lambda t, u: (t * (2 + 1j), u), argnums=1)(z.detach(), x)",
    "torch.func.jacfwd(lambda t: t * (2 + 1j))(z.detach())",
    "torch.func.jacfwd(lambda t: t * (2 + 1j))(x)",
    "torch.func.jacfwd(lambda t, u: t * u, argnums=1)(z.detach(), x)",
    "torch.func.hessian(lambda t: t.abs().sum())(z.detach())",
    "torch.autograd.functional.jacobian(lambda t: t * (2 + 1j), z.detach())",
    "torch.autograd.functional.jacobian(lambda t: t * (2 + 1j), x)",
    "torch.autograd.functional.jacobian(lambda t: t * (2 + 1j), x, vectorize=True)",
    "torch.autograd.functional.vjp(lambda t: t * (2 + 1j), x, torch.ones(2))",
    "torch.autograd.functional.vjp(lambda t: t * (2 + 1j), x, torch.ones(2, dtype=torch.complex64))",
    "torch.func.vjp(lambda t: t * (2 + 1j), x)[1](torch.ones(2, dtype=torch.complex64))",
])
def test_complex_outputs_and_inputs_are_checked(call):
    same_printed(f"""
        z = torch.tensor([1+1j], requires_grad=True)
        x = torch.tensor([1., 2.])
        tr(lambda: {call})
    """)


# ----- create_graph gradients as PyTorch names them ------------------------------------------------------

@pytest.mark.parametrize("f", [
    "(t + 1) ** 2", "(t - 1) ** 3", "(1 - t) ** 2", "t.clone() ** 2", "torch.addcmul(t, t, t) * 1",
    "t.acos()", "t.asinh()", "(t + 1).acosh()", "t.atanh()", "t.erfc()", "t.erfinv()", "t.lgamma()", "t.digamma()",
    "t.log10()", "t.log1p()", "t.exp2()", "torch.nn.functional.celu(t)", "t.sinc()", "t.logit()",
    "t.clamp(0.4, 1.) ** 2", "t.sum() ** 2", "t.mean() ** 2", "t.sum(0, keepdim=True).sin()", "t.mean(0).sin()",
    "t.cumsum(0) ** 2", "t.max() ** 2", "t.amax() ** 2", "t.flip(0).sin()", "t[None].squeeze(0).sin()",
    "torch.where(t > 0.5, t, 0.).sin()", "t.masked_fill(t > 0.5, 0.).sin()", "t.gather(0, torch.tensor([1, 1])).sin()",
    "t.float().sin()", "-t.sin()",
])
def test_create_graph_gradients_are_named_as_in_pytorch(f):
    same_output(f"""
        x = torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True)
        t = x
        g, = torch.autograd.grad(({f}).sum(), x, create_graph=True)
        print(g)
    """)


@pytest.mark.parametrize("f", ["torch.sigmoid", "torch.tanh", "torch.nn.functional.elu", "torch.nn.functional.softplus",
                               "torch.nn.functional.gelu", "torch.nn.functional.logsigmoid", "lambda t: t.max() ** 3"])
def test_higher_order_gradients_are_named_as_in_pytorch(f):
    same_output(f"""
        x = torch.tensor([0.3, 0.7], dtype=torch.float64, requires_grad=True)
        g, = torch.autograd.grad(({f})(x).sum(), x, create_graph=True)
        h, = torch.autograd.grad(g.sum(), x, create_graph=True)
        print(g, h)
    """)
