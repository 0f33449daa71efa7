"""The chat family's plan compiled by the one accumulation compiler: which members feed the
accumulator, and the statements they become (the plan's steps: ``normalize.accumulation.chat_plan``)."""

from __future__ import annotations

from codemodel.build_ir import HERE, array, channel, integer, message, obj, opt, req, string
from ssegen.codemodel.accumulation import ApplyPlan
from ssegen.codemodel.channels import channel_spec
from ssegen.codemodel.flavour import PYDANTIC
from ssegen.codemodel.models import ModelsBuilder
from ssegen.diagnostics import Diagnostics
from ssegen.ir import Schema

#: The choices of a chat chunk (what makes a channel's family ``chat``).
CHOICES = req("choices", array(obj("Choice", req("index", integer()))))


def _plan(payload: Schema, models: ModelsBuilder | None = None, chat: bool = True) -> ApplyPlan | None:
    """The run function of message ``Chunk`` of ``payload`` in a chat channel (with a chunk of
    choices besides when ``chat`` is False); None: no plan."""
    diagnostics = Diagnostics()
    messages = [message("Chunk", payload)] + ([] if chat else [message("Choices", obj("Choices", CHOICES))])
    spec = channel_spec(channel(*messages), models or ModelsBuilder(diagnostics), diagnostics)
    return next((plan for plan in spec.plans if plan.cls == "Chunk"), None)


def _code(payload: Schema, chat: bool = True) -> str:
    """The plan's lines (before the loop, in it, after it)."""
    plan = _plan(payload, chat=chat)
    assert plan is not None
    return "\n".join((*plan.before, *plan.statements, *plan.after))


def _choices(*members: object, delta: Schema | None = None, required: bool = True) -> str:
    props = list(members) + ([req("delta", delta)] if delta is not None else [])
    make = req if required else opt
    return _code(obj("Chunk", make("choices", array(obj("Choice", *props)))))  # type: ignore[arg-type]


def test_meta_reads_id_and_model_strings_while_either_is_unknown() -> None:
    code = _code(obj("Chunk", req("id", string()), CHOICES))
    assert "acc.meta(chunk.id, None)\n    need_meta = acc.id is None" in code
    code = _code(obj("Chunk", req("id", string()), opt("model", string()), CHOICES))
    assert "need_meta = acc.id is None or acc.model is None\n" in code
    assert "if need_meta:\n    acc.meta(chunk.id, chunk.model)" in code


def test_a_member_of_another_type_than_its_step_reads_is_left_out() -> None:
    assert _plan(obj("Chunk", req("id", integer())), chat=False) is None  # an id is a string


def test_each_choice_is_made_once_and_the_steps_after_write_to_it() -> None:
    """The plan's ``open``: a choice sending nothing yet (the first chunk's role) is one of the
    result's, looked up once per choice."""
    code = _choices(req("index", integer()), delta=obj("Delta", opt("content", string())))
    assert (
        "for choice in chunk.choices:\n    index = choice.index\n    state = states.get(index) or acc.choice(index)"
        in code
    )
    assert "state.content.append(" in code and code.count("states.get(") == 1


def test_optional_index_falls_back_to_the_counted_position() -> None:
    code = _choices(opt("index", integer()), required=False)
    assert "if (choices := chunk.choices) is not None:\n    position = -1\n    for choice in choices:\n" in code
    assert (
        "        position += 1\n        index = index_2 if (index_2 := choice.index) is not None else position" in code
    )


def test_missing_or_untyped_index_is_the_position() -> None:
    assert "state = states.get(position) or acc.choice(position)" in _choices(opt("text", string()))
    assert "state = states.get(position) or acc.choice(position)" in _choices(req("index", string()))


def test_optional_members_are_bound_and_guarded_required_ones_read_directly() -> None:
    code = _choices(req("index", integer()), delta=obj("Delta", opt("content", string()), req("refusal", string())))
    assert "if (content := delta.content) is not None:\n        state.content.append(content)" in code
    assert "state.refusal.append(delta.refusal)" in code
    assert "delta = choice.delta" in code  # a member object several steps read, read once


def test_a_delta_without_reasoning_content_in_its_spec_is_read_for_it_anyway() -> None:
    """OpenAI's spec has no ``reasoning_content``; DeepSeek-shaped servers send it (the 28
    captured streams through OpenAI's own OpenAPI document agree with the SDK only so)."""
    delta = obj("Delta", opt("content", string()))
    payload = obj("Chunk", req("choices", array(obj("Choice", req("index", integer()), req("delta", delta)))))
    plan = _plan(payload)
    assert plan is not None and (delta, "reasoning_content") in plan.undeclared
    assert ".reasoning_content) is not None:" in "\n".join(plan.statements)
    declared = obj("Delta", opt("reasoning_content", string()))
    declaring = obj("Chunk", req("choices", array(obj("Choice", req("index", integer()), req("delta", declared)))))
    assert (_plan(declaring) or ApplyPlan("f", "C")).undeclared == ((declaring, "error"),)


