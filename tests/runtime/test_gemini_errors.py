"""Google's JSON error on a Gemini stream (issue 22): ``data: {"error": {"code": 429, "message":
..., "status": "RESOURCE_EXHAUSTED", "details": [...]}}``, alone or after chunks, decodes as the
spec's ``ErrorResponse`` (``specs/gemini/generate-content.yaml``) and ``accumulate`` records it in
``errors`` (``error_event``) with the text before it kept; a ``GenerateContentResponse``, whose
members are all optional, is never taken for one. Expectations come from the raw JSON."""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest
from conftest import shared_path
from helpers.families import gemini_expected, sse_events

from generated.gemini import CHANNELS
from generated.gemini import models as gemini_models

CHANNEL = CHANNELS["/models/{model}:streamGenerateContent"]
#: The spec's first error example (HTTP 429, with QuotaFailure and RetryInfo details).
RATE_LIMITED = json.loads(CHANNEL.encoding.error_examples[0][1])  # the spec's first error example
READ_SIZES = [7, 4096, 0]  # 0: the whole body in one read


def _frame(payload: Any) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


def _reads(body: bytes, size: int) -> list[bytes]:
    return [body] if size == 0 else [body[i : i + size] for i in range(0, len(body), size)]


def _chunk(text: str, **part: Any) -> dict[str, Any]:
    candidate = {"content": {"parts": [{"text": text, **part}], "role": "model"}, "index": 0}
    return {"candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "r-1"}


def test_the_spec_error_example_is_google_json_error() -> None:
    assert RATE_LIMITED["error"]["code"] == 429 and RATE_LIMITED["error"]["status"] == "RESOURCE_EXHAUSTED"
    event = CHANNEL.parse(json.dumps(RATE_LIMITED))
    assert isinstance(event, gemini_models.ErrorResponse)
    assert msgspec.to_builtins(event) == RATE_LIMITED  # details kept as sent (``@type``, ``retryDelay``)


@pytest.mark.parametrize("read_size", READ_SIZES)
def test_an_error_mid_stream_keeps_the_text_before_and_is_reported(read_size: int) -> None:
    chunks = [_chunk("Thinking", thought=True), _chunk("The capital"), _chunk(" of France")]
    body = b"".join(map(_frame, chunks)) + _frame(RATE_LIMITED)
    events = list(CHANNEL.decode(_reads(body, read_size)))
    assert [type(e).__name__ for e in events] == ["GenerateContentResponse"] * 3 + ["ErrorResponse"]
    result = CHANNEL.accumulate(CHANNEL.decode(_reads(body, read_size)))
    assert result.choices[0].content == "The capital of France"
    assert result.choices[0].reasoning_content == "Thinking"
    assert result.errors == [{"kind": "error_event", "data": RATE_LIMITED}]
    assert not result.complete and result.stop_reason is None  # no finishReason came
    assert result.to_dict()["errors"] == result.errors


@pytest.mark.parametrize("read_size", READ_SIZES)
def test_an_error_as_the_only_event_is_reported(read_size: int) -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    result = CHANNEL.accumulate(CHANNEL.decode(_reads(_frame(error), read_size)))
    assert result.errors == [{"kind": "error_event", "data": error}]
    assert (result.choices, result.id, result.usage, result.complete) == ([], None, None, False)


@pytest.mark.parametrize("read_size", READ_SIZES)
def test_a_captured_stream_cut_by_an_error_assembles_what_came_before(read_size: int) -> None:
    """A real stream (``vercel_gemini2_text_max_tokens``: 8 text chunks) failing after its
    fourth chunk: what ``accumulate`` gives equals what the raw JSON of those four says."""
    body = shared_path("corpus", "families", "gemini", "vercel_gemini2_text_max_tokens.sse").read_bytes()
    before = b"".join(_frame(json.loads(sse.data)) for sse in sse_events(body)[:4])
    expected = gemini_expected(before)
    result = CHANNEL.accumulate(CHANNEL.decode(_reads(before + _frame(RATE_LIMITED), read_size)))
    assert {c.index: c.content for c in result.choices} == expected.text and expected.text[0]
    assert (result.id, result.model, result.usage) == (expected.id, expected.model, expected.usage)
    assert result.errors == [{"kind": "error_event", "data": RATE_LIMITED}]
    assert not result.complete and not expected.complete


@pytest.mark.parametrize(
    "chunk",
    [
        _chunk("error"),  # the text is the member's name, quoted: "error"
        _chunk('He said "error" twice'),
        _chunk("a < b \u2028"),
        {**_chunk("x"), "modelVersion": "\u00e9"},
    ],
)
def test_a_chunk_that_mentions_error_or_escapes_is_still_a_chunk(chunk: dict[str, Any]) -> None:
    """Text that mentions ``"error"`` or holds ``\\u`` escapes is no ``error`` member: the
    chunk is a chunk, never the error, and assembles as one (on the fast path and alone)."""
    texts = [json.dumps(chunk).encode(), json.dumps(chunk, ensure_ascii=False).encode()]
    for text in texts:
        body = _frame(_chunk("Before ")) + b"data: " + text + b"\n\n"
        for read_size in READ_SIZES:
            events = list(CHANNEL.decode(_reads(body, read_size)))
            assert [type(e) for e in events] == [gemini_models.GenerateContentResponse] * 2
            assert msgspec.to_builtins(events[1]) == chunk
            result = CHANNEL.accumulate(CHANNEL.decode(_reads(body, read_size)))
            assert result.errors == []
            part = chunk["candidates"][0]["content"]["parts"][0]["text"]
            assert result.choices[0].content == "Before " + part


def test_the_error_member_spelled_with_escapes_is_still_the_error() -> None:
    r"""JSON may write a member name with ``\u`` escapes; msgspec reads ``"\u0065rror"`` as
    ``error``, so the fast path and ``classify`` must both take it for the error."""
    text = b'{"\\u0065rror":{"code":500,"message":"An internal error has occurred.","status":"INTERNAL"}}'
    body = _frame(_chunk("Hi")) + b"data: " + text + b"\n\n"
    for read_size in READ_SIZES:
        result = CHANNEL.accumulate(CHANNEL.decode(_reads(body, read_size)))
        assert result.choices[0].content == "Hi"
        assert [e["kind"] for e in result.errors] == ["error_event"]
        assert result.errors[0]["data"]["error"]["status"] == "INTERNAL"


def test_every_spec_example_decodes_as_the_message_it_documents() -> None:
    """The other direction: no documented ``GenerateContentResponse`` is taken for the error
    (the error's required ``error`` member is what tells them apart)."""
    examples = (*CHANNEL.encoding.examples, *CHANNEL.encoding.error_examples)
    kinds = [type(CHANNEL.parse(data)).__name__ for _, data in examples]
    assert kinds == ["GenerateContentResponse"] * 8 + ["ErrorResponse"] * 3


def test_fast_path_and_event_by_event_give_the_same_result() -> None:
    """``accumulate`` of a decoded stream (runs decoded and applied at once) equals applying
    each event alone, with and without an error in the same read."""
    chunks = [_chunk("a"), _chunk("b"), {**_chunk("c"), "candidates": [{"finishReason": "STOP", "index": 0}]}]
    for tail in (b"", _frame(RATE_LIMITED)):
        body = b"".join(map(_frame, chunks)) + tail
        for read_size in READ_SIZES:
            fast = CHANNEL.accumulate(CHANNEL.decode(_reads(body, read_size)))
            slow = CHANNEL.accumulate(list(CHANNEL.decode(_reads(body, read_size))))
            assert fast.to_dict() == slow.to_dict()
            assert fast.choices[0].content == "ab" and fast.complete


@pytest.mark.parametrize("read_size", READ_SIZES)
@pytest.mark.parametrize(
    "error",
    ["upstream connection reset", {"code": "429", "message": "Quota exceeded.", "status": "RESOURCE_EXHAUSTED"}],
)
def test_an_error_not_in_google_shape_is_reported_from_the_chunk(read_size: int, error: Any) -> None:
    """An ``error`` the spec's ``Status`` does not admit (a string; a code sent as text) is
    not the ``ErrorResponse``, and the chunk it arrives in reports it (``error_in_chunk``,
    as the chat family does) rather than dropping it."""
    body = _frame(_chunk("Hi")) + _frame({"error": error})
    events = list(CHANNEL.decode(_reads(body, read_size)))
    assert [type(e) for e in events] == [gemini_models.GenerateContentResponse] * 2
    result = CHANNEL.accumulate(CHANNEL.decode(_reads(body, read_size)))
    assert result.choices[0].content == "Hi"
    message = error if isinstance(error, str) else error["message"]
    code = None if isinstance(error, str) else error["code"]
    assert result.errors == [{"kind": "error_in_chunk", "message": message, "code": code, "data": error}]
