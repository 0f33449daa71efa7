"""IR -> code model: the Python facts templates lay out, computed once here.

Templates hold layout; this module holds the logic: which classes exist, each
field's identifier and type expression, the order a channel tries its messages
in, and which members feed the accumulator.  Everything is derived from the IR
alone, deterministically (no dict/set iteration order leaks into output).

Decoding is lenient by construction (providers add fields and enum values
without notice):

* unknown members are ignored (msgspec's default);
* an enum becomes ``Literal[...] | str``: typed known values, any string accepted;
* an optional member is ``T | None = None`` even when the spec forbids ``null``
  (DeepSeek's docs example sends ``"role": null``);
* only a required, non-nullable member, and ``maxItems: 0``, constrain
  decoding, because those are what tell one message from another (a member
  "always present, may be null" does not).

The strict view of the spec (every enum, every ``null``) is the normalized JSON
Schema (:mod:`ssegen.schema_export`), used by ``ssegen conform``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .diagnostics import Diagnostics, Severity
from .ir import Channel, Message, Property, Provider, Schema
from .naming import ClassName, PythonIdentifier, snake


@dataclass(frozen=True)
class FieldSpec:
    """One generated Struct field.

    Attributes:
        name: Python identifier.
        wire: the member name on the wire (an alias when it differs from ``name``).
        annotation: the type expression.
        required: no default (decoding fails without it).
        doc: description for the class docstring's Attributes section.
    """

    name: str
    wire: str
    annotation: str
    required: bool
    doc: str


@dataclass(frozen=True)
class ClassSpec:
    """A generated ``msgspec.Struct``.

    Attributes:
        name: class name.
        doc: docstring body (the schema's description or title).
        fields: required fields first, then optional ones, each in source order.
    """

    name: str
    doc: str
    fields: tuple[FieldSpec, ...]
    literal: str | None = None


@dataclass(frozen=True)
class AliasSpec:
    """A ``Literal`` type alias for an enum (``FinishReason = Literal["stop", ...]``)."""

    name: str
    values: tuple[Any, ...]
    doc: str


@dataclass(frozen=True)
class Access:
    """How to read one member: attribute name and whether it may be None."""

    attr: str
    optional: bool


@dataclass(frozen=True)
class ToolCallsPlan:
    """Where a delta's tool-call fragments are and how to read them.

    ``typed`` is False when the spec gives the items no properties (DeepSeek):
    they are then plain dicts and the runtime reads keys.
    """

    access: Access
    typed: bool
    index: Access | None = None
    id: Access | None = None
    type: Access | None = None
    function: Access | None = None
    name: Access | None = None
    arguments: Access | None = None


@dataclass(frozen=True)
class ChoicesPlan:
    """Where a chunk's choices are and what each carries."""

    access: Access
    index: Access | None
    delta: Access | None
    text_fields: tuple[tuple[str, Access], ...]  # (result field, access on delta/choice)
    text_on_choice: tuple[tuple[str, Access], ...]
    tool_calls: ToolCallsPlan | None
    finish_reason: Access | None


@dataclass(frozen=True)
class ApplyPlan:
    """How one data message feeds the accumulator (None parts are absent)."""

    function: str
    cls: str
    id: Access | None
    model: Access | None
    choices: ChoicesPlan | None
    usage: Access | None
    full_text: Access | None


@dataclass(frozen=True)
class MessageSpec:
    """One message as the decoder sees it.

    Attributes:
        name: message name (and, for JSON messages, the payload class).
        kind: IR message kind.
        cls: the class instances of it are decoded to.
        literal: for terminators, the literal SSE data (``[DONE]``).
        event: the SSE event type carrying it.
        decoder: module-level name of its decode function (a ``msgspec.json.Decoder``'s
            bound ``decode``, built once).
    """

    name: str
    kind: str
    cls: str
    literal: str | None
    event: str
    decoder: str
    doc: str
    tag: str | None = None


@dataclass(frozen=True)
class ChannelSpec:
    """A channel's generated decoding and accumulation."""

    address: str
    ident: str
    doc: str
    messages: tuple[MessageSpec, ...]  # decode order: literals first, most specific JSON first
    events: tuple[str, ...]  # SSE event types with messages, sorted
    plans: tuple[ApplyPlan, ...]
    tag_field: str = ""  # member whose value selects a vendor message ("type"), "" if none
    tag_prefix: str = ""  # common prefix of vendor tags ("x_"): unlisted ones decode as VendorEvent


@dataclass
class CodeModel:
    """Everything the templates of one provider package need."""

    provider: Provider
    classes: list[ClassSpec] = field(default_factory=list)
    aliases: list[AliasSpec] = field(default_factory=list)
    terminators: list[ClassSpec] = field(default_factory=list)
    channels: list[ChannelSpec] = field(default_factory=list)


class CodeModelBuilder:
    """Builds the :class:`CodeModel` of a provider; reports naming conflicts.

    Args:
        provider: the IR.
        diagnostics: receives ``name-conflict`` and ``identifier-collision`` warnings.
    """

    def __init__(self, provider: Provider, diagnostics: Diagnostics) -> None:
        self.provider = provider
        self.diagnostics = diagnostics
        self.model = CodeModel(provider)
        self._classes: dict[str, tuple[Schema, ClassSpec | None]] = {}
        self._aliases: dict[str, AliasSpec] = {}
        self._terminators: dict[str, ClassSpec] = {}

    def build(self) -> CodeModel:
        """Walk channels and messages in IR order and collect classes and plans."""
        for channel in self.provider.channels:
            self.model.channels.append(self._channel(channel))
        self.model.classes = [spec for _, spec in self._classes.values() if spec is not None]
        self.model.aliases = list(self._aliases.values())
        self.model.terminators = list(self._terminators.values())
        return self.model

    # -- classes ----------------------------------------------------------------

    def annotation(self, schema: Schema, *, optional: bool = False) -> str:
        """The lenient type expression for ``schema`` (see module docstring)."""
        expr = self._base_annotation(schema)
        if (schema.nullable or optional) and expr != "Any":
            expr += " | None"
        return expr

    def _base_annotation(self, schema: Schema) -> str:
        if schema.type == "object":
            if not schema.properties:
                return "dict[str, Any]"
            return self._class(schema)
        if schema.type == "array":
            item = self.annotation(schema.items) if schema.items is not None else "Any"
            if schema.max_items == 0:
                return f"Annotated[list[{item}], msgspec.Meta(max_length=0)]"
            return f"list[{item}]"
        if schema.type in ("string", "integer", "number", "boolean"):
            py = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}[schema.type]
            if schema.enum and _literal_values(schema):
                alias = self._alias(schema)
                return f"{alias} | {py}"
            return py
        if schema.type == "null":
            return "None"
        if schema.type == "union":
            parts: list[str] = []
            for variant in schema.variants:
                if variant.type in ("object", "array", "union", "any"):
                    return "Any"  # msgspec cannot tell untagged objects apart; stay lenient
                part = self._base_annotation(variant)
                if part not in parts:
                    parts.append(part)
            return " | ".join(parts)
        return "Any"

    def _taken(self, name: str) -> bool:
        """True when ``name`` is already a class, alias or terminator of the module."""
        return name in self._classes or name in self._aliases or name in self._terminators

    def _alias(self, schema: Schema) -> str:
        name = schema.name or "Value"
        existing = self._aliases.get(name)
        if (existing is not None and existing.values != schema.enum) or (existing is None and self._taken(name)):
            name = self._unique(name, schema)
            existing = self._aliases.get(name)
        if existing is None:
            self._aliases[name] = AliasSpec(name, schema.enum, schema.description)
        return name

    def _class(self, schema: Schema) -> str:
        name = schema.name or "Object"
        key = replace(schema, nullable=False)
        known = self._classes.get(name)
        if known is not None and known[0] == key:
            return name
        if self._taken(name):
            for other, (other_key, _) in self._classes.items():
                if other_key == key and other != name:
                    return other  # this schema already got a disambiguated name
            name = self._unique(name, schema)
        self._classes[name] = (key, None)  # reserve first: recursive members see the name
        fields = self._fields(schema)
        doc = schema.description or schema.title
        self._classes[name] = (key, ClassSpec(name, doc, fields))
        return name

    def _unique(self, name: str, schema: Schema) -> str:
        """A new name for a different schema that derived an existing name.

        The disambiguator comes from the schema's place (file stem, pointer
        tokens), never a counter, so it is stable under key order.
        """
        tokens = [t for t in schema.provenance.pointer.split("/") if t and t not in ("properties", "items", "components", "schemas")]
        candidate = name
        for token in reversed(tokens):
            candidate = str(ClassName(token)) + candidate if not candidate.startswith(str(ClassName(token))) else candidate
            if not self._taken(candidate):
                break
        while self._taken(candidate):
            candidate += "Alt"
        prov = schema.provenance
        self.diagnostics.at(
            prov,
            "name-conflict",
            Severity.WARNING,
            f"two different schemas are named {name!r}; this one is emitted as {candidate!r}",
        )
        return candidate

    def _fields(self, schema: Schema) -> tuple[FieldSpec, ...]:
        idents = field_identifiers(schema)
        specs: list[FieldSpec] = []
        for prop in schema.properties:
            ident = idents[prop.name]
            original = str(PythonIdentifier(prop.name))
            self._check_identifier(prop, original)
            if ident != original:
                prov = prop.provenance
                self.diagnostics.at(
                    prov,
                    "identifier-collision",
                    Severity.WARNING,
                    f"member {prop.name!r} maps to identifier {original!r} like an earlier member; emitted as {ident!r}",
                )
            # A required member that may be null ("always present, may be null") tells no
            # message from another, so lenient decoding does not insist on it; conform does.
            required = prop.required and not prop.schema.nullable
            specs.append(
                FieldSpec(
                    name=ident,
                    wire=prop.name,
                    annotation=self.annotation(prop.schema, optional=not required),
                    required=required,
                    doc=prop.description,
                )
            )
        return tuple(sorted(specs, key=lambda f: not f.required))

    def _check_identifier(self, prop: Property, ident: str) -> None:
        """Say when a member's identifier is not just its name re-cased (the alias keeps the wire name)."""
        prov = prop.provenance
        if not snake(prop.name):
            self.diagnostics.at(
                prov,
                "identifier-lossy",
                Severity.WARNING,
                f"member {prop.name!r} has no ASCII letter or digit to name a field after; emitted as {ident!r}",
            )
        elif ident != snake(prop.name):
            self.diagnostics.at(
                prov,
                "identifier-renamed",
                Severity.INFO,
                f"member {prop.name!r} is a keyword, a reserved name or starts with a digit; emitted as {ident!r}",
            )

    # -- channels -----------------------------------------------------------------

    def _channel(self, channel: Channel) -> ChannelSpec:
        ident = str(PythonIdentifier(channel.address, prefix="channel"))
        messages: list[MessageSpec] = []
        plans: list[ApplyPlan] = []
        for message in channel.messages:
            if message.kind == "terminator" and isinstance(message.payload.enum[0], str):
                cls = self._terminator(message)
                literal: str | None = str(message.payload.enum[0])
            else:
                cls = self._base_annotation(message.payload) if message.payload.type == "object" else ""
                literal = None
                if not cls or not cls[0].isupper():
                    self._warn_message(message, "message-not-object", "payload is not an object schema; its events decode as UnknownEvent")
                    continue
            spec = MessageSpec(
                name=message.name,
                kind=message.kind,
                cls=cls,
                literal=literal,
                event=message.event,
                decoder=f"_decode_{PythonIdentifier(message.name)}",
                doc=message.summary or message.title,
                tag=_tag(message)[1] if message.kind == "vendor" else None,
            )
            if spec not in messages:
                messages.append(spec)
            if message.kind == "data" and literal is None:
                plan = self._plan(message, cls, f"_apply_{ident}_{PythonIdentifier(message.name)}")
                if plan not in plans:
                    plans.append(plan)
        ordered = sorted(messages, key=lambda m: (m.literal is None, m.tag is None, -_specificity(channel, m.name)))
        tag_fields = sorted({_tag(m)[0] for m in channel.messages if m.kind == "vendor" and _tag(m)[0]})
        if len(tag_fields) > 1:
            self._warn_message(channel.messages[0], "vendor-tag-fields", f"vendor messages are told apart by several members ({', '.join(tag_fields)}); only {tag_fields[0]!r} is used")
        tags = [m.tag for m in ordered if m.tag is not None]
        return ChannelSpec(
            address=channel.address,
            ident=ident,
            doc=channel.summary or channel.description,
            messages=tuple(ordered),
            events=tuple(sorted({m.event for m in ordered})),
            plans=tuple(plans),
            tag_field=tag_fields[0] if tag_fields else "",
            tag_prefix=_common_prefix(tags),
        )

    def _terminator(self, message: Message) -> str:
        name = message.name
        known = self._terminators.get(name)
        if known is None or known.literal != str(message.payload.enum[0]):
            while (name in self._classes or name in self._aliases) or (name in self._terminators and self._terminators[name].literal != str(message.payload.enum[0])):
                name = name + "Event"
        if name not in self._terminators:
            doc = message.description or message.summary or message.payload.description
            literal = FieldSpec("data", "data", "str", False, f"the literal SSE data, {message.payload.enum[0]!r}")
            self._terminators[name] = ClassSpec(name, doc, (literal,), str(message.payload.enum[0]))
        return name

    def _warn_message(self, message: Message, code: str, text: str) -> None:
        prov = message.provenance
        self.diagnostics.at(prov, code, Severity.WARNING, text)

    def _plan(self, message: Message, cls: str, function: str) -> ApplyPlan:
        payload = message.payload
        return ApplyPlan(
            function=function,
            cls=cls,
            id=_scalar_access(payload, "id", "string"),
            model=_scalar_access(payload, "model", "string"),
            choices=_choices_plan(payload),
            usage=_object_access(payload, "usage"),
            full_text=_scalar_access(payload, "full_text", "string"),
        )


