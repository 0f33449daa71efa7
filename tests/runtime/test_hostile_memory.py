"""Peak memory for a large event arriving in tiny reads is at most about 4x the event (issue 35,
item 7): an 8 MB line in 2-byte reads peaked at ~70x its size (555-585 MB), SSE and NDJSON alike,
its pending bytes held as one ``bytes`` object per read. The ratio does not depend on the size,
so a 128 KiB event keeps the test fast (tracemalloc slows each allocation)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable

import pytest

from generated._runtime.framing import Framer
from generated._runtime.ndjson import NDJSONDecoder
from generated._runtime.sse import SSEDecoder

SIZE = 128 * 1024
PAYLOAD = b'{"a": "' + b"x" * (SIZE - 10) + b'"}'


def _peak_ratio(framer: Callable[[int], Framer], body: bytes, step: int = 2) -> tuple[float, int]:
    """Peak traced memory while ``body`` is fed in ``step``-byte reads, over the event's size;
    and the events' total data length."""
    decoder = framer(16 << 20)
    tracemalloc.start()
    try:
        events = []
        for start in range(0, len(body), step):
            events += decoder.feed(body[start : start + step])
        events += decoder.close()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return peak / len(PAYLOAD), sum(len(event.data) for event in events)


@pytest.mark.parametrize(
    ("framer", "body", "bound"),
    [
        (SSEDecoder, b"data: " + PAYLOAD + b"\n\n", 4.5),
        # CRLF line ends: the read's bytes with them made LF are one more copy (5.0x measured).
        (SSEDecoder, b"event: big\r\ndata: " + PAYLOAD + b"\r\n\r\n", 5.5),
        (NDJSONDecoder, PAYLOAD + b"\n", 4.5),
        (NDJSONDecoder, PAYLOAD, 4.5),  # the last line, without its LF
    ],
    ids=["sse", "sse-crlf", "ndjson", "ndjson-last-line"],
)
def test_a_large_event_in_two_byte_reads_peaks_at_most_about_4x_its_size(
    framer: Callable[[int], Framer], body: bytes, bound: float
) -> None:
    ratio, data = _peak_ratio(framer, body)
    assert data == len(PAYLOAD)
    assert ratio <= bound, f"peak {ratio:.1f}x the event"
