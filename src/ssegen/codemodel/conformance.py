"""The ``test_conformance`` module's facts: every documented example with the class
its channel must decode it to, and the harvested example streams to replay."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import jsonschema

from ..instances import NO_INSTANCE, accepts, full_instance, minimal_instance
from ..ir import Channel, Message, Provider
from ..naming import ClassName
from ..normalize.jsonschema import export_provider


@dataclass(frozen=True)
class ExampleCase:
    """One documented example and what it must decode to.

    Attributes:
        channel: the channel address.
        event: the SSE event type carrying it.
        message: the message it documents.
        cls: the class name the channel must decode it to.
        data: the SSE data.
        name: the example's name in the spec, else its position among the message's
            examples (``0``); ``synthesized`` for one ssegen made.
        synthesized: ssegen made the example (:func:`example_cases`), the spec gives none;
            it validates by construction, so its tests are the decoding and the round trip.
    """

    channel: str
    event: str
    message: str
    cls: str
    data: str
    name: str
    synthesized: bool = False

    @property
    def id(self) -> str:
        """A test id naming the example (``<address> <message> <name>``), not its file:line:
        the same spec written as AsyncAPI 2.6, 3.0 or split files gives the same package."""
        return f"{self.channel} {self.message} {self.name}"


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


def example_cases(provider: Provider, classes: list[dict[str, ClassName]]) -> tuple[ExampleCase, ...]:
    """Every example of a message the code model kept, by channel then message, in source order.

    ``classes`` holds, per channel of ``provider`` (in its order), the class of each message the
    code model kept, by message name (:attr:`ssegen.codemodel.channels.ChannelSpec.messages`).

    A JSON message the spec gives no example for gets a synthesized one (id ending in
    ``synthesized``): its minimal instance, else its full one (:mod:`ssegen.instances`),
    the first that validates strictly against ``schemas.json`` and that no other
    message of the channel accepts; none when neither qualifies (value constraints
    such as ``pattern`` the synthesizer does not satisfy, or messages the spec does not
    tell apart, reported as ``messages-indistinguishable``).

    Linear in the channel's messages when they are told apart by tag (each is tried only
    against the messages ahead of it in its tag value's group); messages told apart by
    shape alone are each tried against the shaped ones ahead of them.
    """
    schemas = export_provider(provider)
    rows: list[ExampleCase] = []
    for channel, kept in zip(provider.channels, classes, strict=True):
        tags = tuple(dict.fromkeys(tag for plan in channel.plans for tag in plan.tags))
        before = _tried_before(channel)
        for message in channel.messages:
            if message.name not in kept:
                continue
            for position, example in enumerate(message.examples):
                name = example.name or str(position)
                rows.append(
                    ExampleCase(channel.address, message.event, message.name, kept[message.name], example.data, name)
                )
            if not message.examples and message.literal is None:
                earlier = [m for m in before.get(message.name, ()) if m.payload != message.payload]
                data = _synthesized(channel, message, schemas, tags, earlier)
                if data is not None:
                    rows.append(
                        ExampleCase(
                            channel.address, message.event, message.name, kept[message.name], data, "synthesized", True
                        )
                    )
    return tuple(rows)


def _synthesized(
    channel: Channel, message: Message, schemas: dict[str, Any], tags: tuple[str, ...], earlier: list[Message]
) -> str | None:
    """A synthesized example of ``message`` (compact JSON), or None (see :func:`example_cases`).

    ``tags`` are the members the channel's dispatches read; ``earlier`` the messages a payload
    of ``message`` is tried against before it (other payloads only).
    """
    strict = jsonschema.Draft202012Validator(
        {"$defs": schemas["$defs"], **schemas["channels"][channel.address][message.name]}
    )
    for instance in (minimal_instance(message.payload), full_instance(message.payload)):
        if instance is NO_INSTANCE:
            continue  # its required members alone expand past the budget: no example to synthesize
        if not strict.is_valid(instance) or not accepts(message.payload, instance, *tags):
            continue
        if any(accepts(m.payload, instance, *tags) for m in earlier):
            continue
        return json.dumps(instance, ensure_ascii=False, separators=(",", ":"))
    return None


def _tried_before(channel: Channel) -> dict[str, list[Message]]:
    """Message name -> the messages a payload of it is tried against before it, in channel order:
    those ahead of it in its tag value's group or among the messages told apart by shape, in
    every dispatch that holds it.  One pass over the channel's plans (a message absent from
    every group maps to nothing)."""
    names: dict[str, set[str]] = {}
    for plan in channel.plans:
        for group in (*(t.messages for t in plan.tagged), plan.shaped):
            for index, name in enumerate(group):
                if index:
                    names.setdefault(name, set()).update(group[:index])
    position: dict[str, int] = {}
    for index, m in enumerate(channel.messages):
        position.setdefault(m.name, index)
    by_name: dict[str, list[Message]] = {}
    for m in channel.messages:
        by_name.setdefault(m.name, []).append(m)
    return {
        name: [m for n in sorted(earlier, key=lambda n: position.get(n, -1)) for m in by_name.get(n, ())]
        for name, earlier in names.items()
    }


def stream_cases(provider: Provider) -> tuple[StreamCase, ...]:
    """The provider's harvested example streams, in source order."""
    return tuple(StreamCase(s.name, s.channel, f"examples/{s.name}.sse", s.full_text) for s in provider.example_streams)
