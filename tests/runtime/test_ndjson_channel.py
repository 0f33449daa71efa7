"""A channel framed as newline-delimited JSON, end to end (specs/ollama/, generated/ollama): it
decodes sync and async under any read split, reports a cut last line as truncated, keeps an
unknown line, encodes back to lines, and is served as ``application/x-ndjson`` (issue 26)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import yaml
from conftest import SPECS
from helpers.plan_oracle import Plan, Step
from helpers.plan_oracle import run as run_plan
from hypothesis import given, settings
from hypothesis import strategies as st

from generated._runtime.sse import ServerSentEvent, iter_events  # the runtime CHAT.framer is of
from generated.ollama import CHANNELS, StreamTruncated, UnknownEvent
from generated.ollama import models as ollama
from ssegen.runtime.accumulate import Accumulator
from ssegen.transport import SSEMock

CHAT = CHANNELS["/api/chat"]
LINES = [
    {
        "model": "llama3.2",
        "created_at": "2025-06-02T17:04:11Z",
        "message": {"role": "assistant", "content": "Hel"},
        "done": False,
    },
    {
        "model": "llama3.2",
        "created_at": "2025-06-02T17:04:12Z",
        "message": {"role": "assistant", "content": "lo"},
        "done": False,
    },
    {
        "model": "llama3.2",
        "created_at": "2025-06-02T17:04:13Z",
        "message": {"role": "assistant", "content": ""},
        "done": True,
        "done_reason": "stop",
        "prompt_eval_count": 26,
        "eval_count": 2,
    },
]
BODY = "".join(json.dumps(line) + "\n" for line in LINES).encode()


def _reads(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c for c in cuts if 0 < c < len(body)})
    return [body[a:b] for a, b in zip([0, *points], [*points, len(body)], strict=True)]


def test_the_channel_is_framed_as_ndjson() -> None:
    assert CHAT.framing == "ndjson" and CHANNELS["/api/generate"].framing == "ndjson"


def test_each_line_is_a_typed_message() -> None:
    events = list(CHAT.decode([BODY]))
    assert [type(e) for e in events] == [ollama.ChatChunk] * 3
    assert "".join(e.message.content for e in events if e.message) == "Hello"
    assert events[-1].done and events[-1].done_reason == "stop"


@settings(max_examples=100, deadline=None)
@given(cuts=st.lists(st.integers(0, len(BODY)), max_size=10), crlf=st.booleans())
def test_any_read_split_sync_and_async_gives_the_same_events(cuts: list[int], crlf: bool) -> None:
    body = BODY.replace(b"\n", b"\r\n") if crlf else BODY
    whole = list(CHAT.decode([BODY]))
    assert list(CHAT.decode(_reads(body, cuts))) == whole

    async def chunks() -> AsyncIterator[bytes]:
        for read in _reads(body, cuts):
            yield read

    async def collect() -> list[object]:
        return [event async for event in CHAT.adecode(chunks())]

    assert asyncio.run(collect()) == whole


def test_the_stated_plan_assembles_text_thinking_tool_calls_and_the_stop_reason() -> None:
    lines = [
        {
            "model": "qwen3",
            "created_at": "t",
            "message": {"role": "assistant", "content": "", "thinking": "Let me"},
            "done": False,
        },
        {
            "model": "qwen3",
            "created_at": "t",
            "message": {"role": "assistant", "content": "", "thinking": " think."},
            "done": False,
        },
        {"model": "qwen3", "created_at": "t", "message": {"role": "assistant", "content": "Hel"}, "done": False},
        {
            "model": "qwen3",
            "created_at": "t",
            "message": {
                "role": "assistant",
                "content": "lo",
                "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
            },
            "done": False,
        },
        LINES[-1],
    ]
    body = "".join(json.dumps(line) + "\n" for line in lines).encode()
    result = CHAT.accumulate(CHAT.decode([body[i : i + 11] for i in range(0, len(body), 11)]))
    assert result.texts == {"text": "Hello", "thinking": "Let me think."}
    assert [(b.kind, b.name, b.input) for b in result.output] == [("tool_call", "get_weather", {"city": "Paris"})]
    assert (result.stop_reason, result.complete, result.errors) == ("stop", True, [])
    generate = CHANNELS["/api/generate"]
    pieces = [{"model": "m", "created_at": "t", "response": piece, "done": False} for piece in ("The", " sky")]
    final = {"model": "m", "created_at": "t", "response": "", "done": True, "done_reason": "length"}
    body = "".join(json.dumps(line) + "\n" for line in [*pieces, final]).encode()
    result = generate.accumulate(generate.decode([body]))
    assert (result.texts["text"], result.stop_reason, result.complete) == ("The sky", "length", True)


def test_every_tool_call_is_its_own_block_whichever_line_and_position_it_came_in() -> None:
    """Ollama sends tool calls whole, several in one line's ``message.tool_calls`` or over
    several lines; the plan's ``tool_call`` has no key, and each call became block 0 in turn
    (the last one kept, the others lost). The generated plan (compiled) and the plan oracle
    (``tests/helpers/plan_oracle.py``, running the same step) agree."""
    calls = [[("get_weather", {"city": "Paris"}), ("get_time", {"zone": "CET"})], [("get_news", {})]]
    lines = [
        {
            "model": "qwen3",
            "created_at": "t",
            "message": {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"function": {"name": n, "arguments": a}} for n, a in group],
            },
            "done": False,
        }
        for group in calls
    ]
    body = "".join(json.dumps(line) + "\n" for line in [*lines, LINES[-1]]).encode()
    expected = [(i, "tool_call", name, arguments) for i, (name, arguments) in enumerate(sum(calls, []))]
    result = CHAT.accumulate(CHAT.decode([body]))
    assert [(b.index, b.kind, b.name, b.input) for b in result.output] == expected
    step = Step(
        "tool_call",
        value=("message", "tool_calls", "*"),
        members=(("name", ("function", "name")), ("arguments", ("function", "arguments"))),
    )
    acc = Accumulator()
    for event in CHAT.decode([body]):
        run_plan(acc, Plan((step,)), event)
    assert [(b.index, b.kind, b.name, b.input) for b in acc.result().output] == expected


def test_an_error_line_is_an_error_and_a_stream_without_done_reason_is_incomplete() -> None:
    body = (json.dumps(LINES[0]) + "\n" + '{"error": "model runner has unexpectedly stopped"}\n').encode()
    result = CHAT.accumulate(CHAT.decode([body]))
    assert [e["kind"] for e in result.errors] == ["error_event"] and not result.complete


def test_a_cut_last_line_is_reported_as_truncated() -> None:
    cut = BODY[:-20]
    stream = CHAT.decode([cut[i : i + 9] for i in range(0, len(cut), 9)])
    events = list(stream)
    assert [type(e) for e in events] == [ollama.ChatChunk, ollama.ChatChunk, StreamTruncated]
    assert stream.incomplete and stream.state.bytes_discarded == len(BODY.splitlines()[-1]) - 19
    result = CHAT.accumulate(events)
    assert not result.complete and any(e["kind"] == "truncated" for e in result.errors)


def test_a_last_line_without_its_newline_is_kept_when_whole() -> None:
    assert list(CHAT.decode([BODY[:-1]])) == list(CHAT.decode([BODY]))


def test_an_error_line_and_an_unknown_line_are_kept() -> None:
    body = BODY[: BODY.index(b"\n") + 1] + b'{"error": "model runner has unexpectedly stopped"}\n[1, 2]\n'
    events = list(CHAT.decode([body]))
    assert type(events[1]) is ollama.StreamError and events[1].error.startswith("model runner")
    assert isinstance(events[2], UnknownEvent) and events[2].data == "[1, 2]"


def test_encode_writes_one_line_per_event_and_round_trips() -> None:
    events = list(CHAT.decode([BODY]))
    encoded = b"".join(CHAT.encode_stream(events))
    assert encoded.count(b"\n") == 3 and b"data:" not in encoded
    assert list(CHAT.decode([encoded])) == events
    assert [json.loads(line) for line in encoded.splitlines()] == LINES


def test_the_mock_transport_serves_ndjson() -> None:
    mock = SSEMock()
    try:
        mock.route(CHAT, events=list(CHAT.decode([BODY])), read_size=5)
        with mock.client() as client, client.stream("POST", "http://localhost:11434/api/chat", json={}) as response:
            assert response.headers["content-type"] == "application/x-ndjson"
            events = list(CHAT.decode(response.iter_bytes()))
    finally:
        mock.close()
    assert events == list(CHAT.decode([BODY]))


@settings(max_examples=100, deadline=None)
@given(
    lines=st.lists(
        st.sampled_from([json.dumps(line) for line in LINES] + ['{"error": "x"}', "not json", "[1]", '{"done": 1}']),
        max_size=8,
    ),
    cuts=st.lists(st.integers(0, 2000), max_size=10),
)
def test_runs_classified_at_once_equal_each_line_classified_alone(lines: list[str], cuts: list[int]) -> None:
    body = "".join(f"{line}\n" for line in lines).encode()
    reads = _reads(body, cuts)
    one_by_one = [CHAT.classify(event) for event in iter_events(reads, framer=CHAT.framer)]
    assert list(CHAT.decode(reads)) == one_by_one
    assert CHAT.accumulate(CHAT.decode(reads)).to_dict() == CHAT.accumulate(one_by_one).to_dict()


#: The timing and token counts of a final line (specs/ollama/api.yaml ``Timings``), in the
#: order the stated plan's ``usage`` step names them.
COUNTS = ("prompt_eval_count", "eval_count", "total_duration", "load_duration", "prompt_eval_duration", "eval_duration")


def _final_examples(address: str) -> list[dict[str, Any]]:
    """The final lines (``done: true``) the spec documents for a channel's chunk
    (``specs/ollama/api.yaml``, the schema's ``examples``), as raw JSON."""
    schema = {"/api/chat": "ChatChunk", "/api/generate": "GenerateChunk"}[address]
    document = yaml.safe_load((SPECS / "ollama" / "api.yaml").read_text(encoding="utf-8"))
    examples: list[dict[str, Any]] = document["components"]["schemas"][schema]["examples"]
    return [raw for raw in examples if raw.get("done") is True]


def test_usage_is_the_final_lines_counts_as_sent() -> None:
    """The stated plan's ``usage`` step with ``members`` assembles the final line's counts
    into ``result.usage``, each as sent (tokens, nanoseconds), on ``/api/chat`` and
    ``/api/generate``, at any read split."""
    for address in ("/api/chat", "/api/generate"):
        channel = CHANNELS[address]
        [final] = _final_examples(address)
        expected = {name: final[name] for name in COUNTS if name in final}
        assert len(expected) == 6, address  # the documented final line has every count
        first = {key: value for key, value in final.items() if key not in COUNTS}
        first.update(done=False, done_reason=None)
        body = (
            json.dumps({k: v for k, v in first.items() if v is not None}) + "\n" + json.dumps(final) + "\n"
        ).encode()
        for size in (1, 7, len(body)):
            result = channel.accumulate(channel.decode([body[i : i + size] for i in range(0, len(body), size)]))
            assert result.usage == expected, (address, size)
            assert list(result.usage) == list(COUNTS) and result.complete
            assert result.to_dict()["usage"] == expected


def test_usage_holds_only_the_counts_sent_and_none_without_them() -> None:
    assert CHAT.accumulate(CHAT.decode([BODY])).usage == {"prompt_eval_count": 26, "eval_count": 2}
    assert CHAT.accumulate(CHAT.decode([BODY.rsplit(b"\n", 2)[0] + b"\n"])).usage is None


def test_the_compiled_usage_step_and_the_plan_oracle_agree() -> None:
    """``/api/generate``'s plan is compiled to typed statements; the oracle (``plan_oracle.run``)
    running the same ``usage`` step over the same events gives the same usage."""
    generate = CHANNELS["/api/generate"]
    [final] = _final_examples("/api/generate")
    partial = {**final, "eval_duration": None, "load_duration": None}  # null: not sent
    for line in (final, partial, {"model": "m", "created_at": "t", "response": "x", "done": False}):
        body = (json.dumps(line) + "\n").encode()
        compiled = generate.accumulate(generate.decode([body])).usage
        acc = Accumulator()
        plan = Plan((Step("usage", members=tuple((name, (name,)) for name in COUNTS)),))
        for event in generate.decode([body]):
            run_plan(acc, plan, event)
        assert compiled == acc.result().usage
        assert compiled == ({k: line[k] for k in COUNTS if line.get(k) is not None} or None)


#: Pieces of lines, whole chunks among them, that put ``{`` and ``}`` at line ends with
#: anything between: a line of two chunks, a chunk over two lines, braces in strings.
_PIECES = [
    b'{"model":"m","created_at":"t","done":false}',
    b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"}\\n{"},"done":false}',
    b'{"model":"m","created_at":"t",',
    b'"done":false}',
    b'{"error":"e"}',
    b"{}",
    b"{",
    b"}",
    b"}\n{",
    b"\n",
    b"\r\n",
    b" ",
    b'"x"',
    b":",
    b",",
    b"[1]",
]


