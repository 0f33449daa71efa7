"""The fenced code blocks of README.md, found by markdown-it-py, for the tests that run them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

README = Path(__file__).resolve().parents[2] / "README.md"


@dataclass(frozen=True)
class Block:
    """One fenced block: its language (the fence's info string), text and line in README.md."""

    lang: str
    text: str
    line: int

    @property
    def first_line(self) -> str:
        return self.text.splitlines()[0] if self.text else ""

    @property
    def name(self) -> str:
        return f"README.md:{self.line} ```{self.lang} {self.first_line!r}"

    def commands(self) -> list[str]:
        """The shell commands of an ``sh`` block: every line without its comment, `$ ` prompts only if any."""
        lines = self.text.splitlines()
        if any(line.startswith("$ ") for line in lines):
            lines = [line[2:] for line in lines if line.startswith("$ ")]
        stripped = (line[: _comment_start(line)].rstrip() for line in lines)
        return [command for command in stripped if command]


def _comment_start(line: str) -> int:
    """Where an unquoted ``#`` comment starts in a shell line (len(line) if none)."""
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return i
    return len(line)


def readme_blocks(path: Path = README) -> list[Block]:
    """Every fenced block of the README, in order."""
    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    return [
        Block(token.info.strip(), token.content, token.map[0] + 1 if token.map else 0)
        for token in tokens
        if token.type == "fence"
    ]


def readme_block(lang: str, first_line: str, path: Path = README) -> Block:
    """The one block in ``lang`` whose first line starts with ``first_line``."""
    found = [b for b in readme_blocks(path) if b.lang == lang and b.first_line.startswith(first_line)]
    assert len(found) == 1, f"README.md has {len(found)} ```{lang} blocks starting with {first_line!r}"
    return found[0]


def readme_inline_code(section: str | None = None, path: Path = README) -> list[str]:
    """Every inline code span of the README (`like this`), or of the ``## section`` named."""
    tokens = MarkdownIt("commonmark").parse(path.read_text(encoding="utf-8"))
    spans: list[str] = []
    current = ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            current = tokens[i + 1].content
        elif token.type == "inline" and not (i and tokens[i - 1].type == "heading_open"):
            if section is None or current == section:
                spans.extend(child.content for child in token.children or [] if child.type == "code_inline")
    return spans
