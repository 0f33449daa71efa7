"""The accumulation compiler: every message's plan as typed statements over the generated classes.

:func:`compile_steps` turns a message's accumulation steps (docs/accumulation.md: the chat
family's, the block families', Gemini's and Cohere's, a spec's stated plan) into the body of
its run function, which reads ``chunk`` (each event of the run) and writes through ``acc``
(a ``sink.Sink``: the runtime's accumulator as compiled code sees it). What an event does is
what the steps do in order, each on its own (``tests/helpers/plan_oracle.py`` runs them so, and
the compiled plans are checked against it), with less work per element:

- each array is walked once (``for`` loops nested as the paths nest, the steps of one element
  run in step order); an element's position is counted only where a key falls back to it;
- consecutive steps testing the same member test it once (two opposite ``when`` tests of it
  are one ``if``/``else``); steps testing one union member against different alternatives are
  one ``if``/``elif`` chain, a ``delta`` step after them its ``else``;
- a member object several steps of an element read is read once; the choice a chat chunk's
  ``open`` makes is looked up once per choice, and the steps after it write to it;
- ``acc.states``, ``acc.blocks`` and ``acc.texts`` are read once per run, ``meta`` is called
  only while the id or model it reads is unknown, and a usage object each event replaces is
  handed to the accumulator once per run (the last one sent).

Paths are read by :class:`ssegen.codemodel.reads.Reader` (unions, plain JSON, members the spec
does not declare). Normalize keeps only steps whose paths resolve and whose values have the types
their actions read, so every step compiles.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from ..ir import EACH, AccumulateStep, Schema
from ..naming import PythonIdentifier
from .models import field_identifiers
from .reads import PLAIN, UNDECLARED_TEXT, Names, Read, Reader, Types, Unreadable, hint_of, readable, singular

#: Choice texts an ``append`` step adds to directly (any other name: ``add_text``).
_CHOICE_TEXTS = ("content", "reasoning_content", "refusal")
#: Block texts an ``append`` step adds to directly.
_BLOCK_TEXTS = ("text", "thinking", "signature", "refusal", "arguments")
#: Actions that apply to choice or block 0 when they have no key (as keyed ones do).
_ALWAYS_KEYED = ("open", "delta", "close", "tool_call", "tool_calls")


@dataclass
class _Stmt:
    """One step's statement: the conditions it runs under, in order, and its lines; or a
    group of consecutive statements sharing their first condition (``group``: each
    with the conditions left, its binding renamed to the shared one).

    ``test`` is the ``isinstance`` test of a union alternative the first condition makes
    (expression, class); ``chain``: its ``if`` is an ``elif`` of the statement before;
    ``otherwise``: the statement is the ``else`` of the chain before it. ``binding``: the
    name a line of its own binds (a member object read once), inlined when read once."""

    guards: list[str]
    lines: list[str]
    group: list[_Stmt | _Scope] | None = None
    test: tuple[str, str] | None = None
    chain: bool = False
    otherwise: bool = False
    binding: str = ""


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
    #: member objects read once per element: expression -> name
    cached: dict[str, str] = field(default_factory=dict)
    #: the states an unconditional ``open`` made, by key path: name
    slots: dict[tuple[str, ...], str] = field(default_factory=dict)
    #: the keys read from the element with no condition, by path from it: name
    keys: dict[tuple[str, ...], str] = field(default_factory=dict)


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
        undeclared: ``(owner schema, wire name)`` of each member a step reads that the spec
            does not declare: the class of ``owner`` must get it (``ssegen.codemodel.models``).
    """

    statements: tuple[str, ...]
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    undeclared: tuple[tuple[Schema, str], ...] = ()


