"""Examples written at the media type level of a streamed response (OpenAPI ``content.<type>.example``
and ``examples.<name>.value``), given to the messages they are instances of.

An NDJSON media type's example is one JSON value, or the text of several lines (each a JSON
value); a ``text/event-stream`` media type's is the stream's text (``event:`` and ``data:`` lines,
blank lines between events), or one JSON value (one event's data). Each value goes to the first of
the response's messages it fits (:func:`fits`: the payload's type, every required member
present, every member with one allowed value holding it), the one requiring the most members
first, one on the example's SSE event type before the others; a value no message fits is
``example-unmatched`` (info). The ``[DONE]`` terminator's line is left out: its message's
example is its literal.
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ...diagnostics import Diagnostics, codes
from ...ir import Example, Message, Schema
from ..location import Location
from .media import StreamMedia

#: A value that is not JSON (a literal payload's text).
_TEXT = object()


def with_media_examples(stream: StreamMedia, messages: list[Message], diagnostics: Diagnostics) -> list[Message]:
    """``messages`` (those of ``stream``'s media type), each given the media type's examples
    that are instances of it, after its own, with the place each is written at."""
    found: dict[str, list[Example]] = {}
    ranked = sorted(messages, key=lambda m: -sum(1 for p in m.payload.properties if p.required))
    for name, value, loc in _values(stream.media, stream.loc):
        for event, data in _events(value, stream.framing):
            example = _example(ranked, event, data, name, loc)
            if example is None:
                diagnostics.at(
                    loc.provenance, codes.EXAMPLE_UNMATCHED, f"an event of this example fits no message: {data[:80]}"
                )
            elif example[1] is not None:
                found.setdefault(example[0], []).append(example[1])
    return [replace(m, examples=(*m.examples, *found[m.name])) if m.name in found else m for m in messages]


def _example(
    ranked: list[Message], event: str, data: str, name: str, loc: Location
) -> tuple[str, Example | None] | None:
    """``(message name, example)`` of one event of a media type example: the first message of
    ``ranked`` it fits, one on its SSE ``event`` type first; the example None for the ``[DONE]``
    line (left out); None when no message fits."""
    parsed = _parsed(data)
    if parsed is _TEXT and data == "[DONE]":
        return "", None
    instance = data if parsed is _TEXT else parsed
    fitting = [m for m in ranked if fits(instance, m.payload)]
    message = next((m for m in fitting if m.event in (event, "*")), fitting[0] if fitting else None)
    if message is None:
        return None
    text = data if parsed is _TEXT else json.dumps(parsed, ensure_ascii=False, separators=(",", ":"))
    return message.name, Example(name, "", text, loc.provenance)


def _values(media: dict[str, Any], loc: Location) -> list[tuple[str, Any, Location]]:
    """``(name, value, place)`` of the media type's ``example`` and of each ``examples`` entry's
    ``value`` (an ``externalValue`` is not read)."""
    values = [("", media["example"], loc.child("example"))] if "example" in media else []
    examples = media.get("examples")
    for key, example in examples.items() if isinstance(examples, dict) else ():
        if isinstance(example, dict) and "value" in example:
            values.append((str(key), example["value"], loc.child("examples", key, "value")))
    return values


def _events(value: Any, framing: str) -> list[tuple[str, str]]:
    """``(SSE event type, data)`` of each event an example value holds."""
    if not isinstance(value, str):
        return [("message", json.dumps(value, ensure_ascii=False, separators=(",", ":")))]
    if framing == "ndjson":
        return [("message", line.strip()) for line in value.splitlines() if line.strip()]
    if not any(line.startswith(("data:", "event:")) for line in value.splitlines()):
        return [("message", value)]  # one event's data, written alone
    return _sse_events(value)


def _sse_events(text: str) -> list[tuple[str, str]]:
    """The events of a ``text/event-stream`` text (WHATWG SSE field rules, comments skipped)."""
    events: list[tuple[str, str]] = []
    event = "message"
    data: list[str] = []
    for line in [*text.replace("\r\n", "\n").split("\n"), ""]:
        if not line:
            if data:
                events.append((event, "\n".join(data)))
            event = "message"
            data = []
            continue
        field, _, rest = line.partition(":")
        rest = rest[1:] if rest.startswith(" ") else rest
        if field == "data":
            data.append(rest)
        elif field == "event":
            event = rest or "message"
    return events


def _parsed(data: str) -> Any:
    """The JSON value of ``data``, or :data:`_TEXT` when it is not JSON."""
    try:
        return json.loads(data)
    except ValueError:
        return _TEXT


def fits(value: Any, schema: Schema) -> bool:
    """True when ``value`` (JSON, or the text of data that is not JSON) has the shape of ``schema`` where it tells
    messages apart: an object for an object schema, with every required member, and the one
    value of each member allowed a single value (a tag); a string of one of its values for a
    string schema with values; anything for any JSON."""
    if schema.type == "any":
        return True
    if schema.type == "object":
        if not isinstance(value, dict):
            return False
        if any(p.required and p.name not in value for p in schema.properties):
            return False
        return all(
            value[p.name] == p.schema.enum[0] for p in schema.properties if len(p.schema.enum) == 1 and p.name in value
        )
    if schema.type == "string" and schema.enum:
        return value in schema.enum
    return False
