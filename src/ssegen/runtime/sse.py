"""Incremental decoder for ``text/event-stream`` (Server-Sent Events) bodies.

Behaviour follows the WHATWG HTML Living Standard, section 9.2.6
"Interpreting an event stream"
(https://html.spec.whatwg.org/multipage/server-sent-events.html), with two
documented differences:

* Invalid UTF-8 raises :class:`InvalidUTF8Error` instead of being replaced by
  U+FFFD, so that a corrupt stream is never silently turned into wrong text.
* ``id`` and ``retry`` are reported on each :class:`ServerSentEvent`; the
  stream-wide values the standard keeps on the ``EventSource`` object are
  available as :attr:`SSEDecoder.last_event_id` and
  :attr:`SSEDecoder.reconnection_time`.

The decoder works on bytes, decodes each complete line once, and keeps only the
current unterminated line and the event being built, so memory is
O(largest event), bounded by ``max_event_bytes``. It depends only on the
standard library.

The LLM streams it serves are mostly data-only: each event one ``data:`` line
holding a JSON chunk (specs/deepseek/asyncapi-page.txt:7,
specs/xerotier/streaming-api.md:10-11); runs of such events take a fast path
(:class:`RawEvents`) with the same results as the line-by-line rules.

Every failure caused by the bytes of a stream is an :class:`SSEError`, so that a
consumer catching it sees no other exception from the network's bytes::

    SSEError                  the stream cannot be decoded (base class)
    +-- InvalidUTF8Error      a line is not UTF-8
    +-- EventTooLargeError    an event grew beyond ``max_event_bytes``
    +-- InvalidFieldError     a field value cannot be applied (a ``retry`` of 5000 digits)
    +-- PayloadError          an event's data cannot be turned into a typed event
                              (JSON nested too deep, a number too large: raised by
                              ``stream.py``'s typed decoding)

This module is ``src/ssegen/runtime/sse.py`` of ssegen, copied verbatim into
every generated package: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from itertools import compress, repeat
from operator import itemgetter, not_
from typing import NamedTuple

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "EventTooLargeError",
    "InvalidFieldError",
    "InvalidUTF8Error",
    "NamedEvents",
    "PayloadError",
    "RawEvents",
    "SSEDecoder",
    "SSEError",
    "ServerSentEvent",
    "StreamState",
    "aiter_events",
    "aiter_raw",
    "expand",
    "iter_events",
    "iter_raw",
]

DEFAULT_MAX_EVENT_BYTES: int = 8 * 1024 * 1024
"""Default limit, in bytes, on one event's pending bytes (see
:class:`EventTooLargeError`): 8 MiB."""

_BOM = b"\xef\xbb\xbf"
_VALUE = itemgetter(slice(6, None))  # the value of a "data: " line
_new_tuple = tuple.__new__  # builds a NamedTuple without its Python-level __new__
_LF = 0x0A
_CR = 0x0D
# A run of plain events: blocks that are each "data: " + a value + a blank line.
_RUN = re.compile(rb"(?:data: [^\n]*\n\n)*")
_WINDOW = 64 * 1024
"""Largest read, in bytes, taken in one piece (see :meth:`SSEDecoder.feed_raw`)."""


def _all_start_with(lines: list[bytes], prefix: bytes, bound: bytes) -> bool:
    """Whether every one of ``lines`` starts with ``prefix``, found by two C-level passes
    (``min`` and ``max``) instead of a call per line: ``bound`` is ``prefix`` with its
    last byte raised by one, and a byte string starts with ``prefix`` exactly when it
    sorts in ``[prefix, bound)`` (it shares every byte of ``prefix`` but the last, and
    that one is neither below nor above). True for no lines."""
    return not lines or (prefix <= min(lines) and max(lines) < bound)


def _is_utf8(data: bytes, end: int) -> bool:
    """Whether ``data[:end]`` is valid UTF-8, where ``data[end - 1]`` or ``data[end]`` is
    a line end (so ``end`` falls between two characters).

    When ``data`` ends with an ASCII byte (not inside a character cut by the read's end),
    all of it is tried first, without copying the prefix: when it is valid, so is any
    prefix that ends between two characters. Otherwise, or when it is not valid (an
    invalid byte after ``end``), the prefix itself is decoded.
    """
    if data[-1:] < b"\x80":
        try:
            data.decode()
            return True
        except UnicodeDecodeError:
            pass
    try:
        data[:end].decode()
    except UnicodeDecodeError:
        return False
    return True


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
        events: The events dispatched by the same :meth:`SSEDecoder.feed` call
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

    Raised by :meth:`SSEDecoder.feed` when a complete line does not decode
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
    :meth:`SSEDecoder.feed_raw` gives them: type ``message``, no ``retry``,
    the same last event ID, and their data still as the UTF-8 bytes read
    (checked valid), so that a consumer can parse them without building a
    ``str`` and a :class:`ServerSentEvent` for each.

    This is the shape of nearly every event of the providers' streams
    (specs/xerotier/streaming-api.md:10-11: ``data: {...}\\n\\n``).

    Attributes:
        values: The data of each event (the line after ``data: ``, without
            its line end), in stream order; never empty as a list.
        id: The last event ID buffer they were dispatched with.
    """

    values: list[bytes]
    id: str = ""

    def events(self, start: int = 0) -> list[ServerSentEvent]:
        """The events as :class:`ServerSentEvent` instances, in stream order
        (``ServerSentEvent("message", value.decode(), id, None)`` each), from
        the ``start``-th (0-based) on."""
        values = self.values[start:] if start else self.values
        fields = zip(repeat("message"), map(bytes.decode, values), repeat(self.id), repeat(None))
        return list(map(_new_tuple, repeat(ServerSentEvent), fields))


class NamedEvents(NamedTuple):
    """Consecutive events that are each an ``event: `` line, a ``data: `` line
    and a blank line (Anthropic's and OpenAI Responses' framing), as
    :meth:`SSEDecoder.feed_raw` gives them: no ``retry``, the same last event
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
        names = [line[7:].decode() or "message" for line in lines]
        fields = zip(names, map(bytes.decode, values), repeat(self.id), repeat(None))
        return list(map(_new_tuple, repeat(ServerSentEvent), fields))


def expand(events: Iterable[ServerSentEvent | RawEvents | NamedEvents]) -> list[ServerSentEvent]:
    """The events of a :meth:`SSEDecoder.feed_raw` result, all as :class:`ServerSentEvent`.

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
_READ_BYTES = "response.iter_bytes() (httpx) or response.iter_content(chunk_size=None) (requests)"


def check_chunks(chunks: object, caller: str = "decode()", is_async: bool = False) -> None:
    """Reject what is not an iterable of byte chunks before any is read.

    A body is passed as its chunks (``[body]`` when it is one ``bytes``); iterating a
    ``bytes``, ``bytearray`` or ``memoryview`` gives ints, and a ``str`` gives
    characters, which would otherwise be read as garbage and end the stream as
    truncated, with no error (ssegen issue 24). Chunks that are ``str`` (an iterator of
    them) are refused lazily, by :meth:`SSEDecoder.feed`, at the first one.

    Args:
        chunks: what the caller was given as the body's chunks.
        caller: the function named in the message (``decode()``, ``iter_events()``).
        is_async: the caller takes an async iterable (``adecode()``, ``aiter_events()``).

    Raises:
        TypeError: ``chunks`` is a whole body (``bytes``, ``bytearray``,
            ``memoryview``, ``str``), or, for ``is_async``, not an async iterable;
            the message says what to pass instead.
    """
    if is_async:
        wanted = f"{caller} takes an async iterable of bytes chunks such as response.aiter_bytes()"
        if isinstance(chunks, (bytes, bytearray, memoryview, str)):
            fix = "[body.encode()]" if isinstance(chunks, str) else "[body]"
            raise TypeError(
                f"{wanted}; got {type(chunks).__name__}: a whole body is decoded without"
                f" awaiting, as decode({fix})"
            )
        if not hasattr(chunks, "__aiter__"):
            raise TypeError(
                f"{wanted}; got {type(chunks).__name__}, which is not async: pass it to the"
                " synchronous twin (decode(), iter_events())"
            )
        return
    wanted = f"{caller} takes an iterable of bytes chunks such as {_READ_BYTES}"
    if isinstance(chunks, (bytes, bytearray, memoryview)):
        raise TypeError(f"{wanted}; got {type(chunks).__name__}: wrap it as [body]")
    if isinstance(chunks, str):
        raise TypeError(f"{wanted}; got str: encode it and wrap it as [body.encode()]")


class StreamState:
    """Mutable progress report filled in by :func:`iter_events` and
    :func:`aiter_events`.

    Attributes:
        incomplete: Set when the stream ends: ``True`` when bytes of an
            unterminated event were discarded (see
            :attr:`SSEDecoder.incomplete`), also ``True`` when decoding
            stopped with an :class:`SSEError`; ``False`` otherwise. Left
            ``False`` if the consumer stops iterating early.
        bytes_consumed: Total bytes of the stream fed to the decoder so far,
            as of the last chunk (read-only, like the two below: read from the
            stream's decoder, so that reading a chunk costs no update).
        bytes_discarded: Set when the stream ends: the bytes after the last
            blank line, discarded with the unterminated event (see
            :attr:`SSEDecoder.bytes_discarded`); 0 for a complete stream and
            when decoding stopped with an :class:`SSEError` (which tells what
            was not decoded).
        last_event_id: The last event ID string as of the last blank line
            (the value to send as ``Last-Event-ID`` when reconnecting), as of
            the last chunk.
        reconnection_time: The last valid ``retry`` value seen, in
            milliseconds, or ``None``, as of the last chunk.
    """

    __slots__ = ("incomplete", "bytes_discarded", "_decoder")

    def __init__(self) -> None:
        self.incomplete: bool = False
        self.bytes_discarded: int = 0
        # The decoder of the stream being read (set by iter_raw/aiter_raw); None before.
        self._decoder: SSEDecoder | None = None

    @property
    def bytes_consumed(self) -> int:
        """See the class docstring."""
        return 0 if self._decoder is None else self._decoder.bytes_consumed

    @property
    def last_event_id(self) -> str:
        """See the class docstring."""
        return "" if self._decoder is None else self._decoder.last_event_id

    @property
    def reconnection_time(self) -> int | None:
        """See the class docstring."""
        return None if self._decoder is None else self._decoder.reconnection_time

    def __repr__(self) -> str:
        return (
            f"StreamState(incomplete={self.incomplete!r},"
            f" bytes_consumed={self.bytes_consumed!r},"
            f" bytes_discarded={self.bytes_discarded!r},"
            f" last_event_id={self.last_event_id!r},"
            f" reconnection_time={self.reconnection_time!r})"
        )


class SSEDecoder:
    """Push-style, incremental ``text/event-stream`` decoder.

    Implements WHATWG HTML Living Standard 9.2.6 "Interpreting an event
    stream": one leading UTF-8 BOM is skipped; lines end with CRLF, LF or a
    lone CR (also when CR and LF arrive in different chunks); a blank line
    dispatches the event being built if its data buffer is non-empty; lines
    starting with ``:`` are comments; ``field: value`` loses one space after
    the colon; a line without a colon is a field with an empty value; the
    fields ``event``, ``data``, ``id`` (ignored if it contains U+0000) and
    ``retry`` (ignored unless all ASCII digits) are applied and any other
    field is ignored; field names are case-sensitive. At end of stream an
    event without its terminating blank line is discarded.

    Args:
        max_event_bytes: Limit, in bytes, on one event's pending bytes (see
            :class:`EventTooLargeError`); must be positive.

    Raises:
        ValueError: If ``max_event_bytes`` is not positive.

    Attributes:
        bytes_consumed: Total bytes passed to :meth:`feed` so far.
        incomplete: Set by :meth:`close`: ``True`` when bytes of an
            unterminated event were discarded (a non-empty unterminated line,
            or field lines after the last blank line), else ``False``.
        bytes_discarded: Set by :meth:`close`: when :attr:`incomplete`, the
            number of bytes after the stream's last blank line (or after its
            BOM, if it has none): the unterminated block, comment lines
            included, that was not dispatched; else 0.
        last_event_id: The spec's "last event ID string": the last event ID
            buffer as of the most recent blank line, ``""`` initially.
        reconnection_time: The spec's "event stream's reconnection time" as
            set by the most recent valid ``retry`` field, in milliseconds, or
            ``None`` if there was none (also set by ``retry`` fields of blocks
            that dispatch no event).

    After an :class:`SSEError` the decoder is unusable: further calls to
    :meth:`feed` or :meth:`close` raise :class:`SSEError`.
    """

    __slots__ = (
        "bytes_consumed",
        "bytes_discarded",
        "incomplete",
        "last_event_id",
        "reconnection_time",
        "_max",
        "_pending",
        "_pending_len",
        "_pending_offset",
        "_block_start",
        "_deferred",
        "_window",
        "_skip_lf",
        "_at_start",
        "_closed",
        "_failed",
        "_parts",
        "_data_bytes",
        "_event_type",
        "_last_id",
        "_retry",
        "_dirty",
        "_ready",
    )

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if max_event_bytes <= 0:
            raise ValueError(f"max_event_bytes must be positive, got {max_event_bytes}")
        self.bytes_consumed: int = 0
        self.bytes_discarded: int = 0
        self.incomplete: bool = False
        self.last_event_id: str = ""
        self.reconnection_time: int | None = None
        self._max = max_event_bytes
        # Reads are taken in windows of at most this many bytes (see feed_raw).
        self._window = min(_WINDOW, max_event_bytes)
        # The current unterminated line as the pieces read (joined once, when
        # the line ends: a line growing by small reads is not copied again per
        # read), their total length, and the line's absolute offset.
        self._pending: list[bytes] = []
        self._pending_len = 0
        self._pending_offset = 0
        # Absolute offset just after the last blank line (after the BOM before
        # any): where the block that close() would discard begins.
        self._block_start = 0
        # The pending bytes are the complete lines of an event begun in an earlier read
        # and its unterminated line, not interpreted yet (see feed_raw).
        self._deferred = False
        # The previous chunk ended with CR: a leading LF now ends no line.
        self._skip_lf = False
        # Nothing but a (possibly partial) BOM seen yet.
        self._at_start = True
        self._closed = False
        self._failed = False
        # The event being built: data values, their byte size (+1 per LF),
        # event type buffer, last event ID buffer, retry of this block.
        self._parts: list[str] = []
        self._data_bytes = 0
        self._event_type = ""
        self._last_id = ""
        self._retry: int | None = None
        # A field line was seen since the last blank line.
        self._dirty = False
        # At an event boundary, past the BOM, usable, no LF to skip: a chunk
        # without CR may take feed_raw's run of plain events.
        self._ready = False

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[ServerSentEvent]:
        """Decode the next bytes of the stream.

        Args:
            chunk: The next 0..N bytes of the stream, split anywhere (inside a
                line, a CRLF, a BOM or a multi-byte character).

        Returns:
            The events dispatched by blank lines completed in ``chunk``, in
            stream order (often empty).

        Raises:
            InvalidUTF8Error: A complete line is not valid UTF-8.
            EventTooLargeError: An event exceeded ``max_event_bytes``.
            SSEError: The decoder was closed or failed earlier.
            TypeError: ``chunk`` is a ``str`` or an ``int`` (an item of a ``bytes``
                body iterated as if it were the chunks).

        Events dispatched in this call before the error are attached to the
        exception as ``events``.
        """
        return expand(self.feed_raw(chunk))

    def feed_raw(
        self, chunk: bytes | bytearray | memoryview
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """:meth:`feed`, giving runs of plain ``data:`` events as :class:`RawEvents`.

        Same events, errors (whose ``events`` are all :class:`ServerSentEvent`)
        and laziness as :meth:`feed`; :func:`expand` turns the result into
        what :meth:`feed` returns. A read longer than 64 KiB (or than
        ``max_event_bytes``, if smaller) is taken as consecutive windows of
        at most that size, each ending after a blank line where one is in
        reach, so that it may give several :class:`RawEvents`.
        """
        if not (
            self._ready
            and type(chunk) is bytes
            and len(chunk) <= self._window
            and chunk.find(b"\r") < 0
        ):
            return self._feed(chunk)
        # Fast path: the common read, at an event boundary. Whole events that
        # are each a "data: " line and a blank line are taken as one RawEvents
        # without a Python-level loop, and without the line interpreter
        # (_interpret, the one place for the field rules): such a block is
        # exactly an event of type "message" whose data is the line after
        # "data: ". The longest run of them that starts the read is taken so;
        # the rest of the read goes to _guarded.
        # Invariant (hypothesis differential test in ssegen's
        # tests/runtime/test_sse.py::test_event_runs_match_byte_at_a_time):
        # any split of a stream into reads gives the same events, error type,
        # error offset, events attached to the error, incompleteness and last
        # event ID as one-byte reads, which never take a run of events (here
        # or in _process_fast) and so apply every line through _interpret.
        offset = self.bytes_consumed  # absolute offset of chunk[0]
        self.bytes_consumed = offset + len(chunk)
        # The last complete event ends at the last blank line, in this read:
        # the pending line holds no line end. Without one, the pending line
        # just grows (_apply keeps the read, without copying the line).
        cut = chunk.rfind(b"\n\n")
        if cut < 0:
            return self._guarded(chunk, offset, []) if chunk else []
        pending = self._pending
        if cut == len(chunk) - 2 and not pending:
            # The read may be one whole event, as servers flushing every token send them:
            # "data: " + a value, or "event: " + a type then "data: " + a value, each line
            # without a line end, and the blank line. It is then taken as the runs below
            # take it, without cutting and joining.
            line_end = chunk.find(b"\n")
            if line_end == cut:
                if chunk.startswith(b"data: ") and (chunk.isascii() or _is_utf8(chunk, cut)):
                    self._block_start = offset + cut + 2
                    return [_new_tuple(RawEvents, ([chunk[6:cut]], self._last_id))]
            elif (
                chunk.startswith(b"event: ")
                and chunk.find(b"\n", line_end + 1) == cut
                and chunk.startswith(b"data: ", line_end + 1)
                and (chunk.isascii() or _is_utf8(chunk, cut))
            ):
                self._block_start = offset + cut + 2
                self.last_event_id = self._last_id  # as the named run below
                event = ([chunk[:line_end]], [chunk[line_end + 7 : cut]], self._last_id)
                return [_new_tuple(NamedEvents, event)]
        whole = chunk
        if pending:
            whole = b"".join(pending) + chunk
            cut += self._pending_len
        if len(whole) <= self._max:  # so no event of the run exceeds the limit
            if whole.startswith(b"data: "):
                values = whole[6:cut].split(b"\n\ndata: ")
                # No value holding a line end means every block was exactly
                # "data: " + value and a blank line (and no blank-line runs).
                if b"".join(values).find(b"\n") < 0:
                    stop = cut + 2
                else:
                    run = _RUN.match(whole)
                    stop = run.end() if run else 0
                    values = whole[6 : stop - 2].split(b"\n\ndata: ")
                if stop and (whole.isascii() or _is_utf8(whole, stop)):
                    events: list[ServerSentEvent | RawEvents | NamedEvents] = [
                        _new_tuple(RawEvents, (values, self._last_id))
                    ]
                    if pending:
                        offset = self._pending_offset
                        pending.clear()
                        self._pending_len = 0
                        self._deferred = False
                    self._block_start = offset + stop
                    if stop < len(whole):
                        tail = whole[stop:]
                        if b"\n" in tail:
                            events += self._guarded(tail, offset + stop, events)
                        else:
                            # The next event's first line, begun: it just waits (as _apply
                            # keeps it; within the limit, as ``whole`` is).
                            self._pending_offset = offset + stop
                            pending.append(tail)
                            self._pending_len = len(tail)
                    return events
            # Other events (named ones: "event: " + "data: " + blank line) up to the
            # last blank line, from an event boundary; the event begun after it is kept
            # as bytes, not interpreted, and read again whole with the next read (so
            # that each read's run starts at an event boundary, and _process_fast takes
            # it at once). Deferring its complete lines changes nothing observable: they
            # dispatch nothing (no blank line among them), set no reconnection time (no
            # "retry"), are valid UTF-8 (checked, so an error is raised by this read, as
            # line by line), and cannot exceed the limit (the pending bytes of an event
            # are at most its bytes, here at most the limit).
            stop = cut + 2
            tail = whole[stop:]
            if b"\n" not in tail or (
                b"retry" not in tail and (tail.isascii() or _is_utf8(tail, tail.rfind(b"\n") + 1))
            ):
                named = self._named_run(whole, cut) if whole.startswith(b"event: ") else None
                if pending:
                    offset = self._pending_offset
                    pending.clear()
                    self._pending_len = 0
                    self._deferred = False
                self._block_start = offset + stop
                if named is None:
                    events = self._guarded(whole[:stop], offset, [])
                else:
                    # As _process_fast applies a run of named events.
                    events = [named]
                    self.last_event_id = self._last_id
                if tail:
                    self._pending_offset = offset + stop
                    pending.append(tail)
                    self._pending_len = len(tail)
                    self._deferred = b"\n" in tail
                return events
        return self._guarded(chunk, offset, [])

    def _named_run(self, whole: bytes, cut: int) -> NamedEvents | None:
        """The events of ``whole[: cut + 2]`` (from an event boundary, at an ``event: ``
        line, to a blank line) as one :class:`NamedEvents` when every block is exactly
        ``event: `` + a type, ``data: `` + a value and a blank line, and is valid UTF-8;
        else None. The same events as :meth:`_named`.

        Most reads repeat one event line (a run of ``content_block_delta``, of
        ``response.output_text.delta``): the region before the last blank line is cut at
        each ``"\n\n" + line + "\ndata: "``, line being its first line. When it starts
        with that line and ``"\ndata: "`` and no piece holds a line end, the region is
        exactly ``line``, ``data: `` + piece, ``""``, repeated for each piece (the last
        ``""`` left out): its only line ends are those of the separators. Conversely,
        blocks that all have that event line give exactly those pieces, as a value holds
        no line end, so ``"\n\n"`` occurs only where a block ends.

        Otherwise the region cut at each LF must be the lines ``event: ...``,
        ``data: ...``, ``""`` repeated, the last ``""`` left out (so 3k - 1 lines for k
        events); conversely, lines in that pattern are such blocks, since a split at
        every LF leaves no line end inside a line.
        """
        first = whole.find(b"\n")
        line = whole[:first]
        if whole.startswith(b"\ndata: ", first):
            values = whole[first + 7 : cut].split(b"\n\n" + line + b"\ndata: ")
            if b"".join(values).find(b"\n") < 0:
                if not (whole.isascii() or _is_utf8(whole, cut + 2)):
                    return None
                return _new_tuple(NamedEvents, ([line] * len(values), values, self._last_id))
        lines = whole[:cut].split(b"\n")
        if len(lines) % 3 != 2:
            return None
        event_lines, data_lines = lines[::3], lines[1::3]
        if (
            any(lines[2::3])
            or not _all_start_with(event_lines, b"event: ", b"event:!")
            or not _all_start_with(data_lines, b"data: ", b"data:!")
            or not (whole.isascii() or _is_utf8(whole, cut + 2))
        ):
            return None
        return _new_tuple(NamedEvents, (event_lines, list(map(_VALUE, data_lines)), self._last_id))

    def _feed(
        self, chunk: bytes | bytearray | memoryview
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """:meth:`feed_raw` in every state: closed or failed decoders, other
        buffer types, long reads, the first read, a leading BOM, an LF after a
        CR that ended a chunk, CRs."""
        if self._closed or self._failed:
            raise SSEError(
                "feed() on a decoder that failed earlier"
                if self._failed
                else "feed() after close()"
            )
        if type(chunk) is not bytes:
            if isinstance(chunk, str):
                raise TypeError(
                    f"an SSE body is read as bytes chunks; got a str chunk: pass {_READ_BYTES},"
                    " not iter_text() or iter_lines() (or encode each chunk)"
                )
            if isinstance(chunk, int):
                raise TypeError(
                    "an SSE body is read as bytes chunks; got an int chunk, as iterating a bytes"
                    f" body gives: pass the body as [body], or {_READ_BYTES}"
                )
            return self.feed_raw(bytes(chunk))
        if not chunk:
            return []
        if len(chunk) > self._window:
            return self._windows(chunk)
        if self._at_start and not self._pending and chunk[0] != _BOM[0]:
            # The stream has no BOM: it starts at an event boundary.
            self._at_start = False
            self._ready = True
            return self.feed_raw(chunk)
        offset = self.bytes_consumed  # absolute offset of chunk[0]
        self.bytes_consumed += len(chunk)
        if self._skip_lf:
            self._skip_lf = False
            if chunk[0] == _LF:
                if self._block_start == offset:  # the LF of a blank line's CRLF
                    self._block_start += 1
                chunk = chunk[1:]
                offset += 1
        if self._at_start and chunk:
            if self._pending:
                chunk = b"".join(self._pending) + chunk
                offset = self._pending_offset
                self._pending.clear()
                self._pending_len = 0
            if len(chunk) < 3 and _BOM.startswith(chunk):
                self._pending_offset = offset
                self._pending.append(chunk)
                self._pending_len = len(chunk)
                return []
            self._at_start = False
            if chunk.startswith(_BOM):
                chunk = chunk[3:]
                offset += 3
                self._block_start = offset
        if chunk:
            return self._guarded(chunk, offset, [])
        self._ready = not (self._parts or self._dirty or self._skip_lf)
        return []

    def _windows(self, chunk: bytes) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """:meth:`feed_raw` of a read longer than a window, as the reads of at
        most a window each that it is cut into: each ends after the last
        blank line in reach, else at the window's length. Any split of a
        stream gives the same events and errors (the invariant in
        :meth:`feed_raw`), so only the grouping into :class:`RawEvents`
        differs from one read; an error carries the events of earlier windows
        too."""
        events: list[ServerSentEvent | RawEvents | NamedEvents] = []
        size = self._window
        start = 0
        try:
            while start < len(chunk):
                stop = start + size
                if stop < len(chunk):
                    end = chunk.rfind(b"\n\n", start, stop)
                    if end >= 0:
                        stop = end + 2
                events += self.feed_raw(chunk[start:stop])
                start = stop
        except SSEError as exc:
            exc.events[:0] = expand(events)
            raise
        return events

    def _guarded(
        self, chunk: bytes, offset: int, before: list[ServerSentEvent | RawEvents | NamedEvents]
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """:meth:`_apply`, marking the decoder failed on an error, whose
        ``events`` then start with the events dispatched ``before``."""
        try:
            events = self._apply(chunk, offset)
        except SSEError as exc:
            self._failed = True
            self._ready = False
            if before:
                exc.events[:0] = expand(before)
            raise
        self._ready = not (self._parts or self._dirty or self._skip_lf)
        return events

    def _apply(self, chunk: bytes, offset: int) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """Apply ``chunk`` (non-empty; BOM and skipped LF already removed), the
        stream's bytes from absolute ``offset``, after the pending line."""
        if self._deferred:
            # Interpret the deferred lines first: they dispatch nothing and raise
            # nothing (see feed_raw); their unterminated line stays pending.
            self._deferred = False
            deferred = b"".join(self._pending)
            self._pending.clear()
            self._pending_len = 0
            self._apply(deferred, self._pending_offset)
        # The complete lines of the chunk end at its last CR or LF.
        end = chunk.rfind(b"\n")
        has_cr = b"\r" in chunk
        if has_cr:
            end = max(end, chunk.rfind(b"\r"))
            if end == len(chunk) - 1 and chunk[end] == _CR:
                self._skip_lf = True  # an LF starting the next chunk ends no line
        pending = self._pending
        if end < 0:
            # No line end in this chunk: the current line just grows.
            if not pending:
                self._pending_offset = offset
            pending.append(chunk)
            self._pending_len += len(chunk)
            if self._pending_len + self._data_bytes > self._max:
                raise EventTooLargeError(self._max, self._pending_offset)
            return []

        # The pending line ends in this chunk: copied once, to be its first line.
        head = b""
        first_start = offset
        if pending:
            head = b"".join(pending)
            first_start = self._pending_offset
            pending.clear()
            self._pending_len = 0
        # The complete lines, line ends removed: chunk[: end + 1].splitlines(), as bytes
        # split only at CR, LF and CRLF.
        text = chunk
        if has_cr:
            text = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = text.split(b"\n")
        lines.pop()  # the unterminated tail, chunk[end + 1 :]
        if head:
            lines[0] = head + lines[0]
        events = (
            # Fast path: no event can outgrow the limit within this chunk.
            self._process_fast(lines)
            if len(head) + len(chunk) + self._data_bytes <= self._max
            else None
        )
        if events is None:
            # Exact path, line by line, for errors and their byte offsets.
            events = self._process_exact(lines, chunk, offset, first_start)
        if b"" in lines:
            # The block close() would discard starts after the last blank line; the lines
            # after it are all of this chunk (only the first line holds pending bytes).
            after = lines[::-1].index(b"")
            ends = chunk[: end + 1].splitlines(keepends=True) if has_cr else None
            size = (
                sum(map(len, ends[len(ends) - after :]))
                if ends is not None
                else sum(map(len, lines[len(lines) - after :])) + after
            )
            self._block_start = offset + end + 1 - size
        if end + 1 < len(chunk):
            tail = chunk[end + 1 :]
            self._pending_offset = offset + end + 1
            pending.append(tail)
            self._pending_len = len(tail)
            if self._pending_len + self._data_bytes > self._max:
                raise EventTooLargeError(self._max, self._pending_offset, expand(events))
        return events

    def close(self) -> list[ServerSentEvent]:
        """Signal the end of the stream.

        Per WHATWG HTML 9.2.6, "once the end of the file is reached, any
        pending data must be discarded": an event without its terminating
        blank line is not dispatched. Sets :attr:`incomplete`. Calling it
        again is a no-op.

        Returns:
            Always ``[]``; the list is returned so that ``feed``/``close``
            can be used alike.

        Raises:
            SSEError: The decoder failed earlier.
        """
        if self._failed:
            raise SSEError("close() on a decoder that failed earlier")
        if self._closed:
            return []
        self._closed = True
        self._ready = False
        self.incomplete = bool(self._pending_len) or bool(self._parts) or self._dirty
        self.bytes_discarded = self.bytes_consumed - self._block_start if self.incomplete else 0
        self._pending = []
        self._pending_len = 0
        self._deferred = False
        self._parts = []
        self._data_bytes = 0
        self._event_type = ""
        self._retry = None
        self._dirty = False
        return []

    def _process_fast(
        self, lines: list[bytes]
    ) -> list[ServerSentEvent | RawEvents | NamedEvents] | None:
        """Apply complete ``lines`` (line ends removed); ``None``, with nothing
        applied, if they are not UTF-8."""
        start = 0
        if self._parts or self._dirty:
            # The event begun before these lines ends at the first blank line.
            start = lines.index(b"") + 1 if b"" in lines else len(lines)
        # The common case: every event is one "data: " line and a blank line,
        # checked and dispatched as one RawEvents without a Python-level loop
        # (the same run, and invariant, as in feed_raw); other lines go
        # through _interpret.
        stop = len(lines) - (len(lines) - start) % 2
        data_lines = lines[start:stop:2]
        simple = not any(lines[start + 1 : stop : 2]) and _all_start_with(
            data_lines, b"data: ", b"data:!"
        )
        values = list(map(_VALUE, data_lines)) if simple else []
        named: NamedEvents | None = None
        try:
            # Line by line finds the same invalid bytes as all at once (a line
            # end is never part of a UTF-8 sequence); ASCII needs no decoding.
            head = list(map(bytes.decode, lines[:start]))
            for value in compress(values, map(not_, map(bytes.isascii, values))):
                value.decode()
            if not simple:
                stop = start + (len(lines) - start) // 3 * 3
                named = self._named(lines, start, stop)
            rest = list(map(bytes.decode, lines[stop if simple or named else start :]))
        except UnicodeDecodeError:
            return None
        events: list[ServerSentEvent | RawEvents | NamedEvents] = []
        if head:
            self._interpret(head, events)
        if values:
            events.append(_new_tuple(RawEvents, (values, self._last_id)))
        if named:
            # The run starts where an event ended, so the event type and retry are
            # already reset; each event's dispatch sets the last event ID to the buffer.
            events.append(named)
            self.last_event_id = self._last_id
        if rest:
            self._interpret(rest, events)
        return events

    def _named(self, lines: list[bytes], start: int, stop: int) -> NamedEvents | None:
        """The events of ``lines[start:stop]`` as one :class:`NamedEvents` when every
        one is an ``event: `` line, a ``data: `` line and a blank line (Anthropic's and
        OpenAI Responses' named events), checked without a Python-level loop; ``None``
        when they are not.

        The same events :meth:`_interpret` dispatches from those lines: the type is the
        ``event`` value (``message`` when empty), the data the ``data`` value, the ID
        the last event ID buffer (unchanged by these lines), no ``retry``. It changes
        no state: the run starts where an event ended (the event type and ``retry``
        already reset), and ends the same way.

        Raises:
            UnicodeDecodeError: a line is not UTF-8 (the caller then takes the exact path).
        """
        if stop <= start:
            return None
        event_lines, datas = lines[start:stop:3], lines[start + 1 : stop : 3]
        if (
            any(lines[start + 2 : stop : 3])
            or not _all_start_with(event_lines, b"event: ", b"event:!")
            or not _all_start_with(datas, b"data: ", b"data:!")
        ):
            return None
        values = list(map(_VALUE, datas))
        # Line by line finds the same invalid bytes as all at once; ASCII needs no decoding.
        for line in compress(lines[start:stop], map(not_, map(bytes.isascii, lines[start:stop]))):
            line.decode()
        return _new_tuple(NamedEvents, (event_lines, values, self._last_id))

    def _interpret(
        self, lines: list[str], events: list[ServerSentEvent | RawEvents | NamedEvents]
    ) -> None:
        """Apply complete ``lines`` (line ends removed), appending to ``events``.

        The line interpreter of WHATWG HTML 9.2.6, and the one place for its
        field rules: a blank line dispatches the event (if its data buffer is
        non-empty) and resets the event type and ``retry``; a line starting
        with ``:`` is a comment; ``name:value`` loses one space after the
        colon, a line without a colon is a field with an empty value;
        ``data`` appends to the data buffer, ``event`` sets the event type,
        ``id`` sets the last event ID buffer unless the value contains
        U+0000, ``retry`` sets the reconnection time if the value is all
        ASCII digits; other field names (case-sensitive) are ignored.

        The caller has decoded the lines and checked that no event can exceed
        the size limit (:meth:`_process_exact` checks both line by line).
        """
        parts = self._parts
        data_bytes = self._data_bytes
        for line in lines:
            if not line:
                # Blank line: dispatch the event.
                if parts:
                    events.append(
                        tuple.__new__(
                            ServerSentEvent,
                            (
                                self._event_type or "message",
                                parts[0] if len(parts) == 1 else "\n".join(parts),
                                self._last_id,
                                self._retry,
                            ),
                        )
                    )
                    parts = self._parts = []
                    data_bytes = 0
                if self._dirty:
                    self.last_event_id = self._last_id
                    self._event_type = ""
                    self._retry = None
                    self._dirty = False
                continue
            if line[0] == ":":
                continue  # comment
            name, colon, value = line.partition(":")
            if colon and value[:1] == " ":
                value = value[1:]
            if name == "data":
                parts.append(value)
                data_bytes += (len(value) if value.isascii() else len(value.encode())) + 1
                continue
            self._dirty = True
            if name == "event":
                self._event_type = value
            elif name == "id":
                if "\0" not in value:
                    self._last_id = value
            elif name == "retry":
                if value.isascii() and value.isdigit():
                    try:
                        self._retry = self.reconnection_time = int(value)
                    except ValueError:  # more digits than int() converts
                        self._data_bytes = data_bytes
                        raise InvalidFieldError(
                            "retry", f"a value of {len(value)} digits", expand(events)
                        ) from None
        self._data_bytes = data_bytes

    def _process_exact(
        self, lines: list[bytes], chunk: bytes, offset: int, first_start: int
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """Apply the complete ``lines`` (line ends removed) of ``chunk``,
        checking the size limit and decoding line by line, so that an error
        names the exact byte offset and carries exactly the events dispatched
        before it; the lines are applied by :meth:`_interpret`, in batches that
        cannot take an event over the limit."""
        events: list[ServerSentEvent | RawEvents | NamedEvents] = []
        limit = self._max
        batch: list[str] = []
        # A line adds at most its length to the data buffer (a blank line
        # empties it): lines fitting in ``room`` cannot exceed the limit.
        room = limit - self._data_bytes
        for i, line in enumerate(lines):
            if len(line) > room:
                # Apply the batch to learn the data buffer's size before this line.
                self._interpret(batch, events)
                batch = []
                room = limit - self._data_bytes
                if len(line) > room:
                    raise EventTooLargeError(
                        limit, self._line_start(chunk, offset, first_start, i), expand(events)
                    )
            try:
                batch.append(line.decode())
            except UnicodeDecodeError as exc:
                self._interpret(batch, events)
                raise InvalidUTF8Error(
                    self._line_start(chunk, offset, first_start, i) + exc.start,
                    exc.reason,
                    expand(events),
                ) from None
            room -= len(line)
        self._interpret(batch, events)
        return events

    @staticmethod
    def _line_start(chunk: bytes, offset: int, first_start: int, index: int) -> int:
        """Absolute offset of line ``index`` of ``chunk`` (error path only)."""
        if index == 0:
            return first_start
        return offset + sum(map(len, chunk.splitlines(keepends=True)[:index]))


def iter_events(
    chunks: Iterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
) -> Iterator[ServerSentEvent]:
    """Decode a stream given as an iterable of byte chunks.

    Args:
        chunks: The body in chunks of any size, e.g. httpx's
            ``response.iter_bytes()``; ``bytes``, ``bytearray`` or
            ``memoryview``. Consumed lazily, one chunk at a time.
        max_event_bytes: See :class:`SSEDecoder`.
        state: Optional :class:`StreamState`, updated after each chunk; its
            ``incomplete`` is set when ``chunks`` is exhausted (or on error).

    Yields:
        Each :class:`ServerSentEvent` as soon as its blank line arrives
        (WHATWG HTML 9.2.6); an unterminated last event is discarded.

    Raises:
        InvalidUTF8Error, EventTooLargeError: As :meth:`SSEDecoder.feed`;
            events dispatched before the error are yielded first (and the
            exception's ``events`` is then emptied).
        TypeError: ``chunks`` is a whole body, not its chunks, or a chunk is a
            ``str`` (see :func:`check_chunks`), when iteration starts.
    """
    for batch in iter_raw(chunks, max_event_bytes=max_event_bytes, state=state):
        yield from expand(batch)


async def aiter_events(
    chunks: AsyncIterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
) -> AsyncIterator[ServerSentEvent]:
    """Decode a stream given as an async iterable of byte chunks.

    Args:
        chunks: The body in chunks of any size, e.g. httpx's
            ``response.aiter_bytes()``; ``bytes``, ``bytearray`` or
            ``memoryview``. Consumed lazily, one chunk at a time.
        max_event_bytes: See :class:`SSEDecoder`.
        state: Optional :class:`StreamState`, updated after each chunk; its
            ``incomplete`` is set when ``chunks`` is exhausted (or on error).

    Yields:
        Each :class:`ServerSentEvent` as soon as its blank line arrives
        (WHATWG HTML 9.2.6); an unterminated last event is discarded.

    Raises:
        InvalidUTF8Error, EventTooLargeError: As :meth:`SSEDecoder.feed`;
            events dispatched before the error are yielded first (and the
            exception's ``events`` is then emptied).
        TypeError: ``chunks`` is a whole body, not its chunks, or a chunk is a
            ``str`` (see :func:`check_chunks`), when iteration starts.
    """
    async for batch in aiter_raw(chunks, max_event_bytes=max_event_bytes, state=state):
        for event in expand(batch):
            yield event


def iter_raw(
    chunks: Iterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
) -> Iterator[list[ServerSentEvent | RawEvents | NamedEvents]]:
    """:func:`iter_events`, giving the events of each chunk as one list, as
    :meth:`SSEDecoder.feed_raw` returns them (runs of plain ``data:`` events
    as :class:`RawEvents`); chunks that dispatch nothing give no list.

    Same arguments, state updates and errors as :func:`iter_events`; the
    events dispatched before an error come as one last list.
    """
    check_chunks(chunks, "iter_events()")
    decoder = SSEDecoder(max_event_bytes)
    if state is None:
        state = StreamState()
    state._decoder = decoder
    for chunk in chunks:
        try:
            events = decoder.feed_raw(chunk)
        except SSEError as exc:
            state.incomplete = True
            yield [*exc.events]
            exc.events = []
            raise
        if events:
            yield events
    decoder.close()
    state.incomplete = decoder.incomplete
    state.bytes_discarded = decoder.bytes_discarded


async def aiter_raw(
    chunks: AsyncIterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
) -> AsyncIterator[list[ServerSentEvent | RawEvents | NamedEvents]]:
    """:func:`iter_raw` over an async iterable of byte chunks (see :func:`aiter_events`)."""
    check_chunks(chunks, "aiter_events()", is_async=True)
    decoder = SSEDecoder(max_event_bytes)
    if state is None:
        state = StreamState()
    state._decoder = decoder
    async for chunk in chunks:
        try:
            events = decoder.feed_raw(chunk)
        except SSEError as exc:
            state.incomplete = True
            yield [*exc.events]
            exc.events = []
            raise
        if events:
            yield events
    decoder.close()
    state.incomplete = decoder.incomplete
    state.bytes_discarded = decoder.bytes_discarded
