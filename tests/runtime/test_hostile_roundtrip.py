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


@pytest.mark.parametrize("data", ["[1, 2]", "hello", " {} ", "{\"a\": \"\\ufeff\"}", "x\ufeffy"])
def test_ndjson_writes_an_unknown_event_that_reads_back(data: str) -> None:
    event = UnknownEvent(event="message", data=data)
    body = CHAT.encode(event)
    back = list(CHAT.decode([body]))
    assert len(back) == 1 and isinstance(back[0], UnknownEvent) and back[0].data == data
