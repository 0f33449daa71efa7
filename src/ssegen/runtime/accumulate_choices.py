"""Per-choice state: one chat choice's texts and tool calls while a stream is accumulated.

:class:`ChoiceState` holds a choice's deltas concatenated in stream order
(specs/deepseek/asyncapi-page.txt:16) and its tool calls built from fragments by ``index``
(specs/mistral/asyncapi-page.txt:561-584), or sent whole (Gemini's ``functionCall``, Vertex AI's
``partialArgs``); :meth:`ChoiceState.result` gives its :class:`~.accumulate_results.ChoiceResult`.

This module is ``src/ssegen/runtime/accumulate_choices.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable
from typing import Any

import msgspec

from .accumulate_parts import LastText, Parts, join_parts, plain, str_or_none
from .accumulate_results import ChoiceResult, ToolCallResult
from .json_values import is_array, is_object, is_sequence


class _ToolCallState:
    __slots__ = ("index", "id", "type", "name", "arguments", "value", "owned", "continuing")

    def __init__(self, index: int) -> None:
        self.index = index
        self.id: str | None = None
        self.type: str | None = None
        self.name: str | None = None
        self.arguments: list[str] = Parts()
        #: arguments sent as an object (Gemini ``args``, built by ``partialArgs``), else None
        self.value: Any = None
        #: whether ``value`` is this state's own copy (an event's ``args`` is copied before
        #: ``partialArgs`` write into it: the events a caller holds are never changed)
        self.owned = False
        #: the JSON paths whose last string piece said ``willContinue``
        self.continuing: set[str] = set()

    def text(self) -> str:
        """The arguments as JSON text: the fragments joined, or the object encoded."""
        if self.value is not None:
            return msgspec.json.encode(self.value).decode()
        return join_parts(self.arguments)


#: One step of a JSON path as Vertex AI's ``partialArgs`` write it: ``.name``, ``[0]``, ``['a b']``.
_JSON_PATH_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)|\[([0-9]+)\]|\['([^']*)'\]")


def _json_path(text: Any) -> list[str | int] | None:
    """The member names and indices of a JSON path (``$.operations[0].price``, RFC 9535's
    normalized form), or None for a path of another form."""
    if not isinstance(text, str) or not text.startswith("$"):
        return None
    steps: list[str | int] = []
    at = 1
    while at < len(text):
        match = _JSON_PATH_STEP.match(text, at)
        if match is None:
            return None
        name, index, quoted = match.groups()
        steps.append(int(index) if index is not None else name if name is not None else quoted)
        at = match.end()
    return steps or None


def _put(root: Any, steps: list[str | int], value: Any, append: bool) -> None:
    """Set ``value`` at ``steps`` below ``root`` (objects and arrays made on the way; an
    array grown with nulls up to the index); with ``append``, a string is added to the
    string already there. A step that does not fit what is there sets nothing."""
    node = root
    for step, after in zip(steps, steps[1:], strict=False):
        fresh: Any = [] if isinstance(after, int) else {}
        if isinstance(step, int) and is_array(node):
            node.extend([None] * (step + 1 - len(node)))
            if node[step] is None:
                node[step] = fresh
            node = node[step]
        elif isinstance(step, str) and is_object(node):
            node = node.setdefault(step, fresh)
        else:
            return
    last = steps[-1]
    if isinstance(last, int) and is_array(node):
        node.extend([None] * (last + 1 - len(node)))
        node[last] = _joined(node[last], value, append)
    elif isinstance(last, str) and is_object(node):
        node[last] = _joined(node.get(last), value, append)


def _joined(old: Any, value: Any, append: bool) -> Any:
    return old + value if append and isinstance(old, str) and isinstance(value, str) else value


_TEXT_FIELDS = ("content", "reasoning_content", "refusal")


class ChoiceState:
    """Mutable per-choice state while a stream is accumulated (see :class:`Accumulator`).

    Attributes:
        content, reasoning_content, refusal: the parts of each text, in stream
            order; append a delta to its list (as :meth:`add_text` does). In
            cumulative mode (``full_text=True``) appending replaces.
    """

    __slots__ = (
        "index",
        "full_text",
        "content",
        "reasoning_content",
        "refusal",
        "finish_reason",
        "tool_calls",
        "content_parts",
        "texts",
        "lists",
    )

    def __init__(self, index: int, full_text: bool) -> None:
        self.index = index
        self.full_text = full_text
        parts = LastText if full_text else Parts
        self.content: list[str] = parts()
        self.reasoning_content: list[str] = parts()
        self.refusal: list[str] = parts()
        self.finish_reason: str | None = None
        self.tool_calls: dict[int, _ToolCallState] = {}
        self.content_parts: list[Any] = []
        self.texts: dict[str, list[str]] = {}
        self.lists: dict[str, list[Any]] = {}

    def add_unlisted(self, name: str, value: Any) -> None:
        """A member ``name`` of the choice's delta that the spec does not list (OpenRouter,
        vLLM and Groq send ``reasoning``; OpenRouter ``reasoning_details``): a string is
        appended to the named text ``texts[name]`` (:meth:`add_text`: ``content``,
        ``reasoning_content`` and ``refusal`` to their own), any other value but null kept
        as sent in ``lists[name]``, in stream order."""
        if isinstance(value, str):
            self.add_text(name, value)
        elif value is not None:
            self.lists.setdefault(name, []).append(value)

    def add_text(self, field: str, text: str | None) -> None:
        """Append ``text`` to ``field`` (``content``, ``reasoning_content``, ``refusal``).

        In cumulative mode (``full_text=True``: every chunk carries the whole
        text so far, as MindIE's ``fullTextEnabled``:
        specs/siliconstorm/inference-api.md:704-723), the text replaces instead.
        A ``field`` of another name is a named text (``texts``, a plan's own field).
        """
        if field in _TEXT_FIELDS:
            parts: list[str | None] = getattr(self, field)  # None: see accumulate_parts.join_parts
            parts.append(text)
        elif text is not None:
            named = self.texts.get(field)
            if named is None:
                named = self.texts[field] = Parts()
            named.append(text)

    def add_content(self, content: Any) -> None:
        """Append a delta's ``content``: a string, or a list of typed parts.

        Mistral's reasoning models send parts (``[{"type": "thinking", "thinking":
        [{"type": "text", "text": "..."}]}]``, then ``[{"type": "text", "text":
        "2 + 2 = 4"}]``): ``text`` parts are appended to ``content``, ``thinking``
        parts (their ``text`` parts, or a string) to ``reasoning_content``, and any
        other part is kept as sent in ``content_parts``. Parts may be plain dicts or
        typed objects (read through their wire names); None is ignored.
        """
        if isinstance(content, str):
            self.content.append(content)
        elif is_sequence(content):
            self._add_parts(content, self.content)

    def _add_parts(self, parts: Iterable[Any], texts: list[str]) -> None:
        for part in parts:
            data = plain(part)
            kind = data.get("type") if is_object(data) else None
            if kind == "text" and isinstance(data.get("text"), str):
                texts.append(data["text"])
            elif kind == "thinking" and isinstance(data.get("thinking"), str):
                self.reasoning_content.append(data["thinking"])
            elif kind == "thinking" and is_array(data.get("thinking")):
                self._add_parts(data["thinking"], self.reasoning_content)
            elif isinstance(part, str):
                texts.append(part)
            else:
                self.content_parts.append(data)

    def add_tool_call(
        self,
        index: int | None,
        id: str | None,
        type: str | None,
        name: str | None,
        arguments: str | None,
        position: int = 0,
    ) -> None:
        """Merge one tool-call fragment into the call at ``index``.

        id, type and name are kept from the first fragment that has them, arguments are
        concatenated in stream order (specs/mistral/asyncapi-page.txt:565-584: ``index``
        names the call, ``id`` and ``name`` come on its first delta, ``arguments`` in
        fragments).

        A fragment without an index continues the most recent call (or starts call 0),
        unless it starts a new one, after the last (:meth:`_unindexed`): it brings an ``id``
        other than the call's, or a ``name`` other than the call's with no id, or it is not
        the first element of its delta's ``tool_calls`` (``position``, 0-based; Mistral
        sends two whole calls in one delta without ``index``). A fragment repeating the
        call's id and name (Novita, on a later fragment of one call) continues it.
        """
        if index is None:
            index = self._unindexed(id, name, position)
        call = self.tool_calls.get(index)
        if call is None:
            call = self.tool_calls[index] = _ToolCallState(index)
        if id is not None and call.id is None:
            call.id = id
        if type is not None and call.type is None:
            call.type = type
        if name is not None:
            call.name = name if call.name is None else call.name
        if arguments:
            call.arguments.append(arguments)

    def _unindexed(self, id: str | None, name: str | None, position: int) -> int:
        """The index of the call a fragment without ``index`` belongs to (see
        :meth:`add_tool_call`): the last call's, or the next one when it starts a call."""
        calls = self.tool_calls
        if not calls:
            return 0
        last = max(calls)
        call = calls[last]
        if position:
            return last + 1
        if id and call.id:
            return last if id == call.id else last + 1
        if name and call.name and not id and name != call.name:
            return last + 1
        return last

    def add_call(
        self,
        id: str | None,
        name: str | None,
        arguments: Any,
        partial: Any = None,
        continued: bool = False,
    ) -> None:
        """One tool call sent whole, or in parts (a plan's ``tool_call``: Gemini's
        ``functionCall``): a new call of ``name`` and ``id`` whose ``arguments`` are an
        object (kept as plain data; None: ``{}``) or JSON text, unless ``continued`` (the
        part names no function: Vertex AI streams a call's arguments over several parts),
        which continues the last call. ``partial`` is a list of pieces ``{"jsonPath": str,
        "stringValue" | "numberValue" | "boolValue" | "nullValue": ..., "willContinue":
        bool}`` (Vertex AI ``partialArgs``) setting the value at each JSON path in the
        arguments; string pieces at one path are joined while the previous one said
        ``willContinue`` (cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content).
        """
        calls = self.tool_calls
        if continued and calls:
            call = calls[max(calls)]
        else:
            index = len(calls)
            call = calls[index] = _ToolCallState(index)
            call.id, call.type, call.name = id, "function", name
            if isinstance(arguments, str):
                call.arguments.append(arguments)
            else:
                call.value = {} if arguments is None else plain(arguments)
        pieces = plain(partial) if partial is not None else None
        if not is_array(pieces):
            return
        if not call.owned:
            call.value = {} if call.value is None else copy.deepcopy(call.value)
            call.owned = True
        for piece in pieces:
            steps = _json_path(piece.get("jsonPath")) if is_object(piece) else None
            if steps is None:
                continue
            path = piece["jsonPath"]
            value = next(
                (piece[k] for k in ("stringValue", "numberValue", "boolValue") if k in piece), None
            )
            _put(call.value, steps, value, path in call.continuing)
            if piece.get("willContinue"):
                call.continuing.add(path)
            else:
                call.continuing.discard(path)

    def add_tool_calls_data(self, fragments: Iterable[Any]) -> None:
        """Merge tool-call fragments given as plain JSON data (an untyped spec
        item), in stream order.

        Each fragment is read as :meth:`add_tool_call` takes it, from
        ``{"index": int, "id": str, "type": str, "function": {"name": str,
        "arguments": str}}`` with any member missing or of another type taken
        as None, its place in ``fragments`` as ``position``; a fragment that is not an
        object is skipped.
        """
        calls = self.tool_calls
        for position, fragment in enumerate(fragments):
            if not is_object(fragment):
                continue
            index = fragment.get("index")
            call = calls.get(index) if type(index) is int else None
            if call is None or call.name is None or call.id is None or call.type is None:
                function = fragment.get("function")
                if not is_object(function):
                    function = {}
                self.add_tool_call(
                    index if isinstance(index, int) and not isinstance(index, bool) else None,
                    str_or_none(fragment.get("id")),
                    str_or_none(fragment.get("type")),
                    str_or_none(function.get("name")),
                    str_or_none(function.get("arguments")),
                    position,
                )
                continue
            # A call already named: only its arguments grow (the hot path).
            function = fragment.get("function")
            if is_object(function):
                arguments = function.get("arguments")
                if arguments and isinstance(arguments, str):
                    call.arguments.append(arguments)

    def result(self) -> ChoiceResult:
        """The assembled :class:`ChoiceResult`."""
        return ChoiceResult(
            index=self.index,
            content=join_parts(self.content) if self.content else None,
            reasoning_content=(
                join_parts(self.reasoning_content) if self.reasoning_content else None
            ),
            refusal=join_parts(self.refusal) if self.refusal else None,
            tool_calls=[
                ToolCallResult(
                    index=c.index,
                    id=c.id,
                    type=c.type,
                    function={"name": c.name, "arguments": c.text()},
                )
                for _, c in sorted(self.tool_calls.items())
            ],
            finish_reason=self.finish_reason,
            content_parts=list(self.content_parts),
            texts={name: join_parts(parts) for name, parts in self.texts.items()},
            lists={name: list(values) for name, values in self.lists.items()},
        )
