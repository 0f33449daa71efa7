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

from ..diagnostics import Diagnostics
from .document import Document, DocumentError, parse_document


class RefError(Exception):
    """A ``$ref`` that cannot be followed.

    Attributes:
        code: diagnostic code: ``ref-missing``, ``ref-remote``, ``ref-escape``,
            ``ref-unreadable``.
    """

    def __init__(self, message: str, code: str) -> None:
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

        Raises:
            RefError: remote or escaping reference, unreadable file, or a
                pointer that names nothing.
        """
        absolute = urljoin(base_uri, ref)
        uri, fragment = urldefrag(absolute)
        self._check_allowed(uri, ref)
        resolver = self.registry.resolver(base_uri=base_uri)
        try:
            resolved = resolver.lookup(ref)
        except referencing.exceptions.Unresolvable as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, RefError) else None
            if cause is not None:
                raise cause from None
            raise RefError(f"$ref {ref!r} points to nothing", "ref-missing") from None
        pointer = unquote(fragment)
        if pointer and not pointer.startswith("/"):
            raise RefError(f"$ref {ref!r}: only JSON pointer fragments are supported", "ref-missing")
        document = self.documents[uri]
        return Target(resolved.contents, document, pointer, uri)

    def _check_allowed(self, uri: str, ref: str) -> None:
        parsed = urlparse(uri)
        if parsed.scheme != "file":
            raise RefError(
                f"$ref {ref!r} is remote; only local and relative-file references are followed",
                "ref-remote",
            )
        path = Path(unquote(parsed.path)).resolve()
        if not path.is_relative_to(self.root):
            raise RefError(f"$ref {ref!r} leaves the specs folder", "ref-escape")

    def _retrieve(self, uri: str) -> referencing.Resource[Any]:
        self._check_allowed(uri, uri)
        path = Path(unquote(urlparse(uri).path))
        rel = path.resolve().relative_to(self.root).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
            document = parse_document(text, rel, self.diagnostics)
        except (OSError, UnicodeDecodeError) as exc:
            raise RefError(f"cannot read {rel}: {exc}", "ref-unreadable") from None
        except DocumentError as exc:
            raise RefError(f"cannot parse {rel}:{exc.line}: {exc}", "ref-unreadable") from None
        self.documents[uri] = document
        resource = DRAFT202012.create_resource(document.data)
        # Cache it: the next lookup then parses the file only once.
        self.registry = self.registry.with_resource(uri, resource)
        return resource
