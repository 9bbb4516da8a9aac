"""Tests of the compatibility harness itself, on fake scripts run by plain Python.

None of these needs pjtorch to work: the harness is pointed at a temporary scripts folder
and recordings, and runs scripts with ``python`` instead of ``python -m pjtorch.run``.
"""

from __future__ import annotations

import json
import sys
import textwrap
import time
from pathlib import Path

import pytest

from compat.__main__ import main as compat_main
from compat.analysis import needs_cuda, undefined_names
from compat.compare import first_mismatch, lines_match, number_format
from compat.expectations import Expectation, load_expectation, save_expectation
from compat.harness import Status, Suite, evaluate
from compat.manifest import ScriptEntry, load_manifest, refresh_flags
from compat.outputs import normalise_output
from compat.paths import DEFAULT_EXPECTED_DIR, DEFAULT_MANIFEST, DEFAULT_SCRIPTS_DIR
from compat.ratchet import newly_passing, read_ratchet, regressions, write_ratchet
from compat.record import random_lines


class FakeProject:
    """A scripts folder, recordings and a manifest in a temporary directory."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.scripts_dir = root / "scripts"
        self.expected_dir = root / "expected"
        self.manifest = root / "manifest.json"
        self.scripts_dir.mkdir()
        self.records: list[dict] = []

    def add(self, name: str, source: str, output: str, exit_code: int = 0, random: tuple[int, ...] = (),
            needs_cuda: bool = False, undefined: tuple[str, ...] = (), example: bool = False) -> ScriptEntry:
        """Write a script (a seed's block, or an example) and PyTorch's pretend recording of it."""
        (self.scripts_dir / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        variant = "cuda" if needs_cuda else ""
        save_expectation(self.expected_dir, name, Expectation(output, exit_code, frozenset(random)), variant)
        origin = {"example": "a fake example"} if example else {"seed": "900_fake.txt", "block": len(self.records) + 1}
        record = {"name": name, **origin, "needs_cuda": needs_cuda, "undefined_names": list(undefined)}
        self.records.append(record)
        self.manifest.write_text(json.dumps({"scripts": self.records}), encoding="utf-8")
        return load_manifest(self.manifest)[-1]

    def suite(self, timeout_s: float = 30.0, gpu_present: bool = False) -> Suite:
        return Suite(self.scripts_dir, self.expected_dir, (sys.executable,), timeout_s, self.root, gpu_present)

    def cli_args(self) -> list[str]:
        return ["--manifest", str(self.manifest), "--scripts-dir", str(self.scripts_dir),
                "--expected-dir", str(self.expected_dir), "--command", sys.executable, "--no-cuda"]


@pytest.fixture
def project(tmp_path: Path) -> FakeProject:
    return FakeProject(tmp_path)


# --- judging runs -----------------------------------------------------------------------

def test_matching_output_passes(project):
    entry = project.add("ok", "print('tensor([1., 2.])')\nprint(3)\n", "tensor([1., 2.])\n3\n")
    assert evaluate(entry, project.suite()).status is Status.PASSED


def test_wrong_output_fails_at_its_line(project):
    entry = project.add("wrong", "print('a')\nprint('tensor(8)')\n", "a\ntensor(8.)\n")
    outcome = evaluate(entry, project.suite())
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("mismatch at line 2")


def test_missing_and_extra_lines_fail(project):
    short = project.add("short", "print('a')\n", "a\nb\n")
    long = project.add("long", "print('a')\nprint('b')\n", "a\n")
    assert evaluate(short, project.suite()).reason.startswith("mismatch at line 2")
    assert evaluate(long, project.suite()).reason.startswith("mismatch at line 2")


def test_crash_is_reported_with_its_error_line(project):
    entry = project.add("crash", "print('a')\nraise ValueError('boom')\n", "a\nb\n")
    outcome = evaluate(entry, project.suite())
    assert outcome.status is Status.FAILED
    assert outcome.reason == "crash: ValueError: boom"


def test_crash_that_pytorch_also_has_passes(project):
    source = "print('a')\ndef f():\n    raise AttributeError('no eval')\nf()\n"
    entry = project.add("same_crash", source, "a\nAttributeError: no eval\n", exit_code=1)
    assert evaluate(entry, project.suite()).status is Status.PASSED


def test_different_exit_status_fails(project):
    entry = project.add("exit", "import sys\nprint('a')\nsys.exit(3)\n", "a\n")
    assert evaluate(entry, project.suite()).status is Status.FAILED


def test_timeout_is_reported_and_the_script_killed(project):
    entry = project.add("slow", "import time\nprint('a')\ntime.sleep(30)\n", "a\n")
    start = time.monotonic()
    outcome = evaluate(entry, project.suite(timeout_s=1))
    assert time.monotonic() - start < 15
    assert outcome.status is Status.FAILED
    assert outcome.reason.startswith("timeout after")


def test_missing_recording_fails(project):
    entry = project.add("unrecorded", "print(1)\n", "1\n")
    (project.expected_dir / "unrecorded.out").unlink()
    outcome = evaluate(entry, project.suite())
    assert outcome.status is Status.FAILED
    assert "no recorded" in outcome.reason


def test_needs_cuda_is_skipped_without_a_gpu_and_run_with_one(project):
    entry = project.add("gpu", "print('Using device: cuda')\n", "Using device: cuda\n", needs_cuda=True)
    skipped = evaluate(entry, project.suite(gpu_present=False))
    assert skipped.status is Status.SKIPPED
    assert skipped.reason == "needs CUDA (no GPU here)"
    assert evaluate(entry, project.suite(gpu_present=True)).status is Status.PASSED


def test_undefined_names_are_their_own_category_even_when_output_matches(project):
    source = "model = ...\nprint('a')\nmodel.eval()\n"
    output = "a\nAttributeError: 'ellipsis' object has no attribute 'eval'\n"
    entry = project.add("undef", source, output, exit_code=1, undefined=("model",))
    outcome = evaluate(entry, project.suite())
    assert outcome.status is Status.UNDEFINED
    assert outcome.reason.startswith("model (")


def test_random_lines_pass_with_other_values_of_the_same_format(project):
    entry = project.add("rand", "print('tensor([ 0.9999, -0.1111])')\n", "tensor([-0.1234,  0.5678])\n", random=(1,))
    assert evaluate(entry, project.suite()).status is Status.PASSED


def test_random_lines_fail_when_a_word_changes(project):
    entry = project.add("rand_word", "print('tensor([0.9999, 0.1111], dtype=torch.float64)')\n",
                        "tensor([0.1234, 0.5678])\n", random=(1,))
    assert evaluate(entry, project.suite()).status is Status.FAILED


# --- comparing lines ----------------------------------------------------------------------

@pytest.mark.parametrize("expected, actual", [
    ("tensor([[ 0.3367,  0.1288],", "tensor([[-0.3367, -0.9999],"),
    ("Max value: 1.2345 at index 4", "Max value: -0.0001 at index 7"),
    ("   256 |       1.23 |        N/A", "   256 |     123.45 |        N/A"),
    ("tensor([5, 2, 0, 7])", "tensor([1, 3, 6, 4])"),
    ("x = 1.5000e-03", "x = -9.9000e+02"),
    ("Grad fn: <MulBackward0 object at 0x7fcbf87f7c70>", "Grad fn: <MulBackward0 object at 0x7f0012ab34d0>"),
])
def test_random_comparison_accepts_same_format(expected, actual):
    assert lines_match(expected, actual, is_random=True)


@pytest.mark.parametrize("expected, actual", [
    ("tensor([0.3367, 0.1288])", "tensor([0.3367, 0.1288], requires_grad=True)"),
    ("Max value: 1.2345", "Min value: 1.2345"),
    ("tensor([0.3367, 0.1288])", "tensor([0.34, 0.13])"),
    ("tensor([0.3367, 0.1288])", "tensor([3.3670e-01, 1.2880e-01])"),
    ("tensor([5, 2])", "tensor([5., 2.])"),
    ("tensor([5, 2])", "tensor([5, 2, 1])"),
    ("Grad fn: <MulBackward0 object at 0x7fcbf87f7c70>", "Grad fn: <AddBackward0 object at 0x7fcbf87f7c70>"),
])
def test_random_comparison_rejects_changed_words_and_formats(expected, actual):
    assert not lines_match(expected, actual, is_random=True)


def test_ordinary_lines_compare_exactly():
    assert not lines_match("tensor(8.)", "tensor(9.)", is_random=False)
    assert not lines_match("tensor([1., 2.])", "tensor([1.,  2.])", is_random=False)


def test_number_format_names_integer_fixed_and_scientific():
    assert number_format("a -3 b 2.50 c 1.0e-05 torch.float16") == "a<int>b<fixed:2>c<sci:1>torch.float16"


def test_first_mismatch_reports_line_and_both_sides():
    mismatch = first_mismatch("a\nb\nc\n", "a\nB\nc\n")
    assert (mismatch.line, mismatch.expected, mismatch.actual) == (2, "b", "B")
    assert first_mismatch("a\n", "a\n") is None


# --- normalising output -------------------------------------------------------------------

def test_traceback_collapses_to_its_exception_line():
    raw = (
        "before\n"
        "Traceback (most recent call last):\n"
        '  File "/any/where/s.py", line 3, in <module>\n'
        "    model.eval()\n"
        "    ^^^^^^^^^^\n"
        "AttributeError: 'ellipsis' object has no attribute 'eval'\n"
    )
    assert normalise_output(raw) == "before\nAttributeError: 'ellipsis' object has no attribute 'eval'\n"


def test_warning_loses_its_location():
    raw = "/home/x/s.py:7: UserWarning: The .grad attribute of a non-leaf\n  print(y.grad)\nNone\n"
    assert normalise_output(raw) == "UserWarning: The .grad attribute of a non-leaf\nNone\n"


def test_recorder_marks_lines_that_change_between_runs():
    assert random_lines("a\n1\nb\n2\n", ["a\n9\nb\n2\n", "a\n1\nb\n3\n"]) == {2, 4}
    assert random_lines("a\nb\nc\n", ["a\n"]) == {2, 3}


# --- the ratchet --------------------------------------------------------------------------

def test_ratchet_detects_a_listed_script_that_fails(project, tmp_path):
    project.add("good", "print(1)\n", "1\n")
    project.add("bad", "print(2)\n", "1\n")
    ratchet = tmp_path / "passing.txt"
    write_ratchet(ratchet, ["good", "bad"])
    assert compat_main([*project.cli_args(), "--ratchet", str(ratchet)]) == 1
    write_ratchet(ratchet, ["good"])
    assert compat_main([*project.cli_args(), "--ratchet", str(ratchet)]) == 0


def test_update_ratchet_only_adds(project, tmp_path):
    project.add("good", "print(1)\n", "1\n")
    project.add("bad", "print(2)\n", "1\n")
    ratchet = tmp_path / "passing.txt"
    write_ratchet(ratchet, ["bad"])
    compat_main([*project.cli_args(), "--ratchet", str(ratchet), "--update-ratchet"])
    assert read_ratchet(ratchet) == ["bad", "good"]


def test_ratchet_counts_a_listed_script_that_did_not_run_as_a_regression(project):
    entry = project.add("good", "print(1)\n", "1\n")
    outcomes = [evaluate(entry, project.suite())]
    assert regressions(["good", "gone"], outcomes).keys() == {"gone"}
    assert newly_passing([], outcomes) == ["good"]


def test_report_ends_with_the_closing_count(project, capsys):
    project.add("good", "print(1)\n", "1\n")
    project.add("bad", "print(2)\n", "1\n")
    project.add("gpu", "print(1)\n", "1\n", needs_cuda=True)
    assert compat_main(project.cli_args()) == 0
    lines = capsys.readouterr().out.splitlines()
    verdicts = dict(line.split(None, 1) for line in lines[:3])
    assert verdicts["good"].startswith("passed")
    assert verdicts["bad"].startswith("failed: mismatch at line 1")
    assert verdicts["gpu"] == "skipped: needs CUDA (no GPU here)"
    assert lines[-1] == "1 passed, 1 failed, 1 skipped"


def test_examples_are_judged_like_seed_scripts_and_counted_in_their_own_row(project, capsys):
    project.add("s900_b01", "print(1)\n", "1\n")
    example = project.add("ex_timed", "print('trained 40 steps in 9.87 seconds')\n",
                          "trained 40 steps in 0.12 seconds\n", random=(1,), example=True)
    assert example.group == "examples" and not example.seed
    compat_main(project.cli_args())
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["s900_b01", "passed"] and lines[1].split()[:2] == ["ex_timed", "passed"]
    table = {line.split()[0]: line.split()[1:] for line in lines[3:7]}
    assert table["seed"][:2] == ["passed", "failed"]
    assert table["900"][:2] == table["examples"][:2] == ["1", "0"]
    assert table["total"][:2] == ["2", "0"]


# --- static flags -------------------------------------------------------------------------

def test_undefined_names_finds_placeholders_and_missing_names():
    source = "import torch\nmodel = ...\nmodel.eval()\nprint(model(test_data), len([1]))\n"
    assert undefined_names(source) == ["model", "test_data"]


def test_undefined_names_accepts_functions_loops_and_builtins():
    source = "import time\ndef f(n):\n    return [i * n for i in range(n)]\nfor k in range(2):\n    print(f(k), time)\n"
    assert undefined_names(source) == []


def test_needs_cuda_ignores_guarded_uses():
    guarded = "if torch.cuda.is_available():\n    x = x.cuda()\ny = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
    assert not needs_cuda(guarded)
    assert needs_cuda("x = x.cuda()\n")
    assert needs_cuda("y = torch.zeros(3, device='cuda')\n")
    assert needs_cuda("if torch.cuda.is_available():\n    pass\nelse:\n    x = x.to('cuda')\n")


# --- the real manifest and recordings -----------------------------------------------------

def test_manifest_lists_every_script_with_current_flags():
    listed = {entry.name for entry in load_manifest()}
    on_disk = {path.stem for path in DEFAULT_SCRIPTS_DIR.glob("*.py")}
    assert listed == on_disk
    assert refresh_flags() == json.loads(DEFAULT_MANIFEST.read_text(encoding="utf-8"))


def test_manifest_holds_examples_besides_the_seed_blocks():
    groups = {entry.name: entry.group for entry in load_manifest()}
    examples = sorted(name for name, group in groups.items() if group == "examples")
    assert "ex_classifier" in examples and all(name.startswith("ex_") for name in examples)
    assert all(name.startswith("s") for name, group in groups.items() if group != "examples")


def test_every_script_has_a_recording():
    for entry in load_manifest():
        variant = "cuda" if entry.needs_cuda else ""
        assert load_expectation(DEFAULT_EXPECTED_DIR, entry.name, variant) is not None, entry.name
