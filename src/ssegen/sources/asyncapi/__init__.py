"""AsyncAPI 2.x / 3.0 sources: plain YAML/JSON documents and scraped pages that embed one.

:func:`detect_asyncapi_page` and :func:`detect_asyncapi` tell the two forms apart;
:func:`load_asyncapi_source` parses the document with line numbers
(:mod:`ssegen.sources.document`), registers it with the provider's ``$ref`` resolver and
reads channels, messages and servers (:mod:`.loader`).
"""

from __future__ import annotations

import re

from ...diagnostics import Diagnostics
from ..base import SourceInput, SourceResult, parse_registered

#: The marker line after which a scraped AsyncAPI page holds its raw YAML
#: (``specs/mistral/asyncapi-page.txt``).
RAW_MARKER = "Raw ↑"

# A top-level `asyncapi:` key (YAML, column 0) or an `"asyncapi":` member (JSON), anywhere.
_ASYNCAPI_KEY = re.compile(r"^[\"']?asyncapi[\"']?\s*:|\"asyncapi\"\s*:", re.MULTILINE)


def detect_asyncapi_page(text: str) -> tuple[str, int] | None:
    """``(document, line_offset)`` of a scraped page: the text after its ``Raw ↑`` line, when that
    text has an ``asyncapi`` key; else None."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == RAW_MARKER:
            rest = "".join(lines[i + 1 :])
            if _ASYNCAPI_KEY.search(rest):
                return rest, i + 1
    return None


def detect_asyncapi(text: str) -> tuple[str, int] | None:
    """``(document, 0)`` when ``text`` (a leading BOM dropped) has an ``asyncapi`` key; else None."""
    head = text.lstrip("\ufeff")
    return (head, 0) if _ASYNCAPI_KEY.search(head) else None


def load_asyncapi_source(source: SourceInput, diagnostics: Diagnostics) -> SourceResult | None:
    """Parse and read one AsyncAPI document; None when it is unusable (an error diagnostic says why)."""
    from .loader import load_asyncapi

    parsed = parse_registered(source, diagnostics)
    if parsed is None:
        return None
    result = load_asyncapi(*parsed, source.resolver, diagnostics)
    if result is None:
        return None
    return SourceResult(
        source.file,
        title=result.title,
        version=result.version,
        description=result.description,
        channels=tuple(result.channels),
        servers=tuple(result.servers),
        protocols=tuple(result.protocols),
        why_empty=result.why_empty,
    )
