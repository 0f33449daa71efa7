"""Tests of the SSE decoder (src/ssegen/runtime/sse.py, every output folder's ``_runtime/sse.py``).

Behaviour checked against the WHATWG HTML Living Standard, section 9.2.6
"Interpreting an event stream", and against a literal transcription of that
algorithm (``whatwg_events`` in tests/helpers/whatwg.py, ``_reference`` below); each
layer (line splitter, field interpreter, run scanner) is also checked alone.
"""

from __future__ import annotations

import asyncio
import re
import sys
import tracemalloc
from collections.abc import AsyncIterator, Iterable
from typing import Any

import pytest
from helpers.whatwg import whatwg_events
from hypothesis import given, settings
from hypothesis import strategies as st

from ssegen.runtime import sse, sse_runs

E = sse.ServerSentEvent

# A real stream, from DeepSeek's API docs.
DEEPSEEK = (
    'data: {"id": "1f63", "choices": [{"index": 0, "delta": {"content": "Hello",'
    ' "role": "assistant"}, "finish_reason": null}]}\n'
    "\n"
    'data: {"id": "1f63", "choices": [{"index": 0, "delta": {"content":'
    ' "¡Hola! 你好 👋", "role": null}, "finish_reason": "stop"}]}\n'
    "\n"
    ": keep-alive\n"
    "\n"
    "event: error\n"
    'data: {"error":{"message":"timed out","type":"timeout_error"}}\n'
    "\n"
    "data: [DONE]\n"
    "\n"
)
DEEPSEEK_EVENTS = [
    E(
        "message",
        '{"id": "1f63", "choices": [{"index": 0, "delta": {"content": "Hello",'
        ' "role": "assistant"}, "finish_reason": null}]}',
    ),
    E(
        "message",
        '{"id": "1f63", "choices": [{"index": 0, "delta": {"content":'
        ' "¡Hola! 你好 👋", "role": null}, "finish_reason": "stop"}]}',
    ),
    E("error", '{"error":{"message":"timed out","type":"timeout_error"}}'),
    E("message", "[DONE]"),
]


def _variants(text: str) -> list[bytes]:
    """The stream with LF, CRLF and CR line ends."""
    return [
        text.encode(),
        text.replace("\n", "\r\n").encode(),
        text.replace("\n", "\r").encode(),
    ]


def decode(chunks: Iterable[bytes], **kwargs: Any) -> tuple[list[Any], Any]:
    """Feed ``chunks``, close, return (events, decoder)."""
    decoder = sse.SSEDecoder(**kwargs)
    events: list[Any] = []
    for chunk in chunks:
        events += decoder.feed(chunk)
    assert decoder.close() == []
    return events, decoder


def events_of(data: bytes, **kwargs: Any) -> list[Any]:
    """The events of ``data`` in one read, checked to be those of the literal
    transcription (``whatwg_events``) too."""
    events = decode([data], **kwargs)[0]
    assert events == whatwg_events(data)
    return events


def _reference(data: bytes) -> list[Any]:
    """The events of the literal transcription of WHATWG HTML 9.2.6 over a whole stream
    (``whatwg_events``, the literal transcription)."""
    return whatwg_events(data)


def _discarded(data: bytes, incomplete: bool) -> int:
    """The bytes after the last blank line (after the BOM if none), when the stream is
    ``incomplete``: what ``SSEDecoder.bytes_discarded`` reports, found line by line."""
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    block = bom
    for line in re.finditer(rb"([^\r\n]*)(\r\n|\r|\n)", data[bom:]):
        if not line.group(1):
            block = bom + line.end()
    return len(data) - block if incomplete else 0


# --------------------------------------------------------------------------
# Line ends


def test_crlf_lf_and_cr_line_ends_give_same_events() -> None:
    text = "event: a\ndata: 1\ndata: 2\nid: 7\n\ndata: x\n\n"
    expected = [E("a", "1\n2", "7"), E("message", "x", "7")]
    for data in _variants(text):
        assert events_of(data) == expected
    mixed = b"event: a\rdata: 1\r\ndata: 2\nid: 7\r\n\rdata: x\n\r\n"
    assert events_of(mixed) == expected


def test_cr_at_end_of_chunk_then_lf_is_one_line_end() -> None:
    decoder = sse.SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"data: b\r\n\r") == [E("message", "a\nb")]
    assert decoder.feed(b"\n") == []
    assert decoder.feed(b"\ndata: c\n\n") == [E("message", "c")]
    decoder.close()
    assert decoder.incomplete is False


def test_cr_at_end_of_chunk_dispatches_without_waiting() -> None:
    decoder = sse.SSEDecoder()
    assert decoder.feed(b"data: a\n\r") == [E("message", "a")]
    assert decoder.feed(b"\r") == []
    assert decoder.feed(b"\rdata: b\r\r") == [E("message", "b")]


def test_lf_after_cr_only_skipped_once() -> None:
    # CR | LF LF: the first LF completes the CRLF, the second is a blank line.
    decoder = sse.SSEDecoder()
    assert decoder.feed(b"data: a\r") == []
    assert decoder.feed(b"\n\n") == [E("message", "a")]


def test_other_ascii_controls_are_not_line_ends() -> None:
    data = b"data: a\x0bb\x0cc\x1cd\x1de\x1ef\n\n"
    assert events_of(data) == [E("message", "a\x0bb\x0cc\x1cd\x1de\x1ef")]
    assert events_of("data: a\u2028b\x85c\n\n".encode()) == [E("message", "a\u2028b\x85c")]


# --------------------------------------------------------------------------
# Fields


def test_data_with_and_without_space() -> None:
    assert events_of(b"data:test\n\ndata: test\n\n") == [
        E("message", "test"),
        E("message", "test"),
    ]


