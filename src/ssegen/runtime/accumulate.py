"""Accumulation: typed events folded into the assembled :class:`StreamResult`.

:class:`Accumulator` holds one :class:`ChoiceState` per chat choice (deltas concatenated per
choice, specs/deepseek/asyncapi-page.txt:16; tool calls built from fragments by ``index``,
specs/mistral/asyncapi-page.txt:561-584) and one :class:`BlockState` per Messages content block
or Responses output item, keyed by index; errors, vendor events and unknown events are
recorded, never dropped.  The compiled plans (the ``_apply_*`` functions of ``channels.py``)
reach it through ``sink.Sink``; :class:`Family` names the built-in plans.

This module is ``src/ssegen/runtime/accumulate.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import copy
import enum
import re
from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from .events import StreamTruncated, UnknownEvent, VendorEvent, truncated_reason
from .partial_json import partial_json
from .sse import StreamState
from .usage import usage_as_sent


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
    function: dict[str, str | None] = msgspec.field(default_factory=dict)


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
            other than ``content``, ``reasoning_content``, ``refusal``), joined; left
            out of :meth:`StreamResult.to_dict` when empty.
    """

    index: int
    content: str | None = None
    reasoning_content: str | None = None
    refusal: str | None = None
    tool_calls: list[ToolCallResult] = msgspec.field(default_factory=list)
    finish_reason: str | None = None
    content_parts: list[Any] = msgspec.field(default_factory=list)
    texts: dict[str, str] = msgspec.field(default_factory=dict)


class BlockResult(msgspec.Struct, kw_only=True):
    """One assembled output block (a Messages content block, a Responses output item).

    A block whose type the spec does not list (a server tool's result, an MCP call, a
    compaction) is assembled all the same from what the wire says: its ``kind``, ``id``,
    ``name``, ``call_id`` and ``status``, the object as sent (``raw``), and its deltas
    (``texts``, ``deltas``).

    Attributes:
        index: the block's key in the stream (Messages ``index``, Responses ``output_index``).
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
            with no deltas), else None.
        status: a Responses item's ``status`` (the snapshot's when the stream sent one).
        texts: the other text deltas, joined, by the member they build: a
            ``compaction_delta``'s ``content``, a custom tool call's ``input``
            (``response.custom_tool_call_input.delta``), a code interpreter call's
            ``code``; the item type's prefix is left out of a Responses delta's name.
        deltas: the block's other deltas and events, as sent, in stream order.
        input_partial: when ``arguments`` are not valid JSON (a tool input cut by
            ``max_tokens``), the best-effort parse of their longest valid prefix
            (:func:`partial_json`); ``input`` stays None. Else None.
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
    texts: dict[str, str] = msgspec.field(default_factory=dict)
    deltas: list[Any] = msgspec.field(default_factory=list)
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
            for an event no message matched; in the block families, once per type,
            ``{"kind": "member_off_spec", "pointer": str, "got": Any, "type": str}`` for
            a block, item or delta of a type the spec does not list and ``{"kind":
            "event_off_spec", "event": str, "index": int}`` for an event type it lacks
            (both assembled all the same); once, ``{"kind": "terminator_undeclared",
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
    choices: list[ChoiceResult] = msgspec.field(default_factory=list)
    usage: dict[str, Any] | None = None
    errors: list[dict[str, Any]] = msgspec.field(default_factory=list)
    vendor_events: list[dict[str, Any]] = msgspec.field(default_factory=list)
    complete: bool = False
    output: list[BlockResult] = msgspec.field(default_factory=list)
    stop_reason: str | None = None
    family: str = Family.CHAT.value
    texts: dict[str, str] = msgspec.field(default_factory=dict)
    lists: dict[str, list[Any]] = msgspec.field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready data (keys as in the attribute list, without
        ``family``); a chat stream's keeps the chat-completions keys only (no ``output``,
        no ``stop_reason``), a Gemini stream's has no ``output``, a block family's no
        ``choices``; empty ``texts`` and ``lists`` (of the stream and of each choice) are
        left out."""
        data: dict[str, Any] = msgspec.to_builtins(self)
        for key in _UNUSED_KEYS.get(_family(data.pop("family")), ()):
            del data[key]
        for owner in (data, *data.get("choices", ())):
            for key in ("texts", "lists"):
                if not owner.get(key, True):
                    del owner[key]
        return data


def _family(value: Any) -> Family:
    """The :class:`Family` named ``value`` (``custom`` for a name it does not know)."""
    try:
        return Family(value)
    except ValueError:
        return Family.CUSTOM


class _ToolCallState:
    __slots__ = ("index", "id", "type", "name", "arguments", "value", "owned", "continuing")

    def __init__(self, index: int) -> None:
        self.index = index
        self.id: str | None = None
        self.type: str | None = None
        self.name: str | None = None
        self.arguments: list[str] = _Parts()
        #: arguments sent as an object (Gemini ``args``, built by ``partialArgs``), else None
        self.value: Any = None
        #: whether ``value`` is this state's own copy (an event's ``args`` is copied before
        #: ``partialArgs`` write into it: the events a caller holds are never changed)
        self.owned = False
        #: the JSON paths whose last string piece said ``willContinue``
        self.continuing: set[str] = set()

    def text(self) -> str:
        """The arguments as JSON text: the fragments joined, or the object encoded."""
        if self.value is not None:
            return msgspec.json.encode(self.value).decode()
        return _join(self.arguments)


#: One step of a JSON path as Vertex AI's ``partialArgs`` write it: ``.name``, ``[0]``, ``['a b']``.
_JSON_PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]|\['([^']*)'\]")


