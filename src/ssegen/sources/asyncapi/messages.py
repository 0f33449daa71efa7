"""AsyncAPI message objects (inline, ``$ref`` or ``oneOf``) -> IR messages: name, payload
schema (also a 3.0 multi-format schema object), literal payloads, examples and the SSE event
type each travels as."""

from __future__ import annotations

import json
import re
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Example, Message, MessageKind, Schema
from ...naming import ClassName, pascal
from ..location import Location
from ..refs import RefError, RefResolver
from ..schema import SchemaConverter
from .common import diag, text


class MessageReader:
    """Reads AsyncAPI message objects (inline, ``$ref`` or ``oneOf``) into IR messages."""

    def __init__(
        self,
        converter: SchemaConverter,
        resolver: RefResolver,
        diagnostics: Diagnostics,
        event_names: frozenset[str] = frozenset(),
    ) -> None:
        self.converter = converter
        self.resolver = resolver
        self.diagnostics = diagnostics
        self.event_names = event_names
        # The document's ``defaultContentType``: a message's ``contentType`` when it has none.
        self.default_content_type = "application/json"
        self._memo: dict[tuple[str, str], Message | None] = {}

    def read_operation_messages(self, node: Any, loc: Location, fallback: str = "") -> list[Message]:
        """Messages of a 2.x operation's ``message`` (one, or ``oneOf`` a list).

        ``fallback`` (the ``operationId``, else the channel address) names an
        inline message that has no name of its own (``message-named-from-context``);
        the branches of a ``oneOf`` get its name and their 1-based position.
        """
        if node is None:
            diag(self.diagnostics, loc, codes.OPERATION_NO_MESSAGE, "operation has no message")
            return []
        if isinstance(node, dict) and "oneOf" in node and "$ref" not in node:
            branches = node["oneOf"]
            if not isinstance(branches, list):
                diag(self.diagnostics, loc.child("oneOf"), codes.MESSAGE_INVALID, "oneOf must be a list of messages")
                return []
            return self.read_message_list(branches, loc.child("oneOf"), fallback, numbered=True)
        message = self.read_message(node, loc, "", fallback)
        return [message] if message is not None else []

    def read_message_list(
        self, nodes: list[Any], loc: Location, fallback: str = "", *, numbered: bool = False
    ) -> list[Message]:
        """Messages of a list of message objects or references (``fallback`` names unnamed ones)."""
        messages = []
        for i, node in enumerate(nodes):
            name = f"{fallback} {i + 1}" if fallback and numbered else fallback
            message = self.read_message(node, loc.child(i), "", name)
            if message is not None:
                messages.append(message)
        return messages

    def read_channel_messages(self, node: Any, loc: Location) -> list[Message]:
        """Messages of a 3.0 channel's ``messages`` map (message id -> message or reference)."""
        if node is None:
            return []
        if not isinstance(node, dict):
            diag(self.diagnostics, loc, codes.MESSAGE_INVALID, "channel `messages` must be a mapping")
            return []
        return [m for name, item in node.items() if (m := self.read_message(item, loc.child(name), name)) is not None]

    def follow(self, node: Any, loc: Location) -> tuple[Any, Location] | None:
        """``node`` with any chain of ``$ref`` followed, and where it was found.

        None (with an error diagnostic at the offending ``$ref``, naming its
        file, line and pointer) when a reference is invalid, cannot be
        followed, or leads back to a place already on the chain.
        """
        seen = [(loc.uri, loc.pointer)]
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            rloc = loc.child("$ref")
            if not isinstance(ref, str):
                diag(self.diagnostics, rloc, codes.REF_INVALID, f"$ref must be a string, got {json.dumps(ref)}")
                return None
            try:
                target = self.resolver.lookup(ref, loc.uri)
            except RefError as exc:
                diag(self.diagnostics, rloc, exc.code, str(exc))
                return None
            place = (target.uri, target.pointer)
            if place in seen:
                diag(
                    self.diagnostics,
                    rloc,
                    codes.REF_CIRCULAR,
                    f"$ref {ref!r} is circular: it leads back to {target.document.file}#{target.pointer}",
                )
                return None
            seen.append(place)
            node = target.contents
            loc = Location(target.document, target.pointer, target.uri)
        return node, loc

    def read_message(self, node: Any, loc: Location, key: str, fallback: str = "") -> Message | None:
        """One message object (following a ``$ref``, :meth:`_referenced_message`); None with an
        error if unusable.

        A message with no name, ``messageId``, ``title`` or component ``key`` is
        named after ``fallback`` (its operation or channel) with a
        ``message-named-from-context`` warning; with no fallback either, it is
        an error (``message-unnamed``).
        """
        if isinstance(node, dict) and "$ref" in node:
            return self._referenced_message(node, loc)
        if not isinstance(node, dict):
            diag(self.diagnostics, loc, codes.MESSAGE_INVALID, "message must be a mapping")
            return None
        name = self._message_name(node, loc, key, fallback)
        if name is None:
            return None
        payload = self._message_payload(node, loc, name)
        kind = self._literal_kind(payload, loc)
        examples = self._examples(node.get("examples"), loc.child("examples"))
        return Message(
            name=name,
            kind=kind,
            payload=payload,
            provenance=loc.provenance,
            title=text(node.get("title")),
            summary=text(node.get("summary")),
            description=text(node.get("description")),
            content_type=text(node.get("contentType")) or self.default_content_type,
            event=self._event(node, loc, [text(node.get("name")), key, text(node.get("messageId"))], payload),
            examples=tuple(examples),
        )

    def _referenced_message(self, node: dict[str, Any], loc: Location) -> Message | None:
        """The message a ``$ref`` leads to, read once per target (its component key names it)."""
        resolved = self.follow(node, loc)
        if resolved is None:
            return None
        target, tloc = resolved
        memo_key = (tloc.uri, tloc.pointer)
        if memo_key not in self._memo:
            token = tloc.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
            self._memo[memo_key] = self.read_message(target, tloc, token)
        return self._memo[memo_key]

    def _message_name(self, node: dict[str, Any], loc: Location, key: str, fallback: str) -> str | None:
        """The class name of a message: from its ``name``, component ``key``, ``messageId`` or
        ``title``, else ``fallback`` (``message-named-from-context``); None when none gives a
        name (``message-unnamed``)."""
        name_source = text(node.get("name")) or key or text(node.get("messageId")) or text(node.get("title"))
        if not pascal(name_source) and pascal(fallback):
            name_source = fallback
            diag(
                self.diagnostics,
                loc,
                codes.MESSAGE_NAMED_FROM_CONTEXT,
                f"message has no name, messageId or title; named {ClassName(fallback, prefix='Message')} "
                "after its operation (or channel)",
            )
        if not pascal(name_source):
            diag(self.diagnostics, loc, codes.MESSAGE_UNNAMED, "message has no name, messageId, title or component key")
            return None
        return str(ClassName(name_source, prefix="Message"))

    def _message_payload(self, node: dict[str, Any], loc: Location, name: str) -> Schema:
        """The payload schema of a message (:meth:`_payload`); any JSON without ``payload``
        (``message-no-payload``) or when it has no type (``payload-untyped``)."""
        if "payload" not in node:
            diag(self.diagnostics, loc, codes.MESSAGE_NO_PAYLOAD, "message has no payload; any JSON is accepted")
            return Schema("any", loc.provenance)
        payload = self._payload(node["payload"], node.get("schemaFormat"), loc, name)
        if payload.type == "any":
            diag(
                self.diagnostics,
                loc.child("payload"),
                codes.PAYLOAD_UNTYPED,
                "payload schema has no type; any JSON is accepted",
            )
        return payload

    def _literal_kind(self, payload: Schema, loc: Location) -> MessageKind:
        """What a message is to the stream by its payload: a one-value string enum (a literal,
        not JSON) is a ``keepalive`` when whitespace only (``literal-keepalive``), else the
        ``terminator`` (``literal-payload``); any other payload is ``data``."""
        if payload.type != "string" or len(payload.enum) != 1:
            return "data"
        if not str(payload.enum[0]).strip():
            # Whitespace only (Gitter's "\r\n" heartbeat): the connection is kept alive, not ended.
            diag(
                self.diagnostics,
                loc.child("payload"),
                codes.LITERAL_KEEPALIVE,
                f"payload is the whitespace literal {payload.enum[0]!r}: decoded as a keep-alive, "
                "which neither ends the stream nor carries data",
            )
            return "keepalive"
        diag(
            self.diagnostics,
            loc.child("payload"),
            codes.LITERAL_PAYLOAD,
            f"payload is the literal {payload.enum[0]!r}, not JSON: decoded as the stream terminator",
        )
        return "terminator"

    def _event(self, node: dict[str, Any], loc: Location, names: list[str], payload: Schema) -> str:
        """The SSE event type of a message: its ``x-sse-event``; else the first of its
        names (``name``, component key, ``messageId``), then of the values its payload
        fixes a member to (``type: message_start``), that an ``event:`` line of the
        document shows (``event-named``); else ``message``."""
        explicit = node.get("x-sse-event")
        if isinstance(explicit, str) and explicit.strip():
            return explicit.strip()
        if explicit is not None:
            diag(self.diagnostics, loc.child("x-sse-event"), codes.MESSAGE_INVALID, "x-sse-event must be a string")
        fixed = [payload.tag(p.name) for p in sorted(payload.properties, key=lambda p: p.name != "type")]
        for name in [*names, *fixed]:
            if name and name in self.event_names:
                diag(
                    self.diagnostics,
                    loc,
                    codes.EVENT_NAMED,
                    f"sent as SSE event type {name!r}: the document shows `event: {name}` lines",
                )
                return name
        return "message"

    def _payload(self, node: Any, message_format: Any, loc: Location, name: str) -> Schema:
        """A message's payload schema: a schema, or a 3.0 multi-format schema object.

        ``{schemaFormat, schema}`` (3.0; possibly behind a ``$ref``) and a 2.x
        message-level ``schemaFormat`` are read when the format is a JSON
        Schema dialect (AsyncAPI, JSON Schema, OpenAPI schema objects); any
        other format (Avro, RAML, Protobuf) is reported and accepts any JSON.
        """
        ploc = loc.child("payload")
        fmt, fmt_loc = message_format, loc.child("schemaFormat")
        multi: tuple[Any, Location] | None = None
        if isinstance(node, dict) and "schemaFormat" in node and "schema" in node:
            multi = (node, ploc)
        elif isinstance(node, dict) and isinstance(node.get("$ref"), str):
            resolved = self.follow(node, ploc)
            if (
                resolved is not None
                and isinstance(resolved[0], dict)
                and "schemaFormat" in resolved[0]
                and "schema" in resolved[0]
            ):
                multi = resolved
        if multi is not None:
            mnode, mloc = multi
            fmt, fmt_loc = mnode["schemaFormat"], mloc.child("schemaFormat")
            node, ploc = mnode["schema"], mloc.child("schema")
        if fmt is not None and not _json_schema_format(fmt):
            diag(
                self.diagnostics,
                fmt_loc,
                codes.SCHEMA_FORMAT_UNSUPPORTED,
                f"schemaFormat {json.dumps(fmt)} is not a JSON Schema dialect; the payload accepts any JSON",
            )
            return Schema("any", ploc.provenance)
        payload, _ = self.converter.convert(node, ploc, name)
        return payload

    def _examples(self, node: Any, loc: Location) -> list[Example]:
        if node is None:
            return []
        if not isinstance(node, list):
            diag(self.diagnostics, loc, codes.EXAMPLE_INVALID, "examples must be a list; ignored")
            return []
        examples = []
        for i, item in enumerate(node):
            eloc = loc.child(i)
            if not isinstance(item, dict) or "payload" not in item:
                diag(self.diagnostics, eloc, codes.EXAMPLE_INVALID, "example has no payload; ignored")
                continue
            payload = item["payload"]
            data = (
                payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            )
            examples.append(
                Example(
                    name=text(item.get("name")),
                    summary=text(item.get("summary")),
                    data=data,
                    provenance=eloc.child("payload").provenance,
                )
            )
        return examples


