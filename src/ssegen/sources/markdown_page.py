"""A scraped markdown streaming-API page (seed 003, Xerotier "Streaming API") -> IR.

The page is read with markdown-it-py (CommonMark plus GFM tables); its block
tokens and their line maps are the base, and the scrape's quirks are fixed on
top of them, each with a diagnostic (in brackets) where it changes what
markdown-it saw:

* headings lost their ``#`` ("Chunk Structure"): short Title Case lines inside
  paragraphs are section titles (:func:`_looks_like_title`);
* no blank line after a table: GFM runs the table on into the prose below; the
  table ends at its first line without ``|`` and markdown-it re-reads the rest
  of the page from there [``table-unterminated``];
* ``string | null`` type cells: a row with more cells than the header is
  re-read from its source line and the extra cells are joined into the Type
  cell, a nullable type [``table-cell-pipe``]; extra cells that are not type
  words are joined into the last cell [``table-cell-extra``];
* rows lacking the leading ``|`` (finish_reason Values): GFM allows them, and
  markdown-it's cells are used as they are;
* a row spread over several lines (Error Types): markdown-it reads every line
  as a padded row of its own; the body is re-read from its source lines, a line
  without a leading ``|`` continuing the open row until it has every cell
  [``table-row-continued``];
* ``# comment`` lines in example streams: markdown-it makes them headings; next
  to ``data:`` lines they are annotations and are dropped;
* multi-line JSON after ``data:`` (``x_chat.metadata``): the continuation lines
  are joined into one compact ``data:`` line [``example-data-rejoined``];
* one-line format samples (``data: {...,...}\\n\\n``, with an elided ``...`` or
  an escaped ``\\n``) are notation, not example streams [``wire-format-sample``];
* prose that starts a line with ``data:`` ("data: lines within the stream") is
  not wire: a ``data:`` value must be JSON, ``[DONE]`` or one token.
* pipe rows with no header and delimiter row are a paragraph to markdown-it;
  they are reported, not guessed at [``table-no-header``].

The row splitter (:func:`_split_row`) is used only for table rows markdown-it
cannot represent: more cells than the header (it drops the extra cells) and
rows continued on the next lines (it pads every line into a row of its own).

What the page yields (names built from the page, never counters):

* ``ChatCompletionChunk`` (kind ``data``) from the table after "Chunk Structure";
  the class name comes from its ``object`` row (``Always "chat.completion.chunk"``).
  The choice object (``ChatCompletionChunkChoice``) is named only in prose
  ("choice objects containing delta content, finish_reason, and optional
  logprobs"): its members come from that prose, their schemas from the tables
  of the sections named after them (Delta Object, finish_reason Values) or from
  a table of dotted names rooted at them (``logprobs.content``); ``index`` is in
  every example choice and is added from the examples.  Requiredness is "stated
  unless the description says conditional presence", then relaxed where an
  example stream omits the member (:func:`.examples.refine_with_instances`).
* one ``vendor`` message per ``x_*`` event type (table rows, and prose-only
  sections titled ``... (x_name)`` with a ``Fields:`` line or a JSON example),
  named by :class:`~ssegen.naming.ClassName` of the type
  (``x_research.searching`` -> ``XResearchSearching``); payload ``type`` is a
  required one-value string enum, the other fields come from ``Fields: ...``:
  ``name (note)`` items split on top-level commas; the note is the description
  and may state the type (``JSON string``, ``boolean``, ``object with summary``,
  ``array of {path, contentType, size}`` -> an array of ``...File`` objects);
  ``optional``/``when known`` make a field not required; a field typed once on
  the page is typed so everywhere (``arguments``); an untyped field is a string
  unless its name suggests a number (``total_subtasks``, ``size``) or a
  collection (``toolCalls``): then it is any JSON [``field-type-unknown``].
  ``Same fields as x_artifact.created`` copies that event's fields.  Members
  known only from a JSON example (``x_chat.metadata``) are optional: one example
  does not show which are always sent.
* ``StreamError`` (kind ``error``, SSE event ``error``) from the Mid-Stream
  Errors example and the Error Types table; the error ``type`` is an enum of the
  table's types, the ``code`` is a plain string whose description lists the
  documented codes (the table says ``varies`` for ``server_error``, so the set
  is open: an enum would make the strict schema reject documented behaviour).
* ``StreamDone`` (kind ``terminator``), the literal ``[DONE]``.

Example streams are harvested from every run of ``data:``/``event:``/comment
lines and returned as :class:`.examples.ExampleStream` (pointer scheme in
:mod:`.examples`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

from markdown_it.token import Token

from ..diagnostics import Diagnostics, Severity
from ..ir import Channel, Example, Message, Property, Provenance, Schema, SchemaType
from ..naming import ClassName, pascal, singular, snake
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
    schema_from_json,
)

_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_PIPE = re.compile(r"(?<!\\)\|")
_TITLE_STOPWORDS = frozenset({"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "via", "with"})
_NUMERIC_WORDS = frozenset({"count", "index", "tokens", "total", "size", "sequence", "number", "num", "length", "duration", "ms"})
_MAX_JSON_LINES = 500


# -- detection ---------------------------------------------------------------------------


def looks_like_markdown_streaming_page(text: str) -> bool:
    """True when ``text`` is a markdown page documenting an SSE stream (seed 003).

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
    return any(_DELIMITER_ROW.match(line) and "|" in line for line in text.splitlines())


# -- page structure ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Block:
    """A top-level markdown-it block: its type, 0-based line range and tokens."""

    type: str
    start: int
    end: int
    tokens: tuple[Token, ...]
    offset: int  # add to a token's map to get a 0-based page line


@dataclass
class _Section(PageSection):
    end: int = 0  # 0-based line after the section's last line


@dataclass(frozen=True)
class _Row:
    cells: tuple[str, ...]
    start: int  # 0-based first line
    end: int  # 0-based last line
    index: int


@dataclass
class _Table:
    header: tuple[str, ...]
    rows: list[_Row]
    start: int  # 0-based header line
    section: _Section
    index: int  # among the section's tables
    used: bool = False

    def column(self, *names: str) -> int | None:
        """Index of the first header cell named one of ``names`` (case-insensitive)."""
        lowered = [h.strip().lower() for h in self.header]
        for name in names:
            if name in lowered:
                return lowered.index(name)
        return None

    def cell(self, row: _Row, *names: str) -> str:
        """The cell of ``row`` under the column named one of ``names`` ("" if none)."""
        col = self.column(*names)
        return row.cells[col] if col is not None and col < len(row.cells) else ""


