"""Per-block state: one output block (a Messages content block, a Responses output item)
while a stream is accumulated.

:class:`BlockState` takes a block's identity from the object that opens it, appends its deltas,
and weighs them against the finished object when the stream sends one
(``snapshot_mismatch``); :meth:`BlockState.result` gives its
:class:`~.accumulate_results.BlockResult`. A block of a type the spec does not list is assembled
all the same, from what the wire says.

This module is ``src/ssegen/runtime/accumulate_blocks.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from .accumulate_parts import Parts, join_parts, plain, str_or_none
from .accumulate_results import BlockResult
from .json_values import is_array, is_object
from .partial_json import partial_json


class BlockState:
    """One output block being assembled (see :class:`BlockResult`); the generated
    apply functions append to its text fields (``block.text.append(...)``)."""

    __slots__ = (
        "index",
        "kind",
        "id",
        "call_id",
        "name",
        "status",
        "input",
        "text",
        "thinking",
        "signature",
        "refusal",
        "arguments",
        "texts",
        "deltas",
        "opened",
        "final",
    )

    def __init__(self, index: int) -> None:
        self.index = index
        self.kind: str | None = None
        self.id: str | None = None
        self.call_id: str | None = None
        self.name: str | None = None
        self.status: str | None = None
        self.input: Any = None
        self.text: list[str] = Parts()
        self.thinking: list[str] = Parts()
        self.signature: list[str] = Parts()
        self.refusal: list[str] = Parts()
        self.arguments: list[str] = Parts()
        self.texts: dict[str, list[str]] = {}
        self.deltas: list[Any] = []
        self.opened: Any = None
        self.final: Any = None

    def tool_call(self, id: Any, name: Any, arguments: Any) -> None:
        """A tool call sent whole into this block: opened as one (kind ``tool_call`` unless
        it has a kind), ``id`` and ``name`` when they are strings, ``arguments`` as JSON text
        (appended to ``arguments``) or an object (kept as ``input``)."""
        self.open({"type": "tool_call"} if self.kind is None else {})
        if isinstance(id, str):
            self.id = id
        if isinstance(name, str):
            self.name = name
        if isinstance(arguments, str):
            self.arguments.append(arguments)
        elif arguments is not None:
            self.input = plain(arguments)

    def open(self, block: Any, members: dict[str, Any] | None = None) -> None:
        """Take the block's identity from the object that opens it (Messages
        ``content_block``, Responses ``item``): its ``type``, ``id``, ``call_id``, ``name``,
        ``status``, ``input`` and any first ``text``, ``thinking`` or ``arguments``; the object
        is kept (``raw``). ``members`` (a plan's ``open`` with ``members``, by name, ``kind``
        for ``type``), each sent (not None), stand over the object's own as plain data."""
        data = plain(block)
        if not is_object(data):
            return
        self.opened = data
        if members:
            data = {**data, **_members(members)}
        self.kind = str_or_none(data.get("type")) or self.kind
        self.id = str_or_none(data.get("id")) or self.id
        self.call_id = str_or_none(data.get("call_id")) or self.call_id
        self.name = str_or_none(data.get("name")) or self.name
        self.status = str_or_none(data.get("status")) or self.status
        if "input" in data and not isinstance(data["input"], str):
            self.input = data["input"]
        elif is_object(data.get("arguments")) or is_array(data.get("arguments")):
            self.input = data["arguments"]
        for field in ("text", "thinking", "arguments"):
            value = data.get(field)
            if isinstance(value, str) and value:
                getattr(self, field).append(value)

    def close(self, block: Any = None) -> None:
        """The block is complete; ``block``, the finished object when the event carries
        one (Responses ``output_item.done``), is the truth: it fills what no delta gave,
        and where a delta said otherwise the result records a ``snapshot_mismatch``."""
        if block is not None:
            self.final = plain(block)

    def snapshot(self, block: Any) -> None:
        """A finished object of the block sent again at the end (Responses
        ``response.completed``'s ``output``): taken when no ``close`` gave one."""
        if self.final is None:
            self.close(block)

    def add_text(self, name: str, text: Any) -> None:
        """Append a delta's text to the field named for it: ``text``, ``thinking``,
        ``signature``, ``refusal``, ``arguments`` (``partial_json`` too), else to
        ``texts[name]``; a Responses delta names its item type first
        (``custom_tool_call_input`` of a ``custom_tool_call`` builds its ``input`` text,
        the result's ``input``)."""
        if not isinstance(text, str):
            return
        kind = self.kind
        if kind and name.startswith(kind + "_"):
            name = name[len(kind) + 1 :]
        name = _DELTA_FIELDS.get(name, name)
        if name in _BLOCK_TEXTS:
            getattr(self, name).append(text)
        else:
            parts = self.texts.get(name)
            if parts is None:
                parts = self.texts[name] = Parts()
            parts.append(text)

    def add_delta(self, delta: Any) -> None:
        """A delta object no ``append`` step takes (Messages ``compaction_delta``,
        ``citations_delta``, or one of a type the spec does not list), as sent or typed:
        each string member appended (:meth:`add_text`), else the delta kept as sent in
        ``deltas``; None (the member of a leniently decoded event that did not fit, which
        :meth:`Accumulator.lenient` assembles itself) adds nothing."""
        if delta is None:
            return
        delta = plain(delta)
        if not is_object(delta):
            self.deltas.append(delta)
            return
        texts = [(k, v) for k, v in delta.items() if k != "type" and isinstance(v, str)]
        if not texts:
            self.deltas.append(delta)
        for name, value in texts:
            self.add_text(name, value)

    def add_unlisted(self, name: str, value: Any) -> None:
        """A member ``name`` of one of the block's deltas that the spec does not list: a
        string is appended to the text of its name (:meth:`add_text`), any other value but
        null kept as sent in ``deltas`` (as ``{name: value}``)."""
        if isinstance(value, str):
            self.add_text(name, value)
        elif value is not None:
            self.deltas.append({name: value})

    def result(self, mismatches: list[dict[str, Any]] | None = None) -> BlockResult:
        """The assembled :class:`BlockResult`; where the deltas disagree with the
        finished object, one ``snapshot_mismatch`` per member is appended to
        ``mismatches`` and the finished object's value is taken."""
        final = self.final if is_object(self.final) else {}
        texts = {f: join_parts(getattr(self, f)) for f in _BLOCK_TEXTS}
        others = {name: join_parts(parts) for name, parts in self.texts.items()}
        ident, found = self._identity(final)
        found += _snapshot_texts(final, texts, others, ident["kind"])
        parsed, partial = _parsed_input(texts["arguments"], final, self.input)
        if ident["kind"] == "custom_tool_call" and "input" in others:
            parsed = others.pop("input")  # free-form text, kept as sent (no JSON)
        if mismatches is not None:
            mismatches.extend(
                {
                    "kind": "snapshot_mismatch",
                    "index": self.index,
                    "member": m,
                    "deltas": d,
                    "snapshot": f,
                }
                for m, d, f in found
            )
        return BlockResult(
            index=self.index,
            kind=ident["kind"],
            id=ident["id"],
            call_id=ident["call_id"],
            name=ident["name"],
            input=parsed,
            status=ident["status"],
            texts=others,
            deltas=list(self.deltas),
            input_partial=partial,
            raw=self.final if self.final is not None else self.opened,
            **{f: v or None for f, v in texts.items()},
        )

    def _identity(
        self, final: dict[str, Any]
    ) -> tuple[dict[str, str | None], list[tuple[str, Any, Any]]]:
        """The block's ``kind``, ``id``, ``call_id``, ``name`` and ``status``: the finished
        object's where it sends them (its ``type`` for the kind), else the deltas'; and
        each disagreement as ``(member, deltas, snapshot)`` (none for the status, which
        changes as an item finishes)."""
        ident: dict[str, str | None] = {}
        found: list[tuple[str, Any, Any]] = []
        for member in ("kind", "id", "call_id", "name", "status"):
            mine = getattr(self, member)
            sent = str_or_none(final.get("type" if member == "kind" else member))
            if mine and sent and mine != sent and member != "status":
                found.append((member, mine, sent))
            ident[member] = sent or mine
        return ident, found


