"""AsyncAPI 2.x / 3.0 documents -> IR channels, messages and schemas.

What the server streams to the client is what the described application
sends: in AsyncAPI 2.x the ``subscribe`` operation's ``message`` of a channel
(the client subscribes to what the application publishes); in 3.0 the
``messages`` of the channel used by an operation with ``action: send`` (the
asyncapi/spec 2.6 -> 3.0 conversion maps ``subscribe`` to ``send``), the
``reply`` of an ``action: receive`` operation (the application answers a
request), or, with no operations, all messages of the channel.  2.x
``publish`` and 3.0 ``receive`` operations (and the reply of a ``send``) carry
what the client sends: requests, which the IR has no place for; each is
skipped with an ``operation-request-skipped`` info naming it.  3.0 channels, operations, replies,
messages and servers may be ``$ref`` s (local or relative-file), and a message
``payload`` may be a multi-format schema object ``{schemaFormat, schema}``.

The loader is lenient where real documents are wrong and says so: a malformed
``info`` field (Mistral's ``email: [email protected]``, a YAML flow sequence
produced by a scraper's e-mail obfuscation) is a warning and the rest of the
document is used; the official parser rejects the whole document for it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Channel, Example, Message, MessageKind, Schema, Server
from ...naming import ClassName, pascal
from ..base import framing_of, unique_messages
from ..document import Document
from ..refs import RefError, RefResolver
from ..schema import Location, SchemaConverter

_INFO_STRING_FIELDS = {
    "/info/title",
    "/info/version",
    "/info/description",
    "/info/termsOfService",
    "/info/contact/name",
    "/info/contact/url",
    "/info/contact/email",
    "/info/license/name",
    "/info/license/url",
}


class AsyncAPIResult:
    """What one AsyncAPI document contributes to a provider's IR.

    Attributes:
        title, version, description: from ``info``.
        channels: the channels with server-sent messages, in document order.
        servers: declared servers.
        protocols: protocols other than SSE over HTTP named by servers and
            bindings (each reported as ``protocol-not-sse``), in document order.
        skipped: the operations skipped as requests (``publish `sendMessage` on
            `/chat```), in document order, for ``provider-empty`` to name.
        why_empty: why no channel was kept, when none was ("" otherwise).
    """

    def __init__(self) -> None:
        self.title = ""
        self.version = ""
        self.description = ""
        self.channels: list[Channel] = []
        self.servers: list[Server] = []
        self.protocols: list[str] = []
        self.skipped: list[str] = []
        self.why_empty = ""


def load_asyncapi(
    document: Document, uri: str, resolver: RefResolver, diagnostics: Diagnostics
) -> AsyncAPIResult | None:
    """Read an AsyncAPI document into IR parts.

    Args:
        document: the parsed document (see :func:`parse_document`).
        uri: its base URI, registered in ``resolver``.
        resolver: resolves ``$ref`` (local and relative files only).
        diagnostics: receives warnings (warts) and errors, each with place.

    Returns:
        The IR parts, or None when the document is not usable at all (not a
        mapping, no or unsupported ``asyncapi`` version); an error diagnostic
        says why.
    """
    data = document.data
    root = Location(document, "", uri)
    if not isinstance(data, dict):
        _diag(diagnostics, root, codes.DOCUMENT_NOT_MAPPING, "an AsyncAPI document must be a mapping")
        return None
    version = data.get("asyncapi")
    if version is None or (isinstance(version, str) and not version.strip()):
        _diag(diagnostics, root, codes.ASYNCAPI_VERSION_MISSING, "missing `asyncapi` version field")
        return None
    if not isinstance(version, str):
        _diag(
            diagnostics,
            root.child("asyncapi"),
            codes.ASYNCAPI_VERSION_INVALID,
            f"`asyncapi` must be a version string, got {version!r}; quote it (asyncapi: '{version}')",
        )
        return None
    major = version.strip().split(".")[0]
    if major not in ("2", "3"):
        _diag(
            diagnostics,
            root.child("asyncapi"),
            codes.ASYNCAPI_VERSION_UNSUPPORTED,
            f"unsupported AsyncAPI version {version!r} (2.x and 3.0 are supported)",
        )
        return None

    result = AsyncAPIResult()
    _check_info(data.get("info"), root.child("info"), diagnostics)
    raw_info = data.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    result.title = _text(info.get("title"))
    result.version = _text(info.get("version"))
    result.description = _text(info.get("description"))
    converter = SchemaConverter(resolver, diagnostics)
    reader = _MessageReader(converter, resolver, diagnostics, shown_event_names(data))
    reader.default_content_type = _text(data.get("defaultContentType")) or "application/json"
    result.servers = _servers(data.get("servers"), root.child("servers"), reader)
    result.protocols = _other_protocols(data, root, result.servers, diagnostics)
    if major == "2":
        result.channels = _channels_v2(data, root, reader, diagnostics, result.skipped)
    else:
        result.channels = _channels_v3(data, root, reader, diagnostics, result.skipped)
    result.channels = [_framed(channel) for channel in result.channels]
    for channel in result.channels:
        _check_event_names(channel, diagnostics)
    if not result.channels:
        result.why_empty = _why_empty(data, major, result.skipped)
    return result


def _framed(channel: Channel) -> Channel:
    """``channel`` framed as NDJSON when one of its messages' ``contentType`` (or the
    document's ``defaultContentType``) is a newline-delimited JSON media type
    (``application/x-ndjson``, ``application/jsonl``): each line of the body is then one
    message's payload. Otherwise it stays a ``text/event-stream`` channel."""
    if any(framing_of(message.content_type) == "ndjson" for message in channel.messages):
        return replace(channel, framing="ndjson")
    return channel


