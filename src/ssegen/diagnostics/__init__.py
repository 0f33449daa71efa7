"""Diagnostics as data: what a loader or emitter noticed, and where.

Shaped after @asyncapi/parser-js diagnostics (``code``, ``severity``, ``message``,
``path``, ``range``): a diagnostic names a stable ``code``, a severity, the source
``file`` (relative to the specs folder, POSIX separators), a 1-based ``line``
(0 when unknown) and a JSON ``pointer`` into the source document ("" for the root).

A warning still produces output; an error stops the piece of work it concerns
(one document, one provider) while the rest goes on.  Every code, with its severity
and meaning, is in the catalogue :mod:`ssegen.diagnostics.codes`; reporters pass a
:class:`~ssegen.diagnostics.codes.Code`, never a string.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Protocol

from .codes import Code, Severity

__all__ = ["Code", "Diagnostic", "Diagnostics", "Place", "Policy", "Severity", "to_json"]


class Place(Protocol):
    """Where something is: a file, a 1-based line (0 unknown) and a JSON pointer."""

    @property
    def file(self) -> str: ...

    @property
    def line(self) -> int: ...

    @property
    def pointer(self) -> str: ...


@dataclass(frozen=True, order=True)
class Diagnostic:
    """One finding about a source, with its place.

    Attributes:
        file: source path relative to the specs folder ("" when not tied to a file).
        line: 1-based line in ``file``; 0 when unknown.
        pointer: RFC 6901 JSON pointer into the source document ("" = root).
        code: stable kebab-case identifier, e.g. ``nullable-keyword``.
        severity: :class:`Severity`.
        message: one human sentence.
        column: 1-based column of the problem in ``line``; 0 when unknown (a YAML syntax
            error knows it, most findings are about a whole value).
    """

    file: str
    line: int
    pointer: str
    code: str
    severity: Severity
    message: str
    column: int = 0

    def format(self) -> str:
        """Render as ``file:line: pointer: severity[code]: message`` (editor-clickable;
        ``file:line:column:`` when the column is known, ``file:`` alone when the line is not).

        Control characters from a spec (ESC, BEL, CR, LF, C1 controls, bidirectional overrides)
        are shown escaped (``\\x1b``, ``\\n``, ``\\u202e``), so a property name cannot move the
        cursor, recolour the terminal or forge another diagnostic line.
        """
        file = escape_controls(self.file)
        where = (f"{file}:{self.position}" if self.line else file) if self.file else "<ssegen>"
        pointer = escape_controls(self.pointer) or "/"
        return f"{where}: {pointer}: {self.severity.value}[{self.code}]: {escape_controls(self.message)}"

    @property
    def position(self) -> str:
        """``line`` or ``line:column`` (1-based) as editors read them after ``file:``; "0" unknown."""
        return f"{self.line}:{self.column}" if self.column else str(self.line)

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping with keys code, severity, message, file, line, pointer (and column
        when it is known)."""
        data = asdict(self)
        data["severity"] = self.severity.value
        keys = ("code", "severity", "message", "file", "line", "pointer", *(("column",) if self.column else ()))
        return {k: data[k] for k in keys}


