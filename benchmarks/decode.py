"""Decode benchmark: the generated DeepSeek decoder against the peers, on the same bytes.

Usage::

    python benchmarks/decode.py [--chunks N] [--runs R] [--read-size B] [--json] [--rss-mb MB]

Builds three realistic ``/chat/completions`` streams in memory (DeepSeek shape:
``chat.completion.chunk`` events with short deltas, a usage chunk, ``[DONE]``):

* ``chat``: ``content`` deltas (the stream the headline ratios are taken on);
* ``reasoning``: ``reasoning_content`` deltas, then a few ``content`` deltas;
* ``tools``: two parallel tool calls whose ``arguments`` arrive in fragments.

Each is cut into 4 KiB reads (``--read-size``; 0 gives one read per event, as a
server flushing every token delivers them), and each contender decodes the same reads, best
of ``--runs`` runs (the openai SDK, much slower, gets fewer runs):

``ssegen``        ``generated.deepseek``: ``chat.accumulate(chat.decode(reads))``
``ssegen-async``  ``await chat.aaccumulate(chat.adecode(async reads))``
``ssegen-decode`` ``for event in chat.decode(reads)``: typed events, not assembled
``pydantic``      the same DeepSeek package generated with ``model = "pydantic"``
                  (into a temporary folder at start): ``accumulate(decode(reads))``
``pydantic-decode`` its ``for event in chat.decode(reads)``
``openai``        ``openai.Stream(cast_to=ChatCompletionChunk)`` over an httpx2
                  ``MockTransport`` response: the SDK's SSE decoder + its models
``httpx-sse``     httpx-sse's ``SSELineDecoder`` + ``SSEDecoder`` fed directly
                  (incremental UTF-8 decoding as ``iter_text`` does, no HTTP
                  client in between) + ``json.loads``: untyped
``floor``         split on blank lines + one ``msgspec.json.Decoder`` typed
                  decode per event, no SSE compliance (no CR, comments, fields)

``--rss-mb MB`` also decodes (and assembles) an MB-sized stream produced lazily
by a generator of reads, in a child process, and reports its peak RSS.

No time is ever asserted; CI runs it with a small ``--chunks`` to prove it works.
"""

from __future__ import annotations

import argparse
import asyncio
import codecs
import gc
import json
import resource
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from generated.deepseek import CHANNELS, models  # noqa: E402

READ_SIZE = 4096
CHAT = CHANNELS["/chat/completions"]
#: The pydantic flavour's channel, set by :func:`_generate_pydantic` before measuring.
PYDANTIC_CHAT: Any = None


def _generate_pydantic() -> Any:
    """The ``/chat/completions`` channel of DeepSeek generated with ``model = "pydantic"``
    into a temporary folder (``bench_pydantic.deepseek``), imported."""
    import atexit
    import importlib
    import shutil
    import tempfile

    from ssegen.config import OutputSettings
    from ssegen.pipeline import build, generate

    parent = Path(tempfile.mkdtemp(prefix="ssegen-bench-"))
    atexit.register(shutil.rmtree, parent, True)
    settings = OutputSettings("bench_pydantic", "specs", "pydantic")
    reports = build(ROOT / "specs", ["deepseek"], settings)
    assert not any(r.failed for r in reports)
    generate(ROOT / "specs", parent / "bench_pydantic", reports, settings, all_providers=False)
    sys.path.insert(0, str(parent))
    return importlib.import_module("bench_pydantic.deepseek").CHANNELS["/chat/completions"]

_WORDS = [
    "Hello", "!", " How", " can", " I", " help", " you", " today", "?", " The",
    " answer", " is", " 42", ".", " Let", " me", " explain", " why", ",", " step",
    " by", " step", ":", " first", " über", " 你好", " 👋", "\n",
]  # fmt: skip


