"""Real captured Gemini streams (``../shared/corpus/families/gemini/``, provenance in
``sources.json`` beside it: vercel/ai fixtures, Apache-2.0) through ``generated/gemini``, the
package written from ``specs/gemini/generate-content.yaml`` (issue 22, items 2 and 7).

Every event decodes to the typed ``GenerateContentResponse`` holding every member as sent (the
spec is not narrower than the wire: Vertex ``partialArgs``, image parts, a blocked prompt with no
candidates, thought signatures), with no ``UnknownEvent`` and no error; ``ssegen conform`` finds
no violation. The assembled result is compared, field by field, with an expectation computed from
the raw JSON without ssegen (``tests/helpers/families.py``).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import GENERATED, shared_path
from helpers.families import _json_path, gemini_expected, sse_events

from generated.gemini import CHANNELS
from generated.gemini import models as gemini_models
from ssegen.conform import conform

ADDRESS = "/models/{model}:streamGenerateContent"
CHANNEL = CHANNELS[ADDRESS]
#: the captures the corpus lists (sources.json); the test fails if one is missing or added
NAMES = (
    "vercel_gemini25_thought_parts",
    "vercel_gemini2_function_call_one_chunk",
    "vercel_gemini2_text_max_tokens",
    "vercel_gemini31_text_then_function_call",
    "vercel_gemini37_prompt_blocked",
    "vercel_gemini3_function_call_signature",
    "vercel_gemini3_image_signature",
    "vercel_gemini3_text_signature",
    "vercel_gemini3_thought_then_signature",
    "vercel_gemma4_thought_parts",
    "vercel_vertex_partial_args_array",
    "vercel_vertex_partial_args_parallel",
)


def _capture(name: str) -> Path:
    return shared_path("corpus", "families", "gemini", f"{name}.sse")


def _sources() -> dict[str, Any]:
    sources: dict[str, Any] = json.loads(shared_path("corpus", "families", "sources.json").read_text("utf-8"))
    return sources


def _decode(body: bytes, read_size: int) -> list[Any]:
    return list(CHANNEL.decode([body[i : i + read_size] for i in range(0, len(body), read_size)]))


def test_the_corpus_holds_the_captures_its_sources_list() -> None:
    folder = shared_path("corpus", "families", "gemini")
    assert sorted(path.stem for path in folder.glob("*.sse")) == sorted(NAMES)
    sources = _sources()
    for name in NAMES:
        source = sources[f"gemini/{name}.sse"]
        body = _capture(name).read_bytes()
        assert hashlib.sha256(body).hexdigest() == source["sha256"], name
        assert len(sse_events(body)) == source["events"], name


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read_size", [7, 4096])
def test_every_event_decodes_to_the_typed_response_with_every_member(name: str, read_size: int) -> None:
    body = _capture(name).read_bytes()
    events = _decode(body, read_size)
    raw = [json.loads(sse.data) for sse in sse_events(body)]
    assert [type(event) for event in events] == [gemini_models.GenerateContentResponse] * len(raw)
    for number, (event, payload) in enumerate(zip(events, raw, strict=True), 1):
        assert msgspec.to_builtins(event) == payload, f"{name} event {number}"
        assert not getattr(event, "off_spec", None), f"{name} event {number}"
    result = CHANNEL.accumulate(events)
    assert result.errors == []


@pytest.mark.parametrize("name", NAMES)
def test_conform_finds_no_violation(name: str) -> None:
    capture = _capture(name)
    report = conform(GENERATED, "gemini", ADDRESS, capture)
    assert [violation.format() for violation in report.violations] == []
    assert report.events == len(sse_events(capture.read_bytes()))


def test_the_captures_show_the_quirks_the_spec_admits() -> None:
    """The spec is checked against what only real streams show: Vertex streamed arguments, an
    image part, a blocked prompt with no candidates, thought signatures on empty text parts,
    usage members the Gemini reference does not list."""
    parts = {
        name: [
            part
            for sse in sse_events(_capture(name).read_bytes())
            for candidate in json.loads(sse.data).get("candidates") or []
            for part in (candidate.get("content") or {}).get("parts") or []
        ]
        for name in NAMES
    }
    assert any("partialArgs" in (p.get("functionCall") or {}) for p in parts["vercel_vertex_partial_args_array"])
    assert any("inlineData" in p for p in parts["vercel_gemini3_image_signature"])
    assert parts["vercel_gemini37_prompt_blocked"] == []
    last = parts["vercel_gemini3_text_signature"][-1]
    assert last["text"] == "" and last["thoughtSignature"]
    assert gemini_expected(_capture("vercel_gemini31_text_then_function_call").read_bytes()).usage == {
        "promptTokenCount": 83,
        "candidatesTokenCount": 21,
        "totalTokenCount": 282,
        "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 83}],
        "thoughtsTokenCount": 178,
        "serviceTier": "standard",
    }


def _arguments(call: Any) -> Any:
    """A tool call's arguments parsed: its ``function["arguments"]`` JSON text (empty: no
    arguments, ``{}``)."""
    text = call.function.get("arguments")
    return json.loads(text) if text else {}


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read_size", [7, 4096])
def test_captured_stream_assembles_to_the_independent_expectation(name: str, read_size: int) -> None:
    """``accumulate`` gives, field by field, what the raw JSON says (helpers/families.py).

    A Gemini stream assembles into ``result.choices``, one per candidate (as the built-in
    ``gemini`` family does): ``content`` the text, ``reasoning_content``
    the thought text, ``tool_calls`` each ``functionCall`` (``id``, ``function["name"]``,
    ``function["arguments"]`` the arguments as JSON text), ``finish_reason``; a candidate
    whose text parts are all empty has no text to compare."""
    body = _capture(name).read_bytes()
    expected = gemini_expected(body)
    result = CHANNEL.accumulate(_decode(body, read_size))
    assert result.errors == []
    assert {c.index: c.content for c in result.choices if c.content} == {k: v for k, v in expected.text.items() if v}
    thinking = {c.index: c.reasoning_content for c in result.choices if c.reasoning_content}
    assert thinking == {k: v for k, v in expected.thinking.items() if v}
    calls = [
        (choice.index, call.id, call.function.get("name"), _arguments(call))
        for choice in result.choices
        for call in choice.tool_calls
    ]
    assert calls == [(call.candidate, call.id, call.name, call.args) for call in expected.tool_calls]
    assert {c.index: c.finish_reason for c in result.choices if c.finish_reason} == expected.finish_reason
    assert result.stop_reason == expected.stop_reason
    assert result.usage == expected.usage
    assert result.complete is expected.complete
    assert (result.id, result.model) == (expected.id, expected.model)


# The expectation helper itself, on inputs small enough to check by eye.


def test_expectation_joins_vertex_partial_args_by_json_path() -> None:
    frames = [
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "willContinue": True}}]}}]},
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {
                                    "partialArgs": [{"jsonPath": "$.a[1].b", "stringValue": "x", "willContinue": True}],
                                    "willContinue": True,
                                }
                            }
                        ]
                    }
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {
                                    "partialArgs": [{"jsonPath": "$.a[1].b", "stringValue": "y"}],
                                    "willContinue": True,
                                }
                            }
                        ]
                    }
                }
            ]
        },
        {
            "candidates": [
                {
                    "content": {
                        "parts": [
                            {
                                "functionCall": {
                                    "partialArgs": [
                                        {"jsonPath": "$['c d']", "boolValue": False},
                                        {"jsonPath": "$.n", "nullValue": "NULL_VALUE"},
                                    ]
                                }
                            }
                        ]
                    }
                }
            ]
        },
        {
            "candidates": [
                {"content": {"parts": [{"text": "t"}, {"text": "u", "thought": True}]}, "finishReason": "STOP"}
            ]
        },
    ]
    body = "".join(f"data: {json.dumps(frame)}\r\n\r\n" for frame in frames).encode()
    expected = gemini_expected(body)
    assert [(call.name, call.args) for call in expected.tool_calls] == [
        ("f", {"a": [None, {"b": "xy"}], "c d": False, "n": None})
    ]
    assert (expected.text, expected.thinking, expected.stop_reason, expected.complete) == (
        {0: "t"},
        {0: "u"},
        "STOP",
        True,
    )


def test_expectation_reads_sse_framing_as_whatwg_says() -> None:
    body = b'\xef\xbb\xbf: comment\revent: x\ndata:{"a":\ndata: 1}\r\n\r\ndata: cut'
    assert [(e.event, e.data) for e in sse_events(body)] == [("x", '{"a":\n1}')]
    assert _json_path("$.a[0]['b c'].d") == ["a", 0, "b c", "d"]
    with pytest.raises(ValueError):
        _json_path("$.a[*]")


def test_a_chunk_with_one_member_of_the_wrong_type_keeps_the_rest_and_reports_it() -> None:
    """Every member of ``GenerateContentResponse`` is optional, so no required member makes a
    chunk "clearly" one (runtime ``lenient._closeness``): the members it declares do. A chunk
    whose candidate ``index`` came as a string is assembled from what fits, the member
    reported by JSON pointer; an object of members no message declares stays unknown."""
    chunk = {
        "candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}, "index": "zero"}],
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r1",
    }
    event = CHANNEL.parse(json.dumps(chunk))
    assert isinstance(event, gemini_models.GenerateContentResponse)
    assert event.off_spec == {"/candidates/0/index": "zero"}
    result = CHANNEL.accumulate([event]).to_dict()
    assert (result["choices"][0]["content"], result["model"]) == ("Hi", "gemini-2.5-flash")
    assert result["errors"] == [{"kind": "member_off_spec", "pointer": "/candidates/0/index", "got": "zero"}]
    stranger = CHANNEL.parse(json.dumps({"foo": 1, "bar": [2], "candidates": "none"}))
    assert type(stranger).__name__ == "UnknownEvent"
