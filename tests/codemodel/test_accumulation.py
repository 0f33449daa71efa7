"""The accumulation plans: which members feed the accumulator, and the statements' pieces."""

from __future__ import annotations

from codemodel.build_ir import HERE, array, integer, obj, opt, req, string
from ssegen.codemodel.accumulation import ApplyPlan, ChoicesPlan, Feed, apply_plan
from ssegen.ir import Schema
from ssegen.naming import PythonIdentifier


def _plan(payload: Schema) -> ApplyPlan:
    return apply_plan(payload, "Chunk", PythonIdentifier("apply_chunk"))


def _choices(*members: object, delta: Schema | None = None, required: bool = True) -> ChoicesPlan:
    props = list(members) + ([req("delta", delta)] if delta is not None else [])
    make = req if required else opt
    plan = _plan(obj("Chunk", make("choices", array(obj("Choice", *props)))))  # type: ignore[arg-type]
    assert plan.choices is not None
    return plan.choices


def test_meta_reads_id_and_model_strings_and_none_for_the_absent_one() -> None:
    assert _plan(obj("Chunk", req("id", string()))).meta == "chunk.id, None"
    assert _plan(obj("Chunk", req("id", string()), opt("model", string()))).meta == "chunk.id, chunk.model"


def test_an_enum_id_is_not_meta() -> None:
    assert _plan(obj("Chunk", req("id", string("fixed")))).meta is None


def test_required_index_iterates_the_choices_directly() -> None:
    choices = _choices(req("index", integer()))
    assert (choices.loop, choices.index) == ("choice in chunk.choices", "choice.index")


def test_optional_index_falls_back_to_the_position() -> None:
    choices = _choices(opt("index", integer()), required=False)
    assert choices.loop == "position, choice in enumerate(chunk.choices or ())"
    assert choices.index == "position if choice.index is None else choice.index"


def test_missing_index_is_the_position() -> None:
    assert _choices(opt("text", string())).index == "position"


def test_optional_members_are_bound_and_guarded_required_ones_read_directly() -> None:
    choices = _choices(req("index", integer()), delta=obj("Delta", opt("content", string()), req("refusal", string())))
    assert choices.on_delta == (
        Feed("(text := delta.content) is not None", "state.content.append(text)"),
        REASONING,
        Feed(None, "state.refusal.append(delta.refusal)"),
    )
    assert (choices.delta, choices.delta_guard) == ("choice.delta", None)


#: The reasoning text a delta without ``reasoning_content`` in its spec is read for anyway.
REASONING = Feed("(text := delta.reasoning_content) is not None", "state.reasoning_content.append(text)")


def test_a_delta_without_reasoning_content_in_its_spec_is_read_for_it_anyway() -> None:
    """OpenAI's spec has no ``reasoning_content``; DeepSeek-shaped servers send it (the 28
    captured streams through OpenAI's own OpenAPI document agree with the SDK only so)."""
    delta = obj("Delta", opt("content", string()))
    choices = _choices(req("index", integer()), delta=delta)
    assert REASONING in choices.on_delta and choices.reasoning_member == delta
    declared = obj("Delta", opt("reasoning_content", string()))
    assert _choices(req("index", integer()), delta=declared).reasoning_member is None


def test_optional_delta_is_guarded() -> None:
    payload = obj("Chunk", req("choices", array(obj("Choice", opt("delta", obj("Delta", opt("content", string())))))))
    choices = _plan(payload).choices
    assert choices is not None and choices.delta_guard == "delta is not None"


def test_completion_text_on_the_choice_feeds_content() -> None:
    assert _choices(req("text", string())).on_choice == (Feed(None, "state.content.append(choice.text)"),)


def test_finish_reason_enum_still_feeds_the_state() -> None:
    choices = _choices(opt("finish_reason", string("stop", "length")))
    assert choices.finish_reason == Feed(
        "(finish_reason := choice.finish_reason) is not None", "state.finish_reason = finish_reason"
    )


