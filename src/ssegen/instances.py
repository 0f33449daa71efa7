"""JSON instances of IR schemas: synthesized ones, and whether lenient decoding accepts one.

Used to tell whether two messages of a channel can match one payload
(:mod:`ssegen.normalize.discrimination`) and to give the generated conformance tests an
instance of every message the spec documents no example for
(:mod:`ssegen.codemodel.conformance`). "Lenient" is what the generated models accept
(:mod:`ssegen.codemodel.models`), not the strict JSON Schema (``schemas.json``).
"""

from __future__ import annotations

from typing import Any

from .ir import Property, Schema

#: Most JSON values one synthesized instance may hold. A schema whose members reference a schema
#: of many members, level after level (ten ``$ref`` members, nine levels: 10^9 values), would
#: otherwise be expanded whole: past the budget, optional members and array items are left out,
#: and a schema whose required members alone exceed it has no instance (:data:`NO_INSTANCE`).
MAX_INSTANCE_VALUES = 10_000


class _NoInstance:
    """The type of :data:`NO_INSTANCE`."""

    def __repr__(self) -> str:
        return "NO_INSTANCE"


#: Returned instead of an instance when the schema's required members alone expand past
#: :data:`MAX_INSTANCE_VALUES` values (``None`` is a JSON value, so it cannot say this).
NO_INSTANCE: Any = _NoInstance()


class _OverBudget(Exception):
    """A required member could not be built within the budget."""


def minimal_instance(schema: Schema) -> Any:
    """The smallest JSON value ``schema`` admits as lenient decoding sees it: required
    members only (and members fixed to one value), the first enum value, empty
    arrays unless ``minItems``, zero values of scalars (``"x"`` for a string, longer
    when ``minLength`` says so). :data:`NO_INSTANCE` past :data:`MAX_INSTANCE_VALUES`."""
    return _Builder(full=False).build(schema)


def full_instance(schema: Schema) -> Any:
    """A JSON value of ``schema`` with every declared member present (one item per array),
    as far as :data:`MAX_INSTANCE_VALUES` values allow (then required members only);
    :data:`NO_INSTANCE` when even those exceed it."""
    return _Builder(full=True).build(schema)


class _Builder:
    """Builds one instance, counting the values made against :data:`MAX_INSTANCE_VALUES`."""

    def __init__(self, *, full: bool) -> None:
        self.full = full
        self.made = 0

    def build(self, schema: Schema) -> Any:
        try:
            return self._instance(schema, 0)
        except _OverBudget:
            return NO_INSTANCE

    def _instance(self, schema: Schema, depth: int) -> Any:
        self._count()
        if schema.enum:
            return schema.enum[0]
        if depth > 8:
            return None
        if schema.type == "object":
            return self._object(schema, depth)
        if schema.type == "array":
            return self._array(schema, depth)
        if schema.type == "union" and schema.variants:
            return self._instance(schema.variants[0], depth + 1)
        return _scalar(schema)

    def _count(self) -> None:
        """Count one value; past the budget only required members are made, and past twice
        the budget even those give up (:class:`_OverBudget`)."""
        self.made += 1
        if self.made > MAX_INSTANCE_VALUES:
            self.full = False  # from here on, what is required only
            if self.made > 2 * MAX_INSTANCE_VALUES:
                raise _OverBudget

    def _object(self, schema: Schema, depth: int) -> dict[str, Any]:
        """The required members and those fixed to one value (a tag), or every member when full."""
        return {
            p.name: self._instance(p.schema, depth + 1)
            for p in schema.properties
            if self.full or p.required or schema.tag(p.name) is not None
        }

    def _array(self, schema: Schema, depth: int) -> list[Any]:
        """``minItems`` items (at least one when full and the array may hold any)."""
        count = schema.min_items or 0
        if self.full and schema.max_items != 0:
            count = max(count, 1)
        if schema.items is None:
            return [None] * count
        return [self._instance(schema.items, depth + 1)] * count if count else []


def _scalar(schema: Schema) -> Any:
    """A string of its ``format`` (:data:`_FORMATS`), else of ``minLength`` (if under 64) or
    ``"x"``; the zero value of another scalar."""
    if schema.type == "string":
        formatted = _FORMATS.get(schema.format)
        if formatted is not None:
            return formatted
        size = schema.constraints.get("minLength", 1)
        return "x" * max(1, size if isinstance(size, int) and size < 64 else 1)
    return _ZERO.get(schema.type)


#: A value of each string ``format`` a stream's payloads use (JSON Schema 2020-12 "Defined
#: Formats"; RFC 3339 times, RFC 3986 URIs, RFC 4122 UUIDs; documentation addresses and
#: domains: RFC 5737, RFC 3849, RFC 2606), so a synthesized instance reads as the wire would
#: send it (Ollama's ``created_at`` is a date-time, not ``"x"``).
_FORMATS: dict[str, str] = {
    "date-time": "2025-01-01T00:00:00Z",
    "date": "2025-01-01",
    "time": "00:00:00Z",
    "duration": "PT1S",
    "uri": "https://example.com/",
    "uri-reference": "https://example.com/",
    "iri": "https://example.com/",
    "url": "https://example.com/",
    "email": "user@example.com",
    "idn-email": "user@example.com",
    "hostname": "example.com",
    "idn-hostname": "example.com",
    "ipv4": "192.0.2.1",
    "ipv6": "2001:db8::1",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "byte": "eA==",
}


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
        return isinstance(value, dict) and all(
            _member_fits(schema, prop, value, tags, top=top, depth=depth) for prop in schema.properties
        )
    if schema.type == "array":
        return _array_fits(schema, value, tags, depth=depth)
    if schema.type == "union":
        return any(_fits(v, value, tags, top=False, depth=depth + 1) for v in schema.variants)
    return _fits_scalar(schema.type, value)


def _member_fits(
    schema: Schema, prop: Property, value: dict[str, Any], tags: frozenset[str], *, top: bool, depth: int
) -> bool:
    """Whether the member ``prop`` of the object ``value`` (of ``schema``) is as lenient decoding
    takes it: present unless required and not nullable, its tag value if a tag of the payload."""
    needed = prop.required and not prop.schema.nullable
    if prop.name not in value:
        return not needed
    member = value[prop.name]
    if member is None and not needed:
        return True
    if top and prop.name in tags and (tag := schema.tag(prop.name)) is not None:
        return bool(member == tag)
    return _fits(prop.schema, member, tags, top=False, depth=depth + 1)


def _array_fits(schema: Schema, value: Any, tags: frozenset[str], *, depth: int) -> bool:
    """Whether ``value`` is a list ``schema`` takes: empty if ``maxItems: 0``, its first 8 items
    fitting the item schema (enough to tell messages apart, bounded for long arrays)."""
    if not isinstance(value, list) or (schema.max_items == 0 and value):
        return False
    return schema.items is None or all(_fits(schema.items, v, tags, top=False, depth=depth + 1) for v in value[:8])


def _fits_scalar(kind: str, value: Any) -> bool:
    """Whether the non-null ``value`` is a JSON scalar of ``kind`` (a bool is no integer or number)."""
    if isinstance(value, bool):
        return kind == "boolean"
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int)
    if kind == "number":
        return isinstance(value, (int, float))
    return False  # a boolean schema's non-bool, a null schema's non-None value, an unknown type
