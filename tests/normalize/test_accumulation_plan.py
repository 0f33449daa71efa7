"""Accumulation plans in the IR (issue 13): families recognized from the messages' shape,
steps kept only where the payload has their members, and ``x-ssegen-accumulate``."""

from __future__ import annotations

from pathlib import Path

from codemodel.test_discrimination import MESSAGES
from conftest import SPECS

from ssegen.ir import AccumulateStep, Channel
from ssegen.load import load_provider


def _channel(tmp_path: Path, text: str) -> tuple[Channel, list[str]]:
    folder = tmp_path / "specs" / "demo"
    folder.mkdir(parents=True)
    (folder / "asyncapi.yaml").write_text(text, encoding="utf-8")
    result = load_provider(tmp_path / "specs", "demo")
    assert result.provider is not None, [d.format() for d in result.diagnostics]
    return result.provider.channels[0], [f"{d.code}: {d.message}" for d in result.diagnostics]


def test_every_seed_channel_is_a_chat_channel() -> None:
    for name in ("deepseek", "mistral", "siliconstorm", "xerotier"):
        provider = load_provider(SPECS, name).provider
        assert provider is not None
        assert {c.accumulation.family for c in provider.channels if c.accumulation} == {"chat"}, name


def test_messages_family_is_recognized_and_keeps_the_steps_its_payloads_can_feed(tmp_path: Path) -> None:
    channel, diagnostics = _channel(tmp_path, MESSAGES)
    plan = channel.accumulation
    assert plan is not None and plan.family == "messages"
    assert plan.of("MessageStart") == (AccumulateStep("meta", value=("message", "id")),)
    assert plan.of("ContentBlockDelta") == (
        AccumulateStep("append", ("index",), ("delta", "text"), "text", ("delta", "text_delta")),
        AccumulateStep("append", ("index",), ("delta", "partial_json"), "arguments", ("delta", "input_json_delta")),
        AccumulateStep("delta", ("index",), ("delta",)),
    )
    assert plan.of("MessageStop") == (AccumulateStep("done"),)
    assert plan.of("Error") == (AccumulateStep("error"),)
    assert plan.of("Ping") == ()
    assert not [d for d in diagnostics if d.startswith("accumulation-unknown")]


STATED = """\
asyncapi: 2.6.0
info: {title: Custom, version: '1'}
channels:
  /stream:
    x-ssegen-accumulate:
      token:
        - {action: append, key: slot, value: piece.text, field: text}
      finished:
        - {action: stop, value: why}
        - {action: done}
      nothing:
        - {action: append, value: piece.text, field: colour}
    subscribe:
      message:
        oneOf:
          - name: token
            payload:
              type: object
              required: [kind, slot, piece]
              properties:
                kind: {const: token}
                slot: {type: integer}
                piece: {type: object, properties: {text: {type: string}}}
          - name: finished
            payload:
              type: object
              properties:
                kind: {const: finished}
                why: {type: string}
"""


def test_a_stated_plan_is_read_and_bad_entries_are_reported(tmp_path: Path) -> None:
    channel, diagnostics = _channel(tmp_path, STATED)
    plan = channel.accumulation
    assert plan is not None and plan.family == "custom"
    assert plan.of("Token") == (AccumulateStep("append", ("slot",), ("piece", "text"), "text"),)
    assert plan.of("Finished") == (AccumulateStep("stop", value=("why",)), AccumulateStep("done"))
    [bad] = [d for d in diagnostics if d.startswith("accumulate-invalid")]
    assert "'nothing'" in bad


def test_a_channel_no_family_fits_is_reported_once(tmp_path: Path) -> None:
    text = STATED.replace("    x-ssegen-accumulate:", "    x-other:")
    channel, diagnostics = _channel(tmp_path, text)
    assert channel.accumulation is not None and channel.accumulation.family == "none"
    assert len([d for d in diagnostics if d.startswith("accumulation-unknown")]) == 1


