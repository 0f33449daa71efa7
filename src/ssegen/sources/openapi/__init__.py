"""OpenAPI 3.x documents: the ``text/event-stream`` responses of a provider's published API.

:func:`detect_openapi` recognises a document by its top-level ``openapi: 3.x`` key (YAML or
JSON); :func:`load_openapi_source` parses it with line numbers
(:mod:`ssegen.sources.document`), registers it with the provider's ``$ref`` resolver and reads
one channel per streaming operation (:mod:`.loader`).
"""

from __future__ import annotations

import re

from ...diagnostics import Diagnostics
from ..base import SourceInput, SourceResult, parse_registered

# `openapi: 3.x` at column 0 (YAML; the version quoted or not).
_YAML_KEY = re.compile(r"^[\"']?openapi[\"']?\s*:\s*[\"']?3\.", re.MULTILINE)
# A markdown code fence: an `openapi:` line after one is a page quoting a document, not one.
_FENCE = re.compile(r"^\s*(```|~~~)", re.MULTILINE)
# `"openapi": "3.x"` in a JSON document (the text starts with `{`).
_JSON_KEY = re.compile(r"\"openapi\"\s*:\s*\"3\.")


def detect_openapi(text: str) -> tuple[str, int] | None:
    """``(document, 0)`` when ``text`` (a leading BOM dropped) is an OpenAPI 3.x document; else None.

    YAML: a line ``openapi: 3.1.0`` at column 0, not after a markdown code fence. JSON: the
    text opens with ``{`` and has an ``"openapi": "3.…"`` member. A documentation page quoting
    a document in a code block is not taken for one (its page loader reads it).
    """
    head = text.lstrip("\ufeff")
    found = _YAML_KEY.search(head)
    if found and not _FENCE.search(head, 0, found.start()):
        return head, 0
    if head.lstrip().startswith("{") and _JSON_KEY.search(head):
        return head, 0
    return None


def load_openapi_source(source: SourceInput, diagnostics: Diagnostics) -> SourceResult | None:
    """Parse and read one OpenAPI document; None when it is unusable (an error diagnostic says why)."""
    from .loader import load_openapi

    parsed = parse_registered(source, diagnostics)
    return None if parsed is None else load_openapi(*parsed, source.resolver, diagnostics)
