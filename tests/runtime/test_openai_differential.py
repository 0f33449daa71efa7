"""Differential test against the openai SDK's own stream classes.

For the OpenAI-compatible chat channels (DeepSeek, Mistral, Xerotier, Siliconstorm
``/chat/completions``) the same bytes go (a) through ``openai.OpenAI(...).chat.completions
.create(..., stream=True)`` over a mock transport (so the SDK's ``Stream`` parses the SSE
and builds ``ChatCompletionChunk`` objects exactly as against the real API), accumulated
here the usual way (``delta.content`` / reasoning / refusal concatenated per choice index,
``tool_calls`` merged by index with ``arguments`` concatenated, last ``finish_reason``, last
``usage``), and (b) through the generated decoder and accumulator.  Content, reasoning,
refusal, tool calls, finish reasons, usage, id and model must agree.

Where the SDK keeps a stream differently, the difference is asserted as such and only
those fields are skipped:

* an ``event: error`` frame (or any ``data`` with an ``error`` member): the SDK raises
  ``openai.APIError`` with the error message; the generated accumulator records it in
  ``errors`` (kind ``error_event``) and goes on; the test asserts the same message and
  compares what came before the error;
* a vendor event (``event: x_chat.metadata``): the SDK ignores the event type and yields
  the payload as a ``ChatCompletionChunk`` built without validation (no ``choices``,
  ``object`` unset); the generated channel keeps it in ``vendor_events``; the test drops
  such SDK "chunks" and does not compare ``vendor_events``;
* ``[DONE]`` and a stream that ends without it: the SDK has no notion of completeness
  (``complete``), and a truncated stream is not an error for it; not compared;
* ``reasoning_content`` is not a field of the SDK's ``ChoiceDelta``; it survives as a
  pydantic extra (``delta.model_extra``) and is compared only for providers whose spec
  declares it (DeepSeek); the other generated packages drop the unknown member;
* ``tool_calls`` likewise only where the spec declares them (not MindIE/Siliconstorm); a
  tool-call delta without ``index`` (Mistral) is merged at its position in the list, as
  client code does for Mistral (the SDK keeps ``index=None``; the generated accumulator
  uses the position);
* MindIE's chunk member ``full_text`` (cumulative mode) is an extra for the SDK: the client
  reads the last one as the answer, as the generated accumulator does;
* ``usage``: the SDK's model dumps every declared field (``None`` for missing ones), the
  generated one its own spec's fields: compared with ``None`` members removed on both sides.

Both model flavours are compared: the committed msgspec packages (``generated/``) and the
same providers generated with ``model = "pydantic"`` (``helpers.flavours``).

The generated accumulator runs in plain (concatenating) mode throughout, as the SDK's
client code does; the synthetic stream carries ``role`` and ``content`` on every delta for
Siliconstorm, whose spec requires them.
"""

from __future__ import annotations

import importlib
import json
import re
from types import ModuleType
from typing import Any

import pytest
from conftest import GENERATED
from helpers.flavours import package
from helpers.packages import conformance_examples

pytestmark = pytest.mark.sdk

CHAT = "/chat/completions"
PROVIDERS = ["deepseek", "mistral", "siliconstorm", "xerotier"]


def _stream_schemas(provider: str) -> str:
    """The JSON text of the schemas the provider's streamed messages reach (its ``schemas.json``
    without the request bodies, which share its ``$defs``)."""
    document = json.loads((GENERATED / provider / "schemas.json").read_text(encoding="utf-8"))
    seen: dict[str, Any] = {}
    todo = [document["channels"]]
    while todo:
        node = todo.pop()
        for ref in re.findall(r'"\$ref": "#/\$defs/([^"]+)"', json.dumps(node)):
            if ref not in seen:
                seen[ref] = document["$defs"][ref]
                todo.append(seen[ref])
    return json.dumps([document["channels"], seen])


