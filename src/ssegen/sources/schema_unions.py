"""The member telling a ``oneOf``/``anyOf`` union's object variants apart (its discriminator),
and the naming of the variants.

An explicit ``discriminator`` is OpenAPI 3's ``{propertyName, mapping}`` (OpenAPI 3.0.3
"Discriminator Object") or AsyncAPI 2.x's member name (AsyncAPI 2.6 "Schema Object",
``discriminator``); without one, a member every variant fixes to its own string value is used.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import Property, Schema
from ..naming import pascal
from .location import Location


def discriminator(
    node: dict[str, Any], branches: list[Any], variants: list[Schema], loc: Location, diagnostics: Diagnostics
) -> tuple[str, list[Schema]]:
    """The member telling a union's object variants apart, and the variants with its value.

    ``node`` is the union's schema object at ``loc``, ``branches`` its non-null alternatives
    as written and ``variants`` their IR schemas. An explicit ``discriminator`` names the
    member (:func:`_explicit_member`, :func:`_tagged_by`); without one, the member every
    variant fixes to one string value is used (:func:`_implicit_member`). Returns
    ``("", variants)`` when the variants are not all objects or no member has a distinct
    value in each; an explicit discriminator that cannot be used is reported
    (``discriminator-invalid``).
    """
    member, mapping = _explicit_member(node, loc, diagnostics)
    if any(v.type != "object" for v in variants):
        if member:
            diagnostics.at(
                loc.child("discriminator").provenance,
                codes.DISCRIMINATOR_INVALID,
                f"discriminator {member!r} on alternatives that are not all objects; ignored",
            )
        return "", variants
    if member:
        return _tagged_by(member, mapping, branches, variants, loc, diagnostics)
    return _implicit_member(variants), variants


def _explicit_member(node: dict[str, Any], loc: Location, diagnostics: Diagnostics) -> tuple[str, dict[str, Any]]:
    """``(member, mapping)`` of the union's ``discriminator`` keyword: a member name (AsyncAPI
    2.x) with no mapping, or an object's ``propertyName`` and ``mapping`` (OpenAPI 3);
    ``("", {})`` when absent or of another shape (reported, ``discriminator-invalid``)."""
    explicit = node.get("discriminator")
    if isinstance(explicit, str):
        return explicit, {}
    if isinstance(explicit, dict) and isinstance(explicit.get("propertyName"), str):
        return explicit["propertyName"], explicit["mapping"] if isinstance(explicit.get("mapping"), dict) else {}
    if explicit is not None:
        diagnostics.at(
            loc.child("discriminator").provenance,
            codes.DISCRIMINATOR_INVALID,
            "discriminator must be a member name or an object with propertyName; ignored",
        )
    return "", {}


def _tagged_by(
    member: str,
    mapping: dict[str, Any],
    branches: list[Any],
    variants: list[Schema],
    loc: Location,
    diagnostics: Diagnostics,
) -> tuple[str, list[Schema]]:
    """``(member, variants)`` with each variant's ``member`` fixed (:func:`_mapped_value`: its own
    value, its ``mapping`` entry, else its component name, OpenAPI's implicit mapping); or
    ``("", variants)`` unchanged, reported (``discriminator-invalid``), when some variant gets
    no value or two get the same."""
    tagged = [
        _with_tag(v, member, _mapped_value(v, b, member, mapping)) for v, b in zip(variants, branches, strict=True)
    ]
    values = [v.tag(member) for v in tagged]
    if None not in values and len(set(values)) == len(values):
        return member, tagged
    diagnostics.at(
        loc.child("discriminator").provenance,
        codes.DISCRIMINATOR_INVALID,
        f"discriminator {member!r} does not give each alternative its own value; "
        "the alternatives are told apart by their members",
    )
    return "", variants


def _implicit_member(variants: list[Schema]) -> str:
    """The member every variant fixes to its own string value (``const`` or a one-value
    ``enum``), ``type`` preferred, else ``""``."""
    names = [p.name for p in variants[0].properties if all(v.tag(p.name) is not None for v in variants)]
    names.sort(key=lambda n: n != "type")
    for name in names:
        values = [v.tag(name) for v in variants]
        if len(set(values)) == len(values):
            return name
    return ""


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


def is_null_schema(node: Any) -> bool:
    """Whether the alternative ``node`` allows only ``null`` (``type: 'null'`` or ``enum: [null]``)."""
    if not isinstance(node, dict):
        return False
    if node.get("type") == "null":
        return True
    enum = node.get("enum")
    return isinstance(enum, list) and enum == [None]


def variant_suffix(branch: Any) -> str:
    """The suffix naming a union variant after the union: the alternative's ``title``, its
    ``$ref`` component name or its ``type``, PascalCase, else ``Value``."""
    if isinstance(branch, dict):
        if isinstance(branch.get("title"), str) and pascal(branch["title"]):
            return pascal(branch["title"])
        if isinstance(branch.get("$ref"), str):
            return pascal(branch["$ref"].rsplit("/", 1)[-1])
        if isinstance(branch.get("type"), str):
            return pascal(branch["type"])
    return "Value"
