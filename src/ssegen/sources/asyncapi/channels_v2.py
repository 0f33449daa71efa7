"""AsyncAPI 2.x channels: the ``subscribe`` operation of each channel item holds what the
application sends (AsyncAPI 2.6 "Channel Item Object"); ``publish`` is a request, skipped."""

from __future__ import annotations

from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Channel
from ..base import unique_messages
from ..location import Location
from .common import diag, extensions, skip_request, text
from .messages import MessageReader


def channels_v2(
    data: dict[str, Any], root: Location, reader: MessageReader, diagnostics: Diagnostics, skipped: list[str]
) -> list[Channel]:
    """Channels of a 2.x document with a ``subscribe`` operation, each with the messages of its
    ``message`` (one, or ``oneOf``); a ``publish`` operation is a request, reported and appended
    to ``skipped``. No ``channels`` mapping is ``channels-missing``."""
    channels = data.get("channels")
    if not isinstance(channels, dict):
        diag(diagnostics, root.child("channels"), codes.CHANNELS_MISSING, "document has no `channels` mapping")
        return []
    result = []
    for address, item in channels.items():
        cloc = root.child("channels", address)
        if not isinstance(item, dict):
            diag(diagnostics, cloc, codes.CHANNEL_INVALID, "channel item must be a mapping")
            continue
        publish = item.get("publish")
        if isinstance(publish, dict):
            # What the client publishes (the application receives): a request, nothing to decode.
            op_id = text(publish.get("operationId"))
            skip_request(
                diagnostics,
                cloc.child("publish"),
                f"publish operation {('`' + op_id + '` ') if op_id else ''}on `{address}`",
                skipped,
            )
        operation = item.get("subscribe")
        if not isinstance(operation, dict):
            continue
        oloc = cloc.child("subscribe")
        fallback = text(operation.get("operationId")) or f"{address} message"
        messages = reader.read_operation_messages(operation.get("message"), oloc.child("message"), fallback)
        result.append(
            Channel(
                address=address,
                messages=unique_messages((), messages, diagnostics),
                provenance=cloc.provenance,
                operation_id=text(operation.get("operationId")),
                summary=text(operation.get("summary")),
                description=text(item.get("description")),
                extensions=extensions(item),
            )
        )
    return result
