"""Each channel's accumulation plan: how its events assemble into one result (issue 13).

The plan is data in the IR (:class:`ssegen.ir.Accumulation`), not code written for one
shape. Three families are recognized from the messages' shape, in this order:

``chat``
    a data message with ``choices``, an array of objects (OpenAI's chat-completions
    chunk, which every chat provider in ``specs/`` follows): :func:`chat_plan` states
    what it reads (``choices[*].delta.content`` keyed by ``choices[*].index``, the tool-call
    fragments, ``finish_reason``, ``usage``, ...), which the code model compiles as it does
    every plan (:mod:`ssegen.codemodel.plans`).
``gemini``
    Google's ``GenerateContentResponse``: ``candidates``, an array of objects whose
    ``content.parts`` is an array (:func:`gemini_plan`): each candidate is a choice keyed by
    its ``index``, each part appended in order (``text`` to ``content``, a ``thought: true``
    part's text to ``reasoning_content``, a ``functionCall`` a whole tool call),
    ``finishReason`` the finish and stop reason and the end of the stream (Gemini sends no
    terminator), ``usageMetadata`` replaced whole by each chunk that sends it, and (as in
    ``chat``) an ``error`` object inside a chunk an error (:data:`ERROR_IN_CHUNK`).
    In both families a message sent in place of a chunk whose required ``error`` member is
    an object or a string (Google's JSON error ``ErrorResponse``) is an error
    (:data:`ERROR_PLAN`).
``cohere``
    Cohere v2 chat streaming: messages whose ``type`` is fixed to ``message-start``,
    ``content-start``/``-delta``/``-end``, ``tool-plan-delta``, ``tool-call-start``/``-delta``/
    ``-end``, ``citation-start``, ``message-end`` (:data:`COHERE`): blocks keyed by ``index``,
    ``tool_plan`` a named text of the stream, citations a list, ``message-end`` the finish
    reason, the usage (replaced) and the end of the stream.
``messages``
    Anthropic Messages streaming: messages whose ``type`` is fixed to
    ``message_start``, ``content_block_start``/``_delta``/``_stop``, ``message_delta``,
    ``message_stop``, ``error``; content blocks keyed by ``index``; a delta's text goes
    to ``text``, ``thinking``, ``signature`` or (``input_json_delta.partial_json``) the
    block's tool ``arguments`` by the delta's own ``type``, any other delta the spec lists
    (``citations_delta``, ``compaction_delta``) to the block as sent; usage from ``message_start``
    merged with ``message_delta``'s; ``message_delta``'s ``stop_sequence`` (the custom stop
    sequence matched) a named text of the stream and its ``stop_details`` (a refusal's category
    and explanation) a named list, as the anthropic SDK's final message keeps both.
``responses``
    OpenAI Responses streaming: ``response.created``/``in_progress`` (id, model),
    ``response.output_item.added``/``.done`` open and close the item at
    ``output_index``; ``response.output_text.delta``, ``.refusal.delta``,
    ``.function_call_arguments.delta``, ``.reasoning_summary_text.delta`` and
    ``.reasoning_text.delta`` append; ``response.completed``/``.incomplete``/``.failed``
    carry the usage and status and end the stream (``.failed`` and ``error`` are errors);
    their ``output`` is the finished items (a snapshot: what no delta gave, and where a
    delta disagrees, ``snapshot_mismatch``). Any other ``response.<name>.delta`` with a
    string ``delta`` and an ``output_index`` appends to the item's text ``<name>``
    (``custom_tool_call_input``, ``code_interpreter_call_code``, ``mcp_call_arguments``:
    the runtime names the field without the item type, ``input``, ``code``, ``arguments``).

A step is kept only when its paths exist in the message's payload and its values have the
types its action reads, so a spec that omits a member simply does not feed it, and every step
kept compiles. Paths are resolved by :func:`ssegen.ir.resolve_path`, the
one resolver the code model reads too. A channel that fits none of them can state its plan
with an ``x-ssegen-accumulate`` extension (``custom``; docs/accumulation.md); otherwise
its events are only typed, and ``accumulation-unknown`` (info) says so once per channel.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import (
    EACH,
    AccumulateStep,
    Accumulation,
    Channel,
    Message,
    Provenance,
    Provider,
    Resolved,
    Schema,
    WhenTest,
    format_path,
    resolve_path,
)
from ..naming import ClassName
from .stated_steps import parse_step

#: ``x-ssegen-accumulate``: the extension stating a channel's plan.
EXTENSION = "x-ssegen-accumulate"

_S = AccumulateStep

#: The Messages family, by the value each message fixes ``type`` to.
MESSAGES: dict[str, tuple[AccumulateStep, ...]] = {
    "message_start": (
        _S("meta", value=("message", "id"), extra=("message", "model")),
        _S("usage", value=("message", "usage")),
    ),
    "content_block_start": (_S("open", key=("index",), value=("content_block",)),),
    "content_block_delta": (
        _S("append", key=("index",), value=("delta", "text"), field="text", variant=("delta", "text_delta")),
        _S(
            "append", key=("index",), value=("delta", "thinking"), field="thinking", variant=("delta", "thinking_delta")
        ),
        _S(
            "append",
            key=("index",),
            value=("delta", "signature"),
            field="signature",
            variant=("delta", "signature_delta"),
        ),
        _S(
            "append",
            key=("index",),
            value=("delta", "partial_json"),
            field="arguments",
            variant=("delta", "input_json_delta"),
        ),
        _S("delta", key=("index",), value=("delta",)),
    ),
    "content_block_stop": (_S("close", key=("index",)),),
    "message_delta": (
        _S("stop", value=("delta", "stop_reason")),
        _S("append", value=("delta", "stop_sequence"), field="stop_sequence"),
        _S("collect", value=("delta", "stop_details"), field="stop_details"),
        _S("usage", value=("usage",)),
    ),
    "message_stop": (_S("done"),),
    "error": (_S("error"),),
}

#: The Responses family, by the value each message fixes ``type`` to.
RESPONSES: dict[str, tuple[AccumulateStep, ...]] = {
    "response.created": (_S("meta", value=("response", "id"), extra=("response", "model")),),
    "response.in_progress": (_S("meta", value=("response", "id"), extra=("response", "model")),),
    "response.queued": (_S("meta", value=("response", "id"), extra=("response", "model")),),
    "response.output_item.added": (_S("open", key=("output_index",), value=("item",)),),
    "response.output_text.delta": (_S("append", key=("output_index",), value=("delta",), field="text"),),
    "response.refusal.delta": (_S("append", key=("output_index",), value=("delta",), field="refusal"),),
    "response.function_call_arguments.delta": (
        _S("append", key=("output_index",), value=("delta",), field="arguments"),
    ),
    "response.reasoning_summary_text.delta": (_S("append", key=("output_index",), value=("delta",), field="thinking"),),
    "response.reasoning_text.delta": (_S("append", key=("output_index",), value=("delta",), field="thinking"),),
    "response.output_item.done": (_S("close", key=("output_index",), value=("item",)),),
    "response.completed": (
        _S("snapshot", value=("response", "output")),
        _S("usage", value=("response", "usage")),
        _S("stop", value=("response", "status")),
        _S("done"),
    ),
    "response.incomplete": (
        _S("snapshot", value=("response", "output")),
        _S("usage", value=("response", "usage")),
        _S("stop", value=("response", "status")),
        _S("stop", value=("response", "incomplete_details", "reason")),
        _S("done"),
    ),
    "response.failed": (
        _S("snapshot", value=("response", "output")),
        _S("usage", value=("response", "usage")),
        _S("stop", value=("response", "status")),
        _S("error"),
        _S("done"),
    ),
    "error": (_S("error"),),
}

#: The Cohere v2 chat family (``POST /v2/chat`` with ``stream: true``), by the value each
#: message fixes ``type`` to: content blocks and tool calls keyed by ``index``, the tool plan a
#: named text of the stream, citations a list, ``message-end`` the finish reason, usage and end.
COHERE: dict[str, tuple[AccumulateStep, ...]] = {
    "message-start": (_S("meta", value=("id",)),),
    "content-start": (_S("open", key=("index",), value=("delta", "message", "content")),),
    "content-delta": (
        _S("append", key=("index",), value=("delta", "message", "content", "text"), field="text"),
        _S("append", key=("index",), value=("delta", "message", "content", "thinking"), field="thinking"),
    ),
    "content-end": (_S("close", key=("index",)),),
    "tool-plan-delta": (_S("append", value=("delta", "message", "tool_plan"), field="tool_plan"),),
    "tool-call-start": (
        _S(
            "open",
            key=("index",),
            value=("delta", "message", "tool_calls"),
            members=(
                ("id", ("id",)),
                ("type", ("type",)),
                ("name", ("function", "name")),
                ("arguments", ("function", "arguments")),
            ),
        ),
    ),
    "tool-call-delta": (
        _S(
            "append",
            key=("index",),
            value=("delta", "message", "tool_calls", "function", "arguments"),
            field="arguments",
        ),
    ),
    "tool-call-end": (_S("close", key=("index",)),),
    "citation-start": (_S("collect", value=("delta", "message", "citations"), field="citations"),),
    "message-end": (
        _S("stop", value=("delta", "finish_reason")),
        _S("usage", value=("delta", "usage"), mode="replace"),
        _S("done"),
    ),
}

#: The families recognized from tags, with the tag values that mark them.
_FAMILIES = (
    ("messages", MESSAGES, "content_block_delta"),
    ("responses", RESPONSES, "response.output_item.added"),
    ("cohere", COHERE, "message-end"),
)

#: The choice fields.
CHOICE_FIELDS = ("content", "reasoning_content", "refusal")


def chat_plan(payload: Schema) -> tuple[AccumulateStep, ...]:
    """The chat family's plan for a chunk of ``payload`` (OpenAI's chat-completions chunk):
    every member a chat stream assembles, as steps; :func:`_kept` keeps those the payload
    types as they read (a key it lacks is the choice's position).

    Each choice sent is one of the result's, even one sending nothing yet (the first chunk's
    ``{"delta": {"role": "assistant"}}``): the ``open`` step. ``choices[*].delta.reasoning_content``
    is read whether the spec lists it or not (:data:`REASONING_IN_DELTA`, DeepSeek's member,
    which other OpenAI-compatible servers send too: ``specs/deepseek/asyncapi-page.txt:436``);
    the error object of an ordinary chunk (OpenRouter) likewise (:data:`ERROR_IN_CHUNK`).
    ``full_text`` is MindIE's whole text so far (``specs/siliconstorm/inference-api.md:725``).
    """
    choice = ("choices", EACH)
    key = (*choice, "index")
    steps = [
        _S("meta", value=("id",), extra=("model",)),
        _S("open", key=key, value=choice),
        _S("append", key=key, value=(*choice, "text"), field="content"),
        *(_S("append", key=key, value=(*choice, "delta", name), field=name) for name in CHOICE_FIELDS),
        _S("tool_calls", key=key, value=(*choice, "delta", "tool_calls")),
        _S("stop", key=key, value=(*choice, "finish_reason")),
        _S("usage", value=("usage",), mode="replace"),
        _S("final_text", value=("full_text",)),
        ERROR_IN_CHUNK,
    ]
    return tuple(steps)


#: The chat plan's step reading ``reasoning_content`` from a choice's delta: kept where the
#: delta (an object with members) does not declare it (:func:`_undeclared`); the code model
#: then gives the delta's class the member.
REASONING_IN_DELTA = _S(
    "append",
    key=("choices", EACH, "index"),
    value=("choices", EACH, "delta", "reasoning_content"),
    field="reasoning_content",
)


#: The plan of an error message of a ``chat`` or ``gemini`` channel (:func:`_is_error`):
#: the event is an error, recorded in ``errors`` (``error_event``), text so far kept.
ERROR_PLAN: tuple[AccumulateStep, ...] = (_S("error"),)

#: The step reading a top-level ``error`` object inside an ordinary chunk, whatever the
#: spec says (OpenRouter's chat chunks; a Gemini chunk whose ``error`` is not Google's
#: error shape): kept in the ``chat`` and ``gemini`` plans though the payload lacks it.
ERROR_IN_CHUNK = _S("error", value=("error",))


#: The part members of a Gemini candidate kept as sent (``content_parts``).
_GEMINI_PARTS = (
    "executableCode",
    "codeExecutionResult",
    "inlineData",
    "fileData",
    "functionResponse",
)


def gemini_plan(payload: Schema) -> tuple[AccumulateStep, ...]:
    """The ``gemini`` family's plan for a ``GenerateContentResponse`` (Google's
    ``streamGenerateContent?alt=sse``): see the module docstring. Steps whose paths the
    payload lacks are left out by the caller."""
    candidate = ("candidates", EACH)
    key = (*candidate, "index")
    part = (*candidate, "content", "parts", EACH)
    thought: WhenTest = ("eq", True)
    not_thought: WhenTest = ("not", True)
    finish = (*candidate, "finishReason")
    blocked = ("promptFeedback", "blockReason")
    return (
        _S("meta", value=("responseId",), extra=("modelVersion",)),
        _S("append", key=key, value=(*part, "text"), field="content", when=((("thought",), not_thought),)),
        _S("append", key=key, value=(*part, "text"), field="reasoning_content", when=((("thought",), thought),)),
        _S(
            "tool_call",
            key=key,
            value=(*part, "functionCall"),
            members=(
                ("id", ("id",)),
                ("name", ("name",)),
                ("arguments", ("args",)),
                ("partial_arguments", ("partialArgs",)),
            ),
        ),
        *(
            _S("collect", key=key, value=part, field="content_parts", when=(((name,), ("present", True)),))
            for name in _GEMINI_PARTS
        ),
        _S("collect", value=(*part, "thoughtSignature"), field="thought_signatures"),
        _S("stop", key=key, value=finish),
        _S("stop", value=finish),
        _S("stop", value=blocked),
        _S("usage", value=("usageMetadata",), mode="replace"),
        _S("complete", value=finish),
        _S("complete", value=blocked),
        ERROR_IN_CHUNK,
    )


def plan_accumulation(provider: Provider, diagnostics: Diagnostics) -> Provider:
    """``provider`` with every channel's :attr:`~ssegen.ir.Channel.accumulation` set.

    Reports ``accumulate-invalid`` (warning) for an unusable ``x-ssegen-accumulate``
    entry, naming the part that is wrong, and ``accumulation-unknown`` (info) for a
    channel no plan fits. Never raises.
    """
    return replace(provider, channels=tuple(_plan(c, diagnostics) for c in provider.channels))


def _plan(channel: Channel, diagnostics: Diagnostics) -> Channel:
    """``channel`` with its accumulation: the plan its ``x-ssegen-accumulate`` states, else
    the first family its data messages fit (by shape: ``chat``, ``gemini``; by tag: the
    block families), else ``none`` with ``accumulation-unknown``."""
    stated = channel.extensions.get(EXTENSION)
    if stated is not None:
        return replace(channel, accumulation=_custom(channel, stated, diagnostics))
    data = [m for m in channel.messages if m.literal is None]
    accumulation = _shaped(channel, data)
    if accumulation is None:
        accumulation = _tagged(channel, data)
    if accumulation is None:
        diagnostics.at(
            channel.provenance,
            codes.ACCUMULATION_UNKNOWN,
            f"channel {channel.address} fits no accumulation family (chat-completions choices, Messages content "
            f"blocks, Responses output items, Gemini candidates, Cohere v2 events): its events are typed and "
            f"`complete` is set by "
            f"its terminator; state a plan with {EXTENSION} on the channel",
        )
        accumulation = Accumulation("none", provenance=channel.provenance)
    return replace(channel, accumulation=accumulation)


def _shaped(channel: Channel, data: list[Message]) -> Accumulation | None:
    """The plan of the first family recognized by a data message's shape (``chat``, then
    ``gemini``): each chunk gets the family's plan (:func:`_kept`), each error message sent
    in place of one :data:`ERROR_PLAN`; None when no data message fits."""
    for family, shape, plan in (("chat", _is_chat, chat_plan), ("gemini", _is_gemini, gemini_plan)):
        if not any(m.kind == "data" and shape(m.payload) for m in data):
            continue
        steps = [(m.name, _family_steps(m.payload, family, shape, plan)) for m in data if m.kind == "data"]
        return Accumulation(family, tuple((n, s) for n, s in steps if s), channel.provenance, result="choices")
    return None


def _family_steps(
    payload: Schema, family: str, shape: Callable[[Schema], bool], plan: Callable[[Schema], tuple[AccumulateStep, ...]]
) -> tuple[AccumulateStep, ...]:
    """The steps of a data message of a ``chat`` or ``gemini`` channel: the family's plan for
    a chunk of its shape, :data:`ERROR_PLAN` for an error sent in place of one; any other
    message of a chat channel reads what the chat plan reads outside the choices that it
    types (its id and model, usage, ``full_text``: a usage chunk without choices)."""
    if shape(payload):
        return _kept(payload, plan(payload), family, "choices")
    if _is_error(payload):
        return ERROR_PLAN
    if family != "chat":
        return ()
    return tuple(s for s in _kept(payload, plan(payload), family, "choices") if s != ERROR_IN_CHUNK)


def _tagged(channel: Channel, data: list[Message]) -> Accumulation | None:
    """The plan of the first block family whose marker a message fixes its ``type`` to: each
    message gets the family table's steps for its tag (or :func:`_generic`'s) that its payload
    has; None when no family's marker is sent."""
    tags = {m.payload.tag("type"): m for m in data}
    for family, table, marker in _FAMILIES:
        if marker not in tags:
            continue
        found = []
        for value, message in tags.items():
            kept = _kept(message.payload, table.get(value or "", ()) or _generic(family, value), family, "output")
            if kept:
                found.append((message.name, kept))
        return Accumulation(family, tuple(found), channel.provenance)
    return None


