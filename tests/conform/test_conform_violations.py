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
