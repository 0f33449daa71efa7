"""The YAML/JSON document loader (``ssegen.sources.document``)."""

from __future__ import annotations

from pathlib import Path

from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider
from ssegen.sources.document import parse_document


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
