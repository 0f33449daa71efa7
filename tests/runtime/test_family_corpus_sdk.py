"""Every captured stream of ``../shared/corpus/families/anthropic/`` and ``.../openai_responses/``
assembles as the official SDK's accumulator does (issue 23), read 7 bytes at a time, 4 KiB at a
time and whole: the same bytes go to the generated package and to the SDK on a mock transport
(``anthropic`` ``messages.stream(...).get_final_message()``, ``openai``
``responses.stream(...).get_final_response()``). Compared field by field: id, model, stop
reason, usage (ours a superset: every member the SDK has, equal, nested too), and each block or
item: kind, id, name, call_id, status, text, thinking, signature, tool input and arguments.
Every block, item, delta and event type the captures carry is one the specs list: no
``member_off_spec`` or ``event_off_spec`` is tolerated.

The captures are third-party data (vercel/ai, Apache-2.0; see the corpus README) and are not
copied here: the tests skip when the corpus is absent.

Where the SDK and the wire disagree, the wire wins, and the test says so:

- ``anthropic`` tracks ``input_json_delta`` only for ``tool_use`` and ``server_tool_use``
  blocks; an ``mcp_tool_use`` block's input stays ``{}`` there, while ours parses the deltas.
- ``anthropic`` does not apply ``compaction_delta``: a ``compaction`` block's ``content``
  stays null there; ours joins the deltas (``texts["content"]``).
- ``openai`` raises ``RuntimeError`` when an item's ``call_id`` changes between
  ``output_item.added`` and ``.done`` (``vercel_client_tool_search``); ours takes the finished
  item and records a ``snapshot_mismatch``; with the added item made to agree, the SDK's
  result equals ours.
"""

from __future__ import annotations

import json
import warnings
from types import ModuleType
from typing import Any

import pytest
from conftest import ROOT

from generated import anthropic as gen_anthropic
from generated import openai_responses as gen_responses
from ssegen.transport import http_library

pytestmark = pytest.mark.sdk

CORPUS = ROOT.parent / "shared" / "corpus" / "families"
READS = {"7": 7, "4k": 4096, "whole": 0}

#: block kinds whose input the anthropic SDK assembles from ``input_json_delta``
SDK_TRACKS_INPUT = ("tool_use", "server_tool_use")


def _names(family: str) -> list[Any]:
    """The capture names of ``family``, or one skipped case saying why when the corpus is absent."""
    if not (CORPUS / family).is_dir():
        reason = f"needs {CORPUS / family} (third-party data outside the repository; absent in a fresh clone)"
        return [pytest.param("absent", marks=pytest.mark.skip(reason=reason))]
    return sorted(p.name for p in (CORPUS / family).glob("*.sse"))


def _client(sdk: ModuleType, body: bytes) -> Any:
    """A client of the HTTP library ``sdk`` is built on (httpx, or httpx2 for openai >= 3), every
    request answered with ``body`` in 4 KiB reads."""
    http = http_library(sdk)[0]

    def handler(request: Any) -> Any:
        reads = [body[i : i + 4096] for i in range(0, len(body), 4096)]
        return http.Response(200, headers={"content-type": "text/event-stream"}, content=iter(reads))

    return http.Client(transport=http.MockTransport(handler))


def _ours(package: Any, address: str, body: bytes, size: int) -> dict[str, Any]:
    size = size or len(body)
    channel = package.CHANNELS[address]
    result: dict[str, Any] = channel.accumulate(
        channel.decode([body[i : i + size] for i in range(0, len(body), size)])
    ).to_dict()
    return result


def _superset(ours: Any, sdk: Any, where: str = "usage") -> None:
    if isinstance(sdk, dict):
        assert isinstance(ours, dict), (where, ours, sdk)
        for key, value in sdk.items():
            _superset(ours.get(key), value, f"{where}.{key}")
    else:
        assert ours == sdk, (where, ours, sdk)


# -- Anthropic Messages -------------------------------------------------------------------


