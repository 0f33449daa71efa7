"""The framing is chosen per response from its Content-Type, and a body that does not fit the
framing is named for what it looks like (issue 34 item 5).

Cohere v2 answers NDJSON unless the request asks for ``text/event-stream``: such a capture read
through the channel's SSE framing used to end in one ``truncated`` error blaming ``iter_lines()``.
``decode``/``accumulate`` take ``content_type=`` (the response's ``Content-Type``); the channel
keeps every media type its spec lists (``Channel.media_types``); a body that gives no event and is
NDJSON, a JSON reply or an HTML page ends ``truncated`` with a reason saying so.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

import pytest

from generated import cohere, deepseek, ollama
from generated._runtime.ndjson import NDJSON
from generated._runtime.sse import SSE
from ssegen.runtime.events import body_looks_like

COHERE = cohere.CHANNELS["/chat"]
CHAT = deepseek.CHANNELS["/chat/completions"]


#: The SSE example stream's events as NDJSON lines, without its closing ``data: [DONE]`` (an
#: SSE line, not a JSON event: specs/cohere/chat-stream.yaml).
NDJSON_BODY = b"".join(
    json.dumps(json.loads(COHERE.encode(e).split(b"data: ", 1)[1])).encode() + b"\n"
    for e in COHERE.example_stream("Hello there")
    if not isinstance(e, cohere.models.StreamDone)
)


def _reads(body: bytes, size: int = 7) -> Iterator[bytes]:
    return (body[i : i + size] for i in range(0, len(body), size))


def test_cohere_channel_lists_both_media_types() -> None:
    assert COHERE.media_types == ("text/event-stream", "application/x-ndjson")
    assert COHERE.framing is SSE and CHAT.media_types == ("text/event-stream",)


@pytest.mark.parametrize(
    "content_type", ["application/x-ndjson", "application/x-ndjson; charset=utf-8", "Application/JSONL"]
)
def test_decode_reads_an_ndjson_answer_with_the_framing_its_content_type_names(content_type: str) -> None:
    result = COHERE.accumulate(COHERE.decode(_reads(NDJSON_BODY), content_type=content_type))
    assert result.output[0].text == "Hello there" and result.complete and result.errors == []


def test_accumulate_takes_the_content_type_of_a_stream_not_read_yet() -> None:
    result = COHERE.accumulate(COHERE.decode(_reads(NDJSON_BODY)), content_type="application/x-ndjson")
    assert result.output[0].text == "Hello there" and result.errors == []


def test_the_spec_framing_still_reads_the_other_framing_by_content_type() -> None:
    """Ollama's channel is NDJSON; an SSE answer is read as SSE when its Content-Type says so."""
    chat = ollama.CHANNELS["/api/chat"]
    lines = [json.dumps(json.loads(line)) for line in NDJSON_BODY_OLLAMA.splitlines()]
    sse = "".join(f"data: {line}\n\n" for line in lines).encode()
    result = chat.accumulate(chat.decode([sse], content_type="text/event-stream"))
    assert result.texts["text"] == "Hello!" and result.complete and result.errors == []


NDJSON_BODY_OLLAMA = (
    b'{"model":"q","created_at":"2025-06-02T17:04:11Z","message":{"role":"assistant","content":"Hello!"},"done":false}\n'
    b'{"model":"q","created_at":"2025-06-02T17:04:13Z","message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}\n'
)


def test_content_type_of_no_framing_reads_with_the_channels_own() -> None:
    assert CHAT.reader.framer_for("application/json") is CHAT.reader.framer
    assert CHAT.reader.framer_for(None) is CHAT.reader.framer
    assert CHAT.reader.framer_for("application/stream+json") == NDJSON.decoder


def test_content_type_with_events_already_decoded_is_refused() -> None:
    events = list(COHERE.decode([NDJSON_BODY], content_type="application/x-ndjson"))
    with pytest.raises(ValueError, match="chooses the framing of a body not read yet"):
        COHERE.accumulate(events, content_type="application/x-ndjson")


