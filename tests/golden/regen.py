"""Refresh the golden records on purpose: ``python tests/golden/regen.py``.

For every provider under ``specs/`` it writes ``tests/golden/ir/<provider>.json`` (what
``ssegen ir`` prints on stdout) and ``tests/golden/diagnostics/<provider>.txt`` (its diagnostics,
one per line, sorted). Commit the result only when the change in behaviour is meant, and name it
in the commit message; ``tests/test_golden.py`` fails on any other difference.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = Path(__file__).resolve().parent


def ir_and_diagnostics(provider: str) -> tuple[str, str]:
    """``(ir_json, diagnostics_text)`` of ``provider`` as ``ssegen ir`` prints them (stdout, stderr)."""
    result = subprocess.run(
        [sys.executable, "-m", "ssegen", "ir", "--specs", str(ROOT / "specs"), provider],
        cwd=ROOT,
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    return result.stdout, result.stderr


def providers() -> list[str]:
    """Every provider folder under ``specs/``, sorted."""
    return sorted(p.name for p in (ROOT / "specs").iterdir() if p.is_dir())


def main() -> None:
    for provider in providers():
        ir_json, diagnostics = ir_and_diagnostics(provider)
        for folder, text, suffix in (("ir", ir_json, ".json"), ("diagnostics", diagnostics, ".txt")):
            path = GOLDEN / folder / f"{provider}{suffix}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            print(path.relative_to(ROOT))


if __name__ == "__main__":
    main()
