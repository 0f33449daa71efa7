"""An httpx transport answering requests for generated channels with streams from
:mod:`ssegen.replay`: a capture replayed, a synthesized answer or the spec's examples, with faults.

:class:`SSEMock` holds the routes and builds clients on its transport; the pytest plugin
(:mod:`ssegen.pytest_plugin`) hands one to each test as the ``sse_mock`` fixture, and any code can
use it without pytest::

    mock = SSEMock()
    mock.route(CHANNELS["/chat/completions"], text="Hello", cut_at=2)
    client = mock.client()                                    # an httpx.Client on the transport
    openai.OpenAI(api_key="test", http_client=mock.client(openai))   # the SDK's own client class

The transport serves sync and async clients alike, of ``httpx`` or of any library with its API
(``httpx2``, which the openai >= 3 and anthropic >= 2 SDKs use; :func:`transport_class` builds
one per library). Each response streams the planned pieces as the client reads them (one piece
per event, or ``read_size`` bytes each); faults end it as a real connection would: a cut with
``cut="abort"`` raises the library's ``RemoteProtocolError`` (what httpx raises when a server
drops a chunked body) after the bytes before the cut, and a stall longer than the request's
read timeout raises its ``ReadTimeout`` after that timeout.

Each request is answered by the code ``ssegen mock`` answers with (:mod:`ssegen.mock_serve`):
the same refusals in the provider's error shape, the same faults (from the route, the query and
the ``x-ssegen-fault`` header), and the Responses resuming ``GET
.../responses/{id}?stream=true&starting_after=N`` of a response a route sent.
"""

from __future__ import annotations

import functools
import importlib
import time
from collections.abc import AsyncIterator, Collection, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from .mock_requests import Refusal, RequestRules, request_rules
from .mock_serve import Incoming, RequestSide, error_parts
from .replay import (
    EncodedFrames,
    FaultError,
    Faults,
    Step,
    channel_paths,
    content_type,
    error_frame,
    frame_source,
    import_provider,
    iter_plan,
    package_of,
    path_matches,
    terminator_frame,
)
from .request_body import read_request

#: The message of httpx's own error when a server drops a chunked body (h11, through httpcore).
CUT_MESSAGE = "peer closed connection without sending complete message body (incomplete chunked read)"

SSE_HEADERS = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}


@dataclass
class Route:
    """One channel answered by the transport.

    Attributes:
        channel: the generated channel (``CHANNELS["/chat/completions"]``).
        paths: the URL paths it answers (a request path equal to one, or ending with one after
            any prefix: ``https://host/v1/chat/completions`` matches ``/chat/completions``).
        frames: the events sent, one ``bytes`` item per event (:func:`ssegen.replay.frames_for`).
        faults: what is broken (a request's ``x-ssegen-fault`` header and query parameters
            named as faults add to it, as in ``ssegen mock``).
        url: when set, only request URLs starting with it match (two providers with one path).
        requests: the requests answered, in order (bodies read).
        check: each request is checked as ``ssegen mock`` checks it (the method, the API key,
            required headers and query parameters, the body against its schema:
            :func:`ssegen.mock_requests.screen`), refused in the provider's error shape.
        typed: the typed events ``frames`` were encoded from (None for a capture): on a channel
            that resumes ``starting-after`` (OpenAI Responses) their response id is remembered
            and the resuming ``GET`` sends those after its cursor.
    """

    channel: Any
    paths: list[str]
    frames: list[bytes]
    faults: Faults
    url: str | None = None
    requests: list[Any] = field(default_factory=list)
    check: bool = False
    typed: EncodedFrames | None = field(default=None, repr=False, compare=False)
    #: A resumable response keeps the id the route's stream has (:class:`ssegen.mock_serve.Target`).
    derive_ids: ClassVar[bool] = False

    @functools.cached_property
    def rules(self) -> RequestRules | None:
        """What a request for the channel must be (:func:`ssegen.mock_requests.request_rules`),
        read once per route (its body validator is made once too)."""
        return request_rules(self.channel)

    def matches(self, request: Any) -> bool:
        """The request is for this route (path, and URL prefix when ``url`` is set)."""
        if self.url is not None and not str(request.url).startswith(self.url):
            return False
        return any(path_matches(p, request.url.path, suffix=True) for p in self.paths)

    def make_frames(self, text: str | None, model: str | None, stream: str | None) -> Collection[bytes]:
        """The route's frames, whatever the request names (:class:`ssegen.mock_serve.Target`:
        the route fixes its source); the typed events where the channel resumes
        ``starting-after``, for their response id to be remembered and the events after a
        cursor to be picked."""
        resume = self.rules.resume if self.rules is not None else None
        if self.typed is not None and resume is not None and resume.get("kind") == "starting-after":
            return self.typed
        return self.frames

    @property
    def body(self) -> bytes:
        """The whole body without faults (what a client reads when nothing is broken)."""
        return b"".join(self.frames)


