"""The mock serves the request side (issue 33 item 4): a request is checked as the provider checks
it (method, API key, body against the spec's request schema, from the package's ``schemas.json``),
errors come in the provider's shape, and the faults that act on whole requests (``status``,
``times``, ``ids``) and the Responses resuming ``GET`` work, through httpx against the app in
process (``httpx.ASGITransport``), the ``sse_mock`` transport, and once over loopback.

Every client has a timeout.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from conftest import GENERATED_PROVIDERS, ROOT

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import gemini as gen_gemini
from generated import ollama as gen_ollama
from generated import openai_responses as gen_responses
from ssegen import mock_requests
from ssegen.mock import MockServer, create_app, endpoints
from ssegen.replay import FaultError, Faults
from ssegen.transport import SSEMock

pytestmark = pytest.mark.e2e

CHAT = gen_deepseek.CHANNELS["/chat/completions"]
RESPONSES = gen_responses.CHANNELS["/v1/responses"]
TIMEOUT = 10.0
VERSION = {"anthropic-version": "2023-06-01"}  # Anthropic's required header (ignored elsewhere)
KEY = {"authorization": "Bearer k", **VERSION}
CHAT_BODY = {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}], "stream": True}
GEMINI = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
GEMINI_BODY = {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]}
RESPONSES_BODY = {"model": "gpt-test", "input": "Hi", "stream": True, "background": True}


@pytest.fixture
def app() -> Any:
    """A fresh app (its ``times`` counts and remembered responses start empty)."""
    return create_app(endpoints([gen_deepseek, gen_anthropic, gen_gemini, gen_ollama, gen_responses]))


def _send(app: Any, *requests: tuple[str, str, dict[str, Any]]) -> list[httpx.Response]:
    """Each ``(method, path, httpx keyword arguments)`` sent in turn to ``app`` in process."""

    async def run() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://mock", timeout=TIMEOUT) as client:
            return [await client.request(method, path, **options) for method, path, options in requests]

    return asyncio.run(run())


def _one(app: Any, method: str, path: str, **options: Any) -> httpx.Response:
    return _send(app, (method, path, options))[0]


def _data(response: httpx.Response) -> list[dict[str, Any]]:
    """The JSON payloads of an SSE body's ``data:`` lines (``[DONE]`` left out)."""
    lines = [line[6:] for line in response.text.splitlines() if line.startswith("data: ")]
    return [json.loads(line) for line in lines if line != "[DONE]"]


def test_schemas_json_carries_each_channels_request() -> None:
    responses = json.loads((Path(gen_responses.__file__).parent / "schemas.json").read_text(encoding="utf-8"))
    fact = responses["requests"]["/v1/responses"]
    assert (fact["method"], fact["path"], fact["stream"]) == ("POST", "/v1/responses", ["stream"])
    assert fact["body"]["$ref"].removeprefix("#/$defs/") in responses["$defs"]
    assert fact["auth"] == [{"name": "bearer", "location": "header", "parameter": "Authorization", "scheme": "bearer"}]
    assert fact["resume"]["kind"] == "starting-after" and fact["resume"]["path"] == "/v1/responses/{response_id}"
    gemini = json.loads((ROOT / "generated/gemini/schemas.json").read_text(encoding="utf-8"))
    auth = gemini["requests"]["/models/{model}:streamGenerateContent"]["auth"]
    assert [(a["location"], a["parameter"]) for a in auth] == [("header", "x-goog-api-key"), ("query", "key")]


