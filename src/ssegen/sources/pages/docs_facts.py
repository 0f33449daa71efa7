"""What a flattened API reference page says about one field (:class:`FieldFact`), read by
:mod:`.docs_text`, matched to schema members by :mod:`ssegen.normalize.docs`, and placed in a
request body by :mod:`.docs_request`."""

from __future__ import annotations

from dataclasses import dataclass

from ...ir import Provenance


@dataclass(frozen=True)
class FieldFact:
    """What the page says about one field.

    Attributes:
        section: ``request`` (before ``Responses``), ``response`` (after "OK,
            returns a chat completion object") or ``stream`` (after "OK, returns
            a streamed sequence of chat completion chunk").
        name: the field name when the page gives it (a name block such as
            ``choices`` / ``object[]`` / ``required``), else "".
        description: the description, its lines joined with one space.
        values: the enum from ``Possible values: [a, b, ...]`` (rejoined
            across lines), in page order; () if none.
        provenance: the page file; the 1-based line of the ``Possible values``
            line when the fact has ``values``, else of the description's first
            line, else of the fact's first line; pointer
            ``/sections/<section>/facts/<k>``.
        type: the type line of a name block (``object``, ``object[]``), else "".
        required: the name block is marked ``required``.
        nullable: the name block is marked ``nullable``.
        constraint: a range from ``Possible values: >= -2`` / ``and <= 2``
            (``">= -2 and <= 2"``); ranges are never ``values``.
        default: the text after ``Default value:``, else "".
    """

    section: str
    name: str
    description: str
    values: tuple[str, ...]
    provenance: Provenance
    type: str = ""
    required: bool = False
    nullable: bool = False
    constraint: str = ""
    default: str = ""


@dataclass(frozen=True)
class FieldUnion:
    """A ``oneOf`` (or ``anyOf``) line of the page and the type lines right below it: the
    alternatives of the named member above it that state their type (``stop`` / ``object`` /
    ``nullable`` / ... / ``oneOf`` / ``string`` / ``string``, ``specs/deepseek/api-docs.txt:80``-82).

    Attributes:
        section: the section it is in (``request``, ``response``, ``stream``).
        line: the 1-based line of the ``oneOf`` line.
        types: ``(line, type line)`` of each alternative stating a type, in page order; () when
            the alternatives start with prose (``messages``: their members have no name).
    """

    section: str
    line: int
    types: tuple[tuple[int, str], ...] = ()
