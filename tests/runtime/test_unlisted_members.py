"""Members of a delta that the spec does not list (issue 34 item 3).

OpenRouter streams a choice's reasoning as ``delta.reasoning`` plus a ``reasoning_details``
list; vLLM and Groq send ``reasoning`` (Groq a ``channel`` too). No chat spec lists them, and a
typed decode drops them. The rule (docs/results.md, "Members the spec does not list"): a
string member of a choice's delta (or of a block's delta) that the spec does not list is
appended to the named text of its name (``texts["reasoning"]``), any other value but null is
kept as sent (a choice's ``lists``, a block's ``deltas``), and each such member is reported
once per stream as ``{"kind": "member_unlisted", ...}`` (information: nothing is lost).

Minimal reproductions written from the issue, through the generated packages; the captures of
``../shared/corpus/streams`` when present (the expectations computed from their raw JSON).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import shared_path

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import mistral as gen_mistral

CHAT = gen_deepseek.CHANNELS["/chat/completions"]
MISTRAL = gen_mistral.CHANNELS["/chat/completions"]
MESSAGES = gen_anthropic.CHANNELS["/v1/messages"]
READ_SIZES = [1, 7, 4096, 0]  # 0: the whole body in one read

DETAIL_1 = {"type": "reasoning.text", "text": "Two and two", "format": "anthropic-claude-v1", "index": 0}
DETAIL_2 = {"type": "reasoning.text", "text": " make four.", "format": "anthropic-claude-v1", "index": 0}


def _chunk(delta: dict[str, Any], finish: str | None = None, index: int = 0) -> dict[str, Any]:
    return {
        "id": "gen-1",
        "object": "chat.completion.chunk",
        "created": 1765226419,
        "model": "anthropic/claude-sonnet-4.5",
        "choices": [{"index": index, "delta": delta, "finish_reason": finish}],
    }


def _openrouter_chunks() -> list[dict[str, Any]]:
    """OpenRouter's shape: ``reasoning`` (null, then strings) and ``reasoning_details`` on
    every delta while it reasons, then the answer."""
    return [
        _chunk({"role": "assistant", "content": "", "reasoning": None, "reasoning_details": []}),
        _chunk({"role": "assistant", "content": "", "reasoning": "Two and two", "reasoning_details": [DETAIL_1]}),
        _chunk({"role": "assistant", "content": "", "reasoning": " make four.", "reasoning_details": [DETAIL_2]}),
        _chunk({"role": "assistant", "content": "4"}),
        _chunk({"role": "assistant", "content": ""}, "stop"),
    ]


def _body(chunks: list[dict[str, Any]]) -> bytes:
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def _reads(body: bytes, size: int) -> list[bytes]:
    return [body] if size == 0 else [body[i : i + size] for i in range(0, len(body), size)]


def _result(channel: Any, body: bytes, size: int = 7) -> dict[str, Any]:
    result: dict[str, Any] = channel.accumulate(channel.decode(_reads(body, size))).to_dict()
    return result


@pytest.mark.parametrize("size", READ_SIZES)
def test_openrouter_reasoning_is_a_named_text_and_its_details_are_kept_as_sent(size: int) -> None:
    result = _result(CHAT, _body(_openrouter_chunks()), size)

    [choice] = result["choices"]
    assert choice["content"] == "4" and choice["finish_reason"] == "stop"
    assert choice["texts"] == {"reasoning": "Two and two make four."}
    assert choice["lists"] == {"reasoning_details": [[], [DETAIL_1], [DETAIL_2]]}
    assert result["errors"] == [
        {"kind": "member_unlisted", "pointer": "/choices/0/delta/reasoning", "member": "reasoning"},
        {"kind": "member_unlisted", "pointer": "/choices/0/delta/reasoning_details", "member": "reasoning_details"},
    ]
    assert result["complete"] is True


def test_vllm_and_groq_reasoning_on_a_spec_that_lists_reasoning_content_only() -> None:
    """Mistral's spec gets ``reasoning_content`` (a DeepSeek-shaped server's member), not
    ``reasoning``: Groq's ``reasoning`` and ``channel`` are named texts of the choice."""
    chunks = [
        _chunk({"role": "assistant", "content": "", "channel": "analysis", "reasoning": "We "}),
        _chunk({"reasoning": "add."}),
        _chunk({"content": "4", "reasoning_content": "(also this)"}, "stop"),
    ]
    for channel in (CHAT, MISTRAL):
        result = _result(channel, _body(chunks))
        [choice] = result["choices"]
        assert choice["texts"] == {"channel": "analysis", "reasoning": "We add."}
        assert (choice["content"], choice["reasoning_content"]) == ("4", "(also this)")
        assert [e["member"] for e in result["errors"]] == ["channel", "reasoning"]


