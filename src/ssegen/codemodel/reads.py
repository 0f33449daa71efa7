"""Member paths of accumulation steps read from the generated classes: typed expressions, and
the conditions they are read under.

A path is walked by :func:`ssegen.ir.resolve_path` (the resolver normalize checked the step
with) from an expression of a known schema. Each member is read by its field identifier;
one that may be None is bound and tested (``(v3 := part.text) is not None``); an alternative
of a union decoded as a tagged union of classes is tested with ``isinstance`` against its
class; a value the classes hold as plain JSON (a member typed as any JSON, an object without
members, a union of other shapes) is read by wire name, each level tested to be a ``dict``.
A member the payload does not declare (the ``error`` object inside a chunk, a delta's
``reasoning_content``: steps normalize keeps whatever the spec says) is read from the member
the code model gives the class for it (:attr:`Read.undeclared`).
"""

from __future__ import annotations

import builtins
import io
import keyword
import re
import tokenize
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..ir import EACH, Provenance, Schema, WhenTest, resolve_path
from ..naming import PythonIdentifier
from .models import field_identifiers

#: The schema of a value held as plain JSON (no class: read by wire name, its type tested).
PLAIN = Schema("any", Provenance("<plain JSON>"))

#: The schema of a member a class gets for a text the spec does not declare (``str | None``).
UNDECLARED_TEXT = Schema("string", Provenance("<undeclared member>"), nullable=True)


class Types(Protocol):
    """What the reader needs of the generated classes (``ssegen.codemodel.models.ModelsBuilder``)."""

    def class_of(self, schema: Schema) -> str | None:
        """The class built for object ``schema``, or None."""

    def tagged(self, schema: Schema) -> bool:
        """True when union ``schema`` decodes to its alternatives' classes (a tagged union)."""


class Names:
    """The names bound values get while a plan compiles: ``v0``, ``v1``, ... in a fixed order
    (one plan always compiles to the same text), each with a hint of what it holds (the
    member's identifier, ``choice`` for an element of ``choices``), which :func:`readable`
    makes the name once the code is complete."""

    def __init__(self) -> None:
        self.hints: dict[str, str] = {}

    def take(self, hint: str) -> str:
        """A new name for a value that ``hint`` says what it is."""
        name = f"v{len(self.hints)}"
        self.hints[name] = hint
        return name


#: What compiled code names itself, and the builtins it calls: no bound value takes these.
RESERVED = frozenset(
    ("chunk", "chunks", "acc", "states", "blocks", "texts", "need_meta", "last_usage", "models", "Any")
    + ("as_sent", "usage_of", "isinstance", "type", "dict", "list", "str", "int")
)


def readable(blocks: tuple[str, ...], names: Names) -> tuple[str, ...]:
    """``blocks`` (code, a block of lines each) with each name ``names`` drew written as its hint,
    unique in all of them: a builtin or keyword gets ``_`` after it, a name taken gets ``_2``,
    ``_3``, ... (in order of first use). Only names are rewritten, never an attribute or a string."""
    chosen: dict[str, str] = {}
    used = set(RESERVED)
    out = []
    for code in blocks:
        edits = []
        for token in tokenize.generate_tokens(io.StringIO(code).readline):
            if token.type != tokenize.NAME or token.string not in names.hints:
                continue
            line = code.splitlines()[token.start[0] - 1]
            if line[: token.start[1]].rstrip().endswith("."):
                continue
            if token.string not in chosen:
                chosen[token.string] = _unique(names.hints[token.string], used)
            edits.append((token.start, token.end, chosen[token.string]))
        out.append(_edited(code, edits))
    return tuple(out)


def _unique(hint: str, used: set[str]) -> str:
    base = hint + "_" if keyword.iskeyword(hint) or hint in dir(builtins) else hint
    name, count = base, 1
    while name in used:
        count += 1
        name = f"{base}_{count}"
    used.add(name)
    return name


def _edited(code: str, edits: list[tuple[tuple[int, int], tuple[int, int], str]]) -> str:
    """``code`` with each ``(start, end, text)`` edit (token positions, one line each) made."""
    lines = code.splitlines()
    for (row, start), (_, end), text in reversed(edits):
        lines[row - 1] = lines[row - 1][:start] + text + lines[row - 1][end:]
    return "\n".join(lines)


def hint_of(expr: str) -> str:
    """What a value read by ``expr`` is: its last member (``v0.delta``: ``delta``; a plain
    JSON member ``v1.get('text')``: ``text``), else ``value``."""
    found = re.search(r"(?:\.([A-Za-z_]\w*)|\.get\('([^']*)'\))$", expr)
    if found is None:
        return "value"
    name = found.group(1) or str(PythonIdentifier(found.group(2)))
    return name if name.isidentifier() else "value"


