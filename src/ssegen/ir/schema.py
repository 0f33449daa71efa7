"""The schema model: message payloads as normalized JSON Schema (:class:`Schema`, its members
:class:`Property`, and :class:`SchemaRef`, a ``$ref`` kept inside the keywords kept as written).

Nullability is one flag, :attr:`Schema.nullable`; ``null`` never appears in ``Schema.enum``, in a
``type`` list or as a ``oneOf`` branch.  ``Schema.name`` is a PascalCase name from the spec or the
JSON path, never a counter.  A description given at a use site lives on the :class:`Property`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .provenance import Provenance

#: JSON Schema types an IR schema can have; ``any`` is unconstrained JSON and
#: ``union`` has its alternatives in :attr:`Schema.variants`.
SchemaType = Literal["object", "array", "string", "integer", "number", "boolean", "null", "any", "union"]

Scalar = str | int | float | bool


@dataclass(frozen=True)
class Schema:
    """A normalized JSON Schema node (a message payload or part of one).

    Attributes:
        type: one of :data:`SchemaType`.
        provenance: where this schema is defined (the ``$ref`` target, not the use site).
        name: PascalCase type name for objects and enums ("" for plain scalars).
        title: the schema's ``title``.
        description: the schema's own ``description``.
        nullable: ``null`` is admitted (a use-site flag; see :mod:`ssegen.ir`).
        enum: admitted non-null values, in source order; empty means unconstrained.
        format: JSON Schema ``format`` (e.g. ``int64``), informational.
        properties: object members in source order.
        additional_properties: False when the schema forbids unlisted members.
        items: element schema of an array.
        min_items: ``minItems`` of an array, if given.
        max_items: ``maxItems`` of an array, if given (``0`` marks an always-empty
            array, e.g. Mistral's usage-only chunk).
        variants: alternatives of a ``union`` (never a ``null`` branch).
        discriminator: for a ``union`` of objects, the member that tells the variants
            apart (``type``): every variant declares it with one allowed string value
            (``const``, a one-value ``enum``, or the value a ``discriminator`` mapping
            gives it), and no two share a value; "" when no member does.
        constraints: every other JSON Schema keyword the source states, as written
            (value constraints ``maximum``, ``minLength``, ``pattern``; applicators
            ``not``, ``allOf``, ``if``/``then``/``else``, ``patternProperties``, ...), each
            ``$ref`` inside a :class:`SchemaRef` to its target: the generated models do not
            use them, ``schemas.json`` (and so ``ssegen conform``) enforces them.
    """

    type: SchemaType
    provenance: Provenance
    name: str = ""
    title: str = ""
    description: str = ""
    nullable: bool = False
    enum: tuple[Scalar, ...] = ()
    format: str = ""
    properties: tuple[Property, ...] = ()
    additional_properties: bool = True
    items: Schema | None = None
    min_items: int | None = None
    max_items: int | None = None
    variants: tuple[Schema, ...] = ()
    discriminator: str = ""
    constraints: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def specificity(self) -> int:
        """How constrained an object payload is: its required members, plus 10 per
        ``maxItems: 0`` array (``specs/mistral/asyncapi-page.txt:427``: the usage-only
        chunk); the most constrained message is tried first."""
        score = sum(1 for p in self.properties if p.required)
        return score + sum(10 for p in self.properties if p.schema.type == "array" and p.schema.max_items == 0)

    def alternative(self, tag: str | None = None) -> Schema | None:
        """For a ``union``: the object alternative whose :attr:`discriminator` member is
        fixed to ``tag``, or with ``tag`` None the only object alternative; None when there
        is not exactly one."""
        options = [v for v in self.variants if v.type == "object" and (tag is None or v.tag(self.discriminator) == tag)]
        return options[0] if len(options) == 1 else None

    def tag(self, member: str) -> str | None:
        """The one string value member ``member`` must have (a ``const`` or one-value
        ``enum``), or None when it may have others or is not declared."""
        prop = self.property(member)
        if prop is None or prop.schema.type != "string" or len(prop.schema.enum) != 1:
            return None
        value = prop.schema.enum[0]
        return value if isinstance(value, str) else None

    def property(self, name: str) -> Property | None:
        """The member named ``name`` (wire name), or None."""
        for prop in self.properties:
            if prop.name == name:
                return prop
        return None


@dataclass(frozen=True)
class SchemaRef:
    """A ``$ref`` kept inside :attr:`Schema.constraints` (the keywords kept as written).

    The referenced schema is held once, by every reference to it, so a spec that refers to
    one schema ten times per level, nine levels deep, stays as small in memory as it is on
    disk; the exports write it once too (``schemas.json`` and ``ssegen ir``: a ``$defs``
    entry keyed :attr:`key`, JSON Schema 2020-12 section 8.2.4).  Replacing the reference
    by :attr:`target` gives what the source means.  A ``$ref`` that leads back to a schema it
    is inside (a tree whose ``additionalProperties`` are trees) is that schema's own
    :class:`SchemaRef`: the targets then hold a cycle, which the exports write as a ``$ref``
    back to the entry, as JSON Schema does; a chain of more than 32 references to different
    schemas is cut to ``{}`` (any JSON), reported ``ref-too-deep``.

    Equal when they refer to the same place; the target is not compared (it is what is
    written there).

    Attributes:
        provenance: where the referenced schema is written (file, line, JSON pointer of
            the ``$ref`` target, not of the ``$ref``).
        target: the referenced JSON Schema value as written (a mapping or a boolean),
            each ``$ref`` inside it a :class:`SchemaRef` in turn; None only while the
            loader reads it (:meth:`tie`).
    """

    provenance: Provenance
    target: Any = field(default=None, compare=False, repr=False)

    def tie(self, target: Any) -> None:
        """Give a reference made before its target was read its target: the loader makes the
        reference first, so that a ``$ref`` inside the target leading back to it is this
        very object (the cycle JSON Schema allows).  Called once per reference, by
        ``ssegen.sources.schema``; a reference is not changed after that."""
        object.__setattr__(self, "target", target)

    @property
    def key(self) -> str:
        """``<file>#<JSON pointer>`` of the target: where it is written, its key in ``$defs``."""
        return f"{self.provenance.file}#{self.provenance.pointer}"


@dataclass(frozen=True)
class Property:
    """One member of an object schema.

    Attributes:
        name: the member name on the wire (any string; emitters make identifiers).
        schema: the member's schema.
        required: listed in the parent's ``required``.
        description: the description at this use site, falling back to the schema's.
        provenance: where the member is declared.
    """

    name: str
    schema: Schema
    required: bool
    description: str
    provenance: Provenance


def json_type(value: Any) -> SchemaType:
    """The JSON Schema type of a JSON value (``null`` for None)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "any"
