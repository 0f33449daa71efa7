"""Xerotier's wording: what the streaming page says in prose rather than in tables.

Only this module knows how ``specs/xerotier/streaming-api.md`` phrases things:

* the choice object is named only in prose, in the ``choices`` row: "choice
  objects containing delta content, finish_reason, and optional logprobs"
  (:func:`prose_members`, ``specs/xerotier/streaming-api.md:25``);
* a vendor event's payload is a ``Fields: name (note), ...`` list
  (:func:`fields_text`, :func:`field_items`, :func:`field_property`,
  ``specs/xerotier/streaming-api.md:163``), or ``Same fields as x_artifact.created``
  (:func:`same_fields_as`, :func:`rename`);
* a section titled ``... (x_name)`` documents one vendor event
  (:func:`event_type_in_title`, ``specs/xerotier/streaming-api.md:230``);
* "the field is null" in a section's prose makes its object nullable (:func:`says_null`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

from ....diagnostics import Code, codes
from ....ir import Property, Provenance, Schema, SchemaType
from ....naming import singular, snake
from ..cells import TYPE_WORDS
from ..fields import is_conditional, member_name

_NUMERIC_WORDS = frozenset(
    {"count", "index", "tokens", "total", "size", "sequence", "number", "num", "length", "duration", "ms"}
)


def prose_members(description: str) -> list[tuple[str, bool]]:
    """``(member, optional)`` of each member a description names.

    As in ``... objects containing delta content, finish_reason, and optional logprobs``.
    """
    match = re.search(r"\bobjects?\s+(?:containing|with)\s+(.+?)(?:\s*\(|\.(?:\s|$)|$)", description)
    if not match:
        return []
    out: list[tuple[str, bool]] = []
    for part in re.split(r",\s*(?:and\s+)?|\s+and\s+", match.group(1)):
        words = part.split()
        optional = "optional" in (w.lower() for w in words)
        names = [w for w in words if w.lower() != "optional" and re.fullmatch(r"[A-Za-z_]\w*", w)]
        if names and names[0] not in (n for n, _ in out):
            out.append((names[0], optional))
    return out


def says_null(prose: str, member: str) -> bool:
    """True when ``prose`` says the member (or "the field") is, may be or can be null."""
    return bool(re.search(rf"\b(field|{re.escape(member)})\b[^.]*\b(is|are|may be|can be) null\b", prose))


def event_type_in_title(title: str) -> str:
    """The vendor event type a section title names at its end, else "".

    ``Context Fork Event (x_context_fork)`` -> ``x_context_fork``.
    """
    match = re.search(r"\((x_[\w.]+)\)\s*$", title)
    return match.group(1) if match else ""


def event_summary(description: str) -> str:
    """A vendor event's description up to its ``Fields:`` or ``Same fields as`` part."""
    return re.split(r"\s*\b(?:Fields:|Same fields as\b)", description)[0].strip()


def same_fields_as(description: str) -> str:
    """The event type of ``Same fields as x_artifact.created`` in ``description``, else ""."""
    match = re.search(r"\bSame fields as\s+`?(x_[\w.]+?)`?\.?(?:\s|$)", description)
    return match.group(1) if match else ""


def fields_text(description: str) -> str:
    """The list after ``Fields:`` (final period dropped), else ""."""
    match = re.search(r"\bFields:\s*(.+?)\s*$", description, re.DOTALL)
    return match.group(1).rstrip(".").strip() if match else ""


def field_items(text: str) -> list[str]:
    """Split a ``Fields:`` list on top-level commas (not inside ``(...)`` or ``{...}``)."""
    items: list[str] = []
    depth = 0
    current: list[str] = []
    for ch in text:
        if ch in "({":
            depth += 1
        elif ch in ")}":
            depth = max(0, depth - 1)
        if ch == "," and depth == 0:
            items.append("".join(current).strip())
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        items.append("".join(current).strip())
    return [i for i in items if i]


def parse_field(item: str) -> tuple[str, str] | None:
    """``(name, note)`` of one ``name (note)`` item, or None when it is not one."""
    match = re.fullmatch(r"`?([A-Za-z_][\w]*)`?\s*(?:\((.*)\))?", item.strip(), re.DOTALL)
    if not match:
        return None
    return match.group(1), (match.group(2) or "").strip()


