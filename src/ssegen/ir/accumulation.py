"""A channel's accumulation plan as data: the steps each message's events take to assemble one
result (:class:`Accumulation`, :class:`AccumulateStep`), and the path resolver the plans are
checked and compiled with (:func:`resolve_path`).  Recognized or read by
:mod:`ssegen.normalize.accumulation`, compiled by :mod:`ssegen.codemodel`."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Literal

from .provenance import Provenance
from .schema import Schema

#: What one accumulation step does (:class:`AccumulateStep`); the one list of actions
#: (:data:`ACCUMULATE_ACTIONS` is its tuple form, read by the loaders and the runtime table).
AccumulateAction = Literal[
    "meta",
    "open",
    "append",
    "collect",
    "delta",
    "tool_call",
    "tool_calls",
    "close",
    "snapshot",
    "stop",
    "usage",
    "done",
    "complete",
    "error",
    "final_text",
]
ACCUMULATE_ACTIONS: tuple[AccumulateAction, ...] = AccumulateAction.__args__  # type: ignore[attr-defined]

#: One segment of a plan path: a member name, or ``*`` (every element of an array,
#: written ``[*]`` after the member: ``choices[*].delta.content``).
EACH = "*"

#: Where a plan's keyed steps assemble: ``output`` (blocks: Messages content blocks,
#: Responses output items, stated plans) or ``choices`` (chat choices, Gemini candidates).
AccumulateResult = Literal["output", "choices"]

#: ``when`` tests (:attr:`AccumulateStep.when`): ``("eq", value)``, ``("not", value)``,
#: ``("present", True|False)``.
WhenTest = tuple[Literal["eq", "not", "present"], Any]


@dataclass(frozen=True)
class AccumulateStep:
    """One thing an event of a message does to the assembled result (see
    :mod:`ssegen.normalize.accumulation` and docs/accumulation.md).

    Paths are tuples of member names from the payload's root; :data:`EACH` (``*``) stands
    for every element of the array before it. A step whose paths go through arrays runs
    once per element of their common ``[*]`` prefix (``choices[*]``: once per choice);
    ``key`` read at that element gives the block or choice (a missing key: the element's
    position in its array).

    Attributes:
        action: ``meta`` (``value`` the id, ``extra`` the model), ``open`` (open the block
            at ``key`` from the object at ``value``, ``members`` naming where its id, name,
            arguments, kind are; in a ``choices`` plan, make the choice at ``key``, one with
            nothing sent yet included), ``append`` (append the text at ``value`` to ``field`` of
            the block or choice at ``key``; with no ``key``, to the stream's text ``field``),
            ``collect`` (the value as sent, appended to the list ``field``: of the stream
            with no ``key``, else the choice's ``content_parts`` / the block's ``deltas``),
            ``delta`` (an object delta, added to the block as sent), ``tool_call`` (the
            object at ``value`` is one whole tool call: ``members`` name its ``name``,
            ``arguments``, ``id``), ``tool_calls`` (the list at ``value`` holds
            chat-completions tool-call fragments, merged by their ``index``), ``close``
            (the block is complete), ``snapshot`` (the list of finished blocks),
            ``stop`` (the stop reason at ``value``: the stream's, or with ``key`` the
            choice's ``finish_reason``), ``usage`` (the usage object at ``value``, or the
            object of its ``members`` sent, ``mode`` ``merge`` or ``replace``), ``done`` (the stream is complete),
            ``complete`` (the stream is complete when ``value`` is present: streams with
            no terminator), ``error`` (the event is an error; with ``value``, the error
            object inside an ordinary event), ``final_text`` (the string at ``value`` is the
            whole text so far: the first choice's content at the end, MindIE's ``full_text``).
        key: path of the block or choice key (``index``, ``choices[*].index``).
        value: path of the value read.
        field: the text or list ``append``/``collect`` add to. Block fields ``text``,
            ``thinking``, ``signature``, ``refusal``, ``arguments``; choice fields
            ``content``, ``reasoning_content``, ``refusal`` (``text`` and ``thinking``
            name these two in a ``choices`` plan); any other name is a named text
            (``texts``) or list (``lists``).
        variant: ``(member, tag value)``: the step applies only when the union at
            top-level ``member`` is the alternative with that tag value (``text_delta``).
        extra: a second path (``meta``: the model).
        when: ``(path, test)`` pairs that must all hold, each path relative to the object
            ``value`` is read from (the root when there is no ``value``).
        members: ``(name, path)`` pairs for ``open`` and ``tool_call``, each path relative
            to ``value`` (``("name", ("function", "name"))``); for ``usage``, the members of
            the usage object, each named as it gives it, read from ``value`` (the payload when
            there is none): Ollama's counts on the final line (``("eval_count",
            ("eval_count",))``).
        mode: ``usage``: ``merge`` (later members replace earlier ones, the rest stay) or
            ``replace`` (the last object sent is the usage).
        provenance: where the step was stated (``x-ssegen-accumulate``), or None for a
            built-in plan.
    """

    action: AccumulateAction
    key: tuple[str, ...] = ()
    value: tuple[str, ...] = ()
    field: str = ""
    variant: tuple[str, str] | None = None
    extra: tuple[str, ...] = ()
    when: tuple[tuple[tuple[str, ...], WhenTest], ...] = ()
    members: tuple[tuple[str, tuple[str, ...]], ...] = ()
    mode: Literal["", "merge", "replace"] = ""
    provenance: Provenance | None = dataclasses.field(default=None, compare=False)

    def to_plan(self) -> dict[str, Any]:
        """The step as ``x-ssegen-accumulate`` states it (docs/accumulation.md): ``action``
        and the entries it has, paths written ``a[*].b``."""
        out: dict[str, Any] = {"action": self.action}
        for name in ("key", "value", "extra"):
            if path := getattr(self, name):
                out[name] = format_path(path)
        if self.field:
            out["field"] = self.field
        if self.variant is not None:
            out["variant"] = {self.variant[0]: self.variant[1]}
        if self.when:
            out["when"] = {
                format_path(path): value if test == "eq" else {test: value} for path, (test, value) in self.when
            }
        if self.members:
            out["members"] = {name: format_path(path) for name, path in self.members}
        if self.mode:
            out["mode"] = self.mode
        return out


def format_path(path: tuple[str, ...]) -> str:
    """``path`` as written in a plan: ``candidates[*].content.parts[*]``."""
    out = ""
    for segment in path:
        out += "[*]" if segment == EACH else (f".{segment}" if out else segment)
    return out


@dataclass(frozen=True)
class Resolved:
    """What :func:`resolve_path` found: the schema at the path, or where it stopped.

    Attributes:
        schema: the schema the whole path reaches (``any`` when a member on the way is
            unconstrained JSON: the rest is read as sent); None when it stopped.
        failed: the index of the segment that does not resolve (-1 when it resolved).
        reason: why that segment does not resolve ("" when it resolved).
        nodes: ``(segment, owner schema)`` for each segment walked, the owner being the
            object (or array, for ``*``) the segment is read from, after entering unions.
    """

    schema: Schema | None
    failed: int = -1
    reason: str = ""
    nodes: tuple[tuple[str, Schema], ...] = ()


def resolve_path(schema: Schema, path: tuple[str, ...], variant: tuple[str, str] | None = None) -> Resolved:
    """Walk plan ``path`` (member names and :data:`EACH`) from ``schema``: the one path
    resolver of accumulation plans (normalize checks steps with it, the code model reads
    the owners it passes to build typed expressions).

    A union on the way is entered through its alternative tagged ``variant[1]`` when it is
    the top-level member ``variant[0]``, else (before ``*``) through its only array
    alternative, else through its only object alternative. A member typed as any JSON
    resolves the rest of the path as ``any``. Never raises.
    """
    node = schema
    nodes: list[tuple[str, Schema]] = []
    for depth, name in enumerate(path):
        if node.type == "union":
            tag = variant[1] if variant is not None and depth == 1 and path[0] == variant[0] else None
            chosen = _alternative(node, name, tag)
            if chosen is None:
                why = "is inside a union with no single alternative to read it from"
                return Resolved(None, depth, why, tuple(nodes))
            node = chosen
        if node.type == "any":
            return Resolved(node, -1, "", tuple(nodes))
        nodes.append((name, node))
        found, why = _member(node, name)
        if found is None:
            return Resolved(None, depth, why, tuple(nodes))
        node = found
    return Resolved(node, -1, "", tuple(nodes))


def _alternative(union: Schema, name: str, tag: str | None) -> Schema | None:
    """The alternative of ``union`` that segment ``name`` is read from: before :data:`EACH` its
    only array alternative, else the one tagged ``tag`` or the only object one; None when none is."""
    if name != EACH:
        return union.alternative(tag)
    arrays = [v for v in union.variants if v.type == "array"]
    return arrays[0] if len(arrays) == 1 else None


def _member(node: Schema, name: str) -> tuple[Schema | None, str]:
    """The schema segment ``name`` reads from ``node`` (the items for :data:`EACH`, else the
    member), or None and why it cannot."""
    if name == EACH:
        if node.type != "array" or node.items is None:
            return None, f"is not an array (the schema says {node.type})"
        return node.items, ""
    if node.type != "object":
        return None, f"is read from a {node.type}, not an object"
    prop = node.property(name)
    if prop is None:
        members = ", ".join(p.name for p in node.properties[:12]) or "none"
        return None, f"is not a member (the object has: {members})"
    return prop.schema, ""


@dataclass(frozen=True)
class Accumulation:
    """How a channel's events assemble into one result: the channel's plan, as data.

    Attributes:
        family: ``chat`` (chat-completions ``choices[*].delta`` chunks), ``messages``
            (Anthropic content blocks keyed by ``index``), ``responses`` (OpenAI
            Responses output items keyed by ``output_index``), ``gemini``
            (``GenerateContentResponse``: candidates' content parts), ``cohere`` (Cohere v2
            chat: content blocks and tool calls keyed by ``index``), ``custom`` (stated by
            ``x-ssegen-accumulate``), or ``none`` (the events are only typed;
            ``accumulation-unknown``). Every family but ``none`` is a plan of steps.
        steps: ``(message name, steps)`` for each message whose events do something,
            in channel order.
        provenance: where the plan was recognized or stated.
        result: where keyed steps assemble: ``output`` (blocks) or ``choices``.
    """

    family: str
    steps: tuple[tuple[str, tuple[AccumulateStep, ...]], ...] = ()
    provenance: Provenance | None = None
    result: AccumulateResult = "output"

    def of(self, message: str) -> tuple[AccumulateStep, ...]:
        """The steps of ``message`` (``()`` when its events do nothing)."""
        return next((steps for name, steps in self.steps if name == message), ())
