"""Time to first event over loopback: the ssegen streaming client against the openai SDK, the same
request to the same server, in the same run.

Usage::

    python benchmarks/ttfe.py [--runs 200] [--words 50] [--json]

``ssegen mock deepseek --text ...`` serves the DeepSeek chat channel on a free loopback port, in
its own process (so that the server's work does not share this process's interpreter). Each side
keeps one warm connection (its own ``httpx.Client``) and sends the same request, ``runs`` times,
interleaved call by call so that the machine's drift touches both alike:

- **ssegen**: ``client.stream(operation, body)``, iterated until the first event that carries
  content;
- **openai**: ``OpenAI(...).chat.completions.create(..., stream=True)``, iterated until the first
  chunk that carries content;
- **raw**: ``httpx.Client.stream`` + ``Channel.decode``, the same, as the floor of the two.

It prints, per side, the median and the 90th percentile of the wall time from the call to the first
content event (µs), and of the time to the stream's end. The server's own time is in every figure
alike: the differences between the sides are the clients' own. No time is ever asserted.
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402
import openai  # noqa: E402

import generated.deepseek as deepseek  # noqa: E402
from generated._runtime.client import Auth, Client, Operation  # noqa: E402

CHAT = deepseek.CHANNELS["/chat/completions"]
OPERATION = Operation(CHAT, auth=Auth("bearer"), include_usage=True)
MODEL = "deepseek-chat"
MESSAGES = [{"role": "user", "content": "Hi"}]


def has_content(event: Any) -> bool:
    """A chat chunk whose first choice's delta carries text (a typed event or the SDK's)."""
    choices = getattr(event, "choices", None)
    return bool(choices) and bool(getattr(choices[0].delta, "content", None))


def first_and_end(events: Iterable[Any]) -> tuple[float, float]:
    """Iterate ``events`` to the end: (the clock when the first content event came, at the end)."""
    first = 0.0
    for event in events:
        if not first and has_content(event):
            first = time.perf_counter()
    return first, time.perf_counter()


@contextmanager
def mock_server(words: int) -> Iterator[str]:
    """``ssegen mock deepseek`` answering ``words`` words, in a child process: its URL."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    text = " ".join(f"w{i}" for i in range(words))
    command = [sys.executable, "-m", "ssegen", "mock", "deepseek", "--port", str(port), "--text", text]
    server = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(url + "/")
                break
            except httpx.TransportError:
                time.sleep(0.05)
        else:
            raise RuntimeError(f"ssegen mock did not answer at {url} within 15 s")
        yield url
    finally:
        server.terminate()
        server.wait(10)


def sides(url: str) -> dict[str, Callable[[], tuple[float, float]]]:
    """One call of each side: returns (seconds to the first content event, to the end)."""
    client = Client(url, "k")
    sdk = openai.OpenAI(base_url=url, api_key="k", max_retries=0)
    http = httpx.Client(headers={"authorization": "Bearer k"})  # the mock answers a request without a key with a 401
    body = {"model": MODEL, "messages": MESSAGES}

    def ours() -> tuple[float, float]:
        start = time.perf_counter()
        with client.stream(OPERATION, body) as events:
            first, end = first_and_end(events)
        return first - start, end - start

    def theirs() -> tuple[float, float]:
        start = time.perf_counter()
        stream = sdk.chat.completions.create(
            model=MODEL,
            messages=[{"role": "user", "content": "Hi"}],
            stream=True,
            stream_options={"include_usage": True},
        )
        with stream:
            first, end = first_and_end(stream)
        return first - start, end - start

    def raw() -> tuple[float, float]:
        start = time.perf_counter()
        content = {**body, "stream": True, "stream_options": {"include_usage": True}}
        with http.stream("POST", f"{url}/chat/completions", json=content) as response:
            first, end = first_and_end(CHAT.decode(response.iter_bytes()))
        return first - start, end - start

    return {"raw httpx + decode": raw, "ssegen client": ours, "openai SDK": theirs}


def measure(url: str, runs: int) -> dict[str, dict[str, list[float]]]:
    """Each side's times (seconds) to the first content event and to the end, ``runs`` calls
    each, interleaved; the first call of each (the connection opened) is left out."""
    calls = sides(url)
    times: dict[str, dict[str, list[float]]] = {name: {"first": [], "end": []} for name in calls}
    for run in range(runs + 1):
        for name, call in calls.items():
            first, end = call()
            if run:
                times[name]["first"].append(first)
                times[name]["end"].append(end)
    return times


def p90(values: list[float]) -> float:
    """The 90th percentile of ``values``."""
    return statistics.quantiles(values, n=10)[-1]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200, help="calls per side (after one warm-up)")
    parser.add_argument("--words", type=int, default=50, help="words in the streamed answer")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    with mock_server(args.words) as url:
        times = measure(url, args.runs)
    if args.json:
        print(json.dumps({"runs": args.runs, "words": args.words, "seconds": times}))
        return 0
    print(f"DeepSeek chat over loopback, {args.words} words, {args.runs} calls per side (interleaved)")
    print(f"{'side':<20} {'first event, median':>20} {'p90':>9} {'to the end, median':>19} {'p90':>9}")
    for name, side in times.items():
        first, end = side["first"], side["end"]
        print(
            f"{name:<20} {statistics.median(first) * 1e6:>17.0f} µs {p90(first) * 1e6:>6.0f} µs"
            f" {statistics.median(end) * 1e6:>16.0f} µs {p90(end) * 1e6:>6.0f} µs"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
