"""One large event arriving in small reads: the decoder's time per size.

Usage::

    python benchmarks/large_event.py [--mb 1,2,4,8] [--read-size 4096] [--json]

Feeds one ``data:`` event of each size (a JSON string value, plus its blank
line) in ``--read-size`` reads to ``SSEDecoder.feed_raw`` of the generated
DeepSeek package and prints the seconds taken and the seconds per MB: the
time grows linearly with the size when each pending byte is copied a bounded
number of times (issue 17: it grew quadratically). No time is ever asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from ssegen.runtime.sse import SSEDecoder  # noqa: E402


def event_reads(megabytes: float, read_size: int) -> list[bytes]:
    """One event of about ``megabytes`` MB (under the 8 MiB default limit), in reads."""
    size = int(megabytes * 1_000_000)
    body = b'data: "' + b"x" * (size - 10) + b'"\n\n'
    return [body[i : i + read_size] for i in range(0, len(body), read_size)]


def seconds(reads: list[bytes]) -> float:
    gc.collect()
    decoder = SSEDecoder()
    start = time.perf_counter()
    events = [decoder.feed_raw(read) for read in reads]
    elapsed = time.perf_counter() - start
    assert sum(len(e) for e in events) == 1, "one event"
    return elapsed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", default="1,2,4,8", help="event sizes in MB, comma-separated")
    parser.add_argument("--read-size", type=int, default=4096, help="bytes per read")
    parser.add_argument("--runs", type=int, default=3, help="runs per size (best is kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    results = {}
    for mb in map(float, args.mb.split(",")):
        reads = event_reads(mb, args.read_size)
        results[mb] = min(seconds(reads) for _ in range(args.runs))
    if args.json:
        print(json.dumps({"read_size": args.read_size, "seconds": results}))
        return 0
    for mb, s in results.items():
        print(f"{mb:>5g} MB event in {args.read_size}-byte reads: {s:8.3f} s ({s / mb:.4f} s/MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
