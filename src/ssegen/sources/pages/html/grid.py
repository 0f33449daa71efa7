"""HTML tables embedded in a page, parsed with lxml, their ``rowspan``/``colspan`` laid out on a grid.

A nested parameter table (``specs/siliconstorm/inference-api.md:770``) writes
nesting with placeholder cells: a body row's first cells are ``-`` (one per
nesting level, each with a ``rowspan`` covering the rows below it).  On the
grid the spans describe, a row's **depth** is the grid column its name cell
starts in, and a row at depth ``d`` is a child of the nearest previous row at
depth ``d-1`` (:func:`row_tree`).  Nothing here knows what the tables
describe: the caller says which columns hold names, types and descriptions.
Lines are 1-based page lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import lxml.etree
import lxml.html

from ....diagnostics import Code, codes
from ..sections import PageText

#: Cells that stand for a nesting level, not a name.
PLACEHOLDERS = frozenset({"-", "–", "—", ""})

#: Largest colspan honoured; beyond it the table is surely broken.
MAX_SPAN = 1000

#: Receives a problem found in a table: ``(code, message, line, body row index or None)``.
Report = Callable[[Code, str, int, "int | None"], None]


def table_lines(page: PageText[Any], is_code: Callable[[int], bool]) -> list[tuple[int, int, bool]]:
    """``(first, last, closed)`` of every ``<table>...</table>`` on the page outside code.

    Args:
        page: the page.
        is_code: whether a line is inside a code fence.

    A nested table belongs to the outer one.  A ``<table>`` without its
    ``</table>`` (``closed`` False) runs up to the line before the next
    ``<table>`` or fence line, else to the end of the page.
    """
    found: list[tuple[int, int, bool]] = []
    n = 1
    while n <= page.count:
        if is_code(n) or not re.search(r"<table\b", page.line(n), re.IGNORECASE):
            n += 1
            continue
        depth = 0
        last = 0
        for m in range(n, page.count + 1):
            text = page.line(m)
            depth += len(re.findall(r"<table\b", text, re.IGNORECASE))
            depth -= len(re.findall(r"</table\s*>", text, re.IGNORECASE))
            if depth <= 0:
                last = m
                break
        closed = last > 0
        if not closed:
            last = page.count
            for m in range(n + 1, page.count + 1):
                if re.search(r"<table\b", page.line(m), re.IGNORECASE) or is_code(m):
                    last = m - 1
                    break
        found.append((n, last, closed))
        n = last + 1
    return found


def parse_table(fragment: str) -> Any:
    """The ``<table>`` element of an HTML fragment, or None (lxml errors become None)."""
    try:
        root = lxml.html.fragment_fromstring(fragment, create_parent="div")
    except (lxml.etree.ParserError, ValueError):
        return None
    if root.tag == "table":
        return root
    return root.find(".//table")


def _owner_table(element: Any) -> Any:
    node = element.getparent()
    while node is not None and node.tag != "table":
        node = node.getparent()
    return node


def cell_text(cell: Any) -> str:
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


@dataclass(frozen=True)
class Column:
    """A header column: its title, the grid column it starts in and how many it spans."""

    title: str
    col: int
    span: int


@dataclass
class GridCell:
    """A cell laid on the grid: it starts at body row ``row``, grid column ``col``."""

    element: Any
    row: int
    col: int
    rowspan: int
    colspan: int
    text: str

    @property
    def placeholder(self) -> bool:
        """True for a cell that stands for a nesting level (:data:`PLACEHOLDERS`)."""
        return self.text.strip() in PLACEHOLDERS


@dataclass
class Grid:
    """A table laid out on a grid.

    Attributes:
        header: the columns of its first header row (``<th>`` cells or a ``<thead>`` row); [] if none.
        body: its body ``<tr>`` elements.
        cells: ``(body row, grid column)`` -> the cell covering it.
        first: the page line of ``<table>``.
    """

    header: list[Column]
    body: list[Any]
    cells: dict[tuple[int, int], GridCell] = field(default_factory=dict)
    first: int = 0

    @property
    def width(self) -> int:
        """The number of grid columns the body covers."""
        return max((c for _, c in self.cells), default=-1) + 1

    def line_of(self, element: Any) -> int:
        """The page line of an lxml element of the table (its ``sourceline`` counts from ``<table>``'s line)."""
        line = getattr(element, "sourceline", None)
        return self.first + line - 1 if isinstance(line, int) and line > 0 else self.first


def build_grid(element: Any, first: int, report: Report) -> Grid:
    """The grid of a ``<table>`` element whose ``<table>`` tag is on page line ``first``.

    Rows of nested tables are left out.  A ``rowspan``/``colspan`` that is no
    positive integer is read as 1, a colspan over :data:`MAX_SPAN` is cut
    (``table-span-invalid``, warning); a rowspan longer than the rows left is
    cut to them (``table-rowspan-overflow``, warning).
    """
    rows = [tr for tr in element.iter("tr") if _owner_table(tr) is element]
    header_rows = [
        tr for tr in rows if tr.find("th") is not None or (tr.getparent() is not None and tr.getparent().tag == "thead")
    ]
    grid = Grid([], [tr for tr in rows if tr not in header_rows], first=first)
    if header_rows:
        col = 0
        for cell in header_rows[0]:
            if cell.tag not in ("th", "td"):
                continue
            width = _span(cell, "colspan", grid, report)
            grid.header.append(Column(cell_text(cell), col, width))
            col += width
    for r, tr in enumerate(grid.body):
        _place_row(grid, r, tr, report)
    return grid


def _place_row(grid: Grid, r: int, tr: Any, report: Report) -> None:
    """Place the cells of body row ``r`` (the ``<tr>`` element ``tr``) in ``grid.cells``: each in
    the first column no cell spanning from above holds, over its ``rowspan`` x ``colspan``; a
    rowspan past the last row is cut (``table-rowspan-overflow``)."""
    col = 0
    for cell in tr:
        if cell.tag not in ("th", "td"):
            continue
        while (r, col) in grid.cells:
            col += 1
        rowspan = _span(cell, "rowspan", grid, report)
        colspan = _span(cell, "colspan", grid, report)
        left = len(grid.body) - r
        if rowspan > left:
            report(
                codes.TABLE_ROWSPAN_OVERFLOW,
                f"rowspan={cell.get('rowspan')} claims {rowspan} rows but only {left} remain in the table; "
                f"cut to {left}",
                grid.line_of(cell),
                r,
            )
            rowspan = left
        info = GridCell(cell, r, col, rowspan, colspan, cell_text(cell))
        for dr in range(rowspan):
            for dc in range(colspan):
                grid.cells.setdefault((r + dr, col + dc), info)
        col += colspan


def _span(cell: Any, attr: str, grid: Grid, report: Report) -> int:
    """The ``rowspan`` or ``colspan`` (``attr``) of a cell: 1 when absent, or when it is no positive
    integer (``table-span-invalid``); a colspan over :data:`MAX_SPAN` is cut to it (same code)."""
    raw = cell.get(attr)
    if raw is None:
        return 1
    try:
        value = int(str(raw).strip())
    except ValueError:
        value = 0
    if value < 1:
        report(
            codes.TABLE_SPAN_INVALID,
            f"{attr}={raw!r} is not a positive integer; read as 1",
            grid.line_of(cell),
            None,
        )
        return 1
    if attr == "colspan" and value > MAX_SPAN:
        report(
            codes.TABLE_SPAN_INVALID,
            f"{attr}={raw!r} is implausibly large; cut to {MAX_SPAN}",
            grid.line_of(cell),
            None,
        )
        return MAX_SPAN
    return value


@dataclass
class GridRow:
    """One body row read as a named row, with the rows nested under it.

    Attributes:
        name: the text of its name cell.
        type_text: the text of its cell in the type column ("" if none).
        description: the text of its cell in the description column, when the cell starts in this row.
        line: its page line.
        index: its body row index.
        depth: the grid column its name cell starts in.
        children: the rows nested under it.
    """

    name: str
    type_text: str
    description: str
    line: int
    index: int
    depth: int
    children: list[GridRow] = field(default_factory=list)


def row_tree(grid: Grid, names_width: int, type_col: int | None, desc_col: int | None, report: Report) -> list[GridRow]:
    """The body rows as a tree by depth (the top-level rows, in table order).

    Args:
        grid: the table.
        names_width: how many grid columns hold names (the name header's colspan).
        type_col: the grid column of types (None: no types).
        desc_col: the grid column of descriptions (None: none).
        report: receives ``table-row-unnamed`` (the row is skipped),
            ``table-row-short``, ``table-row-misaligned`` and ``table-depth-jump``
            (the row is attached to the row above): all warnings.
    """
    roots: list[GridRow] = []
    stack: list[GridRow] = []
    for r, tr in enumerate(grid.body):
        line = grid.line_of(tr)
        name_cell = _name_cell(grid, r, names_width)
        if name_cell is None:
            report(codes.TABLE_ROW_UNNAMED, "row has no name cell in the name columns; skipped", line, r)
            continue
        _check_name_cell(grid, r, name_cell, names_width, line, report)
        type_cell = grid.cells.get((r, type_col)) if type_col is not None else None
        desc_cell = grid.cells.get((r, desc_col)) if desc_col is not None else None
        node = GridRow(
            name_cell.text.strip(),
            type_cell.text.strip() if type_cell is not None else "",
            desc_cell.text if desc_cell is not None and desc_cell.row == r else "",
            line,
            r,
            name_cell.col,
        )
        stack = _attach(node, roots, stack, report)
    return roots


def _name_cell(grid: Grid, r: int, names_width: int) -> GridCell | None:
    """The first cell of body row ``r`` that starts in it within the name columns (not a
    placeholder); None when there is none."""
    for c in range(names_width):
        cell = grid.cells.get((r, c))
        if cell is not None and cell.row == r and not cell.placeholder:
            return cell
    return None


def _check_name_cell(grid: Grid, r: int, name_cell: GridCell, names_width: int, line: int, report: Report) -> None:
    """Report a row with fewer leading cells than its depth needs (``table-row-short``), and a
    name cell that does not end at the last name column (``table-row-misaligned``)."""
    if any(grid.cells.get((r, c)) is None for c in range(name_cell.col)):
        report(
            codes.TABLE_ROW_SHORT,
            "row has fewer leading cells than its depth needs (a rowspan above it is too short?)",
            line,
            r,
        )
    if name_cell.col + name_cell.colspan != names_width:
        report(
            codes.TABLE_ROW_MISALIGNED,
            f"name cell {name_cell.text!r} covers columns {name_cell.col + 1}-{name_cell.col + name_cell.colspan} "
            f"but the name columns are 1-{names_width} (a rowspan above is too short or too long?); "
            "its depth is read from where it starts",
            line,
            r,
        )


def _attach(node: GridRow, roots: list[GridRow], stack: list[GridRow], report: Report) -> list[GridRow]:
    """Put ``node`` in the tree at its depth: a root at depth 0, else under the row above one
    level up (``stack``, the open rows by depth); a row deeper than the row above allows is
    attached to it (``table-depth-jump``). The open rows after it."""
    depth = node.depth
    if depth > len(stack):
        report(
            codes.TABLE_DEPTH_JUMP,
            f"row {node.name!r} is nested {depth} levels deep but the row above is at level {len(stack) - 1}; "
            "attached to it",
            node.line,
            node.index,
        )
        depth = len(stack)
    if depth == 0:
        roots.append(node)
        return [node]
    stack[depth - 1].children.append(node)
    return stack[:depth] + [node]
