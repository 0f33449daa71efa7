"""Accumulation plans: which members of a data message feed the accumulator, and how.

A plan names the members the runtime's :class:`Accumulator` reads (``id``,
``model``, ``choices[].index``, the delta's text fields and tool calls,
``finish_reason``, ``usage``, ``full_text``) by the field identifiers of the
generated classes, and hands the template each statement's pieces ready:
expressions, loop headers and the guard of a member that may be None.  A member
absent from the spec, or of another type, is left out of the plan.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..ir import EACH, AccumulateStep, Property, Schema, resolve_path
from ..naming import PythonIdentifier
from .models import field_identifiers
from .plans import Compiled, compile_steps


@dataclass(frozen=True)
class Feed:
    """One statement feeding a member's value to the accumulator.

    Attributes:
        guard: for a member that may be None, the condition binding and
            testing it (``(text := delta.content) is not None``); else None.
        statement: the statement, reading the bound name when guarded
            (``state.content.append(text)``).
        chained: the guard cannot hold when the previous feed's did (both first test
            the same union member against a different alternative class): written
            ``elif``; with no guard, the statement is the chain's ``else``.
    """

    guard: str | None
    statement: str
    chained: bool = False


@dataclass(frozen=True)
class ToolCallsPlan:
    """How a delta's tool-call fragments reach ``ChoiceState``.

    Attributes:
        typed: the spec gives the items properties; when False (DeepSeek,
            ``specs/deepseek/asyncapi-page.txt:452``) they stay plain dicts and the
            runtime reads keys (``state.add_tool_calls_data``).
        source: the list expression (``delta.tool_calls``).
        iterable: what the typed loop iterates (``delta.tool_calls or ()``).
        function: the ``function`` object expression bound before the call, or None.
        arguments: the five arguments of ``state.add_tool_call`` (index, id,
            type, function name, function arguments), ``None`` where absent.
    """

    typed: bool
    source: str
    iterable: str
    function: str | None = None
    arguments: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChoicesPlan:
    """How each of a chunk's choices feeds its ``ChoiceState``.

    Attributes:
        loop: the ``for`` target and iterable (``choice in chunk.choices``, or
            ``position, choice in enumerate(...)`` when the index may be missing).
        index: the choice index expression.
        on_choice: text carried on the choice itself (completion-style ``text``, DeepSeek's FIM
            chunk, ``specs/deepseek/asyncapi-page.txt:541``).
        delta: the delta expression, or None when the choice has no object delta.
        delta_guard: ``delta is not None`` when the delta may be None.
        on_delta: the delta's text fields, in ``content, reasoning_content, refusal`` order.
        tool_calls: the delta's tool calls, or None.
        finish_reason: the finish reason, or None.
        reasoning_member: the delta's schema when it lacks ``reasoning_content`` and gets
            :data:`ssegen.codemodel.models.REASONING_MEMBER` (DeepSeek's member, which
            other OpenAI-compatible servers send too), else None.
    """

    loop: str
    index: str
    on_choice: tuple[Feed, ...]
    delta: str | None
    delta_guard: str | None
    on_delta: tuple[Feed, ...]
    tool_calls: ToolCallsPlan | None
    finish_reason: Feed | None
    reasoning_member: Schema | None = None


@dataclass(frozen=True)
class ApplyPlan:
    """How one data message feeds the accumulator (None parts are absent).

    Attributes:
        function: the generated run function: feeds consecutive events of the message into
            the accumulator (one event is a run of one; runtime ``stream.Run``).
        cls: the message's class.
        meta: the two arguments of ``acc.meta`` (id, model), or None when the
            message carries neither.
        choices: the choices plan, or None.
        usage: ``acc.set_usage`` of the ``usage`` object, or None.
        full_text: ``acc.final_text`` from a cumulative ``full_text`` (SiliconStorm,
            ``specs/siliconstorm/inference-api.md:725``), or None.
        steps: for the Messages and Responses families and stated plans, the statements of
            the message's accumulation steps (:func:`ssegen.codemodel.steps.step_feeds`), in order.
        error: ``acc.error_in_chunk`` of a chunk's top-level ``error`` object
            (OpenRouter sends one inside an ordinary chunk), whatever the spec
            says; None for a message without choices.
        error_member: the class lacks an ``error`` member and gets one typed
            ``Any`` (see ``ModelsBuilder.add_error_member``).
        error_attr: the identifier of the ``error`` member ``error`` reads; "" without one.
        keep_usage: the identifier of the ``usage`` member, whose object as sent
            (every member, the unlisted ones included) the decoder keeps for
            ``acc.set_usage``; "" without usage.
        usage_replaced: every ``usage`` step of the plan replaces the object (``mode:
            replace``; the chat plan's ``acc.set_usage``): the last one sent is the one read.
        executor: for steps the runtime's plan executor runs (``runtime/plan.py``), the
            expression building the message's ``Plan`` (:func:`executor_plan`); "" else.
        before: for compiled steps, the lines binding what they read before the handler's
            loop (:class:`ssegen.codemodel.plans.Compiled`).
        after: the lines the batch handler runs once its loop is left (in ``finally``).
    """

    function: PythonIdentifier
    cls: str
    meta: str | None
    choices: ChoicesPlan | None
    usage: Feed | None
    full_text: Feed | None
    steps: tuple[Feed, ...] = ()
    error: Feed | None = None
    error_member: bool = False
    error_attr: str = ""
    keep_usage: str = ""
    usage_replaced: bool = False
    executor: str = ""
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()

    @property
    def table(self) -> str:
        """The name of the module-level ``Plan`` the executor runs (``_PLAN_APPLY_...``)."""
        return f"_PLAN{str(self.function).upper()}"

    @property
    def loop_indent(self) -> int:
        """How much deeper than usual the batch handler's loop is: 4 inside the ``try`` of
        an ``after`` block, else 0."""
        return 4 if self.after else 0

    @property
    def reads_blocks(self) -> bool:
        """True when a step reads ``blocks`` (``acc.blocks``, bound before the steps run)."""
        return any(feed.statement.startswith("blocks[") for feed in self.steps)

    @property
    def reads_nothing(self) -> bool:
        """True when the spec gives the message no member the accumulator reads."""
        return not (
            self.meta or self.choices or self.usage or self.full_text or self.error or self.steps or self.executor
        )


#: Delta members appended to the choice's text of the same name, in this order.
TEXT_FIELDS = ("content", "reasoning_content", "refusal")


def executor_plan(
    payload: Schema,
    cls: str,
    function: PythonIdentifier,
    steps: tuple[AccumulateStep, ...],
    choices: bool,
    plain: str = "{}",
) -> ApplyPlan:
    """The plan of a message whose steps are not all
    :attr:`~ssegen.ir.AccumulateStep.simple` (a step reading array elements, testing
    members, naming members, ...): compiled to typed statements by
    :func:`ssegen.codemodel.plans.compile_steps` when it can be, else run by the runtime's
    executor: the ``Plan`` expression of ``runtime/plan.py``, each path's members as
    ``(identifier, wire name)`` where the generated class names them otherwise, read by
    wire name past a member typed as any JSON."""
    # An error object inside a chunk the spec does not declare (the gemini plan's, as the
    # chat family's): read from the member the class gets for it, as ``apply_plan`` does.
    inside = tuple(s for s in steps if _error_undeclared(payload, s))
    error, error_member = _error(payload, plain) if inside else (None, False)
    compiled = compile_steps(payload, tuple(s for s in steps if s not in inside), choices, plain)
    executor = ""
    if compiled is None:  # the executor runs every step, the error inside a chunk too
        executor = f"Plan(({''.join(_executor_step(payload, s) + ', ' for s in steps)}), choices={choices})"
        compiled, error = Compiled(()), None
    return ApplyPlan(
        function=function,
        cls=cls,
        meta=None,
        choices=None,
        usage=None,
        full_text=None,
        steps=tuple(Feed(None, block) for block in compiled.statements),
        before=compiled.before,
        after=compiled.after,
        error=error,
        error_member=error_member,
        error_attr=_error_attr(payload) if error is not None else "",
        keep_usage=kept_path(payload, steps),
        usage_replaced=replaces_usage(steps),
        executor=executor,
    )


def _executor_step(payload: Schema, step: AccumulateStep) -> str:
    """``step`` as the ``Step(...)`` expression of ``runtime/plan.py``: its paths as
    :func:`_segments` (``when`` paths from the element of its value's last ``[*]``,
    ``members`` from its value), its other fields as literals, the unset ones left out."""
    base = step.value[: len(step.value) - step.value[::-1].index(EACH)] if EACH in step.value else ()
    element = resolve_path(payload, base).schema if base else payload
    target = resolve_path(payload, step.value).schema if step.value else payload
    parts = [repr(step.action)]
    for name in ("key", "value", "extra"):
        if path := getattr(step, name):
            parts.append(f"{name}={_segments(payload, path, step.variant)}")
    if step.field:
        parts.append(f"field={step.field!r}")
    if step.when:
        tests = ", ".join(f"({_segments(element, path)}, {test!r}, {value!r})" for path, (test, value) in step.when)
        parts.append(f"when=({tests},)")
    if step.members:
        pairs = ", ".join(f"({name!r}, {_segments(target, path)})" for name, path in step.members)
        parts.append(f"members=({pairs},)")
    if step.mode:
        parts.append(f"mode={step.mode!r}")
    return f"Step({', '.join(parts)})"


def _error_undeclared(payload: Schema, step: AccumulateStep) -> bool:
    """True for the step reading a chunk's top-level ``error`` object where ``payload`` does
    not declare it (``ssegen.normalize.accumulation.ERROR_IN_CHUNK``)."""
    return step.action == "error" and step.value == ("error",) and payload.property("error") is None


def _segments(schema: Schema | None, path: tuple[str, ...], variant: tuple[str, str] | None = None) -> str:
    """``path`` as the executor reads it from an instance of ``schema``: a tuple literal
    of ``"*"``, wire names (where the identifier is the same, or the member is any JSON)
    and ``(identifier, wire name)`` pairs."""
    owners = dict(enumerate(resolve_path(schema, path, variant).nodes)) if schema is not None else {}
    out = []
    for depth, segment in enumerate(path):
        owner = owners.get(depth)
        ident = segment
        if segment != EACH and owner is not None and owner[1].type == "object":
            ident = str(field_identifiers(owner[1]).get(segment, segment))
        out.append(repr(segment) if ident == segment else repr((ident, segment)))
    return "(" + "".join(item + ", " for item in out) + ")"


def kept_path(payload: Schema, steps: tuple[AccumulateStep, ...]) -> str:
    """The path of the usage object a ``usage`` step reads, as ``keep_usage`` takes it
    (``usage_metadata:usageMetadata``: identifier and wire name where they differ), when
    every member on the way is an object member; "" else."""
    for step in steps:
        if step.action != "usage" or not step.value or EACH in step.value or step.members:
            continue
        found = resolve_path(payload, step.value)
        if found.schema is None or found.schema.type != "object" or len(found.nodes) != len(step.value):
            return ""
        segments = []
        reached = payload
        for name, owner in found.nodes:
            prop = owner.property(name) if owner is reached and owner.type == "object" else None
            if prop is None:
                return ""  # a union (or an array) on the way
            ident = str(field_identifiers(owner)[name])
            segments.append(name if ident == name else f"{ident}:{name}")
            reached = prop.schema
        return ".".join(segments)
    return ""


def replaces_usage(steps: tuple[AccumulateStep, ...]) -> bool:
    """True when ``steps`` hold a ``usage`` step and each replaces the object (``mode:
    replace``): a run's last usage object is then the only one read."""
    modes = {step.mode for step in steps if step.action == "usage"}
    return modes == {"replace"}


def usage_schema(payload: Schema, path: str) -> Schema | None:
    """The schema of the usage object at dotted member ``path`` (see :func:`kept_path`;
    a segment may be ``identifier:wire``)."""
    return resolve_path(payload, tuple(s.partition(":")[2] or s for s in path.split("."))).schema


def apply_plan(
    payload: Schema,
    cls: str,
    function: PythonIdentifier,
    plain: str = "{}",
    steps: tuple[AccumulateStep, ...] | None = None,
) -> ApplyPlan:
    """The plan of a data message of the chat family whose payload decodes to ``cls``:
    its plan ``steps`` (:func:`ssegen.normalize.accumulation.chat_plan`; None: all of
    them) compiled to the typed fast path.

    Members are matched by wire name and type: ``id``/``model``/``full_text``
    strings without enum, ``usage`` an object, ``choices`` an array of objects
    (OpenAI's chunk shape, which every provider in ``specs/`` follows); a step whose
    member the spec types otherwise is left out.
    ``plain`` wraps the ``usage`` value handed to ``acc.set_usage`` (``{}`` is the
    value): the flavour's conversion to what the runtime turns into plain data.
    """
    reads = None if steps is None else {step.value for step in steps} | {step.extra for step in steps}
    meta = _meta(payload, reads)
    usage = _object(payload, "usage") if _reads(reads, ("usage",)) else None
    full_text = _scalar(payload, "full_text", "string") if _reads(reads, ("full_text",)) else None
    choices = _choices_plan(payload, reads)
    error, error_member = _error(payload, plain) if choices is not None and _reads(reads, ("error",)) else (None, False)
    return ApplyPlan(
        function=function,
        cls=cls,
        meta=meta,
        choices=choices,
        usage=_feed("chunk", usage, "usage", lambda v: _set_usage(v, plain)) if usage else None,
        full_text=_feed("chunk", full_text, "full_text", lambda v: f"acc.final_text = {v}") if full_text else None,
        error=error,
        error_member=error_member,
        error_attr=_error_attr(payload) if error is not None else "",
        keep_usage=str(usage.attr) if usage else "",
        usage_replaced=usage is not None,  # acc.set_usage: the last object sent wins
    )


def _meta(payload: Schema, reads: set[tuple[str, ...]] | None) -> str | None:
    """The two arguments of ``acc.meta``: the chunk's string ``id`` and ``model`` (``None``
    for one absent or not read); None when both are."""
    id_ = _scalar(payload, "id", "string") if _reads(reads, ("id",)) else None
    model = _scalar(payload, "model", "string") if _reads(reads, ("model",)) else None
    if id_ is None and model is None:
        return None
    return f"{_read('chunk', id_)}, {_read('chunk', model)}"


def _reads(reads: set[tuple[str, ...]] | None, path: tuple[str, ...]) -> bool:
    """True when the plan reads member ``path`` (every member when ``reads`` is None)."""
    return reads is None or path in reads


def _set_usage(value: str, plain: str) -> str:
    """``acc.set_usage`` of the usage object; a flavour whose models the runtime does
    not convert itself hands the object too, for what the decoder kept on it."""
    if plain == "{}":
        return f"acc.set_usage({value})"
    return f"acc.set_usage({plain.format(value)}, {value})"


def _error_attr(payload: Schema) -> str:
    """The identifier of the chunk's ``error`` member: the declared one's, else ``error``
    (the member :func:`_error` gives the class)."""
    prop = payload.property("error")
    return str(field_identifiers(payload)[prop.name]) if prop is not None else "error"


def _error(payload: Schema, plain: str) -> tuple[Feed | None, bool]:
    """The feed of a chunk's top-level ``error`` member and whether the class must get
    one: a member the spec declares is read as declared; without one, a member
    ``error: Any`` is added (none when another member took that identifier)."""
    prop = payload.property("error")
    if prop is not None:
        access = _access(prop, payload)
        return _feed("chunk", access, "error", lambda v: f"acc.error_in_chunk({plain.format(v)})"), False
    if "error" in field_identifiers(payload).values():
        return None, False
    access = _Access(PythonIdentifier("error"), True)
    return _feed("chunk", access, "error", lambda v: f"acc.error_in_chunk({v})"), True


@dataclass(frozen=True)
class _Access:
    """How to read one member: its field identifier and whether it may be None."""

    attr: PythonIdentifier
    optional: bool


def _read(owner: str, access: _Access | None) -> str:
    """``owner.attr``, or ``None`` when the member is absent."""
    return f"{owner}.{access.attr}" if access is not None else "None"


def _feed(owner: str, access: _Access, name: str, statement: Callable[[str], str]) -> Feed:
    """``statement`` of ``owner.attr``, bound to ``name`` and guarded when it may be None."""
    value = f"{owner}.{access.attr}"
    if access.optional:
        return Feed(f"({name} := {value}) is not None", statement(name))
    return Feed(None, statement(value))


def _text(owner: str, field: str, access: _Access) -> Feed:
    return _feed(owner, access, "text", lambda v: f"state.{field}.append({v})")


def _choices_plan(payload: Schema, reads: set[tuple[str, ...]] | None = None) -> ChoicesPlan | None:
    """How each element of the chunk's ``choices`` (an array of objects with members) feeds
    its ``ChoiceState``: the members ``reads`` names (every one when None) that the spec
    types as the runtime reads them; None when there is no such array."""
    prop = payload.property("choices")
    if prop is None or prop.schema.type != "array" or prop.schema.items is None:
        return None
    choice = prop.schema.items
    if choice.type != "object" or not choice.properties:
        return None
    loop, index = _choice_loop(_access(prop, payload), choice)
    delta_prop = choice.property("delta")
    delta = None
    reasoning_member: Schema | None = None
    on_delta: list[Feed] = []
    tool_calls = None
    if delta_prop is not None and delta_prop.schema.type == "object" and delta_prop.schema.properties:
        delta = _access(delta_prop, choice)
        on_delta, reasoning_member = _delta_texts(delta_prop.schema, reads)
        if _reads(reads, ("choices", EACH, "delta", "tool_calls")):
            tool_calls = _tool_calls_plan(delta_prop.schema)
    return ChoicesPlan(
        loop=loop,
        index=index,
        on_choice=_choice_text(choice, reads),
        delta=f"choice.{delta.attr}" if delta is not None else None,
        delta_guard="delta is not None" if delta is not None and delta.optional else None,
        on_delta=tuple(on_delta),
        tool_calls=tool_calls,
        finish_reason=_finish_reason(choice, reads),
        reasoning_member=reasoning_member,
    )


def _choice_loop(choices: _Access, choice: Schema) -> tuple[str, str]:
    """``(loop, index)``: the ``for`` over the chunk's choices and each one's index. Where
    the ``index`` member is absent or may be None, the choice's position stands in (the
    runtime's rule), so the loop ``enumerate`` s."""
    iterable = f"chunk.{choices.attr}" + (" or ()" if choices.optional else "")
    index = _scalar(choice, "index", "integer")
    if index is not None and not index.optional:
        return f"choice in {iterable}", f"choice.{index.attr}"
    loop = f"position, choice in enumerate({iterable})"
    if index is None:
        return loop, "position"
    return loop, f"position if choice.{index.attr} is None else choice.{index.attr}"


def _delta_texts(delta: Schema, reads: set[tuple[str, ...]] | None) -> tuple[list[Feed], Schema | None]:
    """``(feeds, reasoning member)``: the delta's text members ``reads`` names, in
    :data:`TEXT_FIELDS` order (a string, or a ``content`` of typed parts), and ``delta``
    itself when it gets the reasoning member the spec lacks (else None)."""
    on_delta: list[Feed] = []
    reasoning_member: Schema | None = None
    for name in TEXT_FIELDS:
        if not _reads(reads, ("choices", EACH, "delta", name)):
            continue
        access = _scalar(delta, name, "string")
        if access is not None:
            on_delta.append(_text("delta", name, access))
        elif name == "content" and (parts := _content_parts(delta)) is not None:
            on_delta.append(_feed("delta", parts, "content", lambda v: f"state.add_content({v})"))
        elif (
            name == "reasoning_content"
            and delta.property(name) is None
            and name not in field_identifiers(delta).values()
        ):
            # Not in this spec (OpenAI's), but sent by DeepSeek-shaped servers: read it anyway.
            on_delta.append(_text("delta", name, _Access(PythonIdentifier(name), True)))
            reasoning_member = delta
    return on_delta, reasoning_member


def _choice_text(choice: Schema, reads: set[tuple[str, ...]] | None) -> tuple[Feed, ...]:
    """The feed of a string ``text`` on the choice itself, appended to its content."""
    # Completion-style chunks (FIM, OpenAI legacy) carry `text` on the choice itself.
    text = _scalar(choice, "text", "string") if _reads(reads, ("choices", EACH, "text")) else None
    return (_text("choice", "content", text),) if text is not None else ()


def _finish_reason(choice: Schema, reads: set[tuple[str, ...]] | None) -> Feed | None:
    """The feed of the choice's ``finish_reason`` when ``reads`` names it and it is a string."""
    finish = choice.property("finish_reason") if _reads(reads, ("choices", EACH, "finish_reason")) else None
    if finish is None or finish.schema.type != "string":
        return None
    return _feed("choice", _access(finish, choice), "finish_reason", lambda v: f"state.finish_reason = {v}")


def _content_parts(delta: Schema) -> _Access | None:
    """The delta's ``content`` when it may be a list of typed parts (a union of a string
    and an array, or an array: Mistral's ``text``/``thinking`` chunks), read by
    ``ChoiceState.add_content``."""
    prop = delta.property("content")
    if prop is None:
        return None
    schema = prop.schema
    kinds = {v.type for v in schema.variants} if schema.type == "union" else {schema.type}
    if "array" not in kinds or not kinds <= {"array", "string"}:
        return None
    return _access(prop, delta)


def _tool_calls_plan(delta: Schema) -> ToolCallsPlan | None:
    prop = delta.property("tool_calls")
    if prop is None or prop.schema.type != "array":
        return None
    access = _access(prop, delta)
    source = f"delta.{access.attr}"
    iterable = source + (" or ()" if access.optional else "")
    item = prop.schema.items
    if item is None or item.type != "object" or not item.properties:
        return ToolCallsPlan(typed=False, source=source, iterable=iterable)
    fn, fn_args = _function_arguments(item)
    return ToolCallsPlan(
        typed=True,
        source=source,
        iterable=iterable,
        function=f"call.{fn.attr}" if fn is not None else None,
        arguments=(
            _read("call", _scalar(item, "index", "integer")),
            _read("call", _scalar(item, "id", "string")),
            _read("call", _string(item, "type")),
            *fn_args,
        ),
    )


def _function_arguments(item: Schema) -> tuple[_Access | None, list[str]]:
    """``(function, [name, arguments])``: a tool-call item's ``function`` object (None when it
    is not an object with members) and the expressions of its string ``name`` and
    ``arguments`` on the bound ``function`` (``None`` where absent or unset)."""
    function = item.property("function")
    fn_schema = function.schema if function is not None and function.schema.type == "object" else None
    fn = _access(function, item) if function is not None and fn_schema is not None and fn_schema.properties else None
    name = _scalar(fn_schema, "name", "string") if fn_schema is not None else None
    arguments = _scalar(fn_schema, "arguments", "string") if fn_schema is not None else None
    if fn is None:
        return None, ["None", "None"]
    if fn.optional:
        return fn, [f"function.{a.attr} if function is not None else None" if a else "None" for a in (name, arguments)]
    return fn, [_read("function", name), _read("function", arguments)]


def _access(prop: Property, owner: Schema) -> _Access:
    return _Access(field_identifiers(owner)[prop.name], not prop.required or prop.schema.nullable)


def _scalar(schema: Schema, name: str, type_: str) -> _Access | None:
    """The member ``name`` when it is a ``type_`` without enum."""
    prop = schema.property(name)
    if prop is None or prop.schema.type != type_ or prop.schema.enum:
        return None
    return _access(prop, schema)


def _string(schema: Schema, name: str) -> _Access | None:
    """The member ``name`` when it is a string, enum or not."""
    prop = schema.property(name)
    if prop is None or prop.schema.type != "string":
        return None
    return _access(prop, schema)


def _object(schema: Schema, name: str) -> _Access | None:
    prop = schema.property(name)
    if prop is None or prop.schema.type != "object":
        return None
    return _access(prop, schema)
