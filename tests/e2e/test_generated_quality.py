"""Generated code is real code: black-formatted and mypy --strict clean."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import black
from conftest import GENERATED, ROOT
from mypy import api as mypy_api

from ssegen.formatting import format_sources


def test_generated_code_is_black_formatted() -> None:
    mode = black.Mode(line_length=100)
    for path in sorted(GENERATED.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert black.format_str(source, mode=mode) == source, path


def test_ruff_formats_the_generated_code_as_black_does() -> None:
    """So `formatter = "ruff"` gives the committed bytes (one ruff run over every file)."""
    sources = {
        path.relative_to(GENERATED).as_posix(): path.read_text(encoding="utf-8") for path in GENERATED.rglob("*.py")
    }
    assert {rel for rel, text in format_sources(sources, "ruff", 100).items() if text != sources[rel]} == set()


def test_generated_code_has_no_unused_import_or_variable() -> None:
    """A user's `ruff check` (pyflakes rules, no configuration) finds nothing in the output."""
    ruff = [str(Path(sys.executable).parent / "ruff"), "check", "--isolated", "--select", "F", "--no-cache"]
    done = subprocess.run([*ruff, str(GENERATED)], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr


def test_generated_code_passes_mypy_strict() -> None:
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(GENERATED)])
    assert status == 0, stdout + stderr


def test_ssegen_package_passes_mypy() -> None:
    stdout, stderr, status = mypy_api.run(["--no-incremental", str(ROOT / "src" / "ssegen")])
    assert status == 0, stdout + stderr
