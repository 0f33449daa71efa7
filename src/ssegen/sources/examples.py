"""What the scraped-page loaders share: example streams, page results, section slugs.

The two page loaders (:mod:`.markdown_page`, seed 003 Xerotier; :mod:`.html_page`,
seed 004 Siliconstorm/MindIE) read documentation pages, not specs.  Besides IR
messages they harvest the pages' example streams, which are the only place
some facts are stated (the choice ``index`` of Xerotier, the ``null``
``finish_reason`` of Siliconstorm).  This module holds:

* :class:`ExampleStream`: one example stream, normalized to real wire form
  (``data: ...\\n\\n`` per event, ``event: error\\ndata: ...\\n\\n``,
  ``: heartbeat\\n\\n``), with its place on the page;
* :class:`ErrorCode` and :class:`PageResult`: what a page loader returns;
* :class:`Slugs`: section slugs for the markdown pointer scheme (see below);
* what both loaders read from table cells the same way: :data:`TYPE_WORDS`,
  :data:`ALWAYS_VALUE` (one-value enums), :func:`is_conditional` (presence);
* :func:`schema_from_json` and :func:`refine_with_instances`: schemas from
  example JSON, and table-derived schemas checked against example instances;
* :func:`drop_repeated_streams`: duplicate and truncated copies of a stream.

Pointer scheme for pages (JSON pointers into a document that is not JSON):

================================================  ===============================
pointer                                           names
================================================  ===============================
``/sections/<slug>``                              a section (its title line)
``/sections/<slug>/lines/<n>``                    prose line ``n`` after the title
``/sections/<slug>/tables/<k>/rows/<n>``          body row ``n`` of table ``k``
``/sections/<slug>/examples/<k>``                 example stream ``k``
``/sections/<slug>/examples/<k>/events/<n>``      event ``n`` of that stream
``/lines/<n>``                                    line ``n`` before any section
================================================  ===============================

All indexes are 0-based; ``<slug>`` is the GitHub anchor of the section title
(lowercase, punctuation dropped, spaces to ``-``; a repeated slug gets ``-1``,
``-2``, ... in page order), so a pointer survives edits to other sections.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field, replace
from typing import Any, Collection, Generic, Sequence, TypeVar

from markdown_it import MarkdownIt

from ..diagnostics import Diagnostics, Severity
from ..ir import Channel, ErrorCode, Property, Provenance, Schema, SchemaType, StreamEvent, json_type
from ..ir import ExampleStream as IRExampleStream
from ..naming import pascal, singular
from .document import join_pointer


@dataclass(frozen=True)
class WireEvent:
    """One event of an :class:`ExampleStream`, as an SSE client sees it.

    Attributes:
        event: the SSE event type (``message`` unless an ``event:`` field says otherwise).
        data: the event's data ("" for a comment frame).
        comment: the comment text for a ``: comment`` frame, else "".
    """

    event: str
    data: str
    comment: str = ""


@dataclass(frozen=True)
class ExampleStream:
    """An example stream from a documentation page, as the frames written there.

    Attributes:
        name: the slug of the section it appears in (``refusal-streaming``,
            ``streaming-inference-1``); a second stream in one section gets ``-1``.
        frames: its frames in page order (annotation lines already removed).
        provenance: the first wire line of the stream on the page.
        full_text: the page says the stream was produced with MindIE's
            ``fullTextEnabled`` (each delta repeats the text so far), so it must
            be accumulated in full-text mode.
    """

    name: str
    frames: tuple[WireFrame, ...]
    provenance: Provenance
    full_text: bool = False

    @property
    def wire(self) -> bytes:
        """The stream as a server would send it (UTF-8, ``\\n`` line ends, one blank line after every frame)."""
        return frames_to_wire(self.frames)

    def _events(self) -> list[tuple[WireEvent, int]]:
        """Each event a client would see, with its page line.

        A comment frame is a comment event; a frame with ``data`` or ``event``
        fields is an event (data fields joined with LF, the last ``event`` wins);
        any other frame dispatches nothing.
        """
        events = []
        for frame in self.frames:
            if frame.fields and all(name == "" for name, _ in frame.fields):
                events.append((WireEvent("", "", "\n".join(v for _, v in frame.fields)), frame.line))
                continue
            data = [v for name, v in frame.fields if name == "data"]
            event = next((v for name, v in reversed(frame.fields) if name == "event"), "")
            if data or event:
                events.append((WireEvent(event or "message", "\n".join(data)), frame.line))
        return events

    def events(self) -> list[WireEvent]:
        """The events of the stream (comment frames included), in order."""
        return [event for event, _ in self._events()]

    @property
    def event_lines(self) -> tuple[int, ...]:
        """The 1-based page line of each event of :meth:`events` (same order)."""
        return tuple(line for _, line in self._events())

    def to_ir(self, channel: str) -> IRExampleStream:
        """This stream as an IR :class:`~ssegen.ir.ExampleStream` sent on ``channel``."""
        events = tuple(
            StreamEvent(
                data=e.data,
                event=e.event or "message",
                comment=e.comment if not e.event else None,  # comment frames have no event type
                line=self.event_provenance(i).line,
            )
            for i, e in enumerate(self.events())
        )
        return IRExampleStream(self.name, channel, events, self.provenance, self.full_text)

    def event_provenance(self, index: int) -> Provenance:
        """Where event ``index`` is written (pointer ``.../events/<index>``)."""
        line = self.event_lines[index] if 0 <= index < len(self.event_lines) else self.provenance.line
        return Provenance(self.provenance.file, line, f"{self.provenance.pointer}/events/{index}")


@dataclass
class PageSection:
    """A titled part of a documentation page.

    Attributes:
        title: the heading text ("" for the part before any heading).
        slug: its GitHub-style anchor, unique in the page (used in pointers).
        line: 0-based line of the heading (-1: before any heading).
    """

    title: str
    slug: str
    line: int


S = TypeVar("S", bound=PageSection)


class PageReader(Generic[S]):
    """What every documentation-page loader shares: the page's lines (any line end
    normalized to LF), its sections, and turning 0-based lines into places.

    Readers work with 0-based lines; provenance and diagnostics get 1-based lines
    (a line of -1 means "no line" and becomes 0).
    """

    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        self.file = file
        self.diagnostics = diagnostics
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = self.text.split("\n")
        self.sections: list[S] = []

    def _diag(self, code: str, severity: Severity, message: str, line: int, ptr: str) -> None:
        """Record a diagnostic at 0-based ``line`` (-1: no line)."""
        self.diagnostics.add(code, severity, message, file=self.file, line=line + 1 if line >= 0 else 0, pointer=ptr)

    def _prov(self, line: int, ptr: str) -> Provenance:
        """The provenance of 0-based ``line`` (-1: no line) at pointer ``ptr``."""
        return Provenance(self.file, line + 1 if line >= 0 else 0, ptr)

    def _section_at(self, line: int) -> S:
        """The section that 0-based ``line`` belongs to (sections are in page order)."""
        current = self.sections[0]
        for section in self.sections:
            if section.line <= line:
                current = section
            else:
                break
        return current


@dataclass
class PageResult:
    """What one documentation page contributes.

    Attributes:
        channel: the ``/chat/completions`` channel (None when the page describes no stream).
        example_streams: harvested example streams, in page order, without repeats.
        error_codes: documented error codes, in page order.
        title: the page title ("" if none).
    """

    channel: Channel | None
    example_streams: list[ExampleStream] = field(default_factory=list)
    error_codes: list[ErrorCode] = field(default_factory=list)
    title: str = ""


# -- wire form ---------------------------------------------------------------------


@dataclass(frozen=True)
class WireFrame:
    """One frame as written on a page: SSE fields (or a comment) and its line.

    ``fields`` are ``(name, value)`` pairs in order; a comment frame has the one
    pair ``("", text)``.
    """

    fields: tuple[tuple[str, str], ...]
    line: int


def frames_to_wire(frames: Sequence[WireFrame]) -> bytes:
    """The normalized wire bytes of ``frames``: one blank line after each."""
    out: list[str] = []
    for frame in frames:
        for name, value in frame.fields:
            out.append(f":{' ' + value if value else ''}\n" if name == "" else f"{name}: {value}\n")
        out.append("\n")
    return "".join(out).encode("utf-8")


def drop_repeated_streams(streams: Sequence[ExampleStream], diagnostics: Diagnostics, file: str) -> list[ExampleStream]:
    """``streams`` without the ones that repeat an earlier stream.

    A stream whose events equal an earlier stream's (Siliconstorm's page holds
    two translations of one doc, so every example appears twice) is dropped with
    ``example-stream-duplicate`` (info); one whose events are a strict prefix of
    an earlier stream's (a truncated copy) is dropped with
    ``example-stream-truncated`` (warning): it shows nothing the full copy
    does not.  Order is kept.
    """
    kept: list[tuple[ExampleStream, list[WireEvent]]] = []
    for stream in streams:
        events = stream.events()
        code = ""
        for earlier, earlier_events in kept:
            if events == earlier_events:
                code, other = "example-stream-duplicate", earlier
                break
            if len(events) < len(earlier_events) and earlier_events[: len(events)] == events:
                code, other = "example-stream-truncated", earlier
                break
        if not code:
            kept.append((stream, events))
            continue
        prov = stream.provenance
        if code == "example-stream-duplicate":
            diagnostics.add(
                code,
                Severity.INFO,
                f"example stream {stream.name!r} repeats {other.name!r} (line {other.provenance.line}) event for event; dropped",
                file=file,
                line=prov.line,
                pointer=prov.pointer,
            )
        else:
            diagnostics.add(
                code,
                Severity.WARNING,
                f"example stream {stream.name!r} is a truncated copy of {other.name!r} (line {other.provenance.line}): "
                f"its {len(events)} events are the first of {len(earlier_events)}; dropped",
                file=file,
                line=prov.line,
                pointer=prov.pointer,
            )
    return [s for s, _ in kept]


# -- section slugs -----------------------------------------------------------------------


#: Longest slug: slugs name example fixture files (``examples/<slug>.sse``), and a
#: file name must stay well under the 255 bytes file systems allow.
MAX_SLUG = 64


def slug(title: str) -> str:
    """GitHub-style anchor of a heading (``Research Events (x_research.*)`` -> ``research-events-x_research``).

    Only word characters and ``-`` remain (no ``/``, ``.`` or ``\\``), so a slug is
    always a safe file name; a long one is cut to :data:`MAX_SLUG` characters.
    """
    text = unicodedata.normalize("NFKC", title).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    text = re.sub(r" ", "-", text)
    if len(text) > MAX_SLUG:
        text = text[:MAX_SLUG].rstrip("-")
    return text or "section"


class Slugs:
    """Hands out unique section slugs in page order (``wire-format``, ``wire-format-1``)."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def unique(self, title: str) -> str:
        """The slug for the next section titled ``title``."""
        base = slug(title)
        count = self._seen.get(base)
        if count is None:
            self._seen[base] = 0
            return base
        count += 1
        while f"{base}-{count}" in self._seen:
            count += 1
        self._seen[base] = count
        self._seen[f"{base}-{count}"] = 0
        return f"{base}-{count}"