def _json_path(text: Any) -> list[str | int] | None:
    """The member names and indices of a JSON path (``$.operations[0].price``, RFC 9535's
    normalized form), or None for a path of another form."""
    if not isinstance(text, str) or not text.startswith("$"):
        return None
    steps: list[str | int] = []
    at = 1
    while at < len(text):
        match = _JSON_PATH_STEP.match(text, at)
        if match is None:
            return None
        name, index, quoted = match.groups()
        steps.append(int(index) if index is not None else name if name is not None else quoted)
        at = match.end()
    return steps or None


def _put(root: Any, steps: list[str | int], value: Any, append: bool) -> None:
    """Set ``value`` at ``steps`` below ``root`` (objects and arrays made on the way; an
    array grown with nulls up to the index); with ``append``, a string is added to the
    string already there. A step that does not fit what is there sets nothing."""
    node = root
    for step, after in zip(steps, steps[1:], strict=False):
        fresh: Any = [] if isinstance(after, int) else {}
        if isinstance(step, int) and isinstance(node, list):
            node.extend([None] * (step + 1 - len(node)))
            if node[step] is None:
                node[step] = fresh
            node = node[step]
        elif isinstance(step, str) and isinstance(node, dict):
            node = node.setdefault(step, fresh)
        else:
            return
    last = steps[-1]
    if isinstance(last, int) and isinstance(node, list):
        node.extend([None] * (last + 1 - len(node)))
        node[last] = _joined(node[last], value, append)
    elif isinstance(last, str) and isinstance(node, dict):
        node[last] = _joined(node.get(last), value, append)


def _joined(old: Any, value: Any, append: bool) -> Any:
    return old + value if append and isinstance(old, str) and isinstance(value, str) else value


_TEXT_FIELDS = ("content", "reasoning_content", "refusal")

#: Parts a text may gain before :meth:`Accumulator.compact` joins them into one.
COMPACT_PARTS = 4096


class _Parts(list[str]):
    """A text's parts, in stream order: the blocks joined so far, then the parts since."""

    __slots__ = ("blocks",)

    def __init__(self) -> None:
        super().__init__()
        self.blocks = 0

    def compact(self) -> None:
        """Join the parts after the last block into one block once they number more
        than :data:`COMPACT_PARTS` (earlier blocks are not copied again)."""
        if len(self) - self.blocks > COMPACT_PARTS:
            self[self.blocks :] = [_join(self[self.blocks :])]
            self.blocks += 1


class _LastText(_Parts):
    """A text's parts in cumulative mode: appending replaces (only the last part counts)."""

    def append(self, text: str) -> None:
        self[:] = [text]


