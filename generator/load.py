"""Load a provider folder (``specs/<provider>/``) into one IR :class:`Provider`.

A provider is a folder; every file in it is a source.  Each source is detected
by content (:func:`generator.sources.detect`), read by its loader into IR parts,
and the parts are merged: channels by address, messages by name.  A source that
cannot be read gives an error diagnostic naming it, and the other sources of the
provider are still used.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

from .diagnostics import Diagnostics, Severity
from .ir import Channel, Provider, Server
from .sources import detect
from .sources.asyncapi import load_asyncapi
from .sources.document import DocumentError, parse_document
from .sources.refs import RefResolver

#: File names in a provider folder that are never sources.
IGNORED_NAMES = frozenset({".DS_Store", "README.md", "provider.yaml"})


@dataclass
class LoadResult:
    """A provider's IR and what was noticed while building it.

    Attributes:
        provider: the merged IR (None when no source could be read).
        diagnostics: every diagnostic, in discovery order.
    """

    provider: Provider | None
    diagnostics: Diagnostics = field(default_factory=Diagnostics)


def provider_names(specs: Path) -> list[str]:
    """Provider folder names under ``specs``, sorted (hidden folders skipped)."""
    if not specs.is_dir():
        return []
    return sorted(p.name for p in specs.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def source_files(folder: Path) -> list[Path]:
    """The source files of a provider folder, sorted by relative path.

    Files under subfolders count too (a spec split across files keeps its parts
    in ``schemas/``); a part that is not itself a document is used only
    through ``$ref``.
    """
    files = [
        p
        for p in folder.rglob("*")
        if p.is_file() and p.name not in IGNORED_NAMES and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    ]
    return sorted(files, key=lambda p: p.relative_to(folder).as_posix())


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
    title = version = description = ""
    channels: dict[str, Channel] = {}
    servers: list[Server] = []
    used: list[str] = []
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
                diagnostics.add("source-unknown-format", Severity.WARNING, "not a recognized source format; skipped", file=rel)
            continue
        try:
            document = parse_document(detected.text, rel, diagnostics, line_offset=detected.line_offset)
        except DocumentError as exc:
            diagnostics.add(exc.code, Severity.ERROR, str(exc), file=rel, line=exc.line)
            continue
        uri = resolver.add(document, path)
        result = load_asyncapi(document, uri, resolver, diagnostics)
        if result is None:
            continue
        used.append(rel)
        title = title or result.title
        version = version or result.version
        description = description or result.description
        servers.extend(result.servers)
        for channel in result.channels:
            channels[channel.address] = _merge_channel(channels.get(channel.address), channel, diagnostics)
    if not used:
        if not any(d.severity is Severity.ERROR for d in diagnostics):
            diagnostics.add("provider-empty", Severity.ERROR, f"provider folder {name!r} has no readable source", file=f"{name}/")
        return LoadResult(None, diagnostics)
    provider = Provider(
        name=name,
        channels=tuple(channels[a] for a in sorted(channels)),
        sources=tuple(used),
        title=title,
        version=version,
        description=description,
        servers=tuple(servers),
    )
    return LoadResult(provider, diagnostics)


def _merge_channel(old: Channel | None, new: Channel, diagnostics: Diagnostics) -> Channel:
    """Combine two sources' views of one channel: messages by name, first wins."""
    if old is None:
        return new
    names = {m.name for m in old.messages}
    added = tuple(m for m in new.messages if m.name not in names)
    for message in new.messages:
        if message.name in names and old.message(message.name) != message:
            prov = message.provenance
            diagnostics.add(
                "message-conflict",
                Severity.WARNING,
                f"message {message.name!r} on {new.address} is also defined in {old.provenance.file}; the first definition is kept",
                file=prov.file,
                line=prov.line,
                pointer=prov.pointer,
            )
    return replace(old, messages=old.messages + added)
