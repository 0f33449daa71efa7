"""Each channel's discrimination plan: how a decoder tells its messages apart, as the wire does.

Two normalization steps (:func:`ssegen.load.load_provider`): :func:`split_unions` before
the examples are reconciled with the schemas, :func:`plan_channels` last. For every channel:

1. A message whose payload is a ``oneOf``/``anyOf`` of objects becomes one message per
   alternative (``message-union-split``), named after the alternative's schema, so each
   is told apart like any other message (asyncapi/spec ``websocket-gemini``: ``market``
   is ``oneOf: [heartbeat, update]``, each with ``type`` fixed by ``const``). Its examples
   go to the alternative that accepts them.
2. The messages are grouped by SSE event type (:attr:`ssegen.ir.Message.event`) into one
   :class:`~ssegen.ir.Dispatch` each, which tries, in order: literal payloads by exact
   text (``[DONE]``); the **tag** member, the member most messages fix to one string
   value (``type: ping``; ``const``, one-value ``enum`` or a ``discriminator`` mapping),
   used when it has at least two values or names a vendor message
   (``specs/xerotier/streaming-api.md:154``); then the other JSON messages by shape, the
   most constrained first (required members, plus ten per ``maxItems: 0`` array, so
   Mistral's usage-only chunk, ``specs/mistral/asyncapi-page.txt:427``, comes before the
   general chunk).
3. A **fallback** dispatch over every message serves frames whose event type has no
   dispatch of its own, when the channel's JSON messages all travel as ``message`` (a
   named event the spec does not describe, such as Slack's ``event: hello``, is told
   apart by its data) or none does (Anthropic-style named events arriving without
   ``event:`` lines). Otherwise such frames are unknown events. Literal payloads do not
   count: when the only messages of ``message`` are literals beside named JSON messages
   (Cohere's data-only ``[DONE]`` after ``event: message-end``,
   ``specs/cohere/chat-stream.yaml``), ``message`` gets no dispatch of its own and the
   fallback serves it, trying the literals first, so a frame without ``event:`` is
   still told apart by its tag.
4. Two messages one dispatch cannot tell apart are reported
   (``messages-indistinguishable``): a shared tag value, or a later message whose
   instances (its minimal and its full instance, and its documented examples) the
   earlier one accepts under lenient decoding (:func:`ssegen.instances.accepts`), naming the member that
   would tell them apart.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..instances import NO_INSTANCE, accepts, full_instance, minimal_instance
from ..ir import ANY_EVENT, Channel, Dispatch, Message, Provider, Tagged
from ..naming import ClassName


def split_unions(provider: Provider, diagnostics: Diagnostics) -> Provider:
    """``provider`` with every message whose payload is a union of objects replaced by one
    message per alternative (step 1 of the module docstring; ``message-union-split``)."""
    channels = tuple(replace(c, messages=_split_unions(c, diagnostics)) for c in provider.channels)
    return replace(provider, channels=channels)


def plan_channels(provider: Provider, diagnostics: Diagnostics) -> Provider:
    """``provider`` with every channel's discrimination plan set (:func:`plan_channel`)."""
    return replace(provider, channels=tuple(plan_channel(c, diagnostics) for c in provider.channels))


def plan_channel(channel: Channel, diagnostics: Diagnostics) -> Channel:
    """``channel`` with its :attr:`~ssegen.ir.Channel.dispatch` and
    :attr:`~ssegen.ir.Channel.fallback` set (steps 2 to 4 of the module docstring).

    Reports ``messages-indistinguishable`` and ``vendor-tag-fields`` (warnings) at the
    messages concerned. Never raises.
    """
    messages = channel.messages
    events = _planned_events(messages)
    dispatch = tuple(_dispatch(event, [m for m in messages if m.event == event]) for event in events)
    fallback = _dispatch(ANY_EVENT, list(messages)) if _has_fallback(messages) else None
    planned = replace(channel, dispatch=dispatch, fallback=fallback)
    _report_vendor_tags(planned, diagnostics)
    reported: set[tuple[str, str]] = set()
    for plan in (*dispatch, *((fallback,) if fallback is not None and len(events) > 1 else ())):
        _report_overlaps(planned, plan, diagnostics, reported)
    return planned


def _has_fallback(messages: tuple[Message, ...]) -> bool:
    """True when frames of an event type without a dispatch are told apart by their data: the
    JSON messages all travel as ``message``, or none does (step 3 of the module docstring). A
    literal is compared by its text whatever its event type, so it does not count."""
    data_events = {m.event for m in messages if m.literal is None}
    return data_events == {"message"} or "message" not in data_events


def _planned_events(messages: tuple[Message, ...]) -> list[str]:
    """The event types that get a dispatch of their own, sorted: those of the messages, but
    ``message`` when it carries literals only beside named JSON messages (Cohere's data-only
    ``[DONE]`` after named events): the fallback serves it, trying those literals first."""
    events = sorted({m.event for m in messages})
    named_data = {m.event for m in messages if m.literal is None} - {"message"}
    if named_data and all(m.literal is not None for m in messages if m.event == "message"):
        return [event for event in events if event != "message"]
    return events


