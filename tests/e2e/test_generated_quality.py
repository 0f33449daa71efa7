"""Generated code is real code: black-formatted and mypy --strict clean."""

from __future__ import annotations

import black
from conftest import GENERATED, ROOT
from mypy import api as mypy_api


def test_generated_code_is_black_formatted() -> None:
    mode = black.Mode(line_length=100)
    for path in sorted(GENERATED.rglob("*.py")):
        source = path.read_text(encoding="utf-8")
        assert black.format_str(source, mode=mode) == source, path


def test_generated_code_passes_mypy_strict() -> None:
    stdout, stderr, status = mypy_api.run(["--strict", "--no-incremental", str(GENERATED)])
    assert status == 0, stdout + stderr


def test_ssegen_package_passes_mypy() -> None:
    stdout, stderr, status = mypy_api.run(["--no-incremental", str(ROOT / "src" / "ssegen")])
    assert status == 0, stdout + stderr