def test_only_one_leading_space_removed() -> None:
    assert events_of(b"data:  two\n\nevent:  e\ndata:x\n\n") == [
        E("message", " two"),
        E(" e", "x"),
    ]
    assert events_of(b"data:\tx \n\n") == [E("message", "\tx ")]


def test_multiline_data_joined_with_lf() -> None:
    assert events_of(b"data: YHOO\ndata: +2\ndata: 10\n\n") == [E("message", "YHOO\n+2\n10")]
    # Only the one final LF is removed: an empty last data line keeps one.
    assert events_of(b"data: a\ndata:\n\n") == [E("message", "a\n")]


def test_event_id_retry_fields() -> None:
    data = b"event: update\nid: 42\nretry: 1500\ndata: {}\n\n"
    events, decoder = decode([data])
    assert events == [E("update", "{}", "42", 1500)]
    assert decoder.last_event_id == "42"
    assert decoder.reconnection_time == 1500


def test_field_order_within_block_does_not_matter() -> None:
    assert events_of(b"data: {}\nretry: 5\nid: 9\nevent: u\n\n") == [E("u", "{}", "9", 5)]


def test_retry_applies_to_its_event_only() -> None:
    assert events_of(b"retry: 10\ndata: a\n\ndata: b\n\n") == [
        E("message", "a", "", 10),
        E("message", "b", "", None),
    ]


def test_id_persists_across_events() -> None:
    assert events_of(b"id: 1\ndata: a\n\ndata: b\n\nid: 2\ndata: c\n\n") == [
        E("message", "a", "1"),
        E("message", "b", "1"),
        E("message", "c", "2"),
    ]


def test_id_without_value_resets_last_event_id() -> None:
    assert events_of(b"id: 1\ndata: a\n\nid\ndata: b\n\nid:\ndata: c\n\n") == [
        E("message", "a", "1"),
        E("message", "b", ""),
        E("message", "c", ""),
    ]


def test_id_with_null_ignored() -> None:
    assert events_of(b"id: 1\ndata: a\n\nid: 2\x003\ndata: b\n\n") == [
        E("message", "a", "1"),
        E("message", "b", "1"),
    ]


def test_id_only_block_sets_id_of_later_events() -> None:
    events, decoder = decode([b"id: 5\n\n"])
    assert events == []
    assert decoder.last_event_id == "5"
    assert events_of(b"id: 5\n\ndata: a\n\n") == [E("message", "a", "5")]


def test_retry_non_digits_ignored() -> None:
    for value in (
        b"",
        b"abc",
        b"1.5",
        b"-1",
        b"+1",
        b" 10",
        b"10 ",
        b"1e3",
        "١٢".encode(),
        "²".encode(),
    ):
        events, decoder = decode([b"retry: " + value + b"\ndata: x\n\n"])
        assert events == [E("message", "x", "", None)], value
        assert decoder.reconnection_time is None
    assert events_of(b"retry:0010\ndata: x\n\n") == [E("message", "x", "", 10)]


def test_retry_only_block_sets_reconnection_time_but_dispatches_nothing() -> None:
    events, decoder = decode([b"retry: 3000\n\ndata: x\n\n"])
    assert events == [E("message", "x", "", None)]
    assert decoder.reconnection_time == 3000


def test_comment_lines_ignored() -> None:
    data = b": keep-alive\n:heartbeat\ndata: a\n: inside\ndata: b\n:\n\n: tail\n\n"
    events, decoder = decode([data])
    assert events == [E("message", "a\nb")]
    assert decoder.incomplete is False


def test_field_without_colon() -> None:
    assert events_of(b"data\n\n") == [E("message", "")]
    assert events_of(b"event\ndata: x\n\n") == [E("message", "x")]
    assert events_of(b"data: x\nretry\n\n") == [E("message", "x")]


def test_unknown_field_ignored() -> None:
    assert events_of(b"foo: bar\ndata: x\nDATA: y\nevent : z\nid : 1\n\n") == [E("message", "x")]


def test_field_names_case_sensitive() -> None:
    assert events_of(b"Event: e\nData: d\nID: 1\nRetry: 5\ndata: x\n\n") == [E("message", "x")]


def test_empty_event_type_gives_message() -> None:
    assert events_of(b"event:\ndata: x\n\nevent: e\nevent:\ndata: y\n\n") == [
        E("message", "x"),
        E("message", "y"),
    ]


def test_event_type_reset_after_dispatch() -> None:
    assert events_of(b"event: e\ndata: x\n\ndata: y\n\n") == [
        E("e", "x"),
        E("message", "y"),
    ]


def test_value_may_contain_colons() -> None:
    assert events_of(b"data: a: b:c\nevent: x:y\n\n") == [E("x:y", "a: b:c")]


def test_empty_data_buffer_dispatches_nothing() -> None:
    # The blank line resets the event type buffer even when nothing is sent.
    assert events_of(b"\n\n\nevent: e\n\nid: 1\n\ndata: x\n\n") == [E("message", "x", "1")]


# --------------------------------------------------------------------------
# The standard's own examples (WHATWG HTML 9.2.6)


def test_spec_example_stock_ticker() -> None:
    assert events_of(b"data: YHOO\ndata: +2\ndata: 10\n\n") == [E("message", "YHOO\n+2\n10")]


def test_spec_example_three_events_with_ids() -> None:
    data = b": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n"
    assert events_of(data) == [
        E("message", "first event", "1"),
        E("message", "second event", ""),
        E("message", " third event", ""),
    ]


def test_spec_example_empty_data_fields() -> None:
    # "data" + blank -> data buffer "\n" -> event "". "data","data" + blank ->
    # "\n\n" -> event "\n". The last block has no blank line: discarded.
    events, decoder = decode([b"data\n\ndata\ndata\n\ndata:"])
    assert events == [E("message", ""), E("message", "\n")]
    assert decoder.incomplete is True


