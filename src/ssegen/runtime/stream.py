"""Stream runtime: typed events from a channel's bytes, and the assembled result.

:class:`Channel` ties a channel's message classifier (generated from the spec, see
``channels.py``) to its framer (``sse.py`` for ``text/event-stream``, ``ndjson.py`` for
newline-delimited JSON), to an :class:`~.accumulate.Accumulator` (``accumulate.py``) and to its
:class:`~.encoding.Encoding` (``encoding.py``).  :class:`EventStream` and
:class:`AsyncEventStream` are what ``decode`` and ``adecode`` return.  Nothing is dropped: a
payload that matches no message of the channel becomes an :class:`~.events.UnknownEvent`
carrying its raw text, and the accumulator records it under ``errors``.

This module is ``src/ssegen/runtime/stream.py`` of ssegen, written verbatim into
every output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import operator
from collections.abc import (
    AsyncIterable,
    AsyncIterator,
    Awaitable,
    Callable,
    Iterable,
    Iterator,
    Sequence,
)
from itertools import chain, groupby
from threading import get_ident
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Self, TypeGuard, TypeVar

import msgspec

from .accumulate import COMPACT_PARTS, Accumulator, Family, StreamResult, _family
from .encoding import Encoding, Synthesis
from .events import StreamTruncated, UnknownEvent, VendorEvent, truncated_reason
from .framing import (
    DEFAULT_MAX_EVENT_BYTES,
    Framer,
    Framing,
    NamedEvents,
    PayloadError,
    RawEvents,
    ServerSentEvent,
    SSEError,
    StreamState,
    aread_items,
    check_chunks,
    read_items,
)
from .ndjson import NDJSON
from .sink import Sink
from .sse import SSE, SSEDecoder

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

ValuesClassifier = Callable[[list[bytes], bool], Sequence[E] | None]
"""``classify_values(values, every_usage)``: the typed events of a run of plain ``data:`` events
given as their undecoded data (``sse.RawEvents``), all at once and all of one class: those of
its first ``len(result)`` values (the rest, from a terminator such as ``[DONE]`` on, are
classified alone), or None to have each classified alone (see :class:`Classifier`).
``every_usage`` False: the caller reads the usage object of the run's last chunk that sends one
only (:meth:`Channel.accumulate`, where the message's plan replaces the usage), so the others
need not be kept as sent (``usage.keep_last_usage``); True when the events are handed on."""

NamedClassifier = Callable[[list[bytes], list[bytes]], Sequence[E] | None]
"""``classify_named(event_lines, values)``: the typed events of a run of named events
given as their undecoded ``event`` lines and data (``sse.NamedEvents``), all at once, or None to
have each classified alone (see :class:`Classifier`)."""

Run = Callable[[Sink, Iterable[Any]], None]
"""A run function: feeds consecutive events of one class into a ``sink.Sink``, as feeding each
in turn would (the generated ``_apply_<channel>_<message>``; one event is a run of one)."""

Item = ServerSentEvent | RawEvents | NamedEvents
"""One item of a read, as ``sse.SSEDecoder.feed_raw`` gives it."""


def each(apply: Callable[[Sink, Any], None]) -> Run:
    """The run function feeding each event of a run through ``apply``, one of the sink's
    per-event entries (``sink.on_unknown``, ``sink.on_vendor``...)."""

    def run(acc: Sink, events: Iterable[Any]) -> None:
        for event in events:
            apply(acc, event)

    return run


class Classifier(Generic[E]):
    """How a channel's SSE events become typed events: one at a time, or a run at once.

    ``sse.SSEDecoder.feed_raw`` gives each read's events as single ``sse.ServerSentEvent``
    items and runs (``sse.RawEvents``: plain ``data:`` events; ``sse.NamedEvents``: ``event:``
    + ``data:`` events). A run is decoded at once, without a Python-level loop, when the
    channel's generated functions take it; every way gives what ``event`` gives one by one
    (tests/runtime/test_fuzz_decoders.py holds them equal under any read split).

    Args:
        event: one SSE event -> its typed event (the generated ``classify_<channel>``); a
            payload no message fits is an :class:`UnknownEvent`, not an error.
        values: optionally, a :data:`ValuesClassifier` (``classify_values_<channel>``).
        named: optionally, a :data:`NamedClassifier` (``classify_named_<channel>``).
    """

    __slots__ = ("event", "values", "named")

    def __init__(
        self,
        event: Callable[[ServerSentEvent], E],
        values: ValuesClassifier[E] | None = None,
        named: NamedClassifier[E] | None = None,
    ) -> None:
        self.event = event
        self.values = values
        self.named = named

    def run(self, item: RawEvents | NamedEvents) -> Sequence[E]:
        """The typed events of the first values of a run that :attr:`values` or :attr:`named`
        decode at once (a values run is of one class); empty when they take none of it.

        A failure of the typed decoding (JSON nested deeper than the recursion limit lets
        msgspec follow, a number too large to convert) gives an empty run: the events are
        then classified alone (:meth:`events`), which reports it."""
        return _run(item, self.values, self.named)

    def events(self, events: list[ServerSentEvent]) -> Sequence[E] | Iterator[E]:
        """The typed events of ``events``, each classified alone by :attr:`event`: all at
        once while none fails, else one at a time up to the first that cannot be
        classified, which raises ``sse.PayloadError`` naming the failure."""
        try:
            return list(map(self.event, events))
        except SSEError:
            raise
        except Exception:  # every failure from the bytes is an SSEError
            return _one_by_one(events, self.event)

    def item(self, item: Item) -> Sequence[E] | Iterable[E]:
        """The typed events of one item of a read: a run's as far as :meth:`run` takes it at
        once, the rest (a terminator such as ``[DONE]`` on) alone (:meth:`events`)."""
        if not isinstance(item, (RawEvents, NamedEvents)):
            return self.events([item])
        run = _run(item, self.values, self.named)  # self.run(item), one call fewer per read
        if len(run) == len(item.values):
            return run
        rest = self.events(item.events(len(run)))
        if not run:
            return rest
        return [*run, *rest] if isinstance(rest, list) else chain(run, rest)

    def batch(self, batch: list[Item]) -> Iterable[E]:
        """The typed events of one read's items: those of its one item when it has one, as
        most reads do; else those of each item in turn, lazily (a long read's runs are not all
        held as typed events at once)."""
        if len(batch) == 1:
            return self.item(batch[0])
        return chain.from_iterable(map(self.item, batch))


def _run(
    item: RawEvents | NamedEvents,
    values: ValuesClassifier[E] | None,
    named: NamedClassifier[E] | None,
    every_usage: bool = True,
) -> Sequence[E]:
    """:meth:`Classifier.run` of ``item`` with the classifier's ``values`` and ``named``
    (a function: the per-read path calls it without a bound method); ``every_usage`` as
    :data:`ValuesClassifier` takes it."""
    try:
        if isinstance(item, RawEvents):
            return (None if values is None else values(item.values, every_usage)) or ()
        return (None if named is None else named(item.event_lines, item.values)) or ()
    except Exception:
        return ()


#: The most events and bytes :func:`coalesce` joins into one run: enough to pay the per-run
#: costs rarely, few enough that a run's decoded events are still in the CPU caches when they
#: are applied (256 events measured slower than 64, for chat and Gemini alike).
COALESCE_EVENTS = 64
COALESCE_BYTES = 64 * 1024
#: A run of named events shorter than this joins the runs around it (one event per read, as a
#: server flushing each token sends them: Messages, Responses and Cohere 0.25-0.32x -> 0.29-0.36x
#: of the floor); a longer one passes as it is (joined, 4 KiB reads measured 2-5% slower).
COALESCE_NAMED = 4


def coalesce(items: Iterable[Item]) -> Iterator[Item]:
    """``items`` (each read's, in turn) with consecutive runs of one kind and one last event ID
    joined into one run of at most :data:`COALESCE_EVENTS` events and :data:`COALESCE_BYTES`
    bytes (:func:`joinable` tells which runs join): a consumer that classifies runs and hands
    no event on in between (:meth:`Channel.accumulate`) then pays its per-run costs (one batch
    decode, one run-function call) once for several reads; 4 KiB reads of Gemini's ~450-byte
    chunks bring 9-11 events each, a server flushing each token one.  Other items pass as
    they are, in order.  Memory stays bounded by the limits, whatever the stream's length.
    :class:`Joiner` does it read by read (``aaccumulate``)."""
    joiner = Joiner()
    return chain(joiner.take(items), joiner.rest())


class Joiner:
    """What :func:`coalesce` holds between reads: the runs joined so far, not yet handed on.

    :meth:`take` each read's items in turn, then :meth:`rest` once the stream ends; together
    they give what :func:`coalesce` gives for all the items at once."""

    __slots__ = ("pending", "events", "size")

    def __init__(self) -> None:
        self.pending: list[Any] = []
        self.events = self.size = 0

    def take(self, items: Iterable[Item]) -> Iterator[Item]:
        """``items`` as :func:`coalesce` hands them on; the runs that may still join the next
        read's are held (:meth:`rest` gives them)."""
        pending, events, size = self.pending, self.events, self.size  # locals: read per item
        try:
            for item in items:
                if not joinable(item):
                    if pending:
                        yield _joined(pending)
                        pending, events, size = [], 0, 0
                    yield item
                    continue
                weight = sum(map(len, item.values))
                if pending and (
                    events + len(item.values) > COALESCE_EVENTS
                    or size + weight > COALESCE_BYTES
                    or type(item) is not type(pending[0])
                    or item.id != pending[0].id
                ):
                    yield _joined(pending)
                    pending, events, size = [], 0, 0
                pending.append(item)
                events += len(item.values)
                size += weight
        finally:
            self.pending, self.events, self.size = pending, events, size

    def rest(self) -> Iterator[Item]:
        """The run held, joined (nothing when none is); the joiner is empty after it."""
        if self.pending:
            yield _joined(self.pending)
            self.pending = []
            self.events = self.size = 0


def joinable(item: Item) -> TypeGuard[RawEvents | NamedEvents]:
    """True for a run :func:`coalesce` joins with the runs around it: ``sse.RawEvents`` of
    fewer than :data:`COALESCE_EVENTS` events, ``sse.NamedEvents`` of fewer than
    :data:`COALESCE_NAMED`."""
    if type(item) is RawEvents:
        return len(item.values) < COALESCE_EVENTS
    return type(item) is NamedEvents and len(item.values) < COALESCE_NAMED


def _joined(runs: list[Any]) -> Item:
    """Consecutive runs of one kind and one last event ID as one."""
    if len(runs) == 1:
        return runs[0]  # type: ignore[no-any-return]
    values = list(chain.from_iterable(run.values for run in runs))
    if type(runs[0]) is RawEvents:
        return RawEvents(values, runs[0].id)
    lines = list(chain.from_iterable(run.event_lines for run in runs))
    return NamedEvents(lines, values, runs[0].id)


class _StreamProgress:
    """What both event streams hold and tell about their source: see :class:`EventStream`."""

    state: StreamState
    classifier: Classifier[Any]
    _owner: int | None = None  # the ident of the thread that first used the stream
    _started = False

    @property
    def incomplete(self) -> bool:
        """True when the stream ended inside an event (known once iteration ends)."""
        return self.state.incomplete

    @property
    def bytes_consumed(self) -> int:
        """Bytes read from the source so far."""
        return self.state.bytes_consumed

    @property
    def started(self) -> bool:
        """True once the stream's events or reads are being consumed (``iter``, ``next``,
        :meth:`EventStream.batches`): a stream is read once."""
        return self._started

    def _start(self, batches: bool = False) -> None:
        """Mark the stream consumed from this thread (see :class:`ConcurrentUseError`);
        ``batches``: by :meth:`EventStream.batches`, which needs the stream unread."""
        if self._owner != get_ident():
            _owner_check(self)
        if batches and self._started:
            raise RuntimeError(
                f"this {type(self).__name__} is already being read: its reads are no longer whole"
            )
        self._started = True


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
        classifier: how the channel's SSE events become typed events (:class:`Classifier`).
        max_event_bytes: limit on one event's pending bytes (see ``sse.SSEDecoder``).
        framer: builds the decoder that cuts the body into events from
            ``max_event_bytes``: ``sse.SSEDecoder`` (``text/event-stream``), or
            ``ndjson.NDJSONDecoder`` (one JSON value per line, each an event of type
            ``message``; a cut last line ends the stream as truncated).

    Attributes:
        state: the ``sse.StreamState`` (bytes consumed, last event ID,
            reconnection time in milliseconds, incompleteness), updated per chunk.
        classifier: the :class:`Classifier` it was given.

    Raises (while iterating): an ``sse.SSEError`` subclass for every failure the bytes
    cause (``sse.InvalidUTF8Error``, ``sse.EventTooLargeError``, ``sse.InvalidFieldError``,
    ``sse.PayloadError``: see the hierarchy in ``sse.py``); events before the error are
    yielded first.  :class:`ConcurrentUseError` when used from a second thread.

    ``TypeError`` (while iterating) at the first chunk that is a ``str`` (``iter_text()``
    instead of ``iter_bytes()``).

    Raises (at once): ``TypeError`` when ``chunks`` is a whole body (``bytes``,
    ``bytearray``, ``memoryview``, ``str``) rather than an iterable of chunks: its
    message says what to pass (``[body]``); see ``sse.check_chunks``.

    A consumer that stops early calls :meth:`close` (or uses the stream as a context
    manager: ``with channel.decode(response.iter_bytes()) as events:``), which closes the
    byte source, as httpx-sse's ``EventSource`` closes its line iterator.
    """

    def __init__(
        self,
        chunks: Iterable[bytes],
        classifier: Classifier[E],
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        framer: Callable[[int], Framer] = SSEDecoder,
    ) -> None:
        check_chunks(chunks, "decode()")
        self.state = StreamState()
        self.classifier = classifier
        self._chunks = chunks
        self._batches = read_items(chunks, framer, max_event_bytes, self.state, "decode()")
        # The items of each read, then the typed events: both lazy, and chained in C (no
        # Python-level frame resumed per event). Read by read: a long read's runs
        # (sse.SSEDecoder.feed_raw takes it in windows) are not all held as typed events.
        self._events: Iterator[E] = chain(
            chain.from_iterable(map(classifier.batch, self._batches)),
            _end(self.state),  # runs once the stream is read: a StreamTruncated, or nothing
        )

    def batches(self) -> Iterator[list[Item]]:
        """The items of each read, undecoded (``sse.iter_raw``: single events and runs as
        ``sse.RawEvents`` / ``sse.NamedEvents``), for a consumer that classifies them itself
        with :attr:`classifier` (``Channel.accumulate`` does); the stream's typed events are
        then not read. After them, :attr:`incomplete` and :attr:`state` tell how it ended.

        Raises:
            RuntimeError: the stream is already being read (:attr:`started`).
            ConcurrentUseError: as iterating would.
        """
        self._start(batches=True)
        return self._batches

    def __iter__(self) -> Iterator[E]:
        self._start()
        return self._events

    def __next__(self) -> E:
        if self._owner != get_ident():
            _owner_check(self)
        self._started = True
        return next(self._events)

    def close(self) -> None:
        """Stop reading: no event is decoded after it (iteration ends, with no
        :class:`StreamTruncated`: the consumer stopped, the body was not cut), and the byte
        source is closed when it can be (a generator such as httpx's ``iter_bytes()``: its
        ``finally`` blocks run). Closing again does nothing.

        Raises:
            ConcurrentUseError: called from a thread other than the stream's consumer.
        """
        if self._owner is not None:  # a stream nobody read yet may be closed from anywhere
            _owner_check(self)
        self._events = iter(())
        for source in (self._batches, self._chunks):  # the read driver, then the body's reads
            close: Callable[[], object] | None = getattr(source, "close", None)
            if close is not None:
                close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncEventStream(_StreamProgress, Generic[E]):
    """The asynchronous twin of :class:`EventStream`, over an async iterable of bytes:
    same arguments, attributes and errors (one consumer: one thread, see
    :class:`ConcurrentUseError`); the classifying is :class:`Classifier`'s, shared."""

    def __init__(
        self,
        chunks: AsyncIterable[bytes],
        classifier: Classifier[E],
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        framer: Callable[[int], Framer] = SSEDecoder,
    ) -> None:
        check_chunks(chunks, "adecode()", is_async=True)
        self.state = StreamState()
        self.classifier = classifier
        self._chunks = chunks
        self._batches = aread_items(chunks, framer, max_event_bytes, self.state, "adecode()")
        self._events = self._typed()

    async def _typed(self) -> AsyncIterator[E]:
        batch = self.classifier.batch
        async for items in self._batches:
            for event in batch(items):
                yield event
        for event in _end(self.state):
            yield event

    def batches(self) -> AsyncIterator[list[Item]]:
        """:meth:`EventStream.batches`, asynchronously."""
        self._start(batches=True)
        return self._batches

    def __aiter__(self) -> AsyncIterator[E]:
        self._start()
        return self._events

    async def __anext__(self) -> E:
        self._start()
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """:meth:`EventStream.close`, asynchronously: the byte source is closed with its
        ``aclose()`` when it has one (httpx's ``aiter_bytes()``)."""
        if self._owner is not None:  # a stream nobody read yet may be closed from anywhere
            _owner_check(self)
        for source in (self._events, self._batches, self._chunks):
            close: Callable[[], Awaitable[object]] | None = getattr(source, "aclose", None)
            if close is not None:
                await close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()


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


FRAMINGS: dict[str, Framing] = {SSE.name: SSE, NDJSON.name: NDJSON}
"""The framings by name (the IR channel's ``framing``), for ``Channel(framing=<name>)``."""


class Channel(Generic[E]):
    """One streaming endpoint of the provider: decode bytes, assemble results.

    Args:
        address: the channel address, e.g. ``/chat/completions``.
        messages: message name (as in the spec) -> the class its events
            decode to, in decode order.
        classifier: how its SSE events become typed events (:class:`Classifier`).
        runs: per event class, its run function (:data:`Run`): how consecutive events of
            the class feed an :class:`Accumulator` (a class with none, a keep-alive, feeds
            nothing; an instance of a subclass goes through its base's).
        family: how the events assemble (``chat``, ``messages``, ``responses``,
            ``gemini``, ``cohere``, ``custom``, ``none``), recorded on the :class:`StreamResult`.
        encoding: what :meth:`encode` and :meth:`example_stream` need (event types,
            required members, the terminator, the examples); by default every event
            travels as ``message`` and there are no examples.
        framing: how the body is cut into events and events written back: a
            ``framing.Framing`` (``sse.SSE``, ``text/event-stream``; ``ndjson.NDJSON``, one
            JSON value per line), or its name (the IR channel's ``framing``: ``sse``,
            ``ndjson``; see :data:`FRAMINGS`).

    Attributes:
        classify: ``classifier.event``: one SSE event -> its typed event (never raises).
        framing: the ``framing.Framing`` (``media_type``, ``decoder``, ``frame``); it
            compares equal to its name.
        framer: ``framing.decoder``: builds the body's decoder from ``max_event_bytes``,
            for ``sse.iter_events(..., framer=...)``.

    Raises:
        ValueError: ``framing`` is a name :data:`FRAMINGS` does not hold.
    """

    def __init__(
        self,
        address: str,
        messages: dict[str, type],
        classifier: Classifier[E],
        runs: dict[type, Run],
        family: str = Family.CHAT.value,
        encoding: Encoding | None = None,
        framing: Framing | str = SSE,
    ) -> None:
        if isinstance(framing, str):
            if framing not in FRAMINGS:
                raise ValueError(f"framing must be one of {', '.join(FRAMINGS)}, got {framing!r}")
            framing = FRAMINGS[framing]
        self.address = address
        self.messages = messages
        self.classifier = classifier
        self.classify = classifier.event
        self.runs = runs
        self.family = _family(family)
        self.encoding = encoding or Encoding()
        self.framing: Framing = framing
        self.framer: Callable[[int], Framer] = framing.decoder

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
        the decoder joins them with LF). The bytes are the channel's framing's
        (``framing.frame``, ``framing.frame_text``): on an NDJSON channel each event is its JSON
        text (an unknown event's raw data, a literal) and an LF, with no event type or id.

        Raises:
            ValueError: ``event`` is a :class:`StreamTruncated` (a cut stream has no event
                to write), or an event type, id or raw data no SSE line can carry (CR), or
                raw data holding a line end on an NDJSON channel.
            TypeError: ``event`` is neither an :class:`UnknownEvent`, :class:`VendorEvent`
                nor an instance of a message class (a msgspec ``Struct``; a pydantic model for
                that flavour); it is not checked to be one of this channel's.
        """
        enc = self.encoding
        framing = self.framing
        cls = type(event)
        if isinstance(event, UnknownEvent):
            return framing.frame_text(event.data, event.event, event.id)
        if isinstance(event, StreamTruncated):
            raise ValueError(
                f"a StreamTruncated event marks a cut stream; it has no {framing.label} form"
            )
        if isinstance(event, VendorEvent):
            return framing.frame(msgspec.json.encode(event.payload))
        name = enc.events.get(cls, "message")
        literal = enc.literals.get(cls)
        if literal is not None:
            return framing.frame_text(literal, name)
        if not enc.library.is_class(cls):
            raise TypeError(f"cannot encode {cls.__name__}: not a message class ({self!r})")
        # JSON text holds no line break (msgspec escapes them): one ``data:`` line, one line.
        return framing.frame(enc.json(event), name)

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
        synth = Synthesis(self._example_payloads(), self.parse, model)

        def responses(text: str, finish_reason: str) -> list[Any]:
            return synth.responses(text)

        synthesize = {
            Family.CHAT: synth.chat,
            Family.MESSAGES: synth.messages,
            Family.RESPONSES: responses,
            Family.GEMINI: synth.gemini,
            Family.COHERE: synth.cohere,
        }.get(self.family)
        if synthesize is None:
            raise ValueError(f"{self!r}: no stream synthesis for family {self.family.value!r}")
        out = synthesize(text, finish_reason)
        return out + ([] if enc.terminator is None else [enc.terminator])

    def _example_payloads(self) -> list[tuple[str, dict[str, Any]]]:
        """``(event type, JSON object)`` of each example frame holding an object: the
        harvested streams' first, then the documented examples (what :class:`Synthesis`
        writes its events after)."""
        payloads = []
        for frames in (*self.encoding.streams.values(), self.encoding.examples):
            for event, data in frames:
                if data.lstrip().startswith("{"):
                    payload = msgspec.json.decode(data)
                    if isinstance(payload, dict):
                        payloads.append((event, payload))
        return payloads

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
        return EventStream(chunks, self.classifier, max_event_bytes, self.framer)

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
        return AsyncEventStream(chunks, self.classifier, max_event_bytes, self.framer)

    def apply(self, acc: Accumulator, event: E) -> None:
        """Feed one event into ``acc`` through its class's run function (:attr:`runs`):
        an event decoded leniently (its ``off_spec`` set) through
        :meth:`Accumulator.lenient`, which assembles what fits; an instance of a subclass
        through its base's; an event of a class with none (a keep-alive) feeds nothing."""
        run = self.runs.get(type(event))
        if run is None:
            run = next((r for cls, r in self.runs.items() if isinstance(event, cls)), None)
            if run is None:
                return
        if getattr(event, "off_spec", None) is not None:
            found = run
            acc.lenient(event, lambda acc, event: found(acc, (event,)))
            return
        run(acc, (event,))

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
        acc = self._accumulator(full_text)
        if isinstance(events, EventStream) and not events.started:
            # Not iterated yet: classify and apply each read's items directly.
            items = coalesce(chain.from_iterable(events.batches()))
            self._apply_items(acc, items, events.classifier)
        else:
            for count, event in enumerate(events, 1):
                self.apply(acc, event)
                if not count % COMPACT_PARTS:
                    acc.compact()
        return self._result(acc, events)

    async def aaccumulate(
        self, events: AsyncIterable[E], *, full_text: bool = False
    ) -> StreamResult:
        """Assemble async ``events`` (typically ``adecode(...)``); see :meth:`accumulate`."""
        acc = self._accumulator(full_text)
        if isinstance(events, AsyncEventStream) and not events.started:
            joiner, applied = Joiner(), 0  # runs joined across reads, as accumulate's
            async for batch in events.batches():
                applied = self._apply_items(acc, joiner.take(batch), events.classifier, applied)
            self._apply_items(acc, joiner.rest(), events.classifier, applied)
        else:
            count = 0
            async for event in events:
                self.apply(acc, event)
                count += 1
                if not count % COMPACT_PARTS:
                    acc.compact()
        return self._result(acc, events)

    def _accumulator(self, full_text: bool) -> Accumulator:
        """A fresh :class:`Accumulator` of the channel's family."""
        acc = Accumulator(full_text)
        acc.family = self.family
        return acc

    @staticmethod
    def _result(acc: Accumulator, events: object) -> StreamResult:
        """``acc``'s result, with the ``truncated`` error of a decoded stream found incomplete."""
        if isinstance(events, (EventStream, AsyncEventStream)) and events.incomplete:
            acc.truncated(events.state)
        return acc.result()

    def _apply_items(
        self,
        acc: Accumulator,
        items: Iterable[Item],
        classifier: Classifier[E],
        applied: int = 0,
    ) -> int:
        """Classify and apply the items of the reads (their runs joined, :func:`coalesce`):
        the part of a run the classifier
        decodes at once (:meth:`Classifier.run`) by one run-function call per stretch of
        consecutive events of one class (:meth:`_apply_stretches`), the other events one at a
        time through :meth:`apply` (lenient and unknown events among them).

        The accumulator is compacted every :data:`COMPACT_PARTS` events; ``applied`` events
        have come since the last compaction, and the count after these items is returned
        (to pass to the next call).
        """
        runs = self.runs
        values, named = classifier.values, classifier.named
        for item in items:
            if applied >= COMPACT_PARTS:
                acc.compact()
                applied = 0
            if not isinstance(item, (RawEvents, NamedEvents)):
                applied += 1
                self._apply_alone(acc, classifier, [item])
                continue
            count = len(item.values)
            applied += count
            run = _run(item, values, named, False)  # the events are not handed on
            if run:
                # A values run is of one class, as is a run of one event (a read of a server
                # flushing each token): one call of its run function.
                one_class = count == 1 or isinstance(item, RawEvents)
                apply_run = runs.get(type(run[0])) if one_class else None
                if apply_run is not None:
                    apply_run(acc, run)
                else:
                    self._apply_stretches(acc, run)
                if len(run) == count:
                    continue
            self._apply_alone(acc, classifier, item.events(len(run)))
        return applied

    def _apply_alone(
        self, acc: Accumulator, classifier: Classifier[E], events: list[ServerSentEvent]
    ) -> None:
        """Classify ``events`` one at a time and feed each through :meth:`apply` (lenient
        and unknown events among them)."""
        apply = self.apply
        for event in classifier.events(events):
            apply(acc, event)

    def _apply_stretches(self, acc: Accumulator, run: Sequence[E]) -> None:
        """Feed events decoded at once (:meth:`Classifier.run`: strictly typed, none
        lenient) into ``acc``: one run-function call per stretch of consecutive events of
        one class; the events of a class with no run function (a subclass, a keep-alive)
        one at a time through :meth:`apply`."""
        runs = self.runs
        for cls, stretch in groupby(run, type):
            apply_run = runs.get(cls)
            if apply_run is not None:
                apply_run(acc, stretch)
            else:
                for event in stretch:
                    self.apply(acc, event)
