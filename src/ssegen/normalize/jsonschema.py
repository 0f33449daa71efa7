"""IR schemas -> normalized JSON Schema (draft 2020-12): the strict view of a spec.

The generated decoders are lenient; this export is what "conforms to the spec"
means.  It is written into each generated package as ``schemas.json`` and used
by ``ssegen conform`` and the generated conformance tests (with the
``jsonschema`` library).  Normalized means: one nullability style (``type``
lists, or ``anyOf`` with ``{"type": "null"}`` around a ``$ref``), every named
object under ``$defs`` with its title, messages as ``$ref``s to their payloads.
Every other keyword the source states (``maximum``, ``pattern``, ``not``,
``allOf``, ``if``...) is kept from :attr:`ssegen.ir.Schema.constraints`.

Every schema is written once, so the document grows linearly with the spec however
often a schema is referred to (JSON Schema 2020-12 section 8.2.4, ``$defs``; ten
``$ref`` s per level, nine levels deep, is 10^9 copies written as a tree).  The
``$defs`` table holds, each once:

* each named object (a class of the generated models), keyed by its name
  (``ChatCompletionChunk``);
* each schema a keyword kept as written refers to (``patternProperties: {"^x-":
  {"$ref": ...}}``, ``not``, ``if``: a :class:`~ssegen.ir.SchemaRef`), as written, keyed
  by where it is written (``<file>#<JSON pointer>``);
* each other schema written at more than one place whose JSON is over
  :data:`INLINE_LIMIT` bytes (a union of arrays of unions...), keyed by where it is
  written; smaller ones stay inline at each use, where they are easier to read.

Two different entries under one key (two schemas named ``Delta``) are both kept, each
key followed by ``-`` and the first six hex digits of the SHA-256 of its entry (more
when six still collide), as ``ssegen ir`` keys its ``$defs`` (:mod:`ssegen.irjson`).
References are RFC 6901 pointers in a URI fragment (``#/$defs/demo~1a.json%23~1x``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from ..ir import Provider, Schema, SchemaRef
from ..irjson import pointer_token

DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: Bytes (compact JSON) over which a schema written at more than one place goes to ``$defs``.
INLINE_LIMIT = 1024

#: Hex digits of the SHA-256 that tell apart two entries under one key (more when they collide).
_SUFFIX_DIGITS = 6


class _Key:
    """A reference to a ``$defs`` entry by the digest of its entry, until entries get keys."""

    __slots__ = ("base", "digest")

    def __init__(self, digest: str, base: str) -> None:
        self.digest = digest
        self.base = base


class _Exporter:
    """Writes IR schemas as JSON Schema, each ``$defs`` entry once (see the module docstring).

    Pass 1 (:meth:`schema`) writes references as :class:`_Key` s naming an entry's digest;
    :meth:`finish` gives the entries their keys and writes the references."""

    def __init__(self, uses: dict[int, int]) -> None:
        self.uses = uses
        self.entries: dict[str, tuple[str, Any]] = {}  # digest -> (key before disambiguation, entry)
        self._forms: dict[int, dict[str, Any]] = {}  # id(schema) -> how a use of it is written
        self._raw: dict[SchemaRef, str] = {}  # reference -> digest of its entry
        self._writing: dict[SchemaRef, list[_Key]] = {}  # entry being written -> references back to it
        self._kept: list[Schema] = []  # keeps every id() above alive, so none is reused

    def schema(self, schema: Schema) -> dict[str, Any]:
        """``schema`` at a use site (a ``$ref`` to its entry, or the schema inline)."""
        form = self._forms.get(id(schema))
        if form is not None:
            return form
        if schema.type == "object" and schema.properties and schema.name:
            ref: dict[str, Any] = {"$ref": self._add(schema.name, self._object(schema))}
            form = {"anyOf": [ref, {"type": "null"}]} if schema.nullable else ref
        else:
            form = self._inline(schema)
            if self.uses.get(id(schema), 0) > 1 and len(_canonical(form, measure=True)) > INLINE_LIMIT:
                where = f"{schema.provenance.file}#{schema.provenance.pointer}"
                form = {"$ref": self._add(where, form)}
        self._forms[id(schema)] = form
        self._kept.append(schema)
        return form

    def _add(self, key: str, entry: Any) -> _Key:
        """Record ``entry`` (pass-1 JSON) under ``key``; a reference to it."""
        digest = hashlib.sha256(_canonical([key, entry]).encode("utf-8")).hexdigest()
        self.entries.setdefault(digest, (key, entry))
        return _Key(digest, key)

    def _object(self, schema: Schema) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "object"}
        if schema.title or schema.name:
            out["title"] = schema.title or schema.name
        if schema.description:
            out["description"] = schema.description
        out["properties"] = {p.name: self._property(p.schema, p.description) for p in schema.properties}
        required = [p.name for p in schema.properties if p.required]
        if required:
            out["required"] = required
        if not schema.additional_properties:
            out["additionalProperties"] = False
        out.update(self._as_written(schema.constraints))
        return out

    def _property(self, schema: Schema, description: str) -> dict[str, Any]:
        out = self.schema(schema)
        if description and "$ref" not in out and "anyOf" not in out:
            out = {**out, "description": description}
        elif description:
            out = {"description": description, **out}
        return out

    def _inline(self, schema: Schema) -> dict[str, Any]:
        out: dict[str, Any] = {}
        constraints: dict[str, Any] = self._as_written(schema.constraints)
        if schema.type == "any":
            return constraints
        if schema.type == "union":
            variants = [self.schema(v) for v in schema.variants]
            if schema.nullable:
                variants.append({"type": "null"})
            return {"anyOf": variants, **constraints}
        if schema.type == "null":
            return {"type": "null"}
        out["type"] = [schema.type, "null"] if schema.nullable else schema.type
        if schema.enum:
            out["enum"] = list(schema.enum) + ([None] if schema.nullable else [])
        if schema.type == "array":
            if schema.items is not None:
                out["items"] = self.schema(schema.items)
            if schema.min_items is not None:
                out["minItems"] = schema.min_items
            if schema.max_items is not None:
                out["maxItems"] = schema.max_items
        if schema.type == "object" and not schema.additional_properties:
            out["additionalProperties"] = False
        out.update(constraints)
        return out

    def _as_written(self, value: Any) -> Any:
        """A constraint's value as written, each :class:`~ssegen.ir.SchemaRef` in it a ``$ref``
        to the entry of its target.  ``$id`` is left out: it would change the base URI those
        references resolve against (every reference of the source is already resolved)."""
        if isinstance(value, SchemaRef):
            digest = self._raw.get(value)
            if digest is None:
                back = self._writing.get(value)
                if back is not None:  # inside its own target: a cycle, a $ref back to the entry
                    back.append(_Key(f"back:{value.key}", value.key))  # its digest once written
                    return {"$ref": back[-1]}
                self._writing[value] = []
                digest = self._add(value.key, self._as_written(value.target)).digest
                for ref in self._writing.pop(value):
                    ref.digest = digest
                self._raw[value] = digest
            return {"$ref": _Key(digest, value.key)}
        if isinstance(value, dict):
            return {k: self._as_written(v) for k, v in value.items() if k != "$id"}
        if isinstance(value, list):
            return [self._as_written(v) for v in value]
        return value

    def finish(self, channels: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """``($defs, channels)`` with every reference written as ``#/$defs/<key>`` (``channels``:
        pass-1 data holding references, the document's members)."""
        groups: dict[str, list[str]] = {}
        for digest, (key, _) in self.entries.items():
            groups.setdefault(key, []).append(digest)
        keys: dict[str, str] = {}
        taken = set(groups)
        for base, digests in sorted(groups.items()):
            if len(digests) == 1:
                keys[digests[0]] = base
                continue
            for digest in sorted(digests):
                size = _SUFFIX_DIGITS
                while (key := f"{base}-{digest[:size]}") in taken:
                    size += 1
                taken.add(key)
                keys[digest] = key

        def write(value: Any) -> Any:
            if isinstance(value, _Key):
                return f"#/$defs/{pointer_token(keys[value.digest])}"
            if isinstance(value, dict):
                return {k: write(v) for k, v in value.items()}
            if isinstance(value, list):
                return [write(v) for v in value]
            return value

        defs = {keys[digest]: write(entry) for digest, (_, entry) in self.entries.items()}
        return dict(sorted(defs.items())), write(channels)


