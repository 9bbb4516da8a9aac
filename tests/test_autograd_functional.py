"""torch.autograd.functional, gradcheck/gradgradcheck and Variable against PyTorch: values, the
tuple/list nesting of results, requires_grad and grad_fn presence, and error types and messages."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from ops_oracle import same_as_torch, torch
import pjtorch as pt

X = np.array([0.5, -1.25, 2.0])
Y = np.array([[1.5, -0.5], [0.25, 3.0]])


def inputs(lib, requires_grad: bool = False):
    x = lib.tensor(X, dtype=lib.float64, requires_grad=requires_grad)
    y = lib.tensor(Y, dtype=lib.float64, requires_grad=requires_grad)
    return x, y


def two_outputs(a, b):
    return a * a * b.sum(), (b * a.sum()).sum(0)


def scalar(a, b):
    return (a * a * a).sum() * (b * b).sum()


# ----- jacobian and hessian --------------------------------------------------------------------------


def jacobian_cases() -> dict:
    def F(lib):
        return lib.autograd.functional

    return {
        "single": lambda lib: F(lib).jacobian(lambda a: a.sin() * a, inputs(lib)[0]),
        "tuple in, tuple out": lambda lib: F(lib).jacobian(two_outputs, inputs(lib)),
        "tuple in, tensor out": lambda lib: F(lib).jacobian(lambda a, b: a.sum() * b, inputs(lib)),
        "tensor in, tuple out": lambda lib: F(lib).jacobian(lambda a: (a * 2, a.sum()), inputs(lib)[0]),
        "unused input gives zeros": lambda lib: F(lib).jacobian(lambda a, b: a * 3, inputs(lib)),
        "constant output gives zeros": lambda lib: F(lib).jacobian(lambda a: lib.ones(2), inputs(lib)[0]),
        "create_graph keeps history": lambda lib: F(lib).jacobian(lambda a: a ** 3, inputs(lib, True)[0],
                                                                  create_graph=True),
        "create_graph, linear": lambda lib: F(lib).jacobian(lambda a: a * 2, inputs(lib, True)[0],
                                                            create_graph=True),
        "vectorize": lambda lib: F(lib).jacobian(two_outputs, inputs(lib), vectorize=True),
        "forward-mode nesting": lambda lib: F(lib).jacobian(two_outputs, inputs(lib), vectorize=True,
                                                            strategy="forward-mode"),
        "forward-mode single input": lambda lib: F(lib).jacobian(lambda a: (a, a.sum()), inputs(lib)[0],
                                                                 vectorize=True, strategy="forward-mode"),
        "hessian single": lambda lib: F(lib).hessian(lambda a: (a ** 3).sum(), inputs(lib)[0]),
        "hessian tuple": lambda lib: F(lib).hessian(scalar, inputs(lib)),
        "hessian forward-mode": lambda lib: F(lib).hessian(lambda a, b: (a ** 2).sum() * (b ** 2).sum(), inputs(lib),
                                                           vectorize=True,
                                                           outer_jacobian_strategy="forward-mode"),
        # errors
        "bad strategy": lambda lib: F(lib).jacobian(lambda a: a, inputs(lib)[0], strategy="middle"),
        "hessian bad strategy": lambda lib: F(lib).hessian(lambda a: a.sum(), inputs(lib)[0],
                                                           outer_jacobian_strategy="x"),
        "forward-mode create_graph": lambda lib: F(lib).jacobian(lambda a: a, inputs(lib)[0], create_graph=True,
                                                                 strategy="forward-mode"),
        "forward-mode strict": lambda lib: F(lib).jacobian(lambda a: a, inputs(lib)[0], strict=True,
                                                           strategy="forward-mode"),
        "forward-mode unvectorized": lambda lib: F(lib).jacobian(lambda a: a, inputs(lib)[0],
                                                                 strategy="forward-mode"),
        "vectorize with strict": lambda lib: F(lib).jacobian(lambda a: a * a, inputs(lib)[0], strict=True,
                                                             vectorize=True),
        "strict, output independent": lambda lib: F(lib).jacobian(lambda a: lib.ones(2), inputs(lib)[0],
                                                                  strict=True),
        "strict, input unused": lambda lib: F(lib).jacobian(lambda a, b: a * 2, inputs(lib), strict=True),
        "strict create_graph linear": lambda lib: F(lib).jacobian(lambda a: a * 2, inputs(lib)[0], strict=True,
                                                                  create_graph=True),
        "list input": lambda lib: F(lib).jacobian(lambda a: a, [inputs(lib)[0]]),
        "non-tensor in tuple": lambda lib: F(lib).jacobian(lambda a, b: a, (inputs(lib)[0], 2.0)),
        "non-tensor output": lambda lib: F(lib).jacobian(lambda a: 3.0, inputs(lib)[0]),
        "hessian tuple output": lambda lib: F(lib).hessian(lambda a: (a.sum(),), inputs(lib)[0]),
        "hessian many elements": lambda lib: F(lib).hessian(lambda a: a * 2, inputs(lib)[0]),
        "hessian strict linear": lambda lib: F(lib).hessian(lambda a: a.sum() * 2, inputs(lib)[0], strict=True),
    }


def test_jacobian_and_hessian_match_torch():
    same_as_torch(jacobian_cases(), expected_values=14)


# ----- vector products -----------------------------------------------------------------------------


def product_cases() -> dict:
    def F(lib):
        return lib.autograd.functional

    def v_like(lib, *shapes):
        made = tuple(lib.linspace(-1, 2, int(np.prod(s)), dtype=lib.float64).reshape(s) for s in shapes)
        return made if len(made) > 1 else made[0]

    return {
        "vjp": lambda lib: F(lib).vjp(two_outputs, inputs(lib), v_like(lib, (3,), (2,))),
        "vjp v=None scalar": lambda lib: F(lib).vjp(lambda a: (a ** 2).sum(), inputs(lib)[0]),
        "vjp unused input": lambda lib: F(lib).vjp(lambda a, b: a.sum(), inputs(lib)),
        "vjp create_graph": lambda lib: F(lib).vjp(lambda a: a ** 2, inputs(lib, True)[0], v_like(lib, (3,)),
                                                   create_graph=True),
        "jvp": lambda lib: F(lib).jvp(two_outputs, inputs(lib), v_like(lib, (3,), (2, 2))),
        "jvp v=None": lambda lib: F(lib).jvp(lambda a: a * 3, inputs(lib)[0][:1]),
        "jvp create_graph": lambda lib: F(lib).jvp(lambda a: a ** 2, inputs(lib, True)[0], v_like(lib, (3,)),
                                                   create_graph=True),
        "vhp": lambda lib: F(lib).vhp(scalar, inputs(lib), v_like(lib, (3,), (2, 2))),
        "hvp": lambda lib: F(lib).hvp(lambda a, b: (a * a).sum() * (b * b).sum(), inputs(lib), v_like(lib, (3,), (2, 2))),
        "hvp single": lambda lib: F(lib).hvp(lambda a: (a ** 3).sum(), inputs(lib)[0], v_like(lib, (3,))),
        "hvp create_graph": lambda lib: F(lib).hvp(lambda a: (a ** 3).sum(), inputs(lib, True)[0],
                                                   v_like(lib, (3,)), create_graph=True),
        "hvp partly linear": lambda lib: F(lib).hvp(lambda a, b: (a ** 2).sum() + b.sum(), inputs(lib),
                                                    v_like(lib, (3,), (2, 2))),
        # errors
        "vjp v=None many elements": lambda lib: F(lib).vjp(lambda a: a * 2, inputs(lib)[0]),
        "jvp v=None many elements": lambda lib: F(lib).jvp(lambda a: a * 2, inputs(lib)[0]),
        "hvp v=None many elements": lambda lib: F(lib).hvp(lambda a: a.sum(), inputs(lib)[0]),
        "vjp v wrong size": lambda lib: F(lib).vjp(lambda a: a * 2, inputs(lib)[0], v_like(lib, (2,))),
        "vjp v tuple wrong size": lambda lib: F(lib).vjp(two_outputs, inputs(lib), v_like(lib, (3,), (3,))),
        "vjp v tuple wrong length": lambda lib: F(lib).vjp(two_outputs, inputs(lib), (v_like(lib, (3,)),)),
        "jvp v too many": lambda lib: F(lib).jvp(lambda a: a, inputs(lib)[0], v_like(lib, (3,), (3,))),
        "vjp v not a tensor": lambda lib: F(lib).vjp(lambda a: a, inputs(lib)[0], [1.0, 2.0, 3.0]),
        "vjp strict independent": lambda lib: F(lib).vjp(lambda a, b: a.sum(), inputs(lib), strict=True),
        "vjp strict output": lambda lib: F(lib).vjp(lambda a: lib.ones(()), inputs(lib)[0], strict=True),
        "jvp strict linear create_graph": lambda lib: F(lib).jvp(lambda a: a * 2, inputs(lib)[0],
                                                                 v_like(lib, (3,)), strict=True, create_graph=True),
        "jvp strict grad_inputs": lambda lib: F(lib).jvp(lambda a: a * 2, inputs(lib)[0], v_like(lib, (3,)),
                                                         strict=True),
        "vhp strict linear": lambda lib: F(lib).vhp(lambda a: a.sum(), inputs(lib)[0], v_like(lib, (3,)),
                                                    strict=True),
        "hvp strict quadratic": lambda lib: F(lib).hvp(lambda a: (a ** 2).sum(), inputs(lib)[0], v_like(lib, (3,)),
                                                       strict=True),
        "vhp tuple output": lambda lib: F(lib).vhp(lambda a: (a.sum(),), inputs(lib)[0], v_like(lib, (3,))),
        "hvp many elements": lambda lib: F(lib).hvp(lambda a: a ** 2, inputs(lib)[0], v_like(lib, (3,))),
    }


def test_vector_products_match_torch():
    same_as_torch(product_cases(), expected_values=14)


def test_functional_import_paths():
    from pjtorch.autograd.functional import hessian, hvp, jacobian, jvp, vhp, vjp
    assert pt.autograd.functional.jacobian is jacobian
    assert {f.__name__ for f in (hessian, hvp, jacobian, jvp, vhp, vjp)} == {"hessian", "hvp", "jacobian", "jvp",
                                                                             "vhp", "vjp"}


def test_grad_mode_is_restored():
    with pt.no_grad():
        pt.autograd.functional.jacobian(lambda a: a * a, inputs(pt)[0])
        assert not pt.is_grad_enabled()
    assert pt.is_grad_enabled()


# ----- gradcheck -----------------------------------------------------------------------------------


def custom_functions(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    class WrongCube(Cube):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x ** 2

    class IgnoresGrad(Cube):
        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return 3 * x ** 2

    return Cube, WrongCube, IgnoresGrad


def gradcheck_cases() -> dict:
    def A(lib):
        return lib.autograd

    def quietly(fn):
        def run(lib):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return fn(lib)
        return run

    return {
        "builtin ops": lambda lib: A(lib).gradcheck(two_outputs, inputs(lib, True)),
        "custom Function": lambda lib: A(lib).gradcheck(custom_functions(lib)[0].apply, inputs(lib, True)[:1]),
        "wrong backward returns False": lambda lib: A(lib).gradcheck(custom_functions(lib)[1].apply,
                                                                     inputs(lib, True)[:1], raise_exception=False),
        "wrong backward raises": lambda lib: A(lib).gradcheck(custom_functions(lib)[1].apply, inputs(lib, True)[:1]),
        "wrong backward, second input": lambda lib: A(lib).gradcheck(
            lambda a, b: (a.sum(), custom_functions(lib)[1].apply(b)), inputs(lib, True)),
        "ignores grad_output": lambda lib: A(lib).gradcheck(custom_functions(lib)[2].apply, inputs(lib, True)[:1]),
        "mixed requires_grad": lambda lib: A(lib).gradcheck(scalar, (inputs(lib)[0], inputs(lib, True)[1])),
        "non-tensor argument": lambda lib: A(lib).gradcheck(lambda a, k: a * k, (inputs(lib, True)[0], 3)),
        "keyword options": lambda lib: A(lib).gradcheck(lambda a: a.exp(), inputs(lib, True)[0], eps=1e-4, atol=1e-3,
                                                        rtol=1e-2, nondet_tol=1e-12, check_undefined_grad=False,
                                                        check_grad_dtypes=True, fast_mode=True),
        "gradgradcheck": lambda lib: A(lib).gradgradcheck(scalar, inputs(lib, True)),
        "gradgradcheck custom": lambda lib: A(lib).gradgradcheck(
            lambda a: custom_functions(lib)[0].apply(a), inputs(lib, True)[0],
            lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64)),
        "gradgradcheck wrong double backward": lambda lib: A(lib).gradgradcheck(
            lambda a: custom_functions(lib)[1].apply(a), inputs(lib, True)[0],
            lib.tensor([1.0, -2.0, 0.5], dtype=lib.float64), raise_exception=False),
        # errors
        "nothing requires grad": lambda lib: A(lib).gradcheck(lambda a: a * 2, inputs(lib)[0]),
        "neither mode": lambda lib: A(lib).gradcheck(lambda a: a, inputs(lib, True)[0], check_backward_ad=False),
        "batched without backward": lambda lib: A(lib).gradcheck(lambda a: a, inputs(lib, True)[0],
                                                                 check_backward_ad=False, check_forward_ad=True,
                                                                 check_batched_grad=True),
        "gradgradcheck neither": lambda lib: A(lib).gradgradcheck(lambda a: a, inputs(lib, True)[0],
                                                                  check_rev_over_rev=False),
        "float32 mismatch": quietly(lambda lib: A(lib).gradcheck(
            custom_functions(lib)[1].apply, lib.tensor([1.0, 2.0], requires_grad=True))),
    }


def test_gradcheck_matches_torch():
    same_as_torch(gradcheck_cases(), expected_values=9)


def test_gradcheck_error_is_a_runtime_error_with_torch_message():
    from pjtorch.autograd.gradcheck import GradcheckError
    assert issubclass(GradcheckError, RuntimeError)
    messages = []
    for lib in (torch, pt):
        with pytest.raises(RuntimeError) as caught:
            lib.autograd.gradcheck(custom_functions(lib)[1].apply, inputs(lib, True)[:1])
        assert type(caught.value).__name__ == "GradcheckError"
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    assert messages[1].startswith("Jacobian mismatch for output 0 with respect to input 0,\nnumerical:tensor(")


def test_gradcheck_warns_for_single_precision():
    caught = []
    for lib in (torch, pt):
        with pytest.warns(UserWarning) as record:
            assert lib.autograd.gradcheck(lambda a: a * 2, lib.tensor([1.0, 2.0], requires_grad=True), eps=1e-2,
                                          atol=1e-2)
        caught.append([str(w.message) for w in record])
    assert caught[0] == caught[1]
    assert caught[1][0].startswith("Input #0 requires gradient and is not a double precision")


def test_gradcheck_leaves_inputs_unchanged():
    x = inputs(pt, True)[0]
    assert pt.autograd.gradcheck(lambda a: a.sin(), x)
    assert np.array_equal(x.detach().numpy(), X) and x.grad is None


# ----- Variable ------------------------------------------------------------------------------------


def variable_cases() -> dict:
    def V(lib):
        return lib.autograd.Variable

    def shares_data(lib):
        base = lib.tensor([1.0, 2.0])
        v = V(lib)(base)
        v[0] = 5.0
        return base, v is base

    def from_graph(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        v = V(lib)(x * 2)
        return v, v.is_leaf

    return {
        "plain": lambda lib: V(lib)(lib.tensor([1.0, 2.0])),
        "requires_grad": lambda lib: V(lib)(lib.tensor([1.0, 2.0]), requires_grad=True),
        "positional requires_grad": lambda lib: V(lib)(lib.tensor([1.0, 2.0]), True).is_leaf,
        "detaches": lambda lib: V(lib)(lib.tensor([1.0], requires_grad=True)),
        "from a graph": from_graph,
        "shares data": shares_data,
        "no data": lambda lib: V(lib)(),
        "isinstance": lambda lib: (isinstance(lib.ones(2), V(lib)), isinstance(3.0, V(lib)),
                                   isinstance(lib.ones(1).long(), V(lib))),
        "list": lambda lib: V(lib)([1.0, 2.0]),
        "float": lambda lib: V(lib)(3.0),
        "bad _grad_fn": lambda lib: V(lib)(lib.ones(1), False, False, True),
    }


def test_variable_matches_torch():
    same_as_torch(variable_cases(), expected_values=8)


def test_variable_import_and_volatile_warning():
    from pjtorch.autograd import Variable
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        Variable(pt.ones(1), volatile=True)
