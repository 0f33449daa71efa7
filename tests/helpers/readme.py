"""The fenced code blocks and inline code of ssegen's documentation, found by markdown-it-py.

The documentation is README.md, ARCHITECTURE.md, benchmarks/README.md and every ``docs/**/*.md``
(:func:`doc_files`). A file is named by its path from the repository root (``"docs/results.md"``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The documentation files outside ``docs/``.
TOP_LEVEL = ("README.md", "ARCHITECTURE.md", "benchmarks/README.md")


def doc_files() -> list[str]:
    """Every documentation file, as a path from the root: the top-level ones, then ``docs/``'s."""
    pages = sorted(path.relative_to(ROOT).as_posix() for path in DOCS.rglob("*.md"))
    return [name for name in TOP_LEVEL if (ROOT / name).is_file()] + pages


@dataclass(frozen=True)
class Block:
    """One fenced block: its language (the fence's info string), text, and line in its file."""

    lang: str
    text: str
    line: int
    file: str = "README.md"

    @property
    def first_line(self) -> str:
        return self.text.splitlines()[0] if self.text else ""

    @property
    def name(self) -> str:
        return f"{self.file}:{self.line} ```{self.lang} {self.first_line!r}"

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


def _path(file: str | Path) -> Path:
    return file if isinstance(file, Path) else ROOT / file


def _tokens(file: str | Path) -> list:
    return MarkdownIt("commonmark").parse(_path(file).read_text(encoding="utf-8"))


def doc_text(file: str) -> str:
    """The text of a documentation file."""
    return _path(file).read_text(encoding="utf-8")


def doc_blocks(file: str) -> list[Block]:
    """Every fenced block of a documentation file, in order."""
    return [
        Block(token.info.strip(), token.content, token.map[0] + 1 if token.map else 0, file)
        for token in _tokens(file)
        if token.type == "fence"
    ]


def doc_block(file: str, lang: str, first_line: str) -> Block:
    """The one block of ``file`` in ``lang`` whose first line starts with ``first_line``."""
    found = [b for b in doc_blocks(file) if b.lang == lang and b.first_line.startswith(first_line)]
    assert len(found) == 1, f"{file} has {len(found)} ```{lang} blocks starting with {first_line!r}"
    return found[0]


def readme_blocks(path: Path = README) -> list[Block]:
    """Every fenced block of the README (or of another file given as a path), in order."""
    return doc_blocks(path.relative_to(ROOT).as_posix())


def readme_block(lang: str, first_line: str, path: Path = README) -> Block:
    """The one block of the README (or of ``path``) in ``lang`` whose first line starts with ``first_line``."""
    return doc_block(path.relative_to(ROOT).as_posix(), lang, first_line)


def inline_code(file: str, section: str | None = None) -> list[str]:
    """Every inline code span of ``file`` (`like this`), or of the section under the heading named
    ``section`` (any level; the section ends at the next heading of that level or above)."""
    spans: list[str] = []
    current: str | None = None
    level = 0
    tokens = _tokens(file)
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            heading, depth = tokens[i + 1].content, int(token.tag[1])
            if heading == section:
                current, level = heading, depth
            elif current is not None and depth <= level:
                current = None
        elif token.type == "inline" and not (i and tokens[i - 1].type == "heading_open"):
            if section is None or current == section:
                spans.extend(child.content for child in token.children or [] if child.type == "code_inline")
    if section is not None:
        assert any(
            t.type == "inline" and t.content == section and tokens[i - 1].type == "heading_open"
            for i, t in enumerate(tokens)
        ), f"{file} has no heading {section!r}"
    return spans


def readme_inline_code(section: str | None = None, path: Path = README) -> list[str]:
    """Every inline code span of the README (or of ``path``), or of the section named."""
    return inline_code(path.relative_to(ROOT).as_posix(), section)