def compile_steps(
    payload: Schema, steps: tuple[AccumulateStep, ...], choices: bool, types: Types, plain: str = "{}"
) -> Compiled:
    """``steps`` on an event of ``payload`` as typed statements (:class:`Compiled`).
    ``choices``: keyed steps assemble ``acc.states`` (else ``acc.blocks``); ``types``: the
    generated classes; ``plain`` wraps a value the runtime turns into plain data (the
    flavour's conversion).

    Raises:
        ValueError: a step normalize would not have kept (a path the classes cannot read, a
            key outside the scopes of its value).
    """
    compiler = _Compiler(payload, choices, types, plain, _usage_handed_once(steps))
    for step in steps:
        try:
            compiler.place(step)
        except Unreadable as exc:
            raise ValueError(f"step {step.to_plan()} cannot be compiled: {exc}") from exc
    statements = tuple(_unbound(_render_item(item)) for item in _factored(_inlined(compiler.root.body)))
    statements, before = _bindings(readable(statements, compiler.names))
    undeclared = tuple(dict.fromkeys(compiler.undeclared))
    if not compiler.hoist:
        return Compiled(statements, before, (), undeclared)
    last = "last_usage"
    handed = f"acc.set_usage({last})" if plain == "{}" else f"acc.set_usage({plain.format(last)}, {last})"
    after = (f"if {last} is not None:", f"    {handed}")
    return Compiled(statements, (*before, f"{last}: Any = None"), after, undeclared)


def _usage_handed_once(steps: tuple[AccumulateStep, ...]) -> bool:
    """True when the message has usage steps and each replaces the usage with the object
    sent (no ``members`` to build it from): only the last one sent in a run matters, so it
    is handed to the accumulator once per run."""
    usage = [s for s in steps if s.action == "usage"]
    return bool(usage) and all(s.mode == "replace" and not s.members for s in usage)


