"""A documentation page as numbered lines and titled sections, and the pointers naming places on it.

Every line number in the page loaders is 1-based, as in provenance and
diagnostics; 0 means "no line" (the part of a page before its first heading
starts at line 0).  Pointers follow the scheme in :mod:`ssegen.sources.pages`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Generic, TypeVar

from ...diagnostics import Code, Diagnostics
from ...ir import Provenance
from ..document import join_pointer

#: Longest slug: slugs name example fixture files (``examples/<slug>.sse``), and a
#: file name must stay well under the 255 bytes file systems allow.
MAX_SLUG = 64


def pointer(*tokens: str | int) -> str:
    """A pointer built from ``tokens`` (each escaped per RFC 6901)."""
    return join_pointer("", *tokens)


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


@dataclass
class PageSection:
    """A titled part of a documentation page.

    Attributes:
        title: the heading text ("" for the part before any heading).
        slug: its GitHub-style anchor, unique in the page (used in pointers).
        line: 1-based line of the heading (0: the part before any heading).
    """

    title: str
    slug: str
    line: int

    @property
    def base(self) -> tuple[str, ...]:
        """The pointer tokens of the section (``("sections", slug)``; none before any heading)."""
        return ("sections", self.slug) if self.line > 0 else ()


S = TypeVar("S", bound=PageSection)


class PageText(Generic[S]):
    """A page's lines (any line end read as LF), its sections, and places on it.

    Attributes:
        file: the page's path relative to the specs folder (for provenance).
        diagnostics: where :meth:`report` records.
        text: the page text with ``\\r\\n`` and ``\\r`` turned into ``\\n``.
        lines: its lines; line ``n`` (1-based) is :meth:`line` ``(n)``.
        sections: the sections in page order, the part before any heading first
            (filled in by the loader, which knows what a title looks like).
    """

    def __init__(self, text: str, file: str, diagnostics: Diagnostics) -> None:
        self.file = file
        self.diagnostics = diagnostics
        self.text = text.replace("\r\n", "\n").replace("\r", "\n")
        self.lines = self.text.split("\n")
        self.sections: list[S] = []

    @property
    def count(self) -> int:
        """The number of lines (the last line's number)."""
        return len(self.lines)

    def line(self, n: int) -> str:
        """The text of line ``n`` ("" outside the page)."""
        return self.lines[n - 1] if 1 <= n <= len(self.lines) else ""

    def span(self, first: int, last: int) -> list[str]:
        """The lines ``first`` to ``last``, both included."""
        return self.lines[max(first, 1) - 1 : max(last, 0)]

    def numbered(self) -> list[tuple[int, str]]:
        """Every line with its number."""
        return list(enumerate(self.lines, start=1))

    def report(self, code: Code, message: str, line: int, ptr: str) -> None:
        """Record a diagnostic at ``line`` (0: no line) and pointer ``ptr``."""
        self.diagnostics.add(code, message, file=self.file, line=line, pointer=ptr)

    def report_at(self, code: Code, message: str, place: Provenance) -> None:
        """Record a diagnostic at ``place`` (its line and pointer)."""
        self.report(code, message, place.line, place.pointer)

    def at(self, line: int, ptr: str) -> Provenance:
        """The provenance of ``line`` (0: no line) at pointer ``ptr``."""
        return Provenance(self.file, line, ptr)

    def section_at(self, line: int) -> S:
        """The section that ``line`` belongs to (sections are in page order)."""
        current = self.sections[0]
        for section in self.sections:
            if section.line <= line:
                current = section
            else:
                break
        return current

    def line_pointer(self, line: int) -> str:
        """``/sections/<slug>/lines/<n>`` (``n`` lines after the title) or ``/lines/<n>`` before any title.

        Pointer indexes are 0-based like every JSON pointer's: ``/lines/0`` is line 1.
        """
        section = self.section_at(line)
        if section.line <= 0:
            return pointer("lines", line - 1)
        return pointer(*section.base, "lines", line - section.line)
