"""What a spec's examples make (issue 34 item 8): synthesized instances read as the wire would
send them (``format`` and enums honoured), and the default stream of a channel, the mock's
too, is a stream that succeeds (a spec's error examples kept apart for the ``error`` fault)."""

from __future__ import annotations

import copy
import importlib

import pytest

from ssegen.instances import full_instance, minimal_instance
from ssegen.ir import Property, Provenance, Schema
from ssegen.replay import error_frame

HERE = Provenance("t.yaml", 1, "")


def _string(fmt: str = "", enum: tuple[str, ...] = ()) -> Schema:
    return Schema(type="string", provenance=HERE, format=fmt, enum=enum)


@pytest.mark.parametrize(
    ("fmt", "value"),
    [
        ("date-time", "2025-01-01T00:00:00Z"),
        ("date", "2025-01-01"),
        ("uri", "https://example.com/"),
        ("uuid", "00000000-0000-4000-8000-000000000000"),
        ("email", "user@example.com"),
        ("int64-but-unknown", "x"),
    ],
)
def test_a_synthesized_string_honours_its_format(fmt: str, value: str) -> None:
    assert minimal_instance(_string(fmt)) == value


def test_a_synthesized_member_takes_its_first_enum_value_over_its_format() -> None:
    chunk = Schema(
        type="object",
        provenance=HERE,
        properties=(
            Property("created_at", _string("date-time"), True, "", HERE),
            Property("status", _string("date", ("queued", "done")), True, "", HERE),
        ),
    )
    assert full_instance(chunk) == {"created_at": "2025-01-01T00:00:00Z", "status": "queued"}


@pytest.mark.parametrize("address", ["/api/chat", "/api/generate"])
def test_ollamas_default_stream_is_the_specs_examples_and_succeeds(address: str) -> None:
    channel = importlib.import_module("generated.ollama").CHANNELS[address]
    events = channel.example_stream()
    expected = ["ChatChunk"] * 4 if address == "/api/chat" else ["GenerateChunk"] * 2
    assert [type(e).__name__ for e in events] == expected
    result = channel.accumulate(events)
    assert result.errors == [] and result.complete and result.stop_reason == "stop"
    assert all(not getattr(e, "model", "x").startswith("x") for e in events)  # the spec's, not "x"


@pytest.mark.parametrize(
    ("provider", "address", "sent"),
    [
        ("ollama", "/api/chat", b'{"error":"model runner has unexpectedly stopped"}\n'),
        ("anthropic", "/v1/messages", b"overloaded_error"),
        ("gemini", "/models/{model}:streamGenerateContent", b"RESOURCE_EXHAUSTED"),
    ],
)
def test_the_error_fault_sends_the_specs_own_error_example(provider: str, address: str, sent: bytes) -> None:
    channel = importlib.import_module(f"generated.{provider}").CHANNELS[address]
    frame = error_frame(channel)
    assert sent in frame
    assert [e["kind"] for e in channel.accumulate(channel.decode([frame])).errors] == ["error_event"]


def test_a_stated_plan_without_an_ending_says_which_step_is_missing() -> None:
    from ssegen.runtime.encoding import StatedText, Synthesis

    synth = Synthesis([("message", {"response": "a", "out": {"text": "x"}})], lambda data, event: data)
    with pytest.raises(ValueError, match=r"no `stop` nor `complete` step .*\(response\)"):
        synth.stated("Hi you", "stop", StatedText(text=("response",)))
    ended = synth.stated("Hi you", "length", StatedText(text=("out", "text"), stop=("why",)))
    assert ended == [
        '{"response":"a","out":{"text":"Hi"}}',
        '{"response":"a","out":{"text":" you"}}',
        '{"response":"a","out":{"text":""},"why":"length"}',
    ]


def test_a_stated_plan_without_a_text_step_says_which_step_is_missing() -> None:
    channel = importlib.import_module("generated.ollama").CHANNELS["/api/chat"]
    plain = copy.copy(channel.encoding)
    plain.stated_text = None
    writer = copy.copy(channel.writer)
    writer.encoding = plain
    with pytest.raises(ValueError, match=r"no stream synthesis for family 'custom': its plan has no `append` step"):
        writer.example_stream(text="Hi")