@settings(max_examples=300, deadline=None)
@given(
    pieces=st.lists(st.sampled_from(_PIECES), max_size=12),
    cuts=st.lists(st.integers(0, 600), max_size=8),
)
def test_lines_decoded_at_once_equal_the_lines_classified_alone(pieces: list[bytes], cuts: list[int]) -> None:
    """Whatever the lines hold, decoding a read's lines in one call (``ndjson.Lines``) gives
    each line's own typed event, as classifying the line alone does: a line of two chunks or a
    chunk over two lines is an unknown event per line, never taken for chunks."""
    body = b"".join(pieces) + b"\n"
    lines = [line.removesuffix(b"\r").decode() for line in body.split(b"\n")[:-1]]
    alone = [CHAT.classify(ServerSentEvent("message", line, "", None)) for line in lines if line.strip()]
    reads = _reads(body, cuts)
    assert list(CHAT.decode(reads)) == alone
    assert CHAT.accumulate(CHAT.decode(reads)).to_dict() == CHAT.accumulate(alone).to_dict()


#: Lines that send the members closing a stream (``done_reason``, the counts) or not, null,
#: under an escaped key, beside members the spec does not list: where the midstream class
#: (``codemodel/midstream.py``) refuses a line and where it takes it.
_CLOSING_LINES = [
    b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"a"},"done":false}',
    b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"","thinking":"b"},"done":false}',
    b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"c"},"done":false,"done_reason":null}',
    b'{"model":"m","created_at":"t","message":{"role":"assistant","content":"d"},"done":false,"eval_count":3}',
    b'{"model":"m","created_at":"t","done":false,"done\\u005freason":"length","total_duration":null}',
    b'{"model":"m","created_at":"t","done":false,"load_duration":7,"x-unlisted":{"done_reason":"no"}}',
    b'{"model":"m","created_at":"t","done":true,"done_reason":"stop","prompt_eval_count":2,"eval_duration":9}',
    b'{"model":"m","created_at":"t","message":{"role":"assistant","tool_calls":[{"function":'
    b'{"name":"f","arguments":{"a":1}}}]},"done":false}',
    b'{"model":"m","created_at":"t","done":false,"eval_count":"many"}',
    b'{"error":"e"}',
]


