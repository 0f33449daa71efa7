"""Layer 2 of the ``text/event-stream`` decoder (:mod:`.sse`): the field rules of WHATWG HTML
9.2.6 (``event``, ``data``, ``id``, ``retry``, comments, dispatch on a blank line), in one
place; a ``retry`` value of more digits than ``int()`` converts raises
:class:`~.framing.InvalidFieldError`.

This module is ``src/ssegen/runtime/sse_fields.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Iterable

from .framing import (
    InvalidFieldError,
    NamedEvents,
    RawEvents,
    ServerSentEvent,
    expand,
    new_tuple,
)

__all__ = ["FieldInterpreter"]


def _retry_value(value: str, events: Iterable[ServerSentEvent | RawEvents | NamedEvents]) -> int:
    """``int(value)`` of an all-digits ``retry`` value; :class:`InvalidFieldError`
    (with ``events``, dispatched before it) for more digits than ``int()`` converts."""
    try:
        return int(value)
    except ValueError:  # more digits than sys.get_int_max_str_digits()
        reason = f"a value of {len(value)} digits"
        raise InvalidFieldError("retry", reason, expand(events)) from None


class FieldInterpreter:
    """Layer 2: the line interpreter of WHATWG HTML 9.2.6, and the one place for its
    field rules.

    A blank line dispatches the event (if its data buffer is non-empty), sets the last
    event ID string to the last event ID buffer, and resets the event type and
    ``retry``; a line starting with ``:`` is a comment; ``name:value`` loses one space
    after the colon, a line without a colon is a field with an empty value; ``data``
    appends to the data buffer, ``event`` sets the event type (``message`` when empty
    at dispatch), ``id`` sets the last event ID buffer unless the value contains
    U+0000, ``retry`` sets the reconnection time if the value is all ASCII digits (more
    digits than ``int()`` converts raise :class:`InvalidFieldError`); other field names
    (case-sensitive) are ignored.

    At an event boundary (:attr:`in_event` false) the last event ID string equals the
    buffer: the buffer changes only by an ``id`` line, and the blank line after it
    copies it. So a run of events dispatched at once (:func:`scan_run`) carries
    :attr:`last_id` and changes no state.

    Attributes:
        last_event_id: The last event ID string (as of the most recent blank line).
        reconnection_time: The last valid ``retry`` value, in milliseconds, or ``None``.
        last_id: The last event ID buffer.
        data_bytes: The UTF-8 size of the data buffer (each value plus 1 for its LF).
    """

    __slots__ = (
        "last_event_id",
        "reconnection_time",
        "last_id",
        "data_bytes",
        "_parts",
        "_event_type",
        "_retry",
        "_dirty",
    )

    def __init__(self) -> None:
        self.last_event_id = ""
        self.reconnection_time: int | None = None
        self.last_id = ""
        self.data_bytes = 0
        # The data buffer as its values, the event type buffer, retry of this block.
        self._parts: list[str] = []
        self._event_type = ""
        self._retry: int | None = None
        # A field line other than data was seen since the last blank line.
        self._dirty = False

    @staticmethod
    def event_type(buffer: str) -> str:
        """The type of an event dispatched with the event type buffer ``buffer``: the
        buffer, or ``message`` when it is empty."""
        return buffer or "message"

    @property
    def in_event(self) -> bool:
        """Field lines were interpreted since the last blank line."""
        return bool(self._parts) or self._dirty

    def reset(self) -> None:
        """Discard the event being built (end of stream)."""
        self._parts = []
        self.data_bytes = 0
        self._event_type = ""
        self._retry = None
        self._dirty = False

    def interpret(
        self, lines: list[str], events: list[ServerSentEvent | RawEvents | NamedEvents]
    ) -> None:
        """Apply complete ``lines`` (line ends removed, decoded), appending the events
        they dispatch to ``events``. The caller has checked that no event can exceed
        the size limit."""
        parts = self._parts
        data_bytes = self.data_bytes
        event_type = self.event_type
        for line in lines:
            if not line:
                if parts:
                    data = "\n".join(parts)
                    event = (event_type(self._event_type), data, self.last_id, self._retry)
                    events.append(new_tuple(ServerSentEvent, event))
                    parts = self._parts = []
                    data_bytes = 0
                if self._dirty:
                    self._end_block()
                continue
            if line[0] == ":":
                continue  # comment
            # The value is cut from the line once (partition, then value[1:] for the space
            # after the colon, held three copies of a long line at once).
            colon = line.find(":")
            if colon < 0:
                name, value = line, ""
            else:
                name = line[:colon]
                value = (
                    line[colon + 2 :] if line[colon + 1 : colon + 2] == " " else line[colon + 1 :]
                )
            if name == "data":
                parts.append(value)
                data_bytes += (len(value) if value.isascii() else len(value.encode())) + 1
                continue
            self.data_bytes = data_bytes
            self._field(name, value, events)
        self.data_bytes = data_bytes

    def _field(
        self, name: str, value: str, events: list[ServerSentEvent | RawEvents | NamedEvents]
    ) -> None:
        """Apply a field line other than ``data``."""
        self._dirty = True
        if name == "event":
            self._event_type = value
        elif name == "id":
            if "\0" not in value:
                self.last_id = value
        elif name == "retry" and value.isascii() and value.isdigit():
            self._retry = self.reconnection_time = _retry_value(value, events)

    def _end_block(self) -> None:
        """A blank line after field lines: the last event ID string takes the buffer;
        the event type and ``retry`` are reset."""
        self.last_event_id = self.last_id
        self._event_type = ""
        self._retry = None
        self._dirty = False