@pytest.mark.parametrize(
    ("path", "body", "pointer", "said"),
    [
        ("/chat/completions", {"model": "m", "messages": "Hi"}, "/messages", lambda e: e["error"]["message"]),
        ("/v1/messages", {"model": "m", "max_tokens": 8}, "/messages", lambda e: e["error"]["message"]),
        (GEMINI, {"contents": [{"parts": [{"text": 5}]}]}, "/contents/0/parts/0/text", lambda e: e["error"]["message"]),
        ("/api/chat", {"model": 5}, "/model", lambda e: e["error"]),
    ],
    ids=["openai-shape", "anthropic-shape", "google-shape", "ollama-shape"],
)
def test_a_body_its_schema_rejects_is_a_400_naming_the_pointer(
    app: Any, path: str, body: dict[str, Any], pointer: str, said: Any
) -> None:
    answer = _one(app, "POST", path, json=body, headers=KEY)
    assert answer.status_code == 400
    error = answer.json()
    assert f"does not match its schema at {pointer}:" in said(error)
    if path == "/chat/completions":
        assert error["error"]["param"] == pointer and error["error"]["type"] == "invalid_request_error"
    if path == "/v1/messages":
        assert error["type"] == "error" and error["error"]["type"] == "invalid_request_error"
    if path == GEMINI:
        assert error["error"]["status"] == "INVALID_ARGUMENT" and error["error"]["code"] == 400
    valid = {"/v1/messages": {**body, "messages": []}, GEMINI: GEMINI_BODY, "/api/chat": {"model": "llama3"}}
    assert _one(app, "POST", path, json=valid.get(path, CHAT_BODY), headers=KEY).status_code == 200


def test_a_request_without_the_key_the_spec_declares_is_a_401(app: Any) -> None:
    bare = _one(app, "POST", "/chat/completions", json=CHAT_BODY)
    assert bare.status_code == 401 and "Authorization: Bearer <key>" in bare.json()["error"]["message"]
    no_token = {"authorization": "Bearer"}
    assert _one(app, "POST", "/chat/completions", json=CHAT_BODY, headers=no_token).status_code == 401
    assert _one(app, "POST", "/chat/completions", json=CHAT_BODY, headers=KEY).status_code == 200
    gemini = _one(app, "POST", GEMINI, json=GEMINI_BODY)
    assert gemini.status_code == 401 and gemini.json()["error"]["status"] == "UNAUTHENTICATED"
    assert "x-goog-api-key" in gemini.json()["error"]["message"] and "?key=" in gemini.json()["error"]["message"]
    assert _one(app, "POST", GEMINI + "&key=k", json=GEMINI_BODY).status_code == 200
    assert _one(app, "POST", GEMINI, json=GEMINI_BODY, headers={"x-goog-api-key": "k"}).status_code == 200
    claude = {"model": "m", "max_tokens": 8, "messages": []}
    assert _one(app, "POST", "/v1/messages", json=claude, headers={"x-api-key": "k", **VERSION}).status_code == 200
    assert (
        _one(app, "POST", "/v1/messages", json=claude, headers=VERSION).json()["error"]["type"]
        == "authentication_error"
    )
    assert _one(app, "POST", "/api/chat", json={"model": "llama3"}).status_code == 200  # Ollama declares no auth


def test_only_the_specs_method_and_json_bodies_are_served(app: Any) -> None:
    got = _one(app, "GET", "/chat/completions", headers=KEY)
    assert got.status_code == 405 and got.headers["allow"] == "POST" and "POST" in got.json()["error"]["message"]
    put = _one(app, "PUT", "/chat/completions", json=CHAT_BODY, headers=KEY)
    assert put.status_code == 405 and put.json()["error"]["type"] == "invalid_request_error"  # the provider's shape
    typed = {**KEY, "content-type": "text/plain"}
    assert _one(app, "POST", "/chat/completions", content=json.dumps(CHAT_BODY), headers=typed).status_code == 415


def test_the_model_named_in_the_body_is_in_every_event_that_names_one(app: Any) -> None:
    answer = _one(app, "POST", "/chat/completions", json={**CHAT_BODY, "model": "my-model"}, headers=KEY)
    chunks = _data(answer)
    assert len(chunks) == 11 and {chunk["model"] for chunk in chunks} == {"my-model"}  # the docs' stream, renamed


