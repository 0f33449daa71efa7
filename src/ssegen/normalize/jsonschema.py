"""IR schemas -> normalized JSON Schema (draft 2020-12): the strict view of a spec.

The generated decoders are lenient; this export is what "conforms to the spec"
means.  It is written into each generated package as ``schemas.json`` and used
by ``ssegen conform`` and the generated conformance tests (with the
``jsonschema`` library).  Normalized means: one nullability style (``type``
lists, or ``anyOf`` with ``{"type": "null"}`` around a ``$ref``), every named
object under ``$defs`` with its title, messages as ``$ref``s to their payloads.
Every other keyword the source states (``maximum``, ``pattern``, ``not``,
``allOf``, ``if``...) is kept from :attr:`ssegen.ir.Schema.constraints`.
"""

from __future__ import annotations

from typing import Any

from ..ir import Provider, Schema

DIALECT = "https://json-schema.org/draft/2020-12/schema"


class _Exporter:
    def __init__(self) -> None:
        self.defs: dict[str, dict[str, Any]] = {}

    def schema(self, schema: Schema) -> dict[str, Any]:
        if schema.type == "object" and schema.properties and schema.name:
            if schema.name not in self.defs:
                self.defs[schema.name] = {}  # reserve: recursion ends here
                self.defs[schema.name] = self._object(schema)
            ref: dict[str, Any] = {"$ref": f"#/$defs/{schema.name}"}
            return {"anyOf": [ref, {"type": "null"}]} if schema.nullable else ref
        return self._inline(schema)

    def _object(self, schema: Schema) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object"}
        if schema.title or schema.name:
            out["title"] = schema.title or schema.name
        if schema.description:
            out["description"] = schema.description
        out["properties"] = {p.name: self._property(p.schema, p.description) for p in schema.properties}
        required = [p.name for p in schema.properties if p.required]
        if required:
            out["required"] = required
        if not schema.additional_properties:
            out["additionalProperties"] = False
        out.update(schema.constraints)
        return out

    def _property(self, schema: Schema, description: str) -> dict[str, Any]:
        out = self.schema(schema)
        if description and "$ref" not in out and "anyOf" not in out:
            out = {**out, "description": description}
        elif description:
            out = {"description": description, **out}
        return out

    def _inline(self, schema: Schema) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if schema.type == "any":
            return dict(schema.constraints)
        if schema.type == "union":
            variants = [self.schema(v) for v in schema.variants]
            if schema.nullable:
                variants.append({"type": "null"})
            return {"anyOf": variants, **schema.constraints}
        if schema.type == "null":
            return {"type": "null"}
        out["type"] = [schema.type, "null"] if schema.nullable else schema.type
        if schema.enum:
            out["enum"] = list(schema.enum) + ([None] if schema.nullable else [])
        if schema.type == "array":
            if schema.items is not None:
                out["items"] = self.schema(schema.items)
            if schema.min_items is not None:
                out["minItems"] = schema.min_items
            if schema.max_items is not None:
                out["maxItems"] = schema.max_items
        if schema.type == "object" and not schema.additional_properties:
            out["additionalProperties"] = False
        out.update(schema.constraints)
        return out


def export_provider(provider: Provider) -> dict[str, Any]:
    """The normalized JSON Schema document of a provider.

    Returns:
        ``{"$schema", "title", "$defs": {name: schema}, "channels": {address:
        {message name: schema}}}``; a message schema is a ``$ref`` into ``$defs``
        for object payloads, or an inline schema (``{"type": "string",
        "enum": ["[DONE]"]}``).  Validate message ``M`` on channel ``C`` with
        ``{"$defs": doc["$defs"], **doc["channels"][C][M]}``.
    """
    exporter = _Exporter()
    channels: dict[str, dict[str, Any]] = {}
    for channel in provider.channels:
        channels[channel.address] = {m.name: exporter.schema(m.payload) for m in channel.messages}
    return {
        "$schema": DIALECT,
        "title": provider.title or provider.name,
        "$defs": dict(sorted(exporter.defs.items())),
        "channels": channels,
    }
