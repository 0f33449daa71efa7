"""Parse YAML/JSON text into plain data plus a line for every JSON pointer.

PyYAML composes a node graph whose nodes carry source marks; walking it (instead
of ``yaml.safe_load``) gives, for every value, the 1-based line it starts on in
the source file, keyed by RFC 6901 JSON pointer.  JSON is parsed the same way
(it is YAML for our purposes), so both formats get provenance.

Choices made here, each reported as a diagnostic where it changes data:

* timestamps stay strings (a spec's ``version: 2024-01-01`` is text, and JSON
  has no dates);
* a duplicate mapping key keeps the last value (as PyYAML does) and warns;
* non-string keys (``200:``) become strings;
* aliases are expanded with a budget on the number of nodes visited, so a
  "billion laughs" document is an error, not an out-of-memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from ..diagnostics import Diagnostics, Severity

#: Most nodes one document may expand to (after aliases) before it is refused.
MAX_NODES = 1_000_000


class DocumentError(Exception):
    """The text is not a YAML/JSON document we can read.

    Attributes:
        line: 1-based line of the problem in the source file (0 unknown).
        code: diagnostic code (``yaml-syntax``, ``yaml-too-large``).
    """

    def __init__(self, message: str, line: int = 0, code: str = "yaml-syntax") -> None:
        super().__init__(message)
        self.line = line
        self.code = code


class _Loader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver (dates stay strings)."""


_Loader.yaml_implicit_resolvers = {
    key: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


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


def parse_document(
    text: str, file: str, diagnostics: Diagnostics, *, line_offset: int = 0
) -> Document:
    """Parse YAML or JSON ``text`` from ``file`` into a :class:`Document`.

    Args:
        text: the document text.
        file: its path relative to the specs folder, for provenance.
        diagnostics: collector for warnings (duplicate keys, non-string keys).
        line_offset: lines that precede ``text`` in ``file`` (an embedded
            document, e.g. the YAML after ``Raw ↑`` in a scraped page).

    Raises:
        DocumentError: on a syntax error, several documents in one text, or an
            alias expansion past :data:`MAX_NODES`; ``line`` is file-relative.
    """
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 + line_offset if mark is not None else 0
        problem = exc.problem or str(exc)
        raise DocumentError(f"YAML syntax error: {problem}", line) from None
    except yaml.YAMLError as exc:
        raise DocumentError(f"YAML error: {exc}") from None
    finally:
        loader.dispose()
    doc = Document(file=file, data=None)
    if node is None:
        return doc
    walker = _Walker(loader, doc, diagnostics, line_offset)
    doc.data = walker.build(node, "")
    return doc


class _Walker:
    """Builds plain data from a composed node graph, recording lines per pointer."""

    def __init__(
        self, loader: _Loader, doc: Document, diagnostics: Diagnostics, line_offset: int
    ) -> None:
        self.loader = loader
        self.doc = doc
        self.diagnostics = diagnostics
        self.offset = line_offset
        self.visited = 0

    def build(self, node: yaml.Node, pointer: str) -> Any:
        self.visited += 1
        line = node.start_mark.line + 1 + self.offset
        if self.visited > MAX_NODES:
            raise DocumentError(
                f"document expands to more than {MAX_NODES} nodes (alias bomb?)",
                line,
                "yaml-too-large",
            )
        self.doc.lines.setdefault(pointer, line)
        if isinstance(node, yaml.MappingNode):
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
                        "duplicate-key",
                        Severity.WARNING,
                        f"duplicate key {key!r}: the last value is kept",
                        file=self.doc.file,
                        line=key_node.start_mark.line + 1 + self.offset,
                        pointer=child,
                    )
                result[key] = self.build(value_node, child)
            return result
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, join_pointer(pointer, i)) for i, item in enumerate(node.value)]
        return self.scalar(node)

    def scalar(self, node: yaml.Node) -> Any:
        if not isinstance(node, yaml.ScalarNode):
            # A mapping or sequence used as a key: keep its text form.
            return yaml.serialize(node).strip()
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise DocumentError(
                f"YAML value error: {exc.problem}", node.start_mark.line + 1 + self.offset
            ) from None