def test_tool_call_items_without_members_are_handed_over_as_dicts() -> None:
    choices = _choices(delta=obj("Delta", opt("tool_calls", array(Schema("object", string().provenance)))))
    assert choices.tool_calls is not None
    assert (choices.tool_calls.typed, choices.tool_calls.source) == (False, "delta.tool_calls")


def test_typed_tool_calls_read_the_function_fields_under_its_guard() -> None:
    function = obj("Function", opt("name", string()), opt("arguments", string()))
    call = obj(
        "Call", req("index", integer()), opt("id", string()), opt("type", string("function")), opt("function", function)
    )
    choices = _choices(delta=obj("Delta", opt("tool_calls", array(call))))
    tools = choices.tool_calls
    assert tools is not None
    assert (tools.typed, tools.iterable, tools.function) == (True, "delta.tool_calls or ()", "call.function")
    assert tools.arguments == (
        "call.index",
        "call.id",
        "call.type",
        "function.name if function is not None else None",
        "function.arguments if function is not None else None",
    )


def test_usage_and_full_text_feed_the_accumulator() -> None:
    plan = _plan(obj("Chunk", opt("usage", obj("Usage", req("total", integer()))), req("full_text", string())))
    assert plan.usage == Feed("(usage := chunk.usage) is not None", "acc.set_usage(usage)")
    assert plan.full_text == Feed(None, "acc.final_text = chunk.full_text")


def test_message_without_members_the_accumulator_reads_reads_nothing() -> None:
    plan = _plan(obj("Ping", req("ts", integer())))
    assert plan.reads_nothing


def test_plans_read_colliding_members_through_their_disambiguated_identifiers() -> None:
    plan = _plan(obj("Chunk", opt("ID", integer()), req("id", string())))
    assert plan.meta == "chunk.id_, None"


def test_usage_is_kept_as_sent_by_the_decoder_and_handed_with_the_typed_object_to_a_converting_flavour() -> None:
    payload = obj("Chunk", opt("usage", obj("Usage", req("total", integer()))))
    assert _plan(payload).keep_usage == "usage"
    plan = apply_plan(payload, "Chunk", PythonIdentifier("apply_chunk"), "plain({})")
    assert plan.usage == Feed("(usage := chunk.usage) is not None", "acc.set_usage(plain(usage), usage)")
    assert _plan(obj("Chunk", req("id", string()))).keep_usage == ""


def test_a_chunk_with_choices_reads_a_top_level_error_whatever_the_spec_says() -> None:
    chunk = _plan(obj("Chunk", req("choices", array(obj("Choice", req("index", integer()))))))
    assert chunk.error == Feed("(error := chunk.error) is not None", "acc.error_in_chunk(error)")
    assert chunk.error_member  # the spec has none: the class gets `error: Any = None`
    choices = req("choices", array(obj("Choice", req("index", integer()))))
    declared = obj("Chunk", choices, opt("error", obj("Error", req("code", integer()))))
    plan = _plan(declared)
    assert plan.error is not None and not plan.error_member
    assert _plan(obj("Chunk", req("id", string()))).error is None  # not a chunk of choices


def test_content_that_may_be_a_list_of_parts_goes_through_add_content() -> None:
    parts = Schema("union", HERE, variants=(string(), array(obj("Part", req("type", string())))), nullable=True)
    choices = _choices(req("index", integer()), delta=obj("Delta", opt("content", parts), opt("refusal", string())))
    assert choices.on_delta == (
        Feed("(content := delta.content) is not None", "state.add_content(content)"),
        REASONING,
        Feed("(text := delta.refusal) is not None", "state.refusal.append(text)"),
    )
    number_or_text = Schema("union", HERE, variants=(string(), integer()))
    assert _choices(delta=obj("Delta", opt("content", number_or_text))).on_delta == (REASONING,)
