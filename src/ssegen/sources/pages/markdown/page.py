"""A scraped markdown streaming-API page (``specs/xerotier/streaming-api.md``) -> IR.

The markup is read by :mod:`.blocks` (markdown-it-py plus the scrape's
repairs), its section titles and wire runs by :mod:`.runs`, the tables' rows
become properties by :mod:`..fields`, example streams are read by :mod:`..wire`,
and the page's wording by :mod:`.prose`; :mod:`.vendor` and :mod:`.errors` build
the vendor events and the error message.  This module puts them together; what the page yields (names built from the
page, never counters):

* ``ChatCompletionChunk`` (kind ``data``) from the table after "Chunk Structure"
  (``specs/xerotier/streaming-api.md:17``); the class name comes from its
  ``object`` row (``Always "chat.completion.chunk"``).  The choice object
  (``ChatCompletionChunkChoice``) is named only in prose: its members come from
  that prose, their schemas from the tables of the sections named after them
  (Delta Object, finish_reason Values) or from a table of dotted names rooted
  at them (``logprobs.content``); ``index`` is in every example choice and is
  added from the examples.  Requiredness is "stated unless the description
  says conditional presence", then relaxed where an example stream omits the
  member (:func:`..instances.refine_with_instances`).
* one ``vendor`` message per ``x_*`` event type (table rows, and prose-only
  sections titled ``... (x_name)`` with a ``Fields:`` line or a JSON example),
  named by :class:`~ssegen.naming.ClassName` of the type
  (``x_research.searching`` -> ``XResearchSearching``); payload ``type`` is a
  required one-value string enum, the other fields come from the prose
  (:func:`.prose.field_property`).  Members known only from a JSON example
  (``x_chat.metadata``) are optional: one example does not show which are
  always sent.
* ``StreamError`` (kind ``error``, SSE event ``error``) from the Mid-Stream
  Errors example and the Error Types table (``specs/xerotier/streaming-api.md:279``);
  the error ``type`` is an enum of the table's types, the ``code`` is a plain
  string whose description lists the documented codes (the table says
  ``varies`` for ``server_error``, so the set is open).
* ``StreamDone`` (kind ``terminator``), the literal ``[DONE]``.

Example streams are harvested from every run of ``data:``/``event:``/comment
lines: ``# comment`` lines next to them are annotations (markdown-it makes
them headings) and are dropped; one-line format samples (``data: {...,...}\\n\\n``)
are notation, not example streams [``wire-format-sample``]; prose that starts
a line with ``data:`` ("data: lines within the stream") is not wire: a
``data:`` value must be JSON, ``[DONE]`` or one token.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from ....diagnostics import Code, Diagnostics, codes
from ....ir import ErrorCode, Example, Message, Property, Provenance, Schema, SchemaType
from ....naming import ClassName, pascal, singular
from ..cells import is_type_cell
from ..fields import FieldRow, dotted_rows, field_property, member_name
from ..instances import instances, refine_with_instances, schema_from_json
from ..messages import (
    PageResult,
    channel_provenance,
    chunk_name,
    chunk_object,
    done_message,
    page_channel,
    unique_messages,
)
from ..request import page_request
from ..sections import PageText, Slugs, pointer
from ..wire import (
    MAX_JSON_LINES,
    PageStream,
    compact_json,
    drop_repeated_streams,
    json_or_none,
)
from . import prose
from .blocks import (
    Block,
    Row,
    block_kinds,
    has_pipe_table,
    headerless_rows,
    parse_blocks,
    table_cells,
    table_rows,
)
from .errors import ErrorTable, first_error_event, read_error_table, with_documented_error
from .runs import Run, Section, WireLines, find_runs_and_sections
from .vendor import learn_field_types, refine_with_streams, vendor_fields, with_type


def looks_like_markdown_streaming_page(text: str) -> bool:
    """True when ``text`` is a markdown page documenting an SSE stream (like ``specs/xerotier/streaming-api.md``).

    Content detection: a GFM pipe table (a delimiter row such as ``|---|---|``),
    at least one line starting with ``data: {`` or ``data: [``, and none of the
    marks of other formats (an HTML ``<table>``, an AsyncAPI ``asyncapi:`` key,
    a scraped AsyncAPI page's ``Raw ↑`` marker).  Never raises.
    """
    if re.search(r"<table\b", text, re.IGNORECASE):
        return False
    if re.search(r"^\s*[\"']?asyncapi[\"']?\s*:", text, re.MULTILINE) or re.search(r"^Raw ↑\s*$", text, re.MULTILINE):
        return False
    if not re.search(r"^data:\s*[\[{]", text, re.MULTILINE):
        return False
    return has_pipe_table(text)


def load_markdown_page(text: str, file: str, diagnostics: Diagnostics) -> PageResult:
    """Read a markdown streaming page (``specs/xerotier/streaming-api.md``) into IR parts.

    Args:
        text: the page text (markdown as scraped; ``\\r\\n`` is accepted).
        file: its path relative to the specs folder, for provenance.
        diagnostics: receives one diagnostic per quirk fixed or problem found,
            each with the 1-based line and a pointer (scheme in :mod:`ssegen.sources.pages`).

    Returns:
        A :class:`~..messages.PageResult`: the ``/chat/completions`` channel with
        ``ChatCompletionChunk``, the ``x_*`` vendor messages, ``StreamError`` and
        ``StreamDone`` (each only if the page documents it); the harvested example
        streams; the Error Types table's codes as :class:`~ssegen.ir.ErrorCode`;
        the page title.  The channel is None (with an error diagnostic
        ``chunk-table-missing``) when the page has no chunk table.  Never raises
        for bad input.
    """
    return _MarkdownPage(text, file, diagnostics).load()


@dataclass
class _Table:
    header: tuple[str, ...]
    rows: list[Row]
    start: int  # header line
    section: Section
    index: int  # among the section's tables
    used: bool = False

    def column(self, *names: str) -> int | None:
        """Index of the first header cell named one of ``names`` (case-insensitive)."""
        lowered = [h.strip().lower() for h in self.header]
        for name in names:
            if name in lowered:
                return lowered.index(name)
        return None

    def cell(self, row: Row, *names: str) -> str:
        """The cell of ``row`` under the column named one of ``names`` ("" if none)."""
        col = self.column(*names)
        return row.cells[col] if col is not None and col < len(row.cells) else ""


@dataclass(frozen=True)
class _Sample:
    """A one-line wire-format sample whose payload is a typed JSON object (an example of that type)."""

    type: str
    title: str
    data: str
    provenance: Provenance


#: A vendor event to read: its type, its description, where it is documented, and its JSON
#: example ``(value, line, member provenance)`` when the event is known from one.
_VendorEntry = tuple[str, str, Provenance, tuple[Any, int, dict[str, Provenance]] | None]


def _row_name(row: Row) -> str:
    return row.cells[0].strip().strip("`") if row.cells else ""


class _MarkdownPage:
    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        self.page: PageText[Section] = PageText(text, file, diagnostics)
        self.diagnostics = diagnostics
        self.blocks: list[Block] = []
        self.kinds: dict[int, str] = {}  # block type of every line inside a block
        self.unterminated: list[tuple[int, int]] = []
        self.tables: list[_Table] = []
        self.runs: list[Run] = []
        self.wire = WireLines(self.page, self.blocks, self.kinds)  # of the parsed blocks once load() runs
        self.field_types: dict[str, SchemaType] = {}

    # -- orchestration --------------------------------------------------------------

    def load(self) -> PageResult:
        self.blocks, self.unterminated = parse_blocks(self.page)
        self.kinds = block_kinds(self.blocks, self.page.count)
        self.wire = WireLines(self.page, self.blocks, self.kinds)
        self.runs = find_runs_and_sections(self.page, self.wire)
        self._read_tables()
        streams, samples = self._streams()
        title = next((s.title for s in self.page.sections if s.line > 0), "")
        chunk = self._chunk_message(streams)
        messages: list[Message] = []
        if chunk is None:
            self.page.report(
                codes.CHUNK_TABLE_MISSING,
                "no Field/Type/Description table with a `choices` row: the page documents no chunk",
                1,
                "",
            )
        else:
            messages.append(chunk)
        messages.extend(self._vendor_messages(streams, samples))
        error_message, error_codes = self._error_message(streams)
        if error_message is not None:
            messages.append(error_message)
        done = self._done_message()
        if done is not None:
            messages.append(done)
        for table in self.tables:
            if not table.used:
                self.page.report(
                    codes.TABLE_UNUSED,
                    f"table ({' | '.join(table.header)}) in section {table.section.title!r} "
                    "describes nothing ssegen decodes; ignored",
                    table.start,
                    self._table_pointer(table),
                )
        channel = None
        if chunk is not None:
            messages = unique_messages(messages, self.page.report_at)
            channel = page_channel(messages, channel_provenance(self.page), title, self._lead_paragraph())
            channel = replace(channel, request=page_request(self.page))
        return PageResult(channel, streams, error_codes, title)

    # -- provenance ----------------------------------------------------------------------

    def _table_pointer(self, table: _Table, row: int | None = None) -> str:
        base: tuple[str | int, ...] = (*table.section.base, "tables", table.index)
        return pointer(*base) if row is None else pointer(*base, "rows", row)

    def _row_prov(self, table: _Table, row: Row) -> Provenance:
        return self.page.at(row.first, self._table_pointer(table, row.index))

    def _table_prov(self, table: _Table) -> Provenance:
        return self.page.at(table.start, self._table_pointer(table))

    # -- tables ---------------------------------------------------------------------------------

    def _read_tables(self) -> None:
        for first, last in self.unterminated:
            self.page.report(
                codes.TABLE_UNTERMINATED,
                f"no blank line ends the table at line {first}: GFM reads the prose below as more rows; "
                f"the table ends at line {last} (its last line with a `|`)",
                last,
                self.page.line_pointer(last),
            )
        per_section: dict[str, int] = {}
        for block in self.blocks:
            if block.type != "table":
                continue
            section = self.page.section_at(block.first)
            header, _ = table_cells(block)
            index = per_section.get(section.slug, 0)
            per_section[section.slug] = index + 1
            table = _Table(tuple(header), [], block.first, section, index)

            def report(code: Code, message: str, line: int, row: int, table: _Table = table) -> None:
                self.page.report(code, message, line, self._table_pointer(table, row))

            table.rows = table_rows(self.page, block, header, table.column("type"), is_type_cell, report)
            self.tables.append(table)
        for first, last in headerless_rows(self.page, self.kinds):
            self.page.report(
                codes.TABLE_NO_HEADER,
                f"lines {first}-{last} look like table rows but no header and delimiter row (`|---|`) precedes them; "
                "not read as a table",
                first,
                self.page.line_pointer(first),
            )

    # -- the chunk ---------------------------------------------------------------------------------

    def _field_tables(self) -> list[_Table]:
        return [
            t
            for t in self.tables
            if t.column("field", "name", "parameter", "member") == 0 and t.column("type") is not None
        ]

    def _chunk_message(self, streams: list[PageStream]) -> Message | None:
        chunk_table = next((t for t in self._field_tables() if any(_row_name(r) == "choices" for r in t.rows)), None)
        if chunk_table is None:
            return None
        chunk_table.used = True
        object_row = next((r for r in chunk_table.rows if _row_name(r) == "object"), None)
        object_description = chunk_table.cell(object_row, "description") if object_row else ""
        name = chunk_name(object_description)
        props = self._table_properties(chunk_table, name, prefix=())
        choices_row = next(r for r in chunk_table.rows if _row_name(r) == "choices")
        choice_name = name + pascal(singular("choices"))
        choice = self._choice_schema(chunk_table, choices_row, choice_name)
        props = [
            (
                replace(p, schema=replace(p.schema, items=choice))
                if p.name == "choices" and p.schema.type == "array"
                else p
            )
            for p in props
        ]
        section = chunk_table.section
        schema = Schema(
            "object",
            self._table_prov(chunk_table),
            name=name,
            description=self._intro(section),
            properties=tuple(props),
        )
        object_value = chunk_object(object_description)
        found = instances(streams, lambda v: "type" not in v and (v.get("object") == object_value or "choices" in v))
        schema = refine_with_instances(schema, found, self.diagnostics, add_members=[choice_name])
        return Message(
            name=name,
            kind="data",
            payload=schema,
            provenance=schema.provenance,
            title=section.title,
            description=schema.description,
        )

    def _field_rows(self, table: _Table) -> list[FieldRow]:
        return [
            FieldRow(
                _row_name(row), table.cell(row, "type"), table.cell(row, "description"), self._row_prov(table, row)
            )
            for row in table.rows
        ]

    def _table_properties(self, table: _Table, base: str, prefix: tuple[str, ...]) -> list[Property]:
        """Properties from Field/Type/Description rows; dotted names (``logprobs.content``) nest."""
        return [
            field_property(row, member_name(base, row.name), self.page.report_at)
            for row in dotted_rows(self._field_rows(table), prefix)
        ]

    def _choice_schema(self, chunk_table: _Table, choices_row: Row, name: str) -> Schema:
        """The choice object, from the prose of the ``choices`` row plus the tables it points to."""
        prov = self._row_prov(chunk_table, choices_row)
        members = prose.prose_members(chunk_table.cell(choices_row, "description"))
        if not members:
            self.page.report_at(
                codes.CHOICE_MEMBERS_UNKNOWN,
                "the `choices` row does not say what a choice contains; choices are typed as objects without members",
                prov,
            )
            return Schema("object", prov, name=name)
        self.page.report_at(
            codes.CHOICE_MEMBERS_PROSE,
            f"the choice object is described only in prose; members {', '.join(m for m, _ in members)} "
            "are read from it and typed from the tables they name",
            prov,
        )
        props = [self._choice_member(member, optional, name, prov) for member, optional in members]
        return Schema("object", prov, name=name, properties=tuple(props))

    def _table_member(
        self, table: _Table, member: str, name: str, optional: bool, prov: Provenance, prefix: tuple[str, ...]
    ) -> Property:
        """Member ``member``: an object named ``name`` whose members are ``table``'s rows
        (rows named ``<member>.x`` when ``prefix`` is ``(member,)``); the table is marked used."""
        table.used = True
        props = self._table_properties(table, name, prefix=prefix)
        section = table.section
        schema = Schema(
            "object",
            self._table_prov(table),
            name=name,
            description=self._intro(section),
            nullable=prose.says_null(" ".join(self._prose(section)), member),
            properties=tuple(props),
        )
        return Property(member, schema, not optional, schema.description, prov)

    def _choice_member(self, member: str, optional: bool, parent: str, prov: Provenance) -> Property:
        name = member_name(parent, member)
        for table in self.tables:
            if table.used:
                continue
            title_words = re.findall(r"[\w.]+", table.section.title.lower())
            dotted = [r for r in table.rows if _row_name(r).split(".")[0] == member and "." in _row_name(r)]
            if table in self._field_tables() and dotted and len(dotted) == len(table.rows):
                return self._table_member(table, member, name, optional, prov, prefix=(member,))
            if member not in title_words:
                continue
            if table in self._field_tables():
                return self._table_member(table, member, name, optional, prov, prefix=())
            if table.column("value") == 0:
                return self._values_member(table, member, name, optional, prov)
        self.page.report_at(
            codes.MEMBER_TYPE_UNKNOWN,
            f"choice member {member!r} is named in prose but no table describes it; typed as any JSON",
            prov,
        )
        return Property(member, Schema("any", prov), not optional, "", prov)

    def _values_member(self, table: _Table, member: str, name: str, optional: bool, prov: Provenance) -> Property:
        """Member ``member``: a string enum of a Value/Description table (``null`` among the values: nullable)."""
        table.used = True
        values: list[str] = []
        lines: list[str] = []
        nullable = False
        for row in table.rows:
            value = row.cells[0].strip().strip("`").strip('"').strip("'")
            meaning = table.cell(row, "description")
            lines.append(f"- {value}: {meaning}" if meaning else f"- {value}")
            if value == "null":
                nullable = True
            elif value and value not in values:
                values.append(value)
        text = "\n".join(lines)
        schema = Schema(
            "string", self._table_prov(table), name=name, description=text, nullable=nullable, enum=tuple(values)
        )
        return Property(member, schema, not optional, text, prov)

    # -- prose ----------------------------------------------------------------------------------------

    def _prose(self, section: Section) -> list[str]:
        """The section's paragraph lines after its title (no tables, wire lines or titles)."""
        titles = {s.line for s in self.page.sections}
        out = []
        for n in range(section.line + 1, section.end):
            if self.kinds.get(n) != "paragraph" or n in titles or self.wire.is_wire_line(n):
                continue
            if any(run.first <= n <= run.last for run in self.runs):
                continue
            out.append(self.page.line(n).strip())
        return out

    def _intro(self, section: Section) -> str:
        """The section's first paragraph lines (up to its first table or wire line), trailing colon dropped."""
        titles = {s.line for s in self.page.sections}
        parts: list[str] = []
        for n in range(section.line + 1, section.end):
            if self.kinds.get(n) != "paragraph" or n in titles or self.wire.is_wire_line(n):
                break
            parts.append(self.page.line(n).strip())
        return " ".join(parts).rstrip(":").strip()

    def _lead_paragraph(self) -> str:
        first = next((s for s in self.page.sections if s.line > 0), None)
        if first is None:
            return ""
        n = first.line + 1
        titles = {s.line for s in self.page.sections}
        return (
            self.page.line(n).strip()
            if n <= self.page.count and self.kinds.get(n) == "paragraph" and n not in titles
            else ""
        )

    # -- example streams ------------------------------------------------------------------------------

    def _streams(self) -> tuple[list[PageStream], list[_Sample]]:
        """Example streams (notation samples left out and reported) and the samples' JSON object payloads."""
        streams: list[PageStream] = []
        samples: list[_Sample] = []
        per_section: dict[str, int] = {}
        names = Slugs()
        for run in self.runs:
            if not run.frames:
                continue
            section = run.section
            index = per_section.get(section.slug, 0)
            per_section[section.slug] = index + 1
            ptr = pointer(*section.base, "examples", index)
            if run.sample:
                self.page.report(
                    codes.WIRE_FORMAT_SAMPLE,
                    "a one-line wire-format sample (elided `...` or an escaped `\\n`), "
                    "not an example stream; not harvested",
                    run.frames[0].line,
                    ptr,
                )
                for frame in run.frames:
                    data = dict(frame.fields).get("data", "")
                    value = json_or_none(data)
                    if isinstance(value, dict) and isinstance(value.get("type"), str):
                        samples.append(_Sample(value["type"], section.title, data, self.page.at(frame.line, ptr)))
                continue
            name = names.unique(section.slug or "example")
            streams.append(PageStream(name, tuple(run.frames), self.page.at(run.frames[0].line, ptr)))
        return drop_repeated_streams(streams, self.diagnostics), samples

    # -- vendor events --------------------------------------------------------------------------------

    def _vendor_messages(self, streams: list[PageStream], samples: list[_Sample]) -> list[Message]:
        """One ``vendor`` message per ``x_*`` event type, from the event tables' rows and the
        sections of their own, in page order (:meth:`_vendor_message`), then checked against the
        example ``streams`` (:func:`.vendor.refine_with_streams`)."""
        rows = self._vendor_rows()
        prose_events = self._prose_vendor_events()
        learn_field_types([description for _, description, _ in rows], self.field_types)
        by_type: dict[str, Schema] = {}
        entries_all = [(t, d, p, None) for t, d, p in rows] + list(prose_events)
        entries_all.sort(key=lambda e: e[2].line)
        messages = [self._vendor_message(entry, by_type, samples) for entry in entries_all]
        # Vendor events in example streams check the schemas built from prose.
        return refine_with_streams(messages, streams, self.diagnostics)

    def _vendor_rows(self) -> list[tuple[str, str, Provenance]]:
        """``(type, description, provenance)`` of each ``x_*`` row of the tables whose first
        column is the event type (not error tables, which have a ``code`` column)."""
        rows: list[tuple[str, str, Provenance]] = []
        for table in self.tables:
            type_col = table.column("type", "event", "event type")
            if type_col != 0 or table.column("code") is not None:
                continue
            entries = [r for r in table.rows if r.cells and r.cells[0].strip("`").startswith("x_")]
            if not entries:
                continue
            table.used = True
            for row in entries:
                rows.append((row.cells[0].strip("`"), table.cell(row, "description"), self._row_prov(table, row)))
        return rows

    def _vendor_message(self, entry: _VendorEntry, by_type: dict[str, Schema], samples: list[_Sample]) -> Message:
        """The ``vendor`` message of one event ``(type, description, provenance, JSON example)``:
        its payload from the JSON example (members optional) or from the prose fields
        (:func:`.vendor.vendor_fields`; recorded in ``by_type`` for ``Same fields as``), with
        the wire-format samples and the JSON example of its type as examples."""
        type_value, description, prov, example_json = entry
        name = str(ClassName(type_value, prefix="Event"))
        summary = prose.event_summary(description)
        if example_json is not None:
            value, json_line, member_lines = example_json
            payload = schema_from_json(
                value, name, self.page.at(json_line, prov.pointer), member_provenance=member_lines
            )
            payload = with_type(payload, type_value, prov)
        else:
            props = vendor_fields(description, name, prov, by_type, self.field_types, self.page.report_at)
            payload = with_type(Schema("object", prov, name=name, properties=tuple(props)), type_value, prov)
        by_type[type_value] = payload
        examples = tuple(
            Example("wire-format", sample.title, sample.data, sample.provenance)
            for sample in samples
            if sample.type == type_value
        )
        if example_json is not None:
            examples += (Example("", "", compact_json(example_json[0]), self.page.at(example_json[1], prov.pointer)),)
        return Message(
            name=name,
            kind="vendor",
            payload=replace(payload, description=summary),
            provenance=prov,
            title=type_value,
            summary=summary,
            description=description,
            examples=examples,
        )

    def _prose_vendor_events(self) -> list[_VendorEntry]:
        """Vendor events documented by a section of their own (``Context Fork Event (x_context_fork)``):
        from its ``Fields:`` line, else its JSON example (:meth:`_json_example`); with neither,
        only ``type`` is known (``vendor-fields-unknown``)."""
        out: list[_VendorEntry] = []
        for section in self.page.sections:
            type_value = prose.event_type_in_title(section.title)
            if not type_value or any(t.section is section for t in self.tables):
                continue
            description = " ".join(self._prose(section))
            prov = self.page.at(section.line, pointer("sections", section.slug))
            fields_line = next(
                (n for n in range(section.line + 1, section.end) if self.page.line(n).strip().startswith("Fields:")),
                None,
            )
            if fields_line is not None:
                out.append(
                    (type_value, description, self.page.at(fields_line, self.page.line_pointer(fields_line)), None)
                )
                continue
            example = self._json_example(section, type_value)
            if example is None:
                self.page.report(
                    codes.VENDOR_FIELDS_UNKNOWN,
                    f"vendor event {type_value!r} has neither a `Fields:` line nor a JSON example; "
                    "only `type` is known",
                    section.line,
                    pointer("sections", section.slug),
                )
            out.append((type_value, description, prov, example))
        return out

    def _json_example(self, section: Section, type_value: str) -> tuple[Any, int, dict[str, Provenance]] | None:
        """``(value, line, member provenance)`` of the first ``data:`` JSON object of type
        ``type_value`` in the wire runs of ``section``; None when there is none."""
        for run in self.runs:
            if run.section is not section:
                continue
            for i, frame in enumerate(run.frames):
                value = json_or_none(dict(frame.fields).get("data", ""))
                if isinstance(value, dict) and value.get("type") == type_value:
                    start = run.json_starts.get(i, frame.line)
                    return value, frame.line, self._member_lines(value, start)
        return None

    def _member_lines(self, value: dict[str, Any], start: int) -> dict[str, Provenance]:
        """Provenance of each top-level member of a multi-line JSON example starting at line ``start``."""
        out: dict[str, Provenance] = {}
        n = start
        for key in value:
            needle = json.dumps(key) + ":"
            for m in range(n, min(self.page.count + 1, start + MAX_JSON_LINES)):
                if needle in self.page.line(m).replace('" :', '":'):
                    out[key] = self.page.at(m, self.page.line_pointer(m))
                    n = m + 1
                    break
        return out

    # -- errors and the terminator --------------------------------------------------------------------

    def _error_message(self, streams: list[PageStream]) -> tuple[Message | None, list[ErrorCode]]:
        """``StreamError`` (kind ``error``, SSE event ``error``) from the first ``event: error``
        frame of the example streams, typed by the Error Types table (:mod:`.errors`), and the
        table's codes; no message without such a frame (``error-example-missing`` when the table
        is there)."""
        table = next((t for t in self.tables if t.column("type") is not None and t.column("code") is not None), None)
        documented = ErrorTable()
        if table is not None:
            table.used = True
            documented = read_error_table(
                [
                    (
                        table.cell(row, "type").strip("`"),
                        table.cell(row, "code").strip("`"),
                        table.cell(row, "description"),
                        self._row_prov(table, row),
                    )
                    for row in table.rows
                ]
            )
        example = first_error_event(streams)
        if example is None:
            if table is not None:
                self.page.report(
                    codes.ERROR_EXAMPLE_MISSING,
                    "the page lists error types but shows no `event: error` frame; no error message is built",
                    table.start,
                    self._table_pointer(table),
                )
            return None, documented.codes
        value, prov = example
        payload = with_documented_error(schema_from_json(value, "StreamError", prov, required=True), documented)
        section = self.page.section_at(prov.line)
        description = self._intro(section)
        message = Message(
            name="StreamError",
            kind="error",
            payload=replace(payload, description=description),
            provenance=prov,
            title=section.title,
            description=description,
            event="error",
            examples=(Example("", "", compact_json(value), prov),),
        )
        return message, documented.codes

    def _done_message(self) -> Message | None:
        for n, line in self.page.numbered():
            if re.match(r"^data:\s*\[DONE\]", line):
                before = self.page.line(n - 1).strip()
                description = before.rstrip(":").strip() if "[DONE]" in before else ""
                return done_message(self.page.at(n, self.page.line_pointer(n)), description)
        return None
