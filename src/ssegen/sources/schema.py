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
as written in :attr:`Schema.constraints`, for the strict ``schemas.json``
(:mod:`ssegen.sources.schema_kept`); a ``$ref`` inside them is kept as a
:class:`~ssegen.ir.SchemaRef` to its target.  A keyword of the wrong shape is ignored
(``schema-invalid``).  A union's discriminator is found by :mod:`ssegen.sources.schema_unions`.

A ``$ref`` with sibling keywords keeps its sibling ``description`` on the use site
(``ref-siblings``); an always-empty array (``maxItems: 0``, Mistral's usage-only
chunk) is kept as a constraint and reported (``empty-array``).

Names: a referenced component keeps its key (``ChatCompletionUsage``); an inline
object or enum is named from the JSON path of its use (``ToolCallDeltaFunction``,
``ChatStreamChoiceFinishReason``); a ``title`` wins over the path.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import Property, Schema, SchemaType, json_type
from ..naming import ClassName, pascal, singular
from .location import Location
from .refs import RefError, RefResolver
from .schema_kept import KeptKeywords, non_finite, value_kind
from .schema_unions import discriminator, is_null_schema, variant_suffix

__all__ = ["Location", "SchemaConverter"]

_SCALAR_TYPES = {"string", "integer", "number", "boolean", "null", "object", "array"}


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
        self._kept = KeptKeywords(resolver, diagnostics)

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
                loc, codes.SCHEMA_NOT_OBJECT, f"a schema must be an object, got {value_kind(node)}; treated as any JSON"
            )
            return Schema("any", loc.provenance), ""
        if "$ref" in node:
            return self._convert_ref(node, loc, hint)
        schema, description = self._convert_inline(node, loc, hint)
        constraints = self._kept.constraints(node, loc)
        if constraints:
            schema = replace(schema, constraints={**schema.constraints, **constraints})
        return schema, description

    # -- $ref ---------------------------------------------------------------

    def _convert_ref(self, node: dict[str, Any], loc: Location, hint: str) -> tuple[Schema, str]:
        """A ``$ref`` schema object: its target converted once (memoized by target), with the
        use site's ``nullable`` and ``description``; an invalid, unresolvable or circular
        ``$ref`` is any JSON, reported (``ref-invalid``, the resolver's code, ``ref-circular``)."""
        ref = node["$ref"]
        self._report_ref_siblings(node, loc)
        if not isinstance(ref, str):
            self._report(loc.child("$ref"), codes.REF_INVALID, f"$ref must be a string, got {value_kind(ref)}")
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
            self._active.append(key)
            try:
                schema, _ = self.convert(target.contents, tloc, _name_from_pointer(target.pointer) or hint)
            finally:
                self._active.pop()
            self._memo[key] = schema
        if self._nullable_keyword(node, loc):
            schema = replace(schema, nullable=True)
        description = node.get("description")
        return schema, description if isinstance(description, str) else schema.description

    def _report_ref_siblings(self, node: dict[str, Any], loc: Location) -> None:
        """Report the keywords beside a ``$ref`` (``ref-siblings``): ``description``, ``nullable``
        and ``title`` are kept, the others ignored (OpenAPI 3.0 ignores them all)."""
        siblings = sorted(k for k in node if k != "$ref")
        if not siblings:
            return
        kept = [k for k in siblings if k in ("description", "nullable", "title")]
        ignored = [k for k in siblings if k not in kept]
        message = f"$ref has sibling keywords {', '.join(siblings)}: kept {', '.join(kept) or 'none'}"
        if ignored:
            message += f", ignored {', '.join(ignored)}"
        self._report(loc, codes.REF_SIBLINGS, message)

    def _nullable_keyword(self, node: dict[str, Any], loc: Location) -> bool:
        """Whether ``node`` says OpenAPI 3.0's ``nullable: true`` (reported, ``nullable-keyword``)."""
        if node.get("nullable") is not True:
            return False
        self._report(
            loc.child("nullable"), codes.NULLABLE_KEYWORD, "OpenAPI `nullable: true` normalized to a nullable type"
        )
        return True

    # -- inline schemas -------------------------------------------------------

    def _convert_inline(self, node: dict[str, Any], loc: Location, hint: str) -> tuple[Schema, str]:
        """A schema object without ``$ref``: a union (``oneOf``/``anyOf``), a merge (``allOf``),
        or a schema of the types its ``type``, ``enum``/``const`` and members say."""
        description = _text(node.get("description"))
        title = _text(node.get("title"))
        name = str(ClassName(title)) if title else hint
        nullable = self._nullable_keyword(node, loc)
        for key in ("oneOf", "anyOf"):
            if key in node:
                return self._convert_alternatives(node, key, loc, name, nullable, description)
        if "allOf" in node:
            return self._convert_all_of(node, loc, name, title, nullable, description)
        type_list, null_type = self._type_list(node, loc)
        enum, null_value = self._enum_and_const(node, loc)
        nullable = nullable or null_type or null_value
        if not type_list:
            type_list = _implied_types(node, enum)
        return self._typed(node, loc, type_list, name, title, description, nullable, enum), description

    def _type_list(self, node: dict[str, Any], loc: Location) -> tuple[list[str], bool]:
        """``(types, nullable)`` from the ``type`` keyword (a name or a list,
        :meth:`_listed_types`); an unknown type is dropped (``type-unknown``)."""
        types = node.get("type")
        nullable = False
        type_list: list[str]
        if isinstance(types, list):
            type_list, nullable = self._listed_types(types, loc)
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
        return type_list, nullable

    def _listed_types(self, types: list[Any], loc: Location) -> tuple[list[str], bool]:
        """``(types, nullable)`` of a ``type`` list: ``null`` beside other types makes them
        nullable (``type-list-null``, ``specs/mistral/asyncapi-page.txt:496``)."""
        type_list = [t for t in types if isinstance(t, str)]
        if "null" not in type_list or len(type_list) == 1:
            return type_list, False
        self._report(
            loc.child("type"),
            codes.TYPE_LIST_NULL,
            f"type list {types!r} normalized to a nullable {'/'.join(t for t in type_list if t != 'null')}",
        )
        return [t for t in type_list if t != "null"], True

    def _enum_and_const(self, node: dict[str, Any], loc: Location) -> tuple[tuple[Any, ...], bool]:
        """``(values, nullable)`` from ``enum`` (:meth:`_enum_values`), else from ``const``
        (a ``null`` const is nullable; an object or array const is not a value)."""
        enum: tuple[Any, ...] = ()
        nullable = False
        if "enum" in node:
            enum, nullable = self._enum_values(node["enum"], loc.child("enum"))
        if "const" in node and not enum:
            const = node["const"]
            if const is None:
                nullable = True
            elif not isinstance(const, (dict, list)):
                enum = (const,)
        return enum, nullable

    def _enum_values(self, values: Any, loc: Location) -> tuple[tuple[Any, ...], bool]:
        """``(values, nullable)`` of the ``enum`` keyword at ``loc``: ``null`` makes the type
        nullable (``enum-null``, ``specs/mistral/asyncapi-page.txt:504``); object, array and
        non-finite values, a non-list and an empty list are ignored (``enum-invalid``,
        ``enum-empty``)."""
        if not isinstance(values, list):
            self._report(loc, codes.ENUM_INVALID, "enum must be a list; ignored")
            return (), False
        nullable = any(v is None for v in values)
        if nullable:
            self._report(loc, codes.ENUM_NULL, "`null` in enum normalized to a nullable type")
        if any(isinstance(v, (dict, list)) for v in values):
            self._report(loc, codes.ENUM_INVALID, "object and array enum values are not supported; ignored")
        odd = [v for v in values if non_finite(v)]
        if odd:
            self._report(
                loc, codes.ENUM_INVALID, f"enum values {', '.join(map(repr, odd))} are not JSON numbers; ignored"
            )
        enum = tuple(v for v in values if v is not None and not isinstance(v, (dict, list)) and not non_finite(v))
        if not values:
            self._report(loc, codes.ENUM_EMPTY, "enum lists no value (no instance could match); ignored")
        return enum, nullable

    def _typed(
        self,
        node: dict[str, Any],
        loc: Location,
        type_list: list[str],
        name: str,
        title: str,
        description: str,
        nullable: bool,
        enum: tuple[Any, ...],
    ) -> Schema:
        """The schema of ``node`` once its types are known: ``null`` alone, a union of one
        variant per type, an object, an array, a scalar (named when it is an enum), or any."""
        if type_list == ["null"]:
            return Schema("null", loc.provenance, nullable=True, description=description, title=title)
        if len(type_list) > 1:
            # One variant per type; the title names the union, not each variant.
            untitled = {k: v for k, v in node.items() if k != "title"}
            variants = tuple(self._convert_inline({**untitled, "type": t}, loc, name + pascal(t))[0] for t in type_list)
            return Schema(
                "union",
                loc.provenance,
                name=name,
                title=title,
                description=description,
                nullable=nullable,
                variants=variants,
            )
        stype: SchemaType = type_list[0] if type_list else "any"  # type: ignore[assignment]
        if stype == "object":
            return self._convert_object(node, loc, name, title, description, nullable)
        if stype == "array":
            return self._convert_array(node, loc, name, title, description, nullable)
        return Schema(
            stype,
            loc.provenance,
            name=name if enum else "",
            title=title,
            description=description,
            nullable=nullable,
            enum=enum,
            format=_text(node.get("format")),
        )

    def _convert_alternatives(
        self, node: dict[str, Any], key: str, loc: Location, name: str, nullable: bool, description: str
    ) -> tuple[Schema, str]:
        """``oneOf``/``anyOf`` (``key``): a ``null`` alternative makes the rest nullable
        (``oneof-null-branch``, ``specs/deepseek/asyncapi-page.txt:381``); one alternative left
        is used as it is, more make a union with its discriminator (:func:`discriminator`)."""
        branches = node[key]
        if not isinstance(branches, list) or not branches:
            self._report(loc.child(key), codes.SCHEMA_INVALID, f"{key} must be a non-empty list; treated as any JSON")
            return Schema("any", loc.provenance, nullable=nullable, description=description), description
        kept: list[tuple[int, Any]] = []
        for i, branch in enumerate(branches):
            if is_null_schema(branch):
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
        variants = [self.convert(branch, loc.child(key, i), name + variant_suffix(branch))[0] for i, branch in kept]
        if not variants:
            return Schema("null", loc.provenance, nullable=True, description=description), description
        member, variants = discriminator(node, [b for _, b in kept], variants, loc, self.diagnostics)
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

    def _convert_all_of(
        self, node: dict[str, Any], loc: Location, name: str, title: str, nullable: bool, description: str
    ) -> tuple[Schema, str]:
        """``allOf``: the parts (and the node's own keywords beside it) merged into one schema.

        Object parts give one object (:meth:`_merge_objects`); one non-object part
        (``allOf: [$ref X]`` with ``nullable: true``, OpenAPI 3.0's nullable reference,
        ``specs/<provider>/openapi.yaml``) is used as it is. Parts of different scalar types
        cannot be merged: the first is kept with a ``schema-invalid`` warning. A part that
        refers back to a schema being converted is ``ref-circular`` (it counts as any JSON).
        """
        branches = node["allOf"]
        if not isinstance(branches, list) or not branches:
            self._report(loc.child("allOf"), codes.SCHEMA_INVALID, "allOf must be a non-empty list; ignored")
            branches = []
        parts, listed = self._all_of_parts(node, branches, loc, name)
        typed = [p for p in parts if p.type != "any"]
        if not typed:
            return Schema("any", loc.provenance, nullable=nullable, description=description, title=title), description
        if all(p.type == "object" for p in typed):
            merged = self._merge_objects(typed, listed, loc, name, title, nullable, description)
            return merged, merged.description
        if len(typed) > 1:
            self._report(
                loc.child("allOf"),
                codes.SCHEMA_INVALID,
                f"allOf parts of types {', '.join(p.type for p in typed)} cannot be merged; the first is kept",
            )
        first = typed[0]
        return replace(first, nullable=first.nullable or nullable), description or first.description

    def _all_of_parts(
        self, node: dict[str, Any], branches: list[Any], loc: Location, name: str
    ) -> tuple[list[Schema], list[str]]:
        """``(parts, required)``: each ``allOf`` part converted, then the node's own keywords
        beside ``allOf`` as one more part; and the member names the node and its inline parts
        list in ``required``."""
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
        return parts, listed

    def _merge_objects(
        self,
        typed: list[Schema],
        listed: list[str],
        loc: Location,
        name: str,
        title: str,
        nullable: bool,
        description: str,
    ) -> Schema:
        """The object ``allOf`` parts ``typed`` as one object: every part's members in order (a
        later part's member replaces an earlier one of the same name, required if either is),
        the ``listed`` members required (an undeclared one is ``required-unknown``)."""
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
        return Schema(
            "object",
            loc.provenance,
            name=name,
            title=title,
            description=description or typed[0].description,
            nullable=nullable or all(p.nullable for p in typed),
            properties=tuple(members.values()),
            additional_properties=all(p.additional_properties for p in typed),
        )

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


def _implied_types(node: dict[str, Any], enum: tuple[Any, ...]) -> list[str]:
    """The types a schema object without ``type`` implies: ``object`` by ``properties`` or
    ``additionalProperties``, ``array`` by ``items``, else the JSON types of its enum values."""
    if isinstance(node.get("properties"), dict) or "additionalProperties" in node:
        return ["object"]
    if "items" in node:
        return ["array"]
    if enum:
        return sorted({json_type(v) for v in enum})
    return []


def _name_from_pointer(pointer: str) -> str:
    """Class name from a ``$ref`` target pointer: its last token (the component key)."""
    token = pointer.rsplit("/", 1)[-1].replace("~1", "/").replace("~0", "~") if pointer else ""
    return str(ClassName(token)) if pascal(token) else ""


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ""
