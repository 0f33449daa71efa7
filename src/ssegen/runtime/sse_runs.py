"""Layer 3 of the ``text/event-stream`` decoder (:mod:`.sse`): the run scanner. Most events of
the LLM streams served are each one ``data:`` line holding a JSON chunk, or an ``event:`` line
and a ``data:`` line; such a run is taken at once (:class:`~.framing.RawEvents`,
:class:`~.framing.NamedEvents`), with the same results as the line-by-line rules of WHATWG
HTML 9.2.6 (:mod:`.sse_lines`, :mod:`.sse_fields`).

This module is ``src/ssegen/runtime/sse_runs.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import re
from operator import itemgetter

from .framing import NamedEvents, RawEvents, new_tuple

__all__ = ["scan_run"]

_VALUE = itemgetter(slice(6, None))  # the value of a "data: " line


def all_start_with(lines: list[bytes], prefix: bytes, bound: bytes) -> bool:
    """Whether every one of ``lines`` starts with ``prefix``, found by two C-level passes
    (``min`` and ``max``) instead of a call per line: ``bound`` is ``prefix`` with its
    last byte raised by one, and a byte string starts with ``prefix`` exactly when it
    sorts in ``[prefix, bound)`` (it shares every byte of ``prefix`` but the last, and
    that one is neither below nor above). True for no lines."""
    return not lines or (prefix <= min(lines) and max(lines) < bound)


def is_utf8(data: bytes, end: int) -> bool:
    """Whether ``data[:end]`` is valid UTF-8, where ``data[end - 1]`` or ``data[end]`` is
    a line end (so ``end`` falls between two characters).

    When ``data`` ends with an ASCII byte (not inside a character cut by the read's end),
    all of it is tried first, without copying the prefix: when it is valid, so is any
    prefix that ends between two characters. Otherwise, or when it is not valid (an
    invalid byte after ``end``), the prefix itself is decoded.
    """
    if data[-1:] < b"\x80":
        try:
            data.decode()
            return True
        except UnicodeDecodeError:
            pass
    try:
        data[:end].decode()
    except UnicodeDecodeError:
        return False
    return True


# A run of plain events: blocks that are each "data: " + a value + a blank line.
_RUN = re.compile(rb"(?:data: [^\n]*\n\n)*")


def scan_run(
    buf: bytes, start: int, cut: int, last_id: str
) -> tuple[RawEvents | NamedEvents | None, int]:
    """The run of events that starts ``buf`` at ``start``, and where it stops.

    Every fast path of :class:`SSEDecoder` takes its events from here, without the
    line interpreter. The invariant they rely on, written once: the blocks of a run are
    each exactly ``data: `` + a value + a blank line (a :class:`RawEvents` run), or each
    ``event: `` + a type, ``data: `` + a value and a blank line (a
    :class:`NamedEvents` run); from an event boundary, :class:`FieldInterpreter` gives
    each such block the event (type, or ``message``; the value as data; ``last_id``; no
    ``retry``) and leaves its state as it was (no ``id`` or ``retry`` line, the event
    type reset by the blank line). So a run may skip the interpreter, and any split of
    a stream into reads gives the same events, errors (type, offset, events before
    them), incompleteness and last event ID as one-byte reads, which never take a run
    (the hypothesis differential tests against the standard's algorithm transcribed
    literally and one-byte reads in ssegen's tests/runtime/test_sse.py).

    Args:
        buf: Bytes whose lines from ``start`` on end with LF only (no CR), ``start``
            at an event boundary (just after a blank line, or the stream's start).
        start: Where the run may start.
        cut: The index of the last ``b"\\n\\n"`` in ``buf``, at least ``start``.
        last_id: The last event ID buffer, given to the run's events.

    Returns:
        ``(run, stop)``: the run (``None`` when there is none, or its bytes are not
        UTF-8) and the index just after its last blank line (``start`` when none).
        A :class:`RawEvents` run is the longest at ``start``; a :class:`NamedEvents`
        run reaches ``cut + 2`` or is ``None``.
    """
    first = buf.find(b"\n", start)  # the end of the first line
    run: RawEvents | NamedEvents | None
    if buf.startswith(b"data: ", start):
        if first == cut:  # one event
            run, stop = new_tuple(RawEvents, ([buf[start + 6 : cut]], last_id)), cut + 2
        else:
            values, stop = _data_run(buf, start, cut)
            run = new_tuple(RawEvents, (values, last_id)) if values else None
    elif buf.startswith(b"event: ", start):
        stop = cut + 2
        if buf.find(b"\n", first + 1) == cut and buf.startswith(b"\ndata: ", first):
            run = new_tuple(NamedEvents, ([buf[start:first]], [buf[first + 7 : cut]], last_id))
        else:
            named = _named_run(buf, start, first, cut)
            run = None if named is None else new_tuple(NamedEvents, (*named, last_id))
    else:
        return None, start
    if run is None or not (buf.isascii() or is_utf8(buf, stop)):
        return None, start
    return run, stop


def _data_run(buf: bytes, start: int, cut: int) -> tuple[list[bytes], int]:
    """The values of the longest run of ``data: `` + value + blank line blocks at
    ``start`` (``buf[start:]`` starts with ``data: ``), and where it stops.

    The region up to ``cut`` is cut at each ``"\\n\\ndata: "``: when no piece holds a line
    end, every block was exactly ``data: `` + value and a blank line, up to ``cut + 2``.
    Otherwise the run is matched block by block (:data:`_RUN`)."""
    values = buf[start + 6 : cut].split(b"\n\ndata: ")
    if b"".join(values).find(b"\n") < 0:
        return values, cut + 2
    run = _RUN.match(buf, start)
    stop = run.end() if run else start
    return (buf[start + 6 : stop - 2].split(b"\n\ndata: ") if stop > start else []), stop


def _named_run(
    buf: bytes, start: int, first: int, cut: int
) -> tuple[list[bytes], list[bytes]] | None:
    """The event lines and values of ``buf[start : cut + 2]`` (at an ``event: `` line,
    which ends at ``first``)
    when every block is exactly ``event: `` + a type, ``data: `` + a value and a blank
    line; else None.

    Most reads repeat one event line (a run of ``content_block_delta``, of
    ``response.output_text.delta``): the region is cut at each ``"\\n\\n" + line +
    "\\ndata: "``, line being its first line. When it starts with that line and
    ``"\\ndata: "`` and no piece holds a line end, the region is exactly ``line``,
    ``data: `` + piece, ``""``, repeated for each piece: its only line ends are those of
    the separators. Conversely, blocks that all have that event line give exactly those
    pieces, as a value holds no line end, so ``"\\n\\n"`` occurs only where a block ends.

    Otherwise the region cut at each LF must be the lines ``event: ...``, ``data: ...``,
    ``""`` repeated, the last ``""`` left out (3k - 1 lines for k events); conversely,
    lines in that pattern are such blocks, since a split at every LF leaves no line end
    inside a line.
    """
    line = buf[start:first]
    if buf.startswith(b"\ndata: ", first):
        values = buf[first + 7 : cut].split(b"\n\n" + line + b"\ndata: ")
        if b"".join(values).find(b"\n") < 0:
            return [line] * len(values), values
    lines = buf[start:cut].split(b"\n")
    if len(lines) % 3 != 2:
        return None
    event_lines, data_lines = lines[::3], lines[1::3]
    if (
        any(lines[2::3])
        or not all_start_with(event_lines, b"event: ", b"event:!")
        or not all_start_with(data_lines, b"data: ", b"data:!")
    ):
        return None
    return event_lines, list(map(_VALUE, data_lines))
