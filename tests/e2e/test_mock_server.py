"""``ssegen mock`` over real sockets (loopback only): the openai and anthropic SDKs pointed at it
with ``base_url``, and raw httpx and aiohttp clients decoding with the generated packages, get what
the mock was told to send; a cut stream gives the client's own error and ssegen's ``truncated``.

The server runs in a thread of the test process (:class:`ssegen.mock.MockServer`, a free port,
stopped by the fixture) or as the real ``ssegen mock`` command in a subprocess (killed by the
test). Every client has a timeout, every loop a bound on its count and time.
"""

from __future__ import annotations

import asyncio
import json
import selectors
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import aiohttp
import httpx
import pytest
from conftest import ROOT

from generated import anthropic as gen_anthropic
from generated import cohere as gen_cohere
from generated import deepseek as gen_deepseek
from generated import gemini as gen_gemini
from generated import mistral as gen_mistral
from generated import openai_responses as gen_responses
from generated import xerotier as gen_xerotier
from ssegen.mock import MockServer, create_app, endpoints
from ssegen.mock_requests import _replaced, with_model
from ssegen.replay import DEFAULT_TEXT, frame_source, frames_for

pytestmark = pytest.mark.e2e

CHAT = gen_deepseek.CHANNELS["/chat/completions"]
MESSAGES = gen_anthropic.CHANNELS["/v1/messages"]
RESPONSES = gen_responses.CHANNELS["/v1/responses"]
DOCS_TEXT = "Hello! How can I assist you today?"  # DeepSeek's docs example stream (api-docs.txt:385)
TIMEOUT = 10.0  # seconds, for every client; a hung server fails the test instead of hanging it
BIN = Path(sys.executable).parent
# Every spec served declares auth: a request without a key gets a 401; Anthropic's requires its
# version header (ignored by the others): a request without it gets a 400.
KEY = {"authorization": "Bearer k", "anthropic-version": "2023-06-01"}
#: A body each channel's request schema takes (schemas.json "requests"; Mistral and Xerotier state none).
BODIES: dict[str, dict[str, Any]] = {
    "/chat/completions": {"model": "deepseek-chat", "messages": [{"role": "user", "content": "Hi"}], "stream": True},
    "/v1/messages": {"model": "claude-test", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]},
    "/v1/responses": {"model": "gpt-test", "input": "Hi", "stream": True},
    "/chat": {"model": "command-a", "messages": [{"role": "user", "content": "Hi"}], "stream": True},
    "/models/{model}:streamGenerateContent": {"contents": [{"role": "user", "parts": [{"text": "Hi"}]}]},
}


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    packages = [gen_deepseek, gen_anthropic, gen_responses, gen_mistral, gen_xerotier, gen_gemini, gen_cohere]
    with MockServer(create_app(endpoints(packages)), timeout=TIMEOUT) as base:
        assert base.startswith("http://127.0.0.1:")
        yield base


def _expected(channel: Any, **source: Any) -> dict[str, Any]:
    """What the generated decoder assembles from the frames the mock was told to send."""
    result: dict[str, Any] = channel.accumulate(channel.decode(frames_for(channel, **source))).to_dict()
    return result


def test_openai_sdk_streams_the_deepseek_docs_example(url: str, openai_sdk: ModuleType) -> None:
    openai = openai_sdk
    client = openai.OpenAI(api_key="unused", base_url=url, max_retries=0, timeout=TIMEOUT)
    chunks = client.chat.completions.create(
        model="deepseek-chat", messages=[{"role": "user", "content": "Hi"}], stream=True
    )
    text = "".join(chunk.choices[0].delta.content or "" for chunk in chunks if chunk.choices)
    assert text == DOCS_TEXT == _expected(CHAT)["choices"][0]["content"]
    with client.chat.completions.stream(model="deepseek-chat", messages=[]) as stream:
        final = stream.get_final_completion()
    assert final.choices[0].message.content == DOCS_TEXT and final.usage is not None
    assert final.usage.completion_tokens == 9  # the docs example's last chunk


