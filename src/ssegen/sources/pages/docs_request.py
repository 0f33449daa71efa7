"""The request body of a flattened API reference page (``specs/deepseek/api-docs.txt``) -> IR.

The page keeps the name only of members that are objects or arrays (a name block such as
``messages`` / ``object[]`` / ``required``, :mod:`.docs_text`); the others are a description
without a name. And flattening lost where an object's members end. So the body schema holds
the named members, placed by the page's own markers:

* the first named member, and each one marked ``nullable`` (DeepSeek writes every optional
  top-level member nullable: ``response_format``, ``stop``, ``stream_options``, ``tools``,
  ``tool_choice``, ``specs/deepseek/api-docs.txt:64``-126), is a member of the body;
* any other named member belongs to the named object (or array of objects) before it
  (``function`` / ``object`` / ``required`` after ``tools``: ``tools[].function``; then
  ``parameters`` in ``function``; ``specs/deepseek/api-docs.txt:113``, 118);

one ``docs-request-nested`` info says what was placed where and how many facts have no name.
The body admits members it does not list (``model``, ``temperature``, ...: the page gives their
descriptions and values, never their names), which the client passes through.

A named member with a ``oneOf`` below it and type lines right after the ``oneOf``
(:class:`.docs_facts.FieldUnion`) is a union of those types, and of the object its placed
members make when it has some:

* ``stop`` (``oneOf`` / ``string`` / ``string``, lines 80-82) is a string or an array of strings:
  Docusaurus shows an array alternative by its items' type (its ``Array [`` / ``]`` go to the
  tab outline at the top of the body, lines 15-16), and a ``oneOf`` cannot hold one type twice
  (both would match every string), so a type line repeating an earlier one is an array of it;
* ``tool_choice`` (``oneOf`` / ``string`` / ``Possible values: [none, auto, required]``, lines
  142-146, then ``function`` placed in it) is one of those strings or an object with
  ``function``: an unnamed fact whose values come on the line after a type line is that
  alternative's enum.

A ``oneOf`` followed by prose (``messages``' system, user and assistant messages, line 27) states
no type for its alternatives, whose members have no name: the member keeps its type line.

What the request section says in words is read too: its media type
(``- application/json``), that the body is required (``Body`` / ``required``), and the
``stream`` member (``Only set this when you set stream: true``, line 88).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ...diagnostics import Diagnostics, codes
from ...ir import BodyMember, Property, Provenance, Request, RequestBody, Schema, SchemaType
from ...naming import ClassName, pascal, singular
from ..requests import include_usage_member, stream_member
from .docs_facts import FieldFact, FieldUnion
from .sections import pointer


@dataclass
class _Node:
    """A named member being placed: its fact and the members placed in it."""

    fact: FieldFact
    children: list[_Node] = field(default_factory=list)


def docs_request(
    method: str,
    address: str,
    title: str,
    facts: Sequence[FieldFact],
    unions: Sequence[FieldUnion],
    lines: Sequence[tuple[int, str]],
    file: str,
    diagnostics: Diagnostics,
) -> Request | None:
    """The request of the page's endpoint (``method`` ``address``, from its method line) with
    the body its ``request`` facts, ``unions`` and request-section ``lines`` state (module
    docstring); None when the page names no endpoint."""
    if not method or not address:
        return None
    at_line = next((n for n, text in lines if text.startswith(method)), 0)
    where = Provenance(file, at_line, pointer("lines", max(at_line - 1, 0)))
    request_facts = [f for f in facts if f.section == "request"]
    schema = _body_schema(title, request_facts, unions, where, diagnostics) if request_facts else None
    media = next((text[2:].strip() for _, text in lines if text.startswith("- ") and "/" in text), "application/json")
    texts = [(text, Provenance(file, n, pointer("lines", n - 1))) for n, text in lines]
    texts += [(f.description, f.provenance) for f in request_facts]
    return Request(
        method=method,
        path=address,
        provenance=where,
        body=RequestBody(media, schema, _required(lines), schema.provenance if schema else where),
        stream=_first(stream_member, texts),
        include_usage=_first(include_usage_member, texts),
    )


def _first(
    member: Callable[[str, Provenance], BodyMember | None], texts: list[tuple[str, Provenance]]
) -> BodyMember | None:
    """The first body member one of ``texts`` names, by ``member`` (``stream_member``, ...)."""
    return next((found for text, place in texts if (found := member(text, place)) is not None), None)


def _required(lines: Sequence[tuple[int, str]]) -> bool:
    """Whether the request section marks the body ``required`` (a ``Body`` line, then ``required``)."""
    texts = [text for _, text in lines]
    return any(a == "Body" and b == "required" for a, b in zip(texts, texts[1:], strict=False))


def _body_schema(
    title: str, facts: list[FieldFact], unions: Sequence[FieldUnion], where: Provenance, diagnostics: Diagnostics
) -> Schema:
    """The body object of the named facts, placed by the module docstring's rule, each with the
    union below it; reported ``docs-request-nested``."""
    roots: list[_Node] = []
    last_object: _Node | None = None
    nested: list[str] = []
    for fact in (f for f in facts if f.name):
        node = _Node(fact)
        if not roots or fact.nullable or last_object is None:
            roots.append(node)
        else:
            last_object.children.append(node)
            nested.append(f"{fact.name} in {last_object.fact.name}")
        if fact.type.startswith("object"):
            last_object = node
    name = str(ClassName((pascal(title) or "Stream") + "Request"))
    shapes = _Shapes.of(facts, unions)
    schema = Schema(
        "object",
        where,
        name=name,
        properties=tuple(shapes.property(node, name) for node in roots),
    )
    unnamed = sum(1 for f in facts if not f.name)
    diagnostics.at(
        where,
        codes.DOCS_REQUEST_NESTED,
        f"the request body names {', '.join(n.fact.name for n in roots)} at the top"
        + (f"; placed {', '.join(nested)}" if nested else "")
        + f"; {unnamed} fact{'s' if unnamed != 1 else ''} without a member name are not read "
        "(the body admits members it does not list)",
    )
    return schema


def _owned_unions(facts: list[FieldFact], unions: Sequence[FieldUnion]) -> dict[int, FieldUnion]:
    """The union stating types below each named fact, by the fact's ``id``: the named fact last
    before the ``oneOf`` line owns it."""
    named = [(f.provenance.line, id(f)) for f in facts if f.name]
    owned: dict[int, FieldUnion] = {}
    for union in unions:
        owners = [key for line, key in named if line < union.line]
        if union.types and owners and owners[-1] not in owned:
            owned[owners[-1]] = union
    return owned


@dataclass(frozen=True)
class _Shapes:
    """What shapes a placed member's schema beside its name block: the unions below named facts
    (by fact identity) and the values of unnamed facts (by their ``Possible values`` line)."""

    unions: dict[int, FieldUnion]
    values: dict[int, tuple[str, ...]]

    @classmethod
    def of(cls, facts: list[FieldFact], unions: Sequence[FieldUnion]) -> _Shapes:
        """The shapes the request ``facts`` and ``unions`` state."""
        values = {f.provenance.line: f.values for f in facts if not f.name and f.values}
        return cls(_owned_unions(facts, unions), values)

    def property(self, node: _Node, parent: str) -> Property:
        """The property of a placed member: an object (``object``) or array of objects
        (``object[]``) of its placed members, or the scalar its type line names; the union of
        the types below its ``oneOf`` (module docstring) when it has one."""
        fact = node.fact
        name = parent + (pascal(fact.name) or "Member")
        kind = fact.type.removesuffix("[]") if fact.type else "any"
        is_array = fact.type.endswith("[]")
        item_name = singular(name) if is_array else name
        members = tuple(self.property(child, item_name) for child in node.children)
        union = self.unions.get(id(fact))
        if union is not None and not is_array:
            element = self._union(union, members, fact, name)
        elif kind == "object":
            element = Schema("object", fact.provenance, name=item_name, properties=members)
        else:
            element = Schema(_SCALARS.get(kind, "any"), fact.provenance, enum=fact.values if kind == "string" else ())
        schema = Schema("array", fact.provenance, items=element) if is_array else element
        schema = replace(schema, nullable=fact.nullable, description=fact.description)
        return Property(fact.name, schema, fact.required, fact.description, fact.provenance)

    def _union(self, union: FieldUnion, members: tuple[Property, ...], fact: FieldFact, name: str) -> Schema:
        """The union of ``union``'s type lines (a repeated one an array of it, an unnamed fact's
        values on the next line its enum) and of the object of ``members`` when there are some."""
        where, description = fact.provenance, fact.description
        variants: list[Schema] = []
        seen: set[str] = set()
        for line, type_line in union.types:
            at = Provenance(where.file, line, pointer("lines", line - 1))
            kind = type_line.removesuffix("[]")
            values = self.values.get(line + 1, ()) if kind == "string" else ()
            scalar = Schema(_SCALARS.get(kind, "any"), at, name=name + "Value" if values else "", enum=values)
            repeated = type_line in seen or type_line.endswith("[]")
            seen.add(type_line)
            variants.append(Schema("array", at, items=scalar) if repeated else scalar)
        if members:
            variants.append(Schema("object", where, name=name, description=description, properties=members))
        return Schema("union", where, variants=tuple(variants)) if len(variants) > 1 else variants[0]


#: The type lines of scalar members and their types.
_SCALARS: dict[str, SchemaType] = {"string": "string", "integer": "integer", "number": "number", "boolean": "boolean"}
