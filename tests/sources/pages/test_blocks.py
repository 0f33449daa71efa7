"""Markdown blocks and GFM table repairs, knowing nothing of what tables describe.

The module under test is src/ssegen/sources/pages/markdown/blocks.py.
"""

from __future__ import annotations

from ssegen.diagnostics import Diagnostics
from ssegen.sources.pages.markdown.blocks import parse_blocks, split_row, table_cells, table_rows
from ssegen.sources.pages.sections import PageText


def _page(text: str) -> PageText:  # type: ignore[type-arg]
    return PageText(text, "p.md", Diagnostics())


def test_row_splits_on_unescaped_pipes_and_says_whether_it_starts_with_one() -> None:
    assert split_row("| a | b \\| c |") == (["a", "b | c"], True)
    assert split_row("a | b") == (["a", "b"], False)
    assert split_row("|  |") == ([], True)


def test_a_table_run_on_into_prose_ends_at_its_last_piped_line_and_the_rest_is_reread() -> None:
    page = _page("| A | B |\n|---|---|\n| 1 | 2 |\nProse after.\n\n# Title\n")
    blocks, unterminated = parse_blocks(page)
    assert unterminated == [(1, 3)]
    assert [(b.type, b.first, b.last) for b in blocks] == [("table", 1, 3), ("paragraph", 4, 4), ("heading", 6, 6)]


def test_extra_cells_join_into_the_named_column_when_they_fit_it() -> None:
    page = _page("| F | T | D |\n|---|---|---|\n| a | string | null | x |\n| b | one | two | three |\n")
    blocks, _ = parse_blocks(page)
    header, _ = table_cells(blocks[0])
    reports: list[tuple[str, int, int]] = []
    rows = table_rows(
        page,
        blocks[0],
        header,
        1,
        lambda c: c in ("string", "null"),
        lambda code, m, line, row: reports.append((code.name, line, row)),
    )
    assert [r.cells for r in rows] == [("a", "string | null", "x"), ("b", "one", "two | three")]
    assert reports == [("table-cell-pipe", 3, 0), ("table-cell-extra", 4, 1)]


def test_a_row_continued_on_lines_without_a_leading_pipe_is_one_row() -> None:
    page = _page("| T | C | D |\n|---|---|---|\n| a | b |\nstill d |\n| e | f | g |\n")
    blocks, _ = parse_blocks(page)
    header, _ = table_cells(blocks[0])
    reports: list[str] = []
    rows = table_rows(page, blocks[0], header, None, lambda c: False, lambda code, *rest: reports.append(code.name))
    assert [(r.cells, r.first, r.last) for r in rows] == [(("a", "b", "still d"), 3, 4), (("e", "f", "g"), 5, 5)]
    assert reports == ["table-row-continued"]
