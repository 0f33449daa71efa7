"""The accumulation compiler (``ssegen.codemodel.plans.compile_steps``), checked against the oracle.

Every family's plan is compiled (none is interpreted by generated code): each step's statement,
with less work per element than step by step (issue 22 item 8, issue 32 item 4). What the
compiled plans assemble is checked against ``tests/helpers/plan_oracle.py``, which runs the same
IR steps one at a time: on every generated package's own examples and captures, on random streams
of each channel's messages, and on a spec whose stated plans use every action and kind of path
(both model flavours)."""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from conftest import GENERATED, GENERATED_PROVIDERS, ROOT, SHARED, SPECS
from helpers import plan_oracle
from helpers.every_step import EVERY_STEP
from helpers.packages import generated_package

from ssegen.codemodel.channels import channel_spec
from ssegen.codemodel.models import ModelsBuilder
from ssegen.codemodel.plan_texts import bound_texts
from ssegen.codemodel.plans import Compiled, compile_steps
from ssegen.diagnostics import Diagnostics
from ssegen.ir import AccumulateStep, Channel, Provider
from ssegen.load import load_provider


def _gemini_channel() -> tuple[Channel, ModelsBuilder]:
    """Gemini's channel and the classes generated for it."""
    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    [channel] = provider.channels
    models = ModelsBuilder(Diagnostics())
    channel_spec(channel, models, Diagnostics())
    return channel, models


def _gemini(*steps: AccumulateStep) -> Compiled:
    """``steps`` (by default the built-in plan but its error step) on Gemini's chunk, compiled."""
    channel, models = _gemini_channel()
    message = channel.message("GenerateContentResponse")
    assert message is not None and channel.accumulation is not None
    steps = steps or tuple(s for s in channel.accumulation.of(message.name) if s.value != ("error",))
    return compile_steps(message.payload, steps, True, models)


def test_each_member_a_part_may_carry_is_read_once_and_opposite_tests_are_an_else() -> None:
    code = "\n".join(_gemini().statements)
    assert code.count(".text) is not None") == 1  # both text steps under one test
    assert "if not (part.thought is True):" in code and "else:" in code
    assert code.count(".finish_reason) is not None") == 1  # finish reason, stop reason, done
    assert code.count("acc.done()") == 2  # the finish reason's and the blocked prompt's


def test_positions_are_counted_only_where_a_key_falls_back_to_them() -> None:
    code = "\n".join(_gemini().statements)
    assert "enumerate(" not in code
    assert code.count(" = -1") == 1  # the candidate's position: its index may be left out
    assert "for part in parts:" in code  # parts: no key reads their position
    # The candidate's key is read once, first thing, and every step of it writes there.
    assert code.count("candidate.index") == 1 and code.count("states.get(index)") == 9


def test_a_usage_every_event_replaces_is_handed_over_once_per_run() -> None:
    compiled = _gemini()
    assert compiled.before == (
        "states = acc.states",
        "need_meta = acc.id is None or acc.model is None",
        "last_usage: Any = None",
    )
    assert compiled.after == ("if last_usage is not None:", "    acc.set_usage(last_usage)")
    assert "last_usage = usage_metadata" in "\n".join(compiled.statements)
    assert "acc.set_usage" not in "\n".join(compiled.statements)


def test_a_merged_usage_is_handed_over_by_each_event() -> None:
    compiled = _gemini(AccumulateStep("usage", value=("usageMetadata",), mode="merge"))
    assert compiled.after == ()
    assert "acc.merge_usage(" in compiled.statements[0]


def test_meta_waits_only_for_what_its_steps_read() -> None:
    """A meta step with no id (Ollama's lines send none) stops calling meta once the model is
    known; steps reading different members wait for both."""
    model = AccumulateStep("meta", extra=("modelVersion",))
    ident = AccumulateStep("meta", value=("responseId",))
    compiled = _gemini(model)
    assert "need_meta = acc.model is None" in compiled.before
    assert "acc.id" not in "\n".join((*compiled.before, *compiled.statements))
    both = _gemini(model, ident)
    assert both.before == ("need_meta = acc.id is None or acc.model is None",)
    assert "\n".join(both.statements).count("need_meta = acc.id is None or acc.model is None") == 2


