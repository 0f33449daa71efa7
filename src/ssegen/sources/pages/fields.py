"""Field rows of documentation tables -> IR properties: nesting, one-value enums, presence.

A field row is what both page loaders read out of their tables: a member
name, a Type cell, a description, where it is, and its nested rows (markdown
writes nesting as dotted names, ``logprobs.content``,
``specs/xerotier/streaming-api.md:54``; HTML as indented rows,
``specs/siliconstorm/inference-api.md:770``).  The rules that turn a row into
a property are here, once:

* the type comes from the Type cell (:func:`.cells.type_schema`);
* a row with nested rows is an object of them, or, when typed as an array,
  an array of such objects named from the item (``choices`` ->
  ``ChatCompletionChunkChoice``); other types with nested rows are read as an
  object [``table-children-ignored-type``];
* a string whose description states its only value (:data:`ALWAYS_VALUE`) is
  a one-value enum;
* a member is required unless its description says it is not always sent
  (:func:`is_conditional`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ...diagnostics import Code, codes
from ...ir import Property, Provenance, Schema
from ...naming import pascal, singular
from .cells import type_schema

#: A description that states the only value: ``Always "chat.completion.chunk".``
#: (``specs/xerotier/streaming-api.md:20``), ``Currently returns "chat.completion.chunk".``
#: (``specs/siliconstorm/inference-api.md:912``).
ALWAYS_VALUE = re.compile(r'\b(?:always(?: returns)?|currently(?: always)? returns)\s+"([^"]+)"', re.IGNORECASE)

#: A description that makes a member conditional (not required): "Present only in
#: the final chunk", "only returned when ...", "(optional ...)" at the start.
CONDITIONAL_PRESENCE = re.compile(
    r"^\W*optional\b|\b(present only|only present|present when|only (?:returned|available|sent)|"
    r"(?:returned|available|sent) only|when known)\b",
    re.IGNORECASE,
)


def is_conditional(description: str) -> bool:
    """True when ``description`` says the member is not always sent (see :data:`CONDITIONAL_PRESENCE`).

    ``always present`` wins over any conditional wording.
    """
    if re.search(r"\balways present\b", description, re.IGNORECASE):
        return False
    return bool(CONDITIONAL_PRESENCE.search(description))


def member_name(parent: str, member: str) -> str:
    """The class name of member ``member`` of ``parent``.

    ``ChatCompletionChunk`` + ``usage`` -> ``ChatCompletionChunkUsage``.
    """
    return parent + (pascal(member) or "Member")


@dataclass
class FieldRow:
    """One member as a table states it.

    Attributes:
        name: the member name (one part of a dotted name).
        type_text: the Type cell as written.
        description: the description cell.
        provenance: where the row is (file, 1-based line, row pointer).
        children: nested rows, in table order.
        implicit: no row names this member; it is only the parent of dotted
            names (``a.b`` without an ``a`` row).
    """

    name: str
    type_text: str = ""
    description: str = ""
    provenance: Provenance = field(default_factory=lambda: Provenance(""))
    children: list[FieldRow] = field(default_factory=list)
    implicit: bool = False

    def first_provenance(self) -> Provenance:
        """The provenance of this row, or of the first row nested in it when it is implicit."""
        if not self.implicit:
            return self.provenance
        for child in self.children:
            found = child.first_provenance()
            if found.file:
                return found
        return self.provenance


def dotted_rows(rows: Sequence[FieldRow], prefix: tuple[str, ...] = ()) -> list[FieldRow]:
    """Rows named with dotted paths (``logprobs``, ``logprobs.content``) as a tree.

    Only rows under ``prefix`` are kept, with the prefix taken off
    (``prefix=("logprobs",)`` keeps ``logprobs.content`` as ``content``); a
    path part no row names becomes an implicit parent.  A later row with the
    same path replaces an earlier one.  Order is first appearance.
    """
    roots: list[FieldRow] = []
    for row in rows:
        path = tuple(p for p in row.name.split(".") if p)
        if not path or path[: len(prefix)] != prefix or len(path) == len(prefix):
            continue
        level = roots
        for part in path[len(prefix) : -1]:
            level = _child(level, part).children
        found = _child(level, path[-1])  # a later row with the same path replaces an earlier one
        found.type_text, found.description, found.provenance, found.implicit = (
            row.type_text,
            row.description,
            row.provenance,
            False,
        )
    return roots


def _child(level: list[FieldRow], name: str) -> FieldRow:
    """The node named ``name`` in ``level``, added as an implicit parent if absent."""
    found = next((n for n in level if n.name == name), None)
    if found is None:
        found = FieldRow(name, implicit=True)
        level.append(found)
    return found


#: Receives a problem found in a row: ``(code, message, provenance)``.
RowReport = Callable[[Code, str, Provenance], None]


def field_property(
    row: FieldRow,
    name: str,
    report: RowReport,
    *,
    listed_values: Callable[[str], Sequence[str]] = lambda description: (),
) -> Property:
    """The property a field row states (rules in the module docstring).

    Args:
        row: the row and its nested rows.
        name: the class name of the member's object (or of its items' object).
        report: receives the problems found, at the row's provenance.
        listed_values: the enum a description lists (none by default), used
            for a string with no :data:`ALWAYS_VALUE` (a page's own wording).

    Returns:
        The property, with the description on the property and its schema;
        never raises.
    """
    if row.implicit:
        prov = row.first_provenance()
        members = tuple(
            field_property(c, member_name(name, c.name), report, listed_values=listed_values) for c in row.children
        )
        return Property(row.name, Schema("object", prov, name=name, properties=members), False, "", prov)
    prov = row.provenance
    schema = type_schema(row.type_text, prov, name, lambda code, message: report(code, message, prov))
    # Members of a list's items are named from the item (``choices`` -> ``...ChoiceDelta``).
    parent = singular(name) if schema.type == "array" else name
    children = tuple(
        field_property(c, member_name(parent, c.name), report, listed_values=listed_values) for c in row.children
    )
    if children:
        if schema.type == "array":
            schema = replace(schema, items=Schema("object", prov, name=parent, properties=children))
        else:
            if schema.type not in ("object", "any"):
                report(
                    codes.TABLE_CHILDREN_IGNORED_TYPE,
                    f"{row.name!r} is typed {row.type_text!r} but has nested rows; read as an object",
                    prov,
                )
            schema = Schema("object", prov, name=name, nullable=schema.nullable, properties=children)
    description = row.description
    if schema.type == "string" and not schema.enum:
        always = ALWAYS_VALUE.search(description)
        values = tuple(listed_values(description))
        if always:
            schema = replace(schema, name=name, enum=(always.group(1),))
        elif values:
            schema = replace(schema, name=name, enum=values)
    schema = replace(schema, description=description)
    return Property(row.name, schema, not is_conditional(description), description, prov)