def _chunk(delta: dict[str, Any], finish: str | None = None, usage: Any = None) -> bytes:
    chunk: dict[str, Any] = {
        "id": "chatcmpl-7f3a9c2e-5b1d-4e8a-9c0f-2d6b8a1e4c3f",
        "object": "chat.completion.chunk",
        "created": 1748563200,
        "model": "deepseek-chat",
        "system_fingerprint": "fp_44709d6fcb",
        "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
    }
    if usage is not None:
        chunk["choices"] = []
        chunk["usage"] = usage
    return (
        b"data: " + json.dumps(chunk, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"
    )


_USAGE = {"prompt_tokens": 17, "completion_tokens": 9, "total_tokens": 26,
          "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 17}  # fmt: skip


def iter_stream(kind: str, n: int) -> Iterator[bytes]:
    """The ``n`` events of one stream, one ``bytes`` per event (lazily)."""
    yield _chunk({"role": "assistant", "content": ""})
    if kind == "chat":
        for i in range(n - 4):
            yield _chunk({"content": _WORDS[i % len(_WORDS)]})
    elif kind == "reasoning":
        for i in range(n - 4):
            key = "reasoning_content" if i < (n * 9) // 10 else "content"
            yield _chunk({key: _WORDS[i % len(_WORDS)]})
    elif kind == "tools":
        yield _chunk({"tool_calls": [
            {"index": 0, "id": "call_a", "type": "function",
             "function": {"name": "get_weather", "arguments": ""}},
            {"index": 1, "id": "call_b", "type": "function",
             "function": {"name": "get_time", "arguments": ""}},
        ]})  # fmt: skip
        for i in range(n - 5):
            fragment = json.dumps(_WORDS[i % len(_WORDS)], ensure_ascii=False)[:-1] + ","
            call = {"index": i % 2, "function": {"arguments": fragment}}
            yield _chunk({"tool_calls": [call]})
    else:  # pragma: no cover
        raise ValueError(kind)
    yield _chunk({}, "tool_calls" if kind == "tools" else "stop")
    yield _chunk({}, usage=_USAGE)
    yield b"data: [DONE]\n\n"


def build_stream(kind: str, n: int) -> bytes:
    return b"".join(iter_stream(kind, n))


def split_reads(body: bytes, size: int = READ_SIZE) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


# --------------------------------------------------------------------------
# Contenders: each decodes ``reads`` and returns the number of events seen.


def run_ssegen(reads: list[bytes]) -> int | None:
    result = CHAT.accumulate(CHAT.decode(reads))
    assert result.complete and not result.errors
    return None  # counted by ssegen-decode


def run_ssegen_decode(reads: list[bytes]) -> int:
    count = 0
    for _event in CHAT.decode(reads):  # consumed as they come, not kept
        count += 1
    return count


def run_pydantic(reads: list[bytes]) -> int | None:
    result = PYDANTIC_CHAT.accumulate(PYDANTIC_CHAT.decode(reads))
    assert result.complete and not result.errors
    return None  # counted by pydantic-decode


def run_pydantic_decode(reads: list[bytes]) -> int:
    count = 0
    for _event in PYDANTIC_CHAT.decode(reads):
        count += 1
    return count


async def _areads(reads: list[bytes]) -> AsyncIterator[bytes]:
    for read in reads:
        yield read


def run_ssegen_async(reads: list[bytes]) -> int | None:
    async def main() -> None:
        result = await CHAT.aaccumulate(CHAT.adecode(_areads(reads)))
        assert result.complete and not result.errors
        return None

    return asyncio.run(main())


def run_openai(reads: list[bytes]) -> int:
    import httpx2
    import openai
    from openai.types.chat import ChatCompletionChunk

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=iter(reads)
        )

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = openai.OpenAI(api_key="bench", base_url="http://bench.invalid/v1", http_client=http)
    response = http.send(
        http.build_request("POST", "http://bench.invalid/v1/chat/completions"), stream=True
    )
    count = 0
    for chunk in openai.Stream(cast_to=ChatCompletionChunk, response=response, client=client):
        assert chunk.object == "chat.completion.chunk"
        count += 1
    return count + 1  # [DONE] ends the SDK's iteration without being yielded


def run_httpx_sse(reads: list[bytes]) -> int:
    from httpx_sse._decoders import SSEDecoder, SSELineDecoder

    text_decoder = codecs.getincrementaldecoder("utf-8")()
    lines = SSELineDecoder()
    sse = SSEDecoder()
    count = 0
    for read in reads:
        for line in lines.decode(text_decoder.decode(read)):
            event = sse.decode(line.rstrip("\n"))
            if event is not None:
                if event.data != "[DONE]":
                    json.loads(event.data)
                count += 1
    return count


def run_floor(reads: list[bytes]) -> int:
    decode = msgspec.json.Decoder(models.ChatCompletionChunk).decode
    buffer = b""
    count = 0
    for read in reads:
        blocks = (buffer + read).split(b"\n\n")
        buffer = blocks.pop()
        for block in blocks:
            payload = block[6:]  # "data: "
            if payload != b"[DONE]":
                decode(payload)
            count += 1
    return count


CONTENDERS: dict[str, Callable[[list[bytes]], int | None]] = {
    "ssegen": run_ssegen,
    "ssegen-async": run_ssegen_async,
    "ssegen-decode": run_ssegen_decode,
    "pydantic": run_pydantic,
    "pydantic-decode": run_pydantic_decode,
    "openai": run_openai,
    "httpx-sse": run_httpx_sse,
    "floor": run_floor,
}
PEERS = {"openai": "vs_openai", "httpx-sse": "vs_httpx_sse", "floor": "vs_floor"}


def best_time(
    fn: Callable[[list[bytes]], int | None], reads: list[bytes], runs: int
) -> tuple[float, int | None]:
    best = float("inf")
    events = None
    for _ in range(runs):
        gc.collect()
        start = time.perf_counter()
        events = fn(reads)
        best = min(best, time.perf_counter() - start)
    return best, events


def measure(kind: str, n: int, runs: int, openai_runs: int, read_size: int) -> dict[str, Any]:
    body = build_stream(kind, n)
    # read_size 0: one read per event, as a server that flushes every token delivers them.
    reads = split_reads(body, read_size) if read_size else list(iter_stream(kind, n))
    figures: dict[str, Any] = {"bytes": len(body), "events": n, "contenders": {}}
    for name, fn in CONTENDERS.items():
        seconds, events = best_time(fn, reads, openai_runs if name == "openai" else runs)
        assert events in (None, n), (name, events, n)
        figures["contenders"][name] = {
            "seconds": seconds,
            "mb_per_s": len(body) / seconds / 1e6,
            "k_events_per_s": n / seconds / 1e3,
        }
    contenders = figures["contenders"]
    for mine in ("ssegen", "ssegen-async", "ssegen-decode", "pydantic", "pydantic-decode"):
        for peer, key in PEERS.items():
            contenders[mine][key] = contenders[peer]["seconds"] / contenders[mine]["seconds"]
    # How much the msgspec flavour saves over the pydantic one (> 1: msgspec is faster).
    contenders["pydantic"]["msgspec_speedup"] = contenders["pydantic"]["seconds"] / contenders["ssegen"]["seconds"]
    contenders["pydantic-decode"]["msgspec_speedup"] = (
        contenders["pydantic-decode"]["seconds"] / contenders["ssegen-decode"]["seconds"]
    )
    return figures


# --------------------------------------------------------------------------
# Peak RSS of a lazily produced stream (child process)


def _rss_child(megabytes: int) -> dict[str, Any]:
    """Decode and assemble ``megabytes`` MB produced lazily; report peak RSS."""
    target = megabytes * 1_000_000

    def reads() -> Iterator[bytes]:
        produced = 0
        buffer = bytearray()
        events = iter_stream("chat", 1 << 62)
        tail = [_chunk({}, "stop"), _chunk({}, usage=_USAGE), b"data: [DONE]\n\n"]
        for event in events:
            if produced + len(buffer) >= target:
                break
            buffer += event
            while len(buffer) >= READ_SIZE:
                yield bytes(buffer[:READ_SIZE])
                produced += READ_SIZE
                del buffer[:READ_SIZE]
        buffer += b"".join(tail)
        yield bytes(buffer)
        produced += len(buffer)
        sizes.append(produced)

    sizes: list[int] = []
    before = _peak_rss_mb()
    count = sum(1 for _ in CHAT.decode(reads()))
    after_decode = _peak_rss_mb()
    result = CHAT.accumulate(CHAT.decode(reads()))
    after_accumulate = _peak_rss_mb()
    assert result.complete
    return {
        "stream_mb": sizes[-1] / 1e6,
        "events": count,
        "rss_before_mb": before,
        "peak_rss_decode_mb": after_decode,
        "peak_rss_accumulate_mb": after_accumulate,
        "accumulated_content_mb": len((result.choices[0].content or "").encode()) / 1e6,
        # The same text as a Python str (4 bytes per character once it holds an emoji).
        "accumulated_content_str_mb": sys.getsizeof(result.choices[0].content or "") / 1e6,
    }


def _peak_rss_mb() -> float:
    """Peak RSS of this process in MB: VmHWM (Linux; not inherited from the
    parent across exec, unlike ``ru_maxrss``), else ``ru_maxrss``."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


def measure_rss(megabytes: int) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, __file__, "--rss-child", str(megabytes)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data: dict[str, Any] = json.loads(out)
    return data


# --------------------------------------------------------------------------


def _table(results: dict[str, Any]) -> str:
    rows = []
    header = (
        f"{'stream':<10} {'contender':<16} {'MB/s':>8} {'k ev/s':>8} {'vs openai':>10}"
        f" {'vs httpx-sse':>13} {'vs floor':>9}"
    )
    rows.append(header)
    rows.append("-" * len(header))
    for kind, figures in results["streams"].items():
        for name, c in figures["contenders"].items():
            ratios = [c.get(key) for key in PEERS.values()]
            cells = [f"{r:>.2f}x" if r is not None else "" for r in ratios]
            rows.append(
                f"{kind:<10} {name:<16} {c['mb_per_s']:>8.1f} {c['k_events_per_s']:>8.1f}"
                f" {cells[0]:>10} {cells[1]:>13} {cells[2]:>9}"
            )
        rows.append(f"{'':<10} ({figures['bytes'] / 1e6:.1f} MB, {figures['events']} events)")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000, help="events per stream")
    parser.add_argument("--runs", type=int, default=5, help="runs per contender (best is kept)")
    parser.add_argument("--openai-runs", type=int, default=2, help="runs for the openai SDK")
    parser.add_argument("--streams", default="chat,reasoning,tools")
    parser.add_argument(
        "--read-size", type=int, default=READ_SIZE, help="bytes per read; 0: one read per event"
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--rss-mb", type=int, default=0, help="also measure peak RSS on an MB-sized lazy stream"
    )
    parser.add_argument("--rss-child", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.rss_child:
        print(json.dumps(_rss_child(args.rss_child)))
        return 0
    if args.chunks < 4:
        parser.error("--chunks must be at least 4")
    global PYDANTIC_CHAT
    PYDANTIC_CHAT = _generate_pydantic()
    import pydantic

    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "msgspec": msgspec.__version__,
        "pydantic": pydantic.VERSION,
        "read_size": args.read_size,
        "chunks": args.chunks,
        "streams": {},
    }
    warm_up = split_reads(build_stream("chat", 8))
    for fn in CONTENDERS.values():  # imports and first-call costs out of the timings
        fn(warm_up)
    for kind in args.streams.split(","):
        results["streams"][kind] = measure(
            kind, args.chunks, args.runs, args.openai_runs, args.read_size
        )
    headline = results["streams"].get("chat") or next(iter(results["streams"].values()))
    for key in PEERS.values():
        results[key] = headline["contenders"]["ssegen"][key]
        results["decode_only_" + key] = headline["contenders"]["ssegen-decode"][key]
        results["pydantic_" + key] = headline["contenders"]["pydantic"][key]
    results["msgspec_vs_pydantic"] = headline["contenders"]["pydantic"]["msgspec_speedup"]
    if args.rss_mb:
        results["rss"] = measure_rss(args.rss_mb)

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    reads = f"{args.read_size}-byte reads" if args.read_size else "one read per event"
    print(f"Python {results['python']}, msgspec {results['msgspec']}, pydantic {results['pydantic']}, {reads},"
          f" best of {args.runs} (openai: {args.openai_runs})")  # fmt: skip
    print(_table(results))
    print(
        f"\nssegen (decode + accumulate) on 'chat': {results['vs_openai']:.1f}x openai,"
        f" {results['vs_httpx_sse']:.2f}x httpx-sse + json.loads, {results['vs_floor']:.2f}x floor"
    )
    print(
        f"pydantic flavour (decode + accumulate) on 'chat': {results['pydantic_vs_openai']:.1f}x openai,"
        f" {results['pydantic_vs_httpx_sse']:.2f}x httpx-sse + json.loads, {results['pydantic_vs_floor']:.2f}x floor;"
        f" the msgspec flavour is {results['msgspec_vs_pydantic']:.2f}x as fast"
    )
    if args.rss_mb:
        r = results["rss"]
        print(
            f"peak RSS, {r['stream_mb']:.0f} MB lazy stream ({r['events']} events):"
            f" {r['rss_before_mb']:.1f} MB before, {r['peak_rss_decode_mb']:.1f} MB after decode,"
            f" {r['peak_rss_accumulate_mb']:.1f} MB after decode + accumulate"
            f" ({r['accumulated_content_mb']:.1f} MB of assembled text as UTF-8,"
            f" {r['accumulated_content_str_mb']:.1f} MB as a str)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