def pointer(*tokens: str | int) -> str:
    """A pointer built from ``tokens`` (each escaped per RFC 6901)."""
    return join_pointer("", *tokens)


#: The channel every streaming page describes.
CHANNEL_ADDRESS = "/chat/completions"

#: The markdown parser of the page loaders (CommonMark with GFM tables).
MARKDOWN = MarkdownIt("commonmark").enable("table")

#: A field line of a wire example: ``data: {...}``, ``event: error``, ``id: 7``, ``retry: 10``.
WIRE_FIELD = re.compile(r"^(data|event|id|retry):\s?(.*)$")


# -- reading table cells -------------------------------------------------------------

#: A description that states the only value: ``Always "chat.completion.chunk".``
#: (Xerotier), ``Currently returns "chat.completion.chunk".`` (Siliconstorm).
ALWAYS_VALUE = re.compile(r'\b(?:always(?: returns)?|currently(?: always)? returns)\s+"([^"]+)"', re.IGNORECASE)

#: A description that makes a member conditional (not required): "Present only in
#: the final chunk", "only returned when ...", "(optional ...)" at the start.
CONDITIONAL_PRESENCE = re.compile(
    r"^\W*optional\b|\b(present only|only present|present when|only (?:returned|available|sent)|"
    r"(?:returned|available|sent) only|when known)\b",
    re.IGNORECASE,
)

