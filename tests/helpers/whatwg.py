"""The WHATWG event stream algorithm transcribed literally: the slow path the runtime's SSE decoder
(``ssegen.runtime.sse``) is tested against, here because nothing generated needs it."""

from __future__ import annotations

import re

from ssegen.runtime.sse import InvalidFieldError, InvalidUTF8Error, ServerSentEvent


def whatwg_events(body: bytes) -> list[ServerSentEvent]:
    """The events of a whole stream, by a literal transcription of WHATWG HTML 9.2.6
    "Interpreting an event stream", line by line over the decoded text.

    :class:`ssegen.runtime.sse.SSEDecoder` must give the same events for any split of ``body``
    into reads (tests/runtime/test_sse.py and tests/runtime/test_fuzz_decoders.py check it),
    taking runs of events and whole reads at once where this function takes one line at a time.

    Args:
        body: The whole stream, BOM included if sent.

    Returns:
        The dispatched events in stream order; an event without its blank line at the end is
        discarded.

    Raises:
        InvalidUTF8Error: The complete lines (up to the last CR or LF) are not UTF-8; ``offset``
            is that of the first invalid byte.
        InvalidFieldError: A ``retry`` value of more digits than ``int()`` converts, with the
            events dispatched before it.
    """
    events: list[ServerSentEvent] = []
    data = event_type = last_id = ""
    retry: int | None = None
    for line in _lines(body):
        if line == "":  # dispatch the event (its data buffer without the last LF)
            if data:
                events.append(ServerSentEvent(event_type or "message", data[:-1], last_id, retry))
            data = event_type = ""
            retry = None
        elif not line.startswith(":"):  # not a comment: a field
            name, value = _field(line)
            if name == "event":
                event_type = value
            elif name == "data":
                data += value + "\n"
            elif name == "id" and "\0" not in value:
                last_id = value
            elif name == "retry" and value.isascii() and value.isdigit():
                retry = _retry(value, events)
    return events


def _lines(body: bytes) -> list[str]:
    """The complete lines of a whole stream, decoded, its BOM skipped (WHATWG HTML 9.2.6: "the
    stream must then be parsed by reading everything line by line")."""
    end = max(body.rfind(b"\n"), body.rfind(b"\r")) + 1
    try:
        text = body[:end].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidUTF8Error(exc.start, exc.reason) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return re.split(r"\r\n|\r|\n", text)[:-1]  # the last piece ends no line


def _field(line: str) -> tuple[str, str]:
    """The field name and value of a line that is not blank and no comment: the whole line and
    ``""`` without a colon, else split at the first colon, one space after it removed."""
    name, colon, value = line.partition(":")
    if colon and value.startswith(" "):
        value = value[1:]
    return name, value


def _retry(value: str, events: list[ServerSentEvent]) -> int:
    """``int(value)`` of an all-digits ``retry`` value; :class:`InvalidFieldError` with the events
    before it for more digits than ``int()`` converts (ssegen's documented difference: refused,
    not ignored)."""
    try:
        return int(value)
    except ValueError:
        raise InvalidFieldError("retry", f"a value of {len(value)} digits", list(events)) from None