@dataclass
class _Run:
    """A run of wire lines on the page (an example stream before normalization)."""

    frames: list[WireFrame]
    start: int  # 0-based first line
    end: int  # 0-based last line (inclusive)
    section: _Section
    sample: bool = False  # a one-line notation sample, not an example stream
    json_starts: dict[int, int] = field(default_factory=dict)  # frame index -> 0-based line of a multi-line JSON


@dataclass(frozen=True)
class _Sample:
    """A one-line wire-format sample whose payload is a typed JSON object (an example of that type)."""

    type: str
    title: str
    data: str
    provenance: Provenance


def load_markdown_page(text: str, file: str, diagnostics: Diagnostics) -> PageResult:
    """Read a markdown streaming page (seed 003, Xerotier) into IR parts.

    Args:
        text: the page text (markdown as scraped; ``\\r\\n`` is accepted).
        file: its path relative to the specs folder, for provenance.
        diagnostics: receives one diagnostic per quirk fixed or problem found,
            each with the 1-based line and a pointer (scheme in :mod:`.examples`).

    Returns:
        A :class:`~.examples.PageResult`: the ``/chat/completions`` channel with
        ``ChatCompletionChunk``, the ``x_*`` vendor messages, ``StreamError`` and
        ``StreamDone`` (each only if the page documents it); the harvested example
        streams; the Error Types table's codes as :class:`~.examples.ErrorCode`;
        the page title.  The channel is None (with an error diagnostic
        ``chunk-table-missing``) when the page has no chunk table.  Never raises
        for bad input.
    """
    return _MarkdownPage(text, file, diagnostics).load()


