"""A payload clearly a chat chunk by its shape decodes leniently as the chunk (issue 34 item 4).

AI21's chunks carry only ``id`` and ``choices`` (and ``usage`` on the last), without ``object``,
``created`` or ``model``: fewer than half of ``ChatCompletionChunk``'s required members, so every
chunk used to become an ``UnknownEvent`` while the openai SDK assembles the text and usage. Now a
payload whose ``choices`` elements hold ``delta`` or ``index`` is a chunk; each missing envelope
member is reported ``member_off_spec`` (once per stream: every chunk lacks the same ones).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from helpers.flavours import package

from ssegen.runtime.lenient import lenient_decode

PROVIDERS = ["deepseek", "mistral", "xerotier"]
FLAVOURS = ["msgspec", "pydantic"]

AI21 = [
    {"id": "chat-1", "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]},
    {"id": "chat-1", "choices": [{"index": 0, "delta": {"content": "Hello"}, "finish_reason": None}]},
    {
        "id": "chat-1",
        "choices": [{"index": 0, "delta": {"content": " world"}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    },
]
MISSING = [{"kind": "member_off_spec", "pointer": p, "got": None} for p in ("/object", "/created", "/model")]


def _result(provider: str, flavour: str, chunks: list[dict[str, Any]]) -> dict[str, Any]:
    channel = package(provider, flavour).CHANNELS["/chat/completions"]
    body = ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()
    result: dict[str, Any] = channel.accumulate(channel.decode([body])).to_dict()
    return result


@pytest.mark.parametrize("flavour", FLAVOURS)
@pytest.mark.parametrize("provider", PROVIDERS)
def test_chunks_without_object_created_and_model_assemble_as_chunks(provider: str, flavour: str) -> None:
    result = _result(provider, flavour, AI21)
    [choice] = result["choices"]
    assert (choice["content"], choice["finish_reason"]) == ("Hello world", "stop")
    assert result["usage"] == AI21[-1]["usage"] and result["id"] == "chat-1" and result["complete"]
    assert result["errors"] == MISSING


@pytest.mark.parametrize("flavour", FLAVOURS)
def test_each_decoded_chunk_keeps_the_missing_members_as_off_spec(flavour: str) -> None:
    channel = package("deepseek", flavour).CHANNELS["/chat/completions"]
    event = channel.parse(json.dumps(AI21[1]))
    assert type(event).__name__ == "ChatCompletionChunk"
    assert event.off_spec == {"/object": None, "/created": None, "/model": None}
    assert event.choices[0].delta.content == "Hello"


def test_an_object_whose_choices_are_not_chunk_choices_stays_unknown() -> None:
    channel = package("deepseek", "msgspec").CHANNELS["/chat/completions"]
    for data in ({"id": "x", "choices": [{"text": "hi"}]}, {"id": "x", "choices": []}, {"id": "x", "choices": "no"}):
        assert type(channel.parse(json.dumps(data))).__name__ == "UnknownEvent", data


def test_shape_is_read_only_for_a_required_array_member() -> None:
    """``lenient_decode`` directly: the shape of a required array of objects makes the class."""
    models = package("deepseek", "msgspec").models
    chunk = lenient_decode(json.dumps({"choices": [{"delta": {"content": "x"}}]}), [models.ChatCompletionChunk])
    assert chunk is not None and chunk.choices[0].delta.content == "x"
    assert set(chunk.off_spec) == {"/id", "/object", "/created", "/model", "/choices/0/index"}
