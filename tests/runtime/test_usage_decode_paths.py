"""Usage kept as sent on every decode path (issue 34 item 1).

OpenRouter's ``/api/v1/responses`` sends no ``event:`` lines and ends with ``data: [DONE]``:
``response.completed`` is then decoded through the channel's tag table (the ``type`` member),
not by its event name. Its usage carries members no spec lists (``cost``, ``is_byok``,
``cost_details``); the result must report them whichever way the event was decoded: by its
event name one at a time or in a run of named events, through the tag table, leniently (a
payload the class refuses), by ``parse``, and from the whole body in one read. The same bytes
are fed with and without their ``event:`` lines; the expectations are the payload's usage as
written here, not anything ssegen computed.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import openai_responses as gen_responses
from ssegen.runtime.usage import usage_as_sent

RESPONSES = gen_responses.CHANNELS["/v1/responses"]
MESSAGES = gen_anthropic.CHANNELS["/v1/messages"]
READ_SIZES = [1, 7, 4096, 0]  # 0: the whole body in one read

USAGE = {
    "input_tokens": 12,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 3,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 15,
    "cost": 0.00042,
    "is_byok": False,
    "cost_details": {"upstream_inference_cost": None, "upstream_inference_input_cost": 0.0001},
}


def _response(status: str, usage: Any = None) -> dict[str, Any]:
    return {
        "id": "gen-1",
        "object": "response",
        "created_at": 1,
        "status": status,
        "model": "openai/gpt-x",
        "output": [],
        "usage": usage,
    }


def _frames(lenient: bool = False) -> list[dict[str, Any]]:
    completed: dict[str, Any] = {"type": "response.completed", "response": _response("completed", USAGE)}
    if lenient:  # a member of another type than the spec's: the class refuses the payload
        completed["response"]["created_at"] = "yesterday"
    return [
        {"type": "response.created", "response": _response("in_progress")},
        completed,
    ]


def _body(frames: list[dict[str, Any]], named: bool) -> bytes:
    out = []
    for seq, frame in enumerate(frames):
        data = json.dumps({**frame, "sequence_number": seq})
        out.append((f"event: {frame['type']}\n" if named else "") + f"data: {data}\n\n")
    if not named:
        out.append("data: [DONE]\n\n")  # OpenRouter's end of a data-only stream
    return "".join(out).encode()


def _reads(body: bytes, size: int) -> list[bytes]:
    return [body] if size == 0 else [body[i : i + size] for i in range(0, len(body), size)]


@pytest.mark.parametrize("lenient", [False, True], ids=["typed", "lenient"])
@pytest.mark.parametrize("named", [True, False], ids=["named", "data-only"])
@pytest.mark.parametrize("size", READ_SIZES)
def test_responses_usage_is_kept_as_sent_whatever_the_decode_path(size: int, named: bool, lenient: bool) -> None:
    body = _body(_frames(lenient), named)

    result = RESPONSES.accumulate(RESPONSES.decode(_reads(body, size)))
    events = list(RESPONSES.decode(_reads(body, size)))

    assert result.usage == USAGE
    assert usage_as_sent(events[1].response.usage) == USAGE
    assert RESPONSES.accumulate(events).usage == USAGE  # events handed on, then assembled


@pytest.mark.parametrize("event", ["message", "response.completed"])
def test_responses_parse_keeps_usage_as_sent_by_tag_and_by_event_name(event: str) -> None:
    data = json.dumps({**_frames()[1], "sequence_number": 1})

    parsed = RESPONSES.parse(data, event=event)

    assert usage_as_sent(parsed.response.usage) == USAGE


@pytest.mark.parametrize("named", [True, False], ids=["named", "data-only"])
def test_responses_async_decode_keeps_usage_as_sent(named: bool) -> None:
    body = _body(_frames(), named)

    async def reads() -> AsyncIterator[bytes]:
        for read in _reads(body, 7):
            yield read

    result = asyncio.run(RESPONSES.aaccumulate(RESPONSES.adecode(reads())))

    assert result.usage == USAGE


def _messages_body(named: bool) -> bytes:
    start_usage = {"input_tokens": 10, "output_tokens": 1, "service_tier": "standard", "cache_creation": {"e": 1}}
    frames = [
        {
            "type": "message_start",
            "message": {
                "id": "msg_1",
                "type": "message",
                "role": "assistant",
                "model": "claude-x",
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        },
        {
            "type": "message_delta",
            "delta": {"stop_reason": "end_turn", "stop_sequence": None},
            "usage": {"output_tokens": 5, "server_tool_use": {"web_search_requests": 2}},
        },
        {"type": "message_stop"},
    ]
    return "".join((f"event: {f['type']}\n" if named else "") + f"data: {json.dumps(f)}\n\n" for f in frames).encode()


@pytest.mark.parametrize("named", [True, False], ids=["named", "data-only"])
@pytest.mark.parametrize("size", READ_SIZES)
def test_messages_usage_members_the_spec_does_not_list_survive_a_data_only_stream(size: int, named: bool) -> None:
    """The Messages family through the same tag table: the members of ``message_start``'s and
    ``message_delta``'s usage objects that the spec does not list are in the result."""
    events = list(MESSAGES.decode(_reads(_messages_body(named), size)))

    assert usage_as_sent(events[0].message.usage)["cache_creation"] == {"e": 1}
    assert usage_as_sent(events[1].usage)["server_tool_use"] == {"web_search_requests": 2}


def _chat_body(lenient: bool) -> bytes:
    chunk = {
        "id": "c1",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": "deepseek-chat",
        "choices": [{"index": 0, "delta": {"content": "Hi"}, "finish_reason": None}],
    }
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4, "cost": 0.1, "is_byok": True}
    last = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": usage}
    if lenient:
        last["created"] = "now"
    return "".join(f"data: {json.dumps(c)}\n\n" for c in (chunk, chunk, last)).encode() + b"data: [DONE]\n\n"


@pytest.mark.parametrize("lenient", [False, True], ids=["typed", "lenient"])
@pytest.mark.parametrize("size", READ_SIZES)
def test_chat_usage_is_kept_as_sent_in_runs_one_by_one_and_leniently(size: int, lenient: bool) -> None:
    """The chat family's data-only chunks, decoded a run at once (the batch decoder) or alone."""
    chat = gen_deepseek.CHANNELS["/chat/completions"]
    expected = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4, "cost": 0.1, "is_byok": True}

    body = _chat_body(lenient)

    assert chat.accumulate(chat.decode(_reads(body, size))).usage == expected
    assert usage_as_sent(list(chat.decode(_reads(body, size)))[2].usage) == expected
