"""Two IRs of a provider compared channel by channel and message by message (issue 37).

:func:`compare_providers` is the entry: IR pair in, classified changes out, reading nothing
else. Per channel (matched by address):

* its framing (``media-type-changed``);
* its messages, paired by :func:`ssegen.diff.messages.match_messages`: added, removed,
  renamed (class, SSE event, tag value or literal), their kind and content type, whether either
  package decodes the other side's payloads as another message (:mod:`ssegen.diff.decoding`),
  and their payloads (:mod:`ssegen.diff.schemas`);
* its accumulation plan (:mod:`ssegen.diff.streams`).

Texts that changed (descriptions, titles, examples) are one ``docs-changed`` per message,
channel or provider, naming where. A change met at several places of one message (a shared
schema used twice) is reported once, at the first, saying how many more.
"""

from __future__ import annotations

from ..ir import Channel, Message, Provenance, Provider, format_path
from .changes import (
    CHANNEL_ADDED,
    CHANNEL_REMOVED,
    DECODES_AS_OTHER,
    DOCS_CHANGED,
    MEDIA_TYPE_CHANGED,
    MESSAGE_ADDED,
    MESSAGE_KIND_CHANGED,
    MESSAGE_REMOVED,
    MESSAGE_RENAMED,
    PROVIDER_ADDED,
    PROVIDER_REMOVED,
    Change,
)
from .decoding import decoded_as, payloads
from .messages import Pair, describe_identity, match_messages, shared_tags, similarity, wire_identity
from .schemas import Found, compare_payloads
from .streams import StreamView, compare_streams, feeds

#: How many places a ``docs-changed`` names before "and N more".
_DOCS_NAMED = 4


def compare_providers(name: str, old: Provider | None, new: Provider | None) -> list[Change]:
    """Every change from ``old`` to ``new`` (the IRs of provider ``name``; None where that side
    has no such provider), channel by channel in the new provider's order, then the channels
    removed. Pure: reads nothing but the two IRs; never raises."""
    if old is None or new is None:
        if new is not None:
            return [Change(PROVIDER_ADDED, f"new provider {name}", name, new=_provider_place(new))]
        if old is not None:
            return [Change(PROVIDER_REMOVED, f"provider {name} removed", name, old=_provider_place(old))]
        return []
    changes = _provider_docs(name, old, new)
    for channel in new.channels:
        before = old.channel(channel.address)
        if before is None:
            text = f"new channel {channel.address} ({len(channel.messages)} messages)"
            changes.append(Change(CHANNEL_ADDED, text, name, channel.address, new=channel.provenance))
        else:
            changes += compare_channels(name, before, channel)
    for channel in old.channels:
        if new.channel(channel.address) is None:
            text = f"channel {channel.address} removed"
            changes.append(Change(CHANNEL_REMOVED, text, name, channel.address, old=channel.provenance))
    return changes


def compare_channels(provider: str, old: Channel, new: Channel) -> list[Change]:
    """Every change from channel ``old`` to ``new`` (one address) of ``provider``."""
    changes = []
    if old.framing != new.framing:
        text = f"framing {old.framing} -> {new.framing}"
        changes.append(Change(MEDIA_TYPE_CHANGED, text, provider, new.address, "", "", old.provenance, new.provenance))
    texts = [n for n in ("summary", "description", "operation_id") if getattr(old, n) != getattr(new, n)]
    if texts:
        text = f"channel texts changed: {', '.join(texts)}"
        changes.append(Change(DOCS_CHANGED, text, provider, new.address, "", "", old.provenance, new.provenance))
    pairs = match_messages(old, new)
    recognized = {
        p.new.name: _decodes(new, old, p.new) in (p.old.name, "") for p in pairs if p.old is not None and p.new
    }
    found: list[tuple[str, Found]] = []
    for pair in pairs:
        own, payload = _message_changes(provider, old, new, pair)
        changes += own
        found += [(pair.new.name, f) for f in payload if pair.new is not None]
    changes += _payload_changes(provider, new.address, found)
    return changes + compare_streams(StreamView(provider, old, new, pairs, recognized))


def _decodes(own: Channel, other: Channel, message: Message) -> str | None:
    """What ``other``'s plan decodes ``message``'s payloads (of channel ``own``) as: the first of
    them ``own``'s plan decodes as ``message``; "" when none does (nothing to tell by)."""
    for data in payloads(message):
        if decoded_as(own, message.event, data) == message.name:
            return decoded_as(other, message.event, data)
    return ""


def _message_changes(provider: str, old: Channel, new: Channel, pair: Pair) -> tuple[list[Change], list[Found]]:
    """The changes of one message but those of its payload, and the findings of its payload."""
    before, after = pair.old, pair.new
    if before is None:
        assert after is not None
        return [_added(provider, old, new, after)], []
    if after is None:
        text = f"message {before.name} ({describe_identity(wire_identity(before, shared_tags(old, new)))}) removed"
        place = (before.provenance, new.provenance)
        return [Change(MESSAGE_REMOVED, text, provider, new.address, before.name, "", *place)], []

    texts = [(MESSAGE_RENAMED, _renamed(old, new, pair))]
    if before.kind != after.kind:
        texts.append((MESSAGE_KIND_CHANGED, f"{after.name} is now a {after.kind} message, was {before.kind}"))
    if before.content_type != after.content_type:
        texts.append((MEDIA_TYPE_CHANGED, f"content type {before.content_type} -> {after.content_type}"))
    texts += [(DECODES_AS_OTHER, text) for text in _misdecoded(old, new, pair)]
    found = compare_payloads(before.payload, after.payload, shared_tags(old, new))
    texts.append((DOCS_CHANGED, _message_docs(before, after)))
    changes = [
        Change(kind, text, provider, new.address, after.name, "", before.provenance, after.provenance)
        for kind, text in texts
        if text
    ]
    return changes, found


