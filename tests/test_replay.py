"""``ssegen.replay``: the bytes of a mocked response (sources, faults, steps), shared by the
pytest plugin's transport and ``ssegen mock``."""

from __future__ import annotations

import importlib
import json
from typing import Any

import pytest
from conftest import GENERATED, GENERATED_PROVIDERS

from ssegen.conform import conform
from ssegen.replay import (
    MAX_STALL,
    FaultError,
    Faults,
    Step,
    channel_paths,
    default_events,
    error_frame,
    frames_for,
    path_matches,
    plan,
    split_frames,
    terminator_frame,
)

PROVIDERS = GENERATED_PROVIDERS
DOCS_TEXT = "Hello! How can I assist you today?"  # DeepSeek's docs example stream (api-docs.txt:385)


def _chan(provider: str, address: str) -> Any:
    return importlib.import_module(f"generated.{provider}").CHANNELS[address]


def _sent(steps: list[Step]) -> bytes:
    return b"".join(s.data for s in steps if s.kind == "send")


def test_split_frames_keeps_bytes_and_cuts_after_each_blank_line() -> None:
    body = b"data: a\n\n: heartbeat\r\n\r\nevent: x\rdata: b\r\rdata: cut"
    frames = split_frames(body)
    assert frames == [b"data: a\n\n", b": heartbeat\r\n\r\n", b"event: x\rdata: b\r\r", b"data: cut"]
    assert b"".join(frames) == body
    assert split_frames(b"") == []


def test_faults_parse_names_values_and_errors() -> None:
    faults = Faults.parse("cut_at=3, read_size=7; stall_after=2 stall=0.5")
    assert (faults.cut_at, faults.read_size, faults.stall_after, faults.stall) == (3, 7, 2, 0.5)
    assert Faults.parse(["delay=0.01"], faults).delay == 0.01 and Faults.parse("", faults) == faults
    assert Faults.parse(faults.describe()) == faults
    for bad, message in (
        ("cut_at", "NAME=VALUE"),
        ("nope=1", "one of cut_at"),
        ("cut_at=x", "whole number"),
        ("cut_at=-1", ">= 0"),
        (f"stall={MAX_STALL + 1}", "seconds from 0"),
        ("delay=nan", "finite"),
        ("read_size=0", ">= 1"),
        ("cut=sideways", "abort, close"),
        ("cut_at=1 cut_at_byte=3", "give one cut"),
    ):
        with pytest.raises(FaultError, match=message):
            Faults.parse(bad)
    with pytest.raises(FaultError, match="unknown fault 'cut_after'"):
        Faults.from_mapping({"cut_after": 1})


def test_default_stream_is_the_docs_example_else_a_synthesized_answer() -> None:
    chat = _chan("deepseek", "/chat/completions")
    result = chat.accumulate(chat.decode([b"".join(frames_for(chat))]))
    assert result.choices[0].content == DOCS_TEXT and result.complete
    messages = _chan("anthropic", "/v1/messages")  # no harvested stream: synthesized
    events = default_events(messages, model="claude-test")
    final = messages.accumulate(events)
    assert final.output[0].text == "Hello from the ssegen mock." and final.model == "claude-test"


def test_each_source_gives_what_it_names(tmp_path: Any) -> None:
    chat = _chan("deepseek", "/chat/completions")
    capture = tmp_path / "capture.sse"
    capture.write_bytes(b"data: [DONE]\r\n\r\n")
    assert frames_for(chat, replay=capture) == [b"data: [DONE]\r\n\r\n"]  # as recorded
    assert frames_for(chat, replay=b": hi\n\n") == [b": hi\n\n"]
    text = frames_for(chat, text="Hi there", model="m1")
    assert chat.accumulate(chat.decode(text)).choices[0].content == "Hi there"
    assert frames_for(chat, events=chat.example_events()[:1])[-1] == b"data: [DONE]\n\n"
    xerotier = _chan("xerotier", "/chat/completions")
    assert frames_for(xerotier, stream="mid-stream-errors")[0].startswith(b"event: error\n")
    with pytest.raises(FaultError, match="one source"):
        frames_for(chat, text="a", replay=capture)
    with pytest.raises(FaultError, match="no example stream 'nope'"):
        frames_for(chat, stream="nope")
    with pytest.raises(FaultError, match="cannot read capture"):
        frames_for(chat, replay=tmp_path / "missing.sse")


@pytest.mark.parametrize("provider", PROVIDERS)
def test_every_channels_error_event_is_assembled_as_an_error(provider: str) -> None:
    for address in importlib.import_module(f"generated.{provider}").CHANNELS:
        chan = _chan(provider, address)
        result = chan.accumulate(chan.decode([error_frame(chan)]))
        assert [e["kind"] for e in result.errors] == ["error_event"], (provider, address)