#: Type words of documentation tables -> JSON Schema types (``null`` marks nullability).
TYPE_WORDS: dict[str, SchemaType] = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "int32": "integer",
    "int64": "integer",
    "uint64": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
    "dict": "object",
    "array": "array",
    "list": "array",
    "any": "any",
    "null": "null",
}


def is_conditional(description: str) -> bool:
    """True when ``description`` says the member is not always sent (see :data:`CONDITIONAL_PRESENCE`)."""
    if re.search(r"\balways present\b", description, re.IGNORECASE):
        return False
    return bool(CONDITIONAL_PRESENCE.search(description))


# -- schemas from JSON examples --------------------------------------------------------




def schema_from_json(
    value: Any,
    name: str,
    provenance: Provenance,
    *,
    required: bool = False,
    member_provenance: dict[str, Provenance] | None = None,
) -> Schema:
    """A schema for one example JSON value (objects named ``name`` + member path).

    Members are optional unless ``required`` (one example does not show which
    members are always sent); a ``null`` value gives a nullable ``any`` (its type
    is not shown); an array takes its item schema from its first element.
    ``member_provenance`` gives the line of top-level members when known.
    """
    kind = json_type(value)
    if kind == "null":
        return Schema("any", provenance, nullable=True)
    if kind == "object":
        props = []
        for key, member in value.items():
            prov = (member_provenance or {}).get(key, provenance)
            child = schema_from_json(member, name + (pascal(key) or "Member"), prov, required=required)
            props.append(Property(key, child, required, "", prov))
        return Schema("object", provenance, name=name, properties=tuple(props))
    if kind == "array":
        items = schema_from_json(value[0], singular(name), provenance, required=required) if value else None
        return Schema("array", provenance, items=items)
    return Schema(kind, provenance)


