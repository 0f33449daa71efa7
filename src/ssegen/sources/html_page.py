"""A markdown page with HTML parameter tables (seed 004, Siliconstorm/MindIE) -> IR.

The page is markdown (headings, ```` ```json ```` fences, one pipe table) with
the parameter tables embedded as HTML.  markdown-it-py gives the markdown
structure (headings, fences, the error-code table, with line maps); each HTML
``<table>`` is parsed with :mod:`lxml.html` and its nesting rebuilt from the
grid its ``rowspan``/``colspan`` attributes describe:

* a body row's first cells are ``-`` placeholders (one per nesting level, each
  with a ``rowspan`` covering the rows below it); the row's **depth** is the
  number of leading grid columns that are placeholders or covered by an
  earlier row's rowspan, i.e. the grid column its name cell starts in;
* a row at depth ``d`` is a child of the nearest previous row at depth ``d-1``;
* the Type and Description cells are found by the header's grid columns
  (``Parameter Name`` spans the name columns: 4 in the streaming table).

What the page yields:

* ``ChatCompletionChunk`` (kind ``data``) from the streaming response table
  ("Explanation of Streaming Inference Results", the one whose ``choices`` hold a
  ``delta``).  Its top row ``data`` is the SSE field, not a member: its children
  are the chunk's members (``table-data-wrapper``).  Types: ``string``,
  ``integer``/``int``, ``float``, ``list``, ``object``/``dict``; a ``list`` with
  child rows is an array of objects named from the path
  (``ChatCompletionChunkChoice``), an ``object`` with child rows an object
  (``ChatCompletionChunkUsage``, ``ChatCompletionChunkChoiceDelta``).
  Descriptions keep the cell text as is (Chinese included); ``<li>`` items
  become ``\\n- item`` lines (nested lists indented).  A string member whose
  description is a list of ``value: ...`` items (``finish_reason``: stop,
  length) gets those values as its enum.  The page is two translations of one
  document: the second copy of the table is compared with the first and
  dropped (``duplicate-table``; structural differences are
  ``duplicate-table-conflict`` warnings).  The non-streaming response table
  and the request table are skipped (``table-skipped``).
* ``StreamDone`` (kind ``terminator``): the page documents no terminator, but
  its example streams end with ``data: [DONE]`` (``terminator-from-example``).
* no error message: the error codes (701, 702, 801, 802, 9999) are HTTP
  response bodies ("returned by the http response"), not stream frames; they
  are returned as :class:`~.examples.ErrorCode` (``PageResult.error_codes``).

Example streams are the fences whose lines are ``data:`` lines ("Streaming
Inference 1" and "2"); the second translation's copies are dropped as
duplicates, or, if a copy is a strict prefix of an earlier stream, as
truncated (:func:`.examples.drop_repeated_streams`); a kept stream that does not
end with ``data: [DONE]`` is kept and flagged ``example-stream-unterminated``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

import lxml.etree
import lxml.html

from ..diagnostics import Diagnostics, Severity
from ..ir import Channel, Example, Message, Property, Provenance, Schema, SchemaType
from ..naming import ClassName, pascal, singular
from .examples import (
    ALWAYS_VALUE,
    CHANNEL_ADDRESS,
    MARKDOWN,
    WIRE_FIELD,
    TYPE_WORDS,
    ErrorCode,
    ExampleStream,
    PageReader,
    PageResult,
    PageSection,
    Slugs,
    WireFrame,
    compact_json,
    drop_repeated_streams,
    is_conditional,
    pointer,
    refine_with_instances,
)

__all__ = ["ErrorCode", "looks_like_html_table_page", "load_html_page"]

_PLACEHOLDERS = frozenset({"-", "–", "—", ""})
#: Largest rowspan/colspan honoured; beyond it the table is surely broken.
_MAX_SPAN = 1000


# -- detection ---------------------------------------------------------------------------


def looks_like_html_table_page(text: str) -> bool:
    """True when ``text`` is a page with HTML parameter tables and SSE examples (seed 004).

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
    """Read a page with HTML parameter tables (seed 004, Siliconstorm/MindIE) into IR parts.

    Args:
        text: the page text (markdown with embedded HTML tables).
        file: its path relative to the specs folder, for provenance.
        diagnostics: receives one diagnostic per quirk fixed or problem found
            (broken ``rowspan``, duplicate tables and streams, skipped tables),
            each with its 1-based line and a pointer (scheme in :mod:`.examples`).

    Returns:
        A :class:`~.examples.PageResult`: the ``/chat/completions`` channel
        (``ChatCompletionChunk``, and ``StreamDone`` when the examples end with
        ``[DONE]``), the example streams without repeats, the error-code table
        as :class:`~.examples.ErrorCode` (``code`` an int when numeric), and the
        page title (its first ``#`` heading).  The channel is None, with the
        error ``chunk-table-missing``, when no table describes a streaming chunk.
        Never raises for bad input.
    """
    return _HtmlPage(text, file, diagnostics).load()