def _kept(payload: Schema, steps: tuple[AccumulateStep, ...], family: str, result: str) -> tuple[AccumulateStep, ...]:
    """The steps of a built-in plan that fit ``payload`` (:func:`_fitted`), and those reading a
    member servers send beyond the spec (:func:`_undeclared`); a chat key the choice lacks (or
    does not type as an integer) is the choice's position (``choices[*]``)."""
    kept = []
    for step in steps:
        undeclared = _undeclared(payload, step)
        if family == "chat" and EACH in step.key and _unfit_key(payload, step.key):
            step = replace(step, key=step.key[: len(step.key) - step.key[::-1].index(EACH)])
        fitted = step if undeclared else _fitted(payload, step, result)
        if fitted is not None:
            kept.append(fitted)
    return tuple(kept)


def _undeclared(payload: Schema, step: AccumulateStep) -> bool:
    """True for a step of a built-in plan reading a member servers send whatever the spec
    says, where the spec does not declare it: :data:`ERROR_IN_CHUNK`, and
    :data:`REASONING_IN_DELTA` on a delta that is an object with members."""
    if step == ERROR_IN_CHUNK:
        return payload.property("error") is None
    if step != REASONING_IN_DELTA:
        return False
    delta = resolve_path(payload, step.value[:-1]).schema
    return (
        delta is not None
        and delta.type == "object"
        and bool(delta.properties)
        and delta.property(step.value[-1]) is None
    )


