"""The ``channels`` module's facts: per channel, the order messages are tried in, one
decoder each, the vendor-tag dispatch, the accumulator handler of each event
class, and the batch plan (the fast path decoding consecutive plain events at once).

A channel tries its messages in a fixed order: literal payloads (``[DONE]``,
a whitespace keep-alive such as ``"\\r\\n"``) by exact text, then vendor
messages by their tag, then JSON messages from the most constrained to the
least (:func:`specificity`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ..diagnostics import Diagnostics, codes
from ..ir import Channel, Message
from ..naming import ClassName, PythonIdentifier
from .accumulation import ApplyPlan, apply_plan
from .flavour import Flavour
from .models import ModelsBuilder


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
        adapter: the expression building its validator (``msgspec.json.Decoder(models.Chunk)``
            or ``pydantic.TypeAdapter(models.Chunk)``, see :mod:`.flavour`).
        doc: the message's summary or title.
        tag: for a vendor message, the value of its tag member (``x_research.searching``).
        handler: how its events feed the accumulator (``Accumulator.done``,
            ``Accumulator.error``, ``Accumulator.vendor`` or the apply plan's function);
            "" for a keep-alive, which feeds nothing (no row in the handlers table,
            so ``apply`` does nothing with it: the stream is not complete, and it
            is no unknown event).
        keep_usage: the identifier of the data message's ``usage`` member, whose
            object as sent ``classify`` keeps for the accumulator (the typed object
            drops the members the spec does not list); "" when it has none.
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
    handler: str = ""
    keep_usage: str = ""


@dataclass(frozen=True)
class EventBranch:
    """What ``classify`` tries for one SSE event type, in order.

    Attributes:
        event: the SSE event type.
        literals: terminators and keep-alives of this event type, compared by exact text.
        tagged: vendor messages of this event type are dispatched by tag first.
        decoders: JSON messages tried in turn, most constrained first.
    """

    event: str
    literals: tuple[MessageSpec, ...]
    tagged: bool
    decoders: tuple[MessageSpec, ...]


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
    """The fast path of a channel whose plain ``message`` events are one JSON message.

    ``classify_values`` decodes a run of raw values with that message's decoder
    without a Python-level loop, up to the first literal of the channel (the
    ``[DONE]`` ending a whole body read at once), which the runtime classifies
    alone with the values after it; a value the decoder refuses makes the whole
    run fall back to classifying each event alone.

    Attributes:
        function: the generated ``classify_values_<channel>`` name.
        message: the one JSON message of plain ``message`` events.
        sentinels: the channel's literals carried by plain ``message`` events.
        apply_values: the plan's batch handler (``<function>_run``), or None
            when the message feeds nothing to the accumulator by plan.
    """

    function: PythonIdentifier
    message: MessageSpec
    sentinels: tuple[Sentinel, ...]
    apply_values: PythonIdentifier | None


@dataclass(frozen=True)
class ChannelSpec:
    """A channel's generated decoding and accumulation, every name and choice made.

    Attributes:
        address: the channel address (``/chat/completions``).
        ident: the channel's identifier, suffix of every generated name.
        doc: the channel's summary or description.
        messages: decode order: literals first, tagged vendor messages, then the
            most specific JSON messages first.
        json_messages: messages decoded by their own decoder (no literal, no tag).
        tagged_messages: vendor messages dispatched by tag.
        branches: one per SSE event type with messages, sorted by event type.
        plans: the accumulation plans of the data messages.
        handlers: ``(class expression, handler expression)`` rows of the dispatch
            table, ending with ``VendorEvent`` (when tagged), ``UnknownEvent`` and
            ``StreamTruncated``.
        event_union: the ``Union[...]`` of every event class of the channel.
        tag_field: member whose value selects a vendor message (``type``), "" if none.
        tag_prefix: common prefix of vendor tags (``x_``): unlisted ones decode as VendorEvent.
        batch: the fast path, or None when plain events need per-event classification.
        names: ``event_type``, ``classify``, ``apply``, ``handlers_table``,
            ``tagged_table``, ``read_tag``: the generated module-level names.
    """

    address: str
    ident: PythonIdentifier
    doc: str
    messages: tuple[MessageSpec, ...]
    json_messages: tuple[MessageSpec, ...]
    tagged_messages: tuple[MessageSpec, ...]
    branches: tuple[EventBranch, ...]
    plans: tuple[ApplyPlan, ...]
    handlers: tuple[tuple[str, str], ...]
    event_union: str
    tag_field: str
    tag_prefix: str
    batch: BatchPlan | None
    event_type: PythonIdentifier
    classify: PythonIdentifier
    apply: PythonIdentifier
    handlers_table: PythonIdentifier
    tagged_table: PythonIdentifier
    read_tag: PythonIdentifier

    @property
    def tag_probe(self) -> str:
        """The tag member's name in quotes, as JSON text holding it must contain (``"type"``)."""
        return f'"{self.tag_field}"'

    @property
    def class_list(self) -> str:
        """The channel's message classes in decode order, comma-separated (for docs)."""
        return ", ".join(m.cls for m in self.messages)


