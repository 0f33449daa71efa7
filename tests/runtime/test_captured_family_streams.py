"""Real captured Anthropic Messages and OpenAI Responses streams (tests/data/streams/, sources in
SOURCES.json) decode through the generated packages with every event typed: no ``UnknownEvent``.

An ``UnknownEvent`` here means the spec (specs/anthropic/messages.yaml,
specs/openai_responses/responses.yaml) lacks an event type, a block/item/delta type, or admits
less than the provider sends.
"""

from __future__ import annotations

import importlib
import json

import pytest
from conftest import ROOT

STREAMS = ROOT / "tests" / "data" / "streams"
SOURCES = json.loads((STREAMS / "SOURCES.json").read_text(encoding="utf-8"))

#: provider folder -> channel address
CHANNEL = {"anthropic": "/v1/messages", "openai_responses": "/v1/responses"}

NAMES = sorted(name for name in SOURCES if not name.startswith("_"))


def _decode(name: str, read_size: int) -> list[object]:
    provider = name.split("/", 1)[0]
    channel = importlib.import_module(f"generated.{provider}").CHANNELS[CHANNEL[provider]]
    body = (STREAMS / name).read_bytes()
    return list(channel.decode([body[i : i + read_size] for i in range(0, len(body), read_size)]))


def test_every_stream_file_has_its_source_recorded() -> None:
    files = sorted(str(p.relative_to(STREAMS)) for p in STREAMS.glob("*/*.sse"))
    assert files == NAMES
    for name in NAMES:
        assert {"repo", "path", "commit", "contains"} <= set(SOURCES[name]), name


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("read_size", [7, 4096])
def test_captured_stream_decodes_with_every_event_typed(name: str, read_size: int) -> None:
    events = _decode(name, read_size)
    unknown = [event for event in events if type(event).__name__ == "UnknownEvent"]
    assert events
    assert not unknown, f"{name}: {unknown[:3]}"
    assert len(events) == SOURCES[name]["events"]


@pytest.mark.parametrize("name", NAMES)
def test_captured_stream_classes_follow_the_sse_event_names(name: str) -> None:
    """Each frame decodes to the message its ``event:`` line names (the payload's ``type``)."""
    body = (STREAMS / name).read_text(encoding="utf-8")
    types = [json.loads(line[len("data: ") :])["type"] for line in body.splitlines() if line.startswith("data: ")]
    provider = name.split("/", 1)[0]
    by_type: dict[str, str] = {}
    for event, kind in zip(_decode(name, 4096), types, strict=True):
        by_type.setdefault(kind, type(event).__name__)
        assert by_type[kind] == type(event).__name__, (provider, kind)
    assert len(set(by_type.values())) == len(by_type)


@pytest.mark.parametrize("name", NAMES)
def test_runs_assemble_as_events_one_by_one(name: str) -> None:
    """``accumulate(decode(...))`` applies each stretch of consecutive events of one class
    through the class's run function (``Channel.runs``); the result is the one the events
    give applied one at a time (``accumulate`` of the collected list), whatever the reads."""
    provider = name.split("/", 1)[0]
    channel = importlib.import_module(f"generated.{provider}").CHANNELS[CHANNEL[provider]]
    body = (STREAMS / name).read_bytes()
    one_by_one = channel.accumulate(list(channel.decode([body]))).to_dict()
    for size in (7, 4096, len(body)):
        reads = [body[i : i + size] for i in range(0, len(body), size)]
        assert channel.accumulate(channel.decode(reads)).to_dict() == one_by_one, size
    per_event = [block + b"\n\n" for block in body.split(b"\n\n") if block]  # one read per event
    assert channel.accumulate(channel.decode(per_event)).to_dict() == one_by_one