def test_status_answers_an_http_error_before_the_body(app: Any) -> None:
    limited = _one(app, "POST", "/chat/completions?status=429&retry_after=2", json=CHAT_BODY, headers=KEY)
    assert limited.status_code == 429 and limited.headers["retry-after"] == "2"
    assert "retry-after-ms" not in limited.headers  # whole seconds: Retry-After says it
    briefly = _one(app, "POST", "/chat/completions?status=429&retry_after=0.25", json=CHAT_BODY, headers=KEY)
    assert briefly.status_code == 429 and briefly.headers["retry-after-ms"] == "250"
    assert briefly.headers["retry-after"] == "1"  # RFC 9110 delay-seconds: whole, rounded up
    assert limited.json()["error"]["type"] == "rate_limit_error"
    overloaded = _one(app, "POST", "/v1/messages?fault=status=529", json={}, headers={"x-api-key": "k", **VERSION})
    assert overloaded.status_code == 400  # the body is checked first: a bad request is a bad request
    claude = {"model": "m", "max_tokens": 8, "messages": []}
    headers = {"x-api-key": "k", "x-ssegen-fault": "status=529", **VERSION}
    overloaded = _one(app, "POST", "/v1/messages", json=claude, headers=headers)
    assert overloaded.status_code == 529 and overloaded.json()["error"]["type"] == "overloaded_error"
    assert "retry-after" not in overloaded.headers
    bad = _one(app, "POST", "/chat/completions?status=200", json=CHAT_BODY, headers=KEY)
    assert bad.status_code == 400 and "status=200: an HTTP error status" in bad.json()["error"]["message"]


def test_times_breaks_the_first_n_requests_then_serves_clean(app: Any) -> None:
    ask = ("POST", "/chat/completions?status=503&times=2", {"json": CHAT_BODY, "headers": KEY})
    other = ("POST", "/chat/completions?status=500&times=1", {"json": CHAT_BODY, "headers": KEY})
    answers = _send(app, ask, ask, other, ask, other)
    assert [a.status_code for a in answers] == [503, 503, 500, 200, 200]
    assert len(_data(answers[3])) == 11  # the whole stream, clean
    cut = ("POST", "/chat/completions?cut_at=3&cut=close&times=1", {"json": CHAT_BODY, "headers": KEY})
    first, second = _send(app, cut, cut)
    assert first.text.count("\n\n") == 3 and len(_data(second)) == 11  # 3 events whole, then cut; then all


def test_times_counts_are_bounded_however_many_fault_values_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mock_requests, "MAX_COUNTED", 3)
    times, route = mock_requests.Times(), object()
    once = Faults(status=503, times=1)
    assert times.applied(route, once) == once and times.applied(route, once) == Faults()
    for delay in range(1, 10):
        times.applied(route, Faults(delay=delay / 100, times=1))
    assert len(times._counts) == 3
    assert times.applied(route, once) == once  # forgotten: counted again from the start


def test_ids_number_the_events_and_last_event_id_resumes_after_one(app: Any) -> None:
    whole = _one(app, "POST", "/chat/completions?ids=1", json=CHAT_BODY, headers=KEY)
    ids = [line for line in whole.text.splitlines() if line.startswith("id: ")]
    assert ids == [f"id: {n}" for n in range(1, 13)]  # 11 chunks and [DONE]
    cut = _one(app, "POST", "/chat/completions?ids=1&cut_at=4&cut=close", json=CHAT_BODY, headers=KEY)
    before = list(CHAT.decode(cut.iter_bytes()))
    assert [line for line in cut.text.splitlines() if line.startswith("id: ")][-2] == "id: 4"
    resumed = _one(app, "POST", "/chat/completions?ids=1", json=CHAT_BODY, headers={**KEY, "last-event-id": "4"})
    assert resumed.text.startswith("id: 5\n")
    kept = [e for e in before if type(e).__name__ != "StreamTruncated"]
    joined = CHAT.accumulate([*kept, *CHAT.decode(resumed.iter_bytes())])
    assert joined.to_dict() == CHAT.accumulate(CHAT.decode(whole.iter_bytes())).to_dict() and joined.complete
    past = _one(app, "POST", "/chat/completions?ids=1", json=CHAT_BODY, headers={**KEY, "last-event-id": "99"})
    assert past.status_code == 400 and "ids are 1 to 12" in past.json()["error"]["message"]
    ndjson = _one(app, "POST", "/api/chat?ids=1", json={"model": "llama3"})
    assert ndjson.status_code == 400 and "NDJSON" in ndjson.json()["error"]


