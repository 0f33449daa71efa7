"""The pydantic flavour decodes and accumulates as the msgspec flavour does.

For every seed provider, the committed msgspec package (``generated/<provider>``) and the
package generated with ``model = "pydantic"`` get the same bytes: every example stream of
``generated/*/examples`` and the spec's message examples streamed as one body, through every
channel of the provider (so payloads of one channel also meet the others' messages and become
``UnknownEvent``), and mutations of each message example that change what tells messages apart
(a member dropped, a value of another JSON type, ``null``, an unknown member, an unknown enum
value, members no spec lists in a delta).  Both must give the same class name for every event,
the same plain data for every typed event, and the same ``accumulate(...).to_dict()``.

The one allowed difference is the wording of the ``reason`` of ``UnknownEvent`` (both start with
the name of the last message tried, ``ChatCompletionChunk: ``, the rest is each library's error
text) and of ``VendorEvent`` (not part of ``to_dict()``).
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from conftest import GENERATED, GENERATED_PROVIDERS
from helpers.flavours import package
from helpers.packages import conformance_examples

PROVIDERS = GENERATED_PROVIDERS


def _frame(provider: str, channel: str, event_type: str, data: str) -> str:
    """One event of ``channel`` as its framing writes it (an SSE event, or an NDJSON line)."""
    if importlib.import_module(f"generated.{provider}").CHANNELS[channel].framing == "ndjson":
        return f"{data}\n"
    return ("" if event_type == "message" else f"event: {event_type}\n") + f"data: {data}\n\n"


def _bodies(provider: str) -> list[tuple[str, bytes]]:
    bodies = [(f"page:{p.name}", p.read_bytes()) for p in sorted((GENERATED / provider / "examples").glob("*.sse"))]
    examples = conformance_examples(importlib.import_module(f"generated.{provider}.test_conformance"))
    for channel in sorted({e[0] for e in examples}):
        frames = [_frame(provider, channel, e[1], e[4]) for e in examples if e[0] == channel]
        bodies.append((f"spec-examples:{channel}", "".join(frames).encode("utf-8")))
    return bodies


def _mutations(data: str) -> list[str]:
    """Variants of one JSON object example that probe discrimination and leniency."""
    try:
        value = json.loads(data)
    except ValueError:
        return []
    if not isinstance(value, dict):
        return []
    variants: list[Any] = [{**value, "unknown_member_x": [1, {"a": None}]}, *_unlisted_in_deltas(value)]
    for key, member in value.items():
        variants.append({k: v for k, v in value.items() if k != key})
        variants.append({**value, key: None})
        if isinstance(member, str):
            variants += [{**value, key: 1}, {**value, key: "an-unknown-enum-value"}]
        elif isinstance(member, bool):
            variants.append({**value, key: "true"})
        elif isinstance(member, int):
            variants += [{**value, key: str(member)}, {**value, key: member + 0.5}, {**value, key: float(member)}]
        elif isinstance(member, float):
            variants += [{**value, key: int(member)}, {**value, key: str(member)}]
        elif isinstance(member, list):
            variants += [{**value, key: []}, {**value, key: {}}]
            if member and isinstance(member[0], dict):
                first = member[0]
                variants += [{**value, key: [{k: v for k, v in first.items() if k != inner}]} for inner in first]
                variants += [{**value, key: [{**first, inner: 7}]} for inner in first]
        elif isinstance(member, dict):
            variants.append({**value, key: []})
            variants += [{**value, key: {k: v for k, v in member.items() if k != m}} for m in member]
    return [json.dumps(v) for v in variants]


def _unlisted_in_deltas(value: dict[str, Any]) -> list[Any]:
    """``value`` with members no spec lists in its delta objects (a block's ``delta``, each
    choice's ``delta``), as OpenRouter sends ``reasoning`` and ``reasoning_details``."""
    extra = {"reasoning": "r", "reasoning_details": [{"type": "reasoning.text", "text": "r"}]}
    variants: list[Any] = []
    if isinstance(value.get("delta"), dict):
        variants.append({**value, "delta": {**value["delta"], **extra}})
    choices = value.get("choices")
    if (
        isinstance(choices, list)
        and choices
        and all(isinstance(c, dict) and isinstance(c.get("delta"), dict) for c in choices)
    ):
        variants.append({**value, "choices": [{**c, "delta": {**c["delta"], **extra}} for c in choices]})
    return variants


def _cases() -> list[tuple[str, str, bytes]]:
    cases = []
    for provider in PROVIDERS:
        cases += [(provider, name, body) for name, body in _bodies(provider)]
        examples = conformance_examples(importlib.import_module(f"generated.{provider}.test_conformance"))
        for channel in sorted({e[0] for e in examples}):
            frames = [
                _frame(provider, channel, e[1], variant)
                for e in examples
                if e[0] == channel
                for variant in _mutations(e[4])
            ]
            frames += [
                _frame(provider, channel, "message", "not json"),
                _frame(provider, channel, "message", '{"choices": "none"}'),
            ]
            frames.append(_frame(provider, channel, "nobody-sends-this", "{}"))
            cases.append((provider, f"mutated-examples:{channel}", "".join(frames).encode("utf-8")))
    return cases


CASES = _cases()

#: (provider, body) -> why the flavours still differ there; strict xfails, so a fix shows up as XPASS.
GAPS: dict[tuple[str, str], str] = {}


def _reason_prefix(result: dict[str, Any]) -> dict[str, Any]:
    """``result`` with each unknown event's reason (an unlisted error's too) cut to the message it names."""
    errors = [{**e, "reason": e["reason"].split(": ", 1)[0]} if "reason" in e else e for e in result["errors"]]
    return {**result, "errors": errors}


def _plain(event: Any) -> Any:
    """One typed event as plain data; a ``VendorEvent``'s reason is each library's wording."""
    if hasattr(event, "model_dump"):
        return event.model_dump(by_alias=True, exclude_defaults=True, warnings=False)
    data = msgspec.to_builtins(event)
    if type(event).__name__ == "VendorEvent":
        data["reason"] = bool(data.get("reason"))
    return data


@pytest.mark.parametrize(
    ("provider", "name", "body"),
    [
        pytest.param(p, n, b, marks=[pytest.mark.xfail(reason=GAPS[p, n], strict=True)] if (p, n) in GAPS else [])
        for p, n, b in CASES
    ],
    ids=[f"{p}-{n}" for p, n, _ in CASES],
)
def test_both_flavours_classify_and_accumulate_the_same(provider: str, name: str, body: bytes) -> None:
    msgspec_pkg, pydantic_pkg = package(provider, "msgspec"), package(provider, "pydantic")
    assert list(msgspec_pkg.CHANNELS) == list(pydantic_pkg.CHANNELS)
    reads = [body[i : i + 7] for i in range(0, len(body), 7)]
    for address, channel in msgspec_pkg.CHANNELS.items():
        other = pydantic_pkg.CHANNELS[address]
        events, other_events = list(channel.decode(reads)), list(other.decode(reads))
        assert [type(e).__name__ for e in events] == [type(e).__name__ for e in other_events], (name, address)
        typed = [(a, b) for a, b in zip(events, other_events, strict=True) if type(a).__name__ != "UnknownEvent"]
        assert [_plain(a) for a, _ in typed] == [_plain(b) for _, b in typed], (name, address)
        # Accumulated twice: from the events, and straight from the bytes (the batch fast path).
        for result, other_result in (
            (channel.accumulate(events), other.accumulate(other_events)),
            (channel.accumulate(channel.decode(reads)), other.accumulate(other.decode(reads))),
        ):
            plain, other_plain = result.to_dict(), other_result.to_dict()
            assert _reason_prefix(plain) == _reason_prefix(other_plain), (name, address)
            assert type(result) is type(other_result) or type(result).__name__ == type(other_result).__name__


def test_the_cases_reach_unknown_events_and_every_documented_message() -> None:
    for provider in PROVIDERS:
        pkg = package(provider, "pydantic")
        seen: set[str] = set()
        for _, body in [(n, b) for p, n, b in CASES if p == provider]:
            for channel in pkg.CHANNELS.values():
                seen |= {type(e).__name__ for e in channel.decode([body])}
        # Every class a documented example decodes to (xerotier lists vendor events with no example).
        classes = {
            e[3] for e in conformance_examples(importlib.import_module(f"generated.{provider}.test_conformance"))
        }
        assert classes | {"UnknownEvent"} <= seen, (provider, classes - seen)


def _defined(module: Any) -> list[tuple[str, type]]:
    """The classes ``module`` defines (not those it imports, as its payloads' runtime base)."""
    return [(n, c) for n, c in vars(module).items() if isinstance(c, type) and c.__module__ == module.__name__]


def test_pydantic_models_are_base_models_with_the_msgspec_names_and_fields() -> None:
    import pydantic

    for provider in PROVIDERS:
        msgspec_models, pydantic_models = package(provider, "msgspec").models, package(provider, "pydantic").models
        structs = {n: c for n, c in _defined(msgspec_models) if issubclass(c, msgspec.Struct)}
        models = {n: c for n, c in _defined(pydantic_models) if issubclass(c, pydantic.BaseModel)}
        assert sorted(structs) == sorted(models)
        for name, struct in structs.items():
            model = models[name]
            assert model.__doc__ == struct.__doc__, name
            fields = msgspec.structs.fields(struct)
            # A tagged-union variant's tag is msgspec's `tag_field`, not a struct field; pydantic has it as a field.
            tag = struct.__struct_config__.tag_field
            assert tag is None or tag in model.model_fields, name
            model_fields = {n: f for n, f in model.model_fields.items() if n != tag}
            assert [f.name for f in fields] == list(model_fields), name
            assert [f.encode_name for f in fields] == [f.alias or n for n, f in model_fields.items()], name
            assert [f.required for f in fields] == [f.is_required() for f in model_fields.values()], name


def test_pydantic_reason_is_one_line_naming_the_place() -> None:
    chat = package("deepseek", "pydantic").CHANNELS["/chat/completions"]
    event = chat.parse('{"id": "x", "choices": [{}]}')  # not clearly a chunk: no lenient decoding
    assert type(event).__name__ == "UnknownEvent"
    assert event.reason == "ChatCompletionChunk: Object missing required field `object`"
    event = chat.parse('{"id": "x", "choices": [{}], "object": "chat.completion.chunk", "created": 1, "model": "m"}')
    assert type(event).__name__ == "ChatCompletionChunk"  # clearly a chunk: decoded leniently
    assert event.off_spec == {"/choices/0/index": None, "/choices/0/delta": None}
    event = chat.parse("not json")
    assert event.reason.startswith("ChatCompletionChunk: Invalid JSON") and "\n" not in event.reason


def test_pydantic_package_needs_its_support_module_only() -> None:
    out = Path(package("deepseek", "pydantic").__file__).parents[1]
    assert (out / "_runtime" / "pydantic_support.py").is_file()
    assert not list(GENERATED.rglob("pydantic_support.py"))
