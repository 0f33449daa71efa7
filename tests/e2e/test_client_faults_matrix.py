"""The fault matrix (issue 33 item 5): every family's generated client (chat: DeepSeek, Messages:
Anthropic, Responses: OpenAI, Gemini, Cohere, Ollama NDJSON), sync and async, against ``ssegen
mock`` on loopback (:class:`ssegen.mock.MockServer`), each fault asked per request in the
``x-ssegen-fault`` header (the client's ``headers=``):

- ``status=503, times=2``: retried twice, then the clean stream;
- ``status=429, retry_after=0.2``: the retry waits the ``retry-after-ms`` the answer gives;
- ``cut_at``: resumed to the unbroken stream where the contract resumes (Responses'
  ``starting_after``; ``Last-Event-ID`` where the events carry ids), else ``truncated``; a cut
  before any content starts over;
- ``stall_after``: ``stalled`` within ``idle_timeout`` + 1 s, or resumed where resumable;
- ``error_event``: an error that says "try again" before content is retried, one after content
  is recorded (``error_event``) and not retried;
- a body its schema rejects: :class:`APIStatusError` 400 naming the JSON pointer.

"Equal" is ``StreamResult.to_dict()`` equal to the clean request's through the same client. One
server serves the module; each test gets a fresh app behind it (``times`` counts and remembered
responses start empty), so a sync and an async run of the same fault count apart.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from generated import anthropic as gen_anthropic
from generated import cohere as gen_cohere
from generated import deepseek as gen_deepseek
from generated import gemini as gen_gemini
from generated import ollama as gen_ollama
from generated import openai_responses as gen_responses
from generated._runtime.client import APIStatusError, Backoff
from ssegen.mock import MockServer, create_app, endpoints
from ssegen.replay import FAULT_HEADER

pytestmark = pytest.mark.e2e

TIMEOUT = 10.0  # seconds, every client's connect/read bound: a hung server fails the test
IDLE = 0.3  # seconds: the idle timeout of the stall cells
STALL = 5.0  # seconds the mock stalls: far past IDLE, so only the idle timeout ends the wait
FAST = Backoff(base=0.01)  # retries without a Retry-After wait at most 10 ms, doubling


@dataclass(frozen=True)
class Family:
    """One family's channel on the mock, a body for it, and where its content has begun.

    Attributes:
        package: the generated package.
        address: the channel's address (``client.stream(address, body)``).
        body: a valid request body.
        after: an event index by which content has arrived (a cut, stall or error there comes
            after content), and below the stream's length.
        bad: a body the request schema rejects, and the JSON pointer the 400 names.
        path_params: the path's parameters.
    """

    package: ModuleType
    address: str
    body: dict[str, Any]
    after: int
    bad: tuple[dict[str, Any], str]
    path_params: dict[str, str] | None = None


FAMILIES = {
    "chat": Family(
        gen_deepseek,
        "/chat/completions",
        {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}]},
        4,
        ({"model": "deepseek-chat", "messages": "Hi"}, "/messages"),
    ),
    "messages": Family(
        gen_anthropic,
        "/v1/messages",
        {"model": "claude-sonnet-4-5", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]},
        4,
        ({"model": "claude-sonnet-4-5", "max_tokens": 64}, "/messages"),
    ),
    "responses": Family(
        gen_responses,
        "/v1/responses",
        {"model": "gpt-4.1", "input": "Hi", "background": True},  # a background response resumes
        5,
        ({"model": "gpt-4.1", "input": "Hi", "background": "yes"}, "/background"),
    ),
    "gemini": Family(
        gen_gemini,
        "/models/{model}:streamGenerateContent",
        {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]},
        2,
        ({"contents": [{"parts": [{"text": 5}]}]}, "/contents/0/parts/0/text"),
        {"model": "gemini-2.5-flash"},
    ),
    "cohere": Family(
        gen_cohere,
        "/chat",
        {"model": "command-a", "messages": [{"role": "user", "content": "Hi"}]},
        4,
        ({"model": "command-a", "messages": "Hi"}, "/messages"),
    ),
    "ollama": Family(
        gen_ollama,
        "/api/chat",
        {"model": "llama3.2", "messages": [{"role": "user", "content": "Hi"}]},
        2,
        ({"model": 5, "messages": []}, "/model"),
    ),
}
MODES = ["sync", "async"]


@dataclass
class Outcome:
    """One call through a generated client: its result, the requests sent, its retries, and the
    seconds its reading took."""

    result: dict[str, Any]
    requests: list[tuple[float, str, str, str | None]] = field(default_factory=list)  # time, method, URL, Last-Event-ID
    retries: list[Any] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def kinds(self) -> list[str]:
        return [error["kind"] for error in self.result["errors"]]


class _Behind:
    """An ASGI app handing each request to :attr:`app`, so one server serves fresh apps."""

    app: Any = None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)


SERVED = endpoints([family.package for family in FAMILIES.values()])


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, _Behind]]:
    behind = _Behind()
    behind.app = create_app(SERVED)
    with MockServer(behind, timeout=TIMEOUT) as url:
        yield url, behind


@pytest.fixture
def url(server: tuple[str, _Behind]) -> str:
    """The server's URL, with a fresh app behind it."""
    base, behind = server
    behind.app = create_app(SERVED)
    return base


