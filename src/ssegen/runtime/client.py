"""The streaming client: an operation's request sent over httpx, its response as typed events,
with retries, an idle timeout, resume and cancellation.

::

    with Client(base_url, api_key) as client, client.stream(operation, body) as events:
        for event in events: ...              # typed events, or:
        result = events.accumulate()          # the StreamResult

:class:`Client` and :class:`AsyncClient` send an :class:`~.client_request.Operation`'s request
(``client_request.py``) and give its body as a :class:`Stream` / :class:`AsyncStream` of the
channel's typed events. The decisions (retry, start over, resume, how a stream ends) are
``client_control.py``'s; this module carries them out over httpx:

- ``timeout`` bounds connecting, sending and waiting for the response headers; once they have
  come, the read timeout becomes ``idle_timeout``: no byte for that long closes the connection
  (httpx's ``ReadTimeout``), and the stream resumes, starts over or ends ``stalled``.
- Errors before the first byte raise the exceptions of ``client_errors.py``; a stream that has
  started ends instead, its result saying why.
- Leaving the ``with`` block, ``close()``, ``break`` or cancelling the task closes the response
  (its connection goes back to httpx's pool).

A generated package subclasses :class:`Client` and :class:`AsyncClient`, setting
:attr:`Client.default_base_url` (the spec's first server) and :attr:`Client.operations` (its
operations by channel address), and adds one typed method per operation.

httpx is needed by this module alone: ``decode`` and ``accumulate`` work without it.

This module is ``src/ssegen/runtime/client.py`` of ssegen, written verbatim into every output
folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypedDict, TypeVar, Unpack, overload

try:
    import httpx
except ImportError as exc:  # pragma: no cover - the message is tested with httpx blocked
    raise ImportError(
        "ssegen's streaming client (_runtime/client.py) needs httpx, which is not installed:"
        " pip install httpx (decode and accumulate work without it)"
    ) from exc

from .client_control import Retry, StreamControl
from .client_errors import APIConnectionError, APIError, APIStatusError, APITimeoutError
from .client_request import (
    Auth,
    AuthScheme,
    HTTPRequest,
    Operation,
    RequestPlan,
    Resume,
    request_body,
)
from .client_retry import Backoff
from .client_stream import AsyncStream, Stream

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIStatusError",
    "APITimeoutError",
    "AsyncClient",
    "AsyncStream",
    "Auth",
    "AuthScheme",
    "Backoff",
    "Client",
    "Operation",
    "Resume",
    "Retry",
    "Stream",
    "StreamOptions",
]

E = TypeVar("E")
H = TypeVar("H", httpx.Client, httpx.AsyncClient)


class StreamOptions(TypedDict, total=False):
    """The keyword arguments of :meth:`Client.stream` after the operation and its body, as the
    overloads of ``stream`` (the runtime's, and a generated client's one per address) take them:
    ``**options: Unpack[StreamOptions]`` accepts exactly the keywords the implementation has.

    Attributes:
        headers: headers of this call (over the client's).
        path_params: the values of the path's ``{name}`` parameters.
        extra_body: members added to the body (over its own): those a typed body lacks.
    """

    headers: Mapping[str, str] | None
    path_params: Mapping[str, Any] | None
    extra_body: Mapping[str, Any] | None


class _ClientBase(Generic[H]):
    """What :class:`Client` and :class:`AsyncClient` share: their settings, and each call's
    :class:`~.client_request.RequestPlan` (see :class:`Client` for the arguments)."""

    #: The base URL when none is given: a generated client's first server.
    default_base_url: ClassVar[str | None] = None
    #: The operations :meth:`Client.stream` finds by name (a generated client's, by channel
    #: address: ``client.stream("/chat/completions", body)``).
    operations: ClassVar[Mapping[str, Operation[Any]]] = {}
    #: The httpx client sending the requests.
    http_client: H

    def __init__(
        self,
        base_url: str | None,
        api_key: str | None,
        headers: Mapping[str, str] | None,
        timeout: float | None,
        idle_timeout: float | None,
        max_retries: int,
        backoff: Backoff | None,
    ) -> None:
        url = base_url or self.default_base_url
        if not url:
            raise ValueError("no base_url: pass base_url= (the provider's server URL)")
        if max_retries < 0:
            raise ValueError(f"max_retries is a count, 0 or more; got {max_retries}")
        self.base_url = url
        self.api_key = api_key
        self.headers = dict(headers or {})
        self.timeout = timeout
        self.idle_timeout = idle_timeout
        self.max_retries = max_retries
        self.backoff = backoff or Backoff()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"

    def _control(
        self,
        operation: Operation[Any] | str,
        body: Any,
        headers: Mapping[str, str] | None,
        path_params: Mapping[str, Any] | None,
        extra_body: Mapping[str, Any] | None,
    ) -> StreamControl:
        """The :class:`~.client_control.StreamControl` of one call: the operation found, the
        body built, the key found (the client's, else the operation's environment variable).

        Raises:
            ValueError: an operation name the client does not know; a path parameter missing.
            TypeError: a body that is no JSON object.
        """
        if isinstance(operation, str):
            found = self.operations.get(operation)
            if found is None:
                known = ", ".join(self.operations) or "none"
                raise ValueError(f"no operation {operation!r} (the client's: {known})")
            operation = found
        env = operation.auth.env
        key = self.api_key or (os.environ.get(env) if env else None)
        plan = RequestPlan(
            operation,
            self.base_url,
            key,
            request_body(operation, body, extra_body),
            {**self.headers, **(headers or {})},
            path_params,
        )
        return StreamControl(operation, plan, self.backoff, self.max_retries, self.idle_timeout)

    def build_request(self, request: HTTPRequest) -> httpx.Request:
        """The httpx request of ``request`` (``client_request.HTTPRequest``), on the client's
        ``http_client``, its timeouts the client's ``timeout``."""
        return self.http_client.build_request(
            request.method,
            request.url,
            headers=request.headers,
            content=request.content,
            timeout=httpx.Timeout(self.timeout),
        )


class Client(_ClientBase[httpx.Client]):
    """A synchronous streaming client (httpx): each :meth:`stream` call sends an operation's
    request and gives its typed events.

    Args:
        base_url: the server's URL (``https://api.deepseek.com``); by default
            :attr:`default_base_url` (a generated client's first server).
        api_key: the API key; by default the operation's environment variable
            (``Auth.env``: ``DEEPSEEK_API_KEY``), read at each call.
        headers: headers sent with every request (over the operation's own).
        timeout: seconds allowed to connect, send the request and receive the response
            headers (each, as httpx counts them); None for no limit.
        idle_timeout: seconds of silence allowed in a body once its headers have come: past
            them the connection is closed, and the stream resumes, starts over or ends
            ``stalled``; None for no limit.
        max_retries: the most retries in a row without progress (0: none), each after a
            :class:`~.client_retry.Backoff` wait.
        http_client: an ``httpx.Client`` to send with (its transport, limits, proxies); not
            closed by :meth:`close`. By default the client makes one, and closes it.
        backoff: the waits and what waits (:class:`~.client_retry.Backoff`; tests hand it a
            fake ``sleep``).

    Raises:
        ValueError: no base URL; a negative ``max_retries``.

    Use it as a context manager (``with Client(...) as client:``), or :meth:`close` it.
    """

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 600.0,
        idle_timeout: float | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.Client | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        super().__init__(base_url, api_key, headers, timeout, idle_timeout, max_retries, backoff)
        self._owned = http_client is None
        self.http_client = http_client or httpx.Client(
            timeout=httpx.Timeout(timeout), follow_redirects=True
        )

    @overload
    def stream(
        self, operation: Operation[E], body: Any, **options: Unpack[StreamOptions]
    ) -> Stream[E]: ...

    @overload
    def stream(
        self, operation: str, body: Any, **options: Unpack[StreamOptions]
    ) -> Stream[Any]: ...

    def stream(
        self,
        operation: Operation[Any] | str,
        body: Any,
        *,
        headers: Mapping[str, str] | None = None,
        path_params: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> Stream[Any]:
        """One streamed call of ``operation``: a :class:`Stream`, to use as a context manager
        (``with client.stream(op, body) as events:``), which sends the request on entry.

        Args:
            operation: an :class:`~.client_request.Operation`, or the name of one of
                :attr:`operations`.
            body: the request body: a mapping, a msgspec Struct, a dataclass or a pydantic
                model; the stream member is set by the client.
            headers: headers of this call (over the client's).
            path_params: the values of the path's ``{name}`` parameters.
            extra_body: members added to the body (over its own): those a typed body lacks.

        Raises:
            ValueError: an unknown operation name; a path parameter missing.
            TypeError: a body that is no JSON object.
        """
        control = self._control(operation, body, headers, path_params, extra_body)
        return Stream(self, control)

    def close(self) -> None:
        """Close the httpx client the client made (not one it was given)."""
        if self._owned:
            self.http_client.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class AsyncClient(_ClientBase[httpx.AsyncClient]):
    """The asynchronous twin of :class:`Client` (``httpx.AsyncClient``): the same arguments
    (``http_client`` an ``httpx.AsyncClient``), :meth:`stream` giving an :class:`AsyncStream`
    (``async with client.stream(op, body) as events:``); ``async with`` it, or
    :meth:`aclose` it. Waits are the backoff's ``asleep`` (``asyncio.sleep``)."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float | None = 600.0,
        idle_timeout: float | None = 60.0,
        max_retries: int = 2,
        http_client: httpx.AsyncClient | None = None,
        backoff: Backoff | None = None,
    ) -> None:
        super().__init__(base_url, api_key, headers, timeout, idle_timeout, max_retries, backoff)
        self._owned = http_client is None
        self.http_client = http_client or httpx.AsyncClient(
            timeout=httpx.Timeout(timeout), follow_redirects=True
        )

    @overload
    def stream(
        self, operation: Operation[E], body: Any, **options: Unpack[StreamOptions]
    ) -> AsyncStream[E]: ...

    @overload
    def stream(
        self, operation: str, body: Any, **options: Unpack[StreamOptions]
    ) -> AsyncStream[Any]: ...

    def stream(
        self,
        operation: Operation[Any] | str,
        body: Any,
        *,
        headers: Mapping[str, str] | None = None,
        path_params: Mapping[str, Any] | None = None,
        extra_body: Mapping[str, Any] | None = None,
    ) -> AsyncStream[Any]:
        """:meth:`Client.stream`, asynchronously: an :class:`AsyncStream`, which sends the
        request on ``async with``."""
        control = self._control(operation, body, headers, path_params, extra_body)
        return AsyncStream(self, control)

    async def aclose(self) -> None:
        """Close the httpx client the client made (not one it was given)."""
        if self._owned:
            await self.http_client.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()