def _generic(family: str, tag: str | None) -> tuple[AccumulateStep, ...]:
    """The steps of a Responses message the family table does not list: a
    ``response.<name>.delta`` appends its ``delta`` to the item's text ``<name>``."""
    if family != "responses" or not tag or not tag.startswith("response.") or not tag.endswith(".delta"):
        return ()
    name = tag[len("response.") : -len(".delta")]
    if not name or "." in name:
        return ()
    return (_S("append", key=("output_index",), value=("delta",), field=name),)


def _is_chat(payload: Schema) -> bool:
    prop = payload.property("choices")
    return prop is not None and prop.schema.type == "array" and prop.schema.items is not None


def _is_error(payload: Schema) -> bool:
    """True for an error message sent in place of a chunk: a payload whose required
    ``error`` member is an object (Google's JSON error ``{"error": {"code", "message",
    "status", "details"}}``, ``specs/gemini/generate-content.yaml``) or a string (Ollama's
    ``{"error": "..."}``, ``specs/ollama/api.yaml``), which no chunk shape of the family has."""
    prop = payload.property("error")
    return prop is not None and prop.required and prop.schema.type in ("object", "string")


def _is_gemini(payload: Schema) -> bool:
    """True for a ``GenerateContentResponse``: ``candidates[*].content.parts`` an array."""
    return resolve_path(payload, ("candidates", EACH, "content", "parts", EACH)).schema is not None


