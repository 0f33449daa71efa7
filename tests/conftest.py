"""Shared paths and helpers for ssegen's tests."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SPECS = ROOT / "specs"
GENERATED = ROOT / "generated"
SEEDS = ROOT.parent / "shared" / "seeds"


def sse_body(data_lines: list[str], line_end: str = "\n") -> bytes:
    """An SSE body with one event per data payload."""
    return "".join(f"data: {d}{line_end}{line_end}" for d in data_lines).encode("utf-8")


@pytest.fixture
def deepseek_docs_stream() -> bytes:
    """The DeepSeek docs example stream (seed 001, the `data:` lines near its end), in wire form."""
    text = (ROOT / "tests" / "data" / "deepseek_docs_stream.sse").read_bytes()
    return text