def test_an_append_without_key_appends_to_the_texts_bound_before_the_loop() -> None:
    """A text of the stream (Ollama's ``text`` and ``thinking``) takes each string delta by an
    ``append`` on its parts, not a call of ``acc.add_text`` per event."""
    compiled = _gemini(AccumulateStep("append", value=("modelVersion",), field="text"))
    assert "texts = acc.texts" in compiled.before
    code = "\n".join(compiled.statements)
    assert "(texts.get('text') or acc.text_parts('text')).append(" in code and "add_text" not in code


def test_a_stream_text_is_looked_up_once_per_run_and_made_on_its_first_part() -> None:
    """The run function binds each stream text's parts before its loop (``plan_texts``), and
    makes a text only when its first part comes: Ollama's ``text`` and ``thinking``, named apart
    from the members the code reads (``thinking``), Cohere's ``tool_plan``."""
    code = _apply_source("ollama", "_apply_api_chat_chat_chunk")
    assert 'text_parts = acc.texts.get("text")' in code and 'thinking_parts = acc.texts.get("thinking")' in code
    assert "if thinking_parts is None:\n" in code and "thinking_parts.append(thinking)" in code
    assert "texts.get(" not in code.replace("acc.texts.get(", "") and "texts = acc.texts" not in code
    assert 'tool_plan_parts = acc.texts.get("tool_plan")' in _apply_source("cohere", "_apply_chat_tool_plan_delta")
    statements, before = bound_texts(("v = (texts.get('a b') or acc.text_parts('a b')).append(x)",), ())
    assert statements == ("v = (texts.get('a b') or acc.text_parts('a b')).append(x)",)  # not a statement of its own
    statements, before = bound_texts(
        ("if x:\n    (texts.get('a_parts') or acc.text_parts('a_parts')).append(a_parts_parts)",),
        ("texts = acc.texts",),
    )
    assert before == ("a_parts_parts_2 = acc.texts.get('a_parts')",)
    assert statements == (
        "if x:\n    if a_parts_parts_2 is None:\n        a_parts_parts_2 = acc.text_parts('a_parts')\n"
        "    a_parts_parts_2.append(a_parts_parts)",
    )


def test_a_step_normalize_would_not_keep_is_an_error_not_a_fallback() -> None:
    with pytest.raises(ValueError, match="cannot be compiled"):
        _gemini(AccumulateStep("append", key=("candidates", "*", "index"), value=("responseId",), field="text"))


def _apply_source(package: str, function: str) -> str:
    """The source of generated run function ``function`` of ``generated.<package>``."""
    source = (GENERATED / package / "channels.py").read_text(encoding="utf-8")
    start = source.index(f"def {function}(")
    return source[start : source.index("\n\n\n", start)]


def test_the_alternatives_of_a_union_are_one_elif_chain_and_a_delta_step_its_else() -> None:
    code = _apply_source("anthropic", "_apply_v1_messages_content_block_delta")
    assert "if isinstance(text_delta := chunk.delta, TextDelta):" in code
    assert code.count("elif isinstance(") == 3
    assert "else:\n            blocks[index].add_delta(chunk.delta)" in code


def test_a_member_several_steps_test_is_tested_once() -> None:
    """Ollama's ``message``: its text, its thinking and its tool calls under one test."""
    code = _apply_source("ollama", "_apply_api_chat_chat_chunk")
    assert code.count("chunk.message") == 1


def test_a_chat_choice_is_looked_up_once_and_its_delta_read_once() -> None:
    code = _apply_source("deepseek", "_apply_chat_completions_chat_completion_chunk")
    assert code.count("states.get(") == 1 and code.count(".delta") == 1
    assert "state = states.get(index) or acc.choice(index)\n                delta = choice.delta" in code
    assert "acc.meta(chunk.id, chunk.model)" in code


# -- the oracle -------------------------------------------------------------------------------------


def _provider(specs: Path, name: str) -> Provider:
    provider = load_provider(specs, name).provider
    assert provider is not None
    return provider