def _fitted(payload: Schema, step: AccumulateStep, result: str) -> AccumulateStep | None:
    """``step`` when its paths exist in ``payload``; a ``meta`` step keeps whichever of
    the id and model paths exists (None when neither does)."""
    if step.members:
        target = resolve_path(payload, step.value).schema
        kept = tuple(
            (name, path)
            for name, path in step.members
            if target is not None and resolve_path(target, path).schema is not None
        )
        step = replace(step, members=kept)
    if step.action != "meta":
        return step if _unresolved(payload, step, result) is None else None
    value = step.value if step.value and _reads_text(payload, step.value) else ()
    extra = step.extra if step.extra and _reads_text(payload, step.extra) else ()
    return replace(step, value=value, extra=extra) if value or extra else None


#: The JSON types a value read as text may have (``any``: any JSON, checked when read).
_TEXT = frozenset(("string", "any"))

#: What each action reads at ``value`` (and ``meta`` at ``extra``), when it reads a type.
_READS: dict[str, tuple[frozenset[str], str]] = {
    "append": (_TEXT, "a string"),
    "stop": (_TEXT, "a string"),
    "meta": (_TEXT, "a string"),
    "final_text": (_TEXT, "a string"),
    "tool_calls": (frozenset(("array", "any")), "a list"),
}