class _Compiler:
    """Places each step's statement in the scope of its value's last ``[*]``."""

    def __init__(self, payload: Schema, choices: bool, types: Types, plain: str, hoist: bool) -> None:
        self.payload = payload
        self.choices = choices
        self.types = types
        self.plain = plain
        self.hoist = hoist
        self.names = Names()
        self.root = _Scope((), "chunk", payload)
        self.undeclared: list[tuple[Schema, str]] = []

    def reader(self, scope: _Scope) -> Reader:
        """A reader whose member objects read with no condition are bound once in ``scope``."""

        def cache(expr: str) -> str:
            name = scope.cached.get(expr)
            if name is None:
                name = scope.cached[expr] = self.names.take(hint_of(expr))
                scope.body.append(_Stmt([], [f"{name} = {expr}"], binding=name))
            return name

        return Reader(self.types, self.names, cache)

    def place(self, step: AccumulateStep) -> None:
        """Add ``step``'s statement to the scope of its value's last ``[*]`` (drawing names in
        a fixed order: new scopes, value, ``when`` tests, key, the statement's own)."""
        chain = self._enter(_scope_of(step.value))
        scope = chain[-1]
        reader = self.reader(scope)
        rest = step.value[len(scope.path) :]
        value = Read([], scope.var, scope.schema)
        if rest:
            undeclared = UNDECLARED_TEXT if step.action == "append" else PLAIN
            value = reader.read(scope.var, scope.schema, rest, variant=step.variant, undeclared=undeclared)
        if value.undeclared is not None:
            self.undeclared.append(value.undeclared)
        guards = list(value.guards)
        guards += [reader.test(scope.var, scope.schema, path, test) for path, test in step.when]
        keyed = bool(step.key) or step.action in _ALWAYS_KEYED
        if step.action in ("meta", "usage", "done", "complete", "error", "snapshot", "final_text") or not keyed:
            scope.body.append(self._stream(step, value, guards, reader))
            return
        if step.action == "tool_call" and not step.key and not self.choices:
            scope.body.append(_Stmt(guards, self._stream_tool_call(step, value, reader)))
            return
        slot, key_guards = self._slot(chain, step, reader, not guards)
        if not slot:
            return  # an ``open`` binding the choice it makes: nothing more to write
        first = value.guards[0] if value.guards else ""
        test = value.tests[0] if value.tests and first.startswith("isinstance(") else None
        statement = _Stmt([*guards, *key_guards], [], test=test)
        self._state(step, value, slot, statement, reader)
        self._chained(scope, step, value, statement)
        scope.body.append(statement)

    def _enter(self, path: tuple[str, ...]) -> list[_Scope]:
        """The chain of scopes from the root down to the element of ``path`` (which ends in
        ``[*]``, or is empty), made on first use."""
        chain = [self.root]
        node = self.root
        start = 0
        for end in [i + 1 for i, s in enumerate(path) if s == EACH]:
            sub = path[:end]
            child = next((c for c in node.body if isinstance(c, _Scope) and c.path == sub), None)
            if child is None:
                reader = self.reader(node)
                read = reader.read(node.var, node.schema, path[start : end - 1])
                iterable = reader.typed(read, list) if read.schema.type != "array" else read
                items = read.schema.items if read.schema.type == "array" and read.schema.items is not None else PLAIN
                var = self.names.take(singular(str(PythonIdentifier(path[end - 2]))) if end > 1 else "item")
                position = self.names.take("position")
                child = _Scope(sub, var, items, position, guards=iterable.guards, iterable=iterable.expr)
                node.body.append(child)
            node = child
            chain.append(node)
            start = end
        return chain

    def _key(self, chain: list[_Scope], path: tuple[str, ...], reader: Reader) -> tuple[list[str], str]:
        """``(guards, expression)`` of a step's integer ``key`` at ``path``, read from the
        element of the scope it names (its count of ``[*]``); a key that is the element itself
        (``choices[*]``) is its position. A key member not sent (or not an integer) falls back
        to the element's position where the scope counts one (the runtime keys an element
        without one by where it is); elsewhere the statement runs only when it is sent."""
        stars = path.count(EACH)
        owner = chain[stars] if stars < len(chain) else None
        if owner is None or path[: len(owner.path)] != owner.path:
            raise Unreadable(f"key {path!r} is outside the scopes of the step's value")
        rest = path[len(owner.path) :]
        if not rest:
            return [], owner.position
        if rest in owner.keys:
            return [], owner.keys[rest]
        read = reader.typed(reader.read(owner.var, owner.schema, rest), int)
        if read.guards and not owner.position:
            return read.guards, read.expr
        expr = f"{read.expr} if {' and '.join(read.guards)} else {owner.position}" if read.guards else read.expr
        # Read once per element, first thing (inlined where one statement reads it).
        name = owner.keys[rest] = self.names.take("index")
        owner.body.insert(0, _Stmt([], [f"{name} = {expr}"], binding=name))
        return [], name

    def _slot(self, chain: list[_Scope], step: AccumulateStep, reader: Reader, alone: bool) -> tuple[str, list[str]]:
        """``(expression, guards)`` of the choice or block ``step`` writes to: a choice made on
        first use (``states``, bound once per run) or a block of ``blocks``; the state an
        unconditional ``open`` of this element made when there is one (``alone``: the step has
        no condition of its own, and an ``open`` on a choice binds what it makes)."""
        scope = chain[-1]
        known = scope.slots.get(step.key)
        if known is not None:
            return known, []
        guards, key = self._key(chain, step.key, reader) if step.key else ([], "0")
        if not self.choices:
            return f"blocks[{key}]", guards
        if step.action == "open" and not (alone and not guards and step.key):
            return f"acc.choice({key})", guards
        if key.isidentifier():
            slot = f"(states.get({key}) or acc.choice({key}))"
        else:
            bound = self.names.take("index")
            slot = f"(states.get({bound} := {key}) or acc.choice({bound}))"
        if step.action == "open":
            name = scope.slots[step.key] = self.names.take("state")
            scope.body.append(_Stmt([], [f"{name} = {slot[1:-1]}"]))
            return "", []
        return slot, guards

    def _state(self, step: AccumulateStep, value: Read, slot: str, out: _Stmt, reader: Reader) -> None:
        """Fill ``out`` with the lines of keyed ``step`` writing ``value`` to ``slot`` (a choice
        or a block; "" for an ``open`` on a choice that bound it already)."""
        action, plain = step.action, self.plain
        if action == "open" and self.choices:
            out.lines = [slot]  # the choice made (it has nothing to open)
        elif action == "open":
            out.lines = [f"{slot}.open({plain.format(value.expr)}{self._members(step, value, reader)})"]
        elif action == "append":
            out.lines = [self._append(step, value, slot, out, reader)]
        elif action == "collect":
            out.lines = [f"{slot}.{'content_parts' if self.choices else 'deltas'}.append(as_sent({value.expr}))"]
        elif action == "stop":
            self._typed(value, str, out, reader)
            out.lines = [f"{slot}.{'finish_reason' if self.choices else 'status'} = {value.expr}"]
        elif action == "delta":
            out.lines = [f"{slot}.add_delta({plain.format(value.expr)})"]
        elif action == "close":
            out.lines = [f"{slot}.close({plain.format(value.expr) if step.value else ''})"]
        elif action == "tool_calls":
            out.lines = _tool_calls(value, slot, reader)
        else:
            out.lines = self._tool_call(step, value, slot, reader)

    def _typed(self, value: Read, kind: type, out: _Stmt, reader: Reader) -> None:
        """``out``'s conditions (``value``'s first) with ``value`` tested to be a ``kind`` (its
        None test replaced, or a test added after them)."""
        count = len(value.guards)
        reader.typed(value, kind)
        out.guards[:count] = value.guards

    def _append(self, step: AccumulateStep, value: Read, slot: str, out: _Stmt, reader: Reader) -> str:
        """The line of a keyed ``append``: a text the state holds as a list appended to directly,
        any other through ``add_text``; a choice's ``content`` that may be a list of typed parts
        through ``add_content`` (Mistral's chunks)."""
        if self.choices and step.field == "content" and value.schema.type != "string":
            return f"{slot}.add_content({value.expr})"
        self._typed(value, str, out, reader)
        if step.field in (_CHOICE_TEXTS if self.choices else _BLOCK_TEXTS):
            return f"{slot}.{step.field}.append({value.expr})"
        return f"{slot}.add_text({step.field!r}, {value.expr})"

    def _members(self, step: AccumulateStep, value: Read, reader: Reader) -> str:
        """``, {name: member, ...}``: what an ``open`` step with ``members`` reads from its value
        (None where not sent), for ``BlockState.open``; "" without members."""
        if not step.members:
            return ""
        pairs = ", ".join(
            f"{name!r}: {self.plain.format(reader.inline(value.expr, value.schema, path))}"
            for name, path in step.members
        )
        return f", {{{pairs}}}"

    def _tool_call(self, step: AccumulateStep, value: Read, slot: str, reader: Reader) -> list[str]:
        """The lines of a keyed ``tool_call``: its ``members`` (``id``, ``name``, ``arguments``,
        ``partial_arguments``; None when not stated) read from ``value``: a block opened as a
        call, or a call added to the choice's, continuing the last one when the part sends no
        name."""
        read = self._call_members(step, value, reader)
        if not self.choices:
            return [f"{slot}.tool_call({read['id']}, {read['name']}, {self._plain(read['arguments'])})"]
        state, name = self.names.take("state"), self.names.take("name")
        continued = f"{name} is None" if "name" in dict(step.members) else "False"
        return [
            f"{state} = {slot}",
            f"{state}.add_call({read['id']}, ({name} := {read['name']}), {self._plain(read['arguments'])}, "
            f"{self._plain(read['partial_arguments'])}, {continued})",
        ]

    def _stream_tool_call(self, step: AccumulateStep, value: Read, reader: Reader) -> list[str]:
        """The line of an unkeyed ``tool_call`` of an output plan: a call sent whole, its own
        output block (runtime ``Accumulator.tool_call``)."""
        read = self._call_members(step, value, reader)
        return [f"acc.tool_call({read['id']}, {read['name']}, {self._plain(read['arguments'])})"]

    def _plain(self, expr: str) -> str:
        """``expr`` as the runtime takes plain data (the flavour's conversion; ``None`` as it is)."""
        return expr if expr == "None" else self.plain.format(expr)

    def _call_members(self, step: AccumulateStep, value: Read, reader: Reader) -> dict[str, str]:
        members = dict(step.members)
        return {
            name: reader.inline(value.expr, value.schema, members[name]) if name in members else "None"
            for name in ("id", "name", "arguments", "partial_arguments")
        }

    def _stream(self, step: AccumulateStep, value: Read, guards: list[str], reader: Reader) -> _Stmt:
        """The statement of a step on the stream as a whole (``meta``, ``usage``, ``complete``,
        ``done``, ``error``, ``snapshot``, ``final_text``; ``append``, ``collect`` and
        ``stop`` with no key)."""
        out = _Stmt(guards, [])
        action, plain = step.action, self.plain
        if action == "meta":
            return self._meta(step, value, out, reader)
        if action == "usage":
            out.lines = self._usage(step, value, out, reader)
        elif action in ("append", "stop", "final_text"):
            self._typed(value, str, out, reader)
            out.lines = [
                {
                    # The parts of a stream text, bound before the loop, appended to directly
                    # (Ollama: one line per token, two texts).
                    "append": f"(texts.get({step.field!r}) or acc.text_parts({step.field!r})).append({value.expr})",
                    "stop": f"acc.stop_reason = {value.expr}",
                    "final_text": f"acc.final_text = {value.expr}",
                }[action]
            ]
        elif action == "collect":
            out.lines = [f"acc.collect({step.field!r}, as_sent({value.expr}))"]
        elif action == "error":
            error = f"acc.error_in_chunk({plain.format(value.expr)})"
            out.lines = [error if step.value else f"acc.error({plain.format('chunk')})"]
        elif action == "snapshot":
            out.lines = [f"acc.snapshot({plain.format(value.expr)})"]
        else:  # done; complete, its value tested sent
            out.lines = ["acc.done()"]
        return out

    def _usage(self, step: AccumulateStep, value: Read, out: _Stmt, reader: Reader) -> list[str]:
        """The lines of a ``usage`` step: the object sent (or built from its ``members``: the
        runtime's ``usage_of``, tested first so that only an event sending one builds it)
        replacing the usage (kept in ``usage`` to hand over once per run) or merged into it."""
        expr = value.expr
        if step.members:
            base = value if step.value else Read([], value.expr, value.schema)
            reads = [(name, reader.inline(base.expr, base.schema, path)) for name, path in step.members]
            if all(":=" not in e for _, e in reads):
                out.guards.append("(" + " or ".join(f"{e} is not None" for _, e in reads) + ")")
            bound = self.names.take("sent_usage")
            read = ", ".join(f"({name!r}, {e})" for name, e in reads)
            out.guards.append(f"({bound} := usage_of(({read},))) is not None")
            expr = bound
        if step.mode != "replace":
            return [f"acc.merge_usage({self.plain.format(expr)})"]
        if self.hoist:
            return [f"last_usage = {expr}"]
        return [f"acc.set_usage({expr})" if self.plain == "{}" else f"acc.set_usage({self.plain.format(expr)}, {expr})"]

    def _meta(self, step: AccumulateStep, value: Read, out: _Stmt, reader: Reader) -> _Stmt:
        """``acc.meta`` of the id (``value``) and model (``extra``, read from the event), run
        only while what it reads is unknown (the first id and model win)."""
        ident = "None"
        if step.value:
            self._typed(value, str, out, reader)
            ident = value.expr
        extra = "None"
        if step.extra:
            read = reader.read("chunk", self.payload, step.extra, last=False)
            read = reader.typed(read, str) if read.schema.type != "string" else read
            extra = f"({read.expr} if {' and '.join(read.guards)} else None)" if read.guards else read.expr
        need = _NEED_META if step.value and step.extra else _NEED_ID if step.value else _NEED_MODEL
        out.guards.insert(0, "need_meta")
        out.lines = [f"acc.meta({ident}, {extra})", need]
        return out

    def _chained(self, scope: _Scope, step: AccumulateStep, value: Read, out: _Stmt) -> None:
        """Mark ``out`` as the next ``elif`` of the chain before it (its first condition tests
        the same union member against another alternative) or, for a ``delta`` step reading
        that member with no condition, as the chain's ``else`` (the other alternatives)."""
        last = scope.body[-1] if scope.body else None
        before = last.test if isinstance(last, _Stmt) else None
        if before is None:
            return
        if step.action == "delta":
            out.otherwise = value.expr == before[0] and not out.guards
        elif out.test is not None and out.test[0] == before[0] and out.test[1] != before[1]:
            out.chain = True


