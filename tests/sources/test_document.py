"""``sources/document.py``: libyaml's event parser and the pure-Python one read documents alike."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from ssegen.sources import document

_DUMP = """
import json, sys
if sys.argv[1] == "python":
    sys.modules["yaml._yaml"] = None  # PyYAML without libyaml: the pure-Python parser
from ssegen.diagnostics import Diagnostics
from ssegen.sources import document
assert (document._Parser.__module__ == "yaml.parser") == (sys.argv[1] == "python")
diagnostics = Diagnostics()
text = open(sys.argv[2], encoding="utf-8").read()
try:
    doc = document.parse_document(text, "x", diagnostics)
    result = {"data": doc.data, "lines": doc.lines}
except document.DocumentError as exc:
    result = {"error": [exc.code.name, exc.line]}
print(json.dumps({**result, "diagnostics": [d.format() for d in diagnostics]}))
"""


def _parsed(parser: str, path: Path) -> str:
    run = subprocess.run([sys.executable, "-c", _DUMP, parser, str(path)], capture_output=True, text=True, check=True)
    return run.stdout


@pytest.mark.parametrize(
    "path",
    [
        ROOT / "tests" / "sources" / "openapi" / "data" / "chat31" / "openapi.yaml",
        ROOT / "tests" / "specs_with_errors" / "duplicate-keys" / "demo" / "asyncapi.yaml",
        ROOT / "tests" / "specs_with_errors" / "yaml-unsafe-tag" / "demo" / "asyncapi.yaml",
        ROOT / "tests" / "specs_with_errors" / "yaml-malformed" / "demo" / "asyncapi.yaml",
    ],
    ids=lambda p: p.parent.parent.name,
)
def test_libyaml_and_pure_python_parsers_give_the_same_data_lines_and_diagnostics(path: Path) -> None:
    assert _parsed("c", path) == _parsed("python", path)


def test_deep_nesting_is_an_error_not_a_crash_with_either_parser() -> None:
    from ssegen.diagnostics import Diagnostics

    try:
        document.parse_document("[" * 100_000 + "]" * 100_000, "x", Diagnostics())
    except document.DocumentError as exc:
        assert exc.code.name == "yaml-too-deep"
    else:
        raise AssertionError("no error")
