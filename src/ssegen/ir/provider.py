"""The root of the IR: a :class:`Provider` and its stream endpoints (:class:`Channel`), with the
servers, example streams and error codes its documents state, and :func:`rewrite_payloads`, the
one walk over every payload schema the normalize steps rewrite with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from .accumulation import Accumulation
from .discrimination import Dispatch
from .messages import Message
from .provenance import Provenance
from .request import Request
from .schema import Schema

#: How a channel's body is cut into events: ``sse`` (``text/event-stream``, WHATWG HTML 9.2)
#: or ``ndjson`` (newline-delimited JSON, one value per line: ``application/x-ndjson``,
#: ``application/jsonl``; Ollama's ``/api/chat``). Decoded by the runtime's ``sse.py`` or
#: ``ndjson.py``; discrimination and accumulation are the same for both.
Framing = Literal["sse", "ndjson"]


@dataclass(frozen=True)
class Channel:
    """A stream endpoint (AsyncAPI ``channel``), e.g. ``/chat/completions``.

    Attributes:
        address: the channel address (an HTTP path for SSE providers).
        messages: what the server may send on it, in source order.
        provenance: where the channel is defined.
        operation_id: the receiving operation's ``operationId``.
        summary, description: texts from the source.
        dispatch: the discrimination plan, one :class:`Dispatch` per SSE event type
            with messages, sorted by event type (computed from the messages by
            :func:`ssegen.normalize.discrimination.plan_channels`); none for ``message``
            when it carries literals only beside named JSON messages (Cohere's
            data-only ``[DONE]``): the fallback serves it.
        fallback: the plan for frames whose event type has no dispatch: every
            message, when frames without ``event:`` carry no JSON message of their own
            or every JSON message travels as ``message`` (a named event the spec does
            not describe is then told apart by its data); None when such frames are
            unknown events.
        accumulation: how its events assemble into one result (None before
            :func:`ssegen.normalize.accumulation.plan_accumulation` ran).
        framing: how the body is cut into events (:data:`Framing`), from the media type
            the source names (``text/event-stream``, ``application/x-ndjson``, ...).
        request: the HTTP request that opens the stream (method, path, parameters, body,
            auth, servers, resumption: :class:`~ssegen.ir.Request`); None when no source
            states one (``request-missing``).
        media_types: every streamed media type the sources list for the channel's
            responses, in their order (lower case, no parameters; Cohere v2 answers
            ``application/x-ndjson`` unless asked for ``text/event-stream``): each names a
            framing, ``framing`` the first's; empty when a source names none but its framing.
        extensions: the channel's ``x-ssegen-*`` extension values as written (the
            ``x-ssegen-accumulate`` plan).
    """

    address: str
    messages: tuple[Message, ...]
    provenance: Provenance
    operation_id: str = ""
    summary: str = ""
    description: str = ""
    dispatch: tuple[Dispatch, ...] = ()
    fallback: Dispatch | None = None
    accumulation: Accumulation | None = None
    framing: Framing = "sse"
    request: Request | None = None
    media_types: tuple[str, ...] = ()
    extensions: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def plans(self) -> tuple[Dispatch, ...]:
        """Every dispatch of the plan, the fallback last."""
        return (*self.dispatch, *((self.fallback,) if self.fallback is not None else ()))

    def message(self, name: str) -> Message | None:
        """The message named ``name``, or None."""
        for msg in self.messages:
            if msg.name == name:
                return msg
        return None


@dataclass(frozen=True)
class Server:
    """A server the channels are reachable on (AsyncAPI ``server``)."""

    name: str
    url: str
    protocol: str
    provenance: Provenance
    description: str = ""


@dataclass(frozen=True)
class StreamEvent:
    """One event (or comment) of a harvested example stream.

    Attributes:
        data: the event's data (lines joined with LF); "" for a comment.
        event: the SSE event type (``message`` unless the page shows ``event:``).
        comment: the text of a comment line (``: heartbeat``) instead of an event.
        line: 1-based line of the event in the page.
    """

    data: str
    event: str = "message"
    comment: str | None = None
    line: int = 0

    def wire(self) -> str:
        """This event in ``text/event-stream`` form, ending with its blank line."""
        if self.comment is not None:
            return f": {self.comment}\n\n"
        head = "" if self.event == "message" else f"event: {self.event}\n"
        return head + "".join(f"data: {part}\n" for part in self.data.split("\n")) + "\n"


@dataclass(frozen=True)
class ExampleStream:
    """A whole example stream harvested from a documentation page.

    Attributes:
        name: a slug naming it (from the page's heading), unique per provider.
        channel: the channel address it was sent on.
        events: its events and comments, in order (annotation lines removed).
        provenance: where the stream is written in the page.
        full_text: it was produced in cumulative mode (MindIE ``fullTextEnabled``),
            so it must be accumulated with ``full_text=True``.
    """

    name: str
    channel: str
    events: tuple[StreamEvent, ...]
    provenance: Provenance
    full_text: bool = False

    def wire(self) -> str:
        """The stream as a ``text/event-stream`` body (UTF-8 text, LF line ends)."""
        return "".join(event.wire() for event in self.events)


@dataclass(frozen=True)
class ErrorCode:
    """A provider error code documented outside the stream schema (e.g. MindIE 701).

    Attributes:
        code: the code as documented (an integer, or a string code).
        meaning: its documented meaning.
        provenance: where the table row is.
    """

    code: int | str
    meaning: str
    provenance: Provenance


@dataclass(frozen=True)
class Provider:
    """Everything ssegen knows about one provider (one folder under ``specs/``).

    Attributes:
        name: the folder name, used as the generated package name.
        channels: stream endpoints, sorted by address.
        sources: the source files merged into this IR, relative to the specs folder.
        title, version, description: from the source's ``info``.
        servers: declared servers.
        error_codes: documented error codes (code, meaning), in source order.
        example_streams: harvested example streams, in source order.
        protocols: transport protocols other than SSE over HTTP that the sources
            declare (a server's ``protocol``, a ``bindings`` key: ``kafka``,
            ``mqtt``, ``ws``), sorted and unique; empty for an SSE provider.
    """

    name: str
    channels: tuple[Channel, ...]
    sources: tuple[str, ...]
    title: str = ""
    version: str = ""
    description: str = ""
    servers: tuple[Server, ...] = field(default=())
    error_codes: tuple[ErrorCode, ...] = ()
    example_streams: tuple[ExampleStream, ...] = ()
    protocols: tuple[str, ...] = ()

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, or None."""
        for chan in self.channels:
            if chan.address == address:
                return chan
        return None


def rewrite_payloads(provider: Provider, fn: Callable[[Schema, Message, bool], Schema]) -> Provider:
    """``provider`` with every schema node of every message payload passed through ``fn``.

    ``fn(node, message, is_root)`` returns the node to keep (``node`` itself when
    nothing changes); the rewrite is top-down, descending into the returned
    node's member schemas, items and variants.  Unchanged subtrees keep their
    identity, so a provider nothing changed in comes back as the same object.
    Used by the normalize steps that rewrite payloads (:mod:`ssegen.normalize.docs`,
    :mod:`ssegen.normalize.examples`).
    """
    memo: dict[tuple[int, str, bool], Schema] = {}

    def walk(schema: Schema, message: Message, root: bool) -> Schema:
        key = (id(schema), message.name, root)
        if key in memo:
            return memo[key]
        memo[key] = schema  # a (never expected) cycle ends here unchanged
        node = fn(schema, message, root)
        props = tuple(
            prop if (child := walk(prop.schema, message, False)) is prop.schema else replace(prop, schema=child)
            for prop in node.properties
        )
        items = walk(node.items, message, False) if node.items is not None else None
        variants = tuple(walk(v, message, False) for v in node.variants)
        unchanged = (
            all(a is b for a, b in zip(props, node.properties, strict=True))
            and items is node.items
            and all(a is b for a, b in zip(variants, node.variants, strict=True))
        )
        result = node if unchanged else replace(node, properties=props, items=items, variants=variants)
        memo[key] = result
        return result

    channels = []
    for channel in provider.channels:
        messages = tuple(
            message
            if (payload := walk(message.payload, message, True)) is message.payload
            else replace(message, payload=payload)
            for message in channel.messages
        )
        same = all(a is b for a, b in zip(messages, channel.messages, strict=True))
        channels.append(channel if same else replace(channel, messages=messages))
    if all(a is b for a, b in zip(channels, provider.channels, strict=True)):
        return provider
    return replace(provider, channels=tuple(channels))