def _tool_calls(value: Read, slot: str, reader: Reader) -> list[str]:
    """The lines of a ``tool_calls`` step: each chat-completions tool-call fragment of the list
    merged into the choice's calls by its ``index``, or without one by its id, name and place in
    the list (``ChoiceState.add_tool_call``), members the
    spec does not type as read passed as None; fragments of no class are handed over as plain data
    (``add_tool_calls_data``)."""
    item = value.schema.items if value.schema.type == "array" else None
    if item is None or item.type != "object" or not item.properties or reader.plain(item):
        return [f"{slot}.add_tool_calls_data({value.expr})"]
    call, function, place = (reader.names.take(n) for n in ("call", "function", "place"))
    args = [_scalar(reader, call, item, "index", "integer"), _scalar(reader, call, item, "id", "string")]
    args.append(_scalar(reader, call, item, "type", "string"))
    lines = [f"for {place}, {call} in enumerate({value.expr}):"]
    fn = item.property("function")
    fn_schema = fn.schema if fn is not None and fn.schema.type == "object" and fn.schema.properties else None
    if fn is None or fn_schema is None:
        args += ["None", "None"]
    else:
        lines.append(f"    {function} = {call}.{field_identifiers(item)['function']}")
        args += _function_members(reader, function, fn_schema, not fn.required or fn_schema.nullable)
    state = slot if slot.isidentifier() else f"({slot})"
    return [*lines, f"    {state}.add_tool_call({', '.join(args)}, {place})"]