@settings(max_examples=200, deadline=None)
@given(
    lines=st.lists(st.sampled_from(_CLOSING_LINES), max_size=12),
    cuts=st.lists(st.integers(0, 1500), max_size=8),
)
def test_closing_members_on_any_line_assemble_as_each_line_alone(lines: list[bytes], cuts: list[int]) -> None:
    """``accumulate`` decodes a read's lines as midstream events first (none sending a member
    that closes the stream), and as ``ChatChunk`` when a line sends one: whichever lines send
    them, null or escaped, the result is that of each line classified and applied alone."""
    body = b"".join(line + b"\n" for line in lines)
    alone = [CHAT.classify(ServerSentEvent("message", line.decode(), "", None)) for line in lines]
    reads = _reads(body, cuts)
    assert list(CHAT.decode(reads)) == alone
    assert CHAT.accumulate(CHAT.decode(reads)).to_dict() == CHAT.accumulate(alone).to_dict()


def test_midstream_events_are_applied_only_and_decode_gives_the_message_class() -> None:
    """The midstream class is what ``classify_values`` gives for events applied and not
    handed on (``every_usage=False``); with a closing member sent (even ``null``) or a member
    the spec does not list, or for events handed on, the lines decode as ``ChatChunk``;
    ``decode`` gives ``ChatChunk`` exactly."""
    from generated._runtime.ndjson import Lines
    from generated.ollama import channels

    middle = b"".join(line + b"\n" for line in _CLOSING_LINES[:2])
    null = middle + _CLOSING_LINES[2] + b"\n"
    unlisted = middle + b'{"model":"m","created_at":"t","done":false,"x-unlisted":1}\n'
    closing = null + _CLOSING_LINES[6] + b"\n"
    values = channels.classify_values_api_chat
    assert {type(e).__name__ for e in values(Lines(middle, 2), False) or ()} == {"_MidstreamChatChunk"}
    assert {type(e) for e in values(Lines(middle, 2), True) or ()} == {ollama.ChatChunk}
    for refused in (Lines(null, 3), Lines(unlisted, 3), Lines(closing, 4)):
        assert {type(e) for e in values(refused, False) or ()} == {ollama.ChatChunk}
    assert {type(e) for e in CHAT.decode([closing])} == {ollama.ChatChunk}
    result = CHAT.accumulate(CHAT.decode([closing]))
    assert (result.texts["text"], result.stop_reason, result.complete) == ("ac", "stop", True)


def test_a_run_of_many_lines_leaves_its_text_parts_joined() -> None:
    """After a run of more than ``COMPACT_RUN`` events applied at once (an NDJSON read's lines),
    each text's parts are joined into a block while they are in the CPU caches: a body of
    3 * ``COMPACT_RUN`` lines read whole leaves fewer than ``COMPACT_RUN`` parts, and the text
    is what the lines sent."""
    from generated._runtime.stream_reader import COMPACT_RUN

    words = [f" w{i}" for i in range(3 * COMPACT_RUN)]
    body = b"".join(
        json.dumps(
            {"model": "m", "created_at": "t", "message": {"role": "assistant", "content": word}, "done": False}
        ).encode()
        + b"\n"
        for word in words
    )
    stream = CHAT.decode([body])
    acc = CHAT.reader.new_accumulator()
    CHAT.reader.apply_reads(acc, stream.batches(joined=True), stream.classifier)
    parts = acc.texts["text"]
    assert len(parts) < COMPACT_RUN
    assert "".join(parts) == "".join(words)
    assert CHAT.accumulate(CHAT.decode([body])).texts["text"] == "".join(words)
