"""Event streams: what a channel's ``decode`` and ``adecode`` return.

:class:`EventStream` and :class:`AsyncEventStream` decode a body lazily into typed events (the
read driver of ``framing.py``, then the channel's :class:`~.stream_classify.Classifier`), tell
how it ended (``incomplete``, ``bytes_consumed``), have one consumer
(:class:`ConcurrentUseError`), and close their byte source (``close()``, ``aclose()``, as
context managers).

This module is ``src/ssegen/runtime/stream_events.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator
from itertools import chain
from threading import get_ident
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

from .events import StreamTruncated, truncated_reason
from .framing import (
    DEFAULT_MAX_EVENT_BYTES,
    Framer,
    StreamState,
    aread_items,
    check_chunks,
    read_items,
)
from .sse import SSEDecoder
from .stream_classify import Classifier, Item

E = TypeVar("E")


class _StreamProgress:
    """What both event streams hold and tell about their source: see :class:`EventStream`."""

    _owner: int | None = None  # the ident of the thread that first used the stream
    _started = False

    def __init__(
        self, classifier: Classifier[Any], max_event_bytes: int, framer: Callable[[int], Framer]
    ) -> None:
        self.state = StreamState()
        self.classifier = classifier
        self.max_event_bytes = max_event_bytes
        self.framer = framer

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

    def _check_owner(self) -> None:
        """Record the thread of the first use of this stream; raise :class:`ConcurrentUseError`
        when another thread uses it later (called once per ``iter()``/``next()``, never per
        event of a ``for`` loop)."""
        ident = get_ident()
        if self._owner != ident:
            if self._owner is not None:
                raise ConcurrentUseError(
                    f"this {type(self).__name__} was first used by thread {self._owner} and is now "
                    f"used by thread {ident}: a stream has one consumer (decode a stream per thread, "
                    "or pass its events on through a queue)"
                )
            self._owner = ident

    def _start(self, batches: bool = False) -> None:
        """Mark the stream consumed from this thread (see :class:`ConcurrentUseError`);
        ``batches``: by :meth:`EventStream.batches`, which needs the stream unread."""
        if self._owner != get_ident():
            self._check_owner()
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
        classifier, max_event_bytes, framer: the arguments, as given.

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

    A stream whose reading was cancelled (``asyncio.CancelledError`` reaching
    ``adecode``'s read, a timeout around it) or whose byte source raised (a reset
    connection) is no clean end: the exception propagates, and iterating the stream again
    gives a :class:`StreamTruncated` whose reason names it (``state.stopped``),
    :attr:`incomplete` True, so that ``accumulate`` of what is left records it.
    """

    def __init__(
        self,
        chunks: Iterable[bytes],
        classifier: Classifier[E],
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        framer: Callable[[int], Framer] = SSEDecoder,
    ) -> None:
        check_chunks(chunks, "decode()")
        super().__init__(classifier, max_event_bytes, framer)
        self._chunks = chunks
        self._batches = read_items(chunks, framer, max_event_bytes, self.state, "decode()")
        # The items of each read, then the typed events: both lazy, and chained in C (no
        # Python-level frame resumed per event). Read by read: a long read's runs
        # (sse.SSEDecoder.feed_raw takes it in windows) are not all held as typed events.
        self._events: Iterator[E] = chain(
            chain.from_iterable(map(classifier.batch, self._batches)),
            _end(self.state),  # runs once the stream is read: a StreamTruncated, or nothing
        )

    def reframed(self, framer: Callable[[int], Framer]) -> EventStream[E]:
        """This stream, not read yet, read with another framing's decoder (``framer``): a
        new stream over the same byte source (see ``ChannelReader.accumulate``'s
        ``content_type``); this one is not to be read after it.

        Raises:
            RuntimeError: the stream is already being read (:attr:`started`).
        """
        if self._started:
            raise RuntimeError("this EventStream is already being read: its framing is chosen")
        return EventStream(self._chunks, self.classifier, self.max_event_bytes, framer)

    def batches(
        self, joined: bool = False, ends: tuple[type[BaseException], ...] = ()
    ) -> Iterator[list[Item]]:
        """The items of each read, undecoded (``sse.iter_raw``: single events and runs as
        ``sse.RawEvents`` / ``sse.NamedEvents``), for a consumer that classifies them itself
        with :attr:`classifier` (``Channel.accumulate`` does); the stream's typed events are
        then not read. After them, :attr:`incomplete` and :attr:`state` tell how it ended.
        ``joined``: for a consumer that waits for the whole body, the reads may be joined
        first (``framing.read_items``' ``joined``: NDJSON's are). ``ends``: the types of the
        byte source's exceptions that end the body as its end does, kept in
        ``state.ended_by`` (``framing.read_items``' ``ends``: the streaming client's).

        Raises:
            RuntimeError: the stream is already being read (:attr:`started`).
            ConcurrentUseError: as iterating would.
        """
        self._start(batches=True)
        if joined or ends:  # the driver made at construction is not started: this one replaces it
            self._batches = read_items(
                self._chunks,
                self.framer,
                self.max_event_bytes,
                self.state,
                "decode()",
                joined,
                ends,
            )
        return self._batches

    def __iter__(self) -> Iterator[E]:
        self._start()
        return self._events

    def __next__(self) -> E:
        if self._owner != get_ident():
            self._check_owner()
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
            self._check_owner()
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
        super().__init__(classifier, max_event_bytes, framer)
        self._chunks = chunks
        self._batches = aread_items(chunks, framer, max_event_bytes, self.state, "adecode()")
        self._events = self._typed()

    async def _typed(self) -> AsyncIterator[E]:
        batch = self.classifier.batch
        try:
            async for items in self._batches:
                for event in batch(items):
                    yield event
        except BaseException:
            if self.state.stopped:  # cancelled, or the source failed: iterating again tells so
                self._events = _aend(self.state)
            raise
        for event in _end(self.state):
            yield event

    def reframed(self, framer: Callable[[int], Framer]) -> AsyncEventStream[E]:
        """:meth:`EventStream.reframed`, asynchronously."""
        if self._started:
            raise RuntimeError("this AsyncEventStream is already being read: its framing is chosen")
        return AsyncEventStream(self._chunks, self.classifier, self.max_event_bytes, framer)

    def batches(
        self, joined: bool = False, ends: tuple[type[BaseException], ...] = ()
    ) -> AsyncIterator[list[Item]]:
        """:meth:`EventStream.batches`, asynchronously."""
        self._start(batches=True)
        if joined or ends:
            self._batches = aread_items(
                self._chunks,
                self.framer,
                self.max_event_bytes,
                self.state,
                "adecode()",
                joined,
                ends,
            )
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
            self._check_owner()
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
        reason=state.stopped
        or truncated_reason(state.bytes_consumed, state.bytes_discarded, state.body_head),
        bytes_consumed=state.bytes_consumed,
        bytes_discarded=state.bytes_discarded,
    )


def _end(state: StreamState) -> Iterator[Any]:
    """The events after a stream's last one, computed once it is read: its
    :class:`StreamTruncated` when it ended inside an event (or reading stopped at a
    cancellation or the source's error: ``state.stopped`` is its reason), else none."""
    if state.incomplete:
        yield _truncated(state)


async def _aend(state: StreamState) -> AsyncIterator[Any]:
    """:func:`_end`, asynchronously: what an :class:`AsyncEventStream` whose reading was
    cancelled gives when it is iterated again."""
    for event in _end(state):
        yield event
