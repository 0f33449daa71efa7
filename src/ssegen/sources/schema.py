"""JSON Schema objects found in a source document -> normalized IR :class:`Schema`.

This is where every nullability style of the specs becomes one flag
(``Schema.nullable``), each with its own diagnostic so a reader of the output
knows what was rewritten:

=====================  ==========================================  ======================================
source style           example                                     where (``specs/``), diagnostic code
=====================  ==========================================  ======================================
OpenAPI ``nullable``   ``nullable: true``                          ``deepseek/asyncapi-page.txt:431``,
                                                                   ``nullable-keyword``
type list              ``type: [string, 'null']``                  ``mistral/asyncapi-page.txt:496``,
                                                                   ``type-list-null``
``oneOf`` null branch  ``oneOf: [{type: 'null'}, ...]``            ``deepseek/asyncapi-page.txt:381``,
                                                                   ``oneof-null-branch``
``null`` in ``enum``   ``enum: [stop, ..., null]``                 ``mistral/asyncapi-page.txt:504``,
                                                                   ``enum-null``
=====================  ==========================================  ======================================

JSON Schema keywords the IR does not model (value constraints such as ``maximum``,
``minLength``, ``pattern``; applicators such as ``not``, ``if``; ``allOf`` is merged) are kept
as written in :attr:`Schema.constraints`, for the strict ``schemas.json``; a ``$ref`` inside
them is kept as a :class:`~ssegen.ir.SchemaRef` to its target, each target read once however
often it is referred to (copies would grow exponentially with the depth of a spec that refers
to one schema ten times per level).  A keyword of the wrong shape is ignored (``schema-invalid``).

A ``$ref`` with sibling keywords keeps its sibling ``description`` on the use site
(``ref-siblings``); an always-empty array (``maxItems: 0``, Mistral's usage-only
chunk) is kept as a constraint and reported (``empty-array``).

Names: a referenced component keeps its key (``ChatCompletionUsage``); an inline
object or enum is named from the JSON path of its use (``ToolCallDeltaFunction``,
``ChatStreamChoiceFinishReason``); a ``title`` wins over the path.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import Property, Provenance, Schema, SchemaRef, SchemaType, json_type
from ..naming import ClassName, pascal, singular
from .document import Document, join_pointer
from .refs import RefError, RefResolver

_SCALAR_TYPES = {"string", "integer", "number", "boolean", "null", "object", "array"}


@dataclass(frozen=True)
class Location:
    """Where a schema object sits: its document, JSON pointer and base URI."""

    document: Document
    pointer: str
    uri: str

    def child(self, *tokens: str | int) -> Location:
        """The location of a member of this schema object."""
        return Location(self.document, join_pointer(self.pointer, *tokens), self.uri)

    @property
    def provenance(self) -> Provenance:
        """File, line and pointer of this location."""
        return Provenance(self.document.file, self.document.line(self.pointer), self.pointer)


class SchemaConverter:
    """Converts JSON Schema values to IR schemas, memoizing ``$ref`` targets.

    Args:
        resolver: follows ``$ref`` strings (local and relative-file only).
        diagnostics: receives one diagnostic per rewrite or problem, with place.
    """

    def __init__(self, resolver: RefResolver, diagnostics: Diagnostics) -> None:
        self.resolver = resolver
        self.diagnostics = diagnostics
        self._memo: dict[tuple[str, str], Schema] = {}
        self._active: list[tuple[str, str]] = []
        self._refs: dict[tuple[str, str], SchemaRef] = {}

    def convert(self, node: Any, loc: Location, hint: str) -> tuple[Schema, str]:
        """Convert the schema ``node`` found at ``loc``.

        Args:
            node: the JSON Schema value (a mapping, or a boolean schema).
            loc: its location, for provenance and for resolving ``$ref``.
            hint: PascalCase name to use if the schema needs one and has none.

        Returns:
            ``(schema, description)``: the IR schema and the description that
            applies at this use site (a ``$ref`` sibling or ``oneOf`` wrapper
            description, else the schema's own).
        """
        if node is True or node == {}:
            return Schema("any", loc.provenance), ""
        if not isinstance(node, dict):
            self._report(
                loc, codes.SCHEMA_NOT_OBJECT, f"a schema must be an object, got {_kind(node)}; treated as any JSON"
            )
            return Schema("any", loc.provenance), ""
        if "$ref" in node:
            return self._convert_ref(node, loc, hint)
        schema, description = self._convert_inline(node, loc, hint)
        constraints = self._constraints(node, loc)
        if constraints:
            schema = replace(schema, constraints={**schema.constraints, **constraints})
        return schema, description

    # -- keywords kept as constraints ------------------------------------------

    def _constraints(self, node: dict[str, Any], loc: Location) -> dict[str, Any]:
        """The keywords of ``node`` the IR does not model, checked for shape, ``$ref`` s kept
        (:meth:`_as_written`)."""
        out: dict[str, Any] = {}
        for key, value in node.items():
            expected = _CONSTRAINTS.get(key)
            if expected is None:
                if key == "additionalProperties" and isinstance(value, dict) and value:
                    out[key] = self._as_written(value, loc.child(key), ())  # a schema for unlisted members
                continue
            if not _has_shape(value, expected):
                self._report(
                    loc.child(key),
                    codes.SCHEMA_INVALID,
                    f"{key} must be {_SHAPES[expected]}, got {_kind(value)}; ignored",
                )
                continue
            out[key] = (
                self._as_written(value, loc.child(key), ()) if expected in ("schema", "schemas", "map") else value
            )
        return out

    def _as_written(self, value: Any, loc: Location, active: tuple[tuple[str, str], ...]) -> Any:
        """``value`` (a keyword's value, as written) with each ``$ref`` object replaced by a
        :class:`~ssegen.ir.SchemaRef` to its target (its sibling keywords are not kept).

        Each target is read once and its :class:`~ssegen.ir.SchemaRef` shared by every
        reference to it, so the result is as large as the spec, not one copy per path to a
        schema; a reference back to a target being read is that target's own reference (a
        cycle, as JSON Schema allows).  More than 32 references deep (``active``, the
        targets being read), or unresolvable, it is ``{}`` (any JSON), reported
        (``ref-too-deep``, or the resolver's code).
        """
        if isinstance(value, list):
            return [self._as_written(v, loc.child(i), active) for i, v in enumerate(value)]
        if not isinstance(value, dict):
            return value
        if isinstance(value.get("$ref"), str):
            try:
                target = self.resolver.lookup(value["$ref"], loc.uri)
            except RefError as exc:
                self._report(loc.child("$ref"), exc.code, str(exc))
                return {}
            key = (target.uri, target.pointer)
            known = self._refs.get(key)
            if known is not None:
                return known  # read before, or being read: a $ref back to a schema it is inside
            if len(active) > _MAX_KEPT_DEPTH:
                self._report(
                    loc.child("$ref"),
                    codes.REF_TOO_DEEP,
                    f"$ref {value['$ref']!r} is more than {_MAX_KEPT_DEPTH} references deep inside a"
                    " kept keyword; from there on it is kept as any JSON ({}), so schemas.json does"
                    " not check what is below",
                )
                return {}
            tloc = Location(target.document, target.pointer, target.uri)
            ref = self._refs[key] = SchemaRef(tloc.provenance)
            ref.tie(self._as_written(target.contents, tloc, (*active, key)))
            return ref
        return {k: self._as_written(v, loc.child(k), active) for k, v in value.items()}

    # -- $ref ---------------------------------------------------------------

    def _convert_ref(self, node: dict[str, Any], loc: Location, hint: str) -> tuple[Schema, str]:
        ref = node["$ref"]
        siblings = sorted(k for k in node if k != "$ref")
        if siblings:
            kept = [k for k in siblings if k in ("description", "nullable", "title")]
            ignored = [k for k in siblings if k not in kept]
            message = f"$ref has sibling keywords {', '.join(siblings)}: kept {', '.join(kept) or 'none'}"
            if ignored:
                message += f", ignored {', '.join(ignored)}"
            self._report(loc, codes.REF_SIBLINGS, message)
        if not isinstance(ref, str):
            self._report(loc.child("$ref"), codes.REF_INVALID, f"$ref must be a string, got {_kind(ref)}")
            return Schema("any", loc.provenance), str(node.get("description", ""))
        try:
            target = self.resolver.lookup(ref, loc.uri)
        except RefError as exc:
            self._report(loc.child("$ref"), exc.code, str(exc))
            return Schema("any", loc.provenance), str(node.get("description", ""))
        key = (target.uri, target.pointer)
        if key in self._active:
            self._report(
                loc.child("$ref"),
                codes.REF_CIRCULAR,
                f"$ref {ref!r} is circular; the recursive member is typed as any JSON",
            )
            return Schema("any", loc.provenance), str(node.get("description", ""))
        schema = self._memo.get(key)
        if schema is None:
            tloc = Location(target.document, target.pointer, target.uri)
            name = _name_from_pointer(target.pointer) or hint
            self._active.append(key)
            try:
                schema, _ = self.convert(target.contents, tloc, name)
            finally:
                self._active.pop()
            self._memo[key] = schema
        if node.get("nullable") is True:
            self._report(
                loc.child("nullable"), codes.NULLABLE_KEYWORD, "OpenAPI `nullable: true` normalized to a nullable type"
            )
            schema = replace(schema, nullable=True)
        description = node.get("description")
        return schema, description if isinstance(description, str) else schema.description

    # -- inline schemas -------------------------------------------------------

    def _convert_inline(self, node: dict[str, Any], loc: Location, hint: str) -> tuple[Schema, str]:
        description = _text(node.get("description"))
        title = _text(node.get("title"))
        name = str(ClassName(title)) if title else hint
        nullable = False

        if node.get("nullable") is True:
            self._report(
                loc.child("nullable"), codes.NULLABLE_KEYWORD, "OpenAPI `nullable: true` normalized to a nullable type"
            )
            nullable = True

        for key in ("oneOf", "anyOf"):
            if key in node:
                return self._convert_alternatives(node, key, loc, name, nullable, description)
        if "allOf" in node:
            return self._convert_all_of(node, loc, name, title, nullable, description)

        types = node.get("type")
        type_list: list[str]
        if isinstance(types, list):
            type_list = [t for t in types if isinstance(t, str)]
            if "null" in type_list and len(type_list) > 1:
                self._report(
                    loc.child("type"),
                    codes.TYPE_LIST_NULL,
                    f"type list {types!r} normalized to a nullable {'/'.join(t for t in type_list if t != 'null')}",
                )
                nullable = True
                type_list = [t for t in type_list if t != "null"]
        elif isinstance(types, str):
            type_list = [types]
        else:
            type_list = []
        unknown = [t for t in type_list if t not in _SCALAR_TYPES]
        if unknown:
            self._report(
                loc.child("type"), codes.TYPE_UNKNOWN, f"unknown type {', '.join(unknown)}; treated as any JSON"
            )
            type_list = [t for t in type_list if t in _SCALAR_TYPES]

        enum: tuple[Any, ...] = ()
        if "enum" in node:
            values = node["enum"]
            if not isinstance(values, list):
                self._report(loc.child("enum"), codes.ENUM_INVALID, "enum must be a list; ignored")
            else:
                if any(v is None for v in values):
                    self._report(loc.child("enum"), codes.ENUM_NULL, "`null` in enum normalized to a nullable type")
                    nullable = True
                bad = [v for v in values if isinstance(v, (dict, list))]
                if bad:
                    self._report(
                        loc.child("enum"), codes.ENUM_INVALID, "object and array enum values are not supported; ignored"
                    )
                odd = [v for v in values if _non_finite(v)]
                if odd:
                    self._report(
                        loc.child("enum"),
                        codes.ENUM_INVALID,
                        f"enum values {', '.join(map(repr, odd))} are not JSON numbers; ignored",
                    )
                enum = tuple(
                    v for v in values if v is not None and not isinstance(v, (dict, list)) and not _non_finite(v)
                )
                if not values:
                    self._report(
                        loc.child("enum"), codes.ENUM_EMPTY, "enum lists no value (no instance could match); ignored"
                    )
        if "const" in node and not enum:
            const = node["const"]
            if const is None:
                nullable = True
            elif not isinstance(const, (dict, list)):
                enum = (const,)

        if not type_list:
            if isinstance(node.get("properties"), dict) or "additionalProperties" in node:
                type_list = ["object"]
            elif "items" in node:
                type_list = ["array"]
            elif enum:
                type_list = sorted({json_type(v) for v in enum})
            elif node.get("type") == "null" or nullable:
                type_list = []
        if type_list == ["null"]:
            return Schema("null", loc.provenance, nullable=True, description=description, title=title), description
        if len(type_list) > 1:
            # One variant per type; the title names the union, not each variant.
            untitled = {k: v for k, v in node.items() if k != "title"}
            variants = tuple(self._convert_inline({**untitled, "type": t}, loc, name + pascal(t))[0] for t in type_list)
            return (
                Schema(
                    "union",
                    loc.provenance,
                    name=name,
                    title=title,
                    description=description,
                    nullable=nullable,
                    variants=variants,
                ),
                description,
            )
        stype: SchemaType = type_list[0] if type_list else "any"  # type: ignore[assignment]
        if stype == "object":
            return self._convert_object(node, loc, name, title, description, nullable), description
        if stype == "array":
            return self._convert_array(node, loc, name, title, description, nullable), description
        return (
            Schema(
                stype,
                loc.provenance,
                name=name if enum else "",
                title=title,
                description=description,
                nullable=nullable,
                enum=enum,
                format=_text(node.get("format")),
            ),
            description,
        )

    def _convert_alternatives(
        self, node: dict[str, Any], key: str, loc: Location, name: str, nullable: bool, description: str
    ) -> tuple[Schema, str]:
        branches = node[key]
        if not isinstance(branches, list) or not branches:
            self._report(loc.child(key), codes.SCHEMA_INVALID, f"{key} must be a non-empty list; treated as any JSON")
            return Schema("any", loc.provenance, nullable=nullable, description=description), description
        kept: list[tuple[int, Any]] = []
        for i, branch in enumerate(branches):
            if _is_null_schema(branch):
                nullable = True
                self._report(
                    loc.child(key, i), codes.ONEOF_NULL_BRANCH, f"`{key}` branch `null` normalized to a nullable type"
                )
            else:
                kept.append((i, branch))
        if len(kept) == 1:
            i, branch = kept[0]
            inner, inner_desc = self.convert(branch, loc.child(key, i), name)
            schema = replace(inner, nullable=inner.nullable or nullable)
            return schema, description or inner_desc
        variants = []
        for i, branch in kept:
            variant, _ = self.convert(branch, loc.child(key, i), name + _variant_suffix(branch))
            variants.append(variant)
        if not variants:
            return Schema("null", loc.provenance, nullable=True, description=description), description
        member, variants = self._discriminator(node, [b for _, b in kept], variants, loc)
        return (
            Schema(
                "union",
                loc.provenance,
                name=name,
                description=description,
                nullable=nullable,
                variants=tuple(variants),
                discriminator=member,
            ),
            description,
        )

    def _discriminator(
        self, node: dict[str, Any], branches: list[Any], variants: list[Schema], loc: Location
    ) -> tuple[str, list[Schema]]:
        """The member telling a union's object variants apart, and the variants with its value.

        An explicit ``discriminator`` (OpenAPI ``{propertyName, mapping}``, AsyncAPI 2.x
        a member name) names the member; a variant that does not fix its value gets
        the value its ``mapping`` entry gives, else its component name (OpenAPI's
        implicit mapping). Without one, the member every variant fixes to one string
        value (``const`` or a one-value ``enum``, ``type`` preferred) is used. Returns
        ``("", variants)`` when the variants are not all objects or no member has a
        distinct value in each; an explicit discriminator that cannot be used is
        reported (``discriminator-invalid``).
        """
        explicit = node.get("discriminator")
        member = ""
        mapping: dict[str, Any] = {}
        if isinstance(explicit, str):
            member = explicit
        elif isinstance(explicit, dict) and isinstance(explicit.get("propertyName"), str):
            member = explicit["propertyName"]
            mapping = explicit["mapping"] if isinstance(explicit.get("mapping"), dict) else {}
        elif explicit is not None:
            self._report(
                loc.child("discriminator"),
                codes.DISCRIMINATOR_INVALID,
                "discriminator must be a member name or an object with propertyName; ignored",
            )
        if any(v.type != "object" for v in variants):
            if member:
                self._report(
                    loc.child("discriminator"),
                    codes.DISCRIMINATOR_INVALID,
                    f"discriminator {member!r} on alternatives that are not all objects; ignored",
                )
            return "", variants
        if member:
            tagged = [
                _with_tag(v, member, _mapped_value(v, b, member, mapping))
                for v, b in zip(variants, branches, strict=True)
            ]
            values = [v.tag(member) for v in tagged]
            if None not in values and len(set(values)) == len(values):
                return member, tagged
            self._report(
                loc.child("discriminator"),
                codes.DISCRIMINATOR_INVALID,
                f"discriminator {member!r} does not give each alternative its own value; "
                "the alternatives are told apart by their members",
            )
            return "", variants
        names = [p.name for p in variants[0].properties if all(v.tag(p.name) is not None for v in variants)]
        names.sort(key=lambda n: n != "type")
        for name in names:
            values = [v.tag(name) for v in variants]
            if len(set(values)) == len(values):
                return name, variants
        return "", variants

    def _convert_all_of(
        self, node: dict[str, Any], loc: Location, name: str, title: str, nullable: bool, description: str
    ) -> tuple[Schema, str]:
        """``allOf``: the parts (and the node's own keywords beside it) merged into one schema.

        Object parts give one object with every part's members in order (a later
        part's member replaces an earlier one of the same name; ``required`` from
        any part); one non-object part (``allOf: [$ref X]`` with ``nullable: true``,
        OpenAPI 3.0's nullable reference, ``specs/<provider>/openapi.yaml``) is used
        as it is. Parts of different scalar types cannot be merged: the first is
        kept with a ``schema-invalid`` warning. A part that refers back to a schema
        being converted is ``ref-circular`` (it counts as any JSON).
        """
        branches = node["allOf"]
        if not isinstance(branches, list) or not branches:
            self._report(loc.child("allOf"), codes.SCHEMA_INVALID, "allOf must be a non-empty list; ignored")
            branches = []
        # A part may require members another part declares (`specs/<provider>/openapi.yaml`,
        # OpenAI's `Response`): inline parts' `required` lists apply to the merged object.
        listed = (
            [n for n in node.get("required", []) if isinstance(n, str)]
            if isinstance(node.get("required"), list)
            else []
        )
        parts = []
        for i, branch in enumerate(branches):
            if isinstance(branch, dict) and "$ref" not in branch and isinstance(branch.get("required"), list):
                listed += [n for n in branch["required"] if isinstance(n, str)]
                branch = {k: v for k, v in branch.items() if k != "required"}
            parts.append(self.convert(branch, loc.child("allOf", i), name)[0])
        own = {k: v for k, v in node.items() if k not in ("allOf", "nullable", "title", "description", "required")}
        if own:
            parts.append(self._convert_inline(own, loc, name)[0])
        typed = [p for p in parts if p.type != "any"]
        if not typed:
            return Schema("any", loc.provenance, nullable=nullable, description=description, title=title), description
        if all(p.type == "object" for p in typed):
            members: dict[str, Property] = {}
            for part in typed:
                for prop in part.properties:
                    old = members.get(prop.name)
                    members[prop.name] = replace(prop, required=prop.required or (old is not None and old.required))
            members = {k: replace(p, required=True) if k in listed else p for k, p in members.items()}
            missing = sorted(set(listed) - set(members))
            if missing and members:
                self._report(
                    loc.child("allOf"),
                    codes.REQUIRED_UNKNOWN,
                    f"required lists undeclared members: {', '.join(missing)}",
                )
            return (
                Schema(
                    "object",
                    loc.provenance,
                    name=name,
                    title=title,
                    description=description or typed[0].description,
                    nullable=nullable or all(p.nullable for p in typed),
                    properties=tuple(members.values()),
                    additional_properties=all(p.additional_properties for p in typed),
                ),
                description or typed[0].description,
            )
        if len(typed) > 1:
            self._report(
                loc.child("allOf"),
                codes.SCHEMA_INVALID,
                f"allOf parts of types {', '.join(p.type for p in typed)} cannot be merged; the first is kept",
            )
        first = typed[0]
        return replace(first, nullable=first.nullable or nullable), description or first.description

    def _convert_object(
        self, node: dict[str, Any], loc: Location, name: str, title: str, description: str, nullable: bool
    ) -> Schema:
        raw_props = node.get("properties", {})
        if not isinstance(raw_props, dict):
            self._report(loc.child("properties"), codes.SCHEMA_INVALID, "properties must be a mapping; ignored")
            raw_props = {}
        required_raw = node.get("required", [])
        required = set(required_raw) if isinstance(required_raw, list) else set()
        props = []
        for prop_name, prop_node in raw_props.items():
            ploc = loc.child("properties", prop_name)
            schema, prop_desc = self.convert(
                prop_node, ploc, name + pascal(prop_name) if pascal(prop_name) else name + "Member"
            )
            props.append(Property(prop_name, schema, prop_name in required, prop_desc, ploc.provenance))
        missing = sorted(required - set(raw_props))
        if missing and raw_props:
            self._report(
                loc.child("required"),
                codes.REQUIRED_UNKNOWN,
                f"required lists undeclared members: {', '.join(missing)}",
            )
        additional = node.get("additionalProperties", True) is not False
        return Schema(
            "object",
            loc.provenance,
            name=name,
            title=title,
            description=description,
            nullable=nullable,
            properties=tuple(props),
            additional_properties=additional,
        )

    def _convert_array(
        self, node: dict[str, Any], loc: Location, name: str, title: str, description: str, nullable: bool
    ) -> Schema:
        items = None
        if "items" in node:
            items, _ = self.convert(node["items"], loc.child("items"), singular(name))
        max_items = node.get("maxItems")
        min_items = node.get("minItems")
        if max_items == 0:
            self._report(
                loc.child("maxItems"),
                codes.EMPTY_ARRAY,
                "array with `maxItems: 0` is always empty; kept as a discriminating constraint",
            )
        return Schema(
            "array",
            loc.provenance,
            title=title,
            description=description,
            nullable=nullable,
            items=items,
            max_items=max_items if isinstance(max_items, int) else None,
            min_items=min_items if isinstance(min_items, int) else None,
        )

    # -- diagnostics ------------------------------------------------------------

    def _report(self, loc: Location, code: codes.Code, message: str) -> None:
        self.diagnostics.at(loc.provenance, code, message)


#: How many references to different schemas a keyword kept as written may chain before the
#: rest is cut to ``{}`` (:meth:`SchemaConverter._as_written`; a cycle is kept whole).
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


def _has_shape(value: Any, shape: str) -> bool:
    if shape == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and not _non_finite(value)
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


def _is_null_schema(node: Any) -> bool:
    if not isinstance(node, dict):
        return False
    if node.get("type") == "null":
        return True
    enum = node.get("enum")
    return isinstance(enum, list) and enum == [None]


def _mapped_value(variant: Schema, branch: Any, member: str, mapping: dict[str, Any]) -> str | None:
    """The discriminator value of a union variant: its own fixed value, else the
    ``mapping`` key naming its ``$ref`` (or component name), else its component name."""
    own = variant.tag(member)
    if own is not None:
        return own
    ref = branch.get("$ref") if isinstance(branch, dict) else None
    if not isinstance(ref, str):
        return None
    component = ref.rsplit("/", 1)[-1]
    for value, target in mapping.items():
        if target in (ref, component):
            return str(value)
    return component


def _with_tag(variant: Schema, member: str, value: str | None) -> Schema:
    """``variant`` with member ``member`` fixed to ``value`` (added, required, when absent)."""
    if value is None or variant.tag(member) == value:
        return variant
    prop = variant.property(member)
    if prop is None:
        tag = Schema("string", variant.provenance, enum=(value,))
        return replace(variant, properties=(Property(member, tag, True, "", variant.provenance), *variant.properties))
    fixed = replace(prop, schema=replace(prop.schema, type="string", enum=(value,)))
    return replace(variant, properties=tuple(fixed if p is prop else p for p in variant.properties))


def _variant_suffix(branch: Any) -> str:
    if isinstance(branch, dict):
        if isinstance(branch.get("title"), str) and pascal(branch["title"]):
            return pascal(branch["title"])
        if isinstance(branch.get("$ref"), str):
            return pascal(branch["$ref"].rsplit("/", 1)[-1])
        if isinstance(branch.get("type"), str):
            return pascal(branch["type"])
    return "Value"


def _name_from_pointer(pointer: str) -> str:
    """Class name from a ``$ref`` target pointer: its last token (the component key)."""
    token = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~") if pointer else ""
    return str(ClassName(token)) if pascal(token) else ""


def _kind(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean"}.get(
        type(value), type(value).__name__
    )


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""


def _non_finite(value: Any) -> bool:
    """True for NaN and infinities (YAML ``.nan``, ``.inf``): not JSON numbers."""
    return isinstance(value, float) and not math.isfinite(value)
