"""AsyncAPI 2.x / 3.0 documents -> IR channels, messages and schemas.

What the server streams to the client is, in AsyncAPI 2.x, the ``subscribe``
operation's ``message`` of a channel (the client subscribes); in 3.0 it is the
``messages`` of the channel used by an operation with ``action: receive`` (the
application receives), or, with no operations, all messages of the channel.

The loader is lenient where real documents are wrong and says so: a malformed
``info`` field (Mistral's ``email: [email protected]``, a YAML flow sequence
produced by a scraper's e-mail obfuscation) is a warning and the rest of the
document is used; the official parser rejects the whole document for it.
"""

from __future__ import annotations

import json
from typing import Any

from ..diagnostics import Diagnostics, Severity
from ..ir import Channel, Example, Message, MessageKind, Provenance, Schema, Server
from ..naming import ClassName, pascal
from .document import Document
from .refs import RefError, RefResolver
from .schema import Location, SchemaConverter

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
    """

    def __init__(self) -> None:
        self.title = ""
        self.version = ""
        self.description = ""
        self.channels: list[Channel] = []
        self.servers: list[Server] = []


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
        _diag(diagnostics, root, "document-not-mapping", Severity.ERROR, "an AsyncAPI document must be a mapping")
        return None
    version = data.get("asyncapi")
    if not isinstance(version, str) or not version.strip():
        _diag(diagnostics, root, "asyncapi-version-missing", Severity.ERROR, "missing `asyncapi` version field")
        return None
    major = version.strip().split(".")[0]
    if major not in ("2", "3"):
        _diag(diagnostics, root.child("asyncapi"), "asyncapi-version-unsupported", Severity.ERROR, f"unsupported AsyncAPI version {version!r} (2.x and 3.0 are supported)")
        return None

    result = AsyncAPIResult()
    _check_info(data.get("info"), root.child("info"), diagnostics)
    raw_info = data.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    result.title = _text(info.get("title"))
    result.version = _text(info.get("version"))
    result.description = _text(info.get("description"))
    result.servers = _servers(data.get("servers"), root.child("servers"))

    converter = SchemaConverter(resolver, diagnostics)
    reader = _MessageReader(converter, resolver, diagnostics)
    if major == "2":
        result.channels = _channels_v2(data, root, reader, diagnostics)
    else:
        result.channels = _channels_v3(data, root, reader, diagnostics)
    return result


def _channels_v2(data: dict[str, Any], root: Location, reader: _MessageReader, diagnostics: Diagnostics) -> list[Channel]:
    channels = data.get("channels")
    if not isinstance(channels, dict):
        _diag(diagnostics, root.child("channels"), "channels-missing", Severity.ERROR, "document has no `channels` mapping")
        return []
    result = []
    for address, item in channels.items():
        cloc = root.child("channels", address)
        if not isinstance(item, dict):
            _diag(diagnostics, cloc, "channel-invalid", Severity.ERROR, "channel item must be a mapping")
            continue
        operation = item.get("subscribe")
        if not isinstance(operation, dict):
            # publish-only channels carry what the client sends; nothing to decode.
            continue
        oloc = cloc.child("subscribe")
        messages = reader.read_operation_messages(operation.get("message"), oloc.child("message"))
        result.append(
            Channel(
                address=address,
                messages=tuple(messages),
                provenance=cloc.provenance,
                operation_id=_text(operation.get("operationId")),
                summary=_text(operation.get("summary")),
                description=_text(item.get("description")),
            )
        )
    return result


def _channels_v3(data: dict[str, Any], root: Location, reader: _MessageReader, diagnostics: Diagnostics) -> list[Channel]:
    channels = data.get("channels")
    if not isinstance(channels, dict):
        _diag(diagnostics, root.child("channels"), "channels-missing", Severity.ERROR, "document has no `channels` mapping")
        return []
    raw_operations = data.get("operations")
    operations: dict[str, Any] = raw_operations if isinstance(raw_operations, dict) else {}
    # channel key -> (operation id, operation, its location), for receive operations
    receivers: dict[str, tuple[str, dict[str, Any], Location]] = {}
    for op_id, op in operations.items():
        oloc = root.child("operations", op_id)
        if isinstance(op, dict) and "$ref" in op:
            try:
                target = reader.resolver.lookup(op["$ref"], oloc.uri)
            except RefError as exc:
                _diag(diagnostics, oloc.child("$ref"), exc.code, Severity.ERROR, str(exc))
                continue
            op = target.contents
            oloc = Location(target.document, target.pointer, target.uri)
        if not isinstance(op, dict) or op.get("action") != "receive":
            continue
        ref = op.get("channel", {}).get("$ref") if isinstance(op.get("channel"), dict) else None
        prefix = "#/channels/"
        if isinstance(ref, str) and ref.startswith(prefix):
            key = ref[len(prefix):].replace("~1", "/").replace("~0", "~")
            receivers[key] = (op_id, op, oloc)
    result = []
    for key, item in channels.items():
        cloc = root.child("channels", key)
        if not isinstance(item, dict):
            _diag(diagnostics, cloc, "channel-invalid", Severity.ERROR, "channel must be a mapping")
            continue
        if "$ref" in item:
            try:
                target = reader.resolver.lookup(item["$ref"], cloc.uri)
            except RefError as exc:
                _diag(diagnostics, cloc.child("$ref"), exc.code, Severity.ERROR, str(exc))
                continue
            item = target.contents
            cloc = Location(target.document, target.pointer, target.uri)
        if operations and key not in receivers:
            continue
        address = item.get("address") if isinstance(item.get("address"), str) else key
        op_id, op, oloc = receivers.get(key, ("", {}, cloc))
        raw_messages = item.get("messages") if isinstance(item.get("messages"), dict) else {}
        if isinstance(op.get("messages"), list) and op["messages"]:
            # The operation may narrow the channel's messages.
            selected = reader.read_message_list(op["messages"], oloc.child("messages"))
        else:
            selected = [
                m
                for name, node in raw_messages.items()
                if (m := reader.read_message(node, cloc.child("messages", name), name)) is not None
            ]
        result.append(
            Channel(
                address=address,
                messages=tuple(selected),
                provenance=cloc.provenance,
                operation_id=op_id,
                summary=_text(op.get("summary")),
                description=_text(item.get("description")),
            )
        )
    return result


class _MessageReader:
    """Reads AsyncAPI message objects (inline, ``$ref`` or ``oneOf``) into IR messages."""

    def __init__(self, converter: SchemaConverter, resolver: RefResolver, diagnostics: Diagnostics) -> None:
        self.converter = converter
        self.resolver = resolver
        self.diagnostics = diagnostics
        self._memo: dict[tuple[str, str], Message | None] = {}

    def read_operation_messages(self, node: Any, loc: Location) -> list[Message]:
        """Messages of a 2.x operation's ``message`` (one, or ``oneOf`` a list)."""
        if node is None:
            _diag(self.diagnostics, loc, "operation-no-message", Severity.WARNING, "operation has no message")
            return []
        if isinstance(node, dict) and "oneOf" in node and "$ref" not in node:
            branches = node["oneOf"]
            if not isinstance(branches, list):
                _diag(self.diagnostics, loc.child("oneOf"), "message-invalid", Severity.ERROR, "oneOf must be a list of messages")
                return []
            return self.read_message_list(branches, loc.child("oneOf"))
        message = self.read_message(node, loc, "")
        return [message] if message is not None else []

    def read_message_list(self, nodes: list[Any], loc: Location) -> list[Message]:
        """Messages of a list of message objects or references."""
        messages = []
        for i, node in enumerate(nodes):
            message = self.read_message(node, loc.child(i), "")
            if message is not None:
                messages.append(message)
        return messages

    def read_message(self, node: Any, loc: Location, key: str) -> Message | None:
        """One message object (following a ``$ref``); None with an error if unusable."""
        if isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            try:
                target = self.resolver.lookup(ref, loc.uri)
            except RefError as exc:
                _diag(self.diagnostics, loc.child("$ref"), exc.code, Severity.ERROR, str(exc))
                return None
            memo_key = (target.uri, target.pointer)
            if memo_key not in self._memo:
                self._memo[memo_key] = None  # guards against a message $ref cycle
                tloc = Location(target.document, target.pointer, target.uri)
                self._memo[memo_key] = self.read_message(target.contents, tloc, target.pointer.rsplit("/", 1)[-1])
            return self._memo[memo_key]
        if not isinstance(node, dict):
            _diag(self.diagnostics, loc, "message-invalid", Severity.ERROR, "message must be a mapping")
            return None
        name_source = _text(node.get("name")) or key or _text(node.get("messageId")) or _text(node.get("title"))
        if not pascal(name_source):
            _diag(self.diagnostics, loc, "message-unnamed", Severity.ERROR, "message has no name, messageId, title or component key")
            return None
        name = str(ClassName(name_source, prefix="Message"))
        content_type = _text(node.get("contentType")) or "application/json"
        if "payload" not in node:
            _diag(self.diagnostics, loc, "message-no-payload", Severity.WARNING, "message has no payload; any JSON is accepted")
            payload = Schema("any", loc.provenance)
        else:
            payload, _ = self.converter.convert(node["payload"], loc.child("payload"), name)
        if payload.type == "any" and "payload" in node:
            _diag(self.diagnostics, loc.child("payload"), "payload-untyped", Severity.WARNING, "payload schema has no type; any JSON is accepted")
        kind: MessageKind = "data"
        if payload.type == "string" and len(payload.enum) == 1:
            kind = "terminator"
            _diag(
                self.diagnostics,
                loc.child("payload"),
                "literal-payload",
                Severity.WARNING,
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
            examples=tuple(examples),
        )

    def _examples(self, node: Any, loc: Location) -> list[Example]:
        if node is None:
            return []
        if not isinstance(node, list):
            _diag(self.diagnostics, loc, "example-invalid", Severity.WARNING, "examples must be a list; ignored")
            return []
        examples = []
        for i, item in enumerate(node):
            eloc = loc.child(i)
            if not isinstance(item, dict) or "payload" not in item:
                _diag(self.diagnostics, eloc, "example-invalid", Severity.WARNING, "example has no payload; ignored")
                continue
            payload = item["payload"]
            data = payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
            examples.append(
                Example(
                    name=_text(item.get("name")),
                    summary=_text(item.get("summary")),
                    data=data,
                    provenance=eloc.child("payload").provenance,
                )
            )
        return examples


