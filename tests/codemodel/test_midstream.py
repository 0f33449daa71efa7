"""Closing members and the midstream class (``ssegen.codemodel.midstream``): which members an
NDJSON batch message's midstream class types ``None``, and which steps its run function drops."""

from __future__ import annotations

from codemodel.build_ir import integer, obj, opt, req, string
from ssegen.codemodel.midstream import closing_members
from ssegen.ir import AccumulateStep

CHUNK = obj(
    "Chunk",
    req("model", string()),
    opt("text", string()),
    opt("done_reason", string()),
    opt("eval_count", integer()),
    opt("total_duration", integer()),
    req("created_at", string()),
)
TEXT = AccumulateStep("append", value=("text",), field="text")
STOP = AccumulateStep("stop", value=("done_reason",))
USAGE = AccumulateStep("usage", members=(("eval_count", ("eval_count",)), ("total_duration", ("total_duration",))))
COMPLETE = AccumulateStep("complete", value=("done_reason",))


def test_members_read_by_stop_usage_and_complete_steps_only_are_closing() -> None:
    steps = (AccumulateStep("meta", extra=("model",)), TEXT, STOP, USAGE, COMPLETE)
    assert closing_members(CHUNK, steps) == ("done_reason", "eval_count", "total_duration")


def test_a_member_another_step_reads_is_not_closing() -> None:
    text_stop = AccumulateStep("append", value=("done_reason",), field="reason")
    assert closing_members(CHUNK, (STOP, text_stop, USAGE)) == ("eval_count", "total_duration")


def test_a_step_with_a_condition_or_a_key_reads_no_closing_member() -> None:
    """A ``when`` test or a key may act on what is absent: such a step keeps its members."""
    when = AccumulateStep("stop", value=("done_reason",), when=((("text",), ("present", True)),))
    keyed = AccumulateStep("usage", key=("model",), members=(("eval_count", ("eval_count",)),))
    assert closing_members(CHUNK, (when, keyed)) == ()


def test_a_required_member_is_never_closing() -> None:
    """Typed ``None``, a member the message requires would refuse every line."""
    stop_on_model = AccumulateStep("stop", value=("created_at",))
    assert closing_members(CHUNK, (stop_on_model,)) == ()


def test_members_no_step_reads_are_not_closing() -> None:
    assert closing_members(CHUNK, (TEXT,)) == ()