class _MarkdownPage(PageReader[_Section]):
    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        super().__init__(text, file, diagnostics)
        self.blocks: list[_Block] = []
        self.line_block: list[str] = []  # block type of every line ("" for blank/outside)
        self.tables: list[_Table] = []
        self.runs: list[_Run] = []
        self.annotations: set[int] = set()
        self.field_types: dict[str, SchemaType] = {}
        self.unterminated: list[tuple[int, int]] = []  # (header line, real end) of tables GFM ran on

    # -- orchestration --------------------------------------------------------------

    def load(self) -> PageResult:
        self._parse_blocks()
        self._find_wire_runs_and_sections()
        self._read_tables()
        streams, samples = self._streams()
        title = next((s.title for s in self.sections if s.line >= 0), "")
        chunk = self._chunk_message(streams)
        messages: list[Message] = []
        if chunk is None:
            self._diag("chunk-table-missing", Severity.ERROR, "no Field/Type/Description table with a `choices` row: the page documents no chunk", 0, "")
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
                self._diag(
                    "table-unused",
                    Severity.INFO,
                    f"table ({' | '.join(table.header)}) in section {table.section.title!r} describes nothing ssegen decodes; ignored",
                    table.start,
                    self._table_pointer(table),
                )
        channel = None
        if chunk is not None:
            channel = Channel(
                address=CHANNEL_ADDRESS,
                messages=tuple(self._unique_messages(messages)),
                provenance=self._channel_provenance(),
                summary=title,
                description=self._lead_paragraph(),
            )
        return PageResult(channel, streams, error_codes, title)

    # -- diagnostics and provenance ------------------------------------------------------

    def _line_pointer(self, line: int) -> str:
        section = self._section_at(line)
        if section.line < 0:
            return pointer("lines", line)
        return pointer("sections", section.slug, "lines", line - section.line)

    def _table_pointer(self, table: _Table, row: _Row | None = None) -> str:
        base = ("sections", table.section.slug, "tables", table.index) if table.section.line >= 0 else ("tables", table.index)
        if row is None:
            return pointer(*base)
        return pointer(*base, "rows", row.index)

    def _row_prov(self, table: _Table, row: _Row) -> Provenance:
        return self._prov(row.start, self._table_pointer(table, row))

    # -- markdown-it blocks, with the unterminated-table fix-up ---------------------------

    def _parse_blocks(self) -> None:
        """Top-level blocks of the page; a table that GFM ran on into prose is cut and the rest re-read."""
        start = 0
        while start < len(self.lines):
            tokens = MARKDOWN.parse("\n".join(self.lines[start:]))
            restart = None
            i = 0
            while i < len(tokens):
                tok = tokens[i]
                j = i
                if tok.nesting == 1:
                    j = i + 1
                    while j < len(tokens) and not (tokens[j].level == tok.level and tokens[j].nesting == -1):
                        j += 1
                if tok.map is None:
                    i = j + 1
                    continue
                kind = tok.type.removesuffix("_open")
                first, last = tok.map[0] + start, tok.map[1] + start
                if kind == "table":
                    real_end = _table_end(self.lines, first, last)
                    if real_end < last:
                        self.unterminated.append((first, real_end))
                        self.blocks.append(_Block(kind, first, real_end, tuple(tokens[i : j + 1]), start))
                        restart = real_end
                        break
                self.blocks.append(_Block(kind, first, last, tuple(tokens[i : j + 1]), start))
                i = j + 1
            if restart is None:
                break
            start = restart
        self.line_block = [""] * len(self.lines)
        for block in self.blocks:
            for k in range(block.start, min(block.end, len(self.lines))):
                self.line_block[k] = block.type

    # -- wire runs and section titles -------------------------------------------------------

    def _find_wire_runs_and_sections(self) -> None:
        """Section titles (headings, title-like paragraph lines) and runs of wire lines, in one pass."""
        slugs = Slugs()
        self.sections = [_Section("", "", -1)]
        wire_lines: set[int] = set()
        runs: list[tuple[int, int]] = []  # (first, last) 0-based, inclusive
        k = 0
        n = len(self.lines)
        while k < n:
            if self._is_wire_line(k) or (self._is_annotation(k) and self._annotation_leads_to_wire(k)):
                last = self._scan_run(k)
                runs.append((k, last))
                wire_lines.update(range(k, last + 1))
                k = last + 1
                continue
            k += 1
        # section titles: markdown-it headings that are not annotations, and title-like paragraph lines
        for k, line in enumerate(self.lines):
            if k in wire_lines:
                continue
            kind = self.line_block[k]
            title = ""
            if kind == "heading":
                title = re.sub(r"^\s*#{1,6}\s*|\s*#+\s*$", "", line).strip()
            elif kind in ("paragraph", "bullet_list", "ordered_list") and _looks_like_title(line):
                title = line.strip()
            if title:
                self.sections.append(_Section(title, slugs.unique(title), k))
        for i, section in enumerate(self.sections):
            section.end = self.sections[i + 1].line if i + 1 < len(self.sections) else n
        for first, last in runs:
            self.runs.append(self._build_run(first, last))

    def _is_wire_line(self, k: int) -> bool:
        """An SSE line as a server sends it: ``data: {...}``, ``event: error``, ``: comment``.

        A ``data:`` value must look like a payload (JSON, ``[DONE]``, one token):
        prose that happens to start a line with ``data:`` ("data: lines within
        the stream") is not wire.
        """
        if self.line_block[k] not in ("paragraph", "heading", "fence", "code_block"):
            return False
        line = self.lines[k]
        match = WIRE_FIELD.match(line)
        if match is None:
            return line.startswith(":") and not line.startswith("::")
        value = match.group(2).strip()
        if match.group(1) == "data":
            return value[:1] in ("{", "[", '"') or " " not in value
        return " " not in value

    def _is_annotation(self, k: int) -> bool:
        return self.line_block[k] == "heading" and self.lines[k].lstrip().startswith("#")

    def _annotation_leads_to_wire(self, k: int) -> bool:
        j = k
        while j < len(self.lines) and self._is_annotation(j):
            j += 1
        return j < len(self.lines) and self._is_wire_line(j)

    def _scan_run(self, k: int) -> int:
        """The last line (0-based, inclusive) of the run of wire lines starting at ``k``."""
        last = k
        j = k
        n = len(self.lines)
        while j < n:
            if self._is_wire_line(j):
                end = self._json_continuation_end(j)
                last = end
                j = end + 1
            elif self._is_annotation(j) and self._annotation_leads_to_wire(j):
                j += 1
            elif not self.lines[j].strip() and self.line_block[j] in ("", "fence", "code_block"):
                nxt = j
                while nxt < n and not self.lines[nxt].strip():
                    nxt += 1
                if nxt < n and self._is_wire_line(nxt) and self._same_container(j, nxt):
                    j = nxt
                else:
                    break
            else:
                break
        return last

    def _same_container(self, a: int, b: int) -> bool:
        """True when lines ``a`` and ``b`` are not separated by a fence boundary."""
        for block in self.blocks:
            if block.type == "fence" and (block.start <= a < block.end) != (block.start <= b < block.end):
                return False
        return True

    def _json_continuation_end(self, k: int) -> int:
        """For a ``data:`` line whose JSON goes on below without the prefix, the JSON's last line."""
        match = WIRE_FIELD.match(self.lines[k])
        if not match or match.group(1) != "data":
            return k
        value = match.group(2).strip()
        if not value.startswith(("{", "[")) or _parses(value):
            return k
        parts = [value]
        for j in range(k + 1, min(len(self.lines), k + 1 + _MAX_JSON_LINES)):
            if self._is_wire_line(j) or self.line_block[j] in ("table", "html_block"):
                break
            parts.append(self.lines[j])
            if _parses("\n".join(parts)):
                return j
        return k

    def _build_run(self, first: int, last: int) -> _Run:
        section = self._section_at(first)
        frames: list[WireFrame] = []
        pending: list[tuple[str, str]] = []
        pending_line = -1
        json_starts: dict[int, int] = {}
        sample = False
        j = first
        while j <= last:
            line = self.lines[j]
            if self._is_annotation(j) or not line.strip():
                if self._is_annotation(j):
                    self.annotations.add(j)
                j += 1
                continue
            match = WIRE_FIELD.match(line)
            if match is None:  # a comment frame
                frames.append(WireFrame((("", line[1:].strip()),), j + 1))
                j += 1
                continue
            name, value = match.group(1), match.group(2)
            if name != "data":
                if not pending:
                    pending_line = j
                pending.append((name, value.strip()))
                j += 1
                continue
            end = self._json_continuation_end(j)
            if end > j:
                joined = "\n".join([value.strip(), *self.lines[j + 1 : end + 1]])
                value = compact_json(json.loads(joined))
                json_starts[len(frames)] = j
                self._diag(
                    "example-data-rejoined",
                    Severity.INFO,
                    f"the JSON after `data:` goes on for {end - j} more lines without the `data:` prefix; joined into one compact `data:` line",
                    j,
                    self._line_pointer(j),
                )
            elif _is_notation(value):
                sample = True
            frames.append(WireFrame(tuple(pending) + (("data", value),), (pending_line if pending else j) + 1))
            pending = []
            j = end + 1
        if pending:
            frames.append(WireFrame(tuple(pending), pending_line + 1))
        return _Run(frames, first, last, section, sample, json_starts)

    # -- tables ---------------------------------------------------------------------------------

    def _read_tables(self) -> None:
        for first, real_end in self.unterminated:
            self._diag(
                "table-unterminated",
                Severity.INFO,
                f"no blank line ends the table at line {first + 1}: GFM reads the prose below as more rows; "
                f"the table ends at line {real_end} (its last line with a `|`)",
                real_end - 1,
                self._line_pointer(real_end - 1),
            )
        per_section: dict[str, int] = {}
        for block in self.blocks:
            if block.type != "table":
                continue
            section = self._section_at(block.start)
            header, md_rows = _table_tokens(block)
            ncols = len(header)
            index = per_section.get(section.slug, 0)
            per_section[section.slug] = index + 1
            table = _Table(tuple(header), [], block.start, section, index)
            body = [(k, self.lines[k]) for k in range(block.start + 2, block.end)]
            table.rows = self._assemble_rows(table, body, ncols, md_rows)
            self.tables.append(table)
        self._check_headerless_tables()

    def _assemble_rows(
        self, table: _Table, body: list[tuple[int, str]], ncols: int, md_rows: dict[int, list[str]]
    ) -> list[_Row]:
        """Logical rows of a table body: markdown-it's cells where they are right, the row splitter elsewhere."""
        rows: list[_Row] = []
        open_cells: list[str] | None = None
        open_start = -1
        last_line = -1
        for k, text in body:
            cells, leading = _split_row(text)
            if open_cells is not None and leading:
                rows.append(self._finish_row(table, open_cells, open_start, last_line, ncols, md_rows, len(rows)))
                open_cells = None
            if open_cells is None:
                open_cells, open_start = list(cells), k
            else:
                open_cells.extend(cells)
            last_line = k
            if len(open_cells) >= ncols:
                rows.append(self._finish_row(table, open_cells, open_start, k, ncols, md_rows, len(rows)))
                open_cells = None
        if open_cells is not None:
            rows.append(self._finish_row(table, open_cells, open_start, last_line, ncols, md_rows, len(rows)))
        return rows

    def _finish_row(
        self, table: _Table, cells: list[str], start: int, end: int, ncols: int, md_rows: dict[int, list[str]], index: int
    ) -> _Row:
        ptr = self._table_pointer(table, _Row((), start, end, index))
        if end > start:
            self._diag(
                "table-row-continued",
                Severity.INFO,
                f"a row's cells are spread over lines {start + 1}-{end + 1} (markdown-it reads each line as a row); joined into one row",
                start,
                ptr,
            )
        if len(cells) > ncols:
            extra = len(cells) - ncols
            type_col = table.column("type")
            merged = cells[type_col : type_col + extra + 1] if type_col is not None else []
            if type_col is not None and all(_is_type_words(c) for c in merged):
                cells = cells[:type_col] + [" | ".join(merged)] + cells[type_col + extra + 1 :]
                self._diag(
                    "table-cell-pipe",
                    Severity.INFO,
                    f"the type cell `{' | '.join(merged)}` holds an unescaped `|`, which splits the row into {ncols + extra} cells; rejoined",
                    start,
                    ptr,
                )
            else:
                cells = cells[: ncols - 1] + [" | ".join(cells[ncols - 1 :])]
                self._diag(
                    "table-cell-extra",
                    Severity.WARNING,
                    f"row has {ncols + extra} cells for {ncols} columns; the extra cells are joined into the last one",
                    start,
                    ptr,
                )
        elif len(cells) < ncols:
            self._diag("table-row-short", Severity.WARNING, f"row has {len(cells)} cells for {ncols} columns; padded with empty cells", start, ptr)
            cells = cells + [""] * (ncols - len(cells))
        elif end == start and len(md_rows.get(start, [])) == ncols:
            cells = md_rows[start]  # a well-formed row: markdown-it's own cells
        return _Row(tuple(c.strip() for c in cells), start, end, index)

    def _check_headerless_tables(self) -> None:
        """Pipe rows with no header/delimiter row are a paragraph to markdown-it: say so."""
        k = 0
        n = len(self.lines)
        while k < n:
            if self.line_block[k] == "paragraph" and self.lines[k].count("|") >= 2 and k not in self.annotations:
                j = k
                while j < n and self.line_block[j] == "paragraph" and self.lines[j].count("|") >= 2:
                    j += 1
                if j - k >= 2:
                    self._diag(
                        "table-no-header",
                        Severity.WARNING,
                        f"lines {k + 1}-{j} look like table rows but no header and delimiter row (`|---|`) precedes them; not read as a table",
                        k,
                        self._line_pointer(k),
                    )
                k = j
                continue
            k += 1

    # -- the chunk ---------------------------------------------------------------------------------

    def _field_tables(self) -> list[_Table]:
        return [t for t in self.tables if t.column("field", "name", "parameter", "member") == 0 and t.column("type") is not None]

    def _chunk_message(self, streams: list[ExampleStream]) -> Message | None:
        chunk_table = next((t for t in self._field_tables() if any(_row_name(r) == "choices" for r in t.rows)), None)
        if chunk_table is None:
            return None
        chunk_table.used = True
        object_row = next((r for r in chunk_table.rows if _row_name(r) == "object"), None)
        always = ALWAYS_VALUE.search(chunk_table.cell(object_row, "description")) if object_row else None
        name = str(ClassName(always.group(1))) if always else "ChatCompletionChunk"
        props = self._table_properties(chunk_table, chunk_table.rows, name, prefix=())
        choices_row = next(r for r in chunk_table.rows if _row_name(r) == "choices")
        choice_name = name + pascal(singular("choices"))
        choice = self._choice_schema(chunk_table, choices_row, choice_name)
        props = [
            replace(p, schema=replace(p.schema, items=choice)) if p.name == "choices" and p.schema.type == "array" else p
            for p in props
        ]
        section = chunk_table.section
        schema = Schema(
            "object",
            self._prov(chunk_table.start, self._table_pointer(chunk_table)),
            name=name,
            description=self._intro(section),
            properties=tuple(props),
        )
        instances = []
        for stream in streams:
            for i, event in enumerate(stream.events()):
                value = _json_or_none(event.data)
                if isinstance(value, dict) and "type" not in value and (value.get("object") == (always.group(1) if always else "chat.completion.chunk") or "choices" in value):
                    instances.append((value, stream.event_provenance(i)))
        schema = refine_with_instances(schema, instances, self.diagnostics, add_members=[choice_name])
        return Message(
            name=name,
            kind="data",
            payload=schema,
            provenance=schema.provenance,
            title=section.title,
            description=schema.description,
        )

    def _table_properties(self, table: _Table, rows: list[_Row], base: str, prefix: tuple[str, ...]) -> list[Property]:
        """Properties from Field/Type/Description rows; dotted names (``logprobs.content``) nest."""
        tree: dict[str, Any] = {}
        for row in rows:
            path = tuple(p for p in _row_name(row).split(".") if p)
            if not path or path[: len(prefix)] != prefix or len(path) == len(prefix):
                continue
            node = tree
            for part in path[len(prefix) : -1]:
                node = node.setdefault(part, {"row": None, "children": {}})["children"]
            node.setdefault(path[-1], {"row": None, "children": {}})["row"] = row
        return [self._node_property(table, key, node, base + (pascal(key) or "Member")) for key, node in tree.items()]

    def _node_property(self, table: _Table, key: str, node: dict[str, Any], name: str) -> Property:
        row: _Row | None = node["row"]
        is_array = row is not None and _is_type_words(table.cell(row, "type")) and "array" in table.cell(row, "type").lower()
        parent = singular(name) if is_array else name  # members of a list's items are named from the item
        children = [self._node_property(table, k, v, parent + (pascal(k) or "Member")) for k, v in node["children"].items()]
        if row is None:  # an implicit parent of dotted names
            first = _first_row(node)
            prov = self._row_prov(table, first) if first else self._prov(table.start, self._table_pointer(table))
            return Property(key, Schema("object", prov, name=name, properties=tuple(children)), False, "", prov)
        prov = self._row_prov(table, row)
        description = table.cell(row, "description")
        schema = self._type_schema(table.cell(row, "type"), prov, name)
        if children:
            if schema.type == "array":
                schema = replace(schema, items=Schema("object", prov, name=parent, properties=tuple(children)))
            else:
                schema = replace(schema, type="object", name=name, properties=tuple(children))
        always = ALWAYS_VALUE.search(description)
        if always and schema.type == "string" and not schema.enum:
            schema = replace(schema, enum=(always.group(1),), name=name)
        required = not is_conditional(description)
        return Property(key, replace(schema, description=description), required, description, prov)

    def _type_schema(self, cell: str, prov: Provenance, name: str) -> Schema:
        """A schema for a Type cell (``string``, ``string | null``, ``array | null``)."""
        words = [w.strip().strip("`").lower() for w in re.split(r"\||,|\bor\b", cell) if w.strip()]
        nullable = "null" in words
        kinds: list[SchemaType] = []
        for word in words:
            kind = TYPE_WORDS.get(word)
            if kind is None:
                self._diag("type-unknown", Severity.WARNING, f"unknown type {word!r} in {cell!r}; typed as any JSON", prov.line - 1, prov.pointer)
                kind = "any"
            if kind != "null" and kind not in kinds:
                kinds.append(kind)
        if not kinds:
            return Schema("any" if not nullable else "null", prov, nullable=nullable)
        if len(kinds) > 1:
            variants = tuple(Schema(k, prov) for k in kinds)
            return Schema("union", prov, name=name, nullable=nullable, variants=variants)
        kind = kinds[0]
        if kind == "object":
            return Schema("object", prov, name=name, nullable=nullable)
        return Schema(kind, prov, nullable=nullable)

    def _choice_schema(self, chunk_table: _Table, choices_row: _Row, name: str) -> Schema:
        """The choice object, from the prose of the ``choices`` row plus the tables it points to."""
        prov = self._row_prov(chunk_table, choices_row)
        description = chunk_table.cell(choices_row, "description")
        members = _prose_members(description)
        if not members:
            self._diag(
                "choice-members-unknown",
                Severity.WARNING,
                "the `choices` row does not say what a choice contains; choices are typed as objects without members",
                choices_row.start,
                prov.pointer,
            )
            return Schema("object", prov, name=name)
        self._diag(
            "choice-members-prose",
            Severity.INFO,
            f"the choice object is described only in prose; members {', '.join(m for m, _ in members)} are read from it and typed from the tables they name",
            choices_row.start,
            prov.pointer,
        )
        props = [self._choice_member(member, optional, name, prov) for member, optional in members]
        return Schema("object", prov, name=name, properties=tuple(props))


    def _table_member(
        self, table: _Table, member: str, name: str, optional: bool, prov: Provenance, prefix: tuple[str, ...]
    ) -> Property:
        """Member ``member``: an object named ``name`` whose members are ``table``'s rows
        (rows named ``<member>.x`` when ``prefix`` is ``(member,)``); the table is marked used."""
        table.used = True
        props = self._table_properties(table, table.rows, name, prefix=prefix)
        section = table.section
        schema = Schema(
            "object",
            self._prov(table.start, self._table_pointer(table)),
            name=name,
            description=self._intro(section),
            nullable=self._says_null(section, member),
            properties=tuple(props),
        )
        return Property(member, schema, not optional, schema.description, prov)
    def _choice_member(self, member: str, optional: bool, parent: str, prov: Provenance) -> Property:
        name = parent + (pascal(member) or "Member")
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
                    "string",
                    self._prov(table.start, self._table_pointer(table)),
                    name=name,
                    description=text,
                    nullable=nullable,
                    enum=tuple(values),
                )
                return Property(member, schema, not optional, text, prov)
        self._diag(
            "member-type-unknown",
            Severity.WARNING,
            f"choice member {member!r} is named in prose but no table describes it; typed as any JSON",
            prov.line - 1,
            prov.pointer,
        )
        return Property(member, Schema("any", prov), not optional, "", prov)

    def _says_null(self, section: _Section, member: str) -> bool:
        text = " ".join(self._prose(section))
        return bool(re.search(rf"\b(field|{re.escape(member)})\b[^.]*\b(is|are|may be|can be) null\b", text))

    # -- prose helpers --------------------------------------------------------------------------------

    def _prose(self, section: _Section) -> list[str]:
        """The section's paragraph lines after its title (no tables, wire lines or titles)."""
        titles = {s.line for s in self.sections}
        out = []
        for k in range(section.line + 1, section.end):
            if self.line_block[k] != "paragraph" or k in titles or self._is_wire_line(k):
                continue
            if any(run.start <= k <= run.end for run in self.runs):
                continue
            out.append(self.lines[k].strip())
        return out

    def _intro(self, section: _Section) -> str:
        """The section's first paragraph lines (up to its first table or wire line), trailing colon dropped."""
        titles = {s.line for s in self.sections}
        parts: list[str] = []
        for k in range(section.line + 1, section.end):
            if self.line_block[k] != "paragraph" or k in titles or self._is_wire_line(k):
                break
            parts.append(self.lines[k].strip())
        return " ".join(parts).rstrip(":").strip()

    def _lead_paragraph(self) -> str:
        first = next((s for s in self.sections if s.line >= 0), None)
        if first is None:
            return ""
        k = first.line + 1
        return self.lines[k].strip() if k < len(self.lines) and self.line_block[k] == "paragraph" and k not in {s.line for s in self.sections} else ""

    def _channel_provenance(self) -> Provenance:
        for k, line in enumerate(self.lines):
            if "chat/completions" in line:
                return self._prov(k, self._line_pointer(k))
        return self._prov(0, "")

    # -- example streams ------------------------------------------------------------------------------

    def _streams(self) -> tuple[list[ExampleStream], list[_Sample]]:
        """Example streams (notation samples left out and reported) and the samples' JSON object payloads."""
        streams: list[ExampleStream] = []
        samples: list[_Sample] = []
        per_section: dict[str, int] = {}
        names = Slugs()
        for run in self.runs:
            if not run.frames:
                continue
            section = run.section
            index = per_section.get(section.slug, 0)
            per_section[section.slug] = index + 1
            base = ("sections", section.slug, "examples", index) if section.line >= 0 else ("examples", index)
            ptr = pointer(*base)
            if run.sample:
                self._diag(
                    "wire-format-sample",
                    Severity.INFO,
                    "a one-line wire-format sample (elided `...` or an escaped `\\n`), not an example stream; not harvested",
                    run.frames[0].line - 1,
                    ptr,
                )
                for frame in run.frames:
                    data = dict(frame.fields).get("data", "")
                    value = _json_or_none(data)
                    if isinstance(value, dict) and isinstance(value.get("type"), str):
                        samples.append(_Sample(value["type"], section.title, data, Provenance(self.file, frame.line, ptr)))
                continue
            name = names.unique(section.slug or "example")
            streams.append(ExampleStream(name, tuple(run.frames), Provenance(self.file, run.frames[0].line, ptr)))
        return drop_repeated_streams(streams, self.diagnostics, self.file), samples

    # -- vendor events --------------------------------------------------------------------------------

    def _vendor_messages(self, streams: list[ExampleStream], samples: list[_Sample]) -> list[Message]:
        rows: list[tuple[str, str, Provenance, _Table | None, _Row | None]] = []
        for table in self.tables:
            type_col = table.column("type", "event", "event type")
            if type_col != 0 or table.column("code") is not None:
                continue
            entries = [r for r in table.rows if r.cells and r.cells[0].strip("`").startswith("x_")]
            if not entries:
                continue
            table.used = True
            for row in entries:
                rows.append((row.cells[0].strip("`"), table.cell(row, "description"), self._row_prov(table, row), table, row))
        prose_events = self._prose_vendor_events()
        # Page-wide knowledge of field types (a field typed once is typed everywhere).
        for _, description, _, _, _ in rows:
            for item in _field_items(_fields_text(description)):
                parsed = _parse_field(item)
                if parsed and parsed[1]:
                    kind = _stated_type(parsed[1])
                    if kind and parsed[0] not in self.field_types:
                        self.field_types[parsed[0]] = kind
        by_type: dict[str, Schema] = {}
        messages: list[Message] = []
        entries_all = [(t, d, p, None) for t, d, p, _, _ in rows] + [(t, d, p, j) for t, d, p, j in prose_events]
        entries_all.sort(key=lambda e: e[2].line)
        for type_value, description, prov, example_json in entries_all:
            name = str(ClassName(type_value, prefix="Event"))
            summary = re.split(r"\s*\b(?:Fields:|Same fields as\b)", description)[0].strip()
            if example_json is not None:
                value, json_line, member_lines = example_json
                payload = schema_from_json(value, name, Provenance(self.file, json_line, prov.pointer), member_provenance=member_lines)
                payload = self._with_type(payload, type_value, prov)
            else:
                props = self._vendor_fields(description, name, prov, by_type)
                payload = self._with_type(Schema("object", prov, name=name, properties=tuple(props)), type_value, prov)
            by_type[type_value] = payload
            examples = tuple(
                Example("wire-format", sample.title, sample.data, sample.provenance) for sample in samples if sample.type == type_value
            )
            if example_json is not None:
                examples += (Example("", "", compact_json(example_json[0]), Provenance(self.file, example_json[1], prov.pointer)),)
            payload = replace(payload, description=summary)
            messages.append(
                Message(
                    name=name,
                    kind="vendor",
                    payload=payload,
                    provenance=prov,
                    title=type_value,
                    summary=summary,
                    description=description,
                    examples=examples,
                )
            )
        # Vendor events in example streams check the schemas built from prose.
        refined = []
        for message in messages:
            instances = []
            for stream in streams:
                for i, event in enumerate(stream.events()):
                    value = _json_or_none(event.data)
                    if isinstance(value, dict) and value.get("type") == message.title:
                        instances.append((value, stream.event_provenance(i)))
            if instances:
                message = replace(message, payload=refine_with_instances(message.payload, instances, self.diagnostics))
            refined.append(message)
        return refined

    def _with_type(self, payload: Schema, type_value: str, prov: Provenance) -> Schema:
        type_schema = Schema("string", prov, name=payload.name + "Type", enum=(type_value,))
        others = tuple(p for p in payload.properties if p.name != "type")
        return replace(payload, properties=(Property("type", type_schema, True, "", prov),) + others)

    def _prose_vendor_events(self) -> list[tuple[str, str, Provenance, tuple[Any, int, dict[str, Provenance]] | None]]:
        """Vendor events documented by a section of their own (``Context Fork Event (x_context_fork)``)."""
        out: list[tuple[str, str, Provenance, tuple[Any, int, dict[str, Provenance]] | None]] = []
        for section in self.sections:
            match = re.search(r"\((x_[\w.]+)\)\s*$", section.title)
            if not match or any(t.section is section for t in self.tables):
                continue
            type_value = match.group(1)
            prose = self._prose(section)
            description = " ".join(prose)
            prov = self._prov(section.line, pointer("sections", section.slug))
            fields_line = next((k for k in range(section.line + 1, section.end) if self.lines[k].strip().startswith("Fields:")), None)
            if fields_line is not None:
                prov = self._prov(fields_line, self._line_pointer(fields_line))
                out.append((type_value, description, prov, None))
                continue
            example = None
            for run in self.runs:
                if run.section is not section:
                    continue
                for i, frame in enumerate(run.frames):
                    value = _json_or_none(dict(frame.fields).get("data", ""))
                    if isinstance(value, dict) and value.get("type") == type_value:
                        start = run.json_starts.get(i, frame.line - 1)
                        example = (value, frame.line, self._member_lines(value, start))
                        break
                if example:
                    break
            if example is None:
                self._diag(
                    "vendor-fields-unknown",
                    Severity.WARNING,
                    f"vendor event {type_value!r} has neither a `Fields:` line nor a JSON example; only `type` is known",
                    section.line,
                    pointer("sections", section.slug),
                )
            out.append((type_value, description, prov, example))
        return out

    def _member_lines(self, value: dict[str, Any], start: int) -> dict[str, Provenance]:
        """Provenance of each top-level member of a multi-line JSON example starting at 0-based ``start``."""
        out: dict[str, Provenance] = {}
        k = start
        for key in value:
            needle = json.dumps(key) + ":"
            for j in range(k, min(len(self.lines), start + _MAX_JSON_LINES)):
                if needle in self.lines[j].replace('" :', '":'):
                    out[key] = self._prov(j, self._line_pointer(j))
                    k = j + 1
                    break
        return out

    def _vendor_fields(self, description: str, name: str, prov: Provenance, by_type: dict[str, Schema]) -> list[Property]:
        same = re.search(r"\bSame fields as\s+`?(x_[\w.]+?)`?\.?(?:\s|$)", description)
        if same:
            source = by_type.get(same.group(1))
            if source is None:
                self._diag(
                    "vendor-fields-unknown-ref",
                    Severity.WARNING,
                    f"`Same fields as {same.group(1)}` names no event documented above; only `type` is known",
                    prov.line - 1,
                    prov.pointer,
                )
                return []
            return [_rename(p, source.name, name) for p in source.properties if p.name != "type"]
        text = _fields_text(description)
        props: list[Property] = []
        for item in _field_items(text):
            parsed = _parse_field(item)
            if parsed is None:
                self._diag("vendor-field-unparsed", Severity.WARNING, f"cannot read field {item!r}; skipped", prov.line - 1, prov.pointer)
                continue
            props.append(self._field_property(parsed[0], parsed[1], name, prov))
        return props

    def _field_property(self, field_name: str, note: str, parent: str, prov: Provenance) -> Property:
        """One ``name (note)`` field of a ``Fields:`` list."""
        name = parent + (pascal(field_name) or "Member")
        text = note.strip()
        optional = is_conditional(text)
        text = re.sub(r"^optional\b[,;:]?\s*", "", text, flags=re.IGNORECASE)
        lowered = text.lower()
        description = "" if lowered in TYPE_WORDS else text
        members = re.match(r"array of \{(.*)\}", text, re.IGNORECASE | re.DOTALL)
        stated = _stated_type(text)
        if members:
            items = [self._field_property(n, "", singular(name), prov) for n in _field_items(members.group(1)) if re.fullmatch(r"\w+", n)]
            schema = Schema("array", prov, items=Schema("object", prov, name=singular(name), properties=tuple(items)))
        elif stated == "object":
            inner = re.match(r"object with (.+)$", text, re.IGNORECASE)
            names = [n for n in re.split(r",\s*|\s+and\s+", inner.group(1)) if re.fullmatch(r"\w+", n)] if inner else []
            schema = Schema("object", prov, name=name, properties=tuple(self._field_property(n, "", name, prov) for n in names))
        elif stated:
            schema = Schema(stated, prov)
        elif field_name in self.field_types:
            schema = Schema(self.field_types[field_name], prov)
        elif set(snake(field_name).split("_")) & _NUMERIC_WORDS or _looks_plural(field_name):
            kind = "a number" if set(snake(field_name).split("_")) & _NUMERIC_WORDS else "a collection"
            self._diag(
                "field-type-unknown",
                Severity.WARNING,
                f"field {field_name!r} of {parent} has no stated type and its name suggests {kind}; typed as any JSON",
                prov.line - 1,
                prov.pointer,
            )
            schema = Schema("any", prov)
        else:
            schema = Schema("string", prov)
        return Property(field_name, replace(schema, description=description), not optional, description, prov)

    # -- errors and the terminator --------------------------------------------------------------------

    def _error_message(self, streams: list[ExampleStream]) -> tuple[Message | None, list[ErrorCode]]:
        table = next((t for t in self.tables if t.column("type") is not None and t.column("code") is not None), None)
        codes: list[ErrorCode] = []
        type_lines: list[str] = []
        code_lines: list[str] = []
        types: list[str] = []
        untyped = False
        if table is not None:
            table.used = True
            for row in table.rows:
                etype = table.cell(row, "type").strip("`")
                code = table.cell(row, "code").strip("`")
                meaning = table.cell(row, "description")
                if etype.startswith("(") or not etype:
                    untyped = True
                elif etype not in types:
                    types.append(etype)
                    type_lines.append(f"- {etype}: {meaning}")
                code_lines.append(f"- {code} [{etype or '(none)'}]: {meaning}")
                if code and code.lower() not in ("varies", "(none)", "-"):
                    codes.append(ErrorCode(code, meaning, self._row_prov(table, row)))
        example: tuple[Any, Provenance, ExampleStream] | None = None
        for stream in streams:
            for i, event in enumerate(stream.events()):
                value = _json_or_none(event.data)
                if event.event == "error" and isinstance(value, dict):
                    example = (value, stream.event_provenance(i), stream)
                    break
            if example:
                break
        if example is None:
            if table is not None:
                self._diag(
                    "error-example-missing",
                    Severity.WARNING,
                    "the page lists error types but shows no `event: error` frame; no error message is built",
                    table.start,
                    self._table_pointer(table),
                )
            return None, codes
        value, prov, stream = example
        payload = schema_from_json(value, "StreamError", prov, required=True)
        error_prop = payload.property("error")
        if error_prop is not None and error_prop.schema.type == "object":
            inner = []
            for prop in error_prop.schema.properties:
                if prop.name == "type" and types:
                    schema = replace(prop.schema, name=error_prop.schema.name + "Type", enum=tuple(types), description="\n".join(type_lines))
                    # A row typed `(none)` (cancellation) means an error frame may come without a type.
                    prop = replace(prop, schema=schema, description=schema.description, required=not untyped)
                elif prop.name == "code" and code_lines:
                    schema = replace(prop.schema, description="\n".join(code_lines))
                    prop = replace(prop, schema=schema, description=schema.description)
                inner.append(prop)
            payload = replace(payload, properties=tuple(replace(p, schema=replace(error_prop.schema, properties=tuple(inner))) if p.name == "error" else p for p in payload.properties))
        section = self._section_at(prov.line - 1)
        description = self._intro(section)
        return (
            Message(
                name="StreamError",
                kind="error",
                payload=replace(payload, description=description),
                provenance=prov,
                title=section.title,
                description=description,
                event="error",
                examples=(Example("", "", compact_json(value), prov),),
            ),
            codes,
        )

    def _unique_messages(self, messages: list[Message]) -> list[Message]:
        """``messages`` without later ones whose name repeats an earlier one (``message-name-collision``)."""
        out: list[Message] = []
        seen: dict[str, Message] = {}
        for message in messages:
            if message.name in seen:
                prov = message.provenance
                self._diag(
                    "message-name-collision",
                    Severity.WARNING,
                    f"{message.title or message.name!r} is named {message.name} like the message at line {seen[message.name].provenance.line}; the first is kept",
                    prov.line - 1,
                    prov.pointer,
                )
                continue
            seen[message.name] = message
            out.append(message)
        return out

    def _done_message(self) -> Message | None:
        for k, line in enumerate(self.lines):
            if re.match(r"^data:\s*\[DONE\]", line):
                prov = self._prov(k, self._line_pointer(k))
                before = self.lines[k - 1].strip() if k > 0 else ""
                description = before.rstrip(":").strip() if "[DONE]" in before else ""
                payload = Schema("string", prov, name="StreamDone", description=description, enum=("[DONE]",))
                return Message(
                    name="StreamDone",
                    kind="terminator",
                    payload=payload,
                    provenance=prov,
                    description=description,
                    content_type="text/plain",
                    examples=(Example("", "", "[DONE]", prov),),
                )
        return None


