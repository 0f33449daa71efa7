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
class _Stmt:
    """One step's statement: the conditions it runs under, in order, and its lines; or a
    group of consecutive statements sharing their first condition (``group``: each
    with the conditions left, its binding renamed to the shared one)."""

    guards: list[str]
    lines: list[str]
    group: list[_Stmt] | None = None


@dataclass
class _Scope:
    """One ``[*]`` level: the element variable, its schema, its position variable, and
    what runs per element (statements and nested scopes, in first-step order)."""

    path: tuple[str, ...]
    var: str
    schema: Schema
    position: str = ""
    body: list[_Stmt | _Scope] = field(default_factory=list)
    guards: list[str] = field(default_factory=list)  # what the loop runs under
    iterable: str = ""


@dataclass(frozen=True)
class Compiled:
    """A plan compiled to typed statements.

    Attributes:
        statements: one block of lines each, for the body of the handler's ``for chunk``
            loop, reading ``chunk`` and ``acc``.
        before: lines binding what the statements read before the loop (``states =
            acc.states``, the usage last sent so far).
        after: lines run once the loop is left, however it is (a ``finally`` block: the
            usage a ``replace`` step kept, handed over once per run).
    """

    statements: tuple[str, ...]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()


def compile_steps(
    payload: Schema, steps: tuple[AccumulateStep, ...], choices: bool, plain: str = "{}"
) -> Compiled | None:
    """``steps`` on an event of ``payload`` as typed statements (:class:`Compiled`), or None
    when a step cannot be compiled. ``choices``: keyed steps assemble ``acc.choice(key)``
    (else ``acc.blocks[key]``); ``plain`` wraps a value the runtime turns into plain data
    (the flavour's conversion).

    What an event does is what the steps do in order, with less work per element: each
    array walked once, an element's position counted only where a key falls back to it,
    consecutive steps testing the same member test it once (and two opposite ``when``
    tests of it are one ``if``/``else``), ``acc.states`` read once per run, and a usage
    object that each event replaces handed to the accumulator once per run (the last one
    sent: what the steps leave when every usage step of the message is a ``replace``)."""
    names = (f"v{i}" for i in range(10_000))
    root = _Scope((), "chunk", payload)
    hoist = _usage_handed_once(steps)
    try:
        for step in steps:
            _place(root, step, payload, choices, plain, names, hoist)
    except _Unsupported:
        return None
    statements = tuple(_unbound(_render(item)) for item in _factored(root.body))
    statements, before = _bindings(statements)
    if not hoist:
        return Compiled(statements, before)
    handed = "acc.set_usage(usage)" if plain == "{}" else f"acc.set_usage({plain.format('usage')}, usage)"
    return Compiled(statements, (*before, "usage: Any = None"), ("if usage is not None:", f"    {handed}"))


def _usage_handed_once(steps: tuple[AccumulateStep, ...]) -> bool:
    """True when the message has usage steps and each replaces the usage with the object
    sent (no ``members`` to build it from): only the last one sent in a run matters, so it
    is handed to the accumulator once per run."""
    usage = [s for s in steps if s.action == "usage"]
    return bool(usage) and all(s.mode == "replace" and not s.members for s in usage)


