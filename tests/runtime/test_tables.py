"""The lookup tables a generated ``channels.py`` builds at import (runtime ``tables.py``): one
decode function per class, shared by every key of it, keeping the usage as sent where the class
keeps it; message names and ``event:`` lines from the same one table; and the runs of the
runtime's own events, which every channel adds (``stream.EVERY_CHANNEL_RUNS``)."""

from __future__ import annotations

import msgspec
import pytest

from generated.anthropic import channels as anthropic
from ssegen.runtime.events import StreamTruncated, UnknownEvent
from ssegen.runtime.sink import on_vendor
from ssegen.runtime.stream import EVERY_CHANNEL_RUNS, Channel, Classifier, each
from ssegen.runtime.tables import decoder_table, decoder_tuples, json_decoder, message_names, named
from ssegen.runtime.usage import SentUsage, usage_as_sent


class Usage(msgspec.Struct, SentUsage, gc=False):
    total: int = 0


class Delta(msgspec.Struct):
    text: str


class Done(msgspec.Struct):
    usage: Usage | None = None


EVENTS: dict[str, type[Delta | Done]] = {"delta": Delta, "again": Delta, "done": Done}


def test_each_key_decodes_to_its_class_and_keys_of_one_class_share_one_decoder() -> None:
    table = decoder_table(EVENTS, json_decoder)
    assert list(table) == ["delta", "again", "done"]
    assert table["delta"]('{"text": "hi"}') == Delta("hi")
    assert table["done"](b"{}") == Done()
    assert table["delta"] is table["again"]
    with pytest.raises(msgspec.ValidationError):
        table["delta"]('{"text": 1}')


def test_a_class_keeping_its_usage_keeps_the_object_as_sent_from_str_and_bytes() -> None:
    table = decoder_table(EVENTS, json_decoder, {Done: "usage"})
    for data in ('{"usage": {"total": 3, "cached": 1}}', b'{"usage": {"total": 3, "cached": 1}}'):
        done = table["done"](data)
        assert isinstance(done, Done) and done.usage == Usage(3)
        assert usage_as_sent(done.usage) == {"total": 3, "cached": 1}
    assert (
        usage_as_sent(decoder_table(EVENTS, json_decoder)["done"]('{"usage": {"total": 3, "cached": 1}}').usage) is None
    )


def test_tuples_keep_the_order_of_the_classes_tried() -> None:
    table = decoder_tuples({"x": (Done, Delta), "y": (Delta,)}, json_decoder)
    assert [len(decoders) for decoders in table.values()] == [2, 1]
    first, second = table["x"]
    assert first("{}") == Done() and second('{"text": "a"}') == Delta("a")
    assert table["y"][0] is second  # one decoder per class, whatever key selects it


def test_message_names_are_those_of_the_first_message_of_each_class() -> None:
    messages = {"TextDelta": Delta, "OtherDelta": Delta, "Stop": Done}
    assert message_names(EVENTS, messages) == {"delta": "TextDelta", "again": "TextDelta", "done": "Stop"}
    with pytest.raises(KeyError):
        message_names({"usage": Usage}, messages)


def test_named_keys_are_the_utf8_event_lines() -> None:
    assert named({"ping": 1, "ünï": 2}) == {b"event: ping": 1, "event: ünï".encode(): 2}


def test_a_channel_adds_the_runs_of_the_runtimes_own_events_unless_given() -> None:
    assert UnknownEvent.__name__ not in {cls.__name__ for cls in anthropic._APPLY_V1_MESSAGES}
    runs = anthropic.V1_MESSAGES_CHANNEL.runs
    assert {cls.__name__ for cls in runs} >= {"UnknownEvent", "StreamTruncated"}
    assert len(runs) == len(anthropic._APPLY_V1_MESSAGES) + len(EVERY_CHANNEL_RUNS)
    own = each(on_vendor)
    channel: Channel[object] = Channel("/x", {}, Classifier(lambda sse: sse), {UnknownEvent: own})
    assert channel.runs == {UnknownEvent: own, StreamTruncated: EVERY_CHANNEL_RUNS[StreamTruncated]}
    assert channel.reader.runs is channel.runs
