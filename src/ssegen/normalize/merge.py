"""Merge the sources of one provider folder into one IR :class:`Provider` (the first merge step).

Channels from every source are combined by address, and their messages by name: the
first source in path order wins a conflict, with a ``message-conflict`` warning naming
both places. Two addresses are one endpoint when they name the same URL path once each
source's server base path is put in front (Mistral's AsyncAPI page: server
``https://api.mistral.ai/v1`` + ``/chat/completions``; its OpenAPI document: server
``https://api.mistral.ai`` + ``/v1/chat/completions``): the channel keeps the first
source's address, and ``channel-address-merged`` (info) names both places. The API's
title, version and description come from the first source that states them; servers and
error codes are kept in source order; example streams keep unique names (a repeated name
gets its source file's stem as a prefix).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from ..diagnostics import Diagnostics, codes
from ..ir import Channel, ExampleStream, Provider
from ..sources.base import SourceResult
from .request import merge_requests


def merge_sources(name: str, results: Sequence[SourceResult], diagnostics: Diagnostics) -> Provider | None:
    """One provider from its sources' results, in path order; None when no source has a channel.

    Args:
        name: the provider (folder) name.
        results: every usable source of the folder, in path order.
        diagnostics: receives ``message-conflict`` warnings.
    """
    channels = _merged_channels(results, diagnostics)
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


def _merged_channels(results: Sequence[SourceResult], diagnostics: Diagnostics) -> dict[str, Channel]:
    """Every source's channels by the address each is kept under, merged (:func:`_merge_channel`):
    a channel whose URL path, with its source's server base paths in front, is already an
    endpoint is merged under that endpoint's address (:func:`_endpoint`)."""
    channels: dict[str, Channel] = {}
    endpoints: dict[str, str] = {}  # full URL path -> the address its channel is kept under
    for result in results:
        bases = _base_paths(result)
        for channel in result.channels:
            paths = [base + channel.address for base in bases]
            address = channel.address
            if address not in channels:
                address = _endpoint(channel, paths, channels, endpoints, diagnostics)
            channels[address] = _merge_channel(channels.get(address), replace(channel, address=address), diagnostics)
            for path in paths:
                endpoints.setdefault(path, address)
    return channels


def _endpoint(
    channel: Channel,
    paths: list[str],
    channels: dict[str, Channel],
    endpoints: dict[str, str],
    diagnostics: Diagnostics,
) -> str:
    """The address ``channel`` is kept under: that of the first endpoint among its full URL
    ``paths`` already known, with ``channel-address-merged`` (info), else its own."""
    known = next((endpoints[p] for p in paths if p in endpoints), None)
    if known is None:
        return channel.address
    diagnostics.at(
        channel.provenance,
        codes.CHANNEL_ADDRESS_MERGED,
        f"channel {channel.address} is the endpoint of channel {known} "
        f"({channels[known].provenance.file}:{channels[known].provenance.line}) once each "
        f"source's server path is put in front ({paths[0]}); merged under {known}",
    )
    return known


def _base_paths(result: SourceResult) -> list[str]:
    """The URL paths a source's channel addresses are relative to: each server's path
    without its trailing slash (``/v1`` for ``https://api.mistral.ai/v1``), ``""`` first
    and always (no server, or a server at the root)."""
    bases = [""]
    for server in result.servers:
        path = urlsplit(server.url if "//" in server.url else "//" + server.url).path.rstrip("/")
        if path and path not in bases and "{" not in path:
            bases.append(path)
    return bases


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
    """Combine two sources' views of one channel: messages by name, first wins (its framing too);
    their requests fact by fact (:func:`~ssegen.normalize.request.merge_requests`); the media
    types of both, the first's first."""
    if old is None:
        return new
    if new.framing != old.framing:
        diagnostics.at(
            new.provenance,
            codes.FRAMING_CONFLICT,
            f"{new.address} is framed as {new.framing} here but as {old.framing} in {old.provenance.file}; "
            f"{old.framing} is kept",
        )
    names = {m.name for m in old.messages}
    added = tuple(m for m in new.messages if m.name not in names)
    for message in new.messages:
        known = old.message(message.name)
        if known is not None and message.literal is not None and known.literal == message.literal:
            continue  # one terminator (`[DONE]`) stated by both sources: nothing conflicts
        if message.name in names and known != message:
            diagnostics.at(
                message.provenance,
                codes.MESSAGE_CONFLICT,
                f"message {message.name!r} on {new.address} is also defined in {old.provenance.file}; "
                "the first definition is kept",
            )
    media_types = old.media_types + tuple(m for m in new.media_types if m not in old.media_types)
    return replace(
        old,
        messages=old.messages + added,
        media_types=media_types,
        extensions={**new.extensions, **old.extensions},
        request=merge_requests(old.request, new.request, diagnostics),
    )
