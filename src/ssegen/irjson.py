"""The IR as JSON (what ``ssegen ir`` prints): every schema written once.

The IR is a graph, not a tree: a schema a document names once and references from ten
members (``$ref``) is one :class:`~ssegen.ir.Schema` object used ten times.  Written as a
tree (``dataclasses.asdict``), a spec of ten ``$ref`` s per level, nine levels deep (5 KB)
would print 10^9 copies of its last level.  Here the IR prints the way JSON Schema writes
shared definitions (JSON Schema 2020-12, section 8.2.4 ``$defs``; RFC 6901 pointers):

* ``$defs`` (at the top of the printed IR) holds each *named* schema (a class: a component,
  a message payload, a named inline object or enum) and each schema used at more than one
  place, once, keyed by its name (``ChatCompletionChunk``); a shared schema without a name
  is keyed by where it is written (``<file>#<JSON pointer>``).  Two different schemas under
  one key each get a ``-`` and the first six hex digits of their content's SHA-256 after it.
* At a use site (a message's ``payload``, a property's ``schema``, an array's ``items``, a
  union's ``variants``) such a schema is ``{"$ref": "#/$defs/<key>"}``, with ``"nullable":
  true`` beside it when that use admits ``null`` (nullability is a use-site flag of the IR;
  the entry in ``$defs`` is written with ``nullable`` false).  Resolving a reference is
  ``{**defs[key], **siblings}``.
* Any other schema (an unnamed one used once: a plain ``string`` member) stays inline.
* A ``$ref`` inside the keywords a schema keeps as written (its ``constraints``:
  ``patternProperties``, ``not``, ``if``..., a :class:`~ssegen.ir.SchemaRef`) is
  ``{"$ref": "#/$defs/<file>#<pointer>"}`` too, the entry the referenced JSON Schema as
  written (its own references written the same way).

Every schema is written exactly once, so the output grows linearly with the IR in memory
(which the loaders keep linear in the spec: ``$ref`` targets are converted once).  Each
entry keeps its ``provenance`` (where the schema is defined), each property and message its
own (where it is used).  Output is deterministic: keys sorted, entry keys from names,
pointers and content hashes only (no ``id()``, no counters).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, fields, is_dataclass
from typing import Any
from urllib.parse import quote

from .ir import AccumulateStep, Property, Schema, SchemaRef

#: The member of the printed IR holding the schemas written once.
DEFS = "$defs"

#: Hex digits of the content hash told apart keys get (more when six still collide).
_SUFFIX_DIGITS = 6


def to_jsonable(node: Any, *, base: str = "#") -> Any:
    """Plain JSON data for the IR node ``node`` (a :class:`~ssegen.ir.Provider`,
    :class:`~ssegen.ir.Channel`, ...: any IR dataclass instance), schemas written once.

    Dataclasses become dicts of their fields, tuples lists; the schemas are laid out as
    the module docstring says, with ``$defs`` a member of the returned dict (absent when
    no schema is named or shared).  ``base`` is the JSON pointer fragment of the returned
    dict in the document it is printed in (``"#/ir"`` when it is the value of a member
    ``ir``), so that every ``$ref`` resolves against that document (RFC 6901, RFC 3986
    section 3.5).

    Raises:
        TypeError: ``node`` is not a dataclass instance.
    """
    if not is_dataclass(node) or isinstance(node, type):
        raise TypeError(f"to_jsonable() takes an IR dataclass instance, got {type(node).__name__}")
    table = _Table(base)
    table.count(node)
    table.assign_keys()
    data: dict[str, Any] = table.plain(node)
    defs = table.entries()
    return {DEFS: defs, **data} if defs else data


def dumps(node: Any) -> str:
    """The IR node ``node`` as JSON text (:func:`to_jsonable`): sorted keys, 2-space indent,
    non-ASCII kept, trailing newline."""
    return json.dumps(to_jsonable(node), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


@dataclass
class _Node:
    """One distinct schema content (nullability aside), or one schema a keyword kept as
    written refers to: a schema to write once."""

    schema: Schema | SchemaRef
    uses: int = 0
    key: str = ""


class _Table:
    """The schemas of one IR node by content digest, their use counts and keys."""

    def __init__(self, base: str) -> None:
        self.base = base
        self.digests: dict[int, str] = {}  # id(schema) -> digest
        self.ref_digests: dict[SchemaRef, str] = {}  # a reference kept as written -> digest
        self.digesting: set[SchemaRef] = set()  # references whose target is being digested
        self.kept: list[Schema] = []  # keeps every id() above alive, so none is reused
        self.nodes: dict[str, _Node] = {}  # digest -> node

    # -- pass 1: digests and use counts -----------------------------------------

    def count(self, value: Any) -> None:
        """Count the schema uses under ``value``, a non-schema IR value."""
        if isinstance(value, Schema):
            self.nodes[self.digest(value)].uses += 1
        elif is_dataclass(value):
            for f in fields(value):
                self.count(getattr(value, f.name))
        elif isinstance(value, (list, tuple)):
            for item in value:
                self.count(item)
        elif isinstance(value, dict):
            for item in value.values():
                self.count(item)

    def digest(self, schema: Schema) -> str:
        """SHA-256 (hex) of ``schema``'s content without its own ``nullable``: its fields, and
        each child's digest and ``nullable``; a content seen first counts its children's uses."""
        known = self.digests.get(id(schema))
        if known is not None:
            return known
        children = [self.digest(child) for child in _children(schema)]
        child_digests = iter(children)

        def child_content(child: Schema) -> dict[str, Any]:
            return {"digest": next(child_digests), "nullable": child.nullable}

        own = _fields(schema, child_content, self.ref_content)
        text = json.dumps(own, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.digests[id(schema)] = digest
        self.kept.append(schema)
        if digest not in self.nodes:
            self.nodes[digest] = _Node(schema)
            for child in children:
                self.nodes[child].uses += 1
        return digest

    def ref_content(self, ref: SchemaRef) -> dict[str, Any]:
        """A reference kept as written, in a digested content: its target's digest (counted
        as a use of that entry); inside its own target (a cycle), where it is written."""
        if ref in self.digesting:
            return {"$ref": f"back:{ref.key}"}  # its entry is written whatever its uses
        digest = self.ref_digest(ref)
        self.nodes[digest].uses += 1
        return {"$ref": digest}

    def ref_digest(self, ref: SchemaRef) -> str:
        """SHA-256 (hex) of where ``ref``'s target is written and of the target as written
        (references in it by their digests)."""
        known = self.ref_digests.get(ref)
        if known is not None:
            return known
        self.digesting.add(ref)
        try:
            own = {"ref": ref.key, "as_written": _plain(ref.target, self.ref_content)}
        finally:
            self.digesting.discard(ref)
        text = json.dumps(own, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        self.ref_digests[ref] = digest
        self.nodes.setdefault(digest, _Node(ref))
        return digest

    # -- keys ---------------------------------------------------------------------

    def assign_keys(self) -> None:
        """Give each schema that goes to ``$defs`` its key (see the module docstring)."""
        groups: dict[str, list[str]] = {}
        for digest, node in self.nodes.items():
            if isinstance(node.schema, SchemaRef) or node.schema.name or node.uses > 1:
                groups.setdefault(_base_key(node.schema), []).append(digest)
        taken = set(groups)
        for base, digests in sorted(groups.items()):
            if len(digests) == 1:
                self.nodes[digests[0]].key = base
                continue
            for digest in sorted(digests):
                size = _SUFFIX_DIGITS
                while (key := f"{base}-{digest[:size]}") in taken:
                    size += 1
                taken.add(key)
                self.nodes[digest].key = key

    # -- pass 2: writing ----------------------------------------------------------

    def plain(self, value: Any) -> Any:
        """``value`` as JSON data, each schema in it as :meth:`use` writes it."""
        if isinstance(value, Schema):
            return self.use(value)
        if isinstance(value, AccumulateStep):
            return value.to_plan()  # as a plan states it: docs/accumulation.md
        if is_dataclass(value) and not isinstance(value, type):
            return {f.name: self.plain(getattr(value, f.name)) for f in fields(value)}
        if isinstance(value, (list, tuple)):
            return [self.plain(item) for item in value]
        if isinstance(value, dict):
            return {key: self.plain(item) for key, item in value.items()}
        return value

    def use(self, schema: Schema) -> dict[str, Any]:
        """``schema`` at a use site: a reference to its entry, or the schema inline."""
        key = self.nodes[self.digests[id(schema)]].key
        if not key:
            return _fields(schema, self.use, self.ref, nullable=schema.nullable)
        ref: dict[str, Any] = {"$ref": f"{self.base}/{DEFS}/{pointer_token(key)}"}
        if schema.nullable:
            ref["nullable"] = True
        return ref

    def ref(self, ref: SchemaRef) -> dict[str, Any]:
        """A reference kept as written: a reference to its target's entry."""
        key = self.nodes[self.ref_digests[ref]].key
        return {"$ref": f"{self.base}/{DEFS}/{pointer_token(key)}"}

    def entries(self) -> dict[str, Any]:
        """The ``$defs`` table, sorted by key."""
        keyed = sorted((node for node in self.nodes.values() if node.key), key=lambda node: node.key)
        return {
            node.key: (
                _plain(node.schema.target, self.ref)
                if isinstance(node.schema, SchemaRef)
                else _fields(node.schema, self.use, self.ref, nullable=False)
            )
            for node in keyed
        }


