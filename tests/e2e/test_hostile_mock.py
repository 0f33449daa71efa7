"""``ssegen mock`` is a network service (issue 35): loopback is no boundary, any page open in a
browser can reach it. Each unsafe behaviour an audit found is reproduced here in small (a body
just over a lowered limit, a head timeout of a fraction of a second) against a real server on a
loopback port (:class:`ssegen.mock.MockServer`), or against the response object itself where
only that is deterministic (who runs between two writes).

Every socket has a timeout and every loop a bound on its count and time.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from click.testing import CliRunner
from conftest import ROOT

from generated import deepseek as gen_deepseek
from generated import gemini as gen_gemini
from ssegen import replay
from ssegen.cli import main
from ssegen.mock import Limits, MockServer, _StepsResponse, create_app, endpoints, is_loopback
from ssegen.replay import FaultError, Faults, Step, frame_source, iter_plan
from ssegen.transport import SSEMock

CHAT = gen_deepseek.CHANNELS["/chat/completions"]
TIMEOUT = 5.0  # seconds, for every client: a hung server fails the test instead of hanging it
SMALL = Limits(max_body=4096, max_text=200, max_model=32, head_timeout=0.3, body_timeout=0.5, max_head=2048)
JSON = {"content-type": "application/json"}
KEY = {"authorization": "Bearer k"}  # DeepSeek's and Gemini's specs declare auth: no key is a 401
BODY = {"model": "m", "messages": []}  # a body DeepSeek's request schema takes


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    """A mock with lowered limits (:data:`SMALL`), serving DeepSeek and Gemini."""
    app = create_app(endpoints([gen_deepseek, gen_gemini]), limits=SMALL)
    with MockServer(app, timeout=TIMEOUT, limits=SMALL) as base:
        yield base


def _connect(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=TIMEOUT)
    sock.settimeout(TIMEOUT)
    return sock


def _head(sock: socket.socket) -> bytes:
    """What the server sends until it closes or ``TIMEOUT`` passes (at most 64 KiB)."""
    data = b""
    deadline = time.monotonic() + TIMEOUT
    while len(data) < 65536 and time.monotonic() < deadline:
        try:
            chunk = sock.recv(4096)
        except (TimeoutError, ConnectionResetError):
            break
        if not chunk:
            break
        data += chunk
        if b"\r\n\r\n" in data and b"content-length" in data.lower():
            break
    return data


# --- request bodies -----------------------------------------------------------------------------


def test_a_body_over_the_limit_is_a_413_by_its_length_and_as_it_arrives(url: str) -> None:
    body = json.dumps(BODY).encode()[:-1]  # padded to the limit with spaces before its "}"
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        over = client.post("/chat/completions", content=body + b" " * (4096 - len(body)) + b"}", headers=JSON)
        assert over.status_code == 413 and "max_body" in over.json()["error"]["message"]
        within = client.post("/chat/completions", content=body + b" " * (4095 - len(body)) + b"}", headers=JSON)
        assert within.status_code == 200
        chunked = client.post("/chat/completions", content=iter([b"{" + b" " * 2048, b" " * 2048 + b"}"]), headers=JSON)
        assert chunked.status_code == 413


def test_a_chunked_body_over_the_limit_is_refused_before_it_ends(url: str) -> None:
    """The 413 comes while the client is still sending: the server never waits for the whole body."""
    with _connect(url) as sock:
        head = b"POST /chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        sock.sendall(head + b"transfer-encoding: chunked\r\n\r\n" + b"1001\r\n" + b" " * 4097 + b"\r\n")
        started = time.monotonic()
        answer = _head(sock)  # the body never ends: only an answer while reading can come
    assert answer.startswith(b"HTTP/1.1 413 ") and time.monotonic() - started < 2


def test_a_body_too_slow_is_a_408(url: str) -> None:
    with _connect(url) as sock:
        sock.sendall(b"POST /chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n")
        sock.sendall(b"content-length: 100\r\n\r\n{")
        assert _head(sock).startswith(b"HTTP/1.1 408 ")


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; b=x"])
def test_a_body_a_web_page_can_send_without_asking_is_a_415(url: str, kind: str) -> None:
    """A "simple request" (CORS) carries one of these types; JSON needs a preflight the mock never approves."""
    response = httpx.post(f"{url}/chat/completions", content=b'{"stream": true}', headers={"content-type": kind})
    assert response.status_code == 415 and "application/json" in response.json()["error"]["message"]
    assert httpx.post(f"{url}/chat/completions", json=BODY, headers=KEY).status_code == 200


def test_json_nested_past_the_recursion_limit_is_a_400_without_a_traceback(
    url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    deep = b"[" * 1000 + b"]" * 1000  # 2 KB
    response = httpx.post(f"{url}/chat/completions", content=deep, headers=JSON, timeout=TIMEOUT)
    assert response.status_code == 400 and "nested too deep" in response.json()["error"]["message"]
    assert not [r for r in caplog.records if r.exc_info or "RecursionError" in r.getMessage()]


# --- amplification ------------------------------------------------------------------------------


def test_the_text_and_model_a_request_names_are_bounded(url: str) -> None:
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        long_model = client.post("/chat/completions?text=Hi", json={"model": "m" * 33})
        assert long_model.status_code == 400 and "model: at most 32 characters" in long_model.text
        long_text = client.post("/chat/completions", params={"text": "word " * 41}, json=BODY)
        assert long_text.status_code == 400 and "max_text" in long_text.text
        header = client.post("/chat/completions", headers={"x-ssegen-text": "w" * 201}, json=BODY)
        assert header.status_code == 400
        fine = client.post("/chat/completions", params={"text": "word " * 39}, json={**BODY, "model": "m" * 32})
        assert fine.status_code == 200 and fine.text.count('"model":"' + "m" * 32) == 41  # 39 deltas, last, usage


class _Pulled:
    """Frames that count how many were read."""

    def __init__(self, frames: list[bytes]) -> None:
        self.frames = frames
        self.pulled = 0

    def __len__(self) -> int:
        return len(self.frames)

    def __iter__(self) -> Iterator[bytes]:
        for frame in self.frames:
            self.pulled += 1
            yield frame

    def __contains__(self, item: object) -> bool:
        return item in self.frames


def test_frames_are_made_as_they_are_sent_not_before_the_first_byte() -> None:
    frames = _Pulled([b"data: %d\n\n" % i for i in range(1000)])
    steps = iter_plan(frames, Faults(read_size=3))
    assert frames.pulled == 0
    assert next(steps) == Step("send", b"dat") and frames.pulled == 1
    typed = frame_source(CHAT, text="word " * 1000, model="m" * 200)
    assert len(typed) == 1003 and not isinstance(typed, list)  # 1,000 deltas, the last chunk, [DONE]
    first = next(iter(typed))
    assert first.startswith(b"data: {") and b"m" * 200 in first


# --- one client never stalls the others ---------------------------------------------------------


def test_the_response_yields_to_the_event_loop_after_each_write() -> None:
    """A send that never suspends (a fast client: the socket takes every byte) still lets another
    task run between two writes, and a disconnect is seen at the next write."""
    ran: list[int] = []
    writes: list[bytes] = []

    async def main() -> None:
        async def send(message: Any) -> None:
            writes.append(message.get("body", b""))

        async def receive() -> Any:
            await asyncio.sleep(3600)

        async def other() -> None:
            while True:
                ran.append(len(writes))
                await asyncio.sleep(0)

        task = asyncio.create_task(other())
        steps = iter_plan([b"data: x\n\n"] * 200, Faults(read_size=1))
        await _StepsResponse(steps, "POST /t", "text/event-stream")({}, receive, send)
        task.cancel()

    asyncio.run(main())
    assert len(writes) == 1 + 1800 + 1  # head, 1,800 one-byte writes, the end
    assert len(set(ran)) > 1700  # the other task ran between (nearly) every two writes


def test_a_client_gone_stops_the_response_with_one_log_line(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ssegen.mock")
    writes: list[bytes] = []

    async def main() -> None:
        gone = asyncio.Event()

        async def send(message: Any) -> None:
            writes.append(message.get("body", b""))
            if len(writes) == 10:
                gone.set()

        async def receive() -> Any:
            await gone.wait()
            return {"type": "http.disconnect"}

        steps = iter_plan([b"data: x\n\n"] * 10_000, Faults(read_size=1))
        await _StepsResponse(steps, "POST /t", "text/event-stream")({}, receive, send)

    asyncio.run(main())
    assert 10 <= len(writes) <= 12
    lines = [r.getMessage() for r in caplog.records if r.name == "ssegen.mock"]
    assert lines == ["POST /t: the client went away after 9 bytes; stopped sending"]


async def _stream(port: int, target: str) -> float:
    """POST ``target`` and read the whole answer; the longest wait for a read (the first one
    counted from the request)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    body = json.dumps(BODY)
    head = f"host: x\r\nauthorization: Bearer k\r\ncontent-type: application/json\r\ncontent-length: {len(body)}"
    writer.write(f"POST {target} HTTP/1.1\r\n{head}\r\nconnection: close\r\n\r\n{body}".encode())
    last, longest = time.monotonic(), 0.0
    try:
        while await reader.read(65536):
            now = time.monotonic()
            longest, last = max(longest, now - last), now
    finally:
        writer.close()
    return longest