def test_openai_sdk_assembles_a_responses_stream(url: str, openai_sdk: ModuleType) -> None:
    openai = openai_sdk
    client = openai.OpenAI(api_key="unused", base_url=f"{url}/v1", max_retries=0, timeout=TIMEOUT)
    with client.responses.stream(model="gpt-test", input="Hi") as stream:
        response = stream.get_final_response()
    assert response.output_text == DEFAULT_TEXT and response.status == "completed"
    assert response.model == "gpt-test"  # the request's model, in the synthesized stream


def test_anthropic_sdk_gets_the_synthesized_text(url: str, anthropic_sdk: ModuleType) -> None:
    anthropic = anthropic_sdk
    client = anthropic.Anthropic(api_key="unused", base_url=url, max_retries=0, timeout=TIMEOUT)
    with client.messages.stream(model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "Hi"}]) as s:
        message = s.get_final_message()
    assert message.content[0].text == DEFAULT_TEXT and message.stop_reason == "end_turn"  # type: ignore[union-attr]
    told = anthropic.Anthropic(
        api_key="unused",
        base_url=url,
        max_retries=0,
        timeout=TIMEOUT,
        default_headers={"x-ssegen-text": "Told to say this.", "x-ssegen-fault": "delay=0.01"},
    )
    with told.messages.stream(model="claude-test", max_tokens=64, messages=[]) as s:
        assert s.get_final_message().content[0].text == "Told to say this."  # type: ignore[union-attr]


def test_sdks_raise_their_own_errors_on_an_error_event_and_a_cut(
    url: str, anthropic_sdk: ModuleType, openai_sdk: ModuleType
) -> None:
    anthropic = anthropic_sdk
    openai = openai_sdk
    claude = anthropic.Anthropic(
        api_key="unused",
        base_url=url,
        max_retries=0,
        timeout=TIMEOUT,
        default_headers={"x-ssegen-fault": "error_event=3"},
    )
    with pytest.raises(anthropic.APIStatusError, match="overloaded_error"):
        with claude.messages.stream(model="m", max_tokens=8, messages=[]) as s:
            s.get_final_message()
    deepseek = openai.OpenAI(api_key="unused", base_url=url, max_retries=0, timeout=TIMEOUT)
    chunks = deepseek.chat.completions.create(model="m", messages=[], stream=True, extra_query={"cut_at": 3})
    texts: list[str] = []
    with pytest.raises(openai.APIConnectionError):
        for chunk in chunks:
            texts.append(chunk.choices[0].delta.content or "")
    assert "".join(texts) == "Hello!"


def _as_served(channel: Any, events: list[Any], told: dict[str, Any]) -> list[Any]:
    """The events the mock sends for ``told`` and a request naming ``model`` (the body's, in every
    event naming one) whose Responses stream's id is the one in ``events`` (derived per request)."""
    model = BODIES.get(channel.address, {}).get("model")
    expected = list(channel.decode(with_model(frame_source(channel, model=model, **told), model)))
    served_id = next((e.response.id for e in events if hasattr(e, "response")), None)
    return [_replaced(e, ("response", "id"), served_id) if served_id else e for e in expected]


def _until_cut(chunks: Iterator[bytes], errors: list[Exception]) -> Iterator[bytes]:
    try:
        yield from chunks
    except httpx.HTTPError as exc:
        errors.append(exc)


async def _auntil_cut(chunks: AsyncIterator[bytes], errors: list[Exception]) -> AsyncIterator[bytes]:
    try:
        async for chunk in chunks:
            yield chunk
    except (httpx.HTTPError, aiohttp.ClientError) as exc:
        errors.append(exc)


CASES = [
    # (provider path, channel, request options, what the mock was told to send)
    ("/chat/completions", CHAT, {}, {}),
    ("/chat/completions?text=Raw+httpx+here&read_size=7", CHAT, {}, {"text": "Raw httpx here"}),
    ("/v1/messages?read_size=5&delay=0.002", MESSAGES, {}, {}),
    ("/v1/responses?text=%C3%9Cber+%F0%9F%8E%89", RESPONSES, {"x-ssegen-fault": "read_size=3"}, {"text": "Über 🎉"}),
    ("/v1/responses", RESPONSES, {"x-ssegen-text": "Told by a header"}, {"text": "Told by a header"}),
    ("/v1/chat/completions", gen_mistral.CHANNELS["/chat/completions"], {}, {}),  # under the server's /v1
    ("/v2/chat?read_size=64", gen_cohere.CHANNELS["/chat"], {}, {}),  # under the server's /v2
    (
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",  # a channel parameter
        gen_gemini.CHANNELS["/models/{model}:streamGenerateContent"],
        {},
        {},
    ),
    (
        "/xerotier/chat/completions?stream=tool-call-stream-example",
        gen_xerotier.CHANNELS["/chat/completions"],
        {},
        {"stream": "tool-call-stream-example"},
    ),
]


