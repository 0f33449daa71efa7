"""``ssegen mock`` and the ``sse_mock`` transport answer the request side alike (issue 33 item 4:
one implementation, :mod:`ssegen.mock_serve`): the same request gets the same status, error body
and headers from both, for every fault and every refusal; required headers and query parameters
are checked (Anthropic's ``anthropic-version``, Gemini's ``alt=sse``); and the transport serves
the Responses resuming ``GET``, so a generated ``openai_responses`` client resumes a cut stream
against ``sse_mock`` as against ``ssegen mock``.

The mock app is reached in process (``httpx.ASGITransport``), the transport through its own
httpx client; every client has a timeout.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import httpx
import pytest

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import gemini as gen_gemini
from generated import ollama as gen_ollama
from generated import openai_responses as gen_responses
from ssegen.mock import create_app, endpoints
from ssegen.transport import SSEMock

pytestmark = pytest.mark.e2e

TIMEOUT = 10.0
BASE = "http://mock"
PACKAGES = [gen_deepseek, gen_anthropic, gen_gemini, gen_ollama, gen_responses]
VERSION = {"anthropic-version": "2023-06-01"}
BEARER = {"authorization": "Bearer k"}
CLAUDE = {"x-api-key": "k", **VERSION}
GOOGLE = {"x-goog-api-key": "k"}
GEMINI = "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
CHAT_BODY = {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
CLAUDE_BODY = {"model": "claude-test", "max_tokens": 8, "messages": [{"role": "user", "content": "Hi"}]}
GEMINI_BODY = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
OLLAMA_BODY = {"model": "llama3", "messages": []}
RESPONSES_BODY = {"model": "gpt-test", "input": "Hi", "stream": True, "background": True}
#: A response id: ``ssegen mock`` derives each from what its response is made of, an ``sse_mock``
#: route keeps the one its stream was set up with.
RESPONSE_ID = re.compile(r"resp_[0-9A-Za-z]+")
#: An event's model: ``ssegen mock`` names the body's in each event, where an ``sse_mock`` route
#: sends the stream it was set up with (``route(model=)``): the source differs, not the request side.
MODEL = re.compile(r'"model":"[^"]*"')

#: ``(method, path, headers, body)`` requests, each answered alike by both; a sequence is sent in
#: turn to one fresh server of each kind (``times`` counts, ``Last-Event-ID`` resumes).
CASES: dict[str, list[tuple[str, str, dict[str, str], Any]]] = {
    "clean-chat": [("POST", "/chat/completions", BEARER, CHAT_BODY)],
    "clean-gemini": [("POST", GEMINI + "?alt=sse", GOOGLE, GEMINI_BODY)],
    "clean-ollama": [("POST", "/api/chat", {}, OLLAMA_BODY)],
    "status-retry-after": [("POST", "/chat/completions?status=429&retry_after=2", BEARER, CHAT_BODY)],
    "status-in-header": [("POST", "/v1/messages", {**CLAUDE, "x-ssegen-fault": "status=529"}, CLAUDE_BODY)],
    "status-google-shape": [("POST", GEMINI + "?alt=sse&fault=status=503", GOOGLE, GEMINI_BODY)],
    "status-ollama-shape": [("POST", "/api/chat?status=500", {}, OLLAMA_BODY)],
    "times": [("POST", "/chat/completions?status=503&times=2", BEARER, CHAT_BODY)] * 3,
    "cut-close": [("POST", "/chat/completions?cut_at=3&cut=close", BEARER, CHAT_BODY)],
    "cut-byte-close": [("POST", "/chat/completions?cut_at_byte=500&cut=close", BEARER, CHAT_BODY)],
    "error-event": [("POST", "/v1/messages?error_event=3", CLAUDE, CLAUDE_BODY)],
    "read-size": [("POST", "/api/chat?read_size=7", {}, OLLAMA_BODY)],
    "ids-and-last-event-id": [
        ("POST", "/chat/completions?ids=1", BEARER, CHAT_BODY),
        ("POST", "/chat/completions?ids=1", {**BEARER, "last-event-id": "4"}, CHAT_BODY),
        ("POST", "/chat/completions?ids=1", {**BEARER, "last-event-id": "99"}, CHAT_BODY),
    ],
    "ids-on-ndjson": [("POST", "/api/chat?ids=1", {}, OLLAMA_BODY)],
    "bad-fault": [("POST", "/chat/completions?status=200", BEARER, CHAT_BODY)],
    "fault-past-the-end": [("POST", "/v1/messages?cut_at=999", CLAUDE, CLAUDE_BODY)],
    "stream-false": [("POST", "/v1/messages", CLAUDE, {**CLAUDE_BODY, "stream": False})],
    "no-key": [("POST", "/chat/completions", {}, CHAT_BODY), ("POST", GEMINI + "?alt=sse", {}, GEMINI_BODY)],
    "wrong-method": [("GET", "/chat/completions", BEARER, None), ("PUT", "/v1/messages", CLAUDE, CLAUDE_BODY)],
    "bad-body": [
        ("POST", "/chat/completions", BEARER, {"model": "m", "messages": "Hi"}),
        ("POST", GEMINI + "?alt=sse", GOOGLE, {"contents": [{"parts": [{"text": 5}]}]}),
        ("POST", "/api/chat", {}, {"model": 5}),
    ],
    "no-required-header": [("POST", "/v1/messages", {"x-api-key": "k"}, CLAUDE_BODY)],
    "no-required-query": [
        ("POST", GEMINI, GOOGLE, GEMINI_BODY),
        ("POST", GEMINI + "?alt=json", GOOGLE, GEMINI_BODY),
    ],
    "the-body-before-status": [("POST", "/v1/messages?status=529", CLAUDE, {})],
}
#: The headers compared (the rest are each server's own: ``x-accel-buffering``, lengths).
COMPARED = ("content-type", "retry-after", "allow")


def _mock_answers(requests: list[tuple[str, str, dict[str, str], Any]], app: Any = None) -> list[httpx.Response]:
    """``requests`` answered in turn by ``ssegen mock``'s app (default: a fresh one)."""
    app = app if app is not None else create_app(endpoints(PACKAGES))

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE, timeout=TIMEOUT) as client:
            return [await client.request(m, p, headers=h, json=b) for m, p, h, b in requests]

    return asyncio.run(run())