# -- checking schemas against example instances ------------------------------------------

_COMPATIBLE: dict[str, tuple[str, ...]] = {
    "string": ("string",),
    "integer": ("integer",),
    "number": ("number", "integer"),
    "boolean": ("boolean",),
    "object": ("object",),
    "array": ("array",),
}


def refine_with_instances(
    schema: Schema,
    instances: Sequence[tuple[Any, Provenance]],
    diagnostics: Diagnostics,
    *,
    add_members: Collection[str] = (),
) -> Schema:
    """``schema`` corrected by what example instances of it show.

    A schema built from a table states types but rarely presence; the page's
    example streams show it.  For every object member (recursively, through
    array items):

    * required, but absent from an instance -> not required (``required-relaxed``, info);
    * an instance member the schema does not list -> reported (``example-member-undocumented``, info),
      or, for an object named in ``add_members`` (one the page describes only
      in prose) and present in every instance, added as a required member
      typed from the instances (``member-from-example``, info).

    Objects without documented members (``usage: object``) are left alone.
    Values that contradict the schema (``null``, another type, a new enum value)
    are not handled here but by the provider-wide merge step
    :func:`ssegen.reconcile.reconcile_examples`, for every source alike.
    Deterministic: members are visited in schema order, instances in page order.
    """
    return _refine(schema, list(instances), diagnostics, frozenset(add_members), set())


def _refine(
    schema: Schema,
    instances: list[tuple[Any, Provenance]],
    diagnostics: Diagnostics,
    add_members: frozenset[str],
    reported: set[tuple[str, str, str]],
) -> Schema:
    present = [(v, p) for v, p in instances if v is not None]
    if not present:
        return schema
    if schema.type == "array":
        if schema.items is None:
            return schema
        elements = [(e, p) for v, p in present if isinstance(v, list) for e in v]
        return replace(schema, items=_refine(schema.items, elements, diagnostics, add_members, reported))
    if schema.type != "object" or not schema.properties:
        return schema
    objects = [(v, p) for v, p in present if isinstance(v, dict)]
    if not objects:
        return schema
    props: list[Property] = []
    for prop in schema.properties:
        absent = [p for v, p in objects if prop.name not in v]
        values = [(v[prop.name], p) for v, p in objects if prop.name in v]
        new_schema = prop.schema
        required = prop.required
        where = prop.provenance
        if required and absent:
            required = False
            diagnostics.at(
                where,
                "required-relaxed",
                Severity.INFO,
                f"member {prop.name!r} of {schema.name or 'object'} is absent from the example at line {absent[0].line}; not required",
            )
        new_schema = _refine(new_schema, values, diagnostics, add_members, reported)
        props.append(replace(prop, schema=new_schema, required=required))
    known = {p.name for p in schema.properties}
    extra: list[str] = []
    for value, _ in objects:
        for key in value:
            if key not in known and key not in extra:
                extra.append(key)
    for key in extra:
        holders = [(v, p) for v, p in objects if key in v]
        first = holders[0][1]
        if schema.name in add_members and len(holders) == len(objects):
            sample = next((v[key] for v, _ in holders if v[key] is not None), None)
            member = schema_from_json(sample, schema.name + (pascal(key) or "Member"), first)
            if any(v[key] is None for v, _ in holders):
                member = replace(member, nullable=True)
            props.append(Property(key, member, True, "", first))
            diagnostics.at(
                first,
                "member-from-example",
                Severity.INFO,
                f"member {key!r} of {schema.name or 'object'} is not documented but is in every example ({len(holders)}); added as a required {member.type}",
            )
            continue
        rkey = ("extra", schema.provenance.pointer + "/" + schema.name, key)
        if rkey in reported:
            continue
        reported.add(rkey)
        diagnostics.at(
            first,
            "example-member-undocumented",
            Severity.INFO,
            f"the example at line {first.line} has member {key!r}, which {schema.name or 'the object'} does not document",
        )
    return replace(schema, properties=tuple(props))


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text (the wire form of an example payload)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
