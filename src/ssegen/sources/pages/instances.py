"""Schemas from example JSON, and table-derived schemas checked against example instances.

A page's example streams are the only place some facts are stated: the choice
``index`` of Xerotier (``specs/xerotier/streaming-api.md:66``), which members
a chunk may leave out.  :func:`schema_from_json` types a JSON example;
:func:`refine_with_instances` corrects presence by what the examples show.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Property, Provenance, Schema, json_type
from ...naming import pascal, singular
from .wire import PageStream


def instances(streams: Iterable[PageStream], wanted: Callable[[dict[str, Any]], bool]) -> list[tuple[Any, Provenance]]:
    """The JSON objects of the streams' events that ``wanted`` accepts, with where each is written (page order)."""
    return [
        (value, prov)
        for stream in streams
        for value, prov in stream.json_events()
        if isinstance(value, dict) and wanted(value)
    ]


def schema_from_json(
    value: Any,
    name: str,
    provenance: Provenance,
    *,
    required: bool = False,
    member_provenance: dict[str, Provenance] | None = None,
) -> Schema:
    """A schema for one example JSON value (objects named ``name`` + member path).

    Members are optional unless ``required`` (one example does not show which
    members are always sent); a ``null`` value gives a nullable ``any`` (its type
    is not shown); an array takes its item schema from its first element.
    ``member_provenance`` gives the line of top-level members when known.
    """
    kind = json_type(value)
    if kind == "null":
        return Schema("any", provenance, nullable=True)
    if kind == "object":
        props = []
        for key, member in value.items():
            prov = (member_provenance or {}).get(key, provenance)
            child = schema_from_json(member, name + (pascal(key) or "Member"), prov, required=required)
            props.append(Property(key, child, required, "", prov))
        return Schema("object", provenance, name=name, properties=tuple(props))
    if kind == "array":
        items = schema_from_json(value[0], singular(name), provenance, required=required) if value else None
        return Schema("array", provenance, items=items)
    return Schema(kind, provenance)


# -- checking schemas against example instances ------------------------------------------

_COMPATIBLE: dict[str, tuple[str, ...]] = {
    "string": ("string",),
    "integer": ("integer",),
    "number": ("number", "integer"),
    "boolean": ("boolean",),
    "object": ("object",),
    "array": ("array",),
}


def refine_with_instances(
    schema: Schema,
    instances: Sequence[tuple[Any, Provenance]],
    diagnostics: Diagnostics,
    *,
    add_members: Collection[str] = (),
) -> Schema:
    """``schema`` corrected by what example instances of it show.

    A schema built from a table states types but rarely presence; the page's
    example streams show it.  For every object member (recursively, through
    array items):

    * required, but absent from an instance -> not required (``required-relaxed``, info);
    * an instance member the schema does not list -> reported (``example-member-undocumented``, info),
      or, for an object named in ``add_members`` (one the page describes only
      in prose) and present in every instance, added as a required member
      typed from the instances (``member-from-example``, info).

    Objects without documented members (``usage: object``) are left alone.
    Values that contradict the schema (``null``, another type, a new enum value)
    are not handled here but by the provider-wide merge step
    :func:`ssegen.reconcile.reconcile_examples`, for every source alike.
    Deterministic: members are visited in schema order, instances in page order.
    """
    return _Refiner(diagnostics, frozenset(add_members)).refine(schema, list(instances))


@dataclass
class _Refiner:
    """:func:`refine_with_instances` over one schema tree.

    Attributes:
        diagnostics: receives ``required-relaxed``, ``member-from-example`` and
            ``example-member-undocumented``.
        add_members: the objects whose undocumented members present in every instance are added.
        reported: the undocumented members already reported, so each is reported once.
    """

    diagnostics: Diagnostics
    add_members: frozenset[str]
    reported: set[tuple[str, str, str]] = field(default_factory=set)

    def refine(self, schema: Schema, instances: list[tuple[Any, Provenance]]) -> Schema:
        """``schema`` corrected by its non-null ``instances`` (value, provenance): an array
        through its items, an object with documented members member by member
        (:meth:`_refine_object`); anything else as it is."""
        present = [(v, p) for v, p in instances if v is not None]
        if not present:
            return schema
        if schema.type == "array":
            if schema.items is None:
                return schema
            elements = [(e, p) for v, p in present if isinstance(v, list) for e in v]
            return replace(schema, items=self.refine(schema.items, elements))
        if schema.type != "object" or not schema.properties:
            return schema
        objects = [(v, p) for v, p in present if isinstance(v, dict)]
        if not objects:
            return schema
        return self._refine_object(schema, objects)

    def _refine_object(self, schema: Schema, objects: list[tuple[dict[str, Any], Provenance]]) -> Schema:
        """The object ``schema`` with each documented member refined (:meth:`_refine_member`),
        then each undocumented member of the ``objects`` added or reported (:meth:`_extra_member`)."""
        props = [self._refine_member(schema, prop, objects) for prop in schema.properties]
        known = {p.name for p in schema.properties}
        extra: list[str] = []
        for value, _ in objects:
            for key in value:
                if key not in known and key not in extra:
                    extra.append(key)
        for key in extra:
            member = self._extra_member(schema, key, objects)
            if member is not None:
                props.append(member)
        return replace(schema, properties=tuple(props))

    def _refine_member(
        self, schema: Schema, prop: Property, objects: list[tuple[dict[str, Any], Provenance]]
    ) -> Property:
        """Member ``prop`` of ``schema``: not required when an instance leaves it out
        (``required-relaxed``), its schema refined by the values the instances give it."""
        absent = [p for v, p in objects if prop.name not in v]
        values = [(v[prop.name], p) for v, p in objects if prop.name in v]
        required = prop.required
        if required and absent:
            required = False
            self.diagnostics.at(
                prop.provenance,
                codes.REQUIRED_RELAXED,
                f"member {prop.name!r} of {schema.name or 'object'} is absent from the example at line "
                f"{absent[0].line}; not required",
            )
        return replace(prop, schema=self.refine(prop.schema, values), required=required)

    def _extra_member(
        self, schema: Schema, key: str, objects: list[tuple[dict[str, Any], Provenance]]
    ) -> Property | None:
        """The member ``key`` that ``schema`` does not document: added, required and typed from
        the instances, when ``schema`` is one of :attr:`add_members` and every instance has it
        (``member-from-example``); else None, reported once (``example-member-undocumented``)."""
        holders = [(v, p) for v, p in objects if key in v]
        first = holders[0][1]
        if schema.name in self.add_members and len(holders) == len(objects):
            sample = next((v[key] for v, _ in holders if v[key] is not None), None)
            member = schema_from_json(sample, schema.name + (pascal(key) or "Member"), first)
            if any(v[key] is None for v, _ in holders):
                member = replace(member, nullable=True)
            self.diagnostics.at(
                first,
                codes.MEMBER_FROM_EXAMPLE,
                f"member {key!r} of {schema.name or 'object'} is not documented but is in every example "
                f"({len(holders)}); added as a required {member.type}",
            )
            return Property(key, member, True, "", first)
        rkey = ("extra", schema.provenance.pointer + "/" + schema.name, key)
        if rkey not in self.reported:
            self.reported.add(rkey)
            self.diagnostics.at(
                first,
                codes.EXAMPLE_MEMBER_UNDOCUMENTED,
                f"the example at line {first.line} has member {key!r}, "
                f"which {schema.name or 'the object'} does not document",
            )
        return None