def test_spec_example_identical_events() -> None:
    assert events_of(b"data:test\n\ndata: test\n\n") == [
        E("message", "test"),
        E("message", "test"),
    ]


def test_spec_example_event_types() -> None:
    data = b"event: add\ndata: 73857293\n\nevent: remove\ndata: 2153\n\nevent: add\ndata: 113411\n\n"
    assert events_of(data) == [
        E("add", "73857293"),
        E("remove", "2153"),
        E("add", "113411"),
    ]


def test_spec_example_comment_then_multiline() -> None:
    data = b": this is a test stream\n\ndata: some text\n\ndata: another message\ndata: with two lines\n\n"
    assert events_of(data) == [
        E("message", "some text"),
        E("message", "another message\nwith two lines"),
    ]


# --------------------------------------------------------------------------
# BOM and UTF-8


def test_leading_bom_skipped_even_split() -> None:
    data = b"\xef\xbb\xbfdata: x\n\n"
    for i in range(len(data) + 1):
        assert decode([data[:i], data[i:]])[0] == [E("message", "x")], i
    assert decode([b"\xef", b"\xbb", b"\xbf", b"data: x\n\n"])[0] == [E("message", "x")]
    assert decode([b"\xef", b"", b"\xbb\xbfdata: x\n\n"])[0] == [E("message", "x")]


def test_only_first_bom_skipped() -> None:
    # A second BOM is part of the field name "\ufeffdata": unknown, ignored.
    assert events_of(b"\xef\xbb\xbf\xef\xbb\xbfdata: x\n\n") == []
    assert events_of(b"data: a\n\n\xef\xbb\xbfdata: b\n\n") == [E("message", "a")]
    assert events_of(b"data: \xef\xbb\xbfa\n\n") == [E("message", "\ufeffa")]


def test_bom_only_stream_is_complete() -> None:
    events, decoder = decode([b"\xef\xbb", b"\xbf"])
    assert events == []
    assert decoder.incomplete is False
    events, decoder = decode([b"\xef\xbb"])
    assert events == []
    assert decoder.incomplete is True


def test_utf8_split_across_reads() -> None:
    data = "data: ¡Hola! 你好 👋\n\n".encode()
    expected = [E("message", "¡Hola! 你好 👋")]
    for i in range(len(data) + 1):
        for j in range(i, len(data) + 1):
            assert decode([data[:i], data[i:j], data[j:]])[0] == expected


def test_invalid_utf8_reports_offset_and_keeps_earlier_events() -> None:
    decoder = sse.SSEDecoder()
    assert decoder.feed(b"data: a\n\n") == [E("message", "a")]
    with pytest.raises(sse.InvalidUTF8Error) as info:
        decoder.feed(b"data: b\n\ndata: x\xffy\n\ndata: c\n\n")
    err = info.value
    assert err.offset == 9 + 9 + 7
    assert "25" in str(err)
    assert err.events == [E("message", "b")]
    assert isinstance(err, sse.SSEError)