_SCHEMAS = {p: _stream_schemas(p) for p in PROVIDERS}
#: Providers whose spec declares the member; elsewhere the generated decoder keeps it as an unlisted
#: member (``lists``/``texts``, reported once as the information entry ``member_unlisted``).
REASONING = {p for p in PROVIDERS if "reasoning_content" in _SCHEMAS[p]}
TOOL_CALLS = {p for p in PROVIDERS if "tool_calls" in _SCHEMAS[p]}
#: MindIE (Siliconstorm) requires `role` and `content` (a string) on every delta.
FULL_DELTA = {"siliconstorm"}


def _chunk(choices: list[dict[str, Any]], **extra: Any) -> str:
    data = {
        "id": "chatcmpl-synthetic",
        "object": "chat.completion.chunk",
        "created": 1748563200,
        "model": "synthetic-1",
        "choices": choices,
        **extra,
    }
    return json.dumps(data, ensure_ascii=False, separators=(",", ":"))


def _synthetic_tool_call_and_reasoning_stream(full_delta: bool = False) -> bytes:
    """Two choices; reasoning then content on choice 0, two interleaved tool calls on choice 1.

    ``full_delta``: every delta also carries ``role`` and a string ``content`` (MindIE's spec).
    """
    fill = (lambda d: {"role": "assistant", **d, "content": d.get("content") or ""}) if full_delta else (lambda d: d)
    c0 = lambda delta, finish=None: {"index": 0, "delta": fill(delta), "finish_reason": finish}  # noqa: E731
    c1 = lambda delta, finish=None: {"index": 1, "delta": fill(delta), "finish_reason": finish}  # noqa: E731
    tc = lambda index, **f: {"index": index, **f}  # noqa: E731
    chunks = [
        _chunk([c0({"role": "assistant", "content": ""}), c1({"role": "assistant", "content": None})]),
        _chunk([c0({"reasoning_content": "Let me think"})]),
        _chunk([c0({"reasoning_content": " — step by step. "})]),
        _chunk(
            [
                c1(
                    {
                        "tool_calls": [
                            tc(0, id="call_a", type="function", function={"name": "get_weather", "arguments": ""})
                        ]
                    }
                )
            ]
        ),
        _chunk([c0({"content": "Grüße, "}), c1({"tool_calls": [tc(0, function={"arguments": '{"city": '})]})]),
        _chunk(
            [
                c1(
                    {
                        "tool_calls": [
                            tc(1, id="call_b", type="function", function={"name": "get_time", "arguments": '{"tz"'})
                        ]
                    }
                )
            ]
        ),
        _chunk([c0({"content": "世界 🎉"}), c1({"tool_calls": [tc(0, function={"arguments": '"Paris"}'})]})]),
        _chunk([c1({"tool_calls": [tc(1, function={"arguments": ': "CET"}'})]})]),
        _chunk([c0({}, "stop"), c1({}, "tool_calls")]),
        _chunk([], usage={"prompt_tokens": 10, "completion_tokens": 20, "total_tokens": 30}),
    ]
    return "".join(f"data: {c}\n\n" for c in [*chunks, "[DONE]"]).encode("utf-8")


def _streams() -> list[tuple[str, str, bytes]]:
    """(provider, stream id, body) for every differential case."""
    cases = []
    for provider in PROVIDERS:
        for sse in sorted((GENERATED / provider / "examples").glob("*.sse")):
            cases.append((provider, f"page:{sse.name}", sse.read_bytes()))
        conformance = importlib.import_module(f"generated.{provider}.test_conformance")
        examples = [e for e in conformance_examples(conformance) if e[0] == CHAT]
        examples.sort(key=lambda e: e[4] == "[DONE]")  # the terminator last, as on the wire (the SDK stops there)
        frames = "".join(("" if e[1] == "message" else f"event: {e[1]}\n") + f"data: {e[4]}\n\n" for e in examples)
        cases.append((provider, "spec-examples", frames.encode("utf-8")))
        cases.append(
            (provider, "synthetic-tools-reasoning", _synthetic_tool_call_and_reasoning_stream(provider in FULL_DELTA))
        )
    return cases


CASES = _streams()