# -- page structure ------------------------------------------------------------------------


@dataclass
class _Section(PageSection):
    examples: int = 0  # example streams seen so far (their index in pointers)


@dataclass
class _Cell:
    element: Any  # lxml element
    row: int  # body row it starts in
    col: int  # grid column it starts in
    rowspan: int
    colspan: int
    text: str

    @property
    def placeholder(self) -> bool:
        return self.text.strip() in _PLACEHOLDERS


@dataclass
class _Node:
    """One parameter row, with its nested rows."""

    name: str
    type_text: str
    description: str
    line: int  # 0-based page line of the row
    index: int  # body row index
    depth: int
    children: list[_Node] = field(default_factory=list)


@dataclass
class _HtmlTable:
    start: int  # 0-based line of <table>
    end: int  # 0-based line of </table>
    section: _Section
    index: int
    caption: str
    element: Any


class _HtmlPage(PageReader[_Section]):
    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        super().__init__(text, file, diagnostics)
        self.tokens = MARKDOWN.parse(self.text)
        self.sections = [_Section("", "", -1)]
        self.fences: list[tuple[int, int, str, str]] = []  # (start, end exclusive, info, content)
        self.table_index: dict[int, int] = {}  # 0-based start line -> index among its section's tables

    # -- orchestration -----------------------------------------------------------------------

    def load(self) -> PageResult:
        self._structure()
        title = next((s.title for s in self.sections if s.line >= 0 and self._heading_level(s.line) == 1), "")
        title = title or next((s.title for s in self.sections if s.line >= 0), "")
        tables = self._html_tables()
        error_codes = self._error_codes()
        streams = self._streams()
        chunk = self._chunk_message(tables, streams)
        if chunk is None:
            self._diag("chunk-table-missing", Severity.ERROR, "no HTML table describes a streaming chunk (`choices` with `delta`)", -1, "")
            return PageResult(None, streams, error_codes, title)
        messages = [chunk]
        done = self._done_message(streams)
        if done is not None:
            messages.append(done)
        channel = Channel(
            address=CHANNEL_ADDRESS,
            messages=tuple(messages),
            provenance=self._channel_provenance(),
            summary=title,
            description=self._lead_paragraph(),
        )
        return PageResult(channel, streams, error_codes, title)

    def _base(self, section: _Section) -> tuple[str | int, ...]:
        return ("sections", section.slug) if section.line >= 0 else ()

    def _heading_level(self, line: int) -> int:
        match = re.match(r"^\s{0,3}(#{1,6})\s", self.lines[line]) if 0 <= line < len(self.lines) else None
        return len(match.group(1)) if match else 0

    # -- markdown structure ------------------------------------------------------------------------

    def _structure(self) -> None:
        slugs = Slugs()
        tokens = self.tokens
        for i, tok in enumerate(tokens):
            if tok.type == "heading_open" and tok.map is not None and i + 1 < len(tokens):
                title = tokens[i + 1].content.strip()
                if title:
                    self.sections.append(_Section(title, slugs.unique(title), tok.map[0]))
            elif tok.type == "fence" and tok.map is not None:
                self.fences.append((tok.map[0], tok.map[1], tok.info.strip(), tok.content))
        # Tables of both kinds, numbered per section in page order (pointer .../tables/<k>).
        starts = {tok.map[0] for tok in tokens if tok.type == "table_open" and tok.map is not None}
        starts |= {k for k, line in enumerate(self.lines) if re.search(r"<table\b", line, re.IGNORECASE) and not self._in_fence(k)}
        counts: dict[str, int] = {}
        for start in sorted(starts):
            slug = self._section_at(start).slug
            self.table_index[start] = counts.get(slug, 0)
            counts[slug] = self.table_index[start] + 1

    def _in_fence(self, line: int) -> bool:
        return any(start <= line < end for start, end, _, _ in self.fences)

    def _lead_paragraph(self) -> str:
        for i, tok in enumerate(self.tokens):
            if tok.type == "paragraph_open" and i + 1 < len(self.tokens):
                return self.tokens[i + 1].content.strip()
        return ""

    def _channel_provenance(self) -> Provenance:
        for k, line in enumerate(self.lines):
            if "chat/completions" in line:
                return self._prov(k, self._line_pointer(k))
        return self._prov(0, "")

    def _line_pointer(self, line: int) -> str:
        section = self._section_at(line)
        if section.line < 0:
            return pointer("lines", line)
        return pointer("sections", section.slug, "lines", line - section.line)

    # -- HTML tables -------------------------------------------------------------------------------

    def _html_tables(self) -> list[_HtmlTable]:
        """Every ``<table>...</table>`` outside fences, parsed with lxml (line ranges from the text)."""
        tables: list[_HtmlTable] = []
        k = 0
        n = len(self.lines)
        while k < n:
            if self._in_fence(k) or not re.search(r"<table\b", self.lines[k], re.IGNORECASE):
                k += 1
                continue
            start = k
            depth = 0
            end = -1
            for j in range(start, n):
                depth += len(re.findall(r"<table\b", self.lines[j], re.IGNORECASE))
                depth -= len(re.findall(r"</table\s*>", self.lines[j], re.IGNORECASE))
                if depth <= 0:
                    end = j
                    break
            section = self._section_at(start)
            if end < 0:
                end = n - 1
                for j in range(start + 1, n):
                    if re.search(r"<table\b", self.lines[j], re.IGNORECASE) or self._in_fence(j):
                        end = j - 1
                        break
                self._diag("html-table-unclosed", Severity.WARNING, "`<table>` has no `</table>`; read up to the next table or fence", start, pointer(*self._base(section), "tables", self.table_index.get(start, 0)))
            fragment = "\n".join(self.lines[start : end + 1])
            element = _parse_table(fragment)
            index = self.table_index.get(start, 0)
            if element is None:
                self._diag("html-table-unreadable", Severity.WARNING, "lxml finds no table in this HTML; skipped", start, pointer(*self._base(section), "tables", index))
            else:
                tables.append(_HtmlTable(start, end, section, index, self._caption(start), element))
            k = end + 1
        return tables

    def _caption(self, start: int) -> str:
        """The line of text just above a table ("Explanation of Streaming Inference Results"), if any."""
        for k in range(start - 1, max(-1, start - 6), -1):
            line = self.lines[k].strip()
            if not line:
                continue
            if line.startswith(("#", "<", "```")):
                return ""
            return line
        return ""

    def _table_pointer(self, table: _HtmlTable, row: int | None = None) -> str:
        base = (*self._base(table.section), "tables", table.index)
        return pointer(*base) if row is None else pointer(*base, "rows", row)

    def _table_rows(self, table: _HtmlTable) -> tuple[list[tuple[str, int, int]], list[_Node]]:
        """The header columns ``(title, start col, colspan)`` and the row tree of one table."""
        element = table.element
        rows = [tr for tr in element.iter("tr") if _owner_table(tr) is element]
        header_rows = [tr for tr in rows if tr.find("th") is not None or (tr.getparent() is not None and tr.getparent().tag == "thead")]
        body = [tr for tr in rows if tr not in header_rows]
        header: list[tuple[str, int, int]] = []
        if header_rows:
            col = 0
            for cell in header_rows[0]:
                if cell.tag not in ("th", "td"):
                    continue
                span = self._span(cell, "colspan", table)
                header.append((_text(cell), col, span))
                col += span
        grid: dict[tuple[int, int], _Cell] = {}
        for r, tr in enumerate(body):
            col = 0
            for cell in tr:
                if cell.tag not in ("th", "td"):
                    continue
                while (r, col) in grid:
                    col += 1
                rowspan = self._span(cell, "rowspan", table)
                colspan = self._span(cell, "colspan", table)
                if r + rowspan > len(body):
                    line = self._line_of(cell, table)
                    self._diag(
                        "table-rowspan-overflow",
                        Severity.WARNING,
                        f"rowspan={cell.get('rowspan')} claims {rowspan} rows but only {len(body) - r} remain in the table; cut to {len(body) - r}",
                        line,
                        self._table_pointer(table, r),
                    )
                    rowspan = len(body) - r
                info = _Cell(cell, r, col, rowspan, colspan, _text(cell))
                for dr in range(rowspan):
                    for dc in range(colspan):
                        grid.setdefault((r + dr, col + dc), info)
                col += colspan
        if not header:
            header = self._guess_header(table, body, grid)
        return header, self._tree(table, body, grid, header)

    def _span(self, cell: Any, attr: str, table: _HtmlTable) -> int:
        """A cell's ``rowspan``/``colspan``: 1 when absent or invalid, a colspan capped at :data:`_MAX_SPAN`.

        A rowspan longer than the rows left is cut by the caller (``table-rowspan-overflow``).
        """
        raw = cell.get(attr)
        if raw is None:
            return 1
        try:
            value = int(str(raw).strip())
        except ValueError:
            value = 0
        if value < 1:
            self._diag("table-span-invalid", Severity.WARNING, f"{attr}={raw!r} is not a positive integer; read as 1", self._line_of(cell, table), self._table_pointer(table))
            return 1
        if attr == "colspan" and value > _MAX_SPAN:
            self._diag("table-span-invalid", Severity.WARNING, f"{attr}={raw!r} is implausibly large; cut to {_MAX_SPAN}", self._line_of(cell, table), self._table_pointer(table))
            return _MAX_SPAN
        return value

    def _line_of(self, element: Any, table: _HtmlTable) -> int:
        """0-based page line of an lxml element of ``table``."""
        line = getattr(element, "sourceline", None)
        return table.start + line - 1 if isinstance(line, int) and line > 0 else table.start

    def _guess_header(self, table: _HtmlTable, body: list[Any], grid: dict[tuple[int, int], _Cell]) -> list[tuple[str, int, int]]:
        """Columns of a table without a header row: the Type column is the one holding type words."""
        width = max((c for _, c in grid), default=-1) + 1
        best, best_count = -1, 0
        for c in range(width):
            count = sum(1 for r in range(len(body)) if (cell := grid.get((r, c))) is not None and cell.col == c and cell.row == r and _type_words(cell.text))
            if count > best_count:
                best, best_count = c, count
        if best < 1 or best_count * 2 < len(body):
            self._diag("table-no-header", Severity.WARNING, "table has no header row and no column of type names; skipped", table.start, self._table_pointer(table))
            return []
        self._diag(
            "table-no-header",
            Severity.WARNING,
            f"table has no header row; column {best + 1} holds type names, so the columns before it are names and the last is the description",
            table.start,
            self._table_pointer(table),
        )
        header = [("Parameter Name", 0, best), ("Type", best, 1)]
        if width > best + 1:
            header.append(("Description", width - 1, 1))
        return header

    def _tree(self, table: _HtmlTable, body: list[Any], grid: dict[tuple[int, int], _Cell], header: list[tuple[str, int, int]]) -> list[_Node]:
        if not header:
            return []
        names_width = header[0][2]
        type_col = next((c for t, c, _ in header if t.strip().lower() == "type"), None)
        desc_col = next((c for t, c, _ in header if t.strip().lower() in ("description", "explanation", "meaning")), None)
        roots: list[_Node] = []
        stack: list[_Node] = []
        for r, tr in enumerate(body):
            line = self._line_of(tr, table)
            ptr = self._table_pointer(table, r)
            name_cell = None
            for c in range(names_width):
                cell = grid.get((r, c))
                if cell is None:
                    continue
                if cell.row == r and not cell.placeholder:
                    name_cell = cell
                    break
            if name_cell is None:
                self._diag("table-row-unnamed", Severity.WARNING, "row has no name cell in the name columns; skipped", line, ptr)
                continue
            if any(grid.get((r, c)) is None for c in range(name_cell.col)):
                self._diag("table-row-short", Severity.WARNING, "row has fewer leading cells than its depth needs (a rowspan above it is too short?)", line, ptr)
            if name_cell.col + name_cell.colspan != names_width:
                self._diag(
                    "table-row-misaligned",
                    Severity.WARNING,
                    f"name cell {name_cell.text!r} covers columns {name_cell.col + 1}-{name_cell.col + name_cell.colspan} "
                    f"but the name columns are 1-{names_width} (a rowspan above is too short or too long?); "
                    "its depth is read from where it starts",
                    line,
                    ptr,
                )
            type_cell = grid.get((r, type_col)) if type_col is not None else None
            desc_cell = grid.get((r, desc_col)) if desc_col is not None else None
            node = _Node(
                name_cell.text.strip(),
                type_cell.text.strip() if type_cell is not None else "",
                desc_cell.text if desc_cell is not None and desc_cell.row == r else "",
                line,
                r,
                name_cell.col,
            )
            depth = name_cell.col
            if depth == 0:
                roots.append(node)
                stack = [node]
                continue
            if depth > len(stack):
                self._diag(
                    "table-depth-jump",
                    Severity.WARNING,
                    f"row {node.name!r} is nested {depth} levels deep but the row above is at level {len(stack) - 1}; attached to it",
                    line,
                    ptr,
                )
                depth = len(stack)
                if depth == 0:
                    roots.append(node)
                    stack = [node]
                    continue
            stack[depth - 1].children.append(node)
            stack = stack[:depth] + [node]
        return roots

    # -- the chunk -------------------------------------------------------------------------------

    def _chunk_message(self, tables: list[_HtmlTable], streams: list[ExampleStream]) -> Message | None:
        found: list[tuple[_HtmlTable, Schema, str]] = []
        for table in tables:
            header, roots = self._table_rows(table)
            titles = [t.strip().lower() for t, _, _ in header]
            if "type" not in titles:
                reason = "a request parameter table (requests are not decoded)" if "required" in titles else "no Type column"
                self._diag("table-skipped", Severity.INFO, f"table skipped: {reason}", table.start, self._table_pointer(table))
                continue
            members, wrapper = roots, None
            if len(roots) == 1 and roots[0].name == "data" and roots[0].children:
                wrapper = roots[0]
                members = roots[0].children
                self._diag(
                    "table-data-wrapper",
                    Severity.INFO,
                    "the table's top row `data` is the SSE field carrying the chunk, not a member; its rows are the chunk's members",
                    wrapper.line,
                    self._table_pointer(table, wrapper.index),
                )
            choices = next((m for m in members if m.name == "choices"), None)
            if choices is None or not any(c.name == "delta" for c in choices.children):
                if choices is None:
                    what = "not a chunk (no `choices`)"
                elif any(c.name == "message" for c in choices.children):
                    what = "a non-streaming response (choices hold `message`)"
                else:
                    what = "`choices` has no `delta` row"
                self._diag("table-skipped", Severity.INFO, f"table skipped: {what}", table.start, self._table_pointer(table))
                continue
            object_row = next((m for m in members if m.name == "object"), None)
            always = ALWAYS_VALUE.search(object_row.description) if object_row else None
            name = str(ClassName(always.group(1))) if always else "ChatCompletionChunk"
            props = tuple(self._property(table, m, name + (pascal(m.name) or "Member")) for m in members)
            schema = Schema(
                "object",
                self._prov(table.start, self._table_pointer(table)),
                name=name,
                title=table.caption,
                description=wrapper.description if wrapper else "",
                properties=props,
            )
            found.append((table, schema, always.group(1) if always else "chat.completion.chunk"))
        if not found:
            return None
        table, schema, object_value = found[0]
        for other, other_schema, _ in found[1:]:
            self._compare_tables(table, schema, other, other_schema)
        instances = []
        for stream in streams:
            for i, event in enumerate(stream.events()):
                value = _json_or_none(event.data)
                if isinstance(value, dict) and (value.get("object") == object_value or "choices" in value):
                    instances.append((value, stream.event_provenance(i)))
        schema = refine_with_instances(schema, instances, self.diagnostics)
        return Message(
            name=schema.name,
            kind="data",
            payload=schema,
            provenance=schema.provenance,
            title=table.caption,
            description=schema.description,
        )

    def _property(self, table: _HtmlTable, node: _Node, name: str) -> Property:
        prov = self._prov(node.line, self._table_pointer(table, node.index))
        kind, nullable = self._type(node.type_text, prov)
        # Members of a list's items are named from the item (``choices`` -> ``...ChoiceDelta``).
        parent = singular(name) if kind == "array" else name
        children = tuple(self._property(table, c, parent + (pascal(c.name) or "Member")) for c in node.children)
        description = node.description
        schema: Schema
        if children:
            if kind == "array":
                schema = Schema("array", prov, items=Schema("object", prov, name=parent, properties=children))
            else:
                if kind not in ("object", "any"):
                    self._diag("table-children-ignored-type", Severity.WARNING, f"{node.name!r} is typed {node.type_text!r} but has nested rows; read as an object", node.line, prov.pointer)
                schema = Schema("object", prov, name=name, properties=children)
        else:
            schema = Schema(kind, prov, name=name if kind == "object" else "")
        if schema.type == "string":
            always = ALWAYS_VALUE.search(description)
            values = _listed_values(description)
            if always:
                schema = replace(schema, name=name, enum=(always.group(1),))
            elif values:
                schema = replace(schema, name=name, enum=tuple(values))
        schema = replace(schema, description=description, nullable=nullable)
        return Property(node.name, schema, not is_conditional(description), description, prov)

    def _type(self, text: str, prov: Provenance) -> tuple[SchemaType, bool]:
        words = [w.strip().strip("`").lower() for w in re.split(r"\||,|\bor\b", text) if w.strip()]
        nullable = "null" in words
        kinds = [TYPE_WORDS.get(w) for w in words if w != "null"]
        if not kinds or any(k is None for k in kinds) or len(set(kinds)) > 1:
            self._diag("type-unknown", Severity.WARNING, f"unknown type {text!r}; typed as any JSON", prov.line - 1, prov.pointer)
            return "any", nullable
        return kinds[0], nullable  # type: ignore[return-value]

    def _compare_tables(self, table: _HtmlTable, schema: Schema, other: _HtmlTable, other_schema: Schema) -> None:
        """Report a second copy of the chunk table: same structure (info) or conflicts (warnings)."""
        conflicts: list[tuple[str, str, Provenance]] = []
        descriptions = _diff(schema, other_schema, "", conflicts)
        where = self._table_pointer(other)
        if not conflicts:
            self._diag(
                "duplicate-table",
                Severity.INFO,
                f"this table repeats the one at line {table.start + 1} (another translation of the page): same members and types, "
                f"{descriptions} description(s) worded differently; the first is kept",
                other.start,
                where,
            )
            return
        for path, what, prov in conflicts:
            self._diag(
                "duplicate-table-conflict",
                Severity.WARNING,
                f"this copy of the table at line {table.start + 1} differs at {path or '/'}: {what}; the first copy is kept",
                prov.line - 1,
                prov.pointer,
            )

    # -- example streams -------------------------------------------------------------------------

    def _streams(self) -> list[ExampleStream]:
        streams: list[ExampleStream] = []
        names = Slugs()
        for start, end, info, content in self.fences:
            body = content.split("\n")
            wire = [(start + 1 + i, line) for i, line in enumerate(body) if line.strip()]
            if not any(WIRE_FIELD.match(line.strip()) and line.strip().startswith("data:") for _, line in wire):
                if info.split()[:1] == ["json"] and not _parses(content):
                    self._diag("fence-invalid-json", Severity.WARNING, "this ```json block is not valid JSON (e.g. single-quoted strings)", start, self._line_pointer(start))
                continue
            section = self._section_at(start)
            frames = self._frames(wire)
            if not frames:
                continue
            index = section.examples
            section.examples += 1
            ptr = pointer(*self._base(section), "examples", index)
            name = names.unique(section.slug or "example")
            # "(“stream”=true, with configuration “fullTextEnabled”=true, ...)": cumulative deltas.
            intro = "\n".join(self.lines[max(section.line, 0) : start])
            full_text = bool(re.search(r"fullTextEnabled\W*=\s*true", intro, re.IGNORECASE))
            streams.append(ExampleStream(name, tuple(frames), Provenance(self.file, frames[0].line, ptr), full_text))
        kept = drop_repeated_streams(streams, self.diagnostics, self.file)
        for stream in kept:
            events = stream.events()
            if not events or events[-1].data != "[DONE]":
                self._diag(
                    "example-stream-unterminated",
                    Severity.WARNING,
                    f"example stream {stream.name!r} does not end with `data: [DONE]` like the page's other streams (truncated?)",
                    stream.provenance.line - 1,
                    stream.provenance.pointer,
                )
        return kept

    def _frames(self, wire: list[tuple[int, str]]) -> list[WireFrame]:
        """SSE frames of a fence's non-blank lines (``#`` annotations dropped, split JSON rejoined)."""
        frames: list[WireFrame] = []
        pending: list[tuple[str, str]] = []
        pending_line = -1
        i = 0
        while i < len(wire):
            k, raw = wire[i]
            line = raw.strip()
            i += 1
            if line.startswith("#"):
                continue
            if line.startswith(":"):
                frames.append(WireFrame((("", line[1:].strip()),), k + 1))
                continue
            match = WIRE_FIELD.match(line)
            if match is None:
                self._diag("example-line-ignored", Severity.WARNING, f"line {line[:40]!r} in an example stream is not an SSE field; ignored", k, self._line_pointer(k))
                continue
            name, value = match.group(1), match.group(2).strip()
            if name != "data":
                if not pending:
                    pending_line = k
                pending.append((name, value))
                continue
            if value.startswith(("{", "[")) and not _parses(value):
                parts = [value]
                for j in range(i, len(wire)):
                    if WIRE_FIELD.match(wire[j][1].strip()):
                        break
                    parts.append(wire[j][1])
                    if _parses("\n".join(parts)):
                        value = compact_json(json.loads("\n".join(parts)))
                        self._diag("example-data-rejoined", Severity.INFO, "the JSON after `data:` goes on without the `data:` prefix; joined into one compact `data:` line", k, self._line_pointer(k))
                        i = j + 1
                        break
            frames.append(WireFrame(tuple(pending) + (("data", value),), (pending_line if pending else k) + 1))
            pending = []
        if pending:
            frames.append(WireFrame(tuple(pending), pending_line + 1))
        return frames

    def _done_message(self, streams: list[ExampleStream]) -> Message | None:
        for stream in streams:
            events = stream.events()
            if events and events[-1].data == "[DONE]":
                prov = stream.event_provenance(len(events) - 1)
                self._diag(
                    "terminator-from-example",
                    Severity.INFO,
                    "the page does not document a terminator, but its example streams end with `data: [DONE]`; StreamDone is read from them",
                    prov.line - 1,
                    prov.pointer,
                )
                payload = Schema("string", prov, name="StreamDone", enum=("[DONE]",))
                return Message(
                    name="StreamDone",
                    kind="terminator",
                    payload=payload,
                    provenance=prov,
                    content_type="text/plain",
                    examples=(Example("", "", "[DONE]", prov),),
                )
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
            section = self._section_at(tok.map[0])
            index = self.table_index.get(tok.map[0], 0)
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
                        rows.append((t.map[0] if t.map else tok.map[0], current))
                elif t.type == "inline" and current is not None:
                    current.append(t.content.strip())
                elif t.type == "tr_close" and part == "thead_open" and current is not None:
                    header = current
                j += 1
            i = j + 1
            if not header or header[0].strip().lower() != "code":
                continue
            for n, (line, cells) in enumerate(rows):
                if not cells or not cells[0]:
                    continue
                code: int | str = int(cells[0]) if cells[0].isdigit() else cells[0]
                meaning = cells[1] if len(cells) > 1 else ""
                codes.append(ErrorCode(code, meaning, self._prov(line, pointer(*self._base(section), "tables", index, "rows", n))))
        return codes


