"""The NDJSON framer (src/ssegen/runtime/ndjson.py): values, line ends, limits, UTF-8 and
truncation, the same under any split of the body into reads (issue 26)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssegen.runtime import ndjson, sse
from ssegen.runtime.ndjson import NDJSONDecoder, iter_values


def _reads(body: bytes, cuts: Iterable[int]) -> list[bytes]:
    """``body`` cut at each of ``cuts`` (sorted, in range)."""
    points = sorted({c for c in cuts if 0 < c < len(body)})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


def _outcome(body: bytes, cuts: Iterable[int] = (), limit: int = sse.DEFAULT_MAX_EVENT_BYTES) -> tuple:
    """What a decoder gives for ``body`` read as the pieces at ``cuts``: the values (those
    attached to an error included), the error's type and offset, and the truncation."""
    decoder = NDJSONDecoder(limit)
    values: list[str] = []
    try:
        for read in _reads(body, cuts):
            values += [event.data for event in decoder.feed(read)]
        values += [event.data for event in decoder.close()]
    except sse.SSEError as exc:
        values += [event.data for event in exc.events]
        return values, type(exc).__name__, getattr(exc, "offset", None)
    return values, decoder.incomplete, decoder.bytes_discarded


def _literal(body: bytes) -> tuple[list[str], bool, int]:
    """The NDJSON rules read literally off the whole body (no errors expected): BOM,
    LF-separated lines, CRLF, blank lines, and a last line without its LF kept when it is
    JSON, else reported with its size."""
    body = body.removeprefix(b"\xef\xbb\xbf")
    *lines, last = body.split(b"\n")
    values = [line.removesuffix(b"\r").decode() for line in lines]
    values = [value for value in values if value.strip()]
    tail = last.removesuffix(b"\r")
    if tail.strip():
        try:
            json.loads(tail.decode())
        except ValueError:
            return values, True, len(last)
        values.append(tail.decode())
    return values, False, 0


def test_lines_are_values_in_order() -> None:
    body = b'{"a": 1}\n{"b": [2, 3]}\n"text"\n'
    assert list(iter_values([body])) == ['{"a": 1}', '{"b": [2, 3]}', '"text"']


def test_crlf_bom_and_blank_lines() -> None:
    body = b'\xef\xbb\xbf{"a":1}\r\n\r\n   \n\t\n{"b":2}\n'
    assert list(iter_values([body])) == ['{"a":1}', '{"b":2}']


def test_lone_cr_is_not_a_line_end() -> None:
    assert list(iter_values([b'{"a":\r1}\n'])) == ['{"a":\r1}']


def test_last_line_without_lf_is_a_value_when_it_is_json() -> None:
    assert _outcome(b'{"a":1}\n{"done":true}') == (['{"a":1}', '{"done":true}'], False, 0)


def test_cut_last_line_is_reported_not_dispatched() -> None:
    assert _outcome(b'{"a":1}\n{"done":tr') == (['{"a":1}'], True, 10)


def test_last_line_cut_inside_a_character_is_reported() -> None:
    assert _outcome('{"a":1}\n{"t":"é'.encode()[:-1]) == (['{"a":1}'], True, 7)


def test_invalid_utf8_names_its_offset_and_keeps_the_values_before() -> None:
    body = b'{"a":1}\n{"b":2}\n{"c":"\xff"}\n{"d":4}\n'
    assert _outcome(body) == (['{"a":1}', '{"b":2}'], "InvalidUTF8Error", 22)
    assert _outcome(body, range(1, len(body))) == _outcome(body)


def test_line_over_the_limit() -> None:
    body = b'{"a":1}\n{"b":"' + b"x" * 40 + b'"}\n{"c":3}\n'
    assert _outcome(body, limit=32) == (['{"a":1}'], "EventTooLargeError", 8)
    # an unterminated line over the limit fails as soon as it is read, not at its end
    decoder = NDJSONDecoder(32)
    decoder.feed(b'{"a":1}\n')
    with pytest.raises(sse.EventTooLargeError) as info:
        decoder.feed(b"y" * 33)
    assert info.value.offset == 8


def test_a_failed_or_closed_decoder_refuses_more() -> None:
    decoder = NDJSONDecoder()
    decoder.close()
    with pytest.raises(sse.SSEError, match="after close"):
        decoder.feed(b"{}\n")
    failed = NDJSONDecoder(4)
    with pytest.raises(sse.EventTooLargeError):
        failed.feed(b"12345")
    with pytest.raises(sse.SSEError, match="failed earlier"):
        failed.feed(b"\n")


@pytest.mark.parametrize("chunk", ["{}\n", 123])
def test_chunks_that_are_not_bytes(chunk: object) -> None:
    with pytest.raises(TypeError, match="bytes chunks"):
        NDJSONDecoder().feed(chunk)  # type: ignore[arg-type]


def test_buffers_other_than_bytes_are_read() -> None:
    assert [e.data for e in NDJSONDecoder().feed(memoryview(b"{}\n[1]\n"))] == ["{}", "[1]"]


def test_feed_raw_gives_one_run_per_read() -> None:
    (run,) = NDJSONDecoder().feed_raw(b'{"a":1}\n{"b":2}\n{"c"')
    assert run == sse.RawEvents([b'{"a":1}', b'{"b":2}'], "")


_VALUE = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def _bodies(draw: st.DrawFn) -> bytes:
    """Bodies of JSON values with every line-end and blank-line variant, a BOM, and a last
    line that is whole, cut, or absent."""
    parts = [draw(st.sampled_from([b"", b"\xef\xbb\xbf"]))]
    for value in draw(st.lists(_VALUE, max_size=6)):
        text = json.dumps(value, ensure_ascii=draw(st.booleans())).encode()
        parts.append(draw(st.sampled_from([b"", b"\n", b"  \r\n", b"\t\n"])))
        parts.append(text + draw(st.sampled_from([b"\n", b"\r\n"])))
    last = json.dumps(draw(_VALUE), ensure_ascii=False).encode()
    parts.append(last[: draw(st.integers(0, len(last)))])
    return b"".join(parts)


