"""Scraped documentation pages become packages whose decoders handle the pages' own streams."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from conftest import GENERATED

from generated.siliconstorm import CHANNELS as SILICONSTORM
from generated.siliconstorm import ERROR_CODES as SILICONSTORM_ERRORS
from generated.xerotier import CHANNELS as XEROTIER
from generated.xerotier import VendorEvent
from generated.xerotier import models as xt
from ssegen.cli import main

CHAT = "/chat/completions"


def _read(provider: str, name: str) -> bytes:
    return (GENERATED / provider / "examples" / f"{name}.sse").read_bytes()


def test_xerotier_vendor_events_decode_to_typed_messages() -> None:
    chat = XEROTIER[CHAT]
    metadata = list(chat.decode([_read("xerotier", "chat-metadata-event-x_chatmetadata")]))
    assert [type(e) for e in metadata] == [xt.XChatMetadata]
    event = metadata[0]
    assert isinstance(event, xt.XChatMetadata)
    assert event.message_id == "msg_ext_abc123" and event.context is not None and event.context.total_tokens == 3648
    searching = chat.parse('{"type":"x_research.searching","name":"web_search","arguments":"{\\"query\\":\\"q\\"}"}')
    assert isinstance(searching, xt.XResearchSearching) and searching.name == "web_search"


def test_xerotier_unlisted_vendor_type_is_a_generic_vendor_event() -> None:
    chat = XEROTIER[CHAT]
    event = chat.parse('{"type":"x_brand_new.thing","value":1}')
    assert isinstance(event, VendorEvent) and event.type == "x_brand_new.thing" and event.payload["value"] == 1
    result = chat.accumulate([event])
    assert result.vendor_events == [{"type": "x_brand_new.thing", "value": 1}] and result.errors == []


def test_xerotier_error_frame_is_a_typed_error_and_content_before_it_is_kept() -> None:
    chat = XEROTIER[CHAT]
    body = (
        b'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m",'
        b'"choices":[{"index":0,"delta":{"content":"Partial"},"finish_reason":null}]}\n\n'
        b": heartbeat\n\n" + _read("xerotier", "mid-stream-errors")
    )
    events = list(chat.decode([body[i : i + 9] for i in range(0, len(body), 9)]))
    assert [type(e) for e in events] == [xt.ChatCompletionChunk, xt.StreamError, xt.StreamDone]
    error = events[1]
    assert isinstance(error, xt.StreamError) and error.error.type == "timeout_error"
    result = chat.accumulate(events)
    assert result.choices[0].content == "Partial" and result.complete
    assert [e["kind"] for e in result.errors] == ["error_event"]
    assert result.errors[0]["data"]["error"]["code"] == "timeout"


def test_xerotier_unknown_error_type_is_accepted() -> None:
    event = XEROTIER[CHAT].parse('{"error":{"message":"m","type":"quota_exceeded","code":"q"}}', event="error")
    assert isinstance(event, xt.StreamError) and event.error.type == "quota_exceeded"


def test_xerotier_streams_assemble() -> None:
    chat = XEROTIER[CHAT]
    annotated = chat.accumulate(chat.decode([_read("xerotier", "annotated-stream-example")]))
    assert annotated.choices[0].content == "The capital of France is Paris." and annotated.usage is not None
    refusal = chat.accumulate(chat.decode([_read("xerotier", "refusal-streaming")]))
    assert refusal.choices[0].refusal == "I'm sorry, but I cannot help with that request."
    tools = chat.accumulate(chat.decode([_read("xerotier", "tool-call-stream-example")]))
    call = tools.choices[0].tool_calls[0]
    assert (call.id, call.function) == ("call_abc", {"name": "get_weather", "arguments": '{"location":"Paris"}'})
    assert tools.choices[0].finish_reason == "tool_calls"


def test_siliconstorm_plain_stream_assembles_by_appending() -> None:
    chat = SILICONSTORM[CHAT]
    result = chat.accumulate(chat.decode([_read("siliconstorm", "streaming-inference-1")]))
    # The page's first example really streams two tab characters and empty deltas.
    assert result.choices[0].content == "\t\t" and result.choices[0].finish_reason == "stop" and result.complete


def test_siliconstorm_full_text_stream_assembles_by_replacing() -> None:
    chat = SILICONSTORM[CHAT]
    wire = _read("siliconstorm", "streaming-inference-2")
    cumulative = chat.accumulate(chat.decode([wire]), full_text=True)
    assert cumulative.choices[0].content == "Hello! How can I assist you today?"
    # `full_text` in the final chunk is authoritative in either mode.
    appended = chat.accumulate(chat.decode([wire]))
    assert appended.choices[0].content == "Hello! How can I assist you today?"


def test_siliconstorm_error_codes_are_exposed() -> None:
    assert SILICONSTORM_ERRORS[701] == "Insufficient balance"
    assert sorted(SILICONSTORM_ERRORS) == [701, 702, 801, 802, 9999]


@pytest.mark.parametrize(
    "fixture",
    sorted(p.relative_to(GENERATED).as_posix() for p in GENERATED.glob("*/examples/*.sse")),
)
def test_every_harvested_example_replays_through_conform(fixture: str) -> None:
    provider = fixture.split("/")[0]
    args = ["conform", provider, CHAT, str(GENERATED / fixture), "--json"]
    if "streaming-inference-2" in fixture:
        args.append("--full-text")
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
