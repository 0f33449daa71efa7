"""A step of ``x-ssegen-accumulate`` as written: parsed, or the first thing wrong with it
(README "Accumulation"; ``ssegen.normalize.stated_steps``)."""

from __future__ import annotations

from typing import Any

import pytest

from ssegen.ir import EACH, AccumulateStep, Provenance
from ssegen.normalize.stated_steps import parse_path, parse_step

WHERE = Provenance("asyncapi.yaml", 3, "/channels/x/x-ssegen-accumulate/Token/0")


def test_a_step_with_every_entry_is_parsed() -> None:
    item = {
        "action": "append",
        "key": "choices[*].index",
        "value": "choices[*].delta.text",
        "field": "text",
        "variant": {"type": "text_delta"},
        "when": {"kind": "text", "extra": {"not": None}, "flag": {"present": True}},
    }
    step, problem = parse_step(item, "choices", WHERE)
    assert problem == ""
    assert step == AccumulateStep(
        "append",
        key=("choices", EACH, "index"),
        value=("choices", EACH, "delta", "text"),
        field="content",  # a block field name in a `choices` plan: the choice field it stands for
        variant=("type", "text_delta"),
        when=((("kind",), ("eq", "text")), (("extra",), ("not", None)), (("flag",), ("present", True))),
        provenance=WHERE,
    )


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ("append", "a step must be a mapping with `action`"),
        ({"action": "glue"}, "action 'glue' is not one of"),
        ({"action": "done", "colour": 1}, "entry 'colour' is not one of"),
        ({"action": "append", "key": "a..b", "value": "x", "field": "t"}, "key: path 'a..b' has an empty segment"),
        ({"action": "append", "value": "x", "field": "not a name"}, "field 'not a name' is not a name"),
        ({"action": "append", "field": "t"}, "action 'append' needs a `value` path"),
        ({"action": "usage"}, "action 'usage' needs a `value` path or `members`"),
        ({"action": "done", "variant": {"a": "1", "b": "2"}}, "variant {'a': '1', 'b': '2'} is not one"),
        ({"action": "done", "when": ["a"]}, "when ['a'] is not a mapping"),
        ({"action": "done", "when": {"a[x]": 1}}, "when: path 'a[x]': '[x]' is not `[*]`"),
        ({"action": "done", "when": {"a": {"is": 1}}}, "when 'a': {'is': 1} is not a value"),
        ({"action": "done", "when": {"a": {"present": 1}}}, "when 'a': present must be true or false, not 1"),
        ({"action": "open", "key": "i", "value": "b", "members": {"colour": "c"}}, "members: 'colour' is not one"),
        ({"action": "usage", "members": ["a[*]"]}, "members: 'a[*]' reads every element"),
        ({"action": "done", "mode": "replace"}, "mode 'replace': only `usage` has a mode"),
        ({"action": "tool_calls", "value": "calls"}, "action 'tool_calls' is for a `result: choices` plan"),
    ],
)
def test_the_first_problem_of_a_step_is_the_one_reported(item: Any, problem: str) -> None:
    step, found = parse_step(item, "output", WHERE)
    assert step is None
    assert found.startswith(problem), found


def test_checks_run_in_order_so_an_earlier_entry_is_named_first() -> None:
    item = {"action": "done", "mode": "bad", "variant": "x", "when": [], "field": 3}
    assert parse_step(item, "output", WHERE)[1].startswith("field 3 is not a name")


def test_a_path_reads_every_element_after_a_member_only() -> None:
    assert parse_path("candidates[*].content.parts[*]") == (("candidates", EACH, "content", "parts", EACH), "")
    assert parse_path("[*]")[1] == "path '[*]' has an empty segment"
    assert parse_path("")[1].startswith("'' is not a path")


@pytest.mark.parametrize(
    ("item", "problem"),
    [
        ({"action": "delta", "key": "i", "value": "d"}, "action 'delta' is for a `result: output` plan"),
        ({"action": "close", "key": "i"}, "action 'close' is for a `result: output` plan"),
        ({"action": "open", "key": "i", "value": "c", "members": {"id": "id"}}, "a choice's `open` makes the choice"),
    ],
)
def test_a_step_of_the_other_kind_of_plan_is_reported(item: Any, problem: str) -> None:
    """A ``choices`` plan has no blocks to close or send deltas to, nor members to open."""
    step, found = parse_step(item, "choices", WHERE)
    assert step is None
    assert problem in found, found