def _kinds(schema: Schema) -> frozenset[str]:
    """The JSON types ``schema`` admits: a union's alternatives' (``any`` for any JSON)."""
    if schema.type == "union":
        return frozenset(kind for variant in schema.variants for kind in _kinds(variant))
    return frozenset((schema.type,))


def _reads_text(payload: Schema, path: tuple[str, ...]) -> bool:
    """True when member ``path`` of ``payload`` exists and may be a string."""
    found = resolve_path(payload, path).schema
    return found is not None and bool(_kinds(found) & _TEXT)


def _unfit_key(payload: Schema, key: tuple[str, ...]) -> str:
    """Why ``key`` cannot name a choice or block ("" when it can): it exists and may be an
    integer, or names the element of its last ``[*]`` itself (the element's position)."""
    if key[-1] == EACH:
        return ""
    found = resolve_path(payload, key).schema
    if found is None:
        return "does not resolve"
    return "" if _kinds(found) & {"integer", "any"} else f"is {' or '.join(sorted(_kinds(found)))}, not an integer"


def _unfit(payload: Schema, step: AccumulateStep, result: str) -> str | None:
    """None when ``step``'s key and values (which resolve) have the types its action reads,
    else which does not: a key is an integer; ``append``, ``stop``, ``meta`` and
    ``final_text`` read a string (``append`` to a choice's ``content`` a list of typed parts
    too: Mistral's chunks), ``tool_calls`` a list."""
    if step.key and (why := _unfit_key(payload, step.key)):
        return f"key {format_path(step.key)!r} {why}"
    stars = _element(step.key)
    if stars and _element(step.value)[: len(stars)] != stars:
        return f"key {format_path(step.key)!r} reads elements `value` {format_path(step.value)!r} does not go through"
    kinds, what = _READS.get(step.action, (frozenset(), ""))
    if step.action == "append" and step.field == "content" and result == "choices":
        kinds, what = kinds | {"array"}, "a string or a list of parts"
    for entry in ("value", "extra") if kinds else ():
        path: tuple[str, ...] = getattr(step, entry)
        found = resolve_path(payload, path, step.variant if entry == "value" else None).schema if path else None
        if found is not None and not _kinds(found) & kinds:
            sent = " or ".join(sorted(_kinds(found)))
            return f"{entry} {format_path(path)!r} is {sent}; `{step.action}` reads {what}"
    return None


