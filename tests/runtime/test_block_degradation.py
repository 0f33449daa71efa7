"""The Messages and Responses families when the provider is ahead of its spec (issue 23).

Synthetic streams through the generated packages (``generated/anthropic``,
``generated/openai_responses``), one per rule: a block or item of a type the spec does not
list keeps its identity and the object as sent, its deltas are kept, it is reported once;
usage is kept whole; ``response.failed``/``.incomplete`` give the stop reason; a tool input
cut short gets ``input_partial``; a finished object fills and checks what the deltas gave;
a ``[DONE]`` the spec does not declare ends the stream and is noted once.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from generated import anthropic as gen_anthropic
from generated import openai_responses as gen_responses
from ssegen.runtime.partial_json import partial_json


def _event(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data)}\n\n"


def _assemble(package: Any, address: str, body: str, size: int = 7) -> dict[str, Any]:
    raw = body.encode()
    channel = package.CHANNELS[address]
    reads = [raw[i : i + size] for i in range(0, len(raw), size)]
    result: dict[str, Any] = channel.accumulate(channel.decode(reads)).to_dict()
    return result


def _messages(*blocks: str, stop: str = "end_turn", usage: dict[str, Any] | None = None) -> str:
    start = {
        "type": "message_start",
        "message": {
            "id": "msg_1",
            "type": "message",
            "role": "assistant",
            "model": "claude-x",
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1},
        },
    }
    end = {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}}
    end["usage"] = usage or {"output_tokens": 5}
    return _event(start) + "".join(blocks) + _event(end) + _event({"type": "message_stop"})


def _block(index: int, block: dict[str, Any], *deltas: dict[str, Any]) -> str:
    frames = [_event({"type": "content_block_start", "index": index, "content_block": block})]
    frames += [_event({"type": "content_block_delta", "index": index, "delta": d}) for d in deltas]
    frames.append(_event({"type": "content_block_stop", "index": index}))
    return "".join(frames)


def _messages_result(body: str, size: int = 7) -> dict[str, Any]:
    return _assemble(gen_anthropic, "/v1/messages", body, size)


@pytest.mark.parametrize("size", [7, 4096, 1 << 20])
def test_messages_block_of_unlisted_type_keeps_kind_id_name_raw_and_deltas(size: int) -> None:
    hologram = {"type": "hologram_tool_use", "id": "holo_1", "name": "project", "input": {}, "server_name": "h"}
    body = _messages(
        _block(0, hologram, {"type": "input_json_delta", "partial_json": '{"shape": '}),
        _block(1, {"type": "hologram_tool_use", "id": "holo_2", "name": "project", "input": {}}),
        _block(2, {"type": "text", "text": ""}, {"type": "text_delta", "text": "done"}),
    )
    body = body.replace(
        _event({"type": "content_block_stop", "index": 0}),
        _event(
            {
                "type": "content_block_delta",
                "index": 0,
                "delta": {"type": "input_json_delta", "partial_json": '"cube"}'},
            }
        )
        + _event({"type": "content_block_stop", "index": 0}),
    )
    result = _messages_result(body, size)
    first, second, text = result["output"]
    assert (first["kind"], first["id"], first["name"]) == ("hologram_tool_use", "holo_1", "project")
    assert first["raw"] == hologram
    assert first["arguments"] == '{"shape": "cube"}' and first["input"] == {"shape": "cube"}
    assert (second["kind"], second["id"], second["input"]) == ("hologram_tool_use", "holo_2", {})
    assert text["text"] == "done"
    # Reported once, naming the type; not an unknown event.
    assert result["errors"] == [
        {"kind": "member_off_spec", "pointer": "/content_block", "got": hologram, "type": "hologram_tool_use"}
    ]


def test_messages_delta_of_unlisted_type_appends_its_text_members_and_keeps_others() -> None:
    body = _messages(
        _block(
            0,
            {"type": "digest", "content": None},
            {"type": "digest_delta", "content": "## Summary"},
            {"type": "digest_delta", "content": " of the talk"},
            {"type": "digest_marker", "position": 3},
        )
    )
    result = _messages_result(body)
    [block] = result["output"]
    assert block["kind"] == "digest"
    assert block["texts"] == {"content": "## Summary of the talk"}
    assert block["deltas"] == [{"type": "digest_marker", "position": 3}]
    assert sorted(e["type"] for e in result["errors"]) == ["digest", "digest_delta", "digest_marker"]


def test_messages_listed_deltas_no_append_step_takes_are_kept_not_dropped() -> None:
    """``compaction_delta`` and ``citations_delta`` are in the spec's delta union but no
    ``append`` step takes them: the chain's ``else`` adds them to the block as sent
    (string members to ``texts``, else ``deltas``), with no off-spec report."""
    citation = {"type": "char_location", "cited_text": "sky", "document_index": 0}
    body = _messages(
        _block(
            0,
            {"type": "compaction", "content": None},
            {"type": "compaction_delta", "content": "## Summary"},
            {"type": "compaction_delta", "content": " of the talk"},
        ),
        _block(
            1,
            {"type": "text", "text": ""},
            {"type": "text_delta", "text": "The sky"},
            {"type": "citations_delta", "citation": citation},
        ),
        _block(
            2,
            {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "echo", "server_name": "e", "input": {}},
            {"type": "input_json_delta", "partial_json": '{"m": 1}'},
        ),
    )
    for size in (7, 1 << 20):
        result = _messages_result(body, size)
        compaction, text, mcp = result["output"]
        assert compaction["kind"] == "compaction" and compaction["texts"] == {"content": "## Summary of the talk"}
        assert text["text"] == "The sky" and text["deltas"] == [{"type": "citations_delta", "citation": citation}]
        assert (mcp["kind"], mcp["id"], mcp["name"], mcp["input"]) == ("mcp_tool_use", "mcptoolu_1", "echo", {"m": 1})
        assert result["errors"] == []


def test_messages_usage_is_kept_whole_with_unlisted_nested_members() -> None:
    usage = {
        "output_tokens": 200,
        "output_tokens_details": {"thinking_tokens": 182},
        "iterations": [{"type": "message", "input_tokens": 5, "output_tokens": 7}],
        "server_tool_use": {"web_search_requests": 1, "code_execution_requests": 2},  # the last unlisted
        "speculative_tokens": 3,  # unlisted
    }
    result = _messages_result(_messages(_block(0, {"type": "text", "text": "hi"}), usage=usage))
    assert result["usage"] == {"input_tokens": 10, **usage}


def test_messages_tool_input_cut_by_max_tokens_gets_a_best_effort_parse() -> None:
    tool = {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {}}
    cut = ['{"path": "a.txt", "lines": ["one", "tw', 'o", "thr']
    body = _messages(
        _block(0, tool, *({"type": "input_json_delta", "partial_json": p} for p in cut)), stop="max_tokens"
    )
    [block] = _messages_result(body)["output"]
    assert block["arguments"] == "".join(cut)
    assert block["input"] is None
    assert block["input_partial"] == {"path": "a.txt", "lines": ["one", "two"]}


def test_messages_tool_input_cut_inside_a_string_leaves_it_out_as_the_anthropic_sdk_does() -> None:
    """Issue 34 item 7: the SDK's parsed view (jiter ``partial_mode=True``) leaves an
    unfinished trailing string out, with its member; the unfinished text stays in ``arguments``."""
    tool = {"type": "tool_use", "id": "toolu_1", "name": "add_task", "input": {}}
    cut = ['{"priority": 2, "title": "Filing', " taxes"]
    body = _messages(
        _block(0, tool, *({"type": "input_json_delta", "partial_json": p} for p in cut)), stop="max_tokens"
    )
    [block] = _messages_result(body)["output"]
    assert block["arguments"] == '{"priority": 2, "title": "Filing taxes'
    assert block["input"] is None and block["input_partial"] == {"priority": 2}


# -- OpenAI Responses ---------------------------------------------------------------------


def _responses(
    *frames: dict[str, Any], end: str = "response.completed", output: list[Any] | None = None, **response: Any
) -> str:
    seq = iter(range(10_000))
    base = {
        "id": "resp_1",
        "object": "response",
        "created_at": 1,
        "status": "in_progress",
        "model": "gpt-x",
        "output": [],
    }
    events = [{"type": "response.created", "response": base}, *frames]
    final = {**base, "status": response.pop("status", "completed"), "output": output or [], **response}
    events.append({"type": end, "response": final})
    return "".join(_event({**e, "sequence_number": next(seq)}) for e in events)


def _responses_result(body: str, size: int = 7) -> dict[str, Any]:
    return _assemble(gen_responses, "/v1/responses", body, size)


HOLOGRAM = {
    "id": "hc_1",
    "type": "hologram_call",
    "status": "in_progress",
    "call_id": "call_h",
    "name": "project",
    "shape": "",
}


@pytest.mark.parametrize("size", [7, 4096, 1 << 20])
def test_responses_item_of_unlisted_type_keeps_identity_and_its_deltas(size: int) -> None:
    done = {**HOLOGRAM, "status": "completed", "shape": "cube!"}
    body = _responses(
        {"type": "response.output_item.added", "output_index": 0, "item": HOLOGRAM},
        {"type": "response.hologram_call.in_progress", "output_index": 0, "item_id": "hc_1"},
        {"type": "response.hologram_call_shape.delta", "item_id": "hc_1", "delta": "cube"},
        {"type": "response.hologram_call_shape.delta", "output_index": 0, "item_id": "hc_1", "delta": "!"},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        output=[done],
    )
    result = _responses_result(body, size)
    [item] = result["output"]
    assert (item["kind"], item["id"], item["call_id"], item["name"]) == ("hologram_call", "hc_1", "call_h", "project")
    assert item["status"] == "completed" and item["raw"] == done
    assert item["texts"] == {"shape": "cube!"}
    assert item["deltas"] == [
        {"type": "response.hologram_call.in_progress", "output_index": 0, "item_id": "hc_1", "sequence_number": 2}
    ]
    kinds = [(e["kind"], e.get("type") or e.get("event")) for e in result["errors"]]
    assert kinds == [
        ("member_off_spec", "hologram_call"),
        ("event_off_spec", "response.hologram_call.in_progress"),
        ("event_off_spec", "response.hologram_call_shape.delta"),
    ]
    assert result["complete"] is True and result["stop_reason"] == "completed"


def test_responses_usage_is_kept_whole_with_unlisted_members() -> None:
    usage = {
        "input_tokens": 12,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 3,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
        "cost": 0.00042,
        "is_byok": False,
        "cost_details": {"upstream_inference_cost": None, "upstream_inference_input_cost": 0.0001},
    }
    result = _responses_result(_responses(usage=usage))
    assert result["usage"] == usage


def test_responses_failed_gives_the_stop_reason_and_keeps_the_error() -> None:
    error = {"code": "server_error", "message": "The model crashed"}
    result = _responses_result(_responses(end="response.failed", status="failed", error=error))
    assert result["stop_reason"] == "failed" and result["complete"] is True
    [recorded] = result["errors"]
    assert recorded["kind"] == "error_event" and recorded["data"]["response"]["error"] == error


@pytest.mark.parametrize("size", [7, 1 << 20])
def test_responses_hosted_tool_items_the_spec_lists_assemble_with_no_off_spec_report(size: int) -> None:
    mcp = {"id": "mcp_1", "type": "mcp_call", "status": "in_progress", "server_label": "s", "name": "echo"}
    mcp_done = {**mcp, "status": "completed", "arguments": '{"m": 1}', "output": "1"}
    search = {"id": "tsc_1", "type": "tool_search_call", "status": "in_progress", "call_id": "c", "execution": "server"}
    search_done = {**search, "status": "completed", "arguments": {"goal": "weather"}}
    computer = {
        "id": "cu_1",
        "type": "computer_call",
        "call_id": "call_c",
        "status": "completed",
        "action": {"type": "click", "button": "left", "x": 1, "y": 2},
        "pending_safety_checks": [],
    }
    body = _responses(
        {"type": "response.output_item.added", "output_index": 0, "item": {**mcp, "arguments": ""}},
        {"type": "response.mcp_call_arguments.delta", "output_index": 0, "item_id": "mcp_1", "delta": '{"m": '},
        {"type": "response.mcp_call_arguments.delta", "output_index": 0, "item_id": "mcp_1", "delta": "1}"},
        {"type": "response.output_item.done", "output_index": 0, "item": mcp_done},
        {"type": "response.output_item.added", "output_index": 1, "item": {**search, "arguments": {}}},
        {"type": "response.output_item.done", "output_index": 1, "item": search_done},
        {"type": "response.output_item.added", "output_index": 2, "item": computer},
        {"type": "response.output_item.done", "output_index": 2, "item": computer},
        output=[mcp_done, search_done, computer],
    )
    result = _responses_result(body, size)
    first, second, third = result["output"]
    assert (first["kind"], first["name"], first["status"]) == ("mcp_call", "echo", "completed")
    assert first["arguments"] == '{"m": 1}' and first["input"] == {"m": 1}
    assert (second["kind"], second["status"], second["input"]) == ("tool_search_call", "completed", {"goal": "weather"})
    assert (third["kind"], third["call_id"], third["raw"]["action"]) == ("computer_call", "call_c", computer["action"])
    assert result["errors"] == [] and result["complete"] is True


def test_responses_incomplete_gives_the_incomplete_reason() -> None:
    body = _responses(
        end="response.incomplete", status="incomplete", incomplete_details={"reason": "max_output_tokens"}
    )
    assert _responses_result(body)["stop_reason"] == "max_output_tokens"


#: The note a literal ``[DONE]`` the spec declares no terminator for leaves (once per stream).
UNDECLARED_DONE = {"kind": "terminator_undeclared", "event": "message", "data": "[DONE]"}


def test_responses_trailing_done_literal_is_the_terminator_not_an_unknown_event() -> None:
    result = _responses_result(_responses() + "data: [DONE]\n\n")
    assert result["errors"] == [UNDECLARED_DONE] and result["complete"] is True


def test_responses_done_literal_alone_completes_a_cut_stream() -> None:
    body = _responses().split("event: response.completed")[0] + "data: [DONE]\n\n"
    result = _responses_result(body)
    assert result["complete"] is True and result["errors"] == [UNDECLARED_DONE] and result["stop_reason"] is None


@pytest.mark.parametrize("size", [7, 1 << 20])
def test_undeclared_done_literal_is_noted_once_per_stream_in_both_families(size: int) -> None:
    twice = "data: [DONE]\n\nevent: done\ndata: [DONE]\n\n"
    responses = _assemble(gen_responses, "/v1/responses", _responses() + twice, size)
    messages = _assemble(gen_anthropic, "/v1/messages", _messages() + twice, size)
    for result in (responses, messages):
        assert result["complete"] is True
        assert result["errors"] == [UNDECLARED_DONE]


def _function_call(arguments: list[str], done_arguments: str, done_name: str = "get_weather") -> str:
    item = {
        "id": "fc_1",
        "type": "function_call",
        "status": "in_progress",
        "call_id": "call_1",
        "name": "get_weather",
        "arguments": "",
    }
    done = {**item, "status": "completed", "name": done_name, "arguments": done_arguments}
    deltas = [
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": d}
        for d in arguments
    ]
    return _responses(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        *deltas,
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        output=[done],
    )


def test_snapshot_fills_what_the_deltas_did_not_carry() -> None:
    [item] = _responses_result(_function_call([], '{"city": "Paris"}'))["output"]
    assert item["arguments"] == '{"city": "Paris"}' and item["input"] == {"city": "Paris"}


def test_snapshot_disagreeing_with_the_deltas_is_an_error_and_wins() -> None:
    result = _responses_result(_function_call(['{"city": ', '"Pa"}'], '{"city": "Paris"}', done_name="get_forecast"))
    [item] = result["output"]
    assert item["arguments"] == '{"city": "Paris"}' and item["name"] == "get_forecast"
    mismatches = {
        e["member"]: (e["deltas"], e["snapshot"]) for e in result["errors"] if e["kind"] == "snapshot_mismatch"
    }
    assert mismatches == {"name": ("get_weather", "get_forecast"), "arguments": ('{"city": "Pa"}', '{"city": "Paris"}')}


def test_completed_output_is_a_snapshot_for_items_never_announced() -> None:
    message = {
        "id": "msg_9",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hello", "annotations": []}],
    }
    [item] = _responses_result(_responses(output=[message]))["output"]
    assert (item["kind"], item["id"], item["text"]) == ("message", "msg_9", "Hello")


def test_responses_custom_tool_input_deltas_build_its_input() -> None:
    item = {
        "id": "ctc_1",
        "type": "custom_tool_call",
        "status": "in_progress",
        "call_id": "call_c",
        "name": "grep",
        "input": "",
    }
    done = {**item, "status": "completed", "input": "foo|bar"}
    body = _responses(
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": "foo|"},
        {"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": "bar"},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        output=[done],
    )
    result = _responses_result(body)
    [block] = result["output"]
    assert (block["kind"], block["name"], block["input"], block["texts"]) == ("custom_tool_call", "grep", "foo|bar", {})
    assert block["arguments"] is None and block["input_partial"] is None
    assert not [e for e in result["errors"] if e["kind"] in ("unknown_event", "snapshot_mismatch")]


CUSTOM = {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_c", "name": "apply_patch", "input": ""}
PATCH = "*** Begin Patch\n*** Update File: a.py\n-x = {\n+x = [\n*** End Patch"


@pytest.mark.parametrize("data_only", [False, True], ids=["named", "data-only"])
def test_responses_custom_tool_call_input_is_its_text_from_deltas_or_the_done_item(data_only: bool) -> None:
    """Issue 34 item 6: the input (free-form text, JSON-looking or not) is kept as text, from
    the deltas, and from the done item where no delta came."""
    done = {**CUSTOM, "input": PATCH}
    for deltas in ([PATCH[:20], PATCH[20:]], []):
        frames = [{"type": "response.output_item.added", "output_index": 0, "item": CUSTOM}]
        frames += [
            {"type": "response.custom_tool_call_input.delta", "output_index": 0, "item_id": "ctc_1", "delta": d}
            for d in deltas
        ]
        frames += [{"type": "response.output_item.done", "output_index": 0, "item": done}]
        body = _responses(*frames, output=[done])
        if data_only:  # OpenRouter: no event lines, a [DONE] at the end
            body = "".join(line + "\n" for line in body.splitlines() if not line.startswith("event:"))
            body += "data: [DONE]\n\n"
        [block] = _responses_result(body)["output"]
        assert (block["kind"], block["call_id"], block["input"]) == ("custom_tool_call", "call_c", PATCH), deltas
        assert block["texts"] == {} and block["arguments"] is None


def test_responses_only_item_at_output_index_1_is_one_item_as_completed_lists_it() -> None:
    """Issue 34 item 6: the reasoning item at 0 filtered out upstream; ``response.completed``
    lists the one item at 0. Items are identified by id: one item, not two."""
    done = {**CUSTOM, "input": "ls"}
    body = _responses(
        {"type": "response.output_item.added", "output_index": 1, "item": CUSTOM},
        {"type": "response.custom_tool_call_input.delta", "output_index": 1, "item_id": "ctc_1", "delta": "ls"},
        {"type": "response.output_item.done", "output_index": 1, "item": done},
        output=[done],
    )
    result = _responses_result(body)
    [item] = result["output"]
    assert (item["index"], item["id"], item["input"]) == (1, "ctc_1", "ls")
    assert result["errors"] == []


def test_responses_snapshot_item_fills_the_item_of_its_id_wherever_it_is_listed() -> None:
    """A finished item in ``response.completed`` goes to the item of the same id; an item never
    announced whose place is taken by another id is a new item after the last."""
    call = {
        "id": "fc_1",
        "type": "function_call",
        "call_id": "c1",
        "name": "f",
        "arguments": "",
        "status": "in_progress",
    }
    call_done = {**call, "arguments": '{"a": 1}', "status": "completed"}
    message = {
        "id": "msg_1",
        "type": "message",
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Hi", "annotations": []}],
    }
    body = _responses(
        {"type": "response.output_item.added", "output_index": 0, "item": call},
        output=[message, call_done],
    )
    result = _responses_result(body)
    assert [(i["index"], i["id"], i["status"]) for i in result["output"]] == [
        (0, "fc_1", "completed"),
        (1, "msg_1", "completed"),
    ]
    assert result["output"][0]["input"] == {"a": 1} and result["output"][1]["text"] == "Hi"
    assert result["errors"] == []


# -- partial JSON -------------------------------------------------------------------------

PARTIAL = [
    ('{"a": 1, "b": "hel', {"a": 1, "b": "hel"}),
    ('{"a": [1, 2', {"a": [1, 2]}),
    ('{"a": tr', {}),
    ('{"a": 1, "ke', {"a": 1}),
    ('{"a": 1, "key":', {"a": 1}),
    ('{"a": "x\\', {"a": "x"}),
    ('{"a": "Z\\u00', {"a": "Z"}),
    ('{"a": "x\\\\', {"a": "x\\"}),
    ('{"a": 12', {"a": 12}),
    ('{"a": -', {}),
    ('{"a": 1.', {}),
    ('{"a": {"b": [true, nul', {"a": {"b": [True]}}),
    ('{"a": {"b": "c', {"a": {"b": "c"}}),
    ('["one", "tw', ["one", "tw"]),
    ('{"a": "Filing taxes', {"a": "Filing taxes"}),
    ('{"a": [1, {"b": "c"}, ', {"a": [1, {"b": "c"}]}),
    ('{"a": 1} trailing', None),
    ("", None),
    ("garbage", None),
    ("}", None),
]


#: Where the default view (an unfinished string left out, as jiter ``partial_mode=True``) differs
#: from ``trailing_strings`` (:data:`PARTIAL`'s expectations).
PARTIAL_SDK = {
    '{"a": 1, "b": "hel': {"a": 1},
    '{"a": "x\\': {},
    '{"a": "Z\\u00': {},
    '{"a": "x\\\\': {},
    '{"a": {"b": "c': {"a": {}},
    '["one", "tw': ["one"],
    '{"a": "Filing taxes': {},
}


@pytest.mark.parametrize(("text", "expected"), PARTIAL)
def test_partial_json_with_trailing_strings_completes_a_cut_prefix(text: str, expected: Any) -> None:
    assert partial_json(text, trailing_strings=True) == expected


@pytest.mark.parametrize(("text", "expected"), [(t, PARTIAL_SDK.get(t, e)) for t, e in PARTIAL])
def test_partial_json_leaves_an_unfinished_string_out(text: str, expected: Any) -> None:
    assert partial_json(text) == expected


@pytest.mark.parametrize(("text", "expected"), [p for p in PARTIAL if p[1] is not None])
def test_partial_json_with_trailing_strings_agrees_with_jiter(text: str, expected: Any) -> None:
    jiter = pytest.importorskip("jiter")
    assert jiter.from_json(text.encode(), partial_mode="trailing-strings") == expected


@pytest.mark.parametrize("text", sorted({t for t, e in PARTIAL if e is not None} | set(PARTIAL_SDK)))
def test_partial_json_agrees_with_jiter_partial_mode_as_the_anthropic_sdk_calls_it(text: str) -> None:
    jiter = pytest.importorskip("jiter")
    assert partial_json(text) == jiter.from_json(text.encode(), partial_mode=True)


@pytest.mark.parametrize("text", ['{"a": "\\', "[[[[", '{"": ', '"', "-", "[1,,", '{"a":}', "\x00{", "[" * 5000])
def test_partial_json_never_raises(text: str) -> None:
    partial_json(text)
