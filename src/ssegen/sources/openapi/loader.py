"""OpenAPI 3.0 / 3.1 / 3.2 documents -> IR channels of their streamed responses.

Every operation (``paths.<path>.<method>``, and 3.2 ``additionalOperations``) whose 2xx
response has a ``text/event-stream`` media type becomes a channel at the path (a ``#...``
suffix some providers add to tell a streaming variant apart, ``/v1/conversations#stream``,
is not part of the HTTP path and is dropped). Its messages come from the media type:

* OpenAPI 3.2 ``itemSchema`` (OpenAPI 3.2.0, Media Type Object: "Sequential Media Types" and
  "Special Considerations for Server-Sent Events"): the schema of one SSE event, modelled as
  an object with ``data``, ``event``, ``id``, ``retry``.
  ``data`` is the payload; with ``contentMediaType: application/json`` its ``contentSchema``
  is the JSON schema of the payload. An ``event`` with ``const`` (or ``enum``) values gives
  the message's SSE event type (:attr:`ssegen.ir.Message.event`); a ``oneOf``/``anyOf`` of
  event objects gives one message per branch.
* OpenAPI 3.0/3.1 ``schema``: the JSON carried by each event's ``data``
  (``openai/openapi.yaml``: ``CreateChatCompletionStreamResponse``); a ``oneOf``/``anyOf``
  of objects gives one message per branch, named from its ``$ref`` component key or
  ``title`` (``ResponseStreamEvent``'s 58 branches). A ``schema`` that is itself an SSE event
  object (members among ``data``/``event``/``id``/``retry``, with ``data``; Mistral's
  ``CompletionEvent``, ``mistral/openapi.yaml``) is read as an ``itemSchema``
  (``openapi-event-schema``).

Code generators' extensions mark streams too (``openapi-stream-vendor``):

* Fern's ``x-fern-streaming`` on an operation (buildwithfern.com, "Server-sent events and
  streaming APIs"): ``{format: sse}`` makes the 2xx ``application/json`` schema the JSON of each
  event's ``data``; with ``stream-condition`` (a request member choosing stream or not),
  ``response-stream`` is that schema and ``response`` the non-streamed one; ``terminator`` is
  the literal that ends the stream. ``x-fern-streaming: true`` or ``format: json`` means
  newline-delimited JSON: the same schema is each line's value (``openapi-stream-ndjson``).
* Speakeasy's ``x-speakeasy-sse-sentinel`` on a ``text/event-stream`` media type: the literal
  ``data`` value that ends the stream (``[DONE]``).

A 2xx response with a newline-delimited JSON media type (``application/x-ndjson``,
``application/jsonl``, ...: :data:`ssegen.sources.base.NDJSON_MEDIA_TYPES`; Ollama's
``/api/chat``) and no ``text/event-stream`` one is a channel framed as NDJSON
(``openapi-stream-ndjson``, info): its ``schema`` (or 3.2 ``itemSchema``, "Sequential Media
Types") is the JSON of each line, ``oneOf``/``anyOf`` branches one message each.

The operation's ``x-ssegen-*`` members are its channel's extensions, as on an AsyncAPI channel
(``x-ssegen-accumulate``: the channel's accumulation plan, docs/accumulation.md).

The ``[DONE]`` sentinel is a message when the schema states it (a string ``const``/``enum``
``[DONE]``, a ``literal-payload`` terminator as in the AsyncAPI seeds), when an extension
above declares it, or when the response's description or examples show a ``data: [DONE]``
line (``openapi-terminator-described``). The request of each streaming operation (method, path
and parameters, body, security, servers) is read by :mod:`.request`. The hundreds of other operations are
skipped without a diagnostic each; one ``openapi-streams-found`` info counts the streams.
Schemas go through :class:`~ssegen.sources.schema.SchemaConverter` (``nullable``, type lists,
``allOf``) and ``$ref`` through the provider's :class:`~ssegen.sources.refs.RefResolver`
(remote and escaping references refused).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Channel, Framing, Message, Schema, Server
from ...naming import ClassName, pascal
from ..base import SourceResult, framing_of
from ..document import Document
from ..location import Location
from ..refs import RefResolver
from ..schema import SchemaConverter
from .events import DONE, EventSchemaReader, is_event_object, is_json
from .media import StreamMedia
from .media_examples import with_media_examples
from .request import RequestReader

#: Operation keys of a path item (3.2 adds ``query``; ``additionalOperations`` is read apart).
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")


def load_openapi(document: Document, uri: str, resolver: RefResolver, diagnostics: Diagnostics) -> SourceResult | None:
    """Read an OpenAPI 3.x document's streaming operations into IR parts.

    Args:
        document: the parsed document (see :func:`ssegen.sources.document.parse_document`).
        uri: its base URI, registered in ``resolver``.
        resolver: resolves ``$ref`` (local and relative files only).
        diagnostics: receives infos, warnings and errors, each with file, line and pointer.

    Returns:
        The document's title, version, description, servers and one channel per streaming
        path (no channel when it has no ``text/event-stream`` response); None when the
        document is not a mapping or its ``openapi`` field is not a 3.x version string
        (an error says why).
    """
    data = document.data
    root = Location(document, "", uri)
    if not isinstance(data, dict):
        diagnostics.at(root.provenance, codes.DOCUMENT_NOT_MAPPING, "an OpenAPI document must be a mapping")
        return None
    version = data.get("openapi")
    if not isinstance(version, str) or not version.strip().startswith("3."):
        diagnostics.at(
            root.child("openapi").provenance,
            codes.OPENAPI_VERSION_INVALID,
            f"`openapi` must be a 3.x version string, got {json.dumps(version)}; quote it (openapi: '3.1.0')",
        )
        return None
    raw_info = data.get("info")
    info: dict[str, Any] = raw_info if isinstance(raw_info, dict) else {}
    reader = _Reader(SchemaConverter(resolver, diagnostics), resolver, diagnostics)
    counts = _Counts()
    channels = _read_paths(data.get("paths"), root, reader, counts, RequestReader(data, root, reader))
    _report_counts(counts, len(channels), root, diagnostics)
    return SourceResult(
        document.file,
        title=_text(info.get("title")),
        version=_text(info.get("version")),
        description=_text(info.get("description")),
        channels=tuple(channels.values()),
        servers=tuple(_servers(data.get("servers"), root.child("servers"))),
    )


@dataclass
class _Counts:
    """How many operations a document has, and how many of them stream (for
    ``openapi-streams-found``)."""

    operations: int = 0
    streams: int = 0


def _read_paths(
    paths: Any, root: Location, reader: _Reader, counts: _Counts, requests: RequestReader
) -> dict[str, Channel]:
    """One channel per address (the path without its ``#...`` suffix) with the messages of
    every streaming operation at it, in document order, and the request of the first
    (:class:`~.request.RequestReader`); ``counts`` counted on the way."""
    channels: dict[str, Channel] = {}
    for path, item in (paths if isinstance(paths, dict) else {}).items():
        resolved = reader.follow(item, root.child("paths", path))
        if resolved is None or not isinstance(resolved[0], dict):
            continue
        item, iloc = resolved
        for oloc, op in _operations(item, iloc):
            counts.operations += 1
            stream = _stream_channel(path, op, oloc, reader, counts)
            if stream is None:
                continue
            channel, messages, media = stream
            if channel.address not in channels:
                channel = replace(channel, request=requests.read(path, item, iloc, op, oloc, media))
            old = channels.get(channel.address, channel)
            channels[channel.address] = replace(old, messages=reader.unique(old.messages, messages))
    return channels


def _stream_channel(
    path: str, op: dict[str, Any], oloc: Location, reader: _Reader, counts: _Counts
) -> tuple[Channel, list[Message], list[StreamMedia]] | None:
    """``(channel, messages, media)`` of operation ``op`` at ``path`` when it streams (a
    ``text/event-stream`` or NDJSON response, or ``x-fern-streaming``): the channel without
    messages, from the operation's id, summary, description and ``x-ssegen-*`` members, the
    messages of its streamed responses, and those responses; None when it does not stream."""
    media = reader.stream_media(op, oloc) or reader.fern_stream_media(op, oloc)
    if not media:
        return None
    counts.streams += 1
    messages = [m for found in media for m in reader.media_messages(path, op, oloc, found)]
    channel = Channel(
        address=path.split("#", 1)[0] or path,
        messages=(),
        provenance=oloc.provenance,
        framing=media[0].framing,
        media_types=tuple(
            sorted(reader.streamed_media_types(op, oloc), key=lambda m: framing_of(m) != media[0].framing)
        ),
        operation_id=_text(op.get("operationId")),
        summary=_text(op.get("summary")),
        description=_text(op.get("description")),
        extensions={k: v for k, v in op.items() if isinstance(k, str) and k.startswith("x-ssegen-")},
    )
    return channel, messages, media


def _report_counts(counts: _Counts, channels: int, root: Location, diagnostics: Diagnostics) -> None:
    """The ``openapi-streams-found`` info (streams among operations, channels)."""
    diagnostics.at(
        root.child("paths").provenance,
        codes.OPENAPI_STREAMS_FOUND,
        f"{counts.streams} of {counts.operations} operations stream `text/event-stream` or newline-delimited JSON "
        f"({channels} channel{'s' if channels != 1 else ''}); the others are skipped",
    )


def _operations(item: dict[str, Any], loc: Location) -> list[tuple[Location, dict[str, Any]]]:
    """The operations of a path item: its method keys, then 3.2 ``additionalOperations``."""
    found = [(loc.child(method), op) for method in METHODS if isinstance(op := item.get(method), dict)]
    extra = item.get("additionalOperations")
    if isinstance(extra, dict):
        found += [(loc.child("additionalOperations", k), op) for k, op in extra.items() if isinstance(op, dict)]
    return found


class _Reader(EventSchemaReader):
    """Reads the streaming responses of operations into IR messages."""

    def stream_media(self, op: dict[str, Any], oloc: Location) -> list[StreamMedia]:
        """The stream of each 2xx ``text/event-stream`` response of an operation (with its
        ``x-speakeasy-sse-sentinel``); only 2xx responses are followed through ``$ref``."""
        found = []
        lines = []
        for media_type, media, mloc, response in self._success_media(op, oloc):
            framing = framing_of(media_type)
            if framing == "sse":
                sentinel = self._sentinel(media, mloc, "x-speakeasy-sse-sentinel")
                found.append(StreamMedia(media, mloc, response, sentinel))
            elif framing == "ndjson":
                lines.append(StreamMedia(media, mloc, response, framing="ndjson"))
        if found or not lines:
            return found
        self.diagnostics.at(
            lines[0].loc.provenance,
            codes.OPENAPI_STREAM_NDJSON,
            f"`{lines[0].loc.pointer.rsplit('/', 1)[-1].replace('~1', '/')}` streams newline-delimited JSON: "
            "each line of the body is one message",
        )
        return lines

    def streamed_media_types(self, op: dict[str, Any], oloc: Location) -> tuple[str, ...]:
        """Every media type of the operation's 2xx responses that names a framing
        (``text/event-stream``, the NDJSON ones), in the document's order, once each."""
        found = (media_type for media_type, *_ in self._success_media(op, oloc))
        return tuple(dict.fromkeys(m for m in found if framing_of(m) is not None))

    def fern_stream_media(self, op: dict[str, Any], oloc: Location) -> list[StreamMedia]:
        """The stream an operation's ``x-fern-streaming`` declares (module docstring): the
        ``response-stream`` schema, else each 2xx ``application/json`` schema, as SSE ``data``;
        [] when there is none, or when it streams newline-delimited JSON (a warning)."""
        marker = op.get("x-fern-streaming")
        if marker is None or marker is False:
            return []
        floc = oloc.child("x-fern-streaming")
        spec: dict[str, Any] = marker if isinstance(marker, dict) else {}
        framing: Framing = "sse" if spec.get("format") == "sse" else "ndjson"
        sentinel = self._sentinel(spec, floc, "terminator") if framing == "sse" else None
        if "response-stream" in spec:
            found = [StreamMedia(spec, floc, {}, sentinel, schema_key="response-stream", framing=framing)]
        else:
            found = [
                StreamMedia(media, mloc, response, sentinel, framing=framing)
                for media_type, media, mloc, response in self._success_media(op, oloc)
                if media_type == "application/json" and "schema" in media
            ]
        schema = "`response-stream`" if "response-stream" in spec else "the 2xx application/json schema"
        if found and framing == "sse":
            self.diagnostics.at(
                floc.provenance,
                codes.OPENAPI_STREAM_VENDOR,
                f"x-fern-streaming (format sse): each SSE event's data is {schema}",
            )
        elif found:
            self.diagnostics.at(
                floc.provenance,
                codes.OPENAPI_STREAM_NDJSON,
                f"x-fern-streaming (format {spec.get('format', 'json')!r}) streams newline-delimited JSON: "
                f"each line of the body is {schema}",
            )
        return found

    def _success_media(self, op: dict[str, Any], oloc: Location) -> list[tuple[str, dict[str, Any], Location, Any]]:
        """``(media type without parameters, lower case; media type object; its location; the
        response)`` of every 2xx response of an operation, ``$ref`` followed."""
        responses = op.get("responses")
        if not isinstance(responses, dict):
            return []
        found = []
        for status, response in responses.items():
            if not str(status).startswith("2"):
                continue
            resolved = self.follow(response, oloc.child("responses", status))
            if resolved is None or not isinstance(resolved[0], dict):
                continue
            response, rloc = resolved
            content = response.get("content")
            if not isinstance(content, dict):
                continue
            for media_type, media in content.items():
                followed = self.follow(media, rloc.child("content", media_type))
                if followed is not None and isinstance(followed[0], dict):
                    found.append((str(media_type).split(";", 1)[0].strip().lower(), followed[0], followed[1], response))
        return found

    def _sentinel(self, node: dict[str, Any], loc: Location, key: str) -> tuple[str, Location] | None:
        """The terminator literal ``node[key]`` declares, with its place (a warning when it is no string)."""
        value = node.get(key)
        if value is None:
            return None
        if not isinstance(value, str) or not value:
            self.diagnostics.at(
                loc.child(key).provenance,
                codes.MESSAGE_INVALID,
                f"{key} must be a non-empty string (the data that ends the stream), got {json.dumps(value)}; ignored",
            )
            return None
        return value, loc.child(key)

    def media_messages(self, path: str, op: dict[str, Any], oloc: Location, stream: StreamMedia) -> list[Message]:
        """The messages of one stream's media type object (see the module docstring); unnamed
        ones are named after the operation (``operationId``, else the path) + ``Event``. An SSE
        stream gains its terminator (:meth:`_with_terminator`)."""
        hint = str(ClassName((pascal(_text(op.get("operationId"))) or pascal(path)) + "Event", prefix="Message"))
        if stream.framing == "ndjson":
            return with_media_examples(stream, self._line_messages(stream, hint), self.diagnostics)
        messages = self._event_stream_messages(stream, hint)
        if messages is None:
            return []
        return with_media_examples(stream, self._with_terminator(messages, stream, op, oloc), self.diagnostics)

    def _line_messages(self, stream: StreamMedia, hint: str) -> list[Message]:
        """The messages of an NDJSON stream: its ``itemSchema`` (3.2), else its schema, is each
        line's JSON; none without either (``message-no-payload``)."""
        media, mloc = stream.media, stream.loc
        key = "itemSchema" if "itemSchema" in media else stream.schema_key
        if key not in media:
            self.diagnostics.at(mloc.provenance, codes.MESSAGE_NO_PAYLOAD, "the stream has no schema")
            return []
        return self.data_messages(media[key], mloc.child(key), hint, "message")

    def _event_stream_messages(self, stream: StreamMedia, hint: str) -> list[Message] | None:
        """The messages of a ``text/event-stream``: its 3.2 ``itemSchema`` is the SSE event
        object; its schema is each event's ``data``, or the event object itself
        (``openapi-event-schema``). None when the schema's ``$ref`` cannot be followed or there
        is no schema (``message-no-payload``)."""
        media, mloc = stream.media, stream.loc
        if "itemSchema" in media:
            return self.event_messages(media["itemSchema"], mloc.child("itemSchema"), hint)
        key = stream.schema_key
        if key not in media:
            self.diagnostics.at(mloc.provenance, codes.MESSAGE_NO_PAYLOAD, "the event stream has no schema")
            return None
        resolved = self.follow(media[key], mloc.child(key))
        if resolved is None:
            return None
        if not is_event_object(resolved[0]):
            return self.data_messages(media[key], mloc.child(key), hint, "message")
        self.diagnostics.at(
            resolved[1].provenance,
            codes.OPENAPI_EVENT_SCHEMA,
            "the `text/event-stream` schema describes the SSE event (data, event, id, retry); "
            "read as an itemSchema, its `data` is the payload",
        )
        return self.event_messages(media[key], mloc.child(key), hint)

    def _with_terminator(
        self, messages: list[Message], stream: StreamMedia, op: dict[str, Any], oloc: Location
    ) -> list[Message]:
        """``messages`` with a ``StreamDone`` terminator when none is one: the sentinel an
        extension declares (``openapi-stream-vendor``), else a ``data: [DONE]`` the response,
        operation or request body describes (``openapi-terminator-described``)."""
        if stream.sentinel is not None and not any(m.literal == stream.sentinel[0] for m in messages):
            text, sloc = stream.sentinel
            self.diagnostics.at(
                sloc.provenance,
                codes.OPENAPI_STREAM_VENDOR,
                f"{sloc.pointer.rsplit('/', 1)[-1]} declares that `data: {text}` ends the stream; "
                "read as the terminator",
            )
            literal = Schema("string", sloc.provenance, name="StreamDone", enum=(text,))
            messages.append(Message("StreamDone", "terminator", literal, sloc.provenance, content_type="text/plain"))
        if any(m.kind == "terminator" for m in messages):
            return messages
        said = _done_stated(stream.response, stream.media, op, stream.loc) or self.request_says_done(op, oloc)
        if said is not None:
            self.diagnostics.at(
                said.provenance,
                codes.OPENAPI_TERMINATOR_DESCRIBED,
                "the stream is said to end with `data: [DONE]`; it is read as the terminator",
            )
            literal = Schema("string", said.provenance, name="StreamDone", enum=(DONE,))
            messages.append(Message("StreamDone", "terminator", literal, said.provenance, content_type="text/plain"))
        return messages

    def request_says_done(self, op: dict[str, Any], oloc: Location) -> Location | None:
        """Where the JSON request body's ``stream`` members say the stream ends with ``data: [DONE]``;
        None when they do not.

        OpenAI's document says it only there: ``CreateCompletionRequest.stream`` ("terminated by a
        `data: [DONE]` message") and, for chat, ``ChatCompletionStreamOptions.include_usage`` under
        ``stream_options`` ("streamed before the `data: [DONE]` message"; ``openai/openai-openapi``
        ``openapi.yaml``). Members named ``stream*`` are searched, with their own members, through
        ``$ref``, ``allOf``, ``anyOf`` and ``oneOf``, a few levels deep; a reference that cannot be
        followed is reported by :meth:`follow` and ends that branch.
        """
        body = self.follow(op.get("requestBody"), oloc.child("requestBody"))
        content = body[0].get("content") if body is not None and isinstance(body[0], dict) else None
        if body is None or not isinstance(content, dict):
            return None
        for media_type, media in content.items():
            if is_json(media_type) and isinstance(media, dict) and "schema" in media:
                found = self._says_done(media["schema"], body[1].child("content", media_type, "schema"), False)
                if found is not None:
                    return found
        return None

    def _says_done(self, node: Any, loc: Location, inside: bool, depth: int = 0) -> Location | None:
        """The first description saying ``data: [DONE]`` in ``node`` (its own, when ``inside`` a
        ``stream*`` member), its members' (:meth:`_members_say_done`) or its
        ``allOf``/``anyOf``/``oneOf`` parts' (:meth:`_parts_say_done`); 6 levels deep at most."""
        resolved = self.follow(node, loc) if depth < 6 else None
        if resolved is None or not isinstance(resolved[0], dict):
            return None
        target, tloc = resolved
        text = target.get("description")
        if inside and isinstance(text, str) and f"data: {DONE}" in " ".join(text.split()):
            return tloc.child("description")
        return self._members_say_done(target, tloc, inside, depth) or self._parts_say_done(target, tloc, inside, depth)

    def _members_say_done(self, target: dict[str, Any], tloc: Location, inside: bool, depth: int) -> Location | None:
        """:meth:`_says_done` of the ``stream*`` members of ``target`` (every member once ``inside``)."""
        properties = target.get("properties")
        for member, schema in properties.items() if isinstance(properties, dict) else ():
            if isinstance(member, str) and (inside or member.startswith("stream")):
                found = self._says_done(schema, tloc.child("properties", member), True, depth + 1)
                if found is not None:
                    return found
        return None

    def _parts_say_done(self, target: dict[str, Any], tloc: Location, inside: bool, depth: int) -> Location | None:
        """:meth:`_says_done` of the ``allOf``/``anyOf``/``oneOf`` parts of ``target``."""
        for key in ("allOf", "anyOf", "oneOf"):  # 3.1's nullable object is anyOf [object, null]
            parts = target.get(key)
            for i, part in enumerate(parts if isinstance(parts, list) else []):
                found = self._says_done(part, tloc.child(key, i), inside, depth + 1)
                if found is not None:
                    return found
        return None


def _done_stated(
    response: dict[str, Any], media: dict[str, Any], op: dict[str, Any], mloc: Location
) -> Location | None:
    """Where the response's description, the operation's description or a media type example
    shows a ``data: [DONE]`` line; None when nothing does."""
    texts: list[tuple[Any, Location]] = [(media.get("example"), mloc.child("example"))]
    examples = media.get("examples")
    if isinstance(examples, dict):
        texts += [
            (example.get("value"), mloc.child("examples", key, "value"))
            for key, example in examples.items()
            if isinstance(example, dict)
        ]
    texts += [(media.get("description"), mloc.child("description")), (response.get("description"), mloc)]
    texts.append((op.get("description"), mloc))
    for text, where in texts:
        if isinstance(text, str) and f"data: {DONE}" in text:
            return where
    return None


def _servers(node: Any, loc: Location) -> list[Server]:
    """Declared servers (``servers: [{url, description}]``), named by their URL."""
    if not isinstance(node, list):
        return []
    servers = []
    for i, item in enumerate(node):
        if isinstance(item, dict) and isinstance(item.get("url"), str):
            url = item["url"].strip()
            protocol = url.split("://", 1)[0] if "://" in url else ""
            servers.append(Server(url, url, protocol, loc.child(i).provenance, _text(item.get("description"))))
    return servers


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