def test_invalid_utf8_offset_counts_bom_and_earlier_chunks() -> None:
    chunks = [b"\xef\xbb", b"\xbfdata: ok\n", b"\ndata: \xe4\xbd", b"\xff\n\n"]
    with pytest.raises(sse.InvalidUTF8Error) as info:
        decode(chunks)
    assert info.value.offset == 3 + 9 + 7
    # Also when the bad line is the first line of a chunk's complete lines.
    with pytest.raises(sse.InvalidUTF8Error) as info:
        decode([b"data: ok\n\nevent: \xc3", b"\x28\n"])
    assert info.value.offset == 10 + 7
    # Overlong encodings and UTF-8-encoded surrogates are invalid too.
    for bad in (b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80"):
        with pytest.raises(sse.InvalidUTF8Error) as info:
            decode([b"data: ok\r\n\r\n: " + bad + b"\r\n"])
        assert info.value.offset == 12 + 2


def test_invalid_utf8_in_discarded_tail_not_reported() -> None:
    events, decoder = decode([b"data: a\n\ndata: \xff"])
    assert events == [E("message", "a")]
    assert decoder.incomplete is True


def test_invalid_utf8_in_iter_events_yields_earlier_events_first() -> None:
    state = sse.StreamState()
    got = []
    with pytest.raises(sse.InvalidUTF8Error) as info:
        for event in sse.iter_events([b"data: a\n\n", b"data: b\n\n: \x80\n"], state=state):
            got.append(event)
    assert got == [E("message", "a"), E("message", "b")]
    assert info.value.events == []  # already yielded
    assert info.value.offset == 18 + 2
    assert state.incomplete is True
    assert state.bytes_consumed == 9 + 13


def test_decoder_unusable_after_error() -> None:
    decoder = sse.SSEDecoder()
    with pytest.raises(sse.InvalidUTF8Error):
        decoder.feed(b"\xff\n")
    with pytest.raises(sse.SSEError):
        decoder.feed(b"data: a\n\n")
    with pytest.raises(sse.SSEError):
        decoder.close()


# --------------------------------------------------------------------------
# Size limit


def test_event_too_large() -> None:
    # A complete line that is too long.
    decoder = sse.SSEDecoder(max_event_bytes=50)
    with pytest.raises(sse.EventTooLargeError) as info:
        decoder.feed(b"data: a\n\ndata: " + b"x" * 100 + b"\n\n")
    assert info.value.limit == 50
    assert info.value.offset == 9
    assert info.value.events == [E("message", "a")]
    assert "50" in str(info.value)
    # Data accumulated over several lines: 11 bytes + a 16-byte line > 20.
    with pytest.raises(sse.EventTooLargeError) as info:
        decode([b"data: 0123456789\ndata: 0123456789\n\n"], max_event_bytes=20)
    assert info.value.offset == 17
    # Exactly at the limit is fine.
    assert events_of(b"data: 0123456789\n\n", max_event_bytes=16) == [E("message", "0123456789")]


def test_event_too_large_unterminated_line_bounded() -> None:
    decoder = sse.SSEDecoder(max_event_bytes=10_000)
    assert decoder.feed(b"data: a\n\n") == [E("message", "a")]
    fed = 0
    with pytest.raises(sse.EventTooLargeError) as info:
        for _ in range(1000):
            decoder.feed(b"x" * 100)
            fed += 1
    assert fed == 100  # raised by the chunk that took the line past 10 000
    assert info.value.offset == 9
    # Pending tail after complete lines, in the same feed call.
    decoder = sse.SSEDecoder(max_event_bytes=10)
    with pytest.raises(sse.EventTooLargeError) as info:
        decoder.feed(b"data: 1\n\ndata: 2345678")
    assert info.value.events == [E("message", "1")]
    assert info.value.offset == 9


def test_event_size_resets_after_dispatch() -> None:
    data = b"data: 0123456789\n\n" * 50
    assert len(events_of(data, max_event_bytes=16)) == 50


def test_invalid_max_event_bytes() -> None:
    with pytest.raises(ValueError):
        sse.SSEDecoder(max_event_bytes=0)


# --------------------------------------------------------------------------
# End of stream


def test_unterminated_last_event_discarded_and_incomplete() -> None:
    for data in _variants("data: a\n\ndata: b\n"):
        events, decoder = decode([data])
        assert events == [E("message", "a")]
        assert decoder.incomplete is True
    events, decoder = decode([b"data: a\n\ndata: b"])
    assert events == [E("message", "a")]
    assert decoder.incomplete is True


def test_bytes_discarded_are_those_after_the_last_blank_line() -> None:
    cases = {
        b"data: a\n\ndata: b\n": 8,
        b"data: a\n\ndata: b": 7,
        b"data: a\r\n\r\nid: 1\r\ndata: b": 14,
        b"\xef\xbb\xbfdata: b": 7,
        b"data: a\n\n: ping\nevent: e\n": 16,
        b"\xef\xbb": 2,
        b"data: a\n\n": 0,
        b"data: a\n\n: ping\n": 0,
    }
    for data, discarded in cases.items():
        assert decode([data])[1].bytes_discarded == discarded, data
        assert decode([data[i : i + 1] for i in range(len(data))])[1].bytes_discarded == discarded
    # A CRLF blank line whose LF arrives with the next read.
    assert decode([b"data: a\r\n\r", b"\ndata: b"])[1].bytes_discarded == 7


def test_complete_stream_not_incomplete() -> None:
    for data in _variants(DEEPSEEK) + [b"", b"\n", b": ping\n", b"data: a\n\n\n\n"]:
        assert decode([data])[1].incomplete is False, data


def test_trailing_field_lines_make_stream_incomplete() -> None:
    for tail in (b"id: 5\n", b"event: e\n", b"retry: 1\n", b"foo\n", b": c"):
        assert decode([b"data: a\n\n" + tail])[1].incomplete is True, tail


def test_feed_after_close_raises_and_close_is_idempotent() -> None:
    decoder = sse.SSEDecoder()
    decoder.close()
    assert decoder.close() == []
    with pytest.raises(sse.SSEError):
        decoder.feed(b"data: a\n\n")


def test_bytes_consumed() -> None:
    decoder = sse.SSEDecoder()
    decoder.feed(b"\xef\xbb\xbfdata")
    decoder.feed(b"")
    decoder.feed(b": x\r")
    decoder.feed(b"\n\r\n")
    assert decoder.bytes_consumed == 3 + 4 + 4 + 3


def test_feed_accepts_bytearray_and_memoryview_not_str() -> None:
    decoder = sse.SSEDecoder()
    assert decoder.feed(bytearray(b"data: a\n")) == []
    assert decoder.feed(memoryview(b"\ndata: b\n\n")) == [
        E("message", "a"),
        E("message", "b"),
    ]
    with pytest.raises(TypeError):
        decoder.feed("data: c\n\n")


# --------------------------------------------------------------------------
# Splitting


def test_every_byte_split_gives_same_events() -> None:
    for data in _variants(DEEPSEEK):
        assert events_of(data) == DEEPSEEK_EVENTS
        for i in range(len(data) + 1):
            events, decoder = decode([data[:i], data[i:]])
            assert events == DEEPSEEK_EVENTS, (data, i)
            assert decoder.incomplete is False
        events, decoder = decode([data[i : i + 1] for i in range(len(data))])
        assert events == DEEPSEEK_EVENTS
        assert decoder.incomplete is False
        assert decoder.bytes_consumed == len(data)


def test_events_returned_as_soon_as_blank_line_arrives() -> None:
    data = DEEPSEEK.encode()
    decoder = sse.SSEDecoder()
    seen = []
    for i in range(len(data)):
        for event in decoder.feed(data[i : i + 1]):
            seen.append((i, event))
    ends = [m.end() - 1 for m in re.finditer(rb"\n\n", data)]
    assert [i for i, _ in seen] == [ends[0], ends[1], ends[3], ends[4]]


# --------------------------------------------------------------------------
# iter_events / aiter_events


def test_iter_events_state() -> None:
    state = sse.StreamState()
    data = DEEPSEEK.encode() + b"id: 9\nretry: 7\n\ndata: partial"
    chunks = [data[i : i + 7] for i in range(0, len(data), 7)]
    assert list(sse.iter_events(chunks, state=state)) == DEEPSEEK_EVENTS
    assert state.incomplete is True
    assert state.bytes_consumed == len(data)
    assert state.last_event_id == "9"
    assert state.reconnection_time == 7
    state = sse.StreamState()
    assert list(sse.iter_events(iter([DEEPSEEK.encode()]), state=state)) == (DEEPSEEK_EVENTS)
    assert state.incomplete is False
    assert "incomplete=False" in repr(state)


def test_iter_events_is_lazy() -> None:
    fed = []

    def chunks() -> Iterable[bytes]:
        for chunk in (b"data: a\n\n", b"data: b\n\n"):
            fed.append(chunk)
            yield chunk

    it = sse.iter_events(chunks())
    assert next(it) == E("message", "a")
    assert len(fed) == 1


def test_iter_events_accepts_bytearray_and_memoryview() -> None:
    chunks = [bytearray(b"data: a\n"), memoryview(b"\n"), b"data: b\n\n"]
    assert list(sse.iter_events(chunks)) == [E("message", "a"), E("message", "b")]


def test_iter_events_max_event_bytes() -> None:
    with pytest.raises(sse.EventTooLargeError):
        list(sse.iter_events([b"data: " + b"x" * 20 + b"\n\n"], max_event_bytes=10))


def test_iter_raw_gives_each_chunks_events_as_feed_raw_does() -> None:
    data = DEEPSEEK.encode() + b"data: partial"
    chunks = [data[i : i + 40] for i in range(0, len(data), 40)]
    state = sse.StreamState()
    batches = list(sse.iter_raw(chunks, state=state))
    decoder = sse.SSEDecoder()
    assert batches == [b for b in map(decoder.feed_raw, chunks) if b]
    assert sse.expand(item for batch in batches for item in batch) == DEEPSEEK_EVENTS
    assert (state.incomplete, state.bytes_consumed) == (True, len(data))
    with pytest.raises(sse.InvalidUTF8Error):
        list(sse.iter_raw([b"data: a\n\n\xff\n"]))


# --------------------------------------------------------------------------
# Runs of plain events (feed_raw's fast path, issue 17)

R = sse.RawEvents


def test_first_read_takes_runs_of_plain_events_up_to_done() -> None:
    body = b"data: {}\n\ndata: x\n\ndata: [DONE]\n\n"
    assert sse.SSEDecoder().feed_raw(body) == [R([b"{}", b"x", b"[DONE]"])]
    assert sse.SSEDecoder().feed_raw(body + b": bye\n\n") == [R([b"{}", b"x", b"[DONE]"])]
    # Behind a BOM, the same events (line by line).
    assert sse.expand(sse.SSEDecoder().feed_raw(b"\xef\xbb\xbf" + body)) == sse.expand([R([b"{}", b"x", b"[DONE]"])])


def test_run_ends_at_the_first_block_that_is_not_a_plain_event() -> None:
    body = b"data: a\n\ndata: b\n\n: keep-alive\n\ndata: c\n\n"
    assert sse.SSEDecoder().feed_raw(body) == [R([b"a", b"b"]), E("message", "c")]
    # An extra blank line ends no run: the events before it are plain events.
    assert sse.SSEDecoder().feed_raw(b"data: a\n\n\ndata: b\n\n") == [R([b"a"]), E("message", "b")]
    # A two-line event is not one.
    assert sse.SSEDecoder().feed_raw(b"data: a\n\ndata: b\ndata: c\n\n") == [R([b"a"]), E("message", "b\nc")]
    with_id = [E("message", "a", "1"), E("message", "b", "1")]
    assert sse.SSEDecoder().feed_raw(b"id: 1\ndata: a\n\ndata: b\n\n") == with_id


def test_reads_longer_than_the_limit_are_taken_in_windows_of_runs() -> None:
    values = [b"%02d" % i + b"x" * (i % 7) for i in range(60)]
    body = b"".join(b"data: " + v + b"\n\n" for v in values)
    expected = [E("message", v.decode()) for v in values]
    for limit in (16, 40, 100):
        got = sse.SSEDecoder(limit).feed_raw(body)
        assert len(body) > limit and all(isinstance(item, R) for item in got)
        assert sse.expand(got) == expected
        # Reads of any size up to a window are one run of plain events each.
        assert all(len(b"data: \n\n".join(item.values)) + 8 <= limit for item in got)
    # Windows of 64 KiB with the default limit: a block that is not a plain
    # event slows only the window it is in.
    big = b"data: " + b"y" * 200 + b"\n\n"
    got = sse.SSEDecoder().feed_raw(b": hello\n\n" + big * 1000)
    assert sum(isinstance(item, R) for item in got) > 1
    assert sse.expand(got) == [E("message", "y" * 200)] * 1000


def test_one_large_event_in_small_reads_is_not_copied_per_read() -> None:
    """An event arriving in many small reads is joined once, when its line
    ends: work linear in its size (issue 17: the pending line was copied on
    every read, O(n**2) for n bytes, 8 s for 8 MB in 4 KiB reads).

    Measured as memory, not time: tracemalloc's peak of new allocations
    during each read, summed over the reads, bounds the bytes copied. Copying
    the pending line per read would allocate about n**2 / (2 * 4096) bytes,
    some 1000 times the event here; joining it once allocates a few times
    the event (the line, the event's data)."""
    size = 8_000_000
    body = b'data: "' + b"x" * (size - 10) + b'"\n\n'
    reads = [body[i : i + 4096] for i in range(0, size, 4096)]
    decoder = sse.SSEDecoder()
    allocated = 0
    events: list[Any] = []
    tracemalloc.start()
    try:
        for read in reads:
            tracemalloc.reset_peak()
            before = tracemalloc.get_traced_memory()[0]
            events += decoder.feed_raw(read)
            allocated += tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert [len(e.data) for e in sse.expand(events)] == [size - 8]
    assert allocated < 8 * size


async def _agen(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        await asyncio.sleep(0)
        yield chunk


async def _acollect(it: AsyncIterator[Any]) -> list[Any]:
    return [event async for event in it]


def test_aiter_events() -> None:
    for data in _variants(DEEPSEEK):
        chunks = [data[i : i + 5] for i in range(0, len(data), 5)]
        state = sse.StreamState()
        events = asyncio.run(_acollect(sse.aiter_events(_agen(chunks), state=state)))
        assert events == DEEPSEEK_EVENTS
        assert state.incomplete is False
        assert state.bytes_consumed == len(data)


def test_aiter_events_incomplete_and_errors() -> None:
    state = sse.StreamState()
    events = asyncio.run(_acollect(sse.aiter_events(_agen([b"data: a\n\ndata: b"]), state=state)))
    assert events == [E("message", "a")]
    assert state.incomplete is True

    got: list[Any] = []

    async def run() -> None:
        async for event in sse.aiter_events(_agen([b"data: a\n\n\xff\n"])):
            got.append(event)

    with pytest.raises(sse.InvalidUTF8Error) as info:
        asyncio.run(run())
    assert got == [E("message", "a")]
    assert info.value.offset == 9

    with pytest.raises(sse.EventTooLargeError):
        asyncio.run(_acollect(sse.aiter_events(_agen([b"data: 1234567890\n"]), max_event_bytes=8)))


def test_httpx_response_iter_bytes_and_aiter_bytes() -> None:
    httpx = pytest.importorskip("httpx")
    data = DEEPSEEK.encode()
    pieces = [data[i : i + 13] for i in range(0, len(data), 13)]

    def handler(request: Any) -> Any:
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=iter(pieces))

    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        with client.stream("POST", "https://example.invalid/chat") as response:
            assert list(sse.iter_events(response.iter_bytes())) == DEEPSEEK_EVENTS

    async def ahandler(request: Any) -> Any:
        return httpx.Response(200, content=_agen(pieces))

    async def arun() -> list[Any]:
        transport = httpx.MockTransport(ahandler)
        async with httpx.AsyncClient(transport=transport) as client:
            async with client.stream("POST", "https://example.invalid/c") as response:
                return await _acollect(sse.aiter_events(response.aiter_bytes()))

    assert asyncio.run(arun()) == DEEPSEEK_EVENTS


# --------------------------------------------------------------------------
# Properties

_LINES = st.sampled_from(
    [
        "",
        "",
        "data: x",
        "data:y",
        "data:  two",
        "data",
        "data:",
        "data: 你好 👋",
        "event: e",
        "event:",
        "event",
        "id: 1",
        "id",
        "id: a\0b",
        "retry: 10",
        "retry: x",
        "retry",
        ": comment",
        ":",
        "foo: bar",
        "Data: no",
        "\ufeffdata: bom",
    ]
)
_ENDS = st.sampled_from(["\n", "\r", "\r\n"])


@st.composite
def _streams(draw: Any) -> bytes:
    lines = draw(st.lists(st.tuples(_LINES, _ENDS), max_size=30))
    text = "".join(line + end for line, end in lines)
    if draw(st.booleans()):
        text = "\ufeff" + text
    if draw(st.booleans()):
        text += draw(_LINES)  # unterminated tail
    return text.encode()


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in zip(bounds, bounds[1:], strict=False)]


