"""Tests of ``pjtorch._alias`` and ``pjtorch.run``: ``import torch`` must mean pjtorch.

Most tests copy the two real modules into a stub ``pjtorch`` package in a temporary folder,
so they check the aliasing without needing pjtorch's tensors to work, and run in a child
process so the aliasing never leaks into this one (where the real PyTorch may be loaded).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]

STUB_FILES = {
    "pjtorch/__init__.py": "IDENTITY = 'stub pjtorch'\n",
    "pjtorch/nn/__init__.py": "from pjtorch.nn import functional\n",
    "pjtorch/nn/functional.py": "def relu(x):\n    return max(x, 0)\n",
    "pjtorch/cuda.py": "def is_available():\n    return False\n",
}


@pytest.fixture
def stub_root(tmp_path: Path) -> Path:
    """A folder holding a stub pjtorch package with the real _alias.py and run.py."""
    for relative, text in STUB_FILES.items():
        path = tmp_path / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for module in ("_alias.py", "run.py"):
        shutil.copy(REPO_ROOT / "pjtorch" / module, tmp_path / "pjtorch" / module)
    return tmp_path


def run_under_pjtorch(root: Path, source: str, *args: str) -> subprocess.CompletedProcess:
    """Write ``source`` to a script in a sub-folder and run it with ``python -m pjtorch.run``."""
    script = root / "user" / "script.py"
    script.parent.mkdir(exist_ok=True)
    script.write_text(textwrap.dedent(source), encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "pjtorch.run", str(script), *args],
                          cwd=root, capture_output=True, text=True, timeout=120)


def test_import_torch_gives_the_pjtorch_module(stub_root):
    result = run_under_pjtorch(stub_root, """
        import torch, pjtorch
        print(torch is pjtorch, torch.__name__, torch.IDENTITY)
    """)
    assert result.stdout.split("\n")[0] == "True pjtorch stub pjtorch", result.stderr


def test_submodules_are_the_same_objects(stub_root):
    result = run_under_pjtorch(stub_root, """
        import torch.nn.functional as F
        from torch import nn
        import torch.cuda
        import pjtorch.nn.functional
        print(F is pjtorch.nn.functional, nn is pjtorch.nn, torch.cuda is pjtorch.cuda)
        print(F.relu(-2), torch.cuda.is_available())
        print(F.__spec__.name, F.__name__)
    """)
    assert result.stdout.splitlines() == ["True True True", "0 False", "pjtorch.nn.functional pjtorch.nn.functional"], result.stderr


def test_real_pytorch_is_never_reached(stub_root):
    result = run_under_pjtorch(stub_root, """
        import sys, torch
        try:
            import torch._C
        except ModuleNotFoundError as error:
            print(error)
        aliases = {name: module.__name__ for name, module in sys.modules.items() if name.split(".")[0] == "torch"}
        print(all(real.startswith("pjtorch") for real in aliases.values()))
    """)
    assert result.stdout.splitlines() == ["No module named 'torch._C'", "True"], result.stderr


def test_script_sees_main_argv_and_its_own_folder(stub_root):
    result = run_under_pjtorch(stub_root, """
        import os, sys
        print(__name__)
        print(sys.argv[1:])
        print(os.path.basename(sys.argv[0]), sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
    """, "a", "--flag")
    assert result.stdout.splitlines() == ["__main__", "['a', '--flag']", "script.py True"], result.stderr


def test_exit_status_and_errors_propagate(stub_root):
    assert run_under_pjtorch(stub_root, "raise SystemExit(3)\n").returncode == 3
    failed = run_under_pjtorch(stub_root, "raise ValueError('boom')\n")
    assert failed.returncode == 1
    assert failed.stderr.splitlines()[-1] == "ValueError: boom"


def test_run_without_a_script_prints_usage(stub_root):
    result = subprocess.run([sys.executable, "-m", "pjtorch.run"], cwd=stub_root, capture_output=True, text=True)
    assert result.returncode == 2
    assert "usage" in result.stderr


def test_install_refuses_when_torch_is_already_another_module(stub_root):
    code = "import sys, json; sys.modules['torch'] = json\nfrom pjtorch._alias import install_as_torch\ninstall_as_torch()\n"
    result = subprocess.run([sys.executable, "-c", code], cwd=stub_root, capture_output=True, text=True)
    assert result.returncode == 1
    assert "already imported" in result.stderr


def test_install_is_idempotent(stub_root):
    code = textwrap.dedent("""
        import sys
        from pjtorch._alias import install_as_torch
        first, second = install_as_torch(), install_as_torch()
        finders = [f for f in sys.meta_path if type(f).__name__ == "_AliasFinder"]
        print(first is second, len(finders))
    """)
    result = subprocess.run([sys.executable, "-c", code], cwd=stub_root, capture_output=True, text=True)
    assert result.stdout.strip() == "True 1", result.stderr


def test_the_real_package_is_what_torch_names(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text("import torch, pjtorch\nprint(torch is pjtorch, torch.__name__)\n", encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pjtorch.run", str(script)],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.stdout.strip() == "True pjtorch", result.stderr


def test_fft_and_special_import_as_torch_submodules(tmp_path):
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent("""
        import torch.fft
        import torch.special as S
        from torch import fft, special
        from torch.fft import rfft
        import pjtorch
        print(torch.fft is pjtorch.fft is fft, S is special is pjtorch.special, rfft is pjtorch.fft.rfft)
        print(torch.fft.__name__, S.__spec__.name)
    """), encoding="utf-8")
    result = subprocess.run([sys.executable, "-m", "pjtorch.run", str(script)],
                            cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert result.stdout.splitlines() == ["True True True", "pjtorch.fft pjtorch.special"], result.stderr


def test_classes_are_named_as_torch_names_them_under_the_alias_only(tmp_path):
    """Under the alias, `type(model)` prints PyTorch's class path and a whole-model checkpoint names classes as
    PyTorch does (so it loads in either library); plain `import pjtorch` keeps its own names, so pickle still
    finds the classes without the alias."""
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(f"""
        import pickle, sys
        if sys.argv[1] == "alias":
            import torch
        else:
            import pjtorch as torch
        model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU())
        print(type(model[0]).__module__, type(torch.optim.SGD(model.parameters(), lr=0.1)).__module__)
        torch.save(model, {str(tmp_path / "m.pth")!r})
        loaded = torch.load({str(tmp_path / "m.pth")!r}, weights_only=False)
        print(type(loaded) is type(model), type(pickle.loads(pickle.dumps(model))) is type(model))
    """), encoding="utf-8")
    runs = {"alias": [sys.executable, "-m", "pjtorch.run", str(script), "alias"],
            "plain": [sys.executable, str(script), "plain"]}
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    found = {name: subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=300, env=env)
             for name, command in runs.items()}
    assert found["alias"].stdout.splitlines() == ["torch.nn.modules.linear torch.optim.sgd", "True True"], \
        found["alias"].stderr
    assert found["plain"].stdout.splitlines() == ["pjtorch.nn.modules.linear pjtorch.optim.sgd", "True True"], \
        found["plain"].stderr
