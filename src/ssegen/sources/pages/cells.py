"""Type cells of documentation tables: the one splitter and the one type-name mapping.

A Type cell names one or more JSON types: ``string``, ``string | null``
(``specs/xerotier/streaming-api.md:23``), ``array | null``, ``string or integer``,
``int``/``float``/``list``/``dict`` (``specs/siliconstorm/inference-api.md:766``).
Both page loaders read it here, so a cell means the same in markdown and HTML.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ...diagnostics import Code, codes
from ...ir import Provenance, Schema, SchemaType

#: Type words of documentation tables -> JSON Schema types (``null`` marks nullability).
TYPE_WORDS: dict[str, SchemaType] = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "int32": "integer",
    "int64": "integer",
    "uint64": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "object": "object",
    "dict": "object",
    "array": "array",
    "list": "array",
    "any": "any",
    "null": "null",
}

#: What splits a Type cell into its words: ``|``, ``,`` and the word ``or``.
_SEPARATOR = re.compile(r"\||,|\bor\b")

#: Receives a problem found in a cell: ``(code, message)``.
Report = Callable[[Code, str], None]


def type_words(cell: str) -> list[str]:
    """The words of a Type cell, lowercased, code backticks dropped.

    ``"`string` | null"`` -> ``["string", "null"]``.
    """
    return [w.strip().strip("`").lower() for w in _SEPARATOR.split(cell) if w.strip()]


def is_type_cell(cell: str) -> bool:
    """True when every word of ``cell`` is a type word (:data:`TYPE_WORDS`); False for an empty cell."""
    words = type_words(cell)
    return bool(words) and all(w in TYPE_WORDS for w in words)


def type_schema(cell: str, provenance: Provenance, name: str, report: Report) -> Schema:
    """The schema a Type cell states.

    Args:
        cell: the cell text (``string``, ``string | null``, ``string or integer``).
        provenance: where the row is (given to every schema built).
        name: the class name for an object or a union.
        report: receives ``type-unknown`` (warning) for each word that is no
            type word; such a word is typed as any JSON.

    Returns:
        One type: that type (an ``object`` named ``name``); several: a
        ``union`` named ``name`` of them in cell order; ``null`` among the
        words makes it nullable; no type word but ``null``: a nullable ``null``;
        an empty cell: ``any``.
    """
    words = type_words(cell)
    nullable = "null" in words
    kinds: list[SchemaType] = []
    for word in words:
        kind = TYPE_WORDS.get(word)
        if kind is None:
            report(codes.TYPE_UNKNOWN, f"unknown type {word!r} in {cell!r}; typed as any JSON")
            kind = "any"
        if kind != "null" and kind not in kinds:
            kinds.append(kind)
    if not kinds:
        return Schema("any" if not nullable else "null", provenance, nullable=nullable)
    if len(kinds) > 1:
        variants = tuple(Schema(k, provenance) for k in kinds)
        return Schema("union", provenance, name=name, nullable=nullable, variants=variants)
    kind = kinds[0]
    if kind == "object":
        return Schema("object", provenance, name=name, nullable=nullable)
    return Schema(kind, provenance, nullable=nullable)
