"""The typed fast path of a plan the runtime's executor would otherwise run.

:func:`compile_steps` turns a message's accumulation steps (paths through arrays with ``[*]``,
``when`` tests, ``tool_call``, ``collect``, ``complete``, named texts: the ``gemini`` family and
stated plans) into Python statements over the generated classes: each array is walked once per
event (``for`` loops nested as the paths nest, the steps of one element run in step order),
members that may be None are bound and tested, ``when`` tests become conditions. A plan it
cannot compile (a union or any-JSON member on a path, ``open`` with ``members``, ``delta``, a
non-integer key) is left to ``runtime/plan.py`` (None), which runs any plan over the same
objects with the same result.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..ir import EACH, AccumulateStep, Schema, WhenTest, resolve_path
from .models import field_identifiers

#: Choice fields an ``append`` step adds to directly (any other name: ``add_text``).
_CHOICE_TEXTS = ("content", "reasoning_content", "refusal")
#: Block fields an ``append`` step adds to directly.
_BLOCK_TEXTS = ("text", "thinking", "signature", "refusal", "arguments")


class _Unsupported(Exception):
    """The step cannot be compiled to typed statements (the executor runs the plan)."""


@dataclass
class _Scope:
    """One ``[*]`` level: the element variable, its schema, its position variable, and
    what runs per element (statements and nested scopes, in first-step order)."""

    path: tuple[str, ...]
    var: str
    schema: Schema
    position: str = ""
    body: list[str | _Scope] = field(default_factory=list)
    loop: list[str] = field(default_factory=list)  # the guarded ``for`` header lines


def compile_steps(
    payload: Schema, steps: tuple[AccumulateStep, ...], choices: bool, plain: str = "{}"
) -> tuple[str, ...] | None:
    """The statements (one block of lines each, for the body of the handler's ``for chunk``
    loop, reading ``chunk`` and ``acc``) running ``steps`` on an event of ``payload``, or
    None when a step cannot be compiled. ``choices``: keyed steps assemble
    ``acc.choice(key)`` (else ``acc.blocks[key]``); ``plain`` wraps a value the runtime
    turns into plain data (the flavour's conversion)."""
    names = (f"v{i}" for i in range(10_000))
    root = _Scope((), "chunk", payload)
    try:
        for step in steps:
            _place(root, step, payload, choices, plain, names)
    except _Unsupported:
        return None
    return tuple(_unbound(_render(item)) for item in root.body)


_BINDING = re.compile(r"\((v[0-9]+) := ([A-Za-z_][\w.]*)\)")


def _unbound(code: str) -> str:
    """``code`` with each ``(v := expression)`` whose name nothing else reads written as
    the expression alone (a member only tested, as ``finishReason`` for ``complete``)."""
    for match in list(_BINDING.finditer(code)):
        name = match.group(1)
        if len(re.findall(rf"\b{name}\b", code)) == 1:
            code = code.replace(match.group(0), match.group(2), 1)
    return code


def _render(item: str | _Scope) -> str:
    if isinstance(item, str):
        return item
    lines = list(item.loop)
    inner = "    " * len(item.loop)
    for child in item.body:
        lines += [inner + line for line in _render(child).split("\n")]
    return "\n".join(lines)


def _scope_of(step: AccumulateStep) -> tuple[str, ...]:
    value = step.value
    return value[: len(value) - value[::-1].index(EACH)] if EACH in value else ()


def _enter(root: _Scope, path: tuple[str, ...], names: Iterator[str]) -> list[_Scope]:
    """The chain of scopes from ``root`` down to the element of ``path`` (which ends in
    ``[*]``, or is empty), made on first use."""
    chain = [root]
    node = root
    start = 0
    for end in [i + 1 for i, s in enumerate(path) if s == EACH]:
        sub = path[:end]
        child = next((c for c in node.body if isinstance(c, _Scope) and c.path == sub), None)
        if child is None:
            guards, expr, schema = _access(node.var, node.schema, path[start : end - 1], names)
            if schema.type != "array" or schema.items is None:
                raise _Unsupported
            var, position = next(names), next(names)
            header = f"for {position}, {var} in enumerate({expr}):"
            child = _Scope(sub, var, schema.items, position)
            child.loop = [f"if {' and '.join(guards)}:", "    " + header] if guards else [header]
            node.body.append(child)
        node = child
        chain.append(node)
        start = end
    return chain


def _access(
    expr: str, schema: Schema, path: tuple[str, ...], names: Iterator[str], last: bool = True
) -> tuple[list[str], str, Schema]:
    """``(guards, expression, schema)`` reading member ``path`` of ``expr`` (an instance of
    ``schema``, the path walked by :func:`ssegen.ir.resolve_path`): each member that may be
    None bound and tested (the last one too only when ``last``: the caller may take None
    for it). A union, any JSON or an array on the way is left to the executor."""
    found = resolve_path(schema, path)
    if found.schema is None or len(found.nodes) != len(path) or found.schema.type in ("union", "any"):
        raise _Unsupported
    guards: list[str] = []
    reached = schema
    for depth, (name, owner) in enumerate(found.nodes):
        prop = owner.property(name) if name != EACH and owner is reached else None
        if prop is None or not owner.properties:
            raise _Unsupported  # an array, or a union entered on the way
        expr = f"{expr}.{field_identifiers(owner)[name]}"
        if (not prop.required or prop.schema.nullable) and (last or depth < len(path) - 1):
            bound = next(names)
            guards.append(f"({bound} := {expr}) is not None")
            expr = bound
        reached = prop.schema
    return guards, expr, reached


def _inline(expr: str, schema: Schema | None, path: tuple[str, ...], names: Iterator[str]) -> str:
    """An expression of member ``path`` of ``expr`` that is None when a member on the way is."""
    if schema is None:
        raise _Unsupported
    guards, value, _ = _access(expr, schema, path, names, last=False)
    return f"({value} if {' and '.join(guards)} else None)" if guards else value


def _test(expr: str, schema: Schema, path: tuple[str, ...], test: WhenTest, names: Iterator[str]) -> str:
    kind, expected = test
    # A value compared with a constant other than None needs no None test of its own.
    guards, value, _ = _access(expr, schema, path, names, last=kind == "present" or expected is None)
    if kind == "present":
        held = " and ".join(guards) if guards else "True"
        return held if expected else f"not ({held})"
    if isinstance(expected, bool) or expected is None:
        compare = f"{value} is {expected!r}"
    elif isinstance(expected, (str, int, float)):
        compare = f"{value} == {expected!r}"
    else:
        raise _Unsupported
    held = " and ".join([*guards, compare])
    return held if kind == "eq" else f"not ({held})"


def _place(
    root: _Scope, step: AccumulateStep, payload: Schema, choices: bool, plain: str, names: Iterator[str]
) -> None:
    """Add ``step``'s statement to the scope of its value's last ``[*]``."""
    if step.variant is not None or step.action in ("delta", "tool_calls") or (step.action == "open" and step.members):
        raise _Unsupported
    chain = _enter(root, _scope_of(step), names)
    scope = chain[-1]
    guards: list[str] = []
    value = "None"
    schema: Schema | None = None
    if step.value:
        g, value, schema = _access(scope.var, scope.schema, step.value[len(scope.path) :], names)
        guards += g
    for path, test in step.when:
        guards.append(_test(scope.var, scope.schema, path, test, names))
    key = ""
    if step.key:
        stars = step.key.count(EACH)
        owner = chain[stars] if stars < len(chain) else None
        if owner is None or step.key[: len(owner.path)] != owner.path:
            raise _Unsupported
        g, expr, key_schema = _access(owner.var, owner.schema, step.key[len(owner.path) :], names)
        if key_schema.type != "integer":
            raise _Unsupported
        if g and owner.position:
            key = f"{expr} if {' and '.join(g)} else {owner.position}"
        elif g:
            guards += g
            key = expr
        else:
            key = expr
    lines = _statement(step, key, value, schema, choices, plain, names)
    if step.action == "meta":
        extra = _inline("chunk", payload, step.extra, names) if step.extra else "None"
        lines = [f"acc.meta({value if step.value else 'None'}, {extra})"]
        # The first id and model win: once both are known, nothing is read.
        guards.insert(0, "(acc.id is None or acc.model is None)")
    if guards:
        lines = [f"if {' and '.join(guards)}:", *("    " + line for line in lines)]
    scope.body.append("\n".join(lines))


def _statement(
    step: AccumulateStep, key: str, value: str, schema: Schema | None, choices: bool, plain: str, names: Iterator[str]
) -> list[str]:
    action = step.action
    if action in ("append", "stop") and step.value and (schema is None or schema.type != "string"):
        raise _Unsupported
    if key and choices:
        bound = next(names)
        slot = f"(acc.states.get({bound} := {key}) or acc.choice({bound}))"
    else:
        slot = f"acc.blocks[{key}]" if key else ""
    if action == "meta":
        return []
    if action == "append":
        if not key:
            return [f"acc.add_text({step.field!r}, {value})"]
        fields = _CHOICE_TEXTS if choices else _BLOCK_TEXTS
        if step.field in fields:
            return [f"{slot}.{step.field}.append({value})"]
        return [f"{slot}.add_text({step.field!r}, {value})"]
    if action == "collect":
        if not key:
            return [f"acc.collect({step.field!r}, as_sent({value}))"]
        return [f"{slot}.{'content_parts' if choices else 'deltas'}.append(as_sent({value}))"]
    if action == "stop":
        if not key:
            return [f"acc.stop_reason = {value}"]
        return [f"{slot}.{'finish_reason' if choices else 'status'} = {value}"]
    if action == "usage":
        if step.mode == "replace":
            return [f"acc.set_usage({value})" if plain == "{}" else f"acc.set_usage({plain.format(value)}, {value})"]
        return [f"acc.merge_usage({plain.format(value)})"]
    if action == "complete" or action == "done":
        return ["acc.done()"]
    if action == "error":
        return [f"acc.error_in_chunk({plain.format(value)})" if step.value else f"acc.error({plain.format('chunk')})"]
    if action == "snapshot":
        return [f"acc.snapshot({plain.format(value)})"]
    if action in ("open", "close") and key:
        return [f"{slot}.{action}({plain.format(value) if step.value else ''})"]
    if action == "tool_call" and (key and choices or not key and not choices):
        members = dict(step.members)
        read = {
            name: _inline(value, schema, members[name], names) if name in members else "None"
            for name in ("id", "name", "arguments", "partial_arguments")
        }
        if not key:  # a call sent whole, its own output block (runtime Accumulator.tool_call)
            return [f"acc.tool_call({read['id']}, {read['name']}, {plain.format(read['arguments'])})"]
        state, name = next(names), next(names)
        continued = f"{name} is None" if "name" in members else "False"
        return [
            f"{state} = {slot}",
            f"{state}.add_call({read['id']}, ({name} := {read['name']}), {plain.format(read['arguments'])}, "
            f"{plain.format(read['partial_arguments'])}, {continued})",
        ]
    raise _Unsupported