def _captures(package: str, address: str) -> Iterator[bytes]:
    """The bodies captured for channel ``address`` of ``package`` that the tests can read: the
    corpus of ``../shared`` (when present) and ``tests/data``."""
    sources = SHARED / "corpus" / "streams" / "sources.json"
    if sources.is_file():
        for name, source in json.loads(sources.read_text(encoding="utf-8")).items():
            if (source["decoder"], source["channel"]) == (package, address):
                yield (sources.parent / f"{name}.sse").read_bytes()
    for folder in (SHARED / "corpus" / "families" / package, ROOT / "tests" / "data" / "streams" / package):
        yield from (path.read_bytes() for path in sorted(folder.glob("*.sse")))
    if package == "cohere":
        yield from (path.read_bytes() for path in sorted((ROOT / "tests" / "data" / "cohere").glob("*.sse")))


def _bodies(channel: Any, ir: Channel, package: str, seeds: int) -> Iterator[bytes]:
    """The bodies a channel's compiled plans are checked on: its examples, its example streams,
    its captures, and ``seeds`` random streams of its messages."""
    frame = channel.framing.frame_text
    yield b"".join(frame(data, event) for event, data in channel.encoding.examples)
    for events in (channel.encoding.streams or {}).values():
        yield b"".join(frame(data, event) for event, data in events)
    yield from _captures(package, ir.address)
    for seed in range(seeds):
        yield plan_oracle.random_stream(channel, ir, random.Random(seed))


def _assembles_alike(package: ModuleType, provider: Provider, name: str, seeds: int) -> int:
    """Check every channel of ``package`` on its bodies (:func:`_bodies`): the compiled plans and
    the oracle assemble alike, in both modes of chat text; the number of bodies checked."""
    checked = 0
    for ir in provider.channels:
        channel = package.CHANNELS[ir.address]
        for body in _bodies(channel, ir, name, seeds):
            for full_text in (False, True) if channel.family == "chat" else (False,):
                compiled = channel.accumulate(channel.decode([body]), full_text=full_text).to_dict()
                oracle = plan_oracle.accumulate(channel, ir, [body], full_text=full_text).to_dict()
                assert compiled == oracle, (name, ir.address, body[:2000])
            checked += 1
    return checked


@pytest.mark.parametrize("name", GENERATED_PROVIDERS)
def test_every_generated_plan_and_the_oracle_assemble_alike(name: str) -> None:
    """Each provider's examples, example streams, captures and 40 random streams per channel."""
    package = importlib.import_module(f"generated.{name}")
    assert _assembles_alike(package, _provider(SPECS, name), name, seeds=40) >= 41


@pytest.mark.parametrize("model", ["msgspec", "pydantic"])
def test_every_step_compiled_and_the_oracle_assemble_alike(tmp_path: Path, model: str) -> None:
    """Stated plans using every action, entry and kind of path (``helpers.every_step``)."""
    with generated_package(tmp_path, {"asyncapi.yaml": EVERY_STEP}, model=model) as (package, diagnostics):
        assert [d.format() for d in diagnostics if d.severity != "info"] == []
        provider = _provider(tmp_path / "specs", "demo")
        assert _assembles_alike(package, provider, "demo", seeds=120) >= 240


def test_the_oracle_finds_a_wrong_compiled_step() -> None:
    """A plan compiled with one step wrong (a choice's finish reason not written) is told apart."""
    from generated.deepseek import CHANNELS

    channel = CHANNELS["/chat/completions"]
    ir = _provider(SPECS, "deepseek").channel("/chat/completions")
    assert ir is not None
    chunk = channel.messages["ChatCompletionChunk"]
    runs = dict(channel.runs)

    def without_finish_reason(acc: Any, chunks: Any) -> None:
        for event in chunks:
            for choice in event.choices:
                choice.finish_reason = None
            runs[chunk](acc, (event,))

    body = b"".join(channel.framing.frame_text(data, event) for event, data in channel.encoding.examples)
    patched = pytest.MonkeyPatch()
    patched.setitem(channel.runs, chunk, without_finish_reason)
    try:
        compiled = channel.accumulate(channel.decode([body])).to_dict()
    finally:
        patched.undo()
    assert compiled != plan_oracle.accumulate(channel, ir, [body]).to_dict()
