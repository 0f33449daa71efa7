"""Layer 1 of the ``text/event-stream`` decoder (:mod:`.sse`): bytes, read in pieces, to
complete lines (WHATWG HTML 9.2.6: a line ends at CRLF, LF or a lone CR, also when CR and LF
arrive in different reads; one leading UTF-8 BOM is skipped), the pending line kept without
copying; a pending line taking an event over ``max_event_bytes`` raises
:class:`~.framing.EventTooLargeError` (UTF-8 is checked by the decoder, :mod:`.sse`).

This module is ``src/ssegen/runtime/sse_lines.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from typing import NamedTuple

from .framing import (
    PENDING_PIECES,
    EventTooLargeError,
    NamedEvents,
    RawEvents,
    ServerSentEvent,
    expand,
    join_pending,
    new_tuple,
)

__all__ = ["LineSplitter", "Lines"]

_BOM = b"\xef\xbb\xbf"
_LF = 0x0A
_CR = 0x0D


class Lines(NamedTuple):
    """The complete lines of one read, as :meth:`LineSplitter.split` gives them.

    Attributes:
        lines: The lines, line ends removed, in stream order (never empty).
        text: ``raw`` with every line end made LF (``raw`` itself when it has no CR).
        raw: The bytes they were read from: the pending bytes of earlier reads, then
            this read's, up to and including the unterminated rest (which ``text``
            and ``raw`` end with, after the last line end at ``end``).
        offset: The absolute offset of ``raw[0]`` in the stream.
        end: The index in ``raw`` of the last line end.
        has_cr: Whether ``raw`` holds a CR.
    """

    lines: list[bytes]
    text: bytes
    raw: bytes
    offset: int
    end: int
    has_cr: bool

    def line_start(self, index: int) -> int:
        """The absolute offset of line ``index`` (error path only)."""
        return self.offset + sum(map(len, self.raw.splitlines(keepends=True)[:index]))

    def block_start(self) -> int:
        """The absolute offset just after the last blank line, or -1 if there is none."""
        lines = self.lines
        if b"" not in lines:
            return -1
        after = lines[::-1].index(b"")  # lines after the last blank line
        if self.has_cr:
            ends = self.raw[: self.end + 1].splitlines(keepends=True)
            size = sum(map(len, ends[len(ends) - after :]))
        else:
            size = sum(map(len, lines[len(lines) - after :])) + after
        return self.offset + self.end + 1 - size


class LineSplitter:
    """Layer 1: a stream's bytes, read in pieces, cut into complete lines.

    WHATWG HTML 9.2.6, "Parsing an event stream": a line ends with CRLF, LF or a lone
    CR, also when the CR ends one read and the LF starts the next; one leading UTF-8
    BOM is skipped (also when split between reads). The bytes after the last line end
    (the pending line) are kept as the pieces read and joined once, when the line ends, so
    that a line growing by small reads is not copied per read; every
    :data:`~.framing.PENDING_PIECES` pieces are joined into one ``bytearray`` grown in place
    (``framing.join_pending``), so that a long line is not held as a ``bytes`` per read.

    The pending bytes may also hold complete LF-ended lines that the decoder chose not
    to interpret yet (``deferred``; see :meth:`SSEDecoder.feed_raw`): they are split
    again, with the next read's bytes.

    Args:
        max_event_bytes: The limit on an event's pending bytes, for
            :meth:`check_pending`.

    Attributes:
        pending: The pending bytes, as the pieces read (the first of them a ``bytearray``
            once they were joined: ``framing.join_pending``).
        pending_len: Their total length.
        pending_offset: The absolute offset of the first pending byte.
        deferred: The pending bytes hold complete lines.
        skip_lf: The last read ended with CR: an LF starting the next read ends no line.
        at_start: Nothing but a (possibly partial) BOM seen yet.
        block_start: The absolute offset just after the last blank line (after the BOM
            before any): where the block that ``close()`` would discard begins.
    """

    __slots__ = (
        "pending",
        "pending_len",
        "pending_offset",
        "deferred",
        "skip_lf",
        "at_start",
        "block_start",
        "_max",
    )

    def __init__(self, max_event_bytes: int) -> None:
        self.pending: list[bytes | bytearray] = []
        self.pending_len = 0
        self.pending_offset = 0
        self.deferred = False
        self.skip_lf = False
        self.at_start = True
        self.block_start = 0
        self._max = max_event_bytes

    def prepare(self, chunk: bytes, offset: int) -> tuple[bytes, int] | None:
        """``chunk`` (non-empty, at absolute ``offset``) without the LF of a CRLF whose CR
        ended the previous read, and without the stream's BOM: the bytes to
        :meth:`split` and their offset; ``None`` when they are the start of a BOM, kept
        until the next read."""
        if self.skip_lf:
            self.skip_lf = False
            if chunk[0] == _LF:
                if self.block_start == offset:  # the LF of a blank line's CRLF
                    self.block_start += 1
                chunk = chunk[1:]
                offset += 1
        if self.at_start and chunk:
            if self.pending:
                chunk, offset = self.take(chunk)
            if len(chunk) < 3 and _BOM.startswith(chunk):
                self.keep(chunk, offset, False)
                return None
            self.at_start = False
            if chunk.startswith(_BOM):
                chunk = chunk[3:]
                offset += 3
                self.block_start = offset
        return chunk, offset

    def split(self, chunk: bytes, offset: int) -> Lines | None:
        """The complete lines ending in ``chunk`` (non-empty, at absolute ``offset``), the
        pending bytes before them; ``None`` when no line ends (``chunk`` is then kept as
        pending, without copying the pending bytes). The bytes after the last line end
        become the pending line; a CR ending ``chunk`` sets :attr:`skip_lf`."""
        pending = self.pending
        if self.deferred:
            raw = b"".join([*pending, chunk])
            offset = self.pending_offset
        else:
            if chunk.find(b"\n") < 0 and chunk.find(b"\r") < 0:
                if not pending:
                    self.pending_offset = offset
                elif len(pending) >= PENDING_PIECES:
                    join_pending(pending)
                pending.append(chunk)
                self.pending_len += len(chunk)
                return None
            raw = chunk
            if pending:
                raw = b"".join([*pending, chunk])
                offset = self.pending_offset
        pending.clear()
        self.pending_len = 0
        self.deferred = False
        end = raw.rfind(b"\n")
        text = raw
        has_cr = raw.find(b"\r") >= 0
        if has_cr:
            end = max(end, raw.rfind(b"\r"))
            if end == len(raw) - 1 and raw[end] == _CR:
                self.skip_lf = True
            text = raw.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        lines = text.split(b"\n")
        tail = lines.pop()
        if tail:
            self.keep(tail, offset + end + 1, False)
        return new_tuple(Lines, (lines, text, raw, offset, end, has_cr))

    def take(self, chunk: bytes) -> tuple[bytes, int]:
        """The pending bytes followed by ``chunk``, and their absolute offset; nothing
        stays pending."""
        whole = b"".join([*self.pending, chunk])
        self.pending.clear()
        self.pending_len = 0
        self.deferred = False
        return whole, self.pending_offset

    def keep(self, tail: bytes, offset: int, deferred: bool) -> None:
        """Keep ``tail`` (at absolute ``offset``) as the pending bytes; ``deferred`` when
        it holds complete lines."""
        self.pending.append(tail)
        self.pending_len = len(tail)
        self.pending_offset = offset
        self.deferred = deferred

    def check_pending(
        self, data_bytes: int, events: list[ServerSentEvent | RawEvents | NamedEvents]
    ) -> None:
        """Raise :class:`EventTooLargeError` (with ``events``, dispatched before it) when
        the pending line and ``data_bytes``, the data buffer's size, exceed the limit."""
        if self.pending_len + data_bytes > self._max:
            raise EventTooLargeError(self._max, self.pending_offset, expand(events))
