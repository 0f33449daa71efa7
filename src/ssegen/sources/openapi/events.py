"""Messages of the schemas a streamed OpenAPI response declares: an SSE event object (OpenAPI
3.2 ``itemSchema``, "Special Considerations for Server-Sent Events": ``data``, ``event``,
``id``, ``retry``) or the schema of each event's ``data`` (3.0/3.1 ``schema``), ``oneOf``/
``anyOf`` branches one message each (see :mod:`.loader`'s docstring)."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Example, Message, MessageKind, Schema
from ...naming import ClassName, pascal
from ..base import unique_messages
from ..location import Location
from ..refs import RefError, RefResolver
from ..schema import SchemaConverter

#: The members of an SSE event object (WHATWG HTML "Server-sent events" fields).
SSE_FIELDS = frozenset({"data", "event", "id", "retry"})

#: The terminator literal of OpenAI-style streams.
DONE = "[DONE]"


class EventSchemaReader:
    """Reads SSE event object schemas and ``data`` schemas into IR messages, following ``$ref``
    and cutting schemas that refer back to themselves.

    Args:
        converter: converts each payload schema.
        resolver: follows ``$ref`` strings (local and relative-file only).
        diagnostics: receives infos, warnings and errors, each with file, line and pointer.
    """

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
        """:meth:`event_messages` of the event schema ``target`` found at ``tloc`` (used at ``loc``):
        a ``oneOf``/``anyOf`` of event objects (without ``properties`` of its own) gives its
        branches' messages; an object gives the messages of its ``data`` on each event type its
        ``event`` admits (:func:`_event_names`, :func:`_spread_over_events`)."""
        name = _component_name(tloc, loc) or _title_name(target) or hint
        branches = _event_branches(target)
        if branches is not None:
            key, parts = branches
            return [m for i, b in enumerate(parts) for m in self.event_messages(b, tloc.child(key, i), f"{name}{i}")]
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
        return _spread_over_events(found, events, own)

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
        """:meth:`data_messages` of ``node`` (at ``loc``), found at ``tloc`` as ``target``: a
        ``contentMediaType`` (:meth:`_content`), a ``oneOf``/``anyOf`` of events
        (:meth:`_branches`), else one message. An unnamed ``[DONE]`` literal is ``StreamDone``."""
        name = _component_name(tloc, loc) or _title_name(target) or hint
        if not isinstance(target, dict):
            return [self._message(node, loc, name, event, target)]
        if _literal(target) == DONE and name == hint and not named:
            name = "StreamDone"
        if target.get("contentMediaType") is not None:
            return self._content(target, tloc, name, event, named)
        branches = self._branches(target, tloc, name, event)
        if branches is not None:
            return branches
        message = self._message(node, loc, name, event, target)
        return [replace(message, examples=self._examples(target, tloc, message))]

    def _examples(self, target: dict[str, Any], tloc: Location, message: Message) -> tuple[Example, ...]:
        """The examples the payload schema ``target`` (at ``tloc``) gives: JSON Schema 2020-12
        ``examples`` (a list, OpenAPI 3.1) and OpenAPI 3.0's ``example``, each an instance of the
        payload: compact JSON as a line or ``data`` carries it (a literal payload's string as it
        is). ``examples`` that is not a list is ``example-invalid``, ignored."""
        values: list[tuple[Any, Location]] = []
        if "example" in target:
            values.append((target["example"], tloc.child("example")))
        listed = target.get("examples")
        if isinstance(listed, list):
            values.extend((value, tloc.child("examples", i)) for i, value in enumerate(listed))
        elif listed is not None:
            self.diagnostics.at(
                tloc.child("examples").provenance, codes.EXAMPLE_INVALID, "examples must be a list; ignored"
            )
        if not values:
            built = self._from_properties(target, tloc, 0)
            if built is not None:
                values.append((built, tloc.child("properties")))
        literal = message.content_type != "application/json"
        return tuple(
            Example(
                name="",
                summary="",
                data=value
                if literal and isinstance(value, str)
                else json.dumps(value, ensure_ascii=False, separators=(",", ":")),
                provenance=vloc.provenance,
            )
            for value, vloc in values
        )

    def _from_properties(self, target: Any, tloc: Location, depth: int) -> dict[str, Any] | None:
        """An instance of the object schema ``target`` built from its members' own examples
        (``properties.<name>.example``, or the first of ``examples``; a required object
        member's built so, through ``$ref``, 4 levels deep): every member that gives one,
        when every required member does; else None."""
        props = target.get("properties") if isinstance(target, dict) else None
        if not isinstance(props, dict) or not props or depth > 4:
            return None
        listed = target.get("required")
        required = {r for r in listed if isinstance(r, str)} if isinstance(listed, list) else set()
        built: dict[str, Any] = {}
        for name, node in props.items():
            value = self._member_example(node, tloc.child("properties", name), depth, name in required)
            if value is None and name in required:
                return None
            if value is not None:
                built[str(name)] = value
        return built or None

    def _member_example(self, node: Any, loc: Location, depth: int, required: bool) -> Any:
        """The example of one member schema (see :meth:`_from_properties`); None without one."""
        resolved = self.follow(node, loc)
        if resolved is None:
            return None
        value = _own_example(resolved[0])
        if value is None and required:
            value = self._from_properties(resolved[0], resolved[1], depth + 1)
        return value

    def _content(self, target: dict[str, Any], tloc: Location, name: str, event: str, named: bool) -> list[Message]:
        """The messages of a ``data`` schema with ``contentMediaType`` (JSON Schema 2020-12
        "contentMediaType", "contentSchema"): JSON reads its ``contentSchema`` (any JSON without
        one); another media type is text, not decoded (``openapi-content-not-json``)."""
        media_type = target["contentMediaType"]
        if is_json(media_type):
            if "contentSchema" not in target:
                return [self._message(True, tloc, name, event, target)]
            return self.data_messages(target["contentSchema"], tloc.child("contentSchema"), name, event, named=named)
        self.diagnostics.at(
            tloc.child("contentMediaType").provenance,
            codes.OPENAPI_CONTENT_NOT_JSON,
            f"`data` has contentMediaType {json.dumps(media_type)}, not JSON; read as text, not decoded",
        )
        text = {k: v for k, v in target.items() if k not in ("contentMediaType", "contentSchema")}
        return [self._message(text, tloc, name, event, target)]

    def _branches(self, target: dict[str, Any], tloc: Location, name: str, event: str) -> list[Message] | None:
        """The messages of the first ``oneOf``/``anyOf`` of ``target`` whose branches are all
        events of their own (:meth:`_splittable`), one per non-null branch; None when none is."""
        for key in ("oneOf", "anyOf"):
            branches = target.get(key)
            if isinstance(branches, list) and branches and all(self._splittable(b, tloc) for b in branches):
                return [
                    m
                    for i, branch in enumerate(branches)
                    if not _is_null(branch)
                    for m in self.data_messages(branch, tloc.child(key, i), f"{name}{i}", event)
                ]
        return None

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


def is_event_object(node: Any) -> bool:
    """A schema of the SSE event itself: object members only among ``data``/``event``/``id``/``retry``, ``data`` one."""
    if not isinstance(node, dict):
        return False
    props = node.get("properties")
    return isinstance(props, dict) and "data" in props and set(props) <= SSE_FIELDS


def _event_branches(target: dict[str, Any]) -> tuple[str, list[Any]] | None:
    """``(key, branches)`` of an event schema that is a ``oneOf`` (else ``anyOf``) of event
    objects, without ``properties`` of its own; None otherwise."""
    for key in ("oneOf", "anyOf"):
        branches = target.get(key)
        if isinstance(branches, list) and "properties" not in target:
            return key, branches
    return None


def _spread_over_events(found: list[Message], events: list[str], own: str) -> list[Message]:
    """The ``data`` messages ``found`` of an event object whose ``event`` admits several
    ``events``: a message whose tag member (``type: speech.audio.delta``) names one of them is
    sent with that event type (Mistral's ``SpeechStreamEvents``, ``mistral/openapi.yaml``); the
    others are sent with each event type left, named after the event object (``own``) when it
    is named and they are one, else after themselves, plus the event type."""
    paired = [_on_event(m, tag, m.name) for m in found if (tag := _tag(m.payload, events))]
    rest = [m for m in found if not _tag(m.payload, events)]
    left = [e for e in events if e not in {m.event for m in paired}] or events
    base = own if own and len(rest) == 1 else ""
    return paired + [_on_event(m, e, (base or m.name) + pascal(e)) for e in left for m in rest]


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


def is_json(media_type: Any) -> bool:
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


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _own_example(schema: Any) -> Any:
    """A member schema's own example: ``example``, else the first of ``examples`` (a list), else
    the one value of a ``const`` or a one-value ``enum``; None when it gives none."""
    if not isinstance(schema, dict):
        return None
    if "example" in schema:
        return schema["example"]
    listed = schema.get("examples")
    if isinstance(listed, list) and listed:
        return listed[0]
    if "const" in schema:
        return schema["const"]
    values = schema.get("enum")
    return values[0] if isinstance(values, list) and len(values) == 1 else None