def _added(provider: str, old: Channel, new: Channel, message: Message) -> Change:
    """``message-added``, saying what an older package makes of its payloads."""
    texts = payloads(message)
    seen = decoded_as(old, message.event, texts[0]) if texts else None
    then = f"an older package decodes it as {seen}" if seen else "an older package keeps it as UnknownEvent"
    steps = new.accumulation.of(message.name) if new.accumulation is not None else ()
    if steps:
        then += f"; the regenerated accumulator takes it ({feeds(steps)})"
    text = f"new message {message.name} ({describe_identity(wire_identity(message, shared_tags(old, new)))}): {then}"
    return Change(MESSAGE_ADDED, text, provider, new.address, message.name, "", new.provenance, message.provenance)


def _renamed(old: Channel, new: Channel, pair: Pair) -> str:
    """What renaming ``pair`` went through, in words; "" when it kept its name and wire identity."""
    assert pair.old is not None and pair.new is not None
    parts = []
    if pair.old.name != pair.new.name:
        parts.append(f"{pair.old.name} renamed {pair.new.name}")
    if pair.old.payload.name != pair.new.payload.name:
        parts.append(f"class {pair.old.payload.name} renamed {pair.new.payload.name}")
    tags = shared_tags(old, new)
    before, after = wire_identity(pair.old, tags), wire_identity(pair.new, tags)
    if before != after:
        parts.append(f"on the wire {describe_identity(before)} -> {describe_identity(after)}")
    if not parts:
        return ""
    if pair.how == "payload":
        parts.append(f"matched by payload similarity {similarity(pair.old.payload, pair.new.payload):.2f}")
    return "; ".join(parts)


def _misdecoded(old: Channel, new: Channel, pair: Pair) -> list[str]:
    """Why either package takes one side's payloads for another message (``decodes-as-other``)."""
    assert pair.old is not None and pair.new is not None
    found = []
    forward = _decodes(new, old, pair.new)
    if forward not in (pair.old.name, "", None):
        found.append(f"an older package decodes {pair.new.name}'s payloads as {forward}")
    backward = _decodes(old, new, pair.old)
    if backward not in (pair.new.name, "", None):
        found.append(
            f"the regenerated package decodes {pair.old.name}'s payloads, as the old spec has them, as {backward}"
        )
    return found


def _payload_changes(provider: str, address: str, found: list[tuple[str, Found]]) -> list[Change]:
    """A change per finding of the channel's payloads (``(message, finding)``), each met several
    times (one shared schema used at several places, by several messages) once, at its first
    place, saying where else; the texts that changed together in one ``docs-changed``."""
    places: dict[tuple[str, str, Provenance | None, Provenance | None], list[tuple[str, Found]]] = {}
    for message, f in found:
        places.setdefault((f.kind.name, f.text, f.old, f.new), []).append((message, f))
    changes = []
    docs = []
    for seen in places.values():
        message, f = seen[0]
        if f.kind is DOCS_CHANGED:
            docs.append((message, f))
            continue
        others = list(dict.fromkeys(m for m, _ in seen[1:] if m != message))
        text = f.text
        if len(seen) > 1:
            text += f" (and at {len(seen) - 1} more places" + (f": in {', '.join(others)}" if others else "") + ")"
        changes.append(Change(f.kind, text, provider, address, message, format_path(f.path), f.old, f.new))
    if docs:
        first = docs[0][1]
        named = list(dict.fromkeys(f"{m} {format_path(f.path) or 'payload'} {f.text}" for m, f in docs))
        more = f" and {len(named) - _DOCS_NAMED} more" if len(named) > _DOCS_NAMED else ""
        text = f"payload texts changed: {', '.join(named[:_DOCS_NAMED])}{more}"
        changes.append(Change(DOCS_CHANGED, text, provider, address, "", "", first.old, first.new))
    return changes


def _message_docs(before: Message, after: Message) -> str:
    """The texts of a message that changed, in words ("" when none did)."""
    places = [n for n in ("title", "summary", "description") if getattr(before, n) != getattr(after, n)]
    if [e.data for e in before.examples] != [e.data for e in after.examples]:
        places.append("examples")
    return f"texts changed: {', '.join(places)}" if places else ""


def _provider_docs(name: str, old: Provider, new: Provider) -> list[Change]:
    texts = [n for n in ("title", "version", "description") if getattr(old, n) != getattr(new, n)]
    if [s.wire() for s in old.example_streams] != [s.wire() for s in new.example_streams]:
        texts.append("example streams")
    if not texts:
        return []
    text = f"provider texts changed: {', '.join(texts)}"
    return [Change(DOCS_CHANGED, text, name, old=_provider_place(old), new=_provider_place(new))]


def _provider_place(provider: Provider) -> Provenance:
    """Where a provider is stated: its first source file."""
    return Provenance(provider.sources[0] if provider.sources else f"{provider.name}/")


def sorted_changes(changes: list[Change]) -> list[Change]:
    """``changes`` grouped by channel (in first-seen order), the most severe first within one,
    otherwise as found."""
    channels = list(dict.fromkeys(c.channel for c in changes))
    return sorted(changes, key=lambda c: (channels.index(c.channel), -c.impact.rank))
