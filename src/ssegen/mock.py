"""``ssegen mock``: an HTTP server streaming every channel of generated packages, spec-true, with
faults on request, for pointing a client's ``base_url`` at (Starlette + uvicorn, the ``mock``
extra: ``pip install 'ssegen[mock]'``).

Each channel is served at its address under the base path of each of its spec's servers
(:func:`ssegen.replay.channel_paths`: DeepSeek chat at ``/chat/completions``, Anthropic at
``/v1/messages``, OpenAI Responses at ``/v1/responses``, Mistral chat at
``/v1/chat/completions``), and under ``/<provider>`` too (``/xerotier/chat/completions``), which
tells apart two providers with one path; a bare path goes to the first provider named. The
response is chunked ``text/event-stream``: the stream :func:`ssegen.replay.frames_for` builds
(a capture given with ``--replay``, a text given with ``--text`` or ``?text=``, the channel's
example stream, else a synthesized answer), one write per event (or per ``read_size`` bytes),
with the faults of :class:`ssegen.replay.Faults` from ``--fault``/``--delay``, the request's
``x-ssegen-fault`` header and its query parameters (``?cut_at=3&delay=0.05``). A cut with
``cut=abort`` (the default) drops the connection mid-body, as a crashed upstream does. A JSON
body with ``"stream": false`` gets a 400 (the mock answers streams only); its ``model`` names the
model of every event naming one. A request is checked as the provider checks it, from the
package's ``schemas.json`` (:mod:`ssegen.mock_requests`: the method, the API key, the body
against its schema), and the Responses channel serves its resuming ``GET``. ``GET /`` lists the
channels (HTML; JSON with ``Accept: application/json``).
"""

from __future__ import annotations

import html
import logging
import socket
import threading
from collections.abc import Awaitable, Callable, Collection, Iterable, MutableMapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from .diagnostics import escape_controls
from .mock_requests import Refusal, RequestRules, request_rules, with_model
from .mock_serve import Incoming, RequestSide, Resumed, error_parts
from .replay import (
    FAULT_HEADER,
    FaultError,
    Faults,
    Step,
    channel_paths,
    content_type,
    default_source,
    frame_source,
    path_matches,
    read_capture,
)
from .request_body import MAX_MODEL, read_request

#: What to run when the ASGI stack is missing.
INSTALL_HINT = "ssegen mock needs Starlette and uvicorn: pip install 'ssegen[mock]'"
#: The methods the stream route takes, to answer each not the spec's with a 405 in the provider's shape.
_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
#: The request header naming a text to synthesize for one request.
TEXT_HEADER = "x-ssegen-text"

LOG = logging.getLogger("ssegen.mock")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class MockUnavailable(RuntimeError):
    """Starlette or uvicorn is not installed (the message says how to install them)."""