def _servers(node: Any, loc: Location) -> list[Server]:
    if not isinstance(node, dict):
        return []
    servers = []
    for name, item in node.items():
        if not isinstance(item, dict):
            continue
        url = _text(item.get("url")) or (_text(item.get("host")) + _text(item.get("pathname")))
        servers.append(Server(name, url, _text(item.get("protocol")), loc.child(name).provenance, _text(item.get("description"))))
    return servers


def _check_info(info: Any, loc: Location, diagnostics: Diagnostics) -> None:
    """Warn about ``info`` fields of the wrong type; the document is still used."""
    if info is None:
        _diag(diagnostics, loc, "info-missing", Severity.WARNING, "document has no `info` object")
        return
    if not isinstance(info, dict):
        _diag(diagnostics, loc, "info-invalid", Severity.WARNING, "`info` must be a mapping; ignored")
        return

    def walk(value: Any, here: Location) -> None:
        if here.pointer in _INFO_STRING_FIELDS and not isinstance(value, str):
            shown = json.dumps(value, ensure_ascii=False)
            hint = " (a YAML flow sequence: an unquoted `[...]` value, e.g. a scraped e-mail address)" if isinstance(value, list) else ""
            _diag(diagnostics, here, "info-field-type", Severity.WARNING, f"{here.pointer.rsplit('/', 1)[-1]} must be a string, got {shown}{hint}; ignored")
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, here.child(key))

    walk(info, loc)


def _diag(diagnostics: Diagnostics, loc: Location, code: str, severity: Severity, message: str) -> None:
    prov: Provenance = loc.provenance
    diagnostics.add(code, severity, message, file=prov.file, line=prov.line, pointer=prov.pointer)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
