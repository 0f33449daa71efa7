"""The accumulation plan oracle: runs any plan's steps over a typed event, step by step.

The code model compiles every message's plan to typed statements (``ssegen.codemodel.plans``);
nothing generated runs this module. It is the plain reading of docs/accumulation.md the compiled
plans are checked against (``tests/codemodel/test_compiled_plans.py``): each step on its own,
for each element its paths reach, in step order, with no fusion of reads, tests or loops.
It was the runtime's executor (``runtime/plan.py``) while some plans were not compiled.

A path is a tuple of segments: :data:`EACH` (every element of the array read so far) or a
member ``(identifier, wire name)``, read with ``getattr`` from a typed object and by wire
name from a plain dict (a member typed as any JSON). :func:`plan_of` builds a message's
:class:`Plan` from its IR steps, :func:`accumulate` assembles a channel's stream with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from ssegen.codemodel.models import field_identifiers
from ssegen.ir import AccumulateStep, Channel, Schema, resolve_path
from ssegen.runtime.accumulate import usage_of
from ssegen.runtime.accumulate_parts import plain as _plain

#: A path segment meaning every element of the array before it (``[*]``).
EACH = "*"

Segment = tuple[str, str] | str
Path = tuple[Segment, ...]

_BLOCK_TEXTS = frozenset(("text", "thinking", "signature", "refusal", "arguments"))
_CHOICE_TEXTS = frozenset(("content", "reasoning_content", "refusal"))


class Step(NamedTuple):
    """One step of a plan (the IR's ``AccumulateStep``; docs/accumulation.md).

    Attributes:
        action: one of ``ssegen.ir.ACCUMULATE_ACTIONS``.
        key, value, extra: paths from the event's root ("()": none).
        field: the text or list ``append`` and ``collect`` add to.
        when: ``(path, test, expected)`` triples, each path read from the element of
            ``value``'s last ``[*]`` (the event without one); ``test`` is ``eq``, ``not``
            (absent or another value) or ``present`` (``expected`` True or False). A step's
            ``variant`` is an ``eq`` test of its union's tag member (:func:`plan_of`).
        members: ``(name, path)``: where ``open`` and ``tool_call`` read ``name`` (``id``,
            ``name``, ``arguments``, ``kind``, ``partial_arguments``, ...), relative to
            ``value``; for ``usage``, the members of the usage object.
        mode: ``usage``: ``merge`` or ``replace``.
    """

    action: str
    key: Path = ()
    value: Path = ()
    field: str = ""
    extra: Path = ()
    when: tuple[tuple[Path, str, Any], ...] = ()
    members: tuple[tuple[str, Path], ...] = ()
    mode: str = ""


class Plan:
    """A message's steps, each split once into what it iterates and what it reads.

    Args:
        steps: the message's steps, in order.
        choices: keyed steps assemble choices (``acc.states``) when True, output blocks
            (``acc.blocks``) when False.
    """

    __slots__ = ("steps", "choices", "levels")

    def __init__(self, steps: tuple[Step, ...], choices: bool = False) -> None:
        self.steps = tuple(_Compiled(step, choices) for step in steps)
        self.choices = choices
        # Each [*] level a step's value crosses, as the index of the first step crossing it.
        first: dict[Path, int] = {}
        for index, compiled in enumerate(self.steps):
            for level in _levels(compiled.scope):
                first.setdefault(level, index)
        self.levels = tuple(tuple(first[level] for level in _levels(c.scope)) for c in self.steps)


def _levels(scope: Path) -> list[Path]:
    """The prefixes of ``scope`` ending in ``[*]``, outermost first."""
    return [scope[: end + 1] for end, segment in enumerate(scope) if segment == EACH]


class _Compiled:
    """A step with its scope: the longest prefix of ``value`` ending in ``[*]`` that
    the key shares up to its own last ``[*]`` (the element the key and ``when`` are read
    at), and each path's rest after it; and what applies it, picked once (:func:`_action`)."""

    __slots__ = ("step", "scope", "key", "key_stars", "value", "extra", "keyed", "apply")

    def __init__(self, step: Step, choices: bool) -> None:
        self.step = step
        value = step.value
        scope = value[: len(value) - value[::-1].index(EACH)] if EACH in value else ()
        self.scope = scope
        self.value = value[len(scope) :]
        key = step.key
        # The key's own [*] prefix is a prefix of the scope: read it at that level.
        cut = len(key) - key[::-1].index(EACH) if EACH in key else 0
        self.key_stars = key[:cut].count(EACH)
        self.key = key[cut:]
        self.extra = step.extra
        self.keyed, self.apply = _action(step, choices)


def run(acc: Any, plan: Plan, event: Any) -> None:
    """Apply ``event`` (a typed event, or plain JSON data) to ``acc`` by ``plan``'s steps,
    in order. A member missing on the way makes a step do nothing for that element; a
    value of another type than the step reads is skipped. Never raises for any event
    shape.

    A keyed step applies to the choice or block its key names (:func:`_key`; 0 for a
    step with no key), created on first use; the others to the stream (``acc``)."""
    choices = plan.choices
    slots = acc.states if choices else acc.blocks
    for _, compiled, positions, element in _applications(plan, event):
        step = compiled.step
        apply = compiled.apply
        for value in _values(element, compiled.value):
            if step.when and not all(
                _holds(_read(element, path), test, expected) for path, test, expected in step.when
            ):
                continue
            if not compiled.keyed:
                apply(acc, compiled, value, event)
                continue
            key = _key(event, compiled, positions) if step.key else 0
            if key is None:
                continue
            state = (slots.get(key) or acc.choice(key)) if choices else slots[key]
            apply(state, step, value)


def _applications(plan: Plan, event: Any) -> list[tuple[tuple[int, ...], _Compiled, tuple[int, ...], Any]]:
    """``(order, step, positions, element)`` of each element each step's scope reaches, in the
    order they apply: element by element, at each ``[*]`` level each element in order, and in
    it the steps (and deeper levels) in the order they are first stated."""
    found = []
    for index, compiled in enumerate(plan.steps):
        for positions, element in _elements(event, compiled.scope, ()):
            order = tuple(n for pair in zip(plan.levels[index], positions, strict=True) for n in pair)
            found.append(((*order, index), compiled, positions, element))
    found.sort(key=lambda application: application[0])
    return found


def _action(step: Step, choices: bool) -> tuple[bool, Callable[..., None]]:
    """Whether ``step`` is keyed, and the function applying it: one of
    :data:`_STREAM_ACTIONS` (called with the accumulator, the compiled step, the value
    and the event), or of :data:`_CHOICE_ACTIONS` or :data:`_BLOCK_ACTIONS` (called with
    the choice's or block's state, the step and the value). ``stop``, ``append`` and
    ``collect`` with no key apply to the stream, as does ``tool_call`` with no key on
    blocks (each call its own block: ``Accumulator.tool_call``); ``open``, ``delta``,
    ``close``, ``tool_call`` (on choices) and ``tool_calls`` with no key to choice or block 0.
    An action a table lacks does nothing (a keyed one still creates its choice or block:
    ``open`` on a choice)."""
    action = step.action
    if action == "usage" and step.members:
        return False, _usage_members(step)
    if action in _STREAM_ACTIONS:
        return False, _STREAM_ACTIONS[action]
    if action == "tool_call" and not step.key and not choices:
        return False, _stream_tool_call
    if not step.key and action not in _ALWAYS_KEYED:
        return False, _UNKEYED_ACTIONS.get(action, _stream_nothing)
    return True, (_CHOICE_ACTIONS if choices else _BLOCK_ACTIONS).get(action, _state_nothing)


def _key(event: Any, compiled: _Compiled, positions: tuple[int, ...]) -> int | None:
    """The index of the choice or block a keyed step applies to: the integer its key
    reads at the element of the key's last ``[*]``, else that element's position (a key
    naming the element itself, as ``candidates[*]``), else None (nothing to apply to)."""
    key = _read(_at(event, compiled, positions), compiled.key) if compiled.key else None
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    return positions[compiled.key_stars - 1] if compiled.key_stars else None


# -- stream actions: (acc, compiled step, value, event) ------------------------------------


def _meta(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """The completion id (``value``) and model (``extra``, read from the event's root)."""
    extra = _read(event, compiled.extra) if compiled.extra else None
    acc.meta(_text(value) if compiled.step.value else None, _text(extra))


def _usage(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """A usage object, replacing the stream's (mode ``replace``) or merged into it."""
    if compiled.step.mode == "replace":
        acc.set_usage(_handed(value), value)
    else:
        acc.merge_usage(_handed(value))


def _usage_members(step: Step) -> Callable[..., None]:
    """The action of a ``usage`` step with ``members``: the usage object is those members of
    the value that are sent (``usage_of``); an event sending none changes nothing."""

    def apply(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
        usage = usage_of((name, _read(value, path)) for name, path in step.members)
        if usage is not None:
            _usage(acc, compiled, usage, event)

    return apply


def _done(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """The stream's terminator was seen."""
    acc.done()


def _complete(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """The stream is complete when the value is present (a ``finishReason``)."""
    if value is not None:
        acc.done()


def _error(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """An error: the member the step reads, else the whole event."""
    if compiled.step.value:
        acc.error_in_chunk(_plain(value))
    else:
        acc.error(_plain(event))


def _snapshot(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """The finished output, sent again at the end."""
    acc.snapshot(_handed(value))


def _final_text(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """The whole text so far (MindIE's ``full_text``): the first choice's content at the end."""
    if isinstance(value, str):
        acc.final_text = value


def _stream_stop(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """The stream's stop reason (an absent one keeps the last)."""
    if isinstance(value, str):
        acc.stop_reason = value


def _stream_append(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """A piece of the stream's named text ``field``."""
    if isinstance(value, str):
        acc.text_parts(compiled.step.field).append(value)


def _stream_collect(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """A value for the stream's named list ``field``, as sent."""
    acc.collect(compiled.step.field, _plain(value))


def _stream_tool_call(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """A tool call sent whole, outside any block (Ollama's ``message.tool_calls[*]``): its
    own new block after the last."""
    members = _members(compiled.step, value)
    acc.tool_call(members.get("id"), members.get("name"), _handed(members.get("arguments")))


def _stream_nothing(acc: Any, compiled: _Compiled, value: Any, event: Any) -> None:
    """An action with no meaning for the stream."""


#: The actions that always apply to the stream, key or not.
_STREAM_ACTIONS: dict[str, Callable[[Any, _Compiled, Any, Any], None]] = {
    "meta": _meta,
    "usage": _usage,
    "done": _done,
    "complete": _complete,
    "error": _error,
    "snapshot": _snapshot,
    "final_text": _final_text,
}
#: The actions that apply to the stream when they have no key.
_UNKEYED_ACTIONS: dict[str, Callable[[Any, _Compiled, Any, Any], None]] = {
    "stop": _stream_stop,
    "append": _stream_append,
    "collect": _stream_collect,
}
#: The actions that apply to choice or block 0 when they have no key.
_ALWAYS_KEYED = frozenset(("open", "delta", "close", "tool_call", "tool_calls"))


# -- choice actions: (choice state, step, value) -------------------------------------------


def _choice_append(state: Any, step: Step, value: Any) -> None:
    """A piece of the choice's text ``field``; ``content`` also takes a list of typed parts
    (Mistral's ``text``/``thinking`` chunks: ``ChoiceState.add_content``)."""
    if isinstance(value, str):
        if step.field in _CHOICE_TEXTS:
            getattr(state, step.field).append(value)
        else:
            state.add_text(step.field, value)
    elif step.field == "content":
        state.add_content(value)


def _choice_stop(state: Any, step: Step, value: Any) -> None:
    """The choice's finish reason."""
    if isinstance(value, str):
        state.finish_reason = value


def _choice_tool_call(state: Any, step: Step, value: Any) -> None:
    """A tool call, or a part continuing the last one (``name`` read and absent)."""
    members = _members(step, value)
    name = members.get("name")
    state.add_call(
        members.get("id"),
        name,
        _plain(members.get("arguments")),
        _plain(members.get("partial_arguments")),
        continued="name" in members and name is None,
    )


def _choice_tool_calls(state: Any, step: Step, value: Any) -> None:
    """Chat-completions tool-call fragments, merged by their ``index``."""
    if isinstance(value, list):
        state.add_tool_calls_data([_plain(fragment) for fragment in value])


def _choice_collect(state: Any, step: Step, value: Any) -> None:
    """A part kept as sent in the choice's ``content_parts``."""
    if value is not None:
        state.content_parts.append(_plain(value))


def _state_nothing(state: Any, step: Step, value: Any) -> None:
    """An action with no meaning for a choice or block (its state is created all the same)."""


_CHOICE_ACTIONS: dict[str, Callable[[Any, Step, Any], None]] = {
    "append": _choice_append,
    "stop": _choice_stop,
    "tool_call": _choice_tool_call,
    "tool_calls": _choice_tool_calls,
    "collect": _choice_collect,
}


# -- block actions: (block state, step, value) ---------------------------------------------


def _block_open(block: Any, step: Step, value: Any) -> None:
    """The block's identity from the object that opens it, each of the step's ``members``
    (read from it) over the object's own (``BlockState.open``)."""
    members = {name: _plain(member) for name, path in step.members if (member := _read(value, path)) is not None}
    block.open(_handed(value), members)


def _block_append(block: Any, step: Step, value: Any) -> None:
    """A piece of the block's text ``field`` (one of its own, else a named one)."""
    if isinstance(value, str):
        if step.field in _BLOCK_TEXTS:
            getattr(block, step.field).append(value)
        else:
            block.add_text(step.field, value)


def _block_delta(block: Any, step: Step, value: Any) -> None:
    """A delta object no ``append`` takes (``BlockState.add_delta``)."""
    block.add_delta(_handed(value))


def _block_close(block: Any, step: Step, value: Any) -> None:
    """The block is complete; the value, when the step reads one, is its finished object."""
    block.close(_handed(value) if step.value else None)


def _block_stop(block: Any, step: Step, value: Any) -> None:
    """The block's status."""
    if isinstance(value, str):
        block.status = value


def _block_collect(block: Any, step: Step, value: Any) -> None:
    """A value kept as sent in the block's ``deltas``."""
    if value is not None:
        block.deltas.append(_plain(value))


def _block_tool_call(block: Any, step: Step, value: Any) -> None:
    """A tool call sent whole: the block opened as one (``BlockState.tool_call``)."""
    members = _members(step, value)
    block.tool_call(members.get("id"), members.get("name"), _handed(members.get("arguments")))


_BLOCK_ACTIONS: dict[str, Callable[[Any, Step, Any], None]] = {
    "open": _block_open,
    "append": _block_append,
    "delta": _block_delta,
    "close": _block_close,
    "stop": _block_stop,
    "collect": _block_collect,
    "tool_call": _block_tool_call,
}


def _members(step: Step, value: Any) -> dict[str, Any]:
    return {name: _read(value, path) for name, path in step.members}


def _at(event: Any, compiled: _Compiled, positions: tuple[int, ...]) -> Any:
    """The element the key is read at: the event walked along the scope up to the
    key's last ``[*]``, taking the element at each recorded position."""
    if not compiled.key_stars:
        return event
    node = event
    star = 0
    for segment in compiled.scope:
        if segment == EACH:
            node = node[positions[star]]
            star += 1
            if star == compiled.key_stars:
                break
        else:
            node = _member(node, segment)
            if node is None:
                return None
    return node


def _elements(node: Any, path: Path, positions: tuple[int, ...]) -> Iterator[tuple[tuple[int, ...], Any]]:
    """``(positions, element)`` for each element ``path`` reaches from ``node``, in order;
    ``positions`` are the element's index in each array crossed."""
    for depth, segment in enumerate(path):
        if segment == EACH:
            if not isinstance(node, (list, tuple)):
                return
            rest = path[depth + 1 :]
            for position, item in enumerate(node):
                yield from _elements(item, rest, (*positions, position))
            return
        node = _member(node, segment)
        if node is None:
            return
    yield positions, node


def _values(node: Any, path: Path) -> Iterator[Any]:
    """Each value ``path`` reaches from ``node`` (one, or one per element for ``[*]``);
    nothing when a member on the way is missing (an empty path: ``node`` itself)."""
    if not path:
        yield node
        return
    for _, value in _elements(node, path, ()):
        if value is not None:
            yield value


def _read(node: Any, path: Path) -> Any:
    """The value at ``path`` (its first element through ``[*]``), or None."""
    for segment in path:
        if node is None:
            return None
        if segment == EACH:
            node = node[0] if isinstance(node, (list, tuple)) and node else None
        else:
            node = _member(node, segment)
    return node


def _member(node: Any, segment: Segment) -> Any:
    if isinstance(segment, str):
        attr = wire = segment
    else:
        attr, wire = segment
    if isinstance(node, dict):
        return node.get(wire)
    return getattr(node, attr, None)


def _holds(value: Any, test: str, expected: Any) -> bool:
    if test == "present":
        return (value is not None) is bool(expected)
    same = value == expected and type(value) is type(expected)
    return same if test == "eq" else not same


def _handed(value: Any) -> Any:
    """``value`` as the compiled plans hand it to the runtime: a pydantic model as plain data
    (the flavour's ``plain``), a msgspec object as it is (the runtime reads what the decoder
    kept of it as sent)."""
    return _plain(value) if hasattr(value, "model_dump") else value


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# -- plans from the IR ---------------------------------------------------------------------


def plan_of(payload: Schema, steps: tuple[AccumulateStep, ...], choices: bool) -> Plan:
    """The :class:`Plan` of a message of ``payload`` whose IR plan is ``steps``: each path's
    members as ``(identifier, wire name)`` (the generated class's field identifiers), a
    step's ``variant`` as an ``eq`` test of its union's tag member, a ``delta`` step (every
    other alternative) as ``not`` tests of the tags the ``append`` steps before it took."""
    taken: dict[str, list[str]] = {}
    out = []
    for step in steps:
        when = [(_segments(_element(payload, step), path), test, value) for path, (test, value) in step.when]
        if step.variant is not None:
            member, tag = step.variant
            when.append((_segments(payload, (member, _tag_member(payload, member))), "eq", tag))
            taken.setdefault(member, []).append(tag)
        elif step.action == "delta" and step.value:
            member = step.value[0]
            tag_path = _segments(payload, (member, _tag_member(payload, member)))
            when += [(tag_path, "not", tag) for tag in taken.get(member, [])]
        target = resolve_path(payload, step.value).schema if step.value else payload
        out.append(
            Step(
                step.action,
                key=_segments(payload, step.key),
                value=_segments(payload, step.value, step.variant),
                field=step.field,
                extra=_segments(payload, step.extra),
                when=tuple(when),
                members=tuple((name, _segments(target, path)) for name, path in step.members),
                mode=step.mode,
            )
        )
    return Plan(tuple(out), choices)


def _element(payload: Schema, step: AccumulateStep) -> Schema | None:
    """The schema ``when`` paths are read from: the element of the value's last ``[*]``."""
    value = step.value
    base = value[: len(value) - value[::-1].index(EACH)] if EACH in value else ()
    return resolve_path(payload, base).schema if base else payload


def _tag_member(payload: Schema, member: str) -> str:
    prop = payload.property(member)
    return prop.schema.discriminator if prop is not None and prop.schema.discriminator else "type"


def _segments(schema: Schema | None, path: tuple[str, ...], variant: tuple[str, str] | None = None) -> Path:
    """``path`` as the oracle reads it from an instance of ``schema``: ``"*"``, and each member
    as ``(identifier, wire name)``."""
    owners = dict(enumerate(resolve_path(schema, path, variant).nodes)) if schema is not None else {}
    out: list[Segment] = []
    for depth, segment in enumerate(path):
        owner = owners.get(depth)
        if segment == EACH:
            out.append(EACH)
            continue
        ident = segment
        if owner is not None and owner[1].type == "object":
            ident = str(field_identifiers(owner[1]).get(segment, segment))
        out.append((ident, segment))
    return tuple(out)


def plans_of(channel: Any, ir: Channel) -> dict[type, Plan]:
    """Each plan of IR channel ``ir`` by the class of the generated ``channel`` its message decodes to."""
    accumulation = ir.accumulation
    if accumulation is None:
        return {}
    choices = accumulation.result == "choices"
    plans = {}
    for name, steps in accumulation.steps:
        message = ir.message(name)
        if message is not None and name in channel.messages:
            # The first message of a class gives its plan, as the generated runs table does.
            plans.setdefault(channel.messages[name], plan_of(message.payload, steps, choices))
    return plans


def accumulate(channel: Any, ir: Channel, reads: Iterable[bytes], full_text: bool = False) -> Any:
    """``channel.accumulate(channel.decode(reads))`` with each event of a message with a plan
    applied by this oracle (an event decoded leniently through ``Accumulator.lenient``), every
    other through the channel's own run (the terminator, errors, vendor and unknown events)."""
    from ssegen.runtime.accumulate import Accumulator

    plans = plans_of(channel, ir)
    acc = Accumulator(full_text)
    acc.family = channel.family
    events = channel.decode(reads)
    for event in events:
        plan = plans.get(type(event))
        if plan is None:
            channel.apply(acc, event)
        elif getattr(event, "off_spec", None) is not None:
            acc.lenient(event, lambda acc, event, plan=plan: run(acc, plan, event))
        else:
            run(acc, plan, event)
    if events.incomplete:
        acc.truncated(events.state)
    return acc.result()


# -- streams to check compiled plans with ---------------------------------------------------------

#: The values a synthesized scalar takes: few, so that events of one stream meet (same index,
#: same tag) and texts join.
_STRINGS = ("", "a", "bc", "stop")
#: A value of a member typed as any JSON: each shape a plan may meet there.
_ANY = (None, "s", 1, True, {"a": "x", "type": "t", "text": "q"}, ["x", {"text": "y", "type": "text"}])


def instance(schema: Schema, rng: Any, depth: int = 0) -> Any:
    """A random JSON instance of ``schema`` drawn from ``rng`` (a ``random.Random``): optional
    members sent or not, nullable ones sometimes null, arrays of 0 to 3 items, a union's
    alternatives in turn, small integers and a few strings."""
    if schema.nullable and rng.random() < 0.15:
        return None
    if schema.enum:
        return rng.choice(schema.enum)
    kind = schema.type
    if depth > 7:
        return {} if kind == "object" else None
    if kind == "object":
        return {
            p.name: instance(p.schema, rng, depth + 1) for p in schema.properties if p.required or rng.random() < 0.6
        }
    if kind == "array":
        count = rng.choice((0, 1, 1, 2, 3))
        return [instance(schema.items, rng, depth + 1) for _ in range(count)] if schema.items else []
    if kind == "union":
        return instance(rng.choice(schema.variants), rng, depth + 1)
    scalars = {"string": _STRINGS, "integer": (0, 1, 2), "number": (0.5, 1.0), "boolean": (True, False)}
    return rng.choice(scalars.get(kind, _ANY))


def random_stream(channel: Any, ir: Channel, rng: Any, events: int = 30) -> bytes:
    """A body of ``events`` random JSON messages of IR channel ``ir`` (:func:`instance`), each
    framed as the generated ``channel`` writes it (its SSE event type), then most times the
    channel's literal terminator."""
    messages = [m for m in ir.messages if m.literal is None]
    out = []
    for _ in range(events):
        message = rng.choice(messages)
        event = message.event if message.event != "*" else "message"
        out.append(channel.framing.frame_text(json.dumps(instance(message.payload, rng)), event))
    literals = [m for m in ir.messages if m.literal is not None]
    if literals and rng.random() < 0.7:
        terminator = literals[0]
        event = "message" if terminator.event == "*" else terminator.event
        out.append(channel.framing.frame_text(terminator.literal, event))
    return b"".join(out)
