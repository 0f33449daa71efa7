"""A body's reads joined into fewer, longer reads, for a consumer that waits for the whole body.

``Channel.accumulate`` hands no event on before the body ends, so the reads of a decoder that
asks for it (``ndjson.NDJSONDecoder.join_reads``) are joined before they are framed
(:func:`.framing.read_items` with ``joined=True``): the per-read costs of framing, classifying
and applying (a few microseconds each) are then paid once per ~24 KiB rather than once per
4 KiB read, or once per line for a server flushing each line. A decoder is split-invariant
(any split of a body gives the same events, errors and truncation), so the items are those of
the same body read in fewer reads.

What the source gave before it raised (a reset connection, a cancellation) is handed on first,
so that the decoder sees every byte read, as when each read is framed on its own; a decoding
error in those bytes is then raised instead, as it would have been before the source was read
further.

This module is ``src/ssegen/runtime/joined_reads.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

__all__ = ["ajoined_reads", "joined_reads"]

_END: Any = object()  # marks the source's end (a read may be anything, None included)
#: The most reads held as pieces (``framing.PENDING_PIECES``): more are joined into one buffer.
_PIECES = 32


class _Held:
    """The reads held so far, and the read they make once they number ``size`` bytes."""

    __slots__ = ("pieces", "count", "size")

    def __init__(self, size: int) -> None:
        self.pieces: list[bytes | bytearray] = []
        self.count = 0
        self.size = size

    def take(self, chunk: Any) -> list[Any]:
        """The reads to hand on once ``chunk`` is read: none while the reads held are short of
        ``size`` bytes; then the reads held joined up to and with the last LF of the last one
        (the rest of it, the start of a line, is held for the next: the decoder then holds no
        line across reads, so it copies the bytes no further; a read with no LF goes whole, so
        that the decoder sees a long line, and its limit, as it grows); a read that is not
        ``bytes`` after those held."""
        if type(chunk) is not bytes:
            return [*self.rest(), chunk]
        self.pieces.append(chunk)
        self.count += len(chunk)
        if self.count < self.size:
            if len(self.pieces) >= _PIECES:
                self._compact()
            return []
        cut = chunk.rfind(b"\n") + 1
        if 0 < cut < len(chunk):
            self.pieces[-1] = chunk[:cut]
            joined = b"".join(self.pieces)
            self.pieces = [chunk[cut:]]
            self.count = len(chunk) - cut
            return [joined]
        return self.rest()

    def _compact(self) -> None:
        """The pieces held as one ``bytearray`` grown in place (amortized): reads of a few
        bytes each cost about their size held, not a ``bytes`` object (~35 bytes) each."""
        first = self.pieces[0]
        buffer = first if type(first) is bytearray else bytearray(first)
        buffer += b"".join(self.pieces[1:])
        self.pieces = [buffer]

    def rest(self) -> list[bytes]:
        """The reads held, joined (none when none is); nothing is held after it."""
        if not self.pieces:
            return []
        joined = b"".join(self.pieces)
        self.pieces, self.count = [], 0
        return [joined]


def joined_reads(chunks: Iterable[Any], size: int) -> Iterator[Any]:
    """``chunks`` with consecutive ``bytes`` reads joined into reads of at least ``size``
    bytes, cut after a line end where the last read has one (see ``_Held.take``); a read of
    another type (``bytearray``, ``memoryview``, or a ``str`` the decoder rejects) is handed on
    as it is, after the reads held before it.

    Raises:
        what the source raises, once the reads held before it are handed on.
    """
    held = _Held(size)
    source = iter(chunks)
    while True:
        try:
            chunk = next(source, _END)
        except BaseException:
            yield from held.rest()
            raise
        # What ``take`` does with a read that leaves the reads held short of ``size`` and of
        # ``_PIECES``, without its call: one line per read, as a server flushing each sends
        # them (Ollama's 20,000 lines, one read each: 6.5 -> 4.9 ms, CPU time).
        if (
            type(chunk) is bytes
            and held.count + len(chunk) < size
            and len(held.pieces) < _PIECES - 1
        ):
            held.pieces.append(chunk)
            held.count += len(chunk)
            continue
        if chunk is _END:
            break
        yield from held.take(chunk)
    yield from held.rest()


async def ajoined_reads(chunks: AsyncIterable[Any], size: int) -> AsyncIterator[Any]:
    """:func:`joined_reads` of an async iterable of reads."""
    held = _Held(size)
    source = aiter(chunks)
    while True:
        try:
            chunk = await anext(source, _END)
        except BaseException:
            for read in held.rest():
                yield read
            raise
        if chunk is _END:
            break
        for read in held.take(chunk):
            yield read
    for read in held.rest():
        yield read