def _sse_mock() -> SSEMock:
    """An ``sse_mock`` routing every channel of :data:`PACKAGES`, checking requests."""
    mock = SSEMock()
    for package in PACKAGES:
        for address in package.CHANNELS:
            mock.route(package, address, check=True)
    return mock


def _sse_mock_answers(
    requests: list[tuple[str, str, dict[str, str], Any]], mock: SSEMock | None = None
) -> list[httpx.Response]:
    """``requests`` answered in turn by an ``sse_mock`` (default: a fresh :func:`_sse_mock`)."""
    mock = mock if mock is not None else _sse_mock()
    with mock.client(base_url=BASE, timeout=TIMEOUT) as client:
        answers = [client.request(m, p, headers=h, json=b) for m, p, h, b in requests]
        for answer in answers:
            answer.read()
    return answers


def _seen(answer: httpx.Response) -> tuple[int, dict[str, str], Any]:
    """What a client sees of an answer: status, the compared headers, the body (JSON errors
    parsed, the response id and models of a stream left out)."""
    headers = {name: answer.headers[name] for name in COMPARED if name in answer.headers}
    if answer.headers.get("content-type") == "application/json":
        return answer.status_code, headers, answer.json()
    return answer.status_code, headers, MODEL.sub('"model":""', RESPONSE_ID.sub("resp_", answer.text))


@pytest.mark.parametrize("case", CASES)
def test_ssegen_mock_and_sse_mock_answer_each_request_alike(case: str) -> None:
    requests = CASES[case]
    ours, theirs = _mock_answers(requests), _sse_mock_answers(requests)
    assert [_seen(a) for a in theirs] == [_seen(a) for a in ours]
    assert ours[0].status_code == (
        200 if case.startswith(("clean", "cut", "error", "read", "ids-and")) else ours[0].status_code
    )


def test_a_missing_required_header_or_query_parameter_is_a_400_naming_it() -> None:
    claude, gemini, alt_json, both = _mock_answers(
        [
            ("POST", "/v1/messages", {"x-api-key": "k"}, CLAUDE_BODY),
            ("POST", GEMINI, GOOGLE, GEMINI_BODY),
            ("POST", GEMINI + "?alt=json", GOOGLE, GEMINI_BODY),
            ("POST", GEMINI + "?alt=sse", GOOGLE, GEMINI_BODY),
        ]
    )
    assert claude.status_code == 400 and claude.json()["type"] == "error"  # Anthropic's shape
    assert claude.json()["error"] == {
        "type": "invalid_request_error",
        "message": "ssegen mock: the header anthropic-version is required by POST /v1/messages",
    }
    assert gemini.status_code == 400 and gemini.json()["error"]["status"] == "INVALID_ARGUMENT"  # Google's
    assert "the query parameter alt is required" in gemini.json()["error"]["message"]
    assert "(?alt=sse)" in gemini.json()["error"]["message"]
    assert alt_json.status_code == 400 and "alt='json' is not allowed" in alt_json.json()["error"]["message"]
    assert both.status_code == 200


