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
import itertools
import json
import random
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

from generated.anthropic import CHANNELS as ANTHROPIC  # noqa: E402
from generated.deepseek import CHANNELS, models  # noqa: E402
from generated.openai_responses import CHANNELS as RESPONSES  # noqa: E402

READ_SIZE = 4096
CHAT = CHANNELS["/chat/completions"]
#: The channel of each non-chat family.
FAMILIES = {"messages": ANTHROPIC["/v1/messages"], "responses": RESPONSES["/v1/responses"]}
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


def _named(name: str, data: dict[str, Any]) -> bytes:
    """One named SSE event (``event: name`` + ``data: {...}`` + blank line)."""
    payload = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"event: {name}\ndata: {payload}\n\n".encode()


def _argument_fragments(n: int) -> Iterator[str]:
    """``n + 2`` fragments of one JSON object: ``{"city": ..., "notes": [<n words>]}``
    (the first holds a ``\\u`` escape)."""
    yield '{"city": "Z\\u00fcrich", "notes": ['
    for i in range(n):
        word = json.dumps(_WORDS[i % len(_WORDS)], ensure_ascii=False)
        yield word + ("," if i < n - 1 else "")
    yield "]}"


def iter_messages(n: int) -> Iterator[bytes]:
    """An Anthropic Messages stream of ``n`` events (as ``generated.anthropic`` and the
    ``anthropic`` SDK read it): ``message_start`` with usage, ``ping``, a thinking block
    (a quarter of the deltas, then its signature), a text block (most deltas), a
    ``tool_use`` block whose input arrives in ``input_json_delta`` fragments (one event
    in 20), ``message_delta`` with the stop reason and output tokens, ``message_stop``."""
    fixed = 12
    tools = max(1, (n - fixed) // 20)
    thinking = (n - fixed - tools) // 4
    text = n - fixed - tools - thinking
    usage = {"input_tokens": 472, "cache_creation_input_tokens": 0,
             "cache_read_input_tokens": 0, "output_tokens": 2}  # fmt: skip
    message = {"id": "msg_01XFDUDYJgAACzvnptvVoYEL", "type": "message", "role": "assistant",
               "model": "claude-sonnet-4-5-20250929", "content": [], "stop_reason": None,
               "stop_sequence": None, "usage": usage}  # fmt: skip

    def start(index: int, block: dict[str, Any]) -> bytes:
        data = {"type": "content_block_start", "index": index, "content_block": block}
        return _named("content_block_start", data)

    def delta(index: int, delta: dict[str, Any]) -> bytes:
        data = {"type": "content_block_delta", "index": index, "delta": delta}
        return _named("content_block_delta", data)

    def stop(index: int) -> bytes:
        return _named("content_block_stop", {"type": "content_block_stop", "index": index})

    yield _named("message_start", {"type": "message_start", "message": message})
    yield _named("ping", {"type": "ping"})
    yield start(0, {"type": "thinking", "thinking": "", "signature": ""})
    for i in range(thinking):
        yield delta(0, {"type": "thinking_delta", "thinking": _WORDS[i % len(_WORDS)]})
    yield delta(0, {"type": "signature_delta", "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxB"})
    yield stop(0)
    yield start(1, {"type": "text", "text": ""})
    for i in range(text):
        yield delta(1, {"type": "text_delta", "text": _WORDS[i % len(_WORDS)]})
    yield stop(1)
    tool = {"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "get_weather",
            "input": {}}  # fmt: skip
    yield start(2, tool)
    for fragment in _argument_fragments(tools - 1):
        yield delta(2, {"type": "input_json_delta", "partial_json": fragment})
    yield stop(2)
    yield _named("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                                   "usage": {"output_tokens": 1187}})  # fmt: skip
    yield _named("message_stop", {"type": "message_stop"})


def iter_responses(n: int) -> Iterator[bytes]:
    """An OpenAI Responses stream of ``n`` events, named as the API sends them
    (``event: <type>`` + ``data: {"type": <type>, "sequence_number": ...}``):
    ``response.created``/``in_progress``, a reasoning item with summary text deltas (a
    quarter), a message item with output text deltas (most), a function call whose
    arguments arrive in deltas (one event in 20), each part and item done with its
    final text, ``response.completed`` with usage."""
    fixed = 16
    tools = max(2, (n - fixed) // 20)
    summary_n = (n - fixed - tools) // 4
    text_n = n - fixed - tools - summary_n
    sequence = itertools.count()
    response: dict[str, Any] = {"id": "resp_67ccd2bed1ec8190b14f964abc054267",
                                "object": "response", "created_at": 1741476542,
                                "status": "in_progress", "model": "gpt-4.1-2025-04-14",
                                "output": [], "usage": None}  # fmt: skip

    def ev(data: dict[str, Any]) -> bytes:
        return _named(data["type"], {**data, "sequence_number": next(sequence)})

    def words(count: int) -> list[str]:
        return [_WORDS[i % len(_WORDS)] for i in range(count)]

    yield ev({"type": "response.created", "response": response})
    yield ev({"type": "response.in_progress", "response": response})
    reasoning: dict[str, Any] = {"id": "rs_6876cf02e0bc8192b74af0fb64b715ff", "type": "reasoning",
                                 "summary": []}  # fmt: skip
    yield ev({"type": "response.output_item.added", "output_index": 0, "item": reasoning})
    where = {"item_id": reasoning["id"], "output_index": 0, "summary_index": 0}
    empty = {"type": "summary_text", "text": ""}
    yield ev({"type": "response.reasoning_summary_part.added", **where, "part": empty})
    for word in words(summary_n):
        yield ev({"type": "response.reasoning_summary_text.delta", **where, "delta": word})
    summary = "".join(words(summary_n))
    yield ev({"type": "response.reasoning_summary_text.done", **where, "text": summary})
    part = {"type": "summary_text", "text": summary}
    yield ev({"type": "response.reasoning_summary_part.done", **where, "part": part})
    reasoning = {**reasoning, "summary": [part]}
    yield ev({"type": "response.output_item.done", "output_index": 0, "item": reasoning})
    message: dict[str, Any] = {"id": "msg_67ccd2bf17f0819081ff3bb2cf6508e6", "type": "message",
                               "status": "in_progress", "role": "assistant", "content": []}  # fmt: skip
    yield ev({"type": "response.output_item.added", "output_index": 1, "item": message})
    where = {"item_id": message["id"], "output_index": 1, "content_index": 0}
    empty = {"type": "output_text", "text": "", "annotations": []}
    yield ev({"type": "response.content_part.added", **where, "part": empty})
    for word in words(text_n):
        yield ev({"type": "response.output_text.delta", **where, "delta": word, "logprobs": []})
    text = "".join(words(text_n))
    yield ev({"type": "response.output_text.done", **where, "text": text, "logprobs": []})
    part = {"type": "output_text", "text": text, "annotations": []}
    yield ev({"type": "response.content_part.done", **where, "part": part})
    message = {**message, "status": "completed", "content": [part]}
    yield ev({"type": "response.output_item.done", "output_index": 1, "item": message})
    call: dict[str, Any] = {"id": "fc_67ccd3acc8d48190a77525dc6de64b55", "type": "function_call",
                            "status": "in_progress", "call_id": "call_a5bJ9TM3aWx4Tc8zn5TwiJCe",
                            "name": "get_weather", "arguments": ""}  # fmt: skip
    yield ev({"type": "response.output_item.added", "output_index": 2, "item": call})
    fragments = list(_argument_fragments(tools - 2))
    for fragment in fragments:
        yield ev({"type": "response.function_call_arguments.delta", "item_id": call["id"],
                  "output_index": 2, "delta": fragment})  # fmt: skip
    arguments = "".join(fragments)
    yield ev({"type": "response.function_call_arguments.done", "item_id": call["id"],
              "output_index": 2, "arguments": arguments})  # fmt: skip
    call = {**call, "status": "completed", "arguments": arguments}
    yield ev({"type": "response.output_item.done", "output_index": 2, "item": call})
    usage = {"input_tokens": 328, "input_tokens_details": {"cached_tokens": 0},
             "output_tokens": 1187, "output_tokens_details": {"reasoning_tokens": 384},
             "total_tokens": 1515}  # fmt: skip
    final = {**response, "status": "completed", "output": [reasoning, message, call], "usage": usage}
    yield ev({"type": "response.completed", "response": final})


#: Each stream: its family (which package, SDK and floor read it) and its events.
STREAMS: dict[str, tuple[str, Callable[[int], Iterator[bytes]]]] = {
    "chat": ("chat", lambda n: iter_stream("chat", n)),
    "reasoning": ("chat", lambda n: iter_stream("reasoning", n)),
    "tools": ("chat", lambda n: iter_stream("tools", n)),
    "messages": ("messages", iter_messages),
    "responses": ("responses", iter_responses),
}


def build_stream(kind: str, n: int) -> bytes:
    return b"".join(STREAMS[kind][1](n))


def split_reads(body: bytes, size: int = READ_SIZE) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


# --------------------------------------------------------------------------
# Contenders: each decodes ``reads`` and returns the number of events seen (None:
# counted by another contender).


def ssegen_runs(channel: Any) -> dict[str, Callable[[list[bytes]], int | None]]:
    """``ssegen`` (decode + accumulate), ``ssegen-async`` and ``ssegen-decode`` on ``channel``."""

    def accumulate(reads: list[bytes]) -> None:
        result = channel.accumulate(channel.decode(reads))
        assert result.complete and not result.errors, result.errors[:1]

    def decode(reads: list[bytes]) -> int:
        count = 0
        for _event in channel.decode(reads):  # consumed as they come, not kept
            count += 1
        return count

    def aaccumulate(reads: list[bytes]) -> None:
        async def main() -> None:
            result = await channel.aaccumulate(channel.adecode(_areads(reads)))
            assert result.complete and not result.errors

        asyncio.run(main())

    return {"ssegen": accumulate, "ssegen-async": aaccumulate, "ssegen-decode": decode}


async def _areads(reads: list[bytes]) -> AsyncIterator[bytes]:
    for read in reads:
        yield read


def _mock_client(reads: list[bytes]) -> Any:
    """An httpx2 client (the transport both SDKs use) answering every request with
    ``reads`` as a ``text/event-stream`` body."""
    import httpx2

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(
            200, headers={"content-type": "text/event-stream"}, content=iter(reads)
        )

    return httpx2.Client(transport=httpx2.MockTransport(handler))


def run_openai(reads: list[bytes]) -> int:
    import openai
    from openai.types.chat import ChatCompletionChunk

    http = _mock_client(reads)
    client = openai.OpenAI(api_key="bench", base_url="http://bench.invalid/v1", http_client=http)
    response = http.send(
        http.build_request("POST", "http://bench.invalid/v1/chat/completions"), stream=True
    )
    count = 0
    for chunk in openai.Stream(cast_to=ChatCompletionChunk, response=response, client=client):
        assert chunk.object == "chat.completion.chunk"
        count += 1
    return count + 1  # [DONE] ends the SDK's iteration without being yielded


def run_anthropic(reads: list[bytes]) -> None:
    """The anthropic SDK's stream path: ``messages.stream(...)`` (its SSE decoder, one
    pydantic event per frame, the snapshot built by ``accumulate_event``),
    ``get_final_message()``."""
    import anthropic

    client = anthropic.Anthropic(
        api_key="bench", base_url="http://bench.invalid", max_retries=0,
        http_client=_mock_client(reads),
    )  # fmt: skip
    messages = [{"role": "user", "content": "hi"}]
    with client.messages.stream(model="m", max_tokens=64, messages=messages) as stream:  # type: ignore[arg-type]
        message = stream.get_final_message()
    assert message.stop_reason == "tool_use" and len(message.content) == 3


def run_openai_responses(reads: list[bytes]) -> None:
    """The openai SDK's Responses stream path: ``responses.stream(...)`` (its SSE
    decoder, typed events, the response snapshot), ``get_final_response()``."""
    import openai

    client = openai.OpenAI(
        api_key="bench", base_url="http://bench.invalid/v1", max_retries=0,
        http_client=_mock_client(reads),
    )  # fmt: skip
    with client.responses.stream(model="m", input="hi") as stream:
        response = stream.get_final_response()
    assert response.status == "completed" and len(response.output) == 3


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


def named_floor(channel: Any) -> Callable[[list[bytes]], int]:
    """The floor of a named-event stream: split on blank lines, the decoder of the
    generated class picked by the ``event:`` name, one typed decode per event."""
    by_name = {}
    for cls in channel.messages.values():
        fields = msgspec.inspect.type_info(cls).fields
        tag = next((f for f in fields if f.encode_name == "type"), None)
        if tag is None:
            continue  # a literal payload (Cohere's data-only ``[DONE]``): no JSON to decode
        [name] = tag.type.values  # a Literal: the event's type, also its SSE event name
        by_name[name.encode()] = msgspec.json.Decoder(cls).decode

    def run(reads: list[bytes]) -> int:
        buffer = b""
        count = 0
        for read in reads:
            blocks = (buffer + read).split(b"\n\n")
            buffer = blocks.pop()
            for block in blocks:
                head, _, data = block.partition(b"\ndata: ")
                if data:
                    by_name[head[7:]](data)  # "event: "
                count += 1  # or a data-only literal (``data: [DONE]``), compared by nothing
        return count

    return run


def contenders(kind: str) -> dict[str, Callable[[list[bytes]], int | None]]:
    """The contenders of stream ``kind``, by name; the SDK's is named after the SDK."""
    family = STREAMS[kind][0]
    if family == "chat":
        runs = ssegen_runs(CHAT)
        pydantic = ssegen_runs(PYDANTIC_CHAT)
        runs |= {"pydantic": pydantic["ssegen"], "pydantic-decode": pydantic["ssegen-decode"]}
        return runs | {"openai": run_openai, "httpx-sse": run_httpx_sse, "floor": run_floor}
    channel = FAMILIES[family]
    sdk = {"messages": ("anthropic", run_anthropic), "responses": ("openai", run_openai_responses)}
    name, run = sdk[family]
    return ssegen_runs(channel) | {name: run, "httpx-sse": run_httpx_sse, "floor": named_floor(channel)}


#: The SDK contender of each family (the slow one, given fewer rounds).
SDKS = {"openai", "anthropic"}
MINE = ("ssegen", "ssegen-async", "ssegen-decode", "pydantic", "pydantic-decode")


def measure(kind: str, n: int, rounds: int, sdk_rounds: int, read_size: int) -> dict[str, Any]:
    """Every contender of stream ``kind`` on the same reads, interleaved: ``rounds``
    rounds (the SDK takes part in the first ``sdk_rounds``), each in a new shuffled
    order; per contender its best time, and per ratio the best times' ratio and the
    range of the per-round ratios (a round's times are taken close together)."""
    events = list(STREAMS[kind][1](n))
    # read_size 0: one read per event, as a server that flushes every token delivers them.
    reads = events if read_size == 0 else split_reads(b"".join(events), read_size)
    if read_size < 0:
        reads = [b"".join(events)]
    runs = contenders(kind)
    for name, fn in runs.items():  # first-call costs out; every contender sees every event
        count = fn(reads)
        assert count in (None, n), (name, count, n)
    times: dict[str, list[float | None]] = {name: [] for name in runs}
    for round_ in range(rounds):
        names = [name for name in runs if round_ < sdk_rounds or name not in SDKS]
        random.shuffle(names)
        for name in runs:
            if name not in names:
                times[name].append(None)
        for name in names:
            gc.collect()
            start = time.perf_counter()
            runs[name](reads)
            times[name].append(time.perf_counter() - start)
    size = sum(map(len, events))
    figures: dict[str, Any] = {"bytes": size, "events": n, "contenders": {}}
    best = {name: min(t for t in seconds if t is not None) for name, seconds in times.items()}
    for name, seconds in best.items():
        figures["contenders"][name] = {
            "seconds": seconds,
            "mb_per_s": size / seconds / 1e6,
            "k_events_per_s": n / seconds / 1e3,
        }
    peers = [p for p in runs if p in SDKS or p in ("httpx-sse", "floor")]
    for mine in (m for m in MINE if m in runs):
        c = figures["contenders"][mine]
        for peer in peers:
            key = "vs_sdk" if peer in SDKS else "vs_" + peer.replace("-", "_")
            c[key] = best[peer] / best[mine]
            ratios = [p / s for p, s in zip(times[peer], times[mine], strict=True) if p and s]
            c[key + "_spread"] = (min(ratios), max(ratios))
    sdk = next(p for p in runs if p in SDKS)
    figures["sdk"] = sdk
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


def _ratio(c: dict[str, Any], key: str) -> str:
    if key not in c:
        return ""
    low, high = c[key + "_spread"]
    return f"{c[key]:.2f}x ({low:.2f}-{high:.2f})"


def _table(results: dict[str, Any]) -> str:
    rows = []
    header = (
        f"{'stream':<10} {'contender':<16} {'MB/s':>7} {'k ev/s':>7} {'vs SDK (spread)':>22}"
        f" {'vs httpx-sse (spread)':>22} {'vs floor (spread)':>20}"
    )
    rows.append(header)
    rows.append("-" * len(header))
    for kind, figures in results["streams"].items():
        for name, c in figures["contenders"].items():
            cells = [_ratio(c, key) for key in ("vs_sdk", "vs_httpx_sse", "vs_floor")]
            rows.append(
                f"{kind:<10} {name:<16} {c['mb_per_s']:>7.1f} {c['k_events_per_s']:>7.1f}"
                f" {cells[0]:>22} {cells[1]:>22} {cells[2]:>20}"
            )
        rows.append(
            f"{'':<10} ({figures['bytes'] / 1e6:.1f} MB, {figures['events']} events;"
            f" SDK: {figures['sdk']})"
        )
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=100_000, help="events per stream")
    parser.add_argument("--runs", type=int, default=5, help="interleaved rounds (best is kept)")
    parser.add_argument("--sdk-runs", type=int, default=2, help="rounds the SDKs take part in")
    parser.add_argument("--streams", default="chat,reasoning,tools,messages,responses")
    parser.add_argument(
        "--read-size",
        type=int,
        default=READ_SIZE,
        help="bytes per read; 0: one read per event; -1: the whole body in one read",
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
    if args.chunks < 24:
        parser.error("--chunks must be at least 24")
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
    for kind in args.streams.split(","):
        results["streams"][kind] = measure(
            kind, args.chunks, args.runs, args.sdk_runs, args.read_size
        )
    for figures in results["streams"].values():
        mine = figures["contenders"]
        if "pydantic" in mine:
            # How much the msgspec flavour saves over the pydantic one (> 1: msgspec is faster).
            mine["pydantic"]["msgspec_speedup"] = mine["pydantic"]["seconds"] / mine["ssegen"]["seconds"]
    if args.rss_mb:
        results["rss"] = measure_rss(args.rss_mb)

    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    reads = {0: "one read per event", -1: "whole-body reads"}.get(
        args.read_size, f"{args.read_size}-byte reads"
    )
    print(f"Python {results['python']}, msgspec {results['msgspec']}, pydantic {results['pydantic']}, {reads},"
          f" best of {args.runs} interleaved rounds (SDKs: {args.sdk_runs});"
          " ratio (range of per-round ratios)")  # fmt: skip
    print(_table(results))
    print()
    for kind, figures in results["streams"].items():
        c = figures["contenders"]
        line = (
            f"ssegen decode + accumulate on {kind!r}: {c['ssegen']['vs_sdk']:.1f}x {figures['sdk']},"
            f" {c['ssegen']['vs_floor']:.2f}x floor (decode only {c['ssegen-decode']['vs_floor']:.2f}x)"
        )
        if "pydantic" in c:
            line += f"; the msgspec flavour is {c['pydantic']['msgspec_speedup']:.2f}x the pydantic one"
        print(line)
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
