"""Refresh the table of docs/codes.md from the catalogue: ``python tests/diagnostics/regen_codes.py``.

The table sits between ``<!-- codes:start -->`` and ``<!-- codes:end -->``; the text around it is
kept. ``tests/diagnostics/test_codes.py`` fails while the page differs from ``markdown_table()``.
"""

from __future__ import annotations

from pathlib import Path

from ssegen.diagnostics.codes import markdown_table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "codes.md"
START, END = "<!-- codes:start -->", "<!-- codes:end -->"


def refreshed(text: str) -> str:
    """``text`` with the table between the markers replaced by the catalogue's."""
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{markdown_table()}{END}{tail}"


if __name__ == "__main__":
    text = PAGE.read_text(encoding="utf-8")
    new = refreshed(text)
    PAGE.write_text(new, encoding="utf-8")
    print(f"{PAGE}: {'refreshed' if new != text else 'already up to date'}")
