"""Classifying: a channel's SSE events (one at a time, or a read's runs at once) into typed events.

:class:`Classifier` holds the channel's generated classifying functions (``classify_<channel>``,
``classify_values_<channel>``, ``classify_named_<channel>``); the event streams
(``stream_events.py``) and the channel's reader (``stream_reader.py``) call it.

This module is ``src/ssegen/runtime/stream_classify.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain
from typing import TYPE_CHECKING, Generic, TypeVar

from .framing import NamedEvents, PayloadError, RawEvents, ServerSentEvent, SSEError

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

ValuesClassifier = Callable[[Sequence[bytes], bool], Sequence[E] | None]
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

Item = ServerSentEvent | RawEvents | NamedEvents
"""One item of a read, as ``sse.SSEDecoder.feed_raw`` gives it."""


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
        return classify_item(item, self.values, self.named)

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
        run = classify_item(
            item, self.values, self.named
        )  # self.run(item), one call fewer per read
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


def classify_item(
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


def _one_by_one(
    events: list[ServerSentEvent], classify: Callable[[ServerSentEvent], E]
) -> Iterator[E]:
    """The typed events of ``events``, classified one at a time, up to the first that
    cannot be: it raises :class:`sse.PayloadError`, naming the original failure."""
    for event in events:
        try:
            typed = classify(event)
        except Exception as exc:
            raise PayloadError(event.event, event.data, error_reason(exc)) from exc
        yield typed


def error_reason(exc: BaseException) -> str:
    """What failed, in words, for :class:`sse.PayloadError`."""
    if isinstance(exc, RecursionError):
        return "JSON nested too deep"
    return f"{type(exc).__name__}: {str(exc)[:120]}"