def _call(family: Family, mode: str, url: str, faults: str = "", body: Any = None, **options: Any) -> Outcome:
    """``client.stream(address, body)`` of ``family``'s generated client (``mode``: its
    ``Client`` or its ``AsyncClient``) on the mock at ``url`` (the path of the package's first
    server kept: ``/v1beta``, ``/v2``), ``faults`` in the fault header, accumulated."""
    base = url + urlsplit(family.package.Client.default_base_url).path.rstrip("/")
    headers = {FAULT_HEADER: faults} if faults else None
    options = {"idle_timeout": IDLE, "backoff": FAST, "headers": headers, **options}
    body = family.body if body is None else body
    outcome = Outcome({})

    def note(request: httpx.Request) -> None:
        outcome.requests.append(
            (time.monotonic(), request.method, str(request.url), request.headers.get("last-event-id"))
        )

    if mode == "sync":
        with (
            httpx.Client(timeout=TIMEOUT, event_hooks={"request": [note]}) as http,
            family.package.Client(base, "k", http_client=http, **options) as client,
            client.stream(family.address, body, path_params=family.path_params) as events,
        ):
            start = time.monotonic()
            outcome.result = events.accumulate().to_dict()
            outcome.seconds, outcome.retries = time.monotonic() - start, list(events.retries)
        return outcome

    async def anote(request: httpx.Request) -> None:
        note(request)

    async def run() -> None:
        async with (
            httpx.AsyncClient(timeout=TIMEOUT, event_hooks={"request": [anote]}) as http,
            family.package.AsyncClient(base, "k", http_client=http, **options) as client,
            client.stream(family.address, body, path_params=family.path_params) as events,
        ):
            start = time.monotonic()
            outcome.result = (await events.aaccumulate()).to_dict()
            outcome.seconds, outcome.retries = time.monotonic() - start, list(events.retries)

    asyncio.run(run())
    return outcome


_clean: dict[str, dict[str, Any]] = {}


