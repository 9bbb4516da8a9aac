"""Where the harness keeps its files, relative to this package, so it runs from any directory."""

from pathlib import Path

COMPAT_DIR = Path(__file__).resolve().parent
REPO_ROOT = COMPAT_DIR.parent
DEFAULT_MANIFEST = COMPAT_DIR / "manifest.json"
DEFAULT_SCRIPTS_DIR = COMPAT_DIR / "scripts"
DEFAULT_EXPECTED_DIR = COMPAT_DIR / "expected"
DEFAULT_RATCHET = COMPAT_DIR / "passing.txt"
