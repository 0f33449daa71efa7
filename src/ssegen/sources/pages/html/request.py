"""A request parameter table (``specs/siliconstorm/inference-api.md:29``, "Request Parameters")
-> the body schema of the page's request.

The table's header is ``Parameter`` (spanning the name columns), ``Required``, ``Description``
and ``Value Requirements``; nesting is by ``rowspan`` as in the response tables
(:mod:`.grid`). It has no Type column: the type is stated in words at the head of the Value
Requirements cell, and read from there (:func:`value_type`):

===========================================  ==============================
Value Requirements (inference-api.md)        type
===========================================  ==============================
``String type. Possible roles are: ...``     ``string`` (its ``- value:`` items an enum)
``Float type, value range [-2.0, 2.0] ...``  ``number``
``Int32 type``, ``UInt64 type``, ``Int ...``  ``integer``
``Bool type, default value is false.``       ``boolean``
``List type``, ``Type is List[dict].``       ``array``
``Type is dict.``, ``dict type.``            ``object``
``List[string] type or string type``         ``array`` or ``string``
``string type or dict type, can be null``    ``string`` or ``object``, nullable
``- string: ...`` / ``- list: ...`` items    ``string`` or ``array``
anything else (``JSON schema format.``)      any JSON
===========================================  ==============================

The Required cell says whether a member is required: ``Required`` (or ``必选``) is; ``Optional``
(``可选``) and ``Required when the role is "tool", otherwise optional.`` are not. A member's
description is its Description cell followed by its Value Requirements cell.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from typing import cast

from ....ir import Property, Provenance, Schema, SchemaType
from ..fields import FieldRow, RowReport, field_property, member_name
from . import prose
from .grid import GridRow

#: Type words of a Value Requirements cell -> the Type-cell words of :mod:`..cells`.
_WORDS = {
    "string": "string",
    "str": "string",
    "int": "integer",
    "int32": "integer",
    "int64": "integer",
    "uint64": "integer",
    "integer": "integer",
    "float": "number",
    "double": "number",
    "number": "number",
    "bool": "boolean",
    "boolean": "boolean",
    "list": "array",
    "dict": "object",
}
_TYPE_WORD = re.compile(
    r"\b(string|str|int32|int64|uint64|integer|int|float|double|number|boolean|bool|list|dict)(?:\[[\w\[\]]*\])?"
    r"(?=\s+type\b|\s*[.,:;]|\s+or\b|\s*$)",
    re.IGNORECASE,
)
_ITEM = re.compile(r"^- (\w+)\s*[:：]")


def value_type(cell: str) -> str:
    """The Type-cell text (``string | object | null``) the head of a Value Requirements cell
    states (module docstring); "" when it states none."""
    items = [m.group(1).lower() for line in cell.split("\n") if (m := _ITEM.match(line))]
    if cell.startswith("- ") and items and all(item in _WORDS for item in items):
        words = [_WORDS[item] for item in items]
    else:
        head = re.split(r"(?<=[.。])\s|\n", cell.strip(), maxsplit=1)[0]
        words = [_WORDS[w.lower()] for w in _TYPE_WORD.findall(head)]
    if not words and prose.listed_values(cell):
        words = ["string"]
    if words and re.search(r"\bcan be null\b", cell, re.IGNORECASE):
        words.append("null")
    return " | ".join(dict.fromkeys(words))


def is_required(cell: str) -> bool:
    """Whether a Required cell makes the member required (module docstring)."""
    text = cell.strip().lower()
    return (text.startswith("required") and "otherwise" not in text and " when " not in text) or text == "必选"


def request_schema(
    name: str,
    roots: list[GridRow],
    required: Callable[[GridRow], bool],
    at: Callable[[GridRow], Provenance],
    where: Provenance,
    report: RowReport,
) -> Schema:
    """The body schema ``name`` of a request table's row tree ``roots`` (their ``type_text``
    the Value Requirements cell): each row a member, typed by :func:`value_type`, required as
    ``required`` says; ``at`` gives a row's provenance, ``where`` the table's."""
    rows: dict[int, tuple[bool, list[str]]] = {}

    def row(node: GridRow) -> FieldRow:
        place = at(node)
        words = value_type(node.type_text).split(" | ")
        # A list of parts (rows nested under it) that may also be a plain value: the list's rows.
        listed = node.children and "array" in words and len(words) > 1
        rows[place.line] = (required(node), [w for w in words if w not in ("array", "null")] if listed else [])
        description = "\n".join(t for t in (node.description.strip(), node.type_text.strip()) if t)
        kind = "array" if listed else " | ".join(w for w in words if w)
        return FieldRow(node.name, kind, description, place, [row(c) for c in node.children])

    props = tuple(
        _settled(field_property(r, member_name(name, r.name), report, listed_values=prose.listed_values), rows)
        for r in (row(node) for node in roots)
    )
    return Schema("object", where, name=name, properties=props)


def _settled(prop: Property, rows: dict[int, tuple[bool, list[str]]]) -> Property:
    """``prop`` and its members (through array items) required as their Required cells say; a
    list of parts that may also be a plain value the union of both (``content``: a string, or
    a list of content parts)."""
    schema = prop.schema
    target = schema.items if schema.type == "array" and schema.items is not None else schema
    members = tuple(_settled(p, rows) for p in target.properties)
    if members:
        target = replace(target, properties=members)
        schema = replace(schema, items=target) if schema.type == "array" else target
    required, plain = rows.get(prop.provenance.line, (prop.required, []))
    if plain:
        variants = (*(Schema(cast(SchemaType, k), prop.provenance) for k in plain), replace(schema, nullable=False))
        schema = Schema("union", prop.provenance, name=target.name + "Value", variants=variants)
    return replace(prop, schema=schema, required=required)
