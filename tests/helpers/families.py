"""Independent expectations for assembled Gemini and Cohere streams (issue 22, item 7).

Each function reads a stream's raw bytes with nothing from ssegen: the SSE framing is split by
hand (WHATWG HTML "event stream interpretation": lines end in CRLF, LF or CR; a blank line ends
an event; a ``data:`` field loses one leading space; several ``data`` lines join with LF), each
event's data goes through :func:`json.loads`, and the provider's documented assembly rules are
applied to the plain JSON. A test compares ssegen's ``accumulate`` result to what these return.

What is computed (:class:`Expected`):

- ``text``: per candidate (Gemini ``candidates[].index``, absent = 0) or content block (Cohere
  ``content-*`` ``index``), the ``text`` of its parts / deltas joined in stream order; a Gemini part
  with ``thought: true`` is not text.
- ``thinking``: likewise, the text of Gemini parts with ``thought: true`` (Cohere ``thinking``
  content deltas).
- ``tool_calls``: each call in stream order: its name, id and parsed arguments. Gemini: a part's
  ``functionCall`` with ``name`` starts a call (``args`` whole, else ``{}``); Vertex AI
  ``partialArgs`` set the value at their ``jsonPath`` in the open call's arguments (string pieces at
  one path concatenated while the previous piece said ``willContinue``); a ``functionCall`` without
  ``willContinue`` ends the call. Cohere: ``tool-call-start`` opens the call at ``index`` with
  ``function.name`` and ``id``, ``tool-call-delta`` appends ``function.arguments`` text, parsed with
  :func:`json.loads` at the end.
- ``tool_plan``: Cohere only, the ``tool-plan-delta`` texts joined.
- ``citations``: Cohere only, each ``citation-start``'s citation object as sent, in order.
- ``finish_reason``: Gemini: per candidate, the last ``finishReason`` sent; Cohere: ``message-end``'s
  ``delta.finish_reason``.
- ``stop_reason``: the finish reason of the last candidate that sent one, else the prompt's
  ``promptFeedback.blockReason`` (Gemini); ``delta.finish_reason`` (Cohere).
- ``usage``: Gemini: the last ``usageMetadata`` sent, whole (every member, as sent: each chunk
  re-sends the running count, so the last replaces the earlier ones); Cohere: ``message-end``'s
  ``delta.usage``, whole.
- ``complete``: Gemini: a ``finishReason`` arrived, or the prompt was blocked (a
  ``promptFeedback.blockReason``: the API's last word, no candidates follow); Cohere: a
  ``message-end`` arrived.
- ``block_reason``: Gemini ``promptFeedback.blockReason`` (None when the prompt was not blocked).
- ``id`` and ``model``: Gemini ``responseId`` and ``modelVersion`` of the first chunk that has them;
  Cohere ``message-start``'s ``id`` (Cohere sends no model name in the stream).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched SSE event: its ``event`` type (``message`` when the frame named none)
    and its data (the ``data`` lines joined with LF)."""

    event: str
    data: str


@dataclass
class ToolCall:
    """One tool call of an assembled stream: name, id (None when the wire gave none) and the
    arguments parsed to JSON data."""

    name: str | None
    id: str | None
    args: Any
    candidate: int = 0


@dataclass
class Expected:
    """What an assembled stream must say (see the module docstring for each member's rule)."""

    text: dict[int, str] = field(default_factory=dict)
    thinking: dict[int, str] = field(default_factory=dict)
    tool_calls: list[ToolCall] = field(default_factory=list)
    tool_plan: str | None = None
    citations: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: dict[int, str] = field(default_factory=dict)
    stop_reason: str | None = None
    usage: dict[str, Any] | None = None
    complete: bool = False
    block_reason: str | None = None
    id: str | None = None
    model: str | None = None
    events: int = 0

    @property
    def candidates(self) -> list[int]:
        """The candidate (or content block) indices that said anything, sorted."""
        keys = set(self.text) | set(self.thinking) | set(self.finish_reason)
        keys |= {call.candidate for call in self.tool_calls}
        return sorted(keys)


def sse_events(body: bytes) -> list[SSEEvent]:
    """The events of an SSE body, framed by hand (WHATWG HTML, event stream interpretation):
    UTF-8 (a leading BOM dropped), lines split at CRLF, LF or CR, comments (``:``) skipped, an
    event dispatched at a blank line when it has data; one not ended by a blank line is dropped,
    as the standard says."""
    text = body.decode("utf-8").removeprefix("\ufeff")
    events: list[SSEEvent] = []
    event_type, data = "", []
    for line in re.split(r"\r\n|\r|\n", text):
        if line == "":
            if data:
                events.append(SSEEvent(event_type or "message", "\n".join(data)))
            event_type, data = "", []
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data.append(value)
        elif name == "event":
            event_type = value
    return events


_PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\['([^']*)'\]")


def _json_path(path: str) -> list[str | int]:
    """The steps of an RFC 9535 normalized-style path (``$.a.b[0]['c']``): names and indices.

    Raises:
        ValueError: a path this reader does not handle (wildcards, filters, slices).
    """
    if not path.startswith("$"):
        raise ValueError(f"not a JSON path: {path!r}")
    steps: list[str | int] = []
    pos = 1
    while pos < len(path):
        match = _PATH_STEP.match(path, pos)
        if match is None:
            raise ValueError(f"unsupported JSON path step at {pos} in {path!r}")
        name, index, quoted = match.groups()
        steps.append(int(index) if index is not None else (name if name is not None else quoted))
        pos = match.end()
    return steps


