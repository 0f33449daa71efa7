"""A markdown page with HTML parameter tables (``specs/siliconstorm/inference-api.md``) -> IR.

The page is markdown (headings, ```` ```json ```` fences, one pipe table) with
the parameter tables embedded as HTML.  markdown-it-py gives the markdown
structure (headings, fences, the error-code table, with line maps); each HTML
``<table>`` is laid out on a grid by :mod:`.grid` and its rows become
properties by :mod:`..fields`; the Type and Description cells are found by the
header's grid columns (``Parameter Name`` spans the name columns: 4 in the
streaming table).

What the page yields:

* ``ChatCompletionChunk`` (kind ``data``) from the streaming response table
  ("Explanation of Streaming Inference Results",
  ``specs/siliconstorm/inference-api.md:889``, the one whose ``choices`` hold a
  ``delta``).  Its top row ``data`` is the SSE field, not a member: its children
  are the chunk's members (``table-data-wrapper``).  Descriptions keep the cell
  text as is (Chinese included); ``<li>`` items become ``\\n- item`` lines
  (nested lists indented); a string member whose description is a list of
  ``value: ...`` items gets those values as its enum (:mod:`.prose`).  The
  page is two translations of one document: the second copy of the table is
  compared with the first and dropped (``duplicate-table``; structural
  differences are ``duplicate-table-conflict`` warnings).  The non-streaming
  response table is skipped (``table-skipped``).
* the channel's request: the method, URL and auth header the page shows
  (:mod:`..request`) with the body schema of its "Request Parameters" table (:mod:`.request`).
* ``StreamDone`` (kind ``terminator``): the page documents no terminator, but
  its example streams end with ``data: [DONE]`` (``terminator-from-example``).
* no error message: the error codes (701, 702, 801, 802, 9999) are HTTP
  response bodies ("returned by the http response"), not stream frames; they
  are returned as :class:`~ssegen.ir.ErrorCode` (``PageResult.error_codes``).

Example streams are the fences whose lines are ``data:`` lines ("Streaming
Inference 1" and "2", ``specs/siliconstorm/inference-api.md:660``); the second
translation's copies are dropped as duplicates, or, if a copy is a strict
prefix of an earlier stream, as truncated (:func:`..wire.drop_repeated_streams`);
a kept stream that does not end with ``data: [DONE]`` is kept and flagged
``example-stream-unterminated``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from markdown_it.token import Token

from ....diagnostics import Code, Diagnostics, codes
from ....ir import ErrorCode, Message, Property, Provenance, Schema
from ..cells import is_type_cell
from ..fields import FieldRow, field_property, member_name
from ..instances import instances, refine_with_instances
from ..markdown.blocks import MARKDOWN
from ..messages import (
    PageResult,
    channel_provenance,
    chunk_name,
    chunk_object,
    done_message,
    page_channel,
)
from ..request import page_request
from ..sections import PageSection, PageText, Slugs, pointer
from ..wire import PageStream, drop_repeated_streams, parses, read_frames
from . import prose
from .grid import Column, Grid, GridRow, build_grid, parse_table, row_tree, table_lines
from .request import is_required, request_schema

__all__ = ["load_html_page", "looks_like_html_table_page"]


def looks_like_html_table_page(text: str) -> bool:
    """True when ``text`` is a page with HTML parameter tables and SSE examples.

    Like ``specs/siliconstorm/inference-api.md``.

    Content detection: an HTML ``<table>`` with ``<td>`` cells, and either a
    ``data: {`` line or the string ``chat.completion.chunk``; a document with an
    AsyncAPI ``asyncapi:`` key is not one.  Never raises.
    """
    if not re.search(r"<table\b", text, re.IGNORECASE) or not re.search(r"<td\b", text, re.IGNORECASE):
        return False
    if re.search(r"^\s*[\"']?asyncapi[\"']?\s*:", text, re.MULTILINE):
        return False
    return bool(re.search(r"^\s*data:\s*[\[{]", text, re.MULTILINE)) or "chat.completion.chunk" in text


def load_html_page(text: str, file: str, diagnostics: Diagnostics) -> PageResult:
    """Read a page with HTML parameter tables (``specs/siliconstorm/inference-api.md``) into IR parts.

    Args:
        text: the page text (markdown with embedded HTML tables).
        file: its path relative to the specs folder, for provenance.
        diagnostics: receives one diagnostic per quirk fixed or problem found
            (broken ``rowspan``, duplicate tables and streams, skipped tables),
            each with its 1-based line and a pointer (scheme in :mod:`ssegen.sources.pages`).

    Returns:
        A :class:`~..messages.PageResult`: the ``/chat/completions`` channel
        (``ChatCompletionChunk``, and ``StreamDone`` when the examples end with
        ``[DONE]``), the example streams without repeats, the error-code table
        as :class:`~ssegen.ir.ErrorCode` (``code`` an int when numeric), and the
        page title (its first ``#`` heading).  The channel is None, with the
        error ``chunk-table-missing``, when no table describes a streaming chunk.
        Never raises for bad input.
    """
    return _HtmlPage(text, file, diagnostics).load()


@dataclass
class _Section(PageSection):
    examples: int = 0  # example streams seen so far (their index in pointers)


@dataclass(frozen=True)
class _Fence:
    first: int  # the opening fence line
    last: int  # the closing fence line
    info: str
    content: str


@dataclass
class _HtmlTable:
    start: int  # line of <table>
    end: int  # line of </table>
    section: _Section
    index: int
    caption: str
    element: Any


class _HtmlPage:
    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        self.page: PageText[_Section] = PageText(text, file, diagnostics)
        self.diagnostics = diagnostics
        self.tokens = MARKDOWN.parse(self.page.text)
        self.page.sections = [_Section("", "", 0)]
        self.fences: list[_Fence] = []
        self.table_index: dict[int, int] = {}  # first line -> index among its section's tables
        self.grids: dict[int, tuple[list[Column], list[GridRow], Grid]] = {}  # first line -> read table

    # -- orchestration -----------------------------------------------------------------------

    def load(self) -> PageResult:
        self._structure()
        real = [s for s in self.page.sections if s.line > 0]
        title = next((s.title for s in real if self._heading_level(s.line) == 1), "")
        title = title or next((s.title for s in real), "")
        tables = self._html_tables()
        error_codes = self._error_codes()
        streams = self._streams()
        chunk = self._chunk_message(tables, streams)
        if chunk is None:
            self.page.report(
                codes.CHUNK_TABLE_MISSING,
                "no HTML table describes a streaming chunk (`choices` with `delta`)",
                0,
                "",
            )
            return PageResult(None, streams, error_codes, title)
        messages = [chunk]
        done = self._done_message(streams)
        if done is not None:
            messages.append(done)
        channel = page_channel(messages, channel_provenance(self.page), title, self._lead_paragraph())
        request = page_request(self.page, self._request_schema(tables))
        return PageResult(replace(channel, request=request), streams, error_codes, title)

    def _heading_level(self, line: int) -> int:
        match = re.match(r"^\s{0,3}(#{1,6})\s", self.page.line(line))
        return len(match.group(1)) if match else 0

    # -- markdown structure ------------------------------------------------------------------------

    def _structure(self) -> None:
        slugs = Slugs()
        tokens = self.tokens
        for i, tok in enumerate(tokens):
            if tok.type == "heading_open" and tok.map is not None and i + 1 < len(tokens):
                title = tokens[i + 1].content.strip()
                if title:
                    self.page.sections.append(_Section(title, slugs.unique(title), tok.map[0] + 1))
            elif tok.type == "fence" and tok.map is not None:
                self.fences.append(_Fence(tok.map[0] + 1, tok.map[1], tok.info.strip(), tok.content))
        # Tables of both kinds, numbered per section in page order (pointer .../tables/<k>).
        starts = {tok.map[0] + 1 for tok in tokens if tok.type == "table_open" and tok.map is not None}
        starts |= {
            n
            for n, line in self.page.numbered()
            if re.search(r"<table\b", line, re.IGNORECASE) and not self._in_fence(n)
        }
        counts: dict[str, int] = {}
        for start in sorted(starts):
            slug = self.page.section_at(start).slug
            self.table_index[start] = counts.get(slug, 0)
            counts[slug] = self.table_index[start] + 1

    def _in_fence(self, line: int) -> bool:
        return any(fence.first <= line <= fence.last for fence in self.fences)

    def _lead_paragraph(self) -> str:
        for i, tok in enumerate(self.tokens):
            if tok.type == "paragraph_open" and i + 1 < len(self.tokens):
                return self.tokens[i + 1].content.strip()
        return ""

    # -- HTML tables -------------------------------------------------------------------------------

    def _html_tables(self) -> list[_HtmlTable]:
        """Every ``<table>...</table>`` outside fences, parsed with lxml (line ranges from the text)."""
        tables: list[_HtmlTable] = []
        for first, last, closed in table_lines(self.page, self._in_fence):
            section = self.page.section_at(first)
            index = self.table_index.get(first, 0)
            where = pointer(*section.base, "tables", index)
            if not closed:
                self.page.report(
                    codes.HTML_TABLE_UNCLOSED,
                    "`<table>` has no `</table>`; read up to the next table or fence",
                    first,
                    where,
                )
            element = parse_table("\n".join(self.page.span(first, last)))
            if element is None:
                self.page.report(codes.HTML_TABLE_UNREADABLE, "lxml finds no table in this HTML; skipped", first, where)
            else:
                tables.append(_HtmlTable(first, last, section, index, self._caption(first), element))
        return tables

    def _caption(self, start: int) -> str:
        """The line of text just above a table ("Explanation of Streaming Inference Results"), if any."""
        for n in range(start - 1, max(0, start - 6), -1):
            line = self.page.line(n).strip()
            if not line:
                continue
            if line.startswith(("#", "<", "```")):
                return ""
            return line
        return ""

    def _table_pointer(self, table: _HtmlTable, row: int | None = None) -> str:
        base: tuple[str | int, ...] = (*table.section.base, "tables", table.index)
        return pointer(*base) if row is None else pointer(*base, "rows", row)

    def _table_rows(self, table: _HtmlTable) -> tuple[list[Column], list[GridRow], Grid]:
        """The header columns, the row tree and the grid of one table, read once (each problem
        reported once). The type column is ``Type``, else a request table's ``Value
        Requirements`` (:mod:`.request`)."""
        if table.start in self.grids:
            return self.grids[table.start]

        def report(code: Code, message: str, line: int, row: int | None) -> None:
            self.page.report(code, message, line, self._table_pointer(table, row))

        grid = build_grid(table.element, table.start, report)
        header = grid.header or self._guess_header(table, grid)
        roots: list[GridRow] = []
        if header:
            titles = {c.title.strip().lower(): c.col for c in header}
            type_col = titles.get("type", titles.get("value requirements"))
            desc_col = next((titles[t] for t in ("description", "explanation", "meaning") if t in titles), None)
            roots = row_tree(grid, header[0].span, type_col, desc_col, report)
        self.grids[table.start] = (header, roots, grid)
        return header, roots, grid

    def _request_schema(self, tables: list[_HtmlTable]) -> Schema | None:
        """The body schema of the first request parameter table (headed ``Required``, no
        ``Type``; :func:`.request.request_schema`), None when the page has none."""
        for table in tables:
            header, roots, grid = self._table_rows(table)
            titles = {c.title.strip().lower(): c.col for c in header}
            if "type" not in titles and "required" in titles and roots:
                return self._read_request_table(table, roots, grid, titles["required"])
        return None

    def _read_request_table(self, table: _HtmlTable, roots: list[GridRow], grid: Grid, column: int) -> Schema:
        """The body schema of the request table ``table`` (its rows ``roots``, its Required cells
        in grid column ``column``)."""

        def required(node: GridRow) -> bool:
            cell = grid.cells.get((node.index, column))
            return cell is not None and is_required(cell.text)

        def at(node: GridRow) -> Provenance:
            return self.page.at(node.line, self._table_pointer(table, node.index))

        where = self.page.at(table.start, self._table_pointer(table))
        return request_schema("ChatCompletionRequest", roots, required, at, where, self.page.report_at)

    def _guess_header(self, table: _HtmlTable, grid: Grid) -> list[Column]:
        """Columns of a table without a header row: the Type column is the one holding type words."""
        width = grid.width
        rows = len(grid.body)
        best, best_count = -1, 0
        for c in range(width):
            count = sum(
                1
                for r in range(rows)
                if (cell := grid.cells.get((r, c))) is not None
                and cell.col == c
                and cell.row == r
                and is_type_cell(cell.text)
            )
            if count > best_count:
                best, best_count = c, count
        if best < 1 or best_count * 2 < rows:
            self.page.report(
                codes.TABLE_NO_HEADER,
                "table has no header row and no column of type names; skipped",
                table.start,
                self._table_pointer(table),
            )
            return []
        self.page.report(
            codes.TABLE_NO_HEADER,
            f"table has no header row; column {best + 1} holds type names, "
            "so the columns before it are names and the last is the description",
            table.start,
            self._table_pointer(table),
        )
        header = [Column("Parameter Name", 0, best), Column("Type", best, 1)]
        if width > best + 1:
            header.append(Column("Description", width - 1, 1))
        return header

    # -- the chunk -------------------------------------------------------------------------------

    def _chunk_message(self, tables: list[_HtmlTable], streams: list[PageStream]) -> Message | None:
        """The chunk message from the first table describing a chunk (:meth:`_chunk_schema`), other
        copies compared with it (:meth:`_compare_tables`), refined by the example ``streams``;
        None when no table describes one."""
        found = [chunk for table in tables if (chunk := self._chunk_schema(table)) is not None]
        if not found:
            return None
        table, schema, object_value = found[0]
        for other, other_schema, _ in found[1:]:
            self._compare_tables(table, schema, other, other_schema)
        chunks = instances(streams, lambda v: v.get("object") == object_value or "choices" in v)
        schema = refine_with_instances(schema, chunks, self.diagnostics)
        return Message(
            name=schema.name,
            kind="data",
            payload=schema,
            provenance=schema.provenance,
            title=table.caption,
            description=schema.description,
        )

    def _chunk_schema(self, table: _HtmlTable) -> tuple[_HtmlTable, Schema, str] | None:
        """``(table, chunk schema, its object value)`` when ``table`` describes a streaming chunk
        (a Type column, ``choices`` with a ``delta`` row; a top ``data`` row is the SSE field
        around it, ``table-data-wrapper``); else None, reported (``table-skipped``, and why)."""
        header, roots, _ = self._table_rows(table)
        titles = [c.title.strip().lower() for c in header]
        if "type" not in titles:
            if "required" not in titles:  # a request parameter table is the request's (_request_schema)
                self.page.report(
                    codes.TABLE_SKIPPED, "table skipped: no Type column", table.start, self._table_pointer(table)
                )
            return None
        members, wrapper = roots, None
        if len(roots) == 1 and roots[0].name == "data" and roots[0].children:
            wrapper = roots[0]
            members = roots[0].children
            self.page.report(
                codes.TABLE_DATA_WRAPPER,
                "the table's top row `data` is the SSE field carrying the chunk, not a member; "
                "its rows are the chunk's members",
                wrapper.line,
                self._table_pointer(table, wrapper.index),
            )
        what = _not_a_chunk(members)
        if what:
            self.page.report(codes.TABLE_SKIPPED, f"table skipped: {what}", table.start, self._table_pointer(table))
            return None
        object_row = next((m for m in members if m.name == "object"), None)
        object_description = object_row.description if object_row else ""
        name = chunk_name(object_description)
        props = tuple(self._property(table, m, member_name(name, m.name)) for m in members)
        schema = Schema(
            "object",
            self.page.at(table.start, self._table_pointer(table)),
            name=name,
            title=table.caption,
            description=wrapper.description if wrapper else "",
            properties=props,
        )
        return table, schema, chunk_object(object_description)

    def _field_row(self, table: _HtmlTable, node: GridRow) -> FieldRow:
        prov = self.page.at(node.line, self._table_pointer(table, node.index))
        return FieldRow(
            node.name, node.type_text, node.description, prov, [self._field_row(table, c) for c in node.children]
        )

    def _property(self, table: _HtmlTable, node: GridRow, name: str) -> Property:
        return field_property(
            self._field_row(table, node), name, self.page.report_at, listed_values=prose.listed_values
        )

    def _compare_tables(self, table: _HtmlTable, schema: Schema, other: _HtmlTable, other_schema: Schema) -> None:
        """Report a second copy of the chunk table: same structure (info) or conflicts (warnings)."""
        conflicts: list[tuple[str, str, Provenance]] = []
        descriptions = _diff(schema, other_schema, "", conflicts)
        if not conflicts:
            self.page.report(
                codes.DUPLICATE_TABLE,
                f"this table repeats the one at line {table.start} "
                "(another translation of the page): same members and types, "
                f"{descriptions} description(s) worded differently; the first is kept",
                other.start,
                self._table_pointer(other),
            )
            return
        for path, what, prov in conflicts:
            self.page.report_at(
                codes.DUPLICATE_TABLE_CONFLICT,
                f"this copy of the table at line {table.start} differs at {path or '/'}: {what}; "
                "the first copy is kept",
                prov,
            )

    # -- example streams -------------------------------------------------------------------------

    def _streams(self) -> list[PageStream]:
        streams: list[PageStream] = []
        names = Slugs()
        for fence in self.fences:
            wire = [(fence.first + 1 + i, line) for i, line in enumerate(fence.content.split("\n")) if line.strip()]
            if not any(line.strip().startswith("data:") for _, line in wire):
                if fence.info.split()[:1] == ["json"] and not parses(fence.content):
                    self.page.report(
                        codes.FENCE_INVALID_JSON,
                        "this ```json block is not valid JSON (e.g. single-quoted strings)",
                        fence.first,
                        self.page.line_pointer(fence.first),
                    )
                continue
            section = self.page.section_at(fence.first)
            read = read_frames(wire)
            for code, message, line in read.notes():
                self.page.report(code, message, line, self.page.line_pointer(line))
            if not read.frames:
                continue
            index = section.examples
            section.examples += 1
            ptr = pointer(*section.base, "examples", index)
            name = names.unique(section.slug or "example")
            intro = "\n".join(self.page.span(max(section.line, 1), fence.first - 1))
            streams.append(
                PageStream(
                    name, tuple(read.frames), self.page.at(read.frames[0].line, ptr), prose.says_full_text(intro)
                )
            )
        kept = drop_repeated_streams(streams, self.diagnostics)
        for stream in kept:
            events = stream.events()
            if not events or events[-1].data != "[DONE]":
                self.page.report_at(
                    codes.EXAMPLE_STREAM_UNTERMINATED,
                    f"example stream {stream.name!r} does not end with `data: [DONE]` "
                    "like the page's other streams (truncated?)",
                    stream.provenance,
                )
        return kept

    def _done_message(self, streams: list[PageStream]) -> Message | None:
        for stream in streams:
            events = stream.events()
            if events and events[-1].data == "[DONE]":
                prov = stream.event_provenance(len(events) - 1)
                self.page.report_at(
                    codes.TERMINATOR_FROM_EXAMPLE,
                    "the page does not document a terminator, but its example streams end with `data: [DONE]`; "
                    "StreamDone is read from them",
                    prov,
                )
                return done_message(prov)
        return None

    # -- error codes -----------------------------------------------------------------------------

    def _error_codes(self) -> list[ErrorCode]:
        """Rows of markdown tables headed ``code | ...`` (the page's "Error status code description")."""
        codes: list[ErrorCode] = []
        tokens = self.tokens
        i = 0
        while i < len(tokens):
            tok = tokens[i]
            if tok.type != "table_open" or tok.map is None:
                i += 1
                continue
            start = tok.map[0] + 1
            header, rows, i = _table_cells(tokens, i, start)
            if header and header[0].strip().lower() == "code":
                codes += self._code_rows(start, rows)
        return codes

    def _code_rows(self, start: int, rows: list[tuple[int, list[str]]]) -> list[ErrorCode]:
        """The error codes of the body ``rows`` ``(line, cells)`` of the ``code | meaning`` table
        starting at line ``start``: a numeric code as an int; rows without a code skipped."""
        section = self.page.section_at(start)
        index = self.table_index.get(start, 0)
        codes: list[ErrorCode] = []
        for n, (line, cells) in enumerate(rows):
            if not cells or not cells[0]:
                continue
            code: int | str = int(cells[0]) if cells[0].isdigit() else cells[0]
            meaning = cells[1] if len(cells) > 1 else ""
            codes.append(
                ErrorCode(code, meaning, self.page.at(line, pointer(*section.base, "tables", index, "rows", n)))
            )
        return codes


def _table_cells(tokens: list[Token], i: int, start: int) -> tuple[list[str], list[tuple[int, list[str]]], int]:
    """``(header cells, body rows as (line, cells), index after table_close)`` of the markdown-it
    table whose ``table_open`` token is ``tokens[i]`` (at line ``start``, the line of a row
    without a map)."""
    header: list[str] = []
    rows: list[tuple[int, list[str]]] = []
    current: list[str] | None = None
    part = ""
    j = i + 1
    while j < len(tokens) and tokens[j].type != "table_close":
        t = tokens[j]
        if t.type in ("thead_open", "tbody_open"):
            part = t.type
        elif t.type == "tr_open":
            current = []
            if part == "tbody_open":
                rows.append((t.map[0] + 1 if t.map else start, current))
        elif t.type == "inline" and current is not None:
            current.append(t.content.strip())
        elif t.type == "tr_close" and part == "thead_open" and current is not None:
            header = current
        j += 1
    return header, rows, j + 1


def _not_a_chunk(members: list[GridRow]) -> str:
    """Why a table's top rows ``members`` are not a streaming chunk (no ``choices``, choices
    holding ``message``, no ``delta`` row); ``""`` when they are one."""
    choices = next((m for m in members if m.name == "choices"), None)
    if choices is None:
        return "not a chunk (no `choices`)"
    if any(c.name == "delta" for c in choices.children):
        return ""
    if any(c.name == "message" for c in choices.children):
        return "a non-streaming response (choices hold `message`)"
    return "`choices` has no `delta` row"


def _diff(a: Schema, b: Schema, path: str, out: list[tuple[str, str, Provenance]]) -> int:
    """Structural differences of two schemas into ``out``; returns how many descriptions differ."""
    described = 0
    if a.description != b.description:
        described += 1
    for attr in ("type", "nullable", "enum", "name"):
        if getattr(a, attr) != getattr(b, attr):
            out.append((path, f"{attr} {getattr(a, attr)!r} vs {getattr(b, attr)!r}", b.provenance))
    names_a = [p.name for p in a.properties]
    names_b = [p.name for p in b.properties]
    for name in names_a:
        if name not in names_b:
            out.append((f"{path}/{name}", "missing in this copy", b.provenance))
    for prop in b.properties:
        other = a.property(prop.name)
        if other is None:
            out.append((f"{path}/{prop.name}", "not in the first copy", prop.provenance))
            continue
        if other.required != prop.required:
            out.append((f"{path}/{prop.name}", f"required {other.required} vs {prop.required}", prop.provenance))
        described += _diff(other.schema, prop.schema, f"{path}/{prop.name}", out)
    if (a.items is None) != (b.items is None):
        out.append((f"{path}/items", "items differ", b.provenance))
    elif a.items is not None and b.items is not None:
        described += _diff(a.items, b.items, f"{path}/items", out)
    return described
