"""The ``test_conformance`` module's facts: every documented example with the class
its channel must decode it to, and the harvested example streams to replay."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Provider
from .channels import ChannelSpec


@dataclass(frozen=True)
class ExampleCase:
    """One documented example and what it must decode to.

    Attributes:
        channel: the channel address.
        event: the SSE event type carrying it.
        message: the message it documents.
        cls: the class name the channel must decode it to.
        data: the SSE data.
        id: a test id naming the example (``<address> <message> <name or position>``),
            not its file:line: the same spec written as AsyncAPI 2.6, 3.0 or split
            files gives the same package.
    """

    channel: str
    event: str
    message: str
    cls: str
    data: str
    id: str


@dataclass(frozen=True)
class StreamCase:
    """One harvested example stream, shipped as ``examples/<name>.sse``.

    Attributes:
        name: the stream's name.
        channel: the channel address it belongs to.
        file: the fixture path inside the package.
        full_text: the stream is cumulative (each chunk repeats the text so far).
    """

    name: str
    channel: str
    file: str
    full_text: bool


def example_cases(provider: Provider, channels: list[ChannelSpec]) -> tuple[ExampleCase, ...]:
    """Every example of a message the code model kept, by channel then message, in source order."""
    rows: list[ExampleCase] = []
    for channel, spec in zip(provider.channels, channels, strict=True):
        classes = {m.name: m.cls for m in spec.messages}
        for message in channel.messages:
            if message.name not in classes:
                continue
            for position, example in enumerate(message.examples):
                example_id = f"{channel.address} {message.name} {example.name or position}"
                rows.append(
                    ExampleCase(
                        channel.address, message.event, message.name, classes[message.name], example.data, example_id
                    )
                )
    return tuple(rows)


def stream_cases(provider: Provider) -> tuple[StreamCase, ...]:
    """The provider's harvested example streams, in source order."""
    return tuple(StreamCase(s.name, s.channel, f"examples/{s.name}.sse", s.full_text) for s in provider.example_streams)
