"""The layout of a markdown streaming page: its section titles and the runs of wire lines
(``data:``/``event:``/comment lines, an example stream or a notation sample) between them.

``# comment`` lines next to wire lines are annotations (markdown-it makes them headings), not
titles; a ``data:`` line whose JSON goes on below without the prefix is one frame; a blank
line inside a fence does not end a run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import takewhile

from ..sections import PageSection, PageText, Slugs
from ..wire import WIRE_FIELD, WireFrame, is_notation, json_continuation, read_frames
from .blocks import Block, looks_like_title


@dataclass
class Section(PageSection):
    """A section of the page; ``end`` is the first line after it."""

    end: int = 0


@dataclass
class Run:
    """A run of wire lines on the page (an example stream before normalization)."""

    frames: list[WireFrame]
    first: int
    last: int
    section: Section
    sample: bool = False  # a one-line notation sample, not an example stream
    json_starts: dict[int, int] = field(default_factory=dict)  # frame index -> first line of a multi-line JSON


class WireLines:
    """Tells the wire lines of a page apart from its prose.

    Args:
        page: the page text.
        blocks: its markdown blocks (:func:`.blocks.parse_blocks`).
        kinds: the block type of every line inside a block (:func:`.blocks.block_kinds`).
    """

    def __init__(self, page: PageText[Section], blocks: list[Block], kinds: dict[int, str]) -> None:
        self.page = page
        self.blocks = blocks
        self.kinds = kinds

    def is_wire_line(self, n: int) -> bool:
        """An SSE line as a server sends it: ``data: {...}``, ``event: error``, ``: comment``.

        A ``data:`` value must look like a payload (JSON, ``[DONE]``, one token):
        prose that happens to start a line with ``data:`` is not wire.
        """
        if self.kinds.get(n) not in ("paragraph", "heading", "fence", "code_block"):
            return False
        line = self.page.line(n)
        match = WIRE_FIELD.match(line)
        if match is None:
            return line.startswith(":") and not line.startswith("::")
        value = match.group(2).strip()
        if match.group(1) == "data":
            return value[:1] in ("{", "[", '"') or " " not in value
        return " " not in value

    def is_annotation(self, n: int) -> bool:
        """A ``# comment`` line beside wire lines (markdown-it makes it a heading)."""
        return self.kinds.get(n) == "heading" and self.page.line(n).lstrip().startswith("#")

    def annotation_leads_to_wire(self, n: int) -> bool:
        """Whether the annotation lines from ``n`` on are followed by a wire line."""
        m = n
        while m <= self.page.count and self.is_annotation(m):
            m += 1
        return m <= self.page.count and self.is_wire_line(m)

    def scan_run(self, n: int) -> int:
        """The last line of the run of wire lines starting at ``n``."""
        last = n
        m = n
        count = self.page.count
        while m <= count:
            if self.is_wire_line(m):
                end = self.json_end(m)
                last = end
                m = end + 1
            elif self.is_annotation(m) and self.annotation_leads_to_wire(m):
                m += 1
            elif not self.page.line(m).strip() and self.kinds.get(m, "") in ("", "fence", "code_block"):
                nxt = m
                while nxt <= count and not self.page.line(nxt).strip():
                    nxt += 1
                if nxt <= count and self.is_wire_line(nxt) and self.same_container(m, nxt):
                    m = nxt
                else:
                    break
            else:
                break
        return last

    def same_container(self, a: int, b: int) -> bool:
        """True when lines ``a`` and ``b`` are not separated by a fence boundary."""
        return all(block.contains(a) == block.contains(b) for block in self.blocks if block.type == "fence")

    def json_end(self, n: int) -> int:
        """For a ``data:`` line whose JSON goes on below without the prefix, the JSON's last line (else ``n``)."""
        match = WIRE_FIELD.match(self.page.line(n))
        if not match or match.group(1) != "data":
            return n
        following = ((m, self.page.line(m)) for m in range(n + 1, self.page.count + 1))
        joined = json_continuation(
            match.group(2).strip(), takewhile(lambda item: not self.ends_json(item[0]), following)
        )
        return joined[0] if joined is not None else n

    def ends_json(self, n: int) -> bool:
        """Whether line ``n`` cannot continue a multi-line JSON value (a wire line, a table, HTML)."""
        return self.is_wire_line(n) or self.kinds.get(n) in ("table", "html_block")


def find_runs_and_sections(page: PageText[Section], wire: WireLines) -> list[Run]:
    """Set ``page.sections`` (headings and title-like paragraph lines, wire lines excepted)
    and return the page's runs of wire lines, in one pass (:func:`_build_run`)."""
    spans = _wire_spans(page, wire)
    wire_lines = {n for first, last in spans for n in range(first, last + 1)}
    page.sections = [Section("", "", 0), *_titled_sections(page, wire.kinds, wire_lines)]
    for i, section in enumerate(page.sections):
        section.end = page.sections[i + 1].line if i + 1 < len(page.sections) else page.count + 1
    return [_build_run(page, first, last) for first, last in spans]


def _wire_spans(page: PageText[Section], wire: WireLines) -> list[tuple[int, int]]:
    """``(first, last)`` line of each run of wire lines (an annotation leading to one starts it)."""
    runs: list[tuple[int, int]] = []
    n = 1
    while n <= page.count:
        if wire.is_wire_line(n) or (wire.is_annotation(n) and wire.annotation_leads_to_wire(n)):
            last = wire.scan_run(n)
            runs.append((n, last))
            n = last + 1
            continue
        n += 1
    return runs


def _titled_sections(page: PageText[Section], kinds: dict[int, str], wire_lines: set[int]) -> list[Section]:
    """The sections the page's titles start: markdown-it headings that are not annotations, and
    title-like paragraph or list lines (:func:`.blocks.looks_like_title`), each with its slug."""
    slugs = Slugs()
    sections = []
    for n, line in page.numbered():
        if n in wire_lines:
            continue
        kind = kinds.get(n, "")
        title = ""
        if kind == "heading":
            title = re.sub(r"^\s*#{1,6}\s*|\s*#+\s*$", "", line).strip()
        elif kind in ("paragraph", "bullet_list", "ordered_list") and looks_like_title(line):
            title = line.strip()
        if title:
            sections.append(Section(title, slugs.unique(title), n))
    return sections


def _build_run(page: PageText[Section], first: int, last: int) -> Run:
    """The frames of lines ``first``..``last`` (their notes reported), and whether it is a notation sample."""
    read = read_frames([(n, page.line(n)) for n in range(first, last + 1)])
    for code, message, line in read.notes():
        page.report(code, message, line, page.line_pointer(line))
    json_starts = {i: lines[0] for i, lines in read.rejoined.items()}
    sample = any(
        is_notation(dict(frame.fields).get("data", ""))
        for i, frame in enumerate(read.frames)
        if i not in json_starts and "data" in dict(frame.fields)
    )
    return Run(read.frames, first, last, page.section_at(first), sample, json_starts)
