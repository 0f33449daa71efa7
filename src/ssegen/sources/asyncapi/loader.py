"""AsyncAPI 2.x / 3.0 documents -> IR channels, messages and schemas.

What the server streams to the client is what the described application
sends: in AsyncAPI 2.x the ``subscribe`` operation's ``message`` of a channel
(the client subscribes to what the application publishes); in 3.0 the
``messages`` of the channel used by an operation with ``action: send`` (the
asyncapi/spec 2.6 -> 3.0 conversion maps ``subscribe`` to ``send``), the
``reply`` of an ``action: receive`` operation (the application answers a
request), or, with no operations, all messages of the channel.  2.x
``publish`` and 3.0 ``receive`` operations carry what the client sends: the
request that opens the stream of their channel (:mod:`.request`); one on a
channel nothing streams on (and the reply of a ``send``) is skipped with an
``operation-request-skipped`` info naming it.  3.0 channels, operations, replies,
messages and servers may be ``$ref`` s (local or relative-file), and a message
``payload`` may be a multi-format schema object ``{schemaFormat, schema}``.

The loader is lenient where real documents are wrong and says so: a malformed
``info`` field (Mistral's ``email: [email protected]``, a YAML flow sequence
produced by a scraper's e-mail obfuscation) is a warning and the rest of the
document is used; the official parser rejects the whole document for it.

The channels are read by :mod:`.channels_v2` and :mod:`.channels_v3`, their messages by
:mod:`.messages`.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Channel, Server
from ..base import framing_of
from ..document import Document
from ..location import Location
from ..refs import RefResolver
from ..schema import SchemaConverter
from .channels_v2 import channels_v2
from .channels_v3 import channels_v3
from .common import diag, text
from .messages import MessageReader, shown_event_names
from .request import RequestReader

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
        diag(diagnostics, root, codes.DOCUMENT_NOT_MAPPING, "an AsyncAPI document must be a mapping")
        return None
    version = data.get("asyncapi")
    if version is None or (isinstance(version, str) and not version.strip()):
        diag(diagnostics, root, codes.ASYNCAPI_VERSION_MISSING, "missing `asyncapi` version field")
        return None
    if not isinstance(version, str):
        diag(
            diagnostics,
            root.child("asyncapi"),
            codes.ASYNCAPI_VERSION_INVALID,
            f"`asyncapi` must be a version string, got {version!r}; quote it (asyncapi: '{version}')",
        )
        return None
    major = version.strip().split(".")[0]
    if major not in ("2", "3"):
        diag(
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
    result.title = text(info.get("title"))
    result.version = text(info.get("version"))
    result.description = text(info.get("description"))
    converter = SchemaConverter(resolver, diagnostics)
    reader = MessageReader(converter, resolver, diagnostics, shown_event_names(data))
    reader.default_content_type = text(data.get("defaultContentType")) or "application/json"
    result.servers = _servers(data.get("servers"), root.child("servers"), reader)
    result.protocols = _other_protocols(data, root, result.servers, diagnostics)
    requests = RequestReader(data, root, reader, result.servers, diagnostics)
    if major == "2":
        result.channels = channels_v2(data, root, reader, diagnostics, result.skipped, requests)
    else:
        result.channels = channels_v3(data, root, reader, diagnostics, result.skipped, requests)
    result.channels = [_framed(channel) for channel in result.channels]
    for channel in result.channels:
        _check_event_names(channel, diagnostics)
    if not result.channels:
        result.why_empty = _why_empty(data, major, result.skipped)
    return result


def _framed(channel: Channel) -> Channel:
    """``channel`` with the media types its channel object lists (``x-ssegen-media-types``: a
    list of the media types its responses come in, each naming a framing; the others are
    left out), framed as the first; else framed as NDJSON when one of its messages'
    ``contentType`` (or the document's ``defaultContentType``) is a newline-delimited JSON
    media type (``application/x-ndjson``, ``application/jsonl``): each line of the body is
    then one message's payload. Otherwise it stays a ``text/event-stream`` channel."""
    listed = channel.extensions.get("x-ssegen-media-types")
    media = tuple(
        dict.fromkeys(
            m.split(";", 1)[0].strip().lower()
            for m in (listed if isinstance(listed, list) else ())
            if isinstance(m, str) and framing_of(m) is not None
        )
    )
    if media:
        return replace(channel, framing=framing_of(media[0]) or "sse", media_types=media)
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


def _servers(node: Any, loc: Location, reader: MessageReader) -> list[Server]:
    """Declared servers; 2.x ``url``, 3.0 ``host`` + ``pathname`` (with ``protocol`` as scheme)."""
    if not isinstance(node, dict):
        return []
    servers = []
    for name, item in node.items():
        resolved = reader.follow(item, loc.child(name))
        if resolved is None or not isinstance(resolved[0], dict):
            continue
        item, sloc = resolved
        protocol = text(item.get("protocol"))
        url = text(item.get("url"))
        if not url and text(item.get("host")):
            host = text(item.get("host"))
            url = (f"{protocol}://" if protocol and "://" not in host else "") + host + text(item.get("pathname"))
        servers.append(Server(name, url, protocol, sloc.provenance, text(item.get("description"))))
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
                        diag(
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


def _check_info(info: Any, loc: Location, diagnostics: Diagnostics) -> None:
    """Warn about ``info`` fields of the wrong type; the document is still used."""
    if info is None:
        diag(diagnostics, loc, codes.INFO_MISSING, "document has no `info` object")
        return
    if not isinstance(info, dict):
        diag(diagnostics, loc, codes.INFO_INVALID, "`info` must be a mapping; ignored")
        return

    def walk(value: Any, here: Location) -> None:
        if here.pointer in _INFO_STRING_FIELDS and not isinstance(value, str):
            shown = json.dumps(value, ensure_ascii=False)
            hint = (
                " (a YAML flow sequence: an unquoted `[...]` value, e.g. a scraped e-mail address)"
                if isinstance(value, list)
                else ""
            )
            diag(
                diagnostics,
                here,
                codes.INFO_FIELD_TYPE,
                f"{here.pointer.rsplit('/', 1)[-1]} must be a string, got {shown}{hint}; ignored",
            )
        elif isinstance(value, dict):
            for key, child in value.items():
                walk(child, here.child(key))

    walk(info, loc)
