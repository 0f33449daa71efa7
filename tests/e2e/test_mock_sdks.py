"""The clients users bring, pointed at ``ssegen mock`` (issue 36 item 4): Google's google-genai
with its default settings and with each published API version (``/v1beta`` and ``/v1``, the
Gemini spec's two servers), and the ollama client on NDJSON, whose text the mock synthesizes
from the channel's stated plan. The openai and anthropic SDKs: tests/e2e/test_mock_server.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from generated import gemini as gen_gemini
from generated import ollama as gen_ollama
from ssegen.mock import MockServer, create_app, endpoints

pytestmark = pytest.mark.sdk

TIMEOUT = 10.0  # seconds, for every client; a hung server fails the test instead of hanging it
TEXT = "Hello from the mock, word by word"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with MockServer(create_app(endpoints([gen_gemini, gen_ollama])), timeout=TIMEOUT) as base:
        yield base


@pytest.mark.parametrize("api_version", [None, "v1beta", "v1"])
def test_google_genai_streams_the_text(url: str, api_version: str | None) -> None:
    genai = pytest.importorskip("google.genai")
    types = pytest.importorskip("google.genai.types")
    version: dict[str, Any] = {"api_version": api_version} if api_version else {}
    options = types.HttpOptions(base_url=url, headers={"x-ssegen-text": TEXT}, timeout=int(TIMEOUT * 1000), **version)
    client = genai.Client(api_key="unused", http_options=options)
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-flash", contents="hi"))
    assert "".join(chunk.text or "" for chunk in chunks) == TEXT
    assert chunks[-1].candidates[0].finish_reason == types.FinishReason.STOP


def test_the_ollama_client_streams_the_text_of_the_stated_plan(url: str) -> None:
    ollama = pytest.importorskip("ollama")
    client = ollama.Client(host=url, headers={"x-ssegen-text": TEXT}, timeout=TIMEOUT)
    parts = list(client.chat(model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=True))
    assert "".join(part.message.content or "" for part in parts) == TEXT
    assert parts[-1].done and parts[-1].done_reason == "stop" and parts[-1].model == "llama3.2"
    generated = list(client.generate(model="llama3.2", prompt="hi", stream=True))
    assert "".join(part.response for part in generated) == TEXT and generated[-1].done


def test_the_ollama_client_streams_the_specs_own_lines_by_default(url: str) -> None:
    ollama = pytest.importorskip("ollama")
    client = ollama.Client(host=url, timeout=TIMEOUT)
    parts = list(client.chat(model="llama3.2", messages=[{"role": "user", "content": "hi"}], stream=True))
    assert [part.message.content for part in parts][0] == "The"  # specs/ollama/api.yaml's first line
    assert parts[-1].done and parts[-1].eval_count == 282
