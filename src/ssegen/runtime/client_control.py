"""The streaming client's decisions over one stream, apart from any HTTP library: when to retry,
start over or resume, what to hold back, and how the stream ends.

:class:`StreamControl` follows one call of ``client.stream(...)`` across its connections. The
client (``client.py``) hands it what happens (a response refused, a read of the body, how a
connection ended) and does what it says:

- **Before the first byte** (:meth:`StreamControl.retry_delay`): a connection error or a
  retryable status (``client_retry.should_retry``) is tried again after a wait, while retries
  are left.
- **Before content** (:meth:`StreamControl.hold`): the reads of a stream are held back until
  content arrives (``Operation.content_arrived``); an in-stream error that says "try again"
  (``Operation.retryable_error``) before then starts the stream over, and its reader sees none
  of the attempt. A stream whose content has started is never started over.
- **When a connection ends** (:meth:`StreamControl.finish`): a body cut (the connection lost,
  or ended inside an event) or stalled (no byte for ``idle_timeout`` seconds) is resumed where
  the operation allows it and the stream's position is known (:class:`~.client_request.Resume`;
  any stream whose events carry ids, with ``Last-Event-ID``), else started over while no
  content has arrived, else ended: its last event a ``StreamTruncated`` (``truncated``) or
  ``StreamStalled`` (``stalled``), what arrived kept.

Each retry, start over and resume counts against ``max_retries``; a connection that brought
events resets the count (as Fern's resumable streams do), so a long stream may resume as often
as it makes progress. Each is logged in :attr:`StreamControl.retries`.

This module is ``src/ssegen/runtime/client_control.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, NamedTuple

import msgspec

from .accumulate import Accumulator, StreamResult
from .client_errors import APIError, APIStatusError
from .client_request import HTTPRequest, Operation, RequestPlan, Resume
from .client_retry import Backoff, should_retry
from .events import StreamStalled, StreamTruncated, truncated_reason
from .framing import NamedEvents, RawEvents, StreamState
from .json_values import is_object
from .stream_classify import Item

__all__ = [
    "FLOW",
    "HOLD",
    "RETRY",
    "Reconnect",
    "Retry",
    "StreamControl",
]

#: :meth:`StreamControl.hold`'s verdicts: keep holding the reads; hand them on (content has
#: arrived); start the stream over (a retryable error before content).
HOLD, FLOW, RETRY = "hold", "flow", "retry"

#: How a connection's body ended early, as the client tells :meth:`StreamControl.finish`:
#: the connection was lost, or no byte came for ``idle_timeout`` seconds.
LOST, STALLED = "lost", "stalled"


class Retry(NamedTuple):
    """One more try of a stream, as :attr:`StreamControl.retries` logs it.

    Attributes:
        kind: ``retry`` (the request sent again: before the first byte, or from the start
            before content) or ``resume`` (the stream continued after its last event).
        reason: why (``503 Service Unavailable``, ``error event overloaded_error``,
            ``stalled``, ``lost: RemoteProtocolError: ...``).
        delay: the wait before it, in seconds.
    """

    kind: str
    reason: str
    delay: float


class Reconnect(NamedTuple):
    """What :meth:`StreamControl.finish` asks for: send ``request`` after ``delay`` seconds."""

    request: HTTPRequest
    delay: float


class _Sequence(msgspec.Struct):
    """The sequence number of a Responses event (``sequence_number``), and nothing else."""

    sequence_number: int | None = None


_sequence = msgspec.json.Decoder(_Sequence)


class StreamControl:
    """The decisions over one stream's connections (see the module's docstring).

    Args:
        operation: the operation called.
        plan: its requests (:class:`~.client_request.RequestPlan`).
        backoff: the waits (:class:`~.client_retry.Backoff`).
        max_retries: the most retries, start overs and resumes in a row without progress.
        idle_timeout: the client's, in seconds (what a ``stalled`` error reports).

    Attributes:
        retries: every retry, start over and resume, in order (:class:`Retry`).
        holding: no content has arrived yet: reads are held (:meth:`hold`).
        end: the event the stream ends with (``StreamTruncated``, ``StreamStalled``), or None.
    """

    def __init__(
        self,
        operation: Operation[Any],
        plan: RequestPlan,
        backoff: Backoff,
        max_retries: int,
        idle_timeout: float | None,
    ) -> None:
        self.operation = operation
        self.plan = plan
        self.backoff = backoff
        self.max_retries = max_retries
        self.idle_timeout = idle_timeout
        self.reader = operation.channel.reader
        self.retries: list[Retry] = []
        self.attempts = 0  # retries since the last connection that brought events
        self.holding = True
        self.held: list[list[Item]] = []
        self.end: StreamTruncated | None = None
        self._probe = self.reader.new_accumulator()
        self._fallback: list[list[Item]] = []  # an attempt's reads, until its start over works
        self._pending: StreamTruncated | None = None  # the end if a reconnection fails
        self._reason = ""  # the error event a start over is for
        self._bytes = 0  # bytes of the connections before the current one
        self._responses = plan.resumable and operation.resume is Resume.RESPONSES
        self.last_event_id = ""
        self.reconnection_time: int | None = None  # milliseconds (SSE ``retry:``)
        self.response_id: str | None = None
        self.sequence_number: int | None = None

    def retry_delay(self, error: APIError) -> float | None:
        """The wait, in seconds, before sending the request again after ``error`` (a status
        refused, a connection failed, before the first byte of the body); None when it is not
        retried (a status :func:`~.client_retry.should_retry` refuses, no retry left). A
        ``Retry-After`` or ``retry-after-ms`` the response sends is the wait when
        :meth:`Backoff.retry_after` honours it, else the backoff's."""
        after = None
        if isinstance(error, APIStatusError):
            if not should_retry(error.status_code, error.headers):
                return None
            after = self.backoff.retry_after(error.headers)
        if self.attempts >= self.max_retries:
            return None
        delay = self.backoff.delay(self.attempts) if after is None else after
        reason = error.message.split(": ", 1)[-1]
        self._count("retry", reason, delay)
        return delay

    def hold(self, items: list[Item]) -> str:
        """Take one read of the body while no content has arrived: it is held (:attr:`held`)
        and its events applied to a probe accumulator. :data:`RETRY` when one of them is an
        error :attr:`Operation.retryable_error` retries (before content, with a retry left),
        :data:`FLOW` once :attr:`Operation.content_arrived` (no longer :attr:`holding`: the
        held reads are to be handed on, :meth:`release`), else :data:`HOLD`."""
        self.held.append(items)
        acc, apply = self._probe, self.reader.apply
        for event in self.reader.classifier.batch(items):
            seen = len(acc.errors)
            apply(acc, event)
            if self._responses and self.response_id is None:
                self._note_response(event)
            if len(acc.errors) > seen and self._retried(acc, acc.errors[seen:]):
                return RETRY
        if self.operation.content_arrived(acc):
            self.holding = False
            return FLOW
        return HOLD

    def _retried(self, acc: Accumulator, errors: list[dict[str, Any]]) -> bool:
        """Whether new ``errors`` start the stream over (see :meth:`hold`)."""
        retryable = self.operation.retryable_error
        for error in errors:
            if error["kind"] in ("error_event", "error_in_chunk") and retryable(error["data"]):
                if self.attempts < self.max_retries and not self.operation.content_arrived(acc):
                    self._reason = f"error event {_code(error['data'])}"
                    return True
        return False

    def _note_response(self, event: Any) -> None:
        """Keep the response id a Responses event carries (``response.created``)."""
        response_id = getattr(getattr(event, "response", None), "id", None)
        if isinstance(response_id, str) and response_id:
            self.response_id = response_id

    def release(self) -> list[Item]:
        """The items of the held reads, in order, handed on once as one read (the hold is
        emptied; each item stands alone, so they are the events the reads would give)."""
        held, self.held = self.held, []
        return held[0] if len(held) == 1 else list(chain.from_iterable(held))

    def finish(
        self,
        state: StreamState,
        cut: str | None,
        failure: str,
        last: list[Item] | None,
        retry: bool,
    ) -> Reconnect | None:
        """How a connection ended, and what comes next: a :class:`Reconnect` (resume, or
        start over), or None when the stream ends (then :attr:`end`, if set, is its last
        event, after the held reads).

        Args:
            state: the body's decoding state (last event ID, bytes, incompleteness).
            cut: :data:`LOST` (the connection failed: ``failure`` says how) or
                :data:`STALLED` (no byte for ``idle_timeout`` seconds), or None (the body
                ended: cut only if it ended inside an event).
            failure: the transport's error, in words ("" for none).
            last: the connection's last read (held or handed on), None when it gave none.
            retry: :meth:`hold` said :data:`RETRY`.
        """
        self._bytes += state.bytes_consumed
        self._track(state, last)
        if retry:
            return self._start_over(self._reason)
        if last is not None:
            self.attempts = 0  # progress: the connection brought events
        if (cut is None and not state.incomplete) or self._completed(last):
            return None
        end = self._end_event(state, cut, failure)
        reconnect = self._resume(end) or self._restart(end)
        if reconnect is None:
            self.end = end
        self._pending = end
        return reconnect

    def _track(self, state: StreamState, last: list[Item] | None) -> None:
        """Keep where the stream stands: its last event ID, reconnection time, and the last
        sequence number (Responses), from what this connection gave."""
        if state.last_event_id:
            self.last_event_id = state.last_event_id
        if state.reconnection_time is not None:
            self.reconnection_time = state.reconnection_time
        if self._responses and last is not None:
            number = _last_sequence_number(last)
            if number is not None:
                self.sequence_number = number

    def _completed(self, last: list[Item] | None) -> bool:
        """The connection's last event completes the stream (its terminator: ``[DONE]``,
        ``message_stop``, ``response.completed``): a failure after it cuts nothing."""
        if not last:
            return False
        events = list(self.reader.classifier.item(last[-1]))
        if not events:
            return False
        acc = self.reader.new_accumulator()
        self.reader.apply(acc, events[-1])
        return acc.complete

    def _end_event(self, state: StreamState, cut: str | None, failure: str) -> StreamTruncated:
        """The event ending the stream if it is not continued."""
        if cut == STALLED:
            return StreamStalled(
                reason=f"no byte came for {self.idle_timeout:g} s (idle_timeout): the connection"
                " was closed",
                bytes_consumed=self._bytes,
                bytes_discarded=state.bytes_discarded,
                idle_timeout=self.idle_timeout,
            )
        reason = truncated_reason(state.bytes_consumed, state.bytes_discarded)
        if cut == LOST:
            reason = f"the connection was lost ({failure})" + (
                "; the unterminated event was discarded" if state.incomplete else ""
            )
        return StreamTruncated(
            reason=reason, bytes_consumed=self._bytes, bytes_discarded=state.bytes_discarded
        )

    def _resume(self, end: StreamTruncated) -> Reconnect | None:
        """The request resuming the stream after its last event, when its position is known and
        a retry is left: by sequence number for a resumable Responses stream, else with
        ``Last-Event-ID`` once the stream gave an event ID, whatever the operation's
        :class:`~.client_request.Resume` (WHATWG's ``EventSource`` reconnects any stream whose
        events carry ids: a server sending ids says where to continue from)."""
        if self.attempts >= self.max_retries:
            return None
        if self._responses and self.response_id is not None and self.sequence_number is not None:
            request = self.plan.after_sequence_number(self.response_id, self.sequence_number)
            delay = self.backoff.delay(self.attempts)
        elif self.last_event_id:
            request = self.plan.after_event_id(self.last_event_id)
            delay = self.backoff.delay(self.attempts)
            if self.reconnection_time is not None:  # WHATWG: the stream's own reconnection time
                delay = min(self.reconnection_time / 1000.0, self.backoff.max_retry_after)
        else:
            return None
        self._count("resume", _why(end), delay)
        return Reconnect(request, delay)

    def _restart(self, end: StreamTruncated) -> Reconnect | None:
        """The first request again, while no content has arrived and a retry is left."""
        if not self.holding or self.attempts >= self.max_retries:
            return None
        return self._start_over(_why(end))

    def _start_over(self, reason: str) -> Reconnect:
        """The first request again: the attempt's reads set aside (handed on only if the new
        attempt fails), the stream's position forgotten."""
        self._fallback, self.held = self.held, []
        self._probe = self.reader.new_accumulator()
        self.last_event_id, self.response_id, self.sequence_number = "", None, None
        self._pending = None
        delay = self.backoff.delay(self.attempts)
        self._count("retry", reason, delay)
        return Reconnect(self.plan.first(), delay)

    def _count(self, kind: str, reason: str, delay: float) -> None:
        self.attempts += 1
        self.retries.append(Retry(kind, reason, delay))

    def connected(self) -> None:
        """A reconnection got its response: the previous attempt's reads are dropped."""
        self._fallback, self._pending = [], None

    def gave_up(self, error: APIError) -> None:
        """A reconnection failed for good (``error``, after its own retries): the stream ends
        with what the last attempt brought, its :attr:`end` saying why."""
        self.held = self._fallback + self.held
        self._fallback = []
        if self._pending is not None:
            end = self._pending
            self.end = msgspec.structs.replace(end, reason=f"{end.reason}; then {error.message}")

    def result(self, acc: Accumulator) -> StreamResult:
        """``acc``'s result, with the stream's end recorded (``truncated``, ``stalled``)."""
        if self.end is not None:
            acc.truncated(self.end)
        return acc.result()


def _last_sequence_number(items: list[Item]) -> int | None:
    """The sequence number of the last event of ``items`` that has one (Responses)."""
    for item in reversed(items):
        values = (
            reversed(item.values) if isinstance(item, (RawEvents, NamedEvents)) else [item.data]
        )
        for value in values:
            try:
                number = _sequence.decode(value).sequence_number
            except (msgspec.DecodeError, msgspec.ValidationError):
                continue
            if number is not None:
                return number
    return None


def _code(data: Any) -> str:
    """An in-stream error's code, type or status, for :class:`Retry`'s reason."""
    holder = data.get("error") if is_object(data) else None
    holder = holder if is_object(holder) else data
    if is_object(holder):
        for name in ("type", "code", "status"):
            if isinstance(holder.get(name), (str, int)) and holder.get(name) != "error":
                return str(holder[name])
    return "error"


def _why(end: StreamTruncated) -> str:
    """:class:`Retry`'s reason of a cut or stalled connection."""
    return "stalled" if isinstance(end, StreamStalled) else f"cut: {end.reason}"
