"""AsyncAPI 3.0 channels: the channels an operation with ``action: send`` uses, or a
``receive`` operation's ``reply`` names (AsyncAPI 3.0 "Operation Object", "Operation Reply
Object"), with the messages the client receives on them and the request that opens the
stream (a ``receive`` operation's message: :mod:`.request`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Channel, Message
from ..base import unique_messages
from ..location import Location
from ..refs import RefError
from .common import diag, extensions, skip_request, text
from .messages import MessageReader
from .request import Operation, RequestReader


def channels_v3(
    data: dict[str, Any],
    root: Location,
    reader: MessageReader,
    diagnostics: Diagnostics,
    skipped: list[str],
    requests: RequestReader,
) -> list[Channel]:
    """Channels of a 3.0 document with the messages the application sends (the client receives).

    A channel is kept when an operation with ``action: send`` uses it (its
    ``messages``, or all the channel's messages when the operation lists none),
    or when an ``action: receive`` operation's ``reply`` names it (the reply's
    messages); with no ``operations`` at all, every channel and all its
    messages.  A ``receive`` operation's messages are the request that opens the
    stream of its ``reply``'s channel, or of its own channel (``requests``); they are
    no message of the stream, also where a ``send`` lists none.  One on a channel
    nothing streams on, and the reply of a ``send``, are skipped with an
    ``operation-request-skipped`` info (appended to ``skipped``).  Channels,
    operations, replies and messages may each be a ``$ref`` (local or to a relative
    file); a channel is matched to its operations by where the references lead, not
    by spelling.
    """
    channels = data.get("channels")
    if not isinstance(channels, dict):
        diag(diagnostics, root.child("channels"), codes.CHANNELS_MISSING, "document has no `channels` mapping")
        return []
    items, by_place = _resolve_channels(channels, root, reader, diagnostics)
    operations = _operations(data, root, diagnostics)
    names = {key: (text(item.get("address")) or key) for key, (item, _) in items.items()}
    receivers = _Receivers(reader, diagnostics, skipped, by_place, names)
    for op_id, op in operations.items():
        receivers.read_operation(op_id, op, root.child("operations", op_id))
    receivers.skip_unanswered()
    return [
        _kept_channel(key, item, cloc, receivers, requests, diagnostics)
        for key, (item, cloc) in items.items()
        if not operations or key in receivers.uses
    ]


def _kept_channel(
    key: str,
    item: dict[str, Any],
    cloc: Location,
    receivers: _Receivers,
    requests: RequestReader,
    diagnostics: Diagnostics,
) -> Channel:
    """The IR channel of channel ``key`` (:func:`_channel`) with its request: the first
    ``receive`` operation asking on it (its messages left out of the stream), the first
    operation streaming on it."""
    reader = receivers.reader
    asked = receivers.requests.get(key, [])
    request_names = {
        m.name
        for ask in asked
        if isinstance(ask.messages, list)
        for m in reader.read_message_list(ask.messages, ask.messages_loc)
    }
    channel = _channel(key, item, cloc, receivers.uses.get(key), reader, diagnostics, request_names)
    uses = receivers.uses.get(key) or []
    stream = Operation(uses[0].op, uses[0].op_loc) if uses and uses[0].op else None
    ask = asked[0] if asked else None
    request = requests.read(
        receivers.names.get(ask.channel, channel.address) if ask is not None else channel.address,
        (item, cloc),
        stream,
        Operation(ask.op, ask.op_loc) if ask is not None else None,
        (ask.messages, ask.messages_loc) if ask is not None and ask.messages is not None else None,
    )
    return replace(channel, request=request)


def _resolve_channels(
    channels: dict[str, Any], root: Location, reader: MessageReader, diagnostics: Diagnostics
) -> tuple[dict[str, tuple[dict[str, Any], Location]], dict[tuple[str, str], str]]:
    """``(items, by_place)``: each usable channel of ``channels`` by key, its ``$ref`` followed,
    with where it is; and the key of each place a channel is found at, ``(uri, pointer)`` of both
    the channel entry and its ``$ref`` target, so an operation finds it either way. A channel
    that is not a mapping is ``channel-invalid``."""
    items: dict[str, tuple[dict[str, Any], Location]] = {}
    by_place: dict[tuple[str, str], str] = {}
    for key, item in channels.items():
        cloc = root.child("channels", key)
        by_place[(cloc.uri, cloc.pointer)] = key
        resolved = reader.follow(item, cloc)
        if resolved is None:
            continue
        item, tloc = resolved
        if not isinstance(item, dict):
            diag(diagnostics, tloc, codes.CHANNEL_INVALID, "channel must be a mapping")
            continue
        items[key] = (item, tloc)
        by_place[(tloc.uri, tloc.pointer)] = key
    return items, by_place


def _operations(data: dict[str, Any], root: Location, diagnostics: Diagnostics) -> dict[str, Any]:
    """The document's ``operations`` by id; ``{}`` when absent, or not a mapping
    (``operations-invalid``)."""
    raw_operations = data.get("operations")
    if raw_operations is not None and not isinstance(raw_operations, dict):
        diag(diagnostics, root.child("operations"), codes.OPERATIONS_INVALID, "`operations` must be a mapping")
        raw_operations = None
    return raw_operations or {}


def _channel(
    key: str,
    item: dict[str, Any],
    cloc: Location,
    uses: list[_Use] | None,
    reader: MessageReader,
    diagnostics: Diagnostics,
    request_names: set[str],
) -> Channel:
    """The IR channel of channel ``key`` (``item`` at ``cloc``): the messages each of its
    ``uses`` lists (all the channel's ``messages`` but those named ``request_names`` for a use
    that lists none, or with no use at all), duplicates merged; the first use gives the
    operation id and summary."""
    raw_address = item.get("address")
    address: str = raw_address if isinstance(raw_address, str) else key
    uses = uses or [_Use("", {}, None, cloc, cloc)]
    selected: list[Message] = []
    for use in uses:
        if isinstance(use.messages, list) and use.messages:
            # The operation may narrow the channel's messages.
            found = reader.read_message_list(use.messages, use.messages_loc)
        else:
            found = reader.read_channel_messages(item.get("messages"), cloc.child("messages"))
            found = [m for m in found if m.name not in request_names]
        selected = list(unique_messages(selected, found, diagnostics))
    first = uses[0]
    return Channel(
        address=address,
        messages=tuple(selected),
        provenance=cloc.provenance,
        operation_id=first.op_id,
        summary=text(first.op.get("summary")),
        description=text(item.get("description")),
        extensions=extensions(item),
    )


@dataclass(frozen=True)
class _Use:
    """A 3.0 operation's use of a channel: the messages the client receives by it (None = all),
    or, for a request, the messages it sends; ``channel`` the key of the operation's own
    channel (a reply may stream on another)."""

    op_id: str
    op: dict[str, Any]
    messages: Any
    messages_loc: Location
    op_loc: Location
    channel: str = ""


@dataclass
class _Receivers:
    """The channels the client receives on, read from the operations: channel key -> its uses
    (``uses``), in operation order, and the ``receive`` operations asking for each stream
    (``requests``, by the key of the channel streaming the answer); the reply of a ``send``,
    and a request nothing answers (:meth:`skip_unanswered`), are reported and appended to
    ``skipped``.

    ``by_place`` finds a channel's key from where a ``$ref`` leads, ``names`` gives each
    channel's address for messages.
    """

    reader: MessageReader
    diagnostics: Diagnostics
    skipped: list[str]
    by_place: dict[tuple[str, str], str]
    names: dict[str, str]
    uses: dict[str, list[_Use]] = field(default_factory=dict)
    requests: dict[str, list[_Use]] = field(default_factory=dict)

    def read_operation(self, op_id: str, node: Any, loc: Location) -> None:
        """Read operation ``op_id`` (``node`` at ``loc``, possibly a ``$ref``): a ``send`` uses its
        channel, a ``receive`` asks for the stream of its ``reply``'s channel (:meth:`_read_reply`)
        or of its own. An operation that is not a mapping, or whose ``action`` is neither, is
        reported."""
        resolved = self.reader.follow(node, loc)
        if resolved is None:
            return
        op, oloc = resolved
        if not isinstance(op, dict):
            diag(self.diagnostics, oloc, codes.OPERATION_INVALID, "operation must be a mapping")
            return
        action = op.get("action")
        if action not in ("send", "receive"):
            diag(
                self.diagnostics,
                oloc.child("action"),
                codes.OPERATION_ACTION_INVALID,
                f"operation action must be `send` or `receive`, got {json.dumps(action)}; ignored",
            )
            return
        key = _channel_key(op.get("channel"), oloc.child("channel"), self.reader, self.by_place, self.diagnostics)
        if key is None:
            return
        use = _Use(op_id, op, op.get("messages"), oloc.child("messages"), oloc, key)
        if action == "send":
            self.uses.setdefault(key, []).append(use)
        answered = self._read_reply(op_id, op, oloc, action, key) if op.get("reply") is not None else None
        if action == "receive":
            self.requests.setdefault(answered or key, []).append(use)

    def skip_unanswered(self) -> None:
        """Report each ``receive`` operation asking on a channel nothing streams on as skipped."""
        for key, asked in self.requests.items():
            if key not in self.uses:
                for use in asked:
                    skip_request(
                        self.diagnostics,
                        use.op_loc.child("action"),
                        f"receive operation `{use.op_id}` on `{self.names.get(use.channel, use.channel)}`",
                        self.skipped,
                    )

    def _read_reply(self, op_id: str, op: dict[str, Any], oloc: Location, action: str, op_key: str) -> str | None:
        """Read the ``reply`` of operation ``op_id`` (on channel ``op_key``; the reply's own
        ``channel`` wins): over one HTTP exchange what answers a ``receive`` comes back to the
        client; the reply of a ``send`` is a request. The key of the reply's channel, or None."""
        reply = self.reader.follow(op["reply"], oloc.child("reply"))
        if reply is None or not isinstance(reply[0], dict):
            return None
        rnode, rloc = reply
        key = (
            _channel_key(rnode["channel"], rloc.child("channel"), self.reader, self.by_place, self.diagnostics)
            if "channel" in rnode
            else op_key
        )
        use = _Use(op_id, op, rnode.get("messages"), rloc.child("messages"), oloc, op_key)
        self._add(key, action == "receive", use, oloc.child("reply"), f"reply of send operation `{op_id}`")
        return key

    def _add(self, key: str | None, received: bool, use: _Use, request_loc: Location, request: str) -> None:
        """Record ``use`` of channel ``key`` when the client ``received`` its messages, else skip
        it as the request ``request`` (reported at ``request_loc``); nothing for no channel."""
        if key is None:
            return
        if received:
            self.uses.setdefault(key, []).append(use)
        else:
            skip_request(self.diagnostics, request_loc, f"{request} on `{self.names.get(key, key)}`", self.skipped)


def _channel_key(
    node: Any, loc: Location, reader: MessageReader, by_place: dict[tuple[str, str], str], diagnostics: Diagnostics
) -> str | None:
    """The key in ``channels`` of the channel an operation's ``channel: {$ref}`` names."""
    if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
        diag(
            diagnostics,
            loc,
            codes.OPERATION_CHANNEL_INVALID,
            "operation `channel` must be a $ref to a channel of `channels`",
        )
        return None
    try:
        target = reader.resolver.lookup(node["$ref"], loc.uri)
    except RefError as exc:
        diag(diagnostics, loc.child("$ref"), exc.code, str(exc))
        return None
    key = by_place.get((target.uri, target.pointer))
    if key is None:
        diag(
            diagnostics,
            loc.child("$ref"),
            codes.OPERATION_CHANNEL_UNKNOWN,
            f"operation channel $ref {node['$ref']!r} names no channel of `channels`",
        )
    return key