@dataclass(frozen=True)
class Limits:
    """What one client may ask of the mock: it is a network service (loopback is no boundary,
    any page open in the developer's browser can reach it), so each request's work and memory,
    and each connection's time, are bounded. The defaults serve every SDK and test.

    Attributes:
        max_body: bytes of a request body: past it a 413, answered while reading (a
            ``content-length`` over it is refused before any byte is read).
        max_text: characters of a text a request asks to synthesize (``?text=``,
            ``x-ssegen-text``): past it a 400.
        max_model: characters of the body's ``model``, which every synthesized event repeats:
            past it a 400.
        max_connections: connections open at once (uvicorn's ``limit_concurrency``): a request
            past it gets a 503.
        head_timeout: seconds for a request's line and headers to arrive, from the connection's
            start or its previous response's end: a connection slower than that (slowloris) is
            closed.
        body_timeout: seconds for a request's body to arrive: past it a 408.
        keep_alive: seconds an idle connection is kept between requests (uvicorn's
            ``timeout_keep_alive``).
        max_head: bytes of a request's line and headers (uvicorn's
            ``h11_max_incomplete_event_size``): past it a 400 and the connection closed.

    Raises:
        FaultError: a limit that is not a positive number (a whole one for sizes and counts).
    """

    max_body: int = 1024 * 1024
    max_text: int = 16 * 1024
    max_model: int = MAX_MODEL
    max_connections: int = 256
    head_timeout: float = 5.0
    body_timeout: float = 10.0
    keep_alive: float = 5.0
    max_head: int = 16 * 1024

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            whole = f.type == "int"
            kinds = int if whole else int | float
            if isinstance(value, bool) or not isinstance(value, kinds) or not 0 < value < float("inf"):
                raise FaultError(f"{f.name}={value!r}: {'a whole number' if whole else 'seconds'} > 0")

    @classmethod
    def parse(cls, items: Iterable[str], base: Limits | None = None) -> Limits:
        """Limits from ``NAME=VALUE`` items (``ssegen mock --limit max_body=65536``) over ``base``.

        Raises:
            FaultError: an item without ``=``, an unknown name (the known ones are listed), a bad value.
        """
        known = {f.name: f.type for f in fields(cls)}
        changes: dict[str, Any] = {}
        for item in items:
            name, sep, text = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                raise FaultError(f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(known)}")
            try:
                changes[name] = int(text, 10) if known[name] == "int" else float(text)
            except ValueError:
                raise FaultError(f"{item!r}: expected a number") from None
        return replace(base or cls(), **changes)


def _require() -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        raise MockUnavailable(INSTALL_HINT) from None


@dataclass
class Endpoint:
    """One channel served.

    Attributes:
        provider: the provider name (the package's ``PROVIDER``).
        channel: the generated channel.
        paths: the HTTP paths it answers, the provider-prefixed one last.
        replay: a capture to send instead of the default stream.
        text: a text to synthesize instead of the default stream.
        frames: the capture's events, read once when it is given (:func:`ssegen.replay.read_capture`).
        rules: what a request opening the stream must be (:func:`ssegen.mock_requests.request_rules`:
            method, API key, body schema, resumption), or None for a package that states none.
    """

    provider: str
    channel: Any
    paths: list[str]
    replay: Path | None = None
    text: str | None = None
    requests: int = field(default=0, compare=False)
    frames: list[bytes] | None = field(default=None, repr=False, compare=False)
    rules: RequestRules | None = field(default=None, repr=False, compare=False)
    #: Each resumable response gets an id derived from its request (:class:`ssegen.mock_serve.Target`).
    derive_ids: ClassVar[bool] = True

    @property
    def source(self) -> str:
        """What it sends unless a request says otherwise, in words (control characters of a
        file name escaped: it is printed)."""
        if self.replay is not None:
            return f"capture {escape_controls(str(self.replay))}"
        if self.text is not None:
            return f"synthesized answer {self.text!r}"
        return default_source(self.channel)

    def make_frames(self, text: str | None, model: str | None, stream: str | None) -> Collection[bytes]:
        """The frames answering a request naming ``text``, ``model`` and an example ``stream``
        (:class:`ssegen.mock_serve.Target`): the capture when it names no source, else the
        stream :func:`ssegen.replay.frame_source` makes (the endpoint's text when it names
        none), ``model`` in every event naming one."""
        if self.frames is not None and not (text or stream):
            return self.frames
        text = text if text or stream else self.text
        return with_model(frame_source(self.channel, text=text, stream=stream, model=model), model)