def channel_spec(channel: Channel, models: ModelsBuilder, diagnostics: Diagnostics) -> ChannelSpec:
    """The :class:`ChannelSpec` of ``channel``; message classes are registered in ``models``.

    Warns ``message-not-object`` for a message whose payload is neither an object
    with members nor a literal string (its events decode as ``UnknownEvent``),
    and ``vendor-tag-fields`` when vendor messages are told apart by several members.

    Raises:
        ValueError: a JSON message that is neither data, error nor vendor (a
            terminator whose literal is not a string) has no accumulator handler.
    """
    ident = PythonIdentifier(channel.address, prefix="channel")
    messages, plans = _messages(channel, ident, models, diagnostics)
    ordered = [
        _with_handler(m, plans, models.flavour)
        for m in sorted(messages, key=lambda m: (m.literal is None, m.tag is None, -specificity(channel, m.name)))
    ]
    tag_fields = sorted({vendor_tag(m)[0] for m in channel.messages if m.kind == "vendor" and vendor_tag(m)[0]})
    if len(tag_fields) > 1:
        _warn(
            diagnostics,
            channel.messages[0],
            codes.VENDOR_TAG_FIELDS,
            f"vendor messages are told apart by several members ({', '.join(tag_fields)}); "
            f"only {tag_fields[0]!r} is used",
        )
    tag_field = tag_fields[0] if tag_fields else ""
    upper = ident.upper()
    json_messages = tuple(m for m in ordered if m.literal is None and m.tag is None)
    handlers = [(f"models.{m.cls}", m.handler) for m in ordered if m.handler]
    union = [f"models.{m.cls}" for m in ordered]
    if tag_field:
        handlers.append(("VendorEvent", "Accumulator.vendor"))
        union.append("VendorEvent")
    handlers.append(("UnknownEvent", "Accumulator.unknown"))
    union.append("UnknownEvent")
    # The event a decoded stream ends with when its body ended inside an event.
    handlers.append(("StreamTruncated", "Accumulator.truncated"))
    union.append("StreamTruncated")
    return ChannelSpec(
        address=channel.address,
        ident=ident,
        doc=channel.summary or channel.description,
        messages=tuple(ordered),
        json_messages=json_messages,
        tagged_messages=tuple(m for m in ordered if m.tag is not None),
        branches=tuple(_branch(event, ordered, tag_field) for event in sorted({m.event for m in ordered})),
        plans=tuple(plans),
        handlers=tuple(handlers),
        event_union=f"Union[{', '.join(union)}]",
        tag_field=tag_field,
        tag_prefix=common_prefix([m.tag for m in ordered if m.tag is not None]),
        batch=_batch_plan(ident, ordered, tag_field, plans),
        event_type=PythonIdentifier.verbatim(f"{upper}_EVENT"),
        classify=PythonIdentifier.verbatim(f"classify_{ident}"),
        apply=PythonIdentifier.verbatim(f"apply_{ident}"),
        handlers_table=PythonIdentifier.verbatim(f"_APPLY_{upper}"),
        tagged_table=PythonIdentifier.verbatim(f"_TAGGED_{upper}"),
        read_tag=PythonIdentifier.verbatim(f"_read_tag_{ident}"),
    )


