"""The results of accumulation: what a whole stream said, assembled.

:class:`StreamResult` (with :meth:`StreamResult.to_dict`) holds the stream's
:class:`ChoiceResult` per chat choice (each with its :class:`ToolCallResult`) and
:class:`BlockResult` per Messages content block or Responses output item; :class:`Family` names
how a channel's events assemble. The states building them are in ``accumulate_choices.py`` and
``accumulate_blocks.py``; :class:`~.accumulate.Accumulator` (``accumulate.py``) makes them.

This module is ``src/ssegen/runtime/accumulate_results.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import enum
from typing import Any

import msgspec


class Family(enum.StrEnum):
    """How a channel's events assemble (the IR's ``Accumulation.family``): each a plan.

    ``chat`` (chat-completions choices), ``messages`` (Anthropic content blocks),
    ``responses`` (OpenAI Responses output items), ``gemini`` (Gemini candidates, assembled
    as choices), ``cohere`` (Cohere v2 chat content blocks and tool calls), ``custom`` (an
    ``x-ssegen-accumulate`` plan), ``none`` (typed only).
    """

    CHAT = "chat"
    MESSAGES = "messages"
    RESPONSES = "responses"
    GEMINI = "gemini"
    COHERE = "cohere"
    CUSTOM = "custom"
    NONE = "none"


#: The families whose events name blocks by type (an off-spec block or event type is
#: assembled all the same: :meth:`Accumulator.off_spec_block`, :meth:`Accumulator.block_event`).
BLOCK_FAMILIES = frozenset((Family.MESSAGES, Family.RESPONSES))

#: The result keys each family leaves out of :meth:`StreamResult.to_dict` (the shape it
#: does not assemble).
_UNUSED_KEYS = {
    Family.CHAT: ("output", "stop_reason"),
    Family.GEMINI: ("output",),
    Family.MESSAGES: ("choices",),
    Family.RESPONSES: ("choices",),
    Family.COHERE: ("choices",),
}


class ToolCallResult(msgspec.Struct, kw_only=True):
    """A tool call assembled from its fragments (merged by ``index``; id, type and
    name come on the first fragment, ``arguments`` in pieces:
    specs/mistral/asyncapi-page.txt:561-584, specs/deepseek/asyncapi-page.txt:444-450).

    Attributes:
        index: position of the call within the choice.
        id: call id (from the first fragment that has one).
        type: tool type, e.g. ``function``.
        function: ``{"name": str | None, "arguments": str}``; arguments concatenated.
    """

    index: int
    id: str | None = None
    type: str | None = None
    function: dict[str, str | None] = msgspec.field(default_factory=dict[str, str | None])


class ChoiceResult(msgspec.Struct, kw_only=True):
    """One assembled choice.

    Attributes:
        index: the choice index.
        content: concatenated content deltas (None if the stream sent none).
        reasoning_content: concatenated reasoning deltas (``deepseek-reasoner``:
            specs/deepseek/asyncapi-page.txt:436-443).
        refusal: concatenated refusal deltas.
        tool_calls: tool calls merged by index, sorted by index.
        finish_reason: the last non-null finish reason.
        content_parts: the parts of a list-form ``content`` that are neither text
            nor thinking (``image_url``, ``reference``, ...), as sent, in stream order
            (see :meth:`ChoiceState.add_content`); a plan's ``collect`` steps too (a
            Gemini candidate's ``executableCode`` parts).
        texts: the choice's named texts a plan's ``append`` steps build (any field
            other than ``content``, ``reasoning_content``, ``refusal``), and the string
            members of its deltas that the spec does not list, by member name (OpenRouter's
            ``reasoning``), joined; left out of :meth:`StreamResult.to_dict` when empty.
        lists: the other members of its deltas that the spec does not list, by member
            name, each value as sent (not null), in stream order (OpenRouter's
            ``reasoning_details``); left out of :meth:`StreamResult.to_dict` when empty.
    """

    index: int
    content: str | None = None
    reasoning_content: str | None = None
    refusal: str | None = None
    tool_calls: list[ToolCallResult] = msgspec.field(default_factory=list[ToolCallResult])
    finish_reason: str | None = None
    content_parts: list[Any] = msgspec.field(default_factory=list[Any])
    texts: dict[str, str] = msgspec.field(default_factory=dict[str, str])
    lists: dict[str, list[Any]] = msgspec.field(default_factory=dict[str, list[Any]])


class BlockResult(msgspec.Struct, kw_only=True):
    """One assembled output block (a Messages content block, a Responses output item).

    A block whose type the spec does not list (a server tool's result, an MCP call, a
    compaction) is assembled all the same from what the wire says: its ``kind``, ``id``,
    ``name``, ``call_id`` and ``status``, the object as sent (``raw``), and its deltas
    (``texts``, ``deltas``).

    Attributes:
        index: the block's key in the stream (Messages ``index``, Responses ``output_index``;
            a Responses item is identified by its ``id``: a finished item sent again in
            ``response.completed`` is taken for the block of the same id, whatever its place).
        kind: its type as sent: ``text``, ``thinking``, ``tool_use``, ``mcp_tool_use``, ...
            (Messages); ``message``, ``function_call``, ``reasoning``, ``mcp_call``, ...
            (Responses); None if never opened.
        id: its id (a tool use's ``id``, an output item's ``id``).
        call_id: a Responses call's ``call_id`` (what a tool result names).
        name: a tool's name.
        text: its text deltas, joined (None if it had none).
        thinking: its thinking or reasoning deltas, joined.
        signature: a thinking block's signature.
        refusal: its refusal deltas, joined.
        arguments: a tool call's argument deltas as sent (JSON text; raw, always kept).
        input: the parsed ``arguments`` when they are valid JSON, else the block's
            ``input`` (or object ``arguments``) as opened (``{}`` for a Messages tool use
            with no deltas), else None; a Responses custom tool call's free-form input
            text (its ``response.custom_tool_call_input.delta`` strings joined, else the
            finished item's ``input``), as the openai SDK's ``ResponseCustomToolCall.input``.
        status: a Responses item's ``status`` (the snapshot's when the stream sent one).
        texts: the other text deltas, joined, by the member they build: a
            ``compaction_delta``'s ``content``, a code interpreter call's ``code``; the item
            type's prefix is left out of a Responses delta's name.
        deltas: the block's other deltas and events, as sent, in stream order.
        input_partial: when ``arguments`` are not valid JSON (a tool input cut by
            ``max_tokens``), the best-effort parse of their longest valid prefix
            (:func:`partial_json`), as the anthropic SDK parses a tool input being
            streamed: an unfinished trailing string is left out, with its member
            (``{"a": 1, "b": "Filing taxes`` gives ``{"a": 1}``; the unfinished text stays
            in ``arguments``); ``input`` stays None. Else None.
        raw: the block as sent: the finished object when the stream sent one
            (Responses ``output_item.done``, ``response.completed``'s ``output``), else the
            object that opened it (typed members only for a type the spec lists).
    """

    index: int
    kind: str | None = None
    id: str | None = None
    call_id: str | None = None
    name: str | None = None
    text: str | None = None
    thinking: str | None = None
    signature: str | None = None
    refusal: str | None = None
    arguments: str | None = None
    input: Any = None
    status: str | None = None
    texts: dict[str, str] = msgspec.field(default_factory=dict[str, str])
    deltas: list[Any] = msgspec.field(default_factory=list[Any])
    input_partial: Any = None
    raw: Any = None


class StreamResult(msgspec.Struct, kw_only=True):
    """What a whole stream said, assembled.

    Attributes:
        id: the completion id (first chunk that has one).
        model: the model name (first chunk that has one).
        choices: assembled choices, sorted by index.
        usage: the usage object of the stream as plain data, whole: every member
            as sent, those the spec does not list and nested objects included
            (DeepSeek ``prompt_tokens_details``, OpenRouter ``cost_details``); the
            last one sent (on the last chunk when requested:
            specs/deepseek/asyncapi-page.txt:376-379).
        errors: in stream order, ``{"kind": "error_event", "data": {...}}`` for an
            error message (specs/xerotier/streaming-api.md:279-285), with
            ``"event"`` and ``"reason"`` too for an error the spec does not list (an
            ``event: error`` frame, a ``{"error": {...}}`` payload);
            ``{"kind": "error_in_chunk", "message": str | None, "code": Any,
            "data": Any}`` for the top-level ``error`` member of an ordinary chunk;
            ``{"kind": "unknown_event", "event": str, "data": str, "reason": str}``
            for an event no message matched; ``{"kind": "member_off_spec", "pointer":
            str, "got": Any}`` for a member of a leniently decoded event that does not fit
            (``got`` None, once per stream and pointer, for a required member missing: AI21's
            chat chunks lack ``object``, ``created`` and ``model``); in the block families,
            once per type,
            ``{"kind": "member_off_spec", "pointer": str, "got": Any, "type": str}`` for
            a block, item or delta of a type the spec does not list and ``{"kind":
            "event_off_spec", "event": str, "index": int}`` for an event type it lacks
            (both assembled all the same); once per member, ``{"kind": "member_unlisted",
            "pointer": str, "member": str}`` for a member of a choice's or a block's delta
            that the spec does not list (kept: :meth:`ChoiceState.add_unlisted`,
            :meth:`BlockState.add_unlisted`); once, ``{"kind": "terminator_undeclared",
            "event": str, "data": "[DONE]"}`` for a literal ``[DONE]`` the spec declares
            no terminator for (taken as one all the same: information, nothing lost);
            after them ``{"kind": "snapshot_mismatch",
            "index": int, "member": str, "deltas": Any, "snapshot": Any}`` where a
            finished object disagrees with the deltas; and last ``{"kind": "truncated",
            "message": str, "bytes": int, "bytes_discarded": int}`` when the stream
            ended inside an event (bytes read in all, and the unterminated event's).
        vendor_events: provider extension events as plain data, in stream order
            (specs/xerotier/streaming-api.md:141-152).
        complete: True when the stream's terminator (e.g. ``data: [DONE]``:
            specs/xerotier/streaming-api.md:12-14; Messages ``message_stop``; Responses
            ``response.completed``/``.incomplete``/``.failed``) was seen.
        output: for the Messages and Responses families, the assembled blocks or
            items, sorted by index (``[]`` for chat streams, which use ``choices``).
        stop_reason: why the response stopped (Messages ``stop_reason``; Responses
            ``status``, or the incomplete reason); None for chat streams, whose
            choices carry ``finish_reason``.
        family: ``chat``, ``messages``, ``responses``, ``gemini``, ``custom`` or
            ``none`` (:class:`Family`): how the channel's events assemble (``ssegen ir``
            shows the plan).
        texts: the stream's named texts (a plan's ``append`` with no key: Cohere's
            ``tool_plan``), joined; left out of :meth:`to_dict` when empty.
        lists: the stream's named lists (a plan's ``collect`` with no key: citations,
            Gemini's ``thought_signatures``), values as sent; left out of
            :meth:`to_dict` when empty.
    """

    id: str | None = None
    model: str | None = None
    choices: list[ChoiceResult] = msgspec.field(default_factory=list[ChoiceResult])
    usage: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = msgspec.field(default_factory=list[dict[str, Any]])
    vendor_events: list[dict[str, Any]] = msgspec.field(default_factory=list[dict[str, Any]])
    complete: bool = False
    output: list[BlockResult] = msgspec.field(default_factory=list[BlockResult])
    stop_reason: str | None = None
    family: str = Family.CHAT.value
    texts: dict[str, str] = msgspec.field(default_factory=dict[str, str])
    lists: dict[str, list[Any]] = msgspec.field(default_factory=dict[str, list[Any]])

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (keys as in the attribute list, without
        ``family``); a chat stream's keeps the chat-completions keys only (no ``output``,
        no ``stop_reason``), a Gemini stream's has no ``output``, a block family's no
        ``choices``; empty ``texts`` and ``lists`` (of the stream and of each choice) are
        left out."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        for key in _UNUSED_KEYS.get(family_of(data.pop("family")), ()):
            del data[key]
        for owner in (data, *data.get("choices", ())):
            for key in ("texts", "lists"):
                if not owner.get(key, True):
                    del owner[key]
        return data


def family_of(value: Any) -> Family:
    """The :class:`Family` named ``value`` (``custom`` for a name it does not know)."""
    try:
        return Family(value)
    except ValueError:
        return Family.CUSTOM