# -- helpers --------------------------------------------------------------------------------------


def _table_end(lines: list[str], first: int, last: int) -> int:
    """The real end (exclusive, 0-based) of a table markdown-it says spans ``first``..``last``."""
    for k in range(first + 2, min(last, len(lines))):
        if not _PIPE.search(lines[k]):
            return k
    return last


def _table_tokens(block: _Block) -> tuple[list[str], dict[int, list[str]]]:
    """Header cells and, per body line (0-based page line), markdown-it's cells."""
    header: list[str] = []
    rows: dict[int, list[str]] = {}
    section = ""
    current: list[str] | None = None
    for tok in block.tokens:
        if tok.type in ("thead_open", "tbody_open"):
            section = tok.type
        elif tok.type == "tr_open":
            current = []
            if section == "tbody_open" and tok.map is not None:
                line = tok.map[0] + block.offset
                if line < block.end:
                    rows[line] = current
        elif tok.type == "inline" and current is not None:
            current.append(tok.content)
        elif tok.type == "tr_close":
            if section == "thead_open" and current is not None:
                header = current
            current = None
    return header, rows


def _split_row(text: str) -> tuple[list[str], bool]:
    """Cells of one table source line, and whether it starts with ``|``.

    The documented row splitter: leading and trailing pipes are stripped, the
    rest is split on unescaped ``|`` (``\\|`` is a literal pipe, as in GFM).
    """
    s = text.strip()
    leading = s.startswith("|")
    if leading:
        s = s[1:]
    if s.endswith("|") and not s.endswith("\\|"):
        s = s[:-1]
    if not s.strip():
        return [], leading
    return [c.strip().replace("\\|", "|") for c in _PIPE.split(s)], leading