class ChoiceState:
    """Mutable per-choice state while a stream is accumulated (see :class:`Accumulator`).

    Attributes:
        content, reasoning_content, refusal: the parts of each text, in stream
            order; append a delta to its list (as :meth:`add_text` does). In
            cumulative mode (``full_text=True``) appending replaces.
    """

    __slots__ = (
        "index",
        "full_text",
        "content",
        "reasoning_content",
        "refusal",
        "finish_reason",
        "tool_calls",
        "content_parts",
        "texts",
    )

    def __init__(self, index: int, full_text: bool) -> None:
        self.index = index
        self.full_text = full_text
        parts = _LastText if full_text else _Parts
        self.content: list[str] = parts()
        self.reasoning_content: list[str] = parts()
        self.refusal: list[str] = parts()
        self.finish_reason: str | None = None
        self.tool_calls: dict[int, _ToolCallState] = {}
        self.content_parts: list[Any] = []
        self.texts: dict[str, list[str]] = {}

    def add_text(self, field: str, text: str) -> None:
        """Append ``text`` to ``field`` (``content``, ``reasoning_content``, ``refusal``).

        In cumulative mode (``full_text=True``: every chunk carries the whole
        text so far, as MindIE's ``fullTextEnabled``:
        specs/siliconstorm/inference-api.md:704-723), the text replaces instead.
        A ``field`` of another name is a named text (``texts``, a plan's own field).
        """
        if field in _TEXT_FIELDS:
            parts: list[str] = getattr(self, field)
            parts.append(text)
        elif isinstance(text, str):
            named = self.texts.get(field)
            if named is None:
                named = self.texts[field] = _Parts()
            named.append(text)

    def add_content(self, content: Any) -> None:
        """Append a delta's ``content``: a string, or a list of typed parts.

        Mistral's reasoning models send parts (``[{"type": "thinking", "thinking":
        [{"type": "text", "text": "..."}]}]``, then ``[{"type": "text", "text":
        "2 + 2 = 4"}]``): ``text`` parts are appended to ``content``, ``thinking``
        parts (their ``text`` parts, or a string) to ``reasoning_content``, and any
        other part is kept as sent in ``content_parts``. Parts may be plain dicts or
        typed objects (read through their wire names); None is ignored.
        """
        if isinstance(content, str):
            self.content.append(content)
        elif isinstance(content, (list, tuple)):
            self._add_parts(content, self.content)

    def _add_parts(self, parts: Iterable[Any], texts: list[str]) -> None:
        for part in parts:
            data = _plain(part)
            kind = data.get("type") if isinstance(data, dict) else None
            if kind == "text" and isinstance(data.get("text"), str):
                texts.append(data["text"])
            elif kind == "thinking" and isinstance(data.get("thinking"), str):
                self.reasoning_content.append(data["thinking"])
            elif kind == "thinking" and isinstance(data.get("thinking"), list):
                self._add_parts(data["thinking"], self.reasoning_content)
            elif isinstance(part, str):
                texts.append(part)
            else:
                self.content_parts.append(data)

    def add_tool_call(
        self,
        index: int | None,
        id: str | None,
        type: str | None,
        name: str | None,
        arguments: str | None,
    ) -> None:
        """Merge one tool-call fragment into the call at ``index``.

        A fragment without an index continues the most recent call (or starts
        call 0); id, type and name are kept from the first fragment that has
        them, arguments are concatenated in stream order
        (specs/mistral/asyncapi-page.txt:565-584: ``index`` names the call,
        ``id`` and ``name`` come on its first delta, ``arguments`` in fragments).
        """
        if index is None:
            index = max(self.tool_calls) if self.tool_calls else 0
        call = self.tool_calls.get(index)
        if call is None:
            call = self.tool_calls[index] = _ToolCallState(index)
        if id is not None and call.id is None:
            call.id = id
        if type is not None and call.type is None:
            call.type = type
        if name is not None:
            call.name = name if call.name is None else call.name
        if arguments:
            call.arguments.append(arguments)

    def add_call(
        self,
        id: str | None,
        name: str | None,
        arguments: Any,
        partial: Any = None,
        continued: bool = False,
    ) -> None:
        """One tool call sent whole, or in parts (a plan's ``tool_call``: Gemini's
        ``functionCall``): a new call of ``name`` and ``id`` whose ``arguments`` are an
        object (kept as plain data; None: ``{}``) or JSON text, unless ``continued`` (the
        part names no function: Vertex AI streams a call's arguments over several parts),
        which continues the last call. ``partial`` is a list of pieces ``{"jsonPath": str,
        "stringValue" | "numberValue" | "boolValue" | "nullValue": ..., "willContinue":
        bool}`` (Vertex AI ``partialArgs``) setting the value at each JSON path in the
        arguments; string pieces at one path are joined while the previous one said
        ``willContinue`` (cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content).
        """
        calls = self.tool_calls
        if continued and calls:
            call = calls[max(calls)]
        else:
            index = len(calls)
            call = calls[index] = _ToolCallState(index)
            call.id, call.type, call.name = id, "function", name
            if isinstance(arguments, str):
                call.arguments.append(arguments)
            else:
                call.value = {} if arguments is None else _plain(arguments)
        pieces = _plain(partial) if partial is not None else None
        if not isinstance(pieces, list):
            return
        if not call.owned:
            call.value = {} if call.value is None else copy.deepcopy(call.value)
            call.owned = True
        for piece in pieces:
            steps = _json_path(piece.get("jsonPath")) if isinstance(piece, dict) else None
            if steps is None:
                continue
            path = piece["jsonPath"]
            value = next(
                (piece[k] for k in ("stringValue", "numberValue", "boolValue") if k in piece), None
            )
            _put(call.value, steps, value, path in call.continuing)
            if piece.get("willContinue"):
                call.continuing.add(path)
            else:
                call.continuing.discard(path)

    def add_tool_calls_data(self, fragments: Iterable[Any]) -> None:
        """Merge tool-call fragments given as plain JSON data (an untyped spec
        item), in stream order.

        Each fragment is read as :meth:`add_tool_call` takes it, from
        ``{"index": int, "id": str, "type": str, "function": {"name": str,
        "arguments": str}}`` with any member missing or of another type taken
        as None; a fragment that is not an object is skipped.
        """
        calls = self.tool_calls
        for fragment in fragments:
            if not isinstance(fragment, dict):
                continue
            index = fragment.get("index")
            call = calls.get(index) if type(index) is int else None
            if call is None or call.name is None or call.id is None or call.type is None:
                function = fragment.get("function")
                if not isinstance(function, dict):
                    function = {}
                self.add_tool_call(
                    index if isinstance(index, int) and not isinstance(index, bool) else None,
                    _str_or_none(fragment.get("id")),
                    _str_or_none(fragment.get("type")),
                    _str_or_none(function.get("name")),
                    _str_or_none(function.get("arguments")),
                )
                continue
            # A call already named: only its arguments grow (the hot path).
            function = fragment.get("function")
            if isinstance(function, dict):
                arguments = function.get("arguments")
                if arguments and isinstance(arguments, str):
                    call.arguments.append(arguments)

    def result(self) -> ChoiceResult:
        """The assembled :class:`ChoiceResult`."""
        return ChoiceResult(
            index=self.index,
            content=_join(self.content) if self.content else None,
            reasoning_content=_join(self.reasoning_content) if self.reasoning_content else None,
            refusal=_join(self.refusal) if self.refusal else None,
            tool_calls=[
                ToolCallResult(
                    index=c.index,
                    id=c.id,
                    type=c.type,
                    function={"name": c.name, "arguments": c.text()},
                )
                for _, c in sorted(self.tool_calls.items())
            ],
            finish_reason=self.finish_reason,
            content_parts=list(self.content_parts),
            texts={name: _join(parts) for name, parts in self.texts.items()},
        )