_EVENT_LINE = re.compile(r"^[ \t]*event:[ \t]*([A-Za-z0-9_.:\-]+)[ \t]*\r?$", re.MULTILINE)


def shown_event_names(data: Any) -> frozenset[str]:
    """The SSE event types that ``event: <name>`` lines in the document's texts show
    (descriptions with wire examples, in any string value; WHATWG SSE "event" field)."""
    names: set[str] = set()
    stack = [data]
    while stack:
        value = stack.pop()
        if isinstance(value, str):
            if "event:" in value:
                names.update(_EVENT_LINE.findall(value))
        elif isinstance(value, dict):
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    names.discard("message")
    return frozenset(names)


_JSON_SCHEMA_FORMATS = {
    "application/vnd.aai.asyncapi",
    "application/vnd.aai.asyncapi+json",
    "application/vnd.aai.asyncapi+yaml",
    "application/schema+json",
    "application/schema+yaml",
    "application/vnd.oai.openapi",
    "application/vnd.oai.openapi+json",
    "application/vnd.oai.openapi+yaml",
}


def _json_schema_format(value: Any) -> bool:
    """Whether a ``schemaFormat`` names a schema dialect this loader reads as JSON Schema."""
    return isinstance(value, str) and value.split(";", 1)[0].strip().lower() in _JSON_SCHEMA_FORMATS
