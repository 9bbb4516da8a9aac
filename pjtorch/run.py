"""Run a PyTorch script on pjtorch without editing it: ``python -m pjtorch.run SCRIPT.py [ARGS...]``.

The script's ``import torch`` (and ``torch.nn``, ``torch.cuda``...) resolve to pjtorch, and
the script runs as ``__main__`` with ``sys.argv`` and ``sys.path[0]`` set as ``python SCRIPT.py
[ARGS...]`` would set them.
"""

from __future__ import annotations

import os
import runpy
import sys

from pjtorch._alias import install_as_torch

USAGE = "usage: python -m pjtorch.run SCRIPT.py [ARGS...]"


def run_script(script: str, args: list[str]) -> None:
    """Alias pjtorch as torch, then run ``script`` as ``__main__`` with ``args``."""
    install_as_torch()
    sys.argv = [script, *args]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr)
        raise SystemExit(0 if argv else 2)
    run_script(argv[0], argv[1:])


if __name__ == "__main__":
    main()
