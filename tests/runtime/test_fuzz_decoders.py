"""Robustness of every generated decoder (issue 6), property-based.

For each generated provider and channel, valid streams are built from the
channel's own examples (``EXAMPLES`` and ``STREAMS`` of the package's
generated conformance tests) and checked under any split into reads (down to
one byte, inside UTF-8 sequences, between CR and LF) and with LF, CRLF and CR
line ends; arbitrary and corrupted bytes must raise nothing but ``sse.SSEError``
subclasses, with invalid UTF-8 reported at its byte offset after the events
before it; events over ``max_event_bytes`` fail with ``EventTooLargeError``;
payloads that are not JSON, or match no message, come out as ``UnknownEvent``.

Profiles (registered here, selected with the ``SSEGEN_FUZZ`` environment
variable): ``quick`` (default, a few seconds in CI) and ``long`` (at least
100,000 generated cases in all)::

    SSEGEN_FUZZ=long pytest tests/test_fuzz_decoders.py -q
"""

from __future__ import annotations

import asyncio
import copy
import importlib
import json
import os
import re
from collections.abc import AsyncIterator, Iterable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import msgspec
import pytest
from conftest import GENERATED, GENERATED_PROVIDERS
from helpers.packages import conformance_examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

settings.register_profile(
    "ssegen-fuzz-quick",
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "ssegen-fuzz-long",
    max_examples=17_000,  # x 6 property tests = 102,000 cases
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
FUZZ = settings.get_profile("ssegen-fuzz-" + os.environ.get("SSEGEN_FUZZ", "quick"))
"""The selected profile; applied to each property test below (not loaded globally)."""

PROVIDERS = GENERATED_PROVIDERS


@dataclass(frozen=True)
class Stream:
    """A valid SSE body (LF line ends) of one channel."""

    provider: str
    channel: str
    name: str
    body: bytes
    full_text: bool


def _package(provider: str) -> ModuleType:
    return importlib.import_module(f"generated.{provider}")


def _frame(event: str, data: str) -> str:
    head = "" if event == "message" else f"event: {event}\n"
    return head + "".join(f"data: {line}\n" for line in data.split("\n")) + "\n"


def _streams() -> list[Stream]:
    streams: list[Stream] = []
    for provider in PROVIDERS:
        package = _package(provider)
        tests = importlib.import_module(f"generated.{provider}.test_conformance")
        for address, chan in package.CHANNELS.items():
            if chan.framing != "sse":  # NDJSON channels: tests/runtime/test_ndjson_channel.py
                continue
            examples = [e for e in conformance_examples(tests) if e[0] == address]
            if not examples:  # a channel the spec gives no example for
                examples = [(address, "message", "", "", '{"id": "x", "choices": []}', ""),
                            (address, "message", "", "", "[DONE]", "")]  # fmt: skip
            frames = [_frame(e[1], e[4]) for e in examples]
            body = "".join(frames)
            streams.append(Stream(provider, address, "examples", body.encode(), False))
            # The same, with what real streams interleave: comments, ids, retry,
            # a BOM, an unterminated last event.
            spiced = "\ufeff: hello\n\n" + "".join(
                f": keep-alive {i}\nid: {i}\n{'retry: 1000' + chr(10) if i % 3 == 0 else ''}{frame}"
                for i, frame in enumerate(frames)
            )
            streams.append(Stream(provider, address, "examples-spiced", (spiced + 'data: {"trunc').encode(), False))
            for name, channel, file, full_text in tests.STREAMS:
                if channel == address:
                    wire = (GENERATED / provider / file).read_bytes()
                    wire = wire.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
                    streams.append(Stream(provider, address, name, wire, full_text))
    return streams + _named_streams()


#: Captured streams of the named-event families (sources in tests/data/streams/SOURCES.json).
CAPTURED = GENERATED.parent / "tests" / "data" / "streams"


def _named_streams() -> list[Stream]:
    """The captured Messages and Responses streams, alone and with what breaks a run of
    named events decoded at once (``classify_named``): an event type no message has, a
    payload its message refuses, invalid JSON, an empty event type (``message``)."""
    breakers = (
        'event: not_in_the_spec\ndata: {"type": "not_in_the_spec"}\n\n'
        'event: ping\ndata: {"type": "ping", "extra": 1}\n\n'
        "event: ping\ndata: {not json\n\n"
        'event: \ndata: {"type": "ping"}\n\n'
        'event: content_block_stop\ndata: {"type": "content_block_stop"}\n\n'
    )
    streams: list[Stream] = []
    for provider, address in (("anthropic", "/v1/messages"), ("openai_responses", "/v1/responses")):
        for path in sorted((CAPTURED / provider).glob("*.sse")):
            wire = path.read_bytes().replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            streams.append(Stream(provider, address, f"captured-{path.stem}", wire, False))
            events = wire.split(b"\n\n")
            middle = len(events) // 2
            broken = b"\n\n".join(events[:middle]) + b"\n\n" + breakers.encode() + b"\n\n".join(events[middle:])
            streams.append(Stream(provider, address, f"captured-{path.stem}-broken", broken, False))
    return streams


STREAMS = _streams()
ENDS = (b"\n", b"\r\n", b"\r")


def test_every_provider_and_channel_is_covered() -> None:
    assert {"deepseek", "mistral", "siliconstorm", "xerotier"} <= set(PROVIDERS)
    covered = {(s.provider, s.channel) for s in STREAMS}
    for provider in PROVIDERS:
        for address, chan in _package(provider).CHANNELS.items():
            assert (provider, address) in covered or chan.framing == "ndjson"


def _with_ends(body: bytes, end: bytes) -> bytes:
    return body if end == b"\n" else body.replace(b"\n", end)


def _split(data: bytes, cuts: Iterable[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _decode(stream: Stream, reads: list[bytes], **kwargs: Any) -> tuple[list[Any], dict[str, Any], bool]:
    """(typed events, assembled result, incomplete) of ``reads``."""
    channel = _package(stream.provider).CHANNELS[stream.channel]
    events = channel.decode(reads, **kwargs)
    typed = list(events)
    result = channel.accumulate(channel.decode(reads, **kwargs), full_text=stream.full_text).to_dict()
    return typed, result, events.incomplete


_WHOLE: dict[tuple[Stream, bytes], tuple[list[Any], dict[str, Any], bool]] = {}


def _whole(stream: Stream, end: bytes) -> tuple[list[Any], dict[str, Any], bool]:
    key = (stream, end)
    if key not in _WHOLE:
        _WHOLE[key] = _decode(stream, [_with_ends(stream.body, end)])
    return _WHOLE[key]


def _tricky_cuts(data: bytes) -> list[int]:
    """Cut points inside UTF-8 sequences and between CR and LF."""
    cuts = [i for i in range(1, len(data)) if 0x80 <= data[i] < 0xC0]  # continuation bytes
    cuts += [m.start() + 1 for m in re.finditer(rb"\r\n", data)]
    return cuts


# --------------------------------------------------------------------------
# Splits


@pytest.mark.parametrize("stream", STREAMS, ids=lambda s: f"{s.provider}{s.channel}:{s.name}")
def test_one_byte_reads_and_tricky_cuts_give_the_same_events_and_result(stream: Stream) -> None:
    for end in ENDS:
        data = _with_ends(stream.body, end)
        expected = _whole(stream, end)
        assert _decode(stream, [data[i : i + 1] for i in range(len(data))]) == expected
        assert _decode(stream, _split(data, _tricky_cuts(data))) == expected


@pytest.mark.parametrize("stream", STREAMS, ids=lambda s: f"{s.provider}{s.channel}:{s.name}")
def test_accumulating_leaves_the_events_unchanged(stream: Stream) -> None:
    """The accumulator copies what it later writes into: a Vertex AI ``partialArgs`` piece
    continuing a call once wrote into the ``args`` dict of the event that opened it (the
    caller's event then read ``{"city": "Lis"}`` where the wire sent ``"Lisbon"``)."""
    channel = _package(stream.provider).CHANNELS[stream.channel]
    events = list(channel.decode([stream.body]))
    before = copy.deepcopy(events)
    channel.accumulate(events, full_text=stream.full_text)
    assert events == before


@FUZZ
@given(
    st.sampled_from(STREAMS),
    st.sampled_from(ENDS),
    st.lists(st.integers(min_value=0, max_value=1 << 20), max_size=40),
)
def test_any_split_gives_the_same_events_and_result(stream: Stream, end: bytes, cuts: list[int]) -> None:
    data = _with_ends(stream.body, end)
    assert _decode(stream, _split(data, cuts)) == _whole(stream, end)


@FUZZ
@given(st.sampled_from(STREAMS), st.data())
def test_batched_decoding_equals_event_by_event_classification(stream: Stream, data: st.DataObject) -> None:
    """Runs of plain ``data:`` events are classified at once; the result must be what
    classifying each SSE event alone gives (and the same through the async path)."""
    package = _package(stream.provider)
    channel = package.CHANNELS[stream.channel]
    body = _with_ends(stream.body, data.draw(st.sampled_from(ENDS)))
    reads = _split(body, data.draw(st.lists(st.integers(0, 1 << 20), max_size=20)))
    one_by_one = [channel.classify(e) for e in package.sse.iter_events(reads)]
    assert _complete_events(package, channel.decode(reads)) == one_by_one
    expected = channel.accumulate(one_by_one, full_text=stream.full_text).to_dict()
    if not _whole(stream, b"\n")[2]:
        assert channel.accumulate(channel.decode(reads), full_text=stream.full_text).to_dict() == expected

    async def areads() -> AsyncIterator[bytes]:
        for read in reads:
            yield read

    async def run() -> tuple[list[Any], dict[str, Any]]:
        typed = [event async for event in channel.adecode(areads())]
        result = await channel.aaccumulate(channel.adecode(areads()), full_text=stream.full_text)
        return typed, result.to_dict()

    typed, result = asyncio.run(run())
    assert _complete_events(package, typed) == one_by_one
    assert result == channel.accumulate(channel.decode(reads), full_text=stream.full_text).to_dict()


# --------------------------------------------------------------------------
# Arbitrary and corrupted bytes


def _sse_errors(stream: Stream) -> type[Exception]:
    error: type[Exception] = _package(stream.provider).sse.SSEError
    return error


def _complete_events(package: ModuleType, events: Iterable[Any]) -> list[Any]:
    """The events of a prefix decoded alone, without the ``StreamTruncated`` it may end
    with (the stream that raised ends with the error instead)."""
    return [e for e in events if not isinstance(e, package.StreamTruncated)]


def _check_decode_of_arbitrary(stream: Stream, body: bytes, reads: list[bytes], limit: int | None) -> None:
    package = _package(stream.provider)
    channel = package.CHANNELS[stream.channel]
    kwargs = {} if limit is None else {"max_event_bytes": limit}
    got: list[Any] = []
    try:
        for event in channel.decode(reads, **kwargs):
            got.append(event)
        channel.accumulate(channel.decode(reads, **kwargs), full_text=stream.full_text).to_dict()
    except package.sse.InvalidUTF8Error as exc:
        # The first invalid byte of the complete lines, counted from the stream start,
        # and every event before its line is delivered first.
        with pytest.raises(UnicodeDecodeError) as info:
            body.decode("utf-8")
        assert exc.offset == info.value.start
        line_start = max(body.rfind(b"\n", 0, exc.offset), body.rfind(b"\r", 0, exc.offset)) + 1
        assert got == _complete_events(package, channel.decode([body[:line_start]], **kwargs))
    except package.sse.EventTooLargeError as exc:
        assert limit is not None and exc.limit == limit
        assert got == _complete_events(package, channel.decode([body[: exc.offset]], **kwargs))
    # Anything else (not an SSEError) propagates and fails the test.


@FUZZ
@given(
    st.sampled_from(STREAMS),
    st.binary(max_size=300),
    st.lists(st.integers(0, 1000), max_size=8),
)
def test_arbitrary_bytes_raise_only_documented_errors(stream: Stream, body: bytes, cuts: list[int]) -> None:
    _check_decode_of_arbitrary(stream, body, _split(body, cuts), None)


_NOISE = st.sampled_from(
    [b"\xff", b"\xc3", b"\xe4\xbd", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xc0\xaf", b"\r", b"\n",
     b"\n\n", b"\r\n", b":", b"data:", b"data: ", b"event: x\n", b"id: \x00\n", b"retry: 5\n",
     b"\xef\xbb\xbf", b"{", b"}", b'"', b"[DONE]", b"\x00", "👋".encode()]
)  # fmt: skip


@FUZZ
@given(
    st.sampled_from(STREAMS),
    st.sampled_from(ENDS),
    st.lists(st.tuples(st.integers(0, 1 << 20), _NOISE), min_size=1, max_size=6),
    st.lists(st.integers(0, 1 << 20), max_size=12),
    st.sampled_from([None, None, 64, 300, 4096]),
)
def test_corrupted_streams_raise_only_documented_errors(
    stream: Stream,
    end: bytes,
    noise: list[tuple[int, bytes]],
    cuts: list[int],
    limit: int | None,
) -> None:
    body = _with_ends(stream.body, end)
    for position, inserted in noise:
        position %= len(body) + 1
        body = body[:position] + inserted + body[position:]
    _check_decode_of_arbitrary(stream, body, _split(body, cuts), limit)


# --------------------------------------------------------------------------
# Bounded event size


@FUZZ
@given(
    st.sampled_from(STREAMS),
    st.integers(min_value=1, max_value=2000),
    st.integers(min_value=1, max_value=5000),
    st.sampled_from(ENDS),
)
def test_an_event_over_the_limit_fails_and_memory_stays_bounded(
    stream: Stream, limit: int, read_size: int, end: bytes
) -> None:
    package = _package(stream.provider)
    channel = package.CHANNELS[stream.channel]
    big = b"data: " + b"x" * (limit + 1) + end + end
    body = _with_ends(b"data: [DONE]\n\n", end) + big
    fed = 0

    def reads() -> Iterable[bytes]:
        nonlocal fed
        for i in range(0, len(body), read_size):
            fed += read_size
            yield body[i : i + read_size]
        # A never-ending line: the decoder must stop reading it.
        while True:
            fed += read_size
            yield b"y" * read_size

    got: list[Any] = []
    with pytest.raises(package.sse.EventTooLargeError) as info:
        for event in channel.decode(reads(), max_event_bytes=limit):
            got.append(event)
    assert info.value.limit == limit
    assert fed <= len(body) + read_size  # stopped at the oversized event
    small = channel.decode([_with_ends(b"data: [DONE]\n\n", end)], max_event_bytes=limit)
    if limit >= len("data: [DONE]"):
        assert got == list(small)


def test_default_limit_is_a_few_mib() -> None:
    for provider in PROVIDERS:
        limit = _package(provider).sse.DEFAULT_MAX_EVENT_BYTES
        assert 1 << 20 <= limit <= 16 << 20


# --------------------------------------------------------------------------
# Payloads matching no message


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4),
    max_leaves=12,
)


def _literals(stream: Stream) -> set[str]:
    tests = importlib.import_module(f"generated.{stream.provider}.test_conformance")
    found = set()
    for example in conformance_examples(tests):
        try:
            json.loads(example[4])
        except ValueError:
            found.add(example[4])
    return found


@FUZZ
@given(
    st.sampled_from(STREAMS),
    st.lists(
        st.one_of(
            st.text(st.characters(blacklist_categories=["Cs"], blacklist_characters="\r\n"), max_size=40),
            _JSON.map(json.dumps),
            st.sampled_from(['{"object": "something.else"}', '{"choices": 1}', "[1, 2", "{", "null"]),
        ),
        min_size=1,
        max_size=6,
    ),
    st.sampled_from(["message", "message", "error", "x_unknown"]),
)
def test_payloads_matching_no_message_are_unknown_events_with_raw_text(
    stream: Stream, payloads: list[str], event_type: str
) -> None:
    package = _package(stream.provider)
    channel = package.CHANNELS[stream.channel]
    literals = _literals(stream)
    body = "".join(_frame(event_type, p) for p in payloads).encode()
    events = list(channel.decode([body[i : i + 7] for i in range(0, len(body), 7)]))
    assert len(events) == len(payloads)  # nothing dropped
    classes = set(channel.messages.values()) | {package.VendorEvent}
    for event, payload in zip(events, payloads, strict=True):
        if isinstance(event, package.UnknownEvent):
            assert event.data == payload and event.event == event_type and event.reason
            continue
        assert type(event) in classes
        try:
            json.loads(payload)
        except ValueError:
            assert payload in literals, (payload, event)  # a non-JSON payload is only ever a literal
    result = channel.accumulate(events).to_dict()
    unknown = [e for e in events if isinstance(e, package.UnknownEvent)]
    recorded = [e for e in result["errors"] if "reason" in e]  # an unlisted error is an error_event
    assert [e["kind"] == "unknown_event" for e in recorded] == [not _is_error(e) for e in unknown]
    for entry, event in zip(recorded, unknown, strict=True):
        assert entry["data"] == (event.data if entry["kind"] == "unknown_event" else _json_or_text(event.data))


def _is_error(event: Any) -> bool:
    """An unknown event the accumulator records as an error: SSE type ``error``, or an
    object with a top-level ``error`` member."""
    data = _json_or_text(event.data)
    return event.event == "error" or (isinstance(data, dict) and "error" in data)


def _json_or_text(text: str) -> Any:
    try:
        return msgspec.json.decode(text)
    except msgspec.DecodeError:
        return text
