"""The YAML/JSON document loader (``ssegen.sources.document``): YAML 1.2 booleans, and libyaml's event
parser and the pure-Python one reading documents alike."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider
from ssegen.sources import document
from ssegen.sources.document import parse_document

_DUMP = """
import json, sys
if sys.argv[1] == "python":
    sys.modules["yaml._yaml"] = None  # PyYAML without libyaml: the pure-Python parser
from ssegen.diagnostics import Diagnostics
from ssegen.sources import document
assert (document._LOADERS[0] is document._PyLoader) == (sys.argv[1] == "python")
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


@pytest.mark.parametrize("loader", document._LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "text", ["[" * 100_000 + "]" * 100_000, "".join(" " * i + "k:\n" for i in range(3000)) + " " * 3000 + "v\n"]
)
def test_deep_nesting_is_an_error_not_a_crash_with_either_parser(loader: type, text: str) -> None:
    # libyaml (PyYAML 6.0.4's build) refuses nesting past its own limit as a syntax error;
    # the code reported must not depend on which libyaml the machine has.
    with pytest.raises(document.DocumentError) as raised:
        document._compose_with(loader, text, 0)
    assert raised.value.code.name in ("yaml-too-deep", "yaml-syntax")
    with pytest.raises(document.DocumentError) as raised:
        document.parse_document(text, "x", Diagnostics())
    assert raised.value.code.name == "yaml-too-deep"


def test_a_syntax_error_is_reported_alike_whichever_parser_saw_it_first() -> None:
    with pytest.raises(document.DocumentError) as raised:
        document.parse_document("a: [1, 2\nb: }", "x", Diagnostics())
    with pytest.raises(document.DocumentError) as python_parser:
        document._compose_with(document._PyLoader, "a: [1, 2\nb: }", 0)
    assert raised.value.code.name == "yaml-syntax"
    assert (str(raised.value), raised.value.line) == (str(python_parser.value), python_parser.value.line)


def test_yaml_1_2_core_schema_numbers() -> None:
    text = "a: [1e-08, 1E5, -2e3, '1e5', 1.0e5, .5, 3., -.inf, .NaN, 012, 0o17, 0x1F, 1_000, 0b11, 190:20:30]\n"
    data = parse_document(text, "x.yaml", Diagnostics()).data["a"]
    assert data[:7] == [1e-08, 1e5, -2e3, "1e5", 1e5, 0.5, 3.0]
    assert data[7] == float("-inf") and data[8] != data[8]
    # 1.2 has no 1.1 octal (012), underscores, binary or base-60 numbers
    assert data[9:] == [12, 15, 31, "1_000", "0b11", "190:20:30"]
    assert all(type(v) is float for v in data[:3])


def test_json_exponent_minimum_is_a_number_constraint() -> None:
    text = '{"type": "number", "minimum": 1e-08, "maximum": 1E5, "default": -2e3}'
    assert parse_document(text, "x.json", Diagnostics()).data == {
        "type": "number",
        "minimum": 1e-08,
        "maximum": 100000.0,
        "default": -2000.0,
    }


def test_yaml_1_2_booleans_only_true_and_false_in_any_case() -> None:
    text = "a: [on, off, yes, no, y, n, On, OFF, Yes, NO, Y, N]\nb: [true, True, TRUE, false, False, FALSE]\non: 1\n"
    data = parse_document(text, "x.yaml", Diagnostics()).data
    assert data["a"] == ["on", "off", "yes", "no", "y", "n", "On", "OFF", "Yes", "NO", "Y", "N"]
    assert data["b"] == [True, True, True, False, False, False]
    assert data["on"] == 1  # a key `on:` is the string "on", not True


def test_yaml_1_2_booleans_keep_a_string_enum_of_on_off(tmp_path: Path) -> None:
    folder = tmp_path / "specs" / "p"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(
        """asyncapi: 2.6.0
info: {title: T, version: '1'}
channels:
  /lights:
    subscribe:
      message:
        name: Light
        payload:
          type: object
          properties:
            state: {type: string, enum: [on, off]}
""",
        encoding="utf-8",
    )
    result = load_provider(tmp_path / "specs", "p")
    assert result.provider is not None
    [message] = result.provider.channels[0].messages
    state = message.payload.property("state")
    assert state is not None and state.schema.enum == ("on", "off")


def test_aliases_repeating_a_long_text_are_refused_by_bytes_not_nodes() -> None:
    # 500 aliases of one 100 KB string: 501 nodes, far under MAX_NODES, but 50 MB of text
    text = "a: &s " + "x" * 100_000 + "\nb: [" + ", ".join(["*s"] * 500) + "]\n"
    with pytest.raises(document.DocumentError) as raised:
        parse_document(text, "x", Diagnostics())
    assert raised.value.code.name == "yaml-too-large" and "aliases repeat more than" in str(raised.value)
    # a few aliases of it are fine
    few = "a: &s " + "x" * 100_000 + "\nb: [*s, *s, *s]\n"
    assert len(parse_document(few, "x", Diagnostics()).data["b"]) == 3


@pytest.mark.parametrize(
    "limit",
    [
        # The same path at a hundredth of the limit: the default run's.
        pytest.param(document.MAX_NODES // 100, id="limit-lowered"),
        # At the limit itself: a million-item document, 18 s (.ci/run runs it).
        pytest.param(document.MAX_NODES, id="limit", marks=pytest.mark.slow),
    ],
)
def test_a_large_document_without_aliases_is_read_and_an_alias_expansion_is_refused(
    monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    """``limit`` stands for :data:`~ssegen.sources.document.MAX_NODES` (read at each alias)."""
    monkeypatch.setattr(document, "MAX_NODES", limit)
    plain = "a: [" + ", ".join(["1"] * (limit + 1)) + "]"
    assert len(parse_document(plain, "x", Diagnostics()).data["a"]) == limit + 1
    # each alias of a list of n items adds n + 1 nodes: n aliases of it add more than the limit
    # (at the limit: 1,000 aliases of a 1,000-item list)
    n = math.isqrt(limit)
    laughs = "a: &a [" + ", ".join(["1"] * n) + "]\nb: [" + ", ".join(["*a"] * n) + "]\n"
    with pytest.raises(document.DocumentError) as raised:
        parse_document(laughs, "x", Diagnostics())
    assert raised.value.code.name == "yaml-too-large" and "alias bomb" in str(raised.value)
    assert f"more than {limit} nodes" in str(raised.value)
