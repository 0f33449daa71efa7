"""Markdown blocks and GFM tables of a scraped page, with the scrape's markup repaired.

The page is read with markdown-it-py (CommonMark plus GFM tables); its
top-level block tokens and their line maps are the base, and the markup a
scrape breaks is repaired on top of them (the page reports each repair):

* no blank line after a table: GFM runs the table on into the prose below;
  the table ends at its last line with a ``|`` and the rest of the page is
  re-read from there (:func:`parse_blocks`, ``specs/xerotier/streaming-api.md:26``);
* an unescaped ``|`` in a cell (``string | null``,
  ``specs/xerotier/streaming-api.md:23``): a row with more cells than the header
  is re-read from its source line and the extra cells are joined into the
  column the caller names, if they fit it, else into the last cell;
* a row spread over several lines (``specs/xerotier/streaming-api.md:289``):
  markdown-it reads every line as a padded row of its own; the body is re-read
  from its source lines, a line without a leading ``|`` continuing the open
  row until it has every cell;
* headings that lost their ``#`` ("Chunk Structure"): :func:`looks_like_title`;
* pipe rows with no header and delimiter row are a paragraph to markdown-it
  (:func:`headerless_rows`).

The row splitter (:func:`split_row`) is used only for table rows markdown-it
cannot represent.  Nothing here knows what the tables describe.  Lines are
1-based; a block spans ``first`` to ``last``, both included.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from markdown_it import MarkdownIt
from markdown_it.token import Token

from ....diagnostics import Code, codes
from ..sections import PageText

#: The markdown parser of the page loaders (CommonMark with GFM tables).
MARKDOWN = MarkdownIt("commonmark").enable("table")

_DELIMITER_ROW = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")
_PIPE = re.compile(r"(?<!\\)\|")
_TITLE_STOPWORDS = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to", "via", "with"}
)

#: Receives a repair or problem in a table: ``(code, message, line, body row index)``.
RowReport = Callable[[Code, str, int, int], None]


def has_pipe_table(text: str) -> bool:
    """True when ``text`` has a GFM table delimiter row (``|---|---|``)."""
    return any(_DELIMITER_ROW.match(line) and "|" in line for line in text.splitlines())


@dataclass(frozen=True)
class Block:
    """A top-level markdown-it block.

    Attributes:
        type: the token type without ``_open`` (``paragraph``, ``table``, ``fence``, ``heading``, ...).
        first: its first line.
        last: its last line.
        tokens: its tokens, from the opening one to the closing one.
        offset: lines of the page before the text the tokens were parsed from
            (a token's ``map[0] + offset + 1`` is its line).
    """

    type: str
    first: int
    last: int
    tokens: tuple[Token, ...]
    offset: int

    def contains(self, line: int) -> bool:
        """True when ``line`` is inside the block."""
        return self.first <= line <= self.last


def parse_blocks(page: PageText) -> tuple[list[Block], list[tuple[int, int]]]:
    """The page's top-level blocks, and ``(header line, last line)`` of each table GFM ran on into prose.

    A table is cut after its last line with a ``|`` and markdown-it re-reads
    the rest of the page from the line after it.
    """
    blocks: list[Block] = []
    unterminated: list[tuple[int, int]] = []
    offset = 0
    while offset < page.count:
        tokens = MARKDOWN.parse("\n".join(page.lines[offset:]))
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
            first, last = tok.map[0] + offset + 1, tok.map[1] + offset
            if kind == "table":
                real_last = _table_last(page, first, last)
                if real_last < last:
                    unterminated.append((first, real_last))
                    blocks.append(Block(kind, first, real_last, tuple(tokens[i : j + 1]), offset))
                    restart = real_last
                    break
            blocks.append(Block(kind, first, last, tuple(tokens[i : j + 1]), offset))
            i = j + 1
        if restart is None:
            break
        offset = restart
    return blocks, unterminated


def _table_last(page: PageText, first: int, last: int) -> int:
    """The real last line of a table markdown-it says spans ``first`` to ``last``: its last line with a ``|``."""
    for n in range(first + 2, min(last, page.count) + 1):
        if not _PIPE.search(page.line(n)):
            return n - 1
    return last


def block_kinds(blocks: list[Block], count: int) -> dict[int, str]:
    """The block type of every line inside a block (lines outside any block are absent)."""
    kinds: dict[int, str] = {}
    for block in blocks:
        for n in range(block.first, min(block.last, count) + 1):
            kinds[n] = block.type
    return kinds


def table_cells(block: Block) -> tuple[list[str], dict[int, list[str]]]:
    """Header cells of a table block and, per body line, markdown-it's cells."""
    header: list[str] = []
    rows: dict[int, list[str]] = {}
    part = ""
    current: list[str] | None = None
    for tok in block.tokens:
        if tok.type in ("thead_open", "tbody_open"):
            part = tok.type
        elif tok.type == "tr_open":
            current = []
            if part == "tbody_open" and tok.map is not None:
                line = tok.map[0] + block.offset + 1
                if line <= block.last:
                    rows[line] = current
        elif tok.type == "inline" and current is not None:
            current.append(tok.content)
        elif tok.type == "tr_close":
            if part == "thead_open" and current is not None:
                header = current
            current = None
    return header, rows


def split_row(text: str) -> tuple[list[str], bool]:
    """Cells of one table source line, and whether it starts with ``|``.

    Leading and trailing pipes are stripped, the rest is split on unescaped
    ``|`` (``\\|`` is a literal pipe, as in GFM).
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


@dataclass(frozen=True)
class Row:
    """A logical table row: its cells and the lines it spans (``first`` to ``last``), ``index`` among the body rows."""

    cells: tuple[str, ...]
    first: int
    last: int
    index: int


def table_rows(
    page: PageText,
    block: Block,
    header: list[str],
    join_column: int | None,
    joinable: Callable[[str], bool],
    report: RowReport,
) -> list[Row]:
    """The logical rows of a table block: markdown-it's cells where they are right, the row splitter elsewhere.

    Args:
        page: the page the block is on.
        block: a ``table`` block.
        header: its header cells.
        join_column: the column extra cells of a row are joined into when every
            one of them is ``joinable`` (``table-cell-pipe``, info); otherwise
            they are joined into the last cell (``table-cell-extra``, warning).
        joinable: whether a cell fits ``join_column``.
        report: receives ``table-row-continued`` (info), ``table-cell-pipe``,
            ``table-cell-extra`` and ``table-row-short`` (warning: padded).
    """
    _, md_rows = table_cells(block)
    ncols = len(header)
    rows: list[Row] = []

    def finish(cells: list[str], first: int, last: int) -> None:
        index = len(rows)
        if last > first:
            report(
                codes.TABLE_ROW_CONTINUED,
                f"a row's cells are spread over lines {first}-{last} (markdown-it reads each line as a row); "
                "joined into one row",
                first,
                index,
            )
        if len(cells) > ncols:
            extra = len(cells) - ncols
            merged = cells[join_column : join_column + extra + 1] if join_column is not None else []
            if join_column is not None and all(joinable(c) for c in merged):
                cells = cells[:join_column] + [" | ".join(merged)] + cells[join_column + extra + 1 :]
                report(
                    codes.TABLE_CELL_PIPE,
                    f"the type cell `{' | '.join(merged)}` holds an unescaped `|`, "
                    f"which splits the row into {ncols + extra} cells; rejoined",
                    first,
                    index,
                )
            else:
                cells = cells[: ncols - 1] + [" | ".join(cells[ncols - 1 :])]
                report(
                    codes.TABLE_CELL_EXTRA,
                    f"row has {ncols + extra} cells for {ncols} columns; the extra cells are joined into the last one",
                    first,
                    index,
                )
        elif len(cells) < ncols:
            report(
                codes.TABLE_ROW_SHORT,
                f"row has {len(cells)} cells for {ncols} columns; padded with empty cells",
                first,
                index,
            )
            cells = cells + [""] * (ncols - len(cells))
        elif last == first and len(md_rows.get(first, [])) == ncols:
            cells = md_rows[first]  # a well-formed row: markdown-it's own cells
        rows.append(Row(tuple(c.strip() for c in cells), first, last, index))

    open_cells: list[str] | None = None
    open_first = 0
    last_line = 0
    for n in range(block.first + 2, block.last + 1):
        cells, leading = split_row(page.line(n))
        if open_cells is not None and leading:
            finish(open_cells, open_first, last_line)
            open_cells = None
        if open_cells is None:
            open_cells, open_first = list(cells), n
        else:
            open_cells.extend(cells)
        last_line = n
        if len(open_cells) >= ncols:
            finish(open_cells, open_first, n)
            open_cells = None
    if open_cells is not None:
        finish(open_cells, open_first, last_line)
    return rows


def headerless_rows(page: PageText, kinds: dict[int, str]) -> list[tuple[int, int]]:
    """Table rows without a header.

    ``(first, last)`` of each run of two or more paragraph lines with two ``|`` or more.
    """
    runs: list[tuple[int, int]] = []
    n = 1
    while n <= page.count:
        if kinds.get(n) == "paragraph" and page.line(n).count("|") >= 2:
            m = n
            while m + 1 <= page.count and kinds.get(m + 1) == "paragraph" and page.line(m + 1).count("|") >= 2:
                m += 1
            if m > n:
                runs.append((n, m))
            n = m + 1
            continue
        n += 1
    return runs


def looks_like_title(line: str) -> bool:
    """A heading that lost its ``#``: a short line of Title Case words (or identifiers), optionally ``(x_name.*)``.

    ``Chunk Structure``, ``finish_reason Values``, ``Research Events (x_research.*)``
    are titles (``specs/xerotier/streaming-api.md:15``); sentences, code, JSON,
    ``Key: value`` lines and lines of identifiers only
    (``accepted_prediction_tokens and rejected_prediction_tokens``) are not: at
    least one word must be capitalized.
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
