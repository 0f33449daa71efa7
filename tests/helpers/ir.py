"""The printed IR (``ssegen ir``, :func:`ssegen.irjson.to_jsonable`) read back in tests."""

from __future__ import annotations

from typing import Any

from referencing import Registry
from referencing.jsonschema import DRAFT202012

_URI = "urn:ssegen:ir"


def inline_schemas(document: Any, node: Any = None) -> Any:
    """``node`` (default: ``document`` itself) of a printed IR ``document`` with every schema
    reference replaced by what it refers to, its siblings (``nullable``) applied over it, and
    ``$defs`` left out: the tree ``dataclasses.asdict`` gives of the IR.

    References are resolved by the ``referencing`` library as JSON Schema resolves ``$ref``
    (RFC 6901 pointers in a URI fragment), so a reference it cannot follow raises
    ``referencing.exceptions.Unresolvable``.  Exponential in the worst case (a schema shared
    level after level): for the small IRs of tests only.
    """
    resolver = Registry().with_resource(_URI, DRAFT202012.create_resource(document)).resolver(_URI)

    def walk(value: Any) -> Any:
        if isinstance(value, list):
            return [walk(item) for item in value]
        if not isinstance(value, dict):
            return value
        if isinstance(value.get("$ref"), str):
            target = resolver.lookup(value["$ref"]).contents
            siblings = {key: item for key, item in value.items() if key != "$ref"}
            return walk({**target, **siblings})
        return {key: walk(item) for key, item in value.items() if key != "$defs"}

    return walk(document if node is None else node)