def _is_type_words(cell: str) -> bool:
    words = [w.strip().strip("`").lower() for w in re.split(r"\||,|\bor\b", cell) if w.strip()]
    return bool(words) and all(w in TYPE_WORDS for w in words)


def _looks_like_title(line: str) -> bool:
    """A scraped heading: a short line of Title Case words (or identifiers), optionally ``(x_name.*)``.

    ``Chunk Structure``, ``finish_reason Values``, ``Research Events (x_research.*)``
    are titles; sentences, code, JSON, ``Key: value`` lines and lines of
    identifiers only (``accepted_prediction_tokens and rejected_prediction_tokens``)
    are not: at least one word must be capitalized.
    """
    s = line.strip()
    if not 2 <= len(s) <= 60 or s[-1] in ".:;,!?|\\{[":
        return False
    match = re.match(r"^(.*?)\s*(\([^()]*\))?$", s)
    main = match.group(1) if match else s
    if not main or re.search(r"[:;,\"'{}\[\]=`|<>#*()/\\$@%&+]", main):
        return False
    words = main.split()
    if not 1 <= len(words) <= 6 or words[0].lower() in _TITLE_STOPWORDS:
        return False
    for word in words:
        if word.lower() in _TITLE_STOPWORDS and word is not words[0]:
            continue
        if word[0].isupper() or word[0].isdigit() or "_" in word:
            continue
        return False
    return any(word[0].isupper() for word in words)


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


