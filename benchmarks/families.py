"""Per-family benchmark: the generated decoder against the per-event floor, per read size.

Usage::

    python benchmarks/families.py [--events N] [--rounds R]
                                  [--families chat,messages,responses,gemini,cohere,ollama]
                                  [--reads 4k,event,whole] [--json]

Three stream families, each a realistic stream of ``--events`` events built in memory:

* ``chat``: Chat Completions chunks, data-only (``data: {...}``), ``[DONE]`` last: the
  ``/chat/completions`` channel of ``generated.deepseek``;
* ``messages``: Anthropic Messages named events (``event: content_block_delta`` +
  ``data: {"type": "content_block_delta", ...}``): ``generated.anthropic``;
* ``responses``: OpenAI Responses named events (``event: response.output_text.delta`` ...):
  ``generated.openai_responses``;
* ``gemini``: Gemini ``streamGenerateContent?alt=sse`` chunks, data-only, no terminator (thought
  parts, then text parts, a function call, ``finishReason`` last; ``usageMetadata`` re-sent
  whole with every chunk, as the captures in ``../shared/corpus/families/gemini`` do):
  ``generated.gemini``, assembled by its built-in plan (issue 22);
* ``cohere``: Cohere v2 chat named events (``event: content-delta`` ...): a tool plan, a tool
  call whose arguments arrive in a tenth of the deltas, text, a citation, ``message-end`` with
  the usage: ``generated.cohere``, assembled by its built-in plan;
* ``ollama``: Ollama ``/api/chat`` newline-delimited JSON (one ``ChatChunk`` per line, no SSE
  framing; thinking, then text, a tool call, ``done_reason`` and the counts last):
  ``generated.ollama``, decoded by ``ndjson.py`` and assembled by the plan its spec states
  (issue 26). Its floor splits on ``\n`` (``bytes.split``) and decodes each line with msgspec.

The streams and the named-event floor are those of ``decode.py`` (which also measures the
SDKs); this script measures each family against its floor per read size.

Each stream is read three ways: 4 KiB reads (``4k``), one read per event as a server flushing
every token sends them (``event``), and the whole body in one read (``whole``). Per family and
read size, the contenders run interleaved, in a new shuffled order every round:

``decode``      ``for event in channel.decode(reads)``: every typed event, in order
``accumulate``  ``channel.accumulate(channel.decode(reads))``
``floor``       split on blank lines, one ``msgspec.json.Decoder`` typed decode per event (the
                decoder picked by the ``event:`` name), no SSE compliance (no CR, comments,
                ids, UTF-8 offsets, size limit)
``floor-lines`` (chat) the floor, but each read's run handed to msgspec at once:
                ``Decoder.decode_lines`` of the values joined by ``\\r``, guarded as
                ``batch_decode_values`` below; it tells whether one batched decode beats one
                decode per event

Reported per contender: the best time of ``--rounds`` rounds, and its ratio to the floor's best
(> 1: faster than the floor); ``spread`` is the range of the per-round ratios (each round's
times are taken back to back, so a round's ratio is less exposed to the shared machine's drift
than two bests are). No time is ever asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from operator import itemgetter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import decode as chat_stream  # noqa: E402  (benchmarks/decode.py: the chat stream)
import msgspec  # noqa: E402

from generated.cohere import CHANNELS as COHERE  # noqa: E402
from generated.gemini import CHANNELS as GEMINI  # noqa: E402
from generated.gemini import models as gemini_models  # noqa: E402
from generated.ollama import CHANNELS as OLLAMA  # noqa: E402
from generated.ollama import models as ollama_models  # noqa: E402

READ_SIZES = {"4k": 4096, "event": 0, "whole": -1}
_FIRST = itemgetter(slice(None, 1))  # b"" for an empty value, never an IndexError
_LAST = itemgetter(slice(-1, None))


def batch_decode_values(
    values: list[bytes], decode_lines: Callable[[bytes], list[Any]], decode: Callable[[bytes], Any]
) -> list[Any]:
    """The typed values of ``values`` (each one JSON text), decoded in one
    ``msgspec.json.Decoder.decode_lines`` call when that is provably the same as
    decoding each alone, else one ``decode`` per value.

    Proof. ``decode_lines`` (msgspec 0.22) decodes a sequence of JSON values separated by
    optional whitespace (``{}{}`` and ``{} {}`` both give two). The values are joined by
    ``\\r`` and the batch is taken only when every value starts with ``{`` and ends with
    ``}`` and the count decoded equals ``len(values)``. At each joiner the parser has just
    read a ``}``: it is not inside a string (a raw ``\\r`` may not occur in a JSON string,
    RFC 8259 section 7, so the parse would fail there), so that ``}`` closed an object; were
    it nested, the next token would have to be ``,``, ``]`` or ``}``, but it is the ``{``
    starting the next value, so the parse would fail. Each joiner is therefore a top-level
    boundary, each value's text holds at least one top-level value, and a count of
    ``len(values)`` leaves exactly one each: value ``i`` of the batch is the decoding of
    ``values[i]`` alone (which starts and ends with a brace, so no whitespace around it).
    A failing batch falls back to one decode per value, which raises as before.
    Joining as a JSON array is not the same: ``[`` + ``,``.join + ``]`` accepts ``{"a":1``
    + ``}`` as one value, a count check cannot tell.

    Raises: what ``decode`` raises for the first value it rejects.
    """
    if len(values) > 1 and set(map(_FIRST, values)) == {b"{"} and set(map(_LAST, values)) == {b"}"}:
        try:
            run = decode_lines(b"\r".join(values))
        except (msgspec.ValidationError, msgspec.DecodeError):
            run = []
        if len(run) == len(values):
            return run
    return list(map(decode, values))


# --------------------------------------------------------------------------
# Streams


def iter_gemini(n: int) -> Iterator[bytes]:
    """A Gemini stream of ``n`` chunks: a quarter thought parts, then text parts, a function
    call (with a thought signature) on the second-to-last chunk, ``finishReason`` on the last;
    each chunk carries ``usageMetadata`` (the running count, a member the spec lists no type
    for included), ``modelVersion`` and ``responseId``, as real streams do."""
    words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog."]
    for i in range(n):
        if i == n - 2:
            part: dict[str, Any] = {
                "functionCall": {"name": "weather", "args": {"location": "San Francisco", "days": 3}},
                "thoughtSignature": "EpEgCo4gAb4+9vvWwdN+NkNiCCwrqvFI8uf9IiD2A47Bm4Sga0kUTm4e",
            }
        elif i < n // 4:
            part = {"text": words[i % len(words)], "thought": True}
        else:
            part = {"text": words[i % len(words)]}
        candidate: dict[str, Any] = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if i == n - 1:
            candidate["finishReason"] = "STOP"
        usage = {
            "promptTokenCount": 14,
            "candidatesTokenCount": i + 1,
            "totalTokenCount": 15 + i,
            "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 14}],
            "thoughtsTokenCount": 66,
            "serviceTier": "standard",
        }
        chunk = {
            "candidates": [candidate],
            "usageMetadata": usage,
            "modelVersion": "gemini-2.5-flash",
            "responseId": "4mmLafmIOMO0qtsPnIqR8Qo",
        }
        yield b"data: " + json.dumps(chunk, separators=(",", ":")).encode() + b"\n\n"


# --------------------------------------------------------------------------
# Floors: no SSE compliance, one typed decode per event


def iter_cohere(n: int) -> Iterator[bytes]:
    """A Cohere v2 chat stream of ``n`` events: ``message-start``, a tool plan (a tenth of
    the events), a tool call whose arguments arrive in a tenth, then text deltas, a citation
    and ``message-end`` with the usage (the shapes of Cohere's streaming docs)."""

    def event(data: dict[str, Any]) -> bytes:
        text = json.dumps(data, separators=(",", ":"))
        return f"event: {data['type']}\ndata: {text}\n\n".encode()

    words = ["The", " quick", " brown", " fox", " jumps", " over", " the", " lazy", " dog."]
    plan, arguments = n // 10, n // 10
    text = n - plan - arguments - 8
    yield event({"type": "message-start", "id": "fba98ad3", "delta": {"message": {"role": "assistant"}}})
    for i in range(plan):
        yield event({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": words[i % len(words)]}}})
    call = {"id": "get_weather_1", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    yield event({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}})
    for i in range(arguments):
        piece = '{"location": "' if i == 0 else ('"}' if i == arguments - 1 else "a")
        fragment = {"tool_calls": {"function": {"arguments": piece}}}
        yield event({"type": "tool-call-delta", "index": 0, "delta": {"message": fragment}})
    yield event({"type": "tool-call-end", "index": 0})
    start = {"content": {"type": "text", "text": ""}}
    yield event({"type": "content-start", "index": 1, "delta": {"message": start}})
    for i in range(text):
        content = {"content": {"text": words[i % len(words)]}}
        yield event({"type": "content-delta", "index": 1, "delta": {"message": content}})
    yield event({"type": "content-end", "index": 1})
    citation = {"start": 0, "end": 3, "text": "The", "sources": [{"type": "tool", "id": "get_weather_1:0"}]}
    yield event({"type": "citation-start", "index": 0, "delta": {"message": {"citations": citation}}})
    yield event({"type": "citation-end", "index": 0})
    usage = {"billed_units": {"input_tokens": 10, "output_tokens": text}, "tokens": {"input_tokens": 900}}
    yield event({"type": "message-end", "delta": {"finish_reason": "COMPLETE", "usage": usage}})


def iter_ollama(n: int) -> Iterator[bytes]:
    """``n`` lines of an Ollama ``/api/chat`` stream (a tenth thinking, then text, one tool
    call, and the final line with ``done_reason`` and the counts)."""
    stamp = "2025-06-02T17:04:11.58213Z"

    def line(message: dict[str, Any], **extra: Any) -> bytes:
        value = {"model": "qwen3:8b", "created_at": stamp, "message": {"role": "assistant", **message}}
        return json.dumps({**value, "done": bool(extra), **extra}, separators=(",", ":")).encode() + b"\n"

    thinking = n // 10
    for i in range(n - 2):
        if i < thinking:
            yield line({"content": "", "thinking": f" step{i}"})
        else:
            yield line({"content": f" word{i}"})
    call = {"function": {"name": "get_weather", "arguments": {"city": "Paris", "unit": "celsius"}}}
    yield line({"content": "", "tool_calls": [call]})
    counts = {"total_duration": 4883583458, "prompt_eval_count": 26, "eval_count": n, "eval_duration": 4535599000}
    yield line({"content": ""}, done_reason="stop", **counts)


def lines_floor(cls: Any) -> Callable[[list[bytes]], int]:
    """The floor of an NDJSON stream of one message class: ``bytes.split(b"\n")`` per read,
    one typed decode per line (no CRLF, BOM, blank lines, UTF-8 offsets or size limit)."""
    decode = msgspec.json.Decoder(cls).decode

    def run(reads: list[bytes]) -> int:
        buffer = b""
        count = 0
        for read in reads:
            lines = (buffer + read).split(b"\n")
            buffer = lines.pop()
            for value in lines:
                decode(value)
                count += 1
        return count

    return run


def data_floor(cls: Any) -> Callable[[list[bytes]], int]:
    """The floor of a data-only stream of one message class: split on blank lines, one typed
    decode per event (``data: `` cut off)."""
    decode = msgspec.json.Decoder(cls).decode

    def run(reads: list[bytes]) -> int:
        buffer = b""
        count = 0
        for read in reads:
            blocks = (buffer + read).split(b"\n\n")
            buffer = blocks.pop()
            for block in blocks:
                decode(block[6:])
                count += 1
        return count

    return run


def chat_floor_lines(channel: Any) -> Callable[[list[bytes]], int]:
    cls = chat_stream.models.ChatCompletionChunk
    decoder = msgspec.json.Decoder(cls)

    def run(reads: list[bytes]) -> int:
        buffer = b""
        count = 0
        for read in reads:
            blocks = (buffer + read).split(b"\n\n")
            buffer = blocks.pop()
            values = list(map(itemgetter(slice(6, None)), blocks))
            if b"[DONE]" in values:
                values.remove(b"[DONE]")
            batch_decode_values(values, decoder.decode_lines, decoder.decode)
            count += len(blocks)
        return count

    return run


# --------------------------------------------------------------------------


def contenders(family: str, channel: Any) -> dict[str, Callable[[list[bytes]], int | None]]:
    def decode(reads: list[bytes]) -> int:
        count = 0
        for _event in channel.decode(reads):
            count += 1
        return count

    def accumulate(reads: list[bytes]) -> None:
        result = channel.accumulate(channel.decode(reads))
        assert not result.errors, result.errors[:1]

    out: dict[str, Callable[[list[bytes]], int | None]] = {
        "decode": decode,
        "accumulate": accumulate,
        "floor": FLOORS[family](channel) if family in FLOORS else chat_stream.named_floor(channel),
    }
    if family == "chat":
        out["floor-lines"] = chat_floor_lines(channel)
    return out


#: The floor of each family whose events are not named (``named_floor`` for the others).
FLOORS: dict[str, Callable[[Any], Callable[[list[bytes]], int]]] = {
    "chat": lambda channel: chat_stream.run_floor,
    "gemini": lambda channel: data_floor(gemini_models.GenerateContentResponse),
    "ollama": lambda channel: lines_floor(ollama_models.ChatChunk),
}


def reads_of(events: list[bytes], size: int) -> list[bytes]:
    if size == 0:
        return events
    body = b"".join(events)
    if size < 0:
        return [body]
    return [body[i : i + size] for i in range(0, len(body), size)]


def measure(
    runs: dict[str, Callable[[list[bytes]], int | None]],
    reads: list[bytes],
    events: int,
    rounds: int,
) -> dict[str, Any]:
    for name, fn in runs.items():  # first-call costs out, and every contender sees every event
        assert fn(reads) in (None, events), name
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(rounds):
        names = list(runs)
        random.shuffle(names)
        for name in names:
            gc.collect()
            start = time.perf_counter()
            runs[name](reads)
            times[name].append(time.perf_counter() - start)
    floor = times["floor"]
    figures: dict[str, Any] = {}
    for name, seconds in times.items():
        ratios = sorted(f / s for f, s in zip(floor, seconds, strict=True))
        figures[name] = {
            "best_s": min(seconds),
            "k_events_per_s": events / min(seconds) / 1e3,
            "vs_floor": min(floor) / min(seconds),
            "round_ratio_min": ratios[0],
            "round_ratio_median": statistics.median(ratios),
            "round_ratio_max": ratios[-1],
        }
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--events", type=int, default=20_000, help="events per stream")
    parser.add_argument("--rounds", type=int, default=11, help="rounds (the best is kept)")
    parser.add_argument("--families", default="chat,messages,responses,gemini,cohere,ollama")
    parser.add_argument("--reads", default="4k,event,whole", help="read sizes: 4k, event, whole")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.events < 8:
        parser.error("--events must be at least 8")
    channels = {
        "chat": chat_stream.CHAT,
        **chat_stream.FAMILIES,
        "gemini": next(iter(GEMINI.values())),
        "cohere": next(iter(COHERE.values())),
        "ollama": OLLAMA["/api/chat"],
    }
    streams = {family: chat_stream.STREAMS[family][1] for family in channels if family in chat_stream.STREAMS}
    streams["gemini"] = iter_gemini
    streams["cohere"] = iter_cohere
    streams["ollama"] = iter_ollama
    results: dict[str, Any] = {
        "python": sys.version.split()[0],
        "msgspec": msgspec.__version__,
        "events": args.events,
        "rounds": args.rounds,
        "families": {},
    }
    for family in args.families.split(","):
        events = list(streams[family](args.events))
        runs = contenders(family, channels[family])
        results["families"][family] = {
            "bytes": sum(map(len, events)),
            "reads": {
                label: measure(runs, reads_of(events, READ_SIZES[label]), args.events, args.rounds)
                for label in args.reads.split(",")
            },
        }
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(
        f"Python {results['python']}, msgspec {results['msgspec']}, {args.events} events per"
        f" stream, best of {args.rounds} interleaved rounds"
    )
    header = (
        f"{'family':<10} {'reads':<6} {'contender':<12} {'k ev/s':>8} {'vs floor':>9} {'spread (per-round ratio)':>26}"
    )
    print(header)
    print("-" * len(header))
    for family, data in results["families"].items():
        for label, figures in data["reads"].items():
            for name, f in figures.items():
                spread = f"{f['round_ratio_min']:.2f}-{f['round_ratio_max']:.2f} (median {f['round_ratio_median']:.2f})"
                print(
                    f"{family:<10} {label:<6} {name:<12} {f['k_events_per_s']:>8.0f}"
                    f" {f['vs_floor']:>8.2f}x {spread:>26}"
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
