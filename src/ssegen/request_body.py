"""A request body as the mock reads it (:func:`read_request`): parsed once, bounded in depth
before parsing, its ``stream`` and ``model`` members read; :mod:`ssegen.mock_requests` checks it
against the channel's request schema."""

from __future__ import annotations

import json
from typing import Any, NamedTuple

#: The longest ``model`` (characters) a request body may name: every synthesized event repeats it.
MAX_MODEL = 256


class RequestBody(NamedTuple):
    """What a request body asks of a stream (:func:`read_request`).

    Attributes:
        problem: why the stream cannot answer it (a 400's message), or None.
        model: the ``model`` it names (for synthesized streams), or None.
        data: the body parsed, when it is a JSON object (checked against the request schema by
            :mod:`ssegen.mock_requests`); None for no body or one that is not an object.
        sent: a body was sent (not empty, not only white space), JSON or not.
    """

    problem: str | None
    model: str | None = None
    data: dict[str, Any] | None = None
    sent: bool = False


#: The deepest JSON nesting a request body may have (a chat request nests under 20 levels); past
#: it the body is refused before it is parsed, whatever the process' recursion limit (mypy's
#: API, run in the same process, raises it to 16,384, past what the C stack holds).
MAX_JSON_DEPTH = 256


def _nested_deeper(body: bytes, limit: int) -> bool:
    """True when the JSON text ``body`` opens more than ``limit`` arrays or objects inside one
    another (brackets inside strings not counted). Bodies with fewer opening brackets in all
    are answered by two counts in C; only the others are scanned."""
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    depth, in_string, escaped = 0, False, False
    for byte in body:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:  # quote
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):  # [ {
            depth += 1
            if depth > limit:
                return True
        elif byte in (0x5D, 0x7D):  # ] }
            depth -= 1
    return False


def read_request(body: bytes, max_model: int = MAX_MODEL) -> RequestBody:
    """A request body, parsed once: a JSON object without ``stream``, a body that is not JSON
    (curl's empty GET) and ``"stream": true`` are answered with the stream; ``"stream": false``,
    JSON nested past the parser's recursion limit (``RecursionError``, caught as a parse error)
    and a ``model`` longer than ``max_model`` characters (every synthesized event repeats it)
    are problems."""
    if not body.strip():
        return RequestBody(None)
    if _nested_deeper(body, MAX_JSON_DEPTH):
        return RequestBody(f"the request body is JSON nested too deep (more than {MAX_JSON_DEPTH} levels)", sent=True)
    try:
        data = json.loads(body)
    except RecursionError:  # below MAX_JSON_DEPTH only if the process' own limit is lower still
        return RequestBody("the request body is JSON nested too deep", sent=True)
    except ValueError:
        return RequestBody(None, sent=True)
    if not isinstance(data, dict):
        return RequestBody(None, sent=True)
    if data.get("stream") is False:
        return RequestBody('this mock answers streaming requests only: send "stream": true', data=data, sent=True)
    model = data.get("model")
    if not isinstance(model, str):
        return RequestBody(None, data=data, sent=True)
    if len(model) > max_model:
        return RequestBody(f"model: at most {max_model} characters (got {len(model):,})", data=data, sent=True)
    return RequestBody(None, model, data, True)
