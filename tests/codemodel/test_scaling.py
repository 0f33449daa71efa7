"""Building the code model is linear in a document's messages: four times the messages cost
about four times the Python calls (the quadratic spots counted a pass over the channel, or a
comparison with every message kept, per message). Counted with cProfile, never timed."""

from __future__ import annotations

import cProfile
import json
import pstats
import sys
from pathlib import Path

from ssegen.codemodel import build_package_spec
from ssegen.codemodel.conformance import _tried_before
from ssegen.ir import Message
from ssegen.load import load_provider

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from generate import synthetic_document  # noqa: E402

from .build_ir import channel, integer, message, obj, opt, req, string


def _calls(tmp_path: Path, messages: int) -> int:
    """Python calls to load a synthetic document of ``messages`` messages and build its code model."""
    specs = tmp_path / f"specs{messages}"
    (specs / "synthetic").mkdir(parents=True)
    document = json.dumps(synthetic_document(messages))
    (specs / "synthetic" / "asyncapi.json").write_text(document, encoding="utf-8")
    profile = cProfile.Profile()
    profile.enable()
    loaded = load_provider(specs, "synthetic")
    assert loaded.provider is not None and not loaded.diagnostics.has_errors
    spec = build_package_spec(loaded.provider, loaded.diagnostics)
    profile.disable()
    assert len(spec.channels[0].messages) == messages
    assert len(spec.examples) == messages  # every other one synthesized
    return pstats.Stats(profile).total_calls  # type: ignore[attr-defined,no-any-return]


def test_four_times_the_messages_cost_about_four_times_the_calls(tmp_path: Path) -> None:
    # Measured: 3.97 now; 4.84 with the quadratic spots (Diagnostics.add, _tried_before, the
    # tags of every dispatch per message, MessageSpec membership in a list).
    small, large = _calls(tmp_path, 100), _calls(tmp_path, 400)
    assert large / small < 4.3, f"{small} calls for 100 messages, {large} for 400"


def test_each_message_is_tried_after_those_ahead_of_it_in_its_group_only() -> None:
    def tagged(name: str, value: str) -> Message:
        return message(name, obj(name, req("type", string(value)), opt("n", integer())))

    shaped = [
        message(f"Shape{i}", obj(f"Shape{i}", *(req(f"m{j}", integer()) for j in range(3 - i)))) for i in range(3)
    ]
    plain = channel(tagged("A", "a"), tagged("B", "b"), tagged("A2", "a"), *shaped)
    before = {name: [m.name for m in messages] for name, messages in _tried_before(plain).items()}
    assert before == {"A2": ["A"], "Shape1": ["Shape0"], "Shape2": ["Shape0", "Shape1"]}
