"""The ``models`` module's facts: which Struct classes and Literal aliases exist, each
field's identifier and lenient type expression.

Decoding is lenient by construction (providers add fields and enum values
without notice):

* unknown members are ignored (msgspec's default);
* an enum becomes ``Literal[...] | str``: typed known values, any string accepted;
* an optional member is ``T | None = None`` even when the spec forbids ``null``
  (DeepSeek's docs example sends ``"role": null``, ``specs/deepseek/api-docs.txt:395``);
* only a required, non-nullable member, ``maxItems: 0`` and a tag member
  constrain decoding, because those are what tell one message from another. A
  member "always present, may be null" is required of its class (``T | None``, no
  default: None only for a ``null`` sent), but a payload lacking it is still the
  message, decoded leniently with the absence recorded (runtime ``lenient.py``,
  ``OffSpec.missing``), so that ``encode`` leaves it out. A tag member (the channel's
  discrimination plan, :mod:`ssegen.normalize.discrimination`, or a union's
  ``discriminator``) is its one ``Literal`` value, so no payload with another
  value is taken for this message;
* a ``oneOf``/``anyOf`` of objects with a discriminator is a tagged union (msgspec
  ``tag_field``/``tag``, pydantic ``Field(discriminator=...)``); without one it is
  any JSON (``union-untagged``). Other unions of object and scalar types stay any
  JSON, so one unexpected shape never costs the whole event.

The strict view of the spec (every enum, every ``null``) is the normalized JSON
Schema (:mod:`ssegen.schema_export`), used by ``ssegen conform``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..diagnostics import Diagnostics, codes
from ..ir import Message, Property, Schema
from ..naming import ClassName, PythonIdentifier, snake
from .flavour import MSGSPEC, Flavour
from .module_imports import BOUND_NAMES, TOKEN


@dataclass(frozen=True)
class FieldSpec:
    """One generated Struct field.

    Attributes:
        name: the Python identifier.
        wire: the member name on the wire.
        annotation: the type expression.
        required: no default (decoding fails without it).
        doc: description for the class docstring's Attributes section.
        alias: ``wire`` when it differs from ``name`` (the field is then declared
            with ``msgspec.field(name=...)`` or ``pydantic.Field(alias=...)``), else None.
        fixed: for the tag member of a tagged-union alternative, its one value: the
            field is a class constant set by the tag (msgspec ``ClassVar``; a required
            ``Literal`` field for pydantic, whose discriminated union needs it on the
            wire as msgspec's does); else None.
        argument: for a request field typed ``Any`` for a union of objects no member tells apart
            (msgspec decodes no union of untagged Structs), the union of their classes, which a
            typed method's argument takes so that type checkers check it; "" when the field's
            annotation is as precise.
    """

    name: PythonIdentifier
    wire: str
    annotation: str
    required: bool
    doc: str
    fixed: str | None = None
    argument: str = ""

    @property
    def alias(self) -> str | None:
        return self.wire if self.wire != self.name else None


@dataclass(frozen=True)
class ClassSpec:
    """A generated ``msgspec.Struct`` (or pydantic ``BaseModel``, see :mod:`.flavour`).

    Attributes:
        name: class name.
        doc: docstring body (the schema's description or title).
        fields: required fields first, then optional ones, each in source order.
        literal: for a terminator class, the literal SSE data it stands for
            (its one field ``data`` defaults to it); None for payload classes.
        tag_field: for an alternative of a tagged union, the tag member's wire name
            (msgspec ``tag_field``); "" otherwise.
        tag: its value (msgspec ``tag``).
        options: the msgspec ``Struct`` options after ``omit_defaults=True``:
            ``gc=False`` (instances hold no reference cycles).
        sent: its instances carry what was sent beside the typed members (a stream's usage
            object, see :meth:`ModelsBuilder.keep_whole`): the class mixes in the runtime's
            ``usage.SentUsage``, one slot for it.
        closed: it refuses members it does not declare (msgspec ``forbid_unknown_fields``,
            pydantic ``extra="forbid"``): a choice's or block's delta
            (:meth:`ModelsBuilder.keep_unlisted`).
        off_spec: it is a message's payload whose events may be decoded leniently: it derives
            from the runtime's ``lenient.MessagePayload`` (pydantic
            ``pydantic_support.MessagePayloadModel``), which holds the member ``off_spec``
            (:meth:`ModelsBuilder.add_off_spec_member`).
    """

    name: ClassName
    doc: str
    fields: tuple[FieldSpec, ...]
    literal: str | None = None
    tag_field: str = ""
    tag: str = ""
    options: str = "gc=False"
    sent: bool = False
    closed: bool = False
    off_spec: bool = False


#: The identifier of the member a leniently decoded event keeps its off-spec members in, which
#: the runtime's base class ``lenient.MessagePayload`` declares (wire name ``x-ssegen-off-spec``:
#: no provider sends it).
OFF_SPEC_MEMBER = PythonIdentifier("off_spec")

#: ``reasoning_content``, given to a chat delta whose spec lacks it (OpenAI's): DeepSeek's
#: reasoning text (``specs/deepseek/asyncapi-page.txt``), which other OpenAI-compatible
#: servers (vLLM, Together, OpenRouter's DeepSeek models) send too.
REASONING_MEMBER = FieldSpec(
    PythonIdentifier("reasoning_content"),
    "reasoning_content",
    "str | None",
    False,
    "Not in the spec: the reasoning text DeepSeek-shaped servers send beside `content`; "
    "assembled into the choice's `reasoning_content`.",
)

ERROR_MEMBER = FieldSpec(
    PythonIdentifier("error"),
    "error",
    "Any",
    False,
    "Not in the spec: an error object some servers put in an ordinary chunk mid-stream "
    '(OpenRouter: `{"code": 400, "message": "Token limit reached"}`); '
    "the accumulator records it in `errors` (kind `error_in_chunk`).",
)
"""The member every data chunk class gets when its spec has no ``error`` member."""


@dataclass(frozen=True)
class AliasSpec:
    """A ``Literal`` type alias for an enum (``FinishReason = Literal["stop", ...]``)."""

    name: ClassName
    values: tuple[Any, ...]
    doc: str


class ModelsBuilder:
    """Collects the classes, aliases and terminator classes of one ``models`` module.

    Names are unique within the module: a different schema (or enum, or
    terminator literal) that derived a taken name gets a disambiguated one and
    a ``name-conflict`` warning.  Results keep first-use order, so the module is
    laid out in the order channels and messages first need each class.

    Args:
        diagnostics: receives ``name-conflict``, ``identifier-collision``,
            ``identifier-lossy`` and ``identifier-renamed``.
        flavour: the model flavour (only the ``maxItems: 0`` spelling depends on it).
        exact_unions: type a union of objects, arrays and scalars as the union of its
            alternatives' types wherever msgspec can tell them apart by their JSON type
            (:meth:`_exact_union`), not as any JSON. Request bodies (:mod:`.clients`) are built
            so: they are encoded, never decoded leniently, and a typed union lets mypy and
            pyright check the value given (Anthropic's ``system: str | list[TextBlockParam]``).
    """

    def __init__(self, diagnostics: Diagnostics, flavour: Flavour = MSGSPEC, *, exact_unions: bool = False) -> None:
        self.diagnostics = diagnostics
        self.flavour = flavour
        self.exact_unions = exact_unions
        self._classes: dict[str, tuple[Schema, ClassSpec | None]] = {}
        #: class name -> (tag members, whether it is a tagged-union alternative)
        self._tags: dict[str, tuple[tuple[str, ...], bool]] = {}
        self._aliases: dict[str, AliasSpec] = {}
        self._terminators: dict[str, ClassSpec] = {}
        self._whole: set[str] = set()
        self._closed: set[str] = set()
        self._error_member: set[str] = set()
        self._off_spec_member: set[str] = set()
        self._extra: dict[str, list[FieldSpec]] = {}
        #: class name -> the messages whose payload it is, and -> the (class, member) it was
        #: first built for: what a class is, for a docstring the spec does not give
        self._payload_of: dict[str, list[str]] = {}
        self._member_of: dict[str, tuple[str, str, bool]] = {}
        self._use: tuple[str, str, bool] | None = None
        #: building a typed method's argument: an untagged union of objects is their classes' union
        self._arguments = False

    @property
    def classes(self) -> list[ClassSpec]:
        """Payload classes in first-use order (a class's members' classes after it)."""
        specs = []
        for _, spec in self._classes.values():
            if spec is None:
                continue
            if spec.name in self._error_member:
                spec = replace(spec, fields=(*spec.fields, ERROR_MEMBER))
            if spec.name in self._off_spec_member:
                spec = replace(spec, off_spec=True)
            if spec.name in self._extra:
                spec = replace(spec, fields=(*spec.fields, *self._extra[spec.name]))
            if spec.name in self._whole:
                spec = replace(spec, sent=True)
            if spec.name in self._closed:
                spec = replace(spec, closed=True)
            if not spec.doc.strip():
                spec = replace(spec, doc=self._described(spec))
            specs.append(spec)
        return specs

    def keep_whole(self, schema: Schema) -> None:
        """Let instances of the class of ``schema`` carry the object as sent (the runtime's
        ``usage.SentUsage`` mixin: one slot the runtime attaches it to; unknown members are
        otherwise dropped by decoding).  A slot, not a per-instance ``__dict__`` (msgspec
        ``dict=True``): Gemini re-sends its ``usageMetadata`` with every chunk, and a dict
        per chunk cost accumulate 0.66x -> 0.70x of the floor (``benchmarks/families.py``)."""
        name = self._known(schema)
        if name is not None:
            self._whole.add(name)

    def keep_unlisted(self, schema: Schema) -> None:
        """Make the class of ``schema`` (each object alternative of a union) refuse members it
        does not declare: a delta of a chat choice or of a block, whose unlisted members
        (OpenRouter's ``reasoning``, ``reasoning_details``) are otherwise dropped by decoding.
        A delta with none decodes as before, at no cost; one with some fails typed decoding
        and is decoded leniently (runtime ``lenient_decode`` keeps them, the accumulator
        assembles them: docs/results.md, "Members the spec does not list")."""
        for alternative in schema.variants if schema.type == "union" else (schema,):
            name = self._known(alternative)
            if name is not None:
                self._closed.add(name)

    def add_error_member(self, cls: ClassName) -> None:
        """Give class ``cls`` the member :data:`ERROR_MEMBER` (``error: Any = None``)
        unless it has a member of that identifier: a data chunk whose class holds the
        ``error`` object some servers put in it (OpenRouter: ``{"error": {"code": 400,
        "message": "Token limit reached"}, "choices": [...]}``) decodes it at no cost,
        where searching each chunk's text for it would slow the fast path."""
        known = self._classes.get(cls)
        spec = known[1] if known is not None else None
        if spec is not None and all(f.name != ERROR_MEMBER.name for f in spec.fields):
            self._error_member.add(cls)

    def add_member(self, schema: Schema, member: FieldSpec) -> None:
        """Give the class of ``schema`` the member ``member`` the spec does not declare
        (:data:`REASONING_MEMBER`), unless a member already has its identifier."""
        name = self._known(schema)
        if name is None:
            return
        spec = self._classes[name][1]
        if spec is None or any(f.name == member.name for f in (*spec.fields, *self._extra.get(name, []))):
            return
        self._extra.setdefault(name, []).append(member)

    @property
    def off_spec_classes(self) -> set[str]:
        """The classes given the member :data:`OFF_SPEC_MEMBER` so far."""
        return set(self._off_spec_member)

    def add_off_spec_member(self, cls: ClassName) -> bool:
        """Give class ``cls`` the member :data:`OFF_SPEC_MEMBER` (``off_spec``, from its base class:
        :attr:`ClassSpec.off_spec`), so that an event of it
        decoded leniently can keep what did not fit; False (and no member) when a member
        already has that identifier (such events then stay ``UnknownEvent``)."""
        known = self._classes.get(cls)
        spec = known[1] if known is not None else None
        if spec is None or any(f.name == OFF_SPEC_MEMBER for f in spec.fields):
            return False
        self._off_spec_member.add(cls)
        return True

    def _known(self, schema: Schema) -> str | None:
        """The name of the class already built for ``schema``, or None."""
        key = replace(schema, nullable=False)
        return next((name for name, (k, spec) in self._classes.items() if k == key and spec), None)

    @property
    def aliases(self) -> list[AliasSpec]:
        """Enum aliases in first-use order."""
        return list(self._aliases.values())

    @property
    def named_aliases(self) -> list[AliasSpec]:
        """:attr:`aliases` that a class's field names, the ones a module defines: a member whose
        class was rebuilt with its tags is typed by the tag's own ``Literal['response.created']``,
        and the alias first made for it (``ResponseCreatedEventType``) would state it again."""
        fields = (f for _, spec in self._classes.values() if spec for f in spec.fields)
        named = {token for f in fields for token in TOKEN.findall(f.annotation)}
        return [alias for alias in self._aliases.values() if alias.name in named]

    @property
    def terminators(self) -> list[ClassSpec]:
        """Terminator classes (one field ``data`` holding the literal) in first-use order."""
        return list(self._terminators.values())

    def annotation(self, schema: Schema, *, optional: bool = False) -> str:
        """The lenient type expression for ``schema`` (see module docstring);
        ``| None`` when the schema is nullable or ``optional`` (never on ``Any``)."""
        expr = self._base_annotation(schema)
        if (schema.nullable or optional) and expr != "Any":
            expr += " | None"
        return expr

    def payload_class(self, schema: Schema, tags: tuple[str, ...] = (), *, message: str = "") -> ClassName | None:
        """The class a message payload decodes to; None when the payload is not an
        object with members (its events then decode as ``UnknownEvent``).

        ``tags`` names the members the channel's plan tells the message apart by (its
        tag and sub-tag): each field is then the ``Literal`` of the one value the
        payload fixes it to. ``message`` names the message (the IR's, not its SSE event type:
        models do not depend on how events are framed), for the docstring of a class whose
        schema has no description.
        """
        if schema.type != "object" or not schema.properties:
            return None
        name = self._class(schema, tuple(t for t in tags if schema.tag(t) is not None))
        if message and message not in self._payload_of.setdefault(name, []):
            self._payload_of[name].append(message)
        return name

    def _described(self, spec: ClassSpec) -> str:
        """A docstring for a class whose schema has no description or title: what the class
        is (the payload of which events, which alternative of a tagged union, which member's
        value), never a placeholder. It says nothing of where the schema is written, so one
        contract split across files or versions gives the same code."""
        events = self._payload_of.get(spec.name, [])
        if events:
            listed = " and ".join(f"``{e}``" for e in events)
            return f"The payload of {listed} messages."
        if spec.tag_field:
            return f"The ``{spec.tag}`` alternative of a union tagged by ``{spec.tag_field}``."
        if spec.name in self._member_of:
            parent, member, array = self._member_of[spec.name]
            return f"{'An item' if array else 'The value'} of member ``{member}`` of :class:`{parent}`."
        return f"A ``{spec.name}`` object."

    def tagged(self, schema: Schema) -> bool:
        """True when union ``schema`` decodes to its alternatives' classes (a tagged union,
        :meth:`_tagged_union`), not to any JSON."""
        member = schema.discriminator
        variants = schema.variants
        if schema.type != "union" or not member or len(variants) < 2:
            return False
        if not all(v.type == "object" and v.properties for v in variants):
            return False
        names = [self._known(v) for v in variants]
        return all(name is not None and self._tags.get(name) == ((member,), True) for name in names)

    def class_of(self, schema: Schema) -> ClassName | None:
        """The class already built for object ``schema`` (a union alternative, a member), or None."""
        name = self._known(schema)
        return ClassName.verbatim(name) if name is not None else None

    def terminator(self, message: Message) -> ClassName:
        """The class of a terminator message whose payload is one literal string (``[DONE]``).

        Its name is the message's, with ``Event`` appended while a class, an alias
        or a terminator with another literal holds it.
        """
        text = str(message.payload.enum[0])
        name = message.name
        known = self._terminators.get(name)
        if known is None or known.literal != text:
            while (
                name in BOUND_NAMES
                or name in self._classes
                or name in self._aliases
                or (name in self._terminators and self._terminators[name].literal != text)
            ):
                name = name + "Event"
        if name not in self._terminators:
            doc = (
                message.description
                or message.summary
                or message.payload.description
                or f"The terminator: the literal SSE data {text!r} that ends the stream."
            )
            data = FieldSpec(
                PythonIdentifier("data"), "data", "str", False, f"the literal SSE data, {message.payload.enum[0]!r}"
            )
            self._terminators[name] = ClassSpec(ClassName.verbatim(name), doc, (data,), text)
        return self._terminators[name].name

    def _base_annotation(self, schema: Schema) -> str:
        if schema.type == "object":
            if not schema.properties:
                return "dict[str, Any]"
            return self._class(schema)
        if schema.type == "array":
            item = self.annotation(schema.items) if schema.items is not None else "Any"
            if schema.max_items == 0:
                return self.flavour.empty_list.format(item=item)
            return f"list[{item}]"
        if schema.type in _SCALARS:
            py = _SCALARS[schema.type]
            if schema.enum and _literal_values(schema):
                return f"{self._alias(schema)} | {py}"
            return py
        if schema.type == "null":
            return "None"
        if schema.type == "union":
            return self._union_annotation(schema)
        return "Any"

    def _union_annotation(self, schema: Schema) -> str:
        """The annotation of a union (:attr:`ssegen.ir.Schema.variants`): a tagged union of
        classes when every alternative is an object (two or more), the scalars' annotations
        joined with ``|`` when every one is a scalar, else ``Any``."""
        objects = [v for v in schema.variants if v.type == "object"]
        if len(objects) > 1 and len(objects) == len(schema.variants):
            return self._tagged_union(schema)
        exact = self._exact_union(schema) if self.exact_unions else ""
        if exact:
            return exact
        parts: list[str] = []
        for variant in schema.variants:
            if variant.type in ("object", "array", "union", "any"):
                return "Any"  # one unexpected shape must not cost the whole event; stay lenient
            for part in self._base_annotation(variant).split(" | "):
                if part not in parts:  # integer | number: int | float, once each
                    parts.append(part)
        return " | ".join(parts)

    def _exact_union(self, schema: Schema) -> str:
        """The union of the alternatives' annotations when msgspec decodes it by JSON type alone
        (msgspec docs, "Union": at most one object-like type, one array-like type and one
        string-like type; ``int`` and ``float`` together): at most one object alternative and one
        array alternative, no alternative that is itself a union or any JSON; else "".
        Literal aliases of string enums join ``str``, as in every model."""
        kinds = [v.type for v in schema.variants]
        if kinds.count("object") > 1 or kinds.count("array") > 1 or {"union", "any"} & set(kinds):
            return ""
        parts: list[str] = []
        for variant in schema.variants:
            expr = self._base_annotation(variant)
            for part in expr.split(" | ") if variant.type in _SCALARS else (expr,):
                if part not in parts:
                    parts.append(part)
        return " | ".join(parts)

    def _tagged_union(self, schema: Schema) -> str:
        """A union of objects: its alternatives' classes as a tagged union when its
        ``discriminator`` tells them apart, else ``Any`` with ``union-untagged``."""
        member = schema.discriminator
        names = [v.name or "Object" for v in schema.variants]
        if member and all(v.properties for v in schema.variants):
            classes = [self._class(v, (member,), alternative=True) for v in schema.variants]
            if all(self._tags.get(c) == ((member,), True) for c in classes):
                return self.flavour.tagged_union.format(variants=" | ".join(classes), member=repr(member))
            why = "an alternative is already told apart by another member elsewhere"
        elif member:
            why = "an alternative declares no member"
        else:
            why = "no member is fixed to a different value in each (a `const` or one-value `enum`, or a discriminator)"
        if self._arguments and all(v.properties for v in schema.variants):
            return " | ".join(self._class(v) for v in schema.variants)  # checked, never decoded
        self.diagnostics.at(
            schema.provenance,
            codes.UNION_UNTAGGED,
            f"alternatives {', '.join(names)} of {schema.name or 'a member'} cannot be told apart: {why}; "
            "decoded as any JSON",
        )
        return "Any"

    def _taken(self, name: str) -> bool:
        """True when ``name`` is already a class, alias or terminator of the module, or a name
        ``channels.py`` or ``client.py`` binds besides the classes it imports (:data:`BOUND_NAMES`)."""
        return name in BOUND_NAMES or name in self._classes or name in self._aliases or name in self._terminators

    def _alias(self, schema: Schema) -> str:
        name = schema.name or "Value"
        existing = self._aliases.get(name)
        if (existing is not None and existing.values != schema.enum) or (existing is None and self._taken(name)):
            name = self._unique(name, schema)
            existing = self._aliases.get(name)
        if existing is None:
            self._aliases[name] = AliasSpec(ClassName.verbatim(name), schema.enum, schema.description)
        return name

    def _class(self, schema: Schema, tags: tuple[str, ...] = (), *, alternative: bool = False) -> ClassName:
        """The class of object ``schema``, built on first use.

        ``tags`` are the members fixing which message or union alternative it is; an
        ``alternative`` of a tagged union is declared with its one tag (``tag_field``),
        a message's tag members are ``Literal`` fields. A class first built without
        its tags is rebuilt with them (one class per schema); an alternative keeps
        its tag (the caller sees it in :attr:`_tags`).
        """
        name = schema.name or "Object"
        key = replace(schema, nullable=False)
        known = self._classes.get(name)
        if known is None or known[0] != key:
            if self._taken(name):
                other = next((n for n, (k, _) in self._classes.items() if k == key and n != name), None)
                if other is not None:
                    return self._retag(other, tags, alternative)  # this schema already got a disambiguated name
                name = self._unique(name, schema)
            self._classes[name] = (key, None)  # reserve first: recursive members see the name
            if self._use is not None:
                self._member_of.setdefault(name, self._use)
            if tags:
                self._tags[name] = (tags, alternative)
            self._classes[name] = (key, self._class_spec(name, schema))
            return ClassName.verbatim(name)
        return self._retag(name, tags, alternative)

    def _retag(self, name: str, tags: tuple[str, ...], alternative: bool) -> ClassName:
        """Class ``name``, rebuilt when it must now be told apart by ``tags``."""
        key, spec = self._classes[name]
        current = self._tags.get(name)
        wanted = (tags, alternative)
        if not tags or current == wanted or spec is None:
            return ClassName.verbatim(name)
        if current is not None and current[1]:
            return ClassName.verbatim(name)  # an alternative of a tagged union keeps its tag
        if current is not None and not alternative:
            wanted = (tuple(dict.fromkeys(current[0] + tags)), False)  # strict for every plan using it
        self._tags[name] = wanted
        self._classes[name] = (key, self._class_spec(name, key))
        return ClassName.verbatim(name)

    def _class_spec(self, name: str, schema: Schema) -> ClassSpec:
        tags, alternative = self._tags.get(name, ((), False))
        fields = self._fields(schema, tags, alternative, owner=name)
        doc = schema.description or schema.title
        if alternative:
            return ClassSpec(ClassName.verbatim(name), doc, fields, tag_field=tags[0], tag=schema.tag(tags[0]) or "")
        return ClassSpec(ClassName.verbatim(name), doc, fields)

    def _unique(self, name: str, schema: Schema) -> str:
        """A new name for a different schema that derived an existing name.

        The disambiguator comes from the schema's place (file stem, pointer
        tokens), never a counter, so it is stable under key order.
        """
        tokens = [
            t
            for t in schema.provenance.pointer.split("/")
            if t and t not in ("properties", "items", "components", "schemas")
        ]
        candidate = name
        for token in reversed(tokens):
            prefix = str(ClassName(token))
            candidate = candidate if candidate.startswith(prefix) else prefix + candidate
            if not self._taken(candidate):
                break
        while self._taken(candidate):
            candidate += "Alt"
        text = (
            f"the generated channels.py or client.py binds the name {name!r}; this schema is emitted as {candidate!r}"
            if name in BOUND_NAMES
            else f"two different schemas are named {name!r}; this one is emitted as {candidate!r}"
        )
        self.diagnostics.at(schema.provenance, codes.NAME_CONFLICT, text)
        return candidate

    def _fields(
        self, schema: Schema, tags: tuple[str, ...] = (), alternative: bool = False, *, owner: str = ""
    ) -> tuple[FieldSpec, ...]:
        idents = field_identifiers(schema)
        specs: list[FieldSpec] = []
        for prop in schema.properties:
            if not _mappable(prop.name):
                self.diagnostics.at(
                    prop.provenance,
                    codes.MEMBER_NAME_UNSUPPORTED,
                    f"member {prop.name!r} of {schema.name or 'the payload'} has a quote, backslash or control "
                    "character, which a decoder field cannot be mapped to; it is not decoded (unknown members "
                    "are skipped) and `ssegen conform` still validates it"
                    + ("; the message is told apart without it" if prop.required else ""),
                )
                continue
            ident = idents[prop.name]
            original = PythonIdentifier(prop.name)
            self._check_identifier(prop, original)
            if ident != original:
                self.diagnostics.at(
                    prop.provenance,
                    codes.IDENTIFIER_COLLISION,
                    f"member {prop.name!r} maps to identifier {str(original)!r} like an earlier member; "
                    f"emitted as {str(ident)!r}",
                )
            # A required member that may be null ("always present, may be null") is required
            # of the class too, so a decoded event holds None only where the wire sent null.
            # A payload lacking it is decoded leniently (runtime ``lenient.py``), which records
            # the absence (``OffSpec.missing``: ``encode`` leaves it out) and reports nothing:
            # such a member tells no message from another; conform insists on it.
            required = prop.required
            fixed = schema.tag(prop.name) if prop.name in tags else None
            if fixed is not None and alternative:
                specs.append(FieldSpec(ident, prop.name, "str", False, prop.description, fixed))
                continue
            outer, self._use = self._use, (owner, prop.name, prop.schema.type == "array")
            try:
                annotation = self.annotation(prop.schema, optional=not required)
            finally:
                self._use = outer
            if fixed is not None:
                annotation = f"Literal[{fixed!r}]" + ("" if required and not prop.schema.nullable else " | None")
            argument = self._argument(prop.schema, annotation, not required)
            specs.append(FieldSpec(ident, prop.name, annotation, required, prop.description, argument=argument))
        return tuple(sorted(specs, key=lambda f: not f.required))

    def _argument(self, schema: Schema, annotation: str, optional: bool) -> str:
        """:attr:`FieldSpec.argument` of a request field of ``schema`` typed ``annotation``."""
        if not self.exact_unions or "Any" not in annotation or self._arguments:
            return ""
        self._arguments = True
        try:
            typed = self.annotation(schema, optional=optional)
        finally:
            self._arguments = False
        return typed if typed != annotation else ""

    def _check_identifier(self, prop: Property, ident: str) -> None:
        """Say when a member's identifier is not just its name re-cased (the alias keeps the wire name)."""
        if not snake(prop.name):
            self.diagnostics.at(
                prop.provenance,
                codes.IDENTIFIER_LOSSY,
                f"member {prop.name!r} has no ASCII letter or digit to name a field after; emitted as {str(ident)!r}",
            )
        elif ident != snake(prop.name):
            self.diagnostics.at(
                prop.provenance,
                codes.IDENTIFIER_RENAMED,
                f"member {prop.name!r} is a keyword, a reserved name or starts with a digit; emitted as {str(ident)!r}",
            )


#: The annotation of each JSON Schema scalar type.  A ``number`` is ``int | float``: JSON has one
#: number type, and an integer sent where the spec says ``number`` (OpenAI Responses'
#: ``created_at: 1741487325``, ``temperature: 1``) stays an ``int``, so encoding the event writes
#: it back as sent, not as ``1741487325.0``; msgspec and pydantic decode such a union exactly.
_SCALARS = {"string": "str", "integer": "int", "number": "int | float", "boolean": "bool"}


def _mappable(name: str) -> bool:
    """True when a decoder field can carry ``name`` as its wire name: msgspec refuses a renamed
    field whose name holds ``"``, ``\\`` or a control character (U+0000 to U+001F)."""
    return not any(ch in '"\\' or ord(ch) < 0x20 for ch in name)


def field_identifiers(schema: Schema) -> dict[str, PythonIdentifier]:
    """Wire name -> Python identifier of each member of ``schema``, unique per class.

    Members whose names map to one identifier (``x-y`` and ``x_y``) are told
    apart by trailing underscores in source order; the accumulation plans read
    members through this same mapping, so they name the right field.
    """
    used: set[str] = set()
    result: dict[str, PythonIdentifier] = {}
    for prop in schema.properties:
        ident = str(PythonIdentifier(prop.name))
        while ident in used:
            ident += "_"
        used.add(ident)
        result[prop.name] = PythonIdentifier.verbatim(ident)
    return result


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