def test_the_sse_mock_transport_carries_out_status_times_and_ids() -> None:
    mock = SSEMock()
    mock.route(CHAT, status=503, retry_after=1, times=2)
    client = mock.client(timeout=TIMEOUT)
    answers = [client.post("https://api.deepseek.com/chat/completions", json=CHAT_BODY) for _ in range(3)]
    assert [a.status_code for a in answers] == [503, 503, 200] and answers[0].headers["retry-after"] == "1"
    assert answers[0].json()["error"]["type"] == "server_error" and len(_data(answers[2])) == 11
    mock.route(CHAT, status=429, retry_after=0.05, times=1)  # a fraction: retry-after-ms as well
    limited = client.post("https://api.deepseek.com/chat/completions", json=CHAT_BODY)
    assert limited.status_code == 429
    assert (limited.headers["retry-after"], limited.headers["retry-after-ms"]) == ("1", "50")
    mock.route(CHAT, ids=True)
    resumed = client.post("https://api.deepseek.com/chat/completions", headers={"last-event-id": "10"})
    assert resumed.text.startswith("id: 11\n") and resumed.text.count("id: ") == 2
    mock.close()


def test_the_sse_mock_transport_checks_requests_when_asked() -> None:
    mock = SSEMock()
    mock.route(CHAT, check=True)
    client = mock.client(timeout=TIMEOUT)
    url = "https://api.deepseek.com/chat/completions"
    assert client.post(url, json=CHAT_BODY).status_code == 401
    bad = client.post(url, json={"model": "m", "messages": "Hi"}, headers=KEY)
    assert bad.status_code == 400 and bad.json()["error"]["param"] == "/messages"
    assert client.get(url, headers=KEY).status_code == 405
    assert client.post(url, json=CHAT_BODY, headers=KEY).status_code == 200
    mock.route(CHAT)  # unchecked, as before: any request
    assert client.post(url, json={"messages": "Hi"}).status_code == 200
    mock.close()


def test_faults_refuse_values_the_request_faults_cannot_take() -> None:
    assert Faults.parse("status=503, retry_after=3, times=2, ids=1") == Faults(
        status=503, retry_after=3, times=2, ids=True
    )
    for text, said in [
        ("times=0", "times=0: a number of requests >= 1"),
        ("status=302", "an HTTP error status, 400 to 599"),
        ("retry_after=3", "with status=CODE"),
        ("status=429, retry_after=-0.5", "retry_after=-0.5: seconds >= 0"),
        ("status=429, retry_after=soon", "expected seconds"),
        ("ids=2", "expected 1 or 0"),
    ]:
        with pytest.raises(FaultError, match=said):
            Faults.parse(text)


def test_a_responses_stream_resumes_with_get_starting_after(app: Any) -> None:
    first, again = _send(app, *[("POST", "/v1/responses", {"json": RESPONSES_BODY, "headers": KEY})] * 2)
    events = _data(first)
    response_id = events[0]["response"]["id"]
    assert response_id.startswith("resp_") and _data(again)[0]["response"]["id"] == response_id  # derived
    assert {e["response"]["id"] for e in events if "response" in e} == {response_id}
    after = _one(app, "GET", f"/v1/responses/{response_id}?stream=true&starting_after=3", headers=KEY)
    assert after.status_code == 200 and [e["sequence_number"] for e in _data(after)] == list(range(4, len(events)))
    assert _data(after) == events[4:]
    under_provider = f"/openai_responses/v1/responses/{response_id}?stream=true&starting_after=7"
    prefixed = _one(app, "GET", under_provider, headers=KEY)
    assert _data(prefixed) == events[8:]
    unknown = _one(app, "GET", "/v1/responses/resp_unknown?stream=true&starting_after=1", headers=KEY)
    assert unknown.status_code == 404 and "resp_unknown" in unknown.json()["error"]["message"]
    assert _one(app, "GET", f"/v1/responses/{response_id}?stream=true").status_code == 401


