"""What each channel's generated ``Encoding`` is given (issue 27): event types, literals, the
terminator, the channel's examples and harvested streams; a member the spec requires, nullable
or not, is a field without default, which the encoder always writes."""

from __future__ import annotations

from conftest import SPECS

from codemodel.build_ir import channel, done, integer, message, obj, opt, provider, req, string
from ssegen.codemodel import build_package_spec
from ssegen.diagnostics import Diagnostics
from ssegen.load import load_provider


def test_named_events_literals_terminator_and_required_members() -> None:
    chunk = obj(
        "Chunk",
        req("id", string()),
        req("finish_reason", string("stop", nullable=True)),  # required, may be null
        opt("index", integer()),
    )
    start = obj("Start", req("type", string("start")))
    spec = build_package_spec(
        provider(channel(message("Chunk", chunk), message("Start", start, event="start"), done())), Diagnostics()
    )
    [ch] = spec.channels
    assert ch.encoding is not None
    assert ch.encoding.events == (("Start", "start"),)
    assert ch.encoding.literals == (("Done", "[DONE]"),)
    assert ch.encoding.terminator == "Done"
    [cls] = [c for c in spec.classes if c.name == "Chunk"]
    assert [(f.name, f.required) for f in cls.fields][:3] == [("id", True), ("finish_reason", True), ("index", False)]


def test_examples_and_harvested_streams_are_the_channels_own() -> None:
    spec = build_package_spec(load_provider(SPECS, "siliconstorm").provider, Diagnostics())
    [ch] = spec.channels
    assert ch.encoding is not None
    assert ch.encoding.examples == tuple((e.event, e.data) for e in spec.examples)
    # The cumulative stream (MindIE fullTextEnabled) assembles only in cumulative mode: left out.
    assert [name for name, _events in ch.encoding.streams] == ["streaming-inference-1"]
    [(_name, events)] = ch.encoding.streams
    assert events[-1] == ("message", "[DONE]") and all(event == "message" for event, _data in events)