def _why_empty(data: dict[str, Any], major: str, skipped: list[str]) -> str:
    """Why a document gave no channel: what it has instead of operations the application sends."""
    channels = data.get("channels")
    if not isinstance(channels, dict) or not channels:
        return "it has no channels"
    sends = "`subscribe`" if major == "2" else "`send` (or a `receive` with a `reply`)"
    if skipped:
        hint = (
            " (AsyncAPI describes the application, here the provider's server: the stream it sends is "
            "`action: send` in 3.0, `subscribe` in 2.x; `receive`/`publish` is what the client sends)"
        )
        return f"it has only operations the client sends (requests), skipped: {'; '.join(skipped)}{hint}"
    if major == "3" and isinstance(data.get("operations"), dict) and data["operations"]:
        return f"none of its operations is a {sends} operation on one of its channels"
    if major == "2":
        return "none of its channels has a `subscribe` operation"
    return "none of its channels holds a message"


def _check_event_names(channel: Channel, diagnostics: Diagnostics) -> None:
    """Warn (``event-names-partial``) when some messages of ``channel`` travel as the SSE event
    type their payload's tag names (``event: content-start`` lines in the document) and others,
    whose payload fixes that tag too, travel as ``message`` because no line shows their name:
    a server that names every event (Cohere's ``tool-call-start``) would have them decoded as
    unknown events. One warning per channel, at its first such message, naming each and the fix."""
    named = [m for m in channel.messages if m.event != "message" and m.payload.tag("type") == m.event]
    unnamed = [
        m for m in channel.messages if m.event == "message" and m.literal is None and m.payload.tag("type") is not None
    ]
    if not named or not unnamed:
        return
    listed = ", ".join(f"{m.name} (type {m.payload.tag('type')!r})" for m in unnamed)
    diagnostics.at(
        unnamed[0].provenance,
        codes.EVENT_NAMES_PARTIAL,
        f"on `{channel.address}`, {len(named)} messages travel as SSE events named by their `type` "
        f"(the document shows `event: {named[0].event}` lines) but {listed} will be decoded only from "
        "`event: message` frames, as no `event:` line shows their names; if the server names them too, "
        "add `x-sse-event: <name>` to each message (e.g. "
        f"`x-sse-event: {unnamed[0].payload.tag('type')}`)",
    )


def _skip_request(diagnostics: Diagnostics, loc: Location, what: str, skipped: list[str]) -> None:
    """Report one operation whose messages the client sends (a request) as skipped."""
    skipped.append(what)
    _diag(
        diagnostics,
        loc,
        codes.OPERATION_REQUEST_SKIPPED,
        f"{what} carries what the client sends (a request), not what the stream delivers; skipped",
    )


