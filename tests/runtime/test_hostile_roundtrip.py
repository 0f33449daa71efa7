"""What is written reads back, and what is whole is not cut (issue 35, item 7): NDJSON refuses to
encode an event it cannot read back, SSE one of an empty event type, ``encode`` leaves out a
required member the payload lacked, and a whole last NDJSON line holding a number msgspec refuses
is an ``UnknownEvent``, not a cut."""

from __future__ import annotations

import json

import pytest
from helpers.flavours import package as flavour_package

from generated.anthropic import CHANNELS as ANTHROPIC
from generated.deepseek import CHANNELS as DEEPSEEK
from generated.ollama import CHANNELS as OLLAMA
from generated.ollama import StreamTruncated, UnknownEvent
from generated.openai_responses import CHANNELS as RESPONSES
from generated.xerotier import CHANNELS as XEROTIER

CHAT = OLLAMA["/api/chat"]
SSE_CHAT = DEEPSEEK["/chat/completions"]


@pytest.mark.parametrize(
    "data",
    ["", "   ", "\t", "\ufeff{}", "\ufeff", "{}\n{}", "a\rb", "{}\r"],
    ids=["empty", "spaces", "tab", "bom", "bom-only", "lf", "cr", "trailing-cr"],
)
def test_ndjson_refuses_an_unknown_event_it_cannot_read_back(data: str) -> None:
    event = UnknownEvent(event="message", data=data)
    with pytest.raises(ValueError, match="UnknownEvent") as caught:
        CHAT.encode(event)
    assert "read back" in str(caught.value)
    with pytest.raises(ValueError, match="UnknownEvent"):
        b"".join(CHAT.encode_stream([event]))


@pytest.mark.parametrize("data", ["[1, 2]", "hello", " {} ", '{"a": "\\ufeff"}', "x\ufeffy"])
def test_ndjson_writes_an_unknown_event_that_reads_back(data: str) -> None:
    event = UnknownEvent(event="message", data=data)
    body = CHAT.encode(event)
    back = list(CHAT.decode([body]))
    assert len(back) == 1 and isinstance(back[0], UnknownEvent) and back[0].data == data
    assert (back[0].event, back[0].id) == ("message", "")
    assert list(CHAT.decode([CHAT.encode(back[0])])) == back  # what NDJSON decodes, it writes back


@pytest.mark.parametrize(("event_type", "id"), [("weird", ""), ("message", "7"), ("ping", "7")])
def test_ndjson_refuses_an_unknown_event_whose_type_or_id_no_line_carries(event_type: str, id: str) -> None:
    # An SSE event's type and id: the line would read back as a ``message`` event without id.
    event = UnknownEvent(event=event_type, data='{"x": 1}', id=id)
    with pytest.raises(ValueError, match="UnknownEvent") as caught:
        CHAT.encode(event)
    assert "carries no event type nor id" in str(caught.value)


@pytest.mark.parametrize("digits", [5_000, 50_000])
@pytest.mark.parametrize("lf", [b"", b"\n"])
def test_a_whole_last_line_holding_a_huge_number_is_not_truncated(digits: int, lf: bytes) -> None:
    line = b'{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "x"},'
    line += b' "done": false, "eval_count": ' + b"9" * digits + b"}"
    first = b'{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "a"}, "done": false}\n'
    stream = CHAT.decode([first, line + lf])
    events = list(stream)
    assert not stream.incomplete
    assert not any(isinstance(event, StreamTruncated) for event in events)
    assert len(events) == 2 and isinstance(events[1], UnknownEvent)
    assert events[1].data == line.decode() and events[1].reason
    result = CHAT.accumulate(events)
    assert not any(error["kind"] == "truncated" for error in result.errors)


def test_a_cut_last_line_is_still_truncated() -> None:
    stream = CHAT.decode([b'{"model": "m", "eval_count": ' + b"9" * 5_000])
    events = list(stream)
    assert stream.incomplete and isinstance(events[-1], StreamTruncated)


