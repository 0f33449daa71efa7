"""The generated packages decode and assemble real streams (specs/deepseek/ and specs/mistral/)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from conftest import sse_body
from hypothesis import given, settings
from hypothesis import strategies as st

from generated.deepseek import CHANNELS as DEEPSEEK
from generated.deepseek import StreamTruncated, UnknownEvent, sse
from generated.deepseek import models as ds_models
from generated.mistral import CHANNELS as MISTRAL
from generated.mistral import models as ms_models
from ssegen.runtime.accumulate import ChoiceState
from ssegen.runtime.usage import usage_as_sent

HELLO = "Hello! How can I assist you today?"


def _chunk(delta: dict[str, object], finish: str | None = None, **extra: object) -> str:
    return json.dumps(
        {
            "id": "c1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            **extra,
        }
    )


def test_deepseek_docs_stream_assembles_to_its_text(deepseek_docs_stream: bytes) -> None:
    chat = DEEPSEEK["/chat/completions"]
    events = list(chat.decode([deepseek_docs_stream]))
    assert [type(e).__name__ for e in events] == ["ChatCompletionChunk"] * 11 + ["StreamDone"]
    result = chat.accumulate(events)
    assert result.choices[0].content == HELLO
    assert result.choices[0].finish_reason == "stop"
    assert result.usage == {"completion_tokens": 9, "prompt_tokens": 17, "total_tokens": 26}
    assert result.complete and result.errors == []


def test_every_byte_split_of_the_docs_stream_gives_the_same_events(deepseek_docs_stream: bytes) -> None:
    chat = DEEPSEEK["/chat/completions"]
    whole = list(chat.decode([deepseek_docs_stream]))
    for cut in range(len(deepseek_docs_stream) + 1):
        parts = [deepseek_docs_stream[:cut], deepseek_docs_stream[cut:]]
        assert list(chat.decode(parts)) == whole
    one_byte = [deepseek_docs_stream[i : i + 1] for i in range(len(deepseek_docs_stream))]
    assert list(chat.decode(one_byte)) == whole


def test_crlf_and_cr_line_ends_give_the_same_result(deepseek_docs_stream: bytes) -> None:
    chat = DEEPSEEK["/chat/completions"]
    expected = chat.accumulate(chat.decode([deepseek_docs_stream])).to_dict()
    for end in (b"\r\n", b"\r"):
        body = deepseek_docs_stream.replace(b"\n", end)
        assert chat.accumulate(chat.decode([body[i : i + 3] for i in range(0, len(body), 3)])).to_dict() == expected


def test_async_decode_matches_sync(deepseek_docs_stream: bytes) -> None:
    chat = DEEPSEEK["/chat/completions"]

    async def reads() -> AsyncIterator[bytes]:
        for i in range(0, len(deepseek_docs_stream), 11):
            yield deepseek_docs_stream[i : i + 11]

    async def run() -> object:
        return (await chat.aaccumulate(chat.adecode(reads()))).to_dict()

    assert asyncio.run(run()) == chat.accumulate(chat.decode([deepseek_docs_stream])).to_dict()


def test_reasoning_content_is_assembled_apart_from_content() -> None:
    chat = DEEPSEEK["/chat/completions"]
    body = sse_body(
        [
            _chunk({"role": "assistant", "reasoning_content": "Let me "}),
            _chunk({"reasoning_content": "think."}),
            _chunk({"content": "42"}),
            _chunk({}, "stop"),
            "[DONE]",
        ]
    )
    choice = chat.accumulate(chat.decode([body])).choices[0]
    assert (choice.reasoning_content, choice.content, choice.finish_reason) == ("Let me think.", "42", "stop")


def test_parallel_tool_calls_are_merged_by_index() -> None:
    body = sse_body(
        [
            _chunk(
                {
                    "role": "assistant",
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_a",
                            "type": "function",
                            "function": {"name": "get_weather", "arguments": ""},
                        },
                        {
                            "index": 1,
                            "id": "call_b",
                            "type": "function",
                            "function": {"name": "get_time", "arguments": '{"tz":'},
                        },
                    ],
                }
            ),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city":'}}]}),
            _chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"UTC"}'}}]}),
            _chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}),
            _chunk({}, "tool_calls"),
            "[DONE]",
        ]
    )
    for chat in (MISTRAL["/chat/completions"], DEEPSEEK["/chat/completions"]):  # typed and untyped items
        calls = chat.accumulate(chat.decode([body])).to_dict()["choices"][0]["tool_calls"]
        assert calls == [
            {
                "index": 0,
                "id": "call_a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            },
            {
                "index": 1,
                "id": "call_b",
                "type": "function",
                "function": {"name": "get_time", "arguments": '{"tz":"UTC"}'},
            },
        ]


_ANY_JSON = st.sampled_from([None, True, 1, -1, 1.5, "", "x", "y", [], {}])
_FUNCTION = st.one_of(_ANY_JSON, st.dictionaries(st.sampled_from(["name", "arguments", "other"]), _ANY_JSON))
_FRAGMENT = st.one_of(
    _ANY_JSON,
    st.fixed_dictionaries(
        {},
        optional={
            "index": st.one_of(st.integers(0, 1), st.integers(0, 1), _ANY_JSON),
            "id": _ANY_JSON,
            "type": _ANY_JSON,
            "function": _FUNCTION,
        },
    ),
)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(_FRAGMENT, max_size=4), max_size=8))
def test_untyped_tool_call_fragments_merge_as_add_tool_call(deltas: list[list[Any]]) -> None:
    """Plain-data fragments (DeepSeek's untyped ``tool_calls`` items) merge exactly
    as the typed path does, any member missing or of another type being None, each
    fragment's place in its delta's list its ``position``."""
    fast, reference = ChoiceState(0, False), ChoiceState(0, False)
    for fragments in deltas:
        fast.add_tool_calls_data(fragments)
        for position, fragment in enumerate(fragments):
            if not isinstance(fragment, dict):
                continue
            index = fragment.get("index")
            function = fragment.get("function")
            function = function if isinstance(function, dict) else {}
            reference.add_tool_call(
                index if type(index) is int else None,
                _text(fragment.get("id")),
                _text(fragment.get("type")),
                _text(function.get("name")),
                _text(function.get("arguments")),
                position,
            )
    assert fast.result() == reference.result()


def test_mistral_usage_only_chunk_is_its_own_message() -> None:
    chat = MISTRAL["/chat/completions"]
    usage = {"prompt_tokens": 14, "completion_tokens": 22, "total_tokens": 36}
    body = sse_body(
        [
            _chunk({"content": " Paris"}),
            _chunk({}, "stop"),
            json.dumps(
                {
                    "id": "c1",
                    "object": "chat.completion.chunk",
                    "created": 1,
                    "model": "m",
                    "choices": [],
                    "usage": usage,
                }
            ),
            "[DONE]",
        ]
    )
    events = list(chat.decode([body]))
    assert [type(e) for e in events] == [
        ms_models.ChatCompletionChunk,
        ms_models.ChatCompletionChunk,
        ms_models.ChatCompletionUsageChunk,
        ms_models.StreamDone,
    ]
    result = chat.accumulate(events)
    assert result.usage == usage and result.choices[0].content == " Paris" and result.complete


def test_unknown_fields_and_finish_reasons_are_accepted() -> None:
    chat = MISTRAL["/chat/completions"]
    event = chat.parse(_chunk({"content": "x", "brand_new": 1}, "model_invented_this", extra_top={"a": 1}))
    assert isinstance(event, ms_models.ChatCompletionChunk)
    assert event.choices[0].finish_reason == "model_invented_this"


def test_payload_matching_no_message_is_kept_as_unknown_event() -> None:
    chat = DEEPSEEK["/chat/completions"]
    body = sse_body(["not json at all", json.dumps({"object": "something.else"}), "[DONE]"])
    events = list(chat.decode([body]))
    assert [type(e) for e in events] == [UnknownEvent, UnknownEvent, ds_models.StreamDone]
    assert events[0].data == "not json at all" and "malformed" in events[0].reason  # type: ignore[union-attr]
    result = chat.accumulate(events)
    assert [e["data"] for e in result.errors] == ["not json at all", '{"object": "something.else"}']


def test_event_with_another_sse_event_type_is_unknown_not_dropped() -> None:
    chat = DEEPSEEK["/chat/completions"]
    event = chat.parse('{"error": {"message": "boom"}}', event="error")
    assert isinstance(event, UnknownEvent) and event.event == "error"


def test_unterminated_last_event_is_discarded_and_reported(deepseek_docs_stream: bytes) -> None:
    chat = DEEPSEEK["/chat/completions"]
    truncated = deepseek_docs_stream[: deepseek_docs_stream.rindex(b"data: [DONE]")] + b'data: {"choi'
    stream = chat.decode([truncated])
    result = chat.accumulate(stream)
    assert stream.incomplete and not result.complete
    assert [e["kind"] for e in result.errors] == ["truncated"]
    assert result.choices[0].content == HELLO


def test_truncation_travels_with_the_events_so_a_collected_list_reports_it(deepseek_docs_stream: bytes) -> None:
    chat = DEEPSEEK["/chat/completions"]
    truncated = deepseek_docs_stream[: deepseek_docs_stream.rindex(b"data: [DONE]")] + b'data: {"choi'
    events = list(chat.decode([truncated[:100], truncated[100:]]))
    assert events[-1] == StreamTruncated(bytes_consumed=len(truncated), bytes_discarded=len(b'data: {"choi'))
    result = chat.accumulate(events)
    assert [e["kind"] for e in result.errors] == ["truncated"]
    assert (result.errors[0]["bytes"], result.errors[0]["bytes_discarded"]) == (len(truncated), 12)
    assert not result.complete and result.choices[0].content == HELLO

    async def reads() -> AsyncIterator[bytes]:
        yield truncated

    async def collect() -> list[Any]:
        return [event async for event in chat.adecode(reads())]

    assert asyncio.run(collect())[-1] == events[-1]


def test_complete_stream_ends_without_a_truncation_event(deepseek_docs_stream: bytes) -> None:
    events = list(DEEPSEEK["/chat/completions"].decode([deepseek_docs_stream]))
    assert isinstance(events[-1], ds_models.StreamDone)


def test_fim_channel_assembles_text_deltas() -> None:
    fim = DEEPSEEK["/beta/completions"]
    chunk = {"id": "f", "object": "text_completion", "created": 1, "model": "deepseek-chat"}
    body = sse_body(
        [
            json.dumps({**chunk, "choices": [{"index": 0, "text": "    return", "finish_reason": None}]}),
            json.dumps({**chunk, "choices": [{"index": 0, "text": " a + b", "finish_reason": "stop"}]}),
            "[DONE]",
        ]
    )
    result = fim.accumulate(fim.decode([body]))
    assert result.choices[0].content == "    return a + b" and result.choices[0].finish_reason == "stop"


def test_generated_package_imports_only_msgspec_and_stdlib() -> None:
    """Only msgspec and the standard library; httpx too in the streaming client's HTTP modules
    (``_runtime/client.py``, ``_runtime/client_stream.py``: issue 33), and nowhere else. The
    conformance tests and the checks they share (``_conformance.py``, which imports
    jsonschema) are test code: no package or runtime module imports them."""
    import ast
    import sys

    from conftest import GENERATED

    client = {GENERATED / "_runtime" / name for name in ("client.py", "client_stream.py")}
    for path in GENERATED.rglob("*.py"):
        if path.name.startswith("test_") or path.name == "_conformance.py":
            continue
        allowed = set(sys.stdlib_module_names) | {"msgspec"} | ({"httpx"} if path in client else set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                roots = {node.module.split(".")[0]}
            else:
                continue
            assert roots <= allowed, f"{path}: imports {roots - allowed}"


def test_a_whole_body_is_one_run_up_to_the_terminator() -> None:
    """A body read at once (one run of plain events ending with ``[DONE]``) is
    classified as a run up to the terminator; only the terminator alone (issue 17:
    the whole run was classified event by event)."""
    from ssegen.runtime.stream import Channel, Classifier

    chat = DEEPSEEK["/chat/completions"]
    alone: list[str] = []

    def classify(event: Any) -> Any:
        alone.append(event.data)
        return chat.classify(event)

    counted = Channel(chat.address, chat.messages, Classifier(classify, chat.classifier.values), chat.runs)
    deltas = ["Hel", "lo", "!"]
    body = sse_body([_chunk({"content": t}) for t in deltas] + [_chunk({}, "stop"), "[DONE]"])
    events = list(counted.decode([body]))
    assert [type(e) for e in events] == [ds_models.ChatCompletionChunk] * 4 + [ds_models.StreamDone]
    assert alone == ["[DONE]"]
    result = counted.accumulate(counted.decode([body]))
    assert (result.choices[0].content, result.complete, alone) == ("Hello!", True, ["[DONE]", "[DONE]"])
    # A literal first, or events after it: those are classified alone too.
    alone.clear()
    body = sse_body(["[DONE]", _chunk({"content": "a"}), "[DONE]", _chunk({"content": "b"})])
    assert [type(e) for e in counted.decode([body])] == [ds_models.StreamDone, ds_models.ChatCompletionChunk] * 2
    assert len(alone) == 4


def test_long_streams_are_compacted_without_changing_the_text() -> None:
    from ssegen.runtime.accumulate import COMPACT_PARTS

    chat = DEEPSEEK["/chat/completions"]
    tokens = [f"t{i} " for i in range(3 * COMPACT_PARTS + 17)]
    body = sse_body([_chunk({"content": t}) for t in tokens] + [_chunk({}, "stop"), "[DONE]"])
    reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
    expected = "".join(tokens)
    assert chat.accumulate(chat.decode(reads)).choices[0].content == expected  # batched path
    assert chat.accumulate(list(chat.decode(reads))).choices[0].content == expected  # event-by-event path

    async def run() -> str | None:
        async def chunks() -> AsyncIterator[bytes]:
            for read in reads:
                yield read

        return (await chat.aaccumulate(chat.adecode(chunks()))).choices[0].content

    assert asyncio.run(run()) == expected


def test_compaction_bounds_text_and_argument_parts_and_joins_each_block_once() -> None:
    from ssegen.runtime.accumulate import COMPACT_PARTS, Accumulator

    acc = Accumulator()
    state = acc.choice(0)
    pieces = [str(i) for i in range(5 * COMPACT_PARTS)]
    for i, piece in enumerate(pieces):
        state.content.append(piece)
        state.add_tool_calls_data([{"index": 0, "id": "c", "type": "function",
                                    "function": {"name": "f", "arguments": piece}}])  # fmt: skip
        if i % 500 == 0:
            acc.compact()
            assert len(state.content) <= 2 * COMPACT_PARTS
            assert len(state.tool_calls[0].arguments) <= 2 * COMPACT_PARTS
    first_block = state.content[0]
    assert len(first_block) > COMPACT_PARTS  # joined parts
    acc.compact()
    assert state.content[0] is first_block  # an earlier block is not copied again
    choice = acc.result().choices[0]
    assert choice.content == "".join(pieces)
    assert choice.tool_calls[0].function["arguments"] == "".join(pieces)


def test_sync_and_async_accumulation_compact_as_they_go(monkeypatch: Any) -> None:
    """Both paths compact every COMPACT_PARTS events, not only at the end (memory
    follows the text, not the number of deltas)."""
    from generated._runtime import accumulate  # the runtime the channel runs on

    calls: list[int] = []
    compact = accumulate.Accumulator.compact

    def counting(self: Any) -> None:
        calls.append(1)
        compact(self)

    monkeypatch.setattr(accumulate.Accumulator, "compact", counting)
    chat = DEEPSEEK["/chat/completions"]
    tokens = [f"t{i} " for i in range(3 * accumulate.COMPACT_PARTS)]
    body = sse_body([_chunk({"content": t}) for t in tokens] + [_chunk({}, "stop"), "[DONE]"])
    reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]

    assert chat.accumulate(chat.decode(reads)).choices[0].content == "".join(tokens)
    assert len(calls) == 2

    async def run() -> str | None:
        async def chunks() -> AsyncIterator[bytes]:
            for read in reads:
                yield read

        return (await chat.aaccumulate(chat.adecode(chunks()))).choices[0].content

    calls.clear()
    assert asyncio.run(run()) == "".join(tokens)
    assert len(calls) == 2


USAGE_AS_SENT = {
    "prompt_tokens": 14,
    "completion_tokens": 31,
    "total_tokens": 45,
    "prompt_cache_hit_tokens": 0,
    "prompt_tokens_details": {"cached_tokens": 0},
    "queue_time": 0.04,
}


def test_usage_members_the_spec_does_not_list_are_kept_on_every_path() -> None:
    chat = DEEPSEEK["/chat/completions"]
    body = sse_body([_chunk({"content": "Hi"}), _chunk({}, "stop", usage=USAGE_AS_SENT), "[DONE]"])
    assert chat.accumulate(chat.decode([body])).usage == USAGE_AS_SENT  # runs decoded at once
    one_by_one = [body[i : i + 1] for i in range(len(body))]
    assert chat.accumulate(list(chat.decode(one_by_one))).usage == USAGE_AS_SENT
    event = chat.parse(_chunk({}, "stop", usage=USAGE_AS_SENT))
    assert isinstance(event, ds_models.ChatCompletionChunk) and event.usage is not None
    assert event.usage.prompt_tokens == 14 and usage_as_sent(event.usage) == USAGE_AS_SENT
    assert chat.accumulate([event]).to_dict()["usage"] == USAGE_AS_SENT


def test_usage_built_by_hand_is_recorded_from_its_typed_members() -> None:
    chat = DEEPSEEK["/chat/completions"]
    usage = ds_models.ChatCompletionUsage(prompt_tokens=1, completion_tokens=2, total_tokens=3)
    chunk = ds_models.ChatCompletionChunk(id="c", object="chat.completion.chunk", created=1, model="m", choices=[])
    chunk.usage = usage
    assert usage_as_sent(usage) is None
    assert chat.accumulate([chunk]).usage == {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}


def test_an_error_inside_an_ordinary_chunk_is_an_error_and_its_content_still_counts() -> None:
    chat = DEEPSEEK["/chat/completions"]
    error = {"code": 400, "message": "Token limit reached"}
    body = sse_body([_chunk({"content": "We need"}), _chunk({"content": "!"}, error=error), "[DONE]"])
    result = chat.accumulate(chat.decode([body]))
    assert result.errors == [{"kind": "error_in_chunk", "message": "Token limit reached", "code": 400, "data": error}]
    assert result.complete and result.choices[0].content == "We need!"
    cut = sse_body([_chunk({"content": "We need"}, error=error)])
    assert not chat.accumulate(chat.decode([cut])).complete


def test_an_unlisted_error_event_is_recorded_as_an_error_with_its_json() -> None:
    chat = DEEPSEEK["/chat/completions"]
    error = {"error": {"message": "Tool call validation failed", "code": "tool_use_failed"}}
    body = b"event: error\ndata: " + json.dumps(error).encode() + b"\n\n" + sse_body([json.dumps(error)])
    result = chat.accumulate(list(chat.decode([body])))
    assert [(e["kind"], e["event"], e["data"]) for e in result.errors] == [
        ("error_event", "error", error),
        ("error_event", "message", error),
    ]


def test_list_content_parts_go_to_content_and_reasoning_and_other_parts_are_kept() -> None:
    """Mistral's Magistral models stream ``thinking`` then ``text`` parts
    (../shared/corpus/streams/mi_vercel_magistral_reasoning.sse)."""
    state = ChoiceState(0, False)
    thinking = {"type": "thinking", "thinking": [{"type": "text", "text": "2+2"}, {"type": "text", "text": "=4."}]}
    state.add_content([thinking])
    state.add_content([{"type": "text", "text": "2 + 2"}, {"type": "image_url", "image_url": "u"}])
    state.add_content(" = 4")
    state.add_content([ds_models.ChatCompletionDelta(content="!")])  # a typed part without `type`: kept
    state.add_content(None)
    result = state.result()
    assert (result.content, result.reasoning_content) == ("2 + 2 = 4", "2+2=4.")
    assert result.content_parts == [{"type": "image_url", "image_url": "u"}, {"content": "!"}]


def test_batches_hand_the_reads_on_once_and_a_started_stream_accumulates_what_is_left() -> None:
    """``EventStream.batches()`` is what ``accumulate`` reads (no private state): the reads'
    items undecoded, once; a stream already being iterated refuses it, and ``accumulate`` of
    such a stream assembles the events not yet taken (issue 26)."""
    chat = DEEPSEEK["/chat/completions"]
    body = sse_body([_chunk({"content": t}) for t in ("Hel", "lo", "!")] + [_chunk({}, "stop"), "[DONE]"])
    stream = chat.decode([body[:40], body[40:]])
    assert not stream.started
    items = [item for batch in stream.batches() for item in batch]
    assert stream.started and [e.data for e in sse.expand(items)][-1] == "[DONE]"
    with pytest.raises(RuntimeError, match="already being read"):
        stream.batches()
    stream = chat.decode([body])
    first = next(stream)
    assert isinstance(first, ds_models.ChatCompletionChunk) and first.choices[0].delta.content == "Hel"
    with pytest.raises(RuntimeError, match="already being read"):
        stream.batches()
    result = chat.accumulate(stream)
    assert (result.choices[0].content, result.complete) == ("lo!", True)