def test_a_cut_responses_stream_resumed_over_loopback_equals_the_unbroken_one() -> None:
    """The client's view: a stream dropped mid-body (``cut_at``, once: ``times=1``), then the
    resuming ``GET`` after the last ``sequence_number`` received, on a real socket."""
    app = create_app(endpoints([gen_responses]))
    with MockServer(app, timeout=TIMEOUT) as url, httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        whole = client.post("/v1/responses?text=Resumed+after+a+cut", json=RESPONSES_BODY)
        received: list[Any] = []
        with client.stream("POST", "/v1/responses?text=Resumed+after+a+cut&cut_at=5&times=1", json=RESPONSES_BODY) as r:
            with pytest.raises(httpx.RemoteProtocolError):
                for event in RESPONSES.decode(r.iter_bytes()):
                    received.append(event)
        kept = [e for e in received if type(e).__name__ != "StreamTruncated"]
        last = kept[-1].sequence_number
        query = f"?stream=true&starting_after={last}"
        with client.stream("GET", f"/v1/responses/{kept[0].response.id}{query}") as r:
            rest = list(RESPONSES.decode(r.iter_bytes()))
    assert last == 4 and rest[0].sequence_number == 5
    joined = RESPONSES.accumulate([*kept, *rest])
    expected = RESPONSES.accumulate(RESPONSES.decode(whole.iter_bytes()))
    assert joined.to_dict() == expected.to_dict() and joined.complete and joined.output[0].text == "Resumed after a cut"


@pytest.mark.parametrize("provider", GENERATED_PROVIDERS)
def test_every_request_class_is_a_type_msgspec_decodes(provider: str) -> None:
    """Request unions are typed as their alternatives where msgspec tells them apart by JSON
    type (``codemodel/clients.py``): each class still builds a decoder (msgspec refuses a union of
    two untagged Structs, or of two array types, when the decoder is built, not when the class is)."""
    module = importlib.import_module(f"generated.{provider}.requests")
    classes = [c for c in vars(module).values() if isinstance(c, type) and c.__module__ == module.__name__]
    for cls in classes:
        if issubclass(cls, msgspec.Struct):
            msgspec.json.Decoder(cls)


def test_deepseek_stop_and_tool_choice_take_the_shapes_the_page_states() -> None:
    """``stop`` a string or a list of strings, ``tool_choice`` a mode string or the named tool
    (``specs/deepseek/api-docs.txt``: ``oneOf`` / ``string`` / ``string``, and the tool-choice
    values): both encode as given and decode back."""
    requests = importlib.import_module("generated.deepseek.requests")
    body = requests.CreateChatCompletionRequest(messages=[{"role": "user", "content": "Hi"}], stop=["\n\n", "END"])
    assert json.loads(msgspec.json.encode(msgspec.structs.replace(body, tool_choice="auto")))["tool_choice"] == "auto"
    named = requests.CreateChatCompletionRequestToolChoice(function={"name": "f"})
    sent = msgspec.json.encode(msgspec.structs.replace(body, tool_choice=named))
    decoded = msgspec.json.decode(sent, type=requests.CreateChatCompletionRequest)
    assert decoded.stop == ["\n\n", "END"] and decoded.tool_choice == named


def test_an_untagged_union_argument_is_typed_by_its_classes_and_sent_as_given() -> None:
    """The Responses ``tools`` items are objects no member tells apart (``web_search`` has two
    ``type`` values): the body field stays ``list[Any]`` (msgspec decodes no union of untagged
    Structs), the typed method's argument is the union of their classes, and instances are sent
    as their JSON objects."""
    requests = importlib.import_module("generated.openai_responses.requests")
    client = importlib.import_module("generated.openai_responses.client")
    runtime = importlib.import_module("generated._runtime.client_request")
    annotation = inspect.signature(client.Client.create_response).parameters["tools"].annotation
    assert annotation == "list[FunctionToolParam | WebSearchToolParam | FileSearchToolParam] | None"
    assert requests.CreateResponseRequest.__annotations__["tools"] == "list[Any] | None"
    tools = [requests.FunctionToolParam(type="function", name="f"), requests.WebSearchToolParam(type="web_search")]
    body = requests.CreateResponseRequest(model="m", tools=tools)
    sent = runtime.request_body(client.V1_RESPONSES_OPERATION, body)
    assert sent["tools"] == [{"type": "function", "name": "f"}, {"type": "web_search"}]
    msgspec.json.Decoder(requests.CreateResponseRequest)
