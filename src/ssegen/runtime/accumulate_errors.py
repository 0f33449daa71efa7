"""Stream errors: what the accumulator records of what the spec does not say.

:class:`ErrorRecording`, the base of :class:`~.accumulate.Accumulator`, holds its methods that
record errors (an error message, the ``error`` member of an ordinary chunk, an error the spec
does not list), unknown events, members and events off the spec (assembled all the same where
they name a block), vendor events and truncation: each entry of
:attr:`~.accumulate_results.StreamResult.errors` but ``snapshot_mismatch`` is written here.
Nothing is dropped: whatever cannot be assembled is recorded.

This module is ``src/ssegen/runtime/accumulate_errors.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Self

import msgspec

from .accumulate_blocks import Blocks, BlockState, snapshot_block
from .accumulate_parts import declares
from .accumulate_results import BLOCK_FAMILIES, Family
from .events import StreamStalled, StreamTruncated, UnknownEvent, VendorEvent, truncated_reason
from .framing import StreamState
from .json_values import is_array, is_object

if TYPE_CHECKING:
    from .accumulate_choices import ChoiceState

#: The kinds of error that end a stream early (one per stream, always last).
_ENDS = ("truncated", "stalled")


class ErrorRecording:
    """The accumulator's recording of errors, unknown, off-spec and vendor events and
    truncation (see :class:`~.accumulate.Accumulator`, which sets the attributes below).

    Attributes:
        errors: the entries of :attr:`~.accumulate_results.StreamResult.errors`, in stream
            order.
        vendor_events: provider extension events as plain data, in stream order.
        blocks: the output blocks by index (an off-spec block or event is assembled into one).
        family: how the stream's events assemble (:class:`~.accumulate_results.Family`).
        reported: off-spec block, delta and event types, and the pointers of missing required
            members, reported so far (each once per stream).
        undeclared_terminator: a literal ``[DONE]`` the spec does not declare was reported.
    """

    def __init__(self) -> None:
        self.errors: list[dict[str, Any]] = []
        self.vendor_events: list[dict[str, Any]] = []
        self.blocks: dict[int, BlockState] = Blocks()
        self.family = Family.CHAT
        self.reported: set[str] = set()
        self.undeclared_terminator = False

    if TYPE_CHECKING:

        def choice(self, index: int) -> ChoiceState: ...

        def done(self, event: Any = None) -> None: ...

    def error_in_chunk(self, error: Any) -> None:
        """Record the top-level ``error`` member of an ordinary data chunk, whatever the
        spec says (OpenRouter ends a stream cut by a limit with a chunk holding
        ``"error": {"code": 400, "message": "Token limit reached"}`` before
        ``[DONE]``; the openai SDK raises ``APIError`` on it) as ``{"kind":
        "error_in_chunk", "message": str | None, "code": Any, "data": Any}``; the
        chunk's other members are assembled as usual."""
        data = msgspec.to_builtins(error)
        message = data.get("message") if is_object(data) else data
        self.errors.append(
            {
                "kind": "error_in_chunk",
                "message": message if isinstance(message, str) else None,
                "code": data.get("code") if is_object(data) else None,
                "data": data,
            }
        )

    def lenient(self, event: Any, handler: Callable[[Self, Any], None]) -> None:
        """Feed an event decoded leniently (:func:`lenient_decode`): record each member
        that does not fit the spec as ``{"kind": "member_off_spec", "pointer": str,
        "got": Any}`` (``got`` None for a required member that is missing: reported once
        per stream and pointer, as the chunks of a stream lack the same members), assemble what
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
            if not self.unlisted(event, pointer, value):
                self.off_spec_member(event, pointer, value)

    def off_spec_member(self, event: Any, pointer: str, value: Any) -> None:
        """Record (and where it can, assemble) one member of a leniently decoded event that
        does not fit the spec (see :meth:`lenient`)."""
        if self.family in BLOCK_FAMILIES and self.off_spec_block(event, pointer, value):
            kind = value.get("type") if is_object(value) else None
            if isinstance(kind, str):
                if kind not in self.reported:
                    self.reported.add(kind)
                    self.errors.append(
                        {"kind": "member_off_spec", "pointer": pointer, "got": value, "type": kind}
                    )
                return
        if value is None:  # a required member missing: reported once per stream
            if pointer in self.reported:
                return
            self.reported.add(pointer)
        self.errors.append({"kind": "member_off_spec", "pointer": pointer, "got": value})
        parts = pointer.split("/")
        if len(parts) == 5 and parts[1] == "choices" and parts[3:] == ["delta", "content"]:
            if parts[2].isdigit() and is_array(value):
                self.choice(int(parts[2])).add_content(value)

    def unlisted(self, event: Any, pointer: str, value: Any) -> bool:
        """Assemble a member of a choice's delta (``/choices/<i>/delta/<name>``) or of a
        block's delta (``/delta/<name>``, of block ``index``) that the spec does not list
        (True then): a string is appended to the text of its name, any other value kept as
        sent (:meth:`ChoiceState.add_unlisted`, :meth:`BlockState.add_unlisted`). Reported
        once per stream and member, as information (nothing is lost):
        ``{"kind": "member_unlisted", "pointer": str, "member": str}``."""
        parts = pointer.split("/")
        name = _unescaped(parts[-1])
        if len(parts) == 5 and parts[1] == "choices" and parts[3] == "delta":
            choices = getattr(event, "choices", None)
            at = int(parts[2]) if parts[2].isdigit() else -1
            choice = choices[at] if is_array(choices) and 0 <= at < len(choices) else None
            index = getattr(choice, "index", None)
            if not _unlisted_in(getattr(choice, "delta", None), name) or not isinstance(index, int):
                return False
            self.choice(index).add_unlisted(name, value)
        elif len(parts) == 3 and parts[1] == "delta" and self.family in BLOCK_FAMILIES:
            index = getattr(event, "index", None)
            if not _unlisted_in(getattr(event, "delta", None), name) or not isinstance(index, int):
                return False
            self.blocks[index].add_unlisted(name, value)
        else:
            return False
        if "unlisted " + name not in self.reported:
            self.reported.add("unlisted " + name)
            self.errors.append({"kind": "member_unlisted", "pointer": pointer, "member": name})
        return True

    def off_spec_block(self, event: Any, pointer: str, value: Any) -> bool:
        """Assemble a member of a leniently decoded event that the spec does not admit
        when it is a block family's object (True then): Messages ``/content_block``
        (opens block ``index``), ``/delta`` (a delta of block ``index``); Responses
        ``/item`` (opens, or when the item is open finishes, item ``output_index``) and
        ``/response/output/<i>`` (a finished item, of the block of its id:
        :func:`~.accumulate_blocks.snapshot_block`)."""
        if not is_object(value):
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
            snapshot_block(self.blocks, int(parts[3]), value).snapshot(value)
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
            if is_object(data):
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
        elif is_object(delta):
            block.add_delta(delta)
        elif is_object(data.get("content_block")):
            block.open(data["content_block"])
        elif is_object(data.get("item")):
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
        once per stream.

        A :class:`StreamStalled` (the streaming client closed a silent connection) is
        recorded as ``{"kind": "stalled", ..., "idle_timeout": float}``, with the same
        members."""
        if any(e["kind"] in _ENDS for e in self.errors):
            return
        if isinstance(event, StreamState):
            message = event.stopped or truncated_reason(
                event.bytes_consumed, event.bytes_discarded, event.body_head
            )
        else:  # a StreamTruncated, of this runtime or of a package's copy: the reason it carries
            message = event.reason
        entry: dict[str, Any] = {
            "kind": "truncated",
            "message": message,
            "bytes": event.bytes_consumed,
            "bytes_discarded": event.bytes_discarded,
        }
        if isinstance(event, StreamStalled):
            entry["kind"] = "stalled"
            entry["idle_timeout"] = event.idle_timeout
        self.errors.append(entry)


def _error_data(event: UnknownEvent) -> tuple[bool, Any]:
    """Whether an unknown event is an error (see :meth:`ErrorRecording.unknown`), and its
    JSON (its text when it is not JSON)."""
    if event.event != "error" and '"error"' not in event.data:
        return False, None
    try:
        data = msgspec.json.decode(event.data)
    except msgspec.DecodeError:
        return event.event == "error", event.data
    return event.event == "error" or (is_object(data) and "error" in data), data


def _unescaped(token: str) -> str:
    """A reference token of a JSON pointer as the member name it stands for (RFC 6901)."""
    return token.replace("~1", "/").replace("~0", "~")


def _unlisted_in(delta: Any, name: str) -> bool:
    """True when ``delta`` is a typed delta whose class does not declare member ``name``."""
    return delta is not None and not is_object(delta) and not declares(delta, name)
