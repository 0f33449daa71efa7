"""Misuse of decode/adecode fails loudly (ssegen issue 24, item 6).

A body passed whole iterates as ints (``bytes``, ``bytearray``, ``memoryview``) or characters
(``str``); chunks that are ``str`` are text, not bytes; a body read with ``iter_lines()`` has lost
its line ends. Each used to end in one ``StreamTruncated`` and no error; now the first three raise
a ``TypeError`` saying what to pass, and the last ends with a ``truncated`` error saying why.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

import pytest

from generated.deepseek import CHANNELS, StreamTruncated, sse
from generated.deepseek import models as ds_models
from ssegen.runtime.events import TRUNCATED_REASON

CHAT = CHANNELS["/chat/completions"]
CHUNK = {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []}
BODY = f"data: {json.dumps(CHUNK)}\n\ndata: [DONE]\n\n".encode()

WHOLE_BODIES = [
    pytest.param(BODY, "bytes", "[body]", id="bytes"),
    pytest.param(bytearray(BODY), "bytearray", "[body]", id="bytearray"),
    pytest.param(memoryview(BODY), "memoryview", "[body]", id="memoryview"),
    pytest.param(BODY.decode(), "str", "[body.encode()]", id="str"),
]


def test_a_body_passed_as_its_chunks_decodes() -> None:
    events = list(CHAT.decode([BODY]))
    assert [type(e) for e in events] == [ds_models.ChatCompletionChunk, ds_models.StreamDone]


@pytest.mark.parametrize(("body", "kind", "fix"), WHOLE_BODIES)
def test_decode_of_a_whole_body_raises_type_error_saying_what_to_pass(body: object, kind: str, fix: str) -> None:
    with pytest.raises(TypeError) as raised:
        CHAT.decode(body)  # type: ignore[arg-type]  # the misuse under test; raised before any iteration
    message = str(raised.value)
    assert message.startswith("decode() takes an iterable of bytes chunks such as response.iter_bytes()")
    assert f"got {kind}:" in message and fix in message


@pytest.mark.parametrize(("body", "kind", "fix"), WHOLE_BODIES)
def test_adecode_of_a_whole_body_raises_type_error_saying_what_to_pass(body: object, kind: str, fix: str) -> None:
    with pytest.raises(TypeError) as raised:
        CHAT.adecode(body)  # type: ignore[arg-type]
    message = str(raised.value)
    assert message.startswith("adecode() takes an async iterable of bytes chunks such as response.aiter_bytes()")
    assert f"got {kind}:" in message and f"decode({fix})" in message


def test_adecode_of_a_synchronous_iterable_raises_type_error_naming_decode() -> None:
    with pytest.raises(TypeError, match=r"got list, which is not async: pass it to the synchronous twin \(decode\(\)"):
        CHAT.adecode([BODY])  # type: ignore[arg-type]


@pytest.mark.parametrize(("body", "kind", "fix"), WHOLE_BODIES)
def test_iter_events_of_a_whole_body_raises_type_error(body: object, kind: str, fix: str) -> None:
    with pytest.raises(TypeError, match=rf"^iter_events\(\) takes an iterable of bytes chunks.*got {kind}:"):
        next(sse.iter_events(body))  # type: ignore[arg-type]


def test_str_chunks_raise_type_error_at_the_first_chunk_read_lazily() -> None:
    read: list[str] = []

    def text_chunks() -> Iterator[str]:  # what httpx's iter_text() gives
        for piece in (BODY.decode()[:10], BODY.decode()[10:]):
            read.append(piece)
            yield piece

    events = CHAT.decode(text_chunks())  # type: ignore[arg-type]
    assert read == []  # nothing read before iteration
    with pytest.raises(TypeError) as raised:
        next(iter(events))
    assert read == [BODY.decode()[:10]]
    message = str(raised.value)
    assert "got a str chunk" in message and "response.iter_bytes()" in message and "iter_text()" in message


def test_bytes_iterated_as_chunks_raise_type_error_naming_the_wrapped_body() -> None:
    with pytest.raises(
        TypeError, match=r"got an int chunk, as iterating a bytes body gives: pass the body as \[body\]"
    ):
        list(CHAT.decode(iter(BODY)))  # type: ignore[arg-type]


def _stripped(body: bytes) -> list[bytes]:
    """The body as requests' ``iter_lines()`` (or httpx's) yields it: each line without its line end."""
    return body.splitlines()


def test_a_body_without_line_ends_ends_truncated_saying_lines_may_be_stripped() -> None:
    events = list(CHAT.decode(_stripped(BODY)))
    assert len(events) == 1 and isinstance(events[0], StreamTruncated)
    reason = events[0].reason
    assert reason.startswith(TRUNCATED_REASON) and "line ends may have been stripped" in reason
    assert "iter_lines()" in reason and "iter_bytes()" in reason and "iter_content(" in reason
    assert events[0].bytes_consumed == events[0].bytes_discarded == len(b"".join(_stripped(BODY)))

    for result in (CHAT.accumulate(CHAT.decode(_stripped(BODY))), CHAT.accumulate(events)):
        (error,) = result.to_dict()["errors"]
        assert error["kind"] == "truncated" and error["message"] == reason
        assert not result.complete


def test_a_body_without_line_ends_ends_truncated_saying_so_when_read_asynchronously() -> None:
    async def lines() -> AsyncIterator[bytes]:
        for line in _stripped(BODY):
            yield line

    async def run() -> tuple[list[object], dict[str, object]]:
        events = [event async for event in CHAT.adecode(lines())]
        result = await CHAT.aaccumulate(CHAT.adecode(lines()))
        return events, result.to_dict()

    events, result = asyncio.run(run())
    assert len(events) == 1 and isinstance(events[0], StreamTruncated)
    assert "line ends may have been stripped" in events[0].reason
    (error,) = result["errors"]  # type: ignore[misc]
    assert "line ends may have been stripped" in error["message"]


def test_a_body_cut_after_a_blank_line_keeps_the_plain_truncated_reason() -> None:
    cut = BODY[: BODY.index(b"[DONE]")]  # the first event whole, the second begun
    events = list(CHAT.decode([cut]))
    assert isinstance(events[-1], StreamTruncated) and events[-1].reason == TRUNCATED_REASON
    (error,) = CHAT.accumulate(CHAT.decode([cut])).to_dict()["errors"]
    assert error["message"] == TRUNCATED_REASON


# -- accumulate given what decode takes (issue 34 item 9) ---------------------------------------


def _chunks() -> Iterator[bytes]:  # what httpx's response.iter_bytes() gives
    yield BODY[:20]
    yield BODY[20:]


ACCUMULATE_MISUSE = [
    pytest.param(lambda: BODY, "got bytes: decode the body first", "channel.decode([body])", id="bytes"),
    pytest.param(lambda: bytearray(BODY), "got bytearray:", "channel.decode([body])", id="bytearray"),
    pytest.param(lambda: BODY.decode(), "got str:", "channel.decode([body.encode()])", id="str"),
    pytest.param(lambda: [BODY], "got an item of type bytes:", "channel.decode(chunks)", id="[body]"),
    pytest.param(_chunks, "got an item of type bytes:", "channel.decode(chunks)", id="iter_bytes"),
    pytest.param(
        lambda: [CHUNK, CHUNK], "got an item of type dict (plain JSON data)", "channel.parse(data)", id="dicts"
    ),
    pytest.param(lambda: CHUNK, "got dict (plain JSON data)", "channel.decode(", id="dict"),
]


@pytest.mark.parametrize(("given", "what", "fix"), ACCUMULATE_MISUSE)
def test_accumulate_of_what_decode_takes_raises_type_error_naming_decode(given: object, what: str, fix: str) -> None:
    with pytest.raises(TypeError) as raised:
        CHAT.accumulate(given())  # type: ignore[operator]
    message = str(raised.value)
    assert message.startswith("accumulate() takes a stream's typed events, as channel.decode(response.iter_bytes())")
    assert what in message and fix in message


@pytest.mark.parametrize(("given", "what", "fix"), ACCUMULATE_MISUSE)
def test_aaccumulate_of_what_adecode_takes_raises_type_error(given: object, what: str, fix: str) -> None:
    async def run() -> None:
        value = given()  # type: ignore[operator]
        if isinstance(value, (bytes, bytearray, str, dict)):
            await CHAT.aaccumulate(value)  # type: ignore[arg-type]
            return

        async def each() -> AsyncIterator[object]:
            for item in value:
                yield item

        await CHAT.aaccumulate(each())  # type: ignore[arg-type]

    with pytest.raises(TypeError, match=r"accumulate\(\) takes a stream's typed events") as raised:
        asyncio.run(run())
    assert what in str(raised.value)


def test_accumulate_of_typed_events_in_a_list_is_no_misuse() -> None:
    result = CHAT.accumulate(list(CHAT.decode([BODY])))
    assert result.complete and result.errors == []


def test_an_http_response_itself_is_refused_naming_how_to_read_it() -> None:
    """``decode(response)`` / ``adecode(response)`` with the ``httpx.Response`` itself (issue 36
    item 3): the TypeError names ``response.iter_bytes()`` / ``response.aiter_bytes()``, not a bare
    "not iterable" nor the synchronous twin."""
    httpx = pytest.importorskip("httpx")
    response = httpx.Response(200, content=b"data: [DONE]\n\n")
    with pytest.raises(TypeError, match=r"got a Response, not iterable: pass response\.iter_bytes\(\)$"):
        list(CHAT.decode(response))

    async def read() -> None:
        async for _event in CHAT.adecode(response):
            pass

    with pytest.raises(TypeError, match=r"got a Response: pass response\.aiter_bytes\(\)$"):
        asyncio.run(read())
    assert list(CHAT.decode(response.iter_bytes())) == [ds_models.StreamDone()]
