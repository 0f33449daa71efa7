"""Usage kept as sent when a run of events is decoded at once (README "usage as sent").

``Channel.accumulate`` decodes each read's run of plain ``data:`` events at once and, where the
message's plan replaces the usage (the last object sent wins: the chat and gemini plans), keeps
the object as sent for the run's last chunk that sends one only (``usage.keep_last_usage``); the
events ``decode`` hands on keep every one. Both must give what the raw JSON says, whatever the
reads: the expectations below come from the payloads, not from ssegen."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from generated.deepseek import CHANNELS as DEEPSEEK
from generated.gemini import CHANNELS as GEMINI
from generated.gemini import models
from ssegen.runtime.usage import keep_last_usage, usage_as_sent

GEMINI_CHANNEL = GEMINI["/models/{model}:streamGenerateContent"]
CHAT = DEEPSEEK["/chat/completions"]
READ_SIZES = [1, 7, 4096, 0]  # 0: the whole body in one read


def _body(payloads: list[Any]) -> bytes:
    return b"".join(
        b"data: " + (p if isinstance(p, str) else json.dumps(p, separators=(",", ":"))).encode() + b"\n\n"
        for p in payloads
    )


def _reads(body: bytes, size: int) -> list[bytes]:
    return [body] if size == 0 else [body[i : i + size] for i in range(0, len(body), size)]


def _gemini_chunk(i: int, usage: bool = True) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "candidates": [{"content": {"parts": [{"text": f"w{i} "}], "role": "model"}, "index": 0}],
        "modelVersion": "gemini-2.5-flash",
        "responseId": "r-1",
    }
    if usage:
        chunk["usageMetadata"] = {
            "promptTokenCount": 5,
            "candidatesTokenCount": i + 1,
            "totalTokenCount": 6 + i,
            "serviceTier": "standard",
            "billingDetails": {"units": i, "tier": "free"},  # no schema lists it: kept as sent only
        }
    return chunk


@pytest.mark.parametrize("size", READ_SIZES)
@pytest.mark.parametrize("last_with_usage", [11, 6, 0])
def test_gemini_usage_is_the_last_sent_whatever_the_reads(size: int, last_with_usage: int) -> None:
    chunks = [_gemini_chunk(i, usage=i <= last_with_usage) for i in range(12)]
    body = _body(chunks)
    expected = chunks[last_with_usage]["usageMetadata"]

    result = GEMINI_CHANNEL.accumulate(GEMINI_CHANNEL.decode(_reads(body, size)))

    assert result.usage == expected
    assert result.choices[0].content == "".join(f"w{i} " for i in range(12))


@pytest.mark.parametrize("size", READ_SIZES)
def test_every_gemini_event_decode_hands_on_keeps_its_usage_as_sent(size: int) -> None:
    chunks = [_gemini_chunk(i) for i in range(12)]

    events = list(GEMINI_CHANNEL.decode(_reads(_body(chunks), size)))

    assert [usage_as_sent(e.usage_metadata) for e in events] == [c["usageMetadata"] for c in chunks]
    assert GEMINI_CHANNEL.accumulate(events).usage == chunks[-1]["usageMetadata"]


def _chat_chunk(content: str, usage: dict[str, Any] | None = None) -> dict[str, Any]:
    chunk: dict[str, Any] = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "m",
        "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}],
    }
    if usage is not None:
        chunk["usage"] = usage
    return chunk


@pytest.mark.parametrize("size", READ_SIZES)
def test_chat_usage_sent_before_later_chunks_of_the_same_run_is_kept_as_sent(size: int) -> None:
    usage = {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5, "prompt_cache_hit_tokens": 1}
    body = _body([_chat_chunk("a"), _chat_chunk("b", usage), _chat_chunk("c"), _chat_chunk("d"), "[DONE]"])

    result = CHAT.accumulate(CHAT.decode(_reads(body, size)))

    assert result.usage == usage
    assert (result.choices[0].content, result.complete) == ("abcd", True)


def test_keep_last_usage_keeps_the_last_chunk_sending_one_only() -> None:
    values = [json.dumps(_gemini_chunk(i, usage=i < 2)).encode() for i in range(3)]
    # As the batch decoder's typed decoding gives them: nothing kept yet.
    chunks = [msgspec.json.decode(v, type=models.GenerateContentResponse) for v in values]

    keep_last_usage(chunks, values, "usage_metadata:usageMetadata")

    assert usage_as_sent(chunks[0].usage_metadata) is None
    assert usage_as_sent(chunks[1].usage_metadata) == _gemini_chunk(1)["usageMetadata"]
    keep_last_usage([], [], "usage_metadata:usageMetadata")  # an empty run: nothing to keep


def test_the_usage_as_sent_is_held_beside_the_typed_members_not_among_them() -> None:
    (event,) = GEMINI_CHANNEL.decode([_body([_gemini_chunk(3)])])
    usage = event.usage_metadata
    assert usage_as_sent(usage) == _gemini_chunk(3)["usageMetadata"]
    alone = msgspec.json.decode(json.dumps(_gemini_chunk(3)), type=models.GenerateContentResponse)
    # Not a member: not encoded, compared or shown, and no per-instance __dict__ is built.
    assert usage == alone.usage_metadata and repr(usage) == repr(alone.usage_metadata)
    assert msgspec.json.encode(usage) == msgspec.json.encode(alone.usage_metadata)
    # The channel's encoder writes the usage as sent, the members no schema lists included.
    assert json.loads(GEMINI_CHANNEL.encode(event)[len(b"data: ") :]) == _gemini_chunk(3)
    assert not hasattr(usage, "__dict__") and usage_as_sent(alone.usage_metadata) is None
