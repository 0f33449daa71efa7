"""The ``x_*`` vendor events of a markdown streaming page (``specs/xerotier/streaming-api.md``):
their fields read from the prose (``Fields:`` lines, ``Same fields as ...``), their ``type``
member, and their payloads checked against the example streams."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ....diagnostics import Code, Diagnostics, codes
from ....ir import Message, Property, Provenance, Schema, SchemaType
from ..instances import instances, refine_with_instances
from ..wire import PageStream
from .prose import field_items, field_property, fields_text, parse_field, rename, same_fields_as, stated_type


def learn_field_types(descriptions: list[str], field_types: dict[str, SchemaType]) -> None:
    """Add to ``field_types`` the type each field of the ``Fields:`` lists in ``descriptions``
    states (``name (string)``), the first statement of a field winning: a field typed once on
    the page is typed everywhere."""
    for description in descriptions:
        for item in field_items(fields_text(description)):
            parsed = parse_field(item)
            if parsed and parsed[1]:
                kind = stated_type(parsed[1])
                if kind and parsed[0] not in field_types:
                    field_types[parsed[0]] = kind


def vendor_fields(
    description: str,
    name: str,
    prov: Provenance,
    by_type: dict[str, Schema],
    field_types: dict[str, SchemaType],
    report_at: Callable[[Code, str, Provenance], None],
) -> list[Property]:
    """The members (``type`` aside) of vendor event ``name`` described by ``description``:
    those of the event it has ``Same fields as`` (in ``by_type``, the events read so far;
    ``vendor-fields-unknown-ref`` when none), else its ``Fields:`` list
    (``vendor-field-unparsed`` for an item that cannot be read)."""
    same = same_fields_as(description)
    if same:
        source = by_type.get(same)
        if source is None:
            report_at(
                codes.VENDOR_FIELDS_UNKNOWN_REF,
                f"`Same fields as {same}` names no event documented above; only `type` is known",
                prov,
            )
            return []
        return [rename(p, source.name, name) for p in source.properties if p.name != "type"]
    props: list[Property] = []
    for item in field_items(fields_text(description)):
        parsed = parse_field(item)
        if parsed is None:
            report_at(codes.VENDOR_FIELD_UNPARSED, f"cannot read field {item!r}; skipped", prov)
            continue
        props.append(field_property(parsed[0], parsed[1], name, prov, field_types, report_at))
    return props


def with_type(payload: Schema, type_value: str, prov: Provenance) -> Schema:
    """``payload`` with a required one-value string enum ``type`` first (the vendor event's type)."""
    type_schema = Schema("string", prov, name=payload.name + "Type", enum=(type_value,))
    others = tuple(p for p in payload.properties if p.name != "type")
    return replace(payload, properties=(Property("type", type_schema, True, "", prov),) + others)


def refine_with_streams(messages: list[Message], streams: list[PageStream], diagnostics: Diagnostics) -> list[Message]:
    """``messages`` with each payload checked against the events of its type (its ``title``)
    in the example ``streams`` (:func:`..instances.refine_with_instances`)."""
    refined = []
    for message in messages:

        def of_type(value: dict[str, Any], title: str = message.title) -> bool:
            return value.get("type") == title

        found = instances(streams, of_type)
        if found:
            message = replace(message, payload=refine_with_instances(message.payload, found, diagnostics))
        refined.append(message)
    return refined
