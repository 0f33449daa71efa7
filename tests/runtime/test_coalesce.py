"""``stream.coalesce``: ``Channel.accumulate`` joins consecutive plain-data runs of several reads
into one run, so its per-run costs are paid once for several reads; nothing is reordered, lost
or joined across a change of last event ID, and memory stays bounded by the limits."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from itertools import chain
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from generated.gemini import CHANNELS as GEMINI
from ssegen.runtime import sse, stream
from ssegen.runtime.stream import COALESCE_BYTES, COALESCE_EVENTS, COALESCE_NAMED, coalesce

_RAW = st.builds(
    sse.RawEvents,
    st.lists(st.binary(min_size=1, max_size=3000), min_size=1, max_size=40),
    st.sampled_from(["", "7"]),
)
_NAMED = st.builds(
    lambda v, i: sse.NamedEvents([b"event: x"] * len(v), v, i),
    st.lists(st.binary(), min_size=1, max_size=6),
    st.sampled_from(["", "7"]),
)
_SINGLE = st.builds(lambda d: sse.ServerSentEvent("message", d, "", None), st.text(max_size=5))


def _flat(items: list[Any]) -> list[tuple[str, Any, str]]:
    """Each event of ``items`` in order: its kind, data and last event ID."""
    out: list[tuple[str, Any, str]] = []
    for item in items:
        if isinstance(item, sse.RawEvents):
            out += [("raw", value, item.id) for value in item.values]
        elif isinstance(item, sse.NamedEvents):
            out += [("named", pair, item.id) for pair in zip(item.event_lines, item.values, strict=True)]
        else:
            out.append(("single", item, item.id))
    return out


@given(st.lists(st.one_of(_RAW, _RAW, _RAW, _NAMED, _SINGLE), max_size=60))
def test_runs_are_joined_in_order_within_the_limits(items: list[Any]) -> None:
    out = list(coalesce(iter(items)))

    assert _flat(out) == _flat(items)  # every event, in order, with its last event ID
    assert len(out) <= len(items)
    for item in out:
        if isinstance(item, (sse.RawEvents, sse.NamedEvents)) and item not in items:  # a joined run
            assert len(item.values) <= COALESCE_EVENTS and sum(map(len, item.values)) <= COALESCE_BYTES
    for before, after in zip(out, out[1:], strict=False):  # two runs side by side: a limit or the event ID split them
        if isinstance(before, sse.RawEvents) and isinstance(after, sse.RawEvents) and before.id == after.id:
            joined = len(before.values) + len(after.values), sum(map(len, before.values + after.values))
            assert joined[0] > COALESCE_EVENTS or joined[1] > COALESCE_BYTES or len(after.values) >= COALESCE_EVENTS


def test_short_named_runs_join_and_longer_ones_pass_as_they_are() -> None:
    def named(n: int) -> Any:
        return sse.NamedEvents([b"event: e"] * n, [b"{}"] * n, "")

    out = list(coalesce([named(1), named(2), named(COALESCE_NAMED), named(1)]))

    assert [len(run.values) for run in out] == [3, COALESCE_NAMED, 1]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_long_gemini_stream_in_small_reads_is_decoded_a_few_reads_at_once(monkeypatch: Any, mode: str) -> None:
    channel = GEMINI["/models/{model}:streamGenerateContent"]
    chunk = b'data: {"candidates":[{"content":{"parts":[{"text":"w "}]},"index":0}]}\n\n'
    body = chunk * 2000
    reads = [body[i : i + 512] for i in range(0, len(body), 512)]  # 7 events a read
    sizes: list[int] = []
    values = channel.classifier.values

    def counting(run: list[bytes], every_usage: bool = True) -> Any:
        sizes.append(len(run))
        return values(run, every_usage)

    monkeypatch.setattr(channel.classifier, "values", counting)
    if mode == "sync":
        result = channel.accumulate(channel.decode(reads))
    else:

        async def chunks() -> AsyncIterator[bytes]:
            for read in reads:
                yield read

        result = asyncio.run(channel.aaccumulate(channel.adecode(chunks())))

    assert result.choices[0].content == "w " * 2000 and not result.errors
    per_read = 512 // len(chunk) + 1
    assert sum(sizes) == 2000 and COALESCE_EVENTS - per_read < max(sizes) <= COALESCE_EVENTS
    assert len(sizes) < len(reads) / 4  # a classify call per ~64 events, not per read
    assert list(chain.from_iterable(stream.coalesce([]))) == []
