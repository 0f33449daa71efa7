"""Lenient decoding: a payload its message class refuses, decoded member by member.

:func:`lenient_decode` keeps what fits the class and records each member that does not, by
JSON pointer, under ``x-ssegen-off-spec`` (:data:`OFF_SPEC_WIRE`): what the wire sends and the
spec does not know is kept and reported, never dropped.  :class:`ModelLibrary` is the seam a
model flavour (``pydantic_support.py``) replaces.

This module is ``src/ssegen/runtime/lenient.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec

from .json_values import is_array, is_object
from .usage import SentUsage

#: The wire name of the member a leniently decoded event keeps its off-spec members in; no
#: provider sends it (a decoded payload holding it is taken as sent, which changes nothing).
OFF_SPEC_WIRE = "x-ssegen-off-spec"

T = TypeVar("T")


class OffSpec(dict[str, Any]):
    """A leniently decoded event's ``off_spec``: a ``dict`` of JSON pointer -> the value as
    sent of each member that does not fit (None for a required member that is missing, as for
    one sent as ``null``: the accumulator reports both so), and beside it :attr:`missing`.

    A payload lacking only members that are required but nullable (:func:`nullable`: "always
    present, may be null", Xerotier's ``finish_reason``) decodes to an event whose
    ``off_spec`` is empty, with their pointers in :attr:`missing`: nothing is reported, and
    ``encode`` writes the event back without them.

    Attributes:
        missing: the JSON pointers of the members the classes declare that the payload did not
            send (required ones, and optional ones), so that ``Channel.encode`` leaves them out
            as the wire did, where the decoded object holds None and the class would have a
            required one written (``encoding.Encoding.json``). Not part of the dict: equality,
            ``msgspec`` and JSON see only the dict.
    """

    __slots__ = ("missing",)

    def __init__(self) -> None:
        super().__init__()
        self.missing: set[str] = set()


class MessagePayload(msgspec.Struct, kw_only=True, omit_defaults=True, gc=False):
    """Base of every generated message payload class (msgspec flavour): the one member where
    an event decoded leniently (:func:`lenient_decode`) keeps what did not fit, written once
    here rather than in each class. A class whose spec declares a member of that identifier
    does not derive from it (its events stay ``UnknownEvent`` when typed decoding fails).

    Attributes:
        off_spec: Not in the spec: set only on an event decoded leniently, the members that did
            not fit (JSON pointer -> the value as sent, an :class:`OffSpec`); the accumulator
            records each in ``errors`` (kind ``member_off_spec``). Wire name
            :data:`OFF_SPEC_WIRE`, which ``encode`` never writes.
    """

    off_spec: dict[str, Any] | None = msgspec.field(default=None, name=OFF_SPEC_WIRE)


class ModelLibrary:
    """What lenient decoding needs to know of the library the message classes are built on
    (msgspec here; ``pydantic_support.PYDANTIC`` for the pydantic flavour), so that one
    algorithm (:func:`lenient_decode`) serves both and they decode alike."""

    def __init__(self) -> None:
        self._fields: dict[Any, list[tuple[str, str, Any, bool]]] = {}

    def fields(self, cls: Any) -> list[tuple[str, str, Any, bool]]:
        """``(attribute, wire name, type, required)`` of each member of class ``cls``, read
        once per class (reading resolves the class's type annotations: about 150 us a call)."""
        known = self._fields.get(cls)
        if known is None:
            known = self._fields[cls] = self.read_fields(cls)
        return known

    def read_fields(self, cls: Any) -> list[tuple[str, str, Any, bool]]:
        """:meth:`fields` of ``cls`` as the library states them (uncached)."""
        return [(f.name, f.encode_name, f.type, f.required) for f in msgspec.structs.fields(cls)]

    def convert(self, tp: Any, value: Any) -> Any:
        """``value`` (plain JSON data) as type ``tp``; raises :class:`ValueError` when it does
        not fit (``msgspec.ValidationError`` is one)."""
        return msgspec.convert(value, tp)

    def build(self, cls: Any, members: dict[str, Any]) -> Any:
        """An instance of ``cls`` from attribute values, not validated."""
        return cls(**members)

    def is_class(self, tp: Any) -> bool:
        """True when ``tp`` is one of the library's message classes."""
        return isinstance(tp, type) and issubclass(tp, msgspec.Struct)

    def plain(self, value: Any) -> Any:
        """``value`` as plain JSON data keyed by wire names, members at their default left
        out (``omit_defaults``), a tagged-union alternative's tag included."""
        return msgspec.to_builtins(value)

    def carries_sent(self, cls: Any) -> bool:
        """True when instances of ``cls`` may carry a usage object as sent (see
        :func:`keep_usage`): the generated classes mixing in ``usage.SentUsage``."""
        return isinstance(cls, type) and issubclass(cls, SentUsage)

    def lists_every_member(self, cls: Any) -> bool:
        """True when ``cls`` refuses members it does not declare (msgspec
        ``forbid_unknown_fields``: a choice's or block's delta, whose unlisted members the
        accumulator keeps): :func:`lenient_decode` then keeps each such member too."""
        return bool(cls.__struct_config__.forbid_unknown_fields)

    def declared(self, cls: Any) -> set[str]:
        """The wire names of the members ``cls`` declares, its tag member included."""
        tag = cls.__struct_config__.tag_field
        return {wire for _, wire, _, _ in self.fields(cls)} | ({tag} if tag else set())

    def tagged_as(self, cls: Any, value: dict[str, Any]) -> bool:
        """False when ``cls`` is a tagged-union alternative whose tag ``value`` lacks or
        gives another value (msgspec ``tag_field``/``tag``)."""
        config = cls.__struct_config__
        return config.tag_field is None or value.get(config.tag_field) == config.tag


MSGSPEC = ModelLibrary()


def lenient_decode(
    data: str, classes: Sequence[type[T]], library: ModelLibrary = MSGSPEC
) -> T | None:
    """The event of a payload that is clearly one of ``classes`` but did not decode: the
    members that fit, typed, and each one that does not kept raw in the event's
    ``off_spec`` (an :class:`OffSpec`: JSON pointer -> value as sent; None for a required
    member that is missing, whose pointer :attr:`OffSpec.missing` holds), at the deepest
    place that does not fit (Mistral's Magistral chunks send ``delta.content`` as a list of
    parts where the spec says a string: ``{"/choices/0/delta/content": [...]}``, and the
    rest of the chunk decodes).

    "Clearly": a JSON object with no member fixed to one value (a ``Literal`` tag) holding
    another value, and either holding at least half of the class's required members (one
    at least; for a class requiring none, members it declares, at least half of the
    object's) or shaped as the class (:func:`_shaped`: AI21's chat chunks send only
    ``id`` and ``choices``, whose elements hold ``index`` and ``delta``), and more of its
    required members than any other of ``classes`` has (the first wins a tie). None when
    no class is. Only called after every typed decode failed, so the fast path pays nothing.

    A payload that is one of ``classes`` (the first, in order) once the members it lacks that
    are required but nullable (:func:`nullable`) are taken as null is that event, with no
    member by member walk: an empty ``off_spec`` whose :attr:`OffSpec.missing` names them
    (:func:`_absent_decoded`).
    """
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    if not is_object(raw):
        return None
    absent = _absent_decoded(library, classes, raw)
    if absent is not None:
        return absent
    best: tuple[tuple[int, int], type[T]] | None = None
    for cls in classes:
        score = _closeness(library, cls, raw)
        if score[0] > 0 and (best is None or score > best[0]):
            best = (score, cls)
    if best is None:
        return None
    off = OffSpec()
    event = None
    if _unlisted_taken(library, best[1], raw, "", off):
        try:  # only members no spec lists were in the way (OpenRouter's delta.reasoning)
            event = library.convert(best[1], raw)
        except ValueError:
            pass
    if event is None:
        event = _lenient_object(library, best[1], raw, "", off)
    event.off_spec = off
    typed: T = event  # an instance of best[1], built member by member
    return typed


#: class -> ``(wire name, type)`` of its members whose type holds a closed class
_TOWARD_CLOSED: dict[Any, list[tuple[str, Any]]] = {}
#: class -> the wire names of its required, nullable members, and ``(wire name, type)`` of
#: its members whose type holds a class that has such members (:func:`_absent_filled`)
_NULLABLE: dict[Any, tuple[list[str], list[tuple[str, Any]]]] = {}
#: (library, classes) -> those of the classes for which :func:`_nullable_in` holds, in order
_HOLDING: dict[tuple[ModelLibrary, tuple[Any, ...]], tuple[Any, ...]] = {}


def _absent_decoded(
    library: ModelLibrary, classes: Sequence[type[T]], raw: dict[str, Any]
) -> T | None:
    """The event of the first of ``classes`` that holds members required but nullable and
    that ``raw`` decodes as once those it lacks are taken as null (each pointer in
    :attr:`OffSpec.missing` of the event's empty ``off_spec``); None when none does (``raw``
    is then as it came)."""
    key = (library, tuple(classes))
    holding = _HOLDING.get(key)
    if holding is None:
        holding = _HOLDING[key] = tuple(c for c in classes if _nullable_in(library, c))
    for cls in holding:
        if not library.tagged_as(cls, raw):
            continue
        off = OffSpec()
        filled: list[tuple[dict[str, Any], str]] = []
        _absent_filled(library, cls, raw, "", off, filled)
        if filled:
            try:
                event = library.convert(cls, raw)
            except ValueError:
                event = None
            if event is not None:
                event.off_spec = off
                typed: T = event  # an instance of cls
                return typed
        for holder, wire in filled:
            del holder[wire]
    return None


def _nullable_in(library: ModelLibrary, cls: Any) -> bool:
    """True when class ``cls`` or a class its members hold has a required, nullable member."""
    absent, toward = _nullable_plan(library, cls)
    return bool(absent or toward)


def _nullable_plan(library: ModelLibrary, cls: Any) -> tuple[list[str], list[tuple[str, Any]]]:
    """``_NULLABLE[cls]``, built once per class (a class met again while it is built counts
    as holding none)."""
    plan = _NULLABLE.get(cls)
    if plan is None:
        _NULLABLE[cls] = ([], [])
        fields = library.fields(cls)
        absent = [wire for _, wire, tp, required in fields if required and nullable(tp)]
        toward = [
            (wire, tp)
            for _, wire, tp, _ in fields
            if any(_nullable_in(library, c) for c in _classes_in(library, tp))
        ]
        plan = _NULLABLE[cls] = (absent, toward)
    return plan


def _classes_in(library: ModelLibrary, tp: Any) -> list[Any]:
    """The message classes type ``tp`` names (``list[Choice] | None`` -> Choice)."""
    if library.is_class(tp):
        return [tp]
    return [c for arg in get_args(tp) for c in _classes_in(library, arg)]


def _absent_filled(
    library: ModelLibrary,
    cls: Any,
    raw: dict[str, Any],
    pointer: str,
    off: OffSpec,
    filled: list[tuple[dict[str, Any], str]],
) -> None:
    """Set to null in ``raw`` (an object of class ``cls``), and in the objects of classes its
    members hold, each member required but nullable that it lacks: its pointer into
    ``off.missing``, ``(object, wire name)`` into ``filled`` (to undo)."""
    absent, toward = _nullable_plan(library, cls)
    for wire in absent:
        if wire not in raw:
            raw[wire] = None
            filled.append((raw, wire))
            off.missing.add(pointer + "/" + _escaped(wire))
    for held, value, place in _held_objects(library, toward, raw, pointer):
        _absent_filled(library, held, value, place, off, filled)


def _held_objects(
    library: ModelLibrary, toward: list[tuple[str, Any]], raw: dict[str, Any], pointer: str
) -> Iterator[tuple[Any, dict[str, Any], str]]:
    """``(class, object, JSON pointer)`` of each object that the members ``toward`` (``(wire
    name, type)``) of ``raw`` (at ``pointer``) hold, directly or as array elements, and whose
    class their type names (:func:`_object_class`, :func:`_item_class`)."""
    for wire, tp in toward:
        value = raw.get(wire)
        place = pointer + "/" + _escaped(wire)
        if is_array(value):
            item = _item_class(library, tp)
            for i, element in enumerate(value):
                if item is not None and is_object(element):
                    yield item, element, f"{place}/{i}"
        elif is_object(value):
            option = _object_class(library, tp, value)
            if option is not None:
                yield option, value, place


def _unlisted_taken(
    library: ModelLibrary, cls: Any, raw: dict[str, Any], pointer: str, off: OffSpec
) -> bool:
    """Take out of ``raw`` (an object of class ``cls``) the members that a closed class on
    the way (:meth:`ModelLibrary.lists_every_member`: a choice's delta) does not declare,
    each into ``off`` at its JSON pointer; True when one was. ``raw`` then decodes as the
    class when nothing else was off the spec: a chunk carrying OpenRouter's
    ``delta.reasoning`` costs a few dict operations, not the member-by-member walk."""
    taken = _undeclared_taken(library, cls, raw, pointer, off)
    toward = _TOWARD_CLOSED.get(cls)
    if toward is None:
        toward = _TOWARD_CLOSED[cls] = [
            (wire, tp) for _, wire, tp, _ in library.fields(cls) if _closed_in(library, tp, set())
        ]
    for held, value, place in _held_objects(library, toward, raw, pointer):
        taken = _unlisted_taken(library, held, value, place, off) or taken
    return taken


def _undeclared_taken(
    library: ModelLibrary, cls: Any, raw: dict[str, Any], pointer: str, off: OffSpec
) -> bool:
    """Take out of ``raw`` the members class ``cls`` does not declare when it lists every
    member (into ``off``, at their JSON pointers); True when one was."""
    if not library.lists_every_member(cls):
        return False
    declared = library.declared(cls)
    undeclared = [w for w in raw if w not in declared]
    for wire in undeclared:
        off[pointer + "/" + _escaped(wire)] = raw.pop(wire)
    return bool(undeclared)


def _closed_in(library: ModelLibrary, tp: Any, seen: set[Any]) -> bool:
    """True when type ``tp`` holds (at any depth) a class that lists every member."""
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    if library.is_class(tp):
        if tp in seen:
            return False
        seen.add(tp)
        return library.lists_every_member(tp) or any(
            _closed_in(library, t, seen) for _, _, t, _ in library.fields(tp)
        )
    return any(_closed_in(library, arg, seen) for arg in get_args(tp))


def _object_class(library: ModelLibrary, tp: Any, value: dict[str, Any]) -> Any:
    """The class of type ``tp`` (``Delta``, ``Delta | None``, a tagged union) that the
    object ``value`` is, else None."""
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    options = get_args(tp) if get_origin(tp) in (Union, UnionType) else (tp,)
    for option in options:
        if library.is_class(option) and library.tagged_as(option, value):
            return option
    return None


def _closeness(library: ModelLibrary, cls: Any, raw: dict[str, Any]) -> tuple[int, int]:
    """How many required members of ``cls`` ``raw`` has, and minus how many it lacks;
    ``(0, 0)`` when a tag differs, or when fewer than half of them are there and ``raw``
    is not shaped as ``cls`` (:func:`_shaped`): then it is not clearly this message.

    A class requiring no member (Gemini's ``GenerateContentResponse``: every member
    optional) counts the members ``raw`` has that the class declares instead, when they
    are at least half of ``raw``'s members: a chunk of known members, one of the wrong
    type, is clearly this message; an object of other members is not."""
    present = required = known = 0
    for _, wire, tp, required_member in library.fields(cls):
        needed = required_member and not nullable(tp)
        required += needed
        if wire in raw:
            literal = literal_values(tp)
            if literal is not None and raw[wire] not in literal and raw[wire] is not None:
                return (0, 0)
            present += needed
            known += 1
    if not required:
        return (known, 0) if 2 * known >= len(raw) else (0, 0)
    if 2 * present >= required or _shaped(library, cls, raw):
        return (present, present - required)
    return (0, 0)


def _shaped(library: ModelLibrary, cls: Any, raw: dict[str, Any]) -> bool:
    """True when ``raw`` has the shape of ``cls`` where it counts: a required member of
    ``cls`` that is an array of objects (a chat chunk's ``choices``) holds a non-empty array
    whose every element is clearly the item class (:func:`_closeness`: ``index`` or
    ``delta`` of a chunk choice's two required members). The envelope's other members may
    be missing (AI21 sends no ``object``, ``created`` nor ``model``): an object with
    ``choices`` shaped so is a chat chunk whatever else it lacks."""
    for _, wire, tp, required in library.fields(cls):
        value = raw.get(wire)
        if not required or nullable(tp) or not is_array(value) or not value:
            continue
        item = _item_class(library, tp)
        if item is not None and all(
            is_object(v) and _closeness(library, item, v)[0] > 0 for v in value
        ):
            return True
    return False


def _item_class(library: ModelLibrary, tp: Any) -> Any:
    """The message class of the items of an array type (``list[Choice]``, also inside
    ``Annotated`` or ``| None``), else None."""
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    if get_origin(tp) in (Union, UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        tp = options[0] if len(options) == 1 else None
    args = get_args(tp) if get_origin(tp) is list else ()
    return args[0] if args and library.is_class(args[0]) else None


def nullable(tp: Any) -> bool:
    """True when type ``tp`` is a union with None (``T | None``, ``Optional[T]``, also inside
    ``Annotated``): a required member of that type is one the spec says is "always present,
    may be null", which decoding requires (an event holds None only for a ``null`` sent) but
    which tells no message from another, so :func:`lenient_decode` neither counts it as
    required nor reports it missing. ``Any`` is not: a required member of any JSON value
    counts, as the typed decoder's."""
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    return get_origin(tp) in (Union, UnionType) and type(None) in get_args(tp)


def literal_values(tp: Any) -> tuple[Any, ...] | None:
    """The values of a ``Literal`` type (or of ``Literal | None``), else None."""
    if get_origin(tp) is Literal:
        return get_args(tp)
    if get_origin(tp) in (Union, UnionType):
        options = [a for a in get_args(tp) if a is not type(None)]
        if len(options) == 1 and get_origin(options[0]) is Literal:
            return get_args(options[0])
    return None


def _lenient_object(
    library: ModelLibrary, cls: Any, raw: dict[str, Any], pointer: str, off: OffSpec
) -> Any:
    members: dict[str, Any] = {}
    for name, wire, tp, required in library.fields(cls):
        if wire == OFF_SPEC_WIRE:
            continue
        place = pointer + "/" + _escaped(wire)
        if wire not in raw:
            off.missing.add(place)
            if required:
                members[name] = None
                if not nullable(tp):  # a required, nullable member tells no message apart
                    off[place] = None
            continue
        members[name] = _lenient_value(library, tp, raw[wire], place, off)
    if library.lists_every_member(cls):
        # A member the class does not declare (OpenRouter's ``delta.reasoning``), as sent.
        declared = library.declared(cls)
        for wire, value in raw.items():
            if wire not in declared:
                off[pointer + "/" + _escaped(wire)] = value
    return library.build(cls, members)


def _escaped(wire: str) -> str:
    """``wire`` as one reference token of a JSON pointer (RFC 6901)."""
    return wire.replace("~", "~0").replace("/", "~1")


def _lenient_value(library: ModelLibrary, tp: Any, value: Any, pointer: str, off: OffSpec) -> Any:
    try:
        return library.convert(tp, value)
    except ValueError:
        pass
    if get_origin(tp) is Annotated:
        tp = get_args(tp)[0]
    options = get_args(tp) if get_origin(tp) in (Union, UnionType) else (tp,)
    for option in options:
        if library.is_class(option) and is_object(value):
            if not library.tagged_as(option, value):
                continue
            return _lenient_object(library, option, value, pointer, off)
        if get_origin(option) is list and is_array(value):
            item = get_args(option)[0] if get_args(option) else Any
            return [
                _lenient_value(library, item, v, f"{pointer}/{i}", off) for i, v in enumerate(value)
            ]
    off[pointer] = value
    return None