def test_200_streams_are_served_while_one_client_reads_1_byte_writes() -> None:
    """The issue's measure, against the ``ssegen mock`` command: 200 streams at once (an event
    every 20 ms), while another client reads a 3,000-word answer in 1-byte writes; no client waits
    more than 1 s for its next read beyond what the same 200 streams wait alone (on a quiet
    machine: 0.17 s with the reader, 0.23 s alone; before: 16 s, the 1-byte writes never yielded).
    The baseline keeps a machine busy with other work from reading as a stalled mock."""
    command = [sys.executable, "-m", "ssegen", "mock", "deepseek", "--port", "0"]
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().split()[4].rpartition(":")[2])

        async def streams() -> list[float]:
            waits = asyncio.gather(*(_stream(port, "/chat/completions?delay=0.02") for _ in range(200)))
            return list(await asyncio.wait_for(waits, 10 * TIMEOUT))

        async def main() -> tuple[list[float], list[float]]:
            alone = await streams()
            slow = asyncio.create_task(_stream(port, "/chat/completions?read_size=1&text=" + "word+" * 3000))
            await asyncio.sleep(0.3)  # the 1-byte writes are under way
            waits = await streams()
            assert not slow.done()
            slow.cancel()
            return alone, waits

        alone, waits = asyncio.run(main())
    finally:
        process.terminate()
        process.communicate(timeout=TIMEOUT)
    assert len(waits) == 200 and max(waits) < max(alone) + 1.0, (max(alone), sorted(waits)[-5:])