def _unresolved(payload: Schema, step: AccumulateStep, result: str = "output") -> str | None:
    """None when every path of ``step`` exists in ``payload``, else what does not resolve:
    the entry, the path as written up to the failing segment, and why."""
    for entry in ("key", "value", "extra"):
        path: tuple[str, ...] = getattr(step, entry)
        if not path:
            continue
        found = resolve_path(payload, path, step.variant if entry == "value" else None)
        if found.schema is None:
            return (
                f"{entry} {format_path(path)!r}: segment {format_path(path[: found.failed + 1])!r} {found.reason}"
                f"{_where(found, payload)}"
            )
    base = _element(step.value)
    if base:
        found = resolve_path(payload, base)
        owner = found.schema
    else:
        owner = payload
    for path, _test in step.when:
        if owner is None:
            break
        found = resolve_path(owner, path)
        if found.schema is None:
            return (
                f"when {format_path(path)!r} (read from {format_path(base) or 'the payload'}): segment "
                f"{format_path(path[: found.failed + 1])!r} {found.reason}{_where(found, owner)}"
            )
    target = resolve_path(payload, step.value).schema if step.value else payload
    for name, path in step.members:
        if target is None:
            break
        found = resolve_path(target, path)
        if found.schema is None:
            return (
                f"members {name!r}: {format_path(path)!r} (read from {format_path(step.value) or 'the payload'}): "
                f"segment "
                f"{format_path(path[: found.failed + 1])!r} {found.reason}{_where(found, target)}"
            )
    return _unfit(payload, step, result)


