"""The framing objects (issue 32 item 2): ``framing.py`` holds what every framing shares, and
``sse.SSE`` / ``ndjson.NDJSON`` each build their decoder and write events back, so that a
``Channel`` holds its framing instead of switching on a name."""

from __future__ import annotations

import pytest

from ssegen.runtime import framing, ndjson, sse
from ssegen.runtime.stream import FRAMINGS, Channel, Classifier


def test_sse_and_ndjson_share_the_items_errors_and_driver_of_framing() -> None:
    for name in ("ServerSentEvent", "RawEvents", "NamedEvents", "SSEError", "StreamState", "Framer"):
        assert getattr(sse, name) is getattr(framing, name)
    assert issubclass(sse.InvalidUTF8Error, framing.SSEError)
    assert ndjson.EventTooLargeError is framing.EventTooLargeError


@pytest.mark.parametrize(
    ("framing_", "name", "media_type", "decoder"),
    [
        (sse.SSE, "sse", "text/event-stream", sse.SSEDecoder),
        (ndjson.NDJSON, "ndjson", "application/x-ndjson", ndjson.NDJSONDecoder),
    ],
)
def test_a_framing_names_itself_and_builds_its_decoder(
    framing_: framing.Framing, name: str, media_type: str, decoder: type
) -> None:
    assert framing_.name == name and framing_.media_type == media_type
    assert framing_ == name and framing_ != "other" and FRAMINGS[name] is framing_
    built = framing_.decoder(10)
    assert type(built) is decoder
    with pytest.raises(ValueError):
        framing_.decoder(0)


def test_each_framing_writes_what_its_decoder_reads_back() -> None:
    frame = sse.SSE.frame(b'{"a":1}', "delta")
    assert frame == b'event: delta\ndata: {"a":1}\n\n'
    assert sse.SSE.frame(b"{}") == b"data: {}\n\n"
    [event] = sse.SSEDecoder().feed(frame + sse.SSE.frame_text("x\ny", "e", "7"))[1:]
    assert event == sse.ServerSentEvent("e", "x\ny", "7", None)
    assert ndjson.NDJSON.frame(b'{"a":1}', "ignored") == b'{"a":1}\n'
    assert [e.data for e in ndjson.NDJSONDecoder().feed(ndjson.NDJSON.frame_text("[1]"))] == ["[1]"]
    with pytest.raises(ValueError, match="line end"):
        ndjson.NDJSON.frame_text("{}\n{}")
    with pytest.raises(ValueError, match="CR"):
        sse.SSE.frame_text("a\rb")


def test_a_channel_takes_a_framing_or_its_name() -> None:
    classifier = Classifier(lambda event: event)
    by_name = Channel("/x", {}, classifier, {}, framing="ndjson")
    assert by_name.framing is ndjson.NDJSON and by_name.framing == "ndjson"
    assert type(by_name.framer(5)) is ndjson.NDJSONDecoder
    assert Channel("/x", {}, classifier, {}).framing is sse.SSE
    assert Channel("/x", {}, classifier, {}, framing=ndjson.NDJSON).framing is ndjson.NDJSON
    with pytest.raises(ValueError, match="framing must be one of sse, ndjson"):
        Channel("/x", {}, classifier, {}, framing="json-seq")


def test_the_read_driver_reads_any_framing() -> None:
    state = framing.StreamState()
    reads = list(framing.read_items([b'{"a":1}\n{"b"', b":2}\n"], ndjson.NDJSON.decoder, state=state))
    assert [value for items in reads for item in items for value in item.values] == [b'{"a":1}', b'{"b":2}']
    assert state.bytes_consumed == 16 and not state.incomplete