def _channels_v2(
    data: dict[str, Any], root: Location, reader: _MessageReader, diagnostics: Diagnostics, skipped: list[str]
) -> list[Channel]:
    channels = data.get("channels")
    if not isinstance(channels, dict):
        _diag(diagnostics, root.child("channels"), codes.CHANNELS_MISSING, "document has no `channels` mapping")
        return []
    result = []
    for address, item in channels.items():
        cloc = root.child("channels", address)
        if not isinstance(item, dict):
            _diag(diagnostics, cloc, codes.CHANNEL_INVALID, "channel item must be a mapping")
            continue
        publish = item.get("publish")
        if isinstance(publish, dict):
            # What the client publishes (the application receives): a request, nothing to decode.
            op_id = _text(publish.get("operationId"))
            _skip_request(
                diagnostics,
                cloc.child("publish"),
                f"publish operation {('`' + op_id + '` ') if op_id else ''}on `{address}`",
                skipped,
            )
        operation = item.get("subscribe")
        if not isinstance(operation, dict):
            continue
        oloc = cloc.child("subscribe")
        fallback = _text(operation.get("operationId")) or f"{address} message"
        messages = reader.read_operation_messages(operation.get("message"), oloc.child("message"), fallback)
        result.append(
            Channel(
                address=address,
                messages=unique_messages((), messages, diagnostics),
                provenance=cloc.provenance,
                operation_id=_text(operation.get("operationId")),
                summary=_text(operation.get("summary")),
                description=_text(item.get("description")),
                extensions=_extensions(item),
            )
        )
    return result


def _channels_v3(
    data: dict[str, Any], root: Location, reader: _MessageReader, diagnostics: Diagnostics, skipped: list[str]
) -> list[Channel]:
    """Channels of a 3.0 document with the messages the application sends (the client receives).

    A channel is kept when an operation with ``action: send`` uses it (its
    ``messages``, or all the channel's messages when the operation lists none),
    or when an ``action: receive`` operation's ``reply`` names it (the reply's
    messages); with no ``operations`` at all, every channel and all its
    messages.  A ``receive`` operation itself, and the reply of a ``send``,
    are requests: skipped with an ``operation-request-skipped`` info.
    Channels, operations, replies and messages may each be a ``$ref`` (local
    or to a relative file); a channel is matched to its operations by where
    the references lead, not by spelling.
    """
    channels = data.get("channels")
    if not isinstance(channels, dict):
        _diag(diagnostics, root.child("channels"), codes.CHANNELS_MISSING, "document has no `channels` mapping")
        return []
    # Resolve every channel first: key -> (item, location); (uri, pointer) of both the
    # channel entry and its $ref target -> key, so an operation finds it either way.
    items: dict[str, tuple[dict[str, Any], Location]] = {}
    by_place: dict[tuple[str, str], str] = {}
    for key, item in channels.items():
        cloc = root.child("channels", key)
        by_place[(cloc.uri, cloc.pointer)] = key
        resolved = reader.follow(item, cloc)
        if resolved is None:
            continue
        item, tloc = resolved
        if not isinstance(item, dict):
            _diag(diagnostics, tloc, codes.CHANNEL_INVALID, "channel must be a mapping")
            continue
        items[key] = (item, tloc)
        by_place[(tloc.uri, tloc.pointer)] = key

    raw_operations = data.get("operations")
    if raw_operations is not None and not isinstance(raw_operations, dict):
        _diag(diagnostics, root.child("operations"), codes.OPERATIONS_INVALID, "`operations` must be a mapping")
        raw_operations = None
    operations: dict[str, Any] = raw_operations or {}
    # channel key -> send uses of it: (operation id, operation, its location, message list + location)
    receivers: dict[str, list[_Use]] = {}
    names = {key: (_text(item.get("address")) or key) for key, (item, _) in items.items()}
    for op_id, op in operations.items():
        resolved = reader.follow(op, root.child("operations", op_id))
        if resolved is None:
            continue
        op, oloc = resolved
        if not isinstance(op, dict):
            _diag(diagnostics, oloc, codes.OPERATION_INVALID, "operation must be a mapping")
            continue
        action = op.get("action")
        if action in ("send", "receive"):
            op_key = _channel_key(op.get("channel"), oloc.child("channel"), reader, by_place, diagnostics)
            key = op_key
            if key is not None and action == "send":
                receivers.setdefault(key, []).append(_Use(op_id, op, op.get("messages"), oloc.child("messages")))
            elif key is not None:
                _skip_request(
                    diagnostics,
                    oloc.child("action"),
                    f"receive operation `{op_id}` on `{names.get(key, key)}`",
                    skipped,
                )
            reply = reader.follow(op["reply"], oloc.child("reply")) if op.get("reply") is not None else None
            if reply is None or not isinstance(reply[0], dict):
                continue
            # Request/reply over one HTTP exchange: what answers a receive comes back to the client.
            rnode, rloc = reply
            if "channel" in rnode:
                key = _channel_key(rnode["channel"], rloc.child("channel"), reader, by_place, diagnostics)
            else:
                key = op_key
            if key is not None and action == "receive":
                receivers.setdefault(key, []).append(_Use(op_id, op, rnode.get("messages"), rloc.child("messages")))
            elif key is not None:
                _skip_request(
                    diagnostics,
                    oloc.child("reply"),
                    f"reply of send operation `{op_id}` on `{names.get(key, key)}`",
                    skipped,
                )
        else:
            _diag(
                diagnostics,
                oloc.child("action"),
                codes.OPERATION_ACTION_INVALID,
                f"operation action must be `send` or `receive`, got {json.dumps(action)}; ignored",
            )

    result = []
    for key, (item, cloc) in items.items():
        if operations and key not in receivers:
            continue
        raw_address = item.get("address")
        address: str = raw_address if isinstance(raw_address, str) else key
        uses = receivers.get(key) or [_Use("", {}, None, cloc)]
        selected: list[Message] = []
        for use in uses:
            if isinstance(use.messages, list) and use.messages:
                # The operation may narrow the channel's messages.
                found = reader.read_message_list(use.messages, use.messages_loc)
            else:
                found = reader.read_channel_messages(item.get("messages"), cloc.child("messages"))
            selected = list(unique_messages(selected, found, diagnostics))
        first = uses[0]
        result.append(
            Channel(
                address=address,
                messages=tuple(selected),
                provenance=cloc.provenance,
                operation_id=first.op_id,
                summary=_text(first.op.get("summary")),
                description=_text(item.get("description")),
                extensions=_extensions(item),
            )
        )
    return result


