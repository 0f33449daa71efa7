"""Reading: a channel's bytes as typed events, and its typed events assembled.

:class:`ChannelReader` is a channel's reading side (``Channel.reader``; the channel's
``decode``, ``adecode``, ``parse``, ``apply``, ``accumulate`` and ``aaccumulate`` delegate to it):
it decodes a body into an :class:`~.stream_events.EventStream`, and feeds typed events into an
:class:`~.accumulate.Accumulator` through the channel's run functions (:data:`Run`). A stream not
read yet is accumulated read by read, undecoded runs joined across reads first
(:func:`coalesce`).

This module is ``src/ssegen/runtime/stream_reader.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Sequence
from itertools import chain, groupby
from typing import Any, Generic, TypeGuard, TypeVar, overload

from .accumulate import COMPACT_PARTS, Accumulator, Family, StreamResult
from .framing import (
    DEFAULT_MAX_EVENT_BYTES,
    Framer,
    NamedEvents,
    PayloadError,
    RawEvents,
    ServerSentEvent,
)
from .sink import Sink
from .stream_classify import Classifier, Item, classify_item, error_reason
from .stream_events import AsyncEventStream, EventStream

E = TypeVar("E")

Run = Callable[[Sink, Iterable[Any]], None]
"""A run function: feeds consecutive events of one class into a ``sink.Sink``, as feeding each
in turn would (the generated ``_apply_<channel>_<message>``; one event is a run of one)."""


def each(apply: Callable[[Sink, Any], None]) -> Run:
    """The run function feeding each event of a run through ``apply``, one of the sink's
    per-event entries (``sink.on_unknown``, ``sink.on_vendor``...)."""

    def run(acc: Sink, events: Iterable[Any]) -> None:
        for event in events:
            apply(acc, event)

    return run


#: The most events and bytes :func:`coalesce` joins into one run: enough to pay the per-run
#: costs rarely, few enough that a run's decoded events are still in the CPU caches when they
#: are applied (256 events measured slower than 64, for chat and Gemini alike).
COALESCE_EVENTS = 64
COALESCE_BYTES = 64 * 1024
#: A run of named events shorter than this joins the runs around it (one event per read, as a
#: server flushing each token sends them: Messages, Responses and Cohere 0.25-0.32x -> 0.29-0.36x
#: of the floor); a longer one passes as it is (joined, 4 KiB reads measured 2-5% slower).
COALESCE_NAMED = 4
#: The parts a text keeps after an NDJSON read's lines of more events, joined while in the caches
#: (Ollama, 4 KiB reads 0.81-0.83x -> 0.82-0.83x the floor, whole 0.96-0.98x -> 1.01-1.03x).
COMPACT_RUN = 128


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
        self.pending: list[RawEvents | NamedEvents] = []
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
    """True for a run :func:`coalesce` joins with the runs around it: ``sse.RawEvents`` of fewer
    than :data:`COALESCE_EVENTS` values in a list (NDJSON lines as read pass: joined, Ollama's
    4 KiB reads measured slower), ``sse.NamedEvents`` of fewer than :data:`COALESCE_NAMED`."""
    if type(item) is RawEvents:
        return isinstance(item.values, list) and len(item.values) < COALESCE_EVENTS
    return type(item) is NamedEvents and len(item.values) < COALESCE_NAMED


def _joined(runs: list[RawEvents | NamedEvents]) -> Item:
    """Consecutive runs of one kind and one last event ID as one."""
    first = runs[0]
    if len(runs) == 1:
        return first
    values = list(chain.from_iterable(run.values for run in runs))
    if type(first) is RawEvents:
        return RawEvents(values, first.id)
    lines = list(chain.from_iterable(r.event_lines for r in runs if type(r) is NamedEvents))
    return NamedEvents(lines, values, first.id)


class ChannelReader(Generic[E]):
    """A channel's reading side (``Channel.reader``): bytes to typed events, typed events to a
    :class:`~.accumulate_results.StreamResult`.

    Args:
        classifier: how the channel's SSE events become typed events (:class:`Classifier`).
        runs: per event class, its run function (:data:`Run`): how consecutive events of
            the class feed an :class:`Accumulator` (a class with none, a keep-alive, feeds
            nothing; an instance of a subclass goes through its base's).
        family: how the events assemble (:class:`~.accumulate_results.Family`), recorded on
            each :class:`~.accumulate_results.StreamResult`.
        framer: builds the body's decoder from ``max_event_bytes`` (the channel's
            ``framing.decoder``).
        framers: by media type (lower case, no parameters), the decoder builder of the
            framing it names (``text/event-stream``: SSE, ``application/x-ndjson``:
            NDJSON...): how a response's ``Content-Type`` chooses its framing
            (:meth:`framer_for`). None: ``framer`` for every response.

    Attributes:
        classify: ``classifier.event``: one SSE event -> its typed event (never raises);
        and the arguments, as given (``framers`` ``{}`` for None).
    """

    __slots__ = ("classifier", "classify", "runs", "family", "framer", "framers")

    def __init__(
        self,
        classifier: Classifier[E],
        runs: dict[type, Run],
        family: Family,
        framer: Callable[[int], Framer],
        framers: dict[str, Callable[[int], Framer]] | None = None,
    ) -> None:
        self.classifier = classifier
        self.classify = classifier.event
        self.runs = runs
        self.family = family
        self.framer = framer
        self.framers = framers or {}

    def framer_for(self, content_type: str | None) -> Callable[[int], Framer]:
        """The decoder builder of the framing a response's ``Content-Type`` names
        (parameters and case ignored: ``application/x-ndjson; charset=utf-8`` is NDJSON),
        whether or not the channel's spec lists it (the bytes are what the header says:
        Cohere v2 answers NDJSON unless the request's ``Accept`` asks for
        ``text/event-stream``); the channel's own (:attr:`framer`) for None or a media type
        of no framing (``application/json``, ``text/html``: such a body gives no event, and
        the stream ends ``truncated``, its reason saying what the body looks like)."""
        if content_type is None:
            return self.framer
        base = content_type.partition(";")[0].strip().lower()
        return self.framers.get(base, self.framer)

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
            raise PayloadError(event, data, error_reason(exc)) from exc

    def decode(
        self,
        chunks: Iterable[bytes],
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        content_type: str | None = None,
    ) -> EventStream[E]:
        """Typed events from an iterable of bytes (e.g. httpx ``response.iter_bytes()``).

        Reads lazily, one chunk at a time; memory is bounded by the largest event.

        Args:
            chunks: the body, in chunks of any size.
            max_event_bytes: limit, in bytes, on one event (default 8 MiB).
            content_type: the response's ``Content-Type``, which chooses the framing
                (:meth:`framer_for`); None: the channel's own framing. A body that gives no
                event and is not of the framing (NDJSON read as SSE, a JSON reply, an HTML
                error page) ends with a :class:`StreamTruncated` whose reason says what it
                looks like.

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
        framer = self.framer if content_type is None else self.framer_for(content_type)
        return EventStream(chunks, self.classifier, max_event_bytes, framer)

    def adecode(
        self,
        chunks: AsyncIterable[bytes],
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        content_type: str | None = None,
    ) -> AsyncEventStream[E]:
        """Typed events from an async iterable of bytes (httpx ``aiter_bytes()``);
        see :meth:`decode`.

        Raises:
            TypeError: ``chunks`` is a whole body (``bytes``, ``bytearray``,
                ``memoryview``, ``str``: decode it as ``decode([body])``) or not an async
                iterable (a list: pass it to :meth:`decode`).
        """
        framer = self.framer if content_type is None else self.framer_for(content_type)
        return AsyncEventStream(chunks, self.classifier, max_event_bytes, framer)

    def apply(self, acc: Accumulator, event: E) -> None:
        """Feed one event into ``acc`` through its class's run function (:attr:`runs`):
        an event decoded leniently (its ``off_spec`` set) through
        :meth:`Accumulator.lenient`, which assembles what fits; an instance of a subclass
        through its base's; an event of a class with none (a keep-alive) feeds nothing.

        Raises:
            TypeError: ``event`` is bytes, text, an int or plain JSON data (a ``dict`` or
                ``list``), never a typed event: the message names :meth:`decode`.
        """
        run = self.runs.get(type(event))
        if run is None:
            run = next((r for cls, r in self.runs.items() if isinstance(event, cls)), None)
            if run is None:
                if isinstance(event, _NOT_EVENTS):
                    raise TypeError(_not_events(event, "accumulate()"))
                return
        if getattr(event, "off_spec", None) is not None:
            found = run
            acc.lenient(event, lambda acc, event: found(acc, (event,)))
            return
        run(acc, (event,))

    def accumulate(
        self, events: Iterable[E], *, full_text: bool = False, content_type: str | None = None
    ) -> StreamResult:
        """Assemble ``events`` (typically ``decode(...)``) into a :class:`StreamResult`.

        Args:
            events: typed events of one stream.
            full_text: cumulative mode, see :class:`Accumulator`.
            content_type: the response's ``Content-Type``, for ``events`` that are a stream
                :meth:`decode` gave and nobody read yet: its body is read with the framing
                the media type names, as ``decode(..., content_type=...)`` would
                (:meth:`framer_for`).

        Returns:
            The :class:`StreamResult`; a stream that ended inside an event
            (a :class:`StreamTruncated` among ``events``, or a decoded stream
            found incomplete) gets one ``truncated`` entry in ``errors``.

        Raises:
            sse.SSEError: from iterating a decoded stream (invalid UTF-8, an
                event over the size limit).
            TypeError: ``events`` is not typed events but what :meth:`decode` takes or a
                payload's data: a whole body (``bytes``, ``str``), its reads (``[body]``,
                ``response.iter_bytes()``: raised at the first read) or plain JSON data (a
                list of dicts); the message names :meth:`decode` (ssegen issue 34).
            ValueError: ``content_type`` with ``events`` that are not a decoded stream
                unread (their framing was chosen when they were decoded).
        """
        if isinstance(events, _NOT_STREAMS):
            raise TypeError(_not_events(events, "accumulate()", whole=True))
        if content_type is not None:
            events = self._reframed(events, content_type)
        acc = self.new_accumulator(full_text)
        if isinstance(events, EventStream) and not events.started:
            # Not iterated yet: classify and apply each read's items directly (no event is
            # handed on before the end, so the reads may be joined: NDJSON's are).
            self.apply_reads(acc, events.batches(joined=True), events.classifier)
        else:
            for count, event in enumerate(events, 1):
                self.apply(acc, event)
                if not count % COMPACT_PARTS:
                    acc.compact()
        return self._result(acc, events)

    async def aaccumulate(
        self,
        events: AsyncIterable[E],
        *,
        full_text: bool = False,
        content_type: str | None = None,
    ) -> StreamResult:
        """Assemble async ``events`` (typically ``adecode(...)``); see :meth:`accumulate`
        (the same errors, the ``TypeError`` naming :meth:`adecode`)."""
        if isinstance(events, _NOT_STREAMS):
            raise TypeError(_not_events(events, "aaccumulate()", whole=True))
        if content_type is not None:
            events = self._reframed(events, content_type)
        acc = self.new_accumulator(full_text)
        if isinstance(events, AsyncEventStream) and not events.started:
            await self.aapply_reads(acc, events.batches(joined=True), events.classifier)
        else:
            count = 0
            async for event in events:
                self.apply(acc, event)
                count += 1
                if not count % COMPACT_PARTS:
                    acc.compact()
        return self._result(acc, events)

    @overload
    def _reframed(self, events: Iterable[E], content_type: str) -> Iterable[E]: ...

    @overload
    def _reframed(self, events: AsyncIterable[E], content_type: str) -> AsyncIterable[E]: ...

    def _reframed(
        self, events: Iterable[E] | AsyncIterable[E], content_type: str
    ) -> Iterable[E] | AsyncIterable[E]:
        """``events``, a decoded stream not read yet, read with the framing ``content_type``
        names (see :meth:`accumulate`)."""
        if not isinstance(events, (EventStream, AsyncEventStream)) or events.started:
            raise ValueError(
                "content_type= chooses the framing of a body not read yet: pass it to"
                " decode(), or to accumulate() with decode()'s stream unread; these events"
                " were framed when they were decoded"
            )
        framer = self.framer_for(content_type)
        return events if framer is events.framer else events.reframed(framer)

    def new_accumulator(self, full_text: bool = False) -> Accumulator:
        """A fresh :class:`Accumulator` of the channel's family (``full_text``: cumulative
        mode, see :class:`Accumulator`)."""
        acc = Accumulator(full_text)
        acc.family = self.family
        return acc

    def apply_reads(
        self,
        acc: Accumulator,
        reads: Iterable[list[Item]],
        classifier: Classifier[E] | None = None,
    ) -> None:
        """Classify and feed into ``acc`` the items of each read of a body, undecoded
        (``EventStream.batches()``, or the reads of several connections of one stream: the
        streaming client's), their runs joined across reads (:func:`coalesce`): what
        :meth:`accumulate` does with a stream not read yet. ``classifier``: the stream's
        (by default the channel's).

        Raises:
            sse.SSEError: from the reads (invalid UTF-8, an event over the size limit).
        """
        items = coalesce(chain.from_iterable(reads))
        self.apply_items(acc, items, classifier or self.classifier)

    async def aapply_reads(
        self,
        acc: Accumulator,
        reads: AsyncIterable[list[Item]],
        classifier: Classifier[E] | None = None,
    ) -> None:
        """:meth:`apply_reads` of async reads, their runs joined read by read (:class:`Joiner`)."""
        classify = classifier or self.classifier
        joiner, applied = Joiner(), 0
        async for batch in reads:
            applied = self.apply_items(acc, joiner.take(batch), classify, applied)
        self.apply_items(acc, joiner.rest(), classify, applied)

    @staticmethod
    def _result(acc: Accumulator, events: object) -> StreamResult:
        """``acc``'s result, with the ``truncated`` error of a decoded stream found incomplete."""
        if isinstance(events, (EventStream, AsyncEventStream)) and events.incomplete:
            acc.truncated(events.state)
        return acc.result()

    def apply_items(
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

        The accumulator is compacted every :data:`COMPACT_PARTS` events (and after an NDJSON
        read's lines, :data:`COMPACT_RUN`); ``applied`` events have come since the last
        compaction, and the count after these items is returned (to pass to the next call).
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
            run = classify_item(item, values, named, False)  # the events are not handed on
            if run:
                # A values run is of one class, as is a run of one event (a read of a server
                # flushing each token): one call of its run function.
                one_class = count == 1 or isinstance(item, RawEvents)
                apply_run = runs.get(type(run[0])) if one_class else None
                if apply_run is not None:
                    apply_run(acc, run)
                else:
                    self._apply_stretches(acc, run)
                if count > COMPACT_RUN and not isinstance(item.values, list):  # ndjson.Lines
                    acc.compact(COMPACT_RUN)  # the lines' parts joined while in the caches
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


class ReadsApplier:
    """Feeds a body's reads into an accumulator one at a time, as they come, as
    :meth:`ChannelReader.aapply_reads` does the reads it iterates: for a consumer that iterates
    the reads itself (the streaming client's ``AsyncStream.aaccumulate``, which then hands no
    read on through a generator). :meth:`take` each read's items in turn, then :meth:`end`
    once.

    Args:
        reader: the channel's reader (its classifier and run functions).
        acc: the accumulator fed.
    """

    __slots__ = ("reader", "acc", "classifier", "joiner", "applied")

    def __init__(self, reader: ChannelReader[Any], acc: Accumulator) -> None:
        self.reader = reader
        self.acc = acc
        self.classifier = reader.classifier
        self.joiner = Joiner()
        self.applied = 0  # events since the accumulator was last compacted

    def take(self, items: list[Item]) -> tuple[()]:
        """Apply one read's ``items`` (the runs that may join the next read's held); no event
        is handed on (an empty tuple)."""
        self.applied = self.reader.apply_items(
            self.acc, self.joiner.take(items), self.classifier, self.applied
        )
        return ()

    def end(self) -> None:
        """Apply the runs held once the body has ended."""
        self.applied = self.reader.apply_items(
            self.acc, self.joiner.rest(), self.classifier, self.applied
        )


#: What is never a typed event: a body or a read of one (``bytes``, ``bytearray``,
#: ``memoryview``), text, an int (iterating a ``bytes`` body gives ints) and plain JSON data.
_NOT_EVENTS: tuple[type[object], ...] = (bytes, bytearray, memoryview, str, int, dict, list)
#: What is never a stream of typed events: a whole body, and one payload's plain data.
_NOT_STREAMS: tuple[type[object], ...] = (bytes, bytearray, memoryview, str, dict)


def _not_events(value: object, caller: str, whole: bool = False) -> str:
    """The message of the ``TypeError`` :meth:`ChannelReader.accumulate` raises for
    ``value``, what it was given (``whole``) or one of its items: what that is, and the
    call that gives typed events (``decode``)."""
    kind = type(value).__name__
    got = kind if whole else f"an item of type {kind}"
    source = (
        "adecode(response.aiter_bytes())"
        if caller.startswith("aa")
        else "decode(response.iter_bytes())"
    )
    wanted = f"{caller} takes a stream's typed events, as channel.{source}"
    if isinstance(value, (dict, list)):
        return (
            f"{wanted} gives them; got {got} (plain JSON data): decode the body's bytes with"
            " channel.decode(...), or one payload's JSON text with channel.parse(data)"
        )
    if not whole:
        fix = "channel.accumulate(channel.decode(chunks))"
    elif isinstance(value, str):
        fix = "channel.accumulate(channel.decode([body.encode()]))"
    else:
        fix = "channel.accumulate(channel.decode([body]))"
    return f"{wanted} gives them; got {got}: decode the body first, as {fix}"