def test_async_decode_and_accumulate_take_the_content_type() -> None:
    async def reads() -> AsyncIterator[bytes]:
        for read in _reads(NDJSON_BODY):
            yield read

    async def run() -> tuple[str | None, str | None]:
        first = await COHERE.aaccumulate(COHERE.adecode(reads(), content_type="application/x-ndjson"))
        second = await COHERE.aaccumulate(COHERE.adecode(reads()), content_type="application/x-ndjson")
        return first.output[0].text, second.output[0].text

    assert asyncio.run(run()) == ("Hello there", "Hello there")


# -- what a body that does not fit the framing looks like -----------------------------------

HTML = (
    b"<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n\r\n<body>\r\n"
    b"<center><h1>502 Bad Gateway</h1></center>\r\n</body>\r\n</html>\r\n\r\n"
)
BODIES = [
    pytest.param(COHERE, NDJSON_BODY, "newline-delimited JSON", "content_type=", id="ndjson-as-sse"),
    pytest.param(
        CHAT,
        b'{"id": "x", "object": "chat.completion", "choices": []}\n',
        "one JSON document",
        "stream",
        id="json-reply",
    ),
    pytest.param(CHAT, b'{\n  "id": "x",\n\n  "choices": []\n}\n', "one JSON document", "stream", id="pretty-json"),
    pytest.param(CHAT, b'{"error": {"message": "Incorrect API key"}}', "a JSON error reply", "status", id="json-error"),
    pytest.param(CHAT, HTML, "an HTML page", "status", id="html-with-blank-lines"),
    pytest.param(
        CHAT, b"\xef\xbb\xbf<!DOCTYPE html><html><body>Bad gateway</body></html>", "an HTML page", "status", id="html"
    ),
]


@pytest.mark.parametrize(("channel", "body", "looks", "hint"), BODIES)
@pytest.mark.parametrize("size", [7, 1 << 20])
def test_a_body_of_another_kind_ends_truncated_saying_what_it_looks_like(
    channel: object, body: bytes, looks: str, hint: str, size: int
) -> None:
    events = list(channel.decode(_reads(body, size)))  # type: ignore[attr-defined]
    assert len(events) == 1 and type(events[0]).__name__ == "StreamTruncated"
    reason = events[0].reason
    assert reason.startswith(f"the body gave no event ({len(body)} bytes discarded): it looks like {looks}")
    assert hint in reason and "iter_lines()" not in reason
    result = channel.accumulate(channel.decode(_reads(body, size))).to_dict()  # type: ignore[attr-defined]
    [error] = result["errors"]
    assert (error["kind"], error["message"], error["bytes_discarded"]) == ("truncated", reason, len(body))
    assert result["complete"] is False


def test_stripped_line_ends_still_blame_iter_lines() -> None:
    body = b'data: {"id": "x"}data: [DONE]'
    [event] = list(CHAT.decode([body]))
    assert "iter_lines()" in event.reason


@pytest.mark.parametrize("body", [b"", b": keep-alive\n\n", b"\n\n"])
def test_a_body_of_no_event_but_sse_is_no_error(body: bytes) -> None:
    result = CHAT.accumulate(CHAT.decode([body]))
    assert result.errors == []


@pytest.mark.parametrize(
    ("head", "looks"),
    [
        (b'{"a": 1}\n{"a": 2}\n', "newline-delimited JSON"),
        (b'[1]\n{"a": 2}', "newline-delimited JSON"),
        (b'{"a": 1}', "one JSON document"),
        (b'{"a": \n{"b": 2}}', "one JSON document"),
        (b"  <html>", "an HTML page"),
        (b"data: x", None),
        (b"", None),
        (b"event: ping\n", None),
    ],
)
def test_body_looks_like(head: bytes, looks: str | None) -> None:
    found = body_looks_like(head)
    assert (found or "").startswith(looks or "") and (found is None) == (looks is None)
