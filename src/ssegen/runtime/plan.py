"""The accumulation plan executor: runs any plan's steps over a typed event.

A generated package's ``channels.py`` holds each message's plan as data (:class:`Step`
tuples, the IR's ``AccumulateStep`` with member paths resolved to field identifiers) and
hands each event to :func:`run`. Steps the code model can compile to typed statements (the
chat family's fast path, the Messages and Responses tables) never come here; the others (paths
through arrays with ``[*]``, ``when`` tests, ``members``, ``tool_call``, ``collect``,
``complete``, usage ``replace``, named stream texts) do: the Gemini family and stated plans.

A path is a tuple of segments: :data:`EACH` (every element of the array read so far) or a
member ``(identifier, wire name)``, read with ``getattr`` from a typed object and by wire
name from a plain dict (a member typed as any JSON). The semantics are those of
docs/accumulation.md; written verbatim into every output folder's runtime like ``stream.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from .accumulate import Accumulator, BlockState, ChoiceState, usage_of
from .accumulate_parts import _plain

#: A path segment meaning every element of the array before it (``[*]``).
EACH = "*"

Segment = tuple[str, str] | str
Path = tuple[Segment, ...]

_BLOCK_TEXTS = frozenset(("text", "thinking", "signature", "refusal", "arguments"))


class Step(NamedTuple):
    """One step of a plan (the IR's ``AccumulateStep``; docs/accumulation.md).

    Attributes:
        action: ``meta``, ``open``, ``append``, ``collect``, ``delta``, ``tool_call``,
            ``close``, ``snapshot``, ``stop``, ``usage``, ``done``, ``complete`` or ``error``.
        key, value, extra: paths from the event's root ("()": none).
        field: the text or list ``append`` and ``collect`` add to.
        when: ``(path, test, expected)`` triples, each path read from the element of
            ``value``'s last ``[*]`` (the event without one); ``test`` is ``eq``, ``not``
            (absent or another value) or ``present`` (``expected`` True or False).
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

    __slots__ = ("steps", "choices")

    def __init__(self, steps: tuple[Step, ...], choices: bool = False) -> None:
        self.steps = tuple(_Compiled(step, choices) for step in steps)
        self.choices = choices


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


def run(acc: Accumulator, plan: Plan, event: Any) -> None:
    """Apply ``event`` (a typed event, or plain JSON data) to ``acc`` by ``plan``'s steps,
    in order. A member missing on the way makes a step do nothing for that element; a
    value of another type than the step reads is skipped. Never raises for any event
    shape.

    A keyed step applies to the choice or block its key names (:func:`_key`; 0 for a
    step with no key), created on first use; the others to the stream (``acc``)."""
    choices = plan.choices
    slots = acc.states if choices else acc.blocks
    for compiled in plan.steps:
        step = compiled.step
        apply = compiled.apply
        for positions, element in _elements(event, compiled.scope, ()):
            for value in _values(element, compiled.value):
                if step.when and not all(
                    _holds(_read(element, path), test, expected)
                    for path, test, expected in step.when
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


def _action(step: Step, choices: bool) -> tuple[bool, Callable[..., None]]:
    """Whether ``step`` is keyed, and the function applying it: one of
    :data:`_STREAM_ACTIONS` (called with the accumulator, the compiled step, the value
    and the event), or of :data:`_CHOICE_ACTIONS` or :data:`_BLOCK_ACTIONS` (called with
    the choice's or block's state, the step and the value). ``stop``, ``append`` and
    ``collect`` with no key apply to the stream, as does ``tool_call`` with no key on
    blocks (each call its own block: :meth:`Accumulator.tool_call`); ``open``, ``delta``,
    ``close`` and ``tool_call`` (on choices) with no key to choice or block 0. An action a
    table lacks does nothing (a keyed one still creates its choice or block)."""
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
    key = _read(_at(event, compiled, positions), compiled.key)
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    return positions[compiled.key_stars - 1] if compiled.key_stars else None


# -- stream actions: (acc, compiled step, value, event) ------------------------------------


def _meta(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """The completion id (``value``) and model (``extra``, read from the event's root)."""
    extra = _read(event, compiled.extra) if compiled.extra else None
    acc.meta(_text(value), _text(extra))


def _usage(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """A usage object, replacing the stream's (mode ``replace``) or merged into it."""
    if compiled.step.mode == "replace":
        acc.set_usage(value)
    else:
        acc.merge_usage(value)


def _usage_members(step: Step) -> Callable[..., None]:
    """The action of a ``usage`` step with ``members``: the usage object is those members of
    the value that are sent (:func:`usage_of`); an event sending none changes nothing. A
    member that is one member of a typed value is read by attribute (resolved here, once)."""
    one = all(len(path) == 1 and path[0] != EACH for _, path in step.members)
    attrs = tuple((name, p if isinstance(p, str) else p[0]) for name, (p, *_) in step.members)

    def apply(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
        if one and not isinstance(value, dict):
            usage = usage_of([(name, getattr(value, attr, None)) for name, attr in attrs])
        else:
            usage = usage_of((name, _read(value, path)) for name, path in step.members)
        if usage is not None:
            _usage(acc, compiled, usage, event)

    return apply


def _done(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """The stream's terminator was seen."""
    acc.done()


def _complete(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """The stream is complete when the value is present (a ``finishReason``)."""
    if value is not None:
        acc.done()


def _error(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """An error: the member the step reads, else the whole event."""
    if compiled.step.value:
        acc.error_in_chunk(value)
    else:
        acc.error(event)


def _snapshot(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """The finished output, sent again at the end."""
    acc.snapshot(value)


def _stream_stop(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """The stream's stop reason (an empty or absent one keeps the last)."""
    acc.stop_reason = _text(value) or acc.stop_reason


def _stream_append(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """A piece of the stream's named text ``field``."""
    acc.add_text(compiled.step.field, value)


def _stream_collect(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """A value for the stream's named list ``field``, as sent."""
    acc.collect(compiled.step.field, _plain(value))


def _stream_tool_call(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """A tool call sent whole, outside any block (Ollama's ``message.tool_calls[*]``): its
    own new block after the last."""
    members = _members(compiled.step, value)
    acc.tool_call(members.get("id"), members.get("name"), members.get("arguments"))


def _stream_nothing(acc: Accumulator, compiled: _Compiled, value: Any, event: Any) -> None:
    """An action with no meaning for the stream."""


#: The actions that always apply to the stream, key or not.
_STREAM_ACTIONS: dict[str, Callable[[Accumulator, _Compiled, Any, Any], None]] = {
    "meta": _meta,
    "usage": _usage,
    "done": _done,
    "complete": _complete,
    "error": _error,
    "snapshot": _snapshot,
}
#: The actions that apply to the stream when they have no key.
_UNKEYED_ACTIONS: dict[str, Callable[[Accumulator, _Compiled, Any, Any], None]] = {
    "stop": _stream_stop,
    "append": _stream_append,
    "collect": _stream_collect,
}
#: The actions that apply to choice or block 0 when they have no key.
_ALWAYS_KEYED = frozenset(("open", "delta", "close", "tool_call"))


# -- choice actions: (choice state, step, value) -------------------------------------------


def _choice_append(state: ChoiceState, step: Step, value: Any) -> None:
    """A piece of the choice's text ``field``."""
    if isinstance(value, str):
        state.add_text(step.field, value)


def _choice_stop(state: ChoiceState, step: Step, value: Any) -> None:
    """The choice's finish reason."""
    if isinstance(value, str):
        state.finish_reason = value


def _choice_tool_call(state: ChoiceState, step: Step, value: Any) -> None:
    """A tool call, or a part continuing the last one (``name`` read and absent)."""
    members = _members(step, value)
    name = _text(members.get("name"))
    state.add_call(
        _text(members.get("id")),
        name,
        members.get("arguments"),
        members.get("partial_arguments"),
        continued="name" in members and name is None,
    )


def _choice_collect(state: ChoiceState, step: Step, value: Any) -> None:
    """A part kept as sent in the choice's ``content_parts``."""
    if value is not None:
        state.content_parts.append(_plain(value))


def _state_nothing(state: Any, step: Step, value: Any) -> None:
    """An action with no meaning for a choice or block (its state is created all the same)."""


_CHOICE_ACTIONS: dict[str, Callable[[ChoiceState, Step, Any], None]] = {
    "append": _choice_append,
    "stop": _choice_stop,
    "tool_call": _choice_tool_call,
    "collect": _choice_collect,
}


# -- block actions: (block state, step, value) ---------------------------------------------


def _block_open(block: BlockState, step: Step, value: Any) -> None:
    """The block's identity from the object that opens it (:meth:`BlockState.open`), then
    each of the step's ``members`` read from it: ``arguments`` (text appended, an object
    taken as the input), ``id``, ``name``, ``call_id``, ``status``, ``kind`` or ``type``
    (the kind)."""
    block.open(value)
    for name, path in step.members:
        member = _read(value, path)
        if name == "arguments":
            if isinstance(member, str):
                if member:
                    block.arguments.append(member)
            elif member is not None:
                block.input = _plain(member)
        elif name in ("id", "name", "call_id", "status", "kind"):
            if isinstance(member, str):
                setattr(block, name, member)
        elif name == "type" and isinstance(member, str):
            block.kind = member


def _block_append(block: BlockState, step: Step, value: Any) -> None:
    """A piece of the block's text ``field`` (one of its own, else a named one)."""
    if isinstance(value, str):
        if step.field in _BLOCK_TEXTS:
            getattr(block, step.field).append(value)
        else:
            block.add_text(step.field, value)


def _block_delta(block: BlockState, step: Step, value: Any) -> None:
    """A delta object no ``append`` takes (:meth:`BlockState.add_delta`)."""
    block.add_delta(value)


def _block_close(block: BlockState, step: Step, value: Any) -> None:
    """The block is complete; the value, when the step reads one, is its finished object."""
    block.close(value if step.value else None)


def _block_stop(block: BlockState, step: Step, value: Any) -> None:
    """The block's status."""
    if isinstance(value, str):
        block.status = value


def _block_collect(block: BlockState, step: Step, value: Any) -> None:
    """A value kept as sent in the block's ``deltas``."""
    if value is not None:
        block.deltas.append(_plain(value))


def _block_tool_call(block: BlockState, step: Step, value: Any) -> None:
    """A tool call sent whole: the block opened as one (kind ``tool_call`` unless it has a
    kind), its ``id`` and ``name``, its ``arguments`` (text appended, an object taken as
    the input)."""
    members = _members(step, value)
    block.tool_call(members.get("id"), members.get("name"), members.get("arguments"))


_BLOCK_ACTIONS: dict[str, Callable[[BlockState, Step, Any], None]] = {
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
            if star == compiled.key_stars:
                break
            node = node[positions[star]]
            star += 1
            if star == compiled.key_stars:
                break
        else:
            node = _member(node, segment)
            if node is None:
                return None
    return node


def _elements(
    node: Any, path: Path, positions: tuple[int, ...]
) -> Iterator[tuple[tuple[int, ...], Any]]:
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


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None