def _bindings(statements: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``statements``, and the lines binding before the loop what they read: the choice states
    (``states``), the texts (``texts``), and whether ``meta`` still has something to read, by what
    the meta steps read (:data:`_NEED_METAS`; steps reading different members each wait for both,
    their lines rewritten to :data:`_NEED_META`)."""
    before: tuple[str, ...] = ("states = acc.states",) if any("states.get(" in s for s in statements) else ()
    if any("texts.get(" in s for s in statements):
        before += ("texts = acc.texts",)
    read = {line.strip() for code in statements for line in code.splitlines()}
    needs = [need for need in _NEED_METAS if need in read]
    if len(needs) > 1:  # meta steps reading different members: each waits for both
        for need in needs:
            line = re.compile(rf"^(\s*){re.escape(need)}$", re.M)
            statements = tuple(line.sub(rf"\g<1>{_NEED_META}", code) for code in statements)
        needs = [_NEED_META]
    return statements, before + tuple(needs)


_BINDING = re.compile(r"\((v[0-9]+) := ([A-Za-z_][\w.]*)\)")


def _unbound(code: str) -> str:
    """``code`` with each ``(v := expression)`` whose name nothing else reads written as
    the expression alone (a member only tested, as ``finishReason`` for ``complete``)."""
    for match in list(_BINDING.finditer(code)):
        name = match.group(1)
        if len(re.findall(rf"\b{name}\b", code)) == 1:
            code = code.replace(match.group(0), match.group(2), 1)
    return code


def _render(item: _Stmt | _Scope) -> str:
    if isinstance(item, _Stmt):
        lines = item.lines if item.group is None else _members(item.group)
        if not item.guards:
            return "\n".join(lines)
        return "\n".join([f"if {' and '.join(item.guards)}:", *("    " + line for line in lines)])
    body = [line for child in _factored(item.body) for line in _render(child).split("\n")]
    lines = [f"if {' and '.join(item.guards)}:"] if item.guards else []
    inner = "    " if item.guards else ""
    if re.search(rf"\b{item.position}\b", "\n".join(body)):
        # A key falls back to the element's position: counted, cheaper than ``enumerate``.
        lines += [f"{inner}{item.position} = -1", f"{inner}for {item.var} in {item.iterable}:"]
        body = [f"{item.position} += 1", *body]
    else:
        lines.append(f"{inner}for {item.var} in {item.iterable}:")
    return "\n".join([*lines, *(f"{inner}    {line}" for line in body)])


def _members(group: list[_Stmt]) -> list[str]:
    """The lines of a group's statements, in order; two consecutive ones under opposite
    single tests (``not (X)``, then ``X``; or the reverse) as one ``if``/``else``."""
    lines: list[str] = []
    index = 0
    while index < len(group):
        first = group[index]
        second = group[index + 1] if index + 1 < len(group) else None
        pair = second is not None and len(first.guards) == len(second.guards) == 1
        if second is not None and pair and _opposite(first.guards[0], second.guards[0]):
            lines += [f"if {first.guards[0]}:", *("    " + line for line in first.lines)]
            lines += ["else:", *("    " + line for line in second.lines)]
            index += 2
            continue
        lines += _render(first).split("\n")
        index += 1
    return lines


def _opposite(one: str, other: str) -> bool:
    """True when test ``one`` holds exactly when ``other`` does not (``not (X)`` and ``X``)."""
    return one == f"not ({other})" or other == f"not ({one})"


#: Whether ``meta`` still has something to read (bound before the loop, again after it runs),
#: by what the step reads: both, the model only (a step with no id: Ollama's lines send none, and
#: testing ``acc.id`` kept meta called on every line, 20,000 calls a 20,000-line stream), or the
#: id only.
_NEED_META = "need_meta = acc.id is None or acc.model is None"
_NEED_MODEL = "need_meta = acc.model is None"
_NEED_ID = "need_meta = acc.id is None"
_NEED_METAS = (_NEED_META, _NEED_MODEL, _NEED_ID)

#: A guard binding a member and testing it: ``(v3 := part.text) is not None``.
_BOUND_GUARD = re.compile(r"^\((v[0-9]+) := ([A-Za-z_][\w.]*)\) is not None$")


def _tested(guard: str) -> tuple[str, str]:
    """``(what the guard tests, the name it binds)``: the member expression of a binding
    guard (``part.text``, ``v3``), else the guard itself and ""."""
    match = _BOUND_GUARD.match(guard)
    return (match.group(2), match.group(1)) if match else (guard, "")


def _factored(body: list[_Stmt | _Scope]) -> list[_Stmt | _Scope]:
    """``body`` with each run of consecutive statements whose first guard tests the same
    member of the event (not of the accumulator, which a statement may change) written as
    one group under that guard, the name it binds shared."""
    out: list[_Stmt | _Scope] = []
    for item in body:
        last = out[-1] if out else None
        if (
            isinstance(item, _Stmt)
            and isinstance(last, _Stmt)
            and item.guards
            and last.guards
            and "acc." not in item.guards[0]
            and item.guards[0] != "need_meta"
            and _tested(item.guards[0])[0] == _tested(last.guards[0])[0]
        ):
            group = last if last.group is not None else _Stmt(last.guards[:1], [], [_Stmt(last.guards[1:], last.lines)])
            assert group.group is not None
            group.group.append(_renamed(item, _tested(group.guards[0])[1]))
            out[-1] = group
        else:
            out.append(item)
    return out


def _renamed(item: _Stmt, name: str) -> _Stmt:
    """``item`` without its first guard, the name that guard binds renamed to ``name``."""
    _, own = _tested(item.guards[0])
    if not own or own == name:
        return _Stmt(item.guards[1:], item.lines)
    rename = re.compile(rf"\b{own}\b")
    return _Stmt([rename.sub(name, g) for g in item.guards[1:]], [rename.sub(name, line) for line in item.lines])


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
            child = _Scope(sub, var, schema.items, position, guards=guards, iterable=expr)
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
    root: _Scope,
    step: AccumulateStep,
    payload: Schema,
    choices: bool,
    plain: str,
    names: Iterator[str],
    hoist: bool = False,
) -> None:
    """Add ``step``'s statement to the scope of its value's last ``[*]`` (``hoist``: a
    ``replace`` usage is kept in ``usage``, handed over once the run ends).

    Raises :class:`_Unsupported` for a step the executor must run. Names are drawn from
    ``names`` in a fixed order (new scopes, value, ``when`` tests, key, usage members,
    statement, ``meta``'s extra), so one plan always compiles to the same text."""
    if step.variant is not None or step.action in ("delta", "tool_calls") or (step.action == "open" and step.members):
        raise _Unsupported
    chain = _enter(root, _scope_of(step), names)
    scope = chain[-1]
    guards: list[str] = []
    value = "None"
    schema: Schema | None = None
    if step.value:
        guards, value, schema = _access(scope.var, scope.schema, step.value[len(scope.path) :], names)
    guards += [_test(scope.var, scope.schema, path, test, names) for path, test in step.when]
    key = ""
    if step.key:
        key_guards, key = _key(chain, step.key, names)
        guards += key_guards
    if step.action == "usage" and step.members:
        usage_guards, value = _usage_object(step, scope, value, schema, names)
        guards += usage_guards
        schema = None
    if hoist and step.action == "usage":
        lines = ["usage = " + value]
    else:
        lines = _statement(step, key, value, schema, choices, plain, names)
    if step.action == "meta":
        extra = _inline("chunk", payload, step.extra, names) if step.extra else "None"
        need = _NEED_META if step.value and step.extra else _NEED_ID if step.value else _NEED_MODEL
        lines = [f"acc.meta({value if step.value else 'None'}, {extra})", need]
        # The first id and model win: once both are known, nothing is read.
        guards.insert(0, "need_meta")
    scope.body.append(_Stmt(guards, lines))


def _key(chain: list[_Scope], path: tuple[str, ...], names: Iterator[str]) -> tuple[list[str], str]:
    """``(guards, expression)`` of a step's integer ``key`` at ``path``, read from the
    element of the scope it names (its count of ``[*]``). A key member that may be None
    falls back to the element's position where the scope counts one (the runtime keys an
    element without one by where it is); elsewhere the statement runs only when it is sent.

    Raises :class:`_Unsupported` for a key outside the chain of scopes or not an integer."""
    stars = path.count(EACH)
    owner = chain[stars] if stars < len(chain) else None
    if owner is None or path[: len(owner.path)] != owner.path:
        raise _Unsupported
    guards, expr, schema = _access(owner.var, owner.schema, path[len(owner.path) :], names)
    if schema.type != "integer":
        raise _Unsupported
    if guards and owner.position:
        return [], f"{expr} if {' and '.join(guards)} else {owner.position}"
    return guards, expr


def _usage_object(
    step: AccumulateStep, scope: _Scope, value: str, schema: Schema | None, names: Iterator[str]
) -> tuple[list[str], str]:
    """``(guards, name)`` of a ``usage`` step with ``members``: the usage object is the
    members sent, read from the step's value (or the element), built by the runtime's
    ``usage_of`` and bound to a name the statement reads; the guards hold when it is not None."""
    base, base_schema = (value, schema) if step.value else (scope.var, scope.schema)
    reads = [(name, _inline(base, base_schema, path, names)) for name, path in step.members]
    guards: list[str] = []
    if all(":=" not in expr for _, expr in reads):
        # Most events send none of them (Ollama's counts come on the last line): tested
        # first, so that only an event sending one builds the object.
        guards.append("(" + " or ".join(f"{expr} is not None" for _, expr in reads) + ")")
    read = ", ".join(f"({name!r}, {expr})" for name, expr in reads)
    bound = next(names)
    guards.append(f"({bound} := usage_of(({read},))) is not None")
    return guards, bound


def _statement(
    step: AccumulateStep, key: str, value: str, schema: Schema | None, choices: bool, plain: str, names: Iterator[str]
) -> list[str]:
    """The lines of ``step`` reading ``value`` (an instance of ``schema``; None: built here,
    of no schema to check) into the slot of ``key`` ("" for the stream itself): the calls
    of runtime ``Accumulator`` and its choice and block states that ``runtime/plan.py``
    makes for the same action.

    Raises :class:`_Unsupported` for a text that is not a string and for an action (or an
    action with or without a key) the typed path does not write."""
    action = step.action
    if action in ("append", "stop") and step.value and (schema is None or schema.type != "string"):
        raise _Unsupported
    slot = _slot(key, choices, names)
    if action == "meta":
        return []
    if action in ("append", "collect", "stop"):
        return _field_statement(step, key, slot, value, choices)
    if action in ("usage", "complete", "done", "error", "snapshot"):
        return _stream_statement(step, value, plain)
    if action in ("open", "close") and key:
        return [f"{slot}.{action}({plain.format(value) if step.value else ''})"]
    # A keyed call goes to a choice's tool calls, an unkeyed one is its own block.
    if action == "tool_call" and bool(key) == choices:
        return _tool_call_statement(step, key, slot, value, schema, plain, names)
    raise _Unsupported


def _slot(key: str, choices: bool, names: Iterator[str]) -> str:
    """The expression of the state ``key`` selects ("" without a key): a choice made on
    first use (looked up in ``states``, bound once per run) or a block of ``acc.blocks``."""
    if key and choices:
        bound = next(names)
        return f"(states.get({bound} := {key}) or acc.choice({bound}))"
    return f"acc.blocks[{key}]" if key else ""


def _field_statement(step: AccumulateStep, key: str, slot: str, value: str, choices: bool) -> list[str]:
    """The line of an ``append``, ``collect`` or ``stop`` step: a text, a part as sent or a
    finish reason written to ``slot`` (a choice or a block), or to the stream without a key.
    Texts the state holds as lists are appended to directly, any other through ``add_text``."""
    if step.action == "append":
        if not key:
            # The value is a string (checked above): appended to the text's parts directly
            # (the dict bound before the loop), not through a call of ``acc.add_text`` per
            # event (Ollama: one per line, twice on a thinking line).
            return [f"(texts.get({step.field!r}) or acc.text_parts({step.field!r})).append({value})"]
        fields = _CHOICE_TEXTS if choices else _BLOCK_TEXTS
        if step.field in fields:
            return [f"{slot}.{step.field}.append({value})"]
        return [f"{slot}.add_text({step.field!r}, {value})"]
    if step.action == "collect":
        if not key:
            return [f"acc.collect({step.field!r}, as_sent({value}))"]
        return [f"{slot}.{'content_parts' if choices else 'deltas'}.append(as_sent({value}))"]
    if not key:
        return [f"acc.stop_reason = {value}"]
    return [f"{slot}.{'finish_reason' if choices else 'status'} = {value}"]


def _stream_statement(step: AccumulateStep, value: str, plain: str) -> list[str]:
    """The line of a step on the stream as a whole (``usage``, ``complete``/``done``,
    ``error``, ``snapshot``); ``plain`` wraps what the runtime keeps as plain data."""
    action = step.action
    if action == "usage":
        if step.mode == "replace":
            return [f"acc.set_usage({value})" if plain == "{}" else f"acc.set_usage({plain.format(value)}, {value})"]
        return [f"acc.merge_usage({plain.format(value)})"]
    if action == "error":
        return [f"acc.error_in_chunk({plain.format(value)})" if step.value else f"acc.error({plain.format('chunk')})"]
    if action == "snapshot":
        return [f"acc.snapshot({plain.format(value)})"]
    return ["acc.done()"]


def _tool_call_statement(
    step: AccumulateStep, key: str, slot: str, value: str, schema: Schema | None, plain: str, names: Iterator[str]
) -> list[str]:
    """The lines of a ``tool_call`` step: its ``members`` (``id``, ``name``, ``arguments``,
    ``partial_arguments``; None when not stated) read from ``value``. Unkeyed, a call sent
    whole, its own output block (runtime ``Accumulator.tool_call``); keyed, a fragment added
    to the choice's calls, continuing the last one when the fragment sends no name."""
    members = dict(step.members)
    read = {
        name: _inline(value, schema, members[name], names) if name in members else "None"
        for name in ("id", "name", "arguments", "partial_arguments")
    }
    if not key:
        return [f"acc.tool_call({read['id']}, {read['name']}, {plain.format(read['arguments'])})"]
    state, name = next(names), next(names)
    continued = f"{name} is None" if "name" in members else "False"
    return [
        f"{state} = {slot}",
        f"{state}.add_call({read['id']}, ({name} := {read['name']}), {plain.format(read['arguments'])}, "
        f"{plain.format(read['partial_arguments'])}, {continued})",
    ]