def stated_type(note: str) -> SchemaType | None:
    """The type a field note states (``JSON string with query`` -> string), if any."""
    text = re.sub(r"^optional\b[,;:]?\s*", "", note.strip(), flags=re.IGNORECASE).lower()
    if text.startswith("array") or text.startswith("list"):
        return "array"
    if text.startswith("object") or text.startswith("dict"):
        return "object"
    if re.match(r"(json )?string\b|text\b", text):
        return "string"
    if re.match(r"boolean\b|bool\b", text):
        return "boolean"
    if re.match(r"integer\b|int\b", text):
        return "integer"
    if re.match(r"number\b|float\b", text):
        return "number"
    return None


def _looks_plural(name: str) -> bool:
    last = snake(name).split("_")[-1] if snake(name) else ""
    return len(last) > 3 and last.endswith("s") and not last.endswith(("ss", "us", "is"))


def field_property(
    field_name: str,
    note: str,
    parent: str,
    provenance: Provenance,
    known_types: dict[str, SchemaType],
    report: Callable[[Code, str, Provenance], None],
) -> Property:
    """One ``name (note)`` field of a ``Fields:`` list as a property of ``parent``.

    The note is the description and may state the type (``JSON string``,
    ``boolean``, ``object with summary``, ``array of {path, contentType, size}``
    -> an array of ``...File`` objects); ``optional``/``when known`` make the
    field not required; an untyped field takes its type from ``known_types``
    (a field typed once on the page is typed so everywhere), else is a string
    unless its name suggests a number (``total_subtasks``) or a collection
    (``toolCalls``): then it is any JSON (``field-type-unknown``, warning,
    ``specs/xerotier/streaming-api.md:191``).
    """
    name = member_name(parent, field_name)
    text = note.strip()
    optional = is_conditional(text)
    text = re.sub(r"^optional\b[,;:]?\s*", "", text, flags=re.IGNORECASE)
    description = "" if text.lower() in TYPE_WORDS else text
    members = re.match(r"array of \{(.*)\}", text, re.IGNORECASE | re.DOTALL)
    stated = stated_type(text)
    prov = provenance

    def untyped(member: str, owner: str) -> Property:
        return field_property(member, "", owner, prov, known_types, report)

    if members:
        items = [untyped(n, singular(name)) for n in field_items(members.group(1)) if re.fullmatch(r"\w+", n)]
        schema = Schema("array", prov, items=Schema("object", prov, name=singular(name), properties=tuple(items)))
    elif stated == "object":
        inner = re.match(r"object with (.+)$", text, re.IGNORECASE)
        names = [n for n in re.split(r",\s*|\s+and\s+", inner.group(1)) if re.fullmatch(r"\w+", n)] if inner else []
        schema = Schema("object", prov, name=name, properties=tuple(untyped(n, name) for n in names))
    elif stated:
        schema = Schema(stated, prov)
    elif field_name in known_types:
        schema = Schema(known_types[field_name], prov)
    elif set(snake(field_name).split("_")) & _NUMERIC_WORDS or _looks_plural(field_name):
        kind = "a number" if set(snake(field_name).split("_")) & _NUMERIC_WORDS else "a collection"
        report(
            codes.FIELD_TYPE_UNKNOWN,
            f"field {field_name!r} of {parent} has no stated type and its name suggests {kind}; typed as any JSON",
            prov,
        )
        schema = Schema("any", prov)
    else:
        schema = Schema("string", prov)
    return Property(field_name, replace(schema, description=description), not optional, description, prov)


def rename(prop: Property, old: str, new: str) -> Property:
    """A copied field (``Same fields as ...``) with its nested class names re-rooted from ``old`` to ``new``."""

    def walk(schema: Schema) -> Schema:
        name = new + schema.name[len(old) :] if schema.name.startswith(old) else schema.name
        items = walk(schema.items) if schema.items is not None else None
        props = tuple(replace(p, schema=walk(p.schema)) for p in schema.properties)
        return replace(schema, name=name, items=items, properties=props)

    return replace(prop, schema=walk(prop.schema))
