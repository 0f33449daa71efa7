"""A body's reads joined for a consumer that waits for all of it (runtime/joined_reads.py), and
``Channel.accumulate`` of an NDJSON body over joined reads: the same result as each read framed
alone, whatever the split, the errors and the source's failures (issue 32 item 8)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import generated._runtime.ndjson as vendored
from generated._runtime.framing import InvalidUTF8Error  # the channel's runtime
from generated.ollama import CHANNELS
from ssegen.runtime import ndjson
from ssegen.runtime.framing import read_items
from ssegen.runtime.joined_reads import _Held, ajoined_reads, joined_reads
from ssegen.runtime.ndjson import NDJSONDecoder
from ssegen.runtime.sse import SSEDecoder

CHAT = CHANNELS["/api/chat"]


def _line(i: int, **extra: Any) -> bytes:
    value = {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": f"w{i}"}, "done": False}
    return (json.dumps({**value, **extra}) + "\n").encode()


BODY = b"".join(_line(i) for i in range(40)) + _line(40, done=True, done_reason="stop", eval_count=3)


def _reads(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


def _collect(chunks: Any) -> list[Any]:
    async def run() -> list[Any]:
        return [read async for read in chunks]

    return asyncio.run(run())


async def _aiter(reads: list[Any]) -> AsyncIterator[Any]:
    for read in reads:
        yield read


@settings(max_examples=200, deadline=None)
@given(body=st.binary(max_size=200), cuts=st.lists(st.integers(0, 200), max_size=12), size=st.integers(1, 64))
def test_joined_reads_are_the_body_in_reads_of_at_least_size_cut_after_a_line_end(
    body: bytes, cuts: list[int], size: int
) -> None:
    reads = _reads(body, cuts)
    joined = list(joined_reads(reads, size))
    assert b"".join(joined) == body
    assert _collect(ajoined_reads(_aiter(reads), size)) == joined
    for read in joined[:-1]:
        # at least ``size`` bytes but for the rest of the last line, held for the next read
        assert len(read) >= size or read.endswith(b"\n")


def test_a_joined_read_ends_after_the_last_line_end_of_its_last_read() -> None:
    reads = [b'{"a":1}\n{"b"', b':2}\n{"c":', b"3}\n"]
    assert list(joined_reads(reads, 10)) == [b'{"a":1}\n', b'{"b":2}\n', b'{"c":3}\n']
    assert list(joined_reads(reads, 20)) == [b'{"a":1}\n{"b":2}\n', b'{"c":3}\n']
    # a last read with no line end goes whole: the decoder holds a long line and checks its limit
    assert list(joined_reads([b"{" * 8, b"x" * 8], 10)) == [b"{" * 8 + b"x" * 8]


def test_tiny_reads_are_held_in_one_buffer_not_as_a_bytes_object_each() -> None:
    held = _Held(10_000)
    for _ in range(1000):
        assert held.take(b"ab") == []
    assert len(held.pieces) < 32 and held.count == 2000
    assert held.rest() == [b"ab" * 1000]
    assert held.rest() == []  # nothing is held after it


def test_a_read_that_is_not_bytes_comes_after_the_reads_held_as_it_is() -> None:
    view = memoryview(b"{}\n")
    assert list(joined_reads([b"{}\n", view, b"{}\n"], 100)) == [b"{}\n", view, b"{}\n"]
    assert list(joined_reads([b"{}\n", "text"], 100)) == [b"{}\n", "text"]


def _failing(reads: list[bytes], exc: BaseException) -> Iterator[bytes]:
    yield from reads
    raise exc


async def _afailing(reads: list[bytes], exc: BaseException) -> AsyncIterator[bytes]:
    for read in reads:
        yield read
    raise exc


def test_the_reads_held_when_the_source_fails_come_before_its_error() -> None:
    reads = [b'{"a":1}\n', b'{"b"']
    got: list[Any] = []
    with pytest.raises(ConnectionResetError):
        for read in joined_reads(_failing(reads, ConnectionResetError("reset")), 1000):
            got.append(read)
    assert got == [b'{"a":1}\n{"b"']

    async def run() -> list[Any]:
        out: list[Any] = []
        with pytest.raises(ConnectionResetError):
            async for read in ajoined_reads(_afailing(reads, ConnectionResetError("reset")), 1000):
                out.append(read)
        return out

    assert asyncio.run(run()) == got


def test_only_a_consumer_waiting_for_the_whole_body_gets_joined_reads() -> None:
    reads = [_line(i) for i in range(5)]
    framer = NDJSONDecoder
    assert len(list(read_items(reads, framer))) == 5  # decode(): each read's events as it comes
    assert len(list(read_items(reads, framer, joined=True))) == 1
    # SSE's decoder asks for none
    assert len(list(read_items([b"data: 1\n\n"] * 3, SSEDecoder, joined=True))) == 3


@contextmanager
def _small_joins() -> Iterator[None]:
    """Reads joined into reads of 50 bytes: a test body is joined and cut many times."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ndjson.NDJSONDecoder, "join_reads", 50)
        patch.setattr(vendored.NDJSONDecoder, "join_reads", 50)
        yield