def _assert_matches_reference(data: bytes, cuts: list[int]) -> None:
    """``data`` decoded in one read and in the reads ``cuts`` makes gives the reference's
    events, and the bytes discarded are those after the last blank line."""
    expected = _reference(data)
    assert events_of(data) == expected
    events, decoder = decode(_split(data, cuts))
    assert events == expected
    assert decoder.bytes_discarded == _discarded(data, decoder.incomplete)


@settings(max_examples=400, deadline=None)
@given(_streams(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_random_splits_match_reference(data: bytes, cuts: list[int]) -> None:
    _assert_matches_reference(data, cuts)


#: Blocks of named-event streams (Anthropic, OpenAI Responses): mostly ``event:`` + ``data:``
#: + blank line, which the fast path builds at once, with the blocks that must break a run.
_NAMED_BLOCKS = st.sampled_from(
    [
        'event: content_block_delta\ndata: {"text":"\u00e9t\u00e9"}\n\n',
        "event: ping\ndata: {}\n\n",
        "event: \ndata: empty type\n\n",
        "event:  two spaces\ndata:  kept\n\n",
        "event: e\ndata: \n\n",
        "data: plain\n\n",
        "id: 7\n",
        ": heartbeat\n",
        "event: e\ndata: a\ndata: b\n\n",
        "retry: 10\nevent: e\ndata: x\n\n",
        "event: e\r\ndata: crlf\r\n\r\n",
        "event: cut",
        # Lines sorting next to the "event: " and "data: " prefixes, and a swapped block.
        "event:!\ndata: bang\n\n",
        "event:\ndata:!\n\n",
        "eventx: a\ndata: b\n\n",
        "data: x\nevent: y\n\n",
        "event: e\ndata:\n\n",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(max_size=9), max_size=6), st.sampled_from([b"event: ", b"data: ", b"a", b"\x00\xfe"]))
def test_all_start_with_is_startswith_of_every_line(lines: list[bytes], prefix: bytes) -> None:
    """The two-pass check the fast paths use for line prefixes (min and max against the
    prefix and the prefix with its last byte raised) says what ``startswith`` on each says."""
    bound = prefix[:-1] + bytes((prefix[-1] + 1,))
    lines = lines + [prefix + line for line in lines]  # as many that do start with it
    for subset in (lines, lines[len(lines) // 2 :], [line for line in lines if line.startswith(prefix)]):
        assert sse_runs.all_start_with(subset, prefix, bound) == all(line.startswith(prefix) for line in subset)


@settings(max_examples=400, deadline=None)
@given(st.lists(_NAMED_BLOCKS, max_size=25), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_named_event_runs_match_reference(blocks: list[str], cuts: list[int]) -> None:
    """The fast path for runs of ``event:``/``data:``/blank triplets gives the events the
    WHATWG algorithm gives, whatever the reads and whatever breaks the run."""
    data = "".join(blocks).encode()
    _assert_matches_reference(data, cuts)


#: Data values for runs of one event line, some holding what the separator between its
#: blocks looks like, or a line end (a second data line) that must break the run.
_RUN_VALUES = st.sampled_from(
    [
        '{"t":"a"}',
        "",
        "event: d",
        "x\n\nevent: d\ndata: y",
        "x\ndata: y",
        "\u00e9t\u00e9 \U0001f44b",
        "d\ndata: ",
    ]
)


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["d", "d", "d", "dd", ""]), _RUN_VALUES), max_size=20),
    st.lists(st.integers(min_value=0, max_value=10_000), max_size=6),
)
def test_runs_of_one_event_line_match_reference(blocks: list[tuple[str, str]], cuts: list[int]) -> None:
    """Reads that repeat one ``event:`` line (the common read of Messages and Responses
    streams, cut at that line's separator) give the events the WHATWG algorithm gives,
    also when a value looks like the separator or holds a line end."""
    data = "".join(f"event: {name}\ndata: {value}\n\n" for name, value in blocks).encode()
    _assert_matches_reference(data, cuts)


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(_variants(DEEPSEEK)), st.lists(st.integers(0, 10_000)))
def test_random_splits_of_example_stream_give_same_events(data: bytes, cuts: list[int]) -> None:
    assert decode(_split(data, cuts))[0] == DEEPSEEK_EVENTS