# -- 1. union payloads -------------------------------------------------------------------------


def _split_unions(channel: Channel, diagnostics: Diagnostics) -> tuple[Message, ...]:
    """The channel's messages, each with a union-of-objects payload replaced by one per alternative."""
    out: list[Message] = []
    taken = {m.name for m in channel.messages}
    for message in channel.messages:
        payload = message.payload
        if payload.type != "union" or not payload.variants or any(v.type != "object" for v in payload.variants):
            out.append(message)
            continue
        parts = _alternatives(message, taken)
        tagged_by = f", told apart by {payload.discriminator!r}" if payload.discriminator else ""
        diagnostics.at(
            message.provenance,
            codes.MESSAGE_UNION_SPLIT,
            f"payload of {message.name} is one of {len(parts)} objects; each is a message of the channel "
            f"({', '.join(p.name for p in parts)}){tagged_by}",
        )
        out.extend(parts)
    return tuple(out)


def _alternatives(message: Message, taken: set[str]) -> list[Message]:
    """One message per object alternative of ``message``'s union payload, each named by its
    alternative (a schema name prefixed by the message's where it would clash; ``Variant``
    appended while taken, the names added to ``taken``) with its own title and description,
    and each of the message's examples moved to the alternative it belongs to (:func:`_home`)."""
    parts = []
    for variant in message.payload.variants:
        name = str(ClassName(variant.name)) if variant.name else message.name
        if name in taken or name == message.name:
            name = message.name + name if not name.startswith(message.name) else name
        while name in taken:
            name += "Variant"
        taken.add(name)
        parts.append(
            replace(
                message,
                name=name,
                payload=variant,
                examples=(),
                variant_of=message.name,
                title=variant.title or message.title,
                description=variant.description or message.description,
            )
        )
    for example in message.examples:
        home = _home(parts, _json(example.data), message.payload.discriminator)
        parts[home] = replace(parts[home], examples=(*parts[home].examples, example))
    return parts


def _home(parts: list[Message], instance: Any, tag: str) -> int:
    """The alternative an example belongs to: the first that accepts it, else the first
    whose required members (and tag value) it has (an example may contradict a member's
    type, which the reconciliation of examples then widens), else the first."""
    for i, part in enumerate(parts):
        if accepts(part.payload, instance, tag):
            return i
    if isinstance(instance, dict):
        for i, part in enumerate(parts):
            value = part.payload.tag(tag) if tag else None
            required = [p.name for p in part.payload.properties if p.required]
            if all(n in instance for n in required) and (value is None or instance.get(tag) == value):
                return i
    return 0


# -- 2. one dispatch per event type -----------------------------------------------------------


def _dispatch(event: str, messages: list[Message]) -> Dispatch:
    literals = [m for m in messages if m.literal is not None]
    json_messages = [m for m in messages if m.literal is None]
    tag = _tag_member(json_messages)
    groups: dict[str, list[Message]] = {}
    shaped: list[Message] = []
    for message in json_messages:
        value = message.payload.tag(tag) if tag else None
        if value is None:
            shaped.append(message)
        else:
            groups.setdefault(value, []).append(message)
    return Dispatch(
        event=event,
        literals=tuple(dict.fromkeys(m.name for m in literals)),
        tag=tag if groups else "",
        tagged=tuple(_tagged(value, group) for value, group in groups.items()),
        shaped=_by_shape(shaped),
    )


def plan_text(provider: Provider) -> str:
    """Each channel's discrimination plan in words, for ``ssegen ir --plan``::

    /v1/messages
      event error:
        tag type = 'error' -> Error
      any other event type:
        literal '[DONE]' -> StreamDone
        tag type = 'emoji_changed', by subtype -> EmojiRemoved, EmojiAdded
        shape -> ChatCompletionUsageChunk, ChatCompletionChunk
    """
    lines: list[str] = []
    for channel in provider.channels:
        lines.append(channel.address)
        every_message = [p.event for p in channel.dispatch] == ["message"] and channel.fallback is not None
        named = [] if every_message else [(f"event {p.event}:", p) for p in channel.dispatch]
        other = "any event type:" if every_message else "any other event type:"
        for title, plan in [*named, *([(other, channel.fallback)] if channel.fallback is not None else [])]:
            lines.append(f"  {title}")
            lines += [f"    literal {m.literal!r} -> {m.name}" for m in channel.messages if m.name in plan.literals]
            for group in plan.tagged:
                by = f", by {group.subtag}" if group.subtag else ""
                lines.append(f"    tag {plan.tag} = {group.value!r}{by} -> {', '.join(group.messages)}")
            if plan.shaped:
                lines.append(f"    shape -> {', '.join(plan.shaped)}")
        if channel.fallback is None:
            lines.append("  any other event type: unknown event")
    return "\n".join(lines) + "\n"