def _clean_result(name: str, url: str) -> dict[str, Any]:
    """The family's result with no fault (sync and async give the same: checked once each)."""
    if name not in _clean:
        _clean[name] = _call(FAMILIES[name], "sync", url).result
    return _clean[name]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_the_clean_stream_is_complete_and_the_same_sync_and_async(name: str, mode: str, url: str) -> None:
    outcome = _call(FAMILIES[name], mode, url)
    assert outcome.result == _clean_result(name, url) and outcome.result["complete"]
    assert outcome.kinds == [] and len(outcome.requests) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_503_twice_then_success_gives_the_clean_stream(name: str, mode: str, url: str) -> None:
    outcome = _call(FAMILIES[name], mode, url, "status=503, times=2")
    assert outcome.result == _clean_result(name, url)
    assert len(outcome.requests) == 3 and [r.kind for r in outcome.retries] == ["retry", "retry"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_429_waits_the_retry_after_it_is_given(name: str, mode: str, url: str) -> None:
    """``retry-after-ms: 200`` (the mock sends it for a fraction of a second, with
    ``Retry-After: 1``, whole seconds rounded up: RFC 9110 10.2.3) is the wait, not the whole
    second nor the backoff's (10 ms here)."""
    outcome = _call(FAMILIES[name], mode, url, "status=429, retry_after=0.2, times=1")
    assert outcome.result == _clean_result(name, url)
    (first, *_), (second, *_) = outcome.requests
    assert len(outcome.requests) == 2 and [r.delay for r in outcome.retries] == [0.2]
    assert 0.2 <= second - first < 0.2 + 1.0  # waited; the delay logged is that of retry-after-ms


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_cut_after_content_resumes_where_the_contract_allows_else_is_truncated(
    name: str, mode: str, url: str
) -> None:
    family = FAMILIES[name]
    outcome = _call(family, mode, url, f"cut_at={family.after}, times=1")
    if name == "responses":  # GET /v1/responses/{id}?stream=true&starting_after=N
        assert outcome.result == _clean_result(name, url) and [r.kind for r in outcome.retries] == ["resume"]
        (_, method, resumed, _) = outcome.requests[-1]
        assert len(outcome.requests) == 2 and method == "GET"
        assert f"stream=true&starting_after={family.after - 1}" in resumed  # sequence numbers from 0
    else:
        assert outcome.kinds == ["truncated"] and not outcome.result["complete"]
        assert len(outcome.requests) == 1  # content had arrived: not started over


SSE = [name for name in FAMILIES if name != "ollama"]  # NDJSON lines carry no ids


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", SSE)
@pytest.mark.parametrize("fault", ["cut", "stall"])
def test_a_stream_whose_events_carry_ids_resumes_to_the_unbroken_stream(
    name: str, mode: str, fault: str, url: str
) -> None:
    """``ids=1``: the events carry ``id:`` lines (1-based), and the mock honours
    ``Last-Event-ID``; after a cut or a stall past content, the result equals the unbroken one
    (Responses resumes by its sequence numbers instead)."""
    family = FAMILIES[name]
    broken = f"cut_at={family.after}" if fault == "cut" else f"stall_after={family.after}, stall={STALL:g}"
    outcome = _call(family, mode, url, f"ids=1, {broken}, times=1")
    assert outcome.result == _clean_result(name, url) and outcome.result["complete"]
    assert len(outcome.requests) == 2 and [r.kind for r in outcome.retries] == ["resume"]
    _, method, _, last_event_id = outcome.requests[-1]
    if name == "responses":
        assert method == "GET" and last_event_id is None  # starting_after, the contract's own way
    else:
        assert method == "POST" and last_event_id == str(family.after)  # the id of the last whole event


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_cut_before_any_content_starts_over(name: str, mode: str, url: str) -> None:
    outcome = _call(FAMILIES[name], mode, url, "cut_at=0, times=1")
    assert outcome.result == _clean_result(name, url)
    assert len(outcome.requests) == 2 and [r.kind for r in outcome.retries] == ["retry"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_stall_ends_stalled_within_the_idle_timeout(name: str, mode: str, url: str) -> None:
    """No retry left (``max_retries=0``, so Responses does not resume): the stream ends
    ``stalled`` about ``idle_timeout`` after the stall began, not when the mock's 5 s stall ends."""
    family = FAMILIES[name]
    outcome = _call(family, mode, url, f"stall_after={family.after}, stall={STALL:g}", max_retries=0)
    assert outcome.kinds == ["stalled"] and not outcome.result["complete"]
    assert len(outcome.requests) == 1 and IDLE <= outcome.seconds < IDLE + 1.0


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_stall_after_content_resumes_where_the_contract_allows_else_ends_stalled(
    name: str, mode: str, url: str
) -> None:
    family = FAMILIES[name]
    outcome = _call(family, mode, url, f"stall_after={family.after}, stall={STALL:g}, times=1")
    assert outcome.seconds < IDLE + 1.0
    if name == "responses":
        assert outcome.result == _clean_result(name, url) and [r.kind for r in outcome.retries] == ["resume"]
    else:
        assert outcome.kinds == ["stalled"] and len(outcome.requests) == 1


#: The families whose error event (the spec's own, :func:`ssegen.replay.error_frame`) says "try
#: again" (``client_retry.retryable_error``). Ollama's ``{"error": "model runner has
#: unexpectedly stopped"}`` carries no code: it is recorded, never retried.
RETRYABLE_EVENT = {"chat", "messages", "responses", "gemini", "cohere"}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_an_error_event_before_content_is_retried_when_it_says_try_again(name: str, mode: str, url: str) -> None:
    outcome = _call(FAMILIES[name], mode, url, "error_event=0, times=1")
    if name in RETRYABLE_EVENT:
        assert outcome.result == _clean_result(name, url)
        assert len(outcome.requests) == 2 and [r.kind for r in outcome.retries] == ["retry"]
    else:
        assert outcome.kinds == ["error_event"] and len(outcome.requests) == 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_an_error_event_after_content_is_recorded_and_not_retried(name: str, mode: str, url: str) -> None:
    """``times=1``: a retry would be served clean, so one request proves none was sent."""
    outcome = _call(FAMILIES[name], mode, url, f"error_event={FAMILIES[name].after}, times=1")
    assert "error_event" in outcome.kinds and outcome.result != _clean_result(name, url)
    assert len(outcome.requests) == 1 and outcome.retries == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FAMILIES)
def test_a_body_the_schema_rejects_is_an_api_status_error_400_naming_the_pointer(
    name: str, mode: str, url: str
) -> None:
    family = FAMILIES[name]
    body, pointer = family.bad
    with pytest.raises(APIStatusError) as raised:
        _call(family, mode, url, body=body)
    assert raised.value.status_code == 400
    assert f"does not match its schema at {pointer}:" in str(raised.value)