def _canonical(value: Any, *, measure: bool = False) -> str:
    """Compact JSON of pass-1 data, keys sorted, a :class:`_Key` as its digest (``measure``:
    as the reference it becomes, near enough to size the schema as written)."""

    def key(ref: _Key) -> str:
        return f"#/$defs/{pointer_token(ref.base)}" if measure else ref.digest

    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"), default=key)


def _schemas_in(value: Any) -> Iterator[Schema]:
    """The :class:`~ssegen.ir.Schema` objects in ``value`` (JSON-like data: dicts, lists, tuples)."""
    if isinstance(value, Schema):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _schemas_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _schemas_in(item)


def _count_uses(provider: Provider, extra: Any = None) -> dict[int, int]:
    """``id(schema)`` -> the places the provider's schemas use it (payloads, the schemas in
    ``extra``, members, items, variants), each schema object's children counted once however
    often it is used."""
    uses: dict[int, int] = {}
    stack = [m.payload for channel in provider.channels for m in channel.messages]
    stack.extend(_schemas_in(extra))
    while stack:
        schema = stack.pop()
        uses[id(schema)] = uses.get(id(schema), 0) + 1
        if uses[id(schema)] == 1:
            items = [schema.items] if schema.items is not None else []
            stack.extend([*(p.schema for p in schema.properties), *items, *schema.variants])
    return uses


def export_provider(provider: Provider, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The normalized JSON Schema document of a provider.

    Args:
        provider: the IR.
        extra: more top-level members of the document (``{"requests": ...}``): JSON-like data
            (dicts, lists, tuples, scalars) in which each :class:`~ssegen.ir.Schema` is written
            as JSON Schema, sharing the document's ``$defs`` (a ``$ref`` into it, or inline).

    Returns:
        ``{"$schema", "title", "$defs": {key: schema}, "channels": {address:
        {message name: schema}}, **extra}``; a message schema is a ``$ref`` into ``$defs``
        for object payloads, or an inline schema (``{"type": "string",
        "enum": ["[DONE]"]}``).  Validate message ``M`` on channel ``C`` with
        ``{"$defs": doc["$defs"], **doc["channels"][C][M]}``.  The keys of ``$defs``
        are as the module docstring says.
    """
    exporter = _Exporter(_count_uses(provider, extra))
    channels: dict[str, dict[str, Any]] = {}
    for channel in provider.channels:
        channels[channel.address] = {m.name: exporter.schema(m.payload) for m in channel.messages}
    members = {"channels": channels, **_written(exporter, extra or {})}
    defs, members = exporter.finish(members)
    return {
        "$schema": DIALECT,
        "title": provider.title or provider.name,
        "$defs": defs,
        **members,
    }


def _written(exporter: _Exporter, value: Any) -> Any:
    """``value`` (JSON-like data) with each :class:`~ssegen.ir.Schema` in it written by ``exporter``."""
    if isinstance(value, Schema):
        return exporter.schema(value)
    if isinstance(value, dict):
        return {key: _written(exporter, item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_written(exporter, item) for item in value]
    return value
