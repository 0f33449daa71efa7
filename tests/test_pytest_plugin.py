"""The ``sse_mock`` fixture (ssegen's pytest plugin, entry point ``pytest11``): httpx clients (sync
and async, httpx and the SDKs' httpx2) get a generated channel's stream, with faults, through a
transport; no socket is opened."""

from __future__ import annotations

import asyncio
import importlib.metadata
import time
from types import ModuleType
from typing import Any

import httpx
import pytest

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import openai_responses as gen_responses
from ssegen.replay import FaultError
from ssegen.transport import CUT_MESSAGE, SSEMock

pytest_plugins = ["pytester"]

CHAT = gen_deepseek.CHANNELS["/chat/completions"]
DOCS_TEXT = "Hello! How can I assist you today?"  # DeepSeek's docs example stream (api-docs.txt:385)


def _body_until_cut(chunks: Any, errors: list[Exception]) -> Any:
    """The body's chunks up to the client's error (kept in ``errors``): the decoder then sees
    the body end where the connection dropped, as a consumer's own retry logic would."""
    try:
        yield from chunks
    except httpx.HTTPError as exc:
        errors.append(exc)


def test_the_plugin_is_registered_by_its_entry_point(pytestconfig: pytest.Config) -> None:
    (entry,) = [e for e in importlib.metadata.entry_points(group="pytest11") if e.name == "ssegen"]
    assert entry.value == "ssegen.pytest_plugin"
    assert pytestconfig.pluginmanager.has_plugin("ssegen")


def test_sync_client_gets_the_docs_example_stream(sse_mock: SSEMock) -> None:
    route = sse_mock.route(CHAT)
    with sse_mock.client() as client:
        with client.stream("POST", "https://api.deepseek.com/chat/completions", json={"stream": True}) as response:
            assert response.headers["content-type"].startswith("text/event-stream")
            reads = list(response.iter_bytes())
    result = CHAT.accumulate(CHAT.decode(reads))
    assert result.choices[0].content == DOCS_TEXT and result.complete and result.errors == []
    assert len(reads) == len(route.frames) == 12  # one read per event
    assert [r.url.path for r in route.requests] == ["/chat/completions"]


def test_async_client_reads_in_the_chosen_sizes(sse_mock: SSEMock) -> None:
    sse_mock.route("deepseek", "/chat/completions", text="Grüße, 世界!", read_size=3)

    async def run() -> tuple[list[bytes], Any]:
        async with sse_mock.async_client() as client:
            async with client.stream("POST", "http://mock/v1/chat/completions") as response:
                reads = [chunk async for chunk in response.aiter_bytes()]
        return reads, await CHAT.aaccumulate(CHAT.adecode(_aiter(reads)))

    reads, result = asyncio.run(run())
    assert {len(r) for r in reads[:-1]} == {3}  # cut inside UTF-8 characters and line ends too
    assert result.choices[0].content == "Grüße, 世界!" and result.complete


async def _aiter(items: list[bytes]) -> Any:
    for item in items:
        yield item


def test_a_cut_gives_the_clients_error_and_the_decoders_truncated(sse_mock: SSEMock) -> None:
    sse_mock.route(CHAT, cut_at=3)
    errors: list[Exception] = []
    with sse_mock.client() as client, client.stream("POST", "https://x/chat/completions") as response:
        result = CHAT.accumulate(CHAT.decode(_body_until_cut(response.iter_bytes(), errors)))
    assert [type(e) for e in errors] == [httpx.RemoteProtocolError] and str(errors[0]) == CUT_MESSAGE
    assert result.complete is False and result.errors[-1]["kind"] == "truncated"
    assert result.choices[0].content == "Hello!"


def test_a_clean_cut_is_seen_by_the_decoder_only(sse_mock: SSEMock) -> None:
    sse_mock.route(CHAT, faults="cut_at_byte=700, cut=close")
    with sse_mock.client() as client, client.stream("GET", "https://x/chat/completions") as response:
        result = CHAT.accumulate(CHAT.decode(response.iter_bytes()))
    assert result.complete is False and result.errors[-1]["kind"] == "truncated"


def test_error_event_reaches_the_openai_sdk_as_its_own_error(sse_mock: SSEMock, openai_sdk: ModuleType) -> None:
    openai = openai_sdk
    sse_mock.route(CHAT, error_event=4)
    client = openai.OpenAI(api_key="test", base_url="https://api.deepseek.com", http_client=sse_mock.client(openai))
    stream = client.chat.completions.create(model="deepseek-chat", messages=[], stream=True)
    with pytest.raises(openai.APIError, match="error event injected"):
        list(stream)
    # The same bytes through the generated decoder: the error is recorded, the text before it kept.
    with sse_mock.client() as raw, raw.stream("POST", "https://x/chat/completions") as response:
        result = CHAT.accumulate(CHAT.decode(response.iter_bytes()))
    assert result.choices[0].content == "Hello! How" and [e["kind"] for e in result.errors] == ["error_event"]


