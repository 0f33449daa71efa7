"""Writing: a channel's typed events back to bytes, and example streams true to its spec.

:class:`ChannelWriter` is a channel's writing side (``Channel.writer``; the channel's
``encode``, ``encode_stream``, ``example_events`` and ``example_stream`` delegate to it): each
event written as the provider sends it, in the channel's framing (``framing.py``), from what
its :class:`~.encoding.Encoding` says (event types, required members, the terminator); and
streams of the spec's own examples, or synthesized to answer a text
(:class:`~.encoding.Synthesis`).

This module is ``src/ssegen/runtime/stream_writer.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any, Generic, TypeVar

import msgspec

from .accumulate import Family
from .encoding import Encoding, Synthesis
from .events import StreamTruncated, UnknownEvent, VendorEvent
from .framing import Framing
from .json_values import is_object

E = TypeVar("E")


class ChannelWriter(Generic[E]):
    """A channel's writing side (``Channel.writer``): typed events to bytes, and example
    streams.

    Args:
        encoding: what :meth:`encode` and :meth:`example_stream` need (event types, required
            members, the terminator, the examples: :class:`~.encoding.Encoding`).
        framing: how events are written back (``framing.Framing``: ``sse.SSE``,
            ``ndjson.NDJSON``).
        family: how the channel's events assemble (:class:`~.accumulate_results.Family`):
            which synthesis :meth:`example_stream` writes a text with.
        parse: the channel's ``parse`` (``data``, ``event`` -> the typed event), which decodes
            the examples.
        channel: the channel it writes for, named (by its ``repr``) in errors.

    Attributes: the arguments, as given.
    """

    __slots__ = ("encoding", "framing", "family", "parse", "channel")

    def __init__(
        self,
        encoding: Encoding,
        framing: Framing,
        family: Family,
        parse: Callable[[str, str], E],
        channel: object,
    ) -> None:
        self.encoding = encoding
        self.framing = framing
        self.family = family
        self.parse = parse
        self.channel = channel

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
                to write), or an event type, id or raw data no SSE line can carry (CR), or an
                :class:`UnknownEvent` of an empty event type (read back as ``message``), or,
                on an NDJSON channel, an :class:`UnknownEvent` that would not read back: of
                an event type other than ``message`` or with an id (an SSE event's), or whose
                raw data holds a line end, is blank or starts with a BOM
                (``ndjson.unreadable_line``); the message names the event.
            TypeError: ``event`` is neither an :class:`UnknownEvent`, :class:`VendorEvent`
                nor an instance of a message class (a msgspec ``Struct``; a pydantic model for
                that flavour); it is not checked to be one of this channel's.
        """
        enc = self.encoding
        framing = self.framing
        cls = type(event)
        if isinstance(event, UnknownEvent):
            try:
                return framing.frame_text(event.data, event.event, event.id)
            except ValueError as exc:
                raise ValueError(
                    f"cannot encode UnknownEvent(event={event.event!r}, id={event.id!r},"
                    f" data={event.data[:60]!r}) on {self.channel!r}: {exc}"
                ) from None
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
            raise TypeError(f"cannot encode {cls.__name__}: not a message class ({self.channel!r})")
        # JSON text holds no line break (msgspec escapes them): one ``data:`` line, one line.
        return framing.frame(enc.json(event), name)

    def encode_stream(self, events: Iterable[E]) -> Iterator[bytes]:
        """Each of ``events`` encoded (:meth:`encode`), lazily, then the terminator when the
        spec declares one (``data: [DONE]``) and ``events`` did not hold it; a
        :class:`StreamTruncated` ends the output there (a cut stream gets no terminator).
        ``b"".join(...)`` of it is a whole response body. An :class:`UnknownEvent` of no id
        after one with an id is written after an empty ``id`` field (``framing.id_reset``): a
        reader's last event ID persists across events (WHATWG HTML 9.2.6), so it reads back
        without the id, as it came.

        Raises:
            ValueError, TypeError: as :meth:`encode`, when an event is reached.
        """
        terminator = self.encoding.terminator
        done = terminator is None
        last_id = ""  # the reader's last event ID buffer, as the events written leave it
        for event in events:
            if isinstance(event, StreamTruncated):
                return
            if not done and type(event) is type(terminator):
                done = True
            frame = self.encode(event)
            if isinstance(event, UnknownEvent):
                if last_id and not event.id:
                    frame = self.framing.id_reset + frame
                last_id = event.id
            yield frame
        if not done:
            yield self.encode(terminator)

    def example_events(self) -> list[E]:
        """The spec's own examples of the channel (those the package's conformance tests
        decode, synthesized instances included, those of error messages left out:
        ``Encoding.error_examples``), decoded, in spec order, the terminator
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

        With ``text`` (chat, messages, responses, gemini and cohere families, and a stated plan
        with its text's ``append`` step: :meth:`Synthesis.stated`): a stream answering ``text``,
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
        out = self._synthesize(synth, text, finish_reason)
        return out + ([] if enc.terminator is None else [enc.terminator])

    def _synthesize(self, synth: Synthesis, text: str, finish_reason: str) -> list[Any]:
        """The events answering ``text`` for the channel's family, or from its stated plan
        (:meth:`Synthesis.stated`); ValueError naming what is missing when neither can."""
        stated = getattr(self.encoding, "stated_text", None)  # packages generated before it
        if stated is not None:
            return synth.stated(text, finish_reason, stated)

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
            missing = (
                ": its plan has no `append` step adding to a stream text at one path (no key,"
                " no `[*]`), which says where a synthesized text goes"
                if self.family is Family.CUSTOM
                else ""
            )
            raise ValueError(
                f"{self.channel!r}: no stream synthesis for family {self.family.value!r}{missing}"
            )
        return synthesize(text, finish_reason)

    def _example_payloads(self) -> list[tuple[str, dict[str, Any]]]:
        """``(event type, JSON object)`` of each example frame holding an object: the
        harvested streams' first, then the documented examples (what :class:`Synthesis`
        writes its events after)."""
        payloads: list[tuple[str, dict[str, Any]]] = []
        for frames in (*self.encoding.streams.values(), self.encoding.examples):
            for event, data in frames:
                if data.lstrip().startswith("{"):
                    payload = msgspec.json.decode(data)
                    if is_object(payload):
                        payloads.append((event, payload))
        return payloads