@settings(max_examples=300, deadline=None)
@given(body=_bodies(), data=st.data())
def test_any_split_gives_what_the_literal_rules_give(body: bytes, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=12))
    assert _outcome(body, cuts) == _outcome(body) == _literal(body)
    assert _outcome(body, range(1, len(body))) == _literal(body)


@settings(max_examples=200, deadline=None)
@given(
    body=st.binary(max_size=64).map(lambda b: b.replace(b"\n", b"\n\n")) | _bodies(),
    limit=st.integers(1, 40),
    data=st.data(),
)
def test_errors_are_the_same_under_any_split(body: bytes, limit: int, data: st.DataObject) -> None:
    cuts = data.draw(st.lists(st.integers(0, len(body)), max_size=12))
    assert _outcome(body, cuts, limit) == _outcome(body, (), limit) == _outcome(body, range(len(body)), limit)


@settings(max_examples=100, deadline=None)
@given(body=_bodies(), data=st.data())
def test_iter_events_and_aiter_events_read_ndjson_alike(body: bytes, data: st.DataObject) -> None:
    """The sync and async readers share ``sse._Reads``: the same values and end state under
    any split, for the NDJSON framer as for SSE."""
    reads = _reads(body, data.draw(st.lists(st.integers(0, len(body)), max_size=12)))
    state = sse.StreamState()
    values = [e.data for e in sse.iter_events(reads, state=state, framer=NDJSONDecoder)]

    async def collect(astate: sse.StreamState) -> list[str]:
        async def chunks() -> AsyncIterator[bytes]:
            for read in reads:
                yield read

        return [e.data async for e in sse.aiter_events(chunks(), state=astate, framer=NDJSONDecoder)]

    astate = sse.StreamState()
    assert asyncio.run(collect(astate)) == values == _literal(body)[0]
    assert (astate.incomplete, astate.bytes_discarded) == (state.incomplete, state.bytes_discarded)
    assert (state.incomplete, state.bytes_discarded) == _literal(body)[1:]


def test_a_long_read_is_handed_on_in_runs_of_run_values() -> None:
    """A read of many lines (a whole body) gives runs of at most ``RUN_VALUES`` values, in
    order, so that a consumer decoding a run at once holds one run's typed values: lines
    checked one by one (CRLF ends here) in runs of ``RUN_VALUES``."""
    from ssegen.runtime.ndjson import RUN_VALUES

    lines = [b'{"i":%d}' % i for i in range(2 * RUN_VALUES + 3)]
    runs = NDJSONDecoder().feed_raw(b"\r\n".join(lines) + b"\r\n")
    assert [len(run.values) for run in runs] == [RUN_VALUES, RUN_VALUES, 3]
    assert [value for run in runs for value in run.values] == lines
    assert {type(run.values) for run in runs} == {list}


def test_object_lines_are_handed_on_as_read_in_spans_of_span_bytes() -> None:
    """Lines that are each an object's text as far as their ends tell are handed on as the
    bytes read (``ndjson.Lines``, no ``bytes`` per line), a long read in spans of at most
    ``SPAN_BYTES`` cut at line ends, a longer line a span of its own."""
    from ssegen.runtime.ndjson import SPAN_BYTES

    lines = [b'{"i":%d,"pad":"%s"}' % (i, b"x" * (i % 50)) for i in range(1000)]
    lines[500] = b'{"long":"' + b"y" * (2 * SPAN_BYTES) + b'"}'
    body = b"\n".join(lines) + b"\n"
    runs = NDJSONDecoder().feed_raw(body)
    assert all(type(run.values) is ndjson.Lines for run in runs)
    assert b"".join(run.values.data for run in runs) == body
    assert [value for run in runs for value in run.values] == lines
    assert [len(run.values.data) for run in runs if len(run.values.data) > SPAN_BYTES] == [len(lines[500]) + 1]
    spans = [run.values.data for run in runs]
    for span, after in zip(spans, spans[1:], strict=False):  # each cut at the last line end that fits
        assert len(span) > SPAN_BYTES or len(span) + after.index(b"\n") + 1 > SPAN_BYTES


@pytest.mark.parametrize(
    ("body", "kind"),
    [
        (b'{"a":1}\r\n{"b":2}\n', list),  # a CRLF end
        (b'{"a":1}\n\n{"b":2}\n', list),  # a blank line
        (b'{"a":1}\n {"b":2}\n', list),  # a line beginning with a space
        (b'{"a":1}\n[2]\n', list),  # a line that is no object
        (b'{"a":1} \n{"b":2}\n', list),  # a line ending with a space
        (b'{"a":\n1}\n', list),  # an object over two lines: neither begins and ends so
        (b"{}{}\n{}\n", ndjson.Lines),  # two objects on a line: for the typed decoding to refuse
    ],
)
def test_lines_not_each_an_object_are_checked_one_by_one(body: bytes, kind: type) -> None:
    """A read with a line that does not begin with ``{`` and end with ``}`` is split and
    cleaned line by line (CR, blank lines), as before ``Lines``; a line of two objects passes
    the framer as read, and the typed decoding, counting more values than lines, classifies
    each line alone (test_ndjson_channel.py)."""
    (run,) = NDJSONDecoder().feed_raw(body)
    assert type(run.values) is kind
    assert [value.decode() for value in run.values] == _literal(body)[0]
