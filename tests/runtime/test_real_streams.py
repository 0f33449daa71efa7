"""Real captured SSE bodies (../shared/corpus/streams/) replayed through the generated decoders and
compared with what the openai SDK assembles from the same bytes (openai_sdk_results.json).

Third-party data: read from ../shared, never copied; the tests skip with the reason when it is absent.
Each stream is checked on five aspects (text, usage, errors, unknown events, completeness); the gaps
still open are strict xfails naming issue 14, so a fix shows up as an XPASS to remove from :data:`GAPS`.
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from typing import Any

import pytest
from conftest import SHARED, shared_path

ASPECTS = ("text", "usage", "errors", "unknown", "complete")

#: (stream, aspect) -> why it does not agree with the SDK yet (issue 14).
GAPS: dict[tuple[str, str], str] = {}


def _corpus() -> tuple[dict[str, Any], dict[str, Any]]:
    streams = shared_path("corpus", "streams")
    sources = json.loads((streams / "sources.json").read_text(encoding="utf-8"))
    sdk = json.loads((streams / "openai_sdk_results.json").read_text(encoding="utf-8"))
    return sources, sdk


def _names() -> list[str]:
    path = SHARED / "corpus" / "streams" / "sources.json"
    return sorted(json.loads(path.read_text(encoding="utf-8"))) if path.is_file() else ["(absent)"]


@cache
def _replay(name: str) -> dict[str, Any]:
    """The generated decoder's assembled result for stream ``name``, fed in 4 KiB reads."""
    sources, _ = _corpus()
    source = sources[name]
    channel = importlib.import_module(f"generated.{source['decoder']}").CHANNELS[source["channel"]]
    body = (shared_path("corpus", "streams") / f"{name}.sse").read_bytes()
    result: dict[str, Any] = channel.accumulate(
        channel.decode([body[i : i + 4096] for i in range(0, len(body), 4096)])
    ).to_dict()
    return result


def _text_differences(sdk: dict[str, Any], ours: dict[str, Any]) -> list[str]:
    """Differences in the choices' texts. Where chunks sent ``delta.content`` as a list of
    parts (Mistral's Magistral), the SDK drops them (content ``''``, no reasoning) and ours
    assembles them (the issue's Done-when: content ``"2 + 2 = 4"``, the thinking text as
    reasoning); those texts are checked by ``test_magistral_list_content_parts_are_assembled``."""
    listed = any(e["kind"] == "member_off_spec" and e["pointer"].endswith("/delta/content") for e in ours["errors"])
    found = []
    for index, choice in (sdk.get("choices") or {}).items():
        mine = next((c for c in ours["choices"] if c["index"] == int(index)), None)
        if mine is None:
            found.append(f"choice {index} missing")
            continue
        for key in ("content", "reasoning_content", "finish_reason"):
            if listed and key != "finish_reason" and not choice.get(key):
                continue
            if (choice.get(key) or None) != (mine.get(key) or None):
                found.append(f"{key}: sdk {choice.get(key)!r:.60} ours {mine.get(key)!r:.60}")
        calls = [(c["id"], c["name"], c["arguments"]) for c in choice.get("tool_calls") or []]
        ours_calls = [(c["id"], c["function"].get("name"), c["function"].get("arguments")) for c in mine["tool_calls"]]
        if calls != ours_calls:
            found.append(f"tool calls: sdk {calls!r:.80} ours {ours_calls!r:.80}")
    return found


def _differences(name: str, aspect: str) -> list[str]:
    _, results = _corpus()
    sdk, ours = results[name]["openai_sdk"], _replay(name)
    if aspect == "text":
        return _text_differences(sdk, ours)
    if aspect == "usage":
        want, got = sdk.get("usage"), ours.get("usage") or {}
        return [] if want is None or all(got.get(k) == v for k, v in want.items()) else [f"sdk {want} ours {got}"]
    if aspect == "complete":
        # Complete exactly when the body ends with the terminator's event, blank line included.
        body = (shared_path("corpus", "streams") / f"{name}.sse").read_bytes()
        ended = body.endswith((b"\n\n", b"\r\n\r\n", b"\r\r")) and body.rstrip(b"\r\n").endswith(b"data: [DONE]")
        truncated = any(e["kind"] == "truncated" for e in ours["errors"])
        cut = not body.endswith((b"\n\n", b"\r\n\r\n", b"\r\r"))
        got = (ours["complete"], truncated)
        if got != (ended, cut):
            return [f"(complete, truncated): ours {got}, expected {(ended, cut)}"]
        # What was discarded: every byte after the last blank line (the stream's last CRLF pair,
        # LF pair or CR pair ends one).
        blank = max(body.rfind(end) + len(end) if end in body else 0 for end in (b"\n\n", b"\r\n\r\n", b"\r\r"))
        discarded = [e["bytes_discarded"] for e in ours["errors"] if e["kind"] == "truncated"]
        return [] if discarded == ([len(body) - blank] if cut else []) else [f"bytes discarded: {discarded}"]
    if aspect == "errors":
        raised = bool(sdk.get("exception"))
        seen = any(e["kind"] in ("error_in_chunk", "error_event") for e in ours["errors"])
        return [] if raised == seen else [f"sdk raised {sdk.get('exception')!r:.80}; ours {ours['errors']!r:.120}"]
    unknown = [e for e in ours["errors"] if e["kind"] == "unknown_event"]
    return [f"{len(unknown)} unknown events, first: {unknown[0]['reason']:.100}"] if unknown else []


def _params() -> list[Any]:
    params = []
    for name in _names():
        for aspect in ASPECTS:
            why = GAPS.get((name, aspect))
            marks = [pytest.mark.xfail(strict=True, reason=f"issue 14: {why}")] if why else []
            params.append(pytest.param(name, aspect, id=f"{name}-{aspect}", marks=marks))
    return params


@pytest.mark.parametrize(("name", "aspect"), _params())
def test_real_stream_assembles_like_the_openai_sdk(name: str, aspect: str) -> None:
    assert _differences(name, aspect) == []


def test_every_gap_names_a_stream_of_the_corpus() -> None:
    sources, _ = _corpus()
    assert {name for name, _ in GAPS} <= set(sources)


def test_magistral_list_content_parts_are_assembled() -> None:
    """Mistral's Magistral models send ``delta.content`` as typed parts (``thinking`` then ``text``)
    where the Mistral seed says ``string | null``: the chunks decode leniently (the content kept
    raw as an off-spec member), and the answer and the thinking are both assembled, as the
    issue's Done-when states, with no chunk lost."""
    result = _replay("mi_vercel_magistral_reasoning")
    choice = result["choices"][0]
    assert choice["content"] == "2 + 2 = 4"
    assert "2+2=4" in (choice["reasoning_content"] or "")
    kinds = {e["kind"] for e in result["errors"]}
    assert kinds == {"member_off_spec"}
    stream = _replay("mi_pai_magistral_stream")
    assert not [e for e in stream["errors"] if e["kind"] == "unknown_event"]
    assert stream["choices"][0]["content"] and stream["choices"][0]["reasoning_content"]
