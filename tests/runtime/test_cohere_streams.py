"""Cohere v2 chat example streams (``tests/data/cohere/``, each following an example stream of
Cohere's documentation, pages named in ``SOURCES.json``) through ``generated/cohere``, the
package written from ``specs/cohere/chat-stream.yaml`` (issue 22, items 3 and 7).

Every frame decodes to the message its ``event:`` line names (each message has ``x-sse-event``),
holding every member as sent, with no ``UnknownEvent`` and no error, with or without the
``event:`` lines; ``ssegen conform`` finds no violation. The assembled result is compared, field by
field, with an expectation computed from the raw JSON without ssegen (``tests/helpers/families.py``).
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from conftest import GENERATED, ROOT
from helpers.families import cohere_expected, sse_events

from generated.cohere import CHANNELS
from ssegen.conform import conform

DATA = ROOT / "tests" / "data" / "cohere"
SOURCES = json.loads((DATA / "SOURCES.json").read_text(encoding="utf-8"))
NAMES = sorted(name for name in SOURCES if not name.startswith("_"))
CHANNEL = CHANNELS["/chat"]


def _decode(body: bytes, read_size: int) -> list[Any]:
    return list(CHANNEL.decode([body[i : i + read_size] for i in range(0, len(body), read_size)]))


def test_every_stream_file_has_its_source_recorded() -> None:
    assert sorted(path.name for path in DATA.glob("*.sse")) == NAMES
    for name in NAMES:
        assert SOURCES[name]["follows"].startswith("https://docs.cohere.com/"), name
        assert len(sse_events((DATA / name).read_bytes())) == SOURCES[name]["events"], name


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read_size", [7, 4096])
def test_every_frame_decodes_to_the_message_its_event_names(name: str, read_size: int) -> None:
    body = (DATA / name).read_bytes()
    events = _decode(body, read_size)
    frames = sse_events(body)
    assert len(events) == len(frames)
    by_event: dict[str, str] = {}
    for number, (event, frame) in enumerate(zip(events, frames, strict=True), 1):
        payload = json.loads(frame.data)
        assert frame.event == payload["type"]
        assert type(event).__name__ != "UnknownEvent", f"{name} event {number}"
        assert msgspec.to_builtins(event) == payload, f"{name} event {number}"
        assert not getattr(event, "off_spec", None), f"{name} event {number}"
        by_event.setdefault(frame.event, type(event).__name__)
        assert by_event[frame.event] == type(event).__name__
    assert len(set(by_event.values())) == len(by_event)
    assert CHANNEL.accumulate(events).errors == []


@pytest.mark.parametrize("name", NAMES)
def test_data_only_frames_are_told_apart_by_their_type(name: str) -> None:
    """Without ``event:`` lines (a proxy that drops them) each payload is still its message."""
    body = (DATA / name).read_bytes()
    data_only = b"".join(line + b"\n" for line in body.split(b"\n") if not line.startswith(b"event:"))
    assert [type(e) for e in _decode(data_only, 4096)] == [type(e) for e in _decode(body, 4096)]


@pytest.mark.parametrize("name", NAMES)
def test_conform_finds_no_violation(name: str) -> None:
    report = conform(GENERATED, "cohere", "/chat", DATA / name)
    assert [violation.format() for violation in report.violations] == []
    assert report.events == SOURCES[name]["events"]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read_size", [7, 4096])
def test_example_stream_assembles_to_the_independent_expectation(name: str, read_size: int) -> None:
    """``accumulate`` gives, field by field, what the raw JSON says (helpers/families.py).

    Content blocks and tool calls are ``result.output`` blocks in stream order (``text``,
    ``thinking``; a tool call's ``id``, ``name`` and ``input``, the parsed arguments); the tool
    plan is the stream's named text ``result.texts["tool_plan"]`` and the citations its named
    list ``result.lists["citations"]`` (as the built-in cohere family names them)."""
    body = (DATA / name).read_bytes()
    expected = cohere_expected(body)
    result = CHANNEL.accumulate(_decode(body, read_size))
    assert result.errors == []
    blocks = result.output
    texts = {block.index: block.text for block in blocks if block.text}
    assert texts == {k: v for k, v in expected.text.items() if v}
    thinking = {block.index: block.thinking for block in blocks if block.thinking}
    assert thinking == {k: v for k, v in expected.thinking.items() if v}
    calls = [(block.index, block.id, block.name, block.input) for block in blocks if block.name is not None]
    assert calls == [(call.candidate, call.id, call.name, call.args) for call in expected.tool_calls]
    assert result.texts.get("tool_plan") == expected.tool_plan
    assert result.lists.get("citations", []) == expected.citations
    assert result.stop_reason == expected.stop_reason
    assert result.usage == expected.usage
    assert result.complete is expected.complete
    assert (result.id, result.model) == (expected.id, None)


#: The data-only terminator Cohere's live API sends after ``message-end`` (specs/cohere/chat-stream.yaml).
DONE = b"data: [DONE]\n\n"


def _data_only(body: bytes) -> bytes:
    """``body`` without its ``event:`` lines (a proxy that drops them)."""
    return b"".join(line + b"\n" for line in body.split(b"\n") if not line.startswith(b"event:"))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read_size", [7, 4096])
@pytest.mark.parametrize("named", [True, False], ids=["named", "data-only"])
def test_a_closing_done_is_the_declared_terminator_with_or_without_event_lines(
    name: str, read_size: int, named: bool
) -> None:
    """A stream ending ``message-end``, ``data: [DONE]`` (as the live API sends it) decodes to
    the messages of the stream without it plus ``StreamDone``, and ends complete without any
    error: not an ``UnknownEvent`` noted ``terminator_undeclared``, and, without ``event:``
    lines, every payload still told apart by its ``type`` (declaring ``[DONE]`` on the
    ``message`` event once cost the tag dispatch those frames go through)."""
    body = (DATA / name).read_bytes()
    body = body if named else _data_only(body)
    events = _decode(body + DONE, read_size)
    without = _decode((DATA / name).read_bytes(), 4096)
    assert [type(e) for e in events] == [*(type(e) for e in without), CHANNEL.messages["StreamDone"]]
    assert msgspec.to_builtins(events[:-1]) == msgspec.to_builtins(without)
    result = CHANNEL.accumulate(events)
    assert result.errors == [] and result.complete is True
    alone = CHANNEL.accumulate(without)
    assert (result.output, result.stop_reason, result.usage) == (alone.output, alone.stop_reason, alone.usage)


def test_an_encoded_stream_ends_with_the_data_only_done() -> None:
    """``encode_stream`` writes what the API sends: the events, then ``data: [DONE]`` without
    an ``event:`` line; decoded back it is the same events and the terminator."""
    events = _decode((DATA / "tool_calls.sse").read_bytes(), 4096)
    body = b"".join(CHANNEL.encode_stream(events))
    assert body.endswith(b"}\n\n" + DONE)
    assert [type(e) for e in _decode(body, 4096)] == [*(type(e) for e in events), CHANNEL.messages["StreamDone"]]


def test_expectation_reads_cohere_events_by_hand() -> None:
    frames = [
        {"id": "m", "type": "message-start", "delta": {"message": {"role": "assistant"}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "Plan "}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "it."}}},
        {
            "type": "tool-call-start",
            "index": 0,
            "delta": {"message": {"tool_calls": {"id": "c1", "function": {"name": "f", "arguments": '{"a"'}}}},
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": ": 1}"}}}},
        },
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"tokens": {"input_tokens": 1}}}},
    ]
    body = "".join(f"event: {f['type']}\ndata: {json.dumps(f)}\n\n" for f in frames).encode()
    expected = cohere_expected(body)
    assert [(c.id, c.name, c.args) for c in expected.tool_calls] == [("c1", "f", {"a": 1})]
    assert (expected.tool_plan, expected.stop_reason, expected.complete, expected.id) == (
        "Plan it.",
        "TOOL_CALL",
        True,
        "m",
    )
    assert expected.usage == {"tokens": {"input_tokens": 1}}
    with pytest.raises(ValueError, match="carries"):
        cohere_expected(b'event: content-end\ndata: {"type": "content-start", "index": 0}\n\n')
