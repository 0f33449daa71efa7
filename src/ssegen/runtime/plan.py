"""The accumulation plan executor: runs any plan's steps over a typed event.

A generated package's ``channels.py`` holds each message's plan as data (:class:`Step`
tuples, the IR's ``AccumulateStep`` with member paths resolved to field identifiers) and
hands each event to :func:`run`. Steps the code model can compile to typed statements (the
chat family's fast path, the Messages and Responses tables) never come here; the others (paths
through arrays with ``[*]``, ``when`` tests, ``members``, ``tool_call``, ``collect``,
``complete``, usage ``replace``, named stream texts) do: the Gemini family and stated plans.

A path is a tuple of segments: :data:`EACH` (every element of the array read so far) or a
member ``(identifier, wire name)``, read with ``getattr`` from a typed object and by wire
name from a plain dict (a member typed as any JSON). The semantics are README
"Accumulation"'s; copied verbatim into every generated package like ``stream.py``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

from .accumulate import Accumulator, BlockState, ChoiceState, _plain

#: A path segment meaning every element of the array before it (``[*]``).
EACH = "*"

Segment = tuple[str, str] | str
Path = tuple[Segment, ...]

_BLOCK_TEXTS = frozenset(("text", "thinking", "signature", "refusal", "arguments"))


class Step(NamedTuple):
    """One step of a plan (the IR's ``AccumulateStep``; README "Accumulation").

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
            ``value``.
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
        self.steps = tuple(_Compiled(step) for step in steps)
        self.choices = choices


class _Compiled:
    """A step with its scope: the longest prefix of ``value`` ending in ``[*]`` that
    the key shares up to its own last ``[*]`` (the element the key and ``when`` are read
    at), and each path's rest after it."""

    __slots__ = ("step", "scope", "key", "key_stars", "value", "extra")

    def __init__(self, step: Step) -> None:
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


def run(acc: Accumulator, plan: Plan, event: Any) -> None:
    """Apply ``event`` (a typed event, or plain JSON data) to ``acc`` by ``plan``'s steps,
    in order. A member missing on the way makes a step do nothing for that element; a
    value of another type than the step reads is skipped. Never raises for any event
    shape."""
    slots = acc.states if plan.choices else acc.blocks
    for compiled in plan.steps:
        step = compiled.step
        for positions, element in _elements(event, compiled.scope, ()):
            for value in _values(element, compiled.value):
                if step.when and not all(
                    _holds(_read(element, path), test, expected)
                    for path, test, expected in step.when
                ):
                    continue
                _apply(acc, plan, slots, compiled, positions, element, value, event)


def _apply(
    acc: Accumulator,
    plan: Plan,
    slots: Any,
    compiled: _Compiled,
    positions: tuple[int, ...],
    element: Any,
    value: Any,
    event: Any,
) -> None:
    step = compiled.step
    action = step.action
    if action == "meta":
        extra = _read(event, compiled.extra) if compiled.extra else None
        acc.meta(_text(value), _text(extra))
        return
    if action == "usage":
        if step.mode == "replace":
            acc.set_usage(value)
        else:
            acc.merge_usage(value)
        return
    if action in ("done", "complete"):
        if action == "done" or value is not None:
            acc.done()
        return
    if action == "error":
        if step.value:
            acc.error_in_chunk(value)
        else:
            acc.error(event)
        return
    if action == "snapshot":
        acc.snapshot(value)
        return
    if not step.key:
        if action == "stop":
            acc.stop_reason = _text(value) or acc.stop_reason
        elif action == "append":
            acc.add_text(step.field, value)
        elif action == "collect":
            acc.collect(step.field, _plain(value))
        elif action == "tool_call" and not plan.choices:
            members = _members(step, value)
            acc.tool_call(members.get("id"), members.get("name"), members.get("arguments"))
        elif action in ("open", "delta", "close", "tool_call"):
            _keyed(acc, plan, slots, step, 0, value)
        return
    key: Any = _read(_at(event, compiled, positions), compiled.key)
    if not isinstance(key, int) or isinstance(key, bool):
        key = positions[compiled.key_stars - 1] if compiled.key_stars else None
        if key is None:
            return
    _keyed(acc, plan, slots, step, key, value)


def _keyed(acc: Accumulator, plan: Plan, slots: Any, step: Step, key: int, value: Any) -> None:
    action = step.action
    if plan.choices:
        state: ChoiceState = slots.get(key) or acc.choice(key)
        if action == "append":
            if isinstance(value, str):
                state.add_text(step.field, value)
        elif action == "stop":
            if isinstance(value, str):
                state.finish_reason = value
        elif action == "tool_call":
            members = _members(step, value)
            name = _text(members.get("name"))
            state.add_call(
                _text(members.get("id")),
                name,
                members.get("arguments"),
                members.get("partial_arguments"),
                continued="name" in members and name is None,
            )
        elif action == "collect":
            if value is not None:
                state.content_parts.append(_plain(value))
        return
    block: BlockState = slots[key]
    if action == "open":
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
    elif action == "append":
        if isinstance(value, str):
            if step.field in _BLOCK_TEXTS:
                getattr(block, step.field).append(value)
            else:
                block.add_text(step.field, value)
    elif action == "delta":
        block.add_delta(value)
    elif action == "close":
        block.close(value if step.value else None)
    elif action == "stop":
        if isinstance(value, str):
            block.status = value
    elif action == "collect":
        if value is not None:
            block.deltas.append(_plain(value))
    elif action == "tool_call":
        members = _members(step, value)
        block.open({"type": "tool_call"} if block.kind is None else {})
        for name in ("id", "name"):
            if isinstance(members.get(name), str):
                setattr(block, name, members[name])
        arguments = members.get("arguments")
        if isinstance(arguments, str):
            block.arguments.append(arguments)
        elif arguments is not None:
            block.input = _plain(arguments)


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