#: DeepSeek chunks, each lacking a member its spec requires (``id``, ``created``; a choice's
#: ``index``) or sending one as ``null``: each is decoded leniently and reported, and must be
#: written back as it came: a lacking member left out, a ``null`` one kept.
_OBJECT = b'"object":"chat.completion.chunk",'
_CHOICES = b'"choices":[{"index":0,"delta":{"content":"hi"}}]'
LACKING = {  # members in class order, as encode writes them
    "envelope": b"{" + _OBJECT + b'"model":"m",' + _CHOICES + b"}",
    "choice": b'{"id":"c",' + _OBJECT + b'"created":1,"model":"m","choices":[{"delta":{"content":"hi"}}]}',
    "sent-null": b'{"id":null,' + _OBJECT + b'"created":1,"model":"m",' + _CHOICES + b"}",
}


@pytest.mark.parametrize("payload", LACKING.values(), ids=LACKING.keys())
def test_encode_writes_a_required_member_the_payload_lacked_as_missing(payload: bytes) -> None:
    frame = b"data: " + payload + b"\n\n"
    [event] = SSE_CHAT.decode([frame])
    assert event.off_spec  # decoded leniently: the lacking (or null) member is reported
    assert SSE_CHAT.encode(event) == frame
    assert list(SSE_CHAT.decode([SSE_CHAT.encode(event)])) == [event]
    errors = SSE_CHAT.accumulate([event]).errors
    assert {error["pointer"] for error in errors if error["kind"] == "member_off_spec"} == set(event.off_spec)
    assert all(error["got"] is None for error in errors if error["kind"] == "member_off_spec")


def test_encode_leaves_out_a_member_the_spec_requires_as_nullable_when_a_lenient_payload_lacked_it() -> None:
    # xerotier's system_fingerprint is required, nullable ("always present, may be null"): written as
    # null for a chunk built in code (test_encoding), left out for one decoded from a payload lacking it.
    chat = XEROTIER["/chat/completions"]
    payload = b'{"object":"chat.completion.chunk","created":1,"model":"m","service_tier":null,"choices":[]}'
    frame = b"data: " + payload + b"\n\n"
    [event] = chat.decode([frame])
    assert event.off_spec == {"/id": None}
    body = chat.encode(event)
    assert json.loads(body.removeprefix(b"data: ")) == json.loads(payload)  # members in class order


@pytest.mark.parametrize("data", ["", "x", "{}"])
def test_sse_refuses_an_unknown_event_of_an_empty_type_it_cannot_read_back(data: str) -> None:
    # An empty ``event:`` field reads back as ``message`` (WHATWG dispatch): not the same event.
    event = UnknownEvent(event="", data=data, id="7")
    with pytest.raises(ValueError, match="UnknownEvent") as caught:
        SSE_CHAT.encode(event)
    assert "read back" in str(caught.value)


@pytest.mark.parametrize("data", ["", "\n", " ", "\ufeff", "data: x", "x\n"])
@pytest.mark.parametrize("event_type", ["message", "ping"])
def test_sse_writes_an_unknown_event_of_blank_data_that_reads_back(data: str, event_type: str) -> None:
    # A ``data:`` line with an empty value dispatches an event of empty data (WHATWG: the buffer
    # holds an LF until dispatch), so blank data, unlike in NDJSON, reads back.
    event = UnknownEvent(event=event_type, data=data, id="7")
    body = SSE_CHAT.encode(event)
    [back] = SSE_CHAT.decode([body])
    assert isinstance(back, UnknownEvent) and (back.event, back.data, back.id) == (event_type, data, "7")


#: Xerotier chunks holding every member its spec requires and forbids to be null, lacking one
#: it requires but allows to be null ("always present, may be null",
#: specs/xerotier/streaming-api.md): typed events all the same, reported nowhere, and written
#: back as they came, the lacking member left out (it was written as ``null``).
_HEAD = b'{"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
_NULLS = b'"service_tier":null,"system_fingerprint":null,'
_CHOICE = b'"index":0,"delta":{"content":"hi"}'
NULLABLE_LACKING = {
    "finish_reason": (_HEAD + _NULLS + b'"choices":[{' + _CHOICE + b"}]}", {"/choices/0/finish_reason"}),
    "service_tier": (
        _HEAD + b'"system_fingerprint":null,"choices":[{' + _CHOICE + b',"finish_reason":null}]}',
        {"/service_tier"},
    ),
    "logprobs-content": (
        _HEAD + _NULLS + b'"choices":[{' + _CHOICE + b',"finish_reason":"stop","logprobs":{"refusal":[]}}]}',
        {"/choices/0/logprobs/content"},
    ),
    "all": (
        _HEAD + b'"choices":[{' + _CHOICE + b'},{"index":1,"delta":{},"finish_reason":"stop"}]}',
        {"/service_tier", "/system_fingerprint", "/choices/0/finish_reason"},
    ),
}


