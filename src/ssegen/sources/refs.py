"""``$ref`` resolution across a provider's documents, with the ``referencing`` library.

References are resolved against the document that contains them (RFC 3986 base
URI = the file's ``file://`` URI).  Only local (``#/...``) and relative-file
references inside the specs folder are followed; a remote URL or a path that
escapes the folder is refused (:class:`RefError`), so loading a spec never
touches the network or reads ``/etc/passwd``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlparse

import referencing
import referencing.exceptions
from referencing.jsonschema import DRAFT202012

from ..diagnostics import Diagnostics, codes
from ..discover import NotRegularFileError, read_regular
from .document import Document, DocumentError, join_pointer, parse_document

#: Most nested pointer walks through references before a loop is assumed.
_MAX_WALK_DEPTH = 32


class RefError(Exception):
    """A ``$ref`` that cannot be followed.

    Attributes:
        code: the diagnostic code (``ref-missing``, ``ref-remote``, ``ref-escape``,
            ``ref-unreadable``, ``ref-circular``).
    """

    def __init__(self, message: str, code: codes.Code) -> None:
        super().__init__(message)
        self.code = code


@dataclass(frozen=True)
class Target:
    """A resolved reference.

    Attributes:
        contents: the referenced value.
        document: the document that holds it (for provenance lines).
        pointer: JSON pointer of the value inside ``document`` ("" = root).
        uri: absolute URI of ``document`` (the base for refs inside ``contents``).
    """

    contents: Any
    document: Document
    pointer: str
    uri: str


class RefResolver:
    """Resolves ``$ref`` strings for the documents of one specs folder.

    Args:
        root: the specs folder; every referenced file must lie inside it.
        diagnostics: where parse warnings of referenced files go.
    """

    def __init__(self, root: Path, diagnostics: Diagnostics) -> None:
        self.root = root.resolve()
        self.diagnostics = diagnostics
        self.documents: dict[str, Document] = {}
        self._walking: list[str] = []
        # `retrieve` is an attrs field of Registry, invisible to mypy's attrs plugin here.
        self.registry: referencing.Registry[Any] = referencing.Registry(retrieve=self._retrieve)  # type: ignore[call-arg]

    def uri_for(self, path: Path) -> str:
        """The ``file://`` URI of ``path`` (the base URI of refs inside it)."""
        return path.resolve().as_uri()

    def add(self, document: Document, path: Path) -> str:
        """Register an already-parsed ``document`` read from ``path``; return its URI."""
        uri = self.uri_for(path)
        self.documents[uri] = document
        self.registry = self.registry.with_resource(uri, DRAFT202012.create_resource(document.data))
        return uri

    def lookup(self, ref: str, base_uri: str) -> Target:
        """Resolve ``ref`` relative to the document at ``base_uri``.

        A pointer that passes through a ``$ref`` of the target document (e.g.
        ``#/channels/chat/messages/Chunk`` where ``chat`` is itself a
        reference) is continued at that reference's target, as AsyncAPI
        parsers do once the document is dereferenced.

        Raises:
            RefError: remote or escaping reference (``ref-remote``,
                ``ref-escape``), a file that does not exist or a pointer that
                names nothing (``ref-missing``), a file that cannot be read or
                parsed (``ref-unreadable``), or a chain of references inside a
                pointer that loops (``ref-circular``).
        """
        absolute = urljoin(base_uri, ref)
        uri, fragment = urldefrag(absolute)
        self._check_allowed(uri, ref)
        pointer = unquote(fragment)
        if pointer and not pointer.startswith("/"):
            raise RefError(f"$ref {ref!r}: only JSON pointer fragments are supported", codes.REF_MISSING)
        resolver = self.registry.resolver(base_uri=base_uri)
        try:
            resolved = resolver.lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            cause = _ref_error_cause(exc)
            if cause is not None:
                raise cause from None
            if uri in self.documents:
                return self._walk(ref, uri, pointer)
            raise RefError(f"$ref {ref!r} points to nothing", codes.REF_MISSING) from None
        return Target(resolved.contents, self.documents[uri], pointer, uri)

    def _walk(self, ref: str, uri: str, pointer: str) -> Target:
        """Follow ``pointer`` token by token from the root of ``uri``, through ``$ref`` s."""
        tokens = [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]
        node: Any = self.documents[uri].data
        here, at = uri, ""
        seen: set[tuple[str, str]] = set()
        i = 0
        while i < len(tokens):
            if isinstance(node, dict) and tokens[i] not in node and isinstance(node.get("$ref"), str):
                if (here, at) in seen:
                    raise RefError(
                        f"$ref {ref!r}: the references on its path loop at {self.documents[here].file}#{at}",
                        codes.REF_CIRCULAR,
                    )
                seen.add((here, at))
                if len(self._walking) > _MAX_WALK_DEPTH:
                    raise RefError(f"$ref {ref!r}: the references on its path loop", codes.REF_CIRCULAR)
                self._walking.append(ref)
                try:
                    inner = self.lookup(node["$ref"], here)
                finally:
                    self._walking.pop()
                node, here, at = inner.contents, inner.uri, inner.pointer
                continue
            token = tokens[i]
            if isinstance(node, dict) and token in node:
                node = node[token]
            elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            else:
                file = self.documents[uri].file
                raise RefError(f"$ref {ref!r} points to nothing: {file} has no {pointer}", codes.REF_MISSING)
            at = join_pointer(at, token)
            i += 1
        return Target(node, self.documents[here], at, here)

    def _check_allowed(self, uri: str, ref: str) -> None:
        parsed = urlparse(uri)
        if parsed.scheme != "file" or parsed.netloc not in ("", "localhost"):
            raise RefError(
                f"$ref {ref!r} is remote; only local and relative-file references are followed",
                codes.REF_REMOTE,
            )
        path = Path(unquote(parsed.path)).resolve()
        if not path.is_relative_to(self.root):
            raise RefError(f"$ref {ref!r} leaves the specs folder", codes.REF_ESCAPE)

    def _retrieve(self, uri: str) -> referencing.Resource[Any]:
        self._check_allowed(uri, uri)
        path = Path(unquote(urlparse(uri).path))
        rel = path.resolve().relative_to(self.root).as_posix()
        try:
            text = read_regular(path).decode("utf-8")
        except FileNotFoundError:
            raise RefError(f"referenced file {rel} does not exist", codes.REF_MISSING) from None
        except NotRegularFileError as exc:
            raise RefError(f"referenced file {rel} is not read: {exc}", codes.SOURCE_NOT_REGULAR) from None
        except (OSError, UnicodeDecodeError) as exc:
            raise RefError(f"cannot read {rel}: {exc}", codes.REF_UNREADABLE) from None
        try:
            document = parse_document(text, rel, self.diagnostics)
        except DocumentError as exc:
            raise RefError(f"cannot parse {rel}:{exc.line}: {exc}", codes.REF_UNREADABLE) from None
        self.documents[uri] = document
        resource = DRAFT202012.create_resource(document.data)
        # Cache it: the next lookup then parses the file only once.
        self.registry = self.registry.with_resource(uri, resource)
        return resource


def _ref_error_cause(exc: BaseException) -> RefError | None:
    """The :class:`RefError` raised by ``_retrieve`` under a ``referencing`` exception, if any."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        if isinstance(current, RefError):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
