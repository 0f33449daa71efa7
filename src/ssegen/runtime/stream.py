"""Stream runtime: typed events from SSE bytes, and the assembled result.

:class:`Channel` ties a channel's message classifier (generated from the spec,
see ``channels.py``) to the SSE decoder (``sse.py``) and to an
:class:`Accumulator`.  Nothing is dropped: a payload that matches no message of
the channel becomes an :class:`UnknownEvent` carrying its raw text, and the
accumulator records it under ``errors``.

The assembly rules come from the providers' documents: deltas of
``chat.completion.chunk`` events concatenated per choice
(specs/deepseek/asyncapi-page.txt:16), tool calls built up from fragments by
``index`` (specs/mistral/asyncapi-page.txt:561-584), the ``[DONE]`` terminator
(specs/xerotier/streaming-api.md:12-14), mid-stream ``event: error`` frames
(specs/xerotier/streaming-api.md:279-285), vendor ``x_*`` events
(specs/xerotier/streaming-api.md:141-152) and cumulative texts
(specs/siliconstorm/inference-api.md:704-725).

This module is ``src/ssegen/runtime/stream.py`` of ssegen, copied verbatim into
every generated package: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import copy
import enum
import operator
import re
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from itertools import chain, groupby, repeat
from threading import get_ident
from types import UnionType
from typing import (
    TYPE_CHECKING,
    Annotated,
    Any,
    Generic,
    Literal,
    NamedTuple,
    TypeVar,
    Union,
    get_args,
    get_origin,
)

import msgspec

from .ndjson import NDJSONDecoder
from .sse import (
    DEFAULT_MAX_EVENT_BYTES,
    Framer,
    NamedEvents,
    PayloadError,
    RawEvents,
    ServerSentEvent,
    SSEDecoder,
    SSEError,
    StreamState,
    aiter_raw,
    check_chunks,
    iter_raw,
)

E = TypeVar("E")
R = TypeVar("R")

if TYPE_CHECKING:

    def decode_with(decode: Callable[[bytes], R], data: bytes, /) -> R:
        """``decode(data)``: :func:`operator.call` itself at run time, typed for one
        argument so that ``map(decode_with, decoders, values)`` (a decoder per value,
        called in C, as the generated ``classify_named_<channel>`` does) type-checks
        in mypy and pyright, which cannot bind ``operator.call``'s ``ParamSpec``
        through ``map``."""
        ...

else:
    decode_with = operator.call

NamedClassifier = Callable[[list[bytes], list[bytes]], Sequence[E] | None]
"""``classify_named(event_lines, values)``: the typed events of a run of named events
given as their undecoded ``event`` lines and data (``sse.NamedEvents``), all at once, or None to
have each classified alone; it must give what ``classify`` would (see :class:`Channel`)."""

#: The reason of a :class:`StreamTruncated` event (and of the ``truncated`` error).
TRUNCATED_REASON = "the stream ended inside an event; the unterminated event was discarded"

#: What :func:`truncated_reason` adds when the body held no blank line at all.
STRIPPED_LINES_HINT = (
    "; the body held no blank line at all, so its line ends may have been stripped (as"
    " iter_lines() does, in requests and httpx): pass response.iter_bytes() (httpx) or"
    " response.iter_content(chunk_size=None) (requests) instead"
)


def truncated_reason(bytes_consumed: int, bytes_discarded: int) -> str:
    """The reason of the :class:`StreamTruncated` event (and ``truncated`` error) of a body
    that ended inside an event, given its bytes read and discarded (``sse.StreamState``).

    :data:`TRUNCATED_REASON`, plus :data:`STRIPPED_LINES_HINT` when every byte was
    discarded: the body held no blank line, so no event ever ended (WHATWG HTML 9.2.6
    dispatches an event at a blank line), which is what a body read with its line ends
    stripped looks like (each line of requests' or httpx's ``iter_lines()``, joined).
    """
    if bytes_discarded and bytes_discarded == bytes_consumed:
        return TRUNCATED_REASON + STRIPPED_LINES_HINT
    return TRUNCATED_REASON


class UnknownEvent(msgspec.Struct, kw_only=True):
    """An SSE event that matches no message of its channel, kept with its raw text.

    Attributes:
        event: the SSE event type (``message`` when the stream gave none).
        data: the event's data, exactly as received.
        id: the SSE last event ID at dispatch.
        reason: why no message matched (the last decoder error).
    """

    event: str
    data: str
    id: str = ""
    reason: str = ""


class VendorEvent(msgspec.Struct, kw_only=True):
    """A provider extension event the spec does not list (or whose listed schema it
    does not fit), recognized by its tag: e.g. ``{"type": "x_new.thing", ...}``
    (vendor-prefixed events inline in the stream: specs/xerotier/streaming-api.md:141-152).

    Attributes:
        type: the tag value.
        payload: the whole JSON object as received.
        reason: why no listed vendor message matched ("" for an unlisted tag).
    """

    type: str
    payload: dict[str, Any]
    reason: str = ""


def tag_reader(member: str) -> Callable[[str], str | None]:
    """A function reading the string value of top-level ``member`` from JSON text.

    Args:
        member: the JSON object member holding the tag, e.g. ``"type"``.

    Returns:
        ``read(data: str) -> str | None``: the member's value, or None for
        non-JSON, non-objects, a missing member and non-string values (it
        never raises); other members are skipped by msgspec without building
        them.
    """
    probe = msgspec.defstruct("TagProbe", [("value", Any, None)], rename={"value": member})
    decoder = msgspec.json.Decoder(probe)

    def read(data: str) -> str | None:
        try:
            value = getattr(decoder.decode(data), "value", None)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        return value if isinstance(value, str) else None

    return read


class StreamTruncated(msgspec.Struct, kw_only=True):
    """The last event of a decoded stream whose body ended inside an event: the
    unterminated event was discarded (WHATWG HTML 9.2.6, "any pending data must be
    discarded"). Yielded by :meth:`Channel.decode` and :meth:`Channel.adecode` so that
    the fact travels with the events: ``accumulate`` of any iterable of them (a
    list included) records it as a ``truncated`` error.

    Attributes:
        reason: what happened, in words.
        bytes_consumed: bytes of the body read in all, the discarded ones included.
        bytes_discarded: the last ``bytes_discarded`` of them, the unterminated event:
            every byte after the stream's last blank line (``sse.SSEDecoder.bytes_discarded``).
    """

    reason: str = TRUNCATED_REASON
    bytes_consumed: int = 0
    bytes_discarded: int = 0


#: The attribute a typed usage object carries the object as sent on (see :func:`keep_usage`).
_SENT = "_ssegen_sent"

T = TypeVar("T")


def keep_usage(chunk: T, data: str | bytes, attr: str = "usage") -> T:
    """``chunk``, its typed usage object (member ``attr``) made to carry the usage
    object as sent, every member included: typed decoding keeps only the members
    the spec lists, and servers send more (DeepSeek ``prompt_cache_hit_tokens`` and
    ``prompt_tokens_details``, OpenRouter ``cost_details``, Groq ``queue_time``).

    ``attr`` may be a dotted path, where a block family's usage is nested (Anthropic
    ``message.usage``, OpenAI Responses ``response.usage``); a segment whose identifier
    is not its wire name is written ``identifier:wire`` (Gemini's
    ``usage_metadata:usageMetadata``).

    Called by the generated ``classify`` on each chunk it decodes: the JSON ``data`` is
    kept on the typed usage, and decoded a second time, for the usage object only, when
    :func:`usage_as_sent` first reads it (a stream that re-sends its usage with every
    chunk, as Gemini's ``usageMetadata``, pays for the one the result keeps). Never
    raises.
    """
    if "." in attr or ":" in attr:
        _keep_nested(chunk, data, attr)
        return chunk
    usage = getattr(chunk, attr, None)
    if usage is not None:
        _attach(usage, data, attr)
    return chunk


def kept(decode: Callable[[bytes], T], attr: str) -> Callable[[bytes], T]:
    """``decode`` followed by :func:`keep_usage` of member ``attr`` (a named-event
    decoder table's entry for a message whose usage is kept)."""

    def decode_kept(data: bytes) -> T:
        return keep_usage(decode(data), data, attr)

    return decode_kept


#: usage path -> a decoder reading only the object at that path
_PROBES: dict[str, Callable[[str | bytes], Any]] = {}
#: usage path -> the identifiers on the way
_NAMES: dict[str, tuple[str, ...]] = {}


def _names(attr: str) -> tuple[str, ...]:
    names = _NAMES.get(attr)
    if names is None:
        names = _NAMES[attr] = tuple(s.partition(":")[0] for s in attr.split("."))
    return names


def _keep_nested(chunk: Any, data: str | bytes, attr: str) -> None:
    usage = chunk
    for name in _names(attr):
        usage = getattr(usage, name, None)
        if usage is None:
            return
    _attach(usage, data, attr)


def keep_usages(chunks: Sequence[Any], values: Sequence[bytes], attr: str = "usage") -> None:
    """:func:`keep_usage` for a run of chunks decoded from ``values`` (their JSON
    data, in the same order), as the generated batch decoder gives them."""
    names = _names(attr)
    if len(names) > 1:
        for chunk, value in zip(chunks, values, strict=False):
            _keep_nested(chunk, value, attr)
        return
    name = attr.partition(":")[0]
    try:
        for chunk, value in zip(chunks, values, strict=False):
            usage = getattr(chunk, name, None)
            if usage is not None:
                setattr(usage, _SENT, (value, attr))
    except (AttributeError, TypeError, ValueError):
        pass  # a class without room (generated before): the typed members only


def _read_sent(data: str | bytes, attr: str) -> Any:
    """The object at usage path ``attr`` of the JSON text ``data`` (None when it is not
    there): what :func:`keep_usage` kept, read by :func:`usage_as_sent`."""
    decode = _PROBES.get(attr)
    if decode is None:
        probe: Any = Any
        for segment in reversed(attr.split(".")):
            name, _, wire = segment.partition(":")
            probe = msgspec.defstruct(
                "UsageProbe", [(name, probe | None, None)], rename={name: wire or name}
            )
        decode = _PROBES[attr] = msgspec.json.Decoder(probe).decode
    try:
        sent = decode(data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    for name in _names(attr):
        sent = getattr(sent, name, None)
    return sent


def _attach(usage: Any, data: str | bytes, attr: str = "usage") -> None:
    try:
        # Not a field: ``dict=True`` usage classes (and pydantic models) have room for it;
        # the event's JSON text, with the path to read the usage at.
        setattr(usage, _SENT, (data, attr))
    except (AttributeError, TypeError, ValueError):
        pass  # a class without room (generated before): the typed members only


def usage_as_sent(usage: Any) -> dict[str, Any] | None:
    """The usage object exactly as the server sent it (plain JSON data, the members
    the spec does not list and nested objects included), when the decoder kept it
    on the typed ``usage`` (see :func:`keep_usage`); else None."""
    sent = getattr(usage, _SENT, None)
    if isinstance(sent, tuple):
        sent = _read_sent(*sent)
        try:
            setattr(usage, _SENT, sent)
        except (AttributeError, TypeError, ValueError):
            pass
    return sent if isinstance(sent, dict) else None


#: The wire name of the member a leniently decoded event keeps its off-spec members in; no
#: provider sends it (a decoded payload holding it is taken as sent, which changes nothing).
OFF_SPEC_WIRE = "x-ssegen-off-spec"


class ModelLibrary:
    """What lenient decoding needs to know of the library the message classes are built on
    (msgspec here; ``pydantic_support.PYDANTIC`` for the pydantic flavour), so that one
    algorithm (:func:`lenient_decode`) serves both and they decode alike."""

    def __init__(self) -> None:
        self._fields: dict[Any, list[tuple[str, str, Any, bool]]] = {}

    def fields(self, cls: Any) -> list[tuple[str, str, Any, bool]]:
        """``(attribute, wire name, type, required)`` of each member of class ``cls``, read
        once per class (reading resolves the class's type annotations: about 150 us a call)."""
        known = self._fields.get(cls)
        if known is None:
            known = self._fields[cls] = self.read_fields(cls)
        return known

    def read_fields(self, cls: Any) -> list[tuple[str, str, Any, bool]]:
        """:meth:`fields` of ``cls`` as the library states them (uncached)."""
        return [(f.name, f.encode_name, f.type, f.required) for f in msgspec.structs.fields(cls)]

    def convert(self, tp: Any, value: Any) -> Any:
        """``value`` (plain JSON data) as type ``tp``; raises :class:`ValueError` when it does
        not fit (``msgspec.ValidationError`` is one)."""
        return msgspec.convert(value, tp)

    def build(self, cls: Any, members: dict[str, Any]) -> Any:
        """An instance of ``cls`` from attribute values, not validated."""
        return cls(**members)

    def is_class(self, tp: Any) -> bool:
        """True when ``tp`` is one of the library's message classes."""
        return isinstance(tp, type) and issubclass(tp, msgspec.Struct)

    def plain(self, value: Any) -> Any:
        """``value`` as plain JSON data keyed by wire names, members at their default left
        out (``omit_defaults``), a tagged-union alternative's tag included."""
        return msgspec.to_builtins(value)

    def carries_sent(self, cls: Any) -> bool:
        """True when instances of ``cls`` may carry a usage object as sent (see
        :func:`keep_usage`): msgspec classes with ``dict=True``."""
        return bool(getattr(getattr(cls, "__struct_config__", None), "dict", False))

    def tagged_as(self, cls: Any, value: dict[str, Any]) -> bool:
        """False when ``cls`` is a tagged-union alternative whose tag ``value`` lacks or
        gives another value (msgspec ``tag_field``/``tag``)."""
        config = cls.__struct_config__
        return config.tag_field is None or value.get(config.tag_field) == config.tag


MSGSPEC = ModelLibrary()


def lenient_decode(
    data: str, classes: Sequence[type], library: ModelLibrary = MSGSPEC
) -> Any | None:
    """The event of a payload that is clearly one of ``classes`` but did not decode: the
    members that fit, typed, and each one that does not kept raw in the event's
    ``off_spec`` (JSON pointer -> value as sent; None for a required member that is
    missing), at the deepest place that does not fit (Mistral's Magistral chunks send
    ``delta.content`` as a list of parts where the spec says a string:
    ``{"/choices/0/delta/content": [...]}``, and the rest of the chunk decodes).

    "Clearly": a JSON object holding at least half of the class's required members (one
    at least), no member fixed to one value (a ``Literal`` tag) with another value, and
    more required members than any other of ``classes`` (the first wins a tie). None when
    no class is. Only called after every typed decode failed, so the fast path pays nothing.
    """
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    if not isinstance(raw, dict):
        return None
    best: tuple[int, type] | None = None
    for cls in classes:
        score = _closeness(library, cls, raw)
        if score > 0 and (best is None or score > best[0]):
            best = (score, cls)
    if best is None:
        return None
    off: dict[str, Any] = {}
    event = _lenient_object(library, best[1], raw, "", off)
    event.off_spec = off
    return event


def _closeness(library: ModelLibrary, cls: Any, raw: dict[str, Any]) -> int:
    """How many required members of ``cls`` ``raw`` has; 0 when a tag differs or when
    fewer than half of them are there (then it is not clearly this message)."""
    present = required = 0
    for _, wire, tp, needed in library.fields(cls):
        required += needed
        if wire in raw:
            literal = literal_values(tp)
            if literal is not None and raw[wire] not in literal and raw[wire] is not None:
                return 0
            present += needed
    return present if 2 * present >= required else 0


def literal_values(tp: Any) -> tuple[Any, ...] | None:
    """The values of a ``Literal`` type (or of ``Literal | None``), else None."""
    if get_origin(tp) is Literal:
        return get_args(tp)
    if get_origin(tp) in (Union, UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        if len(options) == 1 and get_origin(options[0]) is Literal:
            return get_args(options[0])
    return None


def _lenient_object(
    library: ModelLibrary, cls: Any, raw: dict[str, Any], pointer: str, off: dict[str, Any]
) -> Any:
    members: dict[str, Any] = {}
    for name, wire, tp, required in library.fields(cls):
        if wire == OFF_SPEC_WIRE:
            continue
        place = pointer + "/" + wire.replace("~", "~0").replace("/", "~1")
        if wire not in raw:
            if required:
                off[place] = None
                members[name] = None
            continue
        members[name] = _lenient_value(library, tp, raw[wire], place, off)
    return library.build(cls, members)


def _lenient_value(
    library: ModelLibrary, tp: Any, value: Any, pointer: str, off: dict[str, Any]
) -> Any:
    try:
        return library.convert(tp, value)
    except ValueError:
        pass
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    options = get_args(tp) if get_origin(tp) in (Union, UnionType) else (tp,)
    for option in options:
        if library.is_class(option) and isinstance(value, dict):
            if not library.tagged_as(option, value):
                continue
            return _lenient_object(library, option, value, pointer, off)
        if get_origin(option) is list and isinstance(value, list):
            item = get_args(option)[0] if get_args(option) else Any
            return [
                _lenient_value(library, item, v, f"{pointer}/{i}", off) for i, v in enumerate(value)
            ]
    off[pointer] = value
    return None


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

    def open(self, block: Any) -> None:
        """Take the block's identity from the object that opens it (Messages
        ``content_block``, Responses ``item``): its ``type``, ``id``, ``call_id``,
        ``name``, ``status``, ``input`` and any first ``text``, ``thinking`` or
        ``arguments``; the object is kept (``raw``)."""
        data = _plain(block)
        if not isinstance(data, dict):
            return
        self.opened = data
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
        texts = {f: _join(getattr(self, f)) for f in _BLOCK_TEXTS}
        others = {name: _join(parts) for name, parts in self.texts.items()}
        final = self.final if isinstance(self.final, dict) else {}
        found: list[tuple[str, Any, Any]] = []
        ident: dict[str, str | None] = {}
        for member in ("kind", "id", "call_id", "name", "status"):
            mine = getattr(self, member)
            sent = _str_or_none(final.get("type" if member == "kind" else member))
            if mine and sent and mine != sent and member != "status":
                found.append((member, mine, sent))
            ident[member] = sent or mine
        if isinstance(final.get("arguments"), str):
            found += _fill(texts, "arguments", final["arguments"])
        if isinstance(final.get("content"), list):
            joined = "".join(
                p["text"]
                for p in final["content"]
                if isinstance(p, dict)
                and p.get("type") in ("output_text", "text")
                and isinstance(p.get("text"), str)
            )
            if joined or any(isinstance(p, dict) and "text" in p for p in final["content"]):
                found += _fill(texts, "text", joined)
        if not texts["thinking"] and isinstance(final.get("summary"), list):
            texts["thinking"] = "".join(
                p["text"]
                for p in final["summary"]
                if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        for name in list(others):
            if isinstance(final.get(name), str):
                found += _fill(others, name, final[name])
        if (
            ident["kind"] == "custom_tool_call"
            and "input" not in others
            and isinstance(final.get("input"), str)
        ):
            others["input"] = final["input"]
        parsed = self.input
        partial = None
        if not texts["arguments"] and isinstance(final.get("arguments"), (dict, list)):
            parsed = final["arguments"]
        elif texts["arguments"]:
            try:
                parsed = msgspec.json.decode(texts["arguments"])
            except msgspec.DecodeError:
                parsed = None
                partial = partial_json(texts["arguments"])
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

    def add_text(self, name: str, text: Any) -> None:
        """Append ``text`` to the stream's named text ``name`` (a plan's ``append`` with
        no key: Cohere's ``tool_plan``); a value that is not a string adds nothing."""
        if isinstance(text, str):
            parts = self.texts.get(name)
            if parts is None:
                parts = self.texts[name] = _Parts()
            parts.append(text)

    def collect(self, name: str, value: Any) -> None:
        """Append ``value`` (plain data, as sent) to the stream's named list ``name`` (a
        plan's ``collect`` with no key: Cohere's citations); None adds nothing."""
        if value is not None:
            self.lists.setdefault(name, []).append(value)

    def block(self, index: int) -> BlockState:
        """The state of output block ``index`` (created on first use, also when read
        as ``blocks[index]``)."""
        return self.blocks[index]

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


class _StreamProgress:
    """What both event streams tell about their source once read: see :class:`EventStream`."""

    state: StreamState
    _owner: int | None = None  # the ident of the thread that first used the stream

    @property
    def incomplete(self) -> bool:
        """True when the stream ended inside an event (known once iteration ends)."""
        return self.state.incomplete

    @property
    def bytes_consumed(self) -> int:
        """Bytes read from the source so far."""
        return self.state.bytes_consumed


class ConcurrentUseError(RuntimeError):
    """An event stream was used from a thread other than the one that first used it.

    A stream has one consumer: its decoder holds the state of one read at a time, and
    the iterators it is built of must never run in two threads at once (CPython's
    ``itertools.chain`` crashes the interpreter when they do). Hand the stream's events
    to other threads instead (a ``queue.Queue``), or decode a stream per thread.
    """


def _owner_check(stream: _StreamProgress) -> None:
    """Record the thread of the first use of ``stream``; raise :class:`ConcurrentUseError`
    when another thread uses it later (called once per ``iter()``/``next()``, never per
    event of a ``for`` loop)."""
    ident = get_ident()
    if stream._owner != ident:
        if stream._owner is not None:
            raise ConcurrentUseError(
                f"this {type(stream).__name__} was first used by thread {stream._owner} and is now "
                f"used by thread {ident}: a stream has one consumer (decode a stream per thread, or "
                "pass its events on through a queue)"
            )
        stream._owner = ident


class EventStream(_StreamProgress, Generic[E]):
    """Typed events of one stream, decoded lazily from an iterable of bytes.

    Iterate it once, from one thread: the thread that first iterates it (or calls
    ``next`` on it) is its consumer, and using it from any other thread raises
    :class:`ConcurrentUseError` (checked when iteration starts and at each ``next()``
    call, not per event of a ``for`` loop; do not hand the iterator ``iter(stream)``
    returns to another thread either).  A stream that ended inside an event (WHATWG HTML 9.2.6: that
    event is discarded) ends with a :class:`StreamTruncated` event; after iteration,
    :attr:`incomplete` tells the same and :attr:`bytes_consumed` how many bytes were
    read.

    Args:
        chunks: the body, in byte chunks of any size, read lazily.
        classify: maps one SSE event to a typed event (never raises).
        max_event_bytes: limit on one event's pending bytes (see ``sse.SSEDecoder``).
        classify_values: optionally, the typed events of a run of plain
            ``data:`` events at once (see :class:`Channel`).
        classify_named: optionally, the typed events of a run of named
            events at once (see :class:`Channel`).
        framer: builds the decoder that cuts the body into events from
            ``max_event_bytes``: ``sse.SSEDecoder`` (``text/event-stream``), or
            ``ndjson.NDJSONDecoder`` (one JSON value per line, each an event of type
            ``message``; a cut last line ends the stream as truncated).

    Attributes:
        state: the ``sse.StreamState`` (bytes consumed, last event ID,
            reconnection time in milliseconds, incompleteness), updated per chunk.

    Raises (while iterating): an ``sse.SSEError`` subclass for every failure the bytes
    cause (``sse.InvalidUTF8Error``, ``sse.EventTooLargeError``, ``sse.InvalidFieldError``,
    ``sse.PayloadError``: see the hierarchy in ``sse.py``); events before the error are
    yielded first.  :class:`ConcurrentUseError` when used from a second thread.

    ``TypeError`` (while iterating) at the first chunk that is a ``str`` (``iter_text()``
    instead of ``iter_bytes()``).

    Raises (at once): ``TypeError`` when ``chunks`` is a whole body (``bytes``,
    ``bytearray``, ``memoryview``, ``str``) rather than an iterable of chunks: its
    message says what to pass (``[body]``); see ``sse.check_chunks``.
    """

    def __init__(
        self,
        chunks: Iterable[bytes],
        classify: Callable[[ServerSentEvent], E],
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        classify_values: Callable[[list[bytes]], Sequence[E] | None] | None = None,
        classify_named: NamedClassifier[E] | None = None,
        framer: Callable[[int], Framer] = SSEDecoder,
    ) -> None:
        check_chunks(chunks, "decode()")
        self.state = StreamState()
        self._classify = classify
        self._classify_values = classify_values
        self._classify_named = classify_named
        # The SSE events of each chunk, then the typed events: both lazy, and
        # chained in C (no Python-level frame resumed per event). Item by item:
        # a long read's runs (sse.SSEDecoder.feed_raw takes it in windows) are
        # not all held as typed events at once.
        self._batches = iter_raw(
            chunks, max_event_bytes=max_event_bytes, state=self.state, framer=framer
        )
        self._events: Iterator[E] = chain(
            chain.from_iterable(
                map(
                    _classify_batch,
                    self._batches,
                    repeat(classify),
                    repeat(classify_values),
                    repeat(classify_named),
                )
            ),
            _end(self.state),  # runs once the stream is read: a StreamTruncated, or nothing
        )
        self._started = False

    def __iter__(self) -> Iterator[E]:
        if self._owner != get_ident():
            _owner_check(self)
        self._started = True
        return self._events

    def __next__(self) -> E:
        if self._owner != get_ident():
            _owner_check(self)
        self._started = True
        return next(self._events)


class AsyncEventStream(_StreamProgress, Generic[E]):
    """The asynchronous twin of :class:`EventStream`, over an async iterable of bytes:
    same arguments, attributes and errors (one consumer: one thread, see
    :class:`ConcurrentUseError`)."""

    def __init__(
        self,
        chunks: AsyncIterable[bytes],
        classify: Callable[[ServerSentEvent], E],
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        classify_values: Callable[[list[bytes]], Sequence[E] | None] | None = None,
        classify_named: NamedClassifier[E] | None = None,
        framer: Callable[[int], Framer] = SSEDecoder,
    ) -> None:
        check_chunks(chunks, "adecode()", is_async=True)
        self.state = StreamState()
        self._classify = classify
        self._classify_values = classify_values
        self._classify_named = classify_named
        self._batches = aiter_raw(
            chunks, max_event_bytes=max_event_bytes, state=self.state, framer=framer
        )
        self._events = self._typed()
        self._started = False

    async def _typed(self) -> AsyncIterator[E]:
        classify, classify_values = self._classify, self._classify_values
        classify_named = self._classify_named
        async for batch in self._batches:
            for event in _classify_batch(batch, classify, classify_values, classify_named):
                yield event
        if self.state.incomplete:
            yield _truncated(self.state)

    def __aiter__(self) -> AsyncIterator[E]:
        if self._owner != get_ident():
            _owner_check(self)
        self._started = True
        return self._events

    async def __anext__(self) -> E:
        if self._owner != get_ident():
            _owner_check(self)
        self._started = True
        return await self._events.__anext__()


def _truncated(state: StreamState) -> Any:
    """The :class:`StreamTruncated` event ending a stream (typed ``Any``: every
    channel's event union includes the class)."""
    return StreamTruncated(
        reason=truncated_reason(state.bytes_consumed, state.bytes_discarded),
        bytes_consumed=state.bytes_consumed,
        bytes_discarded=state.bytes_discarded,
    )


def _end(state: StreamState) -> Iterator[Any]:
    """The events after a stream's last one, computed once it is read: its
    :class:`StreamTruncated` when it ended inside an event, else none."""
    if state.incomplete:
        yield _truncated(state)


def _classify_batch(
    batch: list[ServerSentEvent | RawEvents | NamedEvents],
    classify: Callable[[ServerSentEvent], E],
    classify_values: Callable[[list[bytes]], Sequence[E] | None] | None,
    classify_named: NamedClassifier[E] | None = None,
) -> Iterable[E]:
    """The typed events of one read's SSE events (``sse.SSEDecoder.feed_raw``): those of
    its one item when it has one, as most reads do; else those of each item in turn,
    lazily (a long read's runs are not all held as typed events at once)."""
    if len(batch) == 1:
        return _classify_item(batch[0], classify, classify_values, classify_named)
    return chain.from_iterable(
        map(
            _classify_item, batch, repeat(classify), repeat(classify_values), repeat(classify_named)
        )
    )


def _classify_item(
    item: ServerSentEvent | RawEvents | NamedEvents,
    classify: Callable[[ServerSentEvent], E],
    classify_values: Callable[[list[bytes]], Sequence[E] | None] | None,
    classify_named: NamedClassifier[E] | None = None,
) -> Sequence[E] | Iterator[E]:
    """The typed events of one SSE event, of a run of plain ``data:`` events (at
    once through ``classify_values`` as far as it takes them), or of a run of named
    events (at once through ``classify_named`` when it takes them all).

    A failure of the typed decoding (JSON nested deeper than the recursion limit lets
    msgspec follow, a number too large to convert) is caught here, once per item and
    at no cost while nothing fails: the item's events are then classified one by one,
    the typed events before the failing one given, and that one raises
    ``sse.PayloadError`` (an ``SSEError``)."""
    try:
        if isinstance(item, RawEvents):
            run = None if classify_values is None else classify_values(item.values)
            if run and len(run) == len(item.values):
                return run
            if not run:
                return list(map(classify, item.events()))
            return [*run, *map(classify, item.events(len(run)))]  # the terminator on, alone
        if isinstance(item, NamedEvents):
            named = (
                None if classify_named is None else classify_named(item.event_lines, item.values)
            )
            return list(map(classify, item.events())) if named is None else named
        return (classify(item),)
    except SSEError:
        raise
    except Exception:  # every failure from the bytes is an SSEError
        events = item.events() if isinstance(item, (RawEvents, NamedEvents)) else [item]
        return _one_by_one(events, classify)


def _one_by_one(
    events: list[ServerSentEvent], classify: Callable[[ServerSentEvent], E]
) -> Iterator[E]:
    """The typed events of ``events``, classified one at a time, up to the first that
    cannot be: it raises :class:`sse.PayloadError`, naming the original failure."""
    for event in events:
        try:
            typed = classify(event)
        except Exception as exc:
            raise PayloadError(event.event, event.data, _reason(exc)) from exc
        yield typed


def _reason(exc: BaseException) -> str:
    """What failed, in words, for :class:`sse.PayloadError`."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deep"
    return f"{type(exc).__name__}: {str(exc)[:120]}"


class Channel(Generic[E]):
    """One streaming endpoint of the provider: decode bytes, assemble results.

    Args:
        address: the channel address, e.g. ``/chat/completions``.
        messages: message name (as in the spec) -> the class its events
            decode to, in decode order.
        classify: maps one SSE event to a typed event (never raises).
        apply: feeds one typed event into an :class:`Accumulator`.
        handlers: optionally, what ``apply`` does for each event class (the
            same calls, looked up by the exact class without calling ``apply``).
        runs: optionally, per event class, a function applying consecutive events of
            that class (an iterable of them) as its handler would apply each in turn;
            runs of named events are applied through it, one call per run.
        classify_values: optionally, the typed events of a run of plain
            ``data:`` events given as their undecoded data (``sse.RawEvents``),
            all at once and all of one class: those of its first
            ``len(result)`` values (the rest, from a terminator such as
            ``[DONE]`` on, are classified alone), or None to have each
            classified alone; it must give what ``classify`` would.
        apply_values: optionally, applies a whole run that ``classify_values``
            gave, as ``apply`` would each event in turn.
        classify_named: optionally, the typed events of a run of named events
            (``sse.NamedEvents``: ``event:`` + ``data:`` + blank line each) given as
            their undecoded ``event`` lines and data, all at once, or None to have each
            classified alone; it must give what ``classify`` would.
        family: how the events assemble (``chat``, ``messages``, ``responses``,
            ``custom``, ``none``), recorded on the :class:`StreamResult`.
        encoding: what :meth:`encode` and :meth:`example_stream` need (event types,
            required members, the terminator, the examples); by default every event
            travels as ``message`` and there are no examples.
        framing: how the body is cut into events (the IR channel's ``framing``):
            ``sse`` (``text/event-stream``) or ``ndjson`` (one JSON value per line:
            decoded by ``ndjson.NDJSONDecoder``, encoded one line per event).

    Attributes:
        framer: the decoder class ``framing`` names (``sse.SSEDecoder`` or
            ``ndjson.NDJSONDecoder``), for ``sse.iter_events(..., framer=...)``.
    """

    def __init__(
        self,
        address: str,
        messages: dict[str, type],
        classify: Callable[[ServerSentEvent], E],
        apply: Callable[[Accumulator, E], None],
        handlers: dict[type, Callable[[Accumulator, Any], None]] | None = None,
        classify_values: Callable[[list[bytes]], Sequence[E] | None] | None = None,
        apply_values: Callable[[Accumulator, Sequence[Any]], None] | None = None,
        family: str = Family.CHAT.value,
        classify_named: NamedClassifier[E] | None = None,
        runs: dict[type, Callable[[Accumulator, Iterable[Any]], None]] | None = None,
        encoding: Encoding | None = None,
        framing: str = "sse",
    ) -> None:
        if framing not in ("sse", "ndjson"):
            raise ValueError(f"framing must be 'sse' or 'ndjson', got {framing!r}")
        self.address = address
        self.framing = framing
        self.framer: Callable[[int], Framer] = NDJSONDecoder if framing == "ndjson" else SSEDecoder
        self.encoding = encoding or Encoding()
        self.family = _family(family)
        self.messages = messages
        self.classify = classify
        self.apply = apply
        self.handlers: dict[type, Callable[[Accumulator, Any], None]] = handlers or {}
        self.classify_values = classify_values
        self.apply_values = apply_values
        self.classify_named = classify_named
        self.runs: dict[type, Callable[[Accumulator, Iterable[Any]], None]] = runs or {}

    def __repr__(self) -> str:
        return f"Channel({self.address!r})"

    def encode(self, event: E) -> bytes:
        """One typed event as one SSE event (UTF-8 bytes), as the provider sends it: the
        inverse of :meth:`decode`, so ``decode([encode(e)])`` gives back ``e``.

        A message travelling under a named SSE event type gets its ``event:`` line (none
        for ``message``); its ``data:`` is the JSON of every member the wire needs (the
        members the spec requires are written even when ``null``, see :class:`Encoding`);
        a literal message (the terminator ``StreamDone``) is written as its literal
        (``data: [DONE]``); an :class:`UnknownEvent` is re-emitted as it came (its event
        type, id and raw data); a :class:`VendorEvent` as its payload. Data holding LF is
        split into several ``data:`` lines (WHATWG HTML, "event stream interpretation":
        the decoder joins them with LF).

        Raises:
            ValueError: ``event`` is a :class:`StreamTruncated` (a cut stream has no event
                to write), or an event type, id or raw data no SSE line can carry (CR).
            TypeError: ``event`` is neither an :class:`UnknownEvent`, :class:`VendorEvent`
                nor an instance of a message class (a msgspec ``Struct``; a pydantic model for
                that flavour); it is not checked to be one of this channel's.
        """
        if self.framing == "ndjson":
            return self._encode_line(event)
        enc = self.encoding
        cls = type(event)
        if isinstance(event, UnknownEvent):
            return sse_frame(event.data, event.event, event.id)
        if isinstance(event, StreamTruncated):
            raise ValueError("a StreamTruncated event marks a cut stream; it has no SSE form")
        if isinstance(event, VendorEvent):
            return sse_frame(msgspec.json.encode(event.payload).decode("utf-8"))
        name = enc.events.get(cls, "message")
        literal = enc.literals.get(cls)
        if literal is not None:
            return sse_frame(literal, name)
        if not enc.library.is_class(cls):
            raise TypeError(f"cannot encode {cls.__name__}: not a message class ({self!r})")
        # JSON text holds no line break (msgspec escapes them): one ``data:`` line.
        return enc.head(name) + b"data: " + enc.json(event) + b"\n\n"

    def _encode_line(self, event: E) -> bytes:
        """:meth:`encode` on an NDJSON channel: the event's JSON and an LF (an
        :class:`UnknownEvent` as its raw data, a :class:`VendorEvent` as its payload).

        Raises:
            ValueError: a :class:`StreamTruncated`, or raw data holding a line end.
            TypeError: as :meth:`encode`.
        """
        enc = self.encoding
        cls = type(event)
        if isinstance(event, StreamTruncated):
            raise ValueError("a StreamTruncated event marks a cut stream; it has no NDJSON form")
        if isinstance(event, UnknownEvent):
            if "\n" in event.data or "\r" in event.data:
                raise ValueError("an NDJSON line cannot hold a line end")
            return event.data.encode("utf-8") + b"\n"
        if isinstance(event, VendorEvent):
            return msgspec.json.encode(event.payload) + b"\n"
        literal = enc.literals.get(cls)
        if literal is not None:
            return literal.encode("utf-8") + b"\n"
        if not enc.library.is_class(cls):
            raise TypeError(f"cannot encode {cls.__name__}: not a message class ({self!r})")
        return enc.json(event) + b"\n"

    def encode_stream(self, events: Iterable[E]) -> Iterator[bytes]:
        """Each of ``events`` encoded (:meth:`encode`), lazily, then the terminator when the
        spec declares one (``data: [DONE]``) and ``events`` did not hold it; a
        :class:`StreamTruncated` ends the output there (a cut stream gets no terminator).
        ``b"".join(...)`` of it is a whole response body.

        Raises:
            ValueError, TypeError: as :meth:`encode`, when an event is reached.
        """
        terminator = self.encoding.terminator
        done = terminator is None
        for event in events:
            if isinstance(event, StreamTruncated):
                return
            if not done and type(event) is type(terminator):
                done = True
            yield self.encode(event)
        if not done:
            yield self.encode(terminator)

    def example_events(self) -> list[E]:
        """The spec's own examples of the channel (those the package's conformance tests
        decode, synthesized instances included), decoded, in spec order, the terminator
        last (added when the spec declares one and gives no example of it). One event per
        documented example: several responses' events side by side, not one response.

        Raises:
            sse.PayloadError: as :meth:`parse` (never for the generated examples).
        """
        events = [self.parse(data, event) for event, data in self.encoding.examples]
        terminator = self.encoding.terminator
        if terminator is None:
            return events
        rest = [e for e in events if type(e) is not type(terminator)]
        return [*rest, terminator]

    def example_stream(
        self,
        text: str | None = None,
        *,
        stream: str | None = None,
        model: str | None = None,
        finish_reason: str = "stop",
    ) -> list[E]:
        """A complete stream of typed events, true to the spec, for tests and mocks.

        Without ``text``: the harvested example stream named ``stream`` (a key of
        ``encoding.streams``: the ``examples/<name>.sse`` the conformance tests replay,
        cumulative ones left out), by default the channel's first one, decoded; a channel
        with none gives :meth:`example_events`.

        With ``text`` (chat, messages and responses families): a stream answering ``text``,
        each event written as the spec's examples write theirs (harvested streams first,
        then the documented examples) with the text changed, then decoded by the channel:
        the text is split into deltas at word starts (``"Hello world"`` -> ``"Hello"``,
        ``" world"``), then the closing events. Chat: a last chunk with ``finish_reason``
        (and ``usage`` when an example carries one, its completion count set to the number
        of deltas), then the terminator; messages: ``message_start``,
        ``content_block_start``, the ``content_block_delta`` events, ``content_block_stop``,
        ``message_delta`` (``finish_reason`` as ``stop_reason``, ``end_turn`` for ``stop``)
        and ``message_stop``; responses: ``response.created``,
        ``response.output_item.added``, the ``response.output_text.delta`` events,
        ``response.output_text.done``, ``response.output_item.done`` and
        ``response.completed``. ``model`` replaces the examples' model name.

        Raises:
            KeyError: ``stream`` names no harvested stream of the channel.
            ValueError: ``text`` is given and the channel's family has no synthesis, or its
                examples lack an event the stream needs (the message is named), or a built
                event does not decode (its reason is given).
        """
        enc = self.encoding
        if text is None:
            if stream is None and not enc.streams:
                return self.example_events()
            frames = enc.streams[stream if stream is not None else next(iter(enc.streams))]
            return [self.parse(data, event) for event, data in frames]
        payloads = []
        for frames in (*enc.streams.values(), enc.examples):
            for event, data in frames:
                if data.lstrip().startswith("{"):
                    payload = msgspec.json.decode(data)
                    if isinstance(payload, dict):
                        payloads.append((event, payload))
        synth = Synthesis(payloads, self.parse, model)

        def responses(text: str, finish_reason: str) -> list[Any]:
            return synth.responses(text)

        synthesize = {
            Family.CHAT: synth.chat,
            Family.MESSAGES: synth.messages,
            Family.RESPONSES: responses,
        }.get(self.family)
        if synthesize is None:
            raise ValueError(f"{self!r}: no stream synthesis for family {self.family.value!r}")
        out = synthesize(text, finish_reason)
        return out + ([] if enc.terminator is None else [enc.terminator])

    def parse(self, data: str, event: str = "message", id: str = "") -> E:
        """The typed event for one SSE event given as its parts.

        Args:
            data: the event's data (JSON text, or e.g. ``[DONE]``).
            event: the SSE event type.
            id: the SSE last event ID.

        Raises:
            sse.PayloadError: the data cannot be decoded at all (JSON nested too deep);
                data that fits no message is an :class:`UnknownEvent`, not an error.
        """
        try:
            return self.classify(ServerSentEvent(event, data, id, None))
        except Exception as exc:
            raise PayloadError(event, data, _reason(exc)) from exc

    def decode(
        self, chunks: Iterable[bytes], *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    ) -> EventStream[E]:
        """Typed events from an iterable of bytes (e.g. httpx ``response.iter_bytes()``).

        Reads lazily, one chunk at a time; memory is bounded by the largest event.

        Args:
            chunks: the body, in chunks of any size.
            max_event_bytes: limit, in bytes, on one event (default 8 MiB).

        Returns:
            An :class:`EventStream`; iterating it raises ``sse.SSEError``
            subclasses on invalid UTF-8 or an event over ``max_event_bytes``, and
            ``TypeError`` at the first chunk that is a ``str``. A body with no blank
            line at all ends with a :class:`StreamTruncated` whose reason says its
            line ends may have been stripped (see :func:`truncated_reason`).

        Raises:
            TypeError: ``chunks`` is a whole body (``bytes``, ``bytearray``,
                ``memoryview`` or ``str``), not an iterable of chunks; the message
                says what to pass (``decode([body])``).
        """
        return EventStream(
            chunks,
            self.classify,
            max_event_bytes,
            self.classify_values,
            self.classify_named,
            self.framer,
        )

    def adecode(
        self, chunks: AsyncIterable[bytes], *, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES
    ) -> AsyncEventStream[E]:
        """Typed events from an async iterable of bytes (httpx ``aiter_bytes()``);
        see :meth:`decode`.

        Raises:
            TypeError: ``chunks`` is a whole body (``bytes``, ``bytearray``,
                ``memoryview``, ``str``: decode it as ``decode([body])``) or not an async
                iterable (a list: pass it to :meth:`decode`).
        """
        return AsyncEventStream(
            chunks,
            self.classify,
            max_event_bytes,
            self.classify_values,
            self.classify_named,
            self.framer,
        )

    def accumulate(self, events: Iterable[E], *, full_text: bool = False) -> StreamResult:
        """Assemble ``events`` (typically ``decode(...)``) into a :class:`StreamResult`.

        Args:
            events: typed events of one stream.
            full_text: cumulative mode, see :class:`Accumulator`.

        Returns:
            The :class:`StreamResult`; a stream that ended inside an event
            (a :class:`StreamTruncated` among ``events``, or a decoded stream
            found incomplete) gets one ``truncated`` entry in ``errors``.

        Raises:
            sse.SSEError: from iterating a decoded stream (invalid UTF-8, an
                event over the size limit).
        """
        acc = Accumulator(full_text)
        acc.family = self.family
        apply = self.apply
        if isinstance(events, EventStream) and not events._started:
            # Not iterated yet: classify and apply each chunk's events directly.
            events._started = True
            self._apply_batches(
                acc,
                events._batches,
                events._classify,
                events._classify_values,
                0,
                events._classify_named,
            )
        else:
            for count, event in enumerate(events, 1):
                apply(acc, event)
                if not count % COMPACT_PARTS:
                    acc.compact()
        if isinstance(events, EventStream) and events.incomplete:
            acc.truncated(events.state)
        return acc.result()

    def _apply_batches(
        self,
        acc: Accumulator,
        batches: Iterable[list[ServerSentEvent | RawEvents | NamedEvents]],
        classify: Callable[[ServerSentEvent], E],
        classify_values: Callable[[list[bytes]], Sequence[E] | None] | None,
        applied: int = 0,
        classify_named: NamedClassifier[E] | None = None,
    ) -> int:
        """Classify and apply the SSE events of each chunk; a run that
        ``classify_values`` takes is applied by one ``apply_values`` call, a run
        of named events that ``classify_named`` takes one call per stretch of
        consecutive events of one class (its ``runs`` function; else each event
        through its handler, or ``apply``, without a Python-level loop).

        The accumulator is compacted every :data:`COMPACT_PARTS` events;
        ``applied`` events have come since the last compaction, and the count
        after these batches is returned (to pass to the next call).
        """
        handlers, runs = self.handlers, self.runs
        # (A stream decoded by another channel gets this channel's apply only.)
        apply_values = self.apply_values if classify_values is self.classify_values else None
        for item in chain.from_iterable(batches):
            if applied >= COMPACT_PARTS:
                acc.compact()
                applied = 0
            if isinstance(item, NamedEvents):
                applied += len(item.values)
                named = (
                    None
                    if classify_named is None
                    else classify_named(item.event_lines, item.values)
                )
                if named is not None:
                    if len(named) == 1:  # a read of one event, as servers flushing each token send
                        handlers.get(type(event := named[0]), self.apply)(acc, event)
                        continue
                    for cls, stretch in groupby(named, type):
                        apply_run = runs.get(cls)
                        if apply_run is not None:
                            apply_run(acc, stretch)
                        else:  # handlers.get(cls, self.apply)(acc, event) for each, in C
                            deque(map(handlers.get(cls, self.apply), repeat(acc), stretch), 0)
                    continue
                events: Iterable[E] = map(classify, item.events())  # one at a time, as below
            elif isinstance(item, RawEvents):
                values = item.values
                applied += len(values)
                run = None if classify_values is None else classify_values(values)
                if not run:
                    events = map(classify, item.events())
                elif len(run) == len(values):
                    if apply_values is not None:
                        apply_values(acc, run)
                        continue
                    events = run
                else:
                    # The run ends at a terminator: it and the events after it alone.
                    rest = map(classify, item.events(len(run)))
                    if apply_values is None:
                        events = chain(run, rest)
                    else:
                        apply_values(acc, run)
                        events = rest
            else:
                applied += 1
                events = (classify(item),)
            for event in events:
                handler = handlers.get(type(event))
                if handler is None or getattr(event, "off_spec", None) is not None:
                    self.apply(acc, event)  # subclasses, and events decoded leniently
                else:
                    handler(acc, event)
        return applied

    async def aaccumulate(
        self, events: AsyncIterable[E], *, full_text: bool = False
    ) -> StreamResult:
        """Assemble async ``events`` (typically ``adecode(...)``); see :meth:`accumulate`."""
        acc = Accumulator(full_text)
        acc.family = self.family
        apply = self.apply
        if isinstance(events, AsyncEventStream) and not events._started:
            events._started = True
            applied = 0
            async for batch in events._batches:
                applied = self._apply_batches(
                    acc,
                    (batch,),
                    events._classify,
                    events._classify_values,
                    applied,
                    events._classify_named,
                )
        else:
            count = 0
            async for event in events:
                apply(acc, event)
                count += 1
                if not count % COMPACT_PARTS:
                    acc.compact()
        if isinstance(events, AsyncEventStream) and events.incomplete:
            acc.truncated(events.state)
        return acc.result()


# --- Encoding: typed events back to SSE bytes ------------------------------------------

_POINTER_ESCAPES = (("~1", "/"), ("~0", "~"))


class Encoding:
    """What :meth:`Channel.encode` needs to know of a channel beyond its classes: generated
    from the spec into ``channels.py`` (``Channel(..., encoding=Encoding(...))``).

    Args:
        events: event class -> the SSE event type it travels under (the spec's
            ``Message.event``); a class not listed travels as ``message`` (no ``event:`` line).
        keep: class -> wire names of the members the spec requires but the class gives a
            default (a required, nullable ``finish_reason``): written even when at their
            default, which ``omit_defaults`` leaves out.
        literals: class -> the literal data its events stand for (``[DONE]``).
        terminator: the event ending a stream (``models.StreamDone()``), or None when the
            spec declares none.
        examples: the channel's documented (and synthesized) examples, ``(SSE event type,
            data)`` in spec order, as the package's conformance tests replay them.
        streams: the channel's harvested example streams (``examples/<name>.sse``) by name,
            each its events as ``(SSE event type, data)``.
        library: the library of the message classes (``MSGSPEC``; ``PYDANTIC`` of
            ``pydantic_support`` for the pydantic flavour).
    """

    def __init__(
        self,
        events: dict[type, str] | None = None,
        keep: dict[type, tuple[str, ...]] | None = None,
        literals: dict[type, str] | None = None,
        terminator: Any = None,
        examples: Sequence[tuple[str, str]] = (),
        streams: dict[str, Sequence[tuple[str, str]]] | None = None,
        library: ModelLibrary | None = None,
    ) -> None:
        self.events: dict[type, str] = events or {}
        self.keep: dict[type, tuple[str, ...]] = keep or {}
        self.literals: dict[type, str] = literals or {}
        self.terminator = terminator
        self.examples = tuple(examples)
        self.streams: dict[str, tuple[tuple[str, str], ...]] = {
            name: tuple(events) for name, events in (streams or {}).items()
        }
        self.library = library or MSGSPEC
        self._plans: dict[Any, _Plan | None] = {}
        self._heads: dict[str, bytes] = {}

    def head(self, event: str) -> bytes:
        """The lines before ``data:`` of an event of type ``event``: ``event: <type>`` (none
        for ``message``), built once per type.

        Raises:
            ValueError: ``event`` holds CR, LF or NUL.
        """
        head = self._heads.get(event)
        if head is None:
            head = self._heads[event] = sse_frame("", event)[: -len(b"data: \n\n")]
        return head

    def data(self, event: Any) -> str:
        """:meth:`json` as text."""
        return self.json(event).decode("utf-8")

    def json(self, event: Any) -> bytes:
        """The JSON text (UTF-8) of a typed message: every member whose value is not its default,
        every member in :attr:`keep` (``null`` included), the members the server sent
        beside the typed ones of a kept usage object (:func:`usage_as_sent`), and each
        member of a leniently decoded event's ``off_spec`` at its JSON pointer, as sent.

        A message none of whose classes has such members (nested ones included) is
        encoded by msgspec directly, without a Python-level walk."""
        plan = self._plan(type(event))
        off = getattr(event, "off_spec", None)
        if off is None and self.library is MSGSPEC and (plan is None or plan.idle(event)):
            return msgspec.json.encode(event)
        out = self.library.plain(event)
        if isinstance(out, dict):
            out.pop(OFF_SPEC_WIRE, None)
            if plan is not None:
                self._complete(event, out, plan)
            if isinstance(off, dict):
                for pointer, value in off.items():
                    _set_pointer(out, pointer, value)
        return msgspec.json.encode(out)

    def _plan(self, cls: Any) -> _Plan | None:
        """What :meth:`_complete` visits of an instance of ``cls``: its kept members and
        those that may hold such a class, and the wire names of its members when it may
        carry a usage object as sent; None when nothing (``cls`` no message class). Built
        once per class (a class met again while its plan is built counts as nothing)."""
        if cls in self._plans:
            return self._plans[cls]
        self._plans[cls] = None
        if not self.library.is_class(cls):
            return None
        keep = self.keep.get(cls, ())
        fields = self.library.fields(cls)
        rows = []
        for attr, wire, tp, _required in fields:
            nested = any(self._plan(c) is not None for c in self._classes(tp))
            if wire in keep or nested:
                rows.append((attr, wire, wire in keep))
        wires = frozenset(w for _a, w, _t, _r in fields) if self.library.carries_sent(cls) else None
        plan = _Plan(tuple(rows), wires) if rows or wires is not None else None
        self._plans[cls] = plan
        return plan

    def _classes(self, tp: Any) -> Iterator[Any]:
        """The message classes a type annotation names (``list[Choice] | None`` -> Choice)."""
        if self.library.is_class(tp):
            yield tp
        for arg in get_args(tp):
            yield from self._classes(arg)

    def _complete(self, obj: Any, out: dict[str, Any], plan: _Plan) -> None:
        for attr, wire, kept in plan.rows:
            value = getattr(obj, attr, None)
            if wire not in out:
                if kept:
                    out[wire] = None if value is None else self.library.plain(value)
                continue
            sub = out[wire]
            if isinstance(sub, dict):
                inner = self._plan(type(value))
                if inner is not None:
                    self._complete(value, sub, inner)
            elif isinstance(sub, list) and isinstance(value, (list, tuple)):
                for item, item_out in zip(value, sub, strict=False):
                    inner = self._plan(type(item))
                    if inner is not None and isinstance(item_out, dict):
                        self._complete(item, item_out, inner)
        if plan.wires is not None:
            sent = usage_as_sent(obj)
            if sent is not None:
                for key, value in sent.items():
                    if key not in plan.wires:
                        out[key] = value


class _Plan(NamedTuple):
    """What :meth:`Encoding._complete` does for one class."""

    #: ``(attribute, wire name, kept)`` of each member that is kept or may hold a class to visit.
    rows: tuple[tuple[str, str, bool], ...]
    #: the wire names of the class's members, when it may carry a usage object as sent; else None.
    wires: frozenset[str] | None

    def idle(self, obj: Any) -> bool:
        """True when visiting ``obj`` would change nothing: no kept member, nothing sent
        kept on it, and every member to visit is None (a chunk without ``usage``)."""
        return self.wires is None and all(
            not kept and getattr(obj, attr, None) is None for attr, _wire, kept in self.rows
        )


def _set_pointer(out: Any, pointer: str, value: Any) -> None:
    """Set the member at JSON pointer ``pointer`` (RFC 6901) of ``out`` to ``value``,
    creating the objects on the way; a pointer through a scalar or past a list's end is
    skipped (what lenient decoding recorded always leads somewhere)."""
    parts = pointer.split("/")[1:]
    if not parts:
        return
    for index, part in enumerate(parts):
        for escaped, plain_char in _POINTER_ESCAPES:
            part = part.replace(escaped, plain_char)
        last = index == len(parts) - 1
        if isinstance(out, list):
            if not part.isdigit() or int(part) >= len(out):
                return
            if last:
                out[int(part)] = value
                return
            out = out[int(part)]
        elif isinstance(out, dict):
            if last:
                out[part] = value
                return
            out = out.setdefault(part, {})
        else:
            return


_UNSAFE = re.compile("[\r\n\0]")


def sse_frame(data: str, event: str = "message", id: str = "") -> bytes:
    """One SSE event as bytes: an ``event:`` line unless the type is ``message``, an ``id:``
    line when ``id`` is set, one ``data:`` line per line of ``data`` (split at LF, as the WHATWG
    "event stream interpretation" joins ``data:`` lines with LF), then a blank line; decoding
    it gives back ``event``, ``data`` and ``id``.

    Raises:
        ValueError: ``event`` or ``id`` holds CR, LF or NUL, or ``data`` holds CR, which no
            SSE field can carry (the decoder would end the line there).
    """
    if _UNSAFE.search(event) or _UNSAFE.search(id):
        raise ValueError(f"an SSE event type or id cannot hold CR, LF or NUL: {event!r}, {id!r}")
    if "\r" in data:
        raise ValueError("SSE data cannot hold CR (it ends a line); only LF splits data lines")
    head = ("" if event == "message" else f"event: {event}\n") + (f"id: {id}\n" if id else "")
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"{head}{lines}\n".encode()


_WORDS = re.compile(r"\s*\S+|\s+$")


def split_deltas(text: str) -> list[str]:
    """``text`` cut at word starts, each piece keeping the spaces before its word
    (``"Hello big world"`` -> ``["Hello", " big", " world"]``), as LLM servers stream
    tokens; ``"".join`` of the pieces is ``text``. An empty text gives ``[]``."""
    return _WORDS.findall(text)


class Synthesis:
    """Streams built from a channel's example payloads (plain JSON objects, in spec order),
    for :meth:`Channel.example_stream`: each event is written as the examples write theirs,
    with the text changed, and decoded by the channel, so it is typed and decodes again alike.

    Args:
        examples: ``(SSE event type, payload)`` of each JSON example object.
        parse: the channel's :meth:`Channel.parse`.
        model: replaces the examples' ``model`` member (top level or ``message``/``response``).
    """

    def __init__(
        self,
        examples: Sequence[tuple[str, dict[str, Any]]],
        parse: Callable[[str, str], Any],
        model: str | None = None,
    ) -> None:
        self.examples = examples
        self.parse = parse
        self.model = model

    def _example(self, what: str, test: Callable[[dict[str, Any]], bool]) -> tuple[str, Any]:
        for event, payload in self.examples:
            if test(payload):
                return event, msgspec.json.decode(msgspec.json.encode(payload))  # a deep copy
        raise ValueError(f"the channel's examples hold no {what} to build the stream from")

    def _tagged(self, tag: str, inner: str = "", inner_tag: str = "") -> tuple[str, Any]:
        def test(payload: dict[str, Any]) -> bool:
            if payload.get("type") != tag:
                return False
            return not inner or (
                isinstance(payload.get(inner), dict) and payload[inner].get("type") == inner_tag
            )

        return self._example(
            f"{tag!r} event" + (f" with a {inner_tag!r} {inner}" if inner else ""), test
        )

    def _typed(self, frames: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        events = []
        for event, payload in frames:
            if self.model is not None:
                for holder in (payload, payload.get("message"), payload.get("response")):
                    if isinstance(holder, dict) and "model" in holder:
                        holder["model"] = self.model
            typed = self.parse(msgspec.json.encode(payload).decode("utf-8"), event)
            if isinstance(typed, UnknownEvent):
                raise ValueError(f"a synthesized event does not decode: {typed.reason}")
            events.append(typed)
        return events

    def chat(self, text: str, finish_reason: str) -> list[Any]:
        """Chat chunks: the deltas (the first with ``role``; a member every example delta
        has is on each, ``null`` unless it is ``role`` or ``content``), then a chunk with
        ``finish_reason`` and the examples' ``usage`` (when one carries it)."""

        def chunky(payload: dict[str, Any]) -> bool:
            choices = payload.get("choices")
            if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
                return False
            first: dict[str, Any] = choices[0]
            return isinstance(first.get("delta"), dict) or isinstance(first.get("text"), str)

        event, template = self._example("chunk with choices", chunky)
        choice = template.pop("choices")[0]
        template.pop("usage", None)
        legacy = "delta" not in choice  # the completions shape: choices[].text
        usage = next(
            (p["usage"] for _e, p in self.examples if isinstance(p.get("usage"), dict)), None
        )
        pieces = split_deltas(text) or [""]
        deltas: list[dict[str, Any]] = []
        for _event, payload in self.examples:
            listed = payload.get("choices")
            for item in listed if isinstance(listed, list) else ():
                if isinstance(item, dict) and isinstance(item.get("delta"), dict):
                    deltas.append(item["delta"])
        # Members every example delta has (some servers repeat ``role`` and send ``content``
        # on every delta, the spec requiring them) are on every synthesized delta too.
        every = set.intersection(*(set(d) for d in deltas)) if deltas else set()
        role = next((d["role"] for d in deltas if isinstance(d.get("role"), str)), "assistant")

        def chunk(piece: str | None, first: bool, finish: str | None) -> dict[str, Any]:
            part = dict(choice, index=0, finish_reason=finish)
            if legacy:
                part["text"] = piece or ""
            else:
                delta: dict[str, Any] = {name: None for name in sorted(every)}
                if first or "role" in every:
                    delta["role"] = role
                if piece is not None or "content" in every:
                    delta["content"] = piece or ""
                part["delta"] = delta
            return dict(template, choices=[part])

        frames = [(event, chunk(piece, i == 0, None)) for i, piece in enumerate(pieces)]
        last = chunk(None, False, finish_reason)
        if usage is not None:
            last["usage"] = _counted(usage, "prompt_tokens", "completion_tokens", len(pieces))
        frames.append((event, last))
        return self._typed(frames)

    def messages(self, text: str, finish_reason: str) -> list[Any]:
        """Anthropic Messages events around one text block (see :meth:`Channel.example_stream`)."""
        pieces = split_deltas(text)
        start = self._tagged("message_start")
        block = self._tagged("content_block_start", "content_block", "text")
        delta = self._tagged("content_block_delta", "delta", "text_delta")
        stop = self._tagged("content_block_stop")
        end = self._tagged("message_delta")
        done = self._tagged("message_stop")
        message = start[1].get("message")
        if isinstance(message, dict):
            message["content"] = []
            message["stop_reason"] = None
        block[1]["index"] = stop[1]["index"] = 0
        block[1]["content_block"]["text"] = ""
        frames = [start, block]
        for piece in pieces:
            event, payload = delta[0], dict(delta[1], index=0)
            payload["delta"] = dict(payload["delta"], text=piece)
            frames.append((event, payload))
        if isinstance(end[1].get("delta"), dict):
            end[1]["delta"]["stop_reason"] = (
                "end_turn" if finish_reason == "stop" else finish_reason
            )
        if isinstance(end[1].get("usage"), dict) and "output_tokens" in end[1]["usage"]:
            end[1]["usage"]["output_tokens"] = len(pieces)
        return self._typed([*frames, stop, end, done])

    def responses(self, text: str) -> list[Any]:
        """OpenAI Responses events around one message item (see :meth:`Channel.example_stream`)."""
        pieces = split_deltas(text)
        created = self._tagged("response.created")
        added = self._tagged("response.output_item.added", "item", "message")
        delta = self._tagged("response.output_text.delta")
        text_done = self._tagged("response.output_text.done")
        item_done = self._tagged("response.output_item.done", "item", "message")
        completed = self._tagged("response.completed")
        item_id = added[1]["item"].get("id")
        where = {"item_id": item_id, "output_index": 0, "content_index": 0}
        added[1]["output_index"] = item_done[1]["output_index"] = 0
        frames = [created, added]
        for piece in pieces:
            frames.append((delta[0], dict(delta[1], delta=piece, **where)))
        frames.append((text_done[0], dict(text_done[1], text=text, **where)))
        item = item_done[1]["item"]
        parts = [p for p in item.get("content") or [] if isinstance(p, dict)]
        part = dict(parts[0] if parts else {"type": "output_text", "annotations": []}, text=text)
        item.update(id=item_id, content=[part])
        frames.append(item_done)
        response = completed[1].get("response")
        if isinstance(response, dict):
            response["output"] = [item]
            usage = response.get("usage")
            if isinstance(usage, dict):
                response["usage"] = _counted(usage, "input_tokens", "output_tokens", len(pieces))
        frames.append(completed)
        for number, (_event, payload) in enumerate(frames):
            if "sequence_number" in payload:
                payload["sequence_number"] = number
        return self._typed(frames)


def _counted(usage: dict[str, Any], prompt: str, completion: str, count: int) -> dict[str, Any]:
    """``usage`` with ``completion`` set to ``count`` and ``total_tokens`` to the sum, where
    the usage object has them as numbers."""
    usage = dict(usage)
    if isinstance(usage.get(completion), int):
        usage[completion] = count
        if isinstance(usage.get(prompt), int) and isinstance(usage.get("total_tokens"), int):
            usage["total_tokens"] = usage[prompt] + count
    return usage


def partial_json(text: str) -> Any:
    """The best-effort value of JSON text that may be cut short (a tool input stopped by
    ``max_tokens``): the text itself when it is valid JSON, else its longest prefix made
    whole: an open string closed (a dangling escape left out), open arrays and objects
    closed, and a dangling key, a trailing comma or a partial literal (``tru``, ``-``,
    ``1.``) left out. None when no prefix holds a value, or the text is not JSON (text
    after a whole value, nesting deeper than msgspec decodes). Never raises.

    The generated package depends only on msgspec and the standard library, so this
    small completer stands in for a partial-JSON parser (``jiter``'s
    ``partial_mode="trailing-strings"`` gives the same values; it would be a new
    runtime dependency).
    """
    try:
        return msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        pass
    completed = _complete_json(text)
    if completed is None:
        return None
    try:
        return msgspec.json.decode(completed)
    except (msgspec.DecodeError, RecursionError):
        return None


#: A whole JSON number or literal (what may end a text cut short and still be a value).
_WHOLE_SCALAR = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null")
#: Backslashes (an odd number: the last one a dangling escape) ending an open string.
_DANGLING_ESCAPE = re.compile(r"(\\+)(?:u[0-9a-fA-F]{0,3})?$")


class _Open:
    """An open array or object while a cut JSON text is read (a linked stack, so that a
    cut point keeps the brackets open there in constant time)."""

    __slots__ = ("bracket", "state", "outer")

    def __init__(self, bracket: str, outer: _Open | None) -> None:
        self.bracket = bracket
        self.state = "key" if bracket == "{" else "value"  # key, colon, value, comma
        self.outer = outer

    def closers(self) -> str:
        found: list[str] = []
        node: _Open | None = self
        while node is not None:
            found.append("}" if node.bracket == "{" else "]")
            node = node.outer
        return "".join(found)


def _complete_json(text: str) -> str | None:
    """``text`` cut at its last point where a value ended (or a container opened),
    with the containers open there closed; an open string value at the end closed.
    None when there is no such point, or text follows a whole value."""
    top: _Open | None = None
    cut: tuple[int, _Open | None] | None = None  # (length kept, the containers open there)
    whole = False  # a value at the top level has ended
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char in " \t\r\n":
            i += 1
            continue
        if whole:
            return None
        if char in "{[":
            top = _Open(char, top)
            i += 1
            cut = (i, top)
            continue
        if char in "}]":
            if top is None:
                return None
            top = top.outer
            i += 1
        elif char == ",":
            if top is not None:
                top.state = "key" if top.bracket == "{" else "value"
            i += 1
            continue
        elif char == ":":
            if top is not None:
                top.state = "value"
            i += 1
            continue
        elif char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            is_key = top is not None and top.bracket == "{" and top.state == "key"
            if j >= n:  # an open string: a value is closed, a key left out
                if is_key:
                    break
                body = text[i + 1 :]
                escape = _DANGLING_ESCAPE.search(body)
                if escape is not None and len(escape.group(1)) % 2:
                    body = body[: escape.end(1) - 1]
                return text[:i] + '"' + body + '"' + (top.closers() if top is not None else "")
            i = j + 1
            if is_key and top is not None:
                top.state = "colon"
                continue
        else:
            j = i
            while j < n and text[j] not in ",]} \t\r\n":
                j += 1
            if j >= n and not _WHOLE_SCALAR.fullmatch(text[i:j]):
                break  # a partial literal or number at the end
            i = j
        # a value ended at i
        if top is None:
            whole = True
        else:
            top.state = "comma"
        cut = (i, top)
    if cut is None:
        return None
    return text[: cut[0]] + (cut[1].closers() if cut[1] is not None else "")


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