class _BodyMixin:
    """A response body carrying out :class:`ssegen.replay.Step` lists as the client reads
    (combined with the library's ``SyncByteStream`` and ``AsyncByteStream``)."""

    http: ModuleType

    def __init__(self, steps: Iterable[Step], request: Any) -> None:
        self.steps = steps
        self.request = request

    def _stalled(self, step: Step) -> float | None:
        """Seconds to wait before raising ``ReadTimeout``, or None when the stall ends first."""
        value = (self.request.extensions.get("timeout") or {}).get("read")
        timeout = float(value) if isinstance(value, int | float) else None
        return timeout if timeout is not None and timeout < step.seconds else None

    def _failure(self, step: Step) -> Exception:
        if step.kind == "cut":
            return self.http.RemoteProtocolError(CUT_MESSAGE, request=self.request)  # type: ignore[no-any-return]
        return self.http.ReadTimeout("timed out (ssegen mock: stall_after)", request=self.request)  # type: ignore[no-any-return]

    def __iter__(self) -> Iterator[bytes]:
        for step in self.steps:
            if step.kind == "send":
                yield step.data
            elif step.kind == "sleep":
                time.sleep(step.seconds)
            elif step.kind == "stall":
                timeout = self._stalled(step)
                time.sleep(step.seconds if timeout is None else timeout)
                if timeout is not None:
                    raise self._failure(step)
            else:
                raise self._failure(step)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        import anyio  # the dependency of httpx that sleeps under asyncio and trio alike

        for step in self.steps:
            if step.kind == "send":
                yield step.data
            elif step.kind == "sleep":
                await anyio.sleep(step.seconds)
            elif step.kind == "stall":
                timeout = self._stalled(step)
                await anyio.sleep(step.seconds if timeout is None else timeout)
                if timeout is not None:
                    raise self._failure(step)
            else:
                raise self._failure(step)


class _TransportMixin:
    """The transport's behaviour (combined with the library's ``BaseTransport`` and
    ``AsyncBaseTransport`` by :func:`transport_class`)."""

    http: ModuleType
    body_class: type[_BodyMixin]

    def __init__(
        self, routes: list[Route] | None = None, requests: list[Any] | None = None, side: RequestSide | None = None
    ) -> None:
        self.routes: list[Route] = routes if routes is not None else []
        self.requests: list[Any] = requests if requests is not None else []
        self.side = side if side is not None else RequestSide()

    def _error(self, refused: Refusal, channel: Any = None) -> Any:
        status, headers, content = error_parts(refused, channel)
        return self.http.Response(status, headers=headers, content=content)

    def _answer(self, request: Any) -> Any:
        self.requests.append(request)
        route = next((r for r in reversed(self.routes) if r.matches(request)), None)
        path, query = request.url.path, request.url.params
        resumed = None
        if route is None:
            matching = [r for r in reversed(self.routes) if r.url is None or str(request.url).startswith(r.url)]
            try:
                resumed = self.side.resumed(path, query, matching, suffix=True)
            except Refusal as refused:
                return self._error(refused)
            route = resumed.target if resumed is not None else None
        if route is None:
            listed = ", ".join(p for r in self.routes for p in r.paths) or "none"
            message = f"ssegen mock: no route for {request.method} {request.url} (routes: {listed})"
            return self._error(Refusal(404, message, "not_found"))
        route.requests.append(request)
        incoming = Incoming(request.method, path, request.headers, query.multi_items(), read_request(request.content))
        try:
            answer = self.side.answer(incoming, route, resumed, route.faults, check=route.check)
        except Refusal as refused:
            return self._error(refused, route.channel)
        headers = {**SSE_HEADERS, "content-type": content_type(route.channel)}
        return self.http.Response(200, headers=headers, stream=self.body_class(answer.steps, request))

    def handle_request(self, request: Any) -> Any:
        request.read()
        return self._answer(request)

    async def handle_async_request(self, request: Any) -> Any:
        await request.aread()
        return self._answer(request)


