"""The ``channels`` module's facts: per channel, one branch per SSE event type of its
discrimination plan (:mod:`ssegen.normalize.discrimination`), one decoder per message,
the tag tables, the accumulator handler of each event class, and the batch plan (the
fast path decoding consecutive plain events at once).

A branch tries its messages in a fixed order: literal payloads (``[DONE]``,
a whitespace keep-alive such as ``"\\r\\n"``) by exact text, then the tag member's
value through a table, then JSON messages from the most constrained to the
least (:attr:`ssegen.ir.Schema.specificity`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..diagnostics import Diagnostics, codes
from ..ir import ANY_EVENT, Channel, Dispatch, Message
from ..naming import ClassName, PythonIdentifier, distinct_identifiers
from .accumulation import EVERY_CHANNEL_RUNS, ApplyPlan, message_plan, usage_schema
from .flavour import Flavour
from .midstream import Midstream, with_midstream
from .models import REASONING_MEMBER, FieldSpec, ModelsBuilder


@dataclass(frozen=True)
class MessageSpec:
    """One message as the decoder sees it.

    Attributes:
        name: message name.
        kind: IR message kind (``data``, ``terminator``, ``error``, ``vendor``, ``keepalive``).
        cls: the class instances of it are decoded to.
        literal: for terminators and keep-alives, the literal SSE data (``[DONE]``,
            ``"\\r\\n"``); else None.
        event: the SSE event type carrying it.
        decoder: module-level name of its decode function (the bound decode method of
            ``adapter``, built once), ``_decode_<message>_<channel>``.
        adapter: the expression building its validator (``msgspec.json.Decoder(Chunk)``
            or ``pydantic.TypeAdapter(Chunk)``, see :mod:`.flavour`).
        doc: the message's summary or title.
        tag: for a vendor message, the value of its tag member (``x_research.searching``).
        run: how its events feed the accumulator, as a run function expression
            (``each(on_done)``, ``each(on_error)``, ``each(on_vendor)``: ``runtime/sink.py``,
            or the message plan's function); "" for a keep-alive, which feeds nothing (no row
            in the runs table, so ``Channel.apply`` does nothing with it: the stream is not
            complete, and it is no unknown event).
        keep_usage: the identifier of the data message's ``usage`` member (a dotted
            path in a block family: ``message.usage``), whose object as sent
            ``classify`` keeps for the accumulator (the typed object drops the members
            the spec does not list); "" when it has none.
        usage_replaced: its plan replaces the usage (the last object sent wins), so
            ``Channel.accumulate`` reads the last of a run only and the batch decoder
            keeps that one alone as sent (``usage.keep_last_usage``).
    """

    name: str
    kind: str
    cls: ClassName
    literal: str | None
    event: str
    decoder: PythonIdentifier
    adapter: str
    doc: str
    tag: str | None = None
    run: str = ""
    keep_usage: str = ""
    usage_replaced: bool = False

    @property
    def keep_member(self) -> str:
        """The identifier of the top-level member holding the kept usage (``usage``,
        ``usage_metadata`` of ``usage_metadata:usageMetadata``); "" without one."""
        return self.keep_usage.split(".")[0].partition(":")[0]


@dataclass(frozen=True)
class EventBranch:
    """What ``classify`` tries for the frames of one SSE event type, in order (one
    :class:`~ssegen.ir.Dispatch` of the channel's plan).

    Attributes:
        event: the SSE event type; ``*`` for the fallback serving every event type
            without a branch of its own.
        literals: terminators and keep-alives, compared by exact text.
        tag_field: the member whose value selects a message (``type``), "" for none.
        tagged: ``(value, messages)``: the messages each tag value selects, tried in
            turn (most constrained first).
        vendor_tags: tag values of vendor messages: a payload that does not fit its
            listed schema is still a ``VendorEvent`` (with the reason).
        vendor_prefix: common prefix of vendor tags (``x_``): an unlisted tag with it
            is a ``VendorEvent``.
        open: messages tried for a tag value no message has: the shaped messages that
            declare the tag member without fixing it.
        decoders: messages told apart by shape, tried in turn, most constrained first
            (for payloads without the tag member).
        table: generated name of the tag table (value -> decode function).
        vendor_set: generated name of the frozenset of ``vendor_tags``.
        read_tag: generated name of the tag reader.
    """

    event: str
    literals: tuple[MessageSpec, ...]
    tag_field: str
    tagged: tuple[tuple[str, tuple[MessageSpec, ...]], ...]
    vendor_tags: tuple[str, ...]
    vendor_prefix: str
    open: tuple[MessageSpec, ...]
    decoders: tuple[MessageSpec, ...]
    table: PythonIdentifier
    vendor_set: PythonIdentifier
    read_tag: PythonIdentifier

    @property
    def tag_probe(self) -> str:
        """The tag member's name in quotes, as JSON text holding it must contain (``"type"``)."""
        return f'"{self.tag_field}"'

    @property
    def empty(self) -> bool:
        """True when the branch tries nothing (its frames are unknown events)."""
        return not (self.literals or self.tag_field or self.decoders)


@dataclass(frozen=True)
class Sentinel:
    """A literal payload the batch decoder looks for among raw values.

    Attributes:
        text: the literal SSE data.
        ascii: the literal is ASCII (written as a bytes literal; else ``"...".encode()``).
    """

    text: str
    ascii: bool


@dataclass(frozen=True)
class BatchPlan:
    """The fast path of a channel whose plain ``message`` events are JSON messages, untagged.

    ``classify_values`` decodes a run of raw values with one message's decoder without a
    Python-level loop, up to the first literal of the channel (the ``[DONE]`` ending a whole
    body read at once), which the runtime classifies alone with the values after it; a value
    that decoder refuses (another message's, Ollama's error line) makes the whole run fall
    back to classifying each event alone. The message is the one ``classify`` tries first
    (what it decodes, ``classify`` gives), or, when the messages tried before it are errors
    requiring an ``error`` member (``guards``: Gemini's ``ErrorResponse`` before the
    all-optional ``GenerateContentResponse``), the last one: a run with a value whose
    ``error`` member is sent (not null) falls back too, as it may be a guard. The message's
    plan reads that member (an error inside a chunk; the class gets it when the spec has
    none, ``ModelsBuilder.add_error_member``), so it is decoded with each value, where
    searching the text for it would cost the fast path half a decode.

    Attributes:
        function: the generated ``classify_values_<channel>`` name.
        message: the JSON message the run is decoded as.
        sentinels: the channel's literals carried by plain ``message`` events.
        guards: the error messages ``classify`` tries before ``message``, each requiring a
            non-null ``error``.
        error: the identifier of ``message``'s ``error`` member, when there are guards.
        lines: the name of ``message``'s decoder of an NDJSON read's lines at once
            (:meth:`~ssegen.codemodel.flavour.Flavour.lines_decoder`), or "".
        midstream: the lines decoded as ``message`` sending no closing member first (:mod:`.midstream`).
    """

    function: PythonIdentifier
    message: MessageSpec
    sentinels: tuple[Sentinel, ...]
    guards: tuple[MessageSpec, ...] = ()
    error: PythonIdentifier | None = None
    lines: str = ""
    midstream: Midstream | None = None

    @property
    def binds_first(self) -> bool:
        """True when the one-value path reads members of its event (the kept usage, ``error``): it binds it."""
        return bool(self.message.keep_usage or self.guards)

    @property
    def guard_names(self) -> str:
        """The guards' classes, for comments (``ErrorResponse``)."""
        return " or ".join(m.cls for m in self.guards)


@dataclass(frozen=True)
class NamedPlan:
    """The fast path of a channel whose named SSE event types each carry one JSON message.

    ``classify_named`` decodes a run of named events (``sse.NamedEvents``) without a
    Python-level loop: each event's ``event`` line looked up in ``table`` (the UTF-8 bytes
    of ``event: <type>`` -> its message's decoder), each decoder called on its event's
    data. Only event types whose branch tries exactly that one decoder are in the table
    (no literal, no tag, no usage kept whole, not ``message``), so a decoded value is what
    ``classify`` gives; an unknown type or a value its decoder refuses makes the whole run fall back
    to classifying each event alone.

    Attributes:
        function: the generated ``classify_named_<channel>`` name.
        table: the generated name of the event line -> decoder table.
        event_lines: ``(event line, message)`` rows of the table, sorted by event type
            (the line ``event: <type>`` as a :class:`Sentinel`, to be written as a bytes
            literal).
        errors: the exception tuple meaning "fall back": ``KeyError`` and what the
            flavour's decoders raise.
    """

    function: PythonIdentifier
    table: PythonIdentifier
    event_lines: tuple[tuple[Sentinel, MessageSpec], ...]
    errors: str


@dataclass(frozen=True)
class ChannelSpec:
    """A channel's generated decoding and accumulation, every name and choice made.

    Attributes:
        address: the channel address (``/chat/completions``).
        ident: the channel's identifier, suffix of every generated name.
        doc: the channel's summary or description.
        messages: every decodable message: literals first, then tagged ones, then
            the most specific JSON messages first.
        json_messages: messages decoded from JSON (each has a module-level decoder).
        branches: one per SSE event type with a dispatch of its own, sorted by event
            type (``classify`` tests ``event == ...`` for each).
        fallback: the branch for every other event type, or None (those frames are
            unknown events); see :attr:`ssegen.ir.Channel.fallback`.
        plans: the accumulation plans of the data messages.
        runs: ``(class expression, run function expression)`` rows of the runs table (``runs_table``,
            runtime ``Channel.runs``): how consecutive events of each class feed the accumulator, ending
            with ``VendorEvent`` (when tagged), ``UnknownEvent`` and ``StreamTruncated``.
        event_union: the ``Union[...]`` of every event class of the channel.
        tag_readers: ``(reader name, member)`` of each tag member a branch reads.
        lenient: ``(event type, classes)``: per branch (``*`` the fallback), the JSON
            messages a payload no message decodes may still be, decoded leniently
            (runtime ``lenient_decode``) when it clearly is one of them.
        lenient_table: the generated name of that table.
        lenient_usage: ``(class expression, usage member path)`` of each leniently decodable
            class whose usage is kept as sent (:attr:`MessageSpec.keep_usage`): a payload
            decoded leniently keeps its usage whole too (``lenient_usage_table``: :mod:`.channel_tables`).
        tagged_branches: the branches (fallback included) with a tag table.
        batch: the fast path, or None when plain events need per-event classification.
        named: the fast path of named events, or None when none has a branch of one decoder.
        family: how the channel's events assemble (:attr:`ssegen.ir.Accumulation.family`).
        framing, media_types: how its body is cut into events, the media types its responses come in
            (:class:`ssegen.ir.Channel`'s; ``media_types`` ``()``, left out, for one at most).
        names: ``event_type``, ``classify``, ``runs_table``, ``encoding_table`` (its ``encoding.Encoding``,
            laid out from :attr:`ssegen.codemodel.encoding.EncodedChannel.encoding`): the generated
            module-level names; ``constant`` the channel's own, ``<IDENT>_CHANNEL``, a ``Channel[<IDENT>_EVENT]``
            (the suffix keeps it apart from every event union, ``<IDENT>_EVENT``, and from the package's
            ``CHANNELS``, ``PROVIDER`` and ``SPEC_*``).
    """

    address: str
    ident: PythonIdentifier
    doc: str
    messages: tuple[MessageSpec, ...]
    json_messages: tuple[MessageSpec, ...]
    branches: tuple[EventBranch, ...]
    fallback: EventBranch | None
    plans: tuple[ApplyPlan, ...]
    runs: tuple[tuple[str, str], ...]
    event_union: str
    tag_readers: tuple[tuple[PythonIdentifier, str], ...]
    lenient: tuple[tuple[str, tuple[str, ...]], ...]
    lenient_table: PythonIdentifier
    lenient_usage: tuple[tuple[str, str], ...]
    lenient_usage_table: PythonIdentifier
    batch: BatchPlan | None
    named: NamedPlan | None
    family: str
    framing: str
    event_type: PythonIdentifier
    constant: PythonIdentifier
    classify: PythonIdentifier
    runs_table: PythonIdentifier
    encoding_table: PythonIdentifier = PythonIdentifier.verbatim("_ENCODING")
    media_types: tuple[str, ...] = ()

    @property
    def framing_arg(self) -> str:
        """The ``framing=`` argument of the generated ``Channel``: ``""`` (left out) for SSE."""
        return "" if self.framing == "sse" else self.framing

    @property
    def wire_form(self) -> str:
        """What ``encode`` writes, for the channel's docstring."""
        return "NDJSON lines" if self.framing == "ndjson" else "SSE bytes"

    @property
    def tagged_branches(self) -> tuple[EventBranch, ...]:
        """Branches with a tag table, fallback last."""
        every = (*self.branches, *((self.fallback,) if self.fallback is not None else ()))
        return tuple(b for b in every if b.tag_field)

    @property
    def fallback_indent(self) -> int:
        """Indentation of the fallback branch's body in ``classify``: under ``else:``
        after the named branches, else at the function's level."""
        return 8 if self.branches else 4

    @property
    def class_list(self) -> str:
        """The channel's message classes in decode order, comma-separated (for docs)."""
        return ", ".join(m.cls for m in self.messages)


def channel_spec(
    channel: Channel, models: ModelsBuilder, diagnostics: Diagnostics, ident: PythonIdentifier | None = None
) -> ChannelSpec:
    """The :class:`ChannelSpec` of ``channel`` from its discrimination plan
    (:attr:`ssegen.ir.Channel.dispatch`); message classes are registered in ``models``.

    Warns ``message-not-object`` for a message whose payload is neither an object
    with members nor a literal string (its events decode as ``UnknownEvent``).
    ``ident`` names its functions and tables (distinct from the other channels'; see
    :func:`ssegen.naming.distinct_identifiers`), by default from its address.
    """
    ident = ident or PythonIdentifier(channel.address, prefix="channel")
    specs, plans = _messages(channel, ident, models, diagnostics, _tags(channel))
    by_name = {m.name: _with_run(m, plans, models.flavour) for m in specs}
    upper = ident.upper()
    readers = _tag_readers(channel, ident)
    fallback = _branch(channel, channel.fallback, by_name, ident, readers) if channel.fallback is not None else None
    branches = [_branch(channel, plan, by_name, ident, readers) for plan in channel.dispatch]
    if fallback is not None and [b.event for b in branches] == ["message"]:
        branches = []  # every message travels as `message`: the fallback serves every event type
    ordered = _decode_order(channel, by_name)
    runs, union = _runs_and_union(ordered, [*branches, *((fallback,) if fallback else ())])
    lenient = _lenient(branches, fallback, models)
    batch = _batch_plan(ident, _plain_branch(branches, fallback), plans, channel, models.flavour)
    batch = with_midstream(channel, batch, plans, runs, models)  # adds its run function to plans and runs
    return ChannelSpec(
        address=channel.address,
        ident=ident,
        doc=channel.summary or channel.description,
        messages=tuple(ordered),
        json_messages=tuple(m for m in ordered if m.literal is None),
        branches=tuple(branches),
        fallback=fallback,
        plans=tuple(plans),
        runs=tuple(dict.fromkeys(runs)),
        event_union=f"Union[{', '.join(dict.fromkeys(union))}]",
        tag_readers=tuple((name, member) for member, name in readers.items()),
        lenient=lenient,
        lenient_table=PythonIdentifier.verbatim(f"_LENIENT_{upper}"),
        lenient_usage=_lenient_usage(ordered, lenient),
        lenient_usage_table=PythonIdentifier.verbatim(f"_USAGE_{upper}"),
        batch=batch,
        named=_named_plan(ident, branches, models.flavour),
        family=channel.accumulation.family if channel.accumulation is not None else "chat",
        framing=channel.framing,
        event_type=PythonIdentifier.verbatim(f"{upper}_EVENT"),
        constant=PythonIdentifier.verbatim(f"{upper}_CHANNEL"),
        classify=PythonIdentifier.verbatim(f"classify_{ident}"),
        runs_table=PythonIdentifier.verbatim(f"_APPLY_{upper}"),
        encoding_table=PythonIdentifier.verbatim(f"_ENCODING_{upper}"),
        media_types=channel.media_types if len(channel.media_types) > 1 else (),
    )


def _tags(channel: Channel) -> dict[str, tuple[str, ...]]:
    """Each tagged message's tag members (tag, then subtag), in plan order without repeats."""
    tags: dict[str, tuple[str, ...]] = {}
    for plan in channel.plans:
        for t in plan.tagged:
            for name in t.messages:
                tags[name] = tuple(dict.fromkeys((*tags.get(name, ()), plan.tag, *((t.subtag,) if t.subtag else ()))))
    return tags


def _tag_readers(channel: Channel, ident: PythonIdentifier) -> dict[str, PythonIdentifier]:
    """The reader of each tag member the plans test: ``_read_tag_<ident>``, later ones suffixed."""
    readers: dict[str, PythonIdentifier] = {}
    for plan in channel.plans:
        if plan.tag and plan.tag not in readers:
            suffix = "" if not readers else f"_{PythonIdentifier(plan.tag)}"
            readers[plan.tag] = PythonIdentifier.verbatim(f"_read_tag_{ident}{suffix}")
    return readers


def _branch(
    channel: Channel,
    plan: Dispatch,
    by_name: dict[str, MessageSpec],
    ident: PythonIdentifier,
    readers: dict[str, PythonIdentifier],
) -> EventBranch:
    """The branch of ``classify`` for the SSE event type of ``plan``: its literals, tag table and
    JSON decoders in the plan's order, without the messages that have no spec (not decodable)."""
    suffix = "" if plan.event in ("message", ANY_EVENT) else f"_{PythonIdentifier(plan.event).upper()}"
    upper = ident.upper()
    tagged = _tagged(plan, by_name)
    vendor_tags = tuple(v for v, specs in tagged if any(m.kind == "vendor" for m in specs))
    shaped = [by_name[n] for n in plan.shaped if n in by_name]
    return EventBranch(
        event=plan.event,
        literals=tuple(by_name[n] for n in plan.literals if n in by_name),
        tag_field=plan.tag if tagged else "",
        tagged=tagged,
        vendor_tags=vendor_tags,
        vendor_prefix=common_prefix(list(vendor_tags)),
        open=tuple(m for m in shaped if _declares(channel, m.name, plan.tag)),
        decoders=tuple(shaped),
        table=PythonIdentifier.verbatim(f"_TAGGED_{upper}{suffix}"),
        vendor_set=PythonIdentifier.verbatim(f"_VENDOR_{upper}{suffix}"),
        read_tag=readers.get(plan.tag, PythonIdentifier.verbatim(f"_read_tag_{ident}")),
    )


def _tagged(plan: Dispatch, by_name: dict[str, MessageSpec]) -> tuple[tuple[str, tuple[MessageSpec, ...]], ...]:
    """``(tag value, messages)`` of each tagged group of ``plan`` with a decodable message."""
    return tuple(
        (t.value, specs) for t in plan.tagged if (specs := tuple(by_name[n] for n in t.messages if n in by_name))
    )


def _runs_and_union(ordered: list[MessageSpec], every: list[EventBranch]) -> tuple[list[tuple[str, str]], list[str]]:
    """``(runs table rows, event classes)`` in decode order, repeats left to the caller; both end
    with ``VendorEvent`` (when a branch of ``every`` has vendor tags), ``UnknownEvent``, ``StreamTruncated``."""
    events = [("VendorEvent", "each(on_vendor)")] if any(b.vendor_tags for b in every) else []
    events += EVERY_CHANNEL_RUNS
    runs = [(m.cls, m.run) for m in ordered if m.run] + events
    return runs, [m.cls for m in ordered] + [cls for cls, _ in events]


def _plain_branch(branches: list[EventBranch], fallback: EventBranch | None) -> EventBranch | None:
    """The branch of plain ``message`` events: the fallback serving every type, or their own."""
    if fallback is not None and not branches:
        return fallback
    return next((b for b in branches if b.event == "message"), None)


def _lenient_usage(
    ordered: list[MessageSpec], lenient: tuple[tuple[str, tuple[str, ...]], ...]
) -> tuple[tuple[str, str], ...]:
    """``(class expression, usage member path)`` of each class of ``lenient`` keeping its usage."""
    return tuple(
        (m.cls, m.keep_usage) for m in ordered if m.keep_usage and any(m.cls in classes for _, classes in lenient)
    )


def _lenient(
    branches: list[EventBranch], fallback: EventBranch | None, models: ModelsBuilder
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Per branch, the classes of its JSON messages that keep off-spec members."""
    keeping = models.off_spec_classes
    rows = []
    for branch in (*branches, *((fallback,) if fallback is not None else ())):
        messages = [m for _, group in branch.tagged for m in group] + list(branch.decoders)
        classes = tuple(dict.fromkeys(m.cls for m in messages if m.cls in keeping))
        if classes:
            rows.append((branch.event, classes))
    return tuple(rows)


def _required(channel: Channel, name: str) -> frozenset[str]:
    """The members message ``name`` requires (wire names)."""
    message = channel.message(name)
    return frozenset(p.name for p in message.payload.properties if p.required) if message is not None else frozenset()


def _declares(channel: Channel, name: str, member: str) -> bool:
    """True when message ``name`` declares ``member`` (without fixing its value)."""
    message = channel.message(name)
    return bool(member) and message is not None and message.payload.property(member) is not None


def _decode_order(channel: Channel, by_name: dict[str, MessageSpec]) -> list[MessageSpec]:
    """Every decodable message once: literals, tagged ones, then the others most
    constrained first (IR order among equals)."""
    tagged = {name for plan in channel.plans for t in plan.tagged for name in t.messages}
    messages = [m for m in channel.messages if m.name in by_name]
    literals = [m.name for m in messages if m.literal is not None]
    shaped = sorted(
        (m for m in messages if m.literal is None and m.name not in tagged), key=lambda m: -m.payload.specificity
    )
    order = dict.fromkeys([*literals, *(m.name for m in messages if m.name in tagged), *(m.name for m in shaped)])
    return [by_name[n] for n in order]


def _messages(
    channel: Channel,
    ident: PythonIdentifier,
    models: ModelsBuilder,
    diagnostics: Diagnostics,
    tags: dict[str, tuple[str, ...]],
) -> tuple[list[MessageSpec], list[ApplyPlan]]:
    """The channel's decodable messages and its data messages' plans, in IR order, without repeats.

    ``tags`` maps a tagged message to its tag members (their fields are then ``Literal`` s).
    """
    # Dicts as ordered sets: a membership test per message, not a scan (linear in the channel).
    messages: dict[MessageSpec, None] = {}
    plans: dict[ApplyPlan, None] = {}
    names = distinct_identifiers([message.name for message in channel.messages])
    for message in channel.messages:
        spec = _message_spec(message, ident, names[message.name], models, diagnostics, tags)
        if spec is None:
            continue
        messages.setdefault(spec)
        if spec.literal is not None:
            continue  # a literal payload (``[DONE]``, a keep-alive) has no plan
        models.add_off_spec_member(spec.cls)  # lenient decoding keeps what does not fit
        function = PythonIdentifier.verbatim(f"_apply_{ident}_{names[message.name]}")
        plan = _message_plan(channel, message, spec.cls, function, models)
        if plan is None:
            continue
        plans.setdefault(plan)
        _keep_members(message, spec.cls, plan, models)
    return list(messages), list(plans)


def _message_spec(
    message: Message,
    ident: PythonIdentifier,
    name: PythonIdentifier,
    models: ModelsBuilder,
    diagnostics: Diagnostics,
    tags: dict[str, tuple[str, ...]],
) -> MessageSpec | None:
    """The :class:`MessageSpec` of ``message`` (``name``: its identifier, distinct in the
    channel), its class registered in ``models``: a literal's terminator class, else the
    payload's class with the tag members of ``tags`` as ``Literal`` s.

    None, warning ``message-not-object``, when the payload is neither an object with
    members nor a literal string."""
    if message.literal is not None:
        cls: ClassName | None = models.terminator(message)
    else:
        cls = models.payload_class(message.payload, tags.get(message.name, ()), message=message.name)
    if cls is None:
        text = "payload is not an object schema; its events decode as UnknownEvent"
        _warn(diagnostics, message, codes.MESSAGE_NOT_OBJECT, text)
        return None
    return MessageSpec(
        name=message.name,
        kind=message.kind,
        cls=cls,
        literal=message.literal,
        event=message.event,
        decoder=PythonIdentifier.verbatim(f"_decode_{name}_{ident}"),
        adapter=models.flavour.adapter.format(cls=cls),
        doc=message.summary or message.title,
        tag=message.payload.tag(tags[message.name][0]) if message.name in tags else None,
    )


def _message_plan(
    channel: Channel, message: Message, cls: ClassName, function: PythonIdentifier, models: ModelsBuilder
) -> ApplyPlan | None:
    """The run function of JSON message ``message`` (class ``cls``, run function ``function``):
    its plan's steps compiled (:func:`ssegen.codemodel.accumulation.message_plan`); None for a
    message the plan gives no step (or a channel without a plan)."""
    accumulation = channel.accumulation
    steps = accumulation.of(message.name) if accumulation is not None else ()
    if not steps or accumulation is None:
        return None
    choices = accumulation.result == "choices"
    return message_plan(message.payload, cls, function, steps, choices, models, models.flavour.plain)


#: The members a class gets for what a built-in plan reads beyond the spec, by wire name
#: (``ssegen.normalize.accumulation.REASONING_IN_DELTA``); the chunk's ``error`` is
#: ``ModelsBuilder.add_error_member``'s.
_UNDECLARED = {"reasoning_content": REASONING_MEMBER}


def _keep_members(message: Message, cls: ClassName, plan: ApplyPlan, models: ModelsBuilder) -> None:
    """Register in ``models`` what ``plan`` reads beyond the typed members: the usage object kept
    whole, the members the spec does not declare (the chunk's ``error``, a delta's reasoning)."""
    usage = usage_schema(message.payload, plan.keep_usage) if plan.keep_usage else None
    if usage is not None:
        models.keep_whole(usage)
    for delta in plan.deltas:
        models.keep_unlisted(delta)
    for owner, name in plan.undeclared:
        if owner is message.payload and name == "error":
            models.add_error_member(cls)
        else:
            member = FieldSpec(PythonIdentifier(name), name, "Any", False, "Not in the spec: read by the plan.")
            models.add_member(owner, _UNDECLARED.get(name, member))


def _with_run(message: MessageSpec, plans: list[ApplyPlan], flavour: Flavour) -> MessageSpec:
    """``message`` with its run function: by kind (the flavour's for errors and vendor
    messages, each event through an accumulator method), or the first plan of its class."""
    if message.kind == "keepalive":
        run = ""
    elif message.literal is not None:
        run = "each(on_done)"
    elif message.kind == "error":
        run = f"each({flavour.error_handler})"
    elif message.kind == "vendor":
        run = f"each({flavour.vendor_handler})"
    else:
        # A message of a family whose plan gives it no step (Anthropic's ``ping``) feeds nothing.
        plan = next((p for p in plans if p.cls == message.cls), None)
        if plan is not None:
            return replace(message, run=plan.function, keep_usage=plan.keep_usage, usage_replaced=plan.usage_replaced)
        run = ""
    return replace(message, run=run)


def _batch_plan(
    ident: PythonIdentifier, plain: EventBranch | None, plans: list[ApplyPlan], channel: Channel, flavour: Flavour
) -> BatchPlan | None:
    """The fast path, when plain ``message`` events (branch ``plain``) carry JSON messages and
    no tag: then each raw value either decodes as the first of them or the run falls back.

    None also when the first requires every member a later one requires (Mistral's usage
    chunk, a chunk plus ``usage``): most events are then the later one, and a run would
    fall back at its first event, after a decode spent for nothing; unless those before the
    last one are guards (:func:`_guarded`)."""
    if plain is None or plain.tag_field or not plain.decoders:
        return None
    required = [_required(channel, m.name) for m in plain.decoders]
    if any(later <= required[0] for later in required[1:]):
        guarded = _guarded(ident, plain, plans, channel)
        return guarded and replace(guarded, lines=flavour.lines_decoder(guarded.message.decoder, channel.framing))
    message = plain.decoders[0]
    return BatchPlan(
        function=PythonIdentifier.verbatim(f"classify_values_{ident}"),
        message=message,
        sentinels=tuple(Sentinel(m.literal, m.literal.isascii()) for m in plain.literals if m.literal is not None),
        lines=flavour.lines_decoder(message.decoder, channel.framing),
    )


def _guarded(ident: PythonIdentifier, plain: EventBranch, plans: list[ApplyPlan], channel: Channel) -> BatchPlan | None:
    """The fast path decoding the last message ``classify`` tries (the least constrained),
    when each message before it is an error (its kind, or a plan of ``error`` steps only)
    requiring a non-null ``error`` member and the last one's plan reads its ``error`` member
    (Gemini's ``ErrorResponse`` before ``GenerateContentResponse``); else None."""
    *before, message = plain.decoders
    plan = next((p for p in plans if p.cls == message.cls), None)
    if not before or plan is None or not plan.error_attr:
        return None
    for other in before:
        guard = channel.message(other.name)
        if guard is None or not _is_error(channel, guard) or not _requires_error(guard):
            return None
    return BatchPlan(
        function=PythonIdentifier.verbatim(f"classify_values_{ident}"),
        message=message,
        sentinels=tuple(Sentinel(m.literal, m.literal.isascii()) for m in plain.literals if m.literal is not None),
        guards=tuple(before),
        error=PythonIdentifier.verbatim(plan.error_attr),
    )


def _is_error(channel: Channel, message: Message) -> bool:
    """True when ``message`` is an error: of kind ``error``, or every step of its plan an
    ``error`` step (``ssegen.normalize.accumulation.ERROR_PLAN``)."""
    steps = channel.accumulation.of(message.name) if channel.accumulation is not None else ()
    return message.kind == "error" or (bool(steps) and all(step.action == "error" for step in steps))


def _requires_error(message: Message) -> bool:
    """True when ``message`` decodes only from an object whose ``error`` member is sent and
    not null: what the batch message's ``error`` member tells."""
    prop = message.payload.property("error")
    return prop is not None and prop.required and not prop.schema.nullable and prop.schema.type != "any"


def _named_plan(ident: PythonIdentifier, branches: list[EventBranch], flavour: Flavour) -> NamedPlan | None:
    """The fast path of named events: the event types (other than ``message``) whose
    branch is exactly one JSON decoder, without literals, tag or kept usage."""
    event_lines = tuple(
        (Sentinel(f"event: {b.event}", b.event.isascii()), b.decoders[0])
        for b in branches
        if b.event not in ("message", ANY_EVENT) and not b.literals and not b.tag_field and len(b.decoders) == 1
    )
    if not event_lines:
        return None
    return NamedPlan(
        function=PythonIdentifier.verbatim(f"classify_named_{ident}"),
        table=PythonIdentifier.verbatim(f"_NAMED_{ident.upper()}"),
        event_lines=event_lines,
        errors=f"(KeyError, {flavour.decode_errors.strip('()')})",
    )


def _warn(diagnostics: Diagnostics, message: Message, code: codes.Code, text: str) -> None:
    diagnostics.at(message.provenance, code, text)


def common_prefix(tags: list[str]) -> str:
    """The common prefix of vendor tags, cut after its last ``_`` or ``.`` (``x_``);
    "" for fewer than two tags or no such cut."""
    if len(tags) < 2:
        return ""
    first, last = min(tags), max(tags)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    prefix = first[:size]
    cut = max(prefix.rfind("_"), prefix.rfind("."))
    return prefix[: cut + 1] if cut >= 0 else ""