@dataclass(frozen=True)
class _Use:
    """A 3.0 operation's use of a channel: the messages the client receives by it (None = all)."""

    op_id: str
    op: dict[str, Any]
    messages: Any
    messages_loc: Location


def _channel_key(
    node: Any, loc: Location, reader: _MessageReader, by_place: dict[tuple[str, str], str], diagnostics: Diagnostics
) -> str | None:
    """The key in ``channels`` of the channel an operation's ``channel: {$ref}`` names."""
    if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
        _diag(
            diagnostics,
            loc,
            codes.OPERATION_CHANNEL_INVALID,
            "operation `channel` must be a $ref to a channel of `channels`",
        )
        return None
    try:
        target = reader.resolver.lookup(node["$ref"], loc.uri)
    except RefError as exc:
        _diag(diagnostics, loc.child("$ref"), exc.code, str(exc))
        return None
    key = by_place.get((target.uri, target.pointer))
    if key is None:
        _diag(
            diagnostics,
            loc.child("$ref"),
            codes.OPERATION_CHANNEL_UNKNOWN,
            f"operation channel $ref {node['$ref']!r} names no channel of `channels`",
        )
    return key


class _MessageReader:
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
            _diag(self.diagnostics, loc, codes.OPERATION_NO_MESSAGE, "operation has no message")
            return []
        if isinstance(node, dict) and "oneOf" in node and "$ref" not in node:
            branches = node["oneOf"]
            if not isinstance(branches, list):
                _diag(self.diagnostics, loc.child("oneOf"), codes.MESSAGE_INVALID, "oneOf must be a list of messages")
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
            _diag(self.diagnostics, loc, codes.MESSAGE_INVALID, "channel `messages` must be a mapping")
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
                _diag(self.diagnostics, rloc, codes.REF_INVALID, f"$ref must be a string, got {json.dumps(ref)}")
                return None
            try:
                target = self.resolver.lookup(ref, loc.uri)
            except RefError as exc:
                _diag(self.diagnostics, rloc, exc.code, str(exc))
                return None
            place = (target.uri, target.pointer)
            if place in seen:
                _diag(
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
        """One message object (following a ``$ref``); None with an error if unusable.

        A message with no name, ``messageId``, ``title`` or component ``key`` is
        named after ``fallback`` (its operation or channel) with a
        ``message-named-from-context`` warning; with no fallback either, it is
        an error (``message-unnamed``).
        """
        if isinstance(node, dict) and "$ref" in node:
            resolved = self.follow(node, loc)
            if resolved is None:
                return None
            target, tloc = resolved
            memo_key = (tloc.uri, tloc.pointer)
            if memo_key not in self._memo:
                token = tloc.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
                self._memo[memo_key] = self.read_message(target, tloc, token)
            return self._memo[memo_key]
        if not isinstance(node, dict):
            _diag(self.diagnostics, loc, codes.MESSAGE_INVALID, "message must be a mapping")
            return None
        name_source = _text(node.get("name")) or key or _text(node.get("messageId")) or _text(node.get("title"))
        if not pascal(name_source) and pascal(fallback):
            name_source = fallback
            _diag(
                self.diagnostics,
                loc,
                codes.MESSAGE_NAMED_FROM_CONTEXT,
                f"message has no name, messageId or title; named {ClassName(fallback, prefix='Message')} "
                "after its operation (or channel)",
            )
        if not pascal(name_source):
            _diag(
                self.diagnostics, loc, codes.MESSAGE_UNNAMED, "message has no name, messageId, title or component key"
            )
            return None
        name = str(ClassName(name_source, prefix="Message"))
        content_type = _text(node.get("contentType")) or self.default_content_type
        if "payload" not in node:
            _diag(self.diagnostics, loc, codes.MESSAGE_NO_PAYLOAD, "message has no payload; any JSON is accepted")
            payload = Schema("any", loc.provenance)
        else:
            payload = self._payload(node["payload"], node.get("schemaFormat"), loc, name)
        if payload.type == "any" and "payload" in node:
            _diag(
                self.diagnostics,
                loc.child("payload"),
                codes.PAYLOAD_UNTYPED,
                "payload schema has no type; any JSON is accepted",
            )
        kind: MessageKind = "data"
        if payload.type == "string" and len(payload.enum) == 1 and not str(payload.enum[0]).strip():
            # Whitespace only (Gitter's "\r\n" heartbeat): the connection is kept alive, not ended.
            kind = "keepalive"
            _diag(
                self.diagnostics,
                loc.child("payload"),
                codes.LITERAL_KEEPALIVE,
                f"payload is the whitespace literal {payload.enum[0]!r}: decoded as a keep-alive, "
                "which neither ends the stream nor carries data",
            )
        elif payload.type == "string" and len(payload.enum) == 1:
            kind = "terminator"
            _diag(
                self.diagnostics,
                loc.child("payload"),
                codes.LITERAL_PAYLOAD,
                f"payload is the literal {payload.enum[0]!r}, not JSON: decoded as the stream terminator",
            )
        examples = self._examples(node.get("examples"), loc.child("examples"))
        return Message(
            name=name,
            kind=kind,
            payload=payload,
            provenance=loc.provenance,
            title=_text(node.get("title")),
            summary=_text(node.get("summary")),
            description=_text(node.get("description")),
            content_type=content_type,
            event=self._event(node, loc, [_text(node.get("name")), key, _text(node.get("messageId"))], payload),
            examples=tuple(examples),
        )

    def _event(self, node: dict[str, Any], loc: Location, names: list[str], payload: Schema) -> str:
        """The SSE event type of a message: its ``x-sse-event``; else the first of its
        names (``name``, component key, ``messageId``), then of the values its payload
        fixes a member to (``type: message_start``), that an ``event:`` line of the
        document shows (``event-named``); else ``message``."""
        explicit = node.get("x-sse-event")
        if isinstance(explicit, str) and explicit.strip():
            return explicit.strip()
        if explicit is not None:
            _diag(self.diagnostics, loc.child("x-sse-event"), codes.MESSAGE_INVALID, "x-sse-event must be a string")
        fixed = [payload.tag(p.name) for p in sorted(payload.properties, key=lambda p: p.name != "type")]
        for name in [*names, *fixed]:
            if name and name in self.event_names:
                _diag(
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
            _diag(
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
            _diag(self.diagnostics, loc, codes.EXAMPLE_INVALID, "examples must be a list; ignored")
            return []
        examples = []
        for i, item in enumerate(node):
            eloc = loc.child(i)
            if not isinstance(item, dict) or "payload" not in item:
                _diag(self.diagnostics, eloc, codes.EXAMPLE_INVALID, "example has no payload; ignored")
                continue
            payload = item["payload"]
            data = (
                payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            )
            examples.append(
                Example(
                    name=_text(item.get("name")),
                    summary=_text(item.get("summary")),
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


def _servers(node: Any, loc: Location, reader: _MessageReader) -> list[Server]:
    """Declared servers; 2.x ``url``, 3.0 ``host`` + ``pathname`` (with ``protocol`` as scheme)."""
    if not isinstance(node, dict):
        return []
    servers = []
    for name, item in node.items():
        resolved = reader.follow(item, loc.child(name))
        if resolved is None or not isinstance(resolved[0], dict):
            continue
        item, sloc = resolved
        protocol = _text(item.get("protocol"))
        url = _text(item.get("url"))
        if not url and _text(item.get("host")):
            host = _text(item.get("host"))
            url = (f"{protocol}://" if protocol and "://" not in host else "") + host + _text(item.get("pathname"))
        servers.append(Server(name, url, protocol, sloc.provenance, _text(item.get("description"))))
    return servers


#: Protocols that carry Server-Sent Events: HTTP(S), and Mercure (SSE from a hub).
SSE_PROTOCOLS = frozenset({"http", "https", "sse", "mercure"})

#: Keys under which a document holds schemas and examples, never ``bindings`` objects.
_NOT_BINDINGS = frozenset({"payload", "headers", "schemas", "examples", "properties", "items", "schema"})


def _other_protocols(
    data: dict[str, Any], root: Location, servers: list[Server], diagnostics: Diagnostics
) -> list[str]:
    """Protocols other than SSE over HTTP, from each server's ``protocol`` and each key of a
    ``bindings`` object (of a server, channel, operation or message); one ``protocol-not-sse``
    warning per server and per binding."""
    found: list[str] = []
    for server in servers:
        protocol = server.protocol.lower()
        if protocol and protocol not in SSE_PROTOCOLS:
            found.append(protocol)
            diagnostics.at(
                server.provenance,
                codes.PROTOCOL_NOT_SSE,
                f"server {server.name!r} uses protocol {server.protocol!r}, not SSE over HTTP: "
                "the package has the models and a JSON-payload classifier, no transport for it",
            )

    def walk(node: Any, loc: Location) -> None:
        if isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, loc.child(i))
        if not isinstance(node, dict):
            return
        for key, value in node.items():
            if key == "bindings" and isinstance(value, dict):
                for protocol in value:
                    if protocol != "$ref" and str(protocol).lower() not in SSE_PROTOCOLS:
                        found.append(str(protocol).lower())
                        _diag(
                            diagnostics,
                            loc.child("bindings", protocol),
                            codes.PROTOCOL_NOT_SSE,
                            f"binding {protocol!r} is not SSE over HTTP: the package has the models "
                            "and a JSON-payload classifier, no transport for it",
                        )
            elif key not in _NOT_BINDINGS and key != "servers":
                walk(value, loc.child(key))

    walk(data, root)
    return found


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


def _check_info(info: Any, loc: Location, diagnostics: Diagnostics) -> None:
    """Warn about ``info`` fields of the wrong type; the document is still used."""
    if info is None:
        _diag(diagnostics, loc, codes.INFO_MISSING, "document has no `info` object")
        return
    if not isinstance(info, dict):
        _diag(diagnostics, loc, codes.INFO_INVALID, "`info` must be a mapping; ignored")
        return

    def walk(value: Any, here: Location) -> None:
        if here.pointer in _INFO_STRING_FIELDS and not isinstance(value, str):
            shown = json.dumps(value, ensure_ascii=False)
            hint = (
                " (a YAML flow sequence: an unquoted `[...]` value, e.g. a scraped e-mail address)"
                if isinstance(value, list)
                else ""
            )
            _diag(
                diagnostics,
                here,
                codes.INFO_FIELD_TYPE,
                f"{here.pointer.rsplit('/', 1)[-1]} must be a string, got {shown}{hint}; ignored",
            )
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, here.child(key))

    walk(info, loc)


def _diag(diagnostics: Diagnostics, loc: Location, code: codes.Code, message: str) -> None:
    diagnostics.at(loc.provenance, code, message)


def _extensions(node: dict[str, Any]) -> dict[str, Any]:
    """The ``x-ssegen-*`` members of a channel object, as written."""
    return {k: v for k, v in node.items() if isinstance(k, str) and k.startswith("x-ssegen-")}


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
