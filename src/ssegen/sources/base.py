"""What every source loader is given and what it gives back (the loader contract).

A loader reads one file of a provider folder into a :class:`SourceResult`: IR parts
(channels, servers, error codes, example streams) plus, for a flattened docs page,
field facts that :mod:`ssegen.normalize.docs` matches to the schema after the merge.
Loaders never raise for bad input: what they notice goes to the diagnostics, with
the file, line and JSON pointer.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostics, codes
from ..ir import Channel, ErrorCode, ExampleStream, Framing, Message, Server
from .document import Document, DocumentError, parse_document
from .refs import RefResolver

if TYPE_CHECKING:
    from .pages.docs_text import DocsResult

#: Media types of newline-delimited JSON bodies (one JSON value per line): NDJSON
#: (github.com/ndjson/ndjson-spec), JSON Lines (jsonlines.org) and the names documents use
#: for them; OpenAPI 3.2 lists ``application/jsonl`` and ``application/x-ndjson`` among its
#: "Sequential Media Types". JSON text sequences (``application/json-seq``, RFC 7464) are
#: delimited otherwise and not read.
NDJSON_MEDIA_TYPES = frozenset(
    {
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonl",
        "application/jsonlines",
        "application/x-jsonlines",
        "application/json-lines",
    }
)


def framing_of(media_type: str) -> Framing | None:
    """The framing a media type names (parameters and case ignored): ``sse`` for
    ``text/event-stream``, ``ndjson`` for :data:`NDJSON_MEDIA_TYPES`, else None."""
    base = media_type.split(";", 1)[0].strip().lower()
    if base == "text/event-stream":
        return "sse"
    return "ndjson" if base in NDJSON_MEDIA_TYPES else None


@dataclass(frozen=True)
class SourceInput:
    """One source file, as detected.

    Attributes:
        path: the file on disk.
        file: its path relative to the specs folder (POSIX separators), used in provenance.
        text: the whole file, decoded as UTF-8.
        document: the part of ``text`` that holds the document (after a scraped page's
            preamble for ``asyncapi-page``; else ``text``).
        line_offset: lines of ``text`` before ``document`` (so provenance lines stay 1-based
            lines of the file).
        resolver: the provider's ``$ref`` resolver, shared by every source of the folder.
    """

    path: Path
    file: str
    text: str
    document: str
    line_offset: int
    resolver: RefResolver


@dataclass(frozen=True)
class SourceResult:
    """What one source contributes to a provider, before the merge steps.

    Attributes:
        file: the source's path relative to the specs folder.
        title, version, description: the API's own words ("" when the source has none);
            the first source in path order that states one wins.
        channels: channels with their server-sent messages, in source order.
        servers: declared servers.
        error_codes: documented error codes.
        example_streams: example streams in wire form (IR), in source order.
        docs: field facts of a flattened docs page, reconciled after the merge
            (None for every other format).
        protocols: transport protocols other than SSE over HTTP it declares
            (servers' ``protocol``, ``bindings`` keys), in source order.
        why_empty: when the source yields no channel, why (its operations are all
            requests, it has no channels, ...), for ``provider-empty`` to say.
    """

    file: str
    title: str = ""
    version: str = ""
    description: str = ""
    channels: tuple[Channel, ...] = ()
    servers: tuple[Server, ...] = ()
    error_codes: tuple[ErrorCode, ...] = ()
    example_streams: tuple[ExampleStream, ...] = ()
    docs: DocsResult | None = None
    protocols: tuple[str, ...] = ()
    why_empty: str = ""


def parse_registered(source: SourceInput, diagnostics: Diagnostics) -> tuple[Document, str] | None:
    """``(document, base URI)`` of a YAML/JSON source, registered with the provider's ``$ref``
    resolver so other documents can refer to it; None when the text is not a readable document
    (the ``DocumentError``'s code, e.g. ``yaml-syntax``, is reported at its line)."""
    try:
        document = parse_document(source.document, source.file, diagnostics, line_offset=source.line_offset)
    except DocumentError as exc:
        diagnostics.add(exc.code, str(exc), file=source.file, line=exc.line, column=exc.column)
        return None
    return document, source.resolver.add(document, source.path)


def unique_messages(
    old: tuple[Message, ...] | list[Message], new: list[Message], diagnostics: Diagnostics
) -> tuple[Message, ...]:
    """``old`` then ``new`` without repeats; a different message with a taken name (``delta-event``
    and ``DeltaEvent`` both named ``DeltaEvent``) is renamed with a number
    (``message-name-collision``), never dropped nor merged into the other's decoder."""
    result = list(old)
    for message in new:
        if message in result:
            continue
        taken = {m.name for m in result}
        if message.name in taken:
            renamed = next(f"{message.name}{n}" for n in range(2, len(result) + 3) if f"{message.name}{n}" not in taken)
            diagnostics.at(
                message.provenance,
                codes.MESSAGE_NAME_COLLISION,
                f"another message of this channel is named {message.name!r}; this one is {renamed!r}",
            )
            message = replace(message, name=renamed)
        result.append(message)
    return tuple(result)
