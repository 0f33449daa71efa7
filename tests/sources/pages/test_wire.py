"""The one example-stream frame reader and PageStream (src/ssegen/sources/pages/wire.py)."""

from __future__ import annotations

from ssegen.ir import Provenance
from ssegen.sources.pages.wire import PageStream, WireFrame, json_continuation, read_frames


def _numbered(text: str, first: int = 10) -> list[tuple[int, str]]:
    return list(enumerate(text.split("\n"), start=first))


def test_each_data_line_is_a_frame_with_its_page_line() -> None:
    read = read_frames(_numbered('data: {"a": 1}\n\ndata: [DONE]'))
    assert read.frames == [WireFrame((("data", '{"a": 1}'),), 10), WireFrame((("data", "[DONE]"),), 12)]


def test_fields_before_a_data_line_belong_to_its_frame_which_starts_at_the_first() -> None:
    read = read_frames(_numbered('event: error\nid: 7\ndata: {"e": 1}'))
    assert read.frames == [WireFrame((("event", "error"), ("id", "7"), ("data", '{"e": 1}')), 10)]


def test_trailing_fields_without_data_are_a_frame_of_their_own() -> None:
    assert read_frames(_numbered("data: x\nevent: ping")).frames[-1] == WireFrame((("event", "ping"),), 11)


def test_comment_line_is_a_comment_frame_and_annotations_are_dropped() -> None:
    read = read_frames(_numbered("# the first chunk\n: heartbeat\ndata: 1"))
    assert read.frames == [WireFrame((("", "heartbeat"),), 11), WireFrame((("data", "1"),), 12)]


def test_json_written_over_several_lines_is_joined_into_one_compact_value() -> None:
    read = read_frames(_numbered('data: {"a": 1,\n  "b": [1,\n 2]}\ndata: [DONE]'))
    assert read.frames[0] == WireFrame((("data", '{"a":1,"b":[1,2]}'),), 10)
    assert read.frames[1].line == 13
    assert read.rejoined == {0: (10, 12)}
    assert [(code.name, line) for code, _, line in read.notes()] == [("example-data-rejoined", 10)]


def test_a_json_value_that_never_completes_stays_as_written() -> None:
    read = read_frames(_numbered("data: {oops\n\ndata: [DONE]"))
    assert [f.fields[0][1] for f in read.frames] == ["{oops", "[DONE]"]
    assert read.rejoined == {}


def test_continuation_stops_at_the_next_field_line() -> None:
    assert json_continuation('{"a":', iter([(2, "data: 1}")])) is None
    assert json_continuation('{"a": 1}', iter([])) is None  # already JSON
    assert json_continuation("[DONE]", iter([(2, "]")])) is None  # not JSON, but not started as JSON either


def test_a_line_that_is_no_field_is_left_out_and_reported() -> None:
    read = read_frames(_numbered("data: 1\nnot a field"))
    assert read.ignored == [(11, "not a field")]
    assert [code.name for code, _, _ in read.notes()] == ["example-line-ignored"]


def test_page_stream_wire_events_and_lines() -> None:
    frames = read_frames(_numbered(': hi\nevent: error\ndata: {"e": 1}\ndata: [DONE]')).frames
    stream = PageStream("s", tuple(frames), Provenance("p.md", 10, "/sections/s/examples/0"))
    assert stream.wire == b': hi\n\nevent: error\ndata: {"e": 1}\n\ndata: [DONE]\n\n'
    assert [(e.event, e.data, e.comment) for e in stream.events()] == [
        ("", "", "hi"),
        ("error", '{"e": 1}', ""),
        ("message", "[DONE]", ""),
    ]
    assert stream.event_lines == (10, 11, 13)
    assert stream.event_provenance(1) == Provenance("p.md", 11, "/sections/s/examples/0/events/1")
    ir = stream.to_ir("/chat/completions")
    assert [(e.event, e.comment, e.line) for e in ir.events] == [
        ("message", "hi", 10),
        ("error", None, 11),
        ("message", None, 13),
    ]
