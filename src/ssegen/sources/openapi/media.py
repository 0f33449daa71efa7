"""One streamed response of an OpenAPI operation (:class:`StreamMedia`): found by
:mod:`.loader`, read for messages there and for the request's media types by :mod:`.request`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...ir import Framing
from ..location import Location


@dataclass(frozen=True)
class StreamMedia:
    """One streamed response of an operation.

    Attributes:
        media: the media type object (``schema`` or ``itemSchema``), or the
            ``x-fern-streaming`` object when its ``response-stream`` is the schema.
        loc: where ``media`` is.
        response: the response object holding it ({} when an extension declares the stream).
        sentinel: the terminator literal an extension declares, and where; None when none does.
        schema_key: the member of ``media`` holding the schema of each event's ``data``.
        framing: ``sse``, or ``ndjson`` (the schema is each line's JSON).
    """

    media: dict[str, Any]
    loc: Location
    response: Any
    sentinel: tuple[str, Location] | None = None
    schema_key: str = "schema"
    framing: Framing = "sse"
