"""Source loaders: one module per source format, each producing IR parts.

:func:`detect` tells a file's format from its content (never its name):

* ``asyncapi``: a YAML/JSON document with a top-level ``asyncapi`` key;
* ``asyncapi-page``: a scraped AsyncAPI page (seeds 000 and 002) whose raw YAML
  follows a line reading ``Raw ↑``;
* ``None``: something this version cannot read (reported, not fatal).
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
        format: ``asyncapi`` or ``asyncapi-page``.
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
    return None
