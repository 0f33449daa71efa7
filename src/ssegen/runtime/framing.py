"""What every framing of a streamed body shares: its items, errors, decoder protocol, stream
state and read driver, and the :class:`Framing` object a channel holds.

A framing cuts a body into events and writes events back: :class:`~.sse.SSEFraming`
(``text/event-stream``, WHATWG HTML 9.2.6 "Interpreting an event stream") and
:class:`~.ndjson.NDJSONFraming` (newline-delimited JSON, https://github.com/ndjson/ndjson-spec).
Each one's decoder (a :class:`Framer`) gives a read's events as the items defined here: single
:class:`ServerSentEvent` values and runs (:class:`RawEvents`, :class:`NamedEvents`) of events
whose data is still the UTF-8 bytes read, so that a channel classifies and accumulates either
framing alike. :func:`read_items` (and :func:`aread_items`) drive a decoder over an iterable of
reads, filling a :class:`StreamState`.

Every failure caused by the bytes of a stream, whatever its framing, is an :class:`SSEError`, so
that a consumer catching it sees no other exception from the network's bytes::

    SSEError                  the stream cannot be decoded (base class)
    +-- InvalidUTF8Error      a line is not UTF-8
    +-- EventTooLargeError    an event grew beyond ``max_event_bytes``
    +-- InvalidFieldError     a field value cannot be applied (a ``retry`` of 5000 digits)
    +-- PayloadError          an event's data cannot be turned into a typed event
                              (JSON nested too deep, a number too large: raised by
                              ``stream.py``'s typed decoding)

``sse.py`` re-exports every name here (``sse.SSEError``, ``sse.StreamState``...), where they
were defined before the framings were split (issue 32).

This module is ``src/ssegen/runtime/framing.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from itertools import repeat
from typing import Any, NamedTuple, Protocol, TypeVar

from .joined_reads import ajoined_reads, joined_reads

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "EventTooLargeError",
    "Framer",
    "Framing",
    "InvalidFieldError",
    "InvalidUTF8Error",
    "NamedEvents",
    "PayloadError",
    "RawEvents",
    "SSEError",
    "ServerSentEvent",
    "StreamState",
    "aread_items",
    "check_chunks",
    "expand",
    "new_tuple",
    "read_items",
]

_TupleT = TypeVar("_TupleT", bound="tuple[Any, ...]")


class _NewTuple(Protocol):
    def __call__(self, cls: type[_TupleT], iterable: Iterable[Any], /) -> _TupleT: ...


new_tuple: _NewTuple = tuple[Any, ...].__new__
"""``tuple.__new__``, typed: builds a NamedTuple of ``cls`` from its field values without its
Python-level ``__new__`` (a call fewer per event)."""
DEFAULT_MAX_EVENT_BYTES: int = 8 * 1024 * 1024
"""Default limit, in bytes, on one event's pending bytes (see
:class:`EventTooLargeError`): 8 MiB."""


class ServerSentEvent(NamedTuple):
    """One dispatched event (WHATWG HTML 9.2.6, "dispatch the event").

    Attributes:
        event: The event type: the value of the last ``event:`` field of the
            block, or ``"message"`` when there was none or it was empty.
        data: The ``data:`` field values of the block joined with ``"\\n"``
            (the data buffer with its final trailing LF removed). May be
            ``""`` (a block with an empty ``data`` field).
        id: The last event ID buffer at dispatch time: the value of the most
            recent ``id`` field seen in the stream so far, in this block or an
            earlier one (``""`` if none was ever set). It persists across
            events.
        retry: The reconnection time in milliseconds from a valid ``retry``
            field in this event's block, else ``None``.
    """

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None


class SSEError(Exception):
    """Base class of the errors raised by this module.

    Attributes:
        events: The events dispatched by the same :meth:`~.sse.SSEDecoder.feed` call
            before the error was detected, in stream order; they are not
            returned any other way. :func:`iter_events` and
            :func:`aiter_events` yield them before raising and then empty
            this list.
    """

    def __init__(self, message: str, events: list[ServerSentEvent] | None = None) -> None:
        super().__init__(message)
        self.events: list[ServerSentEvent] = [] if events is None else events


class InvalidUTF8Error(SSEError):
    """The stream is not valid UTF-8 (WHATWG HTML 9.2.6: event streams are
    always UTF-8).

    Raised by :meth:`~.sse.SSEDecoder.feed` (and ``ndjson.NDJSONDecoder.feed``) when a complete line does not decode
    with strict UTF-8. Validity is decided per complete line; bytes of a last
    unterminated line that is discarded at end of stream are not checked.

    Attributes:
        offset: Byte offset, counted from the first byte of the whole stream
            (a leading BOM included), of the first invalid byte.
        events: See :class:`SSEError`.
    """

    def __init__(
        self, offset: int, reason: str, events: list[ServerSentEvent] | None = None
    ) -> None:
        super().__init__(
            f"invalid UTF-8 in event stream at byte offset {offset}: {reason}",
            events,
        )
        self.offset = offset


class EventTooLargeError(SSEError):
    """An event grew beyond the decoder's ``max_event_bytes``.

    The event's pending bytes are the UTF-8 size of its data buffer (every
    ``data`` value plus one byte for its LF) plus the length of the line being
    read (without its line end, complete or not). This limit is not part of
    the WHATWG standard; it bounds the decoder's memory.

    Attributes:
        limit: The limit, in bytes.
        offset: Byte offset, counted from the first byte of the whole stream,
            of the start of the line that took the event over the limit.
        events: See :class:`SSEError`.
    """

    def __init__(
        self, limit: int, offset: int, events: list[ServerSentEvent] | None = None
    ) -> None:
        super().__init__(
            f"event larger than {limit} bytes (line starting at byte offset {offset})",
            events,
        )
        self.limit = limit
        self.offset = offset


class InvalidFieldError(SSEError):
    """A field's value cannot be applied: a ``retry`` value of all digits, but more of
    them than Python converts to an integer (``sys.get_int_max_str_digits()``, 4300 by
    default). Such a value is no reconnection time a server means; it is refused rather
    than ignored, as the standard has every all-digits value applied.

    Attributes:
        field: The field name (``retry``).
        events: See :class:`SSEError`.
    """

    def __init__(
        self, field: str, reason: str, events: list[ServerSentEvent] | None = None
    ) -> None:
        super().__init__(f"invalid {field} field: {reason}", events)
        self.field = field


class PayloadError(SSEError):
    """An event's data could not be turned into a typed event: JSON nested deeper than
    the interpreter's recursion limit lets a decoder follow, a number too large to
    convert, or any other failure of the typed decoding (the original exception is the
    ``__cause__``). Raised while iterating a channel's decoded events (``stream.py``),
    after the typed events before it.

    Attributes:
        event: The SSE event type of the event.
        data: The first 200 characters of its data.
        reason: What failed.
        events: Always empty (the typed events before it were yielded).
    """

    def __init__(self, event: str, data: str, reason: str) -> None:
        super().__init__(
            f"cannot decode the data of a {event!r} event ({reason}): {data[:80]!r}"
            + ("..." if len(data) > 80 else "")
        )
        self.event = event
        self.data = data[:200]
        self.reason = reason


class RawEvents(NamedTuple):
    """Consecutive events that are each a single ``data: `` line, as
    :meth:`~.sse.SSEDecoder.feed_raw` gives them: type ``message``, no ``retry``,
    the same last event ID, and their data still as the UTF-8 bytes read
    (checked valid), so that a consumer can parse them without building a
    ``str`` and a :class:`ServerSentEvent` for each.

    This is the shape of nearly every event of the providers' streams
    (specs/xerotier/streaming-api.md:10-11: ``data: {...}\\n\\n``).

    Attributes:
        values: The data of each event (the line after ``data: ``, without
            its line end), in stream order; never empty. A list, or for
            newline-delimited JSON a :class:`Lines` (the read's lines as one
            ``bytes``).
        id: The last event ID buffer they were dispatched with.
    """

    values: Sequence[bytes]
    id: str = ""

    def events(self, start: int = 0) -> list[ServerSentEvent]:
        """The events as :class:`ServerSentEvent` instances, in stream order
        (``ServerSentEvent("message", value.decode(), id, None)`` each), from
        the ``start``-th (0-based) on."""
        values = self.values[start:] if start else self.values
        fields = zip(repeat("message"), map(bytes.decode, values), repeat(self.id), repeat(None))
        return list(map(new_tuple, repeat(ServerSentEvent), fields))


class NamedEvents(NamedTuple):
    """Consecutive events that are each an ``event: `` line, a ``data: `` line
    and a blank line (Anthropic's and OpenAI Responses' framing), as
    :meth:`~.sse.SSEDecoder.feed_raw` gives them: no ``retry``, the same last event
    ID, their ``event`` lines and data still as the UTF-8 bytes read (checked
    valid).

    Attributes:
        event_lines: Each event's ``event`` line as read, without its line end:
            ``b"event: "`` + the event type (``b"event: "`` alone stands for type
            ``message``), in stream order; never empty as a list. Kept whole so
            that a consumer looks the line up as it is, without a copy per event.
        values: The data of each event (the line after ``data: ``), in the
            same order.
        id: The last event ID buffer they were dispatched with.
    """

    event_lines: list[bytes]
    values: list[bytes]
    id: str = ""

    def events(self, start: int = 0) -> list[ServerSentEvent]:
        """The events as :class:`ServerSentEvent` instances, in stream order
        (``ServerSentEvent(line[7:].decode() or "message", value.decode(), id, None)``
        each), from the ``start``-th (0-based) on."""
        lines = self.event_lines[start:] if start else self.event_lines
        values = self.values[start:] if start else self.values
        names = [line[7:].decode() or "message" for line in lines]  # WHATWG: empty type is message
        fields = zip(names, map(bytes.decode, values), repeat(self.id), repeat(None))
        return list(map(new_tuple, repeat(ServerSentEvent), fields))


#: The most pieces the pending bytes of a line are kept as before they are joined into one
#: ``bytearray`` (:func:`join_pending`): few enough that the ``bytes`` objects' headers stay
#: small beside a long line, enough that a short line in small reads is never copied early.
PENDING_PIECES = 32


def join_pending(pending: list[bytes | bytearray]) -> None:
    """Join the pending bytes of an unterminated line or event, kept as the pieces read, into
    one ``bytearray`` grown in place (amortized): called when they reach
    :data:`PENDING_PIECES`, so that a line arriving in tiny reads (2 bytes each) costs about its
    size, not a ``bytes`` object per read (~35 bytes of header each: 8 MB in 2-byte reads
    peaked at ~70x its size as a list of pieces)."""
    first = pending[0]
    buffer = first if type(first) is bytearray else bytearray(first)
    buffer += b"".join(pending[1:])
    pending[:] = [buffer]


def expand(events: Iterable[ServerSentEvent | RawEvents | NamedEvents]) -> list[ServerSentEvent]:
    """The events of a :meth:`~.sse.SSEDecoder.feed_raw` result, all as :class:`ServerSentEvent`.

    Args:
        events: :class:`ServerSentEvent`, :class:`RawEvents` and
            :class:`NamedEvents` items, in stream order.

    Returns:
        A new list, each :class:`RawEvents` or :class:`NamedEvents` replaced by
        its events in place.
    """
    out: list[ServerSentEvent] = []
    for item in events:
        if isinstance(item, (RawEvents, NamedEvents)):
            out += item.events()
        else:
            out.append(item)
    return out


#: How to read a body as bytes chunks, named in the errors below.
READ_BYTES = "response.iter_bytes() (httpx) or response.iter_content(chunk_size=None) (requests)"


def check_chunks(chunks: object, caller: str = "decode()", is_async: bool = False) -> None:
    """Reject what is not an iterable of byte chunks before any is read.

    A body is passed as its chunks (``[body]`` when it is one ``bytes``); iterating a
    ``bytes``, ``bytearray`` or ``memoryview`` gives ints, and a ``str`` gives
    characters, which would otherwise be read as garbage and end the stream as
    truncated, with no error (ssegen issue 24). Chunks that are ``str`` (an iterator of
    them) are refused lazily, by :meth:`~.sse.SSEDecoder.feed`, at the first one.

    Args:
        chunks: what the caller was given as the body's chunks.
        caller: the function named in the message (``decode()``, ``iter_events()``).
        is_async: the caller takes an async iterable (``adecode()``, ``aiter_events()``).

    Raises:
        TypeError: ``chunks`` is a whole body (``bytes``, ``bytearray``,
            ``memoryview``, ``str``), not iterable (an ``httpx.Response`` itself: the message
            names ``response.iter_bytes()``, or ``aiter_bytes()`` for ``is_async``), or, for
            ``is_async``, not an async iterable; the message says what to pass instead.
    """
    name = type(chunks).__name__
    if is_async:
        wanted = f"{caller} takes an async iterable of bytes chunks such as response.aiter_bytes()"
        if isinstance(chunks, (bytes, bytearray, memoryview, str)):
            fix = "[body.encode()]" if isinstance(chunks, str) else "[body]"
            raise TypeError(
                f"{wanted}; got {name}: a whole body is decoded without awaiting, as decode({fix})"
            )
        if hasattr(chunks, "aiter_bytes") and not hasattr(chunks, "__aiter__"):
            raise TypeError(f"{wanted}; got a {name}: pass response.aiter_bytes()")
        if not hasattr(chunks, "__aiter__"):
            raise TypeError(
                f"{wanted}; got {name}, which is not async: pass it to the"
                " synchronous twin (decode(), iter_events())"
            )
        return
    wanted = f"{caller} takes an iterable of bytes chunks such as {READ_BYTES}"
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        raise TypeError(f"{wanted}; got {name}: wrap it as [body]")
    if isinstance(chunks, str):
        raise TypeError(f"{wanted}; got str: encode it and wrap it as [body.encode()]")
    if not hasattr(chunks, "__iter__"):
        reading = "response.iter_bytes()" if hasattr(chunks, "iter_bytes") else "its chunks"
        raise TypeError(f"{wanted}; got a {name}, not iterable: pass {reading}")


class Framer(Protocol):
    """What cuts a body into events, as :func:`read_items` drives it: :class:`~.sse.SSEDecoder`
    (``text/event-stream``) or ``ndjson.NDJSONDecoder`` (one JSON value per line, each an
    event of type ``message``). Same errors (:class:`SSEError` and its subclasses), same
    progress attributes, same truncation rule (what :meth:`close` cannot dispatch is
    counted in ``bytes_discarded`` and sets ``incomplete``)."""

    @property
    def bytes_consumed(self) -> int: ...

    @property
    def bytes_discarded(self) -> int: ...

    @property
    def incomplete(self) -> bool: ...

    @property
    def last_event_id(self) -> str: ...

    @property
    def reconnection_time(self) -> int | None: ...

    def feed_raw(
        self, chunk: bytes | bytearray | memoryview
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]: ...

    def close(self) -> list[ServerSentEvent]: ...


class StreamState:
    """Mutable progress report filled in by :func:`iter_events` and
    :func:`aiter_events`.

    Attributes:
        incomplete: Set when the stream ends: ``True`` when bytes of an
            unterminated event were discarded (see
            :attr:`~.sse.SSEDecoder.incomplete`), also ``True`` when decoding
            stopped with an :class:`SSEError`; ``False`` otherwise. Left
            ``False`` if the consumer stops iterating early (``close()``), ``True``
            when reading stopped at an exception from the byte source or a
            cancellation (see ``stopped``).
        stopped: ``""``, or why reading stopped before the end of the body: a
            cancellation (``asyncio.CancelledError``, ``KeyboardInterrupt``) or an
            exception raised by the byte source (a reset connection) passing through
            the read driver; the reason of the stream's :class:`StreamTruncated`.
        bytes_consumed: Total bytes of the stream fed to the decoder so far,
            as of the last chunk (read-only, like the two below: read from the
            stream's decoder, so that reading a chunk costs no update).
        bytes_discarded: Set when the stream ends: the bytes after the last
            blank line, discarded with the unterminated event (see
            :attr:`~.sse.SSEDecoder.bytes_discarded`); 0 for a complete stream and
            when decoding stopped with an :class:`SSEError` (which tells what
            was not decoded).
        last_event_id: The last event ID string as of the last blank line
            (the value to send as ``Last-Event-ID`` when reconnecting), as of
            the last chunk.
        reconnection_time: The last valid ``retry`` value seen, in
            milliseconds, or ``None``, as of the last chunk.
        body_head: Set when the stream ends: the first bytes (at most :data:`HEAD_BYTES`) of
            a body that gave no event and starts as JSON or markup, so is not of the framing
            (``events.body_looks_like`` says what it is: an NDJSON body, a JSON reply, an HTML
            page); the stream is then ``incomplete``, every byte discarded. ``None`` otherwise.
        decoder: The :class:`Framer` of the stream being read (set by :func:`iter_raw` and
            :func:`aiter_raw` when reading starts; ``None`` before), which the three
            properties above read.
        ended_by: The byte source's exception that ended the body as its end would (one of
            the ``ends`` types :func:`read_items` was given: the streaming client's
            ``httpx.TransportError``), or ``None``.
    """

    __slots__ = ("incomplete", "stopped", "bytes_discarded", "body_head", "decoder", "ended_by")

    def __init__(self) -> None:
        self.incomplete: bool = False
        self.stopped: str = ""
        self.ended_by: BaseException | None = None
        self.bytes_discarded: int = 0
        self.body_head: bytes | None = None
        self.decoder: Framer | None = None

    @property
    def bytes_consumed(self) -> int:
        """See the class docstring."""
        return 0 if self.decoder is None else self.decoder.bytes_consumed

    @property
    def last_event_id(self) -> str:
        """See the class docstring."""
        return "" if self.decoder is None else self.decoder.last_event_id

    @property
    def reconnection_time(self) -> int | None:
        """See the class docstring."""
        return None if self.decoder is None else self.decoder.reconnection_time

    def __repr__(self) -> str:
        return (
            f"StreamState(incomplete={self.incomplete!r},"
            f" stopped={self.stopped!r},"
            f" bytes_consumed={self.bytes_consumed!r},"
            f" bytes_discarded={self.bytes_discarded!r},"
            f" last_event_id={self.last_event_id!r},"
            f" reconnection_time={self.reconnection_time!r})"
        )


class _Reads:
    """The decoding of one body read by read, shared by :func:`iter_raw` and its async twin
    (which only differ in how they get the next chunk).

    :meth:`feed` gives a read's items (an error the read causes is kept in :attr:`error`,
    after the items dispatched before it, for the caller to raise once it has given them);
    :meth:`close` gives what the end of the body dispatches and records in the
    :class:`StreamState` how the body ended.
    """

    __slots__ = ("decoder", "state", "error", "head", "join")

    def __init__(
        self, max_event_bytes: int, state: StreamState | None, framer: Callable[[int], Framer]
    ) -> None:
        self.decoder = framer(max_event_bytes)
        #: the bytes the decoder's reads may be joined into (its ``join_reads``; 0: none)
        self.join: int = getattr(self.decoder, "join_reads", 0)
        self.state = StreamState() if state is None else state
        self.state.decoder = self.decoder
        self.error: SSEError | None = None
        #: the body's first bytes while no read dispatched an event (None once one did)
        self.head: bytes | None = b""

    def feed(
        self, chunk: bytes | bytearray | memoryview
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """The items one read dispatches; on an :class:`SSEError`, those dispatched before
        it (the error, emptied of them, in :attr:`error`, the stream marked incomplete)."""
        events: list[ServerSentEvent | RawEvents | NamedEvents]
        try:
            events = self.decoder.feed_raw(chunk)
        except SSEError as exc:
            self.state.incomplete = True
            events = [*exc.events]
            exc.events = []
            self.error = exc
        if self.head is not None:  # until the first event: what the body looks like
            self.head = None if events else (self.head + bytes(chunk[:HEAD_BYTES]))[:HEAD_BYTES]
        return events

    def stop(self, exc: BaseException) -> None:
        """Record in the state that reading stopped at ``exc`` before the end of the body (a
        cancellation, or the byte source's own exception), unless it is the decoder's
        :attr:`error` (already recorded) or ``GeneratorExit`` (the consumer's ``close()``)."""
        if exc is self.error or isinstance(exc, GeneratorExit):
            return
        read = self.decoder.bytes_consumed
        if isinstance(exc, Exception):
            cause = f"reading the body failed after {read} bytes ({type(exc).__name__}: {exc})"
        else:  # asyncio.CancelledError, trio.Cancelled, KeyboardInterrupt
            cause = f"the stream was cancelled ({type(exc).__name__}) after {read} bytes"
        self.state.incomplete = True
        self.state.stopped = cause + "; it was not read to its end, no event after was decoded"

    def close(self) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """What the end of the body dispatches (an NDJSON last line), the state updated: a
        body that gave no event and starts as JSON or markup (not SSE; an NDJSON decoder,
        ``json_lines``, takes JSON) is incomplete, every byte discarded, its start kept in
        :attr:`StreamState.body_head`."""
        last: list[ServerSentEvent | RawEvents | NamedEvents] = [*self.decoder.close()]
        state = self.state
        state.incomplete = self.decoder.incomplete
        state.bytes_discarded = self.decoder.bytes_discarded
        head = self.head.removeprefix(b"\xef\xbb\xbf").lstrip() if self.head else b""
        if head[:1] in (b"{", b"[", b"<") and not last and not hasattr(self.decoder, "json_lines"):
            state.body_head = self.head
            state.incomplete = True
            state.bytes_discarded = self.decoder.bytes_consumed
        return last


#: The most bytes of a body's start kept until its first event (``StreamState.body_head``).
HEAD_BYTES = 4096


def read_items(
    chunks: Iterable[bytes | bytearray | memoryview],
    framer: Callable[[int], Framer],
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
    caller: str = "iter_events()",
    joined: bool = False,
    ends: tuple[type[BaseException], ...] = (),
) -> Iterator[list[ServerSentEvent | RawEvents | NamedEvents]]:
    """The read driver: the items of each of ``chunks`` as one list, as the decoder's
    ``feed_raw`` returns them (runs of events as :class:`RawEvents` and :class:`NamedEvents`);
    chunks that dispatch nothing give no list; what its ``close`` dispatches comes last.
    ``joined``: a consumer that waits for the whole body (``Channel.accumulate``) lets the
    reads be joined into reads of the decoder's ``join_reads`` bytes, when it has them
    (:mod:`.joined_reads`: the same items, from fewer reads). ``ends``: the types of the
    source's exceptions that end the body as its end does (kept in ``state.ended_by``, not
    raised): the streaming client tells a connection lost or stalled by how the body ended.

    Args:
        chunks: the body, in reads of any size, consumed lazily.
        framer: builds the body's decoder from ``max_event_bytes`` (a framing's
            :meth:`Framing.decoder`, ``sse.SSEDecoder``, ``ndjson.NDJSONDecoder``).
        max_event_bytes: the decoder's limit, in bytes, on one event.
        state: optional :class:`StreamState`, reading the decoder's progress; its
            ``incomplete`` and ``bytes_discarded`` are set when ``chunks`` is exhausted (or
            ``incomplete`` on an error, with ``stopped`` when the error is not the decoder's).
        caller: the function named in a :func:`check_chunks` error.

    Raises:
        SSEError: a subclass, as the decoder's ``feed_raw`` raises it, after the list of the
            items dispatched before it (the error's ``events`` emptied).
        TypeError: ``chunks`` is a whole body, not its reads, or a read is a ``str``.
    """
    check_chunks(chunks, caller)
    reads = _Reads(max_event_bytes, state, framer)
    if joined and reads.join:
        chunks = joined_reads(chunks, reads.join)
    try:
        for chunk in chunks:
            events = reads.feed(chunk)
            if reads.error is not None:
                yield events
                raise reads.error
            if events:
                yield events
    except ends as exc:  # the source's error that ends the body: the decoder is closed
        reads.state.ended_by = exc
    except BaseException as exc:  # a cancellation or the source's error: recorded, re-raised
        reads.stop(exc)
        raise
    last = reads.close()
    if last:
        yield last


async def aread_items(
    chunks: AsyncIterable[bytes | bytearray | memoryview],
    framer: Callable[[int], Framer],
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
    caller: str = "aiter_events()",
    joined: bool = False,
    ends: tuple[type[BaseException], ...] = (),
) -> AsyncIterator[list[ServerSentEvent | RawEvents | NamedEvents]]:
    """:func:`read_items` over an async iterable of byte chunks: the same :class:`_Reads`,
    read by ``async for``."""
    check_chunks(chunks, caller, is_async=True)
    reads = _Reads(max_event_bytes, state, framer)
    if joined and reads.join:
        chunks = ajoined_reads(chunks, reads.join)
    try:
        async for chunk in chunks:
            events = reads.feed(chunk)
            if reads.error is not None:
                yield events
                raise reads.error
            if events:
                yield events
    except ends as exc:  # the source's error that ends the body: the decoder is closed
        reads.state.ended_by = exc
    except BaseException as exc:  # a cancellation or the source's error: recorded, re-raised
        reads.stop(exc)
        raise
    last = reads.close()
    if last:
        yield last


class Framing:
    """How a channel's body is cut into events and its events written back: one object per
    framing (:data:`~.sse.SSE`, :data:`~.ndjson.NDJSON`), so that a channel holds its framing
    instead of switching on a name.

    Attributes:
        name: the IR's name of the framing (``sse``, ``ndjson``). A framing compares equal to
            its name (``channel.framing == "ndjson"``), as the attribute was that string
            before it became this object.
        media_type: the media type of its bodies (``text/event-stream``).
        media_types: every media type naming the framing (lower case, no parameters): a
            response's ``Content-Type`` chooses the framing by them.
        content_type: the ``Content-Type`` a server sends them with (a mock server's).
        label: how errors name one framed event (``SSE``, ``NDJSON``).
    """

    __slots__ = ()
    name = ""
    media_type = ""
    media_types: tuple[str, ...] = ()
    content_type = ""
    label = ""

    def decoder(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> Framer:
        """A new decoder of one body (a :class:`Framer`), with ``max_event_bytes`` its limit,
        in bytes, on one event.

        Raises:
            ValueError: ``max_event_bytes`` is not positive.
        """
        raise NotImplementedError

    def frame(self, data: bytes, event: str = "message") -> bytes:
        """One event whose data is ``data`` (UTF-8 JSON text without a line break, as msgspec
        writes it) and whose type is ``event``, as its bytes on the wire.

        Raises:
            ValueError: ``event`` cannot be written in this framing.
        """
        raise NotImplementedError

    #: The bytes that empty a reader's last event ID before an event (WHATWG HTML 9.2.6: the
    #: buffer persists across events, so an event of no id after one with an id needs them);
    #: empty for a framing that carries no id.
    id_reset = b""

    def frame_text(self, data: str, event: str = "message", id: str = "") -> bytes:
        """One event given as its parts (an unknown event re-emitted as it came, a literal
        such as ``[DONE]``), as its bytes on the wire; decoding them gives back the parts the
        framing carries.

        Raises:
            ValueError: a part holds what the framing cannot carry (a line end).
        """
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return other == self.name
        return other is self

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"<{self.name} framing ({self.media_type})>"