class BlockState:
    """One output block being assembled (see :class:`BlockResult`); the generated
    apply functions append to its text fields (``block.text.append(...)``)."""

    __slots__ = (
        "index",
        "kind",
        "id",
        "call_id",
        "name",
        "status",
        "input",
        "text",
        "thinking",
        "signature",
        "refusal",
        "arguments",
        "texts",
        "deltas",
        "opened",
        "final",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.kind: str | None = None
        self.id: str | None = None
        self.call_id: str | None = None
        self.name: str | None = None
        self.status: str | None = None
        self.input: Any = None
        self.text: list[str] = _Parts()
        self.thinking: list[str] = _Parts()
        self.signature: list[str] = _Parts()
        self.refusal: list[str] = _Parts()
        self.arguments: list[str] = _Parts()
        self.texts: dict[str, list[str]] = {}
        self.deltas: list[Any] = []
        self.opened: Any = None
        self.final: Any = None

    def tool_call(self, id: Any, name: Any, arguments: Any) -> None:
        """A tool call sent whole into this block: opened as one (kind ``tool_call`` unless
        it has a kind), ``id`` and ``name`` when they are strings, ``arguments`` as JSON text
        (appended to ``arguments``) or an object (kept as ``input``)."""
        self.open({"type": "tool_call"} if self.kind is None else {})
        if isinstance(id, str):
            self.id = id
        if isinstance(name, str):
            self.name = name
        if isinstance(arguments, str):
            self.arguments.append(arguments)
        elif arguments is not None:
            self.input = _plain(arguments)

    def open(self, block: Any, members: dict[str, Any] | None = None) -> None:
        """Take the block's identity from the object that opens it (Messages
        ``content_block``, Responses ``item``): its ``type``, ``id``, ``call_id``, ``name``,
        ``status``, ``input`` and any first ``text``, ``thinking`` or ``arguments``; the object
        is kept (``raw``). ``members`` (a plan's ``open`` with ``members``, by name, ``kind``
        for ``type``), each sent (not None), stand over the object's own as plain data."""
        data = _plain(block)
        if not isinstance(data, dict):
            return
        self.opened = data
        if members:
            data = {**data, **_members(members)}
        self.kind = _str_or_none(data.get("type")) or self.kind
        self.id = _str_or_none(data.get("id")) or self.id
        self.call_id = _str_or_none(data.get("call_id")) or self.call_id
        self.name = _str_or_none(data.get("name")) or self.name
        self.status = _str_or_none(data.get("status")) or self.status
        if "input" in data and not isinstance(data["input"], str):
            self.input = data["input"]
        elif isinstance(data.get("arguments"), (dict, list)):
            self.input = data["arguments"]
        for field in ("text", "thinking", "arguments"):
            value = data.get(field)
            if isinstance(value, str) and value:
                getattr(self, field).append(value)

    def close(self, block: Any = None) -> None:
        """The block is complete; ``block``, the finished object when the event carries
        one (Responses ``output_item.done``), is the truth: it fills what no delta gave,
        and where a delta said otherwise the result records a ``snapshot_mismatch``."""
        if block is not None:
            self.final = _plain(block)

    def snapshot(self, block: Any) -> None:
        """A finished object of the block sent again at the end (Responses
        ``response.completed``'s ``output``): taken when no ``close`` gave one."""
        if self.final is None:
            self.close(block)

    def add_text(self, name: str, text: Any) -> None:
        """Append a delta's text to the field named for it: ``text``, ``thinking``,
        ``signature``, ``refusal``, ``arguments`` (``partial_json`` too), else to
        ``texts[name]``; a Responses delta names its item type first
        (``custom_tool_call_input`` of a ``custom_tool_call`` builds ``input``)."""
        if not isinstance(text, str):
            return
        kind = self.kind
        if kind and name.startswith(kind + "_"):
            name = name[len(kind) + 1 :]
        name = _DELTA_FIELDS.get(name, name)
        if name in _BLOCK_TEXTS:
            getattr(self, name).append(text)
        else:
            parts = self.texts.get(name)
            if parts is None:
                parts = self.texts[name] = _Parts()
            parts.append(text)

    def add_delta(self, delta: Any) -> None:
        """A delta object no ``append`` step takes (Messages ``compaction_delta``,
        ``citations_delta``, or one of a type the spec does not list), as sent or typed:
        each string member appended (:meth:`add_text`), else the delta kept as sent in
        ``deltas``; None (the member of a leniently decoded event that did not fit, which
        :meth:`Accumulator.lenient` assembles itself) adds nothing."""
        if delta is None:
            return
        delta = _plain(delta)
        if not isinstance(delta, dict):
            self.deltas.append(delta)
            return
        texts = [(k, v) for k, v in delta.items() if k != "type" and isinstance(v, str)]
        if not texts:
            self.deltas.append(delta)
        for name, value in texts:
            self.add_text(name, value)

    def result(self, mismatches: list[dict[str, Any]] | None = None) -> BlockResult:
        """The assembled :class:`BlockResult`; where the deltas disagree with the
        finished object, one ``snapshot_mismatch`` per member is appended to
        ``mismatches`` and the finished object's value is taken."""
        final = self.final if isinstance(self.final, dict) else {}
        texts = {f: _join(getattr(self, f)) for f in _BLOCK_TEXTS}
        others = {name: _join(parts) for name, parts in self.texts.items()}
        ident, found = self._identity(final)
        found += _snapshot_texts(final, texts, others, ident["kind"])
        parsed, partial = _parsed_input(texts["arguments"], final, self.input)
        if mismatches is not None:
            mismatches.extend(
                {
                    "kind": "snapshot_mismatch",
                    "index": self.index,
                    "member": m,
                    "deltas": d,
                    "snapshot": f,
                }
                for m, d, f in found
            )
        return BlockResult(
            index=self.index,
            kind=ident["kind"],
            id=ident["id"],
            call_id=ident["call_id"],
            name=ident["name"],
            input=parsed,
            status=ident["status"],
            texts=others,
            deltas=list(self.deltas),
            input_partial=partial,
            raw=self.final if self.final is not None else self.opened,
            **{f: v or None for f, v in texts.items()},
        )

    def _identity(
        self, final: dict[str, Any]
    ) -> tuple[dict[str, str | None], list[tuple[str, Any, Any]]]:
        """The block's ``kind``, ``id``, ``call_id``, ``name`` and ``status``: the finished
        object's where it sends them (its ``type`` for the kind), else the deltas'; and
        each disagreement as ``(member, deltas, snapshot)`` (none for the status, which
        changes as an item finishes)."""
        ident: dict[str, str | None] = {}
        found: list[tuple[str, Any, Any]] = []
        for member in ("kind", "id", "call_id", "name", "status"):
            mine = getattr(self, member)
            sent = _str_or_none(final.get("type" if member == "kind" else member))
            if mine and sent and mine != sent and member != "status":
                found.append((member, mine, sent))
            ident[member] = sent or mine
        return ident, found


def _members(members: dict[str, Any]) -> dict[str, Any]:
    """A plan's ``open`` members as :meth:`BlockState.open` reads them: each sent (not None), as
    plain data, ``kind`` as ``type``."""
    return {("type" if k == "kind" else k): _plain(v) for k, v in members.items() if v is not None}


def _snapshot_texts(
    final: dict[str, Any], texts: dict[str, str], others: dict[str, str], kind: str | None
) -> list[tuple[str, Any, Any]]:
    """Take into ``texts`` (the block's own) and ``others`` (its named texts) what the
    finished object ``final`` sends of them (:func:`_fill`): its ``arguments``, the text of
    its ``content`` parts, its reasoning ``summary`` (only where no delta gave thinking),
    each named text, and a custom tool call's ``input`` (only where no delta gave it).
    Returns each disagreement with the deltas as ``(member, deltas, snapshot)``."""
    found: list[tuple[str, Any, Any]] = []
    if isinstance(final.get("arguments"), str):
        found += _fill(texts, "arguments", final["arguments"])
    content = final.get("content")
    if isinstance(content, list):
        text = _content_text(content)
        if text is not None:
            found += _fill(texts, "text", text)
    if not texts["thinking"] and isinstance(final.get("summary"), list):
        texts["thinking"] = _summary_text(final["summary"])
    for name in list(others):
        if isinstance(final.get(name), str):
            found += _fill(others, name, final[name])
    if kind == "custom_tool_call" and "input" not in others and isinstance(final.get("input"), str):
        others["input"] = final["input"]
    return found


def _content_text(content: list[Any]) -> str | None:
    """The text of a finished message's ``content`` parts: its ``output_text`` and
    ``text`` parts' texts joined; None when no part has a ``text`` (nothing to compare
    the deltas with)."""
    joined = "".join(
        p["text"]
        for p in content
        if isinstance(p, dict)
        and p.get("type") in ("output_text", "text")
        and isinstance(p.get("text"), str)
    )
    if joined or any(isinstance(p, dict) and "text" in p for p in content):
        return joined
    return None


def _summary_text(summary: list[Any]) -> str:
    """The text of a finished reasoning item's ``summary`` parts, joined."""
    return "".join(
        p["text"] for p in summary if isinstance(p, dict) and isinstance(p.get("text"), str)
    )


def _parsed_input(arguments: str, final: dict[str, Any], opened: Any) -> tuple[Any, Any]:
    """A block's ``(input, input_partial)``: its ``arguments`` text parsed when it is
    valid JSON, else ``(None, the best-effort parse of its longest valid prefix)``
    (:func:`partial_json`); with no arguments text, the finished object's ``arguments``
    when an object or array, else ``opened`` (the input as the block was opened)."""
    if not arguments:
        sent = final.get("arguments")
        return (sent if isinstance(sent, (dict, list)) else opened), None
    try:
        return msgspec.json.decode(arguments), None
    except msgspec.DecodeError:
        return None, partial_json(arguments)


#: The text fields of a :class:`BlockState` a delta may append to.
_BLOCK_TEXTS = ("text", "thinking", "signature", "refusal", "arguments")

#: A delta member's name -> the block field it builds, where they differ.
_DELTA_FIELDS = {"partial_json": "arguments", "delta": "text"}


def _fill(texts: dict[str, str], name: str, sent: str) -> list[tuple[str, Any, Any]]:
    """Take the finished object's ``sent`` for ``texts[name]``: a disagreement with what
    the deltas gave is returned (as ``(member, deltas, snapshot)``), never silent."""
    mine = texts.get(name) or ""
    texts[name] = sent or mine
    if mine and sent != mine:
        return [(name, mine, sent)]
    return []


class _Blocks(dict[int, BlockState]):
    """Output blocks by index; reading an index not seen yet creates its block (so that
    the generated apply functions read ``acc.blocks[index]`` at C speed)."""

    def __missing__(self, index: int) -> BlockState:
        state = self[index] = BlockState(index)
        return state


class Accumulator:
    """Assembles typed events into a :class:`StreamResult`.

    Args:
        full_text: cumulative mode, where each chunk's text is the whole text
            so far (MindIE ``fullTextEnabled``: specs/siliconstorm/inference-api.md:704-723):
            texts are replaced, not appended.

    A ``full_text`` member of a chunk, when present, is authoritative for the
    final content of choice 0 in either mode (specs/siliconstorm/inference-api.md:725;
    the member: specs/siliconstorm/inference-api.md:925-928).

    Attributes:
        states: the :class:`ChoiceState` of each choice seen so far, by index
            (see :meth:`choice`).
    """

    def __init__(self, full_text: bool = False) -> None:
        self.full_text = full_text
        self.id: str | None = None
        self.model: str | None = None
        self._usage: dict[str, Any] | None = None
        #: the last usage object :meth:`set_usage` was given, read when ``usage`` is
        self._usage_sent: tuple[Any, Any] | None = None
        self.final_text: str | None = None
        self.errors: list[dict[str, Any]] = []
        self.vendor_events: list[dict[str, Any]] = []
        self.complete = False
        self.states: dict[int, ChoiceState] = {}
        self.blocks: dict[int, BlockState] = _Blocks()
        self.stop_reason: str | None = None
        self.family = Family.CHAT
        #: the stream's named texts and lists (a plan's unkeyed ``append`` and ``collect``)
        self.texts: dict[str, list[str]] = {}
        self.lists: dict[str, list[Any]] = {}
        #: off-spec block, delta and event types reported so far (each once per stream)
        self.reported: set[str] = set()
        #: a literal ``[DONE]`` the spec does not declare was reported (once per stream)
        self.undeclared_terminator = False

    @property
    def usage(self) -> dict[str, Any] | None:
        """The stream's usage so far, as plain data (see :class:`StreamResult`)."""
        if self._usage_sent is not None:
            usage, typed = self._usage_sent
            self._usage_sent = None
            sent = usage_as_sent(usage if typed is None else typed)
            data = sent if sent is not None else _plain(usage)
            self._usage = data if isinstance(data, dict) else None
        return self._usage

    @usage.setter
    def usage(self, value: dict[str, Any] | None) -> None:
        self._usage_sent = None
        self._usage = value

    def text_parts(self, name: str) -> list[str]:
        """The parts of the stream's named text ``name`` (a plan's ``append`` with no key:
        Cohere's ``tool_plan``), created empty on first use: a compiled plan appends a delta it
        knows to be a string to them directly (``(texts.get(name) or
        acc.text_parts(name)).append(delta)``), without a call per delta."""
        parts = self.texts.get(name)
        if parts is None:
            parts = self.texts[name] = _Parts()
        return parts

    def collect(self, name: str, value: Any) -> None:
        """Append ``value`` (plain data, as sent) to the stream's named list ``name`` (a
        plan's ``collect`` with no key: Cohere's citations); None adds nothing."""
        if value is not None:
            self.lists.setdefault(name, []).append(value)

    def tool_call(self, id: Any, name: Any, arguments: Any) -> None:
        """A tool call sent whole outside any choice or keyed block (a plan's ``tool_call``
        with no key: each of Ollama's ``message.tool_calls[*]``): a new output block of kind
        ``tool_call`` after the last one (:meth:`BlockState.tool_call`). Each call its own
        block: several calls in one event or across events are all kept."""
        self.blocks[max(self.blocks, default=-1) + 1].tool_call(id, name, arguments)

    def merge_usage(self, usage: Any) -> None:
        """Merge a usage object into the stream's (Messages sends input tokens on
        ``message_start`` and the final output tokens on ``message_delta``: later
        members replace earlier ones, nested objects included)."""
        data = usage_as_sent(usage)
        if data is None:
            data = msgspec.to_builtins(usage)
        if isinstance(data, dict):
            self.usage = {**(self.usage or {}), **data}

    def snapshot(self, output: Any) -> None:
        """The finished output the stream sends at its end (Responses
        ``response.completed``'s ``output``): item ``i`` is the finished object of block
        ``i`` where no ``output_item.done`` gave one (see :meth:`BlockState.close`)."""
        if isinstance(output, list):
            for index, item in enumerate(output):
                if item is not None:  # None: an item decoded leniently (off_spec_block)
                    self.blocks[index].snapshot(item)

    def meta(self, id: str | None, model: str | None) -> None:
        """Record the completion id and model (the first non-empty values win)."""
        if self.id is None and id:
            self.id = id
        if self.model is None and model:
            self.model = model

    def compact(self) -> None:
        """Join the parts of each text and tool-call ``arguments`` into blocks of
        more than :data:`COMPACT_PARTS` parts.

        Called once per read while a stream is accumulated, so memory follows
        the length of the texts, not the number of deltas (a 200 MB stream of
        one-token deltas would otherwise hold a string object per token), and
        time stays linear (a block is joined once).
        """
        for state in self.states.values():
            for parts in (
                state.content,
                state.reasoning_content,
                state.refusal,
                *state.texts.values(),
            ):
                if isinstance(parts, _Parts):
                    parts.compact()
            for call in state.tool_calls.values():
                if isinstance(call.arguments, _Parts):
                    call.arguments.compact()
        for block in self.blocks.values():
            for parts in (
                block.text,
                block.thinking,
                block.signature,
                block.refusal,
                block.arguments,
                *block.texts.values(),
            ):
                if isinstance(parts, _Parts):
                    parts.compact()
        for parts in self.texts.values():
            if isinstance(parts, _Parts):
                parts.compact()

    def choice(self, index: int) -> ChoiceState:
        """The state of choice ``index`` (created on first use)."""
        state = self.states.get(index)
        if state is None:
            state = self.states[index] = ChoiceState(index, self.full_text)
        return state

    def done(self, event: Any = None) -> None:
        """Record that the stream's terminator (e.g. ``[DONE]``) was seen."""
        self.complete = True

    def set_usage(self, usage: Any, typed: Any = None) -> None:
        """Record the stream's usage object (the last one sent wins): as sent, every
        member included, when the decoder kept it (:func:`usage_as_sent` of ``typed``,
        or of ``usage`` when ``typed`` is None), else ``usage`` as plain data."""
        # Read when the result is (a stream re-sending its usage with each chunk reads one).
        self._usage_sent = (usage, typed)

    def error_in_chunk(self, error: Any) -> None:
        """Record the top-level ``error`` member of an ordinary data chunk, whatever the
        spec says (OpenRouter ends a stream cut by a limit with a chunk holding
        ``"error": {"code": 400, "message": "Token limit reached"}`` before
        ``[DONE]``; the openai SDK raises ``APIError`` on it) as ``{"kind":
        "error_in_chunk", "message": str | None, "code": Any, "data": Any}``; the
        chunk's other members are assembled as usual."""
        data = msgspec.to_builtins(error)
        message = data.get("message") if isinstance(data, dict) else data
        self.errors.append(
            {
                "kind": "error_in_chunk",
                "message": message if isinstance(message, str) else None,
                "code": data.get("code") if isinstance(data, dict) else None,
                "data": data,
            }
        )

    def lenient(self, event: Any, handler: Callable[[Accumulator, Any], None]) -> None:
        """Feed an event decoded leniently (:func:`lenient_decode`): record each member
        that does not fit the spec as ``{"kind": "member_off_spec", "pointer": str,
        "got": Any}`` (``got`` None for a required member that is missing), assemble what
        the members that fit give through ``handler`` (a member the plan reads that is
        missing ends the handler's work on this event, nothing else), and where a choice's
        ``delta.content`` came as a list of parts, assemble its parts all the same (text to
        ``content``, thinking to ``reasoning_content``: Mistral's Magistral chunks).

        In the Messages and Responses families, a block, item or delta of a type the spec
        does not list is assembled from the object as sent (:meth:`off_spec_block`) and
        reported once per type (``"type"`` names it in the ``member_off_spec`` entry)."""
        members: dict[str, Any] = event.off_spec
        try:
            handler(self, event)
        except (AttributeError, TypeError):
            pass
        for pointer, value in members.items():
            if self.family in BLOCK_FAMILIES and self.off_spec_block(event, pointer, value):
                kind = value.get("type") if isinstance(value, dict) else None
                if isinstance(kind, str):
                    if kind in self.reported:
                        continue
                    self.reported.add(kind)
                    self.errors.append(
                        {"kind": "member_off_spec", "pointer": pointer, "got": value, "type": kind}
                    )
                    continue
            self.errors.append({"kind": "member_off_spec", "pointer": pointer, "got": value})
            parts = pointer.split("/")
            if len(parts) == 5 and parts[1] == "choices" and parts[3:] == ["delta", "content"]:
                if parts[2].isdigit() and isinstance(value, list):
                    self.choice(int(parts[2])).add_content(value)

    def off_spec_block(self, event: Any, pointer: str, value: Any) -> bool:
        """Assemble a member of a leniently decoded event that the spec does not admit
        when it is a block family's object (True then): Messages ``/content_block``
        (opens block ``index``), ``/delta`` (a delta of block ``index``); Responses
        ``/item`` (opens, or when the item is open finishes, item ``output_index``) and
        ``/response/output/<i>`` (the finished item ``i``)."""
        if not isinstance(value, dict):
            return False
        if pointer == "/content_block" or pointer == "/delta":
            index = getattr(event, "index", None)
            if not isinstance(index, int):
                return False
            if pointer == "/delta":
                self.blocks[index].add_delta(value)
            else:
                self.blocks[index].open(value)
            return True
        if pointer == "/item":
            index = getattr(event, "output_index", None)
            if not isinstance(index, int):
                return False
            block = self.blocks[index]
            if block.kind is None:
                block.open(value)
            else:
                block.close(value)
            return True
        parts = pointer.split("/")
        if len(parts) == 4 and parts[1:3] == ["response", "output"] and parts[3].isdigit():
            self.blocks[int(parts[3])].snapshot(value)
            return True
        return False

    def unknown(self, event: UnknownEvent) -> None:
        """Record an event no message matched, with its raw data.

        An error the spec does not list is an error all the same: an event of SSE
        type ``error`` or a JSON object with a top-level ``error`` member (Groq's
        ``event: error`` frame, OpenAI's ``data: {"error": {...}}``; the openai SDK
        raises ``APIError`` on both) is recorded as ``{"kind": "error_event",
        "data": <the JSON>, "event": str, "reason": str}``.

        A literal ``[DONE]`` on a stream whose spec declares no terminator (OpenRouter
        ends its Responses streams with one) is taken as one: the stream is complete,
        and the first is noted as ``{"kind": "terminator_undeclared", "event": str,
        "data": "[DONE]"}`` (information, not a failure: nothing is lost).

        In the Messages and Responses families, an event of a type the spec does not
        list that names a block (``output_index``, ``item_id`` or ``index``) is
        assembled into it (:meth:`block_event`) and reported once per type as
        ``{"kind": "event_off_spec", "event": <its type>, "index": int}``.

        Any other is recorded as ``{"kind": "unknown_event", "event": str, "data": str,
        "reason": str}``.
        """
        if event.data == "[DONE]":
            if not self.undeclared_terminator:
                self.undeclared_terminator = True
                self.errors.append(
                    {"kind": "terminator_undeclared", "event": event.event, "data": event.data}
                )
            self.done()
            return
        is_error, data = _error_data(event)
        if is_error:
            self.errors.append(
                {"kind": "error_event", "data": data, "event": event.event, "reason": event.reason}
            )
            return
        if self.family in BLOCK_FAMILIES and '"type"' in event.data:
            try:
                data = msgspec.json.decode(event.data)
            except msgspec.DecodeError:
                data = None
            if isinstance(data, dict):
                index = self.block_event(data)
                if index is not None:
                    kind = data.get("type")
                    if isinstance(kind, str) and kind not in self.reported:
                        self.reported.add(kind)
                        self.errors.append(
                            {"kind": "event_off_spec", "event": kind, "index": index}
                        )
                    return
        self.errors.append(
            {
                "kind": "unknown_event",
                "event": event.event,
                "data": event.data,
                "reason": event.reason,
            }
        )

    def block_event(self, data: dict[str, Any]) -> int | None:
        """Assemble an event the spec does not list into the block it names, by
        ``output_index`` (Responses), ``item_id`` (an item opened before) or ``index``
        (Messages); its index, or None when it names none. A string ``delta``
        (``response.<name>.delta``) is appended to the field named for it
        (:meth:`BlockState.add_text`), a delta object as :meth:`BlockState.add_delta`
        does, an ``item``/``content_block`` opens (or finishes) the block; any other
        event is kept as sent in the block's ``deltas``."""
        index = data.get("output_index", data.get("index"))
        if not isinstance(index, int) or isinstance(index, bool):
            item_id = data.get("item_id")
            index = next(
                (i for i, b in self.blocks.items() if item_id is not None and b.id == item_id),
                None,
            )
            if index is None:
                return None
        block = self.blocks[index]
        kind = data.get("type")
        delta = data.get("delta")
        if isinstance(delta, str) and isinstance(kind, str):
            name = kind.removeprefix("response.").removesuffix(".delta")
            block.add_text(name, delta)
        elif isinstance(delta, dict):
            block.add_delta(delta)
        elif isinstance(data.get("content_block"), dict):
            block.open(data["content_block"])
        elif isinstance(data.get("item"), dict):
            if block.kind is None:
                block.open(data["item"])
            else:
                block.close(data["item"])
        else:
            block.deltas.append(data)
        return index

    def error(self, event: Any) -> None:
        """Record a mid-stream error message (e.g. an ``event: error`` frame:
        specs/xerotier/streaming-api.md:279-285); text so far is kept."""
        self.errors.append({"kind": "error_event", "data": msgspec.to_builtins(event)})

    def vendor(self, event: Any) -> None:
        """Record a provider extension event as plain data, in stream order."""
        if isinstance(event, VendorEvent):
            self.vendor_events.append(event.payload)
        else:
            self.vendor_events.append(msgspec.to_builtins(event))

    def truncated(self, event: StreamTruncated | StreamState) -> None:
        """Record that the stream ended inside an event: WHATWG HTML 9.2.6
        discards it. Takes the :class:`StreamTruncated` event a decoded stream
        ends with (or the ``sse.StreamState`` of one); its bytes consumed are
        reported as ``bytes``, the unterminated event's as ``bytes_discarded``. Recorded
        once per stream."""
        if any(e["kind"] == "truncated" for e in self.errors):
            return
        message = (
            event.reason
            if isinstance(event, StreamTruncated)
            else truncated_reason(event.bytes_consumed, event.bytes_discarded)
        )
        self.errors.append(
            {
                "kind": "truncated",
                "message": message,
                "bytes": event.bytes_consumed,
                "bytes_discarded": event.bytes_discarded,
            }
        )

    def result(self) -> StreamResult:
        """The assembled :class:`StreamResult` (the accumulator stays usable)."""
        choices = [state.result() for _, state in sorted(self.states.items(), key=_index_order)]
        if self.final_text is not None:
            if not choices:
                choices.append(ChoiceResult(index=0))
            choices[0].content = self.final_text
        mismatches: list[dict[str, Any]] = []
        output = [
            state.result(mismatches) for _, state in sorted(self.blocks.items(), key=_index_order)
        ]
        return StreamResult(
            id=self.id,
            model=self.model,
            choices=choices,
            usage=self.usage,
            errors=[*self.errors, *mismatches],
            vendor_events=list(self.vendor_events),
            complete=self.complete,
            output=output,
            stop_reason=self.stop_reason,
            family=_family(self.family).value,
            texts={name: _join(parts) for name, parts in self.texts.items()},
            lists={name: list(items) for name, items in self.lists.items()},
        )


def _error_data(event: UnknownEvent) -> tuple[bool, Any]:
    """Whether an unknown event is an error (see :meth:`Accumulator.unknown`), and its
    JSON (its text when it is not JSON)."""
    if event.event != "error" and '"error"' not in event.data:
        return False, None
    try:
        data = msgspec.json.decode(event.data)
    except msgspec.DecodeError:
        return event.event == "error", event.data
    return event.event == "error" or (isinstance(data, dict) and "error" in data), data


def _plain(value: Any) -> Any:
    """``value`` as plain JSON data: dicts as they are, typed objects by wire names
    (a pydantic model through ``model_dump``; this module does not import pydantic)."""
    if isinstance(value, (dict, str)):
        return value
    dump = getattr(value, "model_dump", None)
    if dump is not None:
        return dump(by_alias=True, exclude_defaults=True)
    try:
        return msgspec.to_builtins(value)
    except TypeError:
        return repr(value)


def as_sent(value: Any) -> Any:
    """``value`` as plain JSON data (typed objects by wire names): what a plan's ``collect``
    keeps."""
    return _plain(value)


def usage_of(members: Iterable[tuple[str, Any]]) -> dict[str, Any] | None:
    """The usage object of a plan's ``usage`` step with ``members`` (docs/accumulation.md):
    ``{name: value}`` of each member sent (not None), in the order given, values as
    plain JSON data (Ollama's final line: ``{"prompt_eval_count": 26, "eval_count": 282,
    "total_duration": 4883583458, ...}``, durations in nanoseconds as sent); None when none is."""
    usage = {name: _plain(value) for name, value in members if value is not None}
    return usage or None


def _join(parts: list[str]) -> str:
    """The parts joined; a None a leniently decoded event appended (a required text member
    that was missing) is left out."""
    try:
        return "".join(parts)
    except TypeError:
        return "".join(p for p in parts if isinstance(p, str))


def _index_order(item: tuple[Any, Any]) -> tuple[bool, int]:
    """Sort key of ``(index, state)``: by index, a state keyed by a missing (None) index
    of a leniently decoded event last."""
    return (not isinstance(item[0], int), item[0] if isinstance(item[0], int) else 0)


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None
