"""The manifest: where each script came from and what keeps it from being an ordinary test.

``compat/manifest.json`` lists every script: a seed tutorial's code block with its seed file,
the block's position and line range in that seed and any repair of extraction damage, or an
example written for the report (``example``: what it shows), and for both two flags read
statically from the source (see ``compat.analysis``). ``python -m compat.manifest`` recomputes the flags after
a script is added or edited, keeping the provenance fields as they are.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from compat.analysis import needs_cuda, undefined_names
from compat.paths import DEFAULT_MANIFEST, DEFAULT_SCRIPTS_DIR

EXAMPLES = "examples"


@dataclass(frozen=True)
class ScriptEntry:
    """One script (a tutorial code block, or an example when ``seed`` is empty), with the flags
    that decide how it is judged."""

    name: str
    seed: str
    block: int
    needs_cuda: bool
    undefined_names: tuple[str, ...]
    timeout_s: float | None = None

    @property
    def group(self) -> str:
        """What the report counts it under: the seed's short id (``000``), or ``examples``."""
        return self.seed.split("_", 1)[0] if self.seed else EXAMPLES


def load_manifest(path: Path = DEFAULT_MANIFEST) -> list[ScriptEntry]:
    """The manifest's entries, in the order the report lists them."""
    records = json.loads(path.read_text(encoding="utf-8"))["scripts"]
    return [_entry_from_record(record) for record in records]


def _entry_from_record(record: dict) -> ScriptEntry:
    return ScriptEntry(
        name=record["name"],
        seed=record.get("seed", ""),
        block=record.get("block", 0),
        needs_cuda=record.get("needs_cuda", False),
        undefined_names=tuple(record.get("undefined_names", ())),
        timeout_s=record.get("timeout_s"),
    )


def refresh_flags(manifest: Path = DEFAULT_MANIFEST, scripts_dir: Path = DEFAULT_SCRIPTS_DIR) -> dict:
    """The manifest with ``needs_cuda`` and ``undefined_names`` recomputed from the sources."""
    data = json.loads(manifest.read_text(encoding="utf-8"))
    for record in data["scripts"]:
        source = (scripts_dir / f"{record['name']}.py").read_text(encoding="utf-8")
        record["needs_cuda"] = needs_cuda(source)
        record["undefined_names"] = undefined_names(source)
    return data


def write_manifest(data: dict, path: Path = DEFAULT_MANIFEST) -> None:
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def main() -> int:
    """Rewrite the manifest's flags; list scripts on disk that the manifest lacks."""
    data = refresh_flags()
    write_manifest(data)
    listed = {record["name"] for record in data["scripts"]}
    unlisted = sorted(p.stem for p in DEFAULT_SCRIPTS_DIR.glob("*.py") if p.stem not in listed)
    for name in unlisted:
        print(f"not in manifest: {name}", file=sys.stderr)
    return 1 if unlisted else 0


if __name__ == "__main__":
    sys.exit(main())