def _anthropic_sdk(anthropic: ModuleType, body: bytes) -> dict[str, Any]:
    client = anthropic.Anthropic(
        api_key="x", base_url="http://mock.invalid", max_retries=0, http_client=_client(anthropic, body)
    )
    with client.messages.stream(model="m", max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as stream:
        message = stream.get_final_message()
    with warnings.catch_warnings():  # pydantic warns about block types its union does not list
        warnings.simplefilter("ignore")
        dumped: dict[str, Any] = message.model_dump(exclude_none=True)
    return dumped


@pytest.mark.parametrize("read", sorted(READS))
@pytest.mark.parametrize("name", _names("anthropic"))
def test_captured_messages_stream_assembles_as_the_anthropic_sdk(
    name: str, read: str, anthropic_sdk: ModuleType
) -> None:
    body = (CORPUS / "anthropic" / name).read_bytes()
    sdk = _anthropic_sdk(anthropic_sdk, body)
    ours = _ours(gen_anthropic, "/v1/messages", body, READS[read])
    assert ours["complete"] is True and ours["errors"] == []
    assert (ours["id"], ours["model"], ours["stop_reason"]) == (sdk["id"], sdk["model"], sdk.get("stop_reason"))
    _superset(ours["usage"], sdk["usage"])
    assert [b["kind"] for b in ours["output"]] == [c["type"] for c in sdk["content"]]
    for block, expected in zip(ours["output"], sdk["content"], strict=True):
        for field in ("id", "name", "text", "thinking", "signature"):
            if expected.get(field) not in (None, ""):
                assert block[field] == expected[field], (field, block, expected)
        assert block["raw"]["type"] == expected["type"]
        if expected["type"] in SDK_TRACKS_INPUT:
            assert block["input"] == expected["input"]
        elif block["arguments"]:  # the SDK leaves it as opened; ours parses what was sent
            assert block["input"] == json.loads(block["arguments"])
        for member, text in block["texts"].items():  # compaction_delta's content, ...
            if member in expected:
                assert expected[member] == text, (member, block, expected)


# -- OpenAI Responses ---------------------------------------------------------------------


def _responses_sdk(openai: ModuleType, body: bytes) -> tuple[dict[str, Any] | None, Exception | None]:
    client = openai.OpenAI(
        api_key="x", base_url="http://mock.invalid/v1", max_retries=0, http_client=_client(openai, body)
    )
    try:
        with client.responses.stream(model="m", input="hi") as stream:
            response = stream.get_final_response()
    except (openai.APIError, RuntimeError) as exc:
        return None, exc
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return response.model_dump(exclude_none=True), None


def _same_identity(body: bytes) -> bytes:
    """``body`` with each ``output_item.added`` item's ``call_id`` made that of its ``.done``."""
    lines = body.decode().split("\n")
    done = {}
    for line in lines:
        if line.startswith("data: ") and '"response.output_item.done"' in line:
            data = json.loads(line[6:])
            done[data["output_index"]] = data["item"].get("call_id")
    for i, line in enumerate(lines):
        if line.startswith("data: ") and '"response.output_item.added"' in line:
            data = json.loads(line[6:])
            if done.get(data["output_index"]) is not None:
                data["item"]["call_id"] = done[data["output_index"]]
                lines[i] = "data: " + json.dumps(data)
    return "\n".join(lines).encode()


def _message_text(item: dict[str, Any]) -> str | None:
    return "".join(p.get("text", "") for p in item.get("content", []) if p.get("type") == "output_text") or None


@pytest.mark.parametrize("read", sorted(READS))
@pytest.mark.parametrize("name", _names("openai_responses"))
def test_captured_responses_stream_assembles_as_the_openai_sdk(name: str, read: str, openai_sdk: ModuleType) -> None:
    body = (CORPUS / "openai_responses" / name).read_bytes()
    ours = _ours(gen_responses, "/v1/responses", body, READS[read])
    sdk, error = _responses_sdk(openai_sdk, body)
    problems = ours["errors"]
    if isinstance(error, RuntimeError):
        # The SDK refuses an item whose identity changed; ours takes the finished item and says so.
        assert [(e["kind"], e["member"]) for e in problems] == [("snapshot_mismatch", "call_id")]
        sdk, error = _responses_sdk(openai_sdk, _same_identity(body))
        problems = []
    if error is not None:  # an `error` event: the SDK raises it; ours records it and goes on
        assert isinstance(error, openai_sdk.APIError)
        data = [e["data"] for e in problems if e["kind"] == "error_event"]
        messages = [
            d.get("message") or (d.get("error") or d.get("response", {}).get("error") or {}).get("message")
            for d in data
        ]
        assert error.message in messages
        assert ours["stop_reason"] == "failed" and ours["complete"] is True
        return
    assert sdk is not None and ours["complete"] is True and problems == []
    assert (ours["id"], ours["model"], ours["stop_reason"]) == (sdk["id"], sdk["model"], sdk["status"])
    if sdk.get("usage"):
        _superset(ours["usage"], sdk["usage"])
    assert [b["kind"] for b in ours["output"]] == [i["type"] for i in sdk["output"]]
    for block, item in zip(ours["output"], sdk["output"], strict=True):
        assert block["id"] == item.get("id")
        for field in ("name", "call_id", "status"):
            if field in item:
                assert block[field] == item[field], (field, block, item)
        if isinstance(item.get("arguments"), str):
            assert block["arguments"] == item["arguments"]
        elif "arguments" in item:
            assert block["input"] == item["arguments"]
        if item["type"] == "message":
            assert block["text"] == _message_text(item)
        if item["type"] == "reasoning" and item.get("summary"):
            assert block["thinking"] == "".join(s["text"] for s in item["summary"])
        if item["type"] == "custom_tool_call":
            assert block["texts"]["input"] == item["input"]
        assert block["raw"]["type"] == item["type"]