def test_a_stall_past_the_read_timeout_times_out(sse_mock: SSEMock) -> None:
    sse_mock.route(CHAT, stall_after=2, stall=30)
    started = time.monotonic()
    with sse_mock.client(timeout=0.2) as client, client.stream("POST", "https://x/chat/completions") as response:
        events = []
        with pytest.raises(httpx.ReadTimeout):
            for event in CHAT.decode(response.iter_bytes()):
                events.append(event)
    assert len(events) == 2 and time.monotonic() - started < 5


def test_a_stall_within_the_read_timeout_delays_the_rest(sse_mock: SSEMock) -> None:
    sse_mock.route(CHAT, faults="stall_after=5, stall=0.2")

    async def run() -> tuple[Any, float]:
        started = time.monotonic()
        async with sse_mock.async_client(timeout=5) as client:
            async with client.stream("POST", "https://x/chat/completions") as response:
                result = await CHAT.aaccumulate(CHAT.adecode(response.aiter_bytes()))
        return result, time.monotonic() - started

    result, took = asyncio.run(run())
    assert result.choices[0].content == DOCS_TEXT and 0.2 <= took < 5


def test_the_anthropic_sdk_assembles_a_synthesized_answer(sse_mock: SSEMock, anthropic_sdk: ModuleType) -> None:
    anthropic = anthropic_sdk
    sse_mock.route(gen_anthropic.CHANNELS["/v1/messages"], text="Hi there, Claude here.", model="claude-test")
    client = anthropic.Anthropic(api_key="test", http_client=sse_mock.client(anthropic), max_retries=0)
    with client.messages.stream(model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as s:
        message = s.get_final_message()
    assert message.content[0].text == "Hi there, Claude here." and message.model == "claude-test"  # type: ignore[union-attr]


def test_the_openai_sdk_assembles_a_responses_stream_asynchronously(sse_mock: SSEMock, openai_sdk: ModuleType) -> None:
    openai = openai_sdk
    sse_mock.route(gen_responses.CHANNELS["/v1/responses"], text="Async hello", read_size=11)

    async def run() -> Any:
        http_client = sse_mock.async_client(openai)
        async with openai.AsyncOpenAI(api_key="test", http_client=http_client, max_retries=0) as client:
            async with client.responses.stream(model="gpt-test", input="hi") as stream:
                return await stream.get_final_response()

    assert asyncio.run(run()).output_text == "Async hello"


def test_header_faults_and_unknown_routes_are_answered(sse_mock: SSEMock) -> None:
    sse_mock.route(CHAT)
    with sse_mock.client() as client:
        bad = client.post("https://x/chat/completions", headers={"x-ssegen-fault": "cut_at=99"})
        assert bad.status_code == 400 and "cut_at=99" in bad.json()["error"]["message"]
        missing = client.post("https://x/v1/embeddings")
        assert missing.status_code == 404 and "/chat/completions" in missing.json()["error"]["message"]
        assert client.post("https://x/chat/completions", json={"stream": False}).status_code == 400
        cut = client.post("https://x/chat/completions", headers={"x-ssegen-fault": "cut_at=1, cut=close"})
        assert cut.status_code == 200 and not cut.content.endswith(b"\n\n")
    assert len(sse_mock.requests) == 4


def test_route_refuses_what_it_cannot_send(sse_mock: SSEMock) -> None:
    with pytest.raises(FaultError, match="cut_at=40"):
        sse_mock.route(CHAT, cut_at=40)
    with pytest.raises(FaultError, match="several channels"):
        sse_mock.route("deepseek")
    with pytest.raises(FaultError, match="unknown fault 'cut_after'"):
        sse_mock.route(CHAT, cut_after=1)
    assert sse_mock.routes == []


def test_the_readme_example_runs_in_a_users_suite(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    """The docs' plugin example, as a user's test file in a project of its own, run by pytest in
    a subprocess with nothing but the installed plugin (found through its entry point)."""
    from conftest import ROOT
    from helpers.readme import doc_block

    block = doc_block("docs/encoding-and-mock.md", "python", "# tests/test_chat_ui.py")
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # where `generated` is; a user's package is installed
    pytester.makepyfile(test_chat_ui=block.text)
    result = pytester.runpytest_subprocess("-q", "-p", "no:cacheprovider", timeout=120)
    result.assert_outcomes(passed=block.text.count("\ndef test_"))
