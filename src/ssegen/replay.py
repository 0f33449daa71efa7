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

Nothing here imports httpx, pytest or an ASGI stack: only the standard library and the generated
package whose channel is given.
"""

from __future__ import annotations

import importlib
import json
import math
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple
from urllib.parse import urlsplit

#: The longest stall (seconds) a fault may ask for: a stall is a bounded wait, never a hang.
MAX_STALL = 300.0
#: The longest delay (seconds) before each event.
MAX_DELAY = 60.0
#: The stall (seconds) when ``stall_after`` is given without ``stall``.
DEFAULT_STALL = 10.0
#: The answer of a synthesized stream when no text is given (a channel with no harvested stream).
DEFAULT_TEXT = "Hello from the ssegen mock."
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

    Raises:
        FaultError: a value out of range (a negative index, a stall over the bound, both cuts).
    """

    cut_at: int | None = None
    cut_at_byte: int | None = None
    cut: str = "abort"
    error_event: int | None = None
    stall_after: int | None = None
    stall: float = DEFAULT_STALL
    read_size: int | None = None
    delay: float = 0.0

    def __post_init__(self) -> None:
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
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= bound:
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


def _whole(value: Any, least: int) -> bool:
    """``value`` is a whole number (not a bool) of at least ``least``."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _fault_value(name: str, text: str) -> Any:
    if name == "cut":
        return text
    if text.lower() in ("", "none", "off"):
        return None if name not in ("stall", "delay") else 0.0
    try:
        value = float(text) if name in ("stall", "delay") else int(text, 10)
    except ValueError:
        kind = "seconds" if name in ("stall", "delay") else "a whole number"
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
      (:func:`split_frames`);
    - ``text``: ``channel.example_stream(text=text, model=model)`` encoded;
    - ``events``: typed events of the channel, encoded (``channel.encode_stream``: the
      terminator added when the spec has one);
    - ``stream``: the harvested example stream of that name (``channel.encoding.streams``);
    - none: :func:`default_events`.

    Raises:
        FaultError: several sources, an unreadable capture, an unknown stream name, a text the
            channel's family cannot synthesize.
    """
    given = [name for name, v in (("text", text), ("replay", replay), ("events", events), ("stream", stream)) if v]
    if len(given) > 1:
        raise FaultError(f"give one source of events, not {' and '.join(given)}")
    if replay is not None:
        framing = _framing_name(channel)
        if isinstance(replay, bytes):
            return split_frames(replay, framing)
        try:
            return split_frames(Path(replay).read_bytes(), framing)
        except OSError as exc:
            raise FaultError(f"cannot read capture {replay}: {exc.strerror or exc}") from None
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
    return list(channel.encode_stream(typed))


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
    frames: Sequence[bytes], faults: Faults, *, error: bytes | None = None, terminator: bytes | None = None
) -> list[Step]:
    """The steps of one response: ``frames`` (one item per event) with ``faults`` applied.

    Args:
        frames: the events, as :func:`frames_for` gives them.
        faults: what to break.
        error: the error event's bytes (:func:`error_frame`), needed for ``error_event``.
        terminator: the terminator's bytes (:func:`terminator_frame`), sent after an error event.

    Raises:
        FaultError: an index past the stream's end (``cut_at``, ``error_event``,
            ``stall_after``), ``error_event`` without ``error``.
    """
    events = list(frames) if faults.error_event is None else _error_at(frames, faults.error_event, error, terminator)
    cut = faults.cuts
    if faults.cut_at is not None:
        events = _cut_in_event(events, faults.cut_at)
    elif faults.cut_at_byte is not None:
        events = _cut_at_byte(events, faults.cut_at_byte)
    if faults.stall_after is not None and faults.stall_after > len(events):
        raise FaultError(f"stall_after={faults.stall_after}: the stream has {len(events)} events")
    steps = _sends(events, faults)
    if faults.stall_after is not None and faults.stall_after == len(events):
        steps.append(Step("stall", seconds=faults.stall))
    if cut and faults.cut == "abort":
        steps.append(Step("cut"))
    return steps


def _error_at(frames: Sequence[bytes], index: int, error: bytes | None, terminator: bytes | None) -> list[bytes]:
    """The events before ``index``, then ``error``, then ``terminator`` (when the spec has one)."""
    if error is None:
        raise FaultError("error_event: no error event given for this channel")
    if index > len(frames):
        raise FaultError(f"error_event={index}: the stream has {len(frames)} events")
    return [*frames[:index], error, *([terminator] if terminator else [])]


def _cut_in_event(events: list[bytes], index: int) -> list[bytes]:
    """The events before ``index``, then the first half (at least one byte) of that event's
    content, without the line ends that would dispatch it."""
    if index >= len(events):
        raise FaultError(f"cut_at={index}: the stream has {len(events)} events (0 to {len(events) - 1})")
    content = events[index].rstrip(b"\r\n")
    return [*events[:index], content[: max(1, len(content) // 2)]]


def _cut_at_byte(events: list[bytes], size: int) -> list[bytes]:
    """The events' first ``size`` bytes, cut wherever that falls (one item per event kept)."""
    kept: list[bytes] = []
    left = size
    for frame in events:
        if left <= 0:
            break
        kept.append(frame[:left])
        left -= len(frame)
    return kept


def _sends(events: list[bytes], faults: Faults) -> list[Step]:
    """The events as send steps (re-cut into reads of ``read_size`` when given), with the
    stall before event ``stall_after`` and the ``delay`` before each event."""
    steps: list[Step] = []
    run: list[bytes] = []  # events sent back to back: re-cut into reads of read_size

    def flush() -> None:
        if faults.read_size is None:
            steps.extend(Step("send", frame) for frame in run if frame)
        else:
            body = b"".join(run)
            size = faults.read_size
            steps.extend(Step("send", body[i : i + size]) for i in range(0, len(body), size))
        run.clear()

    for index, frame in enumerate(events):
        if index == faults.stall_after:
            flush()
            steps.append(Step("stall", seconds=faults.stall))
        if faults.delay:
            flush()
            steps.append(Step("sleep", seconds=faults.delay))
        run.append(frame)
    flush()
    return steps


def request_problem(body: bytes) -> str | None:
    """Why a request body asks for something a stream cannot answer (``"stream": false``), or
    None: a JSON object without ``stream``, a body that is not JSON (curl's empty GET) and
    ``"stream": true`` are all answered with the stream."""
    if not body.strip():
        return None
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if isinstance(data, dict) and data.get("stream") is False:
        return 'this mock answers streaming requests only: send "stream": true'
    return None


def request_model(body: bytes) -> str | None:
    """The ``model`` a JSON request body names (for synthesized streams), or None."""
    try:
        data = json.loads(body) if body.strip() else None
    except ValueError:
        return None
    model = data.get("model") if isinstance(data, dict) else None
    return model if isinstance(model, str) else None


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