def test_the_facts_carry_the_required_headers_and_query_parameters() -> None:
    from pathlib import Path

    def parameters(package: Any, address: str) -> Any:
        document = json.loads((Path(package.__file__).parent / "schemas.json").read_text(encoding="utf-8"))
        return document["requests"][address]["parameters"]

    assert parameters(gen_anthropic, "/v1/messages") == [
        {"name": "anthropic-version", "location": "header", "values": None}
    ]  # anthropic-beta is optional: not listed
    assert parameters(gen_gemini, "/models/{model}:streamGenerateContent") == [
        {"name": "alt", "location": "query", "values": ["sse"]}
    ]
    assert parameters(gen_deepseek, "/chat/completions") == []


def test_the_resuming_get_is_answered_alike_and_refused_alike() -> None:
    """The Responses resume through both: the events after ``starting_after``, a 404 for an
    unknown response, a 401 without the key, a 400 without ``stream=true``."""
    post = ("POST", "/v1/responses", BEARER, RESPONSES_BODY)
    results = []
    for answers, server in ((_mock_answers, create_app(endpoints(PACKAGES))), (_sse_mock_answers, _sse_mock())):
        [first] = answers([post], server)
        sent_id = RESPONSE_ID.search(first.text).group()  # type: ignore[union-attr]
        resume = f"/v1/responses/{sent_id}?stream=true&starting_after=3"
        gets = [
            ("GET", resume, BEARER, None),
            ("GET", f"/v1/responses/{sent_id}?stream=true&starting_after=x", BEARER, None),
            ("GET", resume, {}, None),
            ("GET", f"/v1/responses/{sent_id}?starting_after=3", BEARER, None),
            ("GET", "/v1/responses/resp_unknown?stream=true&starting_after=1", BEARER, None),
        ]
        results.append([first, *answers(gets, server)])
    mock_seen, transport_seen = ([_seen(a) for a in answers] for answers in results)
    assert transport_seen == mock_seen
    assert [status for status, _, _ in mock_seen] == [200, 200, 400, 401, 400, 404]
    assert "the query parameter stream is required" in mock_seen[4][2]["error"]["message"]
    for first, after in (answers[:2] for answers in results):
        whole = [json.loads(line[6:]) for line in first.text.splitlines() if line.startswith("data: ")]
        rest = [json.loads(line[6:]) for line in after.text.splitlines() if line.startswith("data: ")]
        assert rest == whole[4:] and rest[0]["sequence_number"] == 4


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_generated_responses_client_resumes_a_cut_stream_against_sse_mock(mode: str) -> None:
    """Cut mid-stream once (``cut_at=5, times=1``): the client resumes with ``GET
    /v1/responses/{id}?stream=true&starting_after=N`` on the same transport, and the result
    equals the unbroken stream's."""
    mock = SSEMock()
    clean = mock.route(gen_responses, text="Resumed after a cut", check=True)
    channel = gen_responses.CHANNELS["/v1/responses"]
    expected = channel.accumulate(channel.decode([clean.body])).to_dict()
    mock.route(gen_responses, text="Resumed after a cut", check=True, cut_at=5, times=1)
    body = {"model": "gpt-test", "input": "Hi", "background": True}
    if mode == "sync":
        with (
            gen_responses.Client("https://api.openai.com", "k", http_client=mock.client(timeout=TIMEOUT)) as client,
            client.stream("/v1/responses", body) as events,
        ):
            result, retries = events.accumulate().to_dict(), list(events.retries)
    else:

        async def run() -> tuple[dict[str, Any], list[Any]]:
            async with (
                mock.async_client(timeout=TIMEOUT) as http,
                gen_responses.AsyncClient("https://api.openai.com", "k", http_client=http) as client,
                client.stream("/v1/responses", body) as events,
            ):
                return (await events.aaccumulate()).to_dict(), list(events.retries)

        result, retries = asyncio.run(run())
    mock.close()
    sent = [(r.method, r.url.path, r.url.params.get("starting_after")) for r in mock.requests]
    assert sent == [("POST", "/v1/responses", None), ("GET", f"/v1/responses/{result['id']}", "4")]  # after event 4
    assert [r.kind for r in retries] == ["resume"]
    assert result == expected and result["complete"]


def test_sse_mock_resumes_a_response_only_under_the_url_of_the_route_that_sent_it() -> None:
    mock = SSEMock()
    for url in ("https://a.test", "https://b.test"):
        mock.route(gen_responses, url=url)
    with mock.client(timeout=TIMEOUT) as client:
        sent = client.post("https://a.test/v1/responses", json=RESPONSES_BODY, headers=BEARER)
        response_id = RESPONSE_ID.search(sent.text).group()  # type: ignore[union-attr]
        query = "?stream=true&starting_after=2"
        assert client.get(f"https://a.test/v1/responses/{response_id}{query}").status_code == 200
        elsewhere = client.get(f"https://b.test/v1/responses/{response_id}{query}")
    assert elsewhere.status_code == 404 and response_id in elsewhere.json()["error"]["message"]