@pytest.mark.parametrize(("path", "channel", "headers", "told"), CASES, ids=[c[0] for c in CASES])
def test_raw_httpx_decodes_what_the_mock_was_told_to_send(
    url: str, path: str, channel: Any, headers: dict[str, str], told: dict[str, Any]
) -> None:
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        body = BODIES.get(channel.address, {"stream": True})
        with client.stream("POST", path, json=body, headers=headers) as response:
            assert response.status_code == 200 and response.headers["transfer-encoding"] == "chunked"
            assert response.headers["content-type"].startswith("text/event-stream")
            events = list(channel.decode(response.iter_bytes()))
    expected = _as_served(channel, events, told)
    assert events == expected  # typed, event by event
    result = channel.accumulate(events).to_dict()
    assert result == channel.accumulate(expected).to_dict()
    assert result["complete"] is (channel.family != "none")  # a channel without a plan sets no completion


@pytest.mark.parametrize(("path", "channel", "headers", "told"), CASES, ids=[c[0] for c in CASES])
def test_raw_aiohttp_decodes_what_the_mock_was_told_to_send(
    url: str, path: str, channel: Any, headers: dict[str, str], told: dict[str, Any]
) -> None:
    async def run() -> dict[str, Any]:
        timeout = aiohttp.ClientTimeout(total=TIMEOUT)
        async with aiohttp.ClientSession(timeout=timeout, headers=KEY) as session:
            body = BODIES.get(channel.address, {"stream": True})
            async with session.post(url + path, json=body, headers=headers) as response:
                assert response.status == 200
                result = await channel.aaccumulate(channel.adecode(response.content.iter_any()))
        return result.to_dict()  # type: ignore[no-any-return]

    result = asyncio.run(run())
    expected = _expected(channel, **told)
    result.pop("model"), expected.pop("model")
    if channel is RESPONSES:  # the mock derives each response's id from the request, for resuming it
        assert result.pop("id").startswith("resp_") and expected.pop("id")
    assert result == expected


def test_a_cut_gives_each_clients_error_and_ssegens_truncated(url: str) -> None:
    errors: list[Exception] = []
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        with client.stream("POST", "/chat/completions", headers={"x-ssegen-fault": "cut_at=3"}) as response:
            result = CHAT.accumulate(CHAT.decode(_until_cut(response.iter_bytes(), errors)))
    assert [type(e) for e in errors] == [httpx.RemoteProtocolError]
    assert result.complete is False and result.errors[-1]["kind"] == "truncated"
    assert result.errors[-1]["bytes_discarded"] > 0 and result.choices[0].content == "Hello!"

    async def run() -> Any:
        caught: list[Exception] = []
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=TIMEOUT), headers=KEY) as session:
            async with session.post(f"{url}/v1/messages?cut_at=4&read_size=9") as response:
                final = await MESSAGES.aaccumulate(MESSAGES.adecode(_auntil_cut(response.content.iter_any(), caught)))
        return caught, final

    caught, final = asyncio.run(run())
    assert [type(e) for e in caught] == [aiohttp.ClientPayloadError]
    assert final.complete is False and final.errors[-1]["kind"] == "truncated"
    assert final.output[0].text == "Hello from"  # the deltas before the cut event

    # cut=close: the body ends cleanly; only the decoder sees the cut.
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        with client.stream("POST", "/chat/completions?cut_at=3&cut=close") as response:
            clean = CHAT.accumulate(CHAT.decode(response.iter_bytes()))
    assert clean.complete is False and clean.errors[-1]["kind"] == "truncated"


