"""The streaming client's rules as pure functions (runtime ``client_retry.py``, ``client_request.py``):
which statuses and in-stream errors are retried, the backoff and ``Retry-After``, when content has
arrived, and how an operation's request is built."""

from __future__ import annotations

import dataclasses
from typing import Any

import msgspec
import pydantic
import pytest
from helpers.client_cases import CASE, CHAT, EXHAUSTED, GEMINI_OP, MESSAGES, OLLAMA_OP, OVERLOADED, RATE_LIMITED
from helpers.scripted import frames

from generated._runtime.client_request import Auth, Operation, RequestPlan, Resume, request_body
from generated._runtime.client_retry import Backoff, has_content, retryable_error, retryable_status, should_retry


def test_retryable_statuses_are_408_409_429_and_5xx() -> None:
    retried = [code for code in range(100, 600) if retryable_status(code)]
    assert retried == [408, 409, 429, *range(500, 600)]
    assert should_retry(503, {}) and not should_retry(503, {"x-should-retry": "false"})
    assert should_retry(400, {"x-should-retry": "true"}) and not should_retry(400, {"x-should-retry": "maybe"})


def test_backoff_is_full_jitter_under_a_doubling_bound_and_a_cap() -> None:
    top = Backoff(random=lambda: 0.999999)
    assert [round(top.delay(n), 3) for n in range(7)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0, 8.0]
    assert Backoff(random=lambda: 0.0).delay(3) == 0.0
    assert Backoff(random=lambda: 0.5).delay(1000) == 4.0  # no overflow past the cap


def test_retry_after_reads_milliseconds_seconds_and_dates_up_to_a_minute() -> None:
    backoff = Backoff(clock=lambda: 1445412480.0)  # Wed, 21 Oct 2015 07:28:00 GMT
    assert backoff.retry_after({"retry-after-ms": "250"}) == 0.25
    assert backoff.retry_after({"retry-after": "7"}) == 7.0
    assert backoff.retry_after({"retry-after": "Wed, 21 Oct 2015 07:28:30 GMT"}) == 30.0
    assert backoff.retry_after({"retry-after": "Wed, 21 Oct 2015 07:27:00 GMT"}) == 0.0  # past: at once
    for headers in ({}, {"retry-after": "61"}, {"retry-after": "-1"}, {"retry-after": "nan"}, {"retry-after": "x"}):
        assert backoff.retry_after(headers) is None, headers


def _data(frame: bytes) -> Any:
    return msgspec.json.decode(frame.split(b"data: ", 1)[1])


@pytest.mark.parametrize(
    ("data", "retried"),
    [
        (_data(OVERLOADED), True),
        (_data(RATE_LIMITED), True),
        (_data(EXHAUSTED), True),
        ({"error": {"message": "overloaded", "type": "server_error"}}, True),  # OpenAI chat, mid-stream
        ({"error": {"code": 502, "message": "Provider returned error"}}, True),  # OpenRouter
        ({"type": "response.failed", "response": {"error": {"code": "server_error"}}}, True),  # Responses
        ({"type": "response.failed", "response": {"error": {"code": "invalid_prompt"}}}, False),
        ({"type": "response.completed", "response": {"error": None}}, False),
        ({"type": "error", "error": {"type": "invalid_request_error"}}, False),
        ({"error": {"code": 400, "status": "INVALID_ARGUMENT"}}, False),
        ({"error": "model 'x' not found"}, False),  # Ollama
        ({"error": {"code": True}}, False),
        ("overloaded_error", False),
    ],
)
def test_in_stream_errors_retried_are_those_saying_busy_or_failing(data: Any, retried: bool) -> None:
    assert retryable_error(data) is retried


def _probe(channel: Any, events: list[bytes]) -> bool:
    acc = channel.reader.new_accumulator()
    for event in channel.decode([b"".join(events)]):
        channel.apply(acc, event)
    return has_content(acc)


def test_content_arrives_with_the_first_text_not_with_metadata_or_empty_blocks() -> None:
    messages, responses, chat = CASE["messages"], CASE["responses"], CASE["chat"]
    assert not _probe(messages.operation.channel, messages.events[:2])  # message_start, empty text block
    assert _probe(messages.operation.channel, messages.events[:3])  # its first delta
    assert not _probe(responses.operation.channel, responses.events[:3])  # created, message item, empty part
    assert _probe(responses.operation.channel, responses.events[:4])
    role_only = b'data: {"id":"1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,'
    role_only += b'"delta":{"role":"assistant","content":""}}]}\n\n'
    assert not _probe(chat.operation.channel, [role_only])
    assert _probe(chat.operation.channel, [role_only, chat.events[0]])
    tool = b'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":'
    tool += b'{"type":"tool_use","id":"t1","name":"get_weather","input":{}}}\n\n'
    assert _probe(messages.operation.channel, [messages.events[0], tool])  # a tool named is content
    assert _probe(CASE["gemini"].operation.channel, CASE["gemini"].events[:1])
    assert _probe(CASE["ollama"].operation.channel, CASE["ollama"].events[:1])


