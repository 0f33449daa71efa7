"""Bytes from the network never raise anything but ``sse.SSEError``, and a stream has one consumer (issue 25).

A consumer that catches ``SSEError`` must be safe against any body: JSON nested past the
recursion limit (``RecursionError`` inside msgspec), numbers past Python's integer digit
limit, ``retry:`` values of thousands of digits (``ValueError`` from ``int``).  Each
becomes an ``SSEError`` subclass (``PayloadError``, ``InvalidFieldError``), after the
typed events before it.  An ``EventStream`` used from a second thread raises
``ConcurrentUseError`` (iterating one from two threads crashed CPython 3.11).
"""

from __future__ import annotations

import asyncio
import importlib
import sys
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import openai_responses as gen_responses

CHANNELS = [
    gen_deepseek.CHANNELS["/chat/completions"],
    gen_anthropic.CHANNELS["/v1/messages"],
    next(iter(gen_responses.CHANNELS.values())),
]
CHUNK = (
    b'data: {"id":"a","object":"chat.completion.chunk","created":1,"model":"m",'
    b'"choices":[{"index":0,"delta":{"content":"ok"},"finish_reason":null}]}\n\n'
)


def _too_deep() -> int:
    """A nesting past the recursion limit (1000 by default; hypothesis runs may leave it raised)."""
    return max(1000, sys.getrecursionlimit() + 100)


def _deep(depth: int, kind: str) -> bytes:
    if kind == "list":
        return b"[" * depth + b"]" * depth
    return b'{"a":' * depth + b"1" + b"}" * depth


def _reads(body: bytes, size: int) -> list[bytes]:
    return [body] if size <= 0 else [body[i : i + size] for i in range(0, len(body), size)]


def _sse_of(channel: Any) -> Any:
    """The ``sse`` module of a channel's own package (each package has its copy; tests may reload them)."""
    return importlib.import_module(type(channel).__module__.rsplit(".", 1)[0] + ".sse")


def _errors_of(channel: Any) -> dict[str, Any]:
    """The names of the channel's own runtime's ``framing.py``, which defines the exception classes
    it raises: the globals of a method of ``framing.Framing``, the base of the channel's framing (a
    test elsewhere may re-import the generated packages, and the module-level channels keep the
    first copy)."""
    base = next(cls for cls in type(channel.framing).__mro__ if cls.__name__ == "Framing")
    names: dict[str, Any] = base.decoder.__globals__
    return names


def _decode_all(channel: Any, body: bytes, size: int) -> list[Any]:
    got: list[Any] = []
    try:
        for event in channel.decode(_reads(body, size)):
            got.append(event)
        channel.accumulate(got)
    except _errors_of(channel)["SSEError"] as exc:
        got.append(exc)
    return got


def test_json_nested_1000_deep_raises_payload_error_after_the_events_before_it() -> None:
    channel = CHANNELS[0]
    body = CHUNK * 3 + b"data: " + _deep(_too_deep(), "list") + b"\n\n" + CHUNK
    for size in (0, 7, 4096):
        got = _decode_all(channel, body, size)
        assert [type(e).__name__ for e in got] == ["ChatCompletionChunk"] * 3 + ["PayloadError"]
        assert "JSON nested too deep" in str(got[-1])
        assert isinstance(got[-1].__cause__, RecursionError)


def test_json_nested_deep_raises_payload_error_from_adecode_too() -> None:
    channel = CHANNELS[0]

    async def chunks() -> AsyncIterator[bytes]:
        yield CHUNK
        yield b'data: {"id":"a","choices":' + _deep(_too_deep(), "list") + b"}\n\n"

    async def run() -> list[str]:
        names = []
        try:
            async for event in channel.adecode(chunks()):
                names.append(type(event).__name__)
        except _errors_of(channel)["SSEError"] as exc:
            names.append(type(exc).__name__)
        return names

    assert asyncio.run(run()) == ["ChatCompletionChunk", "PayloadError"]


