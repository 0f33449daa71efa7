"""The typed fast path of plans (``ssegen.codemodel.plans.compile_steps``): each step's
statement, with less work per element than step by step (issue 22 item 8), the same result
(the runtime tests run every capture through it and through ``runtime/plan.py``)."""

from __future__ import annotations

from conftest import SPECS

from ssegen.codemodel.plans import Compiled, compile_steps
from ssegen.ir import AccumulateStep
from ssegen.load import load_provider


def _gemini() -> Compiled:
    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    [channel] = provider.channels
    message = channel.message("GenerateContentResponse")
    assert message is not None and channel.accumulation is not None
    steps = tuple(s for s in channel.accumulation.of(message.name) if s.value != ("error",))
    compiled = compile_steps(message.payload, steps, choices=True)
    assert compiled is not None
    return compiled


def test_each_member_a_part_may_carry_is_read_once_and_opposite_tests_are_an_else() -> None:
    code = "\n".join(_gemini().statements)
    assert code.count(".text) is not None") == 1  # both text steps under one test
    assert "if not (v6.thought is True):" in code and "else:" in code
    assert code.count(".finish_reason) is not None") == 1  # finish reason, stop reason, done
    assert code.count("acc.done()") == 2  # the finish reason's and the blocked prompt's


def test_positions_are_counted_only_where_a_key_falls_back_to_them() -> None:
    code = "\n".join(_gemini().statements)
    assert "enumerate(" not in code
    assert code.count(" = -1") == 1  # the candidate's position: its index may be left out
    assert "for v6 in v5:" in code  # parts: no key reads their position


def test_a_usage_every_event_replaces_is_handed_over_once_per_run() -> None:
    compiled = _gemini()
    assert compiled.before == (
        "states = acc.states",
        "need_meta = acc.id is None or acc.model is None",
        "usage: Any = None",
    )
    assert compiled.after == ("if usage is not None:", "    acc.set_usage(usage)")
    assert "usage = v" in "\n".join(compiled.statements)
    assert "acc.set_usage" not in "\n".join(compiled.statements)


def test_a_merged_usage_is_handed_over_by_each_event() -> None:
    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    payload = provider.channels[0].messages[0].payload
    compiled = compile_steps(payload, (AccumulateStep("usage", value=("usageMetadata",), mode="merge"),), True)
    assert compiled is not None and compiled.after == ()
    assert "acc.merge_usage(" in compiled.statements[0]


def test_the_compiled_gemini_plan_and_the_executor_assemble_alike(monkeypatch: object) -> None:
    """Every capture (and the spec's examples, an error inside a chunk, a blocked prompt,
    two candidates, a candidate without ``index``) assembles alike through the generated
    package's compiled plan and through ``plan.run`` running the same steps."""
    import json

    import pytest
    from conftest import shared_path

    from generated.gemini import CHANNELS
    from ssegen.codemodel import accumulation
    from ssegen.runtime import plan as runtime_plan
    from ssegen.runtime.accumulate import Accumulator

    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    [channel] = provider.channels
    message = channel.message("GenerateContentResponse")
    assert message is not None and channel.accumulation is not None
    patch = pytest.MonkeyPatch()
    patch.setattr(accumulation, "compile_steps", lambda *args: None)
    try:
        spec = accumulation.executor_plan(
            message.payload, "GenerateContentResponse", "f", channel.accumulation.of(message.name), True
        )
    finally:
        patch.undo()
    plan = eval(spec.executor, {"Plan": runtime_plan.Plan, "Step": runtime_plan.Step})  # noqa: S307
    gemini = CHANNELS["/models/{model}:streamGenerateContent"]
    bodies = [b"".join(f"data: {data}\n\n".encode() for _, data in gemini.encoding.examples[:8])]
    two = {"candidates": [{"content": {"parts": [{"text": "a"}]}}, {"index": 5, "content": {"parts": [{"text": "b"}]}}]}
    odd = {"error": "reset", "candidates": [{"finishReason": "STOP"}], "usageMetadata": {"totalTokenCount": 1}}
    bodies.append(b"".join(f"data: {json.dumps(v)}\n\n".encode() for v in (two, odd)))
    folder = shared_path("corpus", "families", "gemini")
    bodies += [path.read_bytes() for path in sorted(folder.glob("*.sse"))]
    for body in bodies:
        compiled = gemini.accumulate(gemini.decode([body]))
        acc = Accumulator()
        acc.family = gemini.family
        for event in gemini.decode([body]):
            runtime_plan.run(acc, plan, event)
        assert compiled.to_dict() == acc.result().to_dict()


def test_meta_waits_only_for_what_its_steps_read() -> None:
    """A meta step with no id (Ollama's lines send none) stops calling meta once the model is
    known; steps reading different members wait for both."""
    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    payload = provider.channels[0].messages[0].payload
    model = AccumulateStep("meta", extra=("modelVersion",))
    ident = AccumulateStep("meta", value=("responseId",))
    compiled = compile_steps(payload, (model,), True)
    assert compiled is not None and "need_meta = acc.model is None" in compiled.before
    assert "acc.id" not in "\n".join((*compiled.before, *compiled.statements))
    both = compile_steps(payload, (model, ident), True)
    assert both is not None and both.before == ("need_meta = acc.id is None or acc.model is None",)
    code = "\n".join(both.statements)
    assert code.count("need_meta = acc.id is None or acc.model is None") == 2


def test_an_append_without_key_appends_to_the_texts_bound_before_the_loop() -> None:
    """A text of the stream (Ollama's ``text`` and ``thinking``) takes each string delta by an
    ``append`` on its parts, not a call of ``acc.add_text`` per event."""
    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    payload = provider.channels[0].messages[0].payload
    step = AccumulateStep("append", value=("modelVersion",), field="text")
    compiled = compile_steps(payload, (step,), True)
    assert compiled is not None and "texts = acc.texts" in compiled.before
    code = "\n".join(compiled.statements)
    assert "(texts.get('text') or acc.text_parts('text')).append(" in code and "add_text" not in code
