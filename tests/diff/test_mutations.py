"""Mutations of every provider's spec that ``ssegen diff`` must catch (issue 37): rename an event,
remove the terminator, make a member required, change a member's type, move usage, rename a
member an accumulation step reads.

Each mutation edits the provider's messages as a spec edit would (in the IR the sources give,
before the discrimination and accumulation plans), then plans them again with the pipeline's own
steps (:func:`ssegen.normalize.discrimination.plan_channels`,
:func:`ssegen.normalize.accumulation.plan_accumulation`): what ``ssegen diff`` compares is then
the IR that spec would load as. It applies to the channel of the provider whose stream has the
most to lose (the first with an ending message, a usage step and an ``append`` step)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import cache

import pytest
from conftest import SPECS

from ssegen.diagnostics import Diagnostics
from ssegen.diff import compare_providers
from ssegen.diff.streams import ending, step_paths
from ssegen.discover import provider_names
from ssegen.ir import EACH, AccumulateStep, Channel, Message, Property, Provider, Schema, resolve_path
from ssegen.load import load_provider
from ssegen.normalize.accumulation import plan_accumulation
from ssegen.normalize.discrimination import plan_channels


@cache
def _provider(name: str) -> Provider:
    provider = load_provider(SPECS, name).provider
    assert provider is not None
    return provider


def _channel(provider: Provider) -> Channel:
    def score(channel: Channel) -> int:
        return bool(ending(channel)) + sum(_reading(channel, action) is not None for action in ("usage", "append"))

    return max(provider.channels, key=score)


def _steps(channel: Channel, action: str) -> list[tuple[Message, AccumulateStep]]:
    plan = channel.accumulation
    found: list[tuple[Message, AccumulateStep]] = []
    if plan is None:
        return found
    for name, steps in plan.steps:
        message = channel.message(name)
        assert message is not None
        found += [(message, s) for s in steps if s.action == action]
    return found


def _replanned(provider: Provider, channel: Channel, messages: list[Message]) -> Provider:
    plain = replace(channel, messages=tuple(messages), dispatch=(), fallback=None, accumulation=None)
    channels = tuple(plain if c.address == channel.address else c for c in provider.channels)
    planned = plan_channels(replace(provider, channels=channels), Diagnostics())
    return plan_accumulation(planned, Diagnostics())


def _swap(messages: Channel | list[Message], old: Message, *new: Message) -> list[Message]:
    found = []
    for message in messages.messages if isinstance(messages, Channel) else messages:
        found += list(new) if message.name == old.name else [message]
    return found


def _reading(channel: Channel, action: str) -> tuple[Message, AccumulateStep] | None:
    """The step of ``action`` whose paths the payload of its message declares, the shortest paths
    first (the usage a message sends at its top level, rather than inside another member)."""
    found = [
        (m, s)
        for m, s in _steps(channel, action)
        if all(resolve_path(m.payload, path, variant).schema is not None for path, variant in step_paths(s))
    ]
    return min(found, key=lambda f: max((len(p) for p, _ in step_paths(f[1])), default=0), default=None)


def _read(channel: Channel, action: str) -> tuple[Message, AccumulateStep]:
    found = _reading(channel, action)
    assert found is not None, f"no {action} step of {channel.address} reads a declared member"
    return found


def _member(schema: Schema, path: tuple[str, ...], change: Callable[[Schema, str], Schema]) -> Schema:
    """``schema`` with ``change(owner, name)`` applied to the object owning the member at ``path``
    (through arrays and every union alternative declaring it)."""
    if schema.type == "union":
        variants = tuple(_member(v, path, change) for v in schema.variants)
        return replace(schema, variants=variants)
    if len(path) == 1:
        return change(schema, path[0]) if schema.property(path[0]) is not None else schema
    head, rest = path[0], path[1:]
    if head == EACH:
        assert schema.items is not None
        return replace(schema, items=_member(schema.items, rest, change))
    props = tuple(
        replace(p, schema=_member(p.schema, rest, change)) if p.name == head else p for p in schema.properties
    )
    return replace(schema, properties=props)


def _renamed(owner: Schema, name: str) -> Schema:
    props = tuple(replace(p, name=name + "_text") if p.name == name else p for p in owner.properties)
    return replace(owner, properties=props)


def _without(owner: Schema, name: str) -> Schema:
    return replace(owner, properties=tuple(p for p in owner.properties if p.name != name))


def rename_event(provider: Provider, channel: Channel) -> Provider:
    """The message whose events the assembled text comes from travels under another SSE event type
    and tag value, with another name (the class too)."""
    message, _ = _read(channel, "append")
    tags = [t for d in channel.plans for t in d.tags if message.payload.tag(t) is not None]
    payload = message.payload
    for tag in tags:
        value = payload.tag(tag)
        payload = _member(payload, (tag,), lambda o, n, v=f"{value}_v2": _retagged(o, n, v))
    event = "chunk" if message.event == "message" else message.event + "_v2"
    renamed = replace(
        message, name=message.name + "V2", event=event, payload=replace(payload, name=payload.name + "V2")
    )
    return _replanned(provider, channel, _swap(channel, message, renamed))


def _retagged(owner: Schema, name: str, value: str) -> Schema:
    props = tuple(
        replace(p, schema=replace(p.schema, enum=(value,))) if p.name == name else p for p in owner.properties
    )
    return replace(owner, properties=props)


def remove_terminator(provider: Provider, channel: Channel) -> Provider:
    """The messages that end the stream are gone; a chunk that ends it by a member it sends
    (``complete`` on ``finishReason``) no longer has that member."""
    messages = list(channel.messages)
    for name in ending(channel):
        message = channel.message(name)
        assert message is not None
        completing = [s for m, s in _steps(channel, "complete") if m.name == name]
        if not completing:
            messages = [m for m in messages if m.name != name]
            continue
        path = completing[0].value
        changed = replace(message, payload=_member(message.payload, path, _without))
        messages = [changed if m.name == name else m for m in messages]
    return _replanned(provider, channel, messages)


def make_required(provider: Provider, channel: Channel) -> Provider:
    """The first optional member of a data message with steps (in channel order) is required, and
    not nullable."""
    plan = channel.accumulation
    assert plan is not None
    message, prop = next(
        (m, p) for m in channel.messages if plan.of(m.name) for p in m.payload.properties if not p.required
    )
    required = replace(prop, required=True, schema=replace(prop.schema, nullable=False))
    props = tuple(required if p is prop else p for p in message.payload.properties)
    changed = replace(message, payload=replace(message.payload, properties=props))
    return _replanned(provider, channel, _swap(channel, message, changed))


def change_type(provider: Provider, channel: Channel) -> Provider:
    """The first scalar member (not a tag) of a data message with steps, in channel order, has
    another type (a string becomes an integer, anything else a string)."""
    plan = channel.accumulation
    assert plan is not None
    tags = {t for d in channel.plans for t in d.tags}
    message, prop = next(
        (m, p)
        for m in channel.messages
        if plan.of(m.name)
        for p in m.payload.properties
        if p.schema.type in ("string", "integer", "number", "boolean") and p.name not in tags
    )
    retyped = replace(prop.schema, type="integer" if prop.schema.type == "string" else "string", enum=())
    props = tuple(replace(p, schema=retyped) if p is prop else p for p in message.payload.properties)
    changed = replace(message, payload=replace(message.payload, properties=props))
    return _replanned(provider, channel, _swap(channel, message, changed))


def move_usage(provider: Provider, channel: Channel) -> Provider:
    """The usage is sent in another message: the members a usage step reads leave the message
    that had them for another JSON message of the channel (a new ``usage`` event when there is
    none)."""
    source, step = _read(channel, "usage")
    names = list(dict.fromkeys(path[0] for path, _ in step_paths(step)))
    moved = [p for p in source.payload.properties if p.name in names]
    kept = tuple(p for p in source.payload.properties if p.name not in names)
    others = [m for m in channel.messages if m.literal is None and m.name != source.name and m.kind == "data"]
    target = next((m for m in others if not any(m.payload.property(n) for n in names)), None)
    messages = _swap(channel, source, replace(source, payload=replace(source.payload, properties=kept)))
    if target is not None:
        payload = replace(target.payload, properties=(*target.payload.properties, *_optional(moved)))
        return _replanned(provider, channel, _swap(messages, target, replace(target, payload=payload)))
    payload = Schema("object", source.payload.provenance, name="UsageReport", properties=tuple(moved))
    report = Message("UsageReport", "data", payload, source.provenance, event="usage")
    return _replanned(provider, channel, [*messages, report])


def _optional(props: list[Property]) -> list[Property]:
    return [replace(p, required=False) for p in props]


def rename_read_member(provider: Provider, channel: Channel) -> Provider:
    """The member the assembled text is read from has another name."""
    message, step = _read(channel, "append")
    changed = replace(message, payload=_member(message.payload, step.value, _renamed))
    return _replanned(provider, channel, _swap(channel, message, changed))


MUTATIONS = {
    "rename-event": rename_event,
    "remove-terminator": remove_terminator,
    "make-required": make_required,
    "change-type": change_type,
    "move-usage": move_usage,
    "rename-read-member": rename_read_member,
}


def kinds(provider: str, mutation: str) -> set[str]:
    old = _provider(provider)
    new = MUTATIONS[mutation](old, _channel(old))
    return {c.kind.name for c in compare_providers(provider, old, new) if c.kind.name != "docs-changed"}


#: What each mutation must be classified as, whatever else it gives.
REQUIRED = {
    "rename-event": {"message-renamed"},
    "remove-terminator": set(),  # stream-end-removed or stream-end-changed: below
    "make-required": {"member-required"},
    "change-type": {"type-changed"},
    "move-usage": {"usage-moved"},
    "rename-read-member": {"accumulated-member-lost", "member-renamed"},
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS))
@pytest.mark.parametrize("provider", provider_names(SPECS))
def test_every_mutation_of_every_provider_is_caught(provider: str, mutation: str) -> None:
    found = kinds(provider, mutation)
    assert REQUIRED[mutation] <= found, found
    if mutation == "remove-terminator":
        assert found & {"stream-end-removed", "stream-end-changed"}, found