def _is_notation(value: str) -> bool:
    """A ``data:`` value that documents the format rather than showing a payload."""
    return "..." in value or "…" in value or value.rstrip().endswith("\\n")


def _row_name(row: _Row) -> str:
    return row.cells[0].strip().strip("`") if row.cells else ""


def _first_row(node: dict[str, Any]) -> _Row | None:
    if node["row"] is not None:
        return node["row"]  # type: ignore[no-any-return]
    for child in node["children"].values():
        found = _first_row(child)
        if found is not None:
            return found
    return None


def _prose_members(description: str) -> list[tuple[str, bool]]:
    """Members named in ``... objects containing delta content, finish_reason, and optional logprobs``."""
    match = re.search(r"\bobjects?\s+(?:containing|with)\s+(.+?)(?:\s*\(|\.(?:\s|$)|$)", description)
    if not match:
        return []
    out: list[tuple[str, bool]] = []
    for part in re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group(1)):
        words = part.split()
        optional = "optional" in (w.lower() for w in words)
        names = [w for w in words if w.lower() != "optional" and re.fullmatch(r"[A-Za-z_]\w*", w)]
        if names and names[0] not in (n for n, _ in out):
            out.append((names[0], optional))
    return out


def _fields_text(description: str) -> str:
    match = re.search(r"\bFields:\s*(.+?)\s*$", description, re.DOTALL)
    return match.group(1).rstrip(".").strip() if match else ""


