"""Each channel's accumulation plan: how its events assemble into one result (issue 13).

The plan is data in the IR (:class:`ssegen.ir.Accumulation`), not code written for one
shape. Three families are recognized from the messages' shape, in this order:

``chat``
    a data message with ``choices``, an array of objects (OpenAI's chat-completions
    chunk, which every chat provider in ``specs/`` follows): the code model reads
    ``choices[].delta`` as today (:mod:`ssegen.codemodel.accumulation`).
``messages``
    Anthropic Messages streaming: messages whose ``type`` is fixed to
    ``message_start``, ``content_block_start``/``_delta``/``_stop``, ``message_delta``,
    ``message_stop``, ``error``; content blocks keyed by ``index``; a delta's text goes
    to ``text``, ``thinking``, ``signature`` or (``input_json_delta.partial_json``) the
    block's tool ``arguments`` by the delta's own ``type``, any other delta the spec lists
    (``citations_delta``, ``compaction_delta``) to the block as sent; usage from ``message_start``
    merged with ``message_delta``'s.
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

A step is kept only when its paths exist in the message's payload, so a spec that omits
a member simply does not feed it. A channel that fits none of them can state its plan
with an ``x-ssegen-accumulate`` extension (``custom``; README "Accumulation"); otherwise
its events are only typed, and ``accumulation-unknown`` (info) says so once per channel.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import AccumulateStep, Accumulation, Channel, Message, Provider, Schema
from ..naming import ClassName

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
    "message_delta": (_S("stop", value=("delta", "stop_reason")), _S("usage", value=("usage",))),
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

#: The families recognized from tags, with the tag values that mark them.
_FAMILIES = (("messages", MESSAGES, "content_block_delta"), ("responses", RESPONSES, "response.output_item.added"))

#: The fields an ``append`` step may add to.
FIELDS = ("text", "thinking", "signature", "refusal", "arguments")


def plan_accumulation(provider: Provider, diagnostics: Diagnostics) -> Provider:
    """``provider`` with every channel's :attr:`~ssegen.ir.Channel.accumulation` set.

    Reports ``accumulate-invalid`` (warning) for an unusable ``x-ssegen-accumulate``
    entry and ``accumulation-unknown`` (info) for a channel no plan fits. Never raises.
    """
    return replace(provider, channels=tuple(_plan(c, diagnostics) for c in provider.channels))


def _plan(channel: Channel, diagnostics: Diagnostics) -> Channel:
    stated = channel.extensions.get(EXTENSION)
    if stated is not None:
        return replace(channel, accumulation=_custom(channel, stated, diagnostics))
    data = [m for m in channel.messages if m.literal is None]
    if any(_is_chat(m.payload) for m in data if m.kind == "data"):
        return replace(channel, accumulation=Accumulation("chat", provenance=channel.provenance))
    tags = {m.payload.tag("type"): m for m in data}
    for family, table, marker in _FAMILIES:
        if marker in tags:
            steps = []
            for value, message in tags.items():
                kept = tuple(
                    fitted
                    for s in table.get(value or "", ()) or _generic(family, value)
                    if (fitted := _fitted(message.payload, s)) is not None
                )
                if kept:
                    steps.append((message.name, kept))
            return replace(channel, accumulation=Accumulation(family, tuple(steps), channel.provenance))
    diagnostics.at(
        channel.provenance,
        codes.ACCUMULATION_UNKNOWN,
        f"channel {channel.address} fits no accumulation family (chat-completions choices, Messages content "
        f"blocks, Responses output items): its events are typed and `complete` is set by its terminator; "
        f"state a plan with {EXTENSION} on the channel",
    )
    return replace(channel, accumulation=Accumulation("none", provenance=channel.provenance))


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


def _fitted(payload: Schema, step: AccumulateStep) -> AccumulateStep | None:
    """``step`` when its paths exist in ``payload``; a ``meta`` step keeps whichever of
    the id and model paths exists (None when neither does)."""
    if step.action != "meta":
        return step if _fits(payload, step) else None
    value = step.value if step.value and _resolve(payload, step.value, None) is not None else ()
    extra = step.extra if step.extra and _resolve(payload, step.extra, None) is not None else ()
    return replace(step, value=value, extra=extra) if value or extra else None


def _fits(payload: Schema, step: AccumulateStep) -> bool:
    """True when every path of ``step`` exists in ``payload`` (and its variant, when it has one)."""
    for path in (step.key, step.value, step.extra):
        if path and _resolve(payload, path, step.variant) is None:
            return False
    return True


def _resolve(schema: Schema, path: tuple[str, ...], variant: tuple[str, str] | None) -> Schema | None:
    """The schema at member ``path`` of ``schema``, or None when the path does not exist.

    A union on the way is entered through its alternative tagged ``variant[1]`` when it
    is the top-level member ``variant[0]``, else through its only object alternative.
    """
    node = schema
    for depth, name in enumerate(path):
        if node.type == "union":
            tag = variant[1] if variant is not None and depth == 1 and path[0] == variant[0] else None
            chosen = node.alternative(tag)
            if chosen is None:
                return None
            node = chosen
        if node.type == "any":
            return node
        if node.type != "object":
            return None
        prop = node.property(name)
        if prop is None:
            return None
        node = prop.schema
    return node


def _custom(channel: Channel, stated: Any, diagnostics: Diagnostics) -> Accumulation:
    """The plan an ``x-ssegen-accumulate`` extension states: a mapping from a message (its
    name as written or as generated, or the value its tag member is fixed to) to a list of steps, each a mapping with
    ``action`` and, as the action needs, ``key``, ``value``, ``extra`` (dotted member paths),
    ``field`` and ``variant`` (``{member: value}``)."""
    where = channel.provenance
    if not isinstance(stated, dict):
        diagnostics.at(where, codes.ACCUMULATE_INVALID, f"{EXTENSION} must map messages to lists of steps; ignored")
        return Accumulation("none", provenance=where)
    by_name: dict[str, Message] = {}
    for each in channel.messages:
        fixed = [value for p in each.payload.properties if (value := each.payload.tag(p.name))]
        by_name.update(dict.fromkeys(fixed, each))
    by_name.update({m.name: m for m in channel.messages})
    steps: list[tuple[str, tuple[AccumulateStep, ...]]] = []
    for key, items in stated.items():
        message = by_name.get(str(key)) or by_name.get(str(ClassName(str(key), prefix="Message")))
        if message is None or not isinstance(items, list):
            diagnostics.at(
                where,
                codes.ACCUMULATE_INVALID,
                f"{EXTENSION}: {key!r} is not a message of {channel.address} with a list of steps; ignored",
            )
            continue
        kept = []
        for item in items:
            step = _step(item)
            if step is None or not _fits(message.payload, step):
                diagnostics.at(
                    where,
                    codes.ACCUMULATE_INVALID,
                    f"{EXTENSION}: step {item!r} of {key!r} names an unknown action, field or member; ignored",
                )
                continue
            kept.append(step)
        if kept:
            steps.append((message.name, tuple(kept)))
    return Accumulation("custom", tuple(steps), where)


def _step(item: Any) -> AccumulateStep | None:
    if not isinstance(item, dict) or item.get("action") not in (
        "meta",
        "open",
        "append",
        "delta",
        "close",
        "snapshot",
        "stop",
        "usage",
        "done",
        "error",
    ):
        return None

    def path(name: str) -> tuple[str, ...]:
        value = item.get(name)
        return tuple(value.split(".")) if isinstance(value, str) and value else ()

    field = item.get("field", "")
    if item["action"] == "append" and field not in FIELDS:
        return None
    variant = item.get("variant")
    pair = None
    if isinstance(variant, dict) and len(variant) == 1:
        member, value = next(iter(variant.items()))
        pair = (str(member), str(value))
    return AccumulateStep(
        item["action"], key=path("key"), value=path("value"), field=str(field), variant=pair, extra=path("extra")
    )