def test_optional_delta_is_guarded() -> None:
    payload = obj("Chunk", req("choices", array(obj("Choice", opt("delta", obj("Delta", opt("content", string())))))))
    assert "if (delta := choice.delta) is not None:" in _code(payload)


def test_completion_text_on_the_choice_feeds_content() -> None:
    assert "state.content.append(choice.text)" in _choices(req("index", integer()), req("text", string()))


def test_finish_reason_enum_still_feeds_the_state() -> None:
    code = _choices(opt("finish_reason", string("stop", "length")))
    assert (
        "if (finish_reason := choice.finish_reason) is not None:\n        state.finish_reason = finish_reason" in code
    )


def test_tool_call_items_without_members_are_handed_over_as_plain_data() -> None:
    code = _choices(delta=obj("Delta", opt("tool_calls", array(Schema("object", string().provenance)))))
    assert "if (tool_calls := delta.tool_calls) is not None:\n        state.add_tool_calls_data(tool_calls)" in code


def test_typed_tool_calls_read_the_function_fields_under_its_guard() -> None:
    function = obj("Function", opt("name", string()), opt("arguments", string()))
    call = obj(
        "Call", req("index", integer()), opt("id", string()), opt("type", string("function")), opt("function", function)
    )
    code = _choices(delta=obj("Delta", opt("tool_calls", array(call))))
    loop = "for place, call in enumerate(tool_calls):\n            function = call.function\n"
    assert loop + "            state.add_tool_call(" in code
    assert (
        "state.add_tool_call(call.index, call.id, call.type, function.name if function is not None else None, "
        "function.arguments if function is not None else None, place)" in code
    )


def test_usage_is_handed_over_once_per_run_and_full_text_is_the_final_text() -> None:
    payload = obj("Chunk", opt("usage", obj("Usage", req("total", integer()))), req("full_text", string()))
    plan = _plan(payload, chat=False)  # a chunk without choices: what the chat plan reads of it
    assert plan is not None
    assert plan.before == ("last_usage: Any = None",)
    assert plan.after == ("if last_usage is not None:", "    acc.set_usage(last_usage)")
    usage = "if (usage := chunk.usage) is not None:\n    last_usage = usage"
    assert plan.statements == (usage, "acc.final_text = chunk.full_text")


def test_a_message_with_no_member_the_plan_reads_has_no_run_function() -> None:
    assert _plan(obj("Ping", req("ts", integer())), chat=False) is None


def test_plans_read_colliding_members_through_their_disambiguated_identifiers() -> None:
    assert "acc.meta(chunk.id_, None)" in _code(obj("Chunk", opt("ID", integer()), req("id", string()), CHOICES))


def test_usage_is_kept_as_sent_by_the_decoder_and_handed_with_the_typed_object_to_a_converting_flavour() -> None:
    payload = obj("Chunk", opt("usage", obj("Usage", req("total", integer()))), CHOICES)
    plan = _plan(payload)
    assert plan is not None and plan.keep_usage == "usage"
    converting = _plan(payload, ModelsBuilder(Diagnostics(), PYDANTIC))
    assert converting is not None and "    acc.set_usage(plain(last_usage), last_usage)" in converting.after


def test_a_chunk_with_choices_reads_a_top_level_error_whatever_the_spec_says() -> None:
    chunk = obj("Chunk", req("choices", array(obj("Choice", req("index", integer())))))
    plan = _plan(chunk)
    assert plan is not None and (chunk, "error") in plan.undeclared and plan.error_attr == "error"
    assert plan.statements[-1] == "if (error := chunk.error) is not None:\n    acc.error_in_chunk(error)"
    choices = req("choices", array(obj("Choice", req("index", integer()))))
    declared = _plan(obj("Chunk", choices, opt("error", obj("Error", req("code", integer())))))
    assert declared is not None and declared.undeclared == () and declared.error_attr == "error"
    assert "error" not in _code(obj("Chunk", req("id", string())), chat=False)  # not a chunk of choices


def test_content_that_may_be_a_list_of_parts_goes_through_add_content() -> None:
    parts = Schema("union", HERE, variants=(string(), array(obj("Part", req("type", string())))), nullable=True)
    code = _choices(req("index", integer()), delta=obj("Delta", opt("content", parts), opt("refusal", string())))
    assert "if (content := delta.content) is not None:\n        state.add_content(content)" in code
    number_or_text = Schema("union", HERE, variants=(string(), integer()))
    # A string appended, any other value (a number) left to ``add_content``, which skips it.
    code = _choices(delta=obj("Delta", opt("content", number_or_text)))
    assert "if (content := delta.content) is not None:\n        state.add_content(content)" in code
