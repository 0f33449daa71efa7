"""Merge the sources of one provider folder into one IR :class:`Provider` (the first merge step).

Channels from every source are combined by address, and their messages by name: the
first source in path order wins a conflict, with a ``message-conflict`` warning naming
both places. The API's title, version and description come from the first source that
states them; servers and error codes are kept in source order; example streams keep
unique names (a repeated name gets its source file's stem as a prefix).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from ..diagnostics import Diagnostics, codes
from ..ir import Channel, ExampleStream, Provider
from ..sources.base import SourceResult


def merge_sources(name: str, results: Sequence[SourceResult], diagnostics: Diagnostics) -> Provider | None:
    """One provider from its sources' results, in path order; None when no source has a channel.

    Args:
        name: the provider (folder) name.
        results: every usable source of the folder, in path order.
        diagnostics: receives ``message-conflict`` warnings.
    """
    channels: dict[str, Channel] = {}
    for result in results:
        for channel in result.channels:
            channels[channel.address] = _merge_channel(channels.get(channel.address), channel, diagnostics)
    if not channels:
        return None
    return Provider(
        name=name,
        channels=tuple(channels[address] for address in sorted(channels)),
        sources=tuple(result.file for result in results),
        title=_first(result.title for result in results),
        version=_first(result.version for result in results),
        description=_first(result.description for result in results),
        servers=tuple(server for result in results for server in result.servers),
        error_codes=tuple(code for result in results for code in result.error_codes),
        example_streams=unique_streams(stream for result in results for stream in result.example_streams),
        protocols=tuple(sorted({p for result in results for p in result.protocols})),
    )


def unique_streams(streams: Iterable[ExampleStream]) -> tuple[ExampleStream, ...]:
    """``streams`` with unique names: a repeated name gets its source file's stem as a prefix."""
    seen: set[str] = set()
    result = []
    for stream in streams:
        name = stream.name
        if name in seen:
            name = f"{PurePosixPath(stream.provenance.file).stem}-{name}"
        seen.add(name)
        result.append(replace(stream, name=name))
    return tuple(result)


def _first(values: Iterable[str]) -> str:
    return next((value for value in values if value), "")


def _merge_channel(old: Channel | None, new: Channel, diagnostics: Diagnostics) -> Channel:
    """Combine two sources' views of one channel: messages by name, first wins."""
    if old is None:
        return new
    names = {m.name for m in old.messages}
    added = tuple(m for m in new.messages if m.name not in names)
    for message in new.messages:
        if message.name in names and old.message(message.name) != message:
            diagnostics.at(
                message.provenance,
                codes.MESSAGE_CONFLICT,
                f"message {message.name!r} on {new.address} is also defined in {old.provenance.file}; "
                "the first definition is kept",
            )
    return replace(old, messages=old.messages + added, extensions={**new.extensions, **old.extensions})