def _function_members(reader: Reader, function: str, schema: Schema, optional: bool) -> list[str]:
    """The expressions of a tool call's ``function.name`` and ``function.arguments`` (None where
    not strings), ``function`` bound to the object, which may be None when ``optional``."""
    out = []
    for name in ("name", "arguments"):
        read = _scalar(reader, function, schema, name, "string")
        out.append(f"{read} if {function} is not None else None" if optional and read != "None" else read)
    return out


def _scalar(reader: Reader, expr: str, schema: Schema, name: str, kind: str) -> str:
    """``expr.<name>`` when member ``name`` of ``schema`` is a ``kind``, else ``None``."""
    prop = schema.property(name)
    if prop is None or prop.schema.type != kind:
        return "None"
    return reader.read(expr, schema, (name,), last=False).expr


def _scope_of(value: tuple[str, ...]) -> tuple[str, ...]:
    return value[: len(value) - value[::-1].index(EACH)] if EACH in value else ()


# -- rendering ---------------------------------------------------------------------------------


def _inlined(body: list[_Stmt | _Scope]) -> list[_Stmt | _Scope]:
    """``body`` with each member object or key bound on a line of its own but read once only
    read in place (its binding line dropped)."""
    out: list[_Stmt | _Scope] = []
    for index, item in enumerate(body):
        if not isinstance(item, _Stmt) or not item.binding:
            out.append(item)
            continue
        pattern = re.compile(rf"\b{item.binding}\b")
        reads = {id(later): len(pattern.findall(_render_item(later))) for later in body[index + 1 :]}
        if sum(reads.values()) > 1:
            out.append(item)
            continue
        expr = item.lines[0].split(" = ", 1)[1]
        expr = f"({expr})" if " " in expr else expr
        for later in body[index + 1 :]:
            if reads[id(later)]:
                _substitute(later, pattern, expr)
    for item in out:
        if isinstance(item, _Scope):
            item.body = _inlined(item.body)
    return out