#: A chat stream (AsyncAPI 3.0, data-only) whose failure is a chunk-shaped error: ``{"error":
#: {...}}`` with ``error`` required, the other message a chat-completions chunk.
CHAT_WITH_ERROR = """\
asyncapi: 3.0.0
info: {title: Chat, version: '1'}
channels:
  chat:
    address: /chat/completions
    messages:
      Chunk:
        payload:
          type: object
          properties:
            id: {type: string}
            choices:
              type: array
              items:
                type: object
                properties:
                  index: {type: integer}
                  delta: {type: object, properties: {content: {type: string}}}
      Failure:
        payload:
          type: object
          required: [error]
          properties:
            error: {type: object, properties: {message: {type: string}}}
"""


def test_an_error_message_of_a_gemini_channel_is_an_error_step() -> None:
    """Google's JSON error (``specs/gemini/generate-content.yaml``, ``ErrorResponse``) is
    recorded as an error; the chunks keep the whole ``gemini`` plan."""
    provider = load_provider(SPECS, "gemini").provider
    assert provider is not None
    [channel] = provider.channels
    plan = channel.accumulation
    assert plan is not None and plan.family == "gemini"
    assert [name for name, _ in plan.steps] == ["GenerateContentResponse", "ErrorResponse"]
    assert plan.of("ErrorResponse") == (AccumulateStep("error"),)
    assert AccumulateStep("error") not in plan.of("GenerateContentResponse")
    meta = AccumulateStep("meta", value=("responseId",), extra=("modelVersion",))
    assert plan.of("GenerateContentResponse")[0] == meta


def test_an_error_message_of_a_chat_channel_is_an_error_step(tmp_path: Path) -> None:
    channel, _ = _channel(tmp_path, CHAT_WITH_ERROR)
    plan = channel.accumulation
    assert plan is not None and plan.family == "chat"
    assert plan.of("Failure") == (AccumulateStep("error"),)
    assert plan.of("Chunk")[-1] == AccumulateStep("error", value=("error",))  # an error inside a chunk


def test_an_error_member_must_be_required_and_an_object_or_a_string(tmp_path: Path) -> None:
    optional = CHAT_WITH_ERROR.replace("          required: [error]\n", "")
    channel, _ = _channel(tmp_path / "optional", optional)
    assert channel.accumulation is not None and channel.accumulation.of("Failure") == ()
    member = "error: {type: object, properties: {message: {type: string}}}"
    for kind, steps in (("string", (AccumulateStep("error"),)), ("integer", ())):
        channel, _ = _channel(tmp_path / kind, CHAT_WITH_ERROR.replace(member, f"error: {{type: {kind}}}"))
        assert channel.accumulation is not None and channel.accumulation.of("Failure") == steps, kind


def test_a_usage_step_names_its_members_as_a_list_or_a_mapping(tmp_path: Path) -> None:
    """``members`` of ``usage``: paths read from ``value`` (the payload without one), named
    by their last member when written as a list (Ollama's counts, ``specs/ollama/api.yaml``)."""
    text = STATED.replace(
        "      finished:\n",
        "        - {action: usage, members: [slot, piece.text]}\n"
        "        - {action: usage, value: piece, members: {chars: text}, mode: replace}\n"
        "      finished:\n",
    )
    channel, diagnostics = _channel(tmp_path, text)
    assert not [d for d in diagnostics if d.startswith("accumulate-invalid: x-ssegen-accumulate: step")], diagnostics
    assert channel.accumulation is not None
    assert channel.accumulation.of("Token")[-2:] == (
        AccumulateStep("usage", members=(("slot", ("slot",)), ("text", ("piece", "text")))),
        AccumulateStep("usage", value=("piece",), members=(("chars", ("text",)),), mode="replace"),
    )
    ollama = load_provider(SPECS, "ollama").provider
    assert ollama is not None
    names = (
        "prompt_eval_count",
        "eval_count",
        "total_duration",
        "load_duration",
        "prompt_eval_duration",
        "eval_duration",
    )
    for channel in ollama.channels:
        plan = channel.accumulation
        assert plan is not None
        [usage] = [s for name, steps in plan.steps for s in steps if s.action == "usage"]
        assert usage == AccumulateStep("usage", members=tuple((name, (name,)) for name in names))
