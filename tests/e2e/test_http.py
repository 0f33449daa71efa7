"""Real HTTP end to end: a local server streams each provider's example streams as
``text/event-stream``; httpx consumes them (sync ``iter_bytes`` and async ``aiter_bytes``)
through the generated decoders, and the assembled results equal those of decoding the
fixture bytes directly.

The server (stdlib ``http.server`` on 127.0.0.1, ephemeral port, daemon threads, a
watchdog that shuts it down after :data:`SERVER_LIFETIME` seconds whatever happens)
writes each body in tiny pieces, one socket write per piece (the handler's ``wfile`` is
unbuffered), cutting inside every multi-byte UTF-8 character and between every ``\\r``
and ``\\n``, with HTTP/1.1 chunked transfer encoding, or, for the CR-only variant,
``Connection: close`` and no length (the body ends when the socket closes).

Streams served, per provider: every ``generated/<p>/examples/*.sse`` and, per channel,
the spec's examples (``EXAMPLES`` of ``generated/<p>/test_conformance.py``) assembled
into one stream, plus a copy of that stream whose text deltas carry non-ASCII text;
each in LF, CRLF and CR line-ending variants.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import random
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from conftest import GENERATED, GENERATED_PROVIDERS
from helpers.packages import conformance_examples

from ssegen.replay import content_type

PROVIDERS = GENERATED_PROVIDERS
#: Seconds after which the server shuts itself down even if a test hangs.
SERVER_LIFETIME = 60.0
UNICODE_TEXT = "Grüße — 世界 🎉 "


@dataclass(frozen=True)
class Stream:
    """One body to serve: provider, channel, name, line-ending variant, bytes, cumulative mode."""

    provider: str
    channel: str
    name: str
    variant: str
    body: bytes
    full_text: bool

    @property
    def path(self) -> str:
        return f"/{self.provider}/{self.name}/{self.variant}"


def _unicode_data(data: str) -> str:
    """``data`` with non-ASCII text prepended to every string text delta (JSON stays valid)."""
    try:
        chunk = json.loads(data)
    except ValueError:
        return data
    changed = False
    for choice in chunk.get("choices") or [] if isinstance(chunk, dict) else []:
        for holder, key in ((choice.get("delta"), "content"), (choice, "text")):
            if isinstance(holder, dict) and isinstance(holder.get(key), str):
                holder[key] = UNICODE_TEXT + holder[key]
                changed = True
    return json.dumps(chunk, ensure_ascii=False, separators=(",", ":")) if changed else data


def _line_variants(body: bytes) -> dict[str, bytes]:
    lf = body.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    return {"lf": lf, "crlf": lf.replace(b"\n", b"\r\n"), "cr": lf.replace(b"\n", b"\r")}


def _url_safe(address: str) -> str:
    """A channel address as one URL path segment: every character but letters, digits, ``_``,
    ``.`` and ``-`` becomes ``-`` (Gemini's ``/models/{model}:streamGenerateContent`` would be
    percent-encoded by the client and not found by the server)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "-", address.lstrip("/"))


def _streams(provider: str) -> list[Stream]:
    conformance = importlib.import_module(f"generated.{provider}.test_conformance")
    bodies: list[tuple[str, str, bytes, bool]] = []
    for name, channel, file, full_text in conformance.STREAMS:
        bodies.append((channel, f"stream-{name}", (GENERATED / provider / file).read_bytes(), full_text))
    every = conformance_examples(conformance)
    for channel in sorted({e[0] for e in every}):
        examples = [e for e in every if e[0] == channel]
        ndjson = importlib.import_module(f"generated.{provider}").CHANNELS[channel].framing == "ndjson"
        for suffix, fix in (("", lambda d: d), ("-unicode", _unicode_data)):
            frames = "".join(
                f"{fix(e[4])}\n"  # one JSON value per line
                if ndjson
                else ("" if e[1] == "message" else f"event: {e[1]}\n") + f"data: {fix(e[4])}\n\n"
                for e in examples
            )
            bodies.append((channel, f"examples-{_url_safe(channel)}{suffix}", frames.encode("utf-8"), False))
    channels = importlib.import_module(f"generated.{provider}").CHANNELS
    return [
        Stream(provider, channel, name, variant, data, full_text)
        for channel, name, body, full_text in bodies
        for variant, data in _line_variants(body).items()
        if variant != "cr" or channels[channel].framing == "sse"  # a lone CR ends no NDJSON line
    ]


ALL_STREAMS = {s.path: s for p in PROVIDERS for s in _streams(p)}


