"""Streams out (issue 27): ``Channel.encode``/``encode_stream`` write typed events back as SSE
bytes, ``example_events``/``example_stream`` build streams from the spec's own examples.

For every generated provider and channel, the events of its examples (documented examples,
harvested example streams, a synthesized answer, and the captured Messages and Responses
streams) are encoded; decoding the bytes under any split into reads gives the same typed
events back (the terminator appended when they lacked it), they accumulate alike, and the
encoded stream conforms to the spec (``ssegen.conform``, 0 violations).
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import GENERATED, GENERATED_PROVIDERS
from helpers.flavours import package as flavour_package
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssegen.conform import conform

PROVIDERS = GENERATED_PROVIDERS
CAPTURED = GENERATED.parent / "tests" / "data" / "streams"
SYNTHESIZED = ("chat", "messages", "responses", "gemini", "cohere")
TEXT = "Hello there,\n  world! Ünïcödé 😀 done."

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _package(provider: str) -> Any:
    return importlib.import_module(f"generated.{provider}")


@dataclass(frozen=True)
class Case:
    """Typed events of one channel to encode."""

    provider: str
    channel: str
    name: str

    def events(self) -> list[Any]:
        chan = _package(self.provider).CHANNELS[self.channel]
        if self.name == "examples":
            return list(chan.example_events())
        if self.name == "synthesized":
            return list(chan.example_stream(text=TEXT, model="test-model"))
        if self.name.startswith("captured-"):
            wire = (CAPTURED / self.provider / f"{self.name.removeprefix('captured-')}.sse").read_bytes()
            return list(chan.decode([wire]))
        return list(chan.example_stream(stream=self.name))


def _cases() -> list[Case]:
    cases = []
    for provider in PROVIDERS:
        for address, chan in _package(provider).CHANNELS.items():
            cases.append(Case(provider, address, "examples"))
            cases.extend(Case(provider, address, name) for name in chan.encoding.streams)
            if chan.family in SYNTHESIZED:
                cases.append(Case(provider, address, "synthesized"))
            if (CAPTURED / provider).is_dir():
                cases.extend(
                    Case(provider, address, f"captured-{path.stem}")
                    for path in sorted((CAPTURED / provider).glob("*.sse"))
                )
    return cases


CASES = _cases()


def _expected(chan: Any, events: list[Any]) -> list[Any]:
    """``events`` as ``decode(encode_stream(events))`` gives them: the terminator appended
    when the spec declares one and the events lack it."""
    terminator = chan.encoding.terminator
    if terminator is None or any(type(e) is type(terminator) for e in events):
        return events
    return [*events, terminator]


def test_every_provider_channel_and_harvested_stream_is_covered() -> None:
    covered = {(c.provider, c.channel, c.name) for c in CASES}
    for provider in PROVIDERS:
        tests = importlib.import_module(f"generated.{provider}.test_conformance")
        for address in _package(provider).CHANNELS:
            assert (provider, address, "examples") in covered
        for name, address, _file, full_text in tests.STREAMS:
            assert full_text or (provider, address, name) in covered
    with_family = {
        provider
        for provider in PROVIDERS
        if any(chan.family in SYNTHESIZED for chan in _package(provider).CHANNELS.values())
    }
    # example_stream(text=...) synthesizes every built-in family; a stated plan (Ollama's)
    # says how events assemble, not how to write them, so it has no synthesis
    assert {c.provider for c in CASES if c.name == "synthesized"} == with_family
    assert with_family == set(PROVIDERS) - {"ollama"}
    assert any(c.name.startswith("captured-") for c in CASES)


@pytest.mark.parametrize("case", CASES, ids=[f"{c.provider}{c.channel}-{c.name}" for c in CASES])
@PROPERTY
@given(data=st.data())
def test_encoded_stream_decodes_to_the_same_events_under_any_split(case: Case, data: st.DataObject) -> None:
    chan = _package(case.provider).CHANNELS[case.channel]
    events = case.events()
    assert events or chan.encoding.streams.get(case.name) == (), case  # only comments (heartbeats)
    body = b"".join(chan.encode_stream(events))
    cuts = sorted(data.draw(st.lists(st.integers(0, len(body)), max_size=12), label="cuts"))
    reads = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
    decoded = list(chan.decode(reads))
    expected = _expected(chan, events)
    assert decoded == expected
    assert chan.accumulate(decoded).to_dict() == chan.accumulate(expected).to_dict()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.provider}{c.channel}-{c.name}" for c in CASES])
def test_encoded_stream_conforms_to_the_spec(case: Case, tmp_path: Path) -> None:
    chan = _package(case.provider).CHANNELS[case.channel]
    capture = tmp_path / "stream.sse"
    events = case.events()
    capture.write_bytes(b"".join(chan.encode_stream(events)))
    report = conform(GENERATED, case.provider, case.channel, capture)
    assert [v.format() for v in report.violations] == []
    assert report.events == len(_expected(chan, events))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_synthesized_stream_assembles_the_text(provider: str) -> None:
    for chan in _package(provider).CHANNELS.values():
        assert chan.family in SYNTHESIZED or provider == "ollama", chan  # ollama: a stated plan
        events = chan.example_stream(text=TEXT, model="test-model")
        result = chan.accumulate(events)
        texts = [c.content for c in result.choices] or [b.text for b in result.output] or [result.texts["text"]]
        assert texts == [TEXT], chan
        assert result.complete and result.errors == []
        # Cohere's events name no model; every other family's take the one asked for
        assert result.model == (None if chan.family == "cohere" else "test-model")
        if chan.family == "chat":
            assert result.choices[0].finish_reason == "stop"
        else:
            assert result.stop_reason in ("end_turn", "completed", "STOP", "COMPLETE", "stop")


@PROPERTY
@given(text=st.text(min_size=1, max_size=60))
def test_synthesized_chat_deltas_join_to_any_text(text: str) -> None:
    chan = _package("deepseek").CHANNELS["/chat/completions"]
    events = chan.example_stream(text=text)
    assert list(chan.decode([b"".join(chan.encode_stream(events))])) == events
    result = chan.accumulate(events)
    assert result.choices[0].content == text
    assert result.usage is not None and result.usage["completion_tokens"] == len(events) - 2


def test_a_member_the_spec_requires_is_written_even_as_null() -> None:
    # xerotier: choices[].finish_reason is required and nullable (specs/xerotier/streaming-api.md):
    # the class requires it too (no default for omit_defaults to leave out), so conform never
    # reports an encoded event lacking it.
    pkg = _package("xerotier")
    delta = pkg.models.ChatCompletionChunkChoiceDelta(content="Hi")
    with pytest.raises(TypeError, match="finish_reason"):
        pkg.models.ChatCompletionChunkChoice(index=0, delta=delta)
    chunk = pkg.models.ChatCompletionChunk(
        id="c1",
        object="chat.completion.chunk",
        created=1,
        model="m",
        service_tier=None,
        system_fingerprint=None,
        choices=[pkg.models.ChatCompletionChunkChoice(index=0, delta=delta, finish_reason=None)],
    )
    frame = pkg.CHANNELS["/chat/completions"].encode(chunk)
    payload = json.loads(frame.removeprefix(b"data: ").removesuffix(b"\n\n"))
    assert payload["choices"][0]["finish_reason"] is None
    assert payload["service_tier"] is None and payload["system_fingerprint"] is None
    assert msgspec.json.decode(msgspec.json.encode(chunk)) == payload
    # DeepSeek's spec does not require it: it stays out.
    ds = _package("deepseek")
    plain = ds.models.ChatCompletionChunk(
        id="c1",
        object="chat.completion.chunk",
        created=1,
        model="m",
        choices=[ds.models.ChatCompletionChunkChoice(index=0, delta=ds.models.ChatCompletionDelta(content="Hi"))],
    )
    assert b"finish_reason" not in ds.CHANNELS["/chat/completions"].encode(plain)


def test_named_events_terminator_and_unknown_events_are_written_as_the_wire_carries_them() -> None:
    messages = _package("anthropic").CHANNELS["/v1/messages"]
    start = next(e for e in messages.example_events() if type(e).__name__ == "MessageStartEvent")
    assert messages.encode(start).startswith(b'event: message_start\ndata: {"type":"message_start",')
    deepseek = _package("deepseek")
    chat = deepseek.CHANNELS["/chat/completions"]
    assert chat.encode(deepseek.models.StreamDone()) == b"data: [DONE]\n\n"
    unknown = deepseek.UnknownEvent(event="weird", data="line 1\n line 2\n", id="7")
    frame = chat.encode(unknown)
    assert frame == b"event: weird\nid: 7\ndata: line 1\ndata:  line 2\ndata: \n\n"
    [back] = chat.decode([frame])
    assert isinstance(back, deepseek.UnknownEvent)
    assert (back.event, back.data, back.id) == ("weird", "line 1\n line 2\n", "7")


def test_what_no_sse_event_can_carry_is_refused() -> None:
    deepseek = _package("deepseek")
    chat = deepseek.CHANNELS["/chat/completions"]
    with pytest.raises(ValueError, match="CR"):
        chat.encode(deepseek.UnknownEvent(event="message", data="a\rb"))
    with pytest.raises(ValueError, match="CR, LF or NUL"):
        chat.encode(deepseek.UnknownEvent(event="a\nb", data="x"))
    cut = deepseek.StreamTruncated(reason="cut", bytes_consumed=10, bytes_discarded=3)
    with pytest.raises(ValueError, match="cut stream"):
        chat.encode(cut)
    with pytest.raises(TypeError, match="not a message class"):
        chat.encode(object())
    # A cut stream is written up to the cut, without a terminator.
    events = chat.example_events()
    assert list(chat.encode_stream([events[0], cut, events[1]])) == [chat.encode(events[0])]


def test_terminator_is_appended_once() -> None:
    chat = _package("deepseek").CHANNELS["/chat/completions"]
    events = chat.example_events()
    assert type(events[-1]).__name__ == "StreamDone"
    body = b"".join(chat.encode_stream(events))
    assert body.count(b"data: [DONE]") == 1
    assert b"".join(chat.encode_stream(events[:-1])) == body
    # A channel without a terminator (Messages) gets none.
    messages = _package("anthropic").CHANNELS["/v1/messages"]
    assert messages.encoding.terminator is None
    assert b"[DONE]" not in b"".join(messages.encode_stream(messages.example_events()))


def test_usage_members_the_spec_does_not_list_are_written_as_sent() -> None:
    chat = _package("deepseek").CHANNELS["/chat/completions"]
    sent = {
        "prompt_tokens": 3,
        "completion_tokens": 1,
        "total_tokens": 4,
        "prompt_tokens_details": {"cached_tokens": 2},
    }
    data = json.dumps(
        {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": [], "usage": sent}
    )
    event = chat.parse(data)
    payload = json.loads(chat.encode(event).removeprefix(b"data: "))
    assert payload["usage"] == sent


@pytest.mark.parametrize("flavour", ["msgspec", "pydantic"])
def test_a_number_sent_as_an_integer_is_written_back_as_one(flavour: str) -> None:
    """JSON has one number type: ``created_at: 1741487325`` where the spec says ``number`` stays
    an int (OpenAI sends integers there; ``1741487325.0`` breaks clients that read an int64)."""
    package = _package("openai_responses") if flavour == "msgspec" else flavour_package("openai_responses", "pydantic")
    channel = package.CHANNELS["/v1/responses"]
    response = {"id": "r", "object": "response", "created_at": 1741487325, "status": "in_progress"}
    response |= {"model": "m", "output": [], "temperature": 1, "top_p": 0.5}
    data = json.dumps({"type": "response.created", "response": response, "sequence_number": 1})
    event = channel.parse(data, "response.created")
    assert event.response.created_at == 1741487325 and isinstance(event.response.created_at, int)
    written = json.loads(channel.encode(event).split(b"data: ", 1)[1])["response"]
    assert (written["created_at"], written["temperature"], written["top_p"]) == (1741487325, 1, 0.5)
    assert b'"created_at":1741487325,' in channel.encode(event)


def test_off_spec_members_are_written_back_where_they_were_sent() -> None:
    # Magistral-style list content where the spec says a string: decoded leniently.
    chat = _package("deepseek").CHANNELS["/chat/completions"]
    parts = [{"type": "text", "text": "Hi"}]
    data = json.dumps(
        {
            "id": "c",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": {"content": parts}}],
        }
    )
    event = chat.parse(data)
    assert event.off_spec == {"/choices/0/delta/content": parts}
    payload = json.loads(chat.encode(event).removeprefix(b"data: "))
    assert payload["choices"][0]["delta"]["content"] == parts
    assert "x-ssegen-off-spec" not in payload
    assert list(chat.decode([chat.encode(event)])) == [event]


def test_example_stream_choices_and_errors() -> None:
    xerotier = _package("xerotier").CHANNELS["/chat/completions"]
    first = next(iter(xerotier.encoding.streams))
    assert xerotier.example_stream() == xerotier.example_stream(stream=first)
    with pytest.raises(KeyError):
        xerotier.example_stream(stream="no-such-stream")
    # A channel with no harvested stream falls back to its documented examples.
    fim = _package("mistral").CHANNELS["/fim/completions"]
    assert not fim.encoding.streams
    assert fim.example_stream() == fim.example_events()
    messages = _package("anthropic").CHANNELS["/v1/messages"]
    stop = messages.example_stream(text="Hi", finish_reason="max_tokens")
    assert messages.accumulate(stop).stop_reason == "max_tokens"


def test_both_flavours_encode_alike() -> None:
    for provider in PROVIDERS:
        msgspec_channels = flavour_package(provider, "msgspec").CHANNELS
        pydantic_channels = flavour_package(provider, "pydantic").CHANNELS
        for address, chan in msgspec_channels.items():
            other = pydantic_channels[address]
            pairs = [(chan.example_events(), other.example_events())]
            if chan.family in SYNTHESIZED:
                pairs.append((chan.example_stream(text=TEXT), other.example_stream(text=TEXT)))
            for events, others in pairs:
                assert _frames(other.encode_stream(others)) == _frames(chan.encode_stream(events)), address


def _frames(frames: Any) -> list[tuple[list[bytes], Any]]:
    """Each SSE frame as its field lines before ``data:`` and its data as JSON (or text): the
    flavours may order an object's members differently."""
    out = []
    for frame in frames:
        head, _, data = frame.partition(b"data: ")
        text = data.decode().removesuffix("\n\n")
        out.append((head.splitlines(), json.loads(text) if text.startswith("{") else text))
    return out
