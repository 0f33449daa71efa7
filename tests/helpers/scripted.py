"""A scripted server for the streaming client's tests: an ``httpx.MockTransport`` answering each
request with the next of its answers (a status, a refused connection, a body read piece by piece
that may be cut or stall), recording the requests and whether each body was closed.

The client under test is ``generated._runtime.client``: the runtime the generated channels run on.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from generated._runtime.client import AsyncClient, Backoff, Client

#: Steps of a body besides its bytes: the connection is lost (httpx's ``RemoteProtocolError``, what
#: it raises when a server drops a chunked body), or no byte comes before the read timeout
#: (httpx's ``ReadTimeout``, what a silent server gives once the client's idle timeout passes).
CUT = "cut"
STALL = "stall"


@dataclass
class Status:
    """An answer with a status other than 2xx."""

    code: int
    body: bytes = b'{"error": {"message": "busy", "type": "server_error"}}'
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class Refuse:
    """No answer: the transport raises ``error`` (a class of httpx's, e.g. ``httpx.ConnectError``)."""

    error: type[httpx.TransportError] = httpx.ConnectError


@dataclass
class Body:
    """A 200 answer whose body is read step by step: bytes, :data:`CUT` or :data:`STALL`."""

    steps: Sequence[bytes | str]
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)


Answer = Status | Refuse | Body


class ScriptedBody(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A body carrying out :class:`Body` steps, for sync and async clients, that records how far
    it was read, the read timeout in force when reading started, and whether it was closed."""

    def __init__(self, steps: Sequence[bytes | str], request: httpx.Request) -> None:
        self.steps = list(steps)
        self.request = request
        self.sent = 0
        self.closed = False
        self.read_timeout: object = "unread"

    def _step(self, step: bytes | str) -> bytes:
        if step == CUT:
            raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")
        if step == STALL:
            raise httpx.ReadTimeout("timed out")
        assert isinstance(step, bytes)
        self.sent += 1
        return step

    def __iter__(self) -> Iterator[bytes]:
        self.read_timeout = (self.request.extensions.get("timeout") or {}).get("read")
        for step in self.steps:
            yield self._step(step)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        self.read_timeout = (self.request.extensions.get("timeout") or {}).get("read")
        for step in self.steps:
            await asyncio.sleep(0)
            yield self._step(step)

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


class Server:
    """The answers given in turn (the last one again once they run out), or a function of each
    request giving its answer.

    Attributes:
        requests: the requests received, in order.
        bodies: the bodies served, in order.
        sleeps: the waits the clients it makes asked for (their ``Backoff.sleep``/``asleep``).
    """

    def __init__(self, *answers: Answer | Callable[[httpx.Request], Answer]) -> None:
        self.answers = list(answers)
        self.requests: list[httpx.Request] = []
        self.bodies: list[ScriptedBody] = []
        self.sleeps: list[float] = []

    def answer(self, request: httpx.Request) -> httpx.Response:
        index = min(len(self.requests), len(self.answers) - 1)
        self.requests.append(request)
        answer = self.answers[index]
        if callable(answer):
            answer = answer(request)
        if isinstance(answer, Refuse):
            raise answer.error("refused", request=request)
        if isinstance(answer, Status):
            return httpx.Response(answer.code, headers=answer.headers, content=answer.body)
        body = ScriptedBody(answer.steps, request)
        self.bodies.append(body)
        return httpx.Response(200, headers={"content-type": answer.content_type, **answer.headers}, stream=body)

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self.answer)

    def backoff(self, jitter: float = 1.0, clock: float = 0.0) -> Backoff:
        """A backoff that records its waits instead of waiting, with a fixed jitter draw."""

        async def asleep(seconds: float) -> None:
            self.sleeps.append(seconds)

        return Backoff(sleep=self.sleeps.append, asleep=asleep, random=lambda: jitter, clock=lambda: clock)

    def client(self, **kwargs: Any) -> Client:
        kwargs.setdefault("backoff", self.backoff())
        return Client("https://api.test/v1", "sk-test", http_client=httpx.Client(transport=self.transport), **kwargs)

    def async_client(self, **kwargs: Any) -> AsyncClient:
        kwargs.setdefault("backoff", self.backoff())
        http = httpx.AsyncClient(transport=self.transport)
        return AsyncClient("https://api.test/v1", "sk-test", http_client=http, **kwargs)


def frames(body: bytes) -> list[bytes]:
    """The events of an SSE body, each with its blank line (``b"data: ...\\n\\n"``)."""
    return [part + b"\n\n" for part in body.split(b"\n\n") if part.strip()]


def with_ids(events: Sequence[bytes], start: int = 1) -> list[bytes]:
    """SSE events each given an ``id:`` field, numbered from ``start``."""
    return [f"id: {start + i}\n".encode() + event for i, event in enumerate(events)]


def half(event: bytes) -> bytes:
    """The first half of an event: the body cut inside it."""
    return event[: max(1, len(event) // 2)]
