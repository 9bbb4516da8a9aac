"""torch.compile / torch.compiler, the default device, can_cast and torch.vmap, compared with PyTorch."""
import itertools

import pytest

import pjtorch
from tensor_oracle import reference, same_output


@pytest.fixture
def torch_distribution_checks_restored():
    """PyTorch's compiler turns off torch.distributions' argument validation for the whole process."""
    torch = reference()
    validating = torch.distributions.Distribution._validate_args
    yield
    torch.distributions.Distribution.set_default_validate_args(validating)


@pytest.mark.usefixtures("torch_distribution_checks_restored")
def test_compile_wraps_modules_and_functions_as_pytorch_does():
    same_output("""
        import warnings
        warnings.simplefilter("ignore")  # PyTorch's compiler warns of torch.jit deprecations as it traces
        torch.manual_seed(0)
        m = torch.nn.Linear(2, 3)
        with torch.no_grad():
            m.weight.copy_(torch.arange(6.).view(3, 2))
            m.bias.fill_(0.5)
        cm = torch.compile(m, backend="eager")  # PyTorch's default backend would take seconds to build
        print(type(cm).__name__, cm)
        print(list(cm.state_dict().keys()), cm.weight.shape, cm.training, cm._orig_mod is m)
        print([n for n, _ in cm.named_parameters()], cm(torch.ones(1, 2)).detach())
        cm.eval()
        print(m.training)

        @torch.compile(backend="eager")
        def double(x):
            return x * 2

        @torch.compile(backend="eager", fullgraph=True)
        def plus_one(x):
            return x + 1

        print(double(torch.tensor([1., 2.])), double.__name__, plus_one(torch.tensor([1.])))
        print(torch.compiler.is_compiling())
        tr(lambda: torch.compile(3))
    """)


def test_default_device():
    same_output("""
        print(torch.get_default_device())
        torch.set_default_device("cpu")
        print(torch.get_default_device(), torch.ones(1).device, torch.tensor([1]).device)
        torch.set_default_device(None)
        print(torch.get_default_device())
    """)


def test_a_cuda_default_device_fails_where_there_is_no_gpu():
    if pjtorch.cuda.is_available() or reference().cuda.is_available():
        pytest.skip("a GPU is present")
    same_output("""
        torch.set_default_device("cuda")
        try:
            tr(lambda: torch.get_default_device())
            tr(lambda: torch.ones(2))
        finally:
            torch.set_default_device(None)
        print(torch.ones(1).device)
    """)


def test_can_cast_agrees_with_pytorch_for_every_pair():
    torch = reference()
    names = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64",
             "complex64", "complex128"]
    pairs = list(itertools.product(names, repeat=2))
    mismatches = [(a, b) for a, b in pairs
                  if pjtorch.can_cast(getattr(pjtorch, a), getattr(pjtorch, b))
                  != torch.can_cast(getattr(torch, a), getattr(torch, b))]
    assert len(pairs) == 144 and not mismatches


def test_torch_vmap_is_func_vmap():
    assert pjtorch.vmap is pjtorch.func.vmap
    same_output("""
        print(torch.vmap(lambda x: x * 2 + x.sum())(torch.arange(6.).view(2, 3)))
    """)
