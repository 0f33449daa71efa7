"""Encoding: typed events back to SSE bytes, and synthetic streams.

:class:`Encoding` writes a channel's events as the wire would (``Channel.encode``; an event
decodes back to itself), :func:`sse_frame` frames one event (WHATWG HTML 9.2.5), and
:class:`Synthesis` builds a whole stream a result would assemble from (the mock server's and
the conformance tests' streams).

This module is ``src/ssegen/runtime/encoding.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple, get_args

import msgspec

from .events import UnknownEvent
from .json_values import is_array, is_object, is_sequence
from .lenient import MSGSPEC, OFF_SPEC_WIRE, ModelLibrary, OffSpec
from .sse import sse_frame as sse_frame  # re-exported: it was defined here
from .usage import usage_as_sent

# --- Encoding: typed events back to SSE bytes ------------------------------------------

_POINTER_ESCAPES = (("~1", "/"), ("~0", "~"))


class Encoding:
    """What :meth:`Channel.encode` needs to know of a channel beyond its classes: generated
    from the spec into ``channels.py`` (``Channel(..., encoding=Encoding(...))``).

    Args:
        events: event class -> the SSE event type it travels under (the spec's
            ``Message.event``); a class not listed travels as ``message`` (no ``event:`` line).
        literals: class -> the literal data its events stand for (``[DONE]``).
        terminator: the event ending a stream (``models.StreamDone()``), or None when the
            spec declares none.
        examples: the channel's documented (and synthesized) examples, ``(SSE event type,
            data)`` in spec order, as the package's conformance tests replay them, but for
            those of its error messages: the events of a stream that succeeds (the default
            stream of :meth:`Channel.example_stream` and of the mock).
        error_examples: the examples of the channel's error messages (an ``event: error``
            frame, Ollama's ``{"error": ...}`` line), same shape: what the mock's ``error``
            fault sends.
        stated_text: where a stated plan puts the stream's text and how it ends
            (:class:`StatedText`), for ``example_stream(text=...)``; None for a channel of a
            known family, or whose plan has no ``append`` step to a stream text.
        streams: the channel's harvested example streams (``examples/<name>.sse``) by name,
            each its events as ``(SSE event type, data)``.
        library: the library of the message classes (``MSGSPEC``; ``PYDANTIC`` of
            ``pydantic_support`` for the pydantic flavour).
    """

    def __init__(
        self,
        events: dict[type, str] | None = None,
        literals: dict[type, str] | None = None,
        terminator: Any = None,
        examples: Sequence[tuple[str, str]] = (),
        error_examples: Sequence[tuple[str, str]] = (),
        stated_text: StatedText | None = None,
        streams: dict[str, Sequence[tuple[str, str]]] | None = None,
        library: ModelLibrary | None = None,
    ) -> None:
        self.events: dict[type, str] = events or {}
        self.literals: dict[type, str] = literals or {}
        self.terminator = terminator
        self.examples = tuple(examples)
        self.error_examples = tuple(error_examples)
        self.stated_text = stated_text
        self.streams: dict[str, tuple[tuple[str, str], ...]] = {
            name: tuple(events) for name, events in (streams or {}).items()
        }
        self.library = library or MSGSPEC
        self._plans: dict[Any, _Plan | None] = {}
        self._heads: dict[str, bytes] = {}

    def head(self, event: str) -> bytes:
        """The lines before ``data:`` of an event of type ``event``: ``event: <type>`` (none
        for ``message``), built once per type.

        Raises:
            ValueError: ``event`` holds CR, LF or NUL.
        """
        head = self._heads.get(event)
        if head is None:
            head = self._heads[event] = sse_frame("", event)[: -len(b"data: \n\n")]
        return head

    def data(self, event: Any) -> str:
        """:meth:`json` as text."""
        return self.json(event).decode("utf-8")

    def json(self, event: Any) -> bytes:
        """The JSON text (UTF-8) of a typed message: every member whose value is not its default
        (a required member has none: ``null`` included, Xerotier's ``finish_reason``), the
        members the server sent beside the typed ones of a kept usage object
        (:func:`usage_as_sent`), and each member of a leniently decoded event's ``off_spec``
        at its JSON pointer, as sent; a member that event's payload did not send
        (:attr:`.lenient.OffSpec.missing`) is left out, a required one too, so the event is
        written back as it came.

        A message none of whose classes may carry a usage object as sent (nested ones
        included) is encoded by msgspec directly, without a Python-level walk."""
        plan = self._plan(type(event))
        off = getattr(event, "off_spec", None)
        if off is None and self.library is MSGSPEC and (plan is None or plan.idle(event)):
            return msgspec.json.encode(event)
        out = self.library.plain(event)
        if is_object(out):
            out.pop(OFF_SPEC_WIRE, None)
            if plan is not None:
                self._complete(event, out, plan)
            if is_object(off):
                for pointer, value in off.items():
                    _set_pointer(out, pointer, value)
            for pointer in off.missing if isinstance(off, OffSpec) else ():
                _drop_pointer(out, pointer)
        return msgspec.json.encode(out)

    def _plan(self, cls: Any) -> _Plan | None:
        """What :meth:`_complete` visits of an instance of ``cls``: its members that may hold
        a class carrying a usage object as sent, and the wire names of its members when it
        carries one itself; None when nothing (``cls`` no message class). Built once per
        class (a class met again while its plan is built counts as nothing)."""
        if cls in self._plans:
            return self._plans[cls]
        self._plans[cls] = None
        if not self.library.is_class(cls):
            return None
        fields = self.library.fields(cls)
        rows: list[tuple[str, str]] = []
        for attr, wire, tp, _required in fields:
            if any(self._plan(c) is not None for c in self._classes(tp)):
                rows.append((attr, wire))
        wires = frozenset(w for _a, w, _t, _r in fields) if self.library.carries_sent(cls) else None
        plan = _Plan(tuple(rows), wires) if rows or wires is not None else None
        self._plans[cls] = plan
        return plan

    def _classes(self, tp: Any) -> Iterator[Any]:
        """The message classes a type annotation names (``list[Choice] | None`` -> Choice)."""
        if self.library.is_class(tp):
            yield tp
        for arg in get_args(tp):
            yield from self._classes(arg)

    def _complete(self, obj: Any, out: dict[str, Any], plan: _Plan) -> None:
        """Add to ``out`` (``obj`` as the library dumps it) what :meth:`json` promises: the
        members ``obj`` carries as sent beside its typed ones (a usage object:
        :func:`usage_as_sent`), and those of nested messages likewise
        (:meth:`_complete_nested`)."""
        for attr, wire in plan.rows:
            if wire in out:
                self._complete_nested(getattr(obj, attr, None), out[wire])
        if plan.wires is not None:
            sent = usage_as_sent(obj)
            if sent is not None:
                for key, value in sent.items():
                    if key not in plan.wires:
                        out[key] = value

    def _complete_nested(self, value: Any, dumped: Any) -> None:
        """:meth:`_complete` a member's ``value`` into its dump: a message, or each message
        of a list (item by item); other values are left as dumped."""
        if is_object(dumped):
            inner = self._plan(type(value))
            if inner is not None:
                self._complete(value, dumped, inner)
        elif is_array(dumped) and is_sequence(value):
            for item, item_out in zip(value, dumped, strict=False):
                inner = self._plan(type(item))
                if inner is not None and is_object(item_out):
                    self._complete(item, item_out, inner)


class _Plan(NamedTuple):
    """What :meth:`Encoding._complete` does for one class."""

    #: ``(attribute, wire name)`` of each member that may hold a class to visit.
    rows: tuple[tuple[str, str], ...]
    #: the wire names of the class's members, when it may carry a usage object as sent; else None.
    wires: frozenset[str] | None

    def idle(self, obj: Any) -> bool:
        """True when visiting ``obj`` would change nothing: nothing sent kept on it, and
        every member to visit is None (a chunk without ``usage``)."""
        return self.wires is None and all(getattr(obj, attr, None) is None for attr, _ in self.rows)


def _set_pointer(out: Any, pointer: str, value: Any) -> None:
    """Set the member at JSON pointer ``pointer`` (RFC 6901) of ``out`` to ``value``,
    creating the objects on the way; a pointer through a scalar or past a list's end is
    skipped (what lenient decoding recorded always leads somewhere)."""
    parts = pointer.split("/")[1:]
    if not parts:
        return
    for index, part in enumerate(parts):
        for escaped, plain_char in _POINTER_ESCAPES:
            part = part.replace(escaped, plain_char)
        last = index == len(parts) - 1
        if is_array(out):
            if not part.isdigit() or int(part) >= len(out):
                return
            if last:
                out[int(part)] = value
                return
            out = out[int(part)]
        elif is_object(out):
            if last:
                out[part] = value
                return
            out = out.setdefault(part, {})
        else:
            return


def _drop_pointer(out: Any, pointer: str) -> None:
    """Remove the member at JSON pointer ``pointer`` (RFC 6901) of ``out`` when it is there,
    creating nothing: a member a lenient payload did not send (``lenient.OffSpec.missing``)."""
    parts = pointer.split("/")[1:]
    for escaped, plain_char in _POINTER_ESCAPES:
        parts = [part.replace(escaped, plain_char) for part in parts]
    for part in parts[:-1]:
        if is_array(out) and part.isdigit() and int(part) < len(out):
            out = out[int(part)]
        elif is_object(out) and part in out:
            out = out[part]
        else:
            return
    if parts and is_object(out):
        out.pop(parts[-1], None)


_WORDS = re.compile(r"\s*\S+|\s+$")


def split_deltas(text: str) -> list[str]:
    """``text`` cut at word starts, each piece keeping the spaces before its word
    (``"Hello big world"`` -> ``["Hello", " big", " world"]``), as LLM servers stream
    tokens; ``"".join`` of the pieces is ``text``. An empty text gives ``[]``."""
    return _WORDS.findall(text)


class StatedText(NamedTuple):
    """Where a channel's stated plan (``x-ssegen-accumulate``, docs/accumulation.md) puts a
    stream's text and how it ends, for :meth:`Synthesis.stated`: member paths from the
    payload's root, as the wire names them (specs/ollama/api.yaml: ``message.content``,
    ``done_reason``).

    Attributes:
        text: the path of the plan's ``append`` step to a stream text (no key, no ``[*]``).
        stop: the path of its ``stop`` step (the stop reason), or ``()``.
        complete: the path of its ``complete`` step (the stream is complete once it is
            present), or ``()``.
    """

    text: tuple[str, ...]
    stop: tuple[str, ...] = ()
    complete: tuple[str, ...] = ()


class Synthesis:
    """Streams built from a channel's example payloads (plain JSON objects, in spec order),
    for :meth:`Channel.example_stream`: each event is written as the examples write theirs,
    with the text changed, and decoded by the channel, so it is typed and decodes again alike.

    Args:
        examples: ``(SSE event type, payload)`` of each JSON example object.
        parse: the channel's :meth:`Channel.parse`.
        model: replaces the examples' ``model`` member (top level or ``message``/``response``).
    """

    def __init__(
        self,
        examples: Sequence[tuple[str, dict[str, Any]]],
        parse: Callable[[str, str], Any],
        model: str | None = None,
    ) -> None:
        self.examples = examples
        self.parse = parse
        self.model = model

    def _example(self, what: str, test: Callable[[dict[str, Any]], bool]) -> tuple[str, Any]:
        for event, payload in self.examples:
            if test(payload):
                return event, msgspec.json.decode(msgspec.json.encode(payload))  # a deep copy
        raise ValueError(f"the channel's examples hold no {what} to build the stream from")

    def _tagged(self, tag: str, inner: str = "", inner_tag: str = "") -> tuple[str, Any]:
        def test(payload: dict[str, Any]) -> bool:
            if payload.get("type") != tag:
                return False
            return not inner or (
                is_object(payload.get(inner)) and payload[inner].get("type") == inner_tag
            )

        return self._example(
            f"{tag!r} event" + (f" with a {inner_tag!r} {inner}" if inner else ""), test
        )

    def _typed(self, frames: list[tuple[str, dict[str, Any]]]) -> list[Any]:
        events: list[Any] = []
        for event, payload in frames:
            if self.model is not None:
                for holder in (payload, payload.get("message"), payload.get("response")):
                    if is_object(holder) and "model" in holder:
                        holder["model"] = self.model
            typed = self.parse(msgspec.json.encode(payload).decode("utf-8"), event)
            if isinstance(typed, UnknownEvent):
                raise ValueError(f"a synthesized event does not decode: {typed.reason}")
            events.append(typed)
        return events

    def chat(self, text: str, finish_reason: str) -> list[Any]:
        """Chat chunks: the deltas (the first with ``role``; a member every example delta
        has is on each, ``null`` unless it is ``role`` or ``content``), then a chunk with
        ``finish_reason`` and the examples' ``usage`` (when one carries it)."""

        def chunky(payload: dict[str, Any]) -> bool:
            choices = payload.get("choices")
            if not is_array(choices) or not choices or not is_object(choices[0]):
                return False
            first: dict[str, Any] = choices[0]
            return is_object(first.get("delta")) or isinstance(first.get("text"), str)

        event, template = self._example("chunk with choices", chunky)
        choice = template.pop("choices")[0]
        template.pop("usage", None)
        legacy = "delta" not in choice  # the completions shape: choices[].text
        usage = next((p["usage"] for _e, p in self.examples if is_object(p.get("usage"))), None)
        pieces = split_deltas(text) or [""]
        deltas: list[dict[str, Any]] = []
        for _event, payload in self.examples:
            listed = payload.get("choices")
            for item in listed if is_array(listed) else ():
                if is_object(item) and is_object(item.get("delta")):
                    deltas.append(item["delta"])
        # Members every example delta has (some servers repeat ``role`` and send ``content``
        # on every delta, the spec requiring them) are on every synthesized delta too.
        every: set[str] = set[str].intersection(*(set(d) for d in deltas)) if deltas else set()
        role = next((d["role"] for d in deltas if isinstance(d.get("role"), str)), "assistant")

        def chunk(piece: str | None, first: bool, finish: str | None) -> dict[str, Any]:
            part = dict(choice, index=0, finish_reason=finish)
            if legacy:
                part["text"] = piece or ""
            else:
                delta: dict[str, Any] = {name: None for name in sorted(every)}
                if first or "role" in every:
                    delta["role"] = role
                if piece is not None or "content" in every:
                    delta["content"] = piece or ""
                part["delta"] = delta
            return dict(template, choices=[part])

        frames = [(event, chunk(piece, i == 0, None)) for i, piece in enumerate(pieces)]
        last = chunk(None, False, finish_reason)
        if usage is not None:
            last["usage"] = _counted(usage, "prompt_tokens", "completion_tokens", len(pieces))
        frames.append((event, last))
        return self._typed(frames)

    def messages(self, text: str, finish_reason: str) -> list[Any]:
        """Anthropic Messages events around one text block (see :meth:`Channel.example_stream`)."""
        pieces = split_deltas(text)
        start = self._tagged("message_start")
        block = self._tagged("content_block_start", "content_block", "text")
        delta = self._tagged("content_block_delta", "delta", "text_delta")
        stop = self._tagged("content_block_stop")
        end = self._tagged("message_delta")
        done = self._tagged("message_stop")
        message = start[1].get("message")
        if is_object(message):
            message["content"] = []
            message["stop_reason"] = None
        block[1]["index"] = stop[1]["index"] = 0
        block[1]["content_block"]["text"] = ""
        frames = [start, block]
        for piece in pieces:
            event, payload = delta[0], dict(delta[1], index=0)
            payload["delta"] = dict(payload["delta"], text=piece)
            frames.append((event, payload))
        if is_object(end[1].get("delta")):
            end[1]["delta"]["stop_reason"] = (
                "end_turn" if finish_reason == "stop" else finish_reason
            )
        if is_object(end[1].get("usage")) and "output_tokens" in end[1]["usage"]:
            end[1]["usage"]["output_tokens"] = len(pieces)
        return self._typed([*frames, stop, end, done])

    def responses(self, text: str) -> list[Any]:
        """OpenAI Responses events around one message item (see :meth:`Channel.example_stream`)."""
        pieces = split_deltas(text)
        created = self._tagged("response.created")
        added = self._tagged("response.output_item.added", "item", "message")
        delta = self._tagged("response.output_text.delta")
        text_done = self._tagged("response.output_text.done")
        item_done = self._tagged("response.output_item.done", "item", "message")
        completed = self._tagged("response.completed")
        item_id = added[1]["item"].get("id")
        where = {"item_id": item_id, "output_index": 0, "content_index": 0}
        added[1]["output_index"] = item_done[1]["output_index"] = 0
        item = item_done[1]["item"]
        content = item.get("content")
        parts = [p for p in content if is_object(p)] if is_array(content) else []
        part = dict(parts[0] if parts else {"type": "output_text", "annotations": []}, text=text)
        opened, closed = self._part_events(where, part)
        frames = [created, added, *opened]
        for piece in pieces:
            frames.append((delta[0], dict(delta[1], delta=piece, **where)))
        frames.append((text_done[0], dict(text_done[1], text=text, **where)))
        frames += closed
        item.update(id=item_id, content=[part])
        frames.append(item_done)
        response = completed[1].get("response")
        if is_object(response):
            response["output"] = [item]
            usage = response.get("usage")
            if is_object(usage):
                response["usage"] = _counted(usage, "input_tokens", "output_tokens", len(pieces))
        frames.append(completed)
        _one_response(frames)
        for number, (_event, payload) in enumerate(frames):
            if "sequence_number" in payload:
                payload["sequence_number"] = number
        return self._typed(frames)

    def _part_events(
        self, where: dict[str, Any], part: dict[str, Any]
    ) -> tuple[list[tuple[str, Any]], list[tuple[str, Any]]]:
        """The ``response.content_part.added`` (its part's text empty) and
        ``response.content_part.done`` (the whole ``part``) framing a text at ``where``, as
        OpenAI sends them and the openai SDK's ``responses.stream()`` expects (it indexes the
        part the ``.added`` opened); none when the examples lack either event."""
        try:
            added = self._tagged("response.content_part.added")
            done = self._tagged("response.content_part.done")
        except ValueError:
            return [], []
        opened = (added[0], dict(added[1], part=dict(part, text=""), **where))
        return [opened], [(done[0], dict(done[1], part=part, **where))]

    def gemini(self, text: str, finish_reason: str) -> list[Any]:
        """Gemini ``GenerateContentResponse`` chunks: one per delta, its text the one part of
        candidate 0 (``candidates[0].content.parts[0].text``); the last with ``finishReason``
        (``STOP`` for ``stop``, ``MAX_TOKENS`` for ``length``, else upper-cased) and the
        examples' ``usageMetadata``, ``candidatesTokenCount`` the number of deltas. Gemini
        sends no terminator (ai.google.dev/api/generate-content#v1beta.GenerateContentResponse).
        """

        def answering(payload: dict[str, Any]) -> bool:
            candidates = payload.get("candidates")
            return is_array(candidates) and bool(candidates) and "content" in candidates[0]

        event, template = self._example("response with a candidate's content", answering)
        for name in ("candidates", "usageMetadata", "promptFeedback"):
            template.pop(name, None)
        if self.model is not None and "modelVersion" in template:
            template["modelVersion"] = self.model
        usage = next(
            (p["usageMetadata"] for _e, p in self.examples if is_object(p.get("usageMetadata"))),
            None,
        )
        pieces = split_deltas(text) or [""]
        frames: list[tuple[str, dict[str, Any]]] = []
        for number, piece in enumerate(pieces, 1):
            candidate: dict[str, Any] = {"content": {"role": "model", "parts": [{"text": piece}]}}
            payload = dict(template, candidates=[dict(candidate, index=0)])
            if number == len(pieces):
                reason = {"stop": "STOP", "length": "MAX_TOKENS"}.get(finish_reason)
                payload["candidates"][0]["finishReason"] = reason or finish_reason.upper()
                if usage is not None:
                    payload["usageMetadata"] = _counted(
                        usage,
                        "promptTokenCount",
                        "candidatesTokenCount",
                        len(pieces),
                        "totalTokenCount",
                    )
            frames.append((event, payload))
        return self._typed(frames)

    def cohere(self, text: str, finish_reason: str) -> list[Any]:
        """Cohere v2 chat events around one text content block: ``message-start``,
        ``content-start``, a ``content-delta`` per delta, ``content-end``, ``message-end``
        (``finish_reason`` ``COMPLETE`` for ``stop``, ``MAX_TOKENS`` for ``length``, else
        upper-cased; each ``output_tokens`` of its usage the number of deltas)
        (docs.cohere.com/reference/chat-stream)."""
        pieces = split_deltas(text)
        start = self._tagged("message-start")
        block = self._example("'content-start' event of a text", _cohere_text("content-start"))
        delta = self._example("'content-delta' event of a text", _cohere_text("content-delta"))
        stop = self._tagged("content-end")
        end = self._tagged("message-end")
        block[1]["index"] = stop[1]["index"] = 0
        block[1]["delta"]["message"]["content"]["text"] = ""
        frames = [start, block]
        for piece in pieces:
            payload = msgspec.json.decode(msgspec.json.encode(delta[1]))
            payload["index"] = 0
            payload["delta"]["message"]["content"]["text"] = piece
            frames.append((delta[0], payload))
        closing = end[1].get("delta")
        if is_object(closing):
            reason = {"stop": "COMPLETE", "length": "MAX_TOKENS"}.get(finish_reason)
            closing["finish_reason"] = reason or finish_reason.upper()
            usage = closing.get("usage")
            for counts in usage.values() if is_object(usage) else ():
                if is_object(counts) and isinstance(counts.get("output_tokens"), int):
                    counts["output_tokens"] = len(pieces)
        return self._typed([*frames, stop, end])

    def stated(self, text: str, finish_reason: str, plan: StatedText) -> list[Any]:
        """Events of a channel assembled by a stated plan (Ollama's NDJSON lines): one per
        delta, written as the first example holding the text at ``plan.text`` (its stop and
        completion members removed), then a last one written as the first example holding
        the stop reason or completion member (else the same), its text empty and
        ``finish_reason`` at ``plan.stop`` (and at ``plan.complete``, when it is absent).

        Raises:
            ValueError: the plan names no ``stop`` nor ``complete`` path (a synthesized
                stream could not end), or the examples hold no payload with the text.
        """
        ending = plan.stop or plan.complete
        if not ending:
            raise ValueError(
                "the channel's stated plan has no `stop` nor `complete` step on the message"
                f" of its text ({'.'.join(plan.text)}): a synthesized stream could not end"
            )
        where = ".".join(plan.text)
        event, template = self._example(
            f"payload with {where}", lambda p: _at(p, plan.text) is not None
        )
        for path in (plan.stop, plan.complete):
            if path:
                _put(template, path, None)
        try:
            last_event, last = self._example(
                f"payload with {where} and {'.'.join(ending)}",
                lambda p: _at(p, ending) is not None and _at(p, plan.text) is not None,
            )
        except ValueError:  # no example of the last line: the deltas' template ends it
            last_event, last = event, template
        frames: list[tuple[str, dict[str, Any]]] = []
        for piece in split_deltas(text):
            payload = msgspec.json.decode(msgspec.json.encode(template))
            _put(payload, plan.text, piece)
            frames.append((event, payload))
        last = msgspec.json.decode(msgspec.json.encode(last))
        _put(last, plan.text, "")
        for path in (plan.stop, plan.complete):
            if path and (path == plan.stop or _at(last, path) is None):
                _put(last, path, finish_reason)
        frames.append((last_event, last))
        return self._typed(frames)


