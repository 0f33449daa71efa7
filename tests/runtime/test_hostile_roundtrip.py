"""What is written reads back, and what is whole is not cut (issue 35, item 7): NDJSON refuses to
encode an event it cannot read back, ``encode`` leaves out a required member the payload lacked,
and a whole last NDJSON line holding a number msgspec refuses is an ``UnknownEvent``, not a cut."""

from __future__ import annotations

import pytest

from generated.ollama import CHANNELS as OLLAMA
from generated.ollama import StreamTruncated, UnknownEvent

CHAT = OLLAMA["/api/chat"]


@pytest.mark.parametrize(
    "data",
    ["", "   ", "\t", "\ufeff{}", "\ufeff", "{}\n{}", "a\rb", "{}\r"],
    ids=["empty", "spaces", "tab", "bom", "bom-only", "lf", "cr", "trailing-cr"],
)
def test_ndjson_refuses_an_unknown_event_it_cannot_read_back(data: str) -> None:
    event = UnknownEvent(event="message", data=data)
    with pytest.raises(ValueError, match="UnknownEvent") as caught:
        CHAT.encode(event)
    assert "read back" in str(caught.value)
    with pytest.raises(ValueError, match="UnknownEvent"):
        b"".join(CHAT.encode_stream([event]))


@pytest.mark.parametrize("data", ["[1, 2]", "hello", " {} ", '{"a": "\\ufeff"}', "x\ufeffy"])
def test_ndjson_writes_an_unknown_event_that_reads_back(data: str) -> None:
    event = UnknownEvent(event="message", data=data)
    body = CHAT.encode(event)
    back = list(CHAT.decode([body]))
    assert len(back) == 1 and isinstance(back[0], UnknownEvent) and back[0].data == data


@pytest.mark.parametrize("digits", [5_000, 50_000])
@pytest.mark.parametrize("lf", [b"", b"\n"])
def test_a_whole_last_line_holding_a_huge_number_is_not_truncated(digits: int, lf: bytes) -> None:
    line = b'{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "x"},'
    line += b' "done": false, "eval_count": ' + b"9" * digits + b"}"
    first = b'{"model": "m", "created_at": "t", "message": {"role": "assistant", "content": "a"}, "done": false}\n'
    stream = CHAT.decode([first, line + lf])
    events = list(stream)
    assert not stream.incomplete
    assert not any(isinstance(event, StreamTruncated) for event in events)
    assert len(events) == 2 and isinstance(events[1], UnknownEvent)
    assert events[1].data == line.decode() and events[1].reason
    result = CHAT.accumulate(events)
    assert not any(error["kind"] == "truncated" for error in result.errors)


def test_a_cut_last_line_is_still_truncated() -> None:
    stream = CHAT.decode([b'{"model": "m", "eval_count": ' + b"9" * 5_000])
    events = list(stream)
    assert stream.incomplete and isinstance(events[-1], StreamTruncated)