def singular(name: str) -> str:
    """An element of array member ``name``: ``choices``: ``choice``, ``entries``: ``entry``."""
    if name.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss") and len(name) > 1:
        return name[:-1]
    return name + "_item"


def snake(cls: str) -> str:
    """``TextDelta``: ``text_delta``."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", cls).lower()


class Unreadable(ValueError):
    """A path the generated classes cannot read (normalize keeps no step with one)."""


@dataclass
class Read:
    """Member ``path`` of an expression, read.

    Attributes:
        guards: the conditions the value is read under, in order (each binds what it tests).
        expr: the value's expression (a bound name, or a member read no guard needs).
        schema: the value's schema (:data:`PLAIN` when held as plain JSON).
        tests: ``(expression, class)`` of each ``isinstance`` test of a union alternative.
        undeclared: ``(owner schema, wire name)`` of a member the class must be given, or None.
    """

    guards: list[str]
    expr: str
    schema: Schema
    tests: list[tuple[str, str]] = field(default_factory=list)
    undeclared: tuple[Schema, str] | None = None
    #: what the last guard binds ``expr`` to when it is ``expr``'s None test ("" else)
    tested: str = ""


class Reader:
    """Reads paths, the values it binds named by ``names`` (:class:`Names`).

    Args:
        types: the generated classes (:class:`Types`).
        names: the names bound values get.
        cache: while a path is read with no condition yet, a member object it crosses is read
            once per element: ``cache(expression)`` gives the name it is bound to (None: read it
            in place).
    """

    def __init__(self, types: Types, names: Names, cache: Callable[[str], str | None] | None = None) -> None:
        self.types = types
        self.names = names
        self.cache = cache

    def plain(self, schema: Schema) -> bool:
        """True when a value of ``schema`` is held as plain JSON by the generated classes: any
        JSON, an object without members, a union not decoded to classes (not all scalars)."""
        if schema.type == "any" or (schema.type == "object" and not schema.properties):
            return True
        if schema.type != "union":
            return False
        scalars = all(v.type in ("string", "integer", "number", "boolean", "null") for v in schema.variants)
        return not scalars and not self.types.tagged(schema)

    def read(
        self,
        expr: str,
        schema: Schema,
        path: tuple[str, ...],
        *,
        last: bool = True,
        variant: tuple[str, str] | None = None,
        undeclared: Schema = PLAIN,
    ) -> Read:
        """Member ``path`` (no ``[*]``) of ``expr``, an instance of ``schema`` (``variant``
        picks a union's alternative as :func:`ssegen.ir.resolve_path` does). The last member is
        tested not None too only when ``last`` (the caller may take None for it); a member the
        last object does not declare is read as ``undeclared`` (:attr:`Read.undeclared`).

        Raises:
            Unreadable: a segment is ``[*]``, or a member the path needs is missing on the way.
        """
        if EACH in path:
            raise Unreadable(f"path {path!r} reads array elements outside the step's scope")
        nodes = resolve_path(schema, path, variant).nodes
        out = Read([], expr, schema)
        for depth, name in enumerate(path):
            final = depth == len(path) - 1
            owner = nodes[depth][1] if depth < len(nodes) else out.schema
            self._member(out, name, owner, final, last, undeclared)
        return out

    def _member(self, out: Read, name: str, owner: Schema, final: bool, last: bool, undeclared: Schema) -> None:
        """Read member ``name`` of ``out`` in place: through the union alternative ``owner``
        when ``out`` is a union, by wire name when it is plain JSON."""
        if self.plain(out.schema):
            # A member read further is tested to be a ``dict``, which None fails.
            self._plain_member(out, name, not (final and last))
            return
        if out.schema.type == "union":
            self._alternative(out, owner, name)
        ident, value, optional = self._declared(out, name, final, undeclared)
        out.expr = f"{out.expr}.{ident}"
        # A union or plain value read further is tested by ``isinstance``, which None fails.
        tested_later = not final and (value.type == "union" or self.plain(value))
        if optional and (last or not final) and not tested_later:
            self._bind(out, "is not None")
        elif not out.guards and not final and self.cache is not None and value.type == "object" and value.properties:
            out.expr = self.cache(out.expr) or out.expr
        out.schema = value

    def _alternative(self, out: Read, owner: Schema, name: str) -> None:
        """Enter union ``out`` through its alternative ``owner``: tested by ``isinstance``
        against the alternative's class."""
        cls = self.types.class_of(owner)
        if cls is None:
            raise Unreadable(f"no class for the alternative {name!r} is read from")
        bound = self.names.take(snake(cls))
        out.tests.append((out.expr, cls))
        out.guards.append(f"isinstance({bound} := {out.expr}, {cls})")
        out.expr, out.schema = bound, owner

    @staticmethod
    def _declared(out: Read, name: str, final: bool, undeclared: Schema) -> tuple[str, Schema, bool]:
        """``(identifier, schema, may be None)`` of member ``name`` of object ``out``; a member it
        does not declare (last on the path) is read as ``undeclared`` under its own name
        (:attr:`Read.undeclared`)."""
        if out.schema.type != "object":
            raise Unreadable(f"{name!r} is read from a {out.schema.type}")
        idents = field_identifiers(out.schema)
        prop = out.schema.property(name)
        if prop is not None:
            return str(idents[name]), prop.schema, not prop.required or prop.schema.nullable
        ident = str(PythonIdentifier(name))
        if not final or ident in map(str, idents.values()):
            raise Unreadable(f"{name!r} is not a member, and its identifier is taken")
        out.undeclared = (out.schema, name)
        return ident, undeclared, True

    def _plain_member(self, out: Read, name: str, untested: bool) -> None:
        """Member ``name`` of plain JSON ``out``: read from a ``dict``, and (unless ``untested``)
        tested not None."""
        bound = self.names.take(hint_of(out.expr))
        out.guards.append(f"isinstance({bound} := {out.expr}, dict)")
        out.expr = f"{bound}.get({name!r})"
        out.schema = PLAIN
        if not untested:
            self._bind(out, "is not None")

    def _bind(self, out: Read, test: str) -> None:
        bound = self.names.take(hint_of(out.expr))
        out.guards.append(f"({bound} := {out.expr}) {test}")
        out.tested, out.expr = out.expr, bound

    def typed(self, out: Read, kind: type[Any]) -> Read:
        """``out`` tested to hold a ``kind`` (``str``, ``int``, ``list``) unless its schema says so
        already: the test replaces the None test of the value, or is added."""
        wanted = {str: "string", int: "integer", list: "array"}[kind]
        if out.schema.type == wanted:
            return out
        test = "type({}) is int" if kind is int else f"isinstance({{}}, {kind.__name__})"
        if out.tested and out.guards and out.guards[-1] == f"({out.expr} := {out.tested}) is not None":
            out.guards[-1] = test.format(f"{out.expr} := {out.tested}")
        else:
            bound = self.names.take(hint_of(out.expr))
            out.guards.append(test.format(f"{bound} := {out.expr}"))
            out.expr = bound
        out.tested = ""
        return out

    def inline(self, expr: str, schema: Schema, path: tuple[str, ...]) -> str:
        """An expression of member ``path`` of ``expr`` that is None when a member on the way is."""
        read = self.read(expr, schema, path, last=False)
        return f"({read.expr} if {' and '.join(read.guards)} else None)" if read.guards else read.expr

    def test(self, expr: str, schema: Schema, path: tuple[str, ...], test: WhenTest) -> str:
        """The condition of ``when`` test ``test`` on member ``path`` of ``expr``: ``eq`` (equal,
        of the same JSON type), ``not`` (absent, or another value), ``present`` (sent, not null)."""
        kind, expected = test
        # A value compared with a constant other than None needs no None test of its own.
        read = self.read(expr, schema, path, last=kind == "present" or expected is None)
        if kind == "present":
            held = " and ".join(read.guards) if read.guards else "True"
            return held if expected else f"not ({held})"
        held = " and ".join([*read.guards, self._compare(read, expected)])
        return held if kind == "eq" else f"not ({held})"

    @staticmethod
    def _compare(read: Read, expected: Any) -> str:
        """``read`` equal to constant ``expected``, of its JSON type (``True`` is not ``1``)."""
        if isinstance(expected, bool) or expected is None:
            return f"{read.expr} is {expected!r}"
        if isinstance(expected, str):
            return f"{read.expr} == {expected!r}"
        json_type = "integer" if isinstance(expected, int) else "number"
        if isinstance(expected, (int, float)) and read.schema.type == json_type:
            return f"{read.expr} == {expected!r}"
        if isinstance(expected, (int, float)):
            return f"type({read.expr}) is {type(expected).__name__} and {read.expr} == {expected!r}"
        raise Unreadable(f"a `when` test compares with {expected!r}, not a JSON scalar")