@functools.cache
def transport_class(http: ModuleType) -> type[_TransportMixin]:
    """The transport class for an HTTP client library with httpx's API (``httpx``, ``httpx2``):
    a ``BaseTransport`` and ``AsyncBaseTransport`` of that library, answering each request with
    the stream of the last added :class:`Route` it matches (or the rest of a response a route
    sent, for a resuming ``GET``). A request no route matches gets a 404 whose JSON error names
    the routes (the SDKs raise ``NotFoundError`` with that message), a request whose JSON body
    says ``"stream": false`` a 400, a bad fault a 400 naming it, each in the provider's error
    shape. Instances take ``routes`` and ``requests`` lists and a
    :class:`~ssegen.mock_serve.RequestSide` (``times`` counts, responses sent), shared by
    :class:`SSEMock`."""
    body = type("SSEBody", (_BodyMixin, http.SyncByteStream, http.AsyncByteStream), {"http": http})
    bases = (_TransportMixin, http.BaseTransport, http.AsyncBaseTransport)
    cls = type("SSETransport", bases, {"http": http, "body_class": body, "__doc__": transport_class.__doc__})
    return cls


def http_library(http: ModuleType | str | None) -> tuple[ModuleType, Any, Any]:
    """``(library, Client class, AsyncClient class)`` for ``http``: ``None`` (httpx), a library
    or its name (``"httpx2"``), or an SDK module (``openai``, ``anthropic``), whose own
    ``DefaultHttpxClient`` and ``DefaultAsyncHttpxClient`` classes are used, on the library they
    derive from.

    Raises:
        FaultError: a module that is none of these.
    """
    module = importlib.import_module(http or "httpx") if http is None or isinstance(http, str) else http
    sync = getattr(module, "DefaultHttpxClient", None)
    if sync is not None:  # an SDK: its client class, on its HTTP library
        library = importlib.import_module(sync.__mro__[1].__module__.partition(".")[0])
        return library, sync, getattr(module, "DefaultAsyncHttpxClient", library.AsyncClient)
    if not all(hasattr(module, name) for name in ("Client", "AsyncClient", "BaseTransport", "SyncByteStream")):
        raise FaultError(f"{module.__name__} is neither an HTTP library with httpx's API nor an SDK using one")
    return module, module.Client, module.AsyncClient