def endpoints(
    packages: Sequence[ModuleType], replays: dict[str | None, Path] | None = None, text: str | None = None
) -> list[Endpoint]:
    """The endpoints serving every channel of ``packages`` (generated packages).

    Args:
        packages: the providers, in the order their bare paths are claimed.
        replays: channel address (or ``provider:address``, or None for the only channel
            served) -> a capture to replay there.
        text: a text every synthesizing channel answers (chat, Messages, Responses, Gemini,
            Cohere).

    Raises:
        FaultError: a replay naming no channel served, or a bare replay with several channels;
            a capture that is no regular file (a device, a FIFO), too large or unreadable.
    """
    out: list[Endpoint] = []
    claimed: set[str] = set()
    for package in packages:
        provider = str(getattr(package, "PROVIDER", package.__name__.rpartition(".")[2]))
        servers = getattr(package, "SERVERS", {})
        for address, channel in package.CHANNELS.items():
            paths = [p for p in channel_paths(address, servers) if p not in claimed]
            claimed.update(paths)
            prefixed = [f"/{provider}{p}" for p in channel_paths(address, servers)]
            endpoint = Endpoint(provider, channel, [*paths, *prefixed], text=text)
            endpoint.rules = request_rules(channel, package)
            out.append(endpoint)
    for key, capture in (replays or {}).items():
        data = read_capture(capture)
        chosen = _replayed(out, key, capture)
        for endpoint in chosen:
            endpoint.replay = capture
            endpoint.frames = list(frame_source(endpoint.channel, replay=data))
            endpoint.text = None
    return out


def _replayed(served: list[Endpoint], key: str | None, capture: Path) -> list[Endpoint]:
    """The endpoints a ``--replay`` names: ``key`` is ``[provider:]address``, or None for the
    only channel served.

    Raises:
        FaultError: no such channel served, or no key with several channels.
    """
    if key is None:
        if len(served) != 1:
            names = ", ".join(f"{e.provider}:{e.channel.address}" for e in served)
            raise FaultError(f"--replay {capture}: say which channel ({names}): --replay ADDRESS={capture}")
        return served
    provider, _, address = key.rpartition(":")
    chosen = [e for e in served if e.channel.address == address and provider in ("", e.provider)]
    if not chosen:
        raise FaultError(f"--replay {key}={capture}: no channel {key!r} is served")
    return chosen


def _is_json(media_type: str) -> bool:
    """``application/json`` or a ``+json`` type (parameters aside)."""
    kind = media_type.partition(";")[0].strip().lower()
    return kind == "application/json" or (kind.startswith("application/") and kind.endswith("+json"))


async def read_body(request: Any, limits: Limits) -> bytes:
    """The body of ``request`` (a Starlette request), read as it arrives: never more than
    ``limits.max_body`` bytes held, and no longer than ``limits.body_timeout`` seconds.

    Raises:
        Refusal: 415 for a body that is not JSON (a page in a browser can send ``text/plain`` or
            a form to any address without asking, never JSON: that needs a CORS preflight, which
            the mock never approves); 413 for a body over the limit (by its ``content-length``,
            before reading, or as it arrives); 408 for a body too slow.
    """
    import anyio

    headers = request.headers
    length = headers.get("content-length")
    if (length is None and "transfer-encoding" not in headers) or (length or "").strip() == "0":
        return b""
    if not _is_json(headers.get("content-type", "")):
        raise Refusal(415, "ssegen mock: send the body as JSON (content-type: application/json)")
    too_large = Refusal(413, f"ssegen mock: the request body is over {limits.max_body:,} bytes (the limit max_body)")
    if length is not None and length.isdigit() and int(length) > limits.max_body:
        raise too_large
    chunks: list[bytes] = []
    size = 0
    with anyio.move_on_after(limits.body_timeout) as scope:
        async for chunk in request.stream():
            size += len(chunk)
            if size > limits.max_body:
                raise too_large
            chunks.append(chunk)
    if scope.cancelled_caught:
        raise Refusal(408, f"ssegen mock: the request body took over {limits.body_timeout:g} s (body_timeout)")
    return b"".join(chunks)


def _request_text(request: Any, limits: Limits) -> str | None:
    """The text a request asks to synthesize (``?text=`` or the ``x-ssegen-text`` header).

    Raises:
        Refusal: 400 for a text over ``limits.max_text`` characters.
    """
    text = request.query_params.get("text") or request.headers.get(TEXT_HEADER)
    if text is not None and len(text) > limits.max_text:
        raise Refusal(400, f"ssegen mock: text is over {limits.max_text:,} characters (the limit max_text)")
    return text or None