@settings(max_examples=500, deadline=None)
@given(
    st.binary(max_size=200),
    st.lists(st.integers(0, 1000), max_size=8),
    st.integers(min_value=1, max_value=64),
)
def test_arbitrary_bytes_raise_nothing_but_sse_errors(data: bytes, cuts: list[int], limit: int) -> None:
    try:
        decode(_split(data, cuts), max_event_bytes=limit)
    except sse.SSEError:
        pass
    try:
        events, _ = decode(_split(data, cuts))
    except sse.InvalidUTF8Error as exc:
        # Same first invalid byte as decoding the whole stream at once.
        with pytest.raises(UnicodeDecodeError) as info:
            data.decode("utf-8")
        assert exc.offset == info.value.start
    else:
        complete = re.match(rb"(?s).*[\r\n]", data)
        if complete is not None:
            body = complete.group()
            body.decode("utf-8")  # everything before the tail was valid
            assert events == _reference(body)


# Mostly "data: value" + blank line, as LLM streams are (the decoder's run
# path), with a few other lines, invalid bytes and splits mixed in.
_SIMPLE_BLOCKS = st.sampled_from(
    [
        b"data: {}\n\n",
        b"data: x\n\n",
        b"data: \n\n",
        "data: über 你好 👋\n\n".encode(),
        b"data: [DONE]\n\n",
        b"data: a\ndata: b\n\n",
        b"data:x\n\n",
        b": heartbeat\n\n",
        b"id: 7\n",
        b"event: error\n",
        b"\n",
        b"data: \xff\n\n",
        b"data: \xc3\n\n",
        b"data: " + b"y" * 40 + b"\n\n",
    ]
)


