"""The events a channel yields besides its typed messages, kept rather than dropped.

:class:`UnknownEvent` (a payload no message of the channel matches, with its raw text),
:class:`VendorEvent` (a vendor's ``x_*`` event, specs/xerotier/streaming-api.md:141-152),
:class:`StreamTruncated` (the body ended inside an event: WHATWG HTML 9.2.6 dispatches only at a
blank line) and :class:`StreamStalled` (a stream the streaming client closed after
``idle_timeout`` seconds of silence), plus :func:`tag_reader`, which reads a discriminator
without decoding a payload, and :func:`midstream_class`, what NDJSON lines applied decode as.

This module is ``src/ssegen/runtime/events.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, TypeVar, cast

import msgspec

S = TypeVar("S", bound=msgspec.Struct)

#: The reason of a :class:`StreamTruncated` event (and of the ``truncated`` error).
TRUNCATED_REASON = "the stream ended inside an event; the unterminated event was discarded"

#: What :func:`truncated_reason` adds when the body held no blank line at all.
STRIPPED_LINES_HINT = (
    "; the body held no blank line at all, so its line ends may have been stripped (as"
    " iter_lines() does, in requests and httpx): pass response.iter_bytes() (httpx) or"
    " response.iter_content(chunk_size=None) (requests) instead"
)


def truncated_reason(
    bytes_consumed: int, bytes_discarded: int, body_head: bytes | None = None
) -> str:
    """The reason of the :class:`StreamTruncated` event (and ``truncated`` error) of a body
    that ended inside an event, given its bytes read and discarded and, for a body that gave
    no event and is not of the framing, its first bytes (``sse.StreamState.body_head``).

    With ``body_head``, the reason says what the body looks like instead
    (:func:`body_looks_like`: an NDJSON body, a JSON reply, an HTML page). Else :data:`TRUNCATED_REASON`, plus
    :data:`STRIPPED_LINES_HINT` when every byte was discarded: the body held no blank line,
    so no event ever ended (WHATWG HTML 9.2.6 dispatches an event at a blank line), which is
    what a body read with its line ends stripped looks like (each line of requests' or
    httpx's ``iter_lines()``, joined).
    """
    looks_like = body_looks_like(body_head) if body_head is not None else None
    if looks_like is not None:
        return (
            f"the body gave no event ({bytes_consumed} bytes discarded): it looks like {looks_like}"
        )
    if bytes_discarded and bytes_discarded == bytes_consumed:
        return TRUNCATED_REASON + STRIPPED_LINES_HINT
    return TRUNCATED_REASON


_BOM = b"\xef\xbb\xbf"


def body_looks_like(head: bytes) -> str | None:
    """What a body that gave no event looks like, from its first bytes (``head``), when it
    is not a stream of the framing it was read with: newline-delimited JSON (one value per
    line: Cohere v2 answers so unless the request's ``Accept`` asks for
    ``text/event-stream``), one JSON document (a reply that does not stream, or an error),
    an HTML page (a proxy's or gateway's error page); in words, with what to do. None for
    anything else (an SSE body whose line ends were stripped, comments only, an empty
    body)."""
    text = head.removeprefix(_BOM).lstrip()
    first = text[:1]
    if first == b"<":
        return (
            "an HTML page, not a stream: an error page (a proxy's or a gateway's?); check the"
            " response's status and Content-Type"
        )
    if first not in (b"{", b"["):
        return None
    line, _, rest = text.partition(b"\n")
    if rest.lstrip()[:1] in (b"{", b"[") and _is_json(line):
        return (
            "newline-delimited JSON (one JSON value per line), not text/event-stream: decode"
            " it with content_type= the response's Content-Type (application/x-ndjson), or ask"
            " for text/event-stream in the request's Accept header"
        )
    if b'"error"' in text:
        return "a JSON error reply, not a stream: check the response's status, read it as JSON"
    return (
        "one JSON document, not a stream: a reply that does not stream (does the request ask"
        " for a stream?); read it as JSON"
    )


def _is_json(line: bytes) -> bool:
    """True when ``line`` is one whole JSON value."""
    try:
        json.loads(line)
    except ValueError:
        return False
    return True


class UnknownEvent(msgspec.Struct, kw_only=True):
    """An SSE event that matches no message of its channel, kept with its raw text.

    Attributes:
        event: the SSE event type (``message`` when the stream gave none).
        data: the event's data, exactly as received.
        id: the SSE last event ID at dispatch.
        reason: why no message matched (the last decoder error).
    """

    event: str
    data: str
    id: str = ""
    reason: str = ""


class VendorEvent(msgspec.Struct, kw_only=True):
    """A provider extension event the spec does not list (or whose listed schema it
    does not fit), recognized by its tag: e.g. ``{"type": "x_new.thing", ...}``
    (vendor-prefixed events inline in the stream: specs/xerotier/streaming-api.md:141-152).

    Attributes:
        type: the tag value.
        payload: the whole JSON object as received.
        reason: why no listed vendor message matched ("" for an unlisted tag).
    """

    type: str
    payload: dict[str, Any]
    reason: str = ""


def tag_reader(member: str) -> Callable[[str], str | None]:
    """A function reading the string value of top-level ``member`` from JSON text.

    Args:
        member: the JSON object member holding the tag, e.g. ``"type"``.

    Returns:
        ``read(data: str) -> str | None``: the member's value, or None for
        non-JSON, non-objects, a missing member and non-string values (it
        never raises); other members are skipped by msgspec without building
        them.
    """
    probe = msgspec.defstruct("TagProbe", [("value", Any, None)], rename={"value": member})
    decoder = msgspec.json.Decoder(probe)

    def read(data: str) -> str | None:
        try:
            value = getattr(decoder.decode(data), "value", None)
        except (msgspec.ValidationError, msgspec.DecodeError):
            return None
        return value if isinstance(value, str) else None

    return read


def midstream_class(message: type[S], closing: tuple[str, ...]) -> type[S]:
    """``_Midstream<message>``: the members of ``message`` but ``closing`` (attribute names), alike
    (a default_factory one required), refusing any other: a line decodes as it exactly when it
    decodes as ``message`` sending none of ``closing`` (even ``null``) nor an undeclared member, to
    the same kept members; typed as ``message`` (not a subclass) for its run function."""
    fields = [
        (f.name, f.type, msgspec.field(default=f.default, name=f.encode_name))
        for f in msgspec.structs.fields(message)
        if f.name not in closing
    ]
    name, gc = f"_Midstream{message.__name__}", message.__struct_config__.gc
    made = msgspec.defstruct(name, fields, kw_only=True, gc=gc, forbid_unknown_fields=True)
    return cast("type[S]", made)


class StreamTruncated(msgspec.Struct, kw_only=True):
    """The last event of a decoded stream whose body ended inside an event: the
    unterminated event was discarded (WHATWG HTML 9.2.6, "any pending data must be
    discarded"). Yielded by :meth:`Channel.decode` and :meth:`Channel.adecode` so that
    the fact travels with the events: ``accumulate`` of any iterable of them (a
    list included) records it as a ``truncated`` error.

    Attributes:
        reason: what happened, in words.
        bytes_consumed: bytes of the body read in all, the discarded ones included.
        bytes_discarded: the last ``bytes_discarded`` of them, the unterminated event:
            every byte after the stream's last blank line (``sse.SSEDecoder.bytes_discarded``).
    """

    reason: str = TRUNCATED_REASON
    bytes_consumed: int = 0
    bytes_discarded: int = 0


class StreamStalled(StreamTruncated, kw_only=True):
    """The last event of a stream the streaming client (``client.py``) closed because no byte
    came for ``idle_timeout`` seconds, and could neither resume nor start over: what arrived
    before is kept. A :class:`StreamTruncated` (the body ended early), recorded by
    ``accumulate`` as a ``stalled`` error rather than a ``truncated`` one.

    Attributes:
        idle_timeout: the silence, in seconds, after which the connection was closed.
    """

    idle_timeout: float | None = None
