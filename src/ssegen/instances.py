"""JSON instances of IR schemas: synthesized ones, and whether lenient decoding accepts one.

Used to tell whether two messages of a channel can match one payload
(:mod:`ssegen.normalize.discrimination`) and to give the generated conformance tests an
instance of every message the spec documents no example for
(:mod:`ssegen.codemodel.conformance`). "Lenient" is what the generated models accept
(:mod:`ssegen.codemodel.models`), not the strict JSON Schema (``schemas.json``).
"""

from __future__ import annotations

from typing import Any

from .ir import Schema


def minimal_instance(schema: Schema) -> Any:
    """The smallest JSON value ``schema`` admits as lenient decoding sees it: required
    members only (and members fixed to one value), the first enum value, empty
    arrays unless ``minItems``, zero values of scalars (``"x"`` for a string, longer
    when ``minLength`` says so)."""
    return _instance(schema, full=False, depth=0)


def full_instance(schema: Schema) -> Any:
    """A JSON value of ``schema`` with every declared member present (one item per array)."""
    return _instance(schema, full=True, depth=0)


def _instance(schema: Schema, *, full: bool, depth: int) -> Any:
    if schema.enum:
        return schema.enum[0]
    if depth > 8:
        return None
    if schema.type == "object":
        return {
            p.name: _instance(p.schema, full=full, depth=depth + 1)
            for p in schema.properties
            if full or p.required or schema.tag(p.name) is not None
        }
    if schema.type == "array":
        count = schema.min_items or 0
        if full and schema.max_items != 0:
            count = max(count, 1)
        item = _instance(schema.items, full=full, depth=depth + 1) if schema.items is not None else None
        return [item] * count
    if schema.type == "union" and schema.variants:
        return _instance(schema.variants[0], full=full, depth=depth + 1)
    if schema.type == "string":
        size = schema.constraints.get("minLength", 1)
        return "x" * max(1, size if isinstance(size, int) and size < 64 else 1)
    return _ZERO.get(schema.type)


#: Scalars of a synthesized instance (a string is ``"x"``: no provider sends an empty id or model).
_ZERO: dict[str, Any] = {"integer": 0, "number": 0.5, "boolean": False, "null": None, "any": None}


def accepts(schema: Schema, value: Any, *tags: str) -> bool:
    """True when lenient decoding of ``schema`` (:mod:`ssegen.codemodel.models`) takes ``value``.

    Lenient as the generated models are: unknown members are ignored, enums admit any
    string, optional members admit ``null``; only required non-nullable members, member
    types, ``maxItems: 0`` and the tag members ``tags`` (each fixed to one value) constrain.
    """
    return _fits(schema, value, frozenset(t for t in tags if t), top=True, depth=0)


def _fits(schema: Schema, value: Any, tags: frozenset[str], *, top: bool, depth: int) -> bool:
    if depth > 16 or schema.type == "any":
        return True
    if value is None:
        return schema.nullable or schema.type == "null"
    if schema.type == "object":
        if not isinstance(value, dict):
            return False
        for prop in schema.properties:
            if prop.name not in value:
                if prop.required and not prop.schema.nullable:
                    return False
                continue
            member = value[prop.name]
            if member is None and not (prop.required and not prop.schema.nullable):
                continue
            if top and prop.name in tags and schema.tag(prop.name) is not None:
                if member != schema.tag(prop.name):
                    return False
                continue
            if not _fits(prop.schema, member, tags, top=False, depth=depth + 1):
                return False
        return True
    if schema.type == "array":
        if not isinstance(value, list) or (schema.max_items == 0 and value):
            return False
        return schema.items is None or all(_fits(schema.items, v, tags, top=False, depth=depth + 1) for v in value[:8])
    if schema.type == "union":
        return any(_fits(v, value, tags, top=False, depth=depth + 1) for v in schema.variants)
    if schema.type == "string":
        return isinstance(value, str)
    if schema.type == "boolean":
        return isinstance(value, bool)
    if schema.type == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if schema.type == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return schema.type == "null" and value is None