def _outcome(chunks: list[bytes], limit: int) -> tuple[Any, ...]:
    """Events and error (type, offset, events attached) of one decode."""
    decoder = sse.SSEDecoder(limit)
    events: list[Any] = []
    try:
        for chunk in chunks:
            events += decoder.feed(chunk)
    except sse.SSEError as exc:
        return events + exc.events, type(exc).__name__, getattr(exc, "offset", None)
    decoder.close()
    return events, decoder.incomplete, decoder.bytes_discarded, decoder.last_event_id


@settings(max_examples=400, deadline=None)
@given(
    st.lists(_SIMPLE_BLOCKS, max_size=25),
    st.sampled_from([b"", b"data: {", b"data: x\n", b"\xe4\xbd", b"data: \xff}"]),
    st.lists(st.integers(0, 10_000), max_size=8),
    st.sampled_from([8, 30, 64, 200, sse.DEFAULT_MAX_EVENT_BYTES]),
    st.booleans(),
)
def test_event_runs_match_byte_at_a_time(
    blocks: list[bytes], tail: bytes, cuts: list[int], limit: int, bom: bool
) -> None:
    """Reads holding whole runs of events give exactly what one byte per read
    gives (events, error type and byte offset, events before the error,
    incompleteness), including invalid UTF-8 and the size limit: the whole
    body as the first read (with or without a BOM; ``[DONE]`` among the
    blocks), reads longer than the limit (taken in windows), any split."""
    data = (b"\xef\xbb\xbf" if bom else b"") + b"".join(blocks) + tail
    one_by_one = _outcome([data[i : i + 1] for i in range(len(data))], limit)
    assert _outcome([data], limit) == one_by_one
    assert _outcome(_split(data, cuts), limit) == one_by_one
    # One read per event, as servers flushing every token send (the single-event path).
    per_event = [block + b"\n\n" for block in data.split(b"\n\n")]
    per_event[-1] = per_event[-1][:-2]
    assert _outcome([read for read in per_event if read], limit) == one_by_one


# --------------------------------------------------------------------------
# The layers alone: line splitter, field interpreter, run scanner, literal algorithm


def _splitter_lines(reads: list[bytes]) -> tuple[list[bytes], list[int], bytes, int]:
    """Drive ``sse.LineSplitter`` alone over ``reads`` as the decoder does: the complete
    lines, the absolute offset of each, the pending bytes left, and where the block after
    the last blank line starts."""
    splitter = sse.LineSplitter(sse.DEFAULT_MAX_EVENT_BYTES)
    lines: list[bytes] = []
    starts: list[int] = []
    offset = 0
    for read in reads:
        prepared = splitter.prepare(read, offset) if read else None
        offset += len(read)
        if prepared is None or not prepared[0]:
            continue
        split = splitter.split(*prepared)
        if split is None:
            continue
        lines += split.lines
        starts += [split.line_start(i) for i in range(len(split.lines))]
        if split.block_start() >= 0:
            splitter.block_start = split.block_start()
    return lines, starts, b"".join(splitter.pending), splitter.block_start