def _sdk(openai: ModuleType, sse_mock: Any, provider: str, body: bytes) -> tuple[list[Any], Exception | None]:
    """The SDK's chunks for ``body`` served as a streamed response in 5-byte reads (the
    ``sse_mock`` fixture, ssegen's pytest plugin), and the error it raised."""
    route = sse_mock.route(package(provider, "msgspec").CHANNELS["/chat/completions"], replay=body, read_size=5)
    requests = route.requests
    client = openai.OpenAI(
        api_key="x", base_url="http://mock.invalid/v1", max_retries=0, http_client=sse_mock.client(openai)
    )
    stream = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert isinstance(stream, openai.Stream)
    chunks: list[Any] = []
    error: Exception | None = None
    try:
        for chunk in stream:
            chunks.append(chunk)
    except openai.APIError as exc:
        error = exc
    assert [r.url.path for r in requests] == ["/v1/chat/completions"]
    assert json.loads(requests[0].content)["stream"] is True
    return chunks, error


def _append(old: str | None, new: Any) -> str | None:
    return old if not isinstance(new, str) else (old or "") + new


def _sdk_accumulate(chunks: list[Any]) -> dict[str, Any]:
    """Accumulate SDK chunks the usual way."""
    result: dict[str, Any] = {"id": None, "model": None, "choices": {}, "usage": None}
    full_text = None
    for chunk in chunks:
        if chunk.object != "chat.completion.chunk":
            continue  # a vendor event the SDK turned into a bogus chunk (see module docstring)
        result["id"] = result["id"] or chunk.id
        result["model"] = result["model"] or chunk.model
        for choice in chunk.choices or []:
            state = result["choices"].setdefault(
                choice.index,
                {
                    "index": choice.index,
                    "content": None,
                    "reasoning_content": None,
                    "refusal": None,
                    "tool_calls": {},
                    "finish_reason": None,
                },
            )
            delta = choice.delta
            state["content"] = _append(state["content"], delta.content)
            state["refusal"] = _append(state["refusal"], delta.refusal)
            state["reasoning_content"] = _append(
                state["reasoning_content"], (delta.model_extra or {}).get("reasoning_content")
            )
            for position, call in enumerate(delta.tool_calls or []):
                # Mistral sends tool-call deltas without `index` (its spec makes it optional; the SDK
                # keeps None): the usual client code then falls back to the position in the list.
                index = call.index if call.index is not None else position
                merged = state["tool_calls"].setdefault(
                    index, {"index": index, "id": None, "type": None, "name": None, "arguments": ""}
                )
                merged["id"] = call.id or merged["id"]
                merged["type"] = call.type or merged["type"]
                if call.function is not None:
                    merged["name"] = call.function.name or merged["name"]
                    merged["arguments"] += call.function.arguments or ""
            if choice.finish_reason is not None:
                state["finish_reason"] = choice.finish_reason
        if chunk.usage is not None:
            result["usage"] = chunk.usage.model_dump()
        if isinstance((chunk.model_extra or {}).get("full_text"), str):
            full_text = chunk.model_extra["full_text"]
    if full_text is not None and 0 in result["choices"]:
        # MindIE's `full_text` (an extra for the SDK) is the whole answer; a client reads it
        # instead of the concatenated deltas, which repeat the text in cumulative mode.
        result["choices"][0]["content"] = full_text
    result["choices"] = [
        {**c, "tool_calls": [c["tool_calls"][i] for i in sorted(c["tool_calls"])]}
        for _, c in sorted(result["choices"].items())
    ]
    return result


def _drop_none(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _drop_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_drop_none(v) for v in value]
    return value


def _comparable(result: dict[str, Any], reasoning: bool, tools: bool = True) -> dict[str, Any]:
    """The fields both sides keep, in one shape."""
    choices = []
    for c in result["choices"]:
        calls = [
            {
                "index": t["index"],
                "id": t["id"],
                "type": t["type"],
                "name": t["name"] if "name" in t else (t.get("function") or {}).get("name"),
                "arguments": t["arguments"] if "arguments" in t else (t.get("function") or {}).get("arguments") or "",
            }
            for t in c["tool_calls"]
        ]
        choice = {k: c[k] for k in ("index", "content", "refusal", "finish_reason")}
        if tools:
            choice["tool_calls"] = calls
        if reasoning:
            choice["reasoning_content"] = c["reasoning_content"]
        choices.append(choice)
    return {"id": result["id"], "model": result["model"], "choices": choices, "usage": _drop_none(result["usage"])}