def _tagged(value: str, group: list[Message]) -> Tagged:
    """The messages of one tag value, told apart by a second tag when they fix one."""
    subtag = _tag_member(group) if len(group) > 1 else ""
    if subtag:
        fixed = [m for m in group if m.payload.tag(subtag) is not None]
        rest = [m for m in group if m.payload.tag(subtag) is None]
        return Tagged(value, _by_shape(fixed) + _by_shape(rest), subtag)
    return Tagged(value, _by_shape(group))


def _by_shape(messages: list[Message]) -> tuple[str, ...]:
    """Message names, most constrained first (source order among equals), each once."""
    return tuple(dict.fromkeys(m.name for m in sorted(messages, key=lambda m: -m.payload.specificity)))


def _tag_member(messages: list[Message]) -> str:
    """The member most of ``messages`` fix to one string value (``type`` on a tie), when
    it takes two values or more or fixes a vendor message; "" for none."""
    counts: dict[str, set[str]] = {}
    vendor: set[str] = set()
    order: list[str] = []
    for message in messages:
        for prop in message.payload.properties:
            value = message.payload.tag(prop.name)
            if value is None:
                continue
            if prop.name not in counts:
                counts[prop.name] = set()
                order.append(prop.name)
            counts[prop.name].add(value)
            if message.kind == "vendor":
                vendor.add(prop.name)
    usable = [n for n in order if len(counts[n]) > 1 or n in vendor]
    if not usable:
        return ""
    return max(usable, key=lambda n: (len(counts[n]), n == "type", -order.index(n)))


def _report_vendor_tags(channel: Channel, diagnostics: Diagnostics) -> None:
    """``vendor-tag-fields`` when a dispatch's vendor messages fix different members:
    only the dispatch's tag tells them apart."""
    by_name = {m.name: m for m in channel.messages}
    for plan in channel.dispatch:
        members = {plan.tag} if plan.tag else set()
        for name in plan.shaped:
            message = by_name[name]
            if message.kind == "vendor":
                members.update(p.name for p in message.payload.properties if message.payload.tag(p.name) is not None)
        if len(members) > 1:
            diagnostics.at(
                by_name[plan.tagged[0].messages[0] if plan.tagged else plan.shaped[0]].provenance,
                codes.VENDOR_TAG_FIELDS,
                f"vendor messages are told apart by several members ({', '.join(sorted(members))}); "
                f"only {plan.tag or sorted(members)[0]!r} is used",
            )


# -- 4. overlaps -----------------------------------------------------------------------------


def _report_overlaps(
    channel: Channel, plan: Dispatch, diagnostics: Diagnostics, reported: set[tuple[str, str]]
) -> None:
    """``messages-indistinguishable`` for each pair of ``plan`` that can match one payload:
    among the messages of one tag value, and among the messages told apart by shape."""
    by_name = {m.name: m for m in channel.messages}
    groups = [(t.messages, (plan.tag, t.subtag)) for t in plan.tagged] + [(plan.shaped, (plan.tag,))]
    for group, tags in groups:
        messages = [by_name[n] for n in group]
        for i, later in enumerate(messages):
            synthesized = [minimal_instance(later.payload), full_instance(later.payload)]
            instances = [x for x in synthesized if x is not NO_INSTANCE] + [_json(e.data) for e in later.examples]
            for earlier in messages[:i]:
                if earlier.payload == later.payload:
                    continue  # one payload schema, one class: nothing to tell apart
                if any(accepts(earlier.payload, x, *tags) for x in instances):
                    _overlap(
                        diagnostics,
                        reported,
                        earlier,
                        later,
                        f"{earlier.name} is tried first and accepts its payloads; {_telling_member(earlier, later)}",
                    )
                    break


def _overlap(diagnostics: Diagnostics, reported: set[tuple[str, str]], a: Message, b: Message, why: str) -> None:
    if (a.name, b.name) in reported:
        return
    reported.add((a.name, b.name))
    diagnostics.at(
        b.provenance,
        codes.MESSAGES_INDISTINGUISHABLE,
        f"messages {a.name} and {b.name} of one channel can match the same payload: {why}",
    )


def _telling_member(earlier: Message, later: Message) -> str:
    """Which member would tell ``later`` from ``earlier``, in words."""
    mine = {p.name for p in later.payload.properties}
    theirs = {p.name for p in earlier.payload.properties}
    if only := sorted(mine - theirs):
        return f"requiring {only[0]!r} (declared by {later.name} only) would tell them apart"
    if only := sorted(theirs - mine):
        return f"requiring {only[0]!r} (declared by {earlier.name} only) would tell them apart"
    return "no member tells them apart (they declare the same members); a const tag member would"


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text
