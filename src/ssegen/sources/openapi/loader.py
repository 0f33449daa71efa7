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
(``x-ssegen-accumulate``: the channel's accumulation plan, README "Accumulation").

The ``[DONE]`` sentinel is a message when the schema states it (a string ``const``/``enum``
``[DONE]``, a ``literal-payload`` terminator as in the AsyncAPI seeds), when an extension
above declares it, or when the response's description or examples show a ``data: [DONE]``
line (``openapi-terminator-described``). Request bodies are not loaded (the IR has no request
messages; one ``openapi-requests-skipped`` info). The hundreds of other operations are
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
from ...ir import Channel, Framing, Message, MessageKind, Schema, Server
from ...naming import ClassName, pascal
from ..base import SourceResult, framing_of, unique_messages
from ..document import Document
from ..refs import RefError, RefResolver
from ..schema import Location, SchemaConverter

#: Operation keys of a path item (3.2 adds ``query``; ``additionalOperations`` is read apart).
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace", "query")

#: The members of an SSE event object (WHATWG HTML "Server-sent events" fields).
SSE_FIELDS = frozenset({"data", "event", "id", "retry"})

#: The terminator literal of OpenAI-style streams.
DONE = "[DONE]"


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
    channels: dict[str, Channel] = {}
    streams = requests = operations = 0
    paths = data.get("paths")
    for path, item in (paths if isinstance(paths, dict) else {}).items():
        resolved = reader.follow(item, root.child("paths", path))
        if resolved is None or not isinstance(resolved[0], dict):
            continue
        item, iloc = resolved
        for oloc, op in _operations(item, iloc):
            operations += 1
            media = reader.stream_media(op, oloc) or reader.fern_stream_media(op, oloc)
            if not media:
                continue
            streams += 1
            requests += "requestBody" in op
            messages = [m for found in media for m in reader.media_messages(path, op, oloc, found)]
            address = path.split("#", 1)[0] or path
            channel = Channel(
                address=address,
                messages=(),
                provenance=oloc.provenance,
                framing=media[0].framing,
                operation_id=_text(op.get("operationId")),
                summary=_text(op.get("summary")),
                description=_text(op.get("description")),
                extensions={k: v for k, v in op.items() if isinstance(k, str) and k.startswith("x-ssegen-")},
            )
            old = channels.get(address, channel)
            channels[address] = replace(old, messages=reader.unique(old.messages, messages))
    diagnostics.at(
        root.child("paths").provenance,
        codes.OPENAPI_STREAMS_FOUND,
        f"{streams} of {operations} operations stream `text/event-stream` or newline-delimited JSON "
        f"({len(channels)} channel{'s' if len(channels) != 1 else ''}); the others are skipped",
    )
    if requests:
        diagnostics.at(
            root.child("paths").provenance,
            codes.OPENAPI_REQUESTS_SKIPPED,
            f"the request bodies of {requests} streaming operation{'s' if requests != 1 else ''} are not loaded",
        )
    return SourceResult(
        document.file,
        title=_text(info.get("title")),
        version=_text(info.get("version")),
        description=_text(info.get("description")),
        channels=tuple(channels.values()),
        servers=tuple(_servers(data.get("servers"), root.child("servers"))),
    )


def _operations(item: dict[str, Any], loc: Location) -> list[tuple[Location, dict[str, Any]]]:
    """The operations of a path item: its method keys, then 3.2 ``additionalOperations``."""
    found = [(loc.child(method), op) for method in METHODS if isinstance(op := item.get(method), dict)]
    extra = item.get("additionalOperations")
    if isinstance(extra, dict):
        found += [(loc.child("additionalOperations", k), op) for k, op in extra.items() if isinstance(op, dict)]
    return found


@dataclass(frozen=True)
class StreamMedia:
    """One streamed response of an operation.

    Attributes:
        media: the media type object (``schema`` or ``itemSchema``), or the
            ``x-fern-streaming`` object when its ``response-stream`` is the schema.
        loc: where ``media`` is.
        response: the response object holding it ({} when an extension declares the stream).
        sentinel: the terminator literal an extension declares, and where; None when none does.
        schema_key: the member of ``media`` holding the schema of each event's ``data``.
        framing: ``sse``, or ``ndjson`` (the schema is each line's JSON).
    """

    media: dict[str, Any]
    loc: Location
    response: Any
    sentinel: tuple[str, Location] | None = None
    schema_key: str = "schema"
    framing: Framing = "sse"


class _Reader:
    """Reads the streaming responses of operations into IR messages."""

    def __init__(self, converter: SchemaConverter, resolver: RefResolver, diagnostics: Diagnostics) -> None:
        self.converter = converter
        self.resolver = resolver
        self.diagnostics = diagnostics
        self._active: set[tuple[str, str]] = set()

    def follow(self, node: Any, loc: Location) -> tuple[Any, Location] | None:
        """``node`` with any chain of ``$ref`` followed, and where it was found.

        None (with an error at the offending ``$ref``: ``ref-invalid``, ``ref-missing``,
        ``ref-remote``, ``ref-escape``, ``ref-circular``...) when a reference cannot be followed.
        """
        seen = [(loc.uri, loc.pointer)]
        while isinstance(node, dict) and "$ref" in node:
            ref = node["$ref"]
            rloc = loc.child("$ref")
            if not isinstance(ref, str):
                self.diagnostics.at(rloc.provenance, codes.REF_INVALID, f"$ref must be a string, got {json.dumps(ref)}")
                return None
            try:
                target = self.resolver.lookup(ref, loc.uri)
            except RefError as exc:
                self.diagnostics.at(rloc.provenance, exc.code, str(exc))
                return None
            place = (target.uri, target.pointer)
            if place in seen:
                self.diagnostics.at(rloc.provenance, codes.REF_CIRCULAR, f"$ref {ref!r} is circular")
                return None
            seen.append(place)
            node, loc = target.contents, Location(target.document, target.pointer, target.uri)
        return node, loc

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
        ones are named after the operation (``operationId``, else the path) + ``Event``."""
        media, mloc, response = stream.media, stream.loc, stream.response
        hint = str(ClassName((pascal(_text(op.get("operationId"))) or pascal(path)) + "Event", prefix="Message"))
        if stream.framing == "ndjson":
            key = "itemSchema" if "itemSchema" in media else stream.schema_key
            if key not in media:
                self.diagnostics.at(mloc.provenance, codes.MESSAGE_NO_PAYLOAD, "the stream has no schema")
                return []
            return self.data_messages(media[key], mloc.child(key), hint, "message")
        if "itemSchema" in media:
            messages = self.event_messages(media["itemSchema"], mloc.child("itemSchema"), hint)
        elif stream.schema_key in media:
            key = stream.schema_key
            resolved = self.follow(media[key], mloc.child(key))
            if resolved is None:
                return []
            if _is_event_object(resolved[0]):
                self.diagnostics.at(
                    resolved[1].provenance,
                    codes.OPENAPI_EVENT_SCHEMA,
                    "the `text/event-stream` schema describes the SSE event (data, event, id, retry); "
                    "read as an itemSchema, its `data` is the payload",
                )
                messages = self.event_messages(media[key], mloc.child(key), hint)
            else:
                messages = self.data_messages(media[key], mloc.child(key), hint, "message")
        else:
            self.diagnostics.at(mloc.provenance, codes.MESSAGE_NO_PAYLOAD, "the event stream has no schema")
            return []
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
        if not any(m.kind == "terminator" for m in messages):
            said = _done_stated(response, media, op, mloc) or self.request_says_done(op, oloc)
            if said is not None:
                self.diagnostics.at(
                    said.provenance,
                    codes.OPENAPI_TERMINATOR_DESCRIBED,
                    "the stream is said to end with `data: [DONE]`; it is read as the terminator",
                )
                literal = Schema("string", said.provenance, name="StreamDone", enum=(DONE,))
                messages.append(
                    Message("StreamDone", "terminator", literal, said.provenance, content_type="text/plain")
                )
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
            if _is_json(media_type) and isinstance(media, dict) and "schema" in media:
                found = self._says_done(media["schema"], body[1].child("content", media_type, "schema"), False)
                if found is not None:
                    return found
        return None

    def _says_done(self, node: Any, loc: Location, inside: bool, depth: int = 0) -> Location | None:
        """The first description saying ``data: [DONE]`` in ``node`` (its own, when ``inside`` a
        ``stream*`` member), its members' or its ``allOf``/``anyOf``/``oneOf`` parts'."""
        resolved = self.follow(node, loc) if depth < 6 else None
        if resolved is None or not isinstance(resolved[0], dict):
            return None
        target, tloc = resolved
        text = target.get("description")
        if inside and isinstance(text, str) and f"data: {DONE}" in " ".join(text.split()):
            return tloc.child("description")
        properties = target.get("properties")
        for member, schema in properties.items() if isinstance(properties, dict) else ():
            if isinstance(member, str) and (inside or member.startswith("stream")):
                found = self._says_done(schema, tloc.child("properties", member), True, depth + 1)
                if found is not None:
                    return found
        for key in ("allOf", "anyOf", "oneOf"):  # 3.1's nullable object is anyOf [object, null]
            parts = target.get(key)
            for i, part in enumerate(parts if isinstance(parts, list) else []):
                found = self._says_done(part, tloc.child(key, i), inside, depth + 1)
                if found is not None:
                    return found
        return None

    def _enter(self, tloc: Location) -> bool:
        """Mark ``tloc`` as being read; False (with ``ref-circular``) when it already is, so an
        event or data schema that refers back to itself through ``oneOf``/``contentSchema``
        ends instead of recursing forever."""
        place = (tloc.uri, tloc.pointer)
        if place in self._active:
            self.diagnostics.at(
                tloc.provenance, codes.REF_CIRCULAR, "this event schema refers back to itself; the cycle is cut here"
            )
            return False
        self._active.add(place)
        return True

    def event_messages(self, node: Any, loc: Location, hint: str) -> list[Message]:
        """Messages of an SSE event object schema (3.2 ``itemSchema``), or of a ``oneOf``/``anyOf`` of them.

        Each event value of ``event`` (``const``, or every string of its ``enum``) gives the
        message's SSE event type; with none, the event type is ``message``. An object without
        ``data`` is ``openapi-item-no-data`` and its events accept any JSON.
        """
        resolved = self.follow(node, loc)
        if resolved is None or not isinstance(resolved[0], dict) or not self._enter(resolved[1]):
            return []
        try:
            return self._event_object(resolved[0], resolved[1], loc, hint)
        finally:
            self._active.discard((resolved[1].uri, resolved[1].pointer))

    def _event_object(self, target: dict[str, Any], tloc: Location, loc: Location, hint: str) -> list[Message]:
        """:meth:`event_messages` of the event schema ``target`` found at ``tloc`` (used at ``loc``)."""
        name = _component_name(tloc, loc) or _title_name(target) or hint
        for key in ("oneOf", "anyOf"):
            branches = target.get(key)
            if isinstance(branches, list) and "properties" not in target:
                return [
                    m for i, b in enumerate(branches) for m in self.event_messages(b, tloc.child(key, i), f"{name}{i}")
                ]
        props = target.get("properties")
        if not isinstance(props, dict) or "data" not in props:
            self.diagnostics.at(
                tloc.provenance,
                codes.OPENAPI_ITEM_NO_DATA,
                "the SSE event schema has no `data` member; its events accept any JSON",
            )
            return [Message(name, "data", Schema("any", tloc.provenance), tloc.provenance)]
        events = _event_names(self.follow(props.get("event"), tloc.child("properties", "event")))
        own = _component_name(tloc, loc) or _title_name(target)
        dloc = tloc.child("properties", "data")
        found = self.data_messages(props["data"], dloc, name, events[0] if len(events) == 1 else "message", bool(own))
        if len(events) == 1:
            # A named event object names its message (as an AsyncAPI message key does).
            return [replace(found[0], name=own)] if own and len(found) == 1 else found
        # Several event types: a data branch whose tag member (`type: speech.audio.delta`)
        # names one of them is sent with that event type (Mistral's `SpeechStreamEvents`,
        # `mistral/openapi.yaml`); the others are sent with each event type left.
        paired = [_on_event(m, tag, m.name) for m in found if (tag := _tag(m.payload, events))]
        rest = [m for m in found if not _tag(m.payload, events)]
        left = [e for e in events if e not in {m.event for m in paired}] or events
        copies = [_on_event(m, e, (own if own and len(rest) == 1 else m.name) + pascal(e)) for e in left for m in rest]
        return paired + copies

    def data_messages(self, node: Any, loc: Location, hint: str, event: str, named: bool = False) -> list[Message]:
        """Messages of the schema of an event's ``data``.

        A ``oneOf``/``anyOf`` whose branches are all objects or literal strings gives one
        message per branch; ``contentMediaType: application/json`` reads ``contentSchema``
        (any other media type is ``openapi-content-not-json``, read as text); a string with
        one value (``const: '[DONE]'``) is a ``literal-payload`` terminator.
        """
        resolved = self.follow(node, loc)
        if resolved is None or not self._enter(resolved[1]):
            return []
        try:
            return self._data(node, loc, resolved[0], resolved[1], hint, event, named)
        finally:
            self._active.discard((resolved[1].uri, resolved[1].pointer))

    def _data(
        self, node: Any, loc: Location, target: Any, tloc: Location, hint: str, event: str, named: bool
    ) -> list[Message]:
        """:meth:`data_messages` of ``node`` (at ``loc``), found at ``tloc`` as ``target``."""
        name = _component_name(tloc, loc) or _title_name(target) or hint
        if isinstance(target, dict) and _literal(target) == DONE and name == hint and not named:
            name = "StreamDone"
        if isinstance(target, dict):
            media_type = target.get("contentMediaType")
            if media_type is not None:
                if _is_json(media_type):
                    if "contentSchema" not in target:
                        return [self._message(True, tloc, name, event, target)]
                    return self.data_messages(
                        target["contentSchema"], tloc.child("contentSchema"), name, event, named=named
                    )
                self.diagnostics.at(
                    tloc.child("contentMediaType").provenance,
                    codes.OPENAPI_CONTENT_NOT_JSON,
                    f"`data` has contentMediaType {json.dumps(media_type)}, not JSON; read as text, not decoded",
                )
                text = {k: v for k, v in target.items() if k not in ("contentMediaType", "contentSchema")}
                return [self._message(text, tloc, name, event, target)]
            for key in ("oneOf", "anyOf"):
                branches = target.get(key)
                if isinstance(branches, list) and branches and all(self._splittable(b, tloc) for b in branches):
                    return [
                        m
                        for i, branch in enumerate(branches)
                        if not _is_null(branch)
                        for m in self.data_messages(branch, tloc.child(key, i), f"{name}{i}", event)
                    ]
        return [self._message(node, loc, name, event, target)]

    def _splittable(self, branch: Any, loc: Location) -> bool:
        """A ``oneOf`` branch that is an event of its own: an object, a literal string, or ``null``."""
        if _is_null(branch):
            return True
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            try:
                branch = self.resolver.lookup(branch["$ref"], loc.uri).contents
            except RefError:
                return False
        if not isinstance(branch, dict):
            return False
        if branch.get("type") == "object" or isinstance(branch.get("properties"), dict) or "allOf" in branch:
            return True
        return _literal(branch) is not None or "contentMediaType" in branch

    def _message(self, node: Any, loc: Location, name: str, event: str, target: Any) -> Message:
        """One message whose payload is the schema ``node`` (at ``loc``)."""
        payload, description = self.converter.convert(node, loc, name)
        # An `event: error` frame is a mid-stream error, as on the documentation pages
        # (`specs/xerotier/streaming-api.md`): the accumulator records it as the stream's error.
        kind: MessageKind = "error" if event == "error" else "data"
        content_type = "application/json"
        if payload.type == "string" and len(payload.enum) == 1:
            kind, content_type = "terminator", "text/plain"
            self.diagnostics.at(
                loc.provenance,
                codes.LITERAL_PAYLOAD,
                f"payload is the literal {payload.enum[0]!r}, not JSON: decoded as the stream terminator",
            )
        title = _text(target.get("title")) if isinstance(target, dict) else ""
        return Message(
            name=name,
            kind=kind,
            payload=payload,
            provenance=payload.provenance if node is not True else loc.provenance,
            title=title,
            description=description,
            content_type=content_type,
            event=event,
        )

    def unique(self, old: tuple[Message, ...], new: list[Message]) -> tuple[Message, ...]:
        """``old`` then ``new`` without repeats (see :func:`~ssegen.sources.base.unique_messages`)."""
        return unique_messages(old, new, self.diagnostics)


def _is_event_object(node: Any) -> bool:
    """A schema of the SSE event itself: object members only among ``data``/``event``/``id``/``retry``, ``data`` one."""
    if not isinstance(node, dict):
        return False
    props = node.get("properties")
    return isinstance(props, dict) and "data" in props and set(props) <= SSE_FIELDS


def _event_names(resolved: tuple[Any, Location] | None) -> list[str]:
    """The SSE event types an ``event`` member admits: its ``const``, or its ``enum``'s strings;
    ``["message"]`` (the WHATWG default) when it names none."""
    node = resolved[0] if resolved is not None else None
    if isinstance(node, dict):
        if isinstance(node.get("const"), str):
            return [node["const"]]
        values = node.get("enum")
        if isinstance(values, list):
            names = list(dict.fromkeys(v for v in values if isinstance(v, str)))
            if names:
                return names
    return ["message"]


def _tag(payload: Schema, events: list[str]) -> str | None:
    """The event type a payload names in a one-value string member (its tag), if it is one of ``events``."""
    for prop in payload.properties:
        if prop.schema.type == "string" and len(prop.schema.enum) == 1 and prop.schema.enum[0] in events:
            return str(prop.schema.enum[0])
    return None


def _on_event(message: Message, event: str, name: str) -> Message:
    """``message`` sent with SSE event type ``event`` (an ``error`` event is an error message)."""
    kind: MessageKind = "error" if event == "error" and message.kind == "data" else message.kind
    return replace(message, event=event, name=name, kind=kind)


def _literal(node: dict[str, Any]) -> str | None:
    """The one string a schema admits (``const``, or an ``enum`` of one string), else None."""
    if isinstance(node.get("const"), str):
        return str(node["const"])
    values = node.get("enum")
    if isinstance(values, list) and len(values) == 1 and isinstance(values[0], str):
        return values[0]
    return None


def _is_null(node: Any) -> bool:
    return isinstance(node, dict) and (node.get("type") == "null" or node.get("enum") == [None])


def _is_json(media_type: Any) -> bool:
    """``application/json`` or a ``+json`` type (RFC 6839), parameters ignored."""
    if not isinstance(media_type, str):
        return False
    base = media_type.split(";", 1)[0].strip().lower()
    return base == "application/json" or base.endswith("+json")


def _component_name(target: Location, use: Location) -> str:
    """The class name of a ``$ref`` target (its last pointer token), when ``target`` is not the use site."""
    if (target.uri, target.pointer) == (use.uri, use.pointer) or not target.pointer:
        return ""
    token = target.pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~")
    return str(ClassName(token)) if pascal(token) else ""


def _title_name(node: Any) -> str:
    title = _text(node.get("title")) if isinstance(node, dict) else ""
    return str(ClassName(title)) if pascal(title) else ""


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
