"""AsyncAPI 2.x channels: the ``subscribe`` operation of each channel item holds what the
application sends (AsyncAPI 2.6 "Channel Item Object"); ``publish`` is what the client sends:
the request of the channel's stream (:mod:`.request`), skipped on a channel without a
``subscribe``."""

from __future__ import annotations

from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Channel
from ..base import unique_messages
from ..location import Location
from .common import diag, extensions, skip_request, text
from .messages import MessageReader
from .request import Operation, RequestReader


def channels_v2(
    data: dict[str, Any],
    root: Location,
    reader: MessageReader,
    diagnostics: Diagnostics,
    skipped: list[str],
    requests: RequestReader,
) -> list[Channel]:
    """Channels of a 2.x document with a ``subscribe`` operation, each with the messages of its
    ``message`` (one, or ``oneOf``) and its request (``requests``: the ``publish`` operation's
    message, the HTTP bindings); a ``publish`` operation on a channel without ``subscribe`` is
    reported and appended to ``skipped``. No ``channels`` mapping is ``channels-missing``."""
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
        operation = item.get("subscribe")
        if isinstance(publish, dict) and not isinstance(operation, dict):
            # What the client publishes (the application receives) with no stream to open: skipped.
            op_id = text(publish.get("operationId"))
            skip_request(
                diagnostics,
                cloc.child("publish"),
                f"publish operation {('`' + op_id + '` ') if op_id else ''}on `{address}`",
                skipped,
            )
        if not isinstance(operation, dict):
            continue
        oloc = cloc.child("subscribe")
        fallback = text(operation.get("operationId")) or f"{address} message"
        messages = reader.read_operation_messages(operation.get("message"), oloc.child("message"), fallback)
        ploc = cloc.child("publish")
        request = requests.read(
            address,
            (item, cloc),
            Operation(operation, oloc),
            Operation(publish, ploc) if isinstance(publish, dict) else None,
            (publish["message"], ploc.child("message")) if isinstance(publish, dict) and "message" in publish else None,
        )
        result.append(
            Channel(
                address=address,
                messages=unique_messages((), messages, diagnostics),
                provenance=cloc.provenance,
                operation_id=text(operation.get("operationId")),
                summary=text(operation.get("summary")),
                description=text(item.get("description")),
                extensions=extensions(item),
                request=request,
            )
        )
    return result
