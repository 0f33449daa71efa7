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
model of synthesized streams. ``GET /`` lists the channels (HTML; JSON with
``Accept: application/json``).
"""

from __future__ import annotations

import html
import logging
import socket
import threading
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from .replay import (
    FAULT_HEADER,
    FaultError,
    Faults,
    Step,
    channel_paths,
    content_type,
    default_source,
    error_frame,
    frames_for,
    path_matches,
    plan,
    request_model,
    request_problem,
    terminator_frame,
)

#: What to run when the ASGI stack is missing.
INSTALL_HINT = "ssegen mock needs Starlette and uvicorn: pip install 'ssegen[mock]'"
#: The request header naming a text to synthesize for one request.
TEXT_HEADER = "x-ssegen-text"

LOG = logging.getLogger("ssegen.mock")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class MockUnavailable(RuntimeError):
    """Starlette or uvicorn is not installed (the message says how to install them)."""


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
    """

    provider: str
    channel: Any
    paths: list[str]
    replay: Path | None = None
    text: str | None = None
    requests: int = field(default=0, compare=False)

    @property
    def source(self) -> str:
        """What it sends unless a request says otherwise, in words."""
        if self.replay is not None:
            return f"capture {self.replay}"
        if self.text is not None:
            return f"synthesized answer {self.text!r}"
        return default_source(self.channel)


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
        FaultError: a replay naming no channel served, or a bare replay with several channels.
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
            out.append(Endpoint(provider, channel, [*paths, *prefixed], text=text))
    for key, capture in (replays or {}).items():
        for endpoint in _replayed(out, key, capture):
            endpoint.replay = capture
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


def _query_faults(query: Any, base: Faults) -> Faults:
    names = {name: query[name] for name in Faults.__dataclass_fields__ if name in query}
    faults = Faults.from_mapping(names, base) if names else base
    return Faults.parse(query.getlist("fault"), faults) if "fault" in query else faults


def create_app(served: list[Endpoint], faults: Faults | None = None) -> Any:
    """The Starlette application serving ``served`` with ``faults`` on every stream (a request
    adds its own: ``x-ssegen-fault`` header, query parameters named as the faults or
    ``fault=NAME=VALUE``; ``text`` or the ``x-ssegen-text`` header synthesizes an answer,
    ``stream`` picks a harvested example stream).

    Raises:
        MockUnavailable: Starlette is not installed.
    """
    _require()
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import HTMLResponse, JSONResponse, Response
    from starlette.routing import Route

    base = faults or Faults()
    by_path = {path: endpoint for endpoint in reversed(served) for path in endpoint.paths}
    templates = [(path, endpoint) for endpoint in served for path in endpoint.paths if "{" in path]

    def error(status: int, message: str, kind: str = "invalid_request_error") -> Response:
        return JSONResponse({"error": {"message": message, "type": kind}}, status_code=status)

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
        if endpoint is None:
            listed = ", ".join(sorted(by_path))
            return error(404, f"ssegen mock: no channel at {request.url.path} (channels: {listed})", "not_found")
        body = await request.body()
        problem = request_problem(body)
        if problem is not None:
            return error(400, problem)
        query = request.query_params
        try:
            faults = _query_faults(query, base)
            header = request.headers.get(FAULT_HEADER)
            if header:
                faults = Faults.parse(header, faults)
            text = query.get("text") or request.headers.get(TEXT_HEADER)
            chosen = query.get("stream")
            channel = endpoint.channel
            frames = frames_for(
                channel,
                text=text if text or chosen else endpoint.text,
                replay=endpoint.replay if not (text or chosen) else None,
                stream=chosen,
                model=request_model(body),
            )
            error_bytes = error_frame(channel) if faults.error_event is not None else None
            steps = plan(frames, faults, error=error_bytes, terminator=terminator_frame(channel))
        except FaultError as exc:
            return error(400, f"ssegen mock: {exc}")
        endpoint.requests += 1
        described = faults.describe()
        LOG.info(
            "%s %s -> %s %s, %d events%s",
            request.method,
            request.url.path,
            endpoint.provider,
            channel.address,
            len(frames),
            f" ({described})" if described else "",
        )
        what = f"{request.method} {request.url.path}"
        return _StepsResponse(steps, what, content_type(channel))  # type: ignore[return-value]

    routes = [Route("/", index, methods=["GET"]), Route("/{path:path}", stream, methods=["GET", "POST"])]
    return Starlette(routes=routes)


class _StepsResponse:
    """An ASGI response carrying out :class:`ssegen.replay.Step` lists: chunked
    ``text/event-stream`` (``application/x-ndjson`` for an NDJSON channel), one body message
    per ``send`` step; a ``cut`` returns without ending the body, so uvicorn drops the
    connection (the client sees an incomplete chunked body); a client that goes away stops it."""

    def __init__(self, steps: list[Step], what: str, media_type: str) -> None:
        self.steps = steps
        self.what = what
        self.media_type = media_type

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
                group.cancel_scope.cancel()

            group.start_soon(watch)
            for step in self.steps:
                if step.kind == "send":
                    await send({"type": "http.response.body", "body": step.data, "more_body": True})
                elif step.kind in ("sleep", "stall"):
                    await anyio.sleep(step.seconds)
                else:
                    LOG.info("%s: connection dropped mid-body (cut)", self.what)
                    break
            else:
                ended = True
            group.cancel_scope.cancel()
        if ended:
            await send({"type": "http.response.body", "body": b"", "more_body": False})


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
    lines.append(f"<pre>curl -N {html.escape(base_url + first)} -d '{{\"stream\": true}}'</pre>")
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


def make_server(app: Any, log_level: str = "warning") -> Any:
    """A ``uvicorn.Server`` for ``app`` (run it with ``server.run(sockets=[bind(...)])``; set
    ``should_exit`` to stop it), quiet about the unfinished responses cuts leave.

    Raises:
        MockUnavailable: uvicorn is not installed.
    """
    _require()
    import uvicorn

    config = uvicorn.Config(app, log_level=log_level, access_log=False, lifespan="off", timeout_graceful_shutdown=1)
    logging.getLogger("uvicorn.error").addFilter(_QuietCut())
    return uvicorn.Server(config)


class MockServer:
    """The mock server in a background thread, for tests: ``with MockServer(app) as url:``
    starts uvicorn on a free loopback port (``url`` is ``http://127.0.0.1:<port>``) and stops it
    on exit, waiting at most ``timeout`` seconds for each.

    Raises:
        RuntimeError: the server did not start in time.
    """

    def __init__(self, app: Any, host: str = "127.0.0.1", port: int = 0, timeout: float = 10.0) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.timeout = timeout
        self.server: Any = None
        self.thread: threading.Thread | None = None
        self.url = ""

    def __enter__(self) -> str:
        sock = bind(self.host, self.port)
        port = sock.getsockname()[1]
        self.server = make_server(self.app)
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
        lines.append(f"  {e.provider} {e.channel.address}: {urls} ({e.source})")
    return lines
