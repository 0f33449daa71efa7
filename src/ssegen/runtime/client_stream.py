"""The streaming client's streams: one call's typed events, across the connections it takes.

:class:`Stream` (and :class:`AsyncStream`) is what ``Client.stream`` (``AsyncClient.stream``)
gives: it sends the request on entry (retrying before the first byte), reads each connection's
body through the channel's decoder, and carries out what ``client_control.StreamControl``
decides when a connection ends (resume, start over, end). See ``client.py`` for the whole.

This module is ``src/ssegen/runtime/client_stream.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterable, Iterator
from itertools import chain
from types import TracebackType
from typing import Any, Generic, Protocol, Self, TypeVar

try:
    import httpx
except ImportError as exc:  # pragma: no cover - the message is tested with httpx blocked
    raise ImportError(
        "ssegen's streaming client (_runtime/client_stream.py) needs httpx, which is not"
        " installed: pip install httpx (decode and accumulate work without it)"
    ) from exc

from .accumulate import StreamResult
from .client_control import (
    FLOW,
    LOST,
    RETRY,
    STALLED,
    Reconnect,
    Retry,
    StreamControl,
)
from .client_errors import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    status_error,
)
from .client_request import HTTPRequest, Operation, RequestPlan
from .client_retry import Backoff
from .framing import StreamState
from .stream import Channel
from .stream_classify import Item
from .stream_reader import ReadsApplier

__all__ = ["AsyncStream", "Stream"]

E = TypeVar("E")


class _Sender(Protocol):
    """What a :class:`Stream` needs of its client (``client.Client``)."""

    http_client: httpx.Client
    idle_timeout: float | None
    backoff: Backoff

    def build_request(self, request: HTTPRequest) -> httpx.Request: ...


class _AsyncSender(Protocol):
    """What an :class:`AsyncStream` needs of its client (``client.AsyncClient``)."""

    http_client: httpx.AsyncClient
    idle_timeout: float | None
    backoff: Backoff

    def build_request(self, request: HTTPRequest) -> httpx.Request: ...


class _StreamBase(Generic[E]):
    """What :class:`Stream` and :class:`AsyncStream` share (see :class:`Stream`)."""

    def __init__(self, control: StreamControl) -> None:
        self.operation: Operation[E] = control.operation
        self.channel: Channel[E] = control.operation.channel
        self._control = control
        self._reading = False
        self._closed = False

    @property
    def retries(self) -> list[Retry]:
        """Each retry, start over and resume so far, in order (``client_control.Retry``:
        kind, reason, delay)."""
        return self._control.retries

    def _claim(self) -> None:
        """Mark the stream read (it is read once).

        Raises:
            RuntimeError: it is already being read, or closed.
        """
        if self._closed:
            raise RuntimeError("this stream is closed")
        if self._reading:
            raise RuntimeError("this stream is already being read: a stream is read once")
        self._reading = True

    def _failed(self, error: APIError) -> None:
        """A reconnection failed for good: the stream ends (see ``StreamControl.gave_up``)."""
        self._control.gave_up(error)


class Stream(_StreamBase[E]):
    """One streamed call: the typed events of its body, across the connections it takes.

    Made by :meth:`Client.stream`; the request is sent on entering it (``with``, or
    :meth:`open`, or at the first read), its retries before the first byte done then.
    Iterate it once for the typed events (the channel's, as ``Channel.decode`` gives them),
    or :meth:`accumulate` it; a stream cut or stalled resumes, starts over or ends with a
    ``StreamTruncated`` / ``StreamStalled`` event (see ``client_control.py``).

    Attributes:
        operation: the operation called.
        channel: its channel.
        response: the httpx response of the current connection (status, headers), once sent.
        retries: each retry, start over and resume (``client_control.Retry``).

    Raises (on entry, or at the first read): :class:`~.client_errors.APIStatusError`,
    :class:`~.client_errors.APIConnectionError`, :class:`~.client_errors.APITimeoutError`,
    after any retries. While reading: ``sse.SSEError`` for bytes that cannot be decoded, as
    ``Channel.decode`` raises them; ``RuntimeError`` when read twice.
    """

    def __init__(self, client: _Sender, control: StreamControl) -> None:
        super().__init__(control)
        self.response: httpx.Response | None = None
        self._client = client
        self._reads: Generator[list[Item], None, None] | None = None

    def open(self) -> Self:
        """Send the request (once; its retries before the first byte done) and return the
        stream; :attr:`response` is then the response.

        Raises:
            RuntimeError: the stream is closed.
            APIError: see the class.
        """
        if self._closed:
            raise RuntimeError("this stream is closed")
        if self.response is None:
            self.response = self._send(self._control.plan.first())
        return self

    def __enter__(self) -> Self:
        return self.open()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __iter__(self) -> Iterator[E]:
        batch = self.channel.classifier.batch
        return chain(chain.from_iterable(map(batch, self._start())), self._end())

    def accumulate(self, *, full_text: bool = False) -> StreamResult:
        """Read the stream whole and assemble it, as ``Channel.accumulate`` does a decoded
        body: the :class:`StreamResult` of every connection's events, with its end
        (``truncated``, ``stalled``) in ``errors``. ``full_text``: see ``Accumulator``."""
        reader = self.channel.reader
        acc = reader.new_accumulator(full_text)
        reader.apply_reads(acc, self._start())
        return self._control.result(acc)

    def close(self) -> None:
        """Stop reading and close the response (its connection returns to the pool); closing
        again does nothing."""
        self._closed = True
        if self._reads is not None:
            self._reads.close()
        if self.response is not None:
            self.response.close()

    def _start(self) -> Generator[list[Item], None, None]:
        """The reads of the stream, its request sent if it was not yet."""
        self.open()
        self._claim()
        self._reads = self._read()
        return self._reads

    def _end(self) -> Iterator[Any]:
        """The stream's last event when it ended early (typed ``Any``: every channel's event
        union holds ``StreamTruncated``, which ``StreamStalled`` is)."""
        if self._control.end is not None:
            yield self._control.end

    def _read(self) -> Generator[list[Item], None, None]:
        """The reads of each connection's body in turn, as the stream hands them on: held
        while the control is ``holding`` (:meth:`StreamControl.hold`), the held ones handed on
        as one read once content arrives, then as they come; each connection's end decided by
        the control (:meth:`StreamControl.finish`). One generator between the body's reads and
        the reader (the read driver catches the transport's errors: ``_ENDS``): each more would
        cost every read a resumption (~70 ns sync, ~170 ns async: 2-4% of a one-event read)."""
        control, response = self._control, self.response
        while response is not None:
            events = self.channel.decode(response.iter_bytes())
            last: list[Item] | None = None
            retry = False
            try:
                for items in events.batches(ends=_ENDS):
                    last = items
                    if control.holding:
                        verdict = control.hold(items)
                        retry = verdict == RETRY
                        if verdict != FLOW:
                            if retry:
                                break
                            continue
                        items = control.release()
                    yield items
            finally:
                events.close()
                response.close()
            reconnect = control.finish(events.state, *_cut(events.state), last, retry)
            response = None if reconnect is None else self._reconnect(reconnect)
        held = control.release()
        if held:
            yield held

    def _reconnect(self, reconnect: Reconnect) -> httpx.Response | None:
        """Wait, then send ``reconnect``'s request; None when it fails for good."""
        self._client.backoff.sleep(reconnect.delay)
        try:
            self.response = self._send(reconnect.request)
        except APIError as error:
            self._failed(error)
            return None
        self._control.connected()
        return self.response

    def _send(self, request: HTTPRequest) -> httpx.Response:
        """Send ``request`` and return its 2xx response, its read timeout switched to the idle
        timeout; retry connection errors and retryable statuses while retries are left.

        Raises:
            APIStatusError, APIConnectionError, APITimeoutError: no retry left, or none due.
        """
        client, control = self._client, self._control
        while True:
            cause: BaseException | None = None
            try:
                response = client.http_client.send(client.build_request(request), stream=True)
            except httpx.TransportError as exc:
                error: APIError = _connection_error(exc, request)
                cause = exc
            else:
                if response.is_success:
                    _idle(response, client.idle_timeout)
                    return response
                try:
                    response.read()
                except httpx.TransportError:
                    pass  # the error body cut short: what came is kept
                finally:
                    response.close()
                error = _status_error(response, request, control.plan)
            delay = control.retry_delay(error)
            if delay is None:
                raise error from cause
            client.backoff.sleep(delay)


class AsyncStream(_StreamBase[E]):
    """The asynchronous twin of :class:`Stream` (made by :meth:`AsyncClient.stream`):
    ``async with`` it (or :meth:`open` it) to send the request, ``async for`` its typed events
    or ``await`` :meth:`aaccumulate`; :meth:`aclose` closes it. Cancelling the task reading it
    closes the response too. Same attributes and errors."""

    def __init__(self, client: _AsyncSender, control: StreamControl) -> None:
        super().__init__(control)
        self.response: httpx.Response | None = None
        self._client = client
        self._reads: AsyncGenerator[Any, None] | None = None

    async def open(self) -> Self:
        """:meth:`Stream.open`, asynchronously."""
        if self._closed:
            raise RuntimeError("this stream is closed")
        if self.response is None:
            self.response = await self._send(self._control.plan.first())
        return self

    async def __aenter__(self) -> Self:
        return await self.open()

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    def __aiter__(self) -> AsyncIterator[E]:
        return self._start(self._read(self.channel.classifier.batch, ending=True))

    async def aaccumulate(self, *, full_text: bool = False) -> StreamResult:
        """:meth:`Stream.accumulate`, asynchronously."""
        reader = self.channel.reader
        acc = reader.new_accumulator(full_text)
        applier = ReadsApplier(reader, acc)
        async for _ in self._start(self._read(applier.take)):  # none: each read is applied
            pass
        applier.end()
        return self._control.result(acc)

    async def aclose(self) -> None:
        """:meth:`Stream.close`, asynchronously."""
        self._closed = True
        if self._reads is not None:
            await self._reads.aclose()
        if self.response is not None:
            await self.response.aclose()

    def _start(self, reads: AsyncGenerator[Any, None]) -> AsyncGenerator[Any, None]:
        """``reads`` (:meth:`_read`), kept to be closed by :meth:`aclose` unless the stream is
        being read already (``reads`` then raises when iterated)."""
        if not self._reading:
            self._reads = reads
        return reads

    async def _read(
        self, take: Callable[[list[Item]], Iterable[Any]], ending: bool = False
    ) -> AsyncGenerator[Any, None]:
        """:meth:`Stream._read`, asynchronously, its request sent if it was not yet: each read
        handed on is given to ``take``, and what ``take`` returns is yielded (the typed events
        of ``Classifier.batch``; nothing for a :class:`~.stream_reader.ReadsApplier`'s, which
        applies the read: the reads of ``aaccumulate`` resume no generator), then the
        stream's end event when ``ending``."""
        await self.open()
        self._claim()
        control, response = self._control, self.response
        while response is not None:
            events = self.channel.adecode(response.aiter_bytes())
            last: list[Item] | None = None
            retry = False
            try:
                async for items in events.batches(ends=_ENDS):
                    last = items
                    if control.holding:
                        verdict = control.hold(items)
                        retry = verdict == RETRY
                        if verdict != FLOW:
                            if retry:
                                break
                            continue
                        items = control.release()
                    for event in take(items):
                        yield event
            finally:
                await events.aclose()
                await response.aclose()
            reconnect = control.finish(events.state, *_cut(events.state), last, retry)
            response = None if reconnect is None else await self._reconnect(reconnect)
        for event in take(control.release()):
            yield event
        if ending and control.end is not None:
            yield control.end

    async def _reconnect(self, reconnect: Reconnect) -> httpx.Response | None:
        """:meth:`Stream._reconnect`, asynchronously."""
        await self._client.backoff.asleep(reconnect.delay)
        try:
            self.response = await self._send(reconnect.request)
        except APIError as error:
            self._failed(error)
            return None
        self._control.connected()
        return self.response

    async def _send(self, request: HTTPRequest) -> httpx.Response:
        """:meth:`Stream._send`, asynchronously."""
        client, control = self._client, self._control
        while True:
            cause: BaseException | None = None
            try:
                built = client.build_request(request)
                response = await client.http_client.send(built, stream=True)
            except httpx.TransportError as exc:
                error: APIError = _connection_error(exc, request)
                cause = exc
            else:
                if response.is_success:
                    _idle(response, client.idle_timeout)
                    return response
                try:
                    await response.aread()
                except httpx.TransportError:
                    pass  # the error body cut short: what came is kept
                finally:
                    await response.aclose()
                error = _status_error(response, request, control.plan)
            delay = control.retry_delay(error)
            if delay is None:
                raise error from cause
            await client.backoff.asleep(delay)


#: What ends a body as its end does (``framing.read_items``' ``ends``), kept in
#: ``StreamState.ended_by``: the decoder then sees the body end, and tells whether it ended
#: inside an event. Caught by the read driver rather than around the reads: a generator
#: wrapping ``iter_bytes()`` would cost every read a resumption.
_ENDS: tuple[type[BaseException], ...] = (httpx.TransportError,)


def _cut(state: StreamState) -> tuple[str | None, str]:
    """How a body ended early (``client_control.LOST``, ``STALLED``, or None) and the
    transport's error in words, from ``state.ended_by``."""
    error = state.ended_by
    if error is None:
        return None, ""
    cut = STALLED if isinstance(error, httpx.TimeoutException) else LOST
    return cut, f"{type(error).__name__}: {error}"


def _idle(response: httpx.Response, idle_timeout: float | None) -> None:
    """Switch the read timeout of ``response``'s request to ``idle_timeout``: httpcore reads
    the request's ``timeout`` extension when it starts reading the body, so the body's reads
    wait at most that long each (the headers waited the client's ``timeout``)."""
    timeouts = response.request.extensions.get("timeout")
    if isinstance(timeouts, dict):
        timeouts["read"] = idle_timeout


def _connection_error(exc: httpx.TransportError, request: HTTPRequest) -> APIConnectionError:
    """The :class:`APIConnectionError` (an :class:`APITimeoutError` for a timeout) of a
    request that got no response."""
    kind = APITimeoutError if isinstance(exc, httpx.TimeoutException) else APIConnectionError
    text = f"{request.method} {request.shown}: {type(exc).__name__}: {exc}".rstrip(": ")
    return kind(text, method=request.method, url=request.shown)


def _status_error(
    response: httpx.Response, request: HTTPRequest, plan: RequestPlan
) -> APIStatusError:
    """The :class:`APIStatusError` of a non-2xx ``response`` (its body read)."""
    return status_error(
        response.status_code,
        response.reason_phrase,
        response.headers,
        _content(response),
        decoder=plan.operation.error_decoder,
        hint=plan.key_hint if response.status_code == 401 else "",
        method=request.method,
        url=request.shown,
        response=response,
    )


def _content(response: httpx.Response) -> bytes:
    """The body of ``response`` as read (b"" when reading it failed at once)."""
    try:
        return response.content
    except httpx.ResponseNotRead:
        return b""