def _children(schema: Schema) -> list[Schema]:
    """The schemas ``schema`` uses, in field order: member schemas, items, variants."""
    items = [schema.items] if schema.items is not None else []
    return [*(p.schema for p in schema.properties), *items, *schema.variants]


def _fields(schema: Schema, child: Any, ref: Any, *, nullable: bool | None = None) -> dict[str, Any]:
    """``schema``'s fields as JSON data, each child schema as ``child(schema)`` gives it (in
    :func:`_children` order), each reference in its constraints as ``ref(reference)`` does;
    ``nullable`` left out when None."""
    out: dict[str, Any] = {}
    for f in fields(schema):
        value = getattr(schema, f.name)
        if f.name == "nullable":
            if nullable is not None:
                out["nullable"] = nullable
        elif f.name == "properties":
            out["properties"] = [_property(prop, child) for prop in value]
        elif f.name == "items":
            out["items"] = child(value) if value is not None else None
        elif f.name == "variants":
            out["variants"] = [child(variant) for variant in value]
        else:
            out[f.name] = _plain(value, ref)
    return out


def _property(prop: Property, child: Any) -> dict[str, Any]:
    return {
        f.name: child(prop.schema) if f.name == "schema" else _plain(getattr(prop, f.name), None) for f in fields(prop)
    }


def _plain(value: Any, ref: Any) -> Any:
    """A schema field's value (no schema in it) as JSON data, each reference kept as written
    (:class:`~ssegen.ir.SchemaRef`, only in constraints) as ``ref(reference)`` gives it."""
    if isinstance(value, SchemaRef):
        return ref(value)
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name), ref) for f in fields(value)}
    if isinstance(value, (list, tuple)):
        return [_plain(item, ref) for item in value]
    if isinstance(value, dict):
        return {key: _plain(item, ref) for key, item in value.items()}
    return value


def _base_key(schema: Schema | SchemaRef) -> str:
    """A schema's ``$defs`` key before disambiguation: its name, else where it is written."""
    if isinstance(schema, SchemaRef):
        return schema.key
    if schema.name:
        return schema.name
    return f"{schema.provenance.file}#{schema.provenance.pointer}"


def pointer_token(key: str) -> str:
    """``key`` as one reference token of a JSON pointer in a URI fragment (RFC 6901 sections
    3 and 6: ``~`` and ``/`` escaped, then percent-encoded where a fragment needs it)."""
    return quote(key.replace("~", "~0").replace("/", "~1"), safe="~!$&'()*+,;=:@-._")
