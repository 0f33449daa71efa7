"""Two payload schemas compared, member by member, as the generated models decode them.

The models are lenient (:mod:`ssegen.codemodel.models`): unknown members are ignored, an enum is
``Literal[...] | str``, an optional member admits ``null``; only required non-nullable members,
member types, ``maxItems: 0`` and tag members constrain (:func:`ssegen.instances.accepts`). So a
change is judged by whether an older package still takes every value the new spec allows:

* a new member, a new enum value, a new union alternative: compatible;
* a type narrowed (any JSON to a type, ``number`` to ``integer``, a union to one of its types):
  compatible; any other type change: breaking;
* a member removed, renamed (another member with the same schema appears), made required, or
  made optional where an older package requires it: breaking;
* validation keywords the models do not check, texts, formats: compatible.

Nothing here knows channels: :mod:`ssegen.diff.compare` turns each :class:`Found` into a
:class:`~ssegen.diff.changes.Change` of a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ..ir import EACH, Property, Provenance, Schema, SchemaRef
from .changes import (
    CONSTRAINT_CHANGED,
    DOCS_CHANGED,
    ENUM_VALUE_ADDED,
    ENUM_VALUES_CHANGED,
    MEMBER_ADDED,
    MEMBER_OPTIONAL,
    MEMBER_REMOVED,
    MEMBER_RENAMED,
    MEMBER_REQUIRED,
    TYPE_CHANGED,
    TYPE_NARROWED,
    TYPE_RENAMED,
    VARIANT_ADDED,
    VARIANT_REMOVED,
    Kind,
)

#: Nesting followed before a comparison stops (payload schemas of the seeds nest 9 levels at most).
MAX_DEPTH = 32

#: Texts compared for ``docs-changed``.
_TEXTS = ("description", "title", "format")


@dataclass(frozen=True)
class Found:
    """A change inside a payload.

    Attributes:
        kind: what kind of change.
        path: where, from the payload's root: member names, :data:`ssegen.ir.EACH` for an
            array's items.
        text: what changed, in words (without the consequence, which the kind states).
        old, new: where each spec states it (for a member gone, ``new`` is the object that lost it;
            for one added, ``old`` is the object that gained it).
    """

    kind: Kind
    path: tuple[str, ...]
    text: str
    old: Provenance | None
    new: Provenance | None


def compare_payloads(old: Schema, new: Schema, tags: tuple[str, ...] = ()) -> list[Found]:
    """Every change from payload ``old`` to ``new``, in member order.

    ``tags`` are the top-level members that tell the message apart on the wire (its channel's tag
    and sub-tags): their values are the message's identity, compared by the caller, not here.
    Shared schemas are compared once per pair (by identity), so a spec that uses one schema in many
    places costs one comparison. Never raises.
    """
    return _Walk(frozenset(tags)).node(old, new, 0)


def _prefixed(path: tuple[str, ...], found: list[Found]) -> list[Found]:
    return [replace(f, path=path + f.path) for f in found]


class _Walk:
    """One comparison: the memo of compared pairs, the top-level tag members."""

    def __init__(self, tags: frozenset[str]) -> None:
        self.tags = tags
        self.memo: dict[tuple[int, int, bool], list[Found]] = {}
        self.shapes: dict[int, Any] = {}

    def node(self, old: Schema, new: Schema, depth: int) -> list[Found]:
        key = (id(old), id(new), depth == 0)
        if key not in self.memo:
            self.memo[key] = []  # a cycle met again compares as unchanged
            self.memo[key] = [] if depth > MAX_DEPTH else self._node(old, new, depth)
        return self.memo[key]

    def _node(self, old: Schema, new: Schema, depth: int) -> list[Found]:
        if old.type != new.type:
            return self._alternative(old, new, depth) or [_retyped(old, new)]
        if old.type == "object" and bool(old.properties) != bool(new.properties):
            return [_retyped(old, new)]
        found = _texts(old, new) + _constraints(old, new) + _enum(old, new) + (_renamed(old, new) if depth else [])
        if old.type == "object":
            found += self._members(old, new, depth)
        elif old.type == "array":
            found += self._items(old, new, depth)
        elif old.type == "union":
            found += self._variants(old, new, depth)
        return found

    # -- objects --------------------------------------------------------------------------------

    def _members(self, old: Schema, new: Schema, depth: int) -> list[Found]:
        olds = {p.name: p for p in old.properties}
        news = {p.name: p for p in new.properties}
        gone = [p for p in old.properties if p.name not in news]
        came = [p for p in new.properties if p.name not in olds]
        found = _gone_and_came(old, new, gone, came, self._renames(gone, came))
        for prop in new.properties:
            if prop.name in olds and not (depth == 0 and prop.name in self.tags):
                found += self._member(olds[prop.name], prop, depth)
        return found

    def _member(self, old: Property, new: Property, depth: int) -> list[Found]:
        path = (new.name,)
        found = []
        was, now = _is_needed(old), _is_needed(new)
        if was and not now:
            why = "is no longer required" if not new.required else "may now be null"
            found.append(Found(MEMBER_OPTIONAL, path, f"member {new.name!r} {why}", old.provenance, new.provenance))
        elif now and not was:
            why = "is now required" if not old.required else "may no longer be null"
            found.append(Found(MEMBER_REQUIRED, path, f"member {new.name!r} {why}", old.provenance, new.provenance))
        if old.description != new.description:
            found.append(Found(DOCS_CHANGED, path, "description", old.provenance, new.provenance))
        return found + _prefixed(path, self.node(old.schema, new.schema, depth + 1))

    def _renames(self, gone: list[Property], came: list[Property]) -> list[tuple[Property, Property]]:
        """Members gone and members added with the same schema (and required-ness), paired when
        the schema is unique on both sides: a rename, not a removal and an addition."""
        shapes_gone = [(self._shape(p.schema, 0), p.required) for p in gone]
        shapes_came = [(self._shape(p.schema, 0), p.required) for p in came]
        return [
            (o, came[shapes_came.index(shape)])
            for o, shape in zip(gone, shapes_gone, strict=True)
            if shapes_gone.count(shape) == 1 and shapes_came.count(shape) == 1
        ]

    def _shape(self, schema: Schema, depth: int) -> Any:
        """What a schema is to decoding, without texts or places: types, members, enums."""
        if id(schema) in self.shapes:
            return self.shapes[id(schema)]
        self.shapes[id(schema)] = "..."  # a cycle
        shape: Any = (schema.type, schema.enum, schema.nullable, schema.max_items == 0)
        if depth < 4:
            shape += (
                tuple((p.name, p.required, self._shape(p.schema, depth + 1)) for p in schema.properties),
                self._shape(schema.items, depth + 1) if schema.items is not None else None,
                tuple(self._shape(v, depth + 1) for v in schema.variants),
            )
        self.shapes[id(schema)] = shape
        return shape

    # -- arrays and unions ------------------------------------------------------------------------

    def _items(self, old: Schema, new: Schema, depth: int) -> list[Found]:
        found = []
        if (old.max_items == 0) != (new.max_items == 0):
            kind, text = (
                (TYPE_CHANGED, "an always-empty array (maxItems: 0) may now hold items")
                if old.max_items == 0
                else (TYPE_NARROWED, "the array is now always empty (maxItems: 0)")
            )
            found.append(Found(kind, (), text, old.provenance, new.provenance))
        elif (old.min_items, old.max_items) != (new.min_items, new.max_items):
            found.append(Found(CONSTRAINT_CHANGED, (), "minItems/maxItems", old.provenance, new.provenance))
        if old.items is None or new.items is None:
            if (old.items is None) != (new.items is None):
                kind = TYPE_NARROWED if old.items is None else TYPE_CHANGED
                text = "items now typed" if old.items is None else "items no longer typed (any JSON)"
                found.append(Found(kind, (EACH,), text, old.provenance, new.provenance))
            return found
        if old.items.nullable != new.items.nullable:
            kind, text = (
                (TYPE_CHANGED, "items may now be null")
                if new.items.nullable
                else (TYPE_NARROWED, "items may no longer be null")
            )
            found.append(Found(kind, (EACH,), text, old.items.provenance, new.items.provenance))
        return found + _prefixed((EACH,), self.node(old.items, new.items, depth + 1))

    def _variants(self, old: Schema, new: Schema, depth: int) -> list[Found]:
        if old.discriminator != new.discriminator:
            text = f"the union is told apart by {new.discriminator or 'shape'!r}, was {old.discriminator or 'shape'!r}"
            return [Found(TYPE_CHANGED, (), text, old.provenance, new.provenance)]
        olds, news = _keyed(old), _keyed(new)
        found = [
            Found(VARIANT_REMOVED, (), f"alternative {key} removed", v.provenance, new.provenance)
            for key, v in olds.items()
            if key not in news
        ]
        found += [
            Found(VARIANT_ADDED, (), f"new alternative {key}", old.provenance, v.provenance)
            for key, v in news.items()
            if key not in olds
        ]
        for key, v in news.items():
            if key in olds:
                found += self.node(olds[key], v, depth + 1)
        return found

    def _alternative(self, old: Schema, new: Schema, depth: int) -> list[Found]:
        """A union that became one of its alternatives (the others removed), or a schema that
        became one alternative of a union (others added): that alternative compared, the others
        ``variant-removed`` or ``variant-added`` when they are classes (else the type's change is
        told by :func:`_retyped`); [] when neither is the case."""
        union, single = (old, new) if old.type == "union" else (new, old)
        same, others = _split(union, single)
        if same is None:
            return []
        if union is old:
            found = [
                Found(VARIANT_REMOVED, (), f"alternative {_key(v)} removed", v.provenance, new.provenance)
                for v in others
            ]
            return found + self.node(same, new, depth + 1)
        found = [Found(VARIANT_ADDED, (), f"new alternative {_key(v)}", old.provenance, v.provenance) for v in others]
        return found + self.node(old, same, depth + 1)


def _split(union: Schema, single: Schema) -> tuple[Schema | None, list[Schema]]:
    """The alternative of ``union`` that is ``single`` (same type and name) and the others, all
    classes; (None, []) when ``union`` is no union, ``single`` is one, or there is no such split."""
    if union.type != "union" or single.type == "union":
        return None, []
    same = [v for v in union.variants if v.type == single.type and v.name == single.name]
    others = [v for v in union.variants if v not in same]
    if len(same) != 1 or not all(v.type == "object" and v.properties for v in others):
        return None, []
    return same[0], others


def _gone_and_came(
    old: Schema, new: Schema, gone: list[Property], came: list[Property], renamed: list[tuple[Property, Property]]
) -> list[Found]:
    """``member-renamed``, ``member-removed`` and ``member-added`` of one object."""
    found = [
        Found(MEMBER_RENAMED, (n.name,), f"member {o.name!r} renamed {n.name!r}", o.provenance, n.provenance)
        for o, n in renamed
    ]
    paired = {o.name for o, _ in renamed} | {n.name for _, n in renamed}
    found += [
        Found(MEMBER_REMOVED, (o.name,), f"member {o.name!r} removed", o.provenance, new.provenance)
        for o in gone
        if o.name not in paired
    ]
    return found + [
        Found(MEMBER_ADDED, (n.name,), f"new {_needed(n)} member {n.name!r}", old.provenance, n.provenance)
        for n in came
        if n.name not in paired
    ]


def _key(variant: Schema) -> str:
    return f"{variant.name or variant.type}"


def _keyed(union: Schema) -> dict[str, Schema]:
    """A union's alternatives by what identifies them: the tag value under its discriminator,
    else the schema name, else the type (a repeat gets ``#2``)."""
    out: dict[str, Schema] = {}
    for variant in union.variants:
        value = variant.tag(union.discriminator) if union.discriminator else None
        key = f"{union.discriminator}={value!r}" if value is not None else (variant.name or variant.type)
        while key in out:
            key += "#2"
        out[key] = variant
    return out


def _is_needed(prop: Property) -> bool:
    """Whether lenient decoding needs the member: required and not nullable."""
    return prop.required and not prop.schema.nullable


def _needed(prop: Property) -> str:
    return "required" if _is_needed(prop) else "optional"


def type_name(schema: Schema) -> str:
    """A schema's type in words: ``string``, ``class Usage``, ``string | array``, ``any JSON``,
    ``object kept whole (a dict)``."""
    if schema.type == "union":
        return " | ".join(dict.fromkeys(type_name(v) for v in schema.variants)) or "union"
    if schema.type == "any":
        return "any JSON"
    if schema.type == "object":
        return f"class {schema.name or '(unnamed)'}" if schema.properties else "object kept whole (a dict)"
    return schema.type


def _narrows(old: Schema, new: Schema) -> bool:
    """Whether every value of ``new`` is one ``old`` takes, and code reading ``old``'s Python type
    reads ``new``'s: any JSON to a scalar or a dict, number to integer, a union to one of its types.
    An object that becomes a class, or a class that becomes a dict, is read otherwise
    (``x.member`` against ``x["member"]``)."""
    as_class = new.type == "object" and bool(new.properties)
    if old.type == "any":
        return not as_class
    if old.type == "number" and new.type == "integer":
        return True
    return old.type == "union" and not as_class and any(v.type == new.type for v in old.variants)


def _renamed(old: Schema, new: Schema) -> list[Found]:
    """``type-renamed`` when a generated class (an object with members, an enum alias) has another
    name that the spec gives (a component name or a title) on either side: a name built from the
    path follows its parent's, whose own rename is reported."""
    named = (old.type == "object" and old.properties) or old.enum
    if not named or not old.name or not new.name or old.name == new.name:
        return []
    if not (_named_in_spec(old) or _named_in_spec(new)):
        return []
    return [Found(TYPE_RENAMED, (), f"class {old.name} renamed {new.name}", old.provenance, new.provenance)]


#: Where a document keeps its named schemas (AsyncAPI/OpenAPI components, JSON Schema definitions).
_DEFINITIONS = re.compile(r"/(components/schemas|definitions|\$defs)/[^/]+$")


def _named_in_spec(schema: Schema) -> bool:
    """Whether the schema's name is the spec's: a title, or the key it is defined under."""
    return bool(schema.title) or _DEFINITIONS.search(schema.provenance.pointer) is not None


def _retyped(old: Schema, new: Schema) -> Found:
    kind = TYPE_NARROWED if _narrows(old, new) else TYPE_CHANGED
    return Found(kind, (), f"type {type_name(old)} -> {type_name(new)}", old.provenance, new.provenance)


def _texts(old: Schema, new: Schema) -> list[Found]:
    changed = [name for name in _TEXTS if getattr(old, name) != getattr(new, name)]
    return [Found(DOCS_CHANGED, (), ", ".join(changed), old.provenance, new.provenance)] if changed else []


def _enum(old: Schema, new: Schema) -> list[Found]:
    if old.enum == new.enum:
        return []
    added = [v for v in new.enum if v not in old.enum]
    dropped = [v for v in old.enum if v not in new.enum]
    if old.enum and new.enum:
        found = []
        if added:
            found.append(Found(ENUM_VALUE_ADDED, (), f"new value {_values(added)}", old.provenance, new.provenance))
        if dropped:
            text = f"{_values(dropped)} no longer listed"
            found.append(Found(ENUM_VALUES_CHANGED, (), text, old.provenance, new.provenance))
        return found
    text = f"values {_values(new.enum)} now listed" if new.enum else "its values are no longer listed"
    return [Found(ENUM_VALUES_CHANGED, (), text, old.provenance, new.provenance)]


def _values(values: list[Any] | tuple[Any, ...]) -> str:
    shown = ", ".join(repr(v) for v in values[:6])
    return shown + (f" and {len(values) - 6} more" if len(values) > 6 else "")


def _constraints(old: Schema, new: Schema) -> list[Found]:
    before, after = _canonical(old.constraints, 0), _canonical(new.constraints, 0)
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if old.additional_properties != new.additional_properties:
        changed.append("additionalProperties")
    if not changed:
        return []
    return [Found(CONSTRAINT_CHANGED, (), ", ".join(changed), old.provenance, new.provenance)]


def _canonical(value: Any, depth: int) -> Any:
    """A keyword value as written, each ``$ref`` as its target's place (file and pointer, not
    line: lines shift with every edit above them)."""
    if depth > MAX_DEPTH:
        return None
    if isinstance(value, SchemaRef):
        return ("$ref", value.provenance.file, value.provenance.pointer)
    if isinstance(value, dict):
        return {k: _canonical(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_canonical(v, depth + 1) for v in value]
    return value
