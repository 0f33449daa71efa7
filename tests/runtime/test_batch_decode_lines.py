"""The guarded ``decode_lines`` batch (benchmarks/families.py ``batch_decode_values``) decodes a
run of values exactly as one decode per value does, and its guard is needed: without the brace
checks, or with another joiner, the same count check is fooled."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from families import batch_decode_values  # noqa: E402


class Item(msgspec.Struct, kw_only=True):
    a: Any = None
    b: Any = None


DECODER = msgspec.json.Decoder(Item)
FRAGMENTS = [
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b":",
    b'"',
    b'"a"',
    b'"b"',
    b"1",
    b"null",
    b" ",
    b"\r",
    b"\n",
    b"\\",
    b"{}",
    b'{"a":1}',
    b'"}{"',
    b'"\\r"',
    b"x",
]


def one_by_one(values: list[bytes]) -> Any:
    try:
        return ("ok", [DECODER.decode(value) for value in values])
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return ("error", type(exc))


def batched(values: list[bytes]) -> Any:
    try:
        return ("ok", batch_decode_values(values, DECODER.decode_lines, DECODER.decode))
    except (msgspec.ValidationError, msgspec.DecodeError) as exc:
        return ("error", type(exc))


value = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=8).map(b"".join),
    st.builds(lambda x: msgspec.json.encode(Item(a=x)), st.text(max_size=5) | st.integers()),
)


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(value, max_size=6))
def test_batch_decodes_as_one_value_at_a_time(values: list[bytes]) -> None:
    assert batched(values) == one_by_one(values)


@pytest.mark.parametrize(
    "values",
    [
        [b'{"a":1}{"b":2}', b"{}"],  # two objects in one event: a count of 3, not 2
        [b'{"a":[', b"]}", b"{}{}"],  # unbraced halves that a third event's extra value rebalances
        [b"{}\r{}", b'{"a":1'],  # a raw CR inside one value
        [b'{"a":"}', b'{"}'],  # a brace inside a string
    ],
)
def test_tricky_runs_fall_back_to_one_value_at_a_time(values: list[bytes]) -> None:
    assert batched(values) == one_by_one(values)


def test_the_guard_is_needed() -> None:
    """What the guard prevents: unbraced values whose join decodes to the same count, and a
    joiner that may occur in a string (none at all) doing the same with braced values."""
    unbraced = [b'{"a":[', b"]}", b"{}{}"]
    assert len(DECODER.decode_lines(b"\r".join(unbraced))) == len(unbraced)
    assert one_by_one(unbraced)[0] == "error"
    braced = [b'{"a":"}', b'{"}{}']
    assert len(DECODER.decode_lines(b"".join(braced))) == len(braced)
    assert one_by_one(braced)[0] == "error"
    assert batched(braced) == one_by_one(braced)