# -- helpers --------------------------------------------------------------------------------------


def _parse_table(fragment: str) -> Any:
    """The ``<table>`` element of an HTML fragment, or None (lxml errors become None)."""
    try:
        root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return None
    if root.tag == "table":
        return root
    found = root.find(".//table")
    return found


def _owner_table(element: Any) -> Any:
    node = element.getparent()
    while node is not None and node.tag != "table":
        node = node.getparent()
    return node


def _text(cell: Any) -> str:
    """Text of a table cell: each paragraph on a line, ``<li>`` items as ``- item`` lines (nested ones indented).

    Whitespace inside a line is collapsed; text is kept as written (Chinese included).
    """
    lines: list[str] = []

    def walk(node: Any, indent: str, marker: str) -> None:
        first = [True]
        buf: list[str] = [node.text or ""]

        def line(text: str) -> None:
            text = " ".join(text.split())
            if text:
                lines.append(indent + (marker if first[0] else " " * len(marker)) + text)
                first[0] = False

        def emit() -> None:
            line("".join(buf))
            buf.clear()

        for child in node:
            tag = child.tag if isinstance(child.tag, str) else ""
            if tag in ("ul", "ol"):
                emit()
                for item in child:
                    if getattr(item, "tag", "") == "li":
                        walk(item, indent + " " * len(marker), "- ")
            elif tag in ("p", "div"):
                emit()
                line(child.text_content())
            elif tag == "br":
                emit()
            elif tag:
                buf.append(child.text_content())
            buf.append(child.tail or "")
        emit()

    walk(cell, "", "")
    return "\n".join(lines)


def _type_words(text: str) -> bool:
    words = [w.strip().lower() for w in re.split(r"\||,|\bor\b", text) if w.strip()]
    return bool(words) and all(w in TYPE_WORDS for w in words)


def _listed_values(description: str) -> list[str]:
    """``stop``, ``length`` from a description whose top-level ``- value:`` items list the values."""
    items = [line[2:] for line in description.split("\n") if line.startswith("- ")]
    values = []
    for item in items:
        match = re.match(r"^([A-Za-z_][\w]*)\s*[:：]", item)
        if not match:
            return []
        values.append(match.group(1))
    return values


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


def _parses(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def _json_or_none(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
