"""Streams to send, for the pytest plugin (:mod:`ssegen.pytest_plugin`, through
:mod:`ssegen.transport`) and the mock server (:mod:`ssegen.mock`): the bytes of one
``text/event-stream`` response of a generated channel, and the faults that matter for streams.

A response is built in three steps, each a plain function:

1. :func:`frames_for`: the SSE events to send, as bytes, one item per event (a capture file
   replayed as recorded, a text synthesized by ``channel.example_stream(text=...)``, typed events,
   a harvested example stream, or by default what :func:`default_events` picks), written by the
   generated ``channel.encode_stream`` so they are what the spec says the provider sends;
2. :class:`Faults`: what to break (``cut_at``, ``error_event``, ``stall_after``, ``read_size``,
   ``delay``), parsed from ``name=value`` text by :meth:`Faults.parse` (CLI ``--fault``, the
   ``x-ssegen-fault`` request header, query parameters);
3. :func:`plan`: the frames and the faults as a list of :class:`Step` (send these bytes, sleep,
   stall, cut), which the transport and the server carry out, each with its own clock and socket.

Nothing here imports httpx, pytest or an ASGI stack: only the standard library, the generated
package whose channel is given, and two light modules of ssegen's (:mod:`ssegen.discover` reads a
capture, :mod:`ssegen.diagnostics` escapes what is printed).
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sys
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, fields, replace
from itertools import chain, islice
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple
from urllib.parse import urlsplit

from .diagnostics import escape_controls
from .discover import FileTooLargeError, NotRegularFileError, read_regular

#: The longest stall (seconds) a fault may ask for: a stall is a bounded wait, never a hang.
MAX_STALL = 300.0
#: The longest delay (seconds) before each event.
MAX_DELAY = 60.0
#: The stall (seconds) when ``stall_after`` is given without ``stall``.
DEFAULT_STALL = 10.0
#: The answer of a synthesized stream when no text is given (a channel with no harvested stream).
DEFAULT_TEXT = "Hello from the ssegen mock."
#: The largest capture (bytes) a replay reads: a capture is read whole, once.
MAX_CAPTURE = 256 * 1024 * 1024
#: The request header carrying faults for one request (``cut_at=3, read_size=7``).
FAULT_HEADER = "x-ssegen-fault"
#: How a cut ends the response: ``abort`` drops the connection mid-body (the client raises its own
#: error: httpx ``RemoteProtocolError``, aiohttp ``ClientPayloadError``), ``close`` ends the body
#: cleanly where it was cut (only the decoder sees the cut).
CUT_MODES = ("abort", "close")

_SYNTHESIZED = ("chat", "messages", "responses", "gemini", "cohere")
_LINE = re.compile(rb"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")
_SEPARATORS = re.compile(r"[,;\s]+")


class FaultError(ValueError):
    """A fault or source that cannot be applied (an unknown name, a value out of range, an event
    index past the stream's end); the message names it."""


@dataclass(frozen=True)
class Faults:
    """What to break in a stream (all off by default).

    Attributes:
        cut_at: the body ends inside this event (0-based index into the events sent, comment
            blocks included): the events before it whole, then the first half of its bytes
            (at least one), without the blank line that would dispatch it.
        cut_at_byte: the body ends after this many bytes (wherever that falls).
        cut: how the cut body ends (:data:`CUT_MODES`): ``abort`` (default) drops the
            connection, so the HTTP client raises its own error; ``close`` ends the body
            cleanly, so only the SSE decoder sees the cut.
        error_event: the channel's error event (the spec's own example of one, see
            :func:`error_frame`) is sent as this event (0-based), and the stream ends after it
            with the terminator where the spec has one, as providers end a stream on an error.
        stall_after: after this many events, nothing is sent for ``stall`` seconds; a client
            whose read timeout is shorter times out (its own error), a patient one gets the rest.
        stall: the stall, in seconds (at most :data:`MAX_STALL`).
        read_size: the body is sent in pieces of this many bytes (each one read of the
            client's), cut anywhere, inside UTF-8 characters and line ends too; by default one
            piece per event.
        delay: seconds to wait before each event (a slow trickle; at most :data:`MAX_DELAY`).
        times: the other faults break only the first ``times`` requests carrying these faults on
            a channel; later ones are served clean (``ids`` kept): a client's retry succeeds.
        status: the answer is this HTTP error (400 to 599) before any byte of the body, a JSON
            error in the provider's shape (:mod:`ssegen.mock_requests`).
        retry_after: with ``status``: the wait the answer asks for, in seconds (a number >= 0,
            fractions too): ``Retry-After`` in whole seconds (RFC 9110 10.2.3's delay-seconds,
            rounded up), and, for a fraction, ``retry-after-ms`` as well (milliseconds, as
            OpenAI's servers send it; clients that read it, the openai SDK's and ssegen's, wait
            that long), so that a test of a client's wait need not wait whole seconds.
        ids: every event carries an ``id:`` line (its 1-based position in the stream), and a
            request's ``Last-Event-ID`` header resumes after that event (WHATWG HTML 9.2).

    Raises:
        FaultError: a value out of range (a negative index, a stall over the bound, both cuts,
            a status that is no HTTP error, ``retry_after`` without ``status``).
    """

    cut_at: int | None = None
    cut_at_byte: int | None = None
    cut: str = "abort"
    error_event: int | None = None
    stall_after: int | None = None
    stall: float = DEFAULT_STALL
    read_size: int | None = None
    delay: float = 0.0
    times: int | None = None
    status: int | None = None
    retry_after: float | None = None
    ids: bool = False

    def __post_init__(self) -> None:
        _check_request_faults(self)
        for name in ("cut_at", "cut_at_byte", "error_event", "stall_after"):
            value = getattr(self, name)
            if value is not None and not _whole(value, 0):
                raise FaultError(f"{name}={value!r}: an index, a whole number >= 0")
        if self.cut_at is not None and self.cut_at_byte is not None:
            raise FaultError("cut_at and cut_at_byte: give one cut")
        if self.cut not in CUT_MODES:
            raise FaultError(f"cut={self.cut!r}: one of {', '.join(CUT_MODES)}")
        if self.read_size is not None and not _whole(self.read_size, 1):
            raise FaultError(f"read_size={self.read_size!r}: a number of bytes >= 1")
        for name, bound in (("stall", MAX_STALL), ("delay", MAX_DELAY)):
            value = getattr(self, name)
            if not _seconds(value, bound):
                raise FaultError(f"{name}={value!r}: seconds from 0 to {bound:g}")

    @property
    def cuts(self) -> bool:
        """A cut is asked for (``cut_at`` or ``cut_at_byte``)."""
        return self.cut_at is not None or self.cut_at_byte is not None

    @classmethod
    def parse(cls, text: str | Iterable[str], base: Faults | None = None) -> Faults:
        """Faults from ``name=value`` items (``"cut_at=3, read_size=7"``; items separated by
        commas, semicolons or spaces; several texts are read in turn), over ``base``.

        Raises:
            FaultError: an item without ``=``, an unknown name (the known ones are listed), a
                value of the wrong type or out of range.
        """
        texts = [text] if isinstance(text, str) else list(text)
        known = {f.name: f for f in fields(cls)}
        changes: dict[str, Any] = {}
        for item in (i for t in texts for i in _SEPARATORS.split(t.strip()) if i):
            name, sep, value = item.partition("=")
            name = name.strip().replace("-", "_")
            if not sep or name not in known:
                raise FaultError(f"{item!r}: expected NAME=VALUE with NAME one of {', '.join(known)}")
            changes[name] = _fault_value(name, value.strip())
        return cls.from_mapping(changes, base)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], base: Faults | None = None) -> Faults:
        """``base`` (default: no faults) with the fields named in ``values`` replaced; a value
        given as text (a query parameter) is read as :meth:`parse` reads it.

        Raises:
            FaultError: an unknown name, a bad value.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise FaultError(f"unknown fault {unknown[0]!r}; faults: {', '.join(sorted(known))}")
        changes = {k: _fault_value(k, v) if isinstance(v, str) else v for k, v in values.items()}
        return replace(base or cls(), **changes)

    def describe(self) -> str:
        """The faults that differ from none, as :meth:`parse` reads them (``""`` for none)."""
        default = Faults()
        return ", ".join(
            f"{f.name}={getattr(self, f.name)}"
            for f in fields(self)
            if getattr(self, f.name) != getattr(default, f.name)
        )


def _check_request_faults(faults: Faults) -> None:
    """The checks of ``times``, ``status``, ``retry_after`` and ``ids`` (see :class:`Faults`)."""
    if faults.times is not None and not _whole(faults.times, 1):
        raise FaultError(f"times={faults.times!r}: a number of requests >= 1")
    if faults.status is not None and not (_whole(faults.status, 400) and faults.status <= 599):
        raise FaultError(f"status={faults.status!r}: an HTTP error status, 400 to 599")
    after = faults.retry_after
    if after is not None and (faults.status is None or not _seconds(after, math.inf)):
        raise FaultError(f"retry_after={after!r}: seconds >= 0, with status=CODE")
    if not isinstance(faults.ids, bool):
        raise FaultError(f"ids={faults.ids!r}: 1 or 0")


def _seconds(value: Any, bound: float) -> bool:
    """``value`` is a finite number (not a bool) of seconds from 0 to ``bound``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return math.isfinite(value) and 0 <= value <= bound