def _set_path(root: dict[str, Any], steps: list[str | int], value: Any, append: bool) -> None:
    """Put ``value`` at ``steps`` in ``root``, creating objects and arrays on the way; with
    ``append`` a string value is added to the string already there."""
    node: Any = root
    for step, following in zip(steps, steps[1:], strict=False):
        empty: Any = [] if isinstance(following, int) else {}
        if isinstance(step, int):
            while len(node) <= step:
                node.append(None)
            if node[step] is None:
                node[step] = empty
        elif step not in node:
            node[step] = empty
        node = node[step]
    last = steps[-1]
    if isinstance(last, int):
        while len(node) <= last:
            node.append(None)
        old = node[last]
    else:
        old = node.get(last)
    node[last] = old + value if append and isinstance(old, str) and isinstance(value, str) else value


def _partial_value(piece: dict[str, Any]) -> Any:
    for member in ("stringValue", "numberValue", "boolValue"):
        if member in piece:
            return piece[member]
    return None  # nullValue, or no value


def gemini_expected(body: bytes) -> Expected:
    """The assembled result a Gemini ``streamGenerateContent?alt=sse`` body must give (module
    docstring), from its raw JSON."""
    out = Expected()
    last_finish: str | None = None
    open_call: dict[int, ToolCall] = {}
    continuing: dict[int, set[str]] = {}  # candidate -> JSON paths whose last string piece continues
    for sse in sse_events(body):
        chunk = json.loads(sse.data)
        out.events += 1
        if out.id is None and "responseId" in chunk:
            out.id = chunk["responseId"]
        if out.model is None and "modelVersion" in chunk:
            out.model = chunk["modelVersion"]
        if "usageMetadata" in chunk:
            out.usage = chunk["usageMetadata"]
        feedback = chunk.get("promptFeedback") or {}
        if feedback.get("blockReason") is not None:
            out.block_reason = feedback["blockReason"]
            out.complete = True
        for candidate in chunk.get("candidates") or []:
            index = candidate.get("index", 0)
            for part in (candidate.get("content") or {}).get("parts") or []:
                if "text" in part:
                    into = out.thinking if part.get("thought") else out.text
                    into[index] = into.get(index, "") + part["text"]
                call = part.get("functionCall")
                if call is None:
                    continue
                if "name" in call:
                    current = ToolCall(call["name"], call.get("id"), dict(call.get("args") or {}), index)
                    out.tool_calls.append(current)
                    open_call[index] = current
                    continuing[index] = set()
                current_call = open_call.get(index)
                for piece in call.get("partialArgs") or []:
                    if current_call is None:
                        raise ValueError(f"partialArgs with no open function call: {piece!r}")
                    path = piece["jsonPath"]
                    append = path in continuing[index]
                    _set_path(current_call.args, _json_path(path), _partial_value(piece), append)
                    if piece.get("willContinue"):
                        continuing[index].add(path)
                    else:
                        continuing[index].discard(path)
                if not call.get("willContinue"):
                    open_call.pop(index, None)
            if candidate.get("finishReason") is not None:
                out.finish_reason[index] = last_finish = candidate["finishReason"]
                out.complete = True
    out.stop_reason = last_finish if last_finish is not None else out.block_reason
    return out


def cohere_expected(body: bytes) -> Expected:
    """The assembled result a Cohere v2 chat stream (``POST /v2/chat``, ``stream: true``) must
    give (module docstring), from its raw JSON; the ``type`` member names each event (the
    ``event:`` line repeats it)."""
    out = Expected()
    arguments: dict[int, list[str]] = {}
    calls: dict[int, ToolCall] = {}
    for sse in sse_events(body):
        payload = json.loads(sse.data)
        out.events += 1
        kind = payload["type"]
        if sse.event != "message" and sse.event != kind:
            raise ValueError(f"event {sse.event!r} carries a {kind!r} payload")
        message = (payload.get("delta") or {}).get("message") or {}
        index = payload.get("index", 0)
        if kind == "message-start":
            out.id = payload.get("id")
        elif kind in ("content-start", "content-delta"):
            content = message.get("content") or {}
            if "text" in content:
                out.text[index] = out.text.get(index, "") + content["text"]
            if "thinking" in content:
                out.thinking[index] = out.thinking.get(index, "") + content["thinking"]
        elif kind == "tool-plan-delta":
            out.tool_plan = (out.tool_plan or "") + message.get("tool_plan", "")
        elif kind in ("tool-call-start", "tool-call-delta"):
            call = message.get("tool_calls") or {}
            function = call.get("function") or {}
            if kind == "tool-call-start":
                calls[index] = ToolCall(function.get("name"), call.get("id"), None, index)
                out.tool_calls.append(calls[index])
                arguments[index] = []
            arguments[index].append(function.get("arguments") or "")
        elif kind == "citation-start":
            out.citations.append(message["citations"])
        elif kind == "message-end":
            delta = payload.get("delta") or {}
            out.stop_reason = delta.get("finish_reason")
            if out.stop_reason is not None:
                out.finish_reason[0] = out.stop_reason
            out.usage = delta.get("usage")
            out.complete = True
    for index, call in calls.items():
        call.args = json.loads("".join(arguments[index]))
    return out