def _at(payload: Any, path: tuple[str, ...]) -> Any:
    """The member at ``path`` of ``payload`` (plain JSON), or None where the path stops."""
    for name in path:
        payload = payload.get(name) if is_object(payload) else None
    return payload


def _put(payload: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set the member at ``path`` of ``payload`` to ``value``, making the objects on the way;
    None removes it."""
    for name in path[:-1]:
        inner = payload.get(name)
        if not is_object(inner):
            inner = payload[name] = {}
        payload = inner
    if value is None:
        payload.pop(path[-1], None)
    else:
        payload[path[-1]] = value


def _cohere_text(tag: str) -> Callable[[dict[str, Any]], bool]:
    """A test of a Cohere v2 event ``tag`` whose ``delta.message.content`` is a text's."""

    def test(payload: dict[str, Any]) -> bool:
        delta = payload.get("delta")
        message = delta.get("message") if is_object(delta) else None
        content = message.get("content") if is_object(message) else None
        return payload.get("type") == tag and is_object(content) and "text" in content

    return test


def _one_response(frames: list[tuple[str, Any]]) -> None:
    """Give every lifecycle event of a Responses stream the ``response.id`` of its first
    (the spec's examples of ``response.created`` and ``response.completed`` name two
    responses; one stream is one response, and the openai SDK refuses a change)."""
    responses = [p["response"] for _e, p in frames if is_object(p.get("response"))]
    for response in responses[1:]:
        if "id" in responses[0] and "id" in response:
            response["id"] = responses[0]["id"]


def _counted(
    usage: dict[str, Any], prompt: str, completion: str, count: int, total: str = "total_tokens"
) -> dict[str, Any]:
    """``usage`` with ``completion`` set to ``count`` and ``total`` to the sum, where the
    usage object has them as numbers."""
    usage = dict(usage)
    if isinstance(usage.get(completion), int):
        usage[completion] = count
        if isinstance(usage.get(prompt), int) and isinstance(usage.get(total), int):
            usage[total] = usage[prompt] + count
    return usage
