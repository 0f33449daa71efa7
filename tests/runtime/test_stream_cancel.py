"""A stream whose reading was cancelled (or whose source failed) says so when it is iterated
again (issue 35, item 7): a :class:`StreamTruncated` naming the cause, never a clean end.

``close()``/``aclose()`` stay quiet (the consumer chose to stop; ``test_stream_close.py``)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

from generated.deepseek import CHANNELS, StreamTruncated

CHAT = CHANNELS["/chat/completions"]


def _chunk(text: str) -> bytes:
    data = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    data["choices"] = [{"index": 0, "delta": {"content": text}, "finish_reason": None}]
    return f"data: {json.dumps(data)}\n\n".encode()


async def _slow_body() -> AsyncIterator[bytes]:
    """One chunk, then a read that never comes (a server gone quiet)."""
    yield _chunk("hello ")
    await asyncio.Event().wait()
    yield _chunk("never")


def test_a_cancelled_adecode_stream_iterated_again_reports_the_cancellation() -> None:
    async def run() -> tuple[list[object], list[object], object]:
        stream = CHAT.adecode(_slow_body())
        seen: list[object] = []

        async def consume() -> None:
            async for event in stream:
                seen.append(event)

        with_timeout = asyncio.wait_for(consume(), timeout=0.05)
        try:
            await with_timeout
        except TimeoutError:
            pass
        again = [event async for event in stream]
        result = await CHAT.aaccumulate(stream)
        return seen, again, (stream, result)

    seen, again, (stream, result) = asyncio.run(run())
    assert len(seen) == 1 and not isinstance(seen[0], StreamTruncated)
    assert len(again) == 1 and isinstance(again[0], StreamTruncated)
    assert "cancelled" in again[0].reason and "CancelledError" in again[0].reason
    assert again[0].bytes_consumed == len(_chunk("hello "))
    assert stream.incomplete  # type: ignore[attr-defined]
    # Accumulating what is left reports it, once (the event was handed on already).
    assert [e["kind"] for e in result.errors] == ["truncated"]  # type: ignore[attr-defined]
    assert "cancelled" in result.errors[0]["message"]  # type: ignore[attr-defined]


def test_a_cancelled_stream_accumulated_again_reports_the_cancellation() -> None:
    async def run() -> object:
        stream = CHAT.adecode(_slow_body())
        try:
            await asyncio.wait_for(stream.__anext__(), 1)
            await asyncio.wait_for(stream.__anext__(), 0.05)
        except TimeoutError:
            pass
        return await CHAT.aaccumulate(stream)

    result = asyncio.run(run())
    assert not result.complete  # type: ignore[attr-defined]
    assert [e["kind"] for e in result.errors] == ["truncated"]  # type: ignore[attr-defined]
    assert "cancelled" in result.errors[0]["message"]  # type: ignore[attr-defined]


def test_a_failed_source_iterated_again_reports_the_failure_sync_and_async() -> None:
    def body() -> Iterator[bytes]:
        yield _chunk("a ")
        raise ConnectionResetError("peer reset")

    async def abody() -> AsyncIterator[bytes]:
        yield _chunk("a ")
        raise ConnectionResetError("peer reset")

    stream = CHAT.decode(body())
    first = next(stream)
    try:
        next(stream)
    except ConnectionResetError:
        pass
    again = list(stream)
    assert not isinstance(first, StreamTruncated)
    assert len(again) == 1 and isinstance(again[0], StreamTruncated)
    assert "ConnectionResetError: peer reset" in again[0].reason

    async def arun() -> list[object]:
        astream = CHAT.adecode(abody())
        try:
            async for _ in astream:
                pass
        except ConnectionResetError:
            pass
        return [event async for event in astream]

    aagain = asyncio.run(arun())
    assert len(aagain) == 1 and isinstance(aagain[0], StreamTruncated)
    assert "ConnectionResetError: peer reset" in aagain[0].reason


def test_aclose_stays_quiet_after_it() -> None:
    async def run() -> list[object]:
        stream = CHAT.adecode(_slow_body())
        async for _ in stream:
            break
        await stream.aclose()
        return [event async for event in stream]

    assert asyncio.run(run()) == []
