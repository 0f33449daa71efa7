"""The mid-stream error of a markdown streaming page: the Error Types table's types and codes
(``specs/xerotier/streaming-api.md:279``) and the first ``event: error`` frame of its example
streams, which gives the ``StreamError`` payload."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from ....ir import ErrorCode, Property, Provenance, Schema
from ..wire import PageStream, json_or_none


@dataclass
class ErrorTable:
    """What an Error Types table says.

    Attributes:
        types: the error ``type`` values, in row order, each once.
        type_lines: ``- <type>: <meaning>`` per type, the ``type`` member's description.
        code_lines: ``- <code> [<type>]: <meaning>`` per row, the ``code`` member's description.
        untyped: a row has no type (``(none)``, cancellation): the ``type`` member is optional.
        codes: the documented codes (not ``varies``, ``(none)`` or ``-``), with their rows.
    """

    types: list[str] = field(default_factory=list)
    type_lines: list[str] = field(default_factory=list)
    code_lines: list[str] = field(default_factory=list)
    untyped: bool = False
    codes: list[ErrorCode] = field(default_factory=list)


def read_error_table(rows: list[tuple[str, str, str, Provenance]]) -> ErrorTable:
    """The :class:`ErrorTable` of ``rows``: ``(type, code, description, provenance)`` per table
    row, backticks stripped."""
    table = ErrorTable()
    for etype, code, meaning, prov in rows:
        if etype.startswith("(") or not etype:
            table.untyped = True
        elif etype not in table.types:
            table.types.append(etype)
            table.type_lines.append(f"- {etype}: {meaning}")
        table.code_lines.append(f"- {code} [{etype or '(none)'}]: {meaning}")
        if code and code.lower() not in ("varies", "(none)", "-"):
            table.codes.append(ErrorCode(code, meaning, prov))
    return table


def first_error_event(streams: list[PageStream]) -> tuple[Any, Provenance] | None:
    """The JSON object of the first ``event: error`` frame of the example ``streams``, with its
    provenance; None when no stream shows one."""
    for stream in streams:
        for i, event in enumerate(stream.events()):
            value = json_or_none(event.data)
            if event.event == "error" and isinstance(value, dict):
                return value, stream.event_provenance(i)
    return None


def with_documented_error(payload: Schema, table: ErrorTable) -> Schema:
    """``payload`` (the ``StreamError`` schema read from the example) with its ``error`` object's
    ``type`` an enum of the table's types and its ``code`` described by the table's rows
    (the ``code`` stays a string: the table says ``varies`` for ``server_error``)."""
    error_prop = payload.property("error")
    if error_prop is None or error_prop.schema.type != "object":
        return payload
    inner = tuple(_documented_member(prop, error_prop.schema.name, table) for prop in error_prop.schema.properties)
    error_schema = replace(error_prop.schema, properties=inner)
    return replace(
        payload,
        properties=tuple(replace(p, schema=error_schema) if p.name == "error" else p for p in payload.properties),
    )


def _documented_member(prop: Property, error_name: str, table: ErrorTable) -> Property:
    """A member of the error object (named ``error_name``) as the table documents it: ``type``
    an enum of its types, ``code`` described by its rows; any other member as it is."""
    if prop.name == "type" and table.types:
        schema = replace(
            prop.schema, name=error_name + "Type", enum=tuple(table.types), description="\n".join(table.type_lines)
        )
        # A row typed `(none)` (cancellation) means an error frame may come without a type.
        return replace(prop, schema=schema, description=schema.description, required=not table.untyped)
    if prop.name == "code" and table.code_lines:
        schema = replace(prop.schema, description="\n".join(table.code_lines))
        return replace(prop, schema=schema, description=schema.description)
    return prop
