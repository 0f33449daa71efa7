"""``schemas.json`` keeps every JSON Schema keyword the source states, so ``conform`` enforces it."""

from __future__ import annotations

from pathlib import Path

import jsonschema
from click.testing import CliRunner

from ssegen.cli import main
from ssegen.ir import Provenance, SchemaRef
from ssegen.load import load_provider
from ssegen.normalize.jsonschema import export_provider

DOC = """asyncapi: 2.6.0
info: {title: T, version: '1'}
channels:
  /progress:
    subscribe:
      message:
        name: Progress
        payload:
          type: object
          required: [percentage]
          properties:
            percentage: {type: integer, minimum: 0, maximum: 100}
            label: {type: string, minLength: 1, pattern: '^[a-z]+$'}
            step: {type: number, multipleOf: 0.5, exclusiveMaximum: 10}
            tags: {type: array, items: {type: string}, uniqueItems: true}
            kind: {not: {$ref: '#/components/schemas/Forbidden'}}
            size:
              allOf: [{$ref: '#/components/schemas/Small'}]
components:
  schemas:
    Forbidden: {type: string, enum: [bad]}
    Small: {type: integer, maximum: 5}
"""


def _specs(tmp_path: Path) -> Path:
    folder = tmp_path / "specs" / "p"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(DOC, encoding="utf-8")
    return tmp_path / "specs"


def _validator(tmp_path: Path) -> jsonschema.Draft202012Validator:
    provider = load_provider(_specs(tmp_path), "p").provider
    assert provider is not None
    doc = export_provider(provider)
    return jsonschema.Draft202012Validator({"$defs": doc["$defs"], **doc["channels"]["/progress"]["Progress"]})


def test_value_constraints_are_kept_in_the_ir_and_schemas_json(tmp_path: Path) -> None:
    provider = load_provider(_specs(tmp_path), "p").provider
    assert provider is not None
    payload = provider.channels[0].messages[0].payload
    members = {p.name: p.schema.constraints for p in payload.properties}
    assert members["percentage"] == {"minimum": 0, "maximum": 100}
    assert members["label"] == {"minLength": 1, "pattern": "^[a-z]+$"}
    forbidden = members["kind"]["not"]  # the $ref kept, its target read once
    assert forbidden == SchemaRef(Provenance("p/asyncapi.yaml", 21, "/components/schemas/Forbidden"), None)
    assert forbidden.target == {"type": "string", "enum": ["bad"]}
    assert members["size"] == {"maximum": 5}  # allOf is merged: the part's own constraint
    doc = export_provider(provider)
    props = doc["$defs"]["Progress"]["properties"]
    assert props["percentage"] == {"type": "integer", "minimum": 0, "maximum": 100}
    assert props["tags"]["uniqueItems"] is True
    assert props["kind"] == {"not": {"$ref": "#/$defs/p~1asyncapi.yaml%23~1components~1schemas~1Forbidden"}}
    assert doc["$defs"]["p/asyncapi.yaml#/components/schemas/Forbidden"] == {"type": "string", "enum": ["bad"]}


def test_value_constraints_are_enforced_by_the_strict_schema(tmp_path: Path) -> None:
    validator = _validator(tmp_path)
    assert validator.is_valid({"percentage": 50, "label": "ok", "step": 2.5, "kind": "fine", "size": 3})
    for bad in (
        {"percentage": 500},
        {"percentage": -1},
        {"percentage": 1, "label": ""},
        {"percentage": 1, "label": "UPPER"},
        {"percentage": 1, "step": 0.3},
        {"percentage": 1, "step": 10},
        {"percentage": 1, "tags": ["a", "a"]},
        {"percentage": 1, "kind": "bad"},
        {"percentage": 1, "size": 6},
    ):
        assert not validator.is_valid(bad), bad


def test_conform_reports_a_value_over_the_maximum(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    specs = _specs(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["generate", "--specs", str(specs), "--out", "out", "-q", "p"])
    assert result.exit_code == 0, result.output
    stream = tmp_path / "stream.sse"
    stream.write_text('data: {"percentage": 50}\n\ndata: {"percentage": 500}\n\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["conform", "--out", "out", "p", "/progress", str(stream)])
    assert result.exit_code == 1, result.output
    assert "/percentage" in result.output and "500" in result.output


def test_constraint_of_the_wrong_shape_is_ignored_with_a_warning(tmp_path: Path) -> None:
    folder = tmp_path / "specs" / "p"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(
        DOC.replace("minimum: 0, maximum: 100", "minimum: 0, maximum: lots"), encoding="utf-8"
    )
    result = load_provider(tmp_path / "specs", "p")
    [warning] = [d for d in result.diagnostics if d.code == "schema-invalid"]
    assert warning.pointer.endswith("/percentage/maximum")
    assert result.provider is not None
    assert result.provider.channels[0].messages[0].payload.properties[0].schema.constraints == {"minimum": 0}