def test_a_client_that_leaves_mid_stream_stops_the_server_writing(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO)
    app = create_app(endpoints([gen_deepseek]))
    with MockServer(app, timeout=TIMEOUT) as base:
        with _connect(base) as sock:
            target = "/chat/completions?read_size=1&text=" + "word+" * 3000
            sock.sendall(f"POST {target} HTTP/1.1\r\nhost: x\r\nauthorization: Bearer k\r\n\r\n".encode())
            assert sock.recv(100)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline and not any("went away" in r.getMessage() for r in caplog.records):
            time.sleep(0.02)
    messages = [r.getMessage() for r in caplog.records]
    assert sum("went away" in m for m in messages) == 1, messages[-5:]
    assert not [m for m in messages if "socket.send() raised" in m]


# --- slow and idle connections ------------------------------------------------------------------


def test_idle_and_trickling_connections_are_closed_after_the_head_timeout(url: str) -> None:
    idle = [_connect(url) for _ in range(20)]
    trickling = _connect(url)
    started = time.monotonic()
    try:
        with pytest.raises((ConnectionResetError, BrokenPipeError)):
            for _ in range(100):  # a byte every 0.02 s: never a whole head
                trickling.sendall(b"P")
                time.sleep(0.02)
        assert 0.3 <= time.monotonic() - started < 2  # SMALL.head_timeout
        assert all(sock.recv(1) == b"" for sock in idle)  # closed by the server
        assert httpx.post(f"{url}/chat/completions", json=BODY, headers=KEY, timeout=TIMEOUT).status_code == 200
    finally:
        for sock in [*idle, trickling]:
            sock.close()


def test_connections_past_the_limit_get_a_503_and_a_long_head_a_400() -> None:
    limits = Limits(max_connections=3, max_head=1024)
    with MockServer(create_app(endpoints([gen_deepseek]), limits=limits), timeout=TIMEOUT, limits=limits) as base:
        held = [_connect(base) for _ in range(3)]
        try:
            time.sleep(0.05)
            with httpx.Client(timeout=TIMEOUT, headers=KEY) as client:
                assert client.post(f"{base}/chat/completions", json=BODY).status_code == 503
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.05)
        with _connect(base) as sock:  # a head still incomplete past max_head bytes
            sock.sendall(b"POST /chat/completions HTTP/1.1\r\nhost: x\r\nx-pad: " + b"a" * 1100)
            assert _head(sock).startswith(b"HTTP/1.1 400 ")
        assert httpx.post(f"{base}/chat/completions", json=BODY, headers=KEY, timeout=TIMEOUT).status_code == 200


def test_limits_parse_and_refuse_bad_values() -> None:
    assert Limits.parse(["max_body=10", "head-timeout=0.5"]) == Limits(max_body=10, head_timeout=0.5)
    for bad, said in (("max_body", "NAME=VALUE"), ("nope=1", "one of max_body"), ("max_body=x", "a number")):
        with pytest.raises(ValueError, match=said):
            Limits.parse([bad])
    for field, value in (("max_body", 0), ("max_body", 1.5), ("head_timeout", float("inf")), ("keep_alive", -1)):
        with pytest.raises(ValueError, match=field):
            Limits(**{field: value})