@pytest.mark.parametrize("flavour", ["msgspec", "pydantic"])
@pytest.mark.parametrize(("payload", "lacking"), NULLABLE_LACKING.values(), ids=NULLABLE_LACKING.keys())
def test_encode_leaves_out_a_required_nullable_member_a_typed_payload_lacked(
    payload: bytes, lacking: set[str], flavour: str
) -> None:
    chat = flavour_package("xerotier", flavour).CHANNELS["/chat/completions"]
    frame = b"data: " + payload + b"\n\n"
    [event] = chat.decode([frame])
    assert type(event).__name__ == "ChatCompletionChunk"
    assert json.loads(chat.encode(event).removeprefix(b"data: ")) == json.loads(payload)
    assert event.off_spec == {} and lacking <= event.off_spec.missing  # nothing to report
    assert list(chat.decode([chat.encode(event)])) == [event]
    result = chat.accumulate([event])
    assert result.errors == [] and result.choices[0].content == "hi"


@pytest.mark.parametrize("flavour", ["msgspec", "pydantic"])
def test_encode_writes_a_required_nullable_member_sent_as_null_as_null(flavour: str) -> None:
    chat = flavour_package("xerotier", flavour).CHANNELS["/chat/completions"]
    payload = _HEAD + _NULLS + b'"choices":[{' + _CHOICE + b',"finish_reason":null,"logprobs":{"content":null}}]}'
    [event] = chat.decode([b"data: " + payload + b"\n\n"])
    assert event.off_spec is None  # typed, not lenient
    assert json.loads(chat.encode(event).removeprefix(b"data: ")) == json.loads(payload)


def test_messages_and_responses_nested_required_nullable_members_lacked_stay_out() -> None:
    # Anthropic's Message.stop_sequence (in message_start) and a Responses code interpreter
    # call's outputs (in output_item.added) are required and nullable.
    start = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant"}}
    start["message"] |= {
        "content": [],
        "model": "m",
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    item = {"id": "ci_1", "type": "code_interpreter_call", "status": "in_progress", "code": "", "container_id": "c"}
    added = {"type": "response.output_item.added", "sequence_number": 4, "output_index": 1, "item": item}
    cases = [
        (ANTHROPIC["/v1/messages"], "message_start", start),
        (RESPONSES["/v1/responses"], "response.output_item.added", added),
    ]
    for channel, event_type, payload in cases:
        data = json.dumps(payload, separators=(",", ":"))
        frame = f"event: {event_type}\ndata: {data}\n\n".encode()
        [event] = channel.decode([frame])
        head, _, written = channel.encode(event).partition(b"\ndata: ")
        assert head == f"event: {event_type}".encode() and json.loads(written) == payload
        assert event.off_spec == {} and event.off_spec.missing, event_type
        assert list(channel.decode([channel.encode(event)])) == [event]
        assert channel.accumulate([event]).errors == []


def test_sse_unknown_events_ids_read_back_as_they_came_the_last_event_id_persisting() -> None:
    # WHATWG HTML 9.2.6: the last event ID buffer persists across events ("b" has "7") until an
    # ``id`` field sets it, an empty one emptying it ("z" has ""): written back so it reads back.
    body = b"event: a\nid: 7\ndata: x\n\nevent: b\ndata: y\n\nid\ndata: z\n\nevent: c\ndata: w\n\n"
    events = list(SSE_CHAT.decode([body]))
    assert [(e.event, e.id, e.data) for e in events] == [
        ("a", "7", "x"),
        ("b", "7", "y"),
        ("message", "", "z"),
        ("c", "", "w"),
    ]
    written = b"".join(SSE_CHAT.encode_stream(events))
    assert list(SSE_CHAT.decode([written]))[: len(events)] == events