@dataclass
class Diagnostics:
    """An ordered, de-duplicated collector of :class:`Diagnostic` records.

    Adding is O(1): a set of the records kept beside ``items`` tells a repeat apart
    (a document with thousands of messages reports thousands of diagnostics).
    """

    items: list[Diagnostic] = field(default_factory=list)
    _seen: set[Diagnostic] = field(default_factory=set, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        kept: list[Diagnostic] = []
        for diag in self.items:
            if diag not in self._seen:
                self._seen.add(diag)
                kept.append(diag)
        self.items = kept

    def add(
        self, code: Code, message: str, *, file: str = "", line: int = 0, pointer: str = "", column: int = 0
    ) -> Diagnostic:
        """Record a diagnostic of ``code`` (its severity is the catalogue's; an identical one is kept once).

        Args:
            code: an entry of :mod:`ssegen.diagnostics.codes`.
            message: one human sentence about this occurrence.
            file, line, pointer, column: the place (see :class:`Diagnostic`).
        """
        diag = Diagnostic(file, line, pointer, code.name, code.severity, message, column)
        self._keep(diag)
        return diag

    def at(self, place: Place, code: Code, message: str) -> Diagnostic:
        """Record a diagnostic of ``code`` at ``place`` (anything with ``file``, ``line`` and
        ``pointer``, e.g. an IR :class:`~ssegen.ir.Provenance`)."""
        return self.add(code, message, file=place.file, line=place.line, pointer=place.pointer)

    def extend(self, other: Iterable[Diagnostic]) -> None:
        """Append every diagnostic of ``other`` not already recorded."""
        for diag in other:
            self._keep(diag)

    def _keep(self, diag: Diagnostic) -> None:
        if diag not in self._seen:
            self._seen.add(diag)
            self.items.append(diag)

    def __iter__(self) -> Iterator[Diagnostic]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)

    @property
    def has_errors(self) -> bool:
        """True when any diagnostic has severity ``error``."""
        return any(d.severity is Severity.ERROR for d in self.items)

    def sorted(self) -> list[Diagnostic]:
        """Diagnostics in a stable order (file, line, pointer, code): deterministic output."""
        return sorted(self.items)


@dataclass(frozen=True)
class Policy:
    """A project's review of the catalogue: codes to drop and codes to report at another severity.

    Set in ``[tool.ssegen]`` (``ignore = [...]``, ``severity = {code = "info"}``) and applied to
    every provider's diagnostics before ``--strict`` and the error check, so a reviewed wart
    neither fails a strict build nor fills the output. Errors cannot be ignored or lowered
    (the work they concern could not be done); :func:`ssegen.config.load_config` refuses that.

    Attributes:
        ignore: code names whose diagnostics are dropped.
        severity: code name -> the severity to report it at.
    """

    ignore: frozenset[str] = frozenset()
    severity: Mapping[str, Severity] = field(default_factory=dict)

    def apply(self, diagnostics: Diagnostics) -> Diagnostics:
        """A new collector with ``diagnostics`` reviewed (the input is unchanged)."""
        if not self.ignore and not self.severity:
            return diagnostics
        return Diagnostics(
            [
                replace(d, severity=self.severity.get(d.code, d.severity))
                for d in diagnostics
                if d.code not in self.ignore
            ]
        )


def to_json(diagnostics: Iterable[Diagnostic]) -> str:
    """Serialize diagnostics as a JSON array (stable key order, 2-space indent).

    The values are exact; JSON escapes C0 controls itself, and C1 controls and bidirectional
    overrides (which ``ensure_ascii=False`` would print raw, and some terminals obey) are
    written as ``\\u`` escapes too.
    """
    return json_text([d.to_dict() for d in diagnostics])


def json_text(data: object, *, indent: int | None = 2, sort_keys: bool = False) -> str:
    """``data`` as JSON text safe to print: non-ASCII text kept as it is (``ensure_ascii=False``),
    but C1 controls and bidirectional formatting characters written as ``\\u`` escapes, as JSON
    writes C0 controls itself (every machine format ssegen prints: ``--format json``, SARIF,
    ``conform --json``)."""
    text = json.dumps(data, indent=indent, ensure_ascii=False, sort_keys=sort_keys)
    return _RAW_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


#: What :func:`escape_controls` escapes: C0 and C1 controls, DEL, and the bidirectional
#: formatting characters (Trojan Source: U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C).
_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_RAW_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_controls(text: str) -> str:
    """``text`` with every control or bidirectional formatting character written as an escape
    (``\\n``, ``\\x1b``, ``\\u202e``): safe to print on a terminal, one line."""
    if text.isprintable():
        return text
    return _CONTROLS.sub(lambda m: _NAMED.get(m.group()) or repr(m.group())[1:-1], text)