# --- faults the stream cannot carry, and what reaches a terminal --------------------------------


def test_cut_at_byte_past_the_end_is_a_400_as_cut_at_is(url: str) -> None:
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        past = client.post("/chat/completions?cut_at_byte=1000000", json=BODY)
        assert past.status_code == 400 and "cut_at_byte=1000000: the stream has" in past.json()["error"]["message"]
        assert client.post("/chat/completions?cut_at_byte=10&cut=close", json=BODY).content == b'data: {"id'


def test_escape_sequences_in_a_request_path_reach_the_log_escaped(url: str, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="ssegen.mock")
    model = "%1b]0;pwned%07%1b[2K%c2%9bforged%e2%80%ae"  # a window title, an erased line, C1 CSI, bidi
    path = f"/v1beta/models/{model}:streamGenerateContent"
    gemini = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}  # Gemini's request schema
    answer = httpx.post(f"{url}{path}?alt=sse&cut_at=1&cut=close", json=gemini, headers=KEY, timeout=TIMEOUT)
    assert answer.status_code == 200
    lines = [r.getMessage() for r in caplog.records if r.name == "ssegen.mock"]
    assert lines and all(not set(line) & {"\x1b", "\x07", "\x9b", "\u202e"} for line in lines), lines
    assert any("\\x1b]0;pwned\\x07\\x1b[2K\\x9bforged\\u202e" in line for line in lines), lines


def test_is_loopback_tells_the_addresses_only_this_machine_reaches() -> None:
    assert all(is_loopback(h) for h in ("127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost"))
    assert not any(is_loopback(h) for h in ("0.0.0.0", "::", "192.0.2.1", "example.com"))


def test_a_json_error_body_is_json() -> None:
    """The refusals are the providers' error shape, which the SDKs read (``error.message``)."""
    app = create_app(endpoints([gen_deepseek]), limits=Limits(max_body=8))
    with MockServer(app, timeout=TIMEOUT) as base:
        response = httpx.post(f"{base}/chat/completions", json={"stream": True}, timeout=TIMEOUT)
    assert response.status_code == 413 and json.loads(response.text)["error"]["type"] == "invalid_request_error"


# --- the sse_mock transport, and captures -------------------------------------------------------


def test_the_sse_mock_transport_answers_deep_json_with_a_400() -> None:
    mock = SSEMock()
    mock.route(CHAT)
    with mock.client() as client:
        response = client.post("https://api.deepseek.com/chat/completions", content=b"[" * 5000 + b"]" * 5000)
    assert response.status_code == 400 and "nested too deep" in response.json()["error"]["message"]


def test_a_capture_that_is_a_device_or_a_fifo_is_refused_never_read(tmp_path: Path) -> None:
    """``sse_mock.route(replay=)`` and ``ssegen mock --replay`` share one check (read_capture)."""
    device = tmp_path / "capture.sse"
    device.symlink_to("/dev/null")  # a character device (the audit's /dev/zero reads until MemoryError)
    fifo = tmp_path / "fifo.sse"
    os.mkfifo(fifo)  # no writer: opening it to read would block
    for capture in (device, fifo):
        outcome: list[BaseException] = []

        def route(capture: Path = capture, outcome: list[BaseException] = outcome) -> None:
            try:
                SSEMock().route(CHAT, replay=capture)
            except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
                outcome.append(exc)

        thread = threading.Thread(target=route, daemon=True)
        thread.start()
        thread.join(TIMEOUT)
        if thread.is_alive():  # unblock the reader of a FIFO, then fail
            with open(fifo, "wb"):
                pass
        assert not thread.is_alive() and isinstance(outcome[0], FaultError), outcome
        assert "(a FIFO, socket or device is never read)" in str(outcome[0])
        run = CliRunner().invoke(main, ["mock", "deepseek", "--port", "0", "--replay", f"/chat/completions={capture}"])
        assert run.exit_code == 2 and "is never read" in run.output, run.output


def test_a_capture_is_read_once_and_within_a_size_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(b"data: [DONE]\n\n")
    served = endpoints([gen_deepseek], {"/chat/completions": capture})
    capture.write_bytes(b"data: changed\n\n")  # read at start, not per request
    with MockServer(create_app(served), timeout=TIMEOUT) as base:
        answer = httpx.post(f"{base}/chat/completions", json=BODY, headers=KEY, timeout=TIMEOUT)
        assert answer.content == b"data: [DONE]\n\n"
    monkeypatch.setattr(replay, "MAX_CAPTURE", 10)
    with pytest.raises(FaultError, match="larger than 10 bytes"):
        endpoints([gen_deepseek], {"/chat/completions": capture})