def test_a_stall_times_the_client_out(url: str) -> None:
    started = time.monotonic()
    with httpx.Client(base_url=url, timeout=httpx.Timeout(TIMEOUT, read=0.3), headers=KEY) as client:
        with client.stream("POST", "/chat/completions?stall_after=2&stall=20") as response:
            events: list[Any] = []
            with pytest.raises(httpx.ReadTimeout):
                for event in CHAT.decode(response.iter_bytes()):
                    events.append(event)
    assert len(events) == 2 and time.monotonic() - started < TIMEOUT


def test_requests_the_mock_cannot_answer_and_the_index(url: str) -> None:
    with httpx.Client(base_url=url, timeout=TIMEOUT, headers=KEY) as client:
        refused = client.post("/chat/completions", json={"model": "m", "stream": False})
        assert refused.status_code == 400 and '"stream": true' in refused.json()["error"]["message"]
        missing = client.post("/v1/embeddings")
        said = missing.json()["error"]["message"]
        assert missing.status_code == 404 and said.startswith("ssegen mock: no channel at /v1/embeddings;")
        assert "\n  /v1/messages\n" in said  # one channel per line
        bad = client.post("/chat/completions?cut_at=40")
        assert bad.status_code == 400 and "cut_at=40: the stream has 12 events" in bad.json()["error"]["message"]
        listed = client.get("/", headers={"accept": "application/json"}).json()["channels"]
        page = client.get("/").text
    rows = {(row["provider"], row["address"]): row for row in listed}
    assert rows["mistral", "/chat/completions"]["paths"] == ["/v1/chat/completions", "/mistral/v1/chat/completions"]
    assert rows["xerotier", "/chat/completions"]["paths"] == ["/xerotier/chat/completions"]  # deepseek has the bare one
    assert all(f'href="{path}"' in page for row in listed for path in row["paths"])


def _first_line(process: subprocess.Popen[str], deadline: float) -> str:
    """The command's first line of output, waiting until ``deadline`` (``time.monotonic()``)."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        while time.monotonic() < deadline:
            if selector.select(timeout=0.1):
                return process.stdout.readline()
            assert process.poll() is None, process.communicate()
    raise AssertionError("ssegen mock printed nothing in time")


def test_the_ssegen_mock_command_serves_the_openai_sdk(tmp_path: Path, openai_sdk: ModuleType) -> None:
    openai = openai_sdk
    capture = tmp_path / "capture.sse"
    capture.write_bytes(b"".join(frames_for(CHAT, text="Replayed from a capture")))
    process = subprocess.Popen(
        [str(BIN / "ssegen"), "mock", "deepseek", "--port", "0", "--replay", f"/chat/completions={capture}"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = _first_line(process, time.monotonic() + 30)
        assert line.startswith("ssegen mock: serving on http://127.0.0.1:"), line
        base = line.split()[4]
        client = openai.OpenAI(api_key="unused", base_url=base, max_retries=0, timeout=TIMEOUT)
        with client.chat.completions.stream(model="deepseek-chat", messages=[]) as stream:
            assert stream.get_final_completion().choices[0].message.content == "Replayed from a capture"
        beta = openai.OpenAI(api_key="unused", base_url=f"{base}/beta", max_retries=0, timeout=TIMEOUT)
        chunks = beta.completions.create(model="deepseek-chat", prompt="def f(", stream=True)
        assert "".join(c.choices[0].text for c in chunks if c.choices) == DEFAULT_TEXT
        listing = json.loads(httpx.get(base, headers={"accept": "application/json"}, timeout=TIMEOUT).text)
        assert {row["address"] for row in listing["channels"]} == {"/chat/completions", "/beta/completions"}
    finally:
        process.terminate()
        try:
            process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()


def test_the_command_explains_bad_options() -> None:
    run = subprocess.run(
        [str(BIN / "ssegen"), "mock", "deepseek", "--fault", "cut_after=1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "cut_after=1" in run.stderr and "NAME=VALUE" in run.stderr
    run = subprocess.run(
        [str(BIN / "ssegen"), "mock", "deepseek", "--replay", str(ROOT / "pyproject.toml")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "say which channel" in run.stderr