def test_unlisted_members_of_each_choice_go_to_that_choice() -> None:
    chunks = [
        {
            **_chunk({"reasoning": "a"}),
            "choices": [_chunk({"reasoning": "a"})["choices"][0], _chunk({"reasoning": "b"}, index=1)["choices"][0]],
        },
        _chunk({"reasoning": "c", "content": "x"}, index=1),
    ]
    result = _result(CHAT, _body(chunks))
    assert [(c["index"], c["texts"]) for c in result["choices"]] == [(0, {"reasoning": "a"}), (1, {"reasoning": "bc"})]
    assert len([e for e in result["errors"] if e["kind"] == "member_unlisted"]) == 1  # once per stream


def test_a_stream_without_unlisted_members_decodes_strictly_and_reports_nothing() -> None:
    body = _body([_chunk({"role": "assistant", "content": "Hi"}), _chunk({"reasoning_content": "r"}, "stop")])

    events = list(CHAT.decode([body]))

    assert all(getattr(e, "off_spec", None) is None for e in events)
    result = CHAT.accumulate(events).to_dict()
    assert result["errors"] == [] and "texts" not in result["choices"][0] and "lists" not in result["choices"][0]


def test_an_event_with_unlisted_members_is_written_back_with_them() -> None:
    chunk = _openrouter_chunks()[1]
    [event] = [e for e in CHAT.decode([_body([chunk])]) if type(e).__name__ == "ChatCompletionChunk"]

    written = json.loads(CHAT.encode(event).split(b"data: ", 1)[1])
    assert written["choices"][0]["delta"] == chunk["choices"][0]["delta"]


def test_a_listed_member_of_another_type_stays_member_off_spec() -> None:
    """``content`` is listed (a string): a list there is off the spec, not unlisted."""
    parts = [{"type": "text", "text": "4"}]
    result = _result(MISTRAL, _body([_chunk({"content": parts, "reasoning": "r"}, "stop")]))
    kinds = sorted((e["kind"], e["pointer"]) for e in result["errors"])
    assert kinds == [
        ("member_off_spec", "/choices/0/delta/content"),
        ("member_unlisted", "/choices/0/delta/reasoning"),
    ]
    assert result["choices"][0]["content"] == "4" and result["choices"][0]["texts"] == {"reasoning": "r"}


def _event(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


def test_a_block_delta_with_unlisted_members_keeps_them() -> None:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 1, "output_tokens": 1},
        },
    }
    frames = [
        start,
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi", "gloss": "hello"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "!", "marks": [1, 2]}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_stop"},
    ]
    body = "".join(_event(f) for f in frames).encode()
    for size in READ_SIZES:
        result = _result(MESSAGES, body, size)
        [block] = result["output"]
        assert (block["text"], block["texts"], block["deltas"]) == ("Hi!", {"gloss": "hello"}, [{"marks": [1, 2]}])
        assert [(e["kind"], e["pointer"]) for e in result["errors"]] == [
            ("member_unlisted", "/delta/gloss"),
            ("member_unlisted", "/delta/marks"),
        ]


# -- real captures (../shared/corpus/streams, third-party data) ---------------------------------


def _capture_deltas(name: str) -> tuple[bytes, list[dict[str, Any]]]:
    body = (shared_path("corpus", "streams") / f"{name}.sse").read_bytes()
    deltas = []
    for line in body.decode().splitlines():
        if line.startswith("data: {"):
            chunk = json.loads(line[6:])
            deltas += [c["delta"] for c in chunk.get("choices") or [] if isinstance(c.get("delta"), dict)]
    return body, deltas


@pytest.mark.parametrize("name", ["openrouter_pai_reasoning", "openrouter_pai_stream_error", "groq_pai_error_event"])
def test_captured_reasoning_is_assembled_as_the_stream_sent_it(name: str) -> None:
    body, deltas = _capture_deltas(name)
    reasoning = "".join(d["reasoning"] for d in deltas if isinstance(d.get("reasoning"), str))
    details = [d["reasoning_details"] for d in deltas if d.get("reasoning_details") is not None]

    result = _result(CHAT, body, 4096)

    [choice] = result["choices"]
    assert reasoning and choice["texts"]["reasoning"] == reasoning
    assert choice.get("lists", {}).get("reasoning_details", []) == details
    unlisted = [e["member"] for e in result["errors"] if e["kind"] == "member_unlisted"]
    assert len(unlisted) == len(set(unlisted)) and "reasoning" in unlisted
