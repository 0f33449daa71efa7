"""Synthesized instances (``ssegen.instances``) stay within a budget, however schemas fan out."""

from __future__ import annotations

import json
from pathlib import Path

from codemodel.build_ir import obj, opt, req, string

from ssegen.config import OutputSettings
from ssegen.instances import MAX_INSTANCE_VALUES, NO_INSTANCE, full_instance, minimal_instance
from ssegen.ir import Schema
from ssegen.pipeline import build


def _fan(levels: int, fan: int, *, required: bool) -> Schema:
    member = req if required else opt
    schema = obj("Leaf", member("x", string()))
    for level in range(levels):
        schema = obj(f"L{level}", *(member(f"p{i}", schema) for i in range(fan)))
    return schema


def _values(value: object) -> int:
    if isinstance(value, dict):
        return 1 + sum(_values(v) for v in value.values())
    if isinstance(value, list):
        return 1 + sum(_values(v) for v in value)
    return 1


def test_full_instance_of_a_fan_out_of_a_billion_values_stays_within_the_budget() -> None:
    schema = _fan(9, 10, required=False)  # 10^9 leaves if expanded whole
    full = full_instance(schema)
    assert full is not NO_INSTANCE and _values(full) <= 2 * MAX_INSTANCE_VALUES
    assert minimal_instance(schema) == {}


def test_required_members_beyond_the_budget_give_no_instance() -> None:
    schema = _fan(9, 10, required=True)
    assert full_instance(schema) is NO_INSTANCE and minimal_instance(schema) is NO_INSTANCE
    small = _fan(2, 3, required=True)
    assert _values(minimal_instance(small)) == 1 + 3 + 9 + 9


def test_a_spec_whose_refs_fan_out_nine_levels_generates(tmp_path: Path) -> None:
    schemas: dict[str, object] = {"L9": {"type": "object", "properties": {"x": {"type": "string"}}}}
    for level in range(9):
        refs = {f"p{i}": {"$ref": f"#/components/schemas/L{level + 1}"} for i in range(10)}
        schemas[f"L{level}"] = {"type": "object", "properties": refs}
    doc = {
        "asyncapi": "2.6.0",
        "info": {"title": "T", "version": "1"},
        "channels": {"/s": {"subscribe": {"message": {"name": "M", "payload": {"$ref": "#/components/schemas/L0"}}}}},
        "components": {"schemas": schemas},
    }
    folder = tmp_path / "specs" / "demo"
    folder.mkdir(parents=True)
    (folder / "asyncapi.json").write_text(json.dumps(doc), encoding="utf-8")
    [report] = build(tmp_path / "specs", ["demo"], OutputSettings())
    assert not report.failed, [d.format() for d in report.diagnostics]
    assert sum(len(text) for text in report.files.values()) < 1_000_000
