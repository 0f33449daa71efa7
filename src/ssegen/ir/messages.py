"""The messages a channel carries: what each kind of event is (:class:`Message`), with its
payload schema and documented examples."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from .provenance import Provenance
from .schema import Schema

#: What a message means to a stream consumer.
#: ``data``: a payload to decode (chunks); ``terminator``: the end-of-stream
#: sentinel (``data: [DONE]``); ``error``: a mid-stream error frame;
#: ``vendor``: a provider extension event (``x_*``); ``keepalive``: a literal
#: payload of whitespace only (Gitter's ``"\r\n"`` heartbeat), which neither
#: ends the stream nor carries data.
MessageKind = Literal["data", "terminator", "error", "vendor", "keepalive"]


@dataclass(frozen=True)
class Example:
    """A documented example payload of a message.

    Attributes:
        name: the example's name in the source ("" if unnamed).
        summary: one line from the source.
        data: the SSE ``data`` text as sent on the wire: compact JSON, or the
            literal text for non-JSON payloads such as ``[DONE]``.
        provenance: where the example is written.
    """

    name: str
    summary: str
    data: str
    provenance: Provenance


@dataclass(frozen=True)
class Message:
    """One kind of event a channel carries (AsyncAPI ``message``).

    Attributes:
        name: PascalCase message name (from ``name`` or the component key).
        kind: one of :data:`MessageKind`.
        payload: the payload schema.
        provenance: where the message is defined.
        title, summary, description: texts from the source.
        content_type: the message ``contentType`` (``application/json``, ``text/plain``).
        event: the SSE event type that carries it: an explicit ``x-sse-event``, else
            the message's own name when the source shows ``event:`` lines naming it
            (``event: error`` frames, Anthropic's ``event: message_start``), else ``message``.
        examples: documented examples, in source order.
        variant_of: for a message split from a ``oneOf``/``anyOf`` payload (one message
            per variant, see :mod:`ssegen.normalize.discrimination`), the name of the
            message the source wrote; "" otherwise.
    """

    name: str
    kind: MessageKind
    payload: Schema
    provenance: Provenance
    title: str = ""
    summary: str = ""
    description: str = ""
    content_type: str = "application/json"
    event: str = "message"
    examples: tuple[Example, ...] = ()
    variant_of: str = ""

    @property
    def literal(self) -> str | None:
        """The text a terminator or keep-alive is compared with exactly (``[DONE]``,
        ``"\\r\\n"``): its payload's one literal string; None for a JSON message."""
        enum = self.payload.enum
        if self.kind in ("terminator", "keepalive") and len(enum) == 1 and isinstance(enum[0], str):
            return enum[0]
        return None
