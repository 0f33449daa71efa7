"""Which message of a channel's old spec is which of its new one.

A message is identified in the generated package by its class name, and on the wire by its SSE
event type, the values it fixes the channel's tag members to (those of either spec's plan:
:func:`shared_tags`), and (a terminator, a keep-alive) its literal text: :func:`wire_identity`.
:func:`match_messages` pairs the old and new messages of a channel, in this order:

1. by name (the class is the same);
2. by wire identity, for messages left (the class was renamed, the wire is the same);
3. by payload similarity, for messages left: the share of member paths and types the two
   payloads have in common, at least :data:`SIMILAR` (the event, tag or class was renamed:
   Gemini's ``interaction.complete`` -> ``interaction.completed``); the most similar pairs first;
4. a terminator left on each side, one each (its literal changed).

What is left is removed (old) or added (new).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import EACH, Channel, Message, Schema

#: Least share of member paths two payloads must have in common to be one renamed message.
SIMILAR = 0.5

#: Nesting read for the similarity of two payloads.
_SIMILARITY_DEPTH = 4


@dataclass(frozen=True)
class Pair:
    """A message of the old spec and the same one in the new spec (either None when it is not
    there), and how they were matched: ``name``, ``wire``, ``payload``, ``terminator``, or ""
    for a message only one side has."""

    old: Message | None
    new: Message | None
    how: str = ""


def shared_tags(*channels: Channel) -> tuple[str, ...]:
    """The members the channels' plans read values of (their tags and sub-tags), in plan order:
    one set for both sides of a channel, so that a message keeps its identity when only the other
    messages changed how the plan is built."""
    return tuple(dict.fromkeys(t for channel in channels for plan in channel.plans for t in plan.tags))


Identity = tuple[str, str | None, tuple[tuple[str, str], ...]]


def wire_identity(message: Message, tags: tuple[str, ...]) -> Identity:
    """``(SSE event type, literal text, ((tag member, value), ...))`` of ``message``: what tells it
    apart on the wire, the members ``tags`` (:func:`shared_tags`) it fixes with their values."""
    fixed = tuple((t, v) for t in tags if (v := message.payload.tag(t)) is not None)
    return message.event, message.literal, fixed


def describe_identity(identity: Identity) -> str:
    """A wire identity in words: ``event message_stop, type='message_stop'``."""
    event, literal, fixed = identity
    parts = [f"event {event}"] + ([f"literal {literal!r}"] if literal is not None else [])
    return ", ".join(parts + [f"{member}={value!r}" for member, value in fixed])


def match_messages(old: Channel, new: Channel) -> list[Pair]:
    """Every message of ``old`` and ``new`` in one :class:`Pair` (see the module docstring), in
    the new channel's order, then the old messages removed."""
    pairs: dict[str, Pair] = {}  # by new name
    olds = [m for m in old.messages if new.message(m.name) is None]
    news = [m for m in new.messages if old.message(m.name) is None]
    for message in new.messages:
        before = old.message(message.name)
        if before is not None:
            pairs[message.name] = Pair(before, message, "name")
    tags = shared_tags(old, new)
    for how, matched in (
        ("wire", _by_identity(tags, olds, news)),
        ("payload", _by_similarity(olds, news)),
        ("terminator", _terminators(olds, news)),
    ):
        for before, after in matched:
            pairs[after.name] = Pair(before, after, how)
            olds.remove(before)
            news.remove(after)
    ordered = [pairs.get(m.name, Pair(None, m)) for m in new.messages]
    return ordered + [Pair(m, None) for m in olds]


def _by_identity(tags: tuple[str, ...], olds: list[Message], news: list[Message]) -> list[tuple[Message, Message]]:
    """Messages left whose wire identity is one message's on each side."""
    before = [wire_identity(m, tags) for m in olds]
    after = [wire_identity(m, tags) for m in news]
    return [
        (m, news[after.index(identity)])
        for m, identity in zip(olds, before, strict=True)
        if before.count(identity) == 1 and after.count(identity) == 1
    ]


def _by_similarity(olds: list[Message], news: list[Message]) -> list[tuple[Message, Message]]:
    """Messages left, paired by payload similarity (JSON messages of one kind), best first."""
    scored = sorted(
        (
            (similarity(a.payload, b.payload), i, j)
            for i, a in enumerate(olds)
            for j, b in enumerate(news)
            if a.literal is None and b.literal is None and a.kind == b.kind
        ),
        key=lambda s: (-s[0], s[1], s[2]),
    )
    taken_old: set[int] = set()
    taken_new: set[int] = set()
    found = []
    for score, i, j in scored:
        if score < SIMILAR or i in taken_old or j in taken_new:
            continue
        taken_old.add(i)
        taken_new.add(j)
        found.append((olds[i], news[j]))
    return found


def _terminators(olds: list[Message], news: list[Message]) -> list[tuple[Message, Message]]:
    gone = [m for m in olds if m.kind == "terminator"]
    came = [m for m in news if m.kind == "terminator"]
    return [(gone[0], came[0])] if len(gone) == 1 and len(came) == 1 else []


def similarity(a: Schema, b: Schema) -> float:
    """The share of ``(member path, type)`` two payloads have in common (Jaccard index of their
    member paths down to :data:`_SIMILARITY_DEPTH` levels), a const member counted with its value
    only when both fix it alike; 1.0 for two payloads with no member of the same type."""
    left, right = _features(a), _features(b)
    if not left and not right:
        return 1.0 if a.type == b.type else 0.0
    return len(left & right) / len(left | right)


def _features(schema: Schema) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    _walk(schema, "", 0, found)
    return found


def _walk(schema: Schema, path: str, depth: int, found: set[tuple[str, str]]) -> None:
    if depth >= _SIMILARITY_DEPTH:
        return
    if schema.type == "object":
        for prop in schema.properties:
            child = f"{path}.{prop.name}"
            found.add((child, prop.schema.type))
            _walk(prop.schema, child, depth + 1, found)
    elif schema.type == "array" and schema.items is not None:
        _walk(schema.items, f"{path}[{EACH}]", depth + 1, found)
    elif schema.type == "union":
        for variant in schema.variants:
            _walk(variant, path, depth + 1, found)