def _generated(provider: str, body: bytes, flavour: str = "msgspec") -> dict[str, Any]:
    chan = package(provider, flavour).CHANNELS[CHAT]
    return chan.accumulate(chan.decode([body[i : i + 3] for i in range(0, len(body), 3)])).to_dict()


@pytest.mark.parametrize("flavour", ["msgspec", "pydantic"])
@pytest.mark.parametrize(("provider", "name", "body"), CASES, ids=[f"{p}-{n}" for p, n, _ in CASES])
def test_sdk_and_generated_accumulate_the_same(
    provider: str, name: str, body: bytes, flavour: str, sse_mock: Any, openai_sdk: ModuleType
) -> None:
    chunks, error = _sdk(openai_sdk, sse_mock, provider, body)
    generated = _generated(provider, body, flavour)
    error_events = [e for e in generated["errors"] if e["kind"] == "error_event"]
    # Nothing but error frames (SDK: raised) may be an error for the generated side.
    information = ("error_event", "truncated", "member_unlisted")
    assert [e for e in generated["errors"] if e["kind"] not in information] == [], generated["errors"]
    if error_events:
        # The SDK stops at the first error frame and raises; the generated side records it.
        assert error is not None, f"{name}: SDK did not raise on an error frame"
        assert isinstance(error, openai_sdk.APIError)
        assert error.message == error_events[0]["data"]["error"]["message"]
        before = body[: body.index(b"event: error")] if b"event: error" in body else body
        generated = _generated(provider, before, flavour)
    else:
        assert error is None, f"{name}: SDK raised {error!r}"
    reasoning, tools = provider in REASONING, provider in TOOL_CALLS
    assert _comparable(generated, reasoning, tools) == _comparable(_sdk_accumulate(chunks), reasoning, tools), name


def test_the_cases_cover_page_streams_tool_calls_reasoning_errors_and_vendor_events() -> None:
    names = {n for _, n, _ in CASES}
    assert {
        "page:tool-call-stream-example.sse",
        "page:mid-stream-errors.sse",
        "page:chat-metadata-event-x_chatmetadata.sse",
        "page:stream-example.sse",
    } <= names
    result = _generated("deepseek", _synthetic_tool_call_and_reasoning_stream())
    assert result["errors"] == [] and result["complete"] is True
    [c0, c1] = result["choices"]
    assert c0["reasoning_content"] == "Let me think — step by step. " and c0["content"] == "Grüße, 世界 🎉"
    assert [t["function"]["arguments"] if "function" in t else t["arguments"] for t in c1["tool_calls"]] == [
        '{"city": "Paris"}',
        '{"tz": "CET"}',
    ]
    # The synthetic stream decodes without errors under every provider's spec too.
    for provider in PROVIDERS:
        body = _synthetic_tool_call_and_reasoning_stream(provider in FULL_DELTA)
        errors = _generated(provider, body)["errors"]
        # A delta member the provider's spec does not list (Siliconstorm's tool_calls) is kept and
        # reported once, as information.
        unlisted = [] if provider in TOOL_CALLS else [{"kind": "member_unlisted", "member": "tool_calls"}]
        assert [{k: e[k] for k in ("kind", "member")} for e in errors] == unlisted, provider


def test_vendor_event_is_a_bogus_chunk_for_the_sdk_and_a_vendor_event_for_the_generated_package(
    sse_mock: Any, openai_sdk: ModuleType
) -> None:
    body = (GENERATED / "xerotier" / "examples" / "chat-metadata-event-x_chatmetadata.sse").read_bytes()
    chunks, error = _sdk(openai_sdk, sse_mock, "xerotier", body)
    assert error is None and len(chunks) == 1 and chunks[0].object is None
    generated = _generated("xerotier", body)
    assert generated["choices"] == [] and len(generated["vendor_events"]) == 1
