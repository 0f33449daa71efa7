"""A narrow ``Channel`` (issue 32, item 3): reading is its ``reader``'s (``stream_reader.py``),
writing its ``writer``'s (``stream_writer.py``), and the channel's methods of those names are
delegations to them, so user code and the docs call them on the channel as before."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import AsyncIterator

import pytest

from generated._runtime.accumulate import Accumulator  # the runtime the channels run on
from generated.anthropic import CHANNELS as ANTHROPIC
from generated.deepseek import CHANNELS as DEEPSEEK
from ssegen.runtime import stream
from ssegen.runtime.stream import Channel, ChannelReader, ChannelWriter

CHAT = DEEPSEEK["/chat/completions"]
MESSAGES = next(iter(ANTHROPIC.values()))

READING = ("decode", "adecode", "parse", "apply", "accumulate", "aaccumulate")
WRITING = ("encode", "encode_stream", "example_events", "example_stream")


def _public_methods(cls: type) -> set[str]:
    return {name for name, value in vars(cls).items() if callable(value) and not name.startswith("_")}


def test_the_channel_has_exactly_the_methods_of_its_two_sides() -> None:
    # the reader's own lookup of a response's framing, used by decode and accumulate, and what
    # the streaming client drives across a stream's connections (client_stream.py)
    client = {"new_accumulator", "apply_reads", "aapply_reads", "apply_items"}
    assert _public_methods(ChannelReader) == {*READING, "framer_for", *client}
    assert _public_methods(ChannelWriter) == set(WRITING)
    assert _public_methods(Channel) == set(READING) | set(WRITING)
    for name in READING + WRITING:  # same arguments, and a coroutine function stays one
        side = ChannelReader if name in READING else ChannelWriter
        ours, theirs = getattr(Channel, name), getattr(side, name)
        assert inspect.signature(ours) == inspect.signature(theirs), name
        assert inspect.iscoroutinefunction(ours) == inspect.iscoroutinefunction(theirs), name
        assert f"delegates to :meth:`{side.__name__}.{name}`" in " ".join((ours.__doc__ or "").split()), name


def test_the_sides_hold_the_channels_own_spec_data() -> None:
    for channel in (CHAT, MESSAGES):
        assert channel.reader.classifier is channel.classifier and channel.reader.runs is channel.runs
        assert channel.reader.family is channel.family and channel.reader.framer == channel.framer
        assert channel.writer.encoding is channel.encoding and channel.writer.framing is channel.framing
        assert channel.writer.family is channel.family


@pytest.mark.parametrize("channel", [CHAT, MESSAGES], ids=["chat", "messages"])
def test_the_channel_reads_and_writes_as_its_sides_do(channel: Channel) -> None:
    events = channel.example_stream("Hello there world")
    assert events == channel.writer.example_stream("Hello there world")
    assert channel.example_events() == channel.writer.example_events()
    body = b"".join(channel.encode_stream(events))
    assert body == b"".join(channel.writer.encode_stream(events))
    assert [channel.encode(e) for e in events] == [channel.writer.encode(e) for e in events]
    assert list(channel.decode([body])) == list(channel.reader.decode([body])) == events
    via_channel = channel.accumulate(channel.decode([body]))
    assert via_channel == channel.reader.accumulate(channel.reader.decode([body]))
    assert via_channel == channel.accumulate(events)  # typed events, one at a time
    acc = Accumulator()
    acc.family = channel.family
    for event in events:
        channel.apply(acc, event)
    assert acc.result() == via_channel

    async def reads() -> AsyncIterator[bytes]:
        yield body

    async def both() -> tuple[object, object]:
        return (
            await channel.aaccumulate(channel.adecode(reads())),
            await channel.reader.aaccumulate(channel.reader.adecode(reads())),
        )

    assert asyncio.run(both()) == (via_channel, via_channel)


def test_parse_and_the_writers_errors_are_the_channels() -> None:
    data = json.dumps({"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m", "choices": []})
    assert CHAT.parse(data) == CHAT.reader.parse(data)
    with pytest.raises(TypeError, match=r"not a message class \(Channel\('/chat/completions'\)\)"):
        CHAT.encode(object())
    none = Channel("/x", {}, stream.Classifier(lambda sse: sse), {}, family="none")
    with pytest.raises(ValueError, match=r"^Channel\('/x'\): no stream synthesis for family 'none'$"):
        none.example_stream("hi")
