"""Helpers every reader of an AsyncAPI document uses: diagnostics at a place, string fields,
``x-ssegen-*`` extensions, and the ``operation-request-skipped`` report."""

from __future__ import annotations

from typing import Any

from ...diagnostics import Diagnostics, codes
from ..location import Location


def diag(diagnostics: Diagnostics, loc: Location, code: codes.Code, message: str) -> None:
    """Report ``message`` under ``code`` at the file, line and JSON pointer of ``loc``."""
    diagnostics.at(loc.provenance, code, message)


def extensions(node: dict[str, Any]) -> dict[str, Any]:
    """The ``x-ssegen-*`` members of a channel object, as written."""
    return {k: v for k, v in node.items() if isinstance(k, str) and k.startswith("x-ssegen-")}


def text(value: Any) -> str:
    """A string field, stripped; ``""`` when absent or not a string."""
    return value.strip() if isinstance(value, str) else ""


def skip_request(diagnostics: Diagnostics, loc: Location, what: str, skipped: list[str]) -> None:
    """Report one operation whose messages the client sends (a request) as skipped."""
    skipped.append(what)
    diag(
        diagnostics,
        loc,
        codes.OPERATION_REQUEST_SKIPPED,
        f"{what} carries what the client sends (a request), not what the stream delivers; skipped",
    )