def build_code_model(provider: Provider, diagnostics: Diagnostics) -> CodeModel:
    """The :class:`CodeModel` for ``provider`` (see :class:`CodeModelBuilder`)."""
    return CodeModelBuilder(provider, diagnostics).build()


def _literal_values(schema: Schema) -> bool:
    """True when ``schema.enum`` can be a ``Literal`` msgspec decodes: strings of a
    string schema, or 64-bit integers of an integer schema (msgspec refuses
    larger integer literals; other enums stay their plain type).
    """
    if schema.type == "string":
        return all(isinstance(v, str) for v in schema.enum)
    if schema.type == "integer":
        return all(isinstance(v, int) and not isinstance(v, bool) and -(2**63) <= v < 2**63 for v in schema.enum)
    return False


def _tag(message: Message) -> tuple[str, str | None]:
    """The member and value that identify a vendor message: a required member with
    one allowed string value (``type: x_research.searching``), preferring ``type``.
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


def _common_prefix(tags: list[str]) -> str:
    """The common prefix of vendor tags, cut after its last ``_`` or ``.`` ("x_")."""
    if len(tags) < 2:
        return ""
    first, last = min(tags), max(tags)
    size = 0
    while size < min(len(first), len(last)) and first[size] == last[size]:
        size += 1
    prefix = first[:size]
    cut = max(prefix.rfind("_"), prefix.rfind("."))
    return prefix[: cut + 1] if cut >= 0 else ""


def _specificity(channel: Channel, name: str) -> int:
    """How constrained a message is: required members, plus weight for empty arrays.

    More specific messages are tried first, so Mistral's usage-only chunk
    (``choices`` with ``maxItems: 0``, ``usage`` required) is recognized before
    the general chunk that would also accept it.
    """
    message = channel.message(name)
    if message is None:
        return 0
    payload = message.payload
    score = sum(1 for p in payload.properties if p.required)
    score += sum(10 for p in payload.properties if p.schema.type == "array" and p.schema.max_items == 0)
    return score


def field_identifiers(schema: Schema) -> dict[str, str]:
    """Wire name -> Python identifier of each member of ``schema``, unique per class.

    Members whose names map to one identifier (``x-y`` and ``x_y``) are told
    apart by trailing underscores in source order; the accumulator plans read
    members through this same mapping, so they name the right field.
    """
    used: set[str] = set()
    result: dict[str, str] = {}
    for prop in schema.properties:
        ident = str(PythonIdentifier(prop.name))
        while ident in used:
            ident += "_"
        used.add(ident)
        result[prop.name] = ident
    return result


def _access(prop: Property, owner: Schema) -> Access:
    optional = not prop.required or prop.schema.nullable
    return Access(field_identifiers(owner)[prop.name], optional)


def _scalar_access(schema: Schema, name: str, type_: str) -> Access | None:
    prop = schema.property(name)
    if prop is None or prop.schema.type != type_ or prop.schema.enum:
        return None
    return _access(prop, schema)


def _object_access(schema: Schema, name: str) -> Access | None:
    prop = schema.property(name)
    if prop is None or prop.schema.type != "object":
        return None
    return _access(prop, schema)


_TEXT_FIELDS = ("content", "reasoning_content", "refusal")


def _choices_plan(payload: Schema) -> ChoicesPlan | None:
    prop = payload.property("choices")
    if prop is None or prop.schema.type != "array" or prop.schema.items is None:
        return None
    choice = prop.schema.items
    if choice.type != "object" or not choice.properties:
        return None
    index = _scalar_access(choice, "index", "integer")
    delta_prop = choice.property("delta")
    delta = None
    text_fields: list[tuple[str, Access]] = []
    tool_calls = None
    if delta_prop is not None and delta_prop.schema.type == "object" and delta_prop.schema.properties:
        delta = _access(delta_prop, choice)
        for name in _TEXT_FIELDS:
            access = _scalar_access(delta_prop.schema, name, "string")
            if access is not None:
                text_fields.append((name, access))
        tool_calls = _tool_calls_plan(delta_prop.schema)
    # Completion-style chunks (FIM, OpenAI legacy) carry `text` on the choice itself.
    on_choice: list[tuple[str, Access]] = []
    text = _scalar_access(choice, "text", "string")
    if text is not None:
        on_choice.append(("content", text))
    finish = choice.property("finish_reason")
    finish_access = _access(finish, choice) if finish is not None and finish.schema.type == "string" else None
    return ChoicesPlan(
        access=_access(prop, payload),
        index=index,
        delta=delta,
        text_fields=tuple(text_fields),
        text_on_choice=tuple(on_choice),
        tool_calls=tool_calls,
        finish_reason=finish_access,
    )


def _tool_calls_plan(delta: Schema) -> ToolCallsPlan | None:
    prop = delta.property("tool_calls")
    if prop is None or prop.schema.type != "array":
        return None
    item = prop.schema.items
    if item is None or item.type != "object" or not item.properties:
        return ToolCallsPlan(_access(prop, delta), typed=False)
    function = item.property("function")
    fn_schema = function.schema if function is not None and function.schema.type == "object" else None
    return ToolCallsPlan(
        access=_access(prop, delta),
        typed=True,
        index=_scalar_access(item, "index", "integer"),
        id=_scalar_access(item, "id", "string"),
        type=_any_string_access(item, "type"),
        function=_access(function, item) if fn_schema is not None and fn_schema.properties and function is not None else None,
        name=_scalar_access(fn_schema, "name", "string") if fn_schema is not None else None,
        arguments=_scalar_access(fn_schema, "arguments", "string") if fn_schema is not None else None,
    )


def _any_string_access(schema: Schema, name: str) -> Access | None:
    prop = schema.property(name)
    if prop is None or prop.schema.type != "string":
        return None
    return _access(prop, schema)
