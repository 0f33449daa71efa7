"""JSON Schema keywords the IR does not model, kept as written in :attr:`Schema.constraints`.

Value constraints (``maximum``, ``minLength``, ``pattern``, ...) and applicators (``not``,
``if``, ``prefixItems``, ...) are checked for shape (a keyword of the wrong shape is ignored,
``schema-invalid``) and kept for the strict ``schemas.json``; a ``$ref`` inside them becomes a
:class:`~ssegen.ir.SchemaRef` to its target, each target read once however often it is
referred to (copies would grow exponentially with the depth of a spec that refers to one
schema ten times per level).
"""

from __future__ import annotations

import math
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import SchemaRef
from .location import Location
from .refs import RefError, RefResolver

#: How many references to different schemas a keyword kept as written may chain before the
#: rest is cut to ``{}`` (:meth:`KeptKeywords.as_written`; a cycle is kept whole).
_MAX_KEPT_DEPTH = 32

#: JSON Schema keywords kept in :attr:`Schema.constraints` (the IR models the others:
#: ``type``, ``enum``/``const``, ``properties``, ``required``, ``items``, ``minItems``,
#: ``maxItems``, ``oneOf``/``anyOf``, ``allOf`` (merged), ``additionalProperties: false``),
#: with their shape.
_CONSTRAINTS = {
    "multipleOf": "number",
    "maximum": "number",
    "exclusiveMaximum": "number",
    "minimum": "number",
    "exclusiveMinimum": "number",
    "maxLength": "count",
    "minLength": "count",
    "pattern": "string",
    "maxProperties": "count",
    "minProperties": "count",
    "uniqueItems": "boolean",
    "maxContains": "count",
    "minContains": "count",
    "dependentRequired": "map",
    "not": "schema",
    "if": "schema",
    "then": "schema",
    "else": "schema",
    "contains": "schema",
    "propertyNames": "schema",
    "patternProperties": "map",
    "dependentSchemas": "map",
    "prefixItems": "schemas",
    "unevaluatedProperties": "schema",
    "unevaluatedItems": "schema",
}

_SHAPES = {
    "number": "a number",
    "count": "a non-negative integer",
    "string": "a string",
    "boolean": "a boolean",
    "map": "a mapping",
    "schema": "a schema",
    "schemas": "a non-empty list of schemas",
}


class KeptKeywords:
    """Reads the keywords of schema objects the IR does not model, sharing ``$ref`` targets.

    Args:
        resolver: follows ``$ref`` strings (local and relative-file only).
        diagnostics: receives ``schema-invalid``, ``ref-too-deep`` and the resolver's codes.
    """

    def __init__(self, resolver: RefResolver, diagnostics: Diagnostics) -> None:
        self.resolver = resolver
        self.diagnostics = diagnostics
        self._refs: dict[tuple[str, str], SchemaRef] = {}

    def constraints(self, node: dict[str, Any], loc: Location) -> dict[str, Any]:
        """The keywords of ``node`` the IR does not model, checked for shape, ``$ref`` s kept
        (:meth:`as_written`)."""
        out: dict[str, Any] = {}
        for key, value in node.items():
            expected = _CONSTRAINTS.get(key)
            if expected is None:
                if key == "additionalProperties" and isinstance(value, dict) and value:
                    out[key] = self.as_written(value, loc.child(key), ())  # a schema for unlisted members
                continue
            if not _has_shape(value, expected):
                self.diagnostics.at(
                    loc.child(key).provenance,
                    codes.SCHEMA_INVALID,
                    f"{key} must be {_SHAPES[expected]}, got {value_kind(value)}; ignored",
                )
                continue
            out[key] = self.as_written(value, loc.child(key), ()) if expected in ("schema", "schemas", "map") else value
        return out

    def as_written(self, value: Any, loc: Location, active: tuple[tuple[str, str], ...]) -> Any:
        """``value`` (a keyword's value, as written) with each ``$ref`` object replaced by a
        :class:`~ssegen.ir.SchemaRef` to its target (its sibling keywords are not kept).

        Each target is read once and its :class:`~ssegen.ir.SchemaRef` shared by every
        reference to it, so the result is as large as the spec, not one copy per path to a
        schema; a reference back to a target being read is that target's own reference (a
        cycle, as JSON Schema allows).  ``active`` is the targets being read.
        """
        if isinstance(value, list):
            return [self.as_written(v, loc.child(i), active) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        if isinstance(value.get("$ref"), str):
            return self._reference(value["$ref"], loc, active)
        return {k: self.as_written(v, loc.child(k), active) for k, v in value.items()}

    def _reference(self, ref: str, loc: Location, active: tuple[tuple[str, str], ...]) -> SchemaRef | dict[str, Any]:
        """The shared :class:`~ssegen.ir.SchemaRef` to the target of ``ref`` (the ``$ref`` of the
        object at ``loc``), its target read as written on first use.  More than
        :data:`_MAX_KEPT_DEPTH` references deep, or unresolvable, it is ``{}`` (any JSON),
        reported (``ref-too-deep``, or the resolver's code).
        """
        try:
            target = self.resolver.lookup(ref, loc.uri)
        except RefError as exc:
            self.diagnostics.at(loc.child("$ref").provenance, exc.code, str(exc))
            return {}
        key = (target.uri, target.pointer)
        known = self._refs.get(key)
        if known is not None:
            return known  # read before, or being read: a $ref back to a schema it is inside
        if len(active) > _MAX_KEPT_DEPTH:
            self.diagnostics.at(
                loc.child("$ref").provenance,
                codes.REF_TOO_DEEP,
                f"$ref {ref!r} is more than {_MAX_KEPT_DEPTH} references deep inside a"
                " kept keyword; from there on it is kept as any JSON ({}), so schemas.json does"
                " not check what is below",
            )
            return {}
        tloc = Location(target.document, target.pointer, target.uri)
        reference = self._refs[key] = SchemaRef(tloc.provenance)
        reference.tie(self.as_written(target.contents, tloc, (*active, key)))
        return reference


def _has_shape(value: Any, shape: str) -> bool:
    """Whether ``value`` is of ``shape``, one of the keys of :data:`_SHAPES`."""
    if shape == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and not non_finite(value)
    if shape == "count":
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if shape == "string":
        return isinstance(value, str)
    if shape == "boolean":
        return isinstance(value, bool)
    if shape == "map":
        return isinstance(value, dict)
    if shape == "schema":
        return isinstance(value, (dict, bool))
    return isinstance(value, list) and bool(value) and all(isinstance(v, (dict, bool)) for v in value)


def value_kind(value: Any) -> str:
    """What ``value`` is, for a message: ``a mapping``, ``a list``, ``a string``, ``a boolean``,
    else its Python type name."""
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def non_finite(value: Any) -> bool:
    """True for NaN and infinities (YAML ``.nan``, ``.inf``): not JSON numbers."""
    return isinstance(value, float) and not math.isfinite(value)
