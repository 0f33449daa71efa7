"""Stream runtime: typed events from a channel's bytes, and the assembled result.

:class:`Channel` ties a channel's message classifier (generated from the spec, see
``channels.py``) to its framer (``sse.py`` for ``text/event-stream``, ``ndjson.py`` for
newline-delimited JSON), to an :class:`~.accumulate.Accumulator` (``accumulate.py``) and to its
:class:`~.encoding.Encoding` (``encoding.py``).  :class:`EventStream` and
:class:`AsyncEventStream` are what ``decode`` and ``adecode`` return.  Nothing is dropped: a
payload that matches no message of the channel becomes an :class:`~.events.UnknownEvent`
carrying its raw text, and the accumulator records it under ``errors``.

This module is ``src/ssegen/runtime/stream.py`` of ssegen, copied verbatim into
every generated package: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import operator
from collections import deque
from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator, Sequence
from itertools import chain, groupby, repeat
from threading import get_ident
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from .accumulate import COMPACT_PARTS, Accumulator, Family, StreamResult, _family
from .encoding import Encoding, Synthesis, sse_frame
from .events import StreamTruncated, UnknownEvent, VendorEvent, truncated_reason
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