class Message(msgspec.Struct, omit_defaults=True):
    role: str
    content: str


class Body(msgspec.Struct, omit_defaults=True):
    model: str
    messages: list[Message]
    temperature: float | None = None


class PydanticBody(pydantic.BaseModel):
    model: str
    max_tokens: int = 16


@dataclasses.dataclass
class DataclassBody:
    model: str


def test_the_body_is_plain_data_with_the_stream_member_set_and_usage_asked_for() -> None:
    typed = Body("deepseek-chat", [Message("user", "Hi")])
    assert request_body(CHAT, typed) == {
        "model": "deepseek-chat",
        "messages": [{"role": "user", "content": "Hi"}],
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    assert request_body(CHAT, {"stream": False, "stream_options": {"include_usage": False}})["stream_options"] == {
        "include_usage": False
    }
    assert request_body(CHAT, {"stream_options": {"x": 1}})["stream_options"] == {"x": 1, "include_usage": True}
    assert request_body(MESSAGES, PydanticBody(model="c"), {"metadata": {"user_id": "u"}}) == {
        "model": "c",
        "metadata": {"user_id": "u"},
        "stream": True,
    }
    assert request_body(GEMINI_OP, DataclassBody("g")) == {"model": "g"}
    assert request_body(OLLAMA_OP, {"model": "l"}, {"model": "over"}) == {"model": "over", "stream": True}
    with pytest.raises(TypeError, match="a request body is a JSON object; got list"):
        request_body(CHAT, [1, 2])


def test_the_request_plan_puts_the_key_where_the_scheme_says() -> None:
    def first(auth: Auth, key: str | None = "k", **kwargs: Any) -> Any:
        operation = Operation(CHAT.channel, auth=auth, **kwargs)
        return RequestPlan(operation, "https://h/v1/", key, {"a": 1}).first()

    bearer = first(Auth("bearer"))
    assert bearer.method == "POST" and bearer.url == "https://h/v1/chat/completions"
    assert bearer.headers == {
        "accept": "text/event-stream",
        "authorization": "Bearer k",
        "content-type": "application/json",
    }
    assert bearer.content == b'{"a":1}' and bearer.shown == bearer.url
    assert first(Auth("header", "X-Api-Key")).headers["x-api-key"] == "k"
    query = first(Auth("query", "key"), query=(("alt", "sse"),))
    assert query.url == "https://h/v1/chat/completions?alt=sse&key=k" and query.shown.endswith("?alt=sse&key=...")
    assert "authorization" not in first(Auth("bearer"), key=None).headers
    assert first(Auth(), method="put").method == "PUT"
    with pytest.raises(ValueError, match="names its header"):
        Auth("header")
    with pytest.raises(ValueError):
        Auth("basic", "x")


def test_call_headers_win_over_the_operations_and_resumes_keep_them() -> None:
    operation = Operation(CHAT.channel, headers={"Anthropic-Version": "1", "x-a": "op"}, resume="last-event-id")
    plan = RequestPlan(operation, "https://h", "k", {"stream": True}, {"x-a": "call"})
    request = plan.first()
    assert request.headers["anthropic-version"] == "1" and request.headers["x-a"] == "call"
    resumed = plan.after_event_id("41")
    assert resumed.headers == {**request.headers, "last-event-id": "41"} and resumed.content == request.content
    assert plan.resumable and operation.resume is Resume.LAST_EVENT_ID


def test_a_responses_plan_resumes_a_background_response_by_get() -> None:
    operation = CASE["responses"].operation
    assert not RequestPlan(operation, "https://h/v1", "k", {"model": "m"}).resumable
    plan = RequestPlan(operation, "https://h/v1", "k", {"model": "m", "background": True})
    request = plan.after_sequence_number("resp/1", 7)
    assert plan.resumable and request.method == "GET" and request.content is None
    assert request.url == "https://h/v1/responses/resp%2F1?stream=true&starting_after=7"
    assert "content-type" not in request.headers and request.headers["authorization"] == "Bearer k"
    assert not RequestPlan(MESSAGES, "https://h", "k", {"background": True}).resumable


def test_path_parameters_are_quoted_and_a_missing_one_is_named() -> None:
    assert GEMINI_OP.path_params == ["model"]
    plan = RequestPlan(GEMINI_OP, "https://h/v1beta", "k", {}, path_params={"model": "a b/c"})
    assert plan.first().url == "https://h/v1beta/models/a%20b%2Fc:streamGenerateContent?alt=sse"
    with pytest.raises(ValueError, match=r"needs the path parameter\(s\) model"):
        RequestPlan(GEMINI_OP, "https://h", "k", {})


def test_sse_frames_helper_keeps_each_event_whole() -> None:
    assert frames(b"data: 1\n\ndata: 2\n\n") == [b"data: 1\n\n", b"data: 2\n\n"]