def _members(members: dict[str, Any]) -> dict[str, Any]:
    """A plan's ``open`` members as :meth:`BlockState.open` reads them: each sent (not None), as
    plain data, ``kind`` as ``type``."""
    return {("type" if k == "kind" else k): plain(v) for k, v in members.items() if v is not None}


def _snapshot_texts(
    final: dict[str, Any], texts: dict[str, str], others: dict[str, str], kind: str | None
) -> list[tuple[str, Any, Any]]:
    """Take into ``texts`` (the block's own) and ``others`` (its named texts) what the
    finished object ``final`` sends of them (:func:`_fill`): its ``arguments``, the text of
    its ``content`` parts, its reasoning ``summary`` (only where no delta gave thinking),
    each named text, and a custom tool call's ``input`` text (only where no delta gave it;
    :meth:`BlockState.result` makes it the result's ``input``).
    Returns each disagreement with the deltas as ``(member, deltas, snapshot)``."""
    found: list[tuple[str, Any, Any]] = []
    if isinstance(final.get("arguments"), str):
        found += _fill(texts, "arguments", final["arguments"])
    content = final.get("content")
    if is_array(content):
        text = _content_text(content)
        if text is not None:
            found += _fill(texts, "text", text)
    if not texts["thinking"] and is_array(final.get("summary")):
        texts["thinking"] = _summary_text(final["summary"])
    for name in list(others):
        if isinstance(final.get(name), str):
            found += _fill(others, name, final[name])
    if kind == "custom_tool_call" and "input" not in others and isinstance(final.get("input"), str):
        others["input"] = final["input"]
    return found


