"""The streaming client's overhead per event: ``Client.stream`` against raw httpx plus
``Channel.decode`` (and ``accumulate``), on the same bytes, in the same run.

Usage::

    python benchmarks/client.py [--chunks 5000] [--read-size 4096] [--runs 30] [--clock cpu] [--json]

Both sides read one DeepSeek chat stream of ``--chunks`` content deltas from an in-process
``httpx.MockTransport`` (the loopback without the kernel: what is measured is the client's own
work), in ``--read-size`` reads (0: one read per event, as a server flushing each token sends
them), synchronously and with ``httpx.AsyncClient``:

- raw: ``http.stream("POST", ...)``, then ``chat.decode(response.iter_bytes())`` iterated, or
  ``chat.accumulate(...)`` of it;
- client: ``client.stream(operation, body)``, iterated, or its ``accumulate()``: the request
  built, the hold before content, the reads handed on across connections, the end decided.

Each side is timed on the long stream and on a short one of 3 deltas, the best of ``--runs``
(CPU time of the process by default, as the machine is shared: ``--clock wall`` for wall time).
It prints µs per event on the long stream, and the client's overhead apart: per call (the short
stream's difference: the request built, the control set up, the first read held) and per event
(the rest of the long stream's difference, per event, in ns and as a share of the raw time). No
time is ever asserted.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import httpx  # noqa: E402

from generated._runtime.client import AsyncClient, Auth, Client, Operation  # noqa: E402
from generated.deepseek import CHANNELS  # noqa: E402

CHAT = CHANNELS["/chat/completions"]
OPERATION = Operation(CHAT, auth=Auth("bearer"), include_usage=True)
URL = "https://api.bench/v1"
BODY = {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}]}
#: The content deltas of the short stream, whose time is the fixed cost of a call.
SHORT = 3


def stream_body(chunks: int) -> bytes:
    """A chat stream of ``chunks`` one-word content deltas, then usage and ``[DONE]``."""
    words = " ".join(f"w{i % 97}" for i in range(chunks))
    return b"".join(CHAT.encode_stream(CHAT.example_stream(text=words)))


def reads_of(body: bytes, read_size: int) -> list[bytes]:
    """``body`` in reads of ``read_size`` bytes (0: one read per event)."""
    if read_size <= 0:
        return [part + b"\n\n" for part in body.split(b"\n\n") if part]
    return [body[i : i + read_size] for i in range(0, len(body), read_size)]


class Reads(httpx.SyncByteStream, httpx.AsyncByteStream):
    """A response body handing out prepared reads."""

    def __init__(self, reads: list[bytes]) -> None:
        self.reads = reads

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.reads)

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for read in self.reads:
            yield read


def transport(reads: list[bytes]) -> httpx.MockTransport:
    return httpx.MockTransport(
        lambda request: httpx.Response(200, headers={"content-type": "text/event-stream"}, stream=Reads(reads))
    )


def raw(http: httpx.Client, accumulate: bool) -> int:
    with http.stream("POST", f"{URL}/chat/completions", json={**BODY, "stream": True}) as response:
        events = CHAT.decode(response.iter_bytes())
        if accumulate:
            return len(CHAT.accumulate(events).choices)
        return sum(1 for _ in events)


def client_side(client: Client, accumulate: bool) -> int:
    with client.stream(OPERATION, BODY) as events:
        if accumulate:
            return len(events.accumulate().choices)
        return sum(1 for _ in events)


async def araw(http: httpx.AsyncClient, accumulate: bool) -> int:
    async with http.stream("POST", f"{URL}/chat/completions", json={**BODY, "stream": True}) as response:
        events = CHAT.adecode(response.aiter_bytes())
        if accumulate:
            return len((await CHAT.aaccumulate(events)).choices)
        return sum([1 async for _ in events])


async def aclient_side(client: AsyncClient, accumulate: bool) -> int:
    async with client.stream(OPERATION, BODY) as events:
        if accumulate:
            return len((await events.aaccumulate()).choices)
        return sum([1 async for _ in events])


#: The clocks: CPU time of the process (the default: the machine is shared, and another process's
#: work would count as ours on the wall clock), or wall time.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def best(run: Callable[[], Any], runs: int, clock: Callable[[], float] = time.process_time) -> float:
    """The least seconds of ``runs`` calls of ``run``, on ``clock``."""
    times = []
    for _ in range(runs):
        gc.collect()
        start = clock()
        run()
        times.append(clock() - start)
    return min(times)


def sides(reads: list[bytes], accumulate: bool, loop: asyncio.AbstractEventLoop) -> dict[str, Callable[[], Any]]:
    """One call of each side over ``reads``: raw and client, sync and async."""
    http, ahttp = httpx.Client(transport=transport(reads)), httpx.AsyncClient(transport=transport(reads))
    client = Client(URL, "k", http_client=httpx.Client(transport=transport(reads)))
    aclient = AsyncClient(URL, "k", http_client=httpx.AsyncClient(transport=transport(reads)))
    return {
        "sync raw": lambda: raw(http, accumulate),
        "sync client": lambda: client_side(client, accumulate),
        "async raw": lambda: loop.run_until_complete(araw(ahttp, accumulate)),
        "async client": lambda: loop.run_until_complete(aclient_side(aclient, accumulate)),
    }


def measure(
    long: list[bytes], short: list[bytes], runs: int, clock: Callable[[], float] = time.process_time
) -> dict[str, dict[str, float]]:
    """The least seconds of each side, per job (iterate, accumulate) and stream (long, short),
    the calls interleaved run by run so that the machine's drift touches every side alike."""
    loop = asyncio.new_event_loop()
    calls = {
        f"{job} {size}": sides(reads, job == "accumulate", loop)
        for job in ("iterate", "accumulate")
        for size, reads in (("long", long), ("short", short))
    }
    seconds = {key: dict.fromkeys(side, float("inf")) for key, side in calls.items()}
    for _ in range(runs):
        for key, side in calls.items():
            for name, run in side.items():
                seconds[key][name] = min(seconds[key][name], best(run, 1, clock))
    loop.close()
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=5000, help="content deltas in the long stream")
    parser.add_argument("--read-size", type=int, default=4096, help="bytes per read (0: one read per event)")
    parser.add_argument("--runs", type=int, default=30, help="runs per side (the best is kept)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu", help="CPU time of the process, or wall time")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    long, short = stream_body(args.chunks), stream_body(SHORT)
    events = {"long": long.count(b"\n\n"), "short": short.count(b"\n\n")}
    seconds = measure(reads_of(long, args.read_size), reads_of(short, args.read_size), args.runs, CLOCKS[args.clock])
    if args.json:
        print(json.dumps({"events": events, "read_size": args.read_size, "seconds": seconds}))
        return 0
    size = f"{args.read_size}-byte reads" if args.read_size > 0 else "one read per event"
    print(f"{events['long']} events ({len(long) / 1e6:.1f} MB) and {events['short']}, {size}; best of {args.runs}")
    print(f"{'job':<11} {'mode':<6} {'raw µs/event':>13} {'client µs/event':>16} {'per event':>18} {'per call':>10}")
    extra = events["long"] - events["short"]
    for job in ("iterate", "accumulate"):
        for mode in ("sync", "async"):
            raw_long, ours_long = (seconds[f"{job} long"][f"{mode} {side}"] for side in ("raw", "client"))
            raw_short, ours_short = (seconds[f"{job} short"][f"{mode} {side}"] for side in ("raw", "client"))
            call = ours_short - raw_short  # the request built, the control set up
            per_event = ((ours_long - raw_long) - call) / extra
            base = raw_long / events["long"]
            cost = f"{per_event * 1e9:>6.0f} ns {per_event / base * 100:>+6.1f}%"
            print(
                f"{job:<11} {mode:<6} {base * 1e6:>13.3f} {ours_long / events['long'] * 1e6:>16.3f} {cost:>18}"
                f" {call * 1e6:>7.1f} µs"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
