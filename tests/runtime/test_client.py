"""The streaming client (runtime ``client.py``) over ``httpx.MockTransport``, sync and async, with
the generated channels of every family: requests, retries before the first byte, errors raised,
closing. Faults inside a stream (error events, stalls, cuts, resume) are test_client_faults.py's."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from typing import Any

import httpx
import msgspec
import pytest
from conftest import ROOT
from helpers.client_cases import CASE, CASES, CHAT, MODES, Case, stream
from helpers.scripted import Body, Refuse, Server, Status

from generated._runtime.client import (
    APIConnectionError,
    APIError,
    APIStatusError,
    APITimeoutError,
    AsyncClient,
    Client,
    Operation,
)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_each_family_streams_and_assembles_as_its_channel_does(case: Case, mode: str) -> None:
    server = Server(Body(case.events, case.content_type))
    result, retries = stream(server, case, mode)
    assert result == case.expected() and result["complete"] and retries == []
    events, _ = stream(Server(Body(case.events, case.content_type)), case, mode, iterate=True)
    channel = case.operation.channel
    assert [msgspec.to_builtins(e) for e in events] == [msgspec.to_builtins(e) for e in channel.decode([case.whole])]


def test_the_request_carries_the_operations_method_path_auth_headers_and_stream_member() -> None:
    sent = {}
    for case in CASES:
        server = Server(Body(case.events, case.content_type))
        stream(server, case, "sync")
        (request,) = server.requests
        sent[case.name] = (request.method, str(request.url), json.loads(request.content), request.headers)
    method, url, body, headers = sent["chat"]
    assert (method, url) == ("POST", "https://api.test/v1/chat/completions")
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert headers["authorization"] == "Bearer sk-test" and headers["accept"] == "text/event-stream"
    assert headers["content-type"] == "application/json"
    _, url, body, headers = sent["messages"]
    assert url.endswith("/v1/messages") and body["stream"] is True and "stream_options" not in body
    assert headers["x-api-key"] == "sk-test" and headers["anthropic-version"] == "2023-06-01"
    assert "authorization" not in headers
    _, url, body, headers = sent["gemini"]
    assert url == "https://api.test/v1/models/g-2:streamGenerateContent?alt=sse" and "stream" not in body
    assert headers["x-goog-api-key"] == "sk-test"
    _, url, body, headers = sent["ollama"]
    assert url.endswith("/api/chat") and headers["accept"] == "application/x-ndjson"
    assert "authorization" not in headers and body["stream"] is True


def test_the_response_gives_status_and_headers() -> None:
    case = CASE["chat"]
    server = Server(Body(case.events, headers={"x-request-id": "req-1"}))
    with server.client() as client, client.stream(CHAT, case.body) as events:
        assert events.response is not None
        assert events.response.status_code == 200 and events.response.headers["x-request-id"] == "req-1"


@pytest.mark.parametrize("mode", MODES)
def test_503_twice_then_success_waits_with_exponential_backoff(mode: str) -> None:
    case = CASE["chat"]
    server = Server(Status(503), Status(503), Body(case.events))
    result, retries = stream(server, case, mode)
    assert result == case.expected() and len(server.requests) == 3
    assert server.sleeps == [0.5, 1.0]  # full jitter drawn at its top: base * 2**n
    assert [(r.kind, r.reason.split(":")[0]) for r in retries] == [("retry", "503 Service Unavailable")] * 2


def test_full_jitter_draws_below_the_exponential_bound_and_the_cap() -> None:
    case = CASE["chat"]
    server = Server(*[Status(500)] * 6, Body(case.events))
    stream(server, case, "sync", max_retries=6, backoff=server.backoff(jitter=0.5))
    assert server.sleeps == [0.25, 0.5, 1.0, 2.0, 4.0, 4.0]  # half of 0.5, 1, 2, 4, 8 and the 8 s cap


@pytest.mark.parametrize(
    ("headers", "wait"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "Wed, 21 Oct 2015 07:28:10 GMT"}, 10.0),  # the clock reads 07:28:00
        ({"retry-after": "3600"}, 0.5),  # over a minute: the backoff's wait instead
        ({"retry-after": "soon"}, 0.5),
    ],
)
def test_429_honours_retry_after_in_seconds_milliseconds_or_as_a_date(headers: dict[str, str], wait: float) -> None:
    case = CASE["chat"]
    server = Server(Status(429, headers=headers), Body(case.events))
    backoff = server.backoff(clock=1445412480.0)  # 2015-10-21 07:28:00 UTC
    result, _ = stream(server, case, "sync", backoff=backoff)
    assert result["complete"] and server.sleeps == [wait]


@pytest.mark.parametrize("mode", MODES)
def test_another_4xx_raises_at_once_with_the_providers_error_body(mode: str) -> None:
    body = b'{"error": {"message": "messages: field required", "type": "invalid_request_error"}}'
    server = Server(Status(400, body), Body(CASE["chat"].events))
    with pytest.raises(APIStatusError) as raised:
        stream(server, CASE["chat"], mode)
    error = raised.value
    assert isinstance(error, APIError) and len(server.requests) == 1 and server.sleeps == []
    assert error.status_code == 400 and error.body == body
    assert error.error == {"error": {"message": "messages: field required", "type": "invalid_request_error"}}
    assert str(error) == "POST https://api.test/v1/chat/completions: 400 Bad Request: messages: field required"


class Detail(msgspec.Struct):
    message: str
    type: str


class ErrorBody(msgspec.Struct):
    error: Detail


def test_the_operations_error_decoder_types_the_error_object() -> None:
    operation = Operation(CHAT.channel, path="/chat/completions", error_decoder=msgspec.json.Decoder(ErrorBody).decode)
    body = b'{"error": {"message": "no such model", "type": "not_found"}}'
    server = Server(Status(404, body))
    with server.client() as client, pytest.raises(APIStatusError) as raised:
        client.stream(operation, {"model": "x"}).open()
    assert raised.value.error == ErrorBody(Detail("no such model", "not_found"))
    server = Server(Status(404, b"<html>not found</html>"))
    with server.client() as client, pytest.raises(APIStatusError) as raised:
        client.stream(operation, {"model": "x"}).open()
    assert raised.value.error is None and raised.value.message.endswith("404 Not Found: <html>not found</html>")


@pytest.mark.parametrize("mode", MODES)
def test_retries_run_out_after_max_retries(mode: str) -> None:
    server = Server(Status(503))
    with pytest.raises(APIStatusError) as raised:
        stream(server, CASE["chat"], mode, max_retries=2)
    assert raised.value.status_code == 503 and len(server.requests) == 3 and len(server.sleeps) == 2
    server = Server(Status(503))
    with pytest.raises(APIStatusError):
        stream(server, CASE["chat"], mode, max_retries=0)
    assert len(server.requests) == 1


def test_x_should_retry_overrides_the_status() -> None:
    server = Server(Status(503, headers={"x-should-retry": "false"}), Body(CASE["chat"].events))
    with pytest.raises(APIStatusError):
        stream(server, CASE["chat"], "sync")
    server = Server(Status(400, headers={"x-should-retry": "true"}), Body(CASE["chat"].events))
    assert stream(server, CASE["chat"], "sync")[0]["complete"] and len(server.requests) == 2


@pytest.mark.parametrize("mode", MODES)
def test_connection_errors_are_retried_then_raised(mode: str) -> None:
    case = CASE["chat"]
    server = Server(Refuse(), Body(case.events))
    assert stream(server, case, mode)[0] == case.expected() and len(server.requests) == 2
    server = Server(Refuse(httpx.ConnectError))
    with pytest.raises(APIConnectionError) as raised:
        stream(server, case, mode)
    assert not isinstance(raised.value, APITimeoutError) and isinstance(raised.value.__cause__, httpx.ConnectError)
    assert len(server.requests) == 3 and "ConnectError: refused" in str(raised.value)
    server = Server(Refuse(httpx.ConnectTimeout))
    with pytest.raises(APITimeoutError) as timed_out:
        stream(server, case, mode)
    assert isinstance(timed_out.value, APIConnectionError) and len(server.requests) == 3


def test_without_a_key_the_environment_variable_is_read_and_a_401_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    server = Server(Status(401, b'{"error": {"message": "Authentication Fails"}}'))
    client = Client("https://api.test/v1", http_client=httpx.Client(transport=server.transport))
    with client, pytest.raises(APIStatusError) as raised:
        client.stream(CHAT, {"model": "m"}).open()
    assert "authorization" not in server.requests[0].headers
    assert str(raised.value).endswith(
        "401 Unauthorized: Authentication Fails (no API key was sent: pass api_key= or set DEEPSEEK_API_KEY)"
    )
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-env")
    server = Server(Body(CASE["chat"].events))
    with Client("https://api.test/v1", http_client=httpx.Client(transport=server.transport)) as client:
        client.stream(CHAT, {"model": "m"}).open().close()
    assert server.requests[0].headers["authorization"] == "Bearer sk-env"


def test_a_key_in_the_query_is_masked_in_messages() -> None:
    case = CASE["gemini"]
    operation = Operation(
        case.operation.channel,
        query=(("alt", "sse"),),
        stream_member=None,
        auth=type(case.operation.auth)("query", "key"),
    )
    server = Server(Status(403, b'{"error": {"message": "denied"}}'))
    with server.client() as client, pytest.raises(APIStatusError) as raised:
        client.stream(operation, case.body, path_params={"model": "g"}).open()
    assert str(server.requests[0].url).endswith(":streamGenerateContent?alt=sse&key=sk-test")
    assert raised.value.url.endswith("?alt=sse&key=...") and "sk-test" not in str(raised.value)


@pytest.mark.parametrize("mode", MODES)
def test_leaving_the_block_or_breaking_closes_the_response(mode: str) -> None:
    case = CASE["chat"]
    server = Server(Body(case.events))
    if mode == "sync":
        with server.client() as client, client.stream(CHAT, case.body) as events:
            for _ in events:
                break
        assert server.bodies[0].closed and server.bodies[0].sent < len(case.events)
    else:

        async def run() -> None:
            async with server.async_client() as client, client.stream(CHAT, case.body) as events:
                async for _ in events:
                    break

        asyncio.run(run())
        assert server.bodies[0].closed and server.bodies[0].sent < len(case.events)


def test_a_stream_never_read_is_closed_too() -> None:
    server = Server(Body(CASE["chat"].events))
    with server.client() as client:
        with client.stream(CHAT, {"model": "m"}) as events:
            assert events.response is not None
        assert server.bodies[0].closed and server.bodies[0].sent == 0
        with pytest.raises(RuntimeError, match="closed"):
            events.accumulate()


def test_cancelling_the_task_closes_the_response() -> None:
    case = CASE["chat"]
    server = Server(Body(case.events[:1] * 10_000))  # a long stream, read with a pause per event
    seen: list[Any] = []

    async def read(client: AsyncClient) -> None:
        async with client.stream(CHAT, case.body) as events:
            async for event in events:
                seen.append(event)
                await asyncio.sleep(0)

    async def run() -> None:
        async with server.async_client() as client:
            task = asyncio.create_task(read(client))
            while len(seen) < 3:
                await asyncio.sleep(0)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            assert server.bodies[0].closed  # closed as the cancelled task left its block

    asyncio.run(run())
    assert 3 <= server.bodies[0].sent < 10_000


def test_a_stream_is_read_once() -> None:
    server = Server(Body(CASE["chat"].events))
    with server.client() as client, client.stream(CHAT, {"model": "m"}) as events:
        events.accumulate()
        with pytest.raises(RuntimeError, match="read once"):
            list(events)


def test_an_async_stream_is_read_once_and_one_whose_request_failed_is_sent_again() -> None:
    """``async for`` and ``aaccumulate`` send the request when it was not sent; one refused
    (a 400, not retried) leaves the stream unread, so a later read sends it again, as
    :meth:`Stream.accumulate` does; once read, a second read raises."""
    server = Server(Status(400), Body(CASE["chat"].events))

    async def run() -> bool:
        async with server.async_client() as client:
            events = client.stream(CHAT, {"model": "m"})
            with pytest.raises(APIStatusError):
                async for _ in events:
                    pass
            result = await events.aaccumulate()
            with pytest.raises(RuntimeError, match="read once"):
                async for _ in events:
                    pass
            await events.aclose()
            return result.complete

    assert asyncio.run(run()) and len(server.requests) == 2


def test_the_client_closes_the_http_client_it_made_and_not_one_it_was_given() -> None:
    with Client("https://api.test") as made:
        pass
    assert made.http_client.is_closed
    given = httpx.Client()
    with Client("https://api.test", http_client=given):
        pass
    assert not given.is_closed
    given.close()

    async def run() -> tuple[bool, bool]:
        async with AsyncClient("https://api.test") as made:
            pass
        given = httpx.AsyncClient()
        async with AsyncClient("https://api.test", http_client=given):
            pass
        return made.http_client.is_closed, given.is_closed

    assert asyncio.run(run()) == (True, False)


def test_a_generated_client_names_its_server_and_operations() -> None:
    class DeepSeek(Client):
        default_base_url = "https://api.test/v1"
        operations = {"/chat/completions": CHAT}

    server = Server(Body(CASE["chat"].events))
    with DeepSeek(api_key="k", http_client=httpx.Client(transport=server.transport)) as client:
        with client.stream("/chat/completions", {"model": "m"}) as events:
            assert events.accumulate().complete
        with pytest.raises(ValueError, match=r"no operation '/nope' \(the client's: /chat/completions\)"):
            client.stream("/nope", {})
    assert str(server.requests[0].url) == "https://api.test/v1/chat/completions"
    with pytest.raises(ValueError, match="no base_url"):
        Client()


def test_extra_body_headers_and_path_params_reach_the_request() -> None:
    case = CASE["gemini"]
    server = Server(Body(case.events))
    with server.client(headers={"x-client": "c", "x-both": "client"}) as client:
        call = client.stream(
            case.operation,
            case.body,
            headers={"x-both": "call"},
            path_params={"model": "gemini 2/flash"},
            extra_body={"generationConfig": {"temperature": 0}},
        )
        with call as events:
            events.accumulate()
        with pytest.raises(ValueError, match=r"path parameter\(s\) model: pass path_params=\{'model': ...\}"):
            client.stream(case.operation, case.body)
    (request,) = server.requests
    assert request.url.raw_path == b"/v1/models/gemini%202%2Fflash:streamGenerateContent?alt=sse"
    assert request.headers["x-client"] == "c" and request.headers["x-both"] == "call"
    assert json.loads(request.content)["generationConfig"] == {"temperature": 0}


def test_decode_and_accumulate_work_without_httpx_and_the_client_says_what_to_install() -> None:
    script = """
import sys
sys.modules["httpx"] = None  # as if httpx were not installed
from generated.deepseek import CHANNELS
chat = CHANNELS["/chat/completions"]
body = b"".join(chat.encode_stream(chat.example_stream(text="Hi")))
print(chat.accumulate(chat.decode([body])).choices[0].content)
from generated._runtime import client_errors, client_request, client_retry, client_control
try:
    from generated._runtime import client
except ImportError as error:
    print(error)
"""
    run = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0] == "Hi" and "needs httpx" in lines[1] and "pip install httpx" in lines[1], lines