def test_the_spec_own_error_example_is_preferred() -> None:
    messages = _chan("anthropic", "/v1/messages")
    assert error_frame(messages).startswith(b'event: error\ndata: {"type":"error","error":{"type":"overloaded_error"')
    xerotier = _chan("xerotier", "/chat/completions")
    assert b"Request timed out after 30s" in error_frame(xerotier)


def test_cut_at_ends_inside_that_event_and_the_decoder_reports_truncated() -> None:
    chat = _chan("deepseek", "/chat/completions")
    frames = frames_for(chat)
    steps = plan(frames, Faults(cut_at=3))
    body = _sent(steps)
    assert body.startswith(b"".join(frames[:3])) and len(body) < len(b"".join(frames[:4])) - 2
    assert steps[-1] == Step("cut")
    result = chat.accumulate(chat.decode([body]))
    assert not result.complete and result.errors[-1]["kind"] == "truncated"
    assert result.choices[0].content == "Hello!"  # the two deltas before the cut
    assert plan(frames, Faults(cut_at=3, cut="close"))[-1].kind == "send"
    with pytest.raises(FaultError, match="cut_at=12: the stream has 12 events"):
        plan(frames, Faults(cut_at=12))


def test_cut_at_byte_keeps_that_many_bytes() -> None:
    frames = frames_for(_chan("deepseek", "/chat/completions"))
    assert _sent(plan(frames, Faults(cut_at_byte=100))) == b"".join(frames)[:100]
    assert _sent(plan(frames, Faults(cut_at_byte=len(b"".join(frames)) - 1))) == b"".join(frames)[:-1]
    with pytest.raises(FaultError, match=r"cut_at_byte=1000000000: the stream has \d+ bytes"):
        plan(frames, Faults(cut_at_byte=10**9))  # past the end: nothing to cut (issue 35)


def test_error_event_ends_the_stream_with_the_terminator() -> None:
    chat = _chan("deepseek", "/chat/completions")
    frames = frames_for(chat)
    steps = plan(frames, Faults(error_event=2), error=error_frame(chat), terminator=terminator_frame(chat))
    result = chat.accumulate(chat.decode([_sent(steps)]))
    assert result.choices[0].content == "Hello" and result.complete
    assert [e["kind"] for e in result.errors] == ["error_event"]
    messages = _chan("anthropic", "/v1/messages")
    mframes = frames_for(messages, text="Hi")
    mresult = messages.accumulate(
        messages.decode([_sent(plan(mframes, Faults(error_event=3), error=error_frame(messages)))])
    )
    assert not mresult.complete and mresult.errors[0]["data"]["error"]["type"] == "overloaded_error"
    with pytest.raises(FaultError, match="no error event"):
        plan(frames, Faults(error_event=1))