def create_app(served: list[Endpoint], faults: Faults | None = None, limits: Limits | None = None) -> Any:
    """The Starlette application serving ``served`` with ``faults`` on every stream (a request
    adds its own: ``x-ssegen-fault`` header, query parameters named as the faults or
    ``fault=NAME=VALUE``; ``text`` or the ``x-ssegen-text`` header synthesizes an answer,
    ``stream`` picks a harvested example stream), each request within ``limits`` (default:
    :class:`Limits`' defaults) and checked as the provider checks it where the package states
    its request (:func:`ssegen.mock_requests.screen`: 405, 401, 400 naming the JSON pointer),
    errors in the provider's shape (:func:`ssegen.mock_requests.error_body`). A channel that
    resumes ``starting-after`` (OpenAI Responses) also answers its resuming ``GET``
    (``/v1/responses/{id}?stream=true&starting_after=N``).

    Raises:
        MockUnavailable: Starlette is not installed.
    """
    _require()
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    base = faults or Faults()
    bounds = limits or Limits()
    by_path = {path: endpoint for endpoint in reversed(served) for path in endpoint.paths}
    templates = [(path, endpoint) for endpoint in served for path in endpoint.paths if "{" in path]

    side = RequestSide()

    def error(refused: Refusal, channel: Any = None) -> Response:
        status, headers, content = error_parts(refused, channel)
        return Response(content, status, headers)

    async def index(request: Request) -> Response:
        rows = [
            {
                "provider": e.provider,
                "address": e.channel.address,
                "family": e.channel.family,
                "paths": e.paths,
                "source": e.source,
                "requests": e.requests,
            }
            for e in served
        ]
        if "application/json" in request.headers.get("accept", ""):
            return JSONResponse({"channels": rows, "faults": base.describe()})
        return HTMLResponse(_index_page(rows, str(request.base_url).rstrip("/"), base))

    async def stream(request: Request) -> Response:
        path = request.url.path
        endpoint = by_path.get(path) or next((e for p, e in templates if path_matches(p, path)), None)
        try:
            resumed = side.resumed(path, request.query_params, served) if endpoint is None else None
        except Refusal as refused:
            return error(refused)
        if resumed is not None:
            endpoint = resumed.target
        if endpoint is None:
            listed = "".join(f"\n  {served_path}" for served_path in sorted(by_path))
            return error(Refusal(404, f"ssegen mock: no channel at {path}; the channels served:{listed}", "not_found"))
        try:
            asked = read_request(await read_body(request, bounds), bounds.max_model)
            text = _request_text(request, bounds) if resumed is None else None
            query = request.query_params.multi_items()
            incoming = Incoming(request.method, path, request.headers, query, asked, text)
            answer = _answer(side, incoming, endpoint, base, resumed)
        except Refusal as refused:
            return error(refused, endpoint.channel)
        return answer  # type: ignore[return-value]  # an ASGI app, as Starlette's responses are

    routes = [Route("/", index, methods=["GET"]), Route("/{path:path}", stream, methods=_METHODS)]
    return Starlette(routes=routes)


def _answer(
    side: RequestSide, incoming: Incoming, endpoint: Endpoint, base: Faults, resumed: Resumed | None
) -> _StepsResponse:
    """The stream answering ``incoming`` for ``endpoint`` (:meth:`ssegen.mock_serve.RequestSide.answer`:
    the checks, the server's faults and the request's, what a resuming request resumes), logged.

    Raises:
        Refusal: the request refused (405, 401, 400), a bad fault or source (400), the error
            ``status=`` asks for.
    """
    answer = side.answer(incoming, endpoint, resumed, base)
    endpoint.requests += 1
    described = answer.faults.describe()
    what = escape_controls(f"{incoming.method} {incoming.path}")
    LOG.info(
        "%s -> %s %s, %d events%s",
        what,
        endpoint.provider,
        answer.channel.address,
        len(answer.frames),
        f" ({escape_controls(described)})" if described else "",
    )
    return _StepsResponse(answer.steps, what, content_type(answer.channel))