def test_retry_of_4301_digits_raises_invalid_field_error() -> None:
    body = CHUNK + b"retry: " + b"1" * 4301 + b"\n\n" + CHUNK
    for size in (0, 5):
        got = _decode_all(CHANNELS[0], body, size)
        assert [type(e).__name__ for e in got] == ["ChatCompletionChunk", "InvalidFieldError"]
    sse = _sse_of(CHANNELS[0])
    decoder = sse.SSEDecoder()
    with pytest.raises(sse.InvalidFieldError) as caught:
        decoder.feed(b"data: x\n\nretry: " + b"9" * 5000 + b"\n")
    assert caught.value.field == "retry" and [e.data for e in caught.value.events] == ["x"]


def test_channel_parse_raises_payload_error_for_deep_json() -> None:
    with pytest.raises(_errors_of(CHANNELS[0])["PayloadError"]):
        CHANNELS[0].parse(_deep(_too_deep(), "dict").decode())


_values = st.one_of(
    st.builds(_deep, st.integers(1, 3000), st.sampled_from(["list", "dict"])),
    st.builds(lambda kind: _deep(_too_deep(), kind), st.sampled_from(["list", "dict"])),
    st.builds(lambda n: b"1" * n, st.integers(1, 6000)),
    st.builds(lambda n, e: b"1." + b"5" * n + b"e" + str(e).encode(), st.integers(1, 5000), st.integers(-9999, 9999)),
    st.builds(lambda n: b'{"id":"a","choices":[{"index":' + b"7" * n + b',"delta":{}}]}', st.integers(1, 6000)),
    st.builds(
        lambda d: (
            b'{"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
            b'"delta":{"content":"x"}}],"usage":{"prompt_tokens":1,"x":' + _deep(d, "list") + b"}}"
        ),
        st.integers(1, 2000),
    ),
    st.builds(
        lambda d: b'{"type":"content_block_delta","index":0,"delta":' + _deep(d, "dict") + b"}", st.integers(1, 2000)
    ),
)
_fields = st.sampled_from([b"data: ", b"event: content_block_delta\ndata: ", b"retry: ", b"id: "])


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.lists(st.tuples(_fields, _values), min_size=1, max_size=4),
    st.sampled_from([0, 1, 13, 4096]),
    st.sampled_from(range(len(CHANNELS))),
)
def test_only_sse_errors_escape_deep_and_huge_values(fields: list[tuple[bytes, bytes]], size: int, which: int) -> None:
    body = b"".join(field + value + b"\n\n" for field, value in fields)
    _decode_all(CHANNELS[which], body, size)  # anything but an SSEError fails the test


def test_a_stream_iterated_from_a_second_thread_raises_concurrent_use_error() -> None:
    channel = CHANNELS[0]

    def body() -> Iterator[bytes]:
        for _ in range(1000):
            yield CHUNK * 20

    stream = channel.decode(body())
    assert type(next(stream)).__name__ == "ChatCompletionChunk"  # first used by this thread
    errors: list[BaseException] = []

    def other() -> None:
        try:
            for _ in stream:
                pass
        except BaseException as exc:
            errors.append(exc)

    for _ in range(4):
        worker = threading.Thread(target=other)
        worker.start()
        for _ in stream:
            break
        worker.join()
    assert len(errors) == 4 and all(type(e).__name__ == "ConcurrentUseError" for e in errors)
    assert "one consumer" in str(errors[0])

    def call_next() -> None:
        try:
            next(stream)
        except BaseException as exc:
            errors.append(exc)

    worker = threading.Thread(target=call_next)
    worker.start()
    worker.join()
    assert len(errors) == 5 and type(errors[-1]).__name__ == "ConcurrentUseError"


def test_a_stream_first_used_by_a_worker_thread_belongs_to_it() -> None:
    channel = CHANNELS[0]
    stream = channel.decode([CHUNK * 3])
    seen: list[str] = []
    worker = threading.Thread(target=lambda: seen.extend(type(e).__name__ for e in stream))
    worker.start()
    worker.join()
    assert seen == ["ChatCompletionChunk"] * 3