@pytest.fixture
def small_joins() -> Iterator[None]:
    with _small_joins():
        yield


@settings(max_examples=150, deadline=None)
@given(
    cuts=st.lists(st.integers(0, len(BODY)), max_size=30),
    bad=st.sampled_from([b"", b"not json\n", b'{"error":"e"}\n', b"\n\n", b"{}\r\n", b'{"a":\n1}\n']),
    at=st.integers(0, len(BODY)),
)
def test_accumulating_joined_reads_equals_accumulating_each_line(cuts: list[int], bad: bytes, at: int) -> None:
    """An NDJSON body accumulated over joined reads gives what its lines classified and applied
    one by one give: every line kept, an unknown one recorded, the end as sent."""
    start = BODY.rfind(b"\n", 0, at) + 1
    body = BODY[:start] + bad + BODY[start:]
    reads = _reads(body, cuts)
    alone = list(CHAT.decode([body[i : i + 1] for i in range(len(body))]))
    expected = CHAT.accumulate(alone).to_dict()

    async def run() -> dict[str, Any]:
        return (await CHAT.aaccumulate(CHAT.adecode(_aiter(reads)))).to_dict()

    with _small_joins():
        assert CHAT.accumulate(CHAT.decode(reads)).to_dict() == expected
        assert asyncio.run(run()) == expected


def test_a_cut_last_line_over_joined_reads_is_truncated(small_joins: None) -> None:
    body = BODY + b'{"model":"m","crea'
    result = CHAT.accumulate(CHAT.decode(_reads(body, list(range(0, len(body), 7)))))
    assert [error["kind"] for error in result.errors] == ["truncated"]
    assert result.texts["text"] == "".join(f"w{i}" for i in range(41))


def test_a_decoding_error_in_the_reads_held_wins_over_the_sources_failure(small_joins: None) -> None:
    """Bytes read before the source failed are framed first: an invalid line among them raises
    its InvalidUTF8Error, as it did when each read was framed before the next was read."""
    reads = [BODY[:30], b'{"x":"\xff"}\n', b"{"]
    with pytest.raises(InvalidUTF8Error):
        CHAT.accumulate(CHAT.decode(_failing(reads, ConnectionResetError("reset"))))


def test_a_source_failing_over_joined_reads_counts_every_byte_read(small_joins: None) -> None:
    reads = _reads(BODY, list(range(0, len(BODY), 9)))
    stream = CHAT.decode(_failing(reads, ConnectionResetError("reset")))
    with pytest.raises(ConnectionResetError):
        CHAT.accumulate(stream)
    assert stream.state.bytes_consumed == len(BODY)
    assert f"after {len(BODY)} bytes" in stream.state.stopped
