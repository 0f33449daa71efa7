"""Event streams close their byte source: ``close()``/``aclose()`` and the (async) context manager
(issue 32, item 3), as httpx-sse's ``EventSource`` closes its line iterator in ``finally``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

import pytest

from generated.deepseek import CHANNELS, ConcurrentUseError, StreamTruncated

CHAT = CHANNELS["/chat/completions"]


def _chunk(text: str) -> bytes:
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    data["choices"] = [{"index": 0, "delta": {"content": text}, "finish_reason": None}]
    return f"data: {json.dumps(data)}\n\n".encode()


class Source:
    """A body of ten chunks, one read each, that records how it ended."""

    def __init__(self) -> None:
        self.read = 0
        self.closed = False

    def reads(self) -> Iterator[bytes]:
        try:
            for i in range(10):
                self.read += 1
                yield _chunk(f"t{i} ")
        finally:
            self.closed = True

    async def areads(self) -> AsyncIterator[bytes]:
        try:
            for i in range(10):
                self.read += 1
                yield _chunk(f"t{i} ")
        finally:
            self.closed = True


def test_leaving_the_with_block_early_closes_the_source_and_reads_no_further() -> None:
    source = Source()
    with CHAT.decode(source.reads()) as events:
        for event in events:
            assert not isinstance(event, StreamTruncated)
            break
    assert source.closed and source.read == 1
    assert list(events) == []  # nothing more, and no StreamTruncated: the consumer stopped


def test_close_ends_an_iteration_in_progress() -> None:
    source = Source()
    stream = CHAT.decode(source.reads())
    seen = []
    for event in stream:
        seen.append(event)
        if len(seen) == 3:
            stream.close()
    assert len(seen) == 3 and source.closed and source.read == 3
    stream.close()  # again: nothing happens


def test_a_read_to_the_end_stream_closes_quietly_and_a_list_source_needs_no_closing() -> None:
    source = Source()
    with CHAT.decode(source.reads()) as events:
        assert len(list(events)) == 10
    assert source.closed
    with CHAT.decode([_chunk("a")]) as events:
        pass
    assert list(events) == []


def test_close_from_another_thread_is_refused() -> None:
    import threading

    stream = CHAT.decode(Source().reads())
    next(stream)
    errors: list[BaseException] = []

    def other() -> None:
        try:
            stream.close()
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            errors.append(exc)

    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert len(errors) == 1 and isinstance(errors[0], ConcurrentUseError)


def test_async_with_closes_the_source_and_aclose_ends_the_stream() -> None:
    async def run() -> tuple[Source, Source, int]:
        first = Source()
        async with CHAT.adecode(first.areads()) as events:
            async for _ in events:
                break
        second = Source()
        stream = CHAT.adecode(second.areads())
        count = 0
        async for _ in stream:
            count += 1
            if count == 2:
                await stream.aclose()
        return first, second, count

    first, second, count = asyncio.run(run())
    assert first.closed and first.read == 1
    assert second.closed and second.read == 2 and count == 2


@pytest.mark.parametrize("read_all", [False, True])
def test_accumulating_a_closed_stream_assembles_what_was_read(read_all: bool) -> None:
    source = Source()
    stream = CHAT.decode(source.reads())
    first = next(stream)
    if not read_all:
        stream.close()
    result = CHAT.accumulate([first, *stream])
    assert result.choices[0].content == ("t0 " if not read_all else "".join(f"t{i} " for i in range(10)))
    assert not result.errors
