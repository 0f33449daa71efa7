"""The intermediate model (IR): what a provider streams, independent of source format.

Every loader (``ssegen.sources``) produces these frozen dataclasses and every
emitter consumes them; nothing else crosses that boundary.  The tree is
Provider -> Channel -> Message -> payload Schema, and every node carries a
:class:`Provenance` (source file, line, JSON pointer) so that any fact in the
generated code can be traced back to the document that stated it.

Normalization rules that hold for every IR (whatever the source said):

* nullability is one flag, :attr:`Schema.nullable`; ``null`` never appears in
  ``Schema.enum``, in a ``type`` list or as a ``oneOf`` branch;
* ``Schema.name`` is a PascalCase name taken from the spec (component or
  message name, title) or built from the JSON path, never a counter;
* descriptions given at a use site (a ``$ref`` with a sibling ``description``,
  a ``oneOf`` wrapper) live on the :class:`Property`, so one named schema is
  one class wherever it is used.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

#: JSON Schema types an IR schema can have; ``any`` is unconstrained JSON and
#: ``union`` has its alternatives in :attr:`Schema.variants`.
SchemaType = Literal["object", "array", "string", "integer", "number", "boolean", "null", "any", "union"]

#: What a message means to a stream consumer.
#: ``data``: a payload to decode (chunks); ``terminator``: the end-of-stream
#: sentinel (``data: [DONE]``); ``error``: a mid-stream error frame;
#: ``vendor``: a provider extension event (``x_*``); ``keepalive``: a literal
#: payload of whitespace only (Gitter's ``"\r\n"`` heartbeat), which neither
#: ends the stream nor carries data.
MessageKind = Literal["data", "terminator", "error", "vendor", "keepalive"]

#: How a channel's body is cut into events: ``sse`` (``text/event-stream``, WHATWG HTML 9.2)
#: or ``ndjson`` (newline-delimited JSON, one value per line: ``application/x-ndjson``,
#: ``application/jsonl``; Ollama's ``/api/chat``). Decoded by the runtime's ``sse.py`` or
#: ``ndjson.py``; discrimination and accumulation are the same for both.
Framing = Literal["sse", "ndjson"]

Scalar = str | int | float | bool


@dataclass(frozen=True)
class Provenance:
    """Where a fact comes from.

    Attributes:
        file: source path relative to the specs folder, POSIX separators.
        line: 1-based line in ``file`` (0 when the format has no lines).
        pointer: RFC 6901 JSON pointer into the source document ("" = root).
    """

    file: str
    line: int = 0
    pointer: str = ""


@dataclass(frozen=True)
class Schema:
    """A normalized JSON Schema node (a message payload or part of one).

    Attributes:
        type: one of :data:`SchemaType`.
        provenance: where this schema is defined (the ``$ref`` target, not the use site).
        name: PascalCase type name for objects and enums ("" for plain scalars).
        title: the schema's ``title``.
        description: the schema's own ``description``.
        nullable: ``null`` is admitted (a use-site flag; see module docstring).
        enum: admitted non-null values, in source order; empty means unconstrained.
        format: JSON Schema ``format`` (e.g. ``int64``), informational.
        properties: object members in source order.
        additional_properties: False when the schema forbids unlisted members.
        items: element schema of an array.
        min_items: ``minItems`` of an array, if given.
        max_items: ``maxItems`` of an array, if given (``0`` marks an always-empty
            array, e.g. Mistral's usage-only chunk).
        variants: alternatives of a ``union`` (never a ``null`` branch).
        discriminator: for a ``union`` of objects, the member that tells the variants
            apart (``type``): every variant declares it with one allowed string value
            (``const``, a one-value ``enum``, or the value a ``discriminator`` mapping
            gives it), and no two share a value; "" when no member does.
        constraints: every other JSON Schema keyword the source states, as written
            (value constraints ``maximum``, ``minLength``, ``pattern``; applicators
            ``not``, ``allOf``, ``if``/``then``/``else``, ``patternProperties``, ...), each
            ``$ref`` inside a :class:`SchemaRef` to its target: the generated models do not
            use them, ``schemas.json`` (and so ``ssegen conform``) enforces them.
    """

    type: SchemaType
    provenance: Provenance
    name: str = ""
    title: str = ""
    description: str = ""
    nullable: bool = False
    enum: tuple[Scalar, ...] = ()
    format: str = ""
    properties: tuple[Property, ...] = ()
    additional_properties: bool = True
    items: Schema | None = None
    min_items: int | None = None
    max_items: int | None = None
    variants: tuple[Schema, ...] = ()
    discriminator: str = ""
    constraints: dict[str, Any] = field(default_factory=dict, hash=False)

    @property
    def specificity(self) -> int:
        """How constrained an object payload is: its required members, plus 10 per
        ``maxItems: 0`` array (``specs/mistral/asyncapi-page.txt:427``: the usage-only
        chunk); the most constrained message is tried first."""
        score = sum(1 for p in self.properties if p.required)
        return score + sum(10 for p in self.properties if p.schema.type == "array" and p.schema.max_items == 0)

    def alternative(self, tag: str | None = None) -> Schema | None:
        """For a ``union``: the object alternative whose :attr:`discriminator` member is
        fixed to ``tag``, or with ``tag`` None the only object alternative; None when there
        is not exactly one."""
        options = [v for v in self.variants if v.type == "object" and (tag is None or v.tag(self.discriminator) == tag)]
        return options[0] if len(options) == 1 else None

    def tag(self, member: str) -> str | None:
        """The one string value member ``member`` must have (a ``const`` or one-value
        ``enum``), or None when it may have others or is not declared."""
        prop = self.property(member)
        if prop is None or prop.schema.type != "string" or len(prop.schema.enum) != 1:
            return None
        value = prop.schema.enum[0]
        return value if isinstance(value, str) else None

    def property(self, name: str) -> Property | None:
        """The member named ``name`` (wire name), or None."""
        for prop in self.properties:
            if prop.name == name:
                return prop
        return None


@dataclass(frozen=True)
class SchemaRef:
    """A ``$ref`` kept inside :attr:`Schema.constraints` (the keywords kept as written).

    The referenced schema is held once, by every reference to it, so a spec that refers to
    one schema ten times per level, nine levels deep, stays as small in memory as it is on
    disk; the exports write it once too (``schemas.json`` and ``ssegen ir``: a ``$defs``
    entry keyed :attr:`key`, JSON Schema 2020-12 section 8.2.4).  Replacing the reference
    by :attr:`target` gives what the source means.  A ``$ref`` that leads back to a schema it
    is inside (a tree whose ``additionalProperties`` are trees) is that schema's own
    :class:`SchemaRef`: the targets then hold a cycle, which the exports write as a ``$ref``
    back to the entry, as JSON Schema does; a chain of more than 32 references to different
    schemas is cut to ``{}`` (any JSON), reported ``ref-too-deep``.

    Equal when they refer to the same place; the target is not compared (it is what is
    written there).

    Attributes:
        provenance: where the referenced schema is written (file, line, JSON pointer of
            the ``$ref`` target, not of the ``$ref``).
        target: the referenced JSON Schema value as written (a mapping or a boolean),
            each ``$ref`` inside it a :class:`SchemaRef` in turn; None only while the
            loader reads it (:meth:`tie`).
    """

    provenance: Provenance
    target: Any = field(default=None, compare=False, repr=False)

    def tie(self, target: Any) -> None:
        """Give a reference made before its target was read its target: the loader makes the
        reference first, so that a ``$ref`` inside the target leading back to it is this
        very object (the cycle JSON Schema allows).  Called once per reference, by
        ``ssegen.sources.schema``; a reference is not changed after that."""
        object.__setattr__(self, "target", target)

    @property
    def key(self) -> str:
        """``<file>#<JSON pointer>`` of the target: where it is written, its key in ``$defs``."""
        return f"{self.provenance.file}#{self.provenance.pointer}"


@dataclass(frozen=True)
class Property:
    """One member of an object schema.

    Attributes:
        name: the member name on the wire (any string; emitters make identifiers).
        schema: the member's schema.
        required: listed in the parent's ``required``.
        description: the description at this use site, falling back to the schema's.
        provenance: where the member is declared.
    """

    name: str
    schema: Schema
    required: bool
    description: str
    provenance: Provenance


@dataclass(frozen=True)
class Example:
    """A documented example payload of a message.

    Attributes:
        name: the example's name in the source ("" if unnamed).
        summary: one line from the source.
        data: the SSE ``data`` text as sent on the wire: compact JSON, or the
            literal text for non-JSON payloads such as ``[DONE]``.
        provenance: where the example is written.
    """

    name: str
    summary: str
    data: str
    provenance: Provenance


@dataclass(frozen=True)
class Message:
    """One kind of event a channel carries (AsyncAPI ``message``).

    Attributes:
        name: PascalCase message name (from ``name`` or the component key).
        kind: one of :data:`MessageKind`.
        payload: the payload schema.
        provenance: where the message is defined.
        title, summary, description: texts from the source.
        content_type: the message ``contentType`` (``application/json``, ``text/plain``).
        event: the SSE event type that carries it: an explicit ``x-sse-event``, else
            the message's own name when the source shows ``event:`` lines naming it
            (``event: error`` frames, Anthropic's ``event: message_start``), else ``message``.
        examples: documented examples, in source order.
        variant_of: for a message split from a ``oneOf``/``anyOf`` payload (one message
            per variant, see :mod:`ssegen.normalize.discrimination`), the name of the
            message the source wrote; "" otherwise.
    """

    name: str
    kind: MessageKind
    payload: Schema
    provenance: Provenance
    title: str = ""
    summary: str = ""
    description: str = ""
    content_type: str = "application/json"
    event: str = "message"
    examples: tuple[Example, ...] = ()
    variant_of: str = ""

    @property
    def literal(self) -> str | None:
        """The text a terminator or keep-alive is compared with exactly (``[DONE]``,
        ``"\\r\\n"``): its payload's one literal string; None for a JSON message."""
        enum = self.payload.enum
        if self.kind in ("terminator", "keepalive") and len(enum) == 1 and isinstance(enum[0], str):
            return enum[0]
        return None


#: The event type of a channel's fallback :class:`Dispatch` (every event type without one).
ANY_EVENT = "*"


@dataclass(frozen=True)
class Tagged:
    """The messages one value of a channel's tag member selects.

    Attributes:
        value: the tag member's value (``"ping"``).
        messages: the messages fixing the tag to it, most constrained first (more
            than one when they are told apart by shape within the value: Kraken's
            ``subscriptionStatus`` success and error).
        subtag: a second member that tells those messages apart by its value (Slack's
            ``emoji_changed`` events by ``subtype: add`` / ``remove``), "" for none.
    """

    value: str
    messages: tuple[str, ...]
    subtag: str = ""


@dataclass(frozen=True)
class Dispatch:
    """How a channel tells apart the messages one SSE event type carries, in the
    order they are tried (the channel's discrimination plan, one per event type).

    Attributes:
        event: the SSE event type (``message`` for frames without ``event:``); ``*``
            for the fallback over every message (see :attr:`Channel.fallback`).
        literals: messages whose payload is one literal text (``[DONE]``, a
            keep-alive), compared with the data exactly, first.
        tag: the member whose value selects a message (``type``), "" for none.
        tagged: the messages each value of the tag selects; a payload whose tag has
            another value is none of them (it is tried against ``shaped`` messages that
            declare the tag member without fixing it, else it is unknown).
        shaped: JSON messages told apart by shape (required members, ``maxItems: 0``),
            most constrained first.
    """

    event: str
    literals: tuple[str, ...] = ()
    tag: str = ""
    tagged: tuple[Tagged, ...] = ()
    shaped: tuple[str, ...] = ()

    @property
    def tags(self) -> tuple[str, ...]:
        """The members this dispatch reads values of: its tag and every sub-tag."""
        return tuple(dict.fromkeys(t for t in (self.tag, *(g.subtag for g in self.tagged)) if t))


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


@dataclass(frozen=True)
class Channel:
    """A stream endpoint (AsyncAPI ``channel``), e.g. ``/chat/completions``.

    Attributes:
        address: the channel address (an HTTP path for SSE providers).
        messages: what the server may send on it, in source order.
        provenance: where the channel is defined.
        operation_id: the receiving operation's ``operationId``.
        summary, description: texts from the source.
        dispatch: the discrimination plan, one :class:`Dispatch` per SSE event type
            with messages, sorted by event type (computed from the messages by
            :func:`ssegen.normalize.discrimination.plan_channels`).
        fallback: the plan for frames whose event type has no dispatch: every
            message, when frames without ``event:`` name no message of their own or
            every message travels as ``message`` (a named event the spec does not
            describe is then told apart by its data); None when such frames are
            unknown events.
        accumulation: how its events assemble into one result (None before
            :func:`ssegen.normalize.accumulation.plan_accumulation` ran).
        framing: how the body is cut into events (:data:`Framing`), from the media type
            the source names (``text/event-stream``, ``application/x-ndjson``, ...).
        extensions: the channel's ``x-ssegen-*`` extension values as written (the
            ``x-ssegen-accumulate`` plan).
    """

    address: str
    messages: tuple[Message, ...]
    provenance: Provenance
    operation_id: str = ""
    summary: str = ""
    description: str = ""
    dispatch: tuple[Dispatch, ...] = ()
    fallback: Dispatch | None = None
    accumulation: Accumulation | None = None
    framing: Framing = "sse"
    extensions: dict[str, Any] = field(default_factory=dict, hash=False, compare=False)

    @property
    def plans(self) -> tuple[Dispatch, ...]:
        """Every dispatch of the plan, the fallback last."""
        return (*self.dispatch, *((self.fallback,) if self.fallback is not None else ()))

    def message(self, name: str) -> Message | None:
        """The message named ``name``, or None."""
        for msg in self.messages:
            if msg.name == name:
                return msg
        return None


@dataclass(frozen=True)
class Server:
    """A server the channels are reachable on (AsyncAPI ``server``)."""

    name: str
    url: str
    protocol: str
    provenance: Provenance
    description: str = ""


@dataclass(frozen=True)
class StreamEvent:
    """One event (or comment) of a harvested example stream.

    Attributes:
        data: the event's data (lines joined with LF); "" for a comment.
        event: the SSE event type (``message`` unless the page shows ``event:``).
        comment: the text of a comment line (``: heartbeat``) instead of an event.
        line: 1-based line of the event in the page.
    """

    data: str
    event: str = "message"
    comment: str | None = None
    line: int = 0

    def wire(self) -> str:
        """This event in ``text/event-stream`` form, ending with its blank line."""
        if self.comment is not None:
            return f": {self.comment}\n\n"
        head = "" if self.event == "message" else f"event: {self.event}\n"
        return head + "".join(f"data: {part}\n" for part in self.data.split("\n")) + "\n"


@dataclass(frozen=True)
class ExampleStream:
    """A whole example stream harvested from a documentation page.

    Attributes:
        name: a slug naming it (from the page's heading), unique per provider.
        channel: the channel address it was sent on.
        events: its events and comments, in order (annotation lines removed).
        provenance: where the stream is written in the page.
        full_text: it was produced in cumulative mode (MindIE ``fullTextEnabled``),
            so it must be accumulated with ``full_text=True``.
    """

    name: str
    channel: str
    events: tuple[StreamEvent, ...]
    provenance: Provenance
    full_text: bool = False

    def wire(self) -> str:
        """The stream as a ``text/event-stream`` body (UTF-8 text, LF line ends)."""
        return "".join(event.wire() for event in self.events)


@dataclass(frozen=True)
class ErrorCode:
    """A provider error code documented outside the stream schema (e.g. MindIE 701).

    Attributes:
        code: the code as documented (an integer, or a string code).
        meaning: its documented meaning.
        provenance: where the table row is.
    """

    code: int | str
    meaning: str
    provenance: Provenance


@dataclass(frozen=True)
class Provider:
    """Everything ssegen knows about one provider (one folder under ``specs/``).

    Attributes:
        name: the folder name, used as the generated package name.
        channels: stream endpoints, sorted by address.
        sources: the source files merged into this IR, relative to the specs folder.
        title, version, description: from the source's ``info``.
        servers: declared servers.
        error_codes: documented error codes (code, meaning), in source order.
        example_streams: harvested example streams, in source order.
        protocols: transport protocols other than SSE over HTTP that the sources
            declare (a server's ``protocol``, a ``bindings`` key: ``kafka``,
            ``mqtt``, ``ws``), sorted and unique; empty for an SSE provider.
    """

    name: str
    channels: tuple[Channel, ...]
    sources: tuple[str, ...]
    title: str = ""
    version: str = ""
    description: str = ""
    servers: tuple[Server, ...] = field(default=())
    error_codes: tuple[ErrorCode, ...] = ()
    example_streams: tuple[ExampleStream, ...] = ()
    protocols: tuple[str, ...] = ()

    def channel(self, address: str) -> Channel | None:
        """The channel at ``address``, or None."""
        for chan in self.channels:
            if chan.address == address:
                return chan
        return None


def json_type(value: Any) -> SchemaType:
    """The JSON Schema type of a JSON value (``null`` for None)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "any"


def rewrite_payloads(provider: Provider, fn: Callable[[Schema, Message, bool], Schema]) -> Provider:
    """``provider`` with every schema node of every message payload passed through ``fn``.

    ``fn(node, message, is_root)`` returns the node to keep (``node`` itself when
    nothing changes); the rewrite is top-down, descending into the returned
    node's member schemas, items and variants.  Unchanged subtrees keep their
    identity, so a provider nothing changed in comes back as the same object.
    Used by the merge steps (:mod:`ssegen.merge_docs`, :mod:`ssegen.reconcile`).
    """
    memo: dict[tuple[int, str, bool], Schema] = {}

    def walk(schema: Schema, message: Message, root: bool) -> Schema:
        key = (id(schema), message.name, root)
        if key in memo:
            return memo[key]
        memo[key] = schema  # a (never expected) cycle ends here unchanged
        node = fn(schema, message, root)
        props = tuple(
            prop if (child := walk(prop.schema, message, False)) is prop.schema else replace(prop, schema=child)
            for prop in node.properties
        )
        items = walk(node.items, message, False) if node.items is not None else None
        variants = tuple(walk(v, message, False) for v in node.variants)
        unchanged = (
            all(a is b for a, b in zip(props, node.properties, strict=True))
            and items is node.items
            and all(a is b for a, b in zip(variants, node.variants, strict=True))
        )
        result = node if unchanged else replace(node, properties=props, items=items, variants=variants)
        memo[key] = result
        return result

    channels = []
    for channel in provider.channels:
        messages = tuple(
            message
            if (payload := walk(message.payload, message, True)) is message.payload
            else replace(message, payload=payload)
            for message in channel.messages
        )
        same = all(a is b for a, b in zip(messages, channel.messages, strict=True))
        channels.append(channel if same else replace(channel, messages=messages))
    if all(a is b for a, b in zip(channels, provider.channels, strict=True)):
        return provider
    return replace(provider, channels=tuple(channels))