def _whole(value: Any, least: int) -> bool:
    """``value`` is a whole number (not a bool) of at least ``least``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


#: The faults given in seconds (a fraction allowed).
_SECONDS = ("stall", "delay", "retry_after")


def _fault_value(name: str, text: str) -> Any:
    if name == "cut":
        return text
    if name == "ids":
        if text.lower() not in ("1", "0", "true", "false", "on", "off", ""):
            raise FaultError(f"ids={text!r}: expected 1 or 0")
        return text.lower() in ("1", "true", "on")
    if text.lower() in ("", "none", "off"):
        return None if name not in ("stall", "delay") else 0.0
    try:
        value = float(text) if name in _SECONDS else int(text, 10)
    except ValueError:
        kind = "seconds" if name in _SECONDS else "a whole number"
        raise FaultError(f"{name}={text!r}: expected {kind}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise FaultError(f"{name}={text!r}: expected a finite number of seconds")
    return value


class Step(NamedTuple):
    """One thing a server does while sending a response: ``send`` (``data``: one write, one
    read of the client's), ``sleep`` (``seconds``: a delay before an event), ``stall``
    (``seconds``: a stall a client may time out on) or ``cut`` (drop the connection)."""

    kind: str
    data: bytes = b""
    seconds: float = 0.0


def content_type(channel: Any) -> str:
    """The ``content-type`` of ``channel``'s responses, its framing's (``channel.framing``,
    a runtime ``framing.Framing``): ``application/x-ndjson`` for newline-delimited JSON,
    ``text/event-stream; charset=utf-8`` for SSE (also for a channel without one)."""
    framing = getattr(channel, "framing", None)
    return getattr(framing, "content_type", None) or "text/event-stream; charset=utf-8"


def _framing_name(channel: Any) -> str:
    """The name of ``channel``'s framing (``sse``, ``ndjson``): the IR's, which
    :func:`split_frames` takes."""
    framing = getattr(channel, "framing", "sse")
    return str(getattr(framing, "name", framing))


def split_frames(body: bytes, framing: str = "sse") -> list[bytes]:
    """``body`` (a ``text/event-stream`` body) cut after each blank line, so each item is one
    event (or comment block) with the lines that dispatch it, bytes unchanged (CR, LF and CRLF
    line ends as in WHATWG HTML's "event stream interpretation"); what follows the last blank
    line, an unterminated event, is the last item. ``b"".join`` of the items is ``body``.
    With ``framing="ndjson"`` (a newline-delimited JSON body) each line is an item."""
    if framing == "ndjson":  # a line ends at LF only (a lone CR is inside it, as ndjson.py reads it)
        *lines, tail = body.split(b"\n")
        return [line + b"\n" for line in lines] + ([tail] if tail else [])
    frames: list[bytes] = []
    start = 0
    for match in _LINE.finditer(body):
        if match.group() in (b"\n", b"\r", b"\r\n"):
            frames.append(body[start : match.end()])
            start = match.end()
    if start < len(body):
        frames.append(body[start:])
    return frames


def package_of(channel: Any) -> ModuleType | None:
    """The generated package a channel belongs to (``generated.deepseek``), or None: the package of
    its message classes' ``models`` module (the channel's own class is the shared runtime's)."""
    for cls in getattr(channel, "messages", {}).values():
        package = sys.modules.get(cls.__module__.rpartition(".")[0])
        if package is not None:
            return package
    return None


def channel_paths(address: str, servers: Mapping[str, str]) -> list[str]:
    """The HTTP paths ``address`` is served at: under the path of each server URL
    (``https://api.mistral.ai/v1`` + ``/chat/completions`` -> ``/v1/chat/completions``), an
    address already starting with that path taken as whole (DeepSeek's ``/beta/completions`` on
    ``https://api.deepseek.com/beta``); the address itself when no server has a path. Server
    variables and channel parameters (``{project}``, ``{model}``) stay in the path, as templates
    (:func:`path_matches`)."""
    paths: list[str] = []
    for url in servers.values():
        base = urlsplit(url).path.rstrip("/") if "://" in url else ""
        whole = not base or address == base or address.startswith(base + "/")
        path = address if whole else base + address
        if path not in paths:
            paths.append(path)
    return paths or [address]


_PARAMETER = re.compile(r"\{[^{}/]*\}")


def path_matches(template: str, path: str, *, suffix: bool = False) -> bool:
    """``path`` (a request's URL path) is ``template`` (a channel path, ``{name}`` standing for one
    path segment or part of one: ``/models/{model}:streamGenerateContent``), or with ``suffix``
    ends with it after any prefix (``/v1/chat/completions`` ends with ``/chat/completions``)."""
    if "{" not in template:
        return path == template or (suffix and template.startswith("/") and path.endswith(template))
    pattern = "[^/]+".join(re.escape(part) for part in _PARAMETER.split(template))
    if suffix and template.startswith("/"):
        return re.search(f"{pattern}$", path) is not None
    return re.fullmatch(pattern, path) is not None


def default_events(channel: Any, model: str | None = None) -> list[Any]:
    """What a channel sends unless told otherwise: its first harvested example stream (DeepSeek's
    docs example), else a stream synthesized to answer :data:`DEFAULT_TEXT` (chat, Messages,
    Responses, Gemini and Cohere channels), else the spec's examples in order (:meth:`example_events`)."""
    if channel.encoding.streams:
        return list(channel.example_stream())
    if channel.family in _SYNTHESIZED:
        try:
            return list(channel.example_stream(text=DEFAULT_TEXT, model=model))
        except ValueError:  # the examples lack an event the synthesis needs
            pass
    return list(channel.example_events())


def default_source(channel: Any) -> str:
    """Words naming what :func:`default_events` sends for ``channel``."""
    if channel.encoding.streams:
        return f"example stream {next(iter(channel.encoding.streams))!r}"
    if channel.family in _SYNTHESIZED:
        try:
            channel.example_stream(text=DEFAULT_TEXT)
            return f"synthesized answer {DEFAULT_TEXT!r}"
        except ValueError:
            pass
    return "the spec's examples"


def read_capture(path: str | Path) -> bytes:
    """The bytes of a capture file to replay: a regular file (symbolic links followed) of at most
    :data:`MAX_CAPTURE` bytes, read once (``ssegen mock --replay`` and ``sse_mock.route(replay=)``
    alike: a device such as ``/dev/zero`` or a FIFO with no writer is refused, never read).

    Raises:
        FaultError: no such file, not a regular file, too large, unreadable (the message names it).
    """
    try:
        return read_regular(Path(path), MAX_CAPTURE)
    except FileNotFoundError:
        reason = "no such file"
    except (NotRegularFileError, FileTooLargeError) as exc:
        reason = str(exc)
    except OSError as exc:
        reason = exc.strerror or str(exc)
    raise FaultError(escape_controls(f"cannot read capture {path}: {reason}"))


class EncodedFrames(Collection[bytes]):
    """A channel's typed events as the frames :func:`frames_for` gives, encoded as they are read
    (``channel.encode_stream``, the terminator added when the spec declares one): a response
    holds one frame in memory at a time, however long the answer.

    Args:
        channel: the generated channel.
        events: its typed events (a :class:`StreamTruncated` among them ends the frames).
    """

    def __init__(self, channel: Any, events: Iterable[Any]) -> None:
        self.channel = channel
        self.events = list(events)
        kept = next((i for i, e in enumerate(self.events) if type(e).__name__ == "StreamTruncated"), None)
        count = len(self.events) if kept is None else kept
        terminator = channel.encoding.terminator
        ends = terminator is None or any(type(e) is type(terminator) for e in self.events[:count])
        self._length = count + (0 if ends else 1)

    def __len__(self) -> int:
        return self._length

    def __iter__(self) -> Iterator[bytes]:
        return (bytes(frame) for frame in self.channel.encode_stream(self.events))

    def __contains__(self, frame: object) -> bool:
        return any(frame == f for f in self)


def frame_source(
    channel: Any,
    *,
    text: str | None = None,
    replay: str | Path | bytes | None = None,
    events: Iterable[Any] | None = None,
    stream: str | None = None,
    model: str | None = None,
) -> Collection[bytes]:
    """The events ``channel`` sends, as :func:`frames_for` lists them, but typed events are
    encoded only as they are read (:class:`EncodedFrames`); a capture is split as read.

    Raises:
        FaultError: as :func:`frames_for`.
    """
    given = [name for name, v in (("text", text), ("replay", replay), ("events", events), ("stream", stream)) if v]
    if len(given) > 1:
        raise FaultError(f"give one source of events, not {' and '.join(given)}")
    if replay is not None:
        return split_frames(replay if isinstance(replay, bytes) else read_capture(replay), _framing_name(channel))
    try:
        if events is not None:
            typed = list(events)
        elif text is not None:
            typed = list(channel.example_stream(text=text, model=model))
        elif stream is not None:
            typed = list(channel.example_stream(stream=stream))
        else:
            typed = default_events(channel, model)
    except KeyError:
        names = ", ".join(channel.encoding.streams) or "none"
        raise FaultError(f"{channel!r} has no example stream {stream!r} (streams: {names})") from None
    except ValueError as exc:
        raise FaultError(str(exc)) from None
    return EncodedFrames(channel, typed)


def frames_for(
    channel: Any,
    *,
    text: str | None = None,
    replay: str | Path | bytes | None = None,
    events: Iterable[Any] | None = None,
    stream: str | None = None,
    model: str | None = None,
) -> list[bytes]:
    """The events ``channel`` sends, one ``bytes`` item per SSE event (per line on an NDJSON
    channel), from one source:

    - ``replay``: a capture (a ``.sse`` file's path, or its bytes), sent as recorded
      (:func:`split_frames`; a file is read by :func:`read_capture`: a regular file only);
    - ``text``: ``channel.example_stream(text=text, model=model)`` encoded;
    - ``events``: typed events of the channel, encoded (``channel.encode_stream``: the
      terminator added when the spec has one);
    - ``stream``: the harvested example stream of that name (``channel.encoding.streams``);
    - none: :func:`default_events`.

    :func:`frame_source` gives the same frames encoded as they are read.

    Raises:
        FaultError: several sources, an unreadable capture (or no regular file, or larger than
            :data:`MAX_CAPTURE`), an unknown stream name, a text the channel's family cannot
            synthesize.
    """
    return list(frame_source(channel, text=text, replay=replay, events=events, stream=stream, model=model))


def error_frame(channel: Any) -> bytes:
    """The channel's error event as bytes: the first of the spec's examples (documented, then
    harvested) that the channel assembles as an ``error_event`` (Anthropic's ``event: error``,
    a Responses ``error``, Xerotier's mid-stream error), else the shape OpenAI-compatible chat
    servers send, ``data: {"error": {...}}`` (``event: error`` with ``{"type": "error", ...}``
    on a channel whose events are named), which the accumulator reports as ``error_event`` too;
    on an NDJSON channel, the line Ollama sends, ``{"error": "..."}``."""
    enc = channel.encoding
    errors = getattr(enc, "error_examples", ())  # packages generated before it have none
    candidates = [*errors, *enc.examples, *(frame for frames in enc.streams.values() for frame in frames)]
    for event, data in candidates:
        try:
            typed = channel.parse(data, event)
        except ValueError:
            continue
        errors = channel.accumulate([typed]).errors
        if any(e.get("kind") == "error_event" for e in errors):
            return bytes(channel.encode(typed))
    error = {"message": "ssegen mock: error event injected (error_event)", "type": "server_error", "code": None}
    if _framing_name(channel) == "ndjson":
        return f"{json.dumps({'error': error['message']}, separators=(',', ':'))}\n".encode()
    if enc.events:
        payload = json.dumps({"type": "error", "error": error}, separators=(",", ":"))
        return f"event: error\ndata: {payload}\n\n".encode()
    return f"data: {json.dumps({'error': error}, separators=(',', ':'))}\n\n".encode()


def terminator_frame(channel: Any) -> bytes | None:
    """The terminator's bytes (``data: [DONE]``), or None when the spec declares none."""
    terminator = channel.encoding.terminator
    return None if terminator is None else bytes(channel.encode(terminator))


def plan(
    frames: Collection[bytes], faults: Faults, *, error: bytes | None = None, terminator: bytes | None = None
) -> list[Step]:
    """The steps of one response, as a list: :func:`iter_plan`'s, all built (tests, small streams)."""
    return list(iter_plan(frames, faults, error=error, terminator=terminator))


def iter_plan(
    frames: Collection[bytes], faults: Faults, *, error: bytes | None = None, terminator: bytes | None = None
) -> Iterator[Step]:
    """The steps of one response: ``frames`` (one item per event) with ``faults`` applied, made
    one at a time as the response is sent (a frame is read from ``frames`` only when its bytes
    are due, so an :class:`EncodedFrames` answer is never whole in memory). Every fault is
    checked before the first step: a fault the stream cannot carry fails here, while the
    request can still be answered with an error.

    Args:
        frames: the events, as :func:`frame_source` gives them (iterated once per check or
            send: a ``cut_at_byte`` counts their bytes first).
        faults: what to break.
        error: the error event's bytes (:func:`error_frame`), needed for ``error_event``.
        terminator: the terminator's bytes (:func:`terminator_frame`), sent after an error event.

    Raises:
        FaultError: an index past the stream's end (``cut_at``, ``error_event``,
            ``stall_after``), a ``cut_at_byte`` at or past the body's last byte,
            ``error_event`` without ``error``.
    """
    tail = [] if faults.error_event is None else _error_tail(len(frames), faults.error_event, error, terminator)
    count = len(frames) if faults.error_event is None else faults.error_event + len(tail)

    def events() -> Iterator[bytes]:
        kept = frames if faults.error_event is None else islice(frames, faults.error_event)
        return chain(kept, tail)

    sent = events()
    if faults.cut_at is not None:
        if faults.cut_at >= count:
            raise FaultError(f"cut_at={faults.cut_at}: the stream has {count} events (0 to {count - 1})")
        count = faults.cut_at + 1
        sent = _cut_in_event(sent, faults.cut_at)
    elif faults.cut_at_byte is not None:
        count = _events_before_byte(events(), faults.cut_at_byte)
        sent = _cut_at_byte(sent, faults.cut_at_byte)
    if faults.stall_after is not None and faults.stall_after > count:
        raise FaultError(f"stall_after={faults.stall_after}: the stream has {count} events")
    return _steps(sent, count, faults)


def _steps(events: Iterator[bytes], count: int, faults: Faults) -> Iterator[Step]:
    """The send steps of ``events`` (``count`` of them), then the stall after the last event
    and the cut that :func:`iter_plan` asked for."""
    yield from _sends(events, faults)
    if faults.stall_after is not None and faults.stall_after == count:
        yield Step("stall", seconds=faults.stall)
    if faults.cuts and faults.cut == "abort":
        yield Step("cut")


def _error_tail(length: int, index: int, error: bytes | None, terminator: bytes | None) -> list[bytes]:
    """What follows the events before ``index``: ``error``, then ``terminator`` (when the spec has one)."""
    if error is None:
        raise FaultError("error_event: no error event given for this channel")
    if index > length:
        raise FaultError(f"error_event={index}: the stream has {length} events")
    return [error, *([terminator] if terminator else [])]


def _cut_in_event(events: Iterator[bytes], index: int) -> Iterator[bytes]:
    """The events before ``index``, then the first half (at least one byte) of that event's
    content, without the line ends that would dispatch it."""
    yield from islice(events, index)
    content = next(events).rstrip(b"\r\n")
    yield content[: max(1, len(content) // 2)]


def _events_before_byte(events: Iterable[bytes], size: int) -> int:
    """How many of ``events`` hold some of their first ``size`` bytes.

    Raises:
        FaultError: the events hold ``size`` bytes or fewer (a cut there would cut nothing).
    """
    total = count = 0
    for frame in events:
        if total < size:
            count += 1
        total += len(frame)
    if size >= total:
        raise FaultError(f"cut_at_byte={size}: the stream has {total} bytes (0 to {total - 1})")
    return count


def _cut_at_byte(events: Iterator[bytes], size: int) -> Iterator[bytes]:
    """The events' first ``size`` bytes, cut wherever that falls (one item per event kept)."""
    left = size
    for frame in events:
        if left <= 0:
            return
        yield frame[:left]
        left -= len(frame)


def _sends(events: Iterator[bytes], faults: Faults) -> Iterator[Step]:
    """The events as send steps (re-cut into reads of ``read_size`` when given: events sent back
    to back are joined, then cut), with the stall before event ``stall_after`` and the ``delay``
    before each event."""
    size = faults.read_size
    pending = b""  # bytes of a read of read_size not yet full
    for index, frame in enumerate(events):
        waits = [Step("stall", seconds=faults.stall)] if index == faults.stall_after else []
        waits += [Step("sleep", seconds=faults.delay)] if faults.delay else []
        if waits and pending:
            yield Step("send", pending)
            pending = b""
        yield from waits
        if size is None:
            if frame:
                yield Step("send", frame)
            continue
        data = pending + frame
        whole = len(data) - len(data) % size
        for start in range(0, whole, size):
            yield Step("send", data[start : start + size])
        pending = data[whole:]
    if pending:
        yield Step("send", pending)


def import_provider(name: str, out: Path | None = None, package: str | None = None) -> ModuleType:
    """The generated package of provider ``name``: ``<package>.<name>`` when that imports, else
    ``<out>/<name>`` as ``ssegen conform`` imports it; ``package`` and ``out`` default to the
    ``[tool.ssegen]`` settings of the working folder's project.

    Raises:
        FaultError: no such package (generated under another name, or not yet).
    """
    from .config import load_config

    config = load_config(Path.cwd())
    package = package or config.import_name
    out = out or config.out
    try:
        return importlib.import_module(f"{package}.{name}")
    except ImportError:
        pass
    from .conform import ConformError, import_package

    try:
        return import_package(out, name, package)
    except ConformError as exc:
        raise FaultError(str(exc)) from None