def _content_text(content: list[Any]) -> str | None:
    """The text of a finished message's ``content`` parts: its ``output_text`` and
    ``text`` parts' texts joined; None when no part has a ``text`` (nothing to compare
    the deltas with)."""
    joined = "".join(
        p["text"]
        for p in content
        if is_object(p)
        and p.get("type") in ("output_text", "text")
        and isinstance(p.get("text"), str)
    )
    if joined or any(is_object(p) and "text" in p for p in content):
        return joined
    return None


def _summary_text(summary: list[Any]) -> str:
    """The text of a finished reasoning item's ``summary`` parts, joined."""
    return "".join(p["text"] for p in summary if is_object(p) and isinstance(p.get("text"), str))


def _parsed_input(arguments: str, final: dict[str, Any], opened: Any) -> tuple[Any, Any]:
    """A block's ``(input, input_partial)``: its ``arguments`` text parsed when it is
    valid JSON, else ``(None, the best-effort parse of its longest valid prefix)``
    (:func:`partial_json`); with no arguments text, the finished object's ``arguments``
    when an object or array, else ``opened`` (the input as the block was opened)."""
    if not arguments:
        sent = final.get("arguments")
        return (sent if (is_object(sent) or is_array(sent)) else opened), None
    try:
        return msgspec.json.decode(arguments), None
    except msgspec.DecodeError:
        return None, partial_json(arguments)


#: The text fields of a :class:`BlockState` a delta may append to.
_BLOCK_TEXTS = ("text", "thinking", "signature", "refusal", "arguments")

#: A delta member's name -> the block field it builds, where they differ.
_DELTA_FIELDS = {"partial_json": "arguments", "delta": "text"}


def _fill(texts: dict[str, str], name: str, sent: str) -> list[tuple[str, Any, Any]]:
    """Take the finished object's ``sent`` for ``texts[name]``: a disagreement with what
    the deltas gave is returned (as ``(member, deltas, snapshot)``), never silent."""
    mine = texts.get(name) or ""
    texts[name] = sent or mine
    if mine and sent != mine:
        return [(name, mine, sent)]
    return []


def snapshot_block(blocks: dict[int, BlockState], position: int, item: Any) -> BlockState:
    """The block a finished item sent at ``position`` of a response's ``output`` is the
    snapshot of: items are identified by id, so the block of the item's ``id``; else the
    block at ``position`` unless it holds an item of another id; else a new block after the
    last. (OpenRouter filters a reasoning item out upstream: the only item streamed has
    ``output_index`` 1, and ``response.completed`` lists it at 0.)"""
    ident = str_or_none(item.get("id") if is_object(item) else getattr(item, "id", None))
    if ident is not None:
        same = next((b for b in blocks.values() if b.id == ident), None)
        if same is not None:
            return same
    block = blocks.get(position)
    if block is not None and block.id is not None and ident is not None:
        return blocks[max(blocks) + 1]
    return blocks[position]


class Blocks(dict[int, BlockState]):
    """Output blocks by index; reading an index not seen yet creates its block (so that
    the generated apply functions read ``acc.blocks[index]`` at C speed)."""

    def __missing__(self, index: int) -> BlockState:
        state = self[index] = BlockState(index)
        return state
