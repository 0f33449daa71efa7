"""The streaming client over real sockets on loopback (httpx's own transport and pool, a small
threaded HTTP/1.1 server): the idle timeout is httpcore's read timeout of the body, not of the
headers; leaving a stream early, or cancelling its task, gives its connection back to the pool."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from helpers.client_cases import CASE, CHAT

from generated._runtime.client import AsyncClient, Client

EVENTS = CASE["chat"].events


class Handler(BaseHTTPRequestHandler):
    """Answers ``/<headers delay>/<pause at>/<pause>/<copies>``: after the delay (seconds), the
    chat stream ``copies`` times over, chunked, one event per chunk, pausing (seconds) before
    event number ``pause at``."""

    protocol_version = "HTTP/1.1"

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        wait, pause_at, pause, copies = self.path.strip("/").split("/")
        time.sleep(float(wait))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        try:
            for index, event in enumerate(EVENTS * int(copies)):
                if index == int(pause_at):
                    time.sleep(float(pause))
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client left

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def _at(client: Client | AsyncClient, path: str) -> Any:
    """A call of the chat operation at ``path`` of the server."""
    return client.stream(replace(CHAT, path=path), {"model": "m"})


def test_silence_in_the_body_past_the_idle_timeout_ends_the_stream_stalled(server: str) -> None:
    started = time.monotonic()
    with Client(server, "k", timeout=5.0, idle_timeout=0.2, max_retries=0) as client:
        with _at(client, "/0/2/3/1") as events:  # two events, then 3 s of silence
            result = events.accumulate()
    elapsed = time.monotonic() - started
    assert elapsed < 1.5, elapsed  # the idle timeout closed the connection
    assert result.choices[0].content == "Hi there" and result.complete is False
    assert [e["kind"] for e in result.errors] == ["stalled"] and result.errors[0]["idle_timeout"] == 0.2


def test_waiting_for_the_headers_is_bounded_by_the_timeout_not_the_idle_timeout(server: str) -> None:
    with Client(server, "k", timeout=5.0, idle_timeout=0.1, max_retries=0) as client:
        with _at(client, "/0.4/0/0/1") as events:  # the headers after 0.4 s, then the stream
            result = events.accumulate()
    assert result.complete and result.errors == []


def test_leaving_a_stream_early_gives_its_connection_back_to_the_pool(server: str) -> None:
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)
    http = httpx.Client(limits=limits, timeout=httpx.Timeout(5.0, pool=0.5))
    with Client(server, "k", http_client=http) as client:
        for _ in range(3):  # a leaked connection would leave the second waiting for the pool
            with _at(client, "/0/0/0/500") as events:
                for _ in events:
                    break
        with _at(client, "/0/0/0/1") as events:
            assert events.accumulate().complete
    http.close()


def test_cancelling_the_reading_task_gives_its_connection_back_to_the_pool(server: str) -> None:
    limits = httpx.Limits(max_connections=1, max_keepalive_connections=1)

    async def read(client: AsyncClient, seen: asyncio.Event) -> None:
        async with _at(client, "/0/3/30/1") as events:  # three events, then 30 s of silence
            async for _ in events:
                seen.set()

    async def run() -> bool:
        http = httpx.AsyncClient(limits=limits, timeout=httpx.Timeout(5.0, pool=0.5))
        async with AsyncClient(server, "k", http_client=http) as client:
            seen = asyncio.Event()
            task = asyncio.create_task(read(client, seen))
            await seen.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            async with _at(client, "/0/0/0/1") as events:
                complete = (await events.aaccumulate()).complete
        await http.aclose()
        return complete

    started = time.monotonic()
    assert asyncio.run(run())
    assert time.monotonic() - started < 3
