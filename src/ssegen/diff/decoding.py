"""Which message a channel decodes one payload as: its discrimination plan run on the IR.

The generated ``classify`` (:mod:`ssegen.codemodel.channels`, the plan of
:mod:`ssegen.normalize.discrimination`) takes the dispatch of the frame's SSE event type, else
the fallback, else the frame is an unknown event. In that dispatch: a literal payload by exact
text; then, when the payload holds the tag member, the messages of its value (the first that
decodes; the tag alone decides when none does) or, for a value no message fixes, the shaped
messages declaring the tag; without the tag member, the shaped messages, most constrained
first. A payload no message decodes is decoded leniently as the message it clearly is
(:func:`ssegen.runtime.lenient.lenient_decode`: at least half of its required members, no tag
member with another value, the most of them), else it is unknown.

"Decodes" is :func:`ssegen.instances.accepts`, what the lenient models take. The instances tried
are what the spec says a message's payload is: its literal, its minimal instance and its
documented examples (:func:`payloads`).
"""

from __future__ import annotations

import json
from typing import Any

from ..instances import NO_INSTANCE, accepts, minimal_instance
from ..ir import Channel, Dispatch, Message


def payloads(message: Message) -> list[str]:
    """The SSE data texts the spec says ``message`` is sent as: its literal (``[DONE]``), else
    its minimal JSON instance and each documented example's data."""
    if message.literal is not None:
        return [message.literal]
    minimal = minimal_instance(message.payload)
    texts = [] if minimal is NO_INSTANCE else [json.dumps(minimal)]
    return texts + [e.data for e in message.examples if e.data not in texts]


def decoded_as(channel: Channel, event: str, data: str) -> str | None:
    """The name of the message ``channel``'s plan decodes a frame of SSE event type ``event`` with
    data ``data`` as; None when it is an unknown event."""
    plan = next((p for p in channel.dispatch if p.event == event), channel.fallback)
    if plan is None:
        return None
    by_name = {m.name: m for m in channel.messages}
    literal = next((n for n in plan.literals if by_name[n].literal == data), None)
    if literal is not None:
        return literal
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return _decoded_json(by_name, plan, value)


def _decoded_json(by_name: dict[str, Message], plan: Dispatch, value: Any) -> str | None:
    """What ``plan`` decodes the JSON ``value`` as: by its tag's value, else by shape, else leniently."""
    candidates = plan.shaped
    if plan.tag and isinstance(value, dict) and plan.tag in value:
        group = next((g for g in plan.tagged if g.value == value[plan.tag]), None)
        if group is not None:
            return _first(by_name, group.messages, value, plan.tags) or group.messages[0]
        candidates = tuple(n for n in plan.shaped if by_name[n].payload.property(plan.tag) is not None)
    return _first(by_name, candidates, value, plan.tags) or _lenient(by_name, plan, value)


def _first(by_name: dict[str, Message], names: tuple[str, ...] | list[str], value: Any, tags: tuple[str, ...]) -> str:
    return next((n for n in names if accepts(by_name[n].payload, value, *tags)), "")


def _lenient(by_name: dict[str, Message], plan: Dispatch, value: Any) -> str | None:
    """The message lenient decoding takes ``value`` for, among the plan's JSON messages."""
    if not isinstance(value, dict):
        return None
    names = [n for g in plan.tagged for n in g.messages] + list(plan.shaped)
    best: tuple[int, str] | None = None
    for name in dict.fromkeys(names):
        score = _closeness(by_name[name], value, plan.tags)
        if score > 0 and (best is None or score > best[0]):
            best = (score, name)
    return best[1] if best is not None else None


def _closeness(message: Message, value: dict[str, Any], tags: tuple[str, ...]) -> int:
    """How clearly ``value`` is ``message`` (the runtime's ``_closeness``): its required members
    present, when at least half are and no tag member has another value; for a message requiring
    none, its declared members present, when they are at least half of ``value``'s."""
    payload = message.payload
    if any(_other_tag(payload.tag(tag), value.get(tag)) for tag in tags):
        return 0
    needed = [p.name for p in payload.properties if p.required and not p.schema.nullable]
    if not needed:
        known = sum(1 for p in payload.properties if p.name in value)
        return known if 2 * known >= len(value) else 0
    present = sum(1 for name in needed if name in value)
    return present if 2 * present >= len(needed) else 0


def _other_tag(fixed: str | None, sent: Any) -> bool:
    """Whether a tag member fixed to ``fixed`` was sent with another value (absent or null is not)."""
    return fixed is not None and sent is not None and sent != fixed
