"""Stream runtime: typed events from a channel's bytes, and the assembled result.

:class:`Channel` ties a channel's message classifier (generated from the spec, see
``channels.py``) to its framer (``sse.py`` for ``text/event-stream``, ``ndjson.py`` for
newline-delimited JSON), to an :class:`~.accumulate.Accumulator` (``accumulate.py``) and to its
:class:`~.encoding.Encoding` (``encoding.py``).  :class:`EventStream` and
:class:`AsyncEventStream` are what ``decode`` and ``adecode`` return.  Nothing is dropped: a
payload that matches no message of the channel becomes an :class:`~.events.UnknownEvent`
carrying its raw text, and the accumulator records it under ``errors``.

A channel's jobs are split by module, and this module re-exports the public names of each
(generated packages import them from here: ``from .._runtime.stream import Channel,
Classifier, Run, decode_with, each``):

- ``stream_classify.py``: SSE events to typed events (:class:`Classifier`);
- ``stream_events.py``: the event streams ``decode`` and ``adecode`` return
  (:class:`EventStream`, :class:`AsyncEventStream`, :class:`ConcurrentUseError`);
- ``stream_reader.py``: the reading side, ``channel.reader`` (:class:`ChannelReader`: decode,
  accumulate; run functions, :data:`Run`; runs joined across reads, :func:`coalesce`);
- ``stream_writer.py``: the writing side, ``channel.writer`` (:class:`ChannelWriter`: encode,
  example streams);
- here: the :class:`Channel`, holding the channel's spec data and those two.

This module is ``src/ssegen/runtime/stream.py`` of ssegen, written verbatim into
every output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, Callable, Iterable, Iterator
from typing import Generic, TypeVar

from .accumulate import Accumulator, Family, StreamResult
from .accumulate_results import family_of
from .encoding import Encoding
from .events import StreamTruncated, UnknownEvent
from .framing import DEFAULT_MAX_EVENT_BYTES, Framer, Framing
from .ndjson import NDJSON
from .sink import on_truncated, on_unknown
from .sse import SSE
from .stream_classify import (
    Classifier,
    Item,
    NamedClassifier,
    ValuesClassifier,
    decode_with,
)
from .stream_events import AsyncEventStream, ConcurrentUseError, EventStream
from .stream_reader import (
    COALESCE_BYTES,
    COALESCE_EVENTS,
    COALESCE_NAMED,
    ChannelReader,
    Joiner,
    Run,
    coalesce,
    each,
    joinable,
)
from .stream_writer import ChannelWriter

__all__ = [
    "COALESCE_BYTES",
    "COALESCE_EVENTS",
    "COALESCE_NAMED",
    "EVERY_CHANNEL_RUNS",
    "FRAMINGS",
    "AsyncEventStream",
    "Channel",
    "ChannelReader",
    "ChannelWriter",
    "Classifier",
    "ConcurrentUseError",
    "EventStream",
    "Item",
    "Joiner",
    "NamedClassifier",
    "Run",
    "ValuesClassifier",
    "coalesce",
    "decode_with",
    "each",
    "joinable",
]

E = TypeVar("E")

FRAMINGS: dict[str, Framing] = {SSE.name: SSE, NDJSON.name: NDJSON}
"""The framings by name (the IR channel's ``framing``), for ``Channel(framing=<name>)``."""

EVERY_CHANNEL_RUNS: dict[type, Run] = {
    UnknownEvent: each(on_unknown),
    StreamTruncated: each(on_truncated),
}
"""The runs of the runtime's own events, the same in every channel: a :class:`Channel` adds each
to the runs it is given, unless they hold one for its class (so a generated ``_APPLY_<CHANNEL>``
table leaves them out)."""


class Channel(Generic[E]):
    """One streaming endpoint of the provider: decode bytes, assemble results.

    The channel holds its spec data; reading is its :attr:`reader`'s
    (:class:`ChannelReader`), writing its :attr:`writer`'s (:class:`ChannelWriter`). Its
    methods (:meth:`decode`, :meth:`adecode`, :meth:`parse`, :meth:`apply`,
    :meth:`accumulate`, :meth:`aaccumulate`; :meth:`encode`, :meth:`encode_stream`,
    :meth:`example_events`, :meth:`example_stream`) each delegate to one of theirs, where
    the full contract is written.

    Args:
        address: the channel address, e.g. ``/chat/completions``.
        messages: message name (as in the spec) -> the class its events
            decode to, in decode order.
        classifier: how its SSE events become typed events (:class:`Classifier`).
        runs: per event class, its run function (:data:`Run`): how consecutive events of
            the class feed an :class:`Accumulator` (a class with none, a keep-alive, feeds
            nothing; an instance of a subclass goes through its base's); those of
            :data:`EVERY_CHANNEL_RUNS` it does not hold are added.
        family: how the events assemble (``chat``, ``messages``, ``responses``,
            ``gemini``, ``cohere``, ``custom``, ``none``), recorded on the :class:`StreamResult`.
        encoding: what :meth:`encode` and :meth:`example_stream` need (event types,
            required members, the terminator, the examples); by default every event
            travels as ``message`` and there are no examples.
        framing: how the body is cut into events and events written back: a
            ``framing.Framing`` (``sse.SSE``, ``text/event-stream``; ``ndjson.NDJSON``, one
            JSON value per line), or its name (the IR channel's ``framing``: ``sse``,
            ``ndjson``; see :data:`FRAMINGS`). The default of every response; a response's
            ``Content-Type`` chooses another (``content_type=`` of :meth:`decode` and
            :meth:`accumulate`: :meth:`ChannelReader.framer_for`).
        media_types: every media type the spec lists for the channel's responses, in its
            order (Cohere v2: ``text/event-stream`` and ``application/x-ndjson``); by
            default the framing's own.

    Attributes:
        classify: ``classifier.event``: one SSE event -> its typed event (never raises).
        framing: the ``framing.Framing`` (``media_type``, ``decoder``, ``frame``); it
            compares equal to its name.
        framer: ``framing.decoder``: builds the body's decoder from ``max_event_bytes``,
            for ``sse.iter_events(..., framer=...)``.
        media_types: as given, or ``(framing.media_type,)``.
        runs: the runs given, with :data:`EVERY_CHANNEL_RUNS` added.
        reader: the reading side (:class:`ChannelReader`), over ``classifier``, ``runs``,
            ``family`` and ``framer``.
        writer: the writing side (:class:`ChannelWriter`), over ``encoding``, ``framing``,
            ``family`` and the reader's ``parse``.

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
        media_types: tuple[str, ...] = (),
    ) -> None:
        if isinstance(framing, str):
            if framing not in FRAMINGS:
                raise ValueError(f"framing must be one of {', '.join(FRAMINGS)}, got {framing!r}")
            framing = FRAMINGS[framing]
        self.address = address
        self.messages = messages
        self.classifier = classifier
        self.classify = classifier.event
        runs = {**runs, **{cls: run for cls, run in EVERY_CHANNEL_RUNS.items() if cls not in runs}}
        self.runs = runs
        self.family = family_of(family)
        self.encoding = encoding or Encoding()
        self.framing: Framing = framing
        self.framer: Callable[[int], Framer] = framing.decoder
        self.media_types = media_types or (framing.media_type,)
        framers: dict[str, Callable[[int], Framer]] = {
            media: f.decoder for f in FRAMINGS.values() for media in f.media_types
        }
        self.reader: ChannelReader[E] = ChannelReader(
            classifier, runs, self.family, self.framer, framers
        )
        self.writer: ChannelWriter[E] = ChannelWriter(
            self.encoding, framing, self.family, self.reader.parse, self
        )

    def __repr__(self) -> str:
        return f"Channel({self.address!r})"

    # Reading: each method delegates to the reader (stream_reader.py), where it is documented.

    def decode(
        self,
        chunks: Iterable[bytes],
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        content_type: str | None = None,
    ) -> EventStream[E]:
        """Typed events from an iterable of bytes (e.g. httpx ``response.iter_bytes()``),
        read lazily, framed as ``content_type`` (the response's ``Content-Type``) says:
        delegates to :meth:`ChannelReader.decode` (``channel.reader.decode``), which
        documents the arguments and errors."""
        return self.reader.decode(
            chunks, max_event_bytes=max_event_bytes, content_type=content_type
        )

    def adecode(
        self,
        chunks: AsyncIterable[bytes],
        *,
        max_event_bytes: int = DEFAULT_MAX_EVENT_BYTES,
        content_type: str | None = None,
    ) -> AsyncEventStream[E]:
        """Typed events from an async iterable of bytes (httpx ``aiter_bytes()``): delegates
        to :meth:`ChannelReader.adecode` (``channel.reader.adecode``)."""
        return self.reader.adecode(
            chunks, max_event_bytes=max_event_bytes, content_type=content_type
        )

    def parse(self, data: str, event: str = "message", id: str = "") -> E:
        """The typed event for one SSE event given as its parts (data, event type, last event
        ID): delegates to :meth:`ChannelReader.parse` (``channel.reader.parse``)."""
        return self.reader.parse(data, event, id)

    def apply(self, acc: Accumulator, event: E) -> None:
        """Feed one event into ``acc`` through its class's run function: delegates to
        :meth:`ChannelReader.apply` (``channel.reader.apply``)."""
        self.reader.apply(acc, event)

    def accumulate(
        self, events: Iterable[E], *, full_text: bool = False, content_type: str | None = None
    ) -> StreamResult:
        """Assemble ``events`` (typically ``decode(...)``) into a :class:`StreamResult`:
        delegates to :meth:`ChannelReader.accumulate` (``channel.reader.accumulate``), which
        documents the arguments and errors."""
        return self.reader.accumulate(events, full_text=full_text, content_type=content_type)

    async def aaccumulate(
        self,
        events: AsyncIterable[E],
        *,
        full_text: bool = False,
        content_type: str | None = None,
    ) -> StreamResult:
        """Assemble async ``events`` (typically ``adecode(...)``): delegates to
        :meth:`ChannelReader.aaccumulate` (``channel.reader.aaccumulate``)."""
        return await self.reader.aaccumulate(events, full_text=full_text, content_type=content_type)

    # Writing: each method delegates to the writer (stream_writer.py), where it is documented.

    def encode(self, event: E) -> bytes:
        """One typed event as the provider sends it (UTF-8 bytes in the channel's framing),
        the inverse of :meth:`decode`: delegates to :meth:`ChannelWriter.encode`
        (``channel.writer.encode``), which documents the form and errors."""
        return self.writer.encode(event)

    def encode_stream(self, events: Iterable[E]) -> Iterator[bytes]:
        """Each of ``events`` encoded, lazily, then the terminator the spec declares:
        delegates to :meth:`ChannelWriter.encode_stream` (``channel.writer.encode_stream``)."""
        return self.writer.encode_stream(events)

    def example_events(self) -> list[E]:
        """The spec's own examples of the channel, decoded, in spec order: delegates to
        :meth:`ChannelWriter.example_events` (``channel.writer.example_events``)."""
        return self.writer.example_events()

    def example_stream(
        self,
        text: str | None = None,
        *,
        stream: str | None = None,
        model: str | None = None,
        finish_reason: str = "stop",
    ) -> list[E]:
        """A complete stream of typed events, true to the spec, for tests and mocks (a
        harvested example stream, or one answering ``text``): delegates to
        :meth:`ChannelWriter.example_stream` (``channel.writer.example_stream``), which
        documents the arguments and errors."""
        return self.writer.example_stream(
            text, stream=stream, model=model, finish_reason=finish_reason
        )
