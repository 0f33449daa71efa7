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

It is built in layers, each testable alone, read top to bottom:

* :class:`~.sse_lines.LineSplitter` (``sse_lines.py``): bytes, read in pieces, to complete lines (CR, LF, CRLF,
  also across reads; the BOM; the pending line, kept without copying).
* :class:`~.sse_fields.FieldInterpreter` (``sse_fields.py``): the field rules (``event``, ``data``, ``id``,
  ``retry``, comments, dispatch on a blank line), in one place.
* :func:`~.sse_runs.scan_run` (``sse_runs.py``): the one run scanner. The LLM streams served are mostly
  runs of events that are each one ``data:`` line holding a JSON chunk
  (specs/deepseek/asyncapi-page.txt:7, specs/xerotier/streaming-api.md:10-11), or
  an ``event:`` line and a ``data:`` line (Anthropic Messages, OpenAI Responses);
  such a run is taken at once (:class:`RawEvents`, :class:`NamedEvents`), with the
  same results as the line-by-line rules, by every fast path.
* :class:`SSEDecoder`: the layers fed read by read (``feed``, ``feed_raw``,
  ``close``); :func:`iter_events` and :func:`aiter_events` over an iterable of
  reads.

Every failure caused by the bytes of a stream is an :class:`SSEError`, so that a
consumer catching it sees no other exception from the network's bytes::

    SSEError                  the stream cannot be decoded (base class)
    +-- InvalidUTF8Error      a line is not UTF-8
    +-- EventTooLargeError    an event grew beyond ``max_event_bytes``
    +-- InvalidFieldError     a field value cannot be applied (a ``retry`` of 5000 digits)
    +-- PayloadError          an event's data cannot be turned into a typed event
                              (JSON nested too deep, a number too large: raised by
                              ``stream.py``'s typed decoding)

The tests check every layer against a literal transcription of the standard's
algorithm over a whole body (``tests/helpers/whatwg.py``), for any split into reads.

This module is ``src/ssegen/runtime/sse.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator

from .framing import (
    DEFAULT_MAX_EVENT_BYTES,
    READ_BYTES,
    EventTooLargeError,
    Framer,
    Framing,
    InvalidFieldError,
    InvalidUTF8Error,
    NamedEvents,
    PayloadError,
    RawEvents,
    ServerSentEvent,
    SSEError,
    StreamState,
    aread_items,
    check_chunks,
    expand,
    read_items,
)
from .sse_fields import FieldInterpreter
from .sse_lines import Lines, LineSplitter
from .sse_runs import is_utf8, scan_run

__all__ = [
    "DEFAULT_MAX_EVENT_BYTES",
    "FieldInterpreter",
    "LineSplitter",
    "Lines",
    "EventTooLargeError",
    "Framer",
    "InvalidFieldError",
    "InvalidUTF8Error",
    "NamedEvents",
    "PayloadError",
    "RawEvents",
    "SSE",
    "SSEDecoder",
    "SSEFraming",
    "SSEError",
    "ServerSentEvent",
    "StreamState",
    "aiter_events",
    "aiter_raw",
    "check_chunks",
    "expand",
    "iter_events",
    "iter_raw",
    "scan_run",
    "sse_frame",
]

_BOM = b"\xef\xbb\xbf"
_WINDOW = 64 * 1024
"""Largest read, in bytes, taken in one piece (see :meth:`SSEDecoder.feed_raw`)."""


# --------------------------------------------------------------------------
# The decoder: the three layers, fed read by read


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

    It is built of three layers: :class:`LineSplitter` (bytes to lines),
    :class:`FieldInterpreter` (the field rules) and :func:`scan_run` (runs of
    events taken at once); ssegen's tests check it against the same algorithm
    transcribed literally (``tests/helpers/whatwg.py``).

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
        "_lines",
        "_fields",
        "_max",
        "_window",
        "_closed",
        "_failed",
        "_ready",
    )

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if max_event_bytes <= 0:
            raise ValueError(f"max_event_bytes must be positive, got {max_event_bytes}")
        self.bytes_consumed: int = 0
        self.bytes_discarded: int = 0
        self.incomplete: bool = False
        self._lines = LineSplitter(max_event_bytes)
        self._fields = FieldInterpreter()
        self._max = max_event_bytes
        # Reads are taken in windows of at most this many bytes (see feed_raw).
        self._window = min(_WINDOW, max_event_bytes)
        self._closed = False
        self._failed = False
        # At an event boundary, past the BOM, usable, no LF to skip: a read without
        # CR may take feed_raw's fast path.
        self._ready = False

    @property
    def last_event_id(self) -> str:
        """See the class docstring."""
        return self._fields.last_event_id

    @property
    def reconnection_time(self) -> int | None:
        """See the class docstring."""
        return self._fields.reconnection_time

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
            InvalidFieldError: A ``retry`` value has more digits than ``int()`` converts.
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
        """:meth:`feed`, giving runs of plain ``data:`` events as :class:`RawEvents`
        and runs of ``event:`` + ``data:`` events as :class:`NamedEvents`.

        Same events, errors (whose ``events`` are all :class:`ServerSentEvent`)
        and laziness as :meth:`feed`; :func:`expand` turns the result into
        what :meth:`feed` returns. A read longer than 64 KiB (or than
        ``max_event_bytes``, if smaller) is taken as consecutive windows of
        at most that size, each ending after a blank line where one is in
        reach, so that it may give several runs.

        The fast path is the common read: ``bytes`` without CR, at an event boundary,
        holding a blank line, within the limit with the pending bytes (so that no event
        of it can exceed the limit). It goes to :meth:`_from_boundary`; any other read
        goes through :meth:`_feed` (BOM, LF after CR, other buffer types, long reads,
        closed or failed decoders) and :meth:`_apply` (lines).
        """
        if not (
            self._ready
            and type(chunk) is bytes
            and len(chunk) <= self._window
            and chunk.find(b"\r") < 0
        ):
            return self._feed(chunk)
        offset = self.bytes_consumed  # absolute offset of chunk[0]
        self.bytes_consumed = offset + len(chunk)
        cut = chunk.rfind(b"\n\n")
        lines = self._lines
        if cut < 0:
            return self._guarded(chunk, offset, []) if chunk else []
        if lines.pending:
            if lines.pending_len + len(chunk) > self._max:
                return self._guarded(chunk, offset, [])
            cut += lines.pending_len
            chunk, offset = lines.take(chunk)
        run, stop = scan_run(chunk, 0, cut, self._fields.last_id)
        if run is not None and stop == len(chunk):  # all of it (as a read per event is)
            lines.block_start = offset + stop
            return [run]
        return self._from_boundary(chunk, offset, cut, run, stop)

    def _from_boundary(
        self, whole: bytes, offset: int, cut: int, run: RawEvents | NamedEvents | None, stop: int
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """The fast path of :meth:`feed_raw`: ``whole`` (no CR, within the limit) starts
        at an event boundary at absolute ``offset``, its last blank line ends at
        ``cut + 2``, and ``run`` is the run at its start, up to ``stop``
        (:func:`scan_run`).

        The run is taken at once; the other complete events go to the line
        interpreter. The event begun after the last blank line is kept as bytes, not
        interpreted, and read again whole with the next read (so that each read starts
        at an event boundary and may take a run at once).
        Deferring its complete lines changes nothing observable: they dispatch nothing
        (no blank line among them), set no reconnection time (no ``retry``, else they
        are not deferred), are valid UTF-8 (checked, else they are not deferred, so an
        error is raised by this read, as line by line), and cannot exceed the limit
        (the pending bytes of an event are at most its bytes, here at most the limit).
        """
        events: list[ServerSentEvent | RawEvents | NamedEvents] = [run] if run else []
        if run is not None:
            self._lines.block_start = offset + stop
        end = cut + 2
        if end == len(whole):
            if stop < end:
                events += self._guarded(whole[stop:], offset + stop, events)
            return events
        tail = whole[end:]
        lines_end = tail.rfind(b"\n") + 1  # the end of its complete lines
        if lines_end and (
            tail.find(b"retry") >= 0 or not (tail.isascii() or is_utf8(tail, lines_end))
        ):
            return events + self._guarded(whole[stop:], offset + stop, events)
        if stop < end:
            events += self._guarded(whole[stop:end], offset + stop, events)
        self._lines.keep(tail, offset + end, lines_end > 0)
        return events

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
            return self.feed_raw(_as_bytes(chunk))
        if not chunk:
            return []
        if len(chunk) > self._window:
            return self._windows(chunk)
        lines = self._lines
        if lines.at_start and not lines.pending and chunk[0] != _BOM[0]:
            # The stream has no BOM: it starts at an event boundary.
            lines.at_start = False
            self._ready = True
            return self.feed_raw(chunk)
        offset = self.bytes_consumed  # absolute offset of chunk[0]
        self.bytes_consumed += len(chunk)
        prepared = lines.prepare(chunk, offset)
        if prepared is None:
            return []
        chunk, offset = prepared
        if chunk:
            return self._guarded(chunk, offset, [])
        self._ready = not (self._fields.in_event or lines.skip_lf)
        return []

    def _windows(self, chunk: bytes) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """:meth:`feed_raw` of a read longer than a window, as the reads of at
        most a window each that it is cut into: each ends after the last
        blank line in reach, else at the window's length. Any split of a
        stream gives the same events and errors (the invariant in
        :func:`scan_run`), so only the grouping into runs differs from one
        read; an error carries the events of earlier windows too."""
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
        self._ready = not (self._fields.in_event or self._lines.skip_lf)
        return events

    def _apply(self, chunk: bytes, offset: int) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """Apply ``chunk`` (non-empty; BOM and skipped LF already removed), the
        stream's bytes from absolute ``offset``, after the pending bytes."""
        lines = self._lines
        fields = self._fields
        split = lines.split(chunk, offset)
        if split is None:  # no line end: the pending line just grows
            lines.check_pending(fields.data_bytes, [])
            return []
        events = None
        if len(split.raw) + fields.data_bytes <= self._max:
            # No event can outgrow the limit within these lines.
            events = self._process_fast(split)
        if events is None:
            events = self._process_exact(split)
        block_start = split.block_start()
        if block_start >= 0:
            lines.block_start = block_start
        if lines.pending_len:
            lines.check_pending(fields.data_bytes, events)
        return events

    def _process_fast(self, split: Lines) -> list[ServerSentEvent | RawEvents | NamedEvents] | None:
        """Apply the complete lines of ``split``; ``None``, with nothing applied, if
        they are not UTF-8.

        The lines that end the event in progress (up to its blank line) go to the
        interpreter; then the run after them (:func:`scan_run`) is taken at once; the
        lines after the run go to the interpreter."""
        lines = split.lines
        fields = self._fields
        first = 0  # the first line at an event boundary
        if fields.in_event:
            first = lines.index(b"") + 1 if b"" in lines else len(lines)
        start = sum(map(len, lines[:first])) + first  # its index in split.text
        cut = split.text.rfind(b"\n\n", start)
        run, rest = None, first
        if cut >= 0:
            run, _ = scan_run(split.text, start, cut, fields.last_id)
            if run is not None:
                rest = first + len(run.values) * (2 if type(run) is RawEvents else 3)
        try:
            # Line by line finds the same invalid bytes as all at once (a line end is
            # never part of a UTF-8 sequence).
            head = list(map(bytes.decode, lines[:first]))
            tail = list(map(bytes.decode, lines[rest:]))
        except UnicodeDecodeError:
            return None
        events: list[ServerSentEvent | RawEvents | NamedEvents] = []
        if head:
            fields.interpret(head, events)
            if run is not None and run.id != fields.last_id:  # an "id" line in the head
                run = run._replace(id=fields.last_id)
        if run is not None:
            events.append(run)
        if tail:
            fields.interpret(tail, events)
        return events

    def _process_exact(self, split: Lines) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """Apply the complete lines of ``split``, checking the size limit and decoding
        line by line, so that an error names the exact byte offset and carries exactly
        the events dispatched before it; the lines are interpreted in batches that
        cannot take an event over the limit."""
        events: list[ServerSentEvent | RawEvents | NamedEvents] = []
        fields = self._fields
        limit = self._max
        batch: list[str] = []
        # A line adds at most its length to the data buffer (a blank line
        # empties it): lines fitting in ``room`` cannot exceed the limit.
        room = limit - fields.data_bytes
        for i, line in enumerate(split.lines):
            if len(line) > room:
                # Apply the batch to learn the data buffer's size before this line.
                fields.interpret(batch, events)
                batch = []
                room = limit - fields.data_bytes
                if len(line) > room:
                    raise EventTooLargeError(limit, split.line_start(i), expand(events))
            try:
                batch.append(line.decode())
            except UnicodeDecodeError as exc:
                fields.interpret(batch, events)
                offset = split.line_start(i) + exc.start
                raise InvalidUTF8Error(offset, exc.reason, expand(events)) from None
            room -= len(line)
        fields.interpret(batch, events)
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
        lines = self._lines
        if lines.deferred:
            # Complete lines kept as bytes (see _from_boundary): interpreted now, so that
            # a stream ending with, say, a comment line is complete, as line by line.
            # They dispatch nothing and raise nothing.
            deferred, offset = lines.take(b"")
            self._apply(deferred, offset)
        self._closed = True
        self._ready = False
        self.incomplete = bool(lines.pending_len) or self._fields.in_event
        self.bytes_discarded = self.bytes_consumed - lines.block_start if self.incomplete else 0
        lines.pending.clear()
        lines.pending_len = 0
        self._fields.reset()
        return []


def _as_bytes(chunk: bytes | bytearray | memoryview) -> bytes:
    """A read that is not ``bytes`` (``bytearray``, ``memoryview``) as ``bytes``.

    Raises:
        TypeError: ``chunk`` is a ``str`` or an ``int`` (an item of a ``bytes`` body
            iterated as if it were the chunks), with what to pass instead.
    """
    if isinstance(chunk, str):
        raise TypeError(
            f"an SSE body is read as bytes chunks; got a str chunk: pass {READ_BYTES},"
            " not iter_text() or iter_lines() (or encode each chunk)"
        )
    if isinstance(chunk, int):
        raise TypeError(
            "an SSE body is read as bytes chunks; got an int chunk, as iterating a bytes"
            f" body gives: pass the body as [body], or {READ_BYTES}"
        )
    return bytes(chunk)


def iter_events(
    chunks: Iterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
    framer: Callable[[int], Framer] = SSEDecoder,
) -> Iterator[ServerSentEvent]:
    """Decode a stream given as an iterable of byte chunks.

    Args:
        chunks: The body in chunks of any size, e.g. httpx's
            ``response.iter_bytes()``; ``bytes``, ``bytearray`` or
            ``memoryview``. Consumed lazily, one chunk at a time.
        max_event_bytes: See :class:`SSEDecoder`.
        state: Optional :class:`StreamState`, updated after each chunk; its
            ``incomplete`` is set when ``chunks`` is exhausted (or on error).
        framer: See :func:`iter_raw` (a channel's ``framer``).

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
    for batch in iter_raw(chunks, max_event_bytes=max_event_bytes, state=state, framer=framer):
        yield from expand(batch)


async def aiter_events(
    chunks: AsyncIterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
    framer: Callable[[int], Framer] = SSEDecoder,
) -> AsyncIterator[ServerSentEvent]:
    """Decode a stream given as an async iterable of byte chunks.

    Args:
        chunks: The body in chunks of any size, e.g. httpx's
            ``response.aiter_bytes()``; ``bytes``, ``bytearray`` or
            ``memoryview``. Consumed lazily, one chunk at a time.
        max_event_bytes: See :class:`SSEDecoder`.
        state: Optional :class:`StreamState`, updated after each chunk; its
            ``incomplete`` is set when ``chunks`` is exhausted (or on error).
        framer: See :func:`iter_raw` (a channel's ``framer``).

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
    async for batch in aiter_raw(
        chunks, max_event_bytes=max_event_bytes, state=state, framer=framer
    ):
        for event in expand(batch):
            yield event


def iter_raw(
    chunks: Iterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
    framer: Callable[[int], Framer] = SSEDecoder,
) -> Iterator[list[ServerSentEvent | RawEvents | NamedEvents]]:
    """:func:`iter_events`, giving the events of each chunk as one list, as
    :meth:`SSEDecoder.feed_raw` returns them (runs of plain ``data:`` events
    as :class:`RawEvents`); chunks that dispatch nothing give no list.
    Same arguments, state updates and errors as :func:`iter_events`; the
    events dispatched before an error come as one last list. ``framer`` builds the
    decoder from ``max_event_bytes`` (:class:`SSEDecoder`, or ``ndjson.NDJSONDecoder``
    for a newline-delimited JSON body); what its ``close`` dispatches comes last.
    The driver is :func:`.framing.read_items`, shared by every framing.
    """
    return read_items(chunks, framer, max_event_bytes, state, "iter_events()")


def aiter_raw(
    chunks: AsyncIterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
    state: StreamState | None = None,
    framer: Callable[[int], Framer] = SSEDecoder,
) -> AsyncIterator[list[ServerSentEvent | RawEvents | NamedEvents]]:
    """:func:`iter_raw` over an async iterable of byte chunks (see :func:`aiter_events`):
    :func:`.framing.aread_items`."""
    return aread_items(chunks, framer, max_event_bytes, state, "aiter_events()")


# --------------------------------------------------------------------------
# The framing object: text/event-stream both ways

_UNSAFE = re.compile("[\r\n\0]")


def sse_frame(data: str, event: str = "message", id: str = "") -> bytes:
    """One SSE event as bytes: an ``event:`` line unless the type is ``message``, an ``id:``
    line when ``id`` is set, one ``data:`` line per line of ``data`` (split at LF, as the WHATWG
    "event stream interpretation" joins ``data:`` lines with LF), then a blank line; decoding
    it gives back ``event``, ``data`` and ``id``.

    Raises:
        ValueError: ``event`` or ``id`` holds CR, LF or NUL, or ``data`` holds CR, which no
            SSE field can carry (the decoder would end the line there); or ``event`` is empty
            (read back as ``message``, WHATWG dispatch).
    """
    if _UNSAFE.search(event) or _UNSAFE.search(id):
        raise ValueError(f"an SSE event type or id cannot hold CR, LF or NUL: {event!r}, {id!r}")
    if not event:
        raise ValueError("an empty SSE event type is read as 'message': it would not read back")
    if "\r" in data:
        raise ValueError("SSE data cannot hold CR (it ends a line); only LF splits data lines")
    head = ("" if event == "message" else f"event: {event}\n") + (f"id: {id}\n" if id else "")
    lines = "".join(f"data: {line}\n" for line in data.split("\n"))
    return f"{head}{lines}\n".encode()


class SSEFraming(Framing):
    """``text/event-stream`` (WHATWG HTML 9.2.6): decoded by :class:`SSEDecoder`, an event
    written as its ``event:`` line (none for type ``message``) and its ``data:`` lines
    (:func:`sse_frame`). The one instance is :data:`SSE`."""

    __slots__ = ("_heads",)
    name = "sse"
    media_type = "text/event-stream"
    media_types = ("text/event-stream",)
    content_type = "text/event-stream; charset=utf-8"
    label = "SSE"
    id_reset = b"id\n"  # an ``id`` field of no value: the last event ID buffer emptied

    def __init__(self) -> None:
        # The lines before ``data:`` per event type, built once per type.
        self._heads: dict[str, bytes] = {}

    def decoder(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> Framer:
        """A new :class:`SSEDecoder` (see :meth:`.framing.Framing.decoder`)."""
        return SSEDecoder(max_event_bytes)

    def frame(self, data: bytes, event: str = "message") -> bytes:
        """``event: <event>`` (none for ``message``), ``data: <data>`` and a blank line
        (see :meth:`.framing.Framing.frame`; ``data`` holds no line break).

        Raises:
            ValueError: ``event`` holds CR, LF or NUL.
        """
        head = self._heads.get(event)
        if head is None:
            head = self._heads[event] = sse_frame("", event)[: -len(b"data: \n\n")]
        return head + b"data: " + data + b"\n\n"

    def frame_text(self, data: str, event: str = "message", id: str = "") -> bytes:
        """:func:`sse_frame` (see :meth:`.framing.Framing.frame_text`)."""
        return sse_frame(data, event, id)


SSE = SSEFraming()
"""The ``text/event-stream`` framing, every SSE channel's ``framing``."""