class _StepsResponse:
    """An ASGI response carrying out :class:`ssegen.replay.Step` lists: chunked
    ``text/event-stream`` (``application/x-ndjson`` for an NDJSON channel), one body message
    per ``send`` step, each step made only when it is due (:func:`ssegen.replay.iter_plan`); a
    ``cut`` returns without ending the body, so uvicorn drops the connection (the client sees an
    incomplete chunked body). After each write the response yields to the event loop, so one
    client reading in 1-byte writes never holds up the others, and a client that goes away is
    seen at once: the response stops there, with one log line."""

    def __init__(self, steps: Iterable[Step], what: str, media_type: str) -> None:
        self.steps = steps
        self.what = what
        self.media_type = media_type
        self.sent = 0  # body bytes written
        self.gone = False  # the client disconnected before the end

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        import anyio

        headers = [(b"content-type", self.media_type.encode()), (b"cache-control", b"no-cache")]
        headers.append((b"x-accel-buffering", b"no"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        ended = False
        async with anyio.create_task_group() as group:

            async def watch() -> None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                self.gone = True
                group.cancel_scope.cancel()

            group.start_soon(watch)
            ended = await self._carry_out(send)
            group.cancel_scope.cancel()
        if self.gone:
            LOG.info("%s: the client went away after %d bytes; stopped sending", self.what, self.sent)
        elif ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _carry_out(self, send: Send) -> bool:
        """Send the steps; True when the body is to be ended (no cut)."""
        import anyio

        for step in self.steps:
            if step.kind == "send":
                await send({"type": "http.response.body", "body": step.data, "more_body": True})
                self.sent += len(step.data)
                await anyio.sleep(0)  # a checkpoint: other clients' turn, and a disconnect seen
            elif step.kind in ("sleep", "stall"):
                await anyio.sleep(step.seconds)
            else:
                LOG.info("%s: connection dropped mid-body (cut)", self.what)
                return False
        return True


class _QuietCut(logging.Filter):
    """Drops uvicorn's complaint about a response left unfinished, which is how a cut is made."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("ASGI callable returned without completing response")


def _index_page(rows: list[dict[str, Any]], base_url: str, faults: Faults) -> str:
    def cell(value: Any) -> str:
        return f"<td>{html.escape(str(value))}</td>"

    lines = [
        "<!doctype html><meta charset=utf-8><title>ssegen mock</title>",
        "<h1>ssegen mock</h1>",
        f"<p>Server-wide faults: {html.escape(faults.describe() or 'none')}.",
        f"Per request: header <code>{FAULT_HEADER}: cut_at=3, delay=0.05</code> or query"
        " <code>?cut_at=3</code>; <code>?text=Hello</code> synthesizes an answer.</p>",
        "<table><tr><th>provider</th><th>channel</th><th>family</th><th>paths</th><th>sends</th></tr>",
    ]
    for row in rows:
        links = " ".join(f'<a href="{html.escape(p)}">{html.escape(p)}</a>' for p in row["paths"])
        lines.append(
            "<tr>"
            + cell(row["provider"])
            + cell(row["address"])
            + cell(row["family"])
            + f"<td>{links}</td>"
            + cell(row["source"])
            + "</tr>"
        )
    first = rows[0]["paths"][0] if rows else "/chat/completions"
    lines.append("</table>")
    body = "-X POST -H 'authorization: Bearer k'"
    lines.append(f"<pre>curl -N {html.escape(base_url + first)} {html.escape(body)}</pre>")
    return "\n".join(lines) + "\n"


def bind(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host``:``port`` (0: a free port; read it from
    ``getsockname()``), made before the server starts so its address is known.

    Raises:
        OSError: the address is taken or not local.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    sock.setblocking(False)
    return sock


def make_server(app: Any, log_level: str = "warning", limits: Limits | None = None) -> Any:
    """A ``uvicorn.Server`` for ``app`` (run it with ``server.run(sockets=[bind(...)])``; set
    ``should_exit`` to stop it), quiet about the unfinished responses cuts leave, with the
    connection limits of ``limits`` (:class:`Limits`) in uvicorn's own settings: ``limit_concurrency``,
    ``timeout_keep_alive`` and ``h11_max_incomplete_event_size`` (on uvicorn's h11 protocol,
    always: the limits are the same whatever else is installed), and a deadline for each
    request's head (:func:`_protocol_class`).

    Raises:
        MockUnavailable: uvicorn is not installed.
    """
    _require()
    import uvicorn

    bounds = limits or Limits()
    config = uvicorn.Config(
        app,
        http=_protocol_class(bounds.head_timeout),
        log_level=log_level,
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=1,
        limit_concurrency=bounds.max_connections,
        timeout_keep_alive=bounds.keep_alive,  # type: ignore[arg-type]  # seconds, a float works
        h11_max_incomplete_event_size=bounds.max_head,
    )
    logging.getLogger("uvicorn.error").addFilter(_QuietCut())
    return uvicorn.Server(config)


def _protocol_class(head_timeout: float) -> type[Any]:
    """uvicorn's h11 protocol, closing a connection whose request line and headers have not all
    arrived ``head_timeout`` seconds after it opened or after its previous response ended: uvicorn
    itself waits for a first request for ever, so idle or trickling connections (slowloris) would
    hold their descriptors until none is left for other clients."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadTimeoutProtocol(H11Protocol):
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.loop.call_later(head_timeout, self._head_late, None)

        def on_response_complete(self) -> None:
            finished = self.cycle  # a pipelined request may start a new cycle in the call below
            super().on_response_complete()
            self.loop.call_later(head_timeout, self._head_late, finished)

        def _head_late(self, cycle: Any) -> None:
            # No request began since the deadline was set (a request starts a new cycle).
            if self.cycle is cycle and not self.transport.is_closing():
                LOG.info("closed a connection sending no request for %g s", head_timeout)
                self.transport.close()

    return HeadTimeoutProtocol


class MockServer:
    """The mock server in a background thread, for tests: ``with MockServer(app) as url:``
    starts uvicorn on a free loopback port (``url`` is ``http://127.0.0.1:<port>``) and stops it
    on exit, waiting at most ``timeout`` seconds for each; ``limits`` are its connection limits
    (:func:`make_server`; the request limits are the app's, :func:`create_app`).

    Raises:
        RuntimeError: the server did not start in time.
    """

    def __init__(
        self, app: Any, host: str = "127.0.0.1", port: int = 0, timeout: float = 10.0, limits: Limits | None = None
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.timeout = timeout
        self.limits = limits
        self.server: Any = None
        self.thread: threading.Thread | None = None
        self.url = ""

    def __enter__(self) -> str:
        sock = bind(self.host, self.port)
        port = sock.getsockname()[1]
        self.server = make_server(self.app, limits=self.limits)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]}, daemon=True)
        self.thread.start()
        ready = threading.Event()
        for _ in range(int(self.timeout / 0.01)):
            if self.server.started:
                ready.set()
                break
            ready.wait(0.01)
        if not ready.is_set():
            self.__exit__()
            raise RuntimeError(f"ssegen mock did not start within {self.timeout:g} s")
        self.url = f"http://{self.host}:{port}"
        return self.url

    def __exit__(self, *exc: object) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(self.timeout)


def listing(served: list[Endpoint], url: str) -> list[str]:
    """The lines ``ssegen mock`` prints at start: one per channel (provider, address, URLs,
    what it sends)."""
    lines = []
    for e in served:
        urls = ", ".join(url + p for p in e.paths)
        lines.append(escape_controls(f"  {e.provider} {e.channel.address}: {urls} ({e.source})"))
    return lines


def is_loopback(host: str) -> bool:
    """``host`` (``--host``) is a loopback address (``127.0.0.0/8``, ``::1``) or ``localhost``:
    only this machine can connect."""
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