def test_stall_delay_and_read_size_become_steps() -> None:
    frames = [b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n"]
    steps = plan(frames, Faults(stall_after=2, stall=1.5))
    assert [s.kind for s in steps] == ["send", "send", "stall", "send"] and steps[2].seconds == 1.5
    assert plan(frames, Faults(stall_after=3))[-1] == Step("stall", seconds=10.0)
    slow = plan(frames, Faults(delay=0.25))
    assert [s.kind for s in slow] == ["sleep", "send"] * 3
    reads = plan(frames, Faults(read_size=4))
    assert [s.data for s in reads] == [b"data", b": 1\n", b"\ndat", b"a: 2", b"\n\nda", b"ta: ", b"3\n\n"]
    with pytest.raises(FaultError, match="stall_after=4"):
        plan(frames, Faults(stall_after=4))


def test_channel_paths_follow_the_servers_base_path() -> None:
    deepseek = importlib.import_module("generated.deepseek").SERVERS
    assert channel_paths("/chat/completions", deepseek) == ["/chat/completions", "/beta/chat/completions"]
    assert channel_paths("/beta/completions", deepseek) == ["/beta/completions"]  # already under /beta
    mistral = importlib.import_module("generated.mistral").SERVERS
    assert channel_paths("/chat/completions", mistral) == ["/v1/chat/completions"]
    assert channel_paths("/v1/messages", importlib.import_module("generated.anthropic").SERVERS) == ["/v1/messages"]
    assert channel_paths("/chat/completions", {}) == ["/chat/completions"]
    assert channel_paths("/x", {"eu": "https://{region}.example.com/{version}"}) == ["/{version}/x"]
    gemini = importlib.import_module("generated.gemini").SERVERS
    assert channel_paths("/models/{model}:streamGenerateContent", gemini) == [
        "/v1beta/models/{model}:streamGenerateContent",
        "/v1/models/{model}:streamGenerateContent",
        "/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:streamGenerateContent",
    ]


def test_path_templates_match_one_segment_per_parameter() -> None:
    template = "/v1beta/models/{model}:streamGenerateContent"
    assert path_matches(template, "/v1beta/models/gemini-2.5-flash:streamGenerateContent")
    assert not path_matches(template, "/v1beta/models/a/b:streamGenerateContent")
    assert not path_matches(template, "/v1beta/models/:streamGenerateContent")
    assert path_matches("/models/{model}:streamGenerateContent", "/v1beta/models/g:streamGenerateContent", suffix=True)
    assert path_matches("/chat/completions", "/v1/chat/completions", suffix=True)
    assert not path_matches("/chat/completions", "/v1/chat/completions")
    assert not path_matches("/chat/completions", "/v1chat/completions", suffix=True)
    assert path_matches("/a.b", "/a.b") and not path_matches("/a.b", "/axb")


def test_request_bodies_asking_for_no_stream_are_refused() -> None:
    from ssegen.request_body import read_request

    assert read_request(b'{"stream": false}').problem is not None
    for body in (b"", b"not json", b'{"stream": true}', b"[1]", b'{"model": "m"}'):
        assert read_request(body).problem is None
    assert read_request(b'{"model": "deepseek-chat"}').model == "deepseek-chat"
    assert read_request(b"[]").model is None and read_request(b"{").model is None


def test_a_synthesized_responses_stream_is_one_response_with_its_content_parts(tmp_path: Any) -> None:
    chan = _chan("openai_responses", "/v1/responses")
    frames = frames_for(chan, text="Hi you")
    payloads = [json.loads(frame.split(b"data: ", 1)[1]) for frame in frames]
    assert [p["type"].removeprefix("response.") for p in payloads] == [
        *("created", "output_item.added", "content_part.added", "output_text.delta", "output_text.delta"),
        *("output_text.done", "content_part.done", "output_item.done", "completed"),
    ]
    assert len({p["response"]["id"] for p in payloads if "response" in p}) == 1  # the SDK checks it
    assert [p["sequence_number"] for p in payloads] == list(range(len(payloads)))
    assert payloads[6]["part"]["text"] == "Hi you" and payloads[2]["part"]["text"] == ""
    capture = tmp_path / "responses.sse"
    capture.write_bytes(b"".join(frames))
    report = conform(GENERATED, "openai_responses", "/v1/responses", capture)
    assert [v.format() for v in report.violations] == [] and report.final["complete"] is True


def test_mock_endpoints_claim_each_bare_path_once_and_take_replays(tmp_path: Any) -> None:
    from ssegen.mock import endpoints

    deepseek, xerotier = (importlib.import_module(f"generated.{name}") for name in ("deepseek", "xerotier"))
    capture = tmp_path / "a=b.sse"
    capture.write_bytes(b"data: [DONE]\n\n")
    served = endpoints([deepseek, xerotier], {"xerotier:/chat/completions": capture}, text="Hi")
    paths = {(e.provider, e.channel.address): e.paths for e in served}
    assert paths["deepseek", "/chat/completions"][0] == "/chat/completions"
    assert paths["xerotier", "/chat/completions"] == ["/xerotier/chat/completions"]  # the bare path is taken
    sources = {(e.provider, e.channel.address): e.source for e in served}
    assert sources["xerotier", "/chat/completions"] == f"capture {capture}"
    assert sources["deepseek", "/chat/completions"] == "synthesized answer 'Hi'"
    with pytest.raises(FaultError, match="say which channel"):
        endpoints([deepseek], {None: capture})
    with pytest.raises(FaultError, match="no channel '/v1/nope'"):
        endpoints([deepseek], {"/v1/nope": capture})


def test_deep_json_is_refused_whatever_the_processs_recursion_limit() -> None:
    """The depth bound is the mock's own (``request_body.MAX_JSON_DEPTH``), not the interpreter's: mypy's
    API, run in the same process, raises the recursion limit to 16,384."""
    import sys

    from ssegen.request_body import MAX_JSON_DEPTH, read_request

    before = sys.getrecursionlimit()
    sys.setrecursionlimit(2**14)
    try:
        deep = b"[" * (MAX_JSON_DEPTH + 1) + b"]" * (MAX_JSON_DEPTH + 1)
        assert "nested too deep" in (read_request(deep).problem or "")
    finally:
        sys.setrecursionlimit(before)
    at_limit = b"[" * MAX_JSON_DEPTH + b"]" * MAX_JSON_DEPTH
    assert read_request(at_limit).problem is None
    in_a_string = b'{"model": "m", "text": "' + b"[{" * 5000 + b'"}'
    assert read_request(in_a_string)[:2] == read_request(b'{"model": "m"}')[:2] == (None, "m")