class SSEMock:
    """Routes generated channels to streams, on transports sharing its routes (the ``sse_mock``
    fixture of :mod:`ssegen.pytest_plugin`).

    Args:
        out, package: where :meth:`route` finds a provider named by a string (default: the
            ``[tool.ssegen]`` settings of the working folder's project).

    Attributes:
        routes: the routes, the last added tried first.
        requests: every request received, in order (of any client).
        side: what the routes' answers share across requests (``times`` counts, the responses
            sent for resuming: :class:`ssegen.mock_serve.RequestSide`).
    """

    def __init__(self, out: Path | None = None, package: str | None = None) -> None:
        self.out = out
        self.package = package
        self.routes: list[Route] = []
        self.requests: list[Any] = []
        self.side = RequestSide()
        self._transports: dict[str, Any] = {}
        self._clients: list[Any] = []

    def transport_for(self, http: ModuleType | str | None = None) -> Any:
        """The transport (sync and async) for ``http`` (see :func:`http_library`), sharing the
        mock's routes and requests; ``http_client=httpx.Client(transport=...)`` takes it."""
        library = http_library(http)[0]
        if library.__name__ not in self._transports:
            self._transports[library.__name__] = transport_class(library)(self.routes, self.requests, self.side)
        return self._transports[library.__name__]

    @property
    def transport(self) -> Any:
        """The httpx transport (:meth:`transport_for` ``httpx``)."""
        return self.transport_for()

    def route(
        self,
        target: Any,
        address: str | None = None,
        *,
        text: str | None = None,
        replay: str | Path | bytes | None = None,
        events: Any = None,
        stream: str | None = None,
        model: str | None = None,
        url: str | None = None,
        path: str | None = None,
        faults: Faults | str | None = None,
        check: bool = False,
        **fault_values: Any,
    ) -> Route:
        """Answer requests for a channel with a stream; a later route for the same path wins.

        Args:
            target: a generated channel (``CHANNELS["/v1/messages"]``), a generated package
                (``generated.deepseek``) or a provider's name (``"deepseek"``).
            address: the channel of a package or provider (default: its only channel; required
                when it has several).
            text, replay, events, stream, model: the events, one source at most (see
                :func:`ssegen.replay.frames_for`; none: the channel's example stream, else a
                synthesized answer, else the spec's examples).
            url: only request URLs starting with this match (e.g. ``https://api.deepseek.com``).
            path: the URL path to answer instead of the channel's own (exact or as a suffix).
            faults: a :class:`~ssegen.replay.Faults` or its text (``"cut_at=3"``).
            check: refuse requests as ``ssegen mock`` does (a 405, 401 or 400 naming the JSON
                pointer, from the package's ``schemas.json``; :attr:`Route.check`).
            **fault_values: faults by name: ``cut_at``, ``cut_at_byte``, ``cut``,
                ``error_event``, ``stall_after``, ``stall``, ``read_size``, ``delay``,
                ``times``, ``status``, ``retry_after``, ``ids`` (:class:`~ssegen.replay.Faults`).

        Returns:
            The :class:`Route`; its ``requests`` are those it answered.

        Raises:
            FaultError: an unknown or bad fault, several sources, an unreadable capture, an
                unknown channel or provider.
        """
        channel = self._channel(target, address)
        base = Faults.parse(faults) if isinstance(faults, str) else faults
        parsed = Faults.from_mapping(fault_values, base)
        package = package_of(channel)
        servers = getattr(package, "SERVERS", {}) if package is not None else {}
        paths = [path] if path is not None else sorted({*channel_paths(channel.address, servers), channel.address})
        source = frame_source(channel, text=text, replay=replay, events=events, stream=stream, model=model)
        frames = list(source)
        # Checked now, so a fault past the stream's end fails the test where it is set up.
        error = error_frame(channel) if parsed.error_event is not None else None
        iter_plan(frames, parsed, error=error, terminator=terminator_frame(channel))
        typed = source if isinstance(source, EncodedFrames) else None
        route = Route(channel, paths, frames, parsed, url, check=check, typed=typed)
        self.routes.append(route)
        return route

    def _channel(self, target: Any, address: str | None) -> Any:
        if hasattr(target, "encode_stream") and hasattr(target, "address"):
            return target
        package = import_provider(target, self.out, self.package) if isinstance(target, str) else target
        channels = getattr(package, "CHANNELS", None)
        if not isinstance(channels, dict):
            raise FaultError(f"{target!r} is not a generated channel, package or provider name")
        if address is None:
            if len(channels) != 1:
                raise FaultError(f"{target!r} has several channels; name one of {', '.join(channels)}")
            address = next(iter(channels))
        if address not in channels:
            raise FaultError(f"{target!r} has no channel {address!r}; channels: {', '.join(channels)}")
        return channels[address]

    def client(self, http: ModuleType | str | None = None, **kwargs: Any) -> Any:
        """A sync client on the mock's transport, closed with the mock: an ``httpx.Client``, or
        of the library ``http`` names, or an SDK's own (``client(openai)``:
        ``openai.DefaultHttpxClient``, for ``openai.OpenAI(http_client=...)``); ``kwargs`` go to it."""
        _library, sync, _async = http_library(http)
        client = sync(transport=self.transport_for(http), **kwargs)
        self._clients.append(client)
        return client

    def async_client(self, http: ModuleType | str | None = None, **kwargs: Any) -> Any:
        """An async client on the mock's transport (see :meth:`client`); close it in the test
        (``async with``, or the SDK client's ``close()``)."""
        _library, _sync, async_class = http_library(http)
        return async_class(transport=self.transport_for(http), **kwargs)

    def close(self) -> None:
        """Close the sync clients made by :meth:`client`."""
        for client in self._clients:
            client.close()
        self._clients.clear()
