"""Where a fact of the IR comes from: every node of the model carries a :class:`Provenance`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Provenance:
    """Where a fact comes from.

    Attributes:
        file: source path relative to the specs folder, POSIX separators.
        line: 1-based line in ``file`` (0 when the format has no lines).
        pointer: RFC 6901 JSON pointer into the source document ("" = root).
    """

    file: str
    line: int = 0
    pointer: str = ""