def pieces(body: bytes, seed: str) -> list[bytes]:
    """``body`` cut into small pieces: inside every multi-byte character, inside every CRLF,
    and at pseudo-random points (1..48 bytes apart) in between."""
    rng = random.Random(seed)
    cuts = {i for i in range(1, len(body)) if 0x80 <= body[i] <= 0xBF or (body[i - 1 : i + 1] == b"\r\n")}
    i = 0
    while i < len(body):
        i += rng.randint(1, 48)
        cuts.add(i)
    points = [0, *sorted(c for c in cuts if 0 < c < len(body)), len(body)]
    return [body[a:b] for a, b in zip(points, points[1:], strict=False)]


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # the async test opens every connection at once


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = 10  # a stuck client cannot hold a server thread forever

    def setup(self) -> None:
        super().setup()
        # Send each tiny write as its own segment (no Nagle coalescing), as streaming servers do.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def do_GET(self) -> None:  # noqa: N802 (http.server API)
        stream = ALL_STREAMS.get(self.path)
        if stream is None:
            self.send_error(404)
            return
        chunked = stream.variant != "cr"
        self.send_response(200)
        self.send_header("Content-Type", content_type(_chan(stream)))
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        for piece in pieces(stream.body, stream.path):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            self.wfile.flush()
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (http.server API)
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    httpd = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    watchdog = threading.Timer(SERVER_LIFETIME, httpd.shutdown)
    watchdog.daemon = True
    watchdog.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        watchdog.cancel()
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)


def _chan(stream: Stream) -> Any:
    return importlib.import_module(f"generated.{stream.provider}").CHANNELS[stream.channel]


def _direct(stream: Stream) -> tuple[list[Any], dict[str, Any]]:
    chan = _chan(stream)
    events = list(chan.decode([stream.body]))
    return events, chan.accumulate(iter(events), full_text=stream.full_text).to_dict()


def _lf_result(stream: Stream) -> dict[str, Any]:
    return _direct(ALL_STREAMS[f"/{stream.provider}/{stream.name}/lf"])[1]


def test_served_streams_cover_the_fixtures_and_the_hard_cuts() -> None:
    names = {(s.provider, s.name) for s in ALL_STREAMS.values()}
    for provider in PROVIDERS:
        for sse in (
            (GENERATED / provider / "examples").glob("*.sse") if (GENERATED / provider / "examples").is_dir() else []
        ):
            assert (provider, f"stream-{sse.stem}") in names
    assert {p for p, _ in names} == set(PROVIDERS)
    unicode = [
        s
        for s in ALL_STREAMS.values()
        if s.name.endswith("-unicode") and s.variant == "crlf" and UNICODE_TEXT.encode() in s.body
    ]
    assert unicode, "some stream must carry multi-byte characters"
    cut = pieces(unicode[0].body, "x")
    assert any(p[-1:] == b"\r" for p in cut) and any(0x80 <= p[0] <= 0xBF for p in cut)


@pytest.mark.parametrize("provider", PROVIDERS)
def test_sync_httpx_stream_through_generated_decoder(server: str, provider: str) -> None:
    streams = [s for s in ALL_STREAMS.values() if s.provider == provider]
    reads = 0
    with httpx.Client(base_url=server, timeout=5.0) as client:
        for stream in streams:
            chan = _chan(stream)
            with client.stream("GET", stream.path) as response:
                assert response.status_code == 200
                assert response.headers["content-type"] == content_type(chan)

                def counted(chunks: Iterator[bytes]) -> Iterator[bytes]:
                    nonlocal reads
                    for chunk in chunks:
                        reads += 1
                        yield chunk

                events = list(chan.decode(counted(response.iter_bytes())))
            result = chan.accumulate(iter(events), full_text=stream.full_text).to_dict()
            expected_events, expected = _direct(stream)
            assert events == expected_events, stream.path
            assert result == expected, stream.path
            assert result == _lf_result(stream), stream.path
    # The decoder really was fed in pieces (several reads per response on average).
    assert reads > 2 * len(streams), (reads, len(streams))


@pytest.mark.parametrize("provider", PROVIDERS)
def test_async_httpx_stream_through_generated_decoder(server: str, provider: str) -> None:
    streams = [s for s in ALL_STREAMS.values() if s.provider == provider]

    async def one(client: httpx.AsyncClient, stream: Stream) -> tuple[Stream, dict[str, Any]]:
        chan = _chan(stream)
        async with client.stream("GET", stream.path) as response:
            assert response.status_code == 200
            result = await chan.aaccumulate(chan.adecode(response.aiter_bytes()), full_text=stream.full_text)
        return stream, result.to_dict()

    async def run() -> list[tuple[Stream, dict[str, Any]]]:
        async with httpx.AsyncClient(base_url=server, timeout=5.0) as client:
            return await asyncio.wait_for(asyncio.gather(*(one(client, s) for s in streams)), timeout=20)

    for stream, result in asyncio.run(run()):
        assert result == _direct(stream)[1], stream.path
        assert result == _lf_result(stream), stream.path


def test_a_truncated_response_is_reported_the_same_over_http(server: str) -> None:
    """A body cut mid-event (no terminator) assembles to the same truncated result over HTTP."""
    stream = next(
        s
        for s in ALL_STREAMS.values()
        if s.provider == "deepseek" and s.variant == "crlf" and s.name.startswith("stream-")
    )
    cut = Stream(stream.provider, stream.channel, "truncated", "crlf", stream.body[: len(stream.body) // 2], False)
    ALL_STREAMS[cut.path] = cut
    try:
        chan = _chan(cut)
        with httpx.Client(base_url=server, timeout=5.0) as client, client.stream("GET", cut.path) as response:
            result = chan.accumulate(chan.decode(response.iter_bytes())).to_dict()
        assert result == chan.accumulate(chan.decode([cut.body])).to_dict()
        assert result["complete"] is False
    finally:
        del ALL_STREAMS[cut.path]
