"""The same request through the provider's own SDK and through the generated client, against
``ssegen mock`` on loopback, assembles the same result (issue 33 item 5): the openai SDK on chat
(DeepSeek's channel) and on Responses, the anthropic SDK on Messages.

Each SDK's events, as it parsed them (``model_dump(exclude_unset=True)``: the members the server
sent), are fed to the generated channel's ``parse`` and ``accumulate``; that result equals the
generated client's ``to_dict()``, and the SDK's own assembled text equals the client's.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from generated import anthropic as gen_anthropic
from generated import deepseek as gen_deepseek
from generated import openai_responses as gen_responses
from ssegen.mock import MockServer, create_app, endpoints

pytestmark = [pytest.mark.e2e, pytest.mark.sdk]

TIMEOUT = 10.0  # seconds, for every client: a hung server fails the test instead of hanging it
MESSAGES = [{"role": "user", "content": "Hi"}]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with MockServer(create_app(endpoints([gen_deepseek, gen_anthropic, gen_responses])), timeout=TIMEOUT) as base:
        yield base


def _client_result(package: ModuleType, base: str, address: str, body: dict[str, Any]) -> dict[str, Any]:
    """The generated client's result of ``body`` on ``address``."""
    with package.Client(base, "k", timeout=TIMEOUT) as client, client.stream(address, body) as events:
        result: dict[str, Any] = events.accumulate().to_dict()
    return result


def _reassembled(channel: Any, events: list[Any], named: bool, done: bool = False) -> dict[str, Any]:
    """The SDK's parsed events (pydantic models) through ``channel``'s parse and accumulate:
    each event's members as sent, its SSE event name its ``type`` where the stream names
    events, and the terminator (``[DONE]``, which the openai SDK does not hand on) when
    ``done``."""
    typed = []
    for event in events:
        data = event.model_dump(mode="json", exclude_unset=True)
        typed.append(channel.parse(json.dumps(data), data["type"] if named else "message"))
    if done:
        typed.append(channel.parse("[DONE]"))
    result: dict[str, Any] = channel.accumulate(typed).to_dict()
    return result


def test_openai_sdk_and_the_generated_client_assemble_the_same_chat_stream(url: str, openai_sdk: ModuleType) -> None:
    client = openai_sdk.OpenAI(api_key="k", base_url=url, max_retries=0, timeout=TIMEOUT)
    chunks = list(client.chat.completions.create(model="deepseek-chat", messages=MESSAGES, stream=True))
    with client.chat.completions.stream(model="deepseek-chat", messages=MESSAGES) as stream:
        final = stream.get_final_completion()
    body = {"model": "deepseek-chat", "messages": MESSAGES}
    ours = _client_result(gen_deepseek, url, "/chat/completions", body)
    assert _reassembled(gen_deepseek.CHANNELS["/chat/completions"], chunks, named=False, done=True) == ours
    assert final.choices[0].message.content == ours["choices"][0]["content"] != "" and ours["complete"]
    assert final.choices[0].finish_reason == ours["choices"][0]["finish_reason"]


def test_openai_sdk_and_the_generated_client_assemble_the_same_responses_stream(
    url: str, openai_sdk: ModuleType
) -> None:
    client = openai_sdk.OpenAI(api_key="k", base_url=f"{url}/v1", max_retries=0, timeout=TIMEOUT)
    events = list(client.responses.create(model="gpt-4.1", input="Hi", stream=True))
    with client.responses.stream(model="gpt-4.1", input="Hi") as stream:
        final = stream.get_final_response()
    ours = _client_result(gen_responses, url, "/v1/responses", {"model": "gpt-4.1", "input": "Hi"})
    assert _reassembled(gen_responses.CHANNELS["/v1/responses"], events, named=True) == ours
    assert final.output_text == ours["output"][0]["text"] != "" and final.status == "completed" and ours["complete"]


def test_anthropic_sdk_and_the_generated_client_assemble_the_same_messages_stream(
    url: str, anthropic_sdk: ModuleType
) -> None:
    client = anthropic_sdk.Anthropic(api_key="k", base_url=url, max_retries=0, timeout=TIMEOUT)
    request = {"model": "claude-test", "max_tokens": 64, "messages": MESSAGES}
    events = list(client.messages.create(**request, stream=True))
    with client.messages.stream(**request) as stream:
        final = stream.get_final_message()
    ours = _client_result(gen_anthropic, url, "/v1/messages", request)
    assert _reassembled(gen_anthropic.CHANNELS["/v1/messages"], events, named=True) == ours
    assert final.content[0].text == ours["output"][0]["text"] != "" and ours["complete"]
    assert final.stop_reason == ours["stop_reason"]