def _substitute(item: _Stmt | _Scope, pattern: re.Pattern[str], expr: str) -> None:
    """Write ``expr`` for the name ``pattern`` matches throughout ``item``."""
    if isinstance(item, _Scope):
        item.guards = [pattern.sub(expr, g) for g in item.guards]
        item.iterable = pattern.sub(expr, item.iterable)
        for child in item.body:
            _substitute(child, pattern, expr)
        return
    item.guards = [pattern.sub(expr, g) for g in item.guards]
    item.lines = [pattern.sub(expr, line) for line in item.lines]
    if item.test is not None:
        item.test = (pattern.sub(expr, item.test[0]), item.test[1])
    for member in item.group or ():
        _substitute(member, pattern, expr)


def _bindings(statements: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``statements``, and the lines binding before the loop what they read: the choice states
    (``states``), the blocks (``blocks``), the texts (``texts``), and whether ``meta`` still has
    something to read, by what the meta steps read (:data:`_NEED_METAS`; steps reading different
    members each wait for both, their lines rewritten to :data:`_NEED_META`)."""
    code = "\n".join(statements)
    before = tuple(
        f"{name} = acc.{name}" for name in ("states", "blocks", "texts") if re.search(rf"\b{name}(\.get\(|\[)", code)
    )
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


def _render_item(item: _Stmt | _Scope) -> str:
    if isinstance(item, _Stmt):
        return _render_stmt(item)
    body = [line for child in _factored(item.body) for line in _render_item(child).split("\n")]
    lines = [f"if {' and '.join(item.guards)}:"] if item.guards else []
    inner = "    " if item.guards else ""
    if re.search(rf"\b{item.position}\b", "\n".join(body)):
        # A key falls back to the element's position: counted, cheaper than ``enumerate``.
        lines += [f"{inner}{item.position} = -1", f"{inner}for {item.var} in {item.iterable}:"]
        body = [f"{item.position} += 1", *body]
    else:
        lines.append(f"{inner}for {item.var} in {item.iterable}:")
    return "\n".join([*lines, *(f"{inner}    {line}" for line in body)])


def _render_stmt(item: _Stmt) -> str:
    """A statement's lines under its conditions: ``if`` (``elif`` in a chain, where the first
    condition alone decides the branch, the others nested), or the chain's ``else``."""
    lines = item.lines if item.group is None else _members(_factored(item.group))
    if item.otherwise:
        inner = _render_stmt(_Stmt(item.guards, lines))
        return "\n".join(["else:", *("    " + line for line in inner.split("\n"))])
    if not item.guards:
        return "\n".join(lines)
    if item.test is not None:
        inner = _render_stmt(_Stmt(item.guards[1:], lines))
        head = f"{'elif' if item.chain else 'if'} {item.guards[0]}:"
        return "\n".join([head, *("    " + line for line in inner.split("\n"))])
    return "\n".join([f"if {' and '.join(item.guards)}:", *("    " + line for line in lines)])