def _messages(
    channel: Channel, ident: PythonIdentifier, models: ModelsBuilder, diagnostics: Diagnostics
) -> tuple[list[MessageSpec], list[ApplyPlan]]:
    """The channel's decodable messages and its data messages' plans, in IR order, without repeats."""
    messages: list[MessageSpec] = []
    plans: list[ApplyPlan] = []
    for message in channel.messages:
        literal: str | None = None
        if message.kind in ("terminator", "keepalive") and isinstance(message.payload.enum[0], str):
            cls: ClassName | None = models.terminator(message)
            literal = str(message.payload.enum[0])
        else:
            cls = models.payload_class(message.payload)
        if cls is None:
            _warn(
                diagnostics,
                message,
                codes.MESSAGE_NOT_OBJECT,
                "payload is not an object schema; its events decode as UnknownEvent",
            )
            continue
        spec = MessageSpec(
            name=message.name,
            kind=message.kind,
            cls=cls,
            literal=literal,
            event=message.event,
            decoder=PythonIdentifier.verbatim(f"_decode_{PythonIdentifier(message.name)}_{ident}"),
            adapter=models.flavour.adapter.format(cls=f"models.{cls}"),
            doc=message.summary or message.title,
            tag=vendor_tag(message)[1] if message.kind == "vendor" else None,
        )
        if spec not in messages:
            messages.append(spec)
        if message.kind == "data" and literal is None:
            function = PythonIdentifier.verbatim(f"_apply_{ident}_{PythonIdentifier(message.name)}")
            plan = apply_plan(message.payload, cls, function, models.flavour.plain)
            if plan not in plans:
                plans.append(plan)
            usage = message.payload.property("usage")
            if plan.keep_usage and usage is not None:
                models.keep_whole(usage.schema)
            if plan.error_member:
                models.add_error_member(cls)
    return messages, plans


def _with_handler(message: MessageSpec, plans: list[ApplyPlan], flavour: Flavour) -> MessageSpec:
    """``message`` with its accumulator handler: by kind (the flavour's for errors and
    vendor messages), or the first plan of its class."""
    if message.kind == "keepalive":
        handler = ""
    elif message.literal is not None:
        handler = "Accumulator.done"
    elif message.kind == "error":
        handler = flavour.error_handler
    elif message.kind == "vendor":
        handler = flavour.vendor_handler
    else:
        plan = next((p for p in plans if p.cls == message.cls), None)
        if plan is None:
            raise ValueError(f"message {message.name!r} of kind {message.kind!r} has no handler")
        return replace(message, handler=plan.function, keep_usage=plan.keep_usage)
    return replace(message, handler=handler)


def _branch(event: str, messages: list[MessageSpec], tag_field: str) -> EventBranch:
    """What ``classify`` tries for SSE event type ``event``."""
    of_event = [m for m in messages if m.event == event]
    return EventBranch(
        event=event,
        literals=tuple(m for m in of_event if m.literal is not None),
        tagged=bool(tag_field) and any(m.tag for m in of_event),
        decoders=tuple(m for m in of_event if m.literal is None and m.tag is None),
    )


def _batch_plan(
    ident: PythonIdentifier, messages: list[MessageSpec], tag_field: str, plans: list[ApplyPlan]
) -> BatchPlan | None:
    """The fast path, when plain ``message`` events carry exactly one JSON message and
    no vendor tag: then each raw value either decodes as it or the run falls back."""
    plain = [m for m in messages if m.event == "message" and m.literal is None]
    if tag_field or len(plain) != 1 or plain[0].tag is not None:
        return None
    message = plain[0]
    plan = next((p for p in plans if p.cls == message.cls), None)
    return BatchPlan(
        function=PythonIdentifier.verbatim(f"classify_values_{ident}"),
        message=message,
        sentinels=tuple(
            Sentinel(m.literal, m.literal.isascii()) for m in messages if m.event == "message" and m.literal is not None
        ),
        apply_values=plan.run if plan is not None else None,
    )


def _warn(diagnostics: Diagnostics, message: Message, code: codes.Code, text: str) -> None:
    diagnostics.at(message.provenance, code, text)


def vendor_tag(message: Message) -> tuple[str, str | None]:
    """The member and value that identify a vendor message: a required member with
    one allowed string value (``"type":"x_research.searching"``,
    ``specs/xerotier/streaming-api.md:154``), preferring ``type``;
    ``("", None)`` when there is none.
    """
    candidates = [
        p
        for p in message.payload.properties
        if p.required and p.schema.type == "string" and len(p.schema.enum) == 1 and isinstance(p.schema.enum[0], str)
    ]
    candidates.sort(key=lambda p: p.name != "type")
    if not candidates:
        return "", None
    return candidates[0].name, str(candidates[0].schema.enum[0])


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


def specificity(channel: Channel, name: str) -> int:
    """How constrained a message is: required members, plus 10 per ``maxItems: 0`` array.

    More specific messages are tried first, so Mistral's usage-only chunk
    (``choices`` with ``maxItems: 0``, ``usage`` required;
    ``specs/mistral/asyncapi-page.txt:427``) is recognized before the general chunk
    that would also accept it.
    """
    message = channel.message(name)
    if message is None:
        return 0
    payload = message.payload
    score = sum(1 for p in payload.properties if p.required)
    score += sum(10 for p in payload.properties if p.schema.type == "array" and p.schema.max_items == 0)
    return score
