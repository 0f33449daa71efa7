"""Source loaders: one module per source format, each producing IR parts.

:func:`detect` tells a file's format from its content (never its name):

* ``asyncapi``: a YAML/JSON document with a top-level ``asyncapi`` key;
* ``asyncapi-page``: a scraped AsyncAPI page (seeds 000 and 002) whose raw YAML
  follows a line reading ``Raw ↑``;
* ``html-tables``: a documentation page whose field tables are HTML (seed 004);
* ``markdown-tables``: a streaming documentation page with markdown tables (seed 003);
* ``docs-text``: an API reference page flattened to text (seed 001);
* ``None``: something this version cannot read (reported, not fatal).

AsyncAPI is tried first (an AsyncAPI document may contain tables in its
descriptions), then HTML tables, markdown tables and flattened docs text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: The marker line after which a scraped AsyncAPI page holds its raw YAML.
RAW_MARKER = "Raw ↑"

# A top-level `asyncapi:` key (YAML, column 0) or an `"asyncapi":` member (JSON), anywhere.
_ASYNCAPI_KEY = re.compile(r"^[\"']?asyncapi[\"']?\s*:|\"asyncapi\"\s*:", re.MULTILINE)


@dataclass(frozen=True)
class Detected:
    """A source's format and the part of its text that holds the document.

    Attributes:
        format: one of the formats listed in the module docstring.
        text: the embedded document text.
        line_offset: lines of the file before ``text`` (for provenance).
    """

    format: str
    text: str
    line_offset: int


def detect(text: str) -> Detected | None:
    """The format of a source file's ``text``, or None if unrecognized."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == RAW_MARKER:
            rest = "".join(lines[i + 1 :])
            if _ASYNCAPI_KEY.search(rest):
                return Detected("asyncapi-page", rest, i + 1)
    head = text.lstrip("\ufeff")
    if _ASYNCAPI_KEY.search(head):
        return Detected("asyncapi", head, 0)
    from .docs_text import looks_like_docs_text
    from .pages.html import looks_like_html_table_page
    from .pages.markdown import looks_like_markdown_streaming_page

    for name, looks_like in (
        ("html-tables", looks_like_html_table_page),
        ("markdown-tables", looks_like_markdown_streaming_page),
        ("docs-text", looks_like_docs_text),
    ):
        if looks_like(text):
            return Detected(name, text, 0)
    return None