def _members(group: list[_Stmt | _Scope]) -> list[str]:
    """The lines of a group's statements, in order; two consecutive ones under opposite
    single tests (``not (X)``, then ``X``; or the reverse) as one ``if``/``else``."""
    lines: list[str] = []
    index = 0
    while index < len(group):
        first = group[index]
        second = group[index + 1] if index + 1 < len(group) else None
        if (
            isinstance(first, _Stmt)
            and isinstance(second, _Stmt)
            and first.group is None is second.group
            and len(first.guards) == len(second.guards) == 1
            and _opposite(first.guards[0], second.guards[0])
        ):
            lines += [f"if {first.guards[0]}:", *("    " + line for line in first.lines)]
            lines += ["else:", *("    " + line for line in second.lines)]
            index += 2
            continue
        lines += _render_item(first).split("\n")
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
    """``body`` with each run of consecutive statements (and loops) whose first guard tests the
    same member of the event (not of the accumulator, which a statement may change) written as
    one group under that guard, the name it binds shared (a chain of ``elif`` is kept)."""
    out: list[_Stmt | _Scope] = []
    for item in body:
        last = out[-1] if out else None
        first = _first_guard(item)
        if first and last is not None and _first_guard(last) and _tested(first)[0] == _tested(_first_guard(last))[0]:
            if not isinstance(last, _Stmt) or last.group is None:
                last = out[-1] = _Stmt([_first_guard(last)], [], [_rest(last, "")])
            assert last.group is not None
            last.group.append(_rest(item, _tested(last.guards[0])[1]))
        else:
            out.append(item)
    return out


def _first_guard(item: _Stmt | _Scope) -> str:
    """The first guard of ``item`` when it may be shared with its neighbours ("" else): a
    member of the event tested (not ``need_meta`` or the accumulator, which a statement may
    change), by a statement outside any ``elif`` chain or by a loop."""
    guards = item.guards
    if not guards or guards[0] == "need_meta" or "acc." in guards[0]:
        return ""
    if isinstance(item, _Stmt) and (item.chain or item.otherwise or item.test):
        return ""
    return guards[0]


def _rest(item: _Stmt | _Scope, name: str) -> _Stmt | _Scope:
    """``item`` without its first guard, the name that guard binds renamed to ``name`` (kept
    when ``name`` is "")."""
    _, own = _tested(item.guards[0])
    if isinstance(item, _Scope):
        scope = _copied(item)
        scope.guards = scope.guards[1:]
        if own and name and own != name:
            _substitute(scope, re.compile(rf"\b{own}\b"), name)
        return scope
    if not own or not name or own == name:
        return _Stmt(item.guards[1:], item.lines, item.group)
    rename = re.compile(rf"\b{own}\b")
    return _Stmt([rename.sub(name, g) for g in item.guards[1:]], [rename.sub(name, line) for line in item.lines])


def _copied(scope: _Scope) -> _Scope:
    """A copy of ``scope`` whose statements and loops can be renamed without changing it."""
    body: list[_Stmt | _Scope] = []
    for item in scope.body:
        if isinstance(item, _Scope):
            body.append(_copied(item))
        else:
            group = [_copied(m) if isinstance(m, _Scope) else replace(m) for m in item.group or ()]
            body.append(replace(item, guards=list(item.guards), lines=list(item.lines), group=group or None))
    return replace(scope, body=body, guards=list(scope.guards))
