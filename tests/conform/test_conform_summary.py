"""``ssegen conform`` prints a readable summary of the assembled stream for every family
(issue 23): chat choices; Messages blocks and Responses items with their kind, text, tool
calls, stop reason and usage (a block family's result has no ``choices``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from conftest import GENERATED, sse_body

from ssegen.cli import main


def _named(events: list[dict[str, Any]]) -> bytes:
    return "".join(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events).encode()


def _conform(tmp_path: Path, provider: str, channel: str, body: bytes) -> str:
    capture = tmp_path / "capture.sse"
    capture.write_bytes(body)
    result = CliRunner().invoke(main, ["conform", "--out", str(GENERATED), provider, channel, str(capture)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.output


def test_chat_summary_lists_each_choice(tmp_path: Path) -> None:
    chunk = {"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m"}
    chunk["choices"] = [{"index": 0, "delta": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}]
    output = _conform(tmp_path, "mistral", "/chat/completions", sse_body([json.dumps(chunk), "[DONE]"]))
    assert "choice 0 (stop): 'Hi'" in output
    assert "complete=True" in output


def test_messages_summary_lists_blocks_stop_reason_and_usage(tmp_path: Path) -> None:
    message = {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-x", "content": []}
    message |= {"stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 9, "output_tokens": 1}}
    tool = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}
    body = _named(
        [
            {"type": "message_start", "message": message},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Checking."}},
            {"type": "content_block_stop", "index": 0},
            {"type": "content_block_start", "index": 1, "content_block": tool},
            {
                "type": "content_block_delta",
                "index": 1,
                "delta": {"type": "input_json_delta", "partial_json": '{"city": "Pa'},
            },
            {"type": "content_block_stop", "index": 1},
            {"type": "message_delta", "delta": {"stop_reason": "max_tokens"}, "usage": {"output_tokens": 12}},
            {"type": "message_stop"},
        ]
    )
    output = _conform(tmp_path, "anthropic", "/v1/messages", body)
    lines = output.splitlines()
    assert "block 0 text:" in lines and "  text: 'Checking.'" in lines
    assert "block 1 tool_use toolu_1:" in lines
    assert '  tool call get_weather({"city": "Pa) (not valid JSON; partial: {})' in lines
    assert "stop reason: max_tokens" in lines
    assert lines[-1].startswith("9 events, 0 violations, complete=True, usage=")
    assert json.loads(lines[-1].split("usage=", 1)[1]) == {"input_tokens": 9, "output_tokens": 12}
    assert "choice" not in output


def test_responses_summary_lists_items_stop_reason_and_usage(tmp_path: Path) -> None:
    response = {"id": "resp_1", "object": "response", "created_at": 1, "status": "in_progress", "model": "gpt-x"}
    response["output"] = []
    call = {"id": "fc_1", "type": "function_call", "status": "completed", "call_id": "call_1", "name": "f"}
    call["arguments"] = '{"a": 1}'
    message = {"id": "msg_1", "type": "message", "status": "completed", "role": "assistant"}
    message["content"] = [{"type": "output_text", "text": "Done.", "annotations": []}]
    usage = {"input_tokens": 3, "output_tokens": 4, "total_tokens": 7, "cost": 0.01}
    events = [
        {"type": "response.created", "response": response},
        {"type": "response.output_item.added", "output_index": 0, "item": call | {"arguments": ""}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": '{"a": 1}'},
        {"type": "response.output_item.done", "output_index": 0, "item": call},
        {"type": "response.output_item.done", "output_index": 1, "item": message},
        {"type": "response.completed", "response": response | {"status": "completed", "usage": usage}},
    ]
    body = _named([e | {"sequence_number": n} for n, e in enumerate(events)])
    output = _conform(tmp_path, "openai_responses", "/v1/responses", body)
    lines = output.splitlines()
    assert "block 0 function_call fc_1 call_1 (completed):" in lines
    assert '  tool call f({"a": 1})' in lines
    assert "block 1 message msg_1 (completed):" in lines and "  text: 'Done.'" in lines
    assert "stop reason: completed" in lines
    assert json.loads(lines[-1].split("usage=", 1)[1])["cost"] == 0.01
