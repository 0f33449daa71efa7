"""Load a provider folder (``specs/<provider>/``) into one IR :class:`Provider`.

A provider is a folder; every file in it is a source.  Each source is detected
by content (:func:`ssegen.sources.detect`) and read by the loader of its
format into IR parts; then the merge steps run, in this order:

1. channels from every source are combined by address, messages by name (the
   first source, in path order, wins a conflict, with a diagnostic);
2. facts of a flattened docs page (seed 001) are matched to the schema fields
   they describe and reconciled (:func:`ssegen.merge_docs.merge_docs`);
3. schemas are widened where the provider's own examples contradict them
   (:func:`ssegen.reconcile.reconcile_examples`).

A source that cannot be read gives an error diagnostic naming it, and the other
sources of the provider are still used.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .diagnostics import Diagnostics, Severity
from .discover import source_files
from .ir import Channel, ErrorCode, ExampleStream, Provider, Server
from .merge_docs import merge_docs
from .reconcile import reconcile_examples
from .sources import detect
from .sources.asyncapi import load_asyncapi
from .sources.docs_text import DocsResult, load_docs_text
from .sources.document import DocumentError, parse_document
from .sources.pages.html import load_html_page
from .sources.pages.markdown import load_markdown_page
from .sources.pages.messages import PageResult
from .sources.refs import RefResolver

@dataclass
class LoadResult:
    """A provider's IR and what was noticed while building it.

    Attributes:
        provider: the merged IR (None when no source could be read).
        diagnostics: every diagnostic, in discovery order.
        inputs: every file read, relative to the specs folder, sorted: the
            provider folder's files and files outside it reached by ``$ref``.
    """

    provider: Provider | None
    diagnostics: Diagnostics = field(default_factory=Diagnostics)
    inputs: tuple[str, ...] = ()


@dataclass
class _Parts:
    """IR parts gathered from a provider's sources before merging."""

    title: str = ""
    version: str = ""
    description: str = ""
    channels: dict[str, Channel] = field(default_factory=dict)
    servers: list[Server] = field(default_factory=list)
    error_codes: list[ErrorCode] = field(default_factory=list)
    streams: list[ExampleStream] = field(default_factory=list)
    docs: list[DocsResult] = field(default_factory=list)
    used: list[str] = field(default_factory=list)

    def add_channel(self, channel: Channel, diagnostics: Diagnostics) -> None:
        self.channels[channel.address] = _merge_channel(self.channels.get(channel.address), channel, diagnostics)


def load_provider(specs: Path, name: str) -> LoadResult:
    """Read ``specs/<name>/`` into a :class:`Provider`.

    Args:
        specs: the specs folder (provenance paths are relative to it).
        name: the provider folder name.

    Returns:
        A :class:`LoadResult`; never raises for bad input (errors are diagnostics).
    """
    diagnostics = Diagnostics()
    folder = specs / name
    resolver = RefResolver(specs, diagnostics)
    parts = _Parts()
    unknown: list[tuple[Path, str]] = []
    for path in source_files(folder):
        rel = path.relative_to(specs).as_posix()
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            diagnostics.add("source-unreadable", Severity.ERROR, f"cannot read source: {exc}", file=rel)
            continue
        detected = detect(text)
        if detected is None:
            if path.parent == folder:
                unknown.append((path, rel))
            continue
        if detected.format in ("asyncapi", "asyncapi-page"):
            _load_asyncapi_source(path, rel, detected.text, detected.line_offset, resolver, parts, diagnostics)
        elif detected.format in ("html-tables", "markdown-tables"):
            loader = load_html_page if detected.format == "html-tables" else load_markdown_page
            _add_page(loader(text, rel, diagnostics), rel, parts, diagnostics)
        else:
            parts.docs.append(load_docs_text(text, rel, diagnostics))
            parts.used.append(rel)
    for path, rel in unknown:
        # A part of a split spec (messages.yaml) is read through $ref, not as a source.
        if resolver.uri_for(path) not in resolver.documents:
            diagnostics.add("source-unknown-format", Severity.WARNING, "not a recognized source format; skipped", file=rel)
    if not parts.channels:
        if not diagnostics.has_errors:
            diagnostics.add("provider-empty", Severity.ERROR, f"provider folder {name!r} has no source that describes a stream", file=f"{name}/")
        return LoadResult(None, diagnostics, _inputs(specs, folder, resolver))
    provider = Provider(
        name=name,
        channels=tuple(parts.channels[a] for a in sorted(parts.channels)),
        sources=tuple(parts.used),
        title=parts.title,
        version=parts.version,
        description=parts.description,
        servers=tuple(parts.servers),
        error_codes=tuple(parts.error_codes),
        example_streams=tuple(_unique_streams(parts.streams)),
    )
    for docs in parts.docs:
        provider = merge_docs(provider, docs, diagnostics)
        streams = [s.to_ir(docs.address or "/chat/completions") for s in docs.example_streams]
        provider = replace(provider, example_streams=tuple(_unique_streams(list(provider.example_streams) + streams)))
    provider = reconcile_examples(provider, diagnostics)
    return LoadResult(provider, diagnostics, _inputs(specs, folder, resolver))


