"""Tool-call fragments without ``index`` (issue 34 item 2).

Mistral sends two whole calls in one delta without ``index``; they used to be merged into one
call (arguments concatenated, the second id and name lost, no error). A fragment bringing a new
``id``, or a second element of the same delta's ``tool_calls``, starts a new call; Novita's
repetition of the same id and name on a later fragment of one call continues it.
Both paths are checked: Mistral's typed tool calls (``add_tool_call``) and DeepSeek's, read as
plain data (``add_tool_calls_data``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from generated import deepseek, mistral
from ssegen.runtime.accumulate_choices import ChoiceState

CHANNELS = {"mistral": mistral.CHANNELS["/chat/completions"], "deepseek": deepseek.CHANNELS["/chat/completions"]}

PLUS = {"id": "A", "function": {"name": "plus", "arguments": '{"a": 1, "b": 2}'}}
MINUS = {"id": "B", "function": {"name": "minus", "arguments": '{"a": 5, "b": 3}'}}


def _body(*deltas: dict[str, Any], finish: str = "tool_calls") -> bytes:
    chunks = [
        {
            "id": "cmpl-1",
            "object": "chat.completion.chunk",
            "created": 1,
            "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": None}],
        }
        for delta in deltas
    ]
    chunks[-1]["choices"][0]["finish_reason"] = finish
    return ("".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n").encode()


def _calls(provider: str, body: bytes) -> list[tuple[Any, Any, Any]]:
    channel = CHANNELS[provider]
    result = channel.accumulate(channel.decode([body])).to_dict()
    assert result["errors"] == []
    [choice] = result["choices"]
    return [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in choice["tool_calls"]]


@pytest.mark.parametrize("provider", sorted(CHANNELS))
def test_two_whole_calls_in_one_delta_without_index_stay_two_calls(provider: str) -> None:
    body = _body({"role": "assistant", "content": "", "tool_calls": [PLUS, MINUS]})
    assert _calls(provider, body) == [
        ("A", "plus", '{"a": 1, "b": 2}'),
        ("B", "minus", '{"a": 5, "b": 3}'),
    ]


@pytest.mark.parametrize("provider", sorted(CHANNELS))
def test_a_fragment_bringing_a_new_id_starts_a_new_call(provider: str) -> None:
    body = _body({"tool_calls": [PLUS]}, {"tool_calls": [MINUS]})
    assert [c[0] for c in _calls(provider, body)] == ["A", "B"]


@pytest.mark.parametrize("provider", sorted(CHANNELS))
def test_a_repeated_id_and_name_on_a_later_fragment_continues_the_call(provider: str) -> None:
    """Novita: each fragment of one call repeats its id and name."""
    pieces = ['{"city": ', '"Paris"', "}"]
    deltas = [
        {"tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "weather", "arguments": p}}]}
        for p in pieces
    ]
    assert _calls(provider, _body(*deltas)) == [("call_1", "weather", '{"city": "Paris"}')]


@pytest.mark.parametrize("provider", sorted(CHANNELS))
def test_index_less_fragments_without_id_continue_the_call(provider: str) -> None:
    first = {"tool_calls": [{"id": "call_1", "function": {"name": "weather", "arguments": '{"ci'}}]}
    rest = {"tool_calls": [{"function": {"arguments": 'ty": "Oslo"}'}}]}
    assert _calls(provider, _body(first, rest)) == [("call_1", "weather", '{"city": "Oslo"}')]


def test_a_second_element_of_one_delta_starts_a_new_call_without_ids() -> None:
    """Read as plain data, the position in the delta's list is known: two calls of one
    function with no id are two calls."""
    body = _body(
        {
            "tool_calls": [
                {"function": {"name": "f", "arguments": "{}"}},
                {"function": {"name": "f", "arguments": '{"x": 1}'}},
            ]
        }
    )
    assert _calls("deepseek", body) == [(None, "f", "{}"), (None, "f", '{"x": 1}')]


def test_add_tool_call_takes_the_position_in_the_delta() -> None:
    state = ChoiceState(0, False)
    state.add_tool_call(None, None, "function", "f", "{}", 0)
    state.add_tool_call(None, None, "function", "f", '{"x": 1}', 1)
    state.add_tool_call(None, None, None, None, "", 0)  # a later fragment with nothing new continues
    assert [(c.index, c.name, c.text()) for c in state.tool_calls.values()] == [(0, "f", "{}"), (1, "f", '{"x": 1}')]


def test_a_new_name_without_id_starts_a_new_call() -> None:
    state = ChoiceState(0, False)
    state.add_tool_call(None, None, None, "plus", "{}")
    state.add_tool_call(None, None, None, "minus", "{}")
    assert [c.name for c in state.tool_calls.values()] == ["plus", "minus"]
