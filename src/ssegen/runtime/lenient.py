"""Lenient decoding: a payload its message class refuses, decoded member by member.

:func:`lenient_decode` keeps what fits the class and records each member that does not, by
JSON pointer, under ``x-ssegen-off-spec`` (:data:`OFF_SPEC_WIRE`): what the wire sends and the
spec does not know is kept and reported, never dropped.  :class:`ModelLibrary` is the seam a
model flavour (``pydantic_support.py``) replaces.

This module is ``src/ssegen/runtime/lenient.py`` of ssegen, written verbatim into every
output folder's runtime: edit it there, then run ``ssegen generate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import UnionType
from typing import Annotated, Any, Literal, TypeVar, Union, get_args, get_origin

import msgspec

from .json_values import is_array, is_object
from .usage import SentUsage

#: The wire name of the member a leniently decoded event keeps its off-spec members in; no
#: provider sends it (a decoded payload holding it is taken as sent, which changes nothing).
OFF_SPEC_WIRE = "x-ssegen-off-spec"

T = TypeVar("T")


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
    ``off_spec`` (JSON pointer -> value as sent; None for a required member that is
    missing), at the deepest place that does not fit (Mistral's Magistral chunks send
    ``delta.content`` as a list of parts where the spec says a string:
    ``{"/choices/0/delta/content": [...]}``, and the rest of the chunk decodes).

    "Clearly": a JSON object with no member fixed to one value (a ``Literal`` tag) holding
    another value, and either holding at least half of the class's required members (one
    at least; for a class requiring none, members it declares, at least half of the
    object's) or shaped as the class (:func:`_shaped`: AI21's chat chunks send only
    ``id`` and ``choices``, whose elements hold ``index`` and ``delta``), and more of its
    required members than any other of ``classes`` has (the first wins a tie). None when
    no class is. Only called after every typed decode failed, so the fast path pays nothing.
    """
    try:
        raw = msgspec.json.decode(data)
    except msgspec.DecodeError:
        return None
    if not is_object(raw):
        return None
    best: tuple[tuple[int, int], type[T]] | None = None
    for cls in classes:
        score = _closeness(library, cls, raw)
        if score[0] > 0 and (best is None or score > best[0]):
            best = (score, cls)
    if best is None:
        return None
    off: dict[str, Any] = {}
    event = _lenient_object(library, best[1], raw, "", off)
    event.off_spec = off
    typed: T = event  # an instance of best[1], built member by member
    return typed


def _closeness(library: ModelLibrary, cls: Any, raw: dict[str, Any]) -> tuple[int, int]:
    """How many required members of ``cls`` ``raw`` has, and minus how many it lacks;
    ``(0, 0)`` when a tag differs, or when fewer than half of them are there and ``raw``
    is not shaped as ``cls`` (:func:`_shaped`): then it is not clearly this message.

    A class requiring no member (Gemini's ``GenerateContentResponse``: every member
    optional) counts the members ``raw`` has that the class declares instead, when they
    are at least half of ``raw``'s members: a chunk of known members, one of the wrong
    type, is clearly this message; an object of other members is not."""
    present = required = known = 0
    for _, wire, tp, needed in library.fields(cls):
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
    for _, wire, tp, needed in library.fields(cls):
        value = raw.get(wire)
        if not needed or not is_array(value) or not value:
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
    library: ModelLibrary, cls: Any, raw: dict[str, Any], pointer: str, off: dict[str, Any]
) -> Any:
    members: dict[str, Any] = {}
    for name, wire, tp, required in library.fields(cls):
        if wire == OFF_SPEC_WIRE:
            continue
        place = pointer + "/" + wire.replace("~", "~0").replace("/", "~1")
        if wire not in raw:
            if required:
                off[place] = None
                members[name] = None
            continue
        members[name] = _lenient_value(library, tp, raw[wire], place, off)
    return library.build(cls, members)


def _lenient_value(
    library: ModelLibrary, tp: Any, value: Any, pointer: str, off: dict[str, Any]
) -> Any:
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