def _inputs(specs: Path, folder: Path, resolver: RefResolver) -> tuple[str, ...]:
    files = {p.relative_to(specs).as_posix() for p in source_files(folder)}
    files.update(doc.file for doc in resolver.documents.values())
    return tuple(sorted(files))


def _load_asyncapi_source(
    path: Path, rel: str, text: str, line_offset: int, resolver: RefResolver, parts: _Parts, diagnostics: Diagnostics
) -> None:
    try:
        document = parse_document(text, rel, diagnostics, line_offset=line_offset)
    except DocumentError as exc:
        diagnostics.add(exc.code, Severity.ERROR, str(exc), file=rel, line=exc.line)
        return
    uri = resolver.add(document, path)
    result = load_asyncapi(document, uri, resolver, diagnostics)
    if result is None:
        return
    parts.used.append(rel)
    parts.title = parts.title or result.title
    parts.version = parts.version or result.version
    parts.description = parts.description or result.description
    parts.servers.extend(result.servers)
    for channel in result.channels:
        parts.add_channel(channel, diagnostics)


def _add_page(page: PageResult, rel: str, parts: _Parts, diagnostics: Diagnostics) -> None:
    if page.channel is None:
        diagnostics.add("page-no-stream", Severity.WARNING, "the page describes no stream; only its examples and error codes are used", file=rel)
    else:
        parts.add_channel(page.channel, diagnostics)
    parts.used.append(rel)
    parts.title = parts.title or page.title
    parts.error_codes.extend(page.error_codes)
    address = page.channel.address if page.channel is not None else "/chat/completions"
    parts.streams.extend(stream.to_ir(address) for stream in page.example_streams)


def _unique_streams(streams: list[ExampleStream]) -> list[ExampleStream]:
    """Streams with unique names: a repeated name gets its source file's stem as a prefix."""
    seen: set[str] = set()
    result = []
    for stream in streams:
        name = stream.name
        if name in seen:
            name = f"{Path(stream.provenance.file).stem}-{name}"
        seen.add(name)
        result.append(replace(stream, name=name))
    return result


def _merge_channel(old: Channel | None, new: Channel, diagnostics: Diagnostics) -> Channel:
    """Combine two sources' views of one channel: messages by name, first wins."""
    if old is None:
        return new
    names = {m.name for m in old.messages}
    added = tuple(m for m in new.messages if m.name not in names)
    for message in new.messages:
        if message.name in names and old.message(message.name) != message:
            prov = message.provenance
            diagnostics.at(
                prov,
                "message-conflict",
                Severity.WARNING,
                f"message {message.name!r} on {new.address} is also defined in {old.provenance.file}; the first definition is kept",
            )
    return replace(old, messages=old.messages + added)
