"""``ssegen conform`` reports one violation per offending value, where it is, with what was expected."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from conftest import GENERATED, sse_body

from ssegen.conform import _violations, conform

USAGE = {
    "type": "object",
    "properties": {
        "prompt_tokens": {"type": "integer", "description": "Tokens in the prompt."},
        "details": {"type": "object", "properties": {"cached": {"type": "integer", "minimum": 0}}},
    },
}
CHUNK_SCHEMA = {
    "type": "object",
    "properties": {
        "object": {"type": "string", "enum": ["chat.completion.chunk"]},
        "usage": {"anyOf": [USAGE, {"type": "null"}]},
    },
}


def _check(instance: Any) -> list[dict[str, Any]]:
    errors = jsonschema.Draft202012Validator(CHUNK_SCHEMA).iter_errors(instance)
    return [v.__dict__ for v in _violations(1, "Chunk", errors)]


def test_a_bad_value_under_any_of_is_reported_at_its_own_pointer_with_expected_and_got() -> None:
    [violation] = _check({"usage": {"prompt_tokens": 3, "details": {"cached": -1}}})
    assert violation["pointer"] == "/usage/details/cached"
    assert violation["expected"] == {"type": "integer", "minimum": 0} and violation["got"] == -1


def test_a_value_failing_type_and_enum_counts_once() -> None:
    [violation] = _check({"object": None})
    assert violation["pointer"] == "/object" and violation["got"] is None
    assert violation["expected"] == {"type": "string", "enum": ["chat.completion.chunk"]}


def test_each_offending_value_is_reported_once_in_pointer_order() -> None:
    found = _check({"object": 1, "usage": {"prompt_tokens": "x", "details": {"cached": "y"}}})
    assert [v["pointer"] for v in found] == ["/object", "/usage/details/cached", "/usage/prompt_tokens"]


def test_conform_counts_a_null_role_once_and_prints_what_was_expected(tmp_path: Path) -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "mistral-small"}
    chunk["choices"] = [{"index": 0, "delta": {"role": None, "content": "Hi"}, "finish_reason": None}]
    capture = tmp_path / "capture.sse"
    capture.write_bytes(sse_body([json.dumps(chunk), "[DONE]"]))
    report = conform(GENERATED, "mistral", "/chat/completions", capture)
    [violation] = report.violations
    assert violation.pointer == "/choices/0/delta/role" and violation.got is None
    assert violation.format().endswith('(expected {"type": "string", "enum": ["assistant"]})')


def test_inlined_schema_validates_as_the_referencing_one() -> None:
    """conform validates against its schema with ``$defs`` references inlined once: the same
    errors at the same places, recursion kept as a reference, sibling keywords kept."""
    import jsonschema

    from ssegen.conform import _inlined

    schema = {
        "$defs": {
            "Node": {
                "type": "object",
                "required": ["v"],
                "properties": {"v": {"type": "integer"}, "next": {"$ref": "#/$defs/Node"}},
            },
            "Name": {"type": "string", "maxLength": 3},
        },
        "type": "object",
        "required": ["head", "name"],
        "properties": {"head": {"$ref": "#/$defs/Node"}, "name": {"$ref": "#/$defs/Name", "minLength": 2}},
    }
    inlined = _inlined(schema)
    assert inlined["properties"]["head"]["properties"]["next"] == {"$ref": "#/$defs/Node"}  # recursion kept
    assert inlined["properties"]["name"] == {"allOf": [{"type": "string", "maxLength": 3}, {"minLength": 2}]}
    for instance in (
        {"head": {"v": 1, "next": {"v": "x"}}, "name": "abcd"},
        {"head": {"next": {"v": 2}}, "name": "a"},
        {"head": {"v": 1}, "name": "ab"},
    ):
        want = sorted(
            (list(e.absolute_path), e.validator, e.message)
            for e in jsonschema.Draft202012Validator(schema).iter_errors(instance)
        )
        got = sorted(
            (list(e.absolute_path), e.validator, e.message)
            for e in jsonschema.Draft202012Validator(inlined).iter_errors(instance)
        )
        assert got == want


def test_a_schema_too_large_to_inline_is_kept_as_it_is() -> None:
    from ssegen.conform import _inlined

    defs = {
        f"L{i}": {"type": "object", "properties": {f"p{j}": {"$ref": f"#/$defs/L{i + 1}"} for j in range(10)}}
        for i in range(8)
    }
    defs["L8"] = {"type": "string"}
    schema = {"$defs": defs, "$ref": "#/$defs/L0"}
    assert _inlined(schema) is schema
