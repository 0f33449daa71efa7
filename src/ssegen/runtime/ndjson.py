"""Incremental decoder for newline-delimited JSON bodies (NDJSON, JSON Lines).

Some LLM streams are not Server-Sent Events: Ollama's ``/api/chat`` and ``/api/generate``
send one JSON value per line (``application/x-ndjson``), Cohere's API can send JSON lines,
and documents also name ``application/jsonl``. :class:`NDJSONDecoder` frames such a body
into its values and gives them in the shape :class:`~.sse.SSEDecoder` gives a run of
``data:`` events (:class:`~.sse.RawEvents`, type ``message``), so that a channel's
discrimination and accumulation work on them unchanged. When every line of a read begins
with ``{`` and ends with ``}``, as a server writing compact JSON objects sends them, the
run's values are the read's lines as one ``bytes`` (:class:`Lines`), which a
channel decodes in one call.

Rules (https://github.com/ndjson/ndjson-spec, https://jsonlines.org):

* a value ends at LF; a CR before the LF is dropped (CRLF line ends); a lone CR is not a
  line end (it is whitespace inside or around a JSON value);
* one leading UTF-8 BOM is skipped; lines that are empty or only whitespace are skipped
  (the NDJSON spec allows parsers to ignore them);
* the last line of the body may lack its LF (JSON Lines allows it): at :meth:`close` it
  is given as a value when it parses as JSON; otherwise it was cut, and it is discarded
  and reported as for an SSE event without its blank line (:attr:`incomplete`,
  :attr:`bytes_discarded`, so the stream ends ``truncated``).

:data:`NDJSON` (an :class:`NDJSONFraming`) is the framing object a channel holds: it builds
the decoder and writes each event as one line.

JSON text sequences (RFC 7464, ``application/json-seq``) are not read: their records are
delimited by the record separator (0x1E) and may span lines, so they need their own
splitter.

Errors are those of :mod:`.framing` (one hierarchy for every framing): invalid UTF-8 in a
complete line raises :class:`~.sse.InvalidUTF8Error`, a line longer than
``max_event_bytes`` :class:`~.sse.EventTooLargeError`, each with the stream's byte offset.
Memory is O(longest line). Split-invariant: any split of a body into reads gives the same
values, errors and truncation as one read.

This module is ``src/ssegen/runtime/ndjson.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from typing import overload

from .framing import (
    DEFAULT_MAX_EVENT_BYTES,
    PENDING_PIECES,
    EventTooLargeError,
    Framer,
    Framing,
    InvalidUTF8Error,
    NamedEvents,
    RawEvents,
    ServerSentEvent,
    SSEError,
    expand,
    join_pending,
    new_tuple,
)
from .json_values import is_sequence

__all__ = ["NDJSON", "Lines", "NDJSONDecoder", "NDJSONFraming", "iter_values", "unreadable_line"]

_BOM = b"\xef\xbb\xbf"


class Lines(Sequence[bytes]):
    """Newline-delimited JSON lines kept as the bytes read: a sequence of the lines of
    :attr:`data` without their LF, split only when it is read. ``ndjson.NDJSONDecoder`` gives
    a read's complete lines so (the values of a :class:`RawEvents`), so that a consumer
    decoding them at once hands the read's bytes to one call (msgspec's
    ``Decoder.decode_lines``), with no ``bytes`` object made per line.

    Each line is a JSON object's text as far as its first and last bytes tell: not empty,
    beginning with ``{`` and ending with ``}`` (so neither a CR nor a blank line). That makes
    one batch decode the same as one decode per line whenever it gives ``len(lines)`` values.
    ``decode_lines`` reads values separated by any whitespace. At each LF the parser is outside
    every string (a raw LF is invalid inside one, RFC 8259 section 7), just past a ``}``: were
    that ``}`` closing a nested object, the next token would have to be ``,``, ``]`` or ``}``,
    not the ``{`` beginning the next line. So every line end is a boundary between top-level
    values, each line holds at least one whole value, and as many values as lines leave
    exactly one in each: value ``i`` of the batch is line ``i`` decoded alone.

    Args:
        data: the lines, each ended by its LF, valid UTF-8, each beginning with ``{`` and
            ending with ``}`` (the framer checks it; this class does not).
        count: the number of lines (of LFs in ``data``).

    Attributes:
        data: as given.
    """

    __slots__ = ("data", "_count")

    def __init__(self, data: bytes, count: int) -> None:
        self.data = data
        self._count = count

    def lines(self) -> list[bytes]:
        """The lines, each without its LF (a new list of new ``bytes``)."""
        return self.data[:-1].split(b"\n")

    def __len__(self) -> int:
        return self._count

    @overload
    def __getitem__(self, index: int) -> bytes: ...

    @overload
    def __getitem__(self, index: slice) -> list[bytes]: ...

    def __getitem__(self, index: int | slice) -> bytes | list[bytes]:
        return self.lines()[index]

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.lines())

    def __eq__(self, other: object) -> bool:
        """Equal to the same lines, as a :class:`Lines`, a list or a tuple."""
        if isinstance(other, Lines):
            return self.data == other.data
        if is_sequence(other):
            return self.lines() == list(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to lists, which have none

    def __repr__(self) -> str:
        return f"Lines({self.data!r}, {self._count})"


#: An LF that is not ``}`` LF ``{`` (an object's line ending and the next one's beginning): the
#: LF not followed by ``{``, or followed by it and not preceded by ``}``. ``re`` scans for the LF
#: (the pattern's first byte) and tries the rest at each: no object per line, where counting
#: ``}`` LF ``{`` (``findall``: a ``bytes`` per match; ``bytes.count``'s skip loop) cost 25-35%
#: more (Ollama's 20,000 lines, Python 3.11).
_NOT_BOUNDARY = re.compile(rb"\n(?:[^{]|(?<=[^}]\n))")
#: The most values one run (:class:`~.sse.RawEvents`) of lines checked one by one holds: a long
#: read (a whole body) is handed on as runs of this many, so that a consumer decoding a run at
#: once holds a run's typed values, not the read's, while it applies them (Ollama, whole body
#: of 20,000 lines: one run of all of them decoded 2.3x slower than runs of 64, the typed
#: values no longer in the CPU caches when they are applied, and all of them held at once).
RUN_VALUES = 64
#: The same bound for the lines kept as read (:class:`Lines`), in bytes: a long read is handed on
#: in spans of at most this many bytes, cut at line ends (a longer line is a span of its own).
#: About 460 of Ollama's ~140-byte lines: a whole body of 20,000 lines decoded and accumulated
#: 1.03x the floor in spans of 32 or 64 KiB (wall time; spans of 8 and 16 KiB measured slower).
SPAN_BYTES = 64 * 1024
#: The bytes reads are joined into for a consumer that waits for the whole body
#: (:attr:`NDJSONDecoder.join_reads`): less than a span, so that a joined read is one span (4 KiB
#: reads joined by twelve). Ollama's 20,000 lines decoded and accumulated, 4 KiB reads: 0.59-0.60x
#: the floor read by read, 0.65-0.69x joined into 24 KiB (CPU time, load 7.5); joined into 48 KiB
#: rather than 24 KiB 0.80-0.83x -> 0.82-0.88x, one read per line 0.73x -> 0.75x (wall time).
JOIN_BYTES = 48 * 1024


def _clean_lines(lines: list[bytes], cr: bool = True) -> list[bytes]:
    """``lines`` without the CR of a CRLF (when ``cr``: some line holds a CR) and
    without blank lines. Each step is a C-level pass unless the lines hold what it
    removes."""
    if cr:
        lines = [line[:-1] if line[-1:] == b"\r" else line for line in lines]
    values = list(filter(None, lines))
    # A line that is only whitespace sorts first: every byte of it is at most b" ".
    if values and min(values)[:1] <= b" ":
        values = [value for value in values if value.strip()]
    return values


class NDJSONDecoder:
    """Push-style, incremental decoder of a newline-delimited JSON body.

    The same interface as :class:`~.sse.SSEDecoder` (``feed``, ``feed_raw``, ``close``
    and the progress attributes), so a stream reads either framing alike; each value is
    an event of type ``message`` whose data is the line.

    Args:
        max_event_bytes: limit, in bytes, on one line (without its line end); must be
            positive.

    Raises:
        ValueError: ``max_event_bytes`` is not positive.

    Attributes:
        bytes_consumed: total bytes passed to :meth:`feed` so far.
        incomplete: set by :meth:`close`: ``True`` when the last line lacked its LF and
            is not a JSON value (it was cut), else ``False``.
        bytes_discarded: set by :meth:`close`: the bytes of that cut line; else 0.
        last_event_id: always ``""`` (the framing has no event IDs).
        reconnection_time: always ``None`` (nor reconnection times).

    After an :class:`~.sse.SSEError` the decoder is unusable: further calls raise
    :class:`~.sse.SSEError`.
    """

    #: the framing's events are JSON values: a body of JSON is no body of another kind
    #: (``framing._Reads.close``)
    json_lines = True
    #: a consumer waiting for the whole body (``Channel.accumulate``) joins the reads into reads
    #: of at least this many bytes (``framing.read_items``' ``joined``): :data:`JOIN_BYTES`
    join_reads = JOIN_BYTES

    __slots__ = (
        "bytes_consumed",
        "bytes_discarded",
        "incomplete",
        "last_event_id",
        "reconnection_time",
        "_max",
        "_pending",
        "_pending_len",
        "_line_start",
        "_at_start",
        "_closed",
        "_failed",
    )

    def __init__(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> None:
        if max_event_bytes <= 0:
            raise ValueError(f"max_event_bytes must be positive, got {max_event_bytes}")
        self.bytes_consumed = 0
        self.bytes_discarded = 0
        self.incomplete = False
        self.last_event_id = ""
        self.reconnection_time: int | None = None
        self._max = max_event_bytes
        # The current unterminated line as the pieces read, their length, and the
        # absolute offset where the line starts.
        self._pending: list[bytes | bytearray] = []
        self._pending_len = 0
        self._line_start = 0
        # Nothing but a (possibly partial) BOM seen yet.
        self._at_start = True
        self._closed = False
        self._failed = False

    def feed(self, chunk: bytes | bytearray | memoryview) -> list[ServerSentEvent]:
        """Decode the next bytes of the body.

        Args:
            chunk: the next 0..N bytes, split anywhere (inside a line, a CRLF, a BOM or
                a multi-byte character).

        Returns:
            One event per value completed in ``chunk``, in order (often empty).

        Raises:
            InvalidUTF8Error: a complete line is not valid UTF-8.
            EventTooLargeError: a line exceeded ``max_event_bytes``.
            SSEError: the decoder was closed or failed earlier.
            TypeError: ``chunk`` is a ``str`` or an ``int``.

        Values completed before the error are attached to the exception as ``events``.
        """
        return expand(self.feed_raw(chunk))

    def feed_raw(
        self, chunk: bytes | bytearray | memoryview
    ) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """:meth:`feed`, giving the values of the read as :class:`~.sse.RawEvents` runs (their
        data still the UTF-8 bytes read, checked valid: a :class:`Lines` per span
        of :data:`SPAN_BYTES` when each line begins with ``{`` and ends with ``}``, else
        lists of :data:`RUN_VALUES`); ``[]`` when the read completes no value."""
        if self._closed or self._failed:
            raise SSEError(
                "feed() on a decoder that failed earlier"
                if self._failed
                else "feed() after close()"
            )
        if type(chunk) is not bytes:
            if isinstance(chunk, (str, int)):
                raise TypeError(
                    "an NDJSON body is read as bytes chunks; got a"
                    f" {type(chunk).__name__} chunk: pass response.iter_bytes() (httpx), or"
                    " the body as [body]"
                )
            chunk = bytes(chunk)
        offset = self.bytes_consumed  # absolute offset of chunk[0]
        self.bytes_consumed = offset + len(chunk)
        if self._at_start:
            chunk, offset = self._skip_bom(chunk, offset)
        cut = chunk.rfind(b"\n")
        if cut < 0:
            if chunk:
                self._wait(chunk, offset)
            return []
        start = offset
        if self._pending:
            start = self._line_start
            chunk = b"".join([*self._pending, chunk])
            cut += self._pending_len
            self._pending.clear()
            self._pending_len = 0
        tail = chunk[cut + 1 :]
        events = self._items(chunk[: cut + 1] if tail else chunk, start)
        if tail:
            try:
                self._wait(tail, start + cut + 1)
            except EventTooLargeError as exc:
                exc.events = expand(events)
                raise
        else:
            self._line_start = start + cut + 1
        return events

    def close(self) -> list[ServerSentEvent]:
        """Signal the end of the body.

        A last line without its LF is given as a value when it parses as JSON (JSON
        Lines allows a body to end so); otherwise it was cut short: it is discarded,
        :attr:`incomplete` is set and :attr:`bytes_discarded` counts its bytes. Calling
        it again is a no-op.

        Returns:
            The last line's event, or ``[]``.

        Raises:
            SSEError: the decoder failed earlier.
        """
        if self._failed:
            raise SSEError("close() on a decoder that failed earlier")
        if self._closed:
            return []
        self._closed = True
        line = b"".join(self._pending)
        self._pending.clear()
        self._pending_len = 0
        value = _clean_lines([line])
        if not value:
            return []
        try:
            text = value[0].decode()
        except UnicodeDecodeError:  # a character cut by the end
            text = ""
        if not text or not _is_json(text):
            self.incomplete = True
            self.bytes_discarded = len(line)
            return []
        return [ServerSentEvent("message", text, "", None)]

    def _skip_bom(self, chunk: bytes, offset: int) -> tuple[bytes, int]:
        """``chunk`` (and its offset) past a leading BOM, once the first three bytes of
        the body are known; a body's first one or two bytes that may begin a BOM wait."""
        if self._pending:
            chunk = b"".join([*self._pending, chunk])
            offset = self._line_start
            self._pending.clear()
            self._pending_len = 0
        if len(chunk) < 3 and _BOM.startswith(chunk):
            # Bytes that may begin a BOM wait, outside the limit (they are no line yet).
            self._line_start = offset
            self._pending.append(chunk)
            self._pending_len = len(chunk)
            return b"", offset
        self._at_start = False
        if chunk.startswith(_BOM):
            return chunk[3:], offset + 3
        return chunk, offset

    def _wait(self, piece: bytes, offset: int) -> None:
        """Keep ``piece`` (at absolute ``offset``) as the start or more of the
        unterminated line, within the limit."""
        if not self._pending:
            self._line_start = offset
        elif len(self._pending) >= PENDING_PIECES:
            join_pending(self._pending)  # a line in tiny reads costs about its size
        self._pending.append(piece)
        self._pending_len += len(piece)
        if self._pending_len > self._max:
            self._failed = True
            raise EventTooLargeError(self._max, self._line_start)

    def _items(self, data: bytes, start: int) -> list[ServerSentEvent | RawEvents | NamedEvents]:
        """The runs of the complete lines ``data`` (the last byte an LF; ``data[0]`` at
        absolute offset ``start``): the lines as read (:func:`_spans`) when they are valid
        UTF-8 and no span of them is longer than a line may be, as most reads are; else checked
        line by line (:meth:`_values`), which raises at the first fault."""
        if data.isascii() or is_utf8(data):
            runs = _spans(data, self._max)
            if runs is not None:
                return runs
        return _runs(self._values(data, start))

    def _values(self, data: bytes, start: int) -> list[bytes]:
        """The values of the complete lines ``data`` (the last byte an LF; ``data[0]`` at
        absolute offset ``start``), checked against the limit and UTF-8."""
        cut = len(data) - 1
        lines = data[:cut].split(b"\n")
        # No line is longer than the bytes they were cut from: the lengths are read only
        # when those are over the limit (4 KiB reads of an 8 MiB limit never are).
        if cut > self._max and max(map(len, lines)) > self._max:
            self._fail_long(lines, start)
        self._text(data, start, lines)
        # (Searching the bytes for an empty line, b"\n\n", measured slower than filtering
        # the lines: every LF is a candidate match.)
        return _clean_lines(lines, data.find(b"\r", 0, cut) >= 0)

    def _fail_long(self, lines: list[bytes], start: int) -> None:
        """Raise :class:`~.sse.EventTooLargeError` at the first line over the limit, with
        the values of the lines before it attached."""
        offset = start
        for index, line in enumerate(lines):
            if len(line) > self._max:
                self._failed = True
                before = _clean_lines(lines[:index])
                events = expand([RawEvents(before)]) if before else []
                raise EventTooLargeError(self._max, offset, events)
            offset += len(line) + 1

    def _text(self, data: bytes, start: int, lines: list[bytes]) -> str:
        """``data`` (at absolute offset ``start``) decoded as UTF-8, or
        :class:`~.sse.InvalidUTF8Error` at its first invalid byte, with the values of
        the complete ``lines`` before that byte attached."""
        try:
            return data.decode()
        except UnicodeDecodeError as exc:
            self._failed = True
            good = data[: exc.start].count(b"\n")
            before = _clean_lines(lines[:good])
            events = expand([RawEvents(before)]) if before else []
            raise InvalidUTF8Error(start + exc.start, exc.reason, events) from None


def _spans(data: bytes, limit: int) -> list[ServerSentEvent | RawEvents | NamedEvents] | None:
    """The runs of ``data`` (complete lines, valid UTF-8): those of each span of at most
    :data:`SPAN_BYTES` bytes cut at a line end (:func:`_span_run`); None when a span is
    longer than a line of ``limit`` bytes and its LF (one of its lines may be over the limit,
    which the line-by-line path reports)."""
    end = len(data)
    if end <= SPAN_BYTES:
        return _span_run(data) if end <= limit + 1 else None
    runs: list[ServerSentEvent | RawEvents | NamedEvents] = []
    start = 0
    while start < end:
        stop = end
        if end - start > SPAN_BYTES:  # cut after the last line end that fits
            stop = data.rfind(b"\n", start, start + SPAN_BYTES) + 1
            if stop == 0:  # a line longer than a span: a span of its own
                stop = data.index(b"\n", start + SPAN_BYTES) + 1
        if stop - start > limit + 1:
            return None
        runs += _span_run(data[start:stop])
        start = stop
    return runs


def _span_run(span: bytes) -> list[ServerSentEvent | RawEvents | NamedEvents]:
    """The values of ``span`` (complete lines, valid UTF-8, none over the limit): its lines as
    read, one :class:`Lines` run, when each begins with ``{`` and ends with ``}``
    (one batch decode is then the same as one per line: see ``Lines``); else its lines
    without CRs and blank lines, in runs of :data:`RUN_VALUES`.

    The check is two passes in C after the span's first and last bytes: its LFs counted (by
    removing them, which goes by ``memchr``: ``bytes.count`` goes byte by byte), and a search
    for an LF but the last that is not ``}`` LF ``{`` (:data:`_NOT_BOUNDARY`; the last LF
    follows a ``}``, so every LF the search reaches has a byte on each side). Ollama's 20,000
    lines (2.5 MB): ~1.8 ms, about what splitting them into lines costs."""
    if span[:1] == b"{" and span[-2:] == b"}\n":
        count = len(span) - len(span.replace(b"\n", b""))
        # (one line, as a read a line brings: nothing to search)
        if count == 1 or _NOT_BOUNDARY.search(span, 0, len(span) - 1) is None:
            return [new_tuple(RawEvents, (Lines(span, count), ""))]
    return _runs(_clean_lines(span[:-1].split(b"\n"), b"\r" in span))


def is_utf8(data: bytes) -> bool:
    """Whether ``data`` is valid UTF-8 (for bytes that are not all ASCII)."""
    try:
        data.decode()
    except UnicodeDecodeError:
        return False
    return True


def _runs(values: list[bytes]) -> list[ServerSentEvent | RawEvents | NamedEvents]:
    """``values`` as consecutive runs of at most :data:`RUN_VALUES` values (none when empty)."""
    if len(values) <= RUN_VALUES:
        return [new_tuple(RawEvents, (values, ""))] if values else []
    return [
        new_tuple(RawEvents, (values[start : start + RUN_VALUES], ""))
        for start in range(0, len(values), RUN_VALUES)
    ]


def _is_json(text: str) -> bool:
    """Whether ``text`` is one whole JSON value (nested deeper than the parser follows counts
    as whole: typed decoding then reports it). Integers are checked as text, not converted:
    one of more than 4,300 digits (Python's ``int`` conversion limit) is whole JSON, which
    typed decoding then reports (an ``UnknownEvent`` with its reason), not a cut line."""
    try:
        json.loads(text, parse_int=str)
    except ValueError:
        return False
    except RecursionError:
        return True
    return True


def iter_values(
    chunks: Iterable[bytes | bytearray | memoryview],
    *,
    max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
) -> Iterator[str]:
    """The JSON text of each value of a newline-delimited JSON body, in order.

    Args:
        chunks: the body's bytes, split anywhere (``response.iter_bytes()``).
        max_event_bytes: see :class:`NDJSONDecoder`.

    Raises:
        SSEError: as :meth:`NDJSONDecoder.feed` (values before the error are yielded).
    """
    decoder = NDJSONDecoder(max_event_bytes)
    for chunk in chunks:
        try:
            events = decoder.feed(chunk)
        except SSEError as exc:
            yield from (event.data for event in exc.events)
            exc.events = []
            raise
        yield from (event.data for event in events)
    yield from (event.data for event in decoder.close())


class NDJSONFraming(Framing):
    """Newline-delimited JSON (https://github.com/ndjson/ndjson-spec): decoded by
    :class:`NDJSONDecoder`, an event written as its JSON text and an LF (NDJSON has no event
    types or ids: they are not written). The one instance is :data:`NDJSON`."""

    __slots__ = ()
    name = "ndjson"
    media_type = "application/x-ndjson"
    #: NDJSON, JSON Lines and the other names servers give them (``application/stream+json``:
    #: Spring WebFlux's)
    media_types = (
        "application/x-ndjson",
        "application/ndjson",
        "application/jsonl",
        "application/x-jsonl",
        "application/jsonlines",
        "application/x-jsonlines",
        "application/json-lines",
        "application/stream+json",
    )
    content_type = "application/x-ndjson"
    label = "NDJSON"

    def decoder(self, max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES) -> Framer:
        """A new :class:`NDJSONDecoder` (see :meth:`.framing.Framing.decoder`)."""
        return NDJSONDecoder(max_event_bytes)

    def frame(self, data: bytes, event: str = "message") -> bytes:
        """``data`` (one JSON text without a line break) and an LF; ``event`` is not
        written."""
        return data + b"\n"

    def frame_text(self, data: str, event: str = "message", id: str = "") -> bytes:
        """``data`` as UTF-8 and an LF: an NDJSON line carries no event type nor id, and reads
        back as a ``message`` event without one.

        Raises:
            ValueError: the event would not read back as itself: ``event`` is not ``message``
                or ``id`` is not empty (an SSE event's, which no line can carry), or ``data``
                holds CR or LF, is blank, or starts with a BOM (:func:`unreadable_line`).
        """
        if event != "message" or id:
            raise ValueError(
                f"an NDJSON line carries no event type nor id (event {event!r}, id {id!r}):"
                " it would read back as a 'message' event without one"
            )
        why = unreadable_line(data)
        if why:
            raise ValueError(
                f"{data[:60]!r} cannot be an NDJSON line: it {why}, so it would not read back"
            )
        return data.encode("utf-8") + b"\n"


#: The bytes ``bytes.strip()`` removes: a line of only these is blank (skipped when read).
_BLANK = " \t\n\r\x0b\x0c"


def unreadable_line(data: str) -> str:
    """Why ``data`` written as one NDJSON line would not read back as itself (``""`` when it
    would): it holds LF or CR (LF ends the line; a CR before it is taken as a CRLF), it is
    empty or only whitespace (:class:`NDJSONDecoder` skips blank lines, as the NDJSON spec
    allows), or it starts with a BOM (skipped at the start of a body)."""
    if "\n" in data or "\r" in data:
        return "holds a line end (LF or CR), which would end the line or be taken into its end"
    if not data.strip(_BLANK):
        return "is blank, and a reader skips blank lines"
    if data.startswith("\ufeff"):
        return (
            "starts with a BOM, which a reader skips at the start of a body: it would not read back"
        )
    return ""


NDJSON = NDJSONFraming()
"""The newline-delimited JSON framing, every NDJSON channel's ``framing``."""
