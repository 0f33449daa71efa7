"""Parse YAML/JSON text into plain data plus a line for every JSON pointer.

PyYAML composes a node graph whose nodes carry source marks; walking it (instead
of ``yaml.safe_load``) gives, for every value, the 1-based line it starts on in
the source file, keyed by RFC 6901 JSON pointer.  JSON is parsed the same way
(it is YAML for our purposes), so both formats get provenance.

Choices made here, each reported as a diagnostic where it changes data:

* timestamps stay strings (a spec's ``version: 2024-01-01`` is text, and JSON
  has no dates);
* booleans are YAML 1.2's (the core schema AsyncAPI tooling reads): only
  ``true``/``false`` (``True``, ``TRUE``, ...) are booleans; YAML 1.1's
  ``on``/``off``/``yes``/``no``/``y``/``n`` stay strings, so ``enum: [on, off]``
  under ``type: string`` is ``["on", "off"]``, not ``[true, false]``;
* a duplicate mapping key keeps the last value (as PyYAML does) and warns;
* non-string keys (``200:``) become strings;
* aliases are expanded with a budget on the number of nodes visited, so a
  "billion laughs" document is an error, not an out-of-memory;
* nesting deeper than :data:`MAX_DEPTH` is an error (``yaml-too-deep``), not a
  ``RecursionError`` in the composer or in the loaders that walk the data;
* an explicit tag other than the JSON-compatible core ones (``!!python/...``,
  ``!!binary``, ``!custom``) is ignored with a warning (``yaml-tag-ignored``):
  the node is read as the plain mapping, list or string it is written as, and
  nothing is ever constructed from a tag.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import yaml

from ..diagnostics import Diagnostics, codes

#: Most nodes aliases may add to a document (each node met again through an alias counts)
#: before it is refused as an alias bomb. A document without aliases is as large as its
#: text, and read in linear time however large (125,000 schemas in 50 MB included).
MAX_NODES = 1_000_000

#: Most bytes of scalars that aliases may repeat (``*big`` 500 times over a 100 KB string
#: would otherwise become 50 MB of data and far more generated text).
MAX_ALIASED_BYTES = 8 * 1024 * 1024

#: Deepest nesting (mappings and sequences) one document may have.
MAX_DEPTH = 128

#: Tags whose values are plain JSON data; any other tag is ignored (read as plain data).
_PLAIN_TAGS = frozenset(f"tag:yaml.org,2002:{name}" for name in ("str", "int", "float", "bool", "null", "map", "seq"))


class DocumentError(Exception):
    """The text is not a YAML/JSON document we can read.

    Attributes:
        line: 1-based line of the problem in the source file (0 unknown).
        code: the diagnostic code (``yaml-syntax``, ``yaml-too-deep``, ``yaml-too-large``).
        column: 1-based column of the problem in that line (0 unknown).
    """

    def __init__(self, message: str, line: int = 0, code: codes.Code = codes.YAML_SYNTAX, column: int = 0) -> None:
        super().__init__(message)
        self.line = line
        self.code = code
        self.column = column


class _TooDeep(Exception):
    """Raised by :class:`_Composer` past :data:`MAX_DEPTH`; ``line`` is 0-based in the text."""

    def __init__(self, line: int) -> None:
        super().__init__(line)
        self.line = line


# libyaml's parser (PyYAML's C extension) turns text into events about four times faster
# than the pure-Python scanner and parser: OpenAI's 3 MB openapi.yaml is read in about 1 s
# instead of 3.5 s. The composer stays PyYAML's Python one, so the depth limit below holds
# (libyaml's own composer recurses in C without a limit: a deeply nested document crashes
# the interpreter). Both parsers give the same nodes and marks for a valid document; a
# document libyaml refuses is read again by the pure-Python parser, so what is reported
# (syntax error or ``yaml-too-deep``, and its wording) never depends on the libyaml build:
# libyaml 0.2.5 refuses nesting past its own limit as a syntax error, before our composer
# sees that depth.


class _Composer(yaml.composer.Composer, yaml.constructor.SafeConstructor, yaml.resolver.Resolver):
    """The Python composer, constructor and resolver with a depth limit (mixed in before
    an event source: libyaml's parser or the pure-Python one).

    PyYAML's composer recurses once per nesting level; counting levels here
    stops a deeply nested document at :data:`MAX_DEPTH`, at the line where it
    gets too deep, before Python's recursion limit is anywhere near.
    """

    _depth = 0

    def _init_composer(self) -> None:
        yaml.composer.Composer.__init__(self)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _TooDeep(self.peek_event().start_mark.line)  # type: ignore[attr-defined]
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1


class _PyLoader(_Composer, yaml.reader.Reader, yaml.scanner.Scanner, yaml.parser.Parser):
    """A safe loader over the pure-Python reader, scanner and parser."""

    def __init__(self, stream: str) -> None:
        yaml.reader.Reader.__init__(self, stream)
        yaml.scanner.Scanner.__init__(self)
        yaml.parser.Parser.__init__(self)
        self._init_composer()


if yaml.__with_libyaml__:
    from yaml.cyaml import CParser  # type: ignore[attr-defined]

    class _CLoader(_Composer, CParser):  # type: ignore[misc]
        """A safe loader over libyaml's parser."""

        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            self._init_composer()

    _LOADERS: tuple[type[_Composer], ...] = (_CLoader, _PyLoader)
else:  # pragma: no cover - PyYAML built without libyaml
    _LOADERS = (_PyLoader,)


_BOOL_TAG = "tag:yaml.org,2002:bool"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_INT_TAG = "tag:yaml.org,2002:int"

# YAML 1.2 core schema (what AsyncAPI and OpenAPI tooling reads, and what JSON is):
# * booleans: true|True|TRUE|false|False|FALSE only (1.1's yes/no/on/off/y/n stay strings);
# * integers: decimal, 0o octal, 0x hex (1.1's 0b, 012-as-octal, 1_000 and 190:20:30 stay
#   strings or decimals);
# * floats: a dot or an exponent, the exponent's sign optional (JSON's 1e-08, 1E5, -2e3;
#   PyYAML's 1.1 resolver wants a dot and a signed exponent, so those were strings), and
#   .inf/.nan.
# Timestamps are not resolved (dates stay strings).
_CORE_RESOLVERS = (
    (_BOOL_TAG, re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")),
    (_INT_TAG, re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789")),
    (
        _FLOAT_TAG,
        re.compile(
            r"^(?:[-+]?(?:(?:\.[0-9]+|[0-9]+\.[0-9]*)(?:[eE][-+]?[0-9]+)?|[0-9]+[eE][-+]?[0-9]+)"
            r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
        ),
        list("-+0123456789."),
    ),
)
_REPLACED_TAGS = ("tag:yaml.org,2002:timestamp", _BOOL_TAG, _INT_TAG, _FLOAT_TAG)

_Composer.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag not in _REPLACED_TAGS]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
for _tag, _pattern, _first in _CORE_RESOLVERS:
    _Composer.add_implicit_resolver(_tag, _pattern, _first)


def _construct_core_int(loader: _Composer, node: yaml.Node) -> int:
    """A YAML 1.2 core-schema integer (PyYAML's 1.1 constructor reads ``012`` as octal)."""
    value = str(loader.construct_scalar(node))  # type: ignore[arg-type]  # a ScalarNode: the tag is a scalar's
    if value.startswith(("0o", "0x")):
        return int(value, 0)
    return int(value, 10)


_Composer.add_constructor(_INT_TAG, _construct_core_int)  # type: ignore[type-var]


def escape_pointer_token(token: str) -> str:
    """Escape one reference token per RFC 6901 (``~`` -> ``~0``, ``/`` -> ``~1``)."""
    return token.replace("~", "~0").replace("/", "~1")


def join_pointer(pointer: str, *tokens: str | int) -> str:
    """``pointer`` extended by ``tokens`` (each escaped per RFC 6901)."""
    return pointer + "".join("/" + escape_pointer_token(str(t)) for t in tokens)


@dataclass
class Document:
    """A parsed source document.

    Attributes:
        file: path relative to the specs folder (POSIX separators).
        data: the document as plain JSON-compatible Python data.
        lines: JSON pointer -> 1-based line in ``file`` where that value starts.
    """

    file: str
    data: Any
    lines: dict[str, int] = field(default_factory=dict)

    def line(self, pointer: str) -> int:
        """Line of ``pointer``, or of its nearest ancestor that has one (0 if none)."""
        while True:
            if pointer in self.lines:
                return self.lines[pointer]
            if not pointer:
                return 0
            pointer = pointer.rsplit("/", 1)[0]


def parse_document(text: str, file: str, diagnostics: Diagnostics, *, line_offset: int = 0) -> Document:
    """Parse YAML or JSON ``text`` from ``file`` into a :class:`Document`.

    Args:
        text: the document text.
        file: its path relative to the specs folder, for provenance.
        diagnostics: collector for warnings (duplicate keys, non-string keys).
        line_offset: lines that precede ``text`` in ``file`` (an embedded
            document, e.g. the YAML after ``Raw ↑`` in a scraped page).

    Raises:
        DocumentError: on a syntax error, several documents in one text, nesting past
            :data:`MAX_DEPTH` (``yaml-too-deep``) or an alias expansion past
            :data:`MAX_NODES` (``yaml-too-large``); ``line`` is file-relative.
    """
    loader, node = _compose(text, line_offset)
    doc = Document(file=file, data=None)
    if node is None:
        return doc
    walker = _Walker(loader, doc, diagnostics, line_offset)
    doc.data = walker.build(node, "", 0)
    return doc


def _compose(text: str, line_offset: int) -> tuple[_Composer, yaml.Node | None]:
    """The loader and the root node of ``text``; the first loader of :data:`_LOADERS` that
    fails with a syntax error hands over to the next (see above), so the error reported is
    always the pure-Python parser's."""
    for loader_class in _LOADERS[:-1]:
        try:
            return _compose_with(loader_class, text, line_offset)
        except DocumentError as exc:
            if exc.code is not codes.YAML_SYNTAX:
                raise
    return _compose_with(_LOADERS[-1], text, line_offset)


def _compose_with(loader_class: type[_Composer], text: str, line_offset: int) -> tuple[_Composer, yaml.Node | None]:
    loader = loader_class(text)  # type: ignore[call-arg]
    try:
        return loader, loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        raise _syntax_error(exc, text, line_offset) from None
    except yaml.YAMLError as exc:
        raise DocumentError(f"YAML error: {exc}") from None
    except _TooDeep as exc:
        raise DocumentError(
            f"document nests deeper than {MAX_DEPTH} levels", exc.line + 1 + line_offset, codes.YAML_TOO_DEEP
        ) from None
    except RecursionError:
        raise DocumentError(
            f"document nests deeper than the YAML parser can follow (limit {MAX_DEPTH})", 0, codes.YAML_TOO_DEEP
        ) from None
    finally:
        loader.dispose()  # type: ignore[attr-defined]


#: The longest part of an offending line quoted in a syntax error (characters).
_QUOTED_LINE = 120


def _syntax_error(exc: yaml.MarkedYAMLError, text: str, line_offset: int) -> DocumentError:
    """The :class:`DocumentError` of a YAML syntax error: the parser's problem (and what it was
    doing, ``while scanning a simple key``), its file line and column, and the offending line
    quoted (shortened past :data:`_QUOTED_LINE` characters around the column), so a user sees
    where without opening the file."""
    mark = exc.problem_mark or exc.context_mark
    problem = exc.problem or str(exc)
    if exc.context and exc.problem:
        problem = f"{problem} ({exc.context})"
    if mark is None:
        return DocumentError(f"YAML syntax error: {problem}")
    lines = text.splitlines()
    source = lines[mark.line] if mark.line < len(lines) else ""
    start = max(0, min(mark.column - _QUOTED_LINE // 2, len(source) - _QUOTED_LINE))
    quoted = source[start : start + _QUOTED_LINE]
    quoted = ("..." if start else "") + quoted + ("..." if start + _QUOTED_LINE < len(source) else "")
    return DocumentError(
        f"YAML syntax error at column {mark.column + 1}: {problem}; the line reads {quoted!r}",
        mark.line + 1 + line_offset,
        column=mark.column + 1,
    )


class _Walker:
    """Builds plain data from a composed node graph, recording lines per pointer."""

    def __init__(self, loader: _Composer, doc: Document, diagnostics: Diagnostics, line_offset: int) -> None:
        self.loader = loader
        self.doc = doc
        self.diagnostics = diagnostics
        self.offset = line_offset
        self.seen: set[int] = set()  # nodes built once: a node met again is an alias's
        self.aliased_bytes = 0
        self.expanded = 0  # nodes met again, through an alias

    def build(self, node: yaml.Node, pointer: str, depth: int) -> Any:
        """The plain value of ``node`` at ``pointer``, ``depth`` levels down, with the line of
        every pointer below recorded in the document; a node met again (through an alias)
        counts against the alias budgets (:meth:`_count_alias`)."""
        line = node.start_mark.line + 1 + self.offset
        again = id(node) in self.seen
        self.seen.add(id(node))
        if again:  # met through an alias: what it adds counts against the alias budgets
            self._count_alias(node, line)
        if depth > MAX_DEPTH:
            raise DocumentError(f"document nests deeper than {MAX_DEPTH} levels", line, codes.YAML_TOO_DEEP)
        self.doc.lines.setdefault(pointer, line)
        if node.tag not in _PLAIN_TAGS:
            self.diagnostics.add(
                codes.YAML_TAG_IGNORED,
                f"YAML tag {node.tag!r} is not plain JSON data; ignored (read as the text it is written as)",
                file=self.doc.file,
                line=line,
                pointer=pointer,
            )
            if isinstance(node, yaml.ScalarNode):
                return str(node.value)
        if isinstance(node, yaml.MappingNode):
            return self._mapping(node, pointer, depth)
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, join_pointer(pointer, i), depth + 1) for i, item in enumerate(node.value)]
        return self.scalar(node)

    def _count_alias(self, node: yaml.Node, line: int) -> None:
        """Count ``node``, met again through an alias at ``line``; past :data:`MAX_ALIASED_BYTES`
        of repeated scalar text or :data:`MAX_NODES` repeated nodes the document is refused
        (``yaml-too-large``, an alias bomb)."""
        self.expanded += 1
        if isinstance(node, yaml.ScalarNode):
            self.aliased_bytes += len(node.value)
        if self.aliased_bytes > MAX_ALIASED_BYTES:
            raise DocumentError(
                f"aliases repeat more than {MAX_ALIASED_BYTES // (1024 * 1024)} MiB of text (alias bomb?); "
                "write the value once",
                line,
                codes.YAML_TOO_LARGE,
            )
        if self.expanded > MAX_NODES:
            raise DocumentError(
                f"aliases expand the document by more than {MAX_NODES} nodes (alias bomb?); "
                "write the repeated values out or split the document",
                line,
                codes.YAML_TOO_LARGE,
            )

    def _mapping(self, node: yaml.MappingNode, pointer: str, depth: int) -> dict[str, Any]:
        """The members of a mapping node: non-string keys as strings (``200``, ``null``,
        ``true``), each member's line its key's line, a duplicate key's last value kept
        (``duplicate-key``)."""
        result: dict[str, Any] = {}
        for key_node, value_node in node.value:
            key = self.scalar(key_node)
            if not isinstance(key, str):
                key = "null" if key is None else str(key).lower() if isinstance(key, bool) else str(key)
            child = join_pointer(pointer, key)
            # A member's place is its key's line (`usage:`), where a reader looks.
            self.doc.lines[child] = key_node.start_mark.line + 1 + self.offset
            if key in result:
                self.diagnostics.add(
                    codes.DUPLICATE_KEY,
                    f"duplicate key {key!r}: the last value is kept",
                    file=self.doc.file,
                    line=key_node.start_mark.line + 1 + self.offset,
                    pointer=child,
                )
            result[key] = self.build(value_node, child, depth + 1)
        return result

    def scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            # A mapping or sequence used as a key: keep its text form.
            return yaml.serialize(node).strip()
        try:
            value = self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise DocumentError(f"YAML value error: {exc.problem}", node.start_mark.line + 1 + self.offset) from None
        except ValueError as exc:  # e.g. an integer longer than int() accepts (4300 digits)
            raise DocumentError(f"YAML value error: {exc}", node.start_mark.line + 1 + self.offset) from None
        return _whole_characters(value, node.start_mark.line + 1 + self.offset) if isinstance(value, str) else value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _whole_characters(text: str, line: int) -> str:
    """``text`` with each escaped UTF-16 surrogate pair (``"\\ud83d\\ude00"``, which YAML reads
    as two code points) joined into its character.

    Raises:
        DocumentError: a lone surrogate (``"\\ud800"``): no character, and no UTF-8 can hold it.
    """
    if _SURROGATE.search(text) is None:
        return text
    joined = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")
    lone = _SURROGATE.search(joined)
    if lone is not None:
        raise DocumentError(
            f"YAML value error: \\u{ord(lone.group()):04x} is half of a UTF-16 surrogate pair, not a character "
            "(no UTF-8 text can hold it); write the character itself",
            line,
        )
    return joined
