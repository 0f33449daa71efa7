"""Example streams written on documentation pages: the one frame reader and :class:`PageStream`.

Pages show example streams as SSE lines (``data: {...}``, ``event: error``,
``: heartbeat``), more or less faithfully: ``# comment`` annotations between
them (``specs/xerotier/streaming-api.md:65``), a ``data:`` JSON value that goes
on over several lines without the prefix (``specs/xerotier/streaming-api.md:242``).
:func:`read_frames` turns the lines of one example into :class:`WireFrame`
objects, the way every page loader reads them; :class:`PageStream` is one
harvested stream (the IR's :class:`ssegen.ir.ExampleStream` is what it becomes
with :meth:`PageStream.to_ir`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice, takewhile
from typing import Any

from ...diagnostics import Code, Diagnostics, codes
from ...ir import ExampleStream, Provenance, StreamEvent

#: A field line of a wire example: ``data: {...}``, ``event: error``, ``id: 7``, ``retry: 10``.
WIRE_FIELD = re.compile(r"^(data|event|id|retry):\s?(.*)$")

#: The most lines a ``data:`` JSON value is looked for over (bounds the work on a broken page).
MAX_JSON_LINES = 500


def parses(text: str) -> bool:
    """True when ``text`` is JSON."""
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def json_or_none(text: str) -> Any:
    """``text`` read as JSON, or None when it is not JSON."""
    try:
        return json.loads(text)
    except ValueError:
        return None


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text (the wire form of an example payload)."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def is_notation(value: str) -> bool:
    """A ``data:`` value that documents the format rather than showing a payload.

    An elided ``...``/``…`` or an escaped ``\\n`` at the end
    (``data: {"type":"x_research.searching",...}\\n\\n``, ``specs/xerotier/streaming-api.md:11``).
    """
    return "..." in value or "…" in value or value.rstrip().endswith("\\n")


def is_field_line(text: str) -> bool:
    """An SSE field or comment line (``data: ...``, ``event: ...``, ``: ...``), leading blanks ignored."""
    line = text.strip()
    return bool(WIRE_FIELD.match(line)) or line.startswith(":")


def json_continuation(value: str, following: Iterable[tuple[int, str]]) -> tuple[int, str] | None:
    """A ``data:`` JSON value that goes on over the ``following`` lines without the prefix.

    Args:
        value: the text after ``data:``.
        following: the numbered lines after the ``data:`` line that may continue
            it (the caller stops them where the example ends); at most
            :data:`MAX_JSON_LINES` are read.

    Returns:
        ``(last line, compact JSON)`` when ``value`` starts with ``{`` or ``[``,
        is not JSON alone and becomes JSON with the lines up to ``last``; else None.
    """
    if not value.startswith(("{", "[")) or parses(value):
        return None
    parts = [value]
    for line, text in islice(following, MAX_JSON_LINES):
        parts.append(text)
        joined = "\n".join(parts)
        if parses(joined):
            return line, compact_json(json.loads(joined))
    return None


@dataclass(frozen=True)
class WireFrame:
    """One frame as written on a page: SSE fields (or a comment) and its line.

    Attributes:
        fields: ``(name, value)`` pairs in order; a comment frame has the one
            pair ``("", text)``.
        line: the 1-based page line of its first field.
    """

    fields: tuple[tuple[str, str], ...]
    line: int


@dataclass
class Frames:
    """What :func:`read_frames` read from the lines of one example.

    Attributes:
        frames: the frames in page order.
        rejoined: frame index -> ``(first, last)`` lines of a ``data:`` JSON value
            written over several lines and joined into one compact value.
        ignored: ``(line, text)`` of lines that are no SSE field; left out.
    """

    frames: list[WireFrame] = field(default_factory=list)
    rejoined: dict[int, tuple[int, int]] = field(default_factory=dict)
    ignored: list[tuple[int, str]] = field(default_factory=list)

    def notes(self) -> Iterator[tuple[Code, str, int]]:
        """``(code, message, line)`` of what the reading changed, for the page to report."""
        for first, last in self.rejoined.values():
            yield (
                codes.EXAMPLE_DATA_REJOINED,
                f"the JSON after `data:` goes on for {last - first} more lines without the `data:` prefix; "
                "joined into one compact `data:` line",
                first,
            )
        for line, text in self.ignored:
            yield (
                codes.EXAMPLE_LINE_IGNORED,
                f"line {text[:40]!r} in an example stream is not an SSE field; ignored",
                line,
            )


def read_frames(lines: Sequence[tuple[int, str]]) -> Frames:
    """The SSE frames written on the numbered ``lines`` of one example.

    Every frame is one ``data:`` line with the non-``data`` fields written just
    before it (``event: error`` / ``data: {...}``), or one ``: comment`` line; a
    run of non-``data`` fields at the end is a frame of its own.  Blank lines
    and ``# annotation`` lines are skipped; a ``data:`` JSON value that goes on
    without the prefix (until the next field line) is joined into one compact
    value (:func:`json_continuation`); values are stripped.  Never raises.

    Args:
        lines: ``(1-based line, text)`` pairs, in page order.
    """
    out = Frames()
    pending: list[tuple[str, str]] = []
    pending_line = 0
    i = 0
    while i < len(lines):
        number, raw = lines[i]
        text = raw.strip()
        i += 1
        if not text or text.startswith("#"):
            continue
        if text.startswith(":"):
            out.frames.append(WireFrame((("", text[1:].strip()),), number))
            continue
        match = WIRE_FIELD.match(text)
        if match is None:
            out.ignored.append((number, text))
            continue
        name, value = match.group(1), match.group(2).strip()
        if name != "data":
            if not pending:
                pending_line = number
            pending.append((name, value))
            continue
        rest = takewhile(lambda item: not is_field_line(item[1]), lines[i:])
        joined = json_continuation(value, rest)
        if joined is not None:
            last, value = joined
            out.rejoined[len(out.frames)] = (number, last)
            while i < len(lines) and lines[i][0] <= last:
                i += 1
        out.frames.append(WireFrame(tuple(pending) + (("data", value),), pending_line if pending else number))
        pending = []
    if pending:
        out.frames.append(WireFrame(tuple(pending), pending_line))
    return out


def frames_to_wire(frames: Sequence[WireFrame]) -> bytes:
    """The normalized wire bytes of ``frames``: one blank line after each."""
    out: list[str] = []
    for frame in frames:
        for name, value in frame.fields:
            out.append(f":{' ' + value if value else ''}\n" if name == "" else f"{name}: {value}\n")
        out.append("\n")
    return "".join(out).encode("utf-8")


@dataclass(frozen=True)
class WireEvent:
    """One event of a :class:`PageStream`, as an SSE client sees it.

    Attributes:
        event: the SSE event type (``message`` unless an ``event:`` field says otherwise).
        data: the event's data ("" for a comment frame).
        comment: the comment text for a ``: comment`` frame, else "".
    """

    event: str
    data: str
    comment: str = ""


@dataclass(frozen=True)
class PageStream:
    """An example stream from a documentation page, as the frames written there.

    Attributes:
        name: the slug of the section it appears in (``refusal-streaming``,
            ``streaming-inference-1``); a second stream in one section gets ``-1``.
        frames: its frames in page order (annotation lines already removed).
        provenance: the first wire line of the stream on the page.
        full_text: the page says the stream was produced with MindIE's
            ``fullTextEnabled`` (each delta repeats the text so far), so it must
            be accumulated in full-text mode.
    """

    name: str
    frames: tuple[WireFrame, ...]
    provenance: Provenance
    full_text: bool = False

    @property
    def wire(self) -> bytes:
        """The stream as a server would send it (UTF-8, ``\\n`` line ends, one blank line after every frame)."""
        return frames_to_wire(self.frames)

    def _events(self) -> list[tuple[WireEvent, int]]:
        """Each event a client would see, with its page line.

        A comment frame is a comment event; a frame with ``data`` or ``event``
        fields is an event (data fields joined with LF, the last ``event`` wins);
        any other frame dispatches nothing.
        """
        events = []
        for frame in self.frames:
            if frame.fields and all(name == "" for name, _ in frame.fields):
                events.append((WireEvent("", "", "\n".join(v for _, v in frame.fields)), frame.line))
                continue
            data = [v for name, v in frame.fields if name == "data"]
            event = next((v for name, v in reversed(frame.fields) if name == "event"), "")
            if data or event:
                events.append((WireEvent(event or "message", "\n".join(data)), frame.line))
        return events

    def events(self) -> list[WireEvent]:
        """The events of the stream (comment frames included), in order."""
        return [event for event, _ in self._events()]

    @property
    def event_lines(self) -> tuple[int, ...]:
        """The 1-based page line of each event of :meth:`events` (same order)."""
        return tuple(line for _, line in self._events())

    def event_provenance(self, index: int) -> Provenance:
        """Where event ``index`` is written (pointer ``.../events/<index>``)."""
        line = self.event_lines[index] if 0 <= index < len(self.event_lines) else self.provenance.line
        return Provenance(self.provenance.file, line, f"{self.provenance.pointer}/events/{index}")

    def json_events(self) -> Iterator[tuple[Any, Provenance]]:
        """The JSON value of every event whose data is JSON, with where it is written."""
        for i, event in enumerate(self.events()):
            value = json_or_none(event.data)
            if value is not None:
                yield value, self.event_provenance(i)

    def to_ir(self, channel: str) -> ExampleStream:
        """This stream as an IR :class:`~ssegen.ir.ExampleStream` sent on ``channel``."""
        events = tuple(
            StreamEvent(
                data=e.data,
                event=e.event or "message",
                comment=e.comment if not e.event else None,  # comment frames have no event type
                line=self.event_provenance(i).line,
            )
            for i, e in enumerate(self.events())
        )
        return ExampleStream(self.name, channel, events, self.provenance, self.full_text)


def drop_repeated_streams(streams: Sequence[PageStream], diagnostics: Diagnostics) -> list[PageStream]:
    """``streams`` without the ones that repeat an earlier stream.

    A stream whose events equal an earlier stream's (the Siliconstorm page holds
    two translations of one doc, so every example appears twice:
    ``specs/siliconstorm/inference-api.md:666``) is dropped with
    ``example-stream-duplicate`` (info); one whose events are a strict prefix of
    an earlier stream's (a truncated copy) is dropped with
    ``example-stream-truncated`` (warning): it shows nothing the full copy
    does not.  Order is kept.
    """
    kept: list[tuple[PageStream, list[WireEvent]]] = []
    for stream in streams:
        events = stream.events()
        code: Code | None = None
        for earlier, earlier_events in kept:
            if events == earlier_events:
                code, other = codes.EXAMPLE_STREAM_DUPLICATE, earlier
                break
            if len(events) < len(earlier_events) and earlier_events[: len(events)] == events:
                code, other = codes.EXAMPLE_STREAM_TRUNCATED, earlier
                break
        if not code:
            kept.append((stream, events))
            continue
        prov = stream.provenance
        if code is codes.EXAMPLE_STREAM_DUPLICATE:
            diagnostics.at(
                prov,
                code,
                f"example stream {stream.name!r} repeats {other.name!r} (line {other.provenance.line}) "
                "event for event; dropped",
            )
        else:
            diagnostics.at(
                prov,
                code,
                f"example stream {stream.name!r} is a truncated copy of {other.name!r} (line {other.provenance.line}): "
                f"its {len(events)} events are the first of {len(earlier_events)}; dropped",
            )
    return [s for s, _ in kept]