def _field_items(text: str) -> list[str]:
    """Split a ``Fields:`` list on top-level commas (not inside ``(...)`` or ``{...}``)."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        items.append("".join(current).strip())
    return [i for i in items if i]


def _parse_field(item: str) -> tuple[str, str] | None:
    match = re.fullmatch(r"`?([A-Za-z_][\w]*)`?\s*(?:\((.*)\))?", item.strip(), re.DOTALL)
    if not match:
        return None
    return match.group(1), (match.group(2) or "").strip()


def _stated_type(note: str) -> SchemaType | None:
    """The type a field note states (``JSON string with query`` -> string), if any."""
    text = re.sub(r"^optional\b[,;:]?\s*", "", note.strip(), flags=re.IGNORECASE).lower()
    if text.startswith("array") or text.startswith("list"):
        return "array"
    if text.startswith("object") or text.startswith("dict"):
        return "object"
    if re.match(r"(json )?string\b|text\b", text):
        return "string"
    if re.match(r"boolean\b|bool\b", text):
        return "boolean"
    if re.match(r"integer\b|int\b", text):
        return "integer"
    if re.match(r"number\b|float\b", text):
        return "number"
    return None


def _looks_plural(name: str) -> bool:
    last = snake(name).split("_")[-1] if snake(name) else ""
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is"))


def _rename(prop: Property, old: str, new: str) -> Property:
    """A copied field (``Same fields as ...``) with its nested names re-rooted under the new message."""

    def walk(schema: Schema) -> Schema:
        name = new + schema.name[len(old) :] if schema.name.startswith(old) else schema.name
        items = walk(schema.items) if schema.items is not None else None
        props = tuple(replace(p, schema=walk(p.schema)) for p in schema.properties)
        return replace(schema, name=name, items=items, properties=props)

    return replace(prop, schema=walk(prop.schema))
