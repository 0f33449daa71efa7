"""Where a schema object sits in a source document, for provenance and ``$ref`` resolution."""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Provenance
from .document import Document, join_pointer


@dataclass(frozen=True)
class Location:
    """Where a schema object sits: its document, JSON pointer and base URI."""

    document: Document
    pointer: str
    uri: str

    def child(self, *tokens: str | int) -> Location:
        """The location of a member of this schema object."""
        return Location(self.document, join_pointer(self.pointer, *tokens), self.uri)

    @property
    def provenance(self) -> Provenance:
        """File, line and pointer of this location."""
        return Provenance(self.document.file, self.document.line(self.pointer), self.pointer)