@settings(max_examples=400, deadline=None)
@given(_streams(), st.lists(st.integers(min_value=0, max_value=10_000), max_size=12))
def test_line_splitter_alone_gives_the_lines_of_the_whole_stream_under_any_split(data: bytes, cuts: list[int]) -> None:
    """Any split into reads (a CR ending one read and its LF starting the next, a BOM or
    a character cut in two) gives the lines that splitting the whole stream at CRLF, LF
    and CR gives, each at its byte offset, the same unterminated rest, and the offset
    after the last blank line; one-byte reads too."""
    bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    found = list(re.finditer(rb"([^\r\n]*)(\r\n|\r|\n)", data[bom:]))
    expected_lines = [m.group(1) for m in found]
    expected_starts = [bom + m.start() for m in found]
    rest = data[bom + (found[-1].end() if found else 0) :]
    blank_ends = [bom + m.end() for m in found if not m.group(1)]
    expected = (expected_lines, expected_starts, rest, blank_ends[-1] if blank_ends else bom)
    if len(data) < 3 and b"\xef\xbb\xbf".startswith(data):
        return  # a stream that may still be a BOM: nothing is split
    assert _splitter_lines(_split(data, cuts)) == expected
    assert _splitter_lines([data[i : i + 1] for i in range(len(data))]) == expected


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINES, max_size=30))
def test_field_interpreter_alone_gives_the_events_of_the_literal_algorithm(lines: list[str]) -> None:
    """``sse.FieldInterpreter`` over decoded lines, in one batch or one line per call, gives
    the events, last event ID and reconnection time of ``whatwg_events``."""
    lines = [line.lstrip("\ufeff") for line in lines]
    body = "".join(line + "\n" for line in lines).encode()
    expected = whatwg_events(body)
    for batches in ([lines], [[line] for line in lines]):
        fields = sse.FieldInterpreter()
        events: list[Any] = []
        for batch in batches:
            fields.interpret(batch, events)
        assert events == expected
        decoder = sse.SSEDecoder()
        decoder.feed(body)
        assert (fields.last_event_id, fields.reconnection_time) == (
            decoder.last_event_id,
            decoder.reconnection_time,
        )


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_NAMED_BLOCKS, st.sampled_from(["data: v\n\n", "data: \n\n"])), max_size=25))
def test_run_scanner_alone_gives_the_events_of_the_literal_algorithm(blocks: list[str]) -> None:
    """A run ``sse.scan_run`` takes is exactly the events the literal algorithm gives for
    its bytes (with the last event ID given), it stops after a blank line, and a run of
    plain events is the longest: the block after it is no ``data: `` + value + blank line."""
    data = "".join(blocks).replace("\r", "").encode()
    cut = data.rfind(b"\n\n")
    if cut < 0:
        return
    run, stop = sse.scan_run(data, 0, cut, "7")
    if run is None:
        assert stop == 0
        return
    assert data[stop - 2 : stop] == b"\n\n" and stop <= cut + 2
    expected = [event._replace(id="7") for event in whatwg_events(data[:stop])]
    assert run.events() == expected and run.id == "7"
    if isinstance(run, sse.RawEvents):
        assert re.match(rb"data: [^\n]*\n\n", data[stop:]) is None
    else:
        assert stop == cut + 2


def test_literal_algorithm_reports_invalid_utf8_and_oversized_retry_as_the_decoder_does() -> None:
    body = b"\xef\xbb\xbfdata: a\n\ndata: \xff\n\n"
    with pytest.raises(sse.InvalidUTF8Error) as literal:
        whatwg_events(body)
    with pytest.raises(sse.InvalidUTF8Error) as decoded:
        decode([body])
    assert literal.value.offset == decoded.value.offset == 18
    # Bytes after the last line end are not checked (the unterminated event is discarded).
    assert whatwg_events(b"data: a\n\ndata: \xff") == [E("message", "a")]
    huge = b"data: a\n\nretry: " + b"9" * 5000 + b"\n\n"
    with pytest.raises(sse.InvalidFieldError) as literal_field:
        whatwg_events(huge)
    assert literal_field.value.events == [E("message", "a")]
    with pytest.raises(sse.InvalidFieldError):
        decode([huge])


@settings(max_examples=300, deadline=None)
@given(
    st.lists(_NAMED_BLOCKS, max_size=12),
    st.sampled_from(["", ": c\n", ": c\n: d\n", "id: 1\n", ": c\ndata: x", "data: x\n", "event: e\n"]),
    st.lists(st.integers(0, 10_000), max_size=6),
)
def test_named_runs_and_any_tail_match_byte_at_a_time(blocks: list[str], tail: str, cuts: list[int]) -> None:
    """After runs of named events, the lines begun after the last blank line (kept as
    bytes until the next read) end the stream as line by line does: a last comment line
    leaves it complete, a field line incomplete, with the same bytes discarded."""
    data = ("".join(blocks) + tail).encode()
    one_by_one = _outcome([data[i : i + 1] for i in range(len(data))], sse.DEFAULT_MAX_EVENT_BYTES)
    assert _outcome([data], sse.DEFAULT_MAX_EVENT_BYTES) == one_by_one
    assert _outcome(_split(data, cuts), sse.DEFAULT_MAX_EVENT_BYTES) == one_by_one


def test_a_comment_line_after_the_last_event_leaves_the_stream_complete() -> None:
    for body in (b"event: x\ndata: a\n\n: bye\n", b": x\n\n: bye\n", b"data: a\n\n: bye\n"):
        events, decoder = decode([body])
        assert (decoder.incomplete, decoder.bytes_discarded) == (False, 0), body


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__, "-q"]))