def _where(found: Resolved, root: Schema) -> str:
    """Where the schema a path stopped in is written: `` (schema at file:line, pointer)``."""
    at = (found.nodes[-1][1] if found.nodes else root).provenance
    return f" (schema at {at.file}:{at.line}, {at.pointer or '/'})"


def _element(path: tuple[str, ...]) -> tuple[str, ...]:
    """The prefix of ``path`` up to its last ``[*]`` (what ``when`` paths are read from;
    ``()``: the payload)."""
    return path[: len(path) - path[::-1].index(EACH)] if EACH in path else ()


def _custom(channel: Channel, stated: Any, diagnostics: Diagnostics) -> Accumulation:
    """The plan an ``x-ssegen-accumulate`` extension states: a mapping from a message (its
    name as written or as generated, or the value its tag member is fixed to) to a list of
    steps (docs/accumulation.md); ``result: choices`` makes keyed steps assemble choices
    instead of output blocks. Each unusable entry is one ``accumulate-invalid`` warning
    naming its JSON pointer and the part that is wrong."""
    where = channel.provenance
    if not isinstance(stated, dict):
        diagnostics.at(where, codes.ACCUMULATE_INVALID, f"{EXTENSION} must map messages to lists of steps; ignored")
        return Accumulation("none", provenance=where)
    base = f"{where.pointer}/{EXTENSION}"
    result = stated.get("result", "output") if isinstance(stated.get("result"), str) else "output"
    if result not in ("output", "choices"):
        _invalid(diagnostics, where, f"{base}/result", f"result {result!r} is not `output` or `choices`; `output` used")
        result = "output"
    by_name = _by_name(channel)
    steps: list[tuple[str, tuple[AccumulateStep, ...]]] = []
    for key, items in stated.items():
        if key == "result" and isinstance(items, str):
            continue
        message = by_name.get(str(key)) or by_name.get(str(ClassName(str(key), prefix="Message")))
        pointer = f"{base}/{_escape(str(key))}"
        if message is None or not isinstance(items, list):
            text = f"{key!r} is not a message of {channel.address} with a list of steps; ignored"
            _invalid(diagnostics, where, pointer, text)
            continue
        kept = _stated_steps(message, key, items, result, Provenance(where.file, where.line, pointer), diagnostics)
        if kept:
            steps.append((message.name, kept))
    return Accumulation("custom", tuple(steps), where, result="choices" if result == "choices" else "output")


def _by_name(channel: Channel) -> dict[str, Message]:
    """The channel's messages by the names a stated plan may give them: the value a member
    is fixed to (a tag), and, winning over a tag, the message's own name."""
    by_name: dict[str, Message] = {}
    for each in channel.messages:
        fixed = [value for p in each.payload.properties if (value := each.payload.tag(p.name))]
        by_name.update(dict.fromkeys(fixed, each))
    by_name.update({m.name: m for m in channel.messages})
    return by_name


def _stated_steps(
    message: Message, key: Any, items: list[Any], result: str, at: Provenance, diagnostics: Diagnostics
) -> tuple[AccumulateStep, ...]:
    """The usable steps of the list stated for ``message`` (under ``key``, at pointer
    ``at``): each a step (:func:`.stated_steps.parse_step`) whose paths exist in the payload; each other
    entry one ``accumulate-invalid`` warning, at its own pointer, saying why."""
    kept: list[AccumulateStep] = []
    for number, item in enumerate(items):
        step_at = Provenance(at.file, at.line, f"{at.pointer}/{number}")
        step, problem = parse_step(item, result, step_at)
        unresolved = _unresolved(message.payload, step, result) if step is not None else None
        problem = unresolved or problem
        if step is None or unresolved is not None:
            _invalid(diagnostics, at, step_at.pointer, f"step {number} of {key!r} ({item!r}): {problem}; ignored")
            continue
        kept.append(step)
    return tuple(kept)


def _invalid(diagnostics: Diagnostics, where: Provenance, pointer: str, text: str) -> None:
    diagnostics.at(Provenance(where.file, where.line, pointer), codes.ACCUMULATE_INVALID, f"{EXTENSION}: {text}")


def _escape(token: str) -> str:
    """A JSON pointer reference token (RFC 6901 section 3)."""
    return token.replace("~", "~0").replace("/", "~1")
